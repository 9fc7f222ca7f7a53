/* tests/bench/bench_bgp.c: bench-bgp (issue 21): the same BGP feeder (tests/bench/bgp_feeder.c) sends the standard 1M prefix set to tern (until tern-fwd's FIB holds it), BIRD 2 (until its table holds it; with kernel export until the kernel does) and FRR 8.4 (bgpd + zebra, until the kernel does), alternated; wall time, CPU of every receiver process, memory per path; 4 peers with sampled best paths; BIRD advertising 1M; churn latency; tern's restart. */
#include "bench_router.h"

#include <ctype.h>
#include <dirent.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ipc/proto/bgp.pb-c.h"
#include "tests/lib/bgpfeed.h"

/*
 * What is measured (said again in the output):
 * - Topology: tests/lib/netns.sh's client ns -- router ns -- server ns.
 *   The feeders run in the client ns (198.18.1.2, .3, ...), each one
 *   connecting to the receiver at 198.18.1.1 in the router ns: tern (the
 *   whole router under tern-rtrmgr: mgmt, rib, fwd on the veths with the
 *   afpacket backend, tern-bgp reached through fwd's host path), or the
 *   router ns's kernel owning the veths (198.18.1.1/24, 198.18.2.1/24) for
 *   BIRD and FRR. Receivers are passive; a feeder retries its connect.
 * - The clock starts at the feeder's first UPDATE write, right after the
 *   bench has read every receiver process's CPU and RSS (Established, the
 *   feeder waiting for SIGUSR1), and stops when the receiver holds all:
 *   tern: fwd's FIB total (QUERY_FIB on fwd's read-only socket, 20 ms
 *   polls) has every prefix; BIRD table: `show protocols all` (its control
 *   socket, 20 ms) counts every route imported; BIRD kernel and FRR: the
 *   router ns's kernel table (netlink notifications, checked by a dump)
 *   has every prefix. With several peers, when every path is in and the
 *   kernel (or rib) has been quiet and the receiver idle for a second: the
 *   time is that of the last change.
 * - CPU: utime + stime (+ reaped children) of every receiver process
 *   (/proc/PID/stat): tern-rtrmgr, -mgmt, -rib, -fwd, -bgp; bird; bgpd +
 *   zebra. The kernel's TCP and veth work is nobody's (softirq).
 * - Memory: RSS growth (/proc/PID/status VmRSS, at the end minus at the
 *   start) per path; tern's figure is tern-bgp's + tern-rib's growth, as
 *   the issue defines it (fwd's shown apart); VmHWM too.
 */

#define TERN_AS	     65001u
#define FEEDER_AS    65002u /* eBGP feeders: 65002 + index */
#define RECV_IP	     "198.18.1.1"
#define RECV_OUT_IP  "198.18.2.1"
#define OUT_PEER_IP  "198.18.2.2"
#define OUT_PEER_AS  65010u
#define FEEDER_IP(k) (0xc6120102u + (k)) /* 198.18.1.2 + k */
#define CHURN_IP(k)  (0xc61201c8u + (k)) /* 198.18.1.200 + k */
#define KTABLE_BIRD  100
#define RTPROT_BIRD_ 12
#define RTPROT_FRR   186 /* zebra's RTPROT_BGP */
#define MAXPEERS     4
#define MAXPROCS     16
#define NSAMPLES     200

enum recv {
	R_TERN,
	R_BIRD,	  /* table only */
	R_BIRD_K, /* with kernel export */
	R_FRR,	  /* bgpd + zebra to the kernel */
	R_COUNT
};
static const char *const recv_name[] = {"tern", "bird2_table", "bird2_kernel",
    "frr8_kernel"};
static const char *const recv_label[] = {"tern (rib->fwd)", "BIRD table",
    "BIRD kernel", "FRR kernel"};
/* the outbound case: the advertiser, in BIRD's column */
static const char *const out_name[] = {"tern", "bird2", "-", "-"};
static const char *const out_label[] = {"tern", "BIRD -> BIRD", "-", "-"};

static struct br B;
static size_t nprefix = TT_PFX_FULL;
static unsigned nsets, rounds = 3, churn_rate = 10000;
static double churn_s = 5, round_timeout = 300;
static bool quick, want_recv[R_COUNT] = {true, true, true, true};
static bool case_in1 = true, case_in4 = true, case_out = true,
	    case_churn = true, case_restart_on = true;
static bool verbose;		/* BENCH_BGP_VERBOSE=1: progress every second */
static const char *tern_import; /* eBGP with this import policy; else iBGP */
static char bird_bin[PATH_MAX], frr_dir[PATH_MAX], vtysh_bin[PATH_MAX],
    feeder_bin[PATH_MAX];
static bool have_bird, have_frr;
static char nsc[64], nsr[64], nss[64];

/* ---- processes ------------------------------------------------------------------------ */

static pid_t kids[64];
static unsigned nkids;

static void
kid_forget(pid_t p)
{
	for (unsigned i = 0; i < nkids; i++)
		if (kids[i] == p) {
			kids[i] = kids[--nkids];
			return;
		}
}

/* Runs argv in namespace ns (NULL: ours), output appended to log. */
static pid_t
spawn(const char *ns, const char *log, char *const argv[])
{
	pid_t p;

	fflush(stdout);
	fflush(stderr);
	if ((p = fork()) == 0) {
		char *av[64];
		unsigned n = 0;
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		if (ns != NULL) {
			av[n++] = (char *)"ip";
			av[n++] = (char *)"netns";
			av[n++] = (char *)"exec";
			av[n++] = (char *)ns;
		}
		for (unsigned i = 0; argv[i] != NULL && n < 63; i++)
			av[n++] = argv[i];
		av[n] = NULL;
		execvp(av[0], av);
		_exit(127);
	}
	if (p > 0 && nkids < 64)
		kids[nkids++] = p;
	return (p);
}

/* SIGTERM (or sig), then SIGKILL after grace_ms; reaped. */
static void
stop_pid(pid_t p, int sig, unsigned grace_ms)
{
	if (p <= 0)
		return;
	kill(p, sig);
	for (unsigned i = 0; i < grace_ms / 10; i++) {
		if (waitpid(p, NULL, WNOHANG) == p) {
			kid_forget(p);
			return;
		}
		usleep(10000);
	}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	kid_forget(p);
}

static bool
alive(pid_t p)
{
	return (p > 0 && waitpid(p, NULL, WNOHANG) == 0);
}

static bool keep_dir; /* a round failed: its logs stay */

static void
bench_cleanup(void)
{
	while (nkids > 0) {
		kill(kids[nkids - 1], SIGKILL);
		waitpid(kids[nkids - 1], NULL, 0);
		nkids--;
	}
	if (nsr[0] != '\0')
		(void)br_sh("ip -n %s route flush table %d >/dev/null 2>&1; "
			    "ip -n %s route flush proto %d >/dev/null 2>&1; "
			    "ip -n %s nexthop flush >/dev/null 2>&1",
		    nsr, KTABLE_BIRD, nsr, RTPROT_FRR, nsr);
	if (keep_dir && br_cleanup_me != NULL) {
		/* namespaces and processes go, the temp dir stays */
		br_clients_free(&B);
		(void)br_lib(&B, "cleanup", true, NULL);
		br_cleanup_me = NULL;
		fprintf(stderr, "bench-bgp: logs kept in %s\n", B.dir);
	}
}

static void
bench_on_signal(int sig)
{
	(void)sig;
	bench_cleanup();
	br_cleanup();
	_exit(130);
}

/* ---- /proc ------------------------------------------------------------------------------ */

struct procs {
	pid_t pid[MAXPROCS];
	char name[MAXPROCS][32];
	unsigned n;
};

struct psnap {
	double cpu[MAXPROCS];
	long rss[MAXPROCS], hwm[MAXPROCS]; /* kB */
};

static double
proc_cpu(pid_t p)
{
	char path[64], buf[2048], *s;
	unsigned long ut = 0, st = 0;
	long cut = 0, cst = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (s = strrchr(buf, ')')) != NULL)
		(void)sscanf(s + 2,
		    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %ld "
		    "%ld",
		    &ut, &st, &cut, &cst);
	fclose(f);
	return ((double)(ut + st + (unsigned long)cut + (unsigned long)cst) /
	    (double)sysconf(_SC_CLK_TCK));
}

static long
proc_kb(pid_t p, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return (v);
}

static void
procs_snap(const struct procs *ps, struct psnap *s)
{
	for (unsigned i = 0; i < ps->n; i++) {
		s->cpu[i] = proc_cpu(ps->pid[i]);
		s->rss[i] = proc_kb(ps->pid[i], "VmRSS");
		s->hwm[i] = proc_kb(ps->pid[i], "VmHWM");
	}
}

static double
snap_cpu(const struct procs *ps, const struct psnap *a, const struct psnap *b)
{
	double c = 0;

	for (unsigned i = 0; i < ps->n; i++)
		c += b->cpu[i] - a->cpu[i];
	return (c);
}

static void
procs_add(struct procs *ps, pid_t p, const char *name)
{
	if (ps->n == MAXPROCS || p <= 0)
		return;
	ps->pid[ps->n] = p;
	snprintf(ps->name[ps->n], sizeof(ps->name[0]), "%s", name);
	ps->n++;
}

static int
procs_find(const struct procs *ps, const char *name)
{
	for (unsigned i = 0; i < ps->n; i++)
		if (strcmp(ps->name[i], name) == 0)
			return ((int)i);
	return (-1);
}

/* tern's processes: every one whose command line names our rundir
 * (rtrmgr, and the components it started with --rundir). */
static void
tern_procs(struct procs *ps)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	ps->n = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX], buf[4096], comm[64];
		pid_t p = (pid_t)atoi(e->d_name);
		ssize_t n;
		bool mine = false;
		int fd;

		if (p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p);
		if ((fd = open(path, O_RDONLY)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
			if (strcmp(buf + i, B.rundir) == 0)
				mine = true;
		if (!mine)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
		comm[0] = '\0';
		if ((fd = open(path, O_RDONLY)) >= 0) {
			n = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			comm[n > 0 ? n : 0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
		}
		/* `ip netns exec ... setsid tern-rtrmgr`: only tern's */
		if (strncmp(comm, "tern-", 5) == 0)
			procs_add(ps, p, comm);
	}
	closedir(d);
}

/* ---- the feeders --------------------------------------------------------------------------- */

static bool feeder_reconnect; /* the restart case's feeders */

struct feeder {
	pid_t pid;
	char status[PATH_MAX], log[PATH_MAX], churn[PATH_MAX];
};

static bool
fstatus(const struct feeder *f, const char *key, char *val, size_t len)
{
	char line[512];
	size_t kl = strlen(key);
	bool found = false;
	FILE *s = fopen(f->status, "r");

	if (s == NULL)
		return (false);
	while (fgets(line, sizeof(line), s) != NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ' ') {
			snprintf(val, len, "%s", line + kl + 1);
			val[strcspn(val, "\n")] = '\0';
			found = true;
			break;
		}
	fclose(s);
	return (found);
}

static uint64_t
fstatus_u64(const struct feeder *f, const char *key)
{
	char v[64];

	return (fstatus(f, key, v, sizeof(v)) ? strtoull(v, NULL, 10) : 0);
}

/*
 * Feeder k of npeers in the client ns, connecting to the receiver: eBGP
 * from AS 65002 + k, or (tern's default) iBGP in AS 65001. Waits for
 * SIGUSR1 once Established. 0 or -1.
 */
static int
feeder_start(struct feeder *f, unsigned k, unsigned npeers, bool ibgp,
    const char *tag)
{
	char as[16], pas[16], cnt[24], sets[16], peers[16], idx[16], local[16],
	    cnh[16], rate[16];
	char *av[48];
	unsigned n = 0;

	snprintf(f->status, sizeof(f->status), "%s/feeder-%s-%u.status", B.dir,
	    tag, k);
	snprintf(f->log, sizeof(f->log), "%s/feeder-%s-%u.log", B.dir, tag, k);
	snprintf(f->churn, sizeof(f->churn), "%s/feeder-%s-%u.churn", B.dir,
	    tag, k);
	unlink(f->status);
	snprintf(as, sizeof(as), "%u", ibgp ? TERN_AS : FEEDER_AS + k);
	snprintf(pas, sizeof(pas), "%u", TERN_AS);
	snprintf(cnt, sizeof(cnt), "%zu", nprefix);
	snprintf(sets, sizeof(sets), "%u", nsets);
	snprintf(peers, sizeof(peers), "%u", npeers);
	snprintf(idx, sizeof(idx), "%u", k);
	snprintf(rate, sizeof(rate), "%u", churn_rate);
	br_ip(FEEDER_IP(k), local);
	br_ip(CHURN_IP(k), cnh);
	av[n++] = feeder_bin;
	av[n++] = (char *)"--connect";
	av[n++] = (char *)RECV_IP;
	av[n++] = (char *)"--local";
	av[n++] = local;
	av[n++] = (char *)"--as";
	av[n++] = as;
	av[n++] = (char *)"--peer-as";
	av[n++] = pas;
	av[n++] = (char *)"--count";
	av[n++] = cnt;
	av[n++] = (char *)"--sets";
	av[n++] = sets;
	av[n++] = (char *)"--peers";
	av[n++] = peers;
	av[n++] = (char *)"--index";
	av[n++] = idx;
	av[n++] = (char *)"--status";
	av[n++] = f->status;
	av[n++] = (char *)"--wait-go";
	av[n++] = (char *)"--connect-timeout";
	av[n++] = (char *)"90";
	av[n++] = (char *)"--churn";
	av[n++] = rate;
	av[n++] = (char *)"--churn-nexthop";
	av[n++] = cnh;
	av[n++] = (char *)"--churn-log";
	av[n++] = f->churn;
	if (feeder_reconnect)
		av[n++] = (char *)"--reconnect";
	av[n] = NULL;
	f->pid = spawn(nsc, f->log, av);
	return (f->pid > 0 ? 0 : -1);
}

/* Until every feeder is Established (0) or one failed / timeout (-1). */
static int
feeders_wait(struct feeder *f, unsigned n, double timeout_s)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(timeout_s * 1e9);
	char v[64];

	while (lc_time_mono_ns() < end) {
		unsigned up = 0;

		for (unsigned k = 0; k < n; k++) {
			if (!alive(f[k].pid)) {
				fprintf(stderr,
				    "bench-bgp: feeder %u exited (see %s)\n", k,
				    f[k].log);
				kid_forget(f[k].pid);
				f[k].pid = 0;
				return (-1);
			}
			if (fstatus(&f[k], "state", v, sizeof(v)) &&
			    strcmp(v, "established") == 0)
				up++;
		}
		if (up == n)
			return (0);
		usleep(20000);
	}
	fprintf(stderr, "bench-bgp: feeders not Established in %.0f s\n",
	    timeout_s);
	return (-1);
}

