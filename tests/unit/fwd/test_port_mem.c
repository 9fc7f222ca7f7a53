/* tests/unit/fwd/test_port_mem.c: the in-memory port: inject/receive/release,
 * capture, replay, fwd_out, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fwd/fwd_port.h"

static struct fwd_port *
mk(unsigned nbufs, unsigned capture)
{
	struct fwd_port_mem_conf c = {.id = 5,
	    .nbufs = nbufs,
	    .capture = capture,
	    .mac = {2, 0, 0, 0, 0, 5}};
	struct fwd_port *p = fwd_port_mem_new(&c);

	assert_non_null(p);
	return (p);
}

static void
test_inject_rx_release(void **st)
{
	struct fwd_port *p = mk(4, 0);
	struct fwd_pkt *pk[8];
	uint8_t f[100];

	(void)st;
	assert_int_equal(p->id, 5);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->mac[5], 5);
	for (unsigned i = 0; i < 4; i++) {
		memset(f, (int)i, sizeof(f));
		assert_int_equal(fwd_port_mem_inject(p, f, 60 + i), 0);
	}
	assert_int_equal(fwd_port_mem_inject(p, f, 60), -ENOBUFS);
	assert_int_equal(fwd_port_rx(p, pk, 3), 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(pk[i]->len, 60 + i);
		assert_int_equal(pk[i]->data[0], i);
		assert_int_equal(pk[i]->port, 5);
		assert_ptr_equal(pk[i]->owner, p);
		/* the IPv4 header (frame + 14) lands on a 4-byte boundary */
		assert_int_equal(((uintptr_t)pk[i]->data + 14) % 4, 0);
	}
	assert_int_equal(fwd_port_rx(p, pk + 3, 5), 1);
	assert_int_equal(fwd_port_rx(p, pk, 5), 0);
	assert_int_equal(fwd_port_mem_inuse(p), 4);
	fwd_pkt_release(pk, 4);
	assert_int_equal(fwd_port_mem_inuse(p), 0);
	assert_int_equal(p->stats.rx_pkts, 4);
	assert_int_equal(p->stats.rx_bytes, 60 + 61 + 62 + 63);
	assert_int_equal(fwd_port_mem_inject(p, f, 0), -EMSGSIZE);
	assert_int_equal(fwd_port_mem_inject(p, f, FWD_FRAME_MAX + 1),
	    -EMSGSIZE);
	fwd_port_free(p);
}

static void
test_capture(void **st)
{
	struct fwd_port *rx = mk(8, 0), *tx = mk(8, 2);
	struct fwd_pkt *pk[4];
	uint8_t f[64], o[64];

	(void)st;
	for (unsigned i = 0; i < 3; i++) {
		memset(f, 'a' + (int)i, sizeof(f));
		assert_int_equal(fwd_port_mem_inject(rx, f, 64), 0);
	}
	assert_int_equal(fwd_port_rx(rx, pk, 4), 3);
	/* tx takes ownership: the rx buffers come back to rx */
	assert_int_equal(fwd_port_tx(tx, pk, 3), 3);
	assert_int_equal(fwd_port_mem_inuse(rx), 0);
	/* capture of 2 keeps the newest two */
	assert_int_equal(fwd_port_mem_pending(tx), 2);
	assert_int_equal(fwd_port_mem_take(tx, o, sizeof(o)), 64);
	assert_int_equal(o[0], 'b');
	assert_int_equal(fwd_port_mem_take(tx, o, 10), 64); /* truncated */
	assert_int_equal(o[0], 'c');
	assert_int_equal(fwd_port_mem_take(tx, o, sizeof(o)), -ENOENT);
	assert_int_equal(tx->stats.tx_pkts, 3);
	fwd_port_free(rx);
	fwd_port_free(tx);
}

static void
test_replay(void **st)
{
	static const uint8_t a[60] = {1}, b[70] = {2};
	const uint8_t *fr[2] = {a, b};
	uint16_t lens[2] = {60, 70};
	struct fwd_port *p = mk(4, 0);
	struct fwd_pkt *pk[8];

	(void)st;
	fwd_port_mem_replay(p, fr, lens, 2);
	/* only as many as there are free buffers */
	assert_int_equal(fwd_port_rx(p, pk, 8), 4);
	assert_int_equal(pk[0]->data[0], 1);
	assert_int_equal(pk[1]->data[0], 2);
	assert_int_equal(pk[2]->len, 60);
	assert_int_equal(pk[3]->len, 70);
	pk[0]->data[0] = 9; /* a copy: the template is untouched */
	fwd_pkt_release(pk, 4);
	assert_int_equal(fwd_port_rx(p, pk, 1), 1);
	assert_int_equal(pk[0]->data[0], 1);
	fwd_pkt_release(pk, 1);
	fwd_port_mem_replay(p, NULL, NULL, 0);
	assert_int_equal(fwd_port_rx(p, pk, 1), 0);
	fwd_port_free(p);
}

static void
test_out(void **st)
{
	struct fwd_out *o = calloc(1, sizeof(*o));
	struct fwd_port *p = mk(4, 8), *ports[6] = {0};
	uint8_t buf[100];

	(void)st;
	assert_non_null(o);
	ports[5] = p;
	for (unsigned i = 0; i < FWD_OUT_MAX; i++) {
		uint8_t *d = fwd_out_push(o, i < 3 ? 5 : 4, 60);

		assert_non_null(d);
		d[0] = (uint8_t)i;
	}
	assert_null(fwd_out_push(o, 5, 60));
	assert_int_equal(o->overflow, 1);
	assert_null(fwd_out_push(o, 5, FWD_FRAME_MAX + 1));
	fwd_out_pop(o);
	assert_int_equal(o->n, FWD_OUT_MAX - 1);
	/* port 4 is missing: those frames are dropped */
	assert_int_equal(fwd_out_send(o, ports, 6), 3);
	assert_int_equal(o->n, 0);
	assert_int_equal(fwd_port_mem_pending(p), 3);
	assert_int_equal(fwd_port_mem_take(p, buf, sizeof(buf)), 60);
	assert_int_equal(buf[0], 0);
	fwd_port_free(p);
	free(o);
}

static void
test_errors(void **st)
{
	struct fwd_port_mem_conf c = {.id = FWD_PORT_MAX};

	(void)st;
	assert_null(fwd_port_mem_new(&c));
	assert_int_equal(errno, EINVAL);
	assert_null(fwd_port_mem_new(NULL));
	fwd_port_free(NULL);
}

/* A memory port has nothing to sleep on and no busy-poll (port ops). */
static void
test_no_fd(void **st)
{
	struct fwd_port_mem_conf c = {.id = 1};
	struct fwd_port *p = fwd_port_mem_new(&c);

	(void)st;
	assert_non_null(p);
	assert_int_equal(fwd_port_fd(p), -1);
	assert_int_equal(fwd_port_busy_poll(p, 50, FWD_BURST), -EOPNOTSUPP);
	fwd_port_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inject_rx_release),
	    cmocka_unit_test(test_capture),
	    cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_out),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_no_fd),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
