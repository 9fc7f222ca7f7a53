/* tests/unit/ipc/test_frame.c: the frame decoder on bad input, and a live server fed truncated, oversized, garbled, unknown-method and wrong-version frames over a raw socket: error replies or counted drops, and it keeps serving. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

/* ---- building frames by hand ---- */

struct fb {
	uint8_t b[1 << 16];
	size_t len, hdr;
	uint32_t count;
};

static void
fb_begin(struct fb *f, uint8_t version)
{
	uint32_t magic = IPC_MAGIC, z = 0;
	uint16_t hl = IPC_FRAME_HDR;
	uint64_t gen = 5;

	f->hdr = f->len;
	f->count = 0;
	memcpy(f->b + f->len, &magic, 4);
	f->b[f->len + 4] = version;
	f->b[f->len + 5] = 0;
	memcpy(f->b + f->len + 6, &hl, 2);
	memcpy(f->b + f->len + 8, &z, 4);
	memcpy(f->b + f->len + 12, &z, 4);
	memcpy(f->b + f->len + 16, &gen, 8);
	f->len += IPC_FRAME_HDR;
}

static void
fb_rec(struct fb *f, uint32_t id, uint8_t svc, uint8_t kind, uint16_t method,
    const void *p, uint32_t plen)
{
	int32_t st = 0;

	memcpy(f->b + f->len, &id, 4);
	f->b[f->len + 4] = svc;
	f->b[f->len + 5] = kind;
	memcpy(f->b + f->len + 6, &method, 2);
	memcpy(f->b + f->len + 8, &st, 4);
	memcpy(f->b + f->len + 12, &plen, 4);
	memcpy(f->b + f->len + 16, p, plen);
	f->len += IPC_REC_HDR + plen;
	f->count++;
}

static void
fb_end(struct fb *f)
{
	uint32_t length = (uint32_t)(f->len - f->hdr - IPC_FRAME_HDR);

	memcpy(f->b + f->hdr + 8, &f->count, 4);
	memcpy(f->b + f->hdr + 12, &length, 4);
}

static unsigned nrec;
static struct ipc_rec last[64];

static void
collect(const struct ipc_rec *r, void *arg)
{
	(void)arg;
	if (nrec < 64)
		last[nrec] = *r;
	nrec++;
}

/* ---- decoder unit tests ---- */

static void
test_decoder(void **state)
{
	struct fb f = {.len = 0};
	uint8_t pl[8] = {0};
	size_t cut;
	uint32_t bad;

	(void)state;
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, 1, 3, IPC_K_REQ, 1, pl, 4);
	fb_rec(&f, 2, 3, IPC_K_REQ, 4, pl, 0);
	fb_end(&f);
	nrec = 0;
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, collect,
			     NULL),
	    1);
	assert_int_equal(nrec, 2);
	assert_int_equal(last[0].id, 1);
	assert_int_equal(last[0].len, 4);
	assert_int_equal(last[1].method, 4);

	/* every truncation is refused, never read past the end */
	for (cut = 0; cut < f.len; cut++)
		assert_int_equal(ipc_frame_parse_all(f.b, cut, 1 << 20, NULL,
				     NULL),
		    cut == 0 ? 0 : -EBADMSG);
	/* oversized against frame_max */
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 40, NULL, NULL),
	    -EMSGSIZE);
	/* wrong version */
	f.b[4] = 9;
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EPROTONOSUPPORT);
	f.b[4] = IPC_FRAME_VERSION;
	/* garbled magic */
	f.b[0] ^= 0xff;
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EBADMSG);
	f.b[0] ^= 0xff;
	/* record length past the frame, count larger than the records */
	bad = 1000;
	memcpy(f.b + IPC_FRAME_HDR + 12, &bad, 4);
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EBADMSG);
	bad = 4;
	memcpy(f.b + IPC_FRAME_HDR + 12, &bad, 4);
	bad = 3;
	memcpy(f.b + 8, &bad, 4);
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EBADMSG);
	bad = 0xffffffffu; /* count overflow guard */
	memcpy(f.b + 8, &bad, 4);
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EBADMSG);
	bad = 2;
	memcpy(f.b + 8, &bad, 4);
	/* unknown record kind */
	f.b[IPC_FRAME_HDR + 5] = 7;
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    -EBADMSG);
	f.b[IPC_FRAME_HDR + 5] = IPC_K_REQ;
	assert_int_equal(ipc_frame_parse_all(f.b, f.len, 1 << 20, NULL, NULL),
	    1);
}