static void
feeders_signal(struct feeder *f, unsigned n, int sig)
{
	for (unsigned k = 0; k < n; k++)
		if (f[k].pid > 0)
			kill(f[k].pid, sig);
}

static void
feeders_stop(struct feeder *f, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		stop_pid(f[k].pid, SIGTERM, 2000);
		f[k].pid = 0;
	}
}

/* The earliest first UPDATE write of the feeders (the clock's start),
 * waiting for them to report it. */
static uint64_t
feeders_t_first(struct feeder *f, unsigned n)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < n; k++) {
		uint64_t tk = 0;

		for (int i = 0;
		     i < 200 && (tk = fstatus_u64(&f[k], "t_first")) == 0; i++)
			usleep(5000);
		if (tk != 0 && (t == 0 || tk < t))
			t = tk;
	}
	return (t);
}

/* ---- the reference: which feeder's path is best ----------------------------------------------- */

struct sample {
	uint32_t addr;
	uint8_t len;
	uint32_t want; /* next hop, host order */
	uint32_t got;
};

static struct tt_feed ref; /* the sets of the run's layout */
static struct sample samples[NSAMPLES];

static int
ref_init(unsigned npeers, bool ebgp)
{
	struct tt_feed_conf c = {.n = nprefix,
	    .seed = TT_PFX_SEED,
	    .nsets = nsets,
	    .attr_seed = TT_FEED_SEED,
	    .as = ebgp ? FEEDER_AS : TERN_AS,
	    .ebgp = ebgp,
	    .nexthop = FEEDER_IP(0),
	    .peers = npeers,
	    .index = 0};
	struct tt_rng r;

	tt_feed_fini(&ref);
	if (tt_feed_init(&ref, &c) != 0)
		return (-1);
	tt_rng_seed(&r, 4242);
	for (unsigned i = 0; i < NSAMPLES; i++) {
		size_t p = tt_rng_below(&r, ref.ps.n);
		bool dup = false;

		/* distinct prefixes: a dump fills one entry a prefix */
		for (unsigned j = 0; j < i && ref.ps.n > NSAMPLES; j++)
			dup |= samples[j].addr == ref.ps.p[p].addr &&
			    samples[j].len == ref.ps.p[p].len;
		if (dup) {
			i--;
			continue;
		}
		samples[i].addr = ref.ps.p[p].addr;
		samples[i].len = ref.ps.p[p].len;
		samples[i].want = FEEDER_IP(tt_feed_best(&ref, ref.set_of[p]));
		samples[i].got = 0;
	}
	return (0);
}

static int
sample_cmp(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr < y->addr ? -1 : 1);
	return ((int)x->len - (int)y->len);
}

static unsigned
samples_right(void)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < NSAMPLES; i++)
		ok += samples[i].got == samples[i].want;
	return (ok);
}

static void
samples_report(const char *who)
{
	unsigned ok = samples_right();
	char a[16], w[16], g[16];

	printf("#   %s best paths: %u of %u sampled prefixes right\n", who, ok,
	    NSAMPLES);
	for (unsigned i = 0, shown = 0; i < NSAMPLES && shown < 3; i++)
		if (samples[i].got != samples[i].want) {
			printf("#     %s/%u: via %s, expected %s\n",
			    br_ip(samples[i].addr, a), samples[i].len,
			    br_ip(samples[i].got, g),
			    br_ip(samples[i].want, w));
			shown++;
		}
}

/* ---- netlink in the router ns ---------------------------------------------------------------------- */

static int nl_mon = -1;
static long nl_count;	   /* routes of the watched table by notifications */
static bool nl_overrun;	   /* notifications lost: count by dumps */
static uint64_t nl_t_last; /* the last change seen */
static unsigned nl_table, nl_proto;
static uint64_t nl_t_dump; /* nl_routes' last dump, and its count */
static long nl_dumped;

/* Kernel nexthop objects (zebra installs routes with RTA_NH_ID): id ->
 * gateway, learnt from RTM_NEWNEXTHOP notifications and dumps. */
static struct {
	uint32_t id, gw;
} nh_map[4096];
static unsigned nh_n;

static void
nh_learn(struct nlmsghdr *h)
{
	struct nhmsg *nm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*nm));
	uint32_t id = 0, gw = 0;

	for (struct rtattr *a =
		 (struct rtattr *)((char *)nm + NLMSG_ALIGN(sizeof(*nm)));
	     RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == NHA_ID)
			id = *(uint32_t *)RTA_DATA(a);
		else if (a->rta_type == NHA_GATEWAY && nm->nh_family == AF_INET)
			gw = ntohl(*(uint32_t *)RTA_DATA(a));
	}
	if (id == 0)
		return;
	for (unsigned i = 0; i < nh_n; i++)
		if (nh_map[i].id == id) {
			nh_map[i].gw = gw;
			return;
		}
	if (nh_n < sizeof(nh_map) / sizeof(nh_map[0])) {
		nh_map[nh_n].id = id;
		nh_map[nh_n++].gw = gw;
	}
}

static uint32_t
nh_gw(uint32_t id)
{
	for (unsigned i = 0; i < nh_n; i++)
		if (nh_map[i].id == id)
			return (nh_map[i].gw);
	return (0);
}

/* A netlink socket in the router ns: subscribed to IPv4 route and
 * nexthop notifications (groups != 0), or for dumps (0). */
static int
nl_open(unsigned groups)
{
	int self, s, sz = 512 << 20;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = groups};

	if ((self = tt_netns_enter(nsr)) < 0)
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
	if (s >= 0 && groups != 0) {
		int g = RTNLGRP_NEXTHOP; /* > 31: not in nl_groups */

		(void)setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
		    sizeof(g));
	}
	if (tt_netns_leave(self) != 0) {
		perror("bench-bgp: setns back");
		exit(1);
	}
	return (s);
}

/* table, protocol, destination and gateway of a route message */
static bool
nl_route(struct nlmsghdr *h, uint32_t *dst, unsigned *dlen, uint32_t *gw)
{
	struct rtmsg *rt = NLMSG_DATA(h);
	int len = (int)RTM_PAYLOAD(h);
	unsigned table = rt->rtm_table;

	if (rt->rtm_family != AF_INET)
		return (false);
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
		else if (a->rta_type == RTA_NH_ID && *gw == 0)
			*gw = nh_gw(*(uint32_t *)RTA_DATA(a));
		else if (a->rta_type == RTA_MULTIPATH) {
			struct rtnexthop *nh = RTA_DATA(a);
			int ml = (int)RTA_PAYLOAD(a) - (int)sizeof(*nh);
			struct rtattr *na = RTNH_DATA(nh);

			/* the first path's gateway */
			for (; RTA_OK(na, ml); na = RTA_NEXT(na, ml))
				if (na->rta_type == RTA_GATEWAY)
					*gw = ntohl(*(uint32_t *)RTA_DATA(na));
		}
	}
	return (table == nl_table && rt->rtm_protocol == nl_proto);
}

/* The watch of a churn entry: notified prefix with its gateway. */
typedef void (
    *nl_seen_fn)(uint32_t dst, unsigned len, uint32_t gw, uint64_t now);

static void
nl_drain(nl_seen_fn seen)
{
	static char buf[1 << 20];
	ssize_t n;

	while ((n = recv(nl_mon, buf, sizeof(buf), 0)) > 0 ||
	    (n < 0 && errno == ENOBUFS)) {
		uint64_t now = lc_time_mono_ns();

		if (n < 0) {
			nl_overrun = true;
			continue;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			uint32_t dst, gw;
			unsigned dlen;

			if (h->nlmsg_type == RTM_NEWNEXTHOP) {
				nh_learn(h);
				continue;
			}
			if (h->nlmsg_type != RTM_NEWROUTE &&
			    h->nlmsg_type != RTM_DELROUTE)
				continue;
			if (!nl_route(h, &dst, &dlen, &gw))
				continue;
			nl_t_last = now;
			if (h->nlmsg_type == RTM_DELROUTE)
				nl_count--;
			else if (!(h->nlmsg_flags & NLM_F_REPLACE))
				nl_count++;
			if (seen != NULL && h->nlmsg_type == RTM_NEWROUTE)
				seen(dst, dlen, gw, now);
		}
	}
}

/* Dumps type (RTM_GETNEXTHOP, RTM_GETROUTE) on s, calling fn for each
 * message. 0 at its end, -1 on error. */
static int
nl_dump_msgs(int s, unsigned type, void (*fn)(struct nlmsghdr *, void *),
    void *arg)
{
	static char buf[1 << 20];
	struct {
		struct nlmsghdr h;
		struct rtmsg r; /* an nhmsg is no longer */
	} req = {.h = {.nlmsg_len = sizeof(req),
		     .nlmsg_type = (uint16_t)type,
		     .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		     .nlmsg_seq = type}};

	req.r.rtm_family = AF_INET;
	if (send(s, &req, sizeof(req), 0) < 0)
		return (-1);
	for (;;) {
		struct pollfd pf = {.fd = s, .events = POLLIN};
		ssize_t n;

		if (poll(&pf, 1, 10000) <= 0)
			return (-1);
		if ((n = recv(s, buf, sizeof(buf), 0)) <= 0)
			return (-1);
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return (0);
			if (h->nlmsg_type == NLMSG_ERROR)
				return (-1);
			fn(h, arg);
		}
	}
}

static void
dump_nh(struct nlmsghdr *h, void *arg)
{
	(void)arg;
	if (h->nlmsg_type == RTM_NEWNEXTHOP)
		nh_learn(h);
}

struct dump_acc {
	long count;
	bool with_samples;
};

static void
dump_route(struct nlmsghdr *h, void *arg)
{
	struct dump_acc *d = arg;
	struct sample k, *hit;
	uint32_t dst, gw;
	unsigned dlen;

	if (h->nlmsg_type != RTM_NEWROUTE || !nl_route(h, &dst, &dlen, &gw))
		return;
	d->count++;
	if (!d->with_samples)
		return;
	k.addr = dst;
	k.len = (uint8_t)dlen;
	if ((hit = bsearch(&k, samples, NSAMPLES, sizeof(samples[0]),
		 sample_cmp)) != NULL)
		hit->got = gw;
}

/* Routes of the watched table by a dump; the gateways of the samples
 * (sorted) when with_samples. -1 on error. */
static long
nl_dump(bool with_samples)
{
	struct dump_acc d = {0, with_samples};
	int s = nl_open(0), rv;

	if (s < 0)
		return (-1);
	/* a kernel without nexthop objects refuses the dump: no matter */
	(void)nl_dump_msgs(s, RTM_GETNEXTHOP, dump_nh, NULL);
	rv = nl_dump_msgs(s, RTM_GETROUTE, dump_route, &d);
	close(s);
	return (rv == 0 ? d.count : -1);
}

static int
nl_watch(unsigned table, unsigned proto)
{
	if (nl_mon >= 0)
		close(nl_mon);
	nl_table = table;
	nl_proto = proto;
	nl_count = 0;
	nl_overrun = false;
	nl_t_last = 0;
	nl_t_dump = 0;
	nl_dumped = 0;
	nh_n = 0;
	return ((nl_mon = nl_open(RTMGRP_IPV4_ROUTE)) >= 0 ? 0 : -1);
}

static void
nl_unwatch(void)
{
	if (nl_mon >= 0)
		close(nl_mon);
	nl_mon = -1;
}

/* Kernel routes of the watched table now: notifications, or dumps once
 * they overran (at most every 500 ms). */
static long
nl_routes(void)
{
	nl_drain(NULL);
	if (!nl_overrun)
		return (nl_count);
	if (lc_time_mono_ns() - nl_t_dump > 500000000ull) {
		nl_dumped = nl_dump(false);
		nl_t_dump = lc_time_mono_ns();
	}
	return (nl_dumped);
}

