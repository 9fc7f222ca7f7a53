/* tests/bench/bench_restart.c: bench-restart: the whole router with 1M static routes under a steady UDP stream from the client namespace to the server namespace; kill -9 of rib, mgmt and fwd in turn: packets lost, time until forwarding resumes and until the FIB is complete again. No peer. */
#include "bench_router.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

/*
 * What is measured (said again in the output):
 * - Traffic: a sender in the client namespace sends UDP datagrams (64 bytes
 *   of payload, a sequence number) at a fixed rate, round robin to K
 *   addresses inside K /24 routes of the standard set (their next hops are
 *   addresses of the server, which also owns the K addresses on lo); a
 *   receiver in the server namespace records the arrival time of each
 *   sequence number. Both write to shared memory: nothing is inferred.
 * - Warm-up before each kill: traffic for at least 1 s and until every
 *   datagram sent between 0.6 and 0.1 s ago arrived (tern-fwd resolves the
 *   next hops as it goes; losses then are reported apart, as warm-up).
 * - lost_packets: datagrams sent from 0.5 s before the kill until 0.5 s
 *   after the router is complete again, never received.
 * - resume_s: 0 when nothing was lost; else from the kill to the first
 *   arrival of a datagram sent after the first lost one.
 * - fib_complete_s: from the kill until
 *     fwd:  the new tern-fwd's FIB holds every route again (QUERY_FIB total);
 *     rib:  the new tern-rib holds every route, its FIB download to fwd is
 *           acknowledged and its resync with fwd is over (FIB_STATUS);
 *     mgmt: the new tern-mgmt answers and rib's static source is connected
 *           again, with every route and none stale (SOURCES), rib's resync
 *           with fwd over.
 * - routes withdrawn: n + 2 (the statics and the two connected subnets)
 *   minus the smallest FIB size fwd reported during the case (polled every
 *   2 ms while fwd answered), 0 if never below. fwd's FIB also holds a /32
 *   per resolved neighbour (up to 254 here), which this cannot tell apart.
 */

#define PORT	   47017
#define NDST	   16
#define CASE_MAX_S 120.0

struct shm {
	volatile int stop_tx, stop_rx, ready_tx, ready_rx;
	volatile uint64_t nsent, nrecv, dup, bad;
	uint64_t cap;
	uint64_t *send_ns; /* [cap] */
	uint64_t *recv_ns; /* [cap] */
};

static struct br B;
static struct tt_prefixset ps;
static size_t nroutes = TT_PFX_FULL;
static unsigned rounds = 3, rate = 10000;
static bool quick;
static uint32_t dst[NDST];
static unsigned ndst;
static long expected;
static struct shm *sh;
static size_t shm_len;
static pid_t tx_pid, rx_pid;

/* ---- traffic ---------------------------------------------------------------------- */

/* This process moves into namespace name for good. 0 or -1. */
static int
enter_ns(const char *name)
{
	int back = tt_netns_enter(name);

	if (back < 0)
		return (-1);
	close(back);
	return (0);
}

