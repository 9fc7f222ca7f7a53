/* tests/unit/rib/test_daemon.c: the tern-rib daemon over real sockets and libev: a fake fwd (FIB map, RESYNC, SUBSCRIBE, interface events) and clients playing mgmt and a protocol: routes to FIB, bad batches, grace, fwd restart, rib restart without withdrawals, queries. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
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
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "rib/rib_d.h"

static char base[128], rundir[160];
static struct ev_loop *loop;
static struct lc_arena *arena;

/* ---- the fake fwd: a FIB map with counters -------------------------------- */

#define FF_NH 8
struct ff_route {
	struct lc_prefix4 p;
	unsigned n;
	uint32_t a[FF_NH], i[FF_NH];
	bool stale;
};

static struct {
	struct ipc_server *srv;
	struct ff_route *r;
	size_t n, cap;
	unsigned batches, adds, changes, dels, swept, begins, ends;
	unsigned subscribes;
	struct lc_prefix4 withdrawn[4096]; /* dels and sweeps */
	unsigned nwithdrawn;
	Fwd__Interface ifs[16];
	Fwd__IfAddr addrs[16], *addrp[16];
	char names[16][16];
	unsigned nifs;
	bool hold_acks; /* answer FIB_BATCH later (ff_release) */
	struct ipc_req *held[256];
	uint64_t heldseq[256];
	unsigned nheld, inflight_max, fail_next;
	bool no_seq;		 /* FibAck without the seq */
	bool packed;		 /* say packed_ok; take packed_* fields */
	unsigned packed_batches; /* batches that had packed records */
	bool ipv6;		 /* say ipv6_ok; IPv6 records counted apart */
	unsigned v6_adds, v6_dels, v6_bad;
	char v6_last[128]; /* the last IPv6 add: "prefix/len nh%if" */
} ff;

static struct ff_route *
ff_find(struct lc_prefix4 p)
{
	for (size_t i = 0; i < ff.n; i++)
		if (lc_prefix4_eq(&ff.r[i].p, &p))
			return (&ff.r[i]);
	return (NULL);
}

static void
ff_withdraw(struct ff_route *r)
{
	if (ff.nwithdrawn < 4096)
		ff.withdrawn[ff.nwithdrawn++] = r->p;
	*r = ff.r[--ff.n];
}

static void ff_put(const struct ff_route *nr);

static void ff_del(struct lc_prefix4 p);

/* fwd.proto's packed FibBatch: 8-byte records into a next-hop table */
static void
ff_packed(const Fwd__FibBatch *b)
{
	size_t nnh = b->packed_nh.len / 8;

	assert_int_equal(b->packed_nh.len % 8, 0);
	assert_int_equal(b->packed_add.len % 8, 0);
	assert_int_equal(b->packed_del.len % 8, 0);
	if (b->packed_add.len + b->packed_del.len > 0)
		ff.packed_batches++;
	for (size_t i = 0; i < b->packed_add.len / 8; i++) {
		const uint8_t *r = b->packed_add.data + i * 8;
		unsigned first = (unsigned)r[6] << 8 | r[7];
		struct ff_route nr;

		memset(&nr, 0, sizeof(nr));
		memcpy(&nr.p.addr.s_addr, r, 4);
		nr.p.len = r[4];
		nr.n = r[5] < FF_NH ? r[5] : FF_NH;
		assert_true(first + r[5] <= nnh);
		for (unsigned k = 0; k < nr.n; k++) {
			const uint8_t *h = b->packed_nh.data + (first + k) * 8;

			memcpy(&nr.a[k], h, 4);
			memcpy(&nr.i[k], h + 4, 4);
			nr.i[k] = ntohl(nr.i[k]);
		}
		ff_put(&nr);
	}
	for (size_t i = 0; i < b->packed_del.len / 8; i++) {
		struct lc_prefix4 p;

		memcpy(&p.addr.s_addr, b->packed_del.data + i * 8, 4);
		p.len = b->packed_del.data[i * 8 + 4];
		ff_del(p);
	}
}

static void
ff_del(struct lc_prefix4 p)
{
	struct ff_route *r = ff_find(p);

	if (r != NULL) {
		ff.dels++;
		ff_withdraw(r);
	}
}

/* The IPv6 records of a batch, through the codec (as tern-fwd decodes):
 * counted, the last add kept as text; v6_bad for any to a fwd that did not
 * say ipv6_ok */
static void
ff_v6(const Fwd__FibBatch *b)
{
	struct ipc_route_set s;
	struct lc_err err;

	ipc_route_set_init(&s);
	assert_int_equal(ipc_route_fib_decode(&s, b, &err), 0);
	for (size_t i = 0; i < s.n; i++) {
		const struct ipc_route *r = &s.rt[i];
		char a[INET6_ADDRSTRLEN], h[INET6_ADDRSTRLEN] = "-";

		if (r->family != AF_INET6)
			continue;
		if (!ff.ipv6)
			ff.v6_bad++;
		if (r->op == IPC_ROUTE_DEL) {
			ff.v6_dels++;
			continue;
		}
		ff.v6_adds++;
		inet_ntop(AF_INET6, r->pfx.v6.b, a, sizeof(a));
		if (r->n_nh > 0)
			inet_ntop(AF_INET6, s.nh[r->nh].addr.v6.b, h,
			    sizeof(h));
		snprintf(ff.v6_last, sizeof(ff.v6_last), "%s/%u %s%%%u", a,
		    r->len, h, r->n_nh > 0 ? s.nh[r->nh].ifindex : 0);
	}
	ipc_route_set_fini(&s);
}

static void
ff_fib_batch(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	const Fwd__FibBatch *b = (const Fwd__FibBatch *)m;
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;

	(void)arg;
	ff.batches++;
	ff_v6(b);
	for (size_t i = 0; i < b->n_add; i++) {
		const Fwd__FibRoute *fr = b->add[i];

		if (fr->prefix6.len != 0)
			continue; /* IPv6: ff_v6 */
		struct lc_prefix4 p = {{fr->prefix}, (uint8_t)fr->len};
		struct ff_route nr;

		memset(&nr, 0, sizeof(nr));
		nr.p = p;
		nr.n = (unsigned)(fr->n_nh_addr < FF_NH ? fr->n_nh_addr :
							  FF_NH);
		for (unsigned k = 0; k < nr.n; k++) {
			nr.a[k] = fr->nh_addr[k];
			nr.i[k] = fr->nh_ifindex[k];
		}
		ff_put(&nr);
	}
	if (ff.packed)
		ff_packed(b);
	else
		assert_int_equal(b->packed_add.len + b->packed_del.len, 0);
	for (size_t i = 0; i < b->n_del; i++) {
		struct lc_prefix4 p = {{b->del[i]->prefix},
		    (uint8_t)b->del[i]->len};

		if (b->del[i]->prefix6.len == 0)
			ff_del(p);
	}
	if (ff.fail_next > 0) {
		ff.fail_next--;
		assert_int_equal(ipc_reply_error(req, IPC_ERROR, "table full"),
		    0);
		return;
	}
	if (ff.hold_acks) {
		assert_true(ff.nheld < 256);
		ff.heldseq[ff.nheld] = b->seq;
		ff.held[ff.nheld++] = req;
		return;
	}
	ack.seq = ff.no_seq ? 0 : b->seq;
	ack.packed_ok = ff.packed;
	ack.applied = (uint32_t)(b->n_add + b->n_del);
	ack.routes = (uint32_t)ff.n;
	assert_int_equal(ipc_reply(req, IPC_OK, &ack.base), 0);
}

static void
ff_put(const struct ff_route *nrp)
{
	struct ff_route nr = *nrp, *r = ff_find(nr.p);

	{
		if (r == NULL) {
			if (ff.n == ff.cap) {
				ff.cap = ff.cap ? ff.cap * 2 : 1024;
				ff.r = realloc(ff.r, ff.cap * sizeof(*ff.r));
				assert_non_null(ff.r);
			}
			ff.r[ff.n++] = nr;
			ff.adds++;
		} else {
			if (r->n != nr.n || memcmp(r->a, nr.a, sizeof(nr.a)) ||
			    memcmp(r->i, nr.i, sizeof(nr.i)))
				ff.changes++;
			*r = nr; /* refreshed: no longer stale */
		}
	}
}

static void
ff_release(void)
{
	for (unsigned i = 0; i < ff.nheld; i++) {
		Fwd__FibAck ack = FWD__FIB_ACK__INIT;

		ack.seq = ff.heldseq[i];
		assert_int_equal(ipc_reply(ff.held[i], IPC_OK, &ack.base), 0);
	}
	ff.nheld = 0;
}

static void
ff_resync(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;

	(void)m;
	ack.packed_ok = ff.packed;
	ack.ipv6_ok = ff.ipv6;
	if (arg != NULL) { /* begin */
		ff.begins++;
		for (size_t i = 0; i < ff.n; i++)
			ff.r[i].stale = true;
	} else {
		ff.ends++;
		for (size_t i = 0; i < ff.n;)
			if (ff.r[i].stale) {
				ff_withdraw(&ff.r[i]);
				ff.swept++;
				ack.swept++;
			} else {
				i++;
			}
	}
	ack.routes = (uint32_t)ff.n;
	assert_int_equal(ipc_reply(req, IPC_OK, &ack.base), 0);
}

static void
ff_subscribe(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Fwd__InterfaceList l = FWD__INTERFACE_LIST__INIT;
	Fwd__Interface *ip[16];

	(void)m;
	(void)arg;
	ff.subscribes++;
	ipc_req_subscribe(req);
	for (unsigned i = 0; i < ff.nifs; i++)
		ip[i] = &ff.ifs[i];
	l.n_interfaces = ff.nifs;
	l.interfaces = ip;
	assert_int_equal(ipc_reply(req, IPC_OK, &l.base), 0);
}