/* ---- BIRD ----------------------------------------------------------------------------------------- */

/* One command on BIRD's control socket; the reply's text (the CLI's
 * codes stripped) into out. 0 when it ends with code 0xxx. */
static int
bird_cmd(const char *sock, const char *cmd, char *out, size_t outlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char buf[65536];
	size_t len = 0, olen = 0;
	int s, rv = -1;
	bool greeted = false;
	uint64_t end = lc_time_mono_ns() + 5000000000ull;

	if (out != NULL && outlen > 0)
		out[0] = '\0';
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return (-1);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(s);
		return (-1);
	}
	while (lc_time_mono_ns() < end) {
		struct pollfd pf = {.fd = s, .events = POLLIN};
		char *nl;
		ssize_t n;

		if (poll(&pf, 1, 1000) <= 0)
			continue;
		if ((n = read(s, buf + len, sizeof(buf) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			size_t ll = (size_t)(nl - buf) + 1;
			bool final = ll >= 5 &&
			    isdigit((unsigned char)buf[0]) && buf[4] == ' ';
			const char *text = buf[0] == ' ' ? buf + 1 :
			    ll >= 5			 ? buf + 5 :
							   buf;

			*nl = '\0';
			if (greeted && out != NULL && olen + 1 < outlen)
				olen += (size_t)snprintf(out + olen,
				    outlen - olen, "%s\n", text);
			if (olen >= outlen)
				olen = outlen - 1;
			if (final && !greeted) {
				greeted = true;
				if (write(s, cmd, strlen(cmd)) < 0 ||
				    write(s, "\n", 1) != 1)
					goto out;
			} else if (final) {
				rv = buf[0] == '0' ? 0 : -1;
				goto out;
			}
			memmove(buf, buf + ll, len - ll);
			len -= ll;
		}
		if (len == sizeof(buf) - 1)
			len = 0; /* a line too long to keep: dropped */
	}
out:
	close(s);
	return (rv);
}

/* Routes imported by BGP protocols (sum of their channels' "Routes: N
 * imported"); -1 if BIRD did not answer. */
static long
bird_imported(const char *ctl, const char *proto_prefix)
{
	static char out[1 << 16];
	long sum = 0;
	bool in_bgp = false;

	if (bird_cmd(ctl, "show protocols all", out, sizeof(out)) != 0)
		return (-1);
	for (char *l = strtok(out, "\n"); l != NULL; l = strtok(NULL, "\n")) {
		char *r;

		if (l[0] != ' ' && l[0] != '\t')
			in_bgp = strncmp(l, proto_prefix,
				     strlen(proto_prefix)) == 0;
		if (in_bgp && (r = strstr(l, "Routes:")) != NULL)
			sum += strtol(r + 7, NULL, 10);
	}
	return (sum);
}

/* The BGP protocol's state ("Established"...) into st. */
static int
bird_state(const char *ctl, const char *proto, char *st, size_t len)
{
	char cmd[128], out[4096];

	snprintf(cmd, sizeof(cmd), "show protocols %s", proto);
	if (bird_cmd(ctl, cmd, out, sizeof(out)) != 0)
		return (-1);
	st[0] = '\0';
	for (char *l = strtok(out, "\n"); l != NULL; l = strtok(NULL, "\n"))
		if (strncmp(l, proto, strlen(proto)) == 0 &&
		    l[strlen(proto)] == ' ') {
			char w[6][64];

			if (sscanf(l, "%63s %63s %63s %63s %63s %63s", w[0],
				w[1], w[2], w[3], w[4], w[5]) == 6)
				snprintf(st, len, "%s", w[5]);
		}
	return (0);
}

/* The best route's next hop of each sample from `show route P primary`. */
static void
bird_samples(const char *ctl)
{
	char cmd[128], out[4096], a[16], *v;

	for (unsigned i = 0; i < NSAMPLES; i++) {
		snprintf(cmd, sizeof(cmd), "show route %s/%u primary",
		    br_ip(samples[i].addr, a), samples[i].len);
		samples[i].got = 0;
		if (bird_cmd(ctl, cmd, out, sizeof(out)) == 0 &&
		    (v = strstr(out, "via ")) != NULL) {
			struct in_addr ia;
			char ip[32];

			if (sscanf(v + 4, "%31[0-9.]", ip) == 1 &&
			    inet_pton(AF_INET, ip, &ia) == 1)
				samples[i].got = ntohl(ia.s_addr);
		}
	}
}

static pid_t
bird_start(const char *tag, const char *ns, const char *conf, char *ctl,
    size_t ctllen)
{
	char log[PATH_MAX];
	char *av[] = {bird_bin, (char *)"-f", (char *)"-c", (char *)conf,
	    (char *)"-s", ctl, NULL};
	pid_t p;

	snprintf(ctl, ctllen, "%s/bird-%s.ctl", B.dir, tag);
	snprintf(log, sizeof(log), "%s/bird-%s.out", B.dir, tag);
	unlink(ctl);
	p = spawn(ns, log, av);
	for (int i = 0; i < 500; i++) {
		if (!alive(p)) {
			fprintf(stderr, "bench-bgp: bird exited (see %s)\n",
			    log);
			kid_forget(p);
			return (0);
		}
		if (bird_cmd(ctl, "show status", NULL, 0) == 0)
			return (p);
		usleep(10000);
	}
	stop_pid(p, SIGKILL, 0);
	return (0);
}

/* BIRD in the router ns: npeers passive eBGP sessions f0.. with the
 * feeders; with kernel export to table KTABLE_BIRD; out: a session to the
 * BIRD in the server ns, disabled until enabled. */
static int
bird_conf(const char *path, unsigned npeers, bool kernel, bool out)
{
	FILE *f = fopen(path, "w");
	char a[16];

	if (f == NULL)
		return (-1);
	fprintf(f,
	    "# bench-bgp receiver: %u feeder(s)%s%s\n"
	    "log \"%s/bird.log\" { warning, error, fatal, bug };\n"
	    "router id %s;\n"
	    "protocol device { scan time 10; }\n",
	    npeers, kernel ? ", kernel export" : "", out ? ", advertising" : "",
	    B.dir, RECV_IP);
	if (kernel)
		fprintf(f,
		    "protocol kernel {\n\tipv4 { import none; export all; };\n"
		    "\tkernel table %d;\n\tlearn off;\n\tscan time 3600;\n}\n",
		    KTABLE_BIRD);
	for (unsigned k = 0; k < npeers; k++)
		fprintf(f,
		    "protocol bgp f%u {\n\tlocal %s as %u;\n"
		    "\tneighbor %s as %u;\n\tpassive on;\n\thold time 90;\n"
		    "\tipv4 { import all; export none; };\n}\n",
		    k, RECV_IP, TERN_AS, br_ip(FEEDER_IP(k), a), FEEDER_AS + k);
	if (out)
		fprintf(f,
		    "protocol bgp adv {\n\tdisabled;\n\tlocal %s as %u;\n"
		    "\tneighbor %s as %u;\n\thold time 90;\n"
		    "\tconnect delay time 1;\n"
		    "\tipv4 { import none; export all; };\n}\n",
		    RECV_OUT_IP, TERN_AS, OUT_PEER_IP, OUT_PEER_AS);
	return (fclose(f));
}

/* The router ns's kernel owns the veths (BIRD's and FRR's rounds). */
static int
router_kernel(bool on)
{
	if (on)
		return (br_sh("ip -n %s addr flush dev rc0; "
			      "ip -n %s addr flush dev rs0; "
			      "ip -n %s addr add %s/24 dev rc0 && "
			      "ip -n %s addr add %s/24 dev rs0",
		    nsr, nsr, nsr, RECV_IP, nsr, RECV_OUT_IP));
	/* zebra's nexthop objects too: a later zebra that finds them
	 * installs no route (its ids are taken) */
	return (
	    br_sh("ip -n %s route flush table %d >/dev/null 2>&1; "
		  "ip -n %s route flush proto %d >/dev/null 2>&1; "
		  "ip -n %s nexthop flush >/dev/null 2>&1; "
		  "ip -n %s addr flush dev rc0; ip -n %s addr flush dev rs0; "
		  "ip -n %s neigh flush dev eth0 2>/dev/null; true",
		nsr, KTABLE_BIRD, nsr, RTPROT_FRR, nsr, nsr, nsr, nsc));
}

/* ---- FRR -------------------------------------------------------------------------------------------- */

static char frr_vty[PATH_MAX]; /* the vty sockets' directory */

/* `vtysh -c CMD` against our daemons; output into out. 0 or -1. */
static int
vtysh(const char *cmd, char *out, size_t len)
{
	char line[PATH_MAX + 256];
	size_t o = 0;
	FILE *p;
	int st;

	snprintf(line, sizeof(line),
	    "timeout 10 '%s' --vty_socket '%s' -d bgpd -c '%s' 2>/dev/null",
	    vtysh_bin, frr_vty, cmd);
	if ((p = popen(line, "r")) == NULL)
		return (-1);
	while (o + 1 < len && fgets(out + o, (int)(len - o), p) != NULL)
		o += strlen(out + o);
	out[o] = '\0';
	st = pclose(p);
	return (WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1);
}

/* The sum of bgpd's pfxRcd over its neighbours; -1 if it did not answer. */
static long
frr_received(void)
{
	static char out[1 << 16];
	long sum = 0;
	char *p = out;

	if (vtysh("show bgp ipv4 unicast summary json", out, sizeof(out)) != 0)
		return (-1);
	while ((p = strstr(p, "\"pfxRcd\":")) != NULL) {
		p += 9;
		sum += strtol(p, NULL, 10);
	}
	return (sum);
}

static int
frr_conf(const char *dir, unsigned npeers)
{
	char path[PATH_MAX], a[16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/zebra.conf", dir);
	if ((f = fopen(path, "w")) == NULL)
		return (-1);
	fprintf(f, "hostname bench-zebra\nlog file %s/zebra.log warnings\n",
	    dir);
	if (fclose(f) != 0)
		return (-1);
	snprintf(path, sizeof(path), "%s/bgpd.conf", dir);
	if ((f = fopen(path, "w")) == NULL)
		return (-1);
	fprintf(f,
	    "hostname bench-bgpd\nlog file %s/bgpd.log warnings\n"
	    "router bgp %u\n bgp router-id %s\n no bgp ebgp-requires-policy\n"
	    " no bgp network import-check\n",
	    dir, TERN_AS, RECV_IP);
	for (unsigned k = 0; k < npeers; k++) {
		br_ip(FEEDER_IP(k), a);
		fprintf(f,
		    " neighbor %s remote-as %u\n neighbor %s passive\n"
		    " neighbor %s timers 30 90\n",
		    a, FEEDER_AS + k, a, a);
	}
	fprintf(f, " address-family ipv4 unicast\n");
	for (unsigned k = 0; k < npeers; k++)
		fprintf(f, "  neighbor %s activate\n", br_ip(FEEDER_IP(k), a));
	fprintf(f, " exit-address-family\n");
	return (fclose(f));
}

static pid_t frr_zebra, frr_bgpd;

static void
frr_stop(void)
{
	/* SIGKILL: zebra would take 1M routes out one by one on SIGTERM;
	 * the kernel table is flushed instead */
	stop_pid(frr_bgpd, SIGKILL, 0);
	stop_pid(frr_zebra, SIGKILL, 0);
	frr_bgpd = frr_zebra = 0;
}

static int
frr_start(unsigned npeers)
{
	char dir[PATH_MAX], zconf[PATH_MAX + 16], bconf[PATH_MAX + 16],
	    zpid[PATH_MAX + 16], bpid[PATH_MAX + 16], zsock[PATH_MAX + 16],
	    log[PATH_MAX + 16], zb[PATH_MAX], bb[PATH_MAX], vs[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/frr", B.dir);
	(void)br_sh("rm -rf '%s'; mkdir -p '%s'; chmod 777 '%s'", dir, dir,
	    dir);
	if (frr_conf(dir, npeers) != 0)
		return (-1);
	snprintf(frr_vty, sizeof(frr_vty), "%s", dir);
	snprintf(zconf, sizeof(zconf), "%s/zebra.conf", dir);
	snprintf(bconf, sizeof(bconf), "%s/bgpd.conf", dir);
	snprintf(zpid, sizeof(zpid), "%s/zebra.pid", dir);
	snprintf(bpid, sizeof(bpid), "%s/bgpd.pid", dir);
	snprintf(zsock, sizeof(zsock), "%s/zserv.api", dir);
	snprintf(vs, sizeof(vs), "%s", dir);
	snprintf(zb, sizeof(zb), "%s/zebra", frr_dir);
	snprintf(bb, sizeof(bb), "%s/bgpd", frr_dir);
	snprintf(log, sizeof(log), "%s/frr.out", dir);
	{
		/* a netlink receive buffer that holds a full table's
		 * notifications (FRR's docs suggest -s for large tables) */
		char *av[] = {zb, (char *)"-f", zconf, (char *)"-i", zpid,
		    (char *)"-z", zsock, (char *)"--vty_socket", vs,
		    (char *)"-P", (char *)"0", (char *)"-s",
		    (char *)"268435456", NULL};

		frr_zebra = spawn(nsr, log, av);
	}
	for (int i = 0; i < 500 && access(zsock, F_OK) != 0; i++) {
		if (!alive(frr_zebra)) {
			fprintf(stderr, "bench-bgp: zebra exited (see %s)\n",
			    log);
			kid_forget(frr_zebra);
			frr_zebra = 0;
			return (-1);
		}
		usleep(10000);
	}
	{
		char *av[] = {bb, (char *)"-f", bconf, (char *)"-i", bpid,
		    (char *)"-z", zsock, (char *)"--vty_socket", vs,
		    (char *)"-P", (char *)"0", (char *)"-p", (char *)"179",
		    NULL};

		frr_bgpd = spawn(nsr, log, av);
	}
	for (int i = 0; i < 500; i++) {
		char out[256];

		if (!alive(frr_bgpd)) {
			fprintf(stderr, "bench-bgp: bgpd exited (see %s)\n",
			    log);
			kid_forget(frr_bgpd);
			frr_bgpd = 0;
			frr_stop();
			return (-1);
		}
		if (vtysh("show bgp ipv4 unicast summary json", out,
			sizeof(out)) == 0)
			return (0);
		usleep(20000);
	}
	fprintf(stderr, "bench-bgp: bgpd does not answer vtysh (see %s)\n",
	    log);
	frr_stop();
	return (-1);
}

/* ---- tern ---------------------------------------------------------------------------------------------- */

static struct ipc_client *bgpc;
static long fib_base; /* fwd's routes besides BGP's */

/* tern's boot config; out: also the outbound case's receiver (passive,
 * eBGP, everything exported) */
static bool tern_out;

static int
tern_conf(const char *path, unsigned npeers)
{
	FILE *f = fopen(path, "w");
	char a[16];

	if (f == NULL)
		return (-1);
	fprintf(f,
	    "/* bench-bgp: %u feeder(s), %s */\n"
	    "system { host-name tern-bench; log-level notice; }\n"
	    "interfaces {\n"
	    "    client { device rc0; address %s/24; }\n"
	    "    server { device rs0; address %s/24; }\n"
	    "}\nprotocols {\n    bgp {\n        local-as %u;\n",
	    npeers, tern_import ? "eBGP with an import policy" : "iBGP",
	    RECV_IP, RECV_OUT_IP, TERN_AS);
	for (unsigned k = 0; k < npeers; k++) {
		fprintf(f, "        neighbor %s {\n", br_ip(FEEDER_IP(k), a));
		fprintf(f, "            remote-as %u;\n            passive;\n",
		    tern_import ? FEEDER_AS + k : TERN_AS);
		if (tern_import != NULL)
			fprintf(f, "            import %s;\n", tern_import);
		fprintf(f, "        }\n");
	}
	if (tern_out)
		fprintf(f,
		    "        neighbor %s {\n            remote-as %u;\n"
		    "            passive;\n            export ALL;\n"
		    "        }\n",
		    OUT_PEER_IP, OUT_PEER_AS);
	fprintf(f, "    }\n}\n");
	if (tern_out)
		fprintf(f,
		    "policy-options {\n    policy-statement ALL {\n"
		    "        then accept;\n    }\n}\n");
	if (fclose(f) != 0)
		return (-1);
	return (chmod(path, 0644));
}

struct tern_nb {
	uint64_t rcvd, acc, paths, best;
	unsigned est;
};

static int
tern_neighbors(struct tern_nb *t)
{
	Bgp__NeighborQuery q = BGP__NEIGHBOR_QUERY__INIT;
	ProtobufCMessage *rep;
	int rv = -1;

	memset(t, 0, sizeof(*t));
	if (bgpc == NULL && (bgpc = br_client(&B, &ipc_svc_bgp, true)) == NULL)
		return (-1);
	if (ipc_call_wait(bgpc, BGP__METHOD__QUERY_NEIGHBORS, &q.base, 2000,
		B.ar, &rep, &B.err) == IPC_OK) {
		const Bgp__NeighborList *l = (const Bgp__NeighborList *)rep;

		for (size_t i = 0; i < l->n_neighbors; i++) {
			t->rcvd += l->neighbors[i]->prefixes_received;
			t->acc += l->neighbors[i]->prefixes_accepted;
			t->est += l->neighbors[i]->state ==
			    BGP__STATE__ESTABLISHED;
		}
		t->paths = l->paths;
		t->best = l->best;
		rv = 0;
	}
	lc_arena_reset(B.ar);
	return (rv);
}

/* rib's source "bgp": its routes (-1: no such source) and, if fs is not
 * NULL, rib's FIB status. */
static long
tern_rib_bgp(Rib__FibStatus *fs)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep;
	long routes = -1;

	if (ipc_call_wait(B.rib, RIB__METHOD__SOURCES, &e.base, 2000, B.ar,
		&rep, &B.err) == IPC_OK) {
		const Rib__SourceList *l = (const Rib__SourceList *)rep;

		for (size_t i = 0; i < l->n_sources; i++)
			if (l->sources[i]->source_name != NULL &&
			    strcmp(l->sources[i]->source_name, "bgp") == 0)
				routes = l->sources[i]->routes;
	}
	lc_arena_reset(B.ar);
	if (fs != NULL &&
	    ipc_call_wait(B.rib, RIB__METHOD__FIB_STATUS, &e.base, 2000, B.ar,
		&rep, &B.err) == IPC_OK) {
		const Rib__FibStatus *s = (const Rib__FibStatus *)rep;

		*fs = *s;
		lc_arena_reset(B.ar);
	}
	return (routes);
}

static void
tern_stop(void)
{
	ipc_client_free(bgpc);
	bgpc = NULL;
	br_stop(&B);
	/* what a kill -9 would have left: fwd's TAPs and its tc filters */
	(void)br_sh("ip -n %s link del h-rc0 2>/dev/null; "
		    "ip -n %s link del h-rs0 2>/dev/null; "
		    "tc -n %s qdisc del dev rc0 clsact 2>/dev/null; "
		    "tc -n %s qdisc del dev rs0 clsact 2>/dev/null; true",
	    nsr, nsr, nsr, nsr);
}

static int
tern_start(unsigned npeers)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/state/boot.conf", B.dir);
	if (tern_conf(p, npeers) != 0)
		return (-1);
	br_sh("rm -rf '%s/state/config'", B.dir);
	return (br_start(&B));
}

/* ---- one measurement ----------------------------------------------------------------------------------- */

struct result {
	bool ok;      /* measured */
	bool not_yet; /* tern: not measurable yet (why) */
	char why[256];
	double wall_s;	  /* first UPDATE to all held */
	double cpu_s;	  /* every receiver process */
	double bpp;	  /* bytes per path (RSS growth) */
	double hwm_mb;	  /* the receiver's peak RSS, MB */
	double mid_s;	  /* tern: Adj-RIB-In complete; FRR: bgpd has all */
	uint64_t t_mid;	  /* when (the clock's start is known later) */
	double mid_cpu_s; /* tern-bgp's CPU until then */
	double mid_bpp;	  /* tern-bgp's RSS growth per path then */
	double fwd_bpp;	  /* tern: fwd's growth */
	double feeder_cpu_s;
	unsigned right; /* sampled best paths right */
	double churn_p50, churn_p99;
	unsigned churn_n;
	double out_s, out99_s, out_cpu_s, out_recv_cpu_s;
};

static double
secs(uint64_t a, uint64_t b)
{
	return ((double)(b - a) / 1e9);
}

/* ---- churn latency --------------------------------------------------------------------------------------- */

/*
 * The feeder's churn log (one line per UPDATE: send time, prefix, next
 * hop) is matched against what the receiver shows. For kernel receivers
 * every change is matched with the kernel's notification of that prefix
 * with that gateway: entries of the log not yet seen wait in sent_tab, and
 * notifications whose log line the bench has not read yet wait in seen_tab
 * (the line is written before the UPDATE, but the bench may read the
 * notification first). Open addressing by prefix; the latest of a prefix
 * wins.
 */
#define CH_SLOTS 65536
struct ch_ent {
	uint32_t addr;
	uint8_t len, used;
	uint32_t nh;
	uint64_t t;
};
static struct ch_ent sent_tab[CH_SLOTS], seen_tab[CH_SLOTS];
static double *ch_lat;
static size_t ch_n, ch_cap, ch_lines;

static unsigned
ch_slot(const struct ch_ent *tab, uint32_t addr, unsigned len)
{
	uint32_t h = (addr * 2654435761u) ^ (len * 40503u);
	unsigned i = (h ^ h >> 16) & (CH_SLOTS - 1);

	while (tab[i].used && !(tab[i].addr == addr && tab[i].len == len))
		i = (i + 1) & (CH_SLOTS - 1);
	return (i);
}

static void
ch_put(struct ch_ent *tab, const struct ch_ent *e)
{
	tab[ch_slot(tab, e->addr, e->len)] = *e;
}

/* Removes slot i, re-packing the run after it (linear probing). */
static void
ch_del(struct ch_ent *tab, unsigned i)
{
	tab[i].used = 0;
	for (unsigned j = (i + 1) & (CH_SLOTS - 1); tab[j].used;
	     j = (j + 1) & (CH_SLOTS - 1)) {
		struct ch_ent e = tab[j];

		tab[j].used = 0;
		ch_put(tab, &e);
	}
}

static void
ch_record(uint64_t t_sent, uint64_t t_seen)
{
	if (ch_n == ch_cap) {
		double *n;

		ch_cap = ch_cap ? 2 * ch_cap : 65536;
		if ((n = realloc(ch_lat, ch_cap * sizeof(*ch_lat))) == NULL)
			return;
		ch_lat = n;
	}
	ch_lat[ch_n++] = (double)(t_seen - t_sent) / 1e6;
}

static void
ch_seen(uint32_t dst, unsigned len, uint32_t gw, uint64_t now)
{
	unsigned i = ch_slot(sent_tab, dst, len);
	struct ch_ent e = {dst, (uint8_t)len, 1, gw, now};

	if (sent_tab[i].used && sent_tab[i].nh == gw) {
		ch_record(sent_tab[i].t, now);
		ch_del(sent_tab, i);
	} else if (gw != 0)
		ch_put(seen_tab, &e);
}

/* One line of the log; kernel: matched or kept. */
static void
ch_line(const char *line, struct ch_ent *last, bool kernel)
{
	unsigned long long t;
	unsigned a, b, c, d, len, e, g, h, i;
	struct ch_ent en;
	unsigned k;

	if (sscanf(line, "%llu %u.%u.%u.%u/%u %u.%u.%u.%u", &t, &a, &b, &c, &d,
		&len, &e, &g, &h, &i) != 10)
		return;
	en.addr = a << 24 | b << 16 | c << 8 | d;
	en.len = (uint8_t)len;
	en.nh = e << 24 | g << 16 | h << 8 | i;
	en.t = t;
	en.used = 1;
	ch_lines++;
	*last = en;
	if (!kernel)
		return;
	k = ch_slot(seen_tab, en.addr, en.len);
	if (seen_tab[k].used && seen_tab[k].nh == en.nh &&
	    seen_tab[k].t >= en.t) {
		ch_record(en.t, seen_tab[k].t);
		ch_del(seen_tab, k);
	} else
		ch_put(sent_tab, &en);
}

/* The new whole lines of the log (fd), a partial one kept for later. */
static void
ch_read(int fd, struct ch_ent *last, bool kernel)
{
	static char buf[1 << 16];
	static size_t len;
	ssize_t n;

	if (fd < 0) {
		len = 0;
		return;
	}
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		char *p = buf, *nl;

		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = strchr(p, '\n')) != NULL) {
			*nl = '\0';
			ch_line(p, last, kernel);
			p = nl + 1;
		}
		len -= (size_t)(p - buf);
		memmove(buf, p, len);
	}
}

