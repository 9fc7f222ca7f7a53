/* tests/unit/fwd/test_daemon6.c: IPv6 in the tern-fwd daemon object over
 * in-memory ports: the interfaces' addresses as the router's own (/128s,
 * connected prefixes), FIB6 batches through the IPC service (FibAck
 * ipv6_ok), QUERY_FIB ipv6, neighbours' host routes, the resync sweep, and
 * ICMPv6 from the slow path (echo reply, Time Exceeded, Packet Too Big
 * with the egress MTU, no route), checksums verified independently. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "fwd/fwd_d.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static struct ev_loop *loop;
static struct fwd_d *D;
static struct ipc_client *cl;
static struct lc_arena *ar;
static char rundir[64];

static struct fwd_port *
port_new(void *arg, const char *name, uint16_t id, int w)
{
	struct fwd_port_mem_conf mc = {.id = id,
	    .mac = {0x02, 0x74, 0xaa, 0, 0, (uint8_t)id},
	    .mtu = id == 1 ? 1400 : 1500,
	    .capture = 64};
	(void)arg;
	(void)name;
	(void)w;
	return (fwd_port_mem_new(&mc));
}

static const uint8_t h1mac[6] = {0x02, 0, 0, 0, 1, 2};
static const uint8_t h2mac[6] = {0x02, 0, 0, 0, 2, 2};
static const uint8_t mac0[6] = {0x02, 0x74, 0xaa, 0, 0, 0};

/* ---- an independent checksum: RFC 1071 over an explicit pseudo-header
 * (RFC 8200 8.1) built byte by byte ---- */
static uint16_t
ref_cksum6(const uint8_t *ip6)
{
	unsigned plen = (unsigned)(ip6[4] << 8 | ip6[5]);
	uint8_t buf[40 + 2048];
	uint32_t sum = 0;
	unsigned n = 0;

	memcpy(buf, ip6 + 8, 32);
	buf[32] = (uint8_t)(plen >> 24);
	buf[33] = (uint8_t)(plen >> 16);
	buf[34] = (uint8_t)(plen >> 8);
	buf[35] = (uint8_t)plen;
	buf[36] = buf[37] = buf[38] = 0;
	buf[39] = 58;
	memcpy(buf + 40, ip6 + 40, plen);
	n = 40 + plen;
	for (unsigned i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(buf[i] << 8 | buf[i + 1]);
	if (n & 1)
		sum += (uint32_t)buf[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ((uint16_t)sum); /* 0xffff: the message's checksum is good */
}

static int
setup(void **st)
{
	struct fwd_d_conf c = {0};
	struct ipc_opts o = {0};

	(void)st;
	lc_log_init("test_daemon6", LC_LOG_WARNING, LC_LOG_STDERR);
	snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdd6-XXXXXX");
	assert_non_null(mkdtemp(rundir));
	assert_non_null(loop = lc_loop_new());
	c.rundir = rundir;
	c.generation = 7;
	c.allow_mem = true;
	c.nd_no_dad = true; /* addresses in use at once (test_daemon: DAD) */
	c.port_new = port_new;
	assert_non_null(D = fwd_d_new(loop, &c));
	o.rundir = rundir;
	o.component = "test";
	assert_non_null(cl = ipc_client_new(loop, &ipc_svc_fwd, &o, false));
	ar = lc_arena_new(0);
	return (0);
}

static int
teardown(void **st)
{
	char cmd[128];

	(void)st;
	ipc_client_free(cl);
	fwd_d_free(D);
	lc_loop_free(loop);
	lc_arena_free(ar);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	(void)!system(cmd);
	return (0);
}

static ProtobufCMessage *
call(unsigned method, const ProtobufCMessage *msg)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, method, msg, 3000, ar, &rep, &err);

	if (st != IPC_OK)
		fail_msg("call %u: %s: %s", method, ipc_status_str(st),
		    err.msg);
	return (rep);
}

/* 2001:2:0:x::y */
static const uint8_t *
A(uint16_t x, uint16_t y)
{
	static uint8_t a[8][16];
	static unsigned i;
	uint8_t *p = a[i++ % 8];

	tf_ip6(p, x, y);
	return (p);
}

/* mem0: 2001:2:0:100::1/64 (MTU 1500), mem1: 2001:2:0:200::1/64 (MTU
 * 1400), both with IPv4 too (198.19.61.1/24, .2.1/24). */