/* Interface k: ifindex k+1, name eth<k+1>, 198.18.<k+1>.1/24 */
static void
ff_if(unsigned k, bool up)
{
	Fwd__Interface *f = &ff.ifs[k];

	fwd__interface__init(f);
	fwd__if_addr__init(&ff.addrs[k]);
	snprintf(ff.names[k], sizeof(ff.names[k]), "eth%u", k + 1);
	f->ifindex = k + 1;
	f->name = ff.names[k];
	f->enabled = true;
	f->link = up ? FWD__LINK_STATE__LINK_UP : FWD__LINK_STATE__LINK_DOWN;
	ff.addrs[k].addr = htonl(0xc6120001u | ((k + 1) << 8));
	ff.addrs[k].len = 24;
	ff.addrp[k] = &ff.addrs[k];
	f->n_addrs = 1;
	f->addrs = &ff.addrp[k];
	if (k >= ff.nifs)
		ff.nifs = k + 1;
}

static void
ff_publish(unsigned k)
{
	Fwd__InterfaceEvent ev = FWD__INTERFACE_EVENT__INIT;

	ev.iface = &ff.ifs[k];
	assert_true(ipc_server_publish(ff.srv, FWD__METHOD__EVENT_INTERFACE,
			&ev.base) >= 1);
}

static void
ff_start(uint64_t gen)
{
	struct ipc_opts o;

	memset(&o, 0, sizeof(o));
	o.rundir = rundir;
	o.component = "fwd";
	o.generation = gen;
	ff.srv = ipc_server_new(loop, &ipc_svc_fwd, &o);
	assert_non_null(ff.srv);
	ipc_server_handle(ff.srv, FWD__METHOD__FIB_BATCH, ff_fib_batch, NULL);
	ipc_server_handle(ff.srv, FWD__METHOD__RESYNC_BEGIN, ff_resync, &ff);
	ipc_server_handle(ff.srv, FWD__METHOD__RESYNC_END, ff_resync, NULL);
	ipc_server_handle(ff.srv, FWD__METHOD__SUBSCRIBE, ff_subscribe, NULL);
}

static void
ff_counters_reset(void)
{
	ff.batches = ff.adds = ff.changes = ff.dels = ff.swept = 0;
	ff.begins = ff.ends = ff.subscribes = ff.nwithdrawn = 0;
}

static bool
ff_withdrew(struct lc_prefix4 p)
{
	for (unsigned i = 0; i < ff.nwithdrawn; i++)
		if (lc_prefix4_eq(&ff.withdrawn[i], &p))
			return (true);
	return (false);
}

/* ---- loop helpers ------------------------------------------------------------ */

static void
tick_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	(void)l;
	(void)w;
	(void)revents;
}

/* Runs the loop until pred() or ms pass; returns pred(). */
static bool
run_until(bool (*pred)(void *), void *arg, unsigned ms)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)ms * 1000000ULL;
	ev_timer t;
	bool ok;

	ev_timer_init(&t, tick_cb, 0.005, 0.005);
	ev_timer_start(loop, &t);
	while (!(ok = pred(arg)) && lc_time_mono_ns() < end)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &t);
	return (ok);
}

static bool
never(void *arg)
{
	(void)arg;
	return (false);
}

static void
run_for(unsigned ms)
{
	(void)run_until(never, NULL, ms);
}

static struct rib_d *rd;

static bool
fwd_up(void *arg)
{
	struct rib_d *d = arg;

	return (rib_d_fwd_state(d) == RIB_D_FWD_UP);
}

static bool
fwd_down(void *arg)
{
	return (rib_d_fwd_state(arg) == RIB_D_FWD_DOWN);
}

/* ---- rib clients ----------------------------------------------------------- */

static struct ipc_client *
rib_client(const char *name, bool ro)
{
	struct ipc_opts o;
	struct ipc_client *c;

	memset(&o, 0, sizeof(o));
	o.rundir = rundir;
	o.component = name;
	o.reconnect_ms = 10;
	c = ipc_client_new(loop, &ipc_svc_rib, &o, ro);
	assert_non_null(c);
	return (c);
}

static struct rib_conf *conf;

static struct rib_d *
rib_start(uint32_t hold_ms)
{
	struct rib_d_opts o;
	struct rib_d *d;

	memset(&o, 0, sizeof(o));
	o.conf = conf;
	o.rundir = rundir;
	o.hold_ms = hold_ms;
	o.reconnect_ms = 10;
	d = rib_d_new(loop, &o);
	assert_non_null(d);
	return (d);
}

static Rib__Route *
mkroute(const char *pfx, const char *nh1, uint32_t if1, const char *nh2,
    const char *ifname)
{
	Rib__Route *r = lc_arena_calloc(arena, sizeof(*r));
	struct lc_prefix4 p;
	struct lc_ip4 a;
	unsigned n = (nh1 || if1 || ifname) ? 1 : 0;

	if (nh2 != NULL)
		n = 2;
	rib__route__init(r);
	assert_int_equal(lc_prefix4_parse_loose(pfx, &p, &a), 0);
	r->prefix = a.s_addr; /* as written: host bits are kept */
	r->len = p.len;
	r->n_nh_addr = r->n_nh_ifindex = n;
	r->nh_addr = lc_arena_calloc(arena, 2 * sizeof(uint32_t));
	r->nh_ifindex = lc_arena_calloc(arena, 2 * sizeof(uint32_t));
	if (nh1 != NULL) {
		assert_int_equal(lc_ip4_parse(nh1, &a), 0);
		r->nh_addr[0] = a.s_addr;
	}
	r->nh_ifindex[0] = if1;
	if (nh2 != NULL) {
		assert_int_equal(lc_ip4_parse(nh2, &a), 0);
		r->nh_addr[1] = a.s_addr;
	}
	if (ifname != NULL) {
		r->n_nh_ifname = 1;
		r->nh_ifname = lc_arena_calloc(arena, sizeof(char *));
		r->nh_ifname[0] = lc_arena_strdup(arena, ifname);
	}
	return (r);
}

/* Sends a batch; returns the ack (in arena) or fails the test. */
static Rib__RouteBatchAck *
batch(struct ipc_client *c, int source, const char *name, uint32_t grace_ms,
    Rib__Route **add, size_t nadd, Lifecycle__Prefix **del, size_t ndel)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	b.source = source;
	b.source_name = (char *)name;
	b.seq = 1;
	b.grace_ms = grace_ms;
	b.add = add;
	b.n_add = nadd;
	b.del = del;
	b.n_del = ndel;
	st = ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH, &b.base, 5000, arena,
	    &rep, &err);
	if (st != IPC_OK)
		fail_msg("ROUTE_BATCH: %s %s", ipc_status_str(st), err.msg);
	assert_non_null(rep);
	return ((Rib__RouteBatchAck *)rep);
}

static Rib__RouteBatchAck *
resync(struct ipc_client *c, int source, const char *name, bool begin)
{
	Rib__Resync r = RIB__RESYNC__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	r.source = source;
	r.source_name = (char *)name;
	r.grace_ms = 2000;
	st = ipc_call_wait(c,
	    begin ? RIB__METHOD__RESYNC_BEGIN : RIB__METHOD__RESYNC_END,
	    &r.base, 5000, arena, &rep, &err);
	assert_int_equal(st, IPC_OK);
	return ((Rib__RouteBatchAck *)rep);
}

static Rib__QueryReply *
query(struct ipc_client *c, Rib__Query *q)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	st = ipc_call_wait(c, RIB__METHOD__QUERY, &q->base, 5000, arena, &rep,
	    &err);
	assert_int_equal(st, IPC_OK);
	return ((Rib__QueryReply *)rep);
}

static uint32_t
ip(const char *s)
{
	struct lc_ip4 a;

	assert_int_equal(lc_ip4_parse(s, &a), 0);
	return (a.s_addr);
}

static struct lc_prefix4
pf(const char *s)
{
	struct lc_prefix4 p;

	assert_int_equal(lc_prefix4_parse(s, &p), 0);
	return (p);
}

/* The FIB fwd holds equals what rib wants. */
static int
cmp_want(void *arg, const struct rib_fib_delta *dl)
{
	struct ff_route *r = ff_find(dl->pfx);

	(*(size_t *)arg)++;
	if (r == NULL || r->n != dl->n_nh)
		return (1);
	for (unsigned k = 0; k < dl->n_nh && k < FF_NH; k++)
		if (r->a[k] != dl->nh[k].addr.s_addr ||
		    r->i[k] != dl->nh[k].ifindex)
			return (2);
	return (0);
}

static void
assert_fib_matches(struct rib_d *d)
{
	size_t n = 0;
	long rv = rib_fib_walk(rib_d_rib(d), RIB_FIB_WANT, cmp_want, &n);

	assert_int_equal(rv, (long)n);
	assert_int_equal(n, ff.n);
}

/* ---- fixtures --------------------------------------------------------------- */

static int
setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN); /* as lc_loop_signals() does in daemons */
	lc_log_init("test_daemon", LC_LOG_WARNING, LC_LOG_STDERR);
	snprintf(base, sizeof(base), "/tmp/tern-rib-test.%d.%ld", (int)getpid(),
	    (long)(lc_time_mono_ns() % 1000000000));
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	(void)mkdir(base, 0755);
	loop = lc_loop_new();
	arena = lc_arena_new(1 << 16);
	memset(&ff, 0, sizeof(ff));
	ff_if(0, true);
	ff_if(1, true);
	return (loop == NULL || arena == NULL);
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	rib_d_free(rd);
	rd = NULL;
	ipc_server_free(ff.srv);
	free(ff.r);
	memset(&ff, 0, sizeof(ff));
	lc_arena_free(arena);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
	return (0);
}