/*
 * Churn for churn_s seconds at churn_rate: the feeder re-announces random
 * prefixes with the other of its two next hops (SIGUSR2 starts and stops
 * it). Kernel receivers: every change is matched to the kernel's
 * notification (latency: the feeder's write to the bench reading the
 * notification; the last ones get a second). tern: the latest change is
 * followed in fwd's FIB (exact QUERY_FIB every 100 us) until it has the new
 * next hop, then the latest one again. p50/p99 into r.
 */
static void
churn_run(enum recv rv, struct feeder *f, struct result *r)
{
	struct ch_ent last = {0};
	uint64_t end;
	int fd = -1;

	ch_n = ch_lines = 0;
	memset(sent_tab, 0, sizeof(sent_tab));
	memset(seen_tab, 0, sizeof(seen_tab));
	ch_read(-1, &last, false);
	kill(f->pid, SIGUSR2);
	for (int i = 0; i < 200 && (fd = open(f->churn, O_RDONLY)) < 0; i++)
		usleep(5000);
	if (fd < 0)
		return;
	end = lc_time_mono_ns() + (uint64_t)(churn_s * 1e9);
	while (lc_time_mono_ns() < end) {
		if (rv == R_TERN) {
			struct ch_ent w;
			uint64_t until;

			ch_read(fd, &last, false);
			if (!last.used) {
				usleep(200);
				continue;
			}
			w = last;
			last.used = 0;
			until = lc_time_mono_ns() + 1000000000ull;
			while (lc_time_mono_ns() < until) {
				uint32_t nh = 0;

				if (br_fib_get(&B, w.addr, w.len, &nh, 1000) ==
					1 &&
				    nh == w.nh) {
					ch_record(w.t, lc_time_mono_ns());
					break;
				}
				usleep(100);
			}
		} else {
			struct pollfd pf = {.fd = nl_mon, .events = POLLIN};

			(void)poll(&pf, 1, 1);
			ch_read(fd, &last, true);
			nl_drain(ch_seen);
		}
	}
	kill(f->pid, SIGUSR2); /* stop */
	for (end = lc_time_mono_ns() + 1000000000ull;
	     rv != R_TERN && lc_time_mono_ns() < end;) {
		struct pollfd pf = {.fd = nl_mon, .events = POLLIN};

		(void)poll(&pf, 1, 10);
		ch_read(fd, &last, true);
		nl_drain(ch_seen);
	}
	close(fd);
	r->churn_n = (unsigned)ch_n;
	r->churn_p50 = br_pct(ch_lat, ch_n, 50);
	r->churn_p99 = br_pct(ch_lat, ch_n, 99);
	printf("#   churn: %zu UPDATEs of one prefix sent in %.1f s, %zu "
	       "latencies measured%s%s\n",
	    ch_lines, churn_s, ch_n,
	    rv == R_TERN ? " (one followed at a time in fwd's FIB)" : "",
	    nl_overrun ? " (netlink overran: some lost)" : "");
}

