/* tests/bench/bench_config.c: bench-config: the whole router (rtrmgr, mgmt, rib, fwd in namespaces) loading a boot config of 1M static routes until fwd holds them, and one changed route committed with 1M present until fwd holds it; peer BIRD 2 (static routes exported to a kernel table) when installed; with --big-commits, commits of N routes at once (and of their deletion) until fwd holds them. */
#include "bench_router.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

/*
 * What is measured (said again in the output):
 * - load: from the exec of tern-rtrmgr (boot config: 2 interfaces and n
 *   static routes of the standard set, next hops 198.18.2.2-254 on the
 *   server subnet) until tern-fwd's FIB (QUERY_FIB total on fwd's read-only
 *   socket, polled every 20 ms) holds all n routes plus its own; includes
 *   rtrmgr starting mgmt, rib, fwd, mgmt parsing the config, pushing it to
 *   rib, rib resolving and pushing to fwd.
 *   Peer: from the exec of `bird -f` (same routes as `route P via NH;` in a
 *   static protocol, exported by a kernel protocol to table 100 of a fresh
 *   namespace with a dummy 198.18.2.1/24) until the kernel table holds all n
 *   (RTM_NEWROUTE notifications counted, checked by a dump at the end).
 * - commit: one route's next hop changed (`delete` + `set` in a configure
 *   session, before the clock starts); from sending `commit` to mgmt until
 *   fwd's FIB answers the new next hop for that prefix (exact QUERY_FIB
 *   polled every 100 us). Peer: the config file rewritten with the one line
 *   changed (before the clock), from the exec of `birdc configure` until the
 *   kernel's notification of that route with the new gateway.
 */

#define KTABLE 100

static struct br B;
static struct tt_prefixset ps;
static size_t nroutes = TT_PFX_FULL;
static unsigned rounds = 3, ncommits = 100, npeer_commits = 10;
static bool quick, use_peer = true;
static long commit_gap_ms = -1; /* pause between commits; -1: by size */
static char bird_bin[PATH_MAX], birdc_bin[PATH_MAX];
static uint16_t *cur_nh; /* next hop index of each route now */
static long fib_base;	 /* routes fwd holds besides the statics */

/* ---- ours -------------------------------------------------------------------- */

static char *
conf_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/state/%s", B.dir, name);
	return (buf);
}

/* fwd's own routes (connected subnets...) with a config of 0 statics. */
static int
measure_base(void)
{
	struct tt_prefixset empty = {0};
	char p[PATH_MAX];

	if (br_write_tern_conf(conf_path(p, sizeof(p), "boot.conf"), &empty,
		NULL) != 0 ||
	    br_start(&B) != 0)
		return (-1);
	/* wait for the interfaces' routes to settle */
	for (int i = 0; i < 100; i++) {
		long n = br_fib_total(&B, 1000);

		if (n > 0 && n == fib_base)
			break;
		fib_base = n;
		usleep(100000);
	}
	br_stop(&B);
	return (fib_base > 0 ? 0 : -1);
}

static struct commit_wait {
	bool done;
	int status, code;
	uint64_t t;
} cw;

static void
commit_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	(void)arg;
	cw.done = true;
	cw.status = status;
	cw.t = lc_time_mono_ns();
	cw.code = msg != NULL ? (int)((const Mgmt__Reply *)msg)->code : -1;
	if (status != IPC_OK || cw.code != 0)
		fprintf(stderr, "bench: commit: %s %s %s\n",
		    ipc_status_str(status), err->msg,
		    msg ? ((const Mgmt__Reply *)msg)->error : "");
}

/* One round of ours: load, then ncommits single changes. load_s gets the
 * load time; ms[] the commit times, rep_ms[] commit reply times. */