/* fwd up with two interfaces, rib started, mgmt's static resync done. */
static struct ipc_client *
boot(struct ipc_client **mgmt_out)
{
	struct ipc_client *mgmt;
	Rib__Route *st[3];
	Rib__RouteBatchAck *a;

	ff_start(100);
	rd = rib_start(5000);
	mgmt = rib_client("mgmt", false);
	assert_int_equal(resync(mgmt, RIB__SOURCE__STATIC, "static", true)
			     ->n_errors,
	    0);
	st[0] = mkroute("198.18.100.0/24", "198.18.1.2", 0, NULL, NULL);
	st[1] = mkroute("198.18.101.0/24", NULL, 0, NULL, "eth2");
	st[2] = mkroute("198.18.102.0/24", "198.18.9.2", 0, NULL, "eth9");
	a = batch(mgmt, RIB__SOURCE__STATIC, "static", 0, st, 3, NULL, 0);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, 3);
	/* no FIB output before the statics are complete */
	run_for(30);
	assert_int_equal(ff.batches, 0);
	assert_string_equal(rib_d_state(rd), "resyncing");
	resync(mgmt, RIB__SOURCE__STATIC, "static", false);
	assert_true(run_until(fwd_up, rd, 3000));
	assert_string_equal(rib_d_state(rd), "running");
	*mgmt_out = mgmt;
	return (mgmt);
}

/* ---- tests ------------------------------------------------------------------ */

static void
test_routes_to_fib(void **state)
{
	struct ipc_client *mgmt, *bgp, *ro;
	Rib__Route *r[4];
	Rib__Query q = RIB__QUERY__INIT;
	Rib__QueryReply *qr;
	struct ff_route *f;
	unsigned b0;

	(void)state;
	boot(&mgmt);
	assert_int_equal(ff.begins, 1);
	assert_int_equal(ff.ends, 1);
	assert_int_equal(ff.subscribes, 1);
	/* connected, recursive static, static by interface name */
	assert_non_null(f = ff_find(pf("198.18.1.0/24")));
	assert_int_equal(f->n, 1);
	assert_int_equal(f->a[0], 0);
	assert_int_equal(f->i[0], 1);
	assert_non_null(f = ff_find(pf("198.18.100.0/24")));
	assert_int_equal(f->a[0], ip("198.18.1.2"));
	assert_int_equal(f->i[0], 1);
	assert_non_null(f = ff_find(pf("198.18.101.0/24")));
	assert_int_equal(f->a[0], 0);
	assert_int_equal(f->i[0], 2);
	assert_null(ff_find(pf("198.18.102.0/24"))); /* eth9 unknown */
	assert_int_equal(ff.n, 4);

	/* a protocol source: ECMP over two recursive next hops */
	bgp = rib_client("bgpd", false);
	r[0] = mkroute("198.18.64.0/20", "198.18.2.7", 0, "198.18.1.9", NULL);
	r[1] = mkroute("198.18.80.0/24", "198.18.2.7", 0, NULL, NULL);
	r[2] = mkroute("198.18.100.0/24", "198.18.2.8", 0, NULL, NULL);
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 3, NULL,
			     0)
			     ->accepted,
	    3);
	assert_true(run_until(fwd_up, rd, 1000));
	run_for(20);
	assert_non_null(f = ff_find(pf("198.18.64.0/20")));
	assert_int_equal(f->n, 2);
	assert_int_equal(f->a[0], ip("198.18.1.9"));
	assert_int_equal(f->i[0], 1);
	assert_int_equal(f->a[1], ip("198.18.2.7"));
	assert_int_equal(f->i[1], 2);
	/* static (distance 1) still beats bgp (100) */
	assert_int_equal(ff_find(pf("198.18.100.0/24"))->a[0],
	    ip("198.18.1.2"));
	assert_fib_matches(rd);

	/* eth9 appears: the static by name resolves and goes to the FIB */
	ff_if(8, true);
	ff_publish(8);
	run_for(50);
	assert_non_null(f = ff_find(pf("198.18.102.0/24")));
	assert_int_equal(f->a[0], ip("198.18.9.2"));
	assert_int_equal(f->i[0], 9);
	assert_non_null(ff_find(pf("198.18.9.0/24")));

	/* interface down: every dependent route moves in one FIB batch */
	b0 = ff.batches;
	ff_if(0, false);
	ff_publish(0);
	run_for(50);
	assert_int_equal(ff.batches, b0 + 1);
	assert_null(ff_find(pf("198.18.1.0/24")));
	assert_int_equal(ff_find(pf("198.18.100.0/24"))->a[0],
	    ip("198.18.2.8")); /* static inactive: bgp takes over */
	assert_int_equal(ff_find(pf("198.18.64.0/20"))->n, 1);
	assert_fib_matches(rd);
	ff_if(0, true);
	ff_publish(0);
	run_for(50);
	assert_int_equal(ff_find(pf("198.18.64.0/20"))->n, 2);
	assert_fib_matches(rd);

	/* queries, on the read-only socket */
	ro = rib_client("ternsh", true);
	q.prefix = ip("198.18.100.0");
	q.len = 24;
	q.exact = true;
	qr = query(ro, &q);
	assert_int_equal(qr->n_routes, 2);
	assert_int_equal(qr->total, 2);
	assert_int_equal(qr->routes[0]->source, RIB__SOURCE__STATIC);
	assert_true(qr->routes[0]->best);
	assert_int_equal(qr->routes[1]->source, RIB__SOURCE__PROTOCOL);
	assert_string_equal(qr->routes[1]->source_name, "bgp");
	assert_false(qr->routes[1]->best);
	assert_true(qr->routes[1]->active);
	assert_int_equal(qr->routes[0]->n_resolved_addr, 1);
	assert_int_equal(qr->routes[0]->resolved_ifindex[0], 1);

	rib__query__init(&q);
	q.lookup = ip("198.18.64.77");
	qr = query(ro, &q);
	assert_int_equal(qr->n_routes, 1);
	assert_int_equal(qr->routes[0]->route->len, 20);

	rib__query__init(&q);
	q.prefix = ip("198.18.0.0");
	q.len = 16;
	q.longer = true;
	qr = query(ro, &q);
	assert_int_equal(qr->total, 9); /* 3 connected, 3 static, 3 bgp */
	assert_false(qr->more);
	q.limit = 4;
	q.offset = 8;
	qr = query(ro, &q);
	assert_int_equal(qr->n_routes, 1);
	assert_int_equal(qr->total, 9);
	assert_false(qr->more);
	q.offset = 2;
	qr = query(ro, &q);
	assert_int_equal(qr->n_routes, 4);
	assert_true(qr->more);
	q.limit = 0;
	q.offset = 0;
	q.active_only = true;
	qr = query(ro, &q);
	assert_int_equal(qr->total, 8); /* bgp's 198.18.100/24 loses */
	q.active_only = false;
	q.source = RIB__SOURCE__PROTOCOL;
	q.source_name = (char *)"bgp";
	qr = query(ro, &q);
	assert_int_equal(qr->total, 3);
	q.source_name = (char *)"nosuch";
	{
		ProtobufCMessage *rep;
		struct lc_err err;

		assert_int_equal(ipc_call_wait(ro, RIB__METHOD__QUERY, &q.base,
				     5000, arena, &rep, &err),
		    IPC_ERROR);
		assert_non_null(strstr(err.msg, "unknown source"));
	}
	/* FIB status and sources */
	{
		ProtobufCMessage *rep;
		struct lc_err err;
		Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
		Rib__FibStatus *fs;
		Rib__SourceList *sl;

		assert_int_equal(ipc_call_wait(ro, RIB__METHOD__FIB_STATUS,
				     &e.base, 5000, arena, &rep, &err),
		    IPC_OK);
		fs = (Rib__FibStatus *)rep;
		assert_int_equal(fs->acked_seq, fs->sent_seq);
		assert_int_equal(fs->routes, ff.n);
		assert_int_equal(fs->fwd_generation, 100);
		assert_true(fs->fwd_connected);
		assert_false(fs->resyncing);
		assert_int_equal(ipc_call_wait(ro, RIB__METHOD__SOURCES,
				     &e.base, 5000, arena, &rep, &err),
		    IPC_OK);
		sl = (Rib__SourceList *)rep;
		assert_int_equal(sl->n_sources, 3);
		assert_string_equal(sl->sources[2]->source_name, "bgp");
		assert_int_equal(sl->sources[2]->routes, 3);
		assert_int_equal(sl->sources[2]->active, 2);
		assert_int_equal(sl->sources[2]->distance, 100);
		assert_true(sl->sources[2]->connected);
		assert_int_equal(sl->sources[1]->routes, 3);
		/* the read-only socket refuses changes */
		assert_int_equal(ipc_call_wait(ro, RIB__METHOD__ROUTE_BATCH,
				     &(Rib__RouteBatch)
					  RIB__ROUTE_BATCH__INIT.base,
				     5000, arena, &rep, &err),
		    IPC_DENIED);
	}
	ipc_client_free(ro);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

/* ---- the packed encoding (rib.proto packed_nh/packed_add/packed_del) ---- */

/* one 8-byte record: prefix as written (host bits kept), flags, first */
static void
prec(uint8_t *r, const char *pfx, unsigned len, unsigned flags, unsigned first)
{
	uint32_t a = ip(pfx);

	memcpy(r, &a, 4);
	r[4] = (uint8_t)len;
	r[5] = (uint8_t)flags;
	r[6] = (uint8_t)(first >> 8);
	r[7] = (uint8_t)first;
}

static void
pnh(uint8_t *r, const char *addr, uint32_t ifindex)
{
	uint32_t a = ip(addr), x = htonl(ifindex);

	memcpy(r, &a, 4);
	memcpy(r + 4, &x, 4);
}

/* A packed batch (and message adds): returns the ack (in arena). */
static Rib__RouteBatchAck *
pbatch(struct ipc_client *c, const uint8_t *nh, size_t nnh, const uint8_t *add,
    size_t nadd_bytes, const uint8_t *del, size_t ndel, Rib__Route **madd,
    size_t nmadd)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;

	b.source = RIB__SOURCE__PROTOCOL;
	b.source_name = (char *)"bgp";
	b.seq = 7;
	b.packed_nh.data = (uint8_t *)nh;
	b.packed_nh.len = nnh * 8;
	b.packed_add.data = (uint8_t *)add;
	b.packed_add.len = nadd_bytes;
	b.packed_del.data = (uint8_t *)del;
	b.packed_del.len = ndel * 8;
	b.add = madd;
	b.n_add = nmadd;
	assert_int_equal(ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH, &b.base,
			     5000, arena, &rep, &err),
	    IPC_OK);
	assert_non_null(rep);
	return ((Rib__RouteBatchAck *)rep);
}

