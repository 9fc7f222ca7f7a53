/* tests/bench/bench_routes.c: bench-routes: 1M routes through the real tern-rib's protocol API until a fwd FIB acknowledges them, bytes per route in rib and fwd, one route change with 1M present; peer: the kernel FIB loaded with `ip -batch` in a namespace. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fwd/fwd_fib.h"
#include "fwd/fwd_fib6.h"
#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_build.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "tests/lib/prefixset.h"
#include "tests/lib/prefixset6.h"

/*
 * What the figures cover (said again in the output):
 * - routes: a client sends n routes in RouteBatch calls of 65,536 to the
 *   real tern-rib binary (a child process, protocol source "bench"); rib
 *   selects, resolves each next hop recursively through a connected /16 and
 *   downloads FibBatch calls to a fwd peer in this process: an IPC server of
 *   fwd.proto that applies every batch to fwd's real FIB (fwd/fwd_fib.h,
 *   DIR-24-8) and acks it. Timed from the first call until that FIB holds
 *   all n routes (acks go back at once). The tern-fwd daemon is not in this
 *   path (it did not serve FIB_BATCH when this was written).
 * - rib_memory: tern-rib's RSS after minus before, over n.
 * - fwd_memory: fwd_fib_memory() over n (the FIB's tables and control
 *   state; not a whole tern-fwd process).
 * - change: one route's next hop changed with n present, from the client's
 *   call until the FIB holds it.
 * - peer: `ip -batch` of the same n routes into a fresh namespace's kernel
 *   FIB (a dummy interface carrying the /16).
 * - IPv6 (--family=6, or 4,6 the default): the same with n prefixes of the
 *   IPv6 set (tests/lib/prefixset6.h), next hops 2001:2::X:Y resolved
 *   through a connected 2001:2::/64 (fwd's interface address; rib takes
 *   it as a client's connected route where it does not derive it from fwd
 *   yet), into fwd_fib6 (in process) or tern-fwd's IPv6 FIB; its peer is
 *   the IPv4 run of the same round (the ratio, >= 0.7x), and the
 *   kernel's IPv6 FIB with `ip -6 -batch`.
 */

#define CHUNK_MAX 65536
static size_t CHUNK = CHUNK_MAX; /* routes per RouteBatch (--chunk=N) */

static struct ev_loop *loop;
static char rundir[PATH_MAX], ribbin[PATH_MAX];
static struct tt_prefixset ps;
static struct tt_prefixset6 ps6;
static bool v6;		      /* this run's family: the IPv6 set */
static const char *ribopt[4]; /* --rib-opt=X: extra tern-rib options */
static bool real_fwd;	      /* the tern-fwd daemon, not the in-process FIB */
/* --encoding=message: one Route message per route instead of packed_add
 * records */
static bool msg_enc;
static bool show_slow; /* --show-slow: changes over 0.5 ms */
static char fwdbin[PATH_MAX], fwdns[64];
static pid_t fwd_pid;
static volatile pid_t rib_pid, bird_pid; /* for the signal cleanup */
static char basedir[PATH_MAX];
static struct ipc_client *ribc, *fwdc;
static struct lc_arena *par; /* replies of polls */
static unsigned nribopt;

/* IPv6 addresses of the runs, all in 2001:2::/64 (the connected prefix):
 * fwd's 2001:2::1, gateway nh (alternative alt) 2001:2::(1 + alt):nh. */
static const uint8_t fwd_ip6[16] = {0x20, 0x01, 0, 0x02, [15] = 1};

static void
gw6_of(uint8_t a[16], unsigned nh, unsigned alt)
{
	tt_a6_put((tt_u128)0x20010002u << 96 | (1 + alt) << 16 | (nh & 0xff),
	    a);
}

/* ---- the fwd peer: real fwd FIB behind fwd.proto ---- */

static struct {
	struct ipc_server *srv;
	struct fwd_fib *fib;
	struct fwd_fib6 *fib6;
	uint32_t nhaddr[1024], nhif[1024];
	uint8_t nhaddr6[1024][16];
	unsigned nnh, nnh6;
	size_t target;
	uint64_t t_done;
	uint32_t watch_pfx, watch_nh;
	uint8_t watch_pfx6[16], watch_nh6[16];
	uint8_t watch_len;
	uint64_t t_watch;
	uint64_t batches, failed;
	struct ipc_route_set in; /* a decoded FibBatch */
} fw;

static unsigned
nh_index(uint32_t addr, uint32_t ifindex)
{
	for (unsigned i = 0; i < fw.nnh; i++)
		if (fw.nhaddr[i] == addr && fw.nhif[i] == ifindex)
			return (i);
	if (fw.nnh == 1024)
		return (0);
	if (fw.nnh == FWD_FIB_NH_NONE) { /* not a next hop: the FIB refuses
					  * it; a slot nothing matches */
		fw.nhaddr[fw.nnh] = fw.nhif[fw.nnh] = UINT32_MAX;
		fw.nnh++;
	}
	fw.nhaddr[fw.nnh] = addr;
	fw.nhif[fw.nnh] = ifindex;
	return (fw.nnh++);
}

/* The same for an IPv6 gateway (indices of their own: the FIB6 is
 * another table; 0 when full, as above). */
static unsigned
nh_index6(const uint8_t *addr)
{
	for (unsigned i = 0; i < fw.nnh6; i++)
		if (memcmp(fw.nhaddr6[i], addr, 16) == 0)
			return (i);
	if (fw.nnh6 == 1024)
		return (0);
	memcpy(fw.nhaddr6[fw.nnh6], addr, 16);
	return (fw.nnh6++);
}

/* An IPv6 FIB record of a decoded FibBatch applied to the peer's FIB6. */
static void
fw_route6(const struct ipc_route *r, const struct ipc_route_nh *h)
{
	static const uint8_t zero[16];
	const uint8_t *g = r->n_nh > 0 ? h->addr.v6.b : zero;

	if (r->op == IPC_ROUTE_DEL) {
		(void)fwd_fib6_del(fw.fib6, r->pfx.v6.b, r->len);
		return;
	}
	if (r->op == IPC_ROUTE_BAD ||
	    fwd_fib6_add(fw.fib6, r->pfx.v6.b, r->len,
		r->n_nh > 0 ? nh_index6(g) : 0) != 0)
		fw.failed++;
	if (r->len == fw.watch_len &&
	    memcmp(r->pfx.v6.b, fw.watch_pfx6, 16) == 0 &&
	    memcmp(g, fw.watch_nh6, 16) == 0)
		fw.t_watch = lc_time_mono_ns();
}

/* Routes in the peer's FIB of this run's family. */
static size_t
fw_count(void)
{
	return (v6 ? fwd_fib6_count(fw.fib6) : fwd_fib_count(fw.fib));
}