/* ---- the inbound case ------------------------------------------------------------------------------------- */

/* Polls until the receiver holds every path (and, with several peers, has
 * settled): the time it did into *t_done. 0 done; 1 tern not measurable
 * yet (r->why); -1 failed. */
static int
wait_done(enum recv rv, unsigned npeers, const struct procs *ps,
    const char *ctl, struct result *r, uint64_t t_start, uint64_t *t_done,
    struct psnap *mid_snap, long tern_bgp_rss0)
{
	uint64_t end = t_start + (uint64_t)(round_timeout * 1e9);
	uint64_t t_all = 0, t_quiet = 0, t_nofib = 0, t_prog = t_start;
	long want = (long)nprefix, wantp = (long)(nprefix * npeers);
	long last_prog = -1, last_fs = -1;
	double cpu_q = 0;
	struct psnap s;
	uint64_t t_frr_poll = 0;
	long frr_paths = 0;
	uint64_t t_verbose = 0;
	uint64_t nofib_ns = quick ? 3000000000ull : 5000000000ull;

	while (lc_time_mono_ns() < end) {
		uint64_t now = lc_time_mono_ns();
		long prog = 0, have = 0, paths = 0;

		switch (rv) {
		case R_TERN: {
			struct tern_nb nb;
			Rib__FibStatus fs = RIB__FIB_STATUS__INIT;
			long rb;

			if (tern_neighbors(&nb) == 0)
				paths = (long)nb.rcvd;
			have = br_fib_total(&B, 1000) - fib_base;
			if (paths >= wantp && r->t_mid == 0) {
				int bi = procs_find(ps, "tern-bgp");

				r->t_mid = now;
				procs_snap(ps, mid_snap);
				if (bi >= 0)
					r->mid_bpp =
					    (double)(mid_snap->rss[bi] -
						tern_bgp_rss0) *
					    1024.0 / (double)wantp;
			}
			rb = tern_rib_bgp(&fs);
			prog = paths + have + (rb > 0 ? rb : 0);
			if (paths >= wantp && rb <= 0) {
				/* everything is in tern-bgp and none reached
				 * rib: give it 5 s (3 in --quick), then say
				 * so */
				if (t_nofib == 0)
					t_nofib = now;
				if (now - t_nofib > nofib_ns) {
					snprintf(r->why, sizeof(r->why),
					    "tern-bgp holds %ld paths (%llu "
					    "accepted), rib has %s: routes do "
					    "not reach rib yet",
					    paths, (unsigned long long)nb.acc,
					    rb < 0 ? "no source 'bgp'" :
						     "0 routes from 'bgp'");
					return (1);
				}
			}
			if (npeers == 1 && have >= want) {
				*t_done = now;
				return (0);
			}
			if (npeers > 1 && paths >= wantp && have >= want &&
			    rb >= want && fs.pending == 0 && fs.inflight == 0 &&
			    fs.acked_seq == fs.sent_seq) {
				/* settled: rib's sequence unchanged 1 s */
				if ((long)fs.sent_seq != last_fs) {
					last_fs = (long)fs.sent_seq;
					t_quiet = now;
				} else if (now - t_quiet > 1000000000ull) {
					*t_done = t_quiet;
					return (0);
				}
			}
			break;
		}
		case R_BIRD:
		case R_BIRD_K:
			paths = bird_imported(ctl, "f");
			if (rv == R_BIRD_K)
				have = nl_routes();
			prog = paths + have;
			if (rv == R_BIRD && paths >= wantp) {
				*t_done = now;
				return (0);
			}
			break;
		case R_FRR:
			have = nl_routes();
			/* vtysh is a process and a bgpd command: 4 a
			 * second, until bgpd has every path */
			if (frr_paths < wantp &&
			    now - t_frr_poll > 250000000ull) {
				long p = frr_received();

				if (p > frr_paths)
					frr_paths = p;
				t_frr_poll = now;
				if (frr_paths >= wantp)
					r->t_mid = now;
			}
			paths = frr_paths;
			prog = paths + have;
			break;
		default:
			return (-1);
		}
		if (rv == R_BIRD_K || rv == R_FRR) {
			if (npeers == 1 && have >= want) {
				*t_done = nl_t_last ? nl_t_last : now;
				return (0);
			}
			if (npeers > 1 && paths >= wantp && have >= want) {
				/* settled: no kernel change and the
				 * receiver idle (< 20 ms CPU) for 1 s */
				double c = 0;

				procs_snap(ps, &s);
				for (unsigned i = 0; i < ps->n; i++)
					c += s.cpu[i];
				if (t_all == 0) {
					t_all = t_quiet = now;
					cpu_q = c;
				} else if (now - nl_t_last < 1000000000ull ||
				    c - cpu_q > 0.02) {
					t_quiet = now;
					cpu_q = c;
				} else if (now - t_quiet >= 1000000000ull) {
					*t_done = nl_t_last > t_all ?
					    nl_t_last :
					    t_all;
					return (0);
				}
			}
		}
		if (verbose && now - t_verbose > 1000000000ull) {
			fprintf(stderr,
			    "bench-bgp: %s +%.1f s: %ld paths, %ld routes, "
			    "progress %ld\n",
			    recv_name[rv], secs(t_start, now), paths, have,
			    prog);
			t_verbose = now;
		}
		if (prog != last_prog) {
			last_prog = prog;
			t_prog = now;
		} else if (now - t_prog > 60000000000ull) {
			fprintf(stderr,
			    "bench-bgp: %s: no progress for 60 s (%ld paths, "
			    "%ld routes)\n",
			    recv_name[rv], paths, have);
			return (-1);
		}
		if (rv == R_BIRD_K || rv == R_FRR) {
			struct pollfd pf = {.fd = nl_mon, .events = POLLIN};

			(void)poll(&pf, 1, 20);
		} else
			usleep(rv == R_TERN ? 20000 : 10000);
	}
	fprintf(stderr, "bench-bgp: %s: not done in %.0f s\n", recv_name[rv],
	    round_timeout);
	return (-1);
}

/* One receiver, npeers feeders: r filled. 0, or -1 (the round failed). */
static int
run_in(enum recv rv, unsigned npeers, bool churn, struct result *r)
{
	struct feeder f[MAXPEERS];
	struct procs ps = {0};
	struct psnap s0, s1, smid;
	char conf[PATH_MAX], ctl[PATH_MAX] = "", tag[32];
	pid_t bird = 0;
	uint64_t t_go, t_start, t_done = 0;
	double fcpu0[MAXPEERS];
	long paths = (long)(nprefix * npeers), bgp_rss0 = 0;
	int st = -1, w;

	memset(r, 0, sizeof(*r));
	memset(f, 0, sizeof(f));
	memset(&smid, 0, sizeof(smid));
	snprintf(tag, sizeof(tag), "%s-%u", recv_name[rv], npeers);
	if (rv != R_TERN && router_kernel(true) != 0)
		return (-1);
	switch (rv) {
	case R_TERN:
		if (tern_start(npeers) != 0) {
			fprintf(stderr, "bench-bgp: tern did not start (%s)\n",
			    B.dir);
			goto out;
		}
		break;
	case R_BIRD:
	case R_BIRD_K:
		snprintf(conf, sizeof(conf), "%s/bird-%s.conf", B.dir, tag);
		if (bird_conf(conf, npeers, rv == R_BIRD_K, false) != 0 ||
		    (rv == R_BIRD_K &&
			nl_watch(KTABLE_BIRD, RTPROT_BIRD_) != 0))
			goto out;
		if ((bird = bird_start(tag, nsr, conf, ctl, sizeof(ctl))) == 0)
			goto out;
		procs_add(&ps, bird, "bird");
		break;
	case R_FRR:
		if (nl_watch(RT_TABLE_MAIN, RTPROT_FRR) != 0 ||
		    frr_start(npeers) != 0)
			goto out;
		procs_add(&ps, frr_bgpd, "bgpd");
		procs_add(&ps, frr_zebra, "zebra");
		break;
	default:
		goto out;
	}
	for (unsigned k = 0; k < npeers; k++)
		if (feeder_start(&f[k], k, npeers,
			rv == R_TERN && tern_import == NULL, tag) != 0)
			goto out;
	if (feeders_wait(f, npeers, 90) != 0)
		goto out;
	if (rv == R_TERN) {
		int bi;

		tern_procs(&ps);
		/* fwd's own routes (connected, local) settle first */
		fib_base = br_fib_total(&B, 2000);
		for (int i = 0; i < 50; i++) {
			long b2;

			usleep(100000);
			if ((b2 = br_fib_total(&B, 2000)) == fib_base && i >= 4)
				break;
			fib_base = b2;
		}
		bi = procs_find(&ps, "tern-bgp");
		bgp_rss0 = bi >= 0 ? proc_kb(ps.pid[bi], "VmRSS") : 0;
	}
	if (rv == R_BIRD_K || rv == R_FRR)
		(void)nl_routes();
	procs_snap(&ps, &s0);
	for (unsigned k = 0; k < npeers; k++)
		fcpu0[k] = proc_cpu(f[k].pid);
	/* polled from the signal on; the feeders' first write (the clock's
	 * start) is read from their status afterwards */
	feeders_signal(f, npeers, SIGUSR1);
	t_go = lc_time_mono_ns();
	w = wait_done(rv, npeers, &ps, ctl, r, t_go, &t_done, &smid, bgp_rss0);
	procs_snap(&ps, &s1);
	if ((t_start = feeders_t_first(f, npeers)) == 0) {
		fprintf(stderr, "bench-bgp: the feeders did not start\n");
		goto out;
	}
	if (r->t_mid != 0)
		r->mid_s = secs(t_start, r->t_mid);
	for (unsigned k = 0; k < npeers; k++)
		r->feeder_cpu_s += proc_cpu(f[k].pid) - fcpu0[k];
	if (w < 0)
		goto out;
	if (w == 1) {
		r->not_yet = true;
		if (r->mid_s > 0) {
			int bi = procs_find(&ps, "tern-bgp");

			r->mid_cpu_s = bi >= 0 ? smid.cpu[bi] - s0.cpu[bi] : 0;
		}
		st = 0;
		goto out;
	}
	r->ok = true;
	r->wall_s = secs(t_start, t_done);
	r->cpu_s = snap_cpu(&ps, &s0, &s1);
	{
		long grow = 0, hwm = 0;

		for (unsigned i = 0; i < ps.n; i++) {
			bool counted = rv != R_TERN ||
			    strcmp(ps.name[i], "tern-bgp") == 0 ||
			    strcmp(ps.name[i], "tern-rib") == 0;

			if (counted) {
				grow += s1.rss[i] - s0.rss[i];
				hwm += s1.hwm[i];
			}
			if (rv == R_TERN && strcmp(ps.name[i], "tern-fwd") == 0)
				r->fwd_bpp = (double)(s1.rss[i] - s0.rss[i]) *
				    1024.0 / (double)nprefix;
		}
		r->bpp = (double)grow * 1024.0 / (double)paths;
		r->hwm_mb = (double)hwm / 1024.0;
	}
	if (rv == R_TERN && r->mid_s > 0) {
		int bi = procs_find(&ps, "tern-bgp");

		r->mid_cpu_s = bi >= 0 ? smid.cpu[bi] - s0.cpu[bi] : 0;
	}
	if (rv == R_BIRD_K || rv == R_FRR) {
		long d = nl_dump(npeers > 1);

		if (d < (long)nprefix) {
			fprintf(stderr,
			    "bench-bgp: %s: the kernel table holds %ld of %zu "
			    "(dump)\n",
			    recv_name[rv], d, nprefix);
			r->ok = false;
			goto out;
		}
	}
	if (npeers > 1) {
		if (rv == R_BIRD)
			bird_samples(ctl);
		else if (rv == R_TERN)
			for (unsigned i = 0; i < NSAMPLES; i++) {
				uint32_t nh = 0;

				samples[i].got = br_fib_get(&B, samples[i].addr,
						     samples[i].len, &nh,
						     2000) == 1 ?
				    nh :
				    0;
			}
		r->right = samples_right();
		samples_report(recv_label[rv]);
	}
	if (churn && (rv == R_TERN || rv == R_BIRD_K || rv == R_FRR))
		churn_run(rv, &f[0], r);
	st = 0;
out:
	feeders_stop(f, npeers);
	nl_unwatch();
	switch (rv) {
	case R_TERN:
		if (r->ok || r->not_yet)
			br_print_cpus(&B);
		tern_stop();
		break;
	case R_BIRD:
	case R_BIRD_K:
		stop_pid(bird, SIGKILL, 0);
		break;
	case R_FRR:
		frr_stop();
		break;
	default:
		break;
	}
	if (rv != R_TERN)
		(void)router_kernel(false);
	return (st);
}

