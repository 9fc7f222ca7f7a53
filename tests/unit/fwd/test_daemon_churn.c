/* tests/unit/fwd/test_daemon_churn.c: routes added and deleted at a high rate
 * through tern-fwd's IPC service while a worker thread forwards traffic:
 * no packet may leave by a wrong port or with a wrong neighbour MAC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
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

/*
 * Ports: "in" (id 0) replays frames to 198.19.0.0/16 forever; "a" (1)
 * and "b" (2) check every frame they are given. Destinations in
 * 198.19.0.0/17 may only leave by a, through a gateway whose MAC starts
 * 02:aa; 198.19.128.0/17 only by b, MAC 02:bb. Every route the test ever
 * installs keeps to that, so anything else is the daemon's fault (a torn
 * adjacency, an index reused too early, a FIB lookup seeing garbage).
 */
#define NFRAMES 256
#define NGW	32
#define HALF_B	0xc6138000u

struct check_port {
	struct fwd_port port;
	char side; /* 'a' or 'b' */
	uint64_t ok, wrong_port, wrong_mac;
};

static unsigned
chk_rx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	(void)p;
	(void)pkts;
	(void)n;
	return (0);
}

static unsigned
chk_tx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct check_port *c = (struct check_port *)(void *)p;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *f = pkts[i]->data;
		uint32_t dst;

		if (pkts[i]->len < 34 || fwd_ld16(f + 12) != htons(0x0800))
			continue; /* ARP and such from the slow path */
		dst = ntohl(fwd_ld32(f + FWD_ETH_HLEN + FWD_IP_DST));
		if ((dst >= HALF_B ? 'b' : 'a') != c->side)
			__atomic_add_fetch(&c->wrong_port, 1, __ATOMIC_RELAXED);
		else if (f[1] != (c->side == 'a' ? 0xaa : 0xbb) ||
		    memcmp(f + 6, p->mac, 6) != 0)
			__atomic_add_fetch(&c->wrong_mac, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&c->ok, 1, __ATOMIC_RELAXED);
	}
	fwd_pkt_release(pkts, n);
	return (n);
}

static void
chk_release(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	(void)p;
	(void)pkts;
	(void)n;
}

static void
chk_free(struct fwd_port *p)
{
	(void)p; /* static storage, read after the daemon is gone */
}

static const struct fwd_port_ops chk_ops = {.rx = chk_rx,
    .tx = chk_tx,
    .release = chk_release,
    .free = chk_free};

/* [port id][0 worker 0, 1 control, 1 + k worker k] */
#define NCP (FWD_D_WORKERS_MAX + 1)
static struct check_port CP[3][NCP];
static uint8_t frames[NFRAMES][128];
static uint16_t lens[NFRAMES];
static const uint8_t *fptr[NFRAMES];
static const uint8_t in_mac[6] = {0x02, 0x74, 0xcc, 0, 0, 0};
static const uint8_t host_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

static struct fwd_port *
port_new(void *arg, const char *name, uint16_t id, int w)
{
	(void)arg;
	if (strcmp(name, "in") == 0) {
		struct fwd_port_mem_conf mc = {.id = id, .nbufs = 512};
		struct fwd_port *p;

		memcpy(mc.mac, in_mac, 6);
		if ((p = fwd_port_mem_new(&mc)) != NULL && w >= 0)
			fwd_port_mem_replay(p, fptr, lens, NFRAMES);
		return (p);
	}
	if (id < 1 || id > 2) {
		errno = EINVAL;
		return (NULL);
	}
	{
		struct check_port *c = &CP[id][w < 0 ? 1 : w == 0 ? 0 : w + 1];

		/* (the counters add up over re-attachments) */
		memset(&c->port, 0, sizeof(c->port));
		c->port.ops = &chk_ops;
		c->port.id = id;
		c->port.mtu = 1500;
		c->port.mac[0] = 0x02;
		c->port.mac[1] = 0x74;
		c->port.mac[5] = (uint8_t)id;
		c->side = id == 1 ? 'a' : 'b';
		return (&c->port);
	}
}

static struct ev_loop *loop;
static struct fwd_d *D;
static struct ipc_client *cl;
static struct lc_arena *ar;
static char rundir[64];

static ProtobufCMessage *
call(unsigned method, const ProtobufCMessage *msg)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, method, msg, 5000, ar, &rep, &err);

	if (st != IPC_OK)
		fail_msg("call %u: %s: %s", method, ipc_status_str(st),
		    err.msg);
	return (rep);
}