static void
fw_batch(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	const Fwd__FibBatch *b = (const Fwd__FibBatch *)m;
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;
	const struct ipc_route_set *s = &fw.in;
	struct lc_err err;

	(void)arg;
	fw.batches++;
	if (ipc_route_fib_decode(&fw.in, b, &err) != 0)
		fw.failed += ipc_route_fib_count(b);
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];
		const struct ipc_route_nh *h = &s->nh[r->nh];
		uint32_t g, nh;

		if (r->family == AF_INET6) {
			fw_route6(r, h);
			continue;
		}
		g = r->n_nh > 0 ? h->addr.v4.s_addr : 0;
		nh = r->n_nh > 0 ? nh_index(g, h->ifindex) : 0;
		if (r->op == IPC_ROUTE_DEL) {
			(void)fwd_fib_del(fw.fib, ntohl(r->pfx.v4.s_addr),
			    r->len);
			continue;
		}
		if (r->op == IPC_ROUTE_BAD ||
		    fwd_fib_add(fw.fib, ntohl(r->pfx.v4.s_addr), r->len, nh) !=
			0)
			fw.failed++;
		if (r->pfx.v4.s_addr == fw.watch_pfx &&
		    r->len == fw.watch_len && g == fw.watch_nh)
			fw.t_watch = lc_time_mono_ns();
	}
	if (fw.t_done == 0 && fw.target > 0 && fw_count() >= fw.target)
		fw.t_done = lc_time_mono_ns();
	ack.seq = b->seq;
	ack.packed_ok = true;
	ack.ipv6_ok = true;
	ack.applied = (uint32_t)ipc_route_fib_count(b);
	ack.routes = (uint32_t)(fwd_fib_count(fw.fib) +
	    fwd_fib6_count(fw.fib6));
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

static void
fw_resync(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Fwd__FibAck ack = FWD__FIB_ACK__INIT;

	(void)m;
	ack.packed_ok = true;
	ack.ipv6_ok = true;
	if (arg != NULL) {
		fwd_fib_mark_stale(fw.fib);
		fwd_fib6_mark_stale(fw.fib6);
	} else
		ack.swept = (uint32_t)(fwd_fib_sweep_stale(fw.fib) +
		    fwd_fib6_sweep_stale(fw.fib6));
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

static void
fw_subscribe(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Fwd__InterfaceList l = FWD__INTERFACE_LIST__INIT;
	Fwd__Interface f = FWD__INTERFACE__INIT, *fp = &f;
	Fwd__IfAddr a = FWD__IF_ADDR__INIT, *ap = &a;
	Fwd__IfAddr6 a6 = FWD__IF_ADDR6__INIT, *a6p = &a6;

	(void)m;
	(void)arg;
	ipc_req_subscribe(req);
	a6.addr.data = (uint8_t *)fwd_ip6; /* 2001:2::1/64 */
	a6.addr.len = 16;
	a6.len = 64;
	f.n_addrs6 = 1;
	f.addrs6 = &a6p;
	f.ifindex = 1;
	f.name = (char *)"bench0";
	f.enabled = true;
	f.link = FWD__LINK_STATE__LINK_UP;
	a.addr = htonl(0xc6120001u); /* 198.18.0.1/16 */
	a.len = 16;
	f.n_addrs = 1;
	f.addrs = &ap;
	l.n_interfaces = 1;
	l.interfaces = &fp;
	(void)ipc_reply(req, IPC_OK, &l.base);
}

static int
fw_start(void)
{
	struct fwd_fib_conf fc = {.max_nh = 4096};
	struct fwd_fib6_conf fc6 = {.max_nh = 4096};
	struct ipc_opts o = {.rundir = rundir, .component = "fwd"};

	memset(&fw, 0, sizeof(fw));
	ipc_route_set_init(&fw.in);
	if ((fw.fib = fwd_fib_new(&fc)) == NULL ||
	    (fw.fib6 = fwd_fib6_new(&fc6)) == NULL)
		return (-errno);
	if ((fw.srv = ipc_server_new(loop, &ipc_svc_fwd, &o)) == NULL)
		return (-errno);
	ipc_server_handle(fw.srv, FWD__METHOD__FIB_BATCH, fw_batch, NULL);
	ipc_server_handle(fw.srv, FWD__METHOD__RESYNC_BEGIN, fw_resync, &fw);
	ipc_server_handle(fw.srv, FWD__METHOD__RESYNC_END, fw_resync, NULL);
	ipc_server_handle(fw.srv, FWD__METHOD__SUBSCRIBE, fw_subscribe, NULL);
	return (0);
}

static void
fw_stop(void)
{
	ipc_server_free(fw.srv);
	fwd_fib_free(fw.fib);
	fwd_fib6_free(fw.fib6);
	ipc_route_set_fini(&fw.in);
	fw.srv = NULL;
	fw.fib = NULL;
	fw.fib6 = NULL;
}

/* ---- the real tern-fwd: a child in a namespace, one afpacket port on a
 * veth carrying 198.18.0.1/16 ---- */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool
fwdc_up(void *arg)
{
	(void)arg;
	return (ipc_client_connected(fwdc));
}

static bool run_until(bool (*pred)(void *), void *arg, double secs);

static int
real_fwd_start(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "bench"};
	Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic = FWD__IF_CONFIG__INIT, *icp = &ic;
	Fwd__IfAddr a = FWD__IF_ADDR__INIT, *ap = &a;
	Fwd__IfAddr6 a6 = FWD__IF_ADDR6__INIT, *a6p = &a6;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	char rd[PATH_MAX + 16];
	int st;

	memset(&fw, 0, sizeof(fw));
	snprintf(fwdns, sizeof(fwdns), "ternbfwd%d", (int)getpid());
	if (sh("ip netns add %s && ip -n %s link add d0 type veth peer name d1 "
	       "&& ip -n %s link set d0 up && ip -n %s link set d1 up",
		fwdns, fwdns, fwdns, fwdns) != 0)
		return (-1);
	snprintf(rd, sizeof(rd), "--rundir=%s", rundir);
	if ((fwd_pid = fork()) == 0) {
		execlp("ip", "ip", "netns", "exec", fwdns, fwdbin, rd,
		    "--log-level=warning", (char *)NULL);
		_exit(127);
	}
	fwdc = ipc_client_new(loop, &ipc_svc_fwd, &o, false);
	if (fwd_pid < 0 || fwdc == NULL || !run_until(fwdc_up, NULL, 10))
		return (-1);
	a.addr = htonl(0xc6120001u);
	a.len = 16;
	ic.name = (char *)"d0";
	ic.enabled = true;
	ic.backend = (char *)"afpacket";
	ic.n_addrs = 1;
	ic.addrs = &ap;
	if (v6) { /* and 2001:2::1/64 */
		a6.addr.data = (uint8_t *)fwd_ip6;
		a6.addr.len = 16;
		a6.len = 64;
		ic.n_addrs6 = 1;
		ic.addrs6 = &a6p;
	}
	b.txn = 1;
	b.n_interfaces = 1;
	b.interfaces = &icp;
	st = ipc_call_wait(fwdc, FWD__METHOD__IF_CONFIG, &b.base, 5000, par,
	    &rep, &err);
	if (st != IPC_OK || rep == NULL || !((Fwd__IfConfigAck *)rep)->ok) {
		fprintf(stderr, "tern-fwd IF_CONFIG: %s %s\n",
		    ipc_status_str(st),
		    st == IPC_OK && rep ? ((Fwd__IfConfigAck *)rep)->error :
					  err.msg);
		return (-1);
	}
	lc_arena_reset(par);
	return (0);
}

