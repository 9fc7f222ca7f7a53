/* tests/unit/ipc/test_alloc.c: no malloc per call in steady state: calls, replies, batching and decoding counted with a wrapping allocator (-Wl,--wrap=malloc,calloc,realloc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);

static unsigned long allocs;

void *
__wrap_malloc(size_t n)
{
	allocs++;
	return (__real_malloc(n));
}

void *
__wrap_calloc(size_t a, size_t b)
{
	allocs++;
	return (__real_calloc(a, b));
}

void *
__wrap_realloc(void *p, size_t n)
{
	allocs++;
	return (__real_realloc(p, n));
}

static unsigned handled, done, ok;

static void
h_batch(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	const Rib__RouteBatch *b = (const Rib__RouteBatch *)m;
	Rib__RouteBatchAck ack = RIB__ROUTE_BATCH_ACK__INIT;

	(void)arg;
	handled++;
	ack.seq = b->seq;
	ack.accepted = (uint32_t)b->n_add;
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

static void
cb(void *arg, int status, const struct lc_err *err, const ProtobufCMessage *m)
{
	(void)arg;
	(void)err;
	done++;
	if (status == IPC_OK && m != NULL &&
	    ((const Rib__RouteBatchAck *)m)->accepted == 2)
		ok++;
}

static void
run_calls(struct ev_loop *loop, struct ipc_client *c, unsigned turns,
    unsigned per_turn)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	Rib__Route rt[2], *rts[2] = {&rt[0], &rt[1]};
	uint32_t nh[2] = {0x010012c6, 0x020012c6}, ifx[2] = {2, 3};
	unsigned t, i, want;
	uint64_t end;

	for (i = 0; i < 2; i++) {
		rib__route__init(&rt[i]);
		rt[i].prefix = 0x000012c6 + (i << 16);
		rt[i].len = 24;
		rt[i].n_nh_addr = 2;
		rt[i].nh_addr = nh;
		rt[i].n_nh_ifindex = 2;
		rt[i].nh_ifindex = ifx;
	}
	b.source = RIB__SOURCE__STATIC;
	b.n_add = 2;
	b.add = rts;
	for (t = 0; t < turns; t++) {
		want = done + per_turn;
		for (i = 0; i < per_turn; i++) {
			b.seq = t * per_turn + i;
			assert_int_equal(ipc_call(c, RIB__METHOD__ROUTE_BATCH,
					     &b.base, cb, NULL, 0),
			    0);
		}
		end = lc_time_mono_ns() + 2000000000ULL;
		while (done < want && lc_time_mono_ns() < end)
			ev_run(loop, EVRUN_ONCE);
		assert_int_equal(done, want);
	}
}

static void
test_no_malloc_steady_state(void **state)
{
	char parent[64], rundir[96], cmd[128];
	struct ev_loop *loop = lc_loop_new();
	struct ipc_opts o;
	struct ipc_server *s;
	struct ipc_client *c;
	unsigned long before;

	(void)state;
	snprintf(parent, sizeof(parent), "/tmp/tern-ipc-alloc.%d",
	    (int)getpid());
	(void)mkdir(parent, 0755);
	snprintf(rundir, sizeof(rundir), "%s/run", parent);
	memset(&o, 0, sizeof(o));
	o.rundir = rundir;
	o.component = "rib";
	s = ipc_server_new(loop, &ipc_svc_rib, &o);
	assert_non_null(s);
	assert_int_equal(ipc_server_handle(s, RIB__METHOD__ROUTE_BATCH, h_batch,
			     NULL),
	    0);
	o.component = "test";
	c = ipc_client_new(loop, &ipc_svc_rib, &o, false);
	assert_non_null(c);

	/* warm up: buffers, pools, arenas and the call table reach their size */
	run_calls(loop, c, 20, 500);
	before = allocs;
	run_calls(loop, c, 40, 500);
	printf("allocations during 20000 calls in steady state: %lu\n",
	    allocs - before);
	assert_int_equal(allocs - before, 0);
	assert_int_equal(ok, done);
	assert_int_equal(handled, 30000);
	/* the counter is live: a new client allocates */
	before = allocs;
	ipc_client_free(c);
	c = ipc_client_new(loop, &ipc_svc_rib, &o, false);
	assert_true(allocs > before);
	ipc_client_free(c);
	ipc_server_free(s);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", parent);
	(void)system(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_malloc_steady_state),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