/* ---- the outbound case ------------------------------------------------------------------------------------- */

/*
 * The outbound measurement: `cmd` on the BIRD at ctl enables the session,
 * then from the receiver's (rctl) Established until it imported every
 * prefix; CPU of the advertiser's processes (ps) and the receiver's (pr).
 */
static int
out_measure(struct procs *ps, struct procs *pr, const char *ctl,
    const char *cmd, const char *rctl, uint64_t end, struct result *r)
{
	struct psnap a0, a1, b0, b1;
	uint64_t t_en, t_est = 0, t1 = 0, t_v = 0, t99 = 0;
	long got = 0;
	char st[64];

	procs_snap(ps, &a0);
	procs_snap(pr, &b0);
	t_en = lc_time_mono_ns();
	if (bird_cmd(ctl, cmd, NULL, 0) != 0)
		return (-1);
	while (lc_time_mono_ns() < end) {
		uint64_t now = lc_time_mono_ns();

		if (t_est == 0) {
			if (bird_state(rctl, "rcv", st, sizeof(st)) == 0 &&
			    strcmp(st, "Established") == 0)
				t_est = now;
			usleep(10000);
			continue;
		}
		if ((got = bird_imported(rctl, "rcv")) >= (long)nprefix) {
			t1 = now;
			break;
		}
		if (t99 == 0 && got >= (long)(nprefix * 99 / 100))
			t99 = now;
		if (verbose && now - t_v > 200000000ull) {
			fprintf(stderr,
			    "bench-bgp: out +%.2f s: %ld imported\n",
			    secs(t_est, now), got);
			t_v = now;
		}
		usleep(20000);
	}
	if (t1 == 0)
		return (-1);
	procs_snap(ps, &a1);
	procs_snap(pr, &b1);
	r->ok = true;
	r->out_s = secs(t_est, t1);
	r->mid_s = secs(t_en, t_est);
	r->out99_s = secs(t_est, t99 ? t99 : t1);
	r->out_cpu_s = snap_cpu(ps, &a0, &a1);
	r->out_recv_cpu_s = snap_cpu(pr, &b0, &b1);
	return (0);
}

/*
 * BIRD in the router ns takes the table from one feeder; once it holds it
 * all, its session to a second BIRD in the server ns (198.18.2.2, AS 65010)
 * is enabled. Timed from that session's Established (the receiver's
 * `show protocols`, 10 ms polls) until the receiver has imported every
 * prefix; CPU of both BIRDs over that time. tern's side: run_out_tern.
 */
static int
run_out(struct result *r)
{
	struct feeder f;
	struct procs ps = {0}, pr = {0};
	char conf[PATH_MAX], rconf[PATH_MAX], ctl[PATH_MAX], rctl[PATH_MAX];
	pid_t bird = 0, rbird = 0;
	uint64_t end;
	int rv = -1;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	if (router_kernel(true) != 0)
		goto out;
	snprintf(conf, sizeof(conf), "%s/bird-out.conf", B.dir);
	snprintf(rconf, sizeof(rconf), "%s/bird-outrecv.conf", B.dir);
	if (bird_conf(conf, 1, false, true) != 0 ||
	    (fp = fopen(rconf, "w")) == NULL)
		goto out;
	fprintf(fp,
	    "log \"%s/bird-outrecv.log\" { warning, error, fatal, bug };\n"
	    "router id %s;\nprotocol device { scan time 10; }\n"
	    "protocol bgp rcv {\n\tlocal %s as %u;\n\tneighbor %s as %u;\n"
	    "\tpassive on;\n\thold time 90;\n"
	    "\tipv4 { import all; export none; };\n}\n",
	    B.dir, OUT_PEER_IP, OUT_PEER_IP, OUT_PEER_AS, RECV_OUT_IP, TERN_AS);
	if (fclose(fp) != 0)
		goto out;
	if ((bird = bird_start("out", nsr, conf, ctl, sizeof(ctl))) == 0 ||
	    (rbird = bird_start("outrecv", nss, rconf, rctl, sizeof(rctl))) ==
		0)
		goto out;
	procs_add(&ps, bird, "bird");
	procs_add(&pr, rbird, "bird-recv");
	if (feeder_start(&f, 0, 1, false, "out") != 0 ||
	    feeders_wait(&f, 1, 90) != 0)
		goto out;
	kill(f.pid, SIGUSR1);
	end = lc_time_mono_ns() + (uint64_t)(round_timeout * 1e9);
	while (bird_imported(ctl, "f") < (long)nprefix) {
		if (lc_time_mono_ns() > end)
			goto out;
		usleep(50000);
	}
	if (out_measure(&ps, &pr, ctl, "enable adv", rctl, end, r) != 0)
		goto out;
	rv = 0;
out:
	feeders_stop(&f, 1);
	stop_pid(bird, SIGKILL, 0);
	stop_pid(rbird, SIGKILL, 0);
	(void)router_kernel(false);
	return (rv);
}

/*
 * The same with tern as the advertiser: tern-bgp takes the table from one
 * (iBGP) feeder; once tern-rib has it all, the receiver BIRD in the server
 * ns (disabled until then) is enabled and connects to tern, which exports
 * everything to it (eBGP, policy ALL). Timed as BIRD's: from the
 * receiver's Established until it has imported every prefix; CPU of every
 * tern process and of the receiver over that time.
 */
static int
run_out_tern(struct result *r)
{
	struct feeder f;
	struct procs ps = {0}, pr = {0};
	char rconf[PATH_MAX], rctl[PATH_MAX];
	pid_t rbird = 0;
	uint64_t end;
	int rv = -1;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	tern_out = true;
	snprintf(rconf, sizeof(rconf), "%s/bird-outrecv-t.conf", B.dir);
	if ((fp = fopen(rconf, "w")) == NULL)
		goto out;
	fprintf(fp,
	    "log \"%s/bird-outrecv-t.log\" { warning, error, fatal, bug };\n"
	    "router id %s;\nprotocol device { scan time 10; }\n"
	    "protocol bgp rcv {\n\tdisabled;\n\tlocal %s as %u;\n"
	    "\tneighbor %s as %u;\n\thold time 90;\n"
	    "\tconnect delay time 1;\n"
	    "\tipv4 { import all; export none; };\n}\n",
	    B.dir, OUT_PEER_IP, OUT_PEER_IP, OUT_PEER_AS, RECV_OUT_IP, TERN_AS);
	if (fclose(fp) != 0)
		goto out;
	if (tern_start(1) != 0) {
		fprintf(stderr, "bench-bgp: tern did not start (%s)\n", B.dir);
		goto out;
	}
	if ((rbird = bird_start("outrecv-t", nss, rconf, rctl, sizeof(rctl))) ==
	    0)
		goto out;
	procs_add(&pr, rbird, "bird-recv");
	if (feeder_start(&f, 0, 1, tern_import == NULL, "out-t") != 0 ||
	    feeders_wait(&f, 1, 90) != 0)
		goto out;
	tern_procs(&ps);
	kill(f.pid, SIGUSR1);
	end = lc_time_mono_ns() + (uint64_t)(round_timeout * 1e9);
	while (tern_rib_bgp(NULL) < (long)nprefix) {
		if (lc_time_mono_ns() > end)
			goto out;
		usleep(50000);
	}
	if (out_measure(&ps, &pr, rctl, "enable rcv", rctl, end, r) != 0)
		goto out;
	rv = 0;
out:
	tern_out = false;
	feeders_stop(&f, 1);
	stop_pid(rbird, SIGKILL, 0);
	tern_stop();
	return (rv);
}

/* ---- output ------------------------------------------------------------------------------------------------- */

struct series {
	double v[R_COUNT][32];
	unsigned n[R_COUNT];
};

static void
ser_add(struct series *s, enum recv rv, double v)
{
	if (s->n[rv] < 32)
		s->v[rv][s->n[rv]++] = v;
}

static const char *const *col_label = recv_label;
static unsigned col_mask = ~0u; /* columns shown, 1 << enum recv */

static void
row(const char *what, const struct series *s)
{
	printf("%-30s", what);
	for (unsigned rv = 0; rv < R_COUNT; rv++) {
		if (!want_recv[rv] || !(col_mask & 1u << rv))
			continue;
		if (s->n[rv] == 0)
			printf(" %22s", "-");
		else {
			char c[64];

			snprintf(c, sizeof(c), "%.3g [%.3g-%.3g]",
			    br_median(s->v[rv], s->n[rv]),
			    br_min(s->v[rv], s->n[rv]),
			    br_max(s->v[rv], s->n[rv]));
			printf(" %22s", c);
		}
	}
	printf("\n");
}

static void
header(const char *title)
{
	printf("\n%s\n%-30s", title, "figure (median [min-max])");
	for (unsigned rv = 0; rv < R_COUNT; rv++)
		if (want_recv[rv] && (col_mask & 1u << rv))
			printf(" %22s", col_label[rv]);
	printf("\n");
}

/* The BENCH lines of one figure: each peer measured on its own (the
 * figure of that peer, no ratio), then ours against each peer; when ours
 * was not measured, one line saying so and why, without a value. */
static const char *const *fig_name = recv_name;

static void
bench_fig(const char *cas, const char *metric, const char *unit,
    const struct series *s, const char *better, const char *extra,
    const char *not_measured)
{
	char ex[512], c[128];

	for (unsigned rv = R_TERN + 1; rv < R_COUNT; rv++) {
		if (s->n[rv] == 0)
			continue;
		snprintf(c, sizeof(c), "%s_%s", cas, fig_name[rv]);
		snprintf(ex, sizeof(ex), "\"subject\":\"%s\"%s%s", fig_name[rv],
		    extra ? "," : "", extra ? extra : "");
		br_bench_line("bgp", c, metric, unit, s->v[rv], s->n[rv], NULL,
		    NULL, 0, better, ex);
	}
	if (s->n[R_TERN] == 0) {
		printf("BENCH {\"bench\":\"bgp\",\"case\":\"%s\",\"metric\":"
		       "\"%s\",\"unit\":\"%s\",\"status\":\"not_measured\","
		       "\"why\":\"%s\"%s%s}\n",
		    cas, metric, unit,
		    not_measured ? not_measured : "no tern figure",
		    extra ? "," : "", extra ? extra : "");
		return;
	}
	for (unsigned rv = R_TERN + 1; rv < R_COUNT; rv++)
		if (s->n[rv] > 0)
			br_bench_line("bgp", cas, metric, unit, s->v[R_TERN],
			    s->n[R_TERN], fig_name[rv], s->v[rv], s->n[rv],
			    better, extra);
	if (s->n[R_TERN] > 0 &&
	    s->n[R_BIRD] + s->n[R_BIRD_K] + s->n[R_FRR] == 0)
		br_bench_line("bgp", cas, metric, unit, s->v[R_TERN],
		    s->n[R_TERN], NULL, NULL, 0, better, extra);
}

static double
ratio(const struct series *s, enum recv peer)
{
	if (s->n[R_TERN] == 0 || s->n[peer] == 0)
		return (0);
	return (br_median(s->v[R_TERN], s->n[R_TERN]) /
	    br_median(s->v[peer], s->n[peer]));
}

static void
target(const char *what, const struct series *s, enum recv peer, double max)
{
	double r = ratio(s, peer);

	if (s->n[peer] == 0)
		printf("target: %s <= %.1fx %s: no %s figure\n", what, max,
		    recv_label[peer], recv_label[peer]);
	else if (r == 0)
		printf("target: %s <= %.1fx %s: tern not measured\n", what, max,
		    recv_label[peer]);
	else
		printf("target: %s <= %.1fx %s: %.2fx, %s\n", what, max,
		    recv_label[peer], r, r <= max ? "met" : "NOT met");
}

/* ---- restart: kill -9 tern-bgp ------------------------------------------------------------------------- */

/*
 * tern with one feeder (--reconnect: a lost session starts again with the
 * whole table) holding the table; tern-bgp is killed with SIGKILL and
 * rtrmgr starts it again. From the kill: the feeder's session Established
 * again, End-of-RIB both ways (the feeder's sent, tern-bgp's received),
 * tern-bgp's Adj-RIB-In complete again; the fewest routes fwd held
 * meanwhile (fwd's FIB total, 20 ms polls), when routes reach fwd at all.
 * Packets lost need traffic through routes that reach fwd (bench-restart's
 * generator): not measured yet.
 */