static void
rx_main(void)
{
	char ns[64];
	int s, one = 1, sz = 64 << 20;
	struct sockaddr_in sa = {.sin_family = AF_INET,
	    .sin_port = htons(PORT)};
	struct mmsghdr msgs[64];
	struct iovec iov[64];
	static uint64_t bufs[64][16];

	snprintf(ns, sizeof(ns), "tern-s-%s", B.suffix);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (enter_ns(ns) != 0 || (s = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		_exit(1);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		_exit(1);
	for (int i = 0; i < 64; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	sh->ready_rx = 1;
	while (!sh->stop_rx) {
		struct pollfd pf = {.fd = s, .events = POLLIN};
		int n;

		if (poll(&pf, 1, 20) <= 0)
			continue;
		n = recvmmsg(s, msgs, 64, MSG_DONTWAIT, NULL);
		if (n <= 0)
			continue;
		uint64_t now = lc_time_mono_ns();
		for (int i = 0; i < n; i++) {
			uint64_t seq = bufs[i][0];

			if (msgs[i].msg_len < 16 ||
			    bufs[i][1] != 0x7465726eull || seq >= sh->cap) {
				sh->bad++;
				continue;
			}
			if (sh->recv_ns[seq] != 0) {
				sh->dup++;
				continue;
			}
			sh->recv_ns[seq] = now;
			sh->nrecv++;
		}
	}
	_exit(0);
}

static void
tx_main(void)
{
	char ns[64];
	int s, sz = 4 << 20;
	uint64_t pkt[8] = {0, 0x7465726eull};
	struct sockaddr_in sa[NDST];
	struct timespec ts;
	uint64_t t0, seq = 0;

	snprintf(ns, sizeof(ns), "tern-c-%s", B.suffix);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_TIMERSLACK, 1);
	if (enter_ns(ns) != 0 || (s = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		_exit(1);
	setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	for (unsigned i = 0; i < ndst; i++) {
		memset(&sa[i], 0, sizeof(sa[i]));
		sa[i].sin_family = AF_INET;
		sa[i].sin_port = htons(PORT);
		sa[i].sin_addr.s_addr = htonl(dst[i]);
	}
	sh->ready_tx = 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = lc_time_mono_ns();
	while (!sh->stop_tx && seq < sh->cap) {
		uint64_t due = (lc_time_mono_ns() - t0) * rate / 1000000000ull;

		while (seq < due && seq < sh->cap) {
			pkt[0] = seq;
			sh->send_ns[seq] = lc_time_mono_ns();
			/* an error (no route, no neighbour) is a lost packet */
			(void)sendto(s, pkt, sizeof(pkt), MSG_DONTWAIT,
			    (struct sockaddr *)&sa[seq % ndst], sizeof(sa[0]));
			seq++;
			sh->nsent = seq;
		}
		ts.tv_nsec += 500000; /* ticks of 0.5 ms */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_nsec -= 1000000000;
			ts.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	_exit(0);
}

static int
traffic_start(void)
{
	memset(sh->send_ns, 0, sh->cap * sizeof(uint64_t));
	memset(sh->recv_ns, 0, sh->cap * sizeof(uint64_t));
	sh->stop_tx = sh->stop_rx = sh->ready_tx = sh->ready_rx = 0;
	sh->nsent = sh->nrecv = sh->dup = sh->bad = 0;
	fflush(stdout);
	if ((rx_pid = fork()) == 0)
		rx_main();
	for (int i = 0; i < 200 && !sh->ready_rx; i++)
		usleep(5000);
	if ((tx_pid = fork()) == 0)
		tx_main();
	for (int i = 0; i < 200 && !sh->ready_tx; i++)
		usleep(5000);
	return (sh->ready_rx && sh->ready_tx ? 0 : -1);
}

static void
traffic_stop(void)
{
	sh->stop_tx = 1;
	if (tx_pid > 0)
		waitpid(tx_pid, NULL, 0);
	tx_pid = 0;
	usleep(300000); /* what is in flight arrives */
	sh->stop_rx = 1;
	if (rx_pid > 0)
		waitpid(rx_pid, NULL, 0);
	rx_pid = 0;
}

/* ---- the router's state ------------------------------------------------------------- */

static int
rib_fib_status(Rib__FibStatus *out, unsigned timeout_ms)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep;
	int rv = -1;

	if (!ipc_client_connected(B.rib))
		return (-1);
	if (ipc_call_wait(B.rib, RIB__METHOD__FIB_STATUS, &e.base, timeout_ms,
		B.ar, &rep, &B.err) == IPC_OK) {
		*out = *(Rib__FibStatus *)rep;
		rv = 0;
	}
	lc_arena_reset(B.ar);
	return (rv);
}

/* rib's static source: routes, stale, connected. -1 if rib did not answer
 * or has no static source. */
static int
rib_static_source(unsigned *routes, unsigned *stale, bool *connected,
    unsigned timeout_ms)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep;
	int rv = -1;

	if (!ipc_client_connected(B.rib))
		return (-1);
	if (ipc_call_wait(B.rib, RIB__METHOD__SOURCES, &e.base, timeout_ms,
		B.ar, &rep, &B.err) == IPC_OK) {
		const Rib__SourceList *l = (const Rib__SourceList *)rep;

		for (size_t i = 0; i < l->n_sources; i++)
			if (l->sources[i]->source == RIB__SOURCE__STATIC) {
				*routes = l->sources[i]->routes;
				*stale = l->sources[i]->stale;
				*connected = l->sources[i]->connected;
				rv = 0;
			}
	}
	lc_arena_reset(B.ar);
	return (rv);
}

/* rib holds every route, fwd (of generation fwd_gen unless 0) acknowledged
 * all it was sent, no resync in progress. */
static bool
rib_settled(uint64_t fwd_gen)
{
	Rib__FibStatus fs;

	return (rib_fib_status(&fs, 200) == 0 && fs.routes >= ps.n &&
	    !fs.resyncing && fs.pending == 0 && fs.fwd_connected &&
	    fs.acked_seq == fs.sent_seq &&
	    (fwd_gen == 0 || fs.fwd_generation == fwd_gen));
}

static int
session_open(void)
{
	Mgmt__SessionOpen so = MGMT__SESSION_OPEN__INIT;
	ProtobufCMessage *rep;

	so.user = (char *)"bench";
	if (ipc_call_wait(B.mgmt, MGMT__METHOD__SESSION_OPEN, &so.base, 2000,
		B.ar, &rep, &B.err) != IPC_OK) {
		lc_arena_reset(B.ar);
		return (-1);
	}
	B.session = ((Mgmt__Reply *)rep)->session;
	lc_arena_reset(B.ar);
	return (0);
}

static pid_t
comp_pid(const char *name)
{
	pid_t p = br_component_pid(&B, name);

	if (p == 0 && session_open() == 0)
		p = br_component_pid(&B, name);
	return (p);
}

/* Waits until the router is whole: every component running, fwd's FIB
 * complete, rib settled. 0 or -1 after timeout_s. */
static int
wait_whole(double timeout_s)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(timeout_s * 1e9);

	while (lc_time_mono_ns() < end) {
		if (br_fib_total(&B, 500) >= expected && rib_settled(0) &&
		    comp_pid("mgmt") > 0 && comp_pid("rib") > 0 &&
		    comp_pid("fwd") > 0)
			return (0);
		ev_run(B.loop, EVRUN_NOWAIT);
		usleep(50000);
	}
	return (-1);
}

/* ---- one case ----------------------------------------------------------------------- */

struct result {
	double lost, resume_s, fib_complete_s, fib_min, all_flows_s, max_gap_ms;
	double lost_before, sent, warmup_s, sent_window;
};

static int
run_case(const char *comp, struct result *res)
{
	uint64_t t_kill, t_done = 0, end, old_gen;
	struct ipc_client *watch;
	long fib_min = LONG_MAX, n;
	pid_t pid;
	bool newgen = false;

	memset(res, 0, sizeof(*res));
	if (wait_whole(120) != 0) {
		fprintf(stderr,
		    "bench-restart: the router is not whole before "
		    "killing %s\n",
		    comp);
		return (-1);
	}
	if ((pid = comp_pid(comp)) <= 0)
		return (-1);
	watch = strcmp(comp, "fwd") == 0 ? B.fwd :
	    strcmp(comp, "rib") == 0	 ? B.rib :
					   B.mgmt;
	old_gen = ipc_client_peer_generation(watch);
	if (traffic_start() != 0) {
		fprintf(stderr,
		    "bench-restart: traffic generator did not start\n");
		return (-1);
	}
	/* warm up: at least 1 s, and until every datagram sent between 0.6
	 * and 0.1 s ago arrived (fwd resolves next hops as routes come) */
	{
		uint64_t ts = lc_time_mono_ns(), wend = ts + 20000000000ull;
		bool clean = false;

		while (!clean && lc_time_mono_ns() < wend) {
			uint64_t now, a, z;

			usleep(100000);
			now = lc_time_mono_ns();
			if (now - ts < 1000000000ull)
				continue;
			a = (now - 600000000ull - ts) * rate / 1000000000ull;
			z = (now - 100000000ull - ts) * rate / 1000000000ull;
			clean = true;
			for (uint64_t q = a; q < z && q < sh->nsent; q++)
				if (sh->send_ns[q] != 0 && sh->recv_ns[q] == 0)
					clean = false;
		}
		res->warmup_s = (double)(lc_time_mono_ns() - ts) / 1e9;
		if (!clean)
			fprintf(stderr,
			    "bench-restart: %s: traffic still "
			    "losing after %.0f s of warm-up\n",
			    comp, res->warmup_s);
	}
	t_kill = lc_time_mono_ns();
	kill(pid, SIGKILL);
	end = t_kill + (uint64_t)(CASE_MAX_S * 1e9);
	while (lc_time_mono_ns() < end) {
		n = br_fib_total(&B, 50);
		if (n >= 0 && n < fib_min)
			fib_min = n;
		ev_run(B.loop, EVRUN_NOWAIT);
		if (!newgen && ipc_client_connected(watch) &&
		    ipc_client_peer_generation(watch) != old_gen)
			newgen = true;
		if (newgen) {
			bool done = false;

			if (strcmp(comp, "fwd") == 0) {
				done = n >= expected &&
				    rib_settled(
					ipc_client_peer_generation(watch));
			} else if (strcmp(comp, "rib") == 0) {
				done = rib_settled(0);
			} else {
				unsigned routes = 0, stale = 1;
				bool conn = false;

				done = rib_static_source(&routes, &stale, &conn,
					   200) == 0 &&
				    conn && stale == 0 && routes >= ps.n &&
				    rib_settled(0);
			}
			if (done) {
				t_done = lc_time_mono_ns();
				break;
			}
		}
		usleep(2000);
	}
	usleep(500000);
	traffic_stop();
	if (t_done == 0) {
		fprintf(stderr,
		    "bench-restart: %s: not complete %.0f s after "
		    "the kill (fwd FIB %ld of %ld)\n",
		    comp, CASE_MAX_S, br_fib_total(&B, 1000), expected);
		return (-1);
	}
	/* the figures, from the shared arrays */
	uint64_t nsent = sh->nsent, first_lost = UINT64_MAX, last_lost = 0;
	uint64_t resume = 0, prev = 0, gap = 0;

	for (uint64_t s = 0; s < nsent; s++) {
		if (sh->recv_ns[s] == 0) {
			if (sh->send_ns[s] + 500000000ull < t_kill) {
				res->lost_before++; /* in the warm-up */
				continue;
			}
			res->lost++;
			if (first_lost == UINT64_MAX)
				first_lost = s;
			last_lost = s;
		}
	}
	for (uint64_t s = 0; s < nsent; s++) {
		uint64_t r = sh->recv_ns[s];

		if (r == 0)
			continue;
		if (first_lost != UINT64_MAX && s > first_lost && resume == 0)
			resume = r;
		if (prev != 0 && r > prev &&
		    sh->send_ns[s] + 500000000ull > t_kill && r - prev > gap)
			gap = r - prev;
		if (r > prev)
			prev = r;
	}
	if (getenv("BENCH_RESTART_DEBUG") != NULL) {
		/* per destination: lost before and after the kill, and the
		 * send times of the first and last loss after it */
		for (unsigned d = 0; d < ndst; d++) {
			uint64_t lb = 0, la = 0, f = 0, l = 0;
			char ab[16];

			for (uint64_t s = d; s < nsent; s += ndst) {
				if (sh->recv_ns[s] != 0)
					continue;
				if (sh->send_ns[s] + 500000000ull < t_kill) {
					lb++;
					continue;
				}
				la++;
				if (f == 0)
					f = sh->send_ns[s];
				l = sh->send_ns[s];
			}
			printf("#   %s dst %-15s lost before %4llu after %4llu "
			       "(%.3f-%.3f s after the kill)\n",
			    comp, br_ip(dst[d], ab), (unsigned long long)lb,
			    (unsigned long long)la,
			    f ? (double)(f - t_kill) / 1e9 : 0,
			    l ? (double)(l - t_kill) / 1e9 : 0);
		}
	}
	res->sent = (double)nsent;
	res->resume_s = res->lost == 0 || resume < t_kill ?
	    0 :
	    (double)(resume - t_kill) / 1e9;
	res->all_flows_s = res->lost == 0 || sh->send_ns[last_lost] < t_kill ?
	    0 :
	    (double)(sh->send_ns[last_lost] - t_kill) / 1e9 + 1.0 / rate;
	res->max_gap_ms = (double)gap / 1e6;
	res->fib_complete_s = (double)(t_done - t_kill) / 1e9;
	res->fib_min = fib_min == LONG_MAX ? 0 : (double)fib_min;
	res->sent_window = (double)(nsent -
	    (uint64_t)((double)(t_kill - 500000000ull - sh->send_ns[0]) * rate /
		1e9));
	return (0);
}

/* ---- main ------------------------------------------------------------------------------ */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench-restart [--quick] [--routes=N] [--rounds=N] "
	    "[--rate=PPS]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const char *const comps[] = {"rib", "mgmt", "fwd"};
	double *v[3][8];
	unsigned nok[3] = {0};
	char p[PATH_MAX], args[4096], a[16];
	size_t off = 0;
	struct tt_rng rng;
	uint64_t t0, t1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strncmp(argv[i], "--routes=", 9) == 0)
			nroutes = strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--rate=", 7) == 0)
			rate = (unsigned)strtoul(argv[i] + 7, NULL, 10);
		else
			usage();
	}
	if (quick) {
		nroutes = 1000;
		rounds = 1;
		rate = 2000;
	}
	if (lc_build_bench_check("bench-restart") != 0)
		return (2);
	if (nroutes == 0 || rounds == 0 || rate == 0 || rate > 1000000)
		usage();
	if (geteuid() != 0) {
		printf(
		    "bench-restart: skipped: needs root (network namespaces)\n");
		return (0);
	}
	if (br_init(&B, "br") != 0) {
		perror("bench-restart: setup");
		return (1);
	}
	if (tt_prefixset_gen(&ps, nroutes, TT_PFX_SEED, 0) != 0) {
		fprintf(stderr, "bench-restart: prefix set of %zu\n", nroutes);
		return (1);
	}
	/* destinations: .1 of NDST /24 routes of the set (a /24 has nothing
	 * more specific in the standard set) */
	tt_rng_seed(&rng, 7);
	for (unsigned tries = 0; ndst < NDST && tries < 100000; tries++) {
		const struct tt_prefix *q = &ps.p[tt_rng_below(&rng, ps.n)];
		bool dup = false;

		if (q->len != 24)
			continue;
		for (unsigned i = 0; i < ndst; i++)
			dup |= dst[i] == (q->addr | 1);
		if (!dup)
			dst[ndst++] = q->addr | 1;
	}
	if (ndst == 0) {
		fprintf(stderr, "bench-restart: no /24 in the set\n");
		return (1);
	}
	for (unsigned i = 0; i < ndst; i++)
		off += (size_t)snprintf(args + off, sizeof(args) - off, " %s",
		    br_ip(dst[i], a));
	/* shared memory for the traffic */
	{
		uint64_t cap = (uint64_t)rate * (uint64_t)(CASE_MAX_S + 30);

		shm_len = sizeof(*sh) + 2 * cap * sizeof(uint64_t);
		sh = mmap(NULL, shm_len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED) {
			perror("bench-restart: mmap");
			return (1);
		}
		sh->cap = cap;
		sh->send_ns = (uint64_t *)(sh + 1);
		sh->recv_ns = sh->send_ns + cap;
	}
	printf(
	    "bench-restart: %zu static routes (the standard set, seed %#llx, "
	    "next hops 198.18.2.2-254, all owned by the server), %u rounds of "
	    "kill -9 of rib, mgmt, fwd; no peer (none comparable: a router "
	    "that keeps forwarding through its control plane's restarts)\n",
	    ps.n, (unsigned long long)TT_PFX_SEED, rounds);
	printf(
	    "# topology: client ns -- router ns (tern-fwd on veth, afpacket) "
	    "-- server ns (tests/lib/netns.sh)\n"
	    "# traffic: UDP, 64-byte payload, %u datagrams/s from the client "
	    "round robin to %u addresses in %u /24 routes of the set, counted "
	    "per sequence number at the server\n"
	    "# warm-up: >= 1 s of traffic and no loss among datagrams sent "
	    "0.6-0.1 s ago; lost_packets: sent from 0.5 s before the kill to "
	    "0.5 s after complete, never received; resume_s: kill to the "
	    "first arrival after the first loss (0 if none lost)\n"
	    "# fib_complete_s: kill until fwd: new fwd's FIB total = all "
	    "routes and rib's downloads acked by it; "
	    "rib: new rib holds all, FIB acked, resync over; mgmt: new mgmt, "
	    "rib's static source connected with all routes, none stale, rib "
	    "settled\n"
	    "# rtrmgr: default backoff (100 ms first restart) and health checks "
	    "(1 s); routes_withdrawn = all - the smallest FIB fwd reported "
	    "(polled 2 ms)\n",
	    rate, ndst, ndst);
	if (br_lib(&B, "topo", false, NULL) != 0 ||
	    br_lib(&B, "srv-addrs", false, args) != 0) {
		fprintf(stderr, "bench-restart: topology failed\n");
		return (1);
	}
	snprintf(p, sizeof(p), "%s/state/boot.conf", B.dir);
	if (br_write_tern_conf(p, &ps, NULL) != 0)
		return (1);
	t0 = lc_time_mono_ns();
	if (br_start(&B) != 0 ||
	    (t1 = br_wait_fib(&B, (long)ps.n, 600, 20000, NULL)) == 0) {
		fprintf(stderr,
		    "bench-restart: the router did not load the "
		    "routes (logs in %s/run)\n",
		    B.dir);
		return (1);
	}
	expected = (long)ps.n + 2; /* and the two connected subnets */
	if (wait_whole(120) != 0) {
		fprintf(stderr, "bench-restart: the router did not settle\n");
		return (1);
	}
	printf("# loaded in %.2f s; fwd holds %ld routes (%zu static, 2 "
	       "connected, the rest /32s of resolved neighbours)\n",
	    (double)(t1 - t0) / 1e9, br_fib_total(&B, 2000), ps.n);
	br_print_cpus(&B);
	for (unsigned c = 0; c < 3; c++)
		for (unsigned m = 0; m < 8; m++)
			v[c][m] = calloc(rounds, sizeof(double));
	printf(
	    "# per case: lost, resume_s, fib_full_s (fib_complete_s), routes "
	    "withdrawn, allflows_s (kill to the send time of the last lost "
	    "datagram), maxgap_ms (longest time without arrivals), sent (in "
	    "the counted window), warmup (datagrams lost in the warm-up)\n");
	printf("\n%-6s %-5s %9s %9s %10s %9s %10s %9s %8s %8s\n", "round",
	    "kill", "lost", "resume_s", "fib_full_s", "withdrawn", "allflows_s",
	    "maxgap_ms", "sent", "warmup");
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned c = 0; c < 3; c++) {
			struct result res;
			unsigned k = nok[c];

			if (run_case(comps[c], &res) != 0) {
				fprintf(stderr,
				    "bench-restart: round %u, %s "
				    "failed (logs in %s/run)\n",
				    r, comps[c], B.dir);
				continue;
			}
			v[c][0][k] = res.lost;
			v[c][1][k] = res.resume_s;
			v[c][2][k] = res.fib_complete_s;
			v[c][3][k] = res.fib_min >= (double)expected ?
			    0 :
			    (double)expected - res.fib_min;
			v[c][4][k] = res.all_flows_s;
			v[c][5][k] = res.max_gap_ms;
			v[c][6][k] = res.lost_before;
			nok[c]++;
			printf(
			    "%-6u %-5s %9.0f %9.3f %10.3f %9.0f %10.3f %9.1f "
			    "%8.0f %8.0f\n",
			    r, comps[c], res.lost, res.resume_s,
			    res.fib_complete_s, v[c][3][k], res.all_flows_s,
			    res.max_gap_ms, res.sent_window, res.lost_before);
			v[c][7][k] = res.warmup_s;
		}
	}
	printf("\n%-6s %22s %24s %26s %16s\n", "kill", "lost (median, min-max)",
	    "resume_s", "fib_complete_s", "routes withdrawn");
	for (unsigned c = 0; c < 3; c++)
		printf("%-6s %8.0f %6.0f-%-6.0f %8.3f %6.3f-%-7.3f %9.3f "
		       "%6.3f-%-8.3f %7.0f (max %.0f)\n",
		    comps[c], br_median(v[c][0], nok[c]),
		    br_min(v[c][0], nok[c]), br_max(v[c][0], nok[c]),
		    br_median(v[c][1], nok[c]), br_min(v[c][1], nok[c]),
		    br_max(v[c][1], nok[c]), br_median(v[c][2], nok[c]),
		    br_min(v[c][2], nok[c]), br_max(v[c][2], nok[c]),
		    br_median(v[c][3], nok[c]), br_max(v[c][3], nok[c]));
	printf(
	    "targets: kill -9 rib or mgmt: 0 lost, 0 withdrawn; kill -9 fwd "
	    "with 1M routes: forwarding within 1 s, full FIB within 2 s\n\n");
	for (unsigned c = 0; c < 3; c++) {
		char cas[32], extra[256];

		snprintf(cas, sizeof(cas), "restart_%s", comps[c]);
		snprintf(extra, sizeof(extra),
		    "\"routes\":%zu,\"fib_routes\":%ld,"
		    "\"rate_pps\":%u,\"flows\":%u,\"routes_withdrawn_max\":%.0f,"
		    "\"all_flows_s\":%.4g,\"max_gap_ms\":%.4g%s",
		    ps.n, expected, rate, ndst,
		    c == 2 ? (double)expected : br_max(v[c][3], nok[c]),
		    br_median(v[c][4], nok[c]), br_median(v[c][5], nok[c]),
		    quick ? ",\"quick\":true" : "");
		if (nok[c] == 0)
			continue;
		br_bench_line("restart", cas, "lost_packets", "packets",
		    v[c][0], nok[c], NULL, NULL, 0, "lower", extra);
		br_bench_line("restart", cas, "resume_s", "s", v[c][1], nok[c],
		    NULL, NULL, 0, "lower", extra);
		br_bench_line("restart", cas, "fib_complete_s", "s", v[c][2],
		    nok[c], NULL, NULL, 0, "lower", extra);
	}
	br_stop(&B);
	tt_prefixset_free(&ps);
	return (nok[0] + nok[1] + nok[2] == 3 * rounds ? 0 : 1);
}