static int
ours_round(struct tt_rng *rng, double *load_s, double *mgmt_s, double *fwd_s,
    double *ms, double *rep_ms)
{
	char line[256], a[16], h[16];
	uint64_t t0, t1, tf = 0;

	for (size_t i = 0; i < ps.n; i++)
		cur_nh[i] = ps.p[i].nh;
	br_sh("rm -rf '%s/state/config'", B.dir);
	t0 = lc_time_mono_ns();
	if (br_start(&B) != 0)
		return (-1);
	*mgmt_s = (double)(lc_time_mono_ns() - t0) / 1e9;
	t1 = br_wait_fib(&B, (long)ps.n + fib_base, 600, 20000, &tf);
	if (t1 == 0) {
		fprintf(stderr,
		    "bench: fwd holds %ld of %zu routes after 600 s\n",
		    br_fib_total(&B, 1000), ps.n + (size_t)fib_base);
		return (-1);
	}
	*load_s = (double)(t1 - t0) / 1e9;
	*fwd_s = (double)(tf - t0) / 1e9;
	br_print_cpus(&B);
	if (br_exec(&B, "configure", NULL, 0, 5000) != 0) {
		fprintf(stderr, "bench: configure: %s\n", B.err.msg);
		return (-1);
	}
	for (unsigned c = 0; c < ncommits; c++) {
		size_t k = tt_rng_below(rng, ps.n);
		unsigned nnh = (cur_nh[k] + 1) % 253;
		uint32_t want = br_nh(nnh), got = 0;
		Mgmt__ExecuteRequest r = MGMT__EXECUTE_REQUEST__INIT;
		uint64_t end;
		int f;

		br_ip(ps.p[k].addr, a);
		snprintf(line, sizeof(line),
		    "delete protocols static route "
		    "%s/%u",
		    a, ps.p[k].len);
		if (br_exec(&B, line, NULL, 0, 5000) != 0) {
			fprintf(stderr, "bench: %s: %s\n", line, B.err.msg);
			return (-1);
		}
		snprintf(line, sizeof(line),
		    "set protocols static route %s/%u "
		    "next-hop %s",
		    a, ps.p[k].len, br_ip(want, h));
		if (br_exec(&B, line, NULL, 0, 5000) != 0) {
			fprintf(stderr, "bench: %s: %s\n", line, B.err.msg);
			return (-1);
		}
		memset(&cw, 0, sizeof(cw));
		r.session = B.session;
		r.line = (char *)"commit";
		t0 = lc_time_mono_ns();
		if (ipc_call(B.mgmt, MGMT__METHOD__EXECUTE, &r.base, commit_cb,
			NULL, 60000) != 0)
			return (-1);
		ipc_client_flush(B.mgmt);
		end = t0 + 30000000000ull;
		t1 = 0;
		while (lc_time_mono_ns() < end) {
			f = br_fib_get(&B, ps.p[k].addr, ps.p[k].len, &got,
			    5000);
			if (f == 1 && got == want) {
				t1 = lc_time_mono_ns();
				break;
			}
			if (cw.done && (cw.status != IPC_OK || cw.code != 0))
				return (-1);
			usleep(100);
		}
		while (!cw.done && lc_time_mono_ns() < end + 30000000000ull)
			ev_run(B.loop, EVRUN_ONCE);
		if (t1 == 0 || !cw.done) {
			fprintf(stderr,
			    "bench: commit %u of %s/%u: fwd never "
			    "held next hop %s\n",
			    c, a, ps.p[k].len, h);
			return (-1);
		}
		cur_nh[k] = (uint16_t)nnh;
		ms[c] = (double)(t1 - t0) / 1e6;
		rep_ms[c] = (double)(cw.t - t0) / 1e6;
		/* mgmt's loop is busy while it stores the commit (0.8 s at
		 * 1M): back to back, rtrmgr's health checks fail and it kills
		 * mgmt as hung. A pause keeps the router as an operator
		 * would see it. */
		if (commit_gap_ms > 0)
			usleep((useconds_t)commit_gap_ms * 1000);
	}
	br_stop(&B);
	return (0);
}

/* ---- BIRD ----------------------------------------------------------------------- */

static pid_t bird_pid;
static int nl_mon = -1;
static long nl_count; /* routes in KTABLE by notifications */
static bool nl_overrun;

static int
bird_conf(const char *path)
{
	FILE *f = fopen(path, "w");
	char a[16], h[16];

	if (f == NULL)
		return (-1);
	fprintf(f,
	    "# bench-config peer: %zu static routes to kernel table %d\n"
	    "log \"%s/state/bird.log\" { warning, error, fatal, bug };\n"
	    "router id 198.18.2.1;\n"
	    "protocol device { scan time 10; }\n"
	    "protocol kernel {\n\tipv4 { import none; export all; };\n"
	    "\tkernel table %d;\n\tlearn off;\n\tscan time 3600;\n}\n"
	    "protocol static {\n\tipv4;\n",
	    ps.n, KTABLE, B.dir, KTABLE);
	for (size_t i = 0; i < ps.n; i++)
		fprintf(f, "\troute %s/%u via %s;\n", br_ip(ps.p[i].addr, a),
		    ps.p[i].len, br_ip(br_nh(cur_nh[i]), h));
	fprintf(f, "}\n");
	return (fclose(f));
}

/* A netlink socket in namespace tern-b-SUFFIX: subscribed to IPv4 route
 * notifications (groups != 0) or for a dump (0). */
static int
nl_open_in_ns(unsigned groups)
{
	char name[64];
	int self, s, sz = 512 << 20;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = groups};

	snprintf(name, sizeof(name), "tern-b-%s", B.suffix);
	if ((self = tt_netns_enter(name)) < 0)
		return (-1);
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    NETLINK_ROUTE);
	if (s >= 0) {
		(void)setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz,
		    sizeof(sz));
		if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			close(s);
			s = -1;
		}
	}
	if (tt_netns_leave(self) != 0) {
		perror("bench: setns back");
		exit(1);
	}
	return (s);
}