static bool
ff_has_ecmp(void *arg)
{
	struct ff_route *r = ff_find(*(struct lc_prefix4 *)arg);

	return (r != NULL && r->n == 2);
}

static bool
ff_lacks(void *arg)
{
	return (ff_find(*(struct lc_prefix4 *)arg) == NULL);
}

static void
test_packed(void **state)
{
	struct ipc_client *mgmt, *bgp;
	struct rib_fib_stats st;
	struct lc_prefix4 ecmp = pf("203.0.114.0/24"),
			  gone = pf("203.0.113.0/24");
	uint8_t nh[3 * 8], add[4 * 8], del[8], bad[8 * 2];
	Rib__Route *m[1];
	Rib__RouteBatchAck *a;
	struct ff_route *r;
	size_t n0, f0;
	unsigned b0;
	struct {
		const char *pfx;
		unsigned len, flags, first;
		size_t bytes;
		int code;
		const char *msg;
	} cases[] = {
	    {"203.0.120.1", 24, 1, 0, 16, -EINVAL, "host bits"},
	    {"203.0.120.0", 33, 1, 0, 16, -EINVAL, "over 32"},
	    {"203.0.120.0", 24, 2, 2, 16, -EINVAL, "beyond"},
	    {"203.0.120.0", 24, 1, 0, 15, -EINVAL, "8-byte records"},
	};

	(void)state;
	ff.packed = true; /* this fwd takes packed FibBatch fields */
	boot(&mgmt);
	bgp = rib_client("bgpd", false);
	/* next hops: two gateways on eth1, one on eth2 (resolved through the
	 * connected /24s), and a record per route into them */
	pnh(nh, "198.18.1.2", 0);
	pnh(nh + 8, "198.18.2.2", 0);
	pnh(nh + 16, "198.18.1.3", 0);
	prec(add, "203.0.113.0", 24, 1, 0);
	prec(add + 8, "203.0.114.0", 24, 2, 1);	      /* ECMP: nh 1, 2 */
	prec(add + 16, "203.0.115.0", 24, 1 << 6, 0); /* blackhole */
	prec(add + 24, "203.0.0.0", 16, 1, 2);
	m[0] = mkroute("203.0.116.0/24", "198.18.2.2", 0, NULL, NULL);
	a = pbatch(bgp, nh, 3, add, sizeof(add), NULL, 0, m, 1);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, 5);
	assert_true(run_until(ff_has_ecmp, &ecmp, 3000));
	run_for(30);
	assert_fib_matches(rd);
	assert_non_null(ff_find(pf("203.0.115.0/24")));
	assert_non_null(r = ff_find(pf("203.0.0.0/16")));
	assert_int_equal(r->n, 1);
	assert_int_equal(r->a[0], ip("198.18.1.3"));
	assert_int_equal(r->i[0], 1);
	assert_non_null(ff_find(pf("203.0.116.0/24")));
	/* rib sent packed batches to the fwd that said packed_ok */
	assert_true(ff.packed_batches > 0);

	/* a packed delete, with a packed re-add of the ECMP route to one hop */
	prec(del, "203.0.113.0", 24, 0, 0);
	prec(add, "203.0.114.0", 24, 1, 0);
	a = pbatch(bgp, nh, 3, add, 8, del, 1, NULL, 0);
	assert_int_equal(a->accepted, 2);
	assert_true(run_until(ff_lacks, &gone, 3000));
	run_for(30);
	assert_non_null(r = ff_find(ecmp));
	assert_int_equal(r->n, 1);
	assert_fib_matches(rd);

	/* bad packed input: refused with the entry's index (message adds
	 * first, then packed), nothing changes in rib or fwd */
	rib_fib_stats(rib_d_rib(rd), &st);
	n0 = st.want;
	f0 = ff.n;
	b0 = ff.batches;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		prec(bad, "203.0.121.0", 24, 1, 0); /* a good one first */
		prec(bad + 8, cases[i].pfx, cases[i].len, cases[i].flags,
		    cases[i].first);
		m[0] = mkroute("203.0.122.0/24", "198.18.2.2", 0, NULL, NULL);
		a = pbatch(bgp, nh, 3, bad, cases[i].bytes, NULL, 0, m, 1);
		assert_int_equal(a->accepted, 0);
		assert_int_equal(a->n_errors, 1);
		assert_int_equal(a->errors[0]->code, cases[i].code);
		if (cases[i].bytes == 16)
			assert_int_equal(a->errors[0]->index, 2);
		if (strstr(a->errors[0]->message, cases[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i,
			    a->errors[0]->message, cases[i].msg);
	}
	/* a next-hop table that is not 8-byte records */
	a = pbatch(bgp, nh, 3, add, 8, NULL, 0, NULL, 0);
	assert_int_equal(a->accepted, 1); /* (the same route again) */
	{
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		ProtobufCMessage *rep = NULL;
		struct lc_err err;

		b.source = RIB__SOURCE__PROTOCOL;
		b.source_name = (char *)"bgp";
		b.packed_nh.data = nh;
		b.packed_nh.len = 12;
		b.packed_add.data = bad;
		b.packed_add.len = 8;
		prec(bad, "203.0.123.0", 24, 1, 0);
		assert_int_equal(ipc_call_wait(bgp, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Rib__RouteBatchAck *)rep)->accepted, 0);
		assert_non_null(
		    strstr(((Rib__RouteBatchAck *)rep)->errors[0]->message,
			"packed_nh"));
	}
	run_for(30);
	rib_fib_stats(rib_d_rib(rd), &st);
	assert_int_equal(st.want, n0);
	assert_int_equal(ff.n, f0);
	assert_null(ff_find(pf("203.0.121.0/24")));
	assert_null(ff_find(pf("203.0.122.0/24")));
	assert_null(ff_find(pf("203.0.123.0/24")));
	assert_true(ff.batches == b0); /* nothing to send: no change */
	assert_fib_matches(rd);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

static void
test_bad_batches(void **state)
{
	struct ipc_client *mgmt, *bgp;
	struct rib_mem_stats m0, m1;
	struct rib_source_info si;
	Rib__Route *r[2];
	Rib__RouteBatchAck *a;
	Lifecycle__Prefix *del;
	unsigned b0;
	size_t n0;
	struct {
		int source;
		const char *name;
		Rib__Route *bad;
		int code;
		const char *msg;
	} cases[] = {
	    {RIB__SOURCE__PROTOCOL, "bgp", NULL, -EINVAL, "host bits"},
	    {RIB__SOURCE__PROTOCOL, "bgp", NULL, -EINVAL, "over 32"},
	    {RIB__SOURCE__PROTOCOL, "bgp", NULL, -EINVAL, "0.0.0.0"},
	    {RIB__SOURCE__SOURCE_NONE, "nosuch", NULL, -ENOENT,
		"unknown source"},
	    {RIB__SOURCE__CONNECTED, "", NULL, -EPERM, "tern-fwd"},
	    {RIB__SOURCE__PROTOCOL, "newproto", NULL, -EINVAL, "host bits"},
	    {77, "", NULL, -ENOENT, "unknown source"},
	};

	(void)state;
	boot(&mgmt);
	bgp = rib_client("bgpd", false);
	r[0] = mkroute("198.18.64.0/20", "198.18.2.7", 0, NULL, NULL);
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 1, NULL,
			     0)
			     ->accepted,
	    1);
	run_for(30);
	cases[0].bad = mkroute("198.18.65.1/24", "198.18.2.7", 0, NULL, NULL);
	cases[1].bad = mkroute("198.18.65.0/24", "198.18.2.7", 0, NULL, NULL);
	cases[1].bad->len = 33;
	cases[2].bad = mkroute("198.18.66.0/24", "0.0.0.0", 0, NULL, NULL);
	cases[3].bad = cases[4].bad = mkroute("198.18.67.0/24", "198.18.2.7", 0,
	    NULL, NULL);
	cases[5].bad = cases[0].bad;
	cases[6].bad = cases[3].bad;
	rib_mem_stats(rib_d_rib(rd), &m0);
	b0 = ff.batches;
	n0 = ff.n;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r[0] = mkroute("198.18.70.0/24", "198.18.2.7", 0, NULL, NULL);
		r[1] = cases[i].bad;
		a = batch(bgp, cases[i].source, cases[i].name, 0, r, 2, NULL,
		    0);
		assert_int_equal(a->accepted, 0);
		assert_int_equal(a->rejected, 2);
		assert_int_equal(a->n_errors, 1);
		assert_int_equal(a->errors[0]->code, cases[i].code);
		if (cases[i].code == -EINVAL)
			assert_int_equal(a->errors[0]->index, 1);
		if (strstr(a->errors[0]->message, cases[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i,
			    a->errors[0]->message, cases[i].msg);
	}
	/* oversized: 65,537 deletes */
	del = lc_arena_calloc(arena, sizeof(*del));
	lifecycle__prefix__init(del);
	{
		Lifecycle__Prefix **dv = lc_arena_alloc(arena,
		    sizeof(*dv) * (RIB_BATCH_MAX + 1));

		for (unsigned i = 0; i <= RIB_BATCH_MAX; i++)
			dv[i] = del;
		a = batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, NULL, 0, dv,
		    RIB_BATCH_MAX + 1);
		assert_int_equal(a->errors[0]->code, -E2BIG);
	}
	/* a refused batch that asks for another distance and grace leaves the
	 * source as it was */
	{
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		ProtobufCMessage *rep = NULL;
		struct lc_err err;

		r[0] = cases[0].bad;
		b.source = RIB__SOURCE__PROTOCOL;
		b.source_name = (char *)"bgp";
		b.distance = 50;
		b.grace_ms = 777;
		b.add = r;
		b.n_add = 1;
		assert_int_equal(ipc_call_wait(bgp, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Rib__RouteBatchAck *)rep)->rejected, 1);
		assert_int_equal(rib_source_info(rib_d_rib(rd), 3, &si), 0);
		assert_int_equal(si.distance, RIB_DISTANCE_PROTO);
		assert_int_not_equal(si.grace_ms, 777);
		b.distance = 256;
		r[0] = mkroute("198.18.71.0/24", "198.18.2.7", 0, NULL, NULL);
		assert_int_equal(ipc_call_wait(bgp, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Rib__RouteBatchAck *)rep)->errors[0]->code,
		    -EINVAL);
		/* an accepted one (deleting an absent route) sets them */
		{
			Lifecycle__Prefix dp = LIFECYCLE__PREFIX__INIT,
					  *dpp = &dp;

			dp.prefix = ip("198.18.99.0");
			dp.len = 24;
			b.distance = 20;
			b.n_add = 0;
			b.del = &dpp;
			b.n_del = 1;
			assert_int_equal(ipc_call_wait(bgp,
					     RIB__METHOD__ROUTE_BATCH, &b.base,
					     5000, arena, &rep, &err),
			    IPC_OK);
			assert_int_equal(((Rib__RouteBatchAck *)rep)->accepted,
			    1);
			assert_int_equal(rib_source_info(rib_d_rib(rd), 3, &si),
			    0);
			assert_int_equal(si.distance, 20);
			assert_int_equal(si.grace_ms, 777);
		}
	}
	run_for(30);
	rib_mem_stats(rib_d_rib(rd), &m1);
	assert_int_equal(m1.routes, m0.routes);
	assert_int_equal(m1.prefixes, m0.prefixes);
	assert_int_equal(ff.batches, b0);
	assert_int_equal(ff.n, n0);
	/* the protocol a refused batch would have registered is not there */
	assert_int_equal(rib_source_find(rib_d_rib(rd), "newproto"), -ENOENT);
	assert_int_equal(rib_source_info(rib_d_rib(rd), 3, &si), 0);
	assert_int_equal(si.routes, 1);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