static int
run_restart(struct result *r, double *est_s, double *eor_s, double *adj_s,
    long *fib_drop)
{
	struct feeder f;
	struct procs ps = {0};
	struct tern_nb nb;
	uint64_t end, t_kill, t_adj = 0;
	long fib_full = -1, fib_min = -1;
	int bi, rv = -1;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	*fib_drop = -1;
	feeder_reconnect = true;
	if (tern_start(1) != 0 ||
	    feeder_start(&f, 0, 1, tern_import == NULL, "restart") != 0 ||
	    feeders_wait(&f, 1, 90) != 0)
		goto out;
	fib_base = br_fib_total(&B, 2000);
	kill(f.pid, SIGUSR1);
	end = lc_time_mono_ns() + (uint64_t)(round_timeout * 1e9);
	while (tern_neighbors(&nb) != 0 || nb.rcvd < nprefix) {
		if (lc_time_mono_ns() > end)
			goto out;
		usleep(20000);
	}
	/* routes in fwd, if they get there (a few seconds' chance) */
	for (int i = 0; i < 100; i++) {
		long n = br_fib_total(&B, 1000) - fib_base;

		if (n >= (long)nprefix) {
			fib_full = n;
			break;
		}
		if (i >= 10 && n <= 0 && tern_rib_bgp(NULL) <= 0)
			break;
		usleep(50000);
	}
	tern_procs(&ps);
	if ((bi = procs_find(&ps, "tern-bgp")) < 0)
		goto out;
	t_kill = lc_time_mono_ns();
	kill(ps.pid[bi], SIGKILL);
	end = t_kill + (uint64_t)(round_timeout * 1e9);
	while (lc_time_mono_ns() < end) {
		uint64_t now = lc_time_mono_ns();
		long n;

		if (fib_full >= 0 &&
		    (n = br_fib_total(&B, 1000) - fib_base) >= 0 &&
		    (fib_min < 0 || n < fib_min))
			fib_min = n;
		if (fstatus_u64(&f, "sessions") >= 2 &&
		    fstatus_u64(&f, "t_eor") > t_kill &&
		    fstatus_u64(&f, "rx_eor") == 1 && t_adj == 0 &&
		    tern_neighbors(&nb) == 0 && nb.rcvd >= nprefix)
			t_adj = now;
		if (t_adj != 0 &&
		    (fib_full < 0 ||
			br_fib_total(&B, 1000) - fib_base >= (long)nprefix))
			break;
		usleep(20000);
	}
	if (t_adj == 0) {
		fprintf(stderr,
		    "bench-bgp: restart: tern-bgp not back in %.0f "
		    "s\n",
		    round_timeout);
		goto out;
	}
	*est_s = secs(t_kill, fstatus_u64(&f, "t_established"));
	{
		uint64_t a = fstatus_u64(&f, "t_eor"),
			 b = fstatus_u64(&f, "t_rx_eor");

		*eor_s = secs(t_kill, a > b ? a : b);
	}
	*adj_s = secs(t_kill, t_adj);
	if (fib_full >= 0)
		*fib_drop = fib_full - fib_min;
	r->ok = true;
	rv = 0;
out:
	feeder_reconnect = false;
	feeders_stop(&f, 1);
	tern_stop();
	return (rv);
}

static void
case_restart(void)
{
	struct series est = {0}, eor = {0}, adj = {0}, drop = {0};
	char cas[64], extra[160];

	snprintf(cas, sizeof(cas), "%s",
	    nprefix == TT_PFX_FULL ? "restart_1M" :
		quick		   ? "restart_quick" :
				     "restart");
	printf("\n== %s: kill -9 tern-bgp with %zu prefixes from one feeder; "
	       "rtrmgr starts it again\n",
	    cas, nprefix);
	for (unsigned r = 0; r < rounds; r++) {
		struct result res;
		double e, o, a;
		long d;

		if (run_restart(&res, &e, &o, &a, &d) != 0) {
			printf("%-6u %-14s failed (logs in %s)\n", r, "tern",
			    B.dir);
			keep_dir = true;
			return;
		}
		printf("%-6u %-14s Established again %.3f s after the kill, "
		       "End-of-RIB both ways %.3f s, Adj-RIB-In complete "
		       "%.3f s; %s\n",
		    r, "tern", e, o, a,
		    d < 0 ? "fwd never had the routes (not measured: routes "
			    "withdrawn, packets lost)" :
			    "");
		if (d >= 0)
			printf("#   fwd lost at most %ld routes meanwhile\n",
			    d);
		ser_add(&est, R_TERN, e);
		ser_add(&eor, R_TERN, o);
		ser_add(&adj, R_TERN, a);
		if (d >= 0)
			ser_add(&drop, R_TERN, (double)d);
	}
	col_mask = 1u << R_TERN;
	header(cas);
	row("session back s", &est);
	row("End-of-RIB exchanged s", &eor);
	row("Adj-RIB-In complete s", &adj);
	row("routes withdrawn (fwd)", &drop);
	col_mask = ~0u;
	snprintf(extra, sizeof(extra),
	    "\"prefixes\":%zu,\"clock\":\"kill -9 of tern-bgp\"", nprefix);
	br_bench_line("bgp", cas, "session_back_s", "s", est.v[R_TERN],
	    est.n[R_TERN], NULL, NULL, 0, "lower", extra);
	br_bench_line("bgp", cas, "eor_exchanged_s", "s", eor.v[R_TERN],
	    eor.n[R_TERN], NULL, NULL, 0, "lower", extra);
	br_bench_line("bgp", cas, "adj_rib_in_s", "s", adj.v[R_TERN],
	    adj.n[R_TERN], NULL, NULL, 0, "lower", extra);
	if (drop.n[R_TERN] > 0)
		br_bench_line("bgp", cas, "routes_withdrawn", "1",
		    drop.v[R_TERN], drop.n[R_TERN], NULL, NULL, 0, "lower",
		    extra);
	else
		printf("BENCH {\"bench\":\"bgp\",\"case\":\"%s\",\"metric\":"
		       "\"routes_withdrawn\",\"unit\":\"1\",\"status\":"
		       "\"not_measured\",\"why\":\"routes do not reach fwd "
		       "yet\",%s}\n",
		    cas, extra);
	printf("BENCH {\"bench\":\"bgp\",\"case\":\"%s\",\"metric\":"
	       "\"lost_packets\",\"unit\":\"1\",\"status\":\"not_measured\","
	       "\"why\":\"no traffic in this bench yet; needs routes in "
	       "fwd\",%s}\n",
	    cas, extra);
}

/* ---- main ------------------------------------------------------------------------------------------------------ */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench-bgp [--quick] [--prefixes=N] [--sets=N] "
	    "[--rounds=N]\n"
	    "    [--cases=in1,in4,out,churn,restart] "
	    "[--receivers=tern,bird,bird_kernel,frr]\n"
	    "    [--tern-import=POLICY] [--churn-rate=N] [--churn-s=S] "
	    "[--timeout=S]\n"
	    "tern's session is iBGP (tern-bgp imports all) unless "
	    "--tern-import names an\nimport policy (then eBGP, as the "
	    "peers').\n");
	exit(2);
}

static bool
find_prog(const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {"/usr/sbin", "/usr/bin",
	    "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin",
	    "/usr/lib/frr"};

	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (access(out, X_OK) == 0)
			return (true);
	}
	return (false);
}

static void
parse_list(const char *s, bool is_recv)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	if (is_recv)
		memset(want_recv, 0, sizeof(want_recv));
	else
		case_in1 = case_in4 = case_out = case_churn = case_restart_on =
		    false;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (is_recv && strcmp(tok, "tern") == 0)
			want_recv[R_TERN] = true;
		else if (is_recv && strcmp(tok, "bird") == 0)
			want_recv[R_BIRD] = true;
		else if (is_recv && strcmp(tok, "bird_kernel") == 0)
			want_recv[R_BIRD_K] = true;
		else if (is_recv && strcmp(tok, "frr") == 0)
			want_recv[R_FRR] = true;
		else if (!is_recv && strcmp(tok, "in1") == 0)
			case_in1 = true;
		else if (!is_recv && strcmp(tok, "in4") == 0)
			case_in4 = true;
		else if (!is_recv && strcmp(tok, "out") == 0)
			case_out = true;
		else if (!is_recv && strcmp(tok, "churn") == 0)
			case_churn = case_in1 = true;
		else if (!is_recv && strcmp(tok, "restart") == 0)
			case_restart_on = true;
		else
			usage();
	}
}

/* The inbound case of npeers over all rounds, alternating receivers. */
static int
case_in(unsigned npeers, bool churn)
{
	struct series wall = {0}, cpu = {0}, bpp = {0}, hwm = {0}, mid = {0},
		      midcpu = {0}, midbpp = {0}, fwdbpp = {0}, right = {0},
		      c50 = {0}, c99 = {0}, fcpu = {0};
	char cas[64], extra[256], why[300] = "";
	const char *pl = npeers == 1 ? "1peer" : "4peers";
	bool failed[R_COUNT] = {false};

	if (nprefix == TT_PFX_FULL)
		snprintf(cas, sizeof(cas), "in_1M_%s", pl);
	else if (quick)
		snprintf(cas, sizeof(cas), "in_%zuk_%s_quick", nprefix / 1000,
		    pl);
	else
		snprintf(cas, sizeof(cas), "in_%zu_%s", nprefix, pl);
	printf(
	    "\n== %s: %zu prefixes from each of %u feeder(s) (%zu paths)%s\n",
	    cas, nprefix, npeers, nprefix * npeers,
	    churn ? "; then churn" : "");
	printf("%-6s %-14s %9s %9s %10s %9s %9s %s\n", "round", "receiver",
	    "wall_s", "cpu_s", "B/path", "hwm_MB", "feed_cpu", "notes");
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned rv = 0; rv < R_COUNT; rv++) {
			struct result res;
			char note[300] = "";

			if (!want_recv[rv] || failed[rv] ||
			    (rv == R_BIRD && !have_bird) ||
			    (rv == R_BIRD_K && !have_bird) ||
			    (rv == R_FRR && !have_frr))
				continue;
			/* tern's iBGP feeders send paths one AS shorter */
			if (npeers > 1) {
				if (ref_init(npeers,
					rv != R_TERN || tern_import != NULL) !=
				    0)
					return (-1);
				qsort(samples, NSAMPLES, sizeof(samples[0]),
				    sample_cmp);
			}
			if (run_in((enum recv)rv, npeers, churn, &res) != 0) {
				printf("%-6u %-14s failed (logs in %s)\n", r,
				    recv_name[rv], B.dir);
				failed[rv] = true;
				keep_dir = true;
				continue;
			}
			if (res.not_yet) {
				snprintf(why, sizeof(why), "%s", res.why);
				printf("%-6u %-14s %9s %9s %10s %9s %9.2f "
				       "NOT MEASURED YET: %s\n",
				    r, recv_name[rv], "-", "-", "-", "-",
				    res.feeder_cpu_s, res.why);
				if (res.mid_s > 0) {
					printf(
					    "%-6s %-14s %9.3f %9.2f %10.0f "
					    "%9s %9s tern-bgp's "
					    "Adj-RIB-In complete (tern-bgp "
					    "alone; not the issue's figure)\n",
					    "", "", res.mid_s, res.mid_cpu_s,
					    res.mid_bpp, "-", "-");
					ser_add(&mid, R_TERN, res.mid_s);
					ser_add(&midcpu, R_TERN, res.mid_cpu_s);
					ser_add(&midbpp, R_TERN, res.mid_bpp);
				}
				/* the next rounds say it again, and measure
				 * the Adj-RIB-In for its median */
				continue;
			}
			ser_add(&wall, rv, res.wall_s);
			ser_add(&cpu, rv, res.cpu_s);
			ser_add(&bpp, rv, res.bpp);
			ser_add(&hwm, rv, res.hwm_mb);
			ser_add(&fcpu, rv, res.feeder_cpu_s);
			if (npeers > 1)
				ser_add(&right, rv, res.right);
			if (res.mid_s > 0) {
				ser_add(&mid, rv, res.mid_s);
				snprintf(note, sizeof(note), "%s %.3f s",
				    rv == R_TERN ? "Adj-RIB-In complete" :
						   "bgpd has all paths",
				    res.mid_s);
			}
			if (rv == R_TERN) {
				ser_add(&fwdbpp, rv, res.fwd_bpp);
				ser_add(&midcpu, rv, res.mid_cpu_s);
				ser_add(&midbpp, rv, res.mid_bpp);
			}
			if (res.churn_n > 0) {
				ser_add(&c50, rv, res.churn_p50);
				ser_add(&c99, rv, res.churn_p99);
				snprintf(note + strlen(note),
				    sizeof(note) - strlen(note),
				    "%schurn p50 %.2f p99 %.2f ms",
				    note[0] ? "; " : "", res.churn_p50,
				    res.churn_p99);
			}
			printf("%-6u %-14s %9.3f %9.2f %10.0f %9.1f %9.2f %s\n",
			    r, recv_name[rv], res.wall_s, res.cpu_s, res.bpp,
			    res.hwm_mb, res.feeder_cpu_s, note);
		}
	}
	header(cas);
	row("wall_s", &wall);
	row("cpu_s (all processes)", &cpu);
	row("bytes per path", &bpp);
	row("peak RSS MB", &hwm);
	row("Adj-RIB-In (tern) / bgpd s", &mid);
	row("tern-bgp cpu_s at Adj-RIB-In", &midcpu);
	row("tern-bgp B/path at Adj-RIB-In", &midbpp);
	row("tern-fwd B/prefix", &fwdbpp);
	row("feeder cpu_s", &fcpu);
	if (npeers > 1)
		row("best paths right (of 200)", &right);
	if (churn) {
		row("churn p50 ms", &c50);
		row("churn p99 ms", &c99);
	}
	if (wall.n[R_TERN] == 0)
		printf("tern: NOT MEASURED YET%s%s\n", why[0] ? ": " : "", why);
	if (npeers == 1) {
		target("wall time", &wall, R_BIRD, 0.5);
		target("wall time", &wall, R_FRR, 0.2);
		target("CPU seconds", &cpu, R_BIRD, 1.0);
		target("bytes per path", &bpp, R_BIRD, 1.0);
		printf("(ratios to BIRD with kernel export, same figures: "
		       "wall %.2fx, cpu %.2fx)\n",
		    ratio(&wall, R_BIRD_K), ratio(&cpu, R_BIRD_K));
	}
	if (churn)
		printf("target: churn p99 <= 10 ms: %s\n",
		    c99.n[R_TERN] == 0 ? "tern not measured" :
			br_median(c99.v[R_TERN], c99.n[R_TERN]) <= 10 ?
					 "met" :
					 "NOT met");
	printf("\n");
	snprintf(extra, sizeof(extra),
	    "\"prefixes\":%zu,\"peers\":%u,\"paths\":%zu,\"sets\":%u,"
	    "\"tern_session\":\"%s\",\"clock\":\"first UPDATE written\"",
	    nprefix, npeers, nprefix * npeers, nsets,
	    tern_import ? "ebgp" : "ibgp");
	bench_fig(cas, "wall_s", "s", &wall, "lower", extra, why);
	bench_fig(cas, "cpu_s", "s", &cpu, "lower", extra, why);
	bench_fig(cas, "bytes_per_path", "B", &bpp, "lower", extra, why);
	if (npeers > 1)
		bench_fig(cas, "best_right_of_200", "1", &right, "higher",
		    extra, why);
	if (mid.n[R_TERN] > 0) {
		char c[96];

		snprintf(c, sizeof(c), "%s_tern_adj_rib_in", cas);
		br_bench_line("bgp", c, "wall_s", "s", mid.v[R_TERN],
		    mid.n[R_TERN], NULL, NULL, 0, "lower", extra);
		br_bench_line("bgp", c, "bgp_cpu_s", "s", midcpu.v[R_TERN],
		    midcpu.n[R_TERN], NULL, NULL, 0, "lower", extra);
		br_bench_line("bgp", c, "bgp_bytes_per_path", "B",
		    midbpp.v[R_TERN], midbpp.n[R_TERN], NULL, NULL, 0, "lower",
		    extra);
	}
	if (mid.n[R_FRR] > 0) {
		char c[96];

		snprintf(c, sizeof(c), "%s_frr8_bgpd", cas);
		br_bench_line("bgp", c, "wall_s", "s", mid.v[R_FRR],
		    mid.n[R_FRR], NULL, NULL, 0, "lower", extra);
	}
	if (churn) {
		char c[96];

		snprintf(c, sizeof(c), "churn_%s", cas + 3);
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    ",\"rate\":%u,\"seconds\":%.3g", churn_rate, churn_s);
		bench_fig(c, "p50_ms", "ms", &c50, "lower", extra, why);
		bench_fig(c, "p99_ms", "ms", &c99, "lower", extra, why);
	}
	return (0);
}