/* ---- a live server ---- */

static char rundir[128];
static struct ev_loop *loop;
static struct ipc_server *srv;
static unsigned handled;

static void
h_batch(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Rib__RouteBatchAck ack = RIB__ROUTE_BATCH_ACK__INIT;

	(void)arg;
	handled++;
	ack.seq = ((const Rib__RouteBatch *)m)->seq;
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

static int
setup(void **state)
{
	struct ipc_opts o;
	char parent[128];

	(void)state;
	snprintf(parent, sizeof(parent), "/tmp/tern-ipc-frame.%d",
	    (int)getpid());
	(void)mkdir(parent, 0755);
	snprintf(rundir, sizeof(rundir), "%s/run", parent);
	loop = lc_loop_new();
	memset(&o, 0, sizeof(o));
	o.rundir = rundir;
	o.component = "rib";
	o.frame_max = 8192;
	srv = ipc_server_new(loop, &ipc_svc_rib, &o);
	assert_non_null(srv);
	assert_int_equal(ipc_server_handle(srv, RIB__METHOD__ROUTE_BATCH,
			     h_batch, NULL),
	    0);
	return (0);
}

static int
teardown(void **state)
{
	char cmd[200];

	(void)state;
	ipc_server_free(srv);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/tern-ipc-frame.%d",
	    (int)getpid());
	(void)system(cmd);
	return (0);
}

static int
raw_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
	    ipc_server_path(srv, false));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return (fd);
}

static void
spin(double s)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(s * 1e9);

	while (lc_time_mono_ns() < end) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(500);
	}
}

/* Sends f, lets the server run, and parses what came back. Returns bytes read (0 on EOF), -1 if nothing. */
static ssize_t
exchange(int fd, const void *p, size_t len, uint8_t *in, size_t inlen)
{
	ssize_t n, total = 0;

	if (len > 0)
		assert_int_equal(write(fd, p, len), (ssize_t)len);
	spin(0.03);
	while ((n = read(fd, in + total, inlen - (size_t)total)) > 0)
		total += n;
	if (n == 0 && total == 0)
		return (0);
	return (total > 0 ? total : -1);
}

static void
good_call(int fd, uint32_t id)
{
	struct fb f = {.len = 0};
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	uint8_t pl[64], in[4096];
	size_t plen;
	ssize_t n;

	b.seq = id;
	plen = rib__route_batch__pack(&b, pl);
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, id, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ,
	    RIB__METHOD__ROUTE_BATCH, pl, (uint32_t)plen);
	fb_end(&f);
	n = exchange(fd, f.b, f.len, in, sizeof(in));
	assert_true(n > 0);
	nrec = 0;
	assert_int_equal(ipc_frame_parse_all(in, (size_t)n, 1 << 20, collect,
			     NULL),
	    1);
	assert_int_equal(nrec, 1);
	assert_int_equal(last[0].id, id);
	assert_int_equal(last[0].status, IPC_OK);
}

static void
expect_error(const uint8_t *in, ssize_t n, uint32_t id, int status,
    const char *text)
{
	assert_true(n > 0);
	nrec = 0;
	assert_true(
	    ipc_frame_parse_all(in, (size_t)n, 1 << 20, collect, NULL) >= 1);
	assert_int_equal(last[0].kind, IPC_K_REP);
	assert_int_equal(last[0].id, id);
	assert_int_equal(last[0].status, status);
	if (text != NULL) {
		assert_true(last[0].len >= strlen(text));
		assert_memory_equal(last[0].payload, text, strlen(text));
	}
}