static void
config(unsigned naddr6, const char *bad_ll)
{
	struct fwd_if_req rq[2];
	struct lc_err err;

	memset(rq, 0, sizeof(rq));
	for (unsigned i = 0; i < 2; i++) {
		rq[i].name = i == 0 ? "mem0" : "mem1";
		rq[i].enabled = true;
		rq[i].backend = "mem";
		rq[i].naddr = 1;
		rq[i].addr[0] = 0xc6133d01u + (i << 8);
		rq[i].plen[0] = 24;
		rq[i].naddr6 = naddr6;
		if (naddr6 > 0) {
			memcpy(rq[i].addr6[0],
			    A((uint16_t)(0x100 * (i + 1)), 1), 16);
			rq[i].plen6[0] = 64;
		}
	}
	if (bad_ll != NULL) {
		rq[0].has_ll = true;
		assert_int_equal(inet_pton(AF_INET6, bad_ll, rq[0].ll6), 1);
		assert_int_equal(fwd_d_if_apply(D, rq, 2, true, false, &err),
		    -EINVAL);
		assert_non_null(strstr(err.msg, "link-local"));
		return;
	}
	assert_int_equal(fwd_d_if_apply(D, rq, 2, true, false, &err), 0);
}

static unsigned
nh_of(const uint8_t *p, unsigned len)
{
	unsigned nh;

	if (fwd_fib6_get(D->fib6, p, len, &nh) != 0)
		return (~0u);
	return (nh);
}

/* Inject frame f on mem0 (worker 0's port), poll, drain. */
static void
inject0(const uint8_t *f, unsigned len)
{
	struct fwd_port *p = fwd_d_port(D, "mem0", 0);

	assert_non_null(p);
	assert_int_equal(fwd_port_mem_inject(p, f, len), 0);
	(void)fwd_d_poll(D);
}

/* What the control thread sent out of interface i: the next IPv6 frame
 * (ARP's announcements of the IPv4 addresses skipped). */
static int
ctl_take(unsigned i, uint8_t *o, unsigned room)
{
	int n;

	while ((n = fwd_port_mem_take(D->ifs[i].txport, o, room)) > 0 &&
	    !(n >= 14 && o[12] == 0x86 && o[13] == 0xdd))
		;
	return (n);
}

static unsigned
pkt(uint8_t *f, const uint8_t *dst, uint8_t hlim, uint8_t nh, unsigned pl)
{
	return (tf_ipv6(f, mac0, h1mac, A(0x100, 2), dst, hlim, nh, pl));
}

/* An ICMPv6 message out of interface 0 to 2001:2:0:100::2: its type,
 * code and 4-byte parameter, its source checked, its checksum verified by
 * the reference. */
static void
expect_icmp6(uint8_t type, uint8_t code, uint32_t param, const uint8_t *src,
    unsigned quote)
{
	uint8_t o[2048];
	int n = ctl_take(0, o, sizeof(o));

	assert_true(n >= 14 + 48);
	assert_memory_equal(o, h1mac, 6);
	assert_memory_equal(o + 6, mac0, 6);
	assert_int_equal(o[12], 0x86);
	assert_int_equal(o[14 + 6], 58);
	assert_memory_equal(o + 14 + 8, src, 16);
	assert_memory_equal(o + 14 + 24, A(0x100, 2), 16);
	assert_int_equal((o[14 + 4] << 8 | o[14 + 5]), n - 54);
	assert_int_equal(ref_cksum6(o + 14), 0xffff);
	assert_int_equal(o[54], type);
	assert_int_equal(o[55], code);
	assert_int_equal(ntohl(fwd_ld32(o + 58)), param);
	if (quote != 0)
		assert_int_equal(n - 62, (int)quote);
	assert_int_equal(ctl_take(0, o, sizeof(o)), -ENOENT);
}

/* The addresses: /128s pinned LOCAL, /64s connected; gone with the
 * config; a bad link-local refused. */
static void
test_addrs6(void **st)
{
	uint8_t p[16];

	(void)st;
	config(1, NULL);
	assert_int_equal(nh_of(A(0x100, 1), 128), (unsigned)D->local_adj);
	assert_int_equal(nh_of(A(0x200, 1), 128), (unsigned)D->local_adj);
	tf_ip6(p, 0x100, 0);
	assert_int_equal(nh_of(p, 64), (unsigned)D->ifs[0].glean6);
	assert_true(fwd_adj_is_v6(D->adj, (unsigned)D->ifs[0].glean6));
	assert_int_equal(D->adj->ent[D->ifs[0].glean6].kind, FWD_ADJ_K_GLEAN);
	assert_true(fwd_d_is_ours6(D, A(0x200, 1)));
	assert_false(fwd_d_is_ours6(D, A(0x200, 2)));
	config(0, NULL);
	assert_int_equal(nh_of(A(0x100, 1), 128), ~0u);
	assert_int_equal(nh_of(p, 64), ~0u);
	assert_int_equal(fwd_fib6_count(D->fib6), 2); /* the link-locals (ND) */
	config(1, "fe80:1::1");
	config(1, NULL);
	assert_int_equal(fwd_fib6_count(D->fib6), 6);
}