static void
real_fwd_stop(void)
{
	int st;

	ipc_client_free(fwdc);
	fwdc = NULL;
	if (fwd_pid > 0) {
		kill(fwd_pid, SIGTERM);
		(void)waitpid(fwd_pid, &st, 0);
		fwd_pid = 0;
	}
	(void)sh("ip netns del %s 2>/dev/null", fwdns);
}

/* real fwd: rib says fwd acked every route it wants (n + the /16) */
static bool
rib_all_acked(void)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	bool ok = false;

	if (ipc_call_wait(ribc, RIB__METHOD__FIB_STATUS, &e.base, 1000, par,
		&rep, &err) == IPC_OK) {
		const Rib__FibStatus *s = (const Rib__FibStatus *)rep;

		ok = s->routes >= fw.target && s->pending == 0 &&
		    s->acked_seq == s->sent_seq && !s->resyncing &&
		    (!v6 || s->held6 == 0);
	}
	lc_arena_reset(par);
	return (ok);
}

/* real fwd: fwd's FIB has the watched route with the watched gateway */
static bool
fwd_has_watch(void)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	bool ok = false;

	q.prefix = v6 ? 0 : fw.watch_pfx;
	q.len = fw.watch_len;
	q.exact = true;
	if (v6) {
		q.ipv6 = true;
		q.prefix6.data = fw.watch_pfx6;
		q.prefix6.len = 16;
	}
	if (ipc_call_wait(fwdc, FWD__METHOD__QUERY_FIB, &q.base, 1000, par,
		&rep, &err) == IPC_OK) {
		const Fwd__FibList *l = (const Fwd__FibList *)rep;

		if (v6)
			ok = l->n_routes > 0 && l->routes[0]->n_nh_addr6 > 0 &&
			    l->routes[0]->nh_addr6[0].len == 16 &&
			    memcmp(l->routes[0]->nh_addr6[0].data, fw.watch_nh6,
				16) == 0;
		else
			ok = l->n_routes > 0 && l->routes[0]->n_nh_addr > 0 &&
			    l->routes[0]->nh_addr[0] == fw.watch_nh;
	}
	lc_arena_reset(par);
	return (ok);
}

/* ---- the rib child and its client ---- */

static pid_t
rib_spawn(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		char rd[PATH_MAX + 16];

		snprintf(rd, sizeof(rd), "--rundir=%s", rundir);
		const char *av[12] = {"tern-rib", rd, "--hold-ms=1",
		    "--log-level=warning"};

		for (unsigned i = 0; i < nribopt; i++)
			av[4 + i] = ribopt[i];
		execv(ribbin, (char *const *)av);
		_exit(127);
	}
	return (pid);
}

static long
rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return (kb);
}

/* CPU ms (user + system) of a process so far */
static double
cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')))
		(void)sscanf(p + 2,
		    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %lu %lu",
		    &ut, &st);
	fclose(f);
	return ((ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK));
}

static void
tick(struct ev_loop *l, ev_timer *w, int e)
{
	(void)l;
	(void)w;
	(void)e;
}

static bool
run_until(bool (*pred)(void *), void *arg, double secs)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(secs * 1e9);
	ev_timer t;
	bool ok;

	ev_timer_init(&t, tick, 0.002, 0.002);
	ev_timer_start(loop, &t);
	while (!(ok = pred(arg)) && lc_time_mono_ns() < end)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &t);
	return (ok);
}

/* rib connected to fwd and in sync (FIB_STATUS) */
static bool
rib_ready(void *arg)
{
	struct ipc_client *c = arg;
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_arena *a = lc_arena_new(4096);
	struct lc_err err;
	bool ok = false;

	if (ipc_client_connected(c) &&
	    ipc_call_wait(c, RIB__METHOD__FIB_STATUS, &e.base, 1000, a, &rep,
		&err) == IPC_OK) {
		const Rib__FibStatus *s = (const Rib__FibStatus *)rep;

		ok = s->fwd_connected && !s->resyncing && s->pending == 0;
	}
	lc_arena_free(a);
	if (!ok)
		usleep(5000);
	return (ok);
}

static unsigned acks, rejected, acks_want;
static uint64_t t_acked;

static void
ack_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *m)
{
	const Rib__RouteBatchAck *a = (const Rib__RouteBatchAck *)m;

	(void)arg;
	if (status == IPC_CANCELLED)
		return; /* the client closed with change acks due */
	if (++acks == acks_want)
		t_acked = lc_time_mono_ns();
	if (status != IPC_OK || a == NULL || a->rejected != 0) {
		rejected++;
		fprintf(stderr, "batch refused: %s %s\n",
		    ipc_status_str(status),
		    status == IPC_OK && a && a->n_errors ?
			a->errors[0]->message :
			err->msg);
	}
}

static bool
fw_done(void *arg)
{
	(void)arg;
	if (real_fwd && fw.t_done == 0 && rib_all_acked())
		fw.t_done = lc_time_mono_ns();
	return (fw.t_done != 0);
}

static bool
fw_watched(void *arg)
{
	uint64_t end = lc_time_mono_ns() + 5000000000ULL;

	(void)arg;
	/* poll back to back (one QUERY_FIB round trip each): waiting for the
	 * loop's 2 ms tick between polls would quantise the latency */
	while (real_fwd && fw.t_watch == 0 && lc_time_mono_ns() < end)
		if (fwd_has_watch())
			fw.t_watch = lc_time_mono_ns();
	return (fw.t_watch != 0);
}