static void
test_malformed(void **state)
{
	struct fb f = {.len = 0};
	uint8_t in[4096], junk[64];
	struct ipc_stats st0, st;
	uint32_t big;
	int fd, fd2;
	ssize_t n;

	(void)state;
	fd = raw_connect();
	good_call(fd, 1);
	ipc_server_stats(srv, &st0);

	/* unknown method id and unknown service: an error reply each */
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, 2, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ, 999, junk, 0);
	fb_rec(&f, 3, 77, IPC_K_REQ, 1, junk, 0);
	fb_rec(&f, 4, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ, 0, junk, 0);
	fb_end(&f);
	n = exchange(fd, f.b, f.len, in, sizeof(in));
	expect_error(in, n, 2, IPC_UNKNOWN_METHOD, "unknown method");
	assert_int_equal(nrec, 3);
	assert_int_equal(last[1].status, IPC_UNKNOWN_METHOD);
	assert_int_equal(last[2].status, IPC_UNKNOWN_METHOD);

	/* garbled payload: BAD_REQUEST, handler not run */
	memset(junk, 0xff, sizeof(junk));
	f.len = 0;
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, 5, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ,
	    RIB__METHOD__ROUTE_BATCH, junk, sizeof(junk));
	fb_end(&f);
	handled = 0;
	n = exchange(fd, f.b, f.len, in, sizeof(in));
	expect_error(in, n, 5, IPC_BAD_REQUEST, "request payload");
	assert_int_equal(handled, 0);

	/* records that do not add up: the frame is refused as a whole */
	f.len = 0;
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, 6, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ,
	    RIB__METHOD__ROUTE_BATCH, junk, 0);
	fb_end(&f);
	big = 2;
	memcpy(f.b + 8, &big, 4);
	n = exchange(fd, f.b, f.len, in, sizeof(in));
	expect_error(in, n, 0, IPC_BAD_REQUEST, "malformed records");

	/* wrong version: refused with VERSION, skipped, connection kept */
	f.len = 0;
	fb_begin(&f, 9);
	fb_rec(&f, 7, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ, 1, junk, 8);
	fb_end(&f);
	n = exchange(fd, f.b, f.len, in, sizeof(in));
	expect_error(in, n, 0, IPC_VERSION, "unsupported frame version");
	good_call(fd, 8);

	/* oversized (server frame_max 8192): TOO_BIG, the bytes skipped, connection kept */
	{
		static uint8_t huge[20000];
		struct fb *hf = calloc(1, sizeof(*hf));

		fb_begin(hf, IPC_FRAME_VERSION);
		fb_rec(hf, 9, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ, 1,
		    huge, 10000);
		fb_end(hf);
		n = exchange(fd, hf->b, hf->len, in, sizeof(in));
		expect_error(in, n, 0, IPC_TOO_BIG, "frame over");
		free(hf);
	}
	good_call(fd, 10);

	/* a truncated frame followed by a hang-up: nothing happens, no crash */
	fd2 = raw_connect();
	f.len = 0;
	fb_begin(&f, IPC_FRAME_VERSION);
	fb_rec(&f, 11, LIFECYCLE__SERVICE__SERVICE_RIB, IPC_K_REQ, 1, junk, 40);
	fb_end(&f);
	assert_int_equal(write(fd2, f.b, f.len - 20), (ssize_t)(f.len - 20));
	spin(0.02);
	close(fd2);
	spin(0.02);

	/* garbage header: BAD_REQUEST reply, then the server hangs up that connection */
	memset(junk, 0x5a, sizeof(junk));
	n = exchange(fd, junk, 32, in, sizeof(in));
	expect_error(in, n, 0, IPC_BAD_REQUEST, "bad frame header");
	spin(0.02);
	assert_int_equal(read(fd, in, sizeof(in)), 0); /* EOF */
	close(fd);

	ipc_server_stats(srv, &st);
	assert_true(st.drops - st0.drops >= 6);
	/* and it keeps serving */
	fd = raw_connect();
	good_call(fd, 12);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decoder),
	    cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