static unsigned
rt_table(struct nlmsghdr *h, uint32_t *dst, unsigned *dlen, uint32_t *gw)
{
	struct rtmsg *rt = NLMSG_DATA(h);
	int len = (int)RTM_PAYLOAD(h);
	unsigned table = rt->rtm_table;

	*dlen = rt->rtm_dst_len;
	*dst = 0;
	*gw = 0;
	for (struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len);
	     a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_TABLE)
			table = *(uint32_t *)RTA_DATA(a);
		else if (a->rta_type == RTA_DST)
			*dst = ntohl(*(uint32_t *)RTA_DATA(a));
		else if (a->rta_type == RTA_GATEWAY)
			*gw = ntohl(*(uint32_t *)RTA_DATA(a));
	}
	return (table);
}

/* Reads the notifications queued on nl_mon: counts routes of KTABLE; if
 * watch_len is not 0, returns 1 when prefix watch/watch_len was set with
 * gateway watch_gw. */
static int
nl_drain(uint32_t watch, unsigned watch_len, uint32_t watch_gw)
{
	static char buf[1 << 20];
	int hit = 0;
	ssize_t n;

	while ((n = recv(nl_mon, buf, sizeof(buf), 0)) > 0 ||
	    (n < 0 && errno == ENOBUFS)) {
		if (n < 0) {
			nl_overrun = true;
			continue;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			uint32_t dst, gw;
			unsigned dlen;

			if (h->nlmsg_type != RTM_NEWROUTE &&
			    h->nlmsg_type != RTM_DELROUTE)
				continue;
			if (rt_table(h, &dst, &dlen, &gw) != KTABLE)
				continue;
			if (h->nlmsg_type == RTM_DELROUTE)
				nl_count--;
			else if (!(h->nlmsg_flags & NLM_F_REPLACE))
				nl_count++;
			if (watch_len != 0 && h->nlmsg_type == RTM_NEWROUTE &&
			    dst == watch && dlen == watch_len && gw == watch_gw)
				hit = 1;
		}
	}
	return (hit);
}

/* Routes in KTABLE by a full dump; -1 on error. */
static long
nl_dump_count(void)
{
	static char buf[1 << 20];
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
	} req = {.h = {.nlmsg_len = sizeof(req),
		     .nlmsg_type = RTM_GETROUTE,
		     .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		     .nlmsg_seq = 1},
	    .r = {.rtm_family = AF_INET}};
	int s = nl_open_in_ns(0);
	long count = 0;
	bool done = false;

	if (s < 0)
		return (-1);
	if (send(s, &req, sizeof(req), 0) < 0) {
		close(s);
		return (-1);
	}
	while (!done) {
		struct pollfd pf = {.fd = s, .events = POLLIN};
		ssize_t n;

		if (poll(&pf, 1, 5000) <= 0)
			break;
		if ((n = recv(s, buf, sizeof(buf), 0)) <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			uint32_t dst, gw;
			unsigned dlen;

			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			if (h->nlmsg_type == RTM_NEWROUTE &&
			    rt_table(h, &dst, &dlen, &gw) == KTABLE)
				count++;
		}
	}
	close(s);
	return (done ? count : -1);
}

static int
birdc_configure(void)
{
	return (
	    br_sh("'%s' -s '%s/state/bird.ctl' configure >'%s/state/birdc.out' "
		  "2>&1",
		birdc_bin, B.dir, B.dir));
}

static void
bird_stop(void)
{
	if (bird_pid > 0) {
		kill(bird_pid, SIGKILL);
		waitpid(bird_pid, NULL, 0);
	}
	bird_pid = 0;
	if (nl_mon >= 0)
		close(nl_mon);
	nl_mon = -1;
	/* flushed first: a namespace deleted with 1M routes is cleaned up
	 * by the kernel in the background for seconds, into the next round */
	br_sh("ip -n tern-b-%s route flush table %d 2>/dev/null; "
	      "ip netns del tern-b-%s 2>/dev/null",
	    B.suffix, KTABLE, B.suffix);
}