static bool
gone(void *arg)
{
	return (ff_find(*(struct lc_prefix4 *)arg) == NULL);
}

static void
test_grace(void **state)
{
	struct ipc_client *mgmt, *p;
	Rib__Route *r[10];
	Rib__Query q = RIB__QUERY__INIT;
	Rib__QueryReply *qr;
	struct lc_prefix4 last = pf("198.18.89.0/24");
	char pfx[32];
	uint64_t t0;
	unsigned d0;

	(void)state;
	boot(&mgmt);
	/* 1: disconnect, no return: stale for 300 ms, then swept */
	p = rib_client("ospfd", false);
	for (unsigned i = 0; i < 10; i++) {
		snprintf(pfx, sizeof(pfx), "198.18.%u.0/24", 80 + i);
		r[i] = mkroute(pfx, "198.18.2.7", 0, NULL, NULL);
	}
	assert_int_equal(batch(p, RIB__SOURCE__PROTOCOL, "ospf", 300, r, 10,
			     NULL, 0)
			     ->accepted,
	    10);
	run_for(30);
	assert_non_null(ff_find(last));
	d0 = ff.dels;
	t0 = lc_time_mono_ns();
	ipc_client_free(p);
	run_for(100);
	q.source_name = (char *)"ospf";
	qr = query(mgmt, &q);
	assert_int_equal(qr->total, 10);
	assert_true(qr->routes[0]->stale);
	assert_true(qr->routes[0]->best);
	assert_int_equal(ff.dels, d0); /* still forwarding */
	assert_true(run_until(gone, &last, 2000));
	assert_true(lc_time_mono_ns() - t0 >= 300000000ULL);
	assert_int_equal(ff.dels, d0 + 10);
	qr = query(mgmt, &q);
	assert_int_equal(qr->total, 0);

	/* 2: disconnect, back within the grace, resync: nothing lost but the
	 * route it did not re-learn */
	p = rib_client("ospfd", false);
	assert_int_equal(batch(p, RIB__SOURCE__PROTOCOL, "ospf", 2000, r, 10,
			     NULL, 0)
			     ->accepted,
	    10);
	run_for(30);
	ipc_client_free(p);
	run_for(50);
	ff_counters_reset();
	p = rib_client("ospfd", false);
	resync(p, RIB__SOURCE__PROTOCOL, "ospf", true);
	assert_int_equal(batch(p, RIB__SOURCE__PROTOCOL, "ospf", 0, r, 9, NULL,
			     0)
			     ->accepted,
	    9);
	assert_int_equal(resync(p, RIB__SOURCE__PROTOCOL, "ospf", false)->swept,
	    1);
	run_for(50);
	assert_int_equal(ff.dels, 1);
	assert_true(ff_withdrew(last));
	assert_int_equal(ff.changes, 0);
	assert_int_equal(ff.adds, 0);
	/* the grace timer was cancelled: nothing more goes after 2 s */
	qr = query(mgmt, &q);
	assert_int_equal(qr->total, 9);
	assert_false(qr->routes[0]->stale);
	ipc_client_free(p);
	ipc_client_free(mgmt);
}

struct walkrec {
	unsigned off, lim, seen, n;
	struct lc_prefix4 r[100];
};

static int
walk_rec(void *arg, const struct rib_route_info *ri)
{
	struct walkrec *w = arg;

	if (w->seen++ >= w->off && w->n < w->lim)
		w->r[w->n++] = ri->pfx;
	return (0);
}

static void
test_fwd_restart(void **state)
{
	struct ipc_client *mgmt, *bgp;
	Rib__Route **r;
	char pfx[32];
	size_t n;
	uint64_t t0;

	(void)state;
	boot(&mgmt);
	bgp = rib_client("bgpd", false);
	r = lc_arena_alloc(arena, sizeof(*r) * 3000);
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(pfx, sizeof(pfx), "198.19.%u.%u/28", i / 16,
		    (i % 16) * 16);
		r[i] = mkroute(pfx, i & 1 ? "198.18.2.7" : "198.18.1.7", 0,
		    NULL, NULL);
	}
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 3000,
			     NULL, 0)
			     ->accepted,
	    3000);
	assert_true(run_until(fwd_up, rd, 1000));
	run_for(50);
	assert_fib_matches(rd);
	n = ff.n;
	assert_int_equal(n, 3004);

	/* paging a big walk matches the core's sorted walk, page by page */
	{
		struct ipc_client *ro = rib_client("ternsh", true);
		static const uint32_t offs[] = {0, 1, 1500, 2950, 3001, 3100};

		for (unsigned t = 0; t < 6; t++) {
			Rib__Query q = RIB__QUERY__INIT;
			Rib__QueryReply *qr;
			struct walkrec w;
			struct rib_query rq = {.match = RIB_MATCH_ALL,
			    .sorted = true};

			memset(&w, 0, sizeof(w));
			w.off = offs[t];
			w.lim = 100;
			q.limit = 100;
			q.offset = offs[t];
			qr = query(ro, &q);
			assert_int_equal(qr->total, 3005);
			assert_int_equal(rib_route_walk(rib_d_rib(rd), &rq,
					     walk_rec, &w, NULL),
			    3005);
			assert_int_equal(qr->n_routes, w.n);
			assert_int_equal(qr->more, offs[t] + w.n < 3005);
			for (unsigned i = 0; i < w.n; i++) {
				assert_int_equal(qr->routes[i]->route->prefix,
				    w.r[i].addr.s_addr);
				assert_int_equal(qr->routes[i]->route->len,
				    w.r[i].len);
			}
		}
		ipc_client_free(ro);
	}

	/* fwd dies and comes back empty with another generation */
	ipc_server_free(ff.srv);
	ff.srv = NULL;
	ff.n = 0;
	ff_counters_reset();
	assert_true(run_until(fwd_down, rd, 2000));
	t0 = lc_time_mono_ns();
	ff.no_seq = true; /* rib acks by call, not by what fwd echoes */
	ff_start(200);
	assert_true(run_until(fwd_up, rd, 3000));
	print_message("fwd restart: %zu routes back in fwd in %.1f ms\n", ff.n,
	    (lc_time_mono_ns() - t0) / 1e6);
	assert_int_equal(ff.n, n);
	assert_int_equal(ff.adds, n);
	assert_true(ff.batches >= 3); /* 1,024 deltas per batch */
	assert_int_equal(ff.subscribes, 1);
	assert_fib_matches(rd);
	{
		struct rib_fib_stats fs;

		rib_fib_stats(rib_d_rib(rd), &fs);
		assert_int_equal(fs.inflight, 0);
		assert_int_equal(fs.seq_acked, fs.seq_sent);
	}
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