static uint32_t
gw_of(unsigned nh, unsigned alt)
{
	return (htonl(0xc6120000u | ((1u + alt) << 8) | (nh & 0xff)));
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

struct ours {
	double routes_per_s, rib_bpr, fwd_bpr, p50_ms, p99_ms;
	/* client sent, rib acked all batches, fwd holds all */
	double t_sent_ms, t_acked_ms, t_done_ms, rib_cpu_ms, own_cpu_ms;
	double query_ms;   /* one QUERY page of 100 in the middle */
	double fwd_cpu_ms; /* tern-fwd's CPU during the load (real fwd) */
};

static int
call_retry(struct ipc_client *c, const Rib__RouteBatch *b)
{
	int rv;

	while ((rv = ipc_call(c, RIB__METHOD__ROUTE_BATCH, &b->base, ack_cb,
		    NULL, 60000)) == -ENOBUFS)
		ev_run(loop, EVRUN_ONCE);
	return (rv);
}

/* Routes off..off+k-1 of the set as records: one next hop each, from a
 * table of TT_PFX_NNH gateways (ifindex 0: resolved recursively). */
static int
chunk_set(struct ipc_route_set *rs, size_t off, size_t k)
{
	ipc_route_set_clear(rs);
	if (ipc_route_set_reserve(rs, k, TT_PFX_NNH) != 0)
		return (-ENOMEM);
	if (v6) { /* the same from the IPv6 set, gateways 2001:2::1:nh */
		for (unsigned i = 0; i < TT_PFX6_NNH; i++) {
			struct ipc_route_nh *h = &rs->nh[rs->nnh++];

			memset(h, 0, sizeof(*h));
			h->family = AF_INET6;
			gw6_of(h->addr.v6.b, i, 0);
		}
		for (size_t i = 0; i < k; i++) {
			const struct tt_prefix6 *p = &ps6.p[off + i];
			struct ipc_route *r = &rs->rt[rs->n++];

			memset(r, 0, sizeof(*r));
			r->family = AF_INET6;
			memcpy(r->pfx.v6.b, p->addr, 16);
			r->len = p->len;
			r->nh = p->nh;
			r->n_nh = 1;
		}
		return (0);
	}
	for (unsigned i = 0; i < TT_PFX_NNH; i++) {
		struct ipc_route_nh *h = &rs->nh[rs->nnh++];

		memset(h, 0, sizeof(*h));
		h->family = AF_INET;
		h->addr.v4.s_addr = gw_of(i, 0);
	}
	for (size_t i = 0; i < k; i++) {
		const struct tt_prefix *p = &ps.p[off + i];
		struct ipc_route *r = &rs->rt[rs->n++];

		memset(r, 0, sizeof(*r));
		r->family = AF_INET;
		r->pfx.v4.s_addr = htonl(p->addr);
		r->len = p->len;
		r->nh = p->nh;
		r->n_nh = 1;
	}
	return (0);
}

/* rib's FIB_STATUS routes (the routes it wants in fwd), -1 on failure */
static long
rib_want(struct ipc_client *c)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	long v = -1;

	if (ipc_call_wait(c, RIB__METHOD__FIB_STATUS, &e.base, 1000, par, &rep,
		&err) == IPC_OK)
		v = ((const Rib__FibStatus *)rep)->routes;
	lc_arena_reset(par);
	return (v);
}

/* IPv6 runs: the connected 2001:2::/64 on fwd's interface, which the
 * gateways resolve through. A client's connected IPv6 route (docs/rib.md,
 * IPv6: rib takes them until it derives them from fwd's Interface.addrs6,
 * which the fwd peer and tern-fwd both report); a rib that refuses it has
 * its own. Then the baseline: routes rib wants before the load. */
static int
conn6_setup(struct ipc_client *c, long *base)
{
	static bool said;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	struct ipc_route_set rs;
	struct ipc_route_enc re;
	struct ipc_route *r;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = -1;

	ipc_route_set_init(&rs);
	ipc_route_enc_init(&re);
	if ((r = ipc_route_set_add(&rs, 1)) != NULL) {
		r->family = AF_INET6;
		memcpy(r->pfx.v6.b, fwd_ip6, 8); /* 2001:2::/64 */
		r->len = 64;
		rs.nh[r->nh].family = AF_INET6;
		rs.nh[r->nh].ifname = real_fwd ? "d0" : "bench0";
		if (ipc_route_batch_encode(&re, &b, &rs, false) == 0) {
			b.source = RIB__SOURCE__CONNECTED;
			b.source_name = (char *)"";
			b.seq = 1;
			st = ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH, &b.base,
			    5000, par, &rep, &err);
		}
	}
	if (st == IPC_OK && rep != NULL &&
	    ((const Rib__RouteBatchAck *)rep)->rejected != 0 && !said) {
		const Rib__RouteBatchAck *a = (const Rib__RouteBatchAck *)rep;

		printf("       (tern-rib refused the client's connected "
		       "2001:2::/64: %s; taking fwd's)\n",
		    a->n_errors ? a->errors[0]->message : "?");
		said = true;
	}
	lc_arena_reset(par);
	ipc_route_enc_fini(&re);
	ipc_route_set_fini(&rs);
	if (st != IPC_OK || !run_until(rib_ready, c, 10) ||
	    (*base = rib_want(c)) < 0)
		return (-1);
	return (0);
}