static int
peer_round(struct tt_rng *rng, double *load_s, double *ms, double *rep_ms)
{
	char conf[PATH_MAX], ctl[PATH_MAX];
	uint64_t t0, t1 = 0, end;
	long dumped;

	for (size_t i = 0; i < ps.n; i++)
		cur_nh[i] = ps.p[i].nh;
	conf_path(conf, sizeof(conf), "bird.conf");
	conf_path(ctl, sizeof(ctl), "bird.ctl");
	if (bird_conf(conf) != 0 || br_lib(&B, "bird-ns", false, NULL) != 0)
		return (-1);
	if ((nl_mon = nl_open_in_ns(RTMGRP_IPV4_ROUTE)) < 0)
		return (-1);
	nl_count = 0;
	nl_overrun = false;
	t0 = lc_time_mono_ns();
	if ((bird_pid = fork()) == 0) {
		char ns[64];

		snprintf(ns, sizeof(ns), "tern-b-%s", B.suffix);
		execlp("ip", "ip", "netns", "exec", ns, bird_bin, "-f", "-c",
		    conf, "-s", ctl, (char *)NULL);
		_exit(127);
	}
	end = t0 + 600000000000ull;
	while (lc_time_mono_ns() < end) {
		struct pollfd pf = {.fd = nl_mon, .events = POLLIN};

		if (waitpid(bird_pid, NULL, WNOHANG) == bird_pid) {
			bird_pid = 0;
			fprintf(stderr,
			    "bench: bird exited (see %s/state/bird.log)\n",
			    B.dir);
			return (-1);
		}
		(void)poll(&pf, 1, 20);
		(void)nl_drain(0, 0, 0);
		if (nl_overrun) {
			/* notifications lost: count by dumps instead */
			long c = nl_dump_count();

			if (c >= (long)ps.n) {
				t1 = lc_time_mono_ns();
				break;
			}
			usleep(100000);
		} else if (nl_count >= (long)ps.n) {
			t1 = lc_time_mono_ns();
			break;
		}
	}
	if (t1 == 0)
		return (-1);
	*load_s = (double)(t1 - t0) / 1e9;
	dumped = nl_dump_count();
	printf("# peer: BIRD's kernel table %d holds %ld routes (dump)%s; "
	       "bird pid %d cpu %d\n",
	    KTABLE, dumped,
	    nl_overrun ? " (notifications overran: counted by dumps)" : "",
	    (int)bird_pid, br_pid_cpu(bird_pid));
	if (dumped < (long)ps.n)
		return (-1);
	/* wait until birdc answers */
	for (int i = 0; i < 100 &&
	     br_sh("'%s' -s '%s' show status >/dev/null "
		   "2>&1",
		 birdc_bin, ctl) != 0;
	     i++)
		usleep(100000);
	for (unsigned c = 0; c < npeer_commits; c++) {
		size_t k = tt_rng_below(rng, ps.n);
		unsigned nnh = (cur_nh[k] + 1) % 253;
		uint32_t want = br_nh(nnh);
		uint64_t tr;
		int hit = 0;

		cur_nh[k] = (uint16_t)nnh;
		if (bird_conf(conf) != 0)
			return (-1);
		(void)nl_drain(0, 0, 0);
		t0 = lc_time_mono_ns();
		if (birdc_configure() != 0) {
			fprintf(stderr,
			    "bench: birdc configure failed (see "
			    "%s/state/birdc.out)\n",
			    B.dir);
			return (-1);
		}
		tr = lc_time_mono_ns();
		end = t0 + 120000000000ull;
		t1 = 0;
		while (lc_time_mono_ns() < end) {
			struct pollfd pf = {.fd = nl_mon, .events = POLLIN};

			if (nl_drain(ps.p[k].addr, ps.p[k].len, want)) {
				hit = 1;
				break;
			}
			(void)poll(&pf, 1, 100);
		}
		/* notifications arrive after the fact: the drain's time is
		 * when we saw it */
		t1 = lc_time_mono_ns();
		if (!hit) {
			fprintf(stderr,
			    "bench: the kernel never got the "
			    "changed route from BIRD\n");
			return (-1);
		}
		ms[c] = (double)(t1 - t0) / 1e6;
		rep_ms[c] = (double)(tr - t0) / 1e6;
	}
	bird_stop();
	return (0);
}

/* ---- big commits (--big-commits=N,...) ---------------------------------------- */

#define BIG_MAX 8
static size_t big_n[BIG_MAX];
static unsigned nbig;

/* `load merge` of text in the session, in parts as ternsh sends a file. 0
 * or -1 (message in B.err.msg). */
static int
br_load(const char *text, size_t len)
{
	Mgmt__ExecuteRequest r = MGMT__EXECUTE_REQUEST__INIT;
	size_t off = 0, part = 4u << 20; /* MGMT_XFER_PART */
	ProtobufCMessage *rep;
	int st;

	do {
		size_t n = len - off < part ? len - off : part;

		r.session = B.session;
		r.line = (char *)"load merge bench-big.conf";
		r.client_file = true;
		r.data.data = (uint8_t *)text + off;
		r.data.len = n;
		r.data_offset = off;
		r.data_more = off + n < len;
		st = ipc_call_wait(B.mgmt, MGMT__METHOD__EXECUTE, &r.base,
		    120000, B.ar, &rep, &B.err);
		if (st != IPC_OK || ((Mgmt__Reply *)rep)->code != 0) {
			if (st == IPC_OK)
				snprintf(B.err.msg, sizeof(B.err.msg), "%s",
				    ((Mgmt__Reply *)rep)->error);
			lc_arena_reset(B.ar);
			return (-1);
		}
		lc_arena_reset(B.ar);
		off += n;
	} while (off < len);
	return (0);
}