static void
add_if(Fwd__IfConfig *ic, Fwd__IfAddr *ia, Fwd__IfAddr **iap, const char *name,
    uint32_t addr)
{
	fwd__if_config__init(ic);
	ic->name = (char *)name;
	ic->backend = (char *)"mem";
	ic->enabled = true;
	fwd__if_addr__init(ia);
	ia->addr = htonl(addr);
	ia->len = 24;
	iap[0] = ia;
	ic->addrs = iap;
	ic->n_addrs = 1;
}

static int
setup(void **st)
{
	struct fwd_d_conf c = {0};
	struct ipc_opts o = {0};
	Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic[3], *icp[3] = {&ic[0], &ic[1], &ic[2]};
	Fwd__IfAddr ia[3], *iap[3][1];
	uint64_t now;

	(void)st;
	lc_log_init("test_daemon_churn", LC_LOG_WARNING, LC_LOG_STDERR);
	srandom(42);
	for (unsigned i = 0; i < NFRAMES; i++) {
		uint32_t dst = 0xc6130000u | (uint32_t)(random() & 0xffff);

		if ((dst & 0xff) == 0 || (dst & 0xff) == 0xff)
			dst ^= 0x10;
		lens[i] = (uint16_t)tf_ipv4(frames[i], in_mac, host_mac,
		    TF_IP(0, 2), dst, 64, 17, 18, 0);
		fptr[i] = frames[i];
	}
	snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdc-XXXXXX");
	assert_non_null(mkdtemp(rundir));
	loop = lc_loop_new();
	c.rundir = rundir;
	c.workers = 1;
	c.allow_mem = true;
	c.port_new = port_new;
	D = fwd_d_new(loop, &c);
	assert_non_null(D);
	o.rundir = rundir;
	o.component = "test";
	cl = ipc_client_new(loop, &ipc_svc_fwd, &o, false);
	ar = lc_arena_new(0);
	add_if(&ic[0], &ia[0], iap[0], "in", TF_IP(0, 1));
	add_if(&ic[1], &ia[1], iap[1], "a", TF_IP(1, 1));
	add_if(&ic[2], &ia[2], iap[2], "b", TF_IP(2, 1));
	b.interfaces = icp;
	b.n_interfaces = 3;
	b.replace_all = true;
	assert_true(
	    ((Fwd__IfConfigAck *)call(FWD__METHOD__IF_CONFIG, &b.base))->ok);
	/* gateways with static MACs: 02:aa:.. on a, 02:bb:.. on b */
	now = fwd_d_now_ms(D);
	for (unsigned i = 0; i < NGW; i++) {
		uint8_t ma[6] = {0x02, 0xaa, 0, 0, 0, (uint8_t)i};
		uint8_t mb[6] = {0x02, 0xbb, 0, 0, 0, (uint8_t)i};

		assert_int_equal(fwd_arp_static_add(D->arp, 1, TF_IP(1, 10 + i),
				     ma, now, D->out),
		    0);
		assert_int_equal(fwd_arp_static_add(D->arp, 2, TF_IP(2, 10 + i),
				     mb, now, D->out),
		    0);
	}
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

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/* A random route on one side: /17 cover, /18-/24, or /25-/30 (tbl8),
 * through 1-4 gateways of that side. */
static void
rand_route(Fwd__FibRoute *r, uint32_t *gw, uint32_t *ifx, bool cover)
{
	bool b = random() & 1;
	unsigned len = cover ? 17 : 18 + (unsigned)(random() % 13);
	uint32_t a = 0xc6130000u | (b ? 0x8000u : 0) |
	    (uint32_t)(random() & 0x7fff);
	unsigned n = 1 + (unsigned)(random() % 4);

	fwd__fib_route__init(r);
	r->prefix = htonl(a & (0xffffffffu << (32 - len)));
	r->len = len;
	for (unsigned k = 0; k < n; k++) {
		gw[k] = htonl(b ? TF_IP(2, 10 + random() % NGW) :
				  TF_IP(1, 10 + random() % NGW));
		/* by ifindex, or found by subnet */
		ifx[k] = (random() & 1) ? D->ifs[b ? 2 : 1].ifindex : 0;
	}
	r->nh_addr = gw;
	r->n_nh_addr = n;
	r->nh_ifindex = ifx;
	r->n_nh_ifindex = n;
}

static void
test_churn(void **st)
{
	enum { BATCH = 64 };
	Fwd__FibRoute r[BATCH], *rp[BATCH];
	Lifecycle__Prefix p[BATCH], *pp[BATCH];
	uint32_t gw[BATCH][4], ifx[BATCH][4];
	uint32_t live[4096][2];
	unsigned nlive = 0;
	uint64_t ops = 0, seq = 0;
	double t0, el;
	struct fwd_dp_stats s;
	uint64_t full, ok, wp = 0, wm = 0, noroute0;

	(void)st;
	/* the covers first: every destination always has a route */
	for (int side = 0; side < 2; side++) {
		Fwd__FibBatch b = FWD__FIB_BATCH__INIT;

		rand_route(&r[0], gw[0], ifx[0], true);
		r[0].prefix = htonl(side ? HALF_B : 0xc6130000u);
		for (unsigned k = 0; k < r[0].n_nh_addr; k++)
			gw[0][k] = htonl(side ? TF_IP(2, 10) : TF_IP(1, 10));
		rp[0] = &r[0];
		b.add = rp;
		b.n_add = 1;
		b.seq = ++seq;
		assert_int_equal(((Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH,
				      &b.base))
				     ->applied,
		    1);
	}
	/* (before the covers, the replayed traffic had no route) */
	usleep(10000);
	fwd_d_stats(D, &s, &full);
	noroute0 = s.reason[FWD_R_NO_ROUTE];
	t0 = now_s();
	while ((el = now_s() - t0) < 2.0) {
		Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
		Fwd__FibAck *a;
		unsigned na = 0, nd = 0;

		for (unsigned i = 0; i < BATCH; i++) {
			bool del = nlive > 2048 ||
			    (nlive > 0 && random() % 3 == 0);

			if (del) {
				unsigned k = (unsigned)random() % nlive;

				lifecycle__prefix__init(&p[nd]);
				p[nd].prefix = live[k][0];
				p[nd].len = live[k][1];
				pp[nd] = &p[nd];
				nd++;
				live[k][0] = live[nlive - 1][0];
				live[k][1] = live[nlive - 1][1];
				nlive--;
			} else {
				rand_route(&r[na], gw[na], ifx[na], false);
				rp[na] = &r[na];
				live[nlive][0] = r[na].prefix;
				live[nlive][1] = r[na].len;
				nlive++;
				na++;
			}
		}
		b.add = rp;
		b.n_add = na;
		b.del = pp;
		b.n_del = nd;
		b.seq = ++seq;
		a = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
		if (a->failed != 0)
			fail_msg(
			    "%u routes failed, first %u of %u adds: "
			    "len %u, %zu next hops; %u adjacencies pending",
			    a->failed, a->failed_index[0], na,
			    a->failed_index[0] < na ?
				r[a->failed_index[0]].len :
				0,
			    a->failed_index[0] < na ?
				r[a->failed_index[0]].n_nh_addr :
				0,
			    D->npend);
		ops += na + nd;
		lc_arena_reset(ar);
		/* the timers run too: adjacencies released after grace */
		fwd_d_tick(D, fwd_d_now_ms(D));
	}
	for (unsigned i = 0; i < NFRAMES; i++) {
		uint32_t dst = ntohl(
		    fwd_ld32(frames[i] + FWD_ETH_HLEN + FWD_IP_DST));

		if (fwd_fib_lookup(D->fib, dst) == FWD_FIB_NH_NONE)
			fail_msg("no route to %08x after the churn", dst);
	}
	/* let the worker run on the final table a little */
	usleep(50000);
	fwd_d_stats(D, &s, &full);
	ok = CP[1][0].ok + CP[2][0].ok + CP[1][1].ok + CP[2][1].ok;
	for (int i = 1; i <= 2; i++)
		for (int k = 0; k < 2; k++) {
			wp += __atomic_load_n(&CP[i][k].wrong_port,
			    __ATOMIC_RELAXED);
			wm += __atomic_load_n(&CP[i][k].wrong_mac,
			    __ATOMIC_RELAXED);
		}
	fprintf(stderr,
	    "churn: %lu route ops in %.2f s (%.0f/s) while forwarding "
	    "%lu packets (%.0f/s); wrong port %lu, wrong MAC %lu; "
	    "rx %lu, punted %lu, adj_down %lu, unresolved %lu; "
	    "adjacencies pending release %u\n",
	    (unsigned long)ops, el, ops / el, (unsigned long)ok, ok / el,
	    (unsigned long)wp, (unsigned long)wm, (unsigned long)s.rx,
	    (unsigned long)D->st.punts, (unsigned long)s.reason[FWD_R_ADJ_DOWN],
	    (unsigned long)s.reason[FWD_R_RESOLVE], D->npend);
	assert_int_equal(wp, 0);
	assert_int_equal(wm, 0);
	assert_true(ops > 1000);
	assert_true(ok > 1000);
	/* no route was ever missing: nothing counted as no_route */
	assert_int_equal(s.reason[FWD_R_NO_ROUTE], noroute0);
}

static double
thread_cpu_s(pthread_t t)
{
	clockid_t cid;
	struct timespec ts;

	assert_int_equal(pthread_getcpuclockid(t, &cid), 0);
	clock_gettime(cid, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/* Idle, the worker sleeps in poll() instead of spinning. */
static void
test_idle_backoff(void **st)
{
	struct fwd_worker *w;
	uint64_t s0;
	double c0, c1;

	(void)st;
	w = D->w[0];
	/* stop the replay: delete "in" */
	{
		Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
		Fwd__IfConfig ic, *icp = &ic;

		fwd__if_config__init(&ic);
		ic.name = (char *)"in";
		ic.deleted = true;
		b.interfaces = &icp;
		b.n_interfaces = 1;
		assert_true(
		    ((Fwd__IfConfigAck *)call(FWD__METHOD__IF_CONFIG, &b.base))
			->ok);
	}
	usleep(20000);
	s0 = __atomic_load_n(&w->sleeps, __ATOMIC_RELAXED);
	c0 = thread_cpu_s(w->thr);
	/* 200 ms, longer when a loaded machine hardly runs the worker */
	for (int i = 0; i < 10; i++) {
		usleep(200000);
		if (__atomic_load_n(&w->sleeps, __ATOMIC_RELAXED) - s0 > 10)
			break;
	}
	c1 = thread_cpu_s(w->thr);
	fprintf(stderr, "idle: %lu sleeps, worker CPU %.1f ms\n",
	    (unsigned long)(__atomic_load_n(&w->sleeps, __ATOMIC_RELAXED) - s0),
	    (c1 - c0) * 1e3);
	/* 1 ms poll() timeout after 50 us of spinning: ~190 sleeps and a
	 * few % of a CPU per 200 ms, not a busy loop */
	assert_true(__atomic_load_n(&w->sleeps, __ATOMIC_RELAXED) - s0 > 10);
	assert_true(c1 - c0 < 0.06);
}

/* The two /17 covers: a's half via 198.18.1.10, b's via 198.18.2.10. */
static void
add_halves(void)
{
	Fwd__FibBatch fb = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute r[2], *rp[2] = {&r[0], &r[1]};
	uint32_t gw[2][1], ifx[2][1] = {{0}, {0}};

	for (int side = 0; side < 2; side++) {
		fwd__fib_route__init(&r[side]);
		r[side].prefix = htonl(side ? HALF_B : 0xc6130000u);
		r[side].len = 17;
		gw[side][0] = htonl(side ? TF_IP(2, 10) : TF_IP(1, 10));
		r[side].nh_addr = gw[side];
		r[side].n_nh_addr = 1;
		r[side].nh_ifindex = ifx[side];
		r[side].n_nh_ifindex = 1;
	}
	fb.add = rp;
	fb.n_add = 2;
	fb.seq = 1;
	assert_int_equal(((Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &fb.base))
			     ->applied,
	    2);
}

/* Interfaces disabled and enabled again while the worker forwards: the
 * worker drops the port before it is closed, traffic to it drops as
 * adj_down meanwhile and comes back; nothing leaves by a wrong port. */
static void
test_iface_churn(void **st)
{
	Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic, *icp = &ic;
	Fwd__IfAddr ia, *iap[1];
	uint64_t okb0, okb1, wp = 0;
	struct fwd_dp_stats s;
	uint64_t full;

	(void)st;
	add_halves();
	for (int round = 0; round < 20; round++) {
		add_if(&ic, &ia, iap, "b", TF_IP(2, 1));
		ic.enabled = (round & 1) != 0;
		b.interfaces = &icp;
		b.n_interfaces = 1;
		assert_true(
		    ((Fwd__IfConfigAck *)call(FWD__METHOD__IF_CONFIG, &b.base))
			->ok);
		if (ic.enabled) /* static neighbours went with the port */
			for (unsigned i = 0; i < NGW; i++) {
				uint8_t mb[6] = {0x02, 0xbb, 0, 0, 0,
				    (uint8_t)i};

				(void)fwd_arp_static_add(D->arp, 2,
				    TF_IP(2, 10 + i), mb, fwd_d_now_ms(D),
				    D->out);
			}
		usleep(10000);
	}
	okb0 = __atomic_load_n(&CP[2][0].ok, __ATOMIC_RELAXED);
	usleep(50000);
	okb1 = __atomic_load_n(&CP[2][0].ok, __ATOMIC_RELAXED);
	fwd_d_stats(D, &s, &full);
	for (int i = 1; i <= 2; i++)
		for (int k = 0; k < 2; k++)
			wp += __atomic_load_n(&CP[i][k].wrong_port,
				  __ATOMIC_RELAXED) +
			    __atomic_load_n(&CP[i][k].wrong_mac,
				__ATOMIC_RELAXED);
	fprintf(stderr,
	    "iface churn: 20 disable/enable rounds, adj_down %lu, "
	    "b forwarding again: %lu packets in 50 ms\n",
	    (unsigned long)s.reason[FWD_R_ADJ_DOWN],
	    (unsigned long)(okb1 - okb0));
	assert_int_equal(wp, 0);
	assert_true(s.reason[FWD_R_ADJ_DOWN] > 0);
	assert_true(okb1 > okb0); /* enabled at the end: forwarding */
}

static uint64_t
cp_sum(size_t off)
{
	uint64_t n = 0;

	for (int i = 1; i <= 2; i++)
		for (int k = 0; k < NCP; k++)
			n += __atomic_load_n((uint64_t *)((char *)&CP[i][k] +
						 off),
			    __ATOMIC_RELAXED);
	return (n);
}

#define UNSET (-1) /* a setting not sent: back to the start value */

static Fwd__IfConfigAck *
set_workers(int n)
{
	Fwd__FwdConfig c = FWD__FWD_CONFIG__INIT;

	c.has_workers = n != UNSET;
	c.workers = n != UNSET ? (unsigned)n : 0;
	return ((Fwd__IfConfigAck *)call(FWD__METHOD__SET_CONFIG, &c.base));
}

/* The worker count changed at run time (SET_CONFIG) while traffic flows:
 * every worker forwards, nothing leaves by a wrong port or MAC, the
 * counters carry over, and unset goes back to the start value. */
static void
test_workers_change(void **st)
{
	static const unsigned seq[] = {2, 3, 1, 4, 0};
	struct fwd_dp_stats s;
	uint64_t full, rx0 = 0;

	(void)st;
	add_halves();
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		unsigned want = seq[i] ? seq[i] : 1;
		Fwd__IfConfigAck *a = set_workers(seq[i] ? (int)seq[i] : UNSET);
		uint64_t ok0, ok1;

		assert_true(a->ok);
		assert_int_equal(D->nworkers, want);
		for (unsigned k = 0; k < FWD_D_WORKERS_MAX; k++)
			assert_true((D->w[k] != NULL && D->w[k]->started) ==
			    (k < want));
		ok0 = cp_sum(offsetof(struct check_port, ok));
		for (int t = 0; t < 100; t++) {
			bool all = true;

			usleep(10000);
			for (unsigned k = 0; k < want; k++)
				if (D->w[k]->dp.st.fwd == 0)
					all = false;
			if (all && t >= 2)
				break;
		}
		ok1 = cp_sum(offsetof(struct check_port, ok));
		for (unsigned k = 0; k < want; k++)
			assert_true(D->w[k]->dp.st.fwd > 0);
		assert_true(ok1 > ok0);
		fwd_d_stats(D, &s, &full);
		assert_true(s.rx >= rx0); /* counters carry over */
		rx0 = s.rx;
		fprintf(stderr,
		    "workers %u: %lu packets forwarded since the "
		    "change\n",
		    want, (unsigned long)(ok1 - ok0));
	}
	assert_int_equal(cp_sum(offsetof(struct check_port, wrong_port)) +
		cp_sum(offsetof(struct check_port, wrong_mac)),
	    0);
	/* out of range: refused, nothing changes */
	assert_false(set_workers(FWD_D_WORKERS_MAX + 1)->ok);
	assert_false(set_workers(0)->ok);
	assert_int_equal(D->nworkers, 1);
	/* pinned (--cpus=0,1): no more workers than listed CPUs */
	D->conf.ncpus = 2;
	D->conf.cpus[0] = 0;
	D->conf.cpus[1] = 1;
	{
		Fwd__IfConfigAck *a = set_workers(3);

		assert_false(a->ok);
		assert_non_null(strstr(a->error, "lists 2 CPUs"));
	}
	assert_int_equal(D->nworkers, 1);
	D->conf.ncpus = 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_churn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_idle_backoff, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_iface_churn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_workers_change, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