static Fwd__FibAck *
batch6(uint64_t seq, const uint8_t *pfx, unsigned len, const uint8_t *gw,
    bool del)
{
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute r = FWD__FIB_ROUTE__INIT, *rp = &r;
	Lifecycle__Prefix d = LIFECYCLE__PREFIX__INIT, *dp = &d;
	ProtobufCBinaryData nh = {16, (uint8_t *)gw};
	uint32_t ifx = 0;
	Fwd__FibAck *ack;

	if (del) {
		d.prefix6.data = (uint8_t *)pfx;
		d.prefix6.len = 16;
		d.len = len;
		b.del = &dp;
		b.n_del = 1;
	} else {
		r.prefix6.data = (uint8_t *)pfx;
		r.prefix6.len = 16;
		r.len = len;
		r.nh_addr6 = &nh;
		r.n_nh_addr6 = gw != NULL;
		r.nh_ifindex = &ifx;
		r.n_nh_ifindex = gw != NULL;
		b.add = &rp;
		b.n_add = 1;
	}
	b.seq = seq;
	ack = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
	assert_int_equal(ack->seq, seq);
	assert_true(ack->ipv6_ok);
	return (ack);
}

static Fwd__FibList *
query6(const uint8_t *a, unsigned len, bool exact, bool lookup)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;

	q.ipv6 = true;
	q.exact = exact;
	q.use_lookup = lookup;
	q.len = len;
	q.prefix6.data = (uint8_t *)a;
	q.prefix6.len = a != NULL ? 16 : 0;
	q.lookup6 = q.prefix6;
	return ((Fwd__FibList *)call(FWD__METHOD__QUERY_FIB, &q.base));
}

/* Forwarding to a neighbour (host route), through a RIB route to it, and
 * the ICMPv6 the slow path sends. */