/* The config text of the first n routes of the standard set. */
static char *
big_text(size_t n, size_t *len)
{
	char a[16], h[16], *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (f == NULL)
		return (NULL);
	fprintf(f, "protocols {\n    static {\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "        route %s/%u next-hop %s;\n",
		    br_ip(ps.p[i].addr, a), ps.p[i].len,
		    br_ip(br_nh(ps.p[i].nh), h));
	fprintf(f, "    }\n}\n");
	fclose(f);
	*len = sz;
	return (buf);
}

/* One timed commit in our session: the reply's time (ms) into *reply_ms,
 * and until fwd's FIB holds at least `want` routes (up), at most (down)
 * into *fwd_ms; *total: what it held then. 0, 1 (mgmt refused the commit:
 * why in B.err.msg; *reply_ms set) or -1. */
static int
big_commit(long want, bool up, double *reply_ms, double *fwd_ms, long *total)
{
	Mgmt__ExecuteRequest r = MGMT__EXECUTE_REQUEST__INIT;
	uint64_t t0, tf = 0, end;

	memset(&cw, 0, sizeof(cw));
	r.session = B.session;
	r.line = (char *)"commit";
	t0 = lc_time_mono_ns();
	if (ipc_call(B.mgmt, MGMT__METHOD__EXECUTE, &r.base, commit_cb, NULL,
		300000) != 0)
		return (-1);
	ipc_client_flush(B.mgmt);
	end = t0 + 300 * LC_NS_PER_SEC;
	while (lc_time_mono_ns() < end && (!cw.done || tf == 0)) {
		ev_run(B.loop, EVRUN_NOWAIT);
		if (cw.done && (cw.status != IPC_OK || cw.code != 0))
			break;
		if (tf == 0 && (*total = br_fib_total(&B, 1000)) >= 0 &&
		    (up ? *total >= want : *total <= want))
			tf = lc_time_mono_ns();
		usleep(2000);
	}
	if (!cw.done)
		return (-1);
	*reply_ms = (double)(cw.t - t0) / 1e6;
	if (cw.status != IPC_OK || cw.code != 0) {
		snprintf(B.err.msg, sizeof(B.err.msg), "%s",
		    cw.status != IPC_OK ? ipc_status_str(cw.status) :
					  "refused (see above)");
		return (1);
	}
	if (tf == 0)
		return (-1);
	*fwd_ms = (double)(tf - t0) / 1e6;
	return (0);
}

/*
 * For each size: the router started with no static routes, the routes
 * loaded into a candidate (not timed), then `commit` timed until mgmt's
 * reply and until fwd's FIB holds them all; then `delete protocols static`
 * committed the same way until fwd is back to its own routes.
 */
static int
big_round(unsigned r, double (*t)[4], int *ok)
{
	char p[PATH_MAX];
	struct tt_prefixset empty = {0};

	if (br_write_tern_conf(conf_path(p, sizeof(p), "boot.conf"), &empty,
		NULL) != 0)
		return (-1);
	for (unsigned k = 0; k < nbig; k++) {
		size_t len;
		char *text = big_text(big_n[k], &len);
		long base, total = 0;
		int rv;

		if (text == NULL)
			return (-1);
		br_sh("rm -rf '%s/state/config'", B.dir);
		if (br_start(&B) != 0 ||
		    br_wait_fib(&B, fib_base, 60, 20000, NULL) == 0 ||
		    br_exec(&B, "configure", NULL, 0, 5000) != 0 ||
		    br_load(text, len) != 0) {
			fprintf(stderr, "bench: %zu routes: %s\n", big_n[k],
			    B.err.msg);
			free(text);
			return (-1);
		}
		free(text);
		/* fwd's own routes: the connected ones and what comes with
		 * the server's neighbour entry (not settled at the start) */
		base = br_fib_total(&B, 1000);
		rv = big_commit(base + (long)big_n[k], true, &t[k][0], &t[k][1],
		    &total);
		ok[k] = rv == 0;
		if (rv < 0) {
			fprintf(stderr,
			    "bench: commit of %zu routes: no answer "
			    "or fwd never held them\n",
			    big_n[k]);
			return (-1);
		}
		if (rv == 1) {
			printf("%-6u %10zu %12.1f %12s   refused: %s\n", r,
			    big_n[k], t[k][0], "-", B.err.msg);
			br_stop(&B);
			continue;
		}
		if (br_exec(&B, "delete protocols static", NULL, 0, 60000) !=
			0 ||
		    big_commit(total - (long)big_n[k], false, &t[k][2],
			&t[k][3], &total) != 0) {
			fprintf(stderr, "bench: delete of %zu routes: %s\n",
			    big_n[k], B.err.msg);
			return (-1);
		}
		printf("%-6u %10zu %12.1f %12.1f %12.1f %12.1f\n", r, big_n[k],
		    t[k][0], t[k][1], t[k][2], t[k][3]);
		br_stop(&B);
	}
	return (0);
}