static int
run_ours(size_t n, unsigned changes, struct ours *o)
{
	struct ipc_opts io = {.rundir = rundir, .component = "bench"};
	struct ipc_route_set rs;
	struct ipc_route_enc re;
	uint32_t nh0 = 0;
	struct ipc_client *c;
	long rss0, rss1;
	double *lat = calloc(changes + 1, sizeof(double));
	uint64_t t0;
	pid_t pid;
	int rv = -1, st;

	long frss0 = 0;

	ipc_route_set_init(&rs);
	ipc_route_enc_init(&re);
	if ((real_fwd ? real_fwd_start() : fw_start()) != 0 ||
	    (rib_pid = pid = rib_spawn()) < 0) {
		fprintf(stderr, "cannot start the fwd peer or tern-rib\n");
		if (real_fwd)
			real_fwd_stop();
		return (-1);
	}
	c = ribc = ipc_client_new(loop, &ipc_svc_rib, &io, false);
	fw.target = n + 1; /* and the connected /16 */
	if (v6)
		fw.target = 0; /* below, from the baseline */
	if (!run_until(rib_ready, c, 10)) {
		fprintf(stderr, "tern-rib did not come up with the fwd peer\n");
		goto out;
	}
	if (v6) {
		long base = 0;

		if (conn6_setup(c, &base) != 0) {
			fprintf(stderr,
			    "IPv6: no connected 2001:2::/64 in "
			    "tern-rib\n");
			goto out;
		}
		/* real fwd: rib's want (the /16 and the /64 in it); the
		 * in-process FIB6: what it holds (the /64) */
		fw.target = (size_t)n +
		    (real_fwd ? (size_t)base : fwd_fib6_count(fw.fib6));
	}
	rss0 = rss_kb(pid);
	if (real_fwd)
		frss0 = rss_kb(fwd_pid);
	o->rib_cpu_ms = cpu_ms(pid);
	o->own_cpu_ms = cpu_ms(getpid());
	o->fwd_cpu_ms = real_fwd ? cpu_ms(fwd_pid) : 0;
	acks = rejected = 0;
	acks_want = (unsigned)((n + CHUNK - 1) / CHUNK);
	t_acked = 0;
	t0 = lc_time_mono_ns();
	for (size_t off = 0; off < n; off += CHUNK) {
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		size_t k = n - off < CHUNK ? n - off : CHUNK;

		/* packed: one 8-byte record per route (prefix, length, one
		 * next hop from the batch's table of TT_PFX_NNH gateways);
		 * message: one Route each */
		if (chunk_set(&rs, off, k) != 0 ||
		    ipc_route_batch_encode(&re, &b, &rs, !msg_enc) != 0) {
			fprintf(stderr, "cannot encode a RouteBatch\n");
			goto out;
		}
		b.source = RIB__SOURCE__PROTOCOL;
		b.source_name = (char *)"bench";
		b.distance = 20;
		b.seq = off / CHUNK + 1;
		if (call_retry(c, &b) != 0) {
			fprintf(stderr, "RouteBatch call failed\n");
			goto out;
		}
	}
	(void)ipc_client_flush(c);
	o->t_sent_ms = (lc_time_mono_ns() - t0) / 1e6;
	if (!run_until(fw_done, NULL, 120)) {
		fprintf(stderr, "fwd FIB never reached %zu routes (%zu)\n",
		    fw.target, real_fwd ? 0 : fw_count());
		goto out;
	}
	o->routes_per_s = n / ((fw.t_done - t0) / 1e9);
	o->t_done_ms = (fw.t_done - t0) / 1e6;
	o->rib_cpu_ms = cpu_ms(pid) - o->rib_cpu_ms;
	o->own_cpu_ms = cpu_ms(getpid()) - o->own_cpu_ms;
	o->fwd_cpu_ms = real_fwd ? cpu_ms(fwd_pid) - o->fwd_cpu_ms : 0;
	o->t_acked_ms = t_acked ? (t_acked - t0) / 1e6 : -1;
	(void)run_until(rib_ready, c, 10);
	rss1 = rss_kb(pid);
	o->rib_bpr = (rss1 - rss0) * 1024.0 / n;
	o->fwd_bpr = real_fwd ? (rss_kb(fwd_pid) - frss0) * 1024.0 / n :
	    v6		      ? (double)fwd_fib6_memory(fw.fib6) / n :
				(double)fwd_fib_memory(fw.fib) / n;
	if (rejected || fw.failed) {
		fprintf(stderr, "%u batches refused, %llu FIB adds failed\n",
		    rejected, (unsigned long long)fw.failed);
		goto out;
	}
	/* a `show route` page over the whole table (a sorted walk) */
	{
		Rib__Query q = RIB__QUERY__INIT;
		ProtobufCMessage *rep = NULL;
		struct lc_err err;
		uint64_t q0 = lc_time_mono_ns();

		q.limit = 100;
		q.offset = (uint32_t)(n / 2);
		if (v6)
			q.family = 6;
		if (ipc_call_wait(c, RIB__METHOD__QUERY, &q.base, 30000, par,
			&rep, &err) == IPC_OK)
			o->query_ms = (lc_time_mono_ns() - q0) / 1e6;
		lc_arena_reset(par);
	}
	/* one route changed with n present */
	for (unsigned i = 0; i < changes; i++) {
		const struct tt_prefix *p = v6 ? NULL : &ps.p[(i * 7919u) % n];
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		struct ipc_route *r;

		ipc_route_set_clear(&rs);
		if ((r = ipc_route_set_add(&rs, 1)) == NULL)
			goto out;
		if (v6) {
			const struct tt_prefix6 *q = &ps6.p[(i * 7919u) % n];

			r->family = AF_INET6;
			rs.nh[r->nh].family = AF_INET6;
			memcpy(r->pfx.v6.b, q->addr, 16);
			r->len = q->len;
			gw6_of(rs.nh[r->nh].addr.v6.b, q->nh, 1 + (i & 1));
			memcpy(fw.watch_pfx6, q->addr, 16);
			memcpy(fw.watch_nh6, rs.nh[r->nh].addr.v6.b, 16);
		} else {
			r->pfx.v4.s_addr = htonl(p->addr);
			r->len = p->len;
		}
		if (!v6) {
			nh0 = gw_of(p->nh, 1 + (i & 1));
			rs.nh[r->nh].addr.v4.s_addr = nh0;
			fw.watch_pfx = htonl(p->addr);
			fw.watch_len = (uint8_t)p->len;
		} else
			fw.watch_len = r->len;
		if (ipc_route_batch_encode(&re, &b, &rs, false) != 0)
			goto out;
		b.source = RIB__SOURCE__PROTOCOL;
		b.source_name = (char *)"bench";
		fw.watch_nh = nh0;
		fw.t_watch = 0;
		t0 = lc_time_mono_ns();
		if (call_retry(c, &b) != 0)
			goto out;
		(void)ipc_client_flush(c);
		if (!run_until(fw_watched, NULL, 5)) {
			fprintf(stderr, "change %u never reached the FIB\n", i);
			goto out;
		}
		lat[i] = (fw.t_watch - t0) / 1e6;
		if (show_slow && lat[i] > 0.5)
			printf("       slow change %u: %s/%u %.3f ms\n", i,
			    v6 ? lc_ip6_ntoa(
				     (const struct lc_ip6 *)fw.watch_pfx6) :
				 lc_ip4_ntoa((struct lc_ip4){fw.watch_pfx}),
			    fw.watch_len, lat[i]);
	}
	qsort(lat, changes, sizeof(*lat), cmp_double);
	o->p50_ms = lat[changes / 2];
	o->p99_ms = lat[(changes * 99) / 100 < changes ? (changes * 99) / 100 :
							 changes - 1];
	rv = 0;
out:
	ipc_client_free(c);
	ribc = NULL;
	kill(pid, SIGTERM);
	(void)waitpid(pid, &st, 0);
	if (real_fwd)
		real_fwd_stop();
	else
		fw_stop();
	ipc_route_enc_fini(&re);
	ipc_route_set_fini(&rs);
	free(lat);
	return (rv);
}

/* ---- the kernel peer ---- */

static char batchfile[PATH_MAX + 32];

static int
write_ip_batch(size_t n)
{
	FILE *f = fopen(batchfile, "w");

	if (f == NULL)
		return (-errno);
	for (size_t i = 0; i < n; i++) {
		const struct tt_prefix *p = &ps.p[i];
		struct in_addr a = {htonl(p->addr)}, g = {gw_of(p->nh, 0)};
		char as[16], gs[16];

		inet_ntop(AF_INET, &a, as, sizeof(as));
		inet_ntop(AF_INET, &g, gs, sizeof(gs));
		fprintf(f, "route add %s/%u via %s\n", as, p->len, gs);
	}
	return (fclose(f) == 0 ? 0 : -errno);
}

/* The IPv6 set for `ip -6 -batch` (batchfile6), gateways as rib's. */
static char batchfile6[PATH_MAX + 32];