static void
case_outbound(void)
{
	struct series out = {0}, out99 = {0}, ocpu = {0}, rcpu = {0};
	char cas[64], extra[160];
	bool tern_failed = false;
	const char *nm = "the tern rounds failed";

	snprintf(cas, sizeof(cas), "%s",
	    nprefix == TT_PFX_FULL ? "out_1M" :
		quick		   ? "out_quick" :
				     "out");
	printf("\n== %s: the router advertises %zu prefixes to a BIRD 2 "
	       "peer in the server ns\n",
	    cas, nprefix);
	if (!have_bird) {
		printf("# not measured: no BIRD\n");
		return;
	}
	for (unsigned r = 0; r < rounds; r++) {
		struct result res;

		/* alternating: tern, then BIRD, each round */
		for (unsigned w = 0; w < 2; w++) {
			enum recv rv = w == 0 ? R_TERN : R_BIRD;

			if (rv == R_TERN && tern_failed)
				continue;
			if ((rv == R_TERN ? run_out_tern(&res) :
					    run_out(&res)) != 0) {
				printf("%-6u %-14s failed (logs in %s)\n", r,
				    out_name[rv], B.dir);
				keep_dir = true;
				if (rv == R_BIRD)
					return;
				tern_failed = true;
				continue;
			}
			printf("%-6u %-14s %.3f s from Established (99%%: "
			       "%.3f s; Established %.2f s after `enable`), "
			       "advertiser %.2f cpu_s, receiver %.2f cpu_s\n",
			    r, out_name[rv], res.out_s, res.out99_s, res.mid_s,
			    res.out_cpu_s, res.out_recv_cpu_s);
			ser_add(&out99, rv, res.out99_s);
			ser_add(&out, rv, res.out_s);
			ser_add(&ocpu, rv, res.out_cpu_s);
			ser_add(&rcpu, rv, res.out_recv_cpu_s);
		}
	}
	col_label = out_label;
	fig_name = out_name;
	col_mask = 1u << R_TERN | 1u << R_BIRD;
	header(cas);
	row("wall_s", &out);
	row("wall_s to 99%", &out99);
	row("advertiser cpu_s", &ocpu);
	row("BIRD receiver cpu_s", &rcpu);
	snprintf(extra, sizeof(extra),
	    "\"prefixes\":%zu,\"receiver\":\"bird2\",\"clock\":"
	    "\"receiver's session Established\"",
	    nprefix);
	if (out.n[R_TERN] > 0 && out.n[R_BIRD] > 0)
		printf("tern / BIRD: wall %.2fx, advertiser cpu %.2fx\n",
		    ratio(&out, R_BIRD), ratio(&ocpu, R_BIRD));
	bench_fig(cas, "wall_s", "s", &out, "lower", extra, nm);
	bench_fig(cas, "wall99_s", "s", &out99, "lower", extra, nm);
	bench_fig(cas, "advertiser_cpu_s", "s", &ocpu, "lower", extra, nm);
	col_label = recv_label;
	fig_name = recv_name;
	col_mask = ~0u;
}

int
main(int argc, char **argv)
{
	bool sets_given = false;
	char exe[PATH_MAX];
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strncmp(argv[i], "--prefixes=", 11) == 0)
			nprefix = strtoul(argv[i] + 11, NULL, 10);
		else if (strncmp(argv[i], "--sets=", 7) == 0) {
			nsets = (unsigned)strtoul(argv[i] + 7, NULL, 10);
			sets_given = true;
		} else if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else if (strncmp(argv[i], "--cases=", 8) == 0)
			parse_list(argv[i] + 8, false);
		else if (strncmp(argv[i], "--receivers=", 12) == 0)
			parse_list(argv[i] + 12, true);
		else if (strncmp(argv[i], "--tern-import=", 14) == 0)
			tern_import = argv[i] + 14;
		else if (strncmp(argv[i], "--churn-rate=", 13) == 0)
			churn_rate = (unsigned)strtoul(argv[i] + 13, NULL, 10);
		else if (strncmp(argv[i], "--churn-s=", 10) == 0)
			churn_s = strtod(argv[i] + 10, NULL);
		else if (strncmp(argv[i], "--timeout=", 10) == 0)
			round_timeout = strtod(argv[i] + 10, NULL);
		else
			usage();
	}
	if (quick) {
		nprefix = 10000;
		rounds = 1;
		churn_rate = 1000;
		churn_s = 1;
		round_timeout = 60;
	}
	if (!sets_given) /* a few thousand at 1M: the same prefixes a set */
		nsets = (unsigned)(nprefix * TT_FEED_SETS / TT_PFX_FULL);
	if (nsets < 10)
		nsets = 10;
	if (nprefix == 0 || nprefix > 4000000 || rounds == 0 || rounds > 32 ||
	    churn_rate == 0 || churn_s <= 0)
		usage();
	verbose = getenv("BENCH_BGP_VERBOSE") != NULL;
	if (lc_build_bench_check("bench-bgp") != 0)
		return (2);
	if (geteuid() != 0) {
		printf("bench-bgp: skipped: needs root (network namespaces)\n");
		return (0);
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		return (1);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(feeder_bin, sizeof(feeder_bin), "%s/bgp-feeder", exe);
	if (access(feeder_bin, X_OK) != 0) {
		fprintf(stderr,
		    "bench-bgp: %s missing (make build/bin/bgp-feeder)\n",
		    feeder_bin);
		return (1);
	}
	have_bird = find_prog("bird", bird_bin, sizeof(bird_bin));
	have_frr = find_prog("bgpd", frr_dir, sizeof(frr_dir)) &&
	    find_prog("vtysh", vtysh_bin, sizeof(vtysh_bin));
	if (have_frr) {
		*strrchr(frr_dir, '/') = '\0';
		snprintf(exe, sizeof(exe), "%s/zebra", frr_dir);
		have_frr = access(exe, X_OK) == 0;
	}
	if (br_init(&B, "bg") != 0) {
		perror("bench-bgp: setup");
		return (1);
	}
	signal(SIGINT, bench_on_signal);
	signal(SIGTERM, bench_on_signal);
	signal(SIGHUP, bench_on_signal);
	atexit(bench_cleanup);
	snprintf(nsc, sizeof(nsc), "tern-c-%s", B.suffix);
	snprintf(nsr, sizeof(nsr), "tern-r-%s", B.suffix);
	snprintf(nss, sizeof(nss), "tern-s-%s", B.suffix);
	{
		static char comps[PATH_MAX + 256];

		/* tern-bgp listens on port 179 as nobody */
		snprintf(comps, sizeof(comps),
		    "component bgp { binary %s/tern-bgp; privileges user; "
		    "capabilities net_bind_service; }",
		    B.bin);
		setenv("LIB_ROUTER_COMPONENTS", comps, 1);
		/* mgmt and rib are busy while 1M routes go by: rtrmgr's
		 * health checks made lenient, as in bench-config */
		setenv("LIB_ROUTER_RTRMGR_EXTRA",
		    "health-interval 1s; health-timeout 1s; "
		    "health-failures 10;",
		    0);
	}
	printf("bench-bgp: the standard set, %zu prefixes (seed %#llx), %u "
	       "attribute sets (AS paths of 2-8 ASes), %u round(s) "
	       "alternating receivers\n",
	    nprefix, (unsigned long long)TT_PFX_SEED, nsets, rounds);
	printf("# receivers: tern%s%s%s\n",
	    have_bird ? ", BIRD 2 (table only; kernel export to table 100)" :
			", no BIRD (Debian bird2)",
	    have_frr ? ", FRR (bgpd + zebra to the kernel's main table)" :
		       ", no FRR (Debian frr)",
	    "");
	printf("# topology: feeders in the client ns (198.18.1.2-5, "
	       "tests/bench/bgp_feeder.c, UPDATEs encoded before the "
	       "session) -> receiver at 198.18.1.1 in the router ns: tern's "
	       "whole router (tern-bgp through tern-fwd's host path, "
	       "afpacket) or the router ns's kernel owning the veths "
	       "(BIRD, FRR); receivers passive\n"
	       "# tern's session: %s; the peers': eBGP from AS 65002+k\n"
	       "# clock: from the feeder's first UPDATE write (after "
	       "Established and the CPU/RSS readings) until the receiver "
	       "holds all (tern: fwd's FIB total, 20 ms polls; BIRD table: "
	       "`show protocols all` imported, 20 ms; kernel: netlink "
	       "notifications, checked by a dump)\n"
	       "# cpu: utime+stime of every receiver process (tern-*: "
	       "rtrmgr, mgmt, rib, fwd, bgp; bird; bgpd+zebra), not the "
	       "kernel's TCP work; bytes per path: RSS growth (tern: "
	       "tern-bgp + tern-rib, as issue 21 defines it)\n"
	       "# %ld CPUs, shared, nothing pinned\n",
	    tern_import ? "eBGP with import policy" :
			  "iBGP (eBGP imports nothing without a policy, RFC "
			  "8212; --tern-import=POLICY once policies exist)",
	    sysconf(_SC_NPROCESSORS_ONLN));
	if (br_lib(&B, "topo", false, NULL) != 0) {
		fprintf(stderr, "bench-bgp: topology failed\n");
		return (1);
	}
	/* the 4-peer case's feeders and the churn next hops */
	(void)br_sh("for i in 3 4 5; do ip -n %s addr add 198.18.1.$i/24 "
		    "dev eth0; done",
	    nsc);
	if (case_in1 && case_in(1, case_churn) != 0)
		return (1);
	if (case_in4 && case_in(MAXPEERS, false) != 0)
		return (1);
	if (case_out)
		case_outbound();
	if (case_restart_on && want_recv[R_TERN])
		case_restart();
	tt_feed_fini(&ref);
	return (0);
}