static int
big_main(void)
{
	double(*t)[BIG_MAX][4] = calloc(rounds, sizeof(*t));
	int(*ok)[BIG_MAX] = calloc(rounds, sizeof(*ok));
	double v[4][64];
	char cas[64], extra[128];

	printf("# big commits: the router started with no static routes; N "
	       "routes of the standard set loaded into a candidate (not "
	       "timed); `commit` until mgmt's reply (stored) and until fwd's "
	       "FIB holds them (QUERY_FIB total, polled 2 ms); then `delete "
	       "protocols static` committed the same way; no peer\n");
	printf("\n%-6s %10s %12s %12s %12s %12s\n", "round", "routes",
	    "add_reply_ms", "add_fwd_ms", "del_reply_ms", "del_fwd_ms");
	for (unsigned r = 0; r < rounds; r++)
		if (big_round(r, t[r], ok[r]) != 0) {
			br_cleanup_me = NULL;
			br_stop(&B);
			br_lib(&B, "cleanup", false, NULL);
			return (1);
		}
	printf("\n%-10s %-14s %10s %21s\n", "routes", "figure", "median",
	    "min-max");
	for (unsigned k = 0; k < nbig; k++) {
		static const char *const what[4] = {"add_reply_ms",
		    "add_fwd_ms", "del_reply_ms", "del_fwd_ms"};
		size_t n = 0;

		for (unsigned r = 0; r < rounds && n < 64; r++)
			if (ok[r][k]) {
				for (unsigned j = 0; j < 4; j++)
					v[j][n] = t[r][k][j];
				n++;
			}
		if (n == 0) {
			printf("%-10zu refused in every round\n", big_n[k]);
			continue;
		}
		for (unsigned j = 0; j < 4; j++) {
			printf("%-10zu %-14s %10.1f %10.1f-%-10.1f\n", big_n[k],
			    what[j], br_median(v[j], n), br_min(v[j], n),
			    br_max(v[j], n));
		}
		snprintf(cas, sizeof(cas), "commit_%zu_routes", big_n[k]);
		snprintf(extra, sizeof(extra), "\"routes\":%zu", big_n[k]);
		for (unsigned j = 0; j < 4; j++)
			br_bench_line("config", cas, what[j], "ms", v[j], n,
			    NULL, NULL, 0, "lower", extra);
	}
	free(t);
	free(ok);
	tt_prefixset_free(&ps);
	return (0);
}

/* ---- main ------------------------------------------------------------------------- */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench-config [--quick] [--routes=N] [--rounds=N] "
	    "[--commits=N] [--peer-commits=N] [--commit-gap-ms=N] [--no-peer]\n"
	    "       bench-config --big-commits=N[,N...] [--rounds=N]\n");
	exit(2);
}

/* One line of the summary: medians with min-max, ours then the peer's. */
static void
row(const char *what, const double *v, size_t n, const double *pv, size_t pn)
{
	printf("%-24s %10.2f %10.2f-%-10.2f", what, br_median(v, n),
	    br_min(v, n), br_max(v, n));
	if (pv != NULL && pn > 0)
		printf(" %10.2f %10.2f-%-10.2f", br_median(pv, pn),
		    br_min(pv, pn), br_max(pv, pn));
	printf("\n");
}

static bool
find_prog(const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {"/usr/sbin", "/usr/bin",
	    "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"};

	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (access(out, X_OK) == 0)
			return (true);
	}
	return (false);
}