static int
write_ip_batch6(size_t n)
{
	FILE *f = fopen(batchfile6, "w");

	if (f == NULL)
		return (-errno);
	for (size_t i = 0; i < n; i++) {
		const struct tt_prefix6 *p = &ps6.p[i];
		uint8_t g[16];
		char as[INET6_ADDRSTRLEN], gs[INET6_ADDRSTRLEN];

		gw6_of(g, p->nh, 0);
		inet_ntop(AF_INET6, p->addr, as, sizeof(as));
		inet_ntop(AF_INET6, g, gs, sizeof(gs));
		fprintf(f, "route add %s/%u via %s dev d0\n", as, p->len, gs);
	}
	return (fclose(f) == 0 ? 0 : -errno);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
	char cmd[PATH_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return (system(cmd));
}

static double
run_kernel(size_t n)
{
	char ns[64];
	uint64_t t0, t1;
	int rv;

	snprintf(ns, sizeof(ns), "ternbench%d", (int)getpid());
	if (v6) {
		/* IPv6 on in the namespace whatever the host's default; the
		 * /64 without DAD */
		if (sh("ip netns add %s && ip netns exec %s sysctl -qw "
		       "net.ipv6.conf.all.disable_ipv6=0 "
		       "net.ipv6.conf.default.disable_ipv6=0 && ip -n %s link "
		       "add d0 type veth peer name d1 && ip -n %s link set d0 "
		       "up && ip -n %s link set d1 up && ip -n %s addr add "
		       "2001:2::1/64 dev d0 nodad",
			ns, ns, ns, ns, ns, ns) != 0) {
			(void)sh("ip netns del %s 2>/dev/null", ns);
			return (-1);
		}
		t0 = lc_time_mono_ns();
		rv = sh("ip -6 -n %s -batch %s", ns, batchfile6);
		t1 = lc_time_mono_ns();
		(void)sh("ip netns del %s", ns);
		return (rv == 0 ? n / ((t1 - t0) / 1e9) : -1);
	}
	if (sh("ip netns add %s && ip -n %s link add d0 type veth peer name d1 && "
	       "ip -n %s addr add 198.18.0.1/16 dev d0 && "
	       "ip -n %s link set d0 up && ip -n %s link set d1 up",
		ns, ns, ns, ns, ns) != 0) {
		(void)sh("ip netns del %s 2>/dev/null", ns);
		return (-1);
	}
	t0 = lc_time_mono_ns();
	rv = sh("ip -n %s -batch %s", ns, batchfile);
	t1 = lc_time_mono_ns();
	(void)sh("ip netns del %s", ns);
	return (rv == 0 ? n / ((t1 - t0) / 1e9) : -1);
}

/* ---- the BIRD peer: the same routes as static routes exported to a
 * namespace's kernel table ---- */

static char birdconf[PATH_MAX + 32];

static int
write_bird_conf(size_t n)
{
	FILE *f = fopen(birdconf, "w");

	if (f == NULL)
		return (-errno);
	fprintf(f,
	    "router id 198.18.0.1;\nprotocol device { }\n"
	    "protocol kernel k4 { ipv4 { export all; import none; }; "
	    "learn off; scan time 3600; }\nprotocol static s4 { ipv4;\n");
	for (size_t i = 0; i < n; i++) {
		const struct tt_prefix *p = &ps.p[i];
		struct in_addr a = {htonl(p->addr)}, g = {gw_of(p->nh, 0)};
		char as[16], gs[16];

		inet_ntop(AF_INET, &a, as, sizeof(as));
		inet_ntop(AF_INET, &g, gs, sizeof(gs));
		fprintf(f, "route %s/%u via %s;\n", as, p->len, gs);
	}
	fprintf(f, "}\n");
	return (fclose(f) == 0 ? 0 : -errno);
}

/* Prefixes in the main table of namespace ns (/proc/net/fib_triestat). */
static long
ns_prefixes(const char *ns)
{
	char cmd[256], line[128];
	long v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	    "ip netns exec %s awk '/^Main:/ { m = 1 } "
	    "m && /Prefixes:/ { print $2; exit }' /proc/net/fib_triestat",
	    ns);
	if ((f = popen(cmd, "r")) == NULL)
		return (-1);
	if (fgets(line, sizeof(line), f) != NULL)
		v = strtol(line, NULL, 10);
	pclose(f);
	return (v);
}