static void
test_rib_restart(void **state)
{
	struct ipc_client *mgmt, *bgp;
	Rib__Route **r, *st[3];
	char pfx[32];
	size_t n;

	(void)state;
	boot(&mgmt);
	bgp = rib_client("bgpd", false);
	r = lc_arena_alloc(arena, sizeof(*r) * 2000);
	for (unsigned i = 0; i < 2000; i++) {
		snprintf(pfx, sizeof(pfx), "198.19.%u.%u/28", i / 16,
		    (i % 16) * 16);
		r[i] = mkroute(pfx, "198.18.2.7", 0, NULL, NULL);
	}
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 2000,
			     NULL, 0)
			     ->accepted,
	    2000);
	assert_true(run_until(fwd_up, rd, 1000));
	run_for(50);
	n = ff.n;
	assert_int_equal(n, 2004);

	/* rib dies; fwd keeps its FIB; a new rib comes up */
	rib_d_free(rd);
	ff_counters_reset();
	rd = rib_start(5000);
	run_for(100);
	assert_int_equal(rib_d_fwd_state(rd), RIB_D_FWD_SYNC);
	assert_int_equal(ff.begins, 1);
	assert_int_equal(ff.batches, 0); /* waits for the statics */
	assert_int_equal(ff.n, n);
	/* the protocol re-learns; mgmt re-pushes statics: one changed
	 * (198.18.100/24 via another gateway), one gone (198.18.101/24) */
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 2000,
			     NULL, 0)
			     ->accepted,
	    2000);
	resync(mgmt, RIB__SOURCE__STATIC, "static", true);
	st[0] = mkroute("198.18.100.0/24", "198.18.2.2", 0, NULL, NULL);
	st[1] = mkroute("198.18.102.0/24", "198.18.9.2", 0, NULL, "eth9");
	assert_int_equal(batch(mgmt, RIB__SOURCE__STATIC, "static", 0, st, 2,
			     NULL, 0)
			     ->accepted,
	    2);
	resync(mgmt, RIB__SOURCE__STATIC, "static", false);
	assert_true(run_until(fwd_up, rd, 3000));
	assert_int_equal(ff.ends, 1);
	/* withdrawn: only the static that is gone */
	assert_int_equal(ff.nwithdrawn, 1);
	assert_true(ff_withdrew(pf("198.18.101.0/24")));
	assert_int_equal(ff.swept, 1);
	assert_int_equal(ff.dels, 0);
	assert_int_equal(ff.changes, 1); /* 198.18.100/24 */
	assert_int_equal(ff_find(pf("198.18.100.0/24"))->a[0],
	    ip("198.18.2.2"));
	assert_int_equal(ff.n, n - 1);
	assert_fib_matches(rd);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

static void
test_no_fwd_and_hold(void **state)
{
	struct ipc_client *bgp;
	Rib__Route *r[1];

	(void)state;
	/* rib runs without fwd; with no mgmt, the hold timer lets it go on */
	rd = rib_start(200);
	bgp = rib_client("bgpd", false);
	r[0] = mkroute("198.18.64.0/20", NULL, 1, NULL, NULL);
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 1, NULL,
			     0)
			     ->accepted,
	    1);
	assert_string_equal(rib_d_state(rd), "resyncing");
	run_for(300);
	assert_string_equal(rib_d_state(rd), "running");
	assert_int_equal(rib_d_fwd_state(rd), RIB_D_FWD_DOWN);
	/* fwd appears later: it gets the FIB (the interface came up) */
	ff_start(300);
	assert_true(run_until(fwd_up, rd, 3000));
	assert_non_null(ff_find(pf("198.18.64.0/20")));
	assert_non_null(ff_find(pf("198.18.1.0/24")));
	assert_fib_matches(rd);
	ipc_client_free(bgp);
}

/* The start hold waits for a static resync in progress, not for a mgmt that
 * went away in the middle of one. */
static void
test_hold_and_static_resync(void **state)
{
	struct ipc_client *mgmt;
	Rib__Route *st[1];

	(void)state;
	ff_start(100);
	rd = rib_start(150);
	mgmt = rib_client("mgmt", false);
	resync(mgmt, RIB__SOURCE__STATIC, "static", true);
	st[0] = mkroute("198.18.100.0/24", "198.18.1.2", 0, NULL, NULL);
	assert_int_equal(batch(mgmt, RIB__SOURCE__STATIC, "static", 0, st, 1,
			     NULL, 0)
			     ->accepted,
	    1);
	run_for(400); /* well past the hold */
	assert_int_equal(ff.batches, 0);
	assert_int_equal(rib_d_fwd_state(rd), RIB_D_FWD_SYNC);
	assert_string_equal(rib_d_state(rd), "resyncing");
	resync(mgmt, RIB__SOURCE__STATIC, "static", false);
	assert_true(run_until(fwd_up, rd, 2000));
	assert_non_null(ff_find(pf("198.18.100.0/24")));

	/* a new rib; mgmt begins a resync and dies: the hold then ends */
	rib_d_free(rd);
	ff_counters_reset();
	rd = rib_start(150);
	run_for(60); /* mgmt's client reconnects */
	resync(mgmt, RIB__SOURCE__STATIC, "static", true);
	ipc_client_free(mgmt);
	assert_true(run_until(fwd_up, rd, 2000));
	assert_int_equal(ff.nwithdrawn, 1); /* the static it never re-sent */
	assert_string_equal(rib_d_state(rd), "running");
}

static size_t
ff_count(void)
{
	return (ff.n);
}

static bool
ff_has(void *arg)
{
	return (ff_count() >= *(size_t *)arg);
}

/* Bounded in flight (small water marks), then a refused batch: rib pushes
 * the whole FIB again inside a fwd resync. */
static void
test_water_marks_and_errors(void **state)
{
	struct rib_conf c;
	struct ipc_client *mgmt, *bgp;
	Rib__Route **r;
	char pfx[32];
	size_t want = 504;
	unsigned seen;

	(void)state;
	rib_conf_default(&c);
	c.fib_batch_max = 16;
	c.fib_high_water = 64;
	c.fib_low_water = 16;
	conf = &c;
	boot(&mgmt);
	conf = NULL;
	bgp = rib_client("bgpd", false);
	r = lc_arena_alloc(arena, sizeof(*r) * 500);
	for (unsigned i = 0; i < 500; i++) {
		snprintf(pfx, sizeof(pfx), "198.19.%u.%u/28", i / 16,
		    (i % 16) * 16);
		r[i] = mkroute(pfx, "198.18.2.7", 0, NULL, NULL);
	}
	ff_counters_reset();
	ff.hold_acks = true;
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 500,
			     NULL, 0)
			     ->accepted,
	    500);
	run_for(100);
	assert_int_equal(ff.adds, 64); /* the high water mark */
	assert_int_equal(ff.batches, 4);
	seen = ff.adds;
	/* acks bring it under the low mark: more goes, never over 64 */
	while (ff.nheld > 0) {
		ff_release();
		run_for(20);
		assert_true(ff.adds - seen <= 64);
		seen = ff.adds;
	}
	ff.hold_acks = false;
	assert_true(run_until(ff_has, &want, 2000));
	assert_int_equal(ff.n, 504);
	assert_fib_matches(rd);

	/* fwd refuses a batch: the whole FIB goes again inside a resync */
	ff_counters_reset();
	ff.fail_next = 1;
	r[0] = mkroute("198.19.200.0/24", "198.18.1.7", 0, NULL, NULL);
	assert_int_equal(batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 1, NULL,
			     0)
			     ->accepted,
	    1);
	run_for(50);
	assert_true(run_until(fwd_up, rd, 2000));
	assert_int_equal(ff.begins, 1);
	assert_int_equal(ff.ends, 1);
	assert_int_equal(ff.nwithdrawn, 0);
	assert_int_equal(ff.n, 505);
	assert_fib_matches(rd);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

#define UNSET (-1) /* a RibConfig leaf not sent */

/* SET_CONFIG with each leaf a value or UNSET; the status (err if not OK) */
static int
set_config(struct ipc_client *c, long ecmp, long connected, long stat,
    char *err, size_t errlen)
{
	Rib__RibConfig rc = RIB__RIB_CONFIG__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err e;
	int st;

	rc.has_ecmp_width = ecmp != UNSET;
	rc.ecmp_width = ecmp != UNSET ? (uint32_t)ecmp : 0;
	rc.has_distance_connected = connected != UNSET;
	rc.distance_connected = connected != UNSET ? (uint32_t)connected : 0;
	rc.has_distance_static = stat != UNSET;
	rc.distance_static = stat != UNSET ? (uint32_t)stat : 0;
	st = ipc_call_wait(c, RIB__METHOD__SET_CONFIG, &rc.base, 5000, arena,
	    &rep, &e);
	snprintf(err, errlen, "%s", e.msg);
	return (st);
}

static unsigned
distance_of(unsigned source)
{
	struct rib_source_info si;

	assert_int_equal(rib_source_info(rib_d_rib(rd), source, &si), 0);
	return (si.distance);
}

/* mgmt's rib block: a leaf that is there is set (0 is a distance), one
 * that is not stays as it is; out of range refuses the whole message. */
static void
test_settings(void **state)
{
	struct ipc_client *mgmt;
	char err[256];

	(void)state;
	boot(&mgmt);
	assert_int_equal(set_config(mgmt, 4, 0, UNSET, err, sizeof(err)),
	    IPC_OK);
	assert_int_equal(distance_of(RIB_SRC_CONNECTED), 0);
	assert_int_equal(distance_of(RIB_SRC_STATIC), RIB_DISTANCE_STATIC);
	assert_int_equal(set_config(mgmt, UNSET, 5, 250, err, sizeof(err)),
	    IPC_OK);
	assert_int_equal(distance_of(RIB_SRC_CONNECTED), 5);
	assert_int_equal(distance_of(RIB_SRC_STATIC), 250);
	assert_int_equal(set_config(mgmt, UNSET, 256, 7, err, sizeof(err)),
	    IPC_BAD_REQUEST);
	assert_non_null(strstr(err, "rib settings out of range"));
	assert_int_equal(set_config(mgmt, 0, UNSET, 7, err, sizeof(err)),
	    IPC_BAD_REQUEST);
	assert_int_equal(set_config(mgmt, 65, UNSET, 7, err, sizeof(err)),
	    IPC_BAD_REQUEST);
	assert_int_equal(distance_of(RIB_SRC_STATIC), 250);
	assert_int_equal(set_config(mgmt, UNSET, UNSET, UNSET, err,
			     sizeof(err)),
	    IPC_OK);
	assert_int_equal(distance_of(RIB_SRC_CONNECTED), 5);
	assert_int_equal(distance_of(RIB_SRC_STATIC), 250);
	ipc_client_free(mgmt);
}

/* ---- transactions in parts (RouteBatch.txn) ------------------------------- */

/* Route k of the transaction tests: 198.19.(k >> 8).(k & 255)/32 for k <
 * 65536, then 198.18.128.0/17's /32s; via 198.18.1.(k % 200 + 2). */
static uint32_t
tk_pfx(unsigned k)
{
	return (k < 65536 ? 0xc6130000u | k : 0xc6128000u + (k - 65536));
}