int
main(int argc, char **argv)
{
	double *load, *peer_load, *mgmt_up, *fwd_up, *p50, *p99, *rp50, *pp50,
	    *pp99, *prp50, *ms, *rep;
	struct tt_rng rng, prng;
	bool peer;
	unsigned ok = 0, pok = 0;
	char extra[256];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strncmp(argv[i], "--routes=", 9) == 0)
			nroutes = strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--commits=", 10) == 0)
			ncommits = (unsigned)strtoul(argv[i] + 10, NULL, 10);
		else if (strncmp(argv[i], "--peer-commits=", 15) == 0)
			npeer_commits = (unsigned)strtoul(argv[i] + 15, NULL,
			    10);
		else if (strncmp(argv[i], "--commit-gap-ms=", 16) == 0)
			commit_gap_ms = strtol(argv[i] + 16, NULL, 10);
		else if (strcmp(argv[i], "--no-peer") == 0)
			use_peer = false;
		else if (strncmp(argv[i], "--big-commits=", 14) == 0) {
			char *e = argv[i] + 14;

			do {
				if (nbig == BIG_MAX)
					usage();
				big_n[nbig++] = strtoul(e, &e, 10);
			} while (*e++ == ',');
		} else
			usage();
	}
	if (quick) {
		nroutes = 10000;
		rounds = 1;
		ncommits = 10;
		npeer_commits = 2;
	}
	if (commit_gap_ms < 0)
		commit_gap_ms = nroutes >= 100000 ? 200 : 0;
	/* mgmt's loop blocks while it loads and while it stores a 1M-route
	 * config (1-2 s on a busy machine): with rtrmgr's default health
	 * checks (500 ms, 3 in a row) it is killed as hung during the boot
	 * load or a run of commits. Measured here is the config path, so the
	 * checks are made lenient, at the default interval (rtrmgr starts the
	 * next component after one): the output says so. */
	setenv("LIB_ROUTER_RTRMGR_EXTRA",
	    "health-interval 1s; "
	    "health-timeout 1s; health-failures 10;",
	    0);
	if (lc_build_bench_check("bench-config") != 0)
		return (2);
	if (nroutes == 0 || rounds == 0 || ncommits == 0 || npeer_commits == 0)
		usage();
	if (geteuid() != 0) {
		printf(
		    "bench-config: skipped: needs root (network namespaces)\n");
		return (0);
	}
	if (nbig > 0)
		use_peer = false; /* (not measured for big commits) */
	peer = use_peer && find_prog("bird", bird_bin, sizeof(bird_bin)) &&
	    find_prog("birdc", birdc_bin, sizeof(birdc_bin));
	if (br_init(&B, "bc") != 0) {
		perror("bench-config: setup");
		return (1);
	}
	for (unsigned k = 0; k < nbig; k++)
		if (big_n[k] == 0)
			usage();
		else if (k == 0 || big_n[k] > nroutes)
			nroutes = big_n[k];
	if (tt_prefixset_gen(&ps, nroutes, TT_PFX_SEED, 0) != 0 ||
	    (cur_nh = calloc(ps.n, sizeof(*cur_nh))) == NULL) {
		fprintf(stderr, "bench-config: prefix set of %zu\n", nroutes);
		return (1);
	}
	printf("bench-config: %zu static routes (the standard set, seed %#llx, "
	       "next hops 198.18.2.2-254), %u rounds alternating tern and %s\n",
	    ps.n, (unsigned long long)TT_PFX_SEED, rounds,
	    peer ? "BIRD 2" : "no peer");
	if (!peer)
		printf("# peer: none: %s\n",
		    nbig > 0	 ? "not measured for big commits" :
			use_peer ? "bird/birdc not found "
				   "(Debian bird2 is not in scripts/deps.sh)" :
				   "--no-peer");
	printf(
	    "# topology: client ns -- router ns (tern-fwd on veth, afpacket) "
	    "-- server ns (tests/lib/netns.sh); routes via the server subnet\n"
	    "# load: exec of tern-rtrmgr (boot config with the routes) until "
	    "tern-fwd's FIB holds them all (QUERY_FIB total, polled 20 ms)\n"
	    "# commit: `commit` of one route's changed next hop sent to mgmt "
	    "until fwd's FIB has it (exact QUERY_FIB polled 100 us); %u per "
	    "round, %ld ms apart (after the reply)\n# rtrmgr: %s (mgmt blocks "
	    "its loop while loading and storing 1M routes)\n",
	    ncommits, commit_gap_ms, getenv("LIB_ROUTER_RTRMGR_EXTRA"));
	if (peer)
		printf(
		    "# peer load: exec of bird -f until kernel table %d of a "
		    "fresh namespace holds them (netlink notifications)\n"
		    "# peer commit: config file with one line changed, exec of "
		    "birdc configure until the kernel notifies that route with "
		    "the new gateway; %u per round\n",
		    KTABLE, npeer_commits);
	if (br_lib(&B, "topo", false, NULL) != 0) {
		fprintf(stderr, "bench-config: topology failed\n");
		return (1);
	}
	if (measure_base() != 0) {
		fprintf(stderr, "bench-config: router did not start (see %s)\n",
		    B.dir);
		br_cleanup_me = NULL; /* keep the logs */
		br_lib(&B, "cleanup", true, NULL);
		return (1);
	}
	printf("# fwd holds %ld routes of its own (connected) besides the "
	       "statics\n",
	    fib_base);
	if (nbig > 0)
		return (big_main());
	{
		char p[PATH_MAX];

		conf_path(p, sizeof(p), "boot.conf");
		if (br_write_tern_conf(p, &ps, NULL) != 0)
			return (1);
	}
	load = calloc(rounds, sizeof(double));
	peer_load = calloc(rounds, sizeof(double));
	mgmt_up = calloc(rounds, sizeof(double));
	fwd_up = calloc(rounds, sizeof(double));
	p50 = calloc(rounds, sizeof(double));
	p99 = calloc(rounds, sizeof(double));
	rp50 = calloc(rounds, sizeof(double));
	pp50 = calloc(rounds, sizeof(double));
	pp99 = calloc(rounds, sizeof(double));
	prp50 = calloc(rounds, sizeof(double));
	ms = calloc(ncommits + npeer_commits, sizeof(double));
	rep = calloc(ncommits + npeer_commits, sizeof(double));
	tt_rng_seed(&rng, 42);
	tt_rng_seed(&prng, 42); /* the same routes changed in the same order */
	printf("\n%-6s %-6s %10s %12s %12s %12s\n", "round", "who", "load_s",
	    "commit_p50", "commit_p99", "reply_p50");
	for (unsigned r = 0; r < rounds; r++) {
		tt_rng_seed(&rng, 42 + r);
		if (ours_round(&rng, &load[ok], &mgmt_up[ok], &fwd_up[ok], ms,
			rep) != 0) {
			fprintf(stderr,
			    "bench-config: round %u of tern failed "
			    "(logs in %s/run)\n",
			    r, B.dir);
			br_cleanup_me = NULL;
			br_stop(&B);
			br_lib(&B, "cleanup", false, NULL);
			return (1);
		}
		p50[ok] = br_pct(ms, ncommits, 50);
		p99[ok] = br_pct(ms, ncommits, 99);
		rp50[ok] = br_pct(rep, ncommits, 50);
		printf("%-6u %-6s %10.2f %10.2fms %10.2fms %10.2fms\n", r,
		    "tern", load[ok], p50[ok], p99[ok], rp50[ok]);
		ok++;
		if (!peer)
			continue;
		tt_rng_seed(&prng, 42 + r);
		if (peer_round(&prng, &peer_load[pok], ms, rep) != 0) {
			fprintf(stderr,
			    "bench-config: round %u of BIRD failed\n", r);
			bird_stop();
			peer = false;
			continue;
		}
		pp50[pok] = br_pct(ms, npeer_commits, 50);
		pp99[pok] = br_pct(ms, npeer_commits, 99);
		prp50[pok] = br_pct(rep, npeer_commits, 50);
		printf("%-6u %-6s %10.2f %10.2fms %10.2fms %10.2fms\n", r,
		    "bird", peer_load[pok], pp50[pok], pp99[pok], prp50[pok]);
		pok++;
	}
	printf("\n%-24s %10s %21s %10s %21s\n", "figure (median)", "tern",
	    "min-max", pok ? "BIRD" : "(no peer)", pok ? "min-max" : "");
	row("load (s)", load, ok, peer_load, pok);
	row("  mgmt answers (s)", mgmt_up, ok, NULL, 0);
	row("  fwd answers (s)", fwd_up, ok, NULL, 0);
	row("commit p50 (ms)", p50, ok, pp50, pok);
	row("commit p99 (ms)", p99, ok, pp99, pok);
	row("commit reply p50 (ms)", rp50, ok, prp50, pok);
	printf("targets: one change committed to fwd <= 50 ms at 1M routes "
	       "(tern p99 %.2f ms: %s); load in seconds\n",
	    br_median(p99, ok), br_median(p99, ok) <= 50 ? "met" : "NOT met");
	printf("\n");
	const char *cl = quick ? "load_10k_quick" : "load_1M";
	const char *cc = quick ? "commit_one_change_10k_quick" :
				 "commit_one_change_1M";
	if (!quick && ps.n != TT_PFX_FULL) {
		cl = "load";
		cc = "commit_one_change";
	}
	snprintf(extra, sizeof(extra),
	    "\"routes\":%zu,\"mgmt_up_s\":%.3g,"
	    "\"fwd_up_s\":%.3g",
	    ps.n, br_median(mgmt_up, ok), br_median(fwd_up, ok));
	br_bench_line("config", cl, "load_s", "s", load, ok,
	    pok ? "bird2" : NULL, peer_load, pok, "lower", extra);
	snprintf(extra, sizeof(extra),
	    "\"routes\":%zu,\"commits\":%u,"
	    "\"peer_commits\":%u",
	    ps.n, ncommits, pok ? npeer_commits : 0);
	br_bench_line("config", cc, "p50_ms", "ms", p50, ok,
	    pok ? "bird2" : NULL, pp50, pok, "lower", extra);
	br_bench_line("config", cc, "p99_ms", "ms", p99, ok,
	    pok ? "bird2" : NULL, pp99, pok, "lower", extra);
	br_bench_line("config", cc, "reply_p50_ms", "ms", rp50, ok,
	    pok ? "bird2" : NULL, prp50, pok, "lower", extra);
	tt_prefixset_free(&ps);
	return (0);
}