/* BIRD's "Routing tables" figure from `birdc show memory`, bytes. */
static double
bird_table_bytes(const char *ctl)
{
	char cmd[PATH_MAX + 64], line[256], unit[8];
	double v = -1, x;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "birdc -s %s show memory 2>/dev/null", ctl);
	if ((f = popen(cmd, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Routing tables: %lf %7s", &x, unit) == 2)
			v = x *
			    (unit[0] == 'k'	   ? 1024.0 :
				    unit[0] == 'M' ? 1048576.0 :
				    unit[0] == 'G' ? 1073741824.0 :
						     1.0);
	pclose(f);
	return (v);
}

static double
run_bird(size_t n, double *table_bpr)
{
	char ns[64], ctl[PATH_MAX + 16], pidf[PATH_MAX + 16];
	uint64_t t0, t1 = 0, end;
	long base, c;
	double rps = -1;
	FILE *f;
	int bpid = 0;

	snprintf(ns, sizeof(ns), "ternbird%d", (int)getpid());
	snprintf(ctl, sizeof(ctl), "%s.ctl", birdconf);
	snprintf(pidf, sizeof(pidf), "%s.pid", birdconf);
	if (sh("ip netns add %s && ip -n %s link add d0 type veth peer name d1 "
	       "&& ip -n %s addr add 198.18.0.1/16 dev d0 && "
	       "ip -n %s link set d0 up && ip -n %s link set d1 up",
		ns, ns, ns, ns, ns) != 0 ||
	    (base = ns_prefixes(ns)) < 0) {
		(void)sh("ip netns del %s 2>/dev/null", ns);
		return (-1);
	}
	t0 = lc_time_mono_ns();
	if (sh("ip netns exec %s bird -c %s -s %s -P %s", ns, birdconf, ctl,
		pidf) == 0) {
		end = t0 + 300ULL * 1000000000ULL;
		while ((c = ns_prefixes(ns)) >= 0 && c < base + (long)n &&
		    lc_time_mono_ns() < end)
			usleep(20000);
		if (c >= base + (long)n) {
			t1 = lc_time_mono_ns();
			rps = n / ((t1 - t0) / 1e9);
			*table_bpr = bird_table_bytes(ctl) / n;
		}
	}
	if ((f = fopen(pidf, "r")) != NULL) {
		if (fscanf(f, "%d", &bpid) != 1)
			bpid = 0;
		fclose(f);
	}
	bird_pid = bpid;
	if (bpid > 0) {
		kill(bpid, SIGTERM);
		for (int i = 0; i < 500 && kill(bpid, 0) == 0; i++)
			usleep(10000);
	}
	(void)sh("ip netns del %s", ns);
	return (rps);
}

/* ---- main ---- */

/* The line under a round's row: when each part was done, and the CPU. */
static void
print_times(const struct ours *o)
{
	printf("       (client sent all at %.0f ms, rib accepted all at "
	       "%.0f ms, fwd FIB complete at %.0f ms; CPU: tern-rib %.0f ms, "
	       "tern-fwd %.0f ms, bench process %.0f ms; a show-route page "
	       "of 100 at offset n/2: %.0f ms)\n",
	    o->t_sent_ms, o->t_acked_ms, o->t_done_ms, o->rib_cpu_ms,
	    o->fwd_cpu_ms, o->own_cpu_ms, o->query_ms);
}

/* SIGINT/SIGTERM (a runner's timeout): leave no process, namespace or
 * file behind. */
static void
on_signal(int sig)
{
	char cmd[PATH_MAX + 256];
	int pid = (int)getpid();

	(void)sig;
	if (rib_pid > 0)
		kill(rib_pid, SIGKILL);
	if (fwd_pid > 0)
		kill(fwd_pid, SIGKILL);
	if (bird_pid > 0)
		kill(bird_pid, SIGKILL);
	snprintf(cmd, sizeof(cmd),
	    "ip netns del ternbfwd%d 2>/dev/null; "
	    "ip netns del ternbench%d 2>/dev/null; kill $(cat %s/bird.conf.pid) "
	    "2>/dev/null; ip netns del ternbird%d 2>/dev/null; rm -rf '%s'",
	    pid, pid, basedir, pid, basedir);
	if (system(cmd) != 0)
		_exit(3);
	_exit(3);
}

static double
median(double *v, unsigned n, double *mn, double *mx)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*mn = v[0];
	*mx = v[n - 1];
	return (v[n / 2]);
}

static void
bench_line(const char *cas, const char *metric, const char *unit, double *v,
    unsigned n, const char *peer, double *pv, unsigned pn, const char *better)
{
	double mn, mx, med = median(v, n, &mn, &mx), pmn, pmx, pmed;

	printf("BENCH {\"bench\":\"routes\",\"case\":\"%s\",\"metric\":\"%s\","
	       "\"unit\":\"%s\",\"value\":%.4g,\"min\":%.4g,\"max\":%.4g",
	    cas, metric, unit, med, mn, mx);
	if (peer != NULL && pn > 0) {
		pmed = median(pv, pn, &pmn, &pmx);
		printf(",\"peer\":\"%s\",\"peer_value\":%.4g,\"ratio\":%.3g",
		    peer, pmed, med / pmed);
	}
	printf(",\"better\":\"%s\"}\n", better);
}

int
main(int argc, char **argv)
{
	bool quick = false, no_peer = false;
	int fwd_mode = 0; /* 0: real when possible, 1: inproc, 2: real */
	size_t n = TT_PFX_FULL;
	unsigned rounds = 3, changes = 1000, nk = 0;
	struct ours o[8];
	double rps[8], rib[8], fwdm[8], p50[8], p99[8], kern[8], bird[8];
	double ribcpu[8];
	double birdmem[8];
	bool have_bird = false;
	unsigned nb = 0;
	char cas[4][32], *slash, base[PATH_MAX];
	const char *sfx;
	/* --family: the IPv4 set, the IPv6 set, or both (alternated in each
	 * round: IPv4 then IPv6) */
	bool fam4 = true, fam6 = true, no_peer6 = false;
	struct ours o6[8];
	double rps6[8], rib6[8], fwdm6[8], p50_6[8], p99_6[8], kern6[8];
	double ribcpu6[8];
	unsigned nk6 = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--no-peer") == 0)
			no_peer = true;
		else if (strncmp(argv[i], "--routes=", 9) == 0)
			n = strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--chunk=", 8) == 0 &&
		    (CHUNK = strtoul(argv[i] + 8, NULL, 10)) >= 1 &&
		    CHUNK <= CHUNK_MAX)
			;
		else if (strcmp(argv[i], "--encoding=message") == 0)
			msg_enc = true;
		else if (strcmp(argv[i], "--encoding=packed") == 0)
			msg_enc = false;
		else if (strcmp(argv[i], "--show-slow") == 0)
			show_slow = true;
		else if (strcmp(argv[i], "--family=4") == 0)
			fam4 = true, fam6 = false;
		else if (strcmp(argv[i], "--family=6") == 0)
			fam4 = false, fam6 = true;
		else if (strcmp(argv[i], "--family=4,6") == 0)
			fam4 = fam6 = true;
		else if (strcmp(argv[i], "--fwd=inproc") == 0)
			fwd_mode = 1;
		else if (strcmp(argv[i], "--fwd=real") == 0)
			fwd_mode = 2;
		else if (strncmp(argv[i], "--rib-opt=", 10) == 0 && nribopt < 4)
			ribopt[nribopt++] = argv[i] + 10;
		else if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else {
			fprintf(stderr,
			    "usage: %s [--quick] [--no-peer] "
			    "[--routes=N] [--rounds=N] [--fwd=real|inproc] "
			    "[--rib-opt=OPT]... [--show-slow] [--chunk=N] "
			    "[--encoding=packed|message] [--family=4|6|4,6]\n",
			    argv[0]);
			return (2);
		}
	}
	if (lc_build_bench_check("bench-routes") != 0)
		return (2);
	if (quick) {
		n = 100000;
		rounds = 1;
		changes = 100;
	}
	if (rounds < 1 || rounds > 8 || n < 1000 || n > 2000000)
		return (2);
	lc_log_init("bench-routes", LC_LOG_WARNING, LC_LOG_STDERR);
	snprintf(ribbin, sizeof(ribbin), "%s", argv[0]);
	slash = strrchr(ribbin, '/');
	snprintf(slash ? slash + 1 : ribbin,
	    sizeof(ribbin) - (size_t)(slash ? slash + 1 - ribbin : 0),
	    "tern-rib");
	if (access(ribbin, X_OK) != 0) {
		fprintf(stderr, "no %s: build it first (make)\n", ribbin);
		if (quick) {
			printf("bench-routes: skipped (no tern-rib built)\n");
			return (0);
		}
		return (2);
	}
	snprintf(fwdbin, sizeof(fwdbin), "%.*s/tern-fwd",
	    (int)(slash ? slash - ribbin : 1), slash ? ribbin : ".");
	real_fwd = fwd_mode == 2 ||
	    (fwd_mode == 0 && getuid() == 0 && access(fwdbin, X_OK) == 0);
	if (real_fwd && (getuid() != 0 || access(fwdbin, X_OK) != 0)) {
		fprintf(stderr, "--fwd=real needs root (a namespace) and %s\n",
		    fwdbin);
		return (2);
	}
	snprintf(base, sizeof(base), "/tmp/tern-bench-routes.%d",
	    (int)getpid());
	snprintf(basedir, sizeof(basedir), "%s", base);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	(void)mkdir(base, 0755);
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	snprintf(batchfile, sizeof(batchfile), "%s/routes.ip", base);
	snprintf(birdconf, sizeof(birdconf), "%s/bird.conf", base);
	snprintf(batchfile6, sizeof(batchfile6), "%s/routes6.ip", base);
	if (fam6) {
		no_peer6 = no_peer;
		if (tt_prefixset6_gen(&ps6, n, TT_PFX6_SEED) != 0)
			return (1);
		if (!no_peer6 && (getuid() != 0 || write_ip_batch6(n) != 0))
			no_peer6 = true;
	}
	if (!fam4)
		no_peer = true; /* the IPv4 set and its peers: not made */
	else if (tt_prefixset_gen(&ps, n, TT_PFX_SEED, 0) != 0)
		return (1);
	if (!no_peer && (getuid() != 0 || write_ip_batch(n) != 0))
		no_peer = true;
	have_bird = !no_peer &&
	    system("command -v bird >/dev/null 2>&1 && "
		   "command -v birdc >/dev/null 2>&1") == 0 &&
	    write_bird_conf(n) == 0;
	loop = lc_loop_new();
	par = lc_arena_new(1 << 16);
	printf(
	    "bench-routes: %zu routes (standard set), %u rounds, %u changes; "
	    "tern-rib -> %s; peers: %s%s\n",
	    n, rounds, changes,
	    real_fwd ?
		"tern-fwd (afpacket port on a veth in a namespace; done = rib has "
		"fwd's acks for all, change = in fwd's QUERY_FIB)" :
		"in-process fwd FIB over fwd.proto (fwd_fib; fwd memory = "
		"fwd_fib_memory)",
	    no_peer ? "none" : "kernel ip -batch",
	    have_bird ? ", BIRD static -> kernel" : "");
	if (fam6)
		printf("bench-routes: IPv6: %zu routes (tests/lib/prefixset6: "
		       "the RIRs' space, 54 lengths, /48 most), next hops "
		       "2001:2::1:X through the connected 2001:2::/64, rows "
		       "\"v6 N\" after each IPv4 round; peers: tern's IPv4 of "
		       "the same run%s\n",
		    n, no_peer6 ? "" : ", kernel ip -6 -batch");
	printf("%-6s %12s %12s %12s %10s %10s %12s %12s %12s\n", "round",
	    "ours rt/s", "rib B/rt", "fwd B/rt", "chg p50ms", "chg p99ms",
	    "kernel rt/s", "bird rt/s", "bird tbl B/rt");
	for (unsigned r = 0; r < rounds; r++) {
		/* the IPv6 round after the IPv4 one (and before the next):
		 * A B A B */
		if (!fam4)
			goto round6;
		if (run_ours(n, changes, &o[r]) != 0) {
			fprintf(stderr, "round %u failed\n", r);
			return (1);
		}
		rps[r] = o[r].routes_per_s;
		rib[r] = o[r].rib_bpr;
		fwdm[r] = o[r].fwd_bpr;
		p50[r] = o[r].p50_ms;
		p99[r] = o[r].p99_ms;
		ribcpu[r] = o[r].rib_cpu_ms * 1e6 / n;
		kern[r] = no_peer ? -1 : run_kernel(n);
		if (kern[r] > 0)
			nk++;
		birdmem[nb] = -1;
		bird[nb] = have_bird ? run_bird(n, &birdmem[nb]) : -1;
		printf("%-6u %12.0f %12.1f %12.1f %10.3f %10.3f %12.0f %12.0f "
		       "%12.1f\n",
		    r, rps[r], rib[r], fwdm[r], p50[r], p99[r], kern[r],
		    bird[nb], birdmem[nb]);
		if (bird[nb] > 0 && birdmem[nb] > 0)
			nb++;
		print_times(&o[r]);
		fflush(stdout);
	round6:
		if (!fam6)
			continue;
		v6 = true;
		if (run_ours(n, changes, &o6[r]) != 0) {
			fprintf(stderr, "IPv6 round %u failed\n", r);
			return (1);
		}
		rps6[r] = o6[r].routes_per_s;
		rib6[r] = o6[r].rib_bpr;
		fwdm6[r] = o6[r].fwd_bpr;
		p50_6[r] = o6[r].p50_ms;
		p99_6[r] = o6[r].p99_ms;
		ribcpu6[r] = o6[r].rib_cpu_ms * 1e6 / n;
		kern6[r] = no_peer6 ? -1 : run_kernel(n);
		if (kern6[r] > 0)
			nk6++;
		v6 = false;
		printf("v6 %-3u %12.0f %12.1f %12.1f %10.3f %10.3f %12.0f %12s "
		       "%12s%s\n",
		    r, rps6[r], rib6[r], fwdm6[r], p50_6[r], p99_6[r], kern6[r],
		    "-", "-", "");
		if (fam4)
			printf(
			    "       (IPv6 / IPv4 of this round: routes/s %.2f, "
			    "rib B/route %.2f)\n",
			    rps6[r] / rps[r], rib6[r] / rib[r]);
		print_times(&o6[r]);
		fflush(stdout);
	}
	sfx = n == TT_PFX_FULL ? (real_fwd ? "1M" : "1M_inproc_fwd") :
	    quick	       ? (real_fwd ? "100k" : "100k_inproc_fwd") :
				 "n";
	snprintf(cas[0], sizeof(cas[0]), "routes_%s", sfx);
	snprintf(cas[1], sizeof(cas[1]), "rib_memory_%s", sfx);
	snprintf(cas[2], sizeof(cas[2]), "fwd_memory_%s", sfx);
	snprintf(cas[3], sizeof(cas[3]), "change_%s", sfx);
	if (!fam4)
		goto bench6;
	bench_line(cas[0], "routes_per_s", "1/s", rps, rounds,
	    nk == rounds ? "kernel_ip_batch" : NULL, kern, nk, "higher");
	if (have_bird && nb == rounds)
		bench_line(cas[0], "routes_per_s", "1/s", rps, rounds, "bird",
		    bird, nb, "higher");
	bench_line(cas[0], "rib_cpu_ns_per_route", "ns", ribcpu, rounds, NULL,
	    NULL, 0, "lower");
	bench_line(cas[1], "bytes_per_route", "B", rib, rounds,
	    have_bird && nb == rounds ? "bird" : NULL, birdmem, nb, "lower");
	bench_line(cas[2], "bytes_per_route", "B", fwdm, rounds, NULL, NULL, 0,
	    "lower");
	bench_line(cas[3], "latency_p50_ms", "ms", p50, rounds, NULL, NULL, 0,
	    "lower");
	bench_line(cas[3], "latency_p99_ms", "ms", p99, rounds, NULL, NULL, 0,
	    "lower");