/* Part `part` of transaction txn: routes [from, to) added (or deleted);
 * route `bad` with next hop 240.0.0.1, which only rib refuses. The ack
 * (in arena). */
static Rib__RouteBatchAck *
tpart(struct ipc_client *c, uint64_t txn, uint32_t part, bool more,
    unsigned from, unsigned to, bool del, long bad, uint32_t txn_routes)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	struct ipc_route_set s;
	struct ipc_route_enc e;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	ipc_route_set_init(&s);
	ipc_route_enc_init(&e);
	for (unsigned k = from; k < to; k++) {
		struct ipc_route *r = ipc_route_set_add(&s, del ? 0 : 1);

		assert_non_null(r);
		r->pfx.v4.s_addr = htonl(tk_pfx(k));
		r->len = 32;
		if (del)
			r->op = IPC_ROUTE_DEL;
		else
			s.nh[r->nh].addr.v4.s_addr = htonl((long)k == bad ?
				0xf0000001u :
				0xc6120100u | (k % 200 + 2));
	}
	assert_int_equal(ipc_route_batch_encode(&e, &b, &s, true), 0);
	b.source = RIB__SOURCE__STATIC;
	b.source_name = (char *)"static";
	b.seq = part + 1;
	b.txn = txn;
	b.part = part;
	b.more = more;
	b.txn_routes = txn_routes;
	st = ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH, &b.base, 10000, arena,
	    &rep, &err);
	ipc_route_enc_fini(&e);
	ipc_route_set_fini(&s);
	if (st != IPC_OK)
		fail_msg("ROUTE_BATCH: %s %s", ipc_status_str(st), err.msg);
	return ((Rib__RouteBatchAck *)rep);
}

static size_t
static_routes(void)
{
	struct rib_source_info si;

	assert_int_equal(rib_source_info(rib_d_rib(rd), RIB_SRC_STATIC, &si),
	    0);
	return (si.routes);
}

static void
assert_refused(const Rib__RouteBatchAck *a, const char *want)
{
	assert_int_equal(a->accepted, 0);
	assert_int_equal(a->n_errors, 1);
	if (strstr(a->errors[0]->message, want) == NULL)
		fail_msg("'%s' lacks '%s'", a->errors[0]->message, want);
}

static bool
ff_has_n(void *arg)
{
	return (ff.n == *(size_t *)arg);
}

/* A transaction's parts are kept until the last, then applied as one
 * batch; a refused part, one out of sequence, an abort or the sender's end
 * leave rib and fwd as they were. */
static void
test_txn(void **state)
{
	struct ipc_client *mgmt, *other;
	Rib__RouteBatchAck *a;
	struct ff_route *f;
	size_t n0, f0, want;
	unsigned b0;

	(void)state;
	boot(&mgmt);
	run_for(30);
	n0 = static_routes();
	f0 = ff.n;

	/* 1. three parts: nothing until the last, then all of them */
	a = tpart(mgmt, 11, 0, true, 0, 3000, false, -1, 9000);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, 3000);
	assert_int_equal(tpart(mgmt, 11, 1, true, 3000, 6000, false, -1, 0)
			     ->accepted,
	    3000);
	run_for(30);
	assert_int_equal(static_routes(), n0);
	assert_int_equal(ff.n, f0);
	a = tpart(mgmt, 11, 2, false, 6000, 9000, false, -1, 0);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, 9000);
	assert_int_equal(static_routes(), n0 + 9000);
	want = f0 + 9000;
	assert_true(run_until(ff_has_n, &want, 5000));
	assert_non_null(f = ff_find(pf("198.19.35.39/32"))); /* k 8999 */
	assert_int_equal(f->a[0], htonl(0xc6120100u | (8999 % 200 + 2)));
	assert_fib_matches(rd);

	/* 2. a part refused (a next hop only rib refuses) drops the
	 * transaction: the parts behind it are refused, nothing changes */
	b0 = ff.batches;
	assert_int_equal(tpart(mgmt, 12, 0, true, 0, 3000, true, -1, 0)
			     ->accepted,
	    3000);
	a = tpart(mgmt, 12, 1, true, 9000, 12000, false, 11500, 0);
	assert_refused(a,
	    "part 1 of the transaction: entry 2500: "
	    "198.19.44.236/32: invalid next-hop address "
	    "240.0.0.1");
	assert_int_equal(a->errors[0]->index, 3000 + 2500);
	assert_refused(tpart(mgmt, 12, 2, false, 3000, 9000, true, -1, 0),
	    "part 2 of no transaction in progress");
	run_for(30);
	assert_int_equal(static_routes(), n0 + 9000);
	assert_int_equal(ff.n, want);
	assert_int_equal(ff.batches, b0);

	/* 3. out of sequence */
	assert_int_equal(tpart(mgmt, 13, 0, true, 0, 10, true, -1, 0)->accepted,
	    10);
	assert_refused(tpart(mgmt, 13, 2, false, 20, 30, true, -1, 0),
	    "part 2 out of sequence (expected 1)");
	assert_refused(tpart(mgmt, 13, 1, false, 10, 20, true, -1, 0),
	    "no transaction in progress");

	/* 4. an abort: given up, then a new one is fine */
	assert_int_equal(tpart(mgmt, 14, 0, true, 0, 10, true, -1, 0)->accepted,
	    10);
	{
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		ProtobufCMessage *rep;
		struct lc_err err;

		b.source = RIB__SOURCE__STATIC;
		b.source_name = (char *)"static";
		b.txn = 14;
		b.abort = true;
		assert_int_equal(ipc_call_wait(mgmt, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Rib__RouteBatchAck *)rep)->n_errors, 0);
		/* part, more and abort need a txn */
		b.txn = 0;
		assert_int_equal(ipc_call_wait(mgmt, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_refused((Rib__RouteBatchAck *)rep, "need a transaction");
	}
	assert_refused(tpart(mgmt, 14, 1, false, 10, 20, true, -1, 0),
	    "no transaction in progress");
	run_for(30);
	assert_int_equal(static_routes(), n0 + 9000);

	/* 5. one at a time: another sender waits; over the limit at once */
	other = rib_client("mgmt2", false);
	assert_int_equal(tpart(mgmt, 15, 0, true, 0, 4500, true, -1, 0)
			     ->accepted,
	    4500);
	assert_refused(tpart(other, 1, 0, true, 0, 10, true, -1, 0),
	    "transaction 15 of mgmt is in progress");
	a = tpart(mgmt, 15, 1, false, 4500, 9000, true, -1, 0);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, 9000);
	assert_int_equal(static_routes(), n0);
	assert_true(run_until(ff_has_n, &f0, 5000));
	assert_null(ff_find(pf("198.19.35.39/32")));
	assert_refused(tpart(other, 2, 0, true, 0, 10, false, -1,
			   RIB_TXN_MAX + 1),
	    "over the limit");

	/* 6. the sender goes away with its parts: dropped, another may go */
	assert_int_equal(tpart(other, 3, 0, true, 0, 100, false, -1, 0)
			     ->accepted,
	    100);
	ipc_client_free(other);
	run_for(50);
	assert_int_equal(tpart(mgmt, 16, 0, true, 0, 100, false, -1, 0)
			     ->accepted,
	    100);

	/* 7. a static by interface name in a part: resolved when applied */
	{
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		Rib__Route *r[1];
		ProtobufCMessage *rep;
		struct lc_err err;

		r[0] = mkroute("198.18.103.0/24", NULL, 0, NULL, "eth2");
		b.source = RIB__SOURCE__STATIC;
		b.source_name = (char *)"static";
		b.txn = 16;
		b.part = 1;
		b.add = r;
		b.n_add = 1;
		assert_int_equal(ipc_call_wait(mgmt, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 5000, arena, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Rib__RouteBatchAck *)rep)->accepted, 101);
	}
	want = f0 + 101;
	assert_true(run_until(ff_has_n, &want, 5000));
	assert_non_null(f = ff_find(pf("198.18.103.0/24")));
	assert_int_equal(f->a[0], 0);
	assert_int_equal(f->i[0], 2);
	assert_fib_matches(rd);
	ipc_client_free(mgmt);
}

/* More routes than one batch may hold (RIB_BATCH_MAX), in two parts; and
 * the same refused in its last part. Without fwd (its fake is linear). */
static void
test_txn_big(void **state)
{
	struct ipc_client *mgmt;
	Rib__RouteBatchAck *a;
	unsigned n = RIB_BATCH_MAX + 4464; /* 70000 */

	(void)state;
	rd = rib_start(100);
	mgmt = rib_client("mgmt", false);
	a = tpart(mgmt, 1, 0, true, 0, n / 2, false, -1, n);
	assert_int_equal(a->accepted, n / 2);
	a = tpart(mgmt, 1, 1, false, n / 2, n, false, -1, 0);
	assert_int_equal(a->rejected, 0);
	assert_int_equal(a->accepted, n);
	assert_int_equal(static_routes(), n);
	/* all deleted, but the last part has a bad route: none goes */
	a = tpart(mgmt, 2, 0, true, 0, n / 2, true, -1, 0);
	assert_int_equal(a->accepted, n / 2);
	a = tpart(mgmt, 2, 1, false, n - 10, n + 1, false, n, 0);
	assert_refused(a, "invalid next-hop address 240.0.0.1");
	assert_int_equal(static_routes(), n);
	a = tpart(mgmt, 3, 0, true, 0, n / 2, true, -1, 0);
	a = tpart(mgmt, 3, 1, false, n / 2, n, true, -1, 0);
	assert_int_equal(a->accepted, n);
	assert_int_equal(static_routes(), 0);
	ipc_client_free(mgmt);
}

static bool
ff_adds_over(void *arg)
{
	return (ff.adds > *(unsigned *)arg);
}

static bool
ff_v6_dels_1(void *arg)
{
	(void)arg;
	return (ff.v6_dels >= 1);
}

/* An IPv6 route as a RouteBatch message: prefix6, one next hop (addr6
 * NULL: attached) on ifindex or ifname */