static void
test_forward6(void **st)
{
	uint8_t f[2048], o[2048], p[16], gw[16];
	struct fwd_port *out1;
	Fwd__FibAck *ack;
	Fwd__FibList *l;
	unsigned len;

	(void)st;
	config(1, NULL);
	out1 = fwd_d_port(D, "mem1", 0);
	/* the connected host before ND knows it: to the slow path (which
	 * has no ND here: dropped) */
	len = pkt(f, A(0x200, 2), 64, 17, 40);
	inject0(f, len);
	assert_int_equal(fwd_port_mem_pending(out1), 0);
	/* ND resolved it: a /128 of fwd's own, the fast path sends */
	assert_int_equal(fwd_d_nd_host6(D, 1, A(0x200, 2), h2mac), 0);
	inject0(f, len);
	assert_int_equal(fwd_port_mem_take(out1, o, sizeof(o)), (int)len);
	assert_memory_equal(o, h2mac, 6);
	assert_int_equal(o[14 + 7], 63);
	/* a RIB route through it: IPC FIB_BATCH with nh_addr6 */
	tf_ip6(p, 0x300, 0);
	memcpy(gw, A(0x200, 2), 16);
	ack = batch6(1, p, 56, gw, false);
	assert_int_equal(ack->applied, 1);
	assert_int_equal(ack->failed, 0);
	len = pkt(f, A(0x300, 5), 64, 17, 40);
	inject0(f, len);
	assert_int_equal(fwd_port_mem_take(out1, o, sizeof(o)), (int)len);
	assert_memory_equal(o, h2mac, 6); /* resolved from the host route */
	/* QUERY_FIB ipv6: exact, longest match, and a page */
	l = query6(p, 56, true, false);
	assert_int_equal(l->n_routes, 1);
	assert_int_equal(l->routes[0]->len, 56);
	assert_int_equal(l->routes[0]->n_nh_addr6, 1);
	assert_memory_equal(l->routes[0]->nh_addr6[0].data, gw, 16);
	assert_memory_equal(l->routes[0]->prefix6.data, p, 16);
	l = query6(A(0x300, 0x77), 0, false, true);
	assert_int_equal(l->n_routes, 1);
	assert_int_equal(l->routes[0]->len, 56);
	/* a page: the routes, not the router's own /128s (2 global, 2
	 * link-local: in the FIB6, looked up, not listed) */
	l = query6(NULL, 0, false, false);
	assert_int_equal(l->total, 4); /* 2 /64, the host route, the /56 */
	assert_int_equal(l->n_routes, 4);
	for (size_t i = 0; i < l->n_routes; i++)
		assert_true(l->routes[i]->len != 128 ||
		    l->routes[i]->n_nh_addr6 > 0); /* the host route's */
	/* a bad IPv6 route fails by index, changes nothing */
	ack = batch6(2, A(0x300, 1), 56, gw, false); /* host bits */
	assert_int_equal(ack->failed, 1);
	assert_int_equal(fwd_fib6_count(D->fib6), 8);

	/* ICMPv6 from the slow path: echo reply from the address pinged */
	len = pkt(f, A(0x100, 1), 64, 58, 16);
	f[54] = 128;
	f[55] = 0;
	fwd_st16(f + 56, 0);
	fwd_st16(f + 56, fwd_icmp6_cksum(f + 22, f + 38, f + 54, 16));
	assert_int_equal(ref_cksum6(f + 14), 0xffff);
	inject0(f, len);
	expect_icmp6(129, 0, ntohl(fwd_ld32(f + 58)), A(0x100, 1), 0);
	/* with a bad checksum: nothing */
	f[60] ^= 1;
	inject0(f, len);
	assert_int_equal(ctl_take(0, o, sizeof(o)), -ENOENT);
	/* hop limit 1 through: Time Exceeded from mem0's address */
	len = pkt(f, A(0x300, 5), 1, 17, 40);
	inject0(f, len);
	expect_icmp6(3, 0, 0, A(0x100, 1), len - 14);
	/* 1500 bytes toward the 1400 MTU of mem1: Packet Too Big 1400,
	 * quoting to 1280 bytes in all */
	len = pkt(f, A(0x300, 5), 64, 17, 1460);
	inject0(f, len);
	expect_icmp6(2, 0, 1400, A(0x100, 1), 1280 - 48);
	assert_int_equal(fwd_port_mem_pending(out1), 0);
	/* no route: Destination Unreachable 0 */
	len = pkt(f, A(0x900, 5), 64, 17, 40);
	inject0(f, len);
	expect_icmp6(1, 0, 0, A(0x100, 1), len - 14);
	/* UDP to us: port unreachable (4) */
	len = pkt(f, A(0x100, 1), 64, 17, 40);
	inject0(f, len);
	expect_icmp6(1, 4, 0, A(0x100, 1), len - 14);
	/* never an error about an ICMPv6 error */
	len = pkt(f, A(0x300, 5), 1, 58, 40);
	f[54] = 1;
	inject0(f, len);
	assert_int_equal(ctl_take(0, o, sizeof(o)), -ENOENT);
	/* an IPv6 route withdrawn */
	ack = batch6(3, p, 56, NULL, true);
	assert_int_equal(ack->applied, 1);
	assert_int_equal(nh_of(p, 56), ~0u);
}

/* A resync sweeps what rib did not send again, never fwd's own. */
static void
test_resync6(void **st)
{
	Fwd__Resync r = FWD__RESYNC__INIT;
	Fwd__FibAck *ack;
	uint8_t p[16], q[16];

	(void)st;
	config(1, NULL);
	assert_int_equal(fwd_d_nd_host6(D, 1, A(0x200, 2), h2mac), 0);
	tf_ip6(p, 0x300, 0);
	tf_ip6(q, 0x400, 0);
	(void)batch6(1, p, 56, A(0x200, 2), false);
	(void)batch6(2, q, 56, A(0x200, 2), false);
	assert_int_equal(fwd_fib6_count(D->fib6), 9);
	r.seq = 3;
	ack = (Fwd__FibAck *)call(FWD__METHOD__RESYNC_BEGIN, &r.base);
	assert_true(ack->ipv6_ok);
	(void)batch6(4, q, 56, A(0x200, 2), false);
	r.seq = 5;
	ack = (Fwd__FibAck *)call(FWD__METHOD__RESYNC_END, &r.base);
	assert_int_equal(ack->swept, 1);
	assert_int_equal(nh_of(p, 56), ~0u);
	assert_true(nh_of(q, 56) != ~0u);
	assert_int_equal(nh_of(A(0x100, 1), 128), (unsigned)D->local_adj);
	assert_true(nh_of(A(0x200, 2), 128) != ~0u);
	tf_ip6(p, 0x200, 0);
	assert_int_equal(nh_of(p, 64), (unsigned)D->ifs[1].glean6);
	assert_int_equal(fwd_fib6_count(D->fib6), 8);
	/* the neighbour gone: its /128 too */
	assert_int_equal(fwd_d_nd_host6(D, 1, A(0x200, 2), NULL), 0);
	assert_int_equal(nh_of(A(0x200, 2), 128), ~0u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_addrs6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forward6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_resync6, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