bench6:
	if (fam6) {
		/* IPv6: against the IPv4 run of the same rounds (issue 22:
		 * routes/s >= 0.7x), and the kernel's IPv6 FIB */
		snprintf(cas[0], sizeof(cas[0]), "routes6_%s", sfx);
		snprintf(cas[1], sizeof(cas[1]), "rib_memory6_%s", sfx);
		snprintf(cas[2], sizeof(cas[2]), "fwd_memory6_%s", sfx);
		snprintf(cas[3], sizeof(cas[3]), "change6_%s", sfx);
		bench_line(cas[0], "routes_per_s", "1/s", rps6, rounds,
		    fam4 ? "tern_ipv4" : NULL, rps, fam4 ? rounds : 0,
		    "higher");
		if (nk6 == rounds)
			bench_line(cas[0], "routes_per_s", "1/s", rps6, rounds,
			    "kernel_ip6_batch", kern6, nk6, "higher");
		bench_line(cas[0], "rib_cpu_ns_per_route", "ns", ribcpu6,
		    rounds, fam4 ? "tern_ipv4" : NULL, ribcpu,
		    fam4 ? rounds : 0, "lower");
		bench_line(cas[1], "bytes_per_route", "B", rib6, rounds,
		    fam4 ? "tern_ipv4" : NULL, rib, fam4 ? rounds : 0, "lower");
		bench_line(cas[2], "bytes_per_route", "B", fwdm6, rounds,
		    fam4 ? "tern_ipv4" : NULL, fwdm, fam4 ? rounds : 0,
		    "lower");
		bench_line(cas[3], "latency_p50_ms", "ms", p50_6, rounds, NULL,
		    NULL, 0, "lower");
		bench_line(cas[3], "latency_p99_ms", "ms", p99_6, rounds, NULL,
		    NULL, 0, "lower");
		tt_prefixset6_free(&ps6);
	}
	(void)sh("rm -rf '%s'", base);
	tt_prefixset_free(&ps);
	lc_arena_free(par);
	lc_loop_free(loop);
	return (0);
}