static Rib__Route *
mkroute6(const char *pfx, const char *nh, uint32_t ifx, const char *ifname)
{
	Rib__Route *r = lc_arena_calloc(arena, sizeof(*r));
	struct lc_prefix6 p;
	uint8_t *a = lc_arena_calloc(arena, 32);

	rib__route__init(r);
	assert_int_equal(lc_prefix6_parse(pfx, &p), 0);
	memcpy(a, p.addr.b, 16);
	r->prefix6.data = a;
	r->prefix6.len = 16;
	r->len = p.len;
	r->n_nh_addr6 = r->n_nh_ifindex = 1;
	r->nh_addr6 = lc_arena_calloc(arena, sizeof(*r->nh_addr6));
	r->nh_ifindex = lc_arena_calloc(arena, sizeof(uint32_t));
	if (nh != NULL)
		assert_int_equal(inet_pton(AF_INET6, nh, a + 16), 1);
	r->nh_addr6[0].data = a + 16;
	r->nh_addr6[0].len = 16;
	r->nh_ifindex[0] = ifx;
	if (ifname != NULL) {
		r->n_nh_ifname = 1;
		r->nh_ifname = lc_arena_calloc(arena, sizeof(char *));
		r->nh_ifname[0] = lc_arena_strdup(arena, ifname);
	}
	return (r);
}

/* IPv6 routes through the daemon: connected from a client, a protocol
 * route resolved through it, QUERY's IPv6 fields; a fwd that does not say
 * ipv6_ok gets none of them (and IPv4 still flows); one that does gets them,
 * packed, and their withdrawal. */
static void
ipv6_daemon(bool fwd6)
{
	struct ipc_client *mgmt, *bgp, *cn;
	Rib__Route *r[2];
	Rib__RouteBatchAck *a;
	Rib__Query q = RIB__QUERY__INIT;
	Rib__QueryReply *qr;
	Lifecycle__Prefix dp = LIFECYCLE__PREFIX__INIT, *dpp = &dp;
	uint8_t p6[16], l6[16];
	char txt[INET6_ADDRSTRLEN];
	unsigned b0;

	ff.ipv6 = fwd6;
	ff.packed = fwd6;
	boot(&mgmt);
	cn = rib_client("ifmgr", false);
	bgp = rib_client("bgpd", false);
	/* IPv4 connected routes from a client: refused */
	r[0] = mkroute("198.18.50.0/24", NULL, 1, NULL, NULL);
	a = batch(cn, RIB__SOURCE__CONNECTED, "", 0, r, 1, NULL, 0);
	assert_refused(a, "IPv4 connected routes come from tern-fwd");
	r[0] = mkroute6("2001:2::/64", NULL, 0, "eth1");
	a = batch(cn, RIB__SOURCE__CONNECTED, "", 0, r, 1, NULL, 0);
	assert_int_equal(a->rejected, 0);
	r[0] = mkroute6("2001:2:0:1::/64", "2001:2::2", 0, NULL);
	r[1] = mkroute6("2001:2:0:2::/64", "fe80::1", 0, NULL);
	a = batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r + 1, 1, NULL, 0);
	assert_refused(a, "link-local next hop without interface");
	a = batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 1, NULL, 0);
	assert_int_equal(a->rejected, 0);
	/* QUERY: the IPv6 route, resolved on eth1 (ifindex 1) */
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:1::9", l6), 1);
	q.lookup6.data = l6;
	q.lookup6.len = 16;
	qr = query(mgmt, &q);
	assert_int_equal(qr->n_routes, 1);
	assert_int_equal(qr->routes[0]->route->prefix6.len, 16);
	inet_ntop(AF_INET6, qr->routes[0]->route->prefix6.data, txt,
	    sizeof(txt));
	assert_string_equal(txt, "2001:2:0:1::");
	assert_int_equal(qr->routes[0]->route->len, 64);
	assert_true(qr->routes[0]->best);
	assert_int_equal(qr->routes[0]->n_resolved_addr6, 1);
	assert_int_equal(qr->routes[0]->n_resolved_addr, 0);
	inet_ntop(AF_INET6, qr->routes[0]->resolved_addr6[0].data, txt,
	    sizeof(txt));
	assert_string_equal(txt, "2001:2::2");
	assert_int_equal(qr->routes[0]->resolved_ifindex[0], 1);
	/* family 6: the two IPv6 routes only; 0: the IPv4 ones too */
	rib__query__init(&q);
	q.family = 6;
	assert_int_equal(query(mgmt, &q)->n_routes, 2);
	q.family = 0;
	assert_true(query(mgmt, &q)->n_routes > 2);
	q.family = 5;
	{
		ProtobufCMessage *rep = NULL;
		struct lc_err err;

		assert_int_equal(ipc_call_wait(mgmt, RIB__METHOD__QUERY,
				     &q.base, 5000, arena, &rep, &err),
		    IPC_BAD_REQUEST);
	}
	b0 = ff.adds;
	r[0] = mkroute("203.0.113.0/24", "198.18.1.2", 0, NULL, NULL);
	a = batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, r, 1, NULL, 0);
	assert_int_equal(a->rejected, 0);
	assert_true(run_until(ff_adds_over, &b0, 3000));
	run_for(50);
	assert_int_equal(ff.v6_bad, 0);
	if (!fwd6) {
		assert_int_equal(ff.v6_adds, 0);
		ipc_client_free(cn);
		ipc_client_free(bgp);
		ipc_client_free(mgmt);
		return;
	}
	assert_int_equal(ff.v6_adds, 2);
	assert_true(ff.packed_batches > 0);
	/* the protocol route's withdrawal reaches fwd */
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:1::", p6), 1);
	dp.prefix6.data = p6;
	dp.prefix6.len = 16;
	dp.len = 64;
	a = batch(bgp, RIB__SOURCE__PROTOCOL, "bgp", 0, NULL, 0, &dpp, 1);
	assert_int_equal(a->rejected, 0);
	assert_true(run_until(ff_v6_dels_1, NULL, 3000));
	ipc_client_free(cn);
	ipc_client_free(bgp);
	ipc_client_free(mgmt);
}

static void
test_ipv6_held(void **state)
{
	(void)state;
	ipv6_daemon(false);
}

static void
test_ipv6_to_fwd(void **state)
{
	(void)state;
	ipv6_daemon(true);
}

/* rib's connected IPv6 routes from fwd's Interface.addrs6 (the subnets
 * of the addresses in use; not the link-local one), an IPv6 static route
 * resolved recursively through one, and the route's withdrawal with the
 * address (issue 22) */
static void
test_connected6(void **state)
{
	static uint8_t a6[3][16];
	static Fwd__IfAddr6 ia[3], *iap[3];
	struct ipc_client *mgmt;
	Rib__Route *r[1];
	Rib__Query q = RIB__QUERY__INIT;
	Rib__QueryReply *qr;
	char txt[INET6_ADDRSTRLEN];

	(void)state;
	boot(&mgmt);
	/* eth1: 2001:2:0:300::1/64, 2001:2:0:301::1/64 and fe80::1/64 */
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:300::1", a6[0]), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:2:0:301::1", a6[1]), 1);
	assert_int_equal(inet_pton(AF_INET6, "fe80::1", a6[2]), 1);
	for (unsigned i = 0; i < 3; i++) {
		fwd__if_addr6__init(&ia[i]);
		ia[i].addr.data = a6[i];
		ia[i].addr.len = 16;
		ia[i].len = 64;
		iap[i] = &ia[i];
	}
	ff.ifs[0].n_addrs6 = 3;
	ff.ifs[0].addrs6 = iap;
	ff_publish(0);
	run_for(50);
	q.family = 6;
	qr = query(mgmt, &q);
	assert_int_equal(qr->n_routes, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(qr->routes[i]->source, RIB__SOURCE__CONNECTED);
		assert_true(qr->routes[i]->best);
		assert_int_equal(qr->routes[i]->route->len, 64);
		assert_int_equal(qr->routes[i]->route->nh_ifindex[0], 1);
		inet_ntop(AF_INET6, qr->routes[i]->route->prefix6.data, txt,
		    sizeof(txt));
		assert_string_equal(txt,
		    i == 0 ? "2001:2:0:300::" : "2001:2:0:301::");
	}
	/* a static route through the connected /64 */
	r[0] = mkroute6("2001:2:1::/48", "2001:2:0:300::2", 0, NULL);
	assert_int_equal(batch(mgmt, RIB__SOURCE__STATIC, "static", 0, r, 1,
			     NULL, 0)
			     ->rejected,
	    0);
	/* a link-local next hop with its interface's name */
	r[0] = mkroute6("2001:2:2::/48", "fe80::2", 0, "eth1");
	assert_int_equal(batch(mgmt, RIB__SOURCE__STATIC, "static", 0, r, 1,
			     NULL, 0)
			     ->rejected,
	    0);
	qr = query(mgmt, &q);
	assert_int_equal(qr->n_routes, 4);
	for (unsigned i = 2; i < 4; i++) {
		assert_int_equal(qr->routes[i]->source, RIB__SOURCE__STATIC);
		assert_true(qr->routes[i]->best);
		assert_int_equal(qr->routes[i]->n_resolved_addr6, 1);
		assert_int_equal(qr->routes[i]->resolved_ifindex[0], 1);
	}
	/* the addresses go: so do the connected routes, and the recursive
	 * static is no longer active (the link-local one still is) */
	ff.ifs[0].n_addrs6 = 0;
	ff_publish(0);
	run_for(50);
	qr = query(mgmt, &q);
	assert_int_equal(qr->n_routes, 2);
	assert_int_equal(qr->routes[0]->source, RIB__SOURCE__STATIC);
	assert_false(qr->routes[0]->active);
	assert_true(qr->routes[1]->active);
	ipc_client_free(mgmt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_routes_to_fib, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_packed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_batches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_grace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fwd_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rib_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_fwd_and_hold, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_water_marks_and_errors, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6_held, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6_to_fwd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connected6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_and_static_resync, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_txn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_txn_big, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
