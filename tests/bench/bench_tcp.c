/* tests/bench/bench_tcp.c: bench-tcp (issue 27): bulk TCP through the
 * router: iperf3 from the client ns to a server in the server ns of
 * tests/lib/netns.sh, through tern-fwd on AF_XDP and on AF_PACKET ports and
 * through the router namespace's kernel, alternated round by round; 1, 4
 * and 16 parallel streams, with the hosts' offloads off (as on a real
 * wire: frames of the MTU) and on (GSO/TSO/GRO, as a Linux host sends by
 * default: frames above the MTU arrive on veth). Goodput, retransmits, the
 * router's drops, and CPU per delivered byte: the router's (tern-fwd's
 * threads; the kernel's softirq) and the whole machine's (both hosts
 * included: the figure that compares routers whose work lands in
 * different places). */
#include "bench_router.h"

#include <net/if.h>

#define NS_C	      br_ns_name(&G.b, 'c')
#define NS_R	      br_ns_name(&G.b, 'r')
#define NS_S	      br_ns_name(&G.b, 's')
#define TC_PORT	      5202
#define TC_ROUNDS_MAX 8
#define TC_MSS	      1348 /* as the measurements */

enum { R_XDP, R_AFP, R_KERN, NR };
static const char *const rname[NR] = {"fwd-xdp", "fwd-afp", "kernel"};
static const char *const ritem[R_KERN] = {"af_xdp", "af_packet"};
static const char *const rbackend[R_KERN] = {"xdp", "afpacket"};
/* goodput through tern, at least this much of the kernel's (issue 27) */
static const double target[R_KERN] = {1.0, 0.8};

static const unsigned streams[] = {1, 4, 16};
#define NS_CASES (sizeof(streams) / sizeof(streams[0]))
#define NCASES	 (2 * NS_CASES) /* offloads off, on */

struct cell {
	double gp[TC_ROUNDS_MAX], retr[TC_ROUNDS_MAX];
	double rns[TC_ROUNDS_MAX], mns[TC_ROUNDS_MAX]; /* ns per KiB */
	double drops[TC_ROUNDS_MAX];
	int n;
};
static struct cell C[NR][NCASES];

static struct {
	struct br b;
	bool quick;
	int rounds;
	double secs;
	pid_t fwd_pid;
	const char *backends, *fwd_args;
	int offl; /* bit 0: off, bit 1: on */
} G;

static const char *
cname(unsigned c, char *buf, size_t n)
{
	snprintf(buf, n, "tcp_%ustream%s_offloads_%s", streams[c % NS_CASES],
	    streams[c % NS_CASES] > 1 ? "s" : "", c < NS_CASES ? "off" : "on");
	return (buf);
}

static int
tc_fwd_call(unsigned method, const ProtobufCMessage *m, ProtobufCMessage **rep)
{
	int st = ipc_call_wait(G.b.fwd, method, m, 5000, G.b.ar, rep, &G.b.err);

	if (st != IPC_OK) {
		fprintf(stderr, "bench-tcp: fwd: %s %s\n", ipc_status_str(st),
		    G.b.err.msg);
		return (-1);
	}
	return (0);
}

/* tern-fwd in the router ns with rc0 and rs0 on backend ro (host path off:
 * only forwarding is measured). 0 or -1. */
static int
tc_fwd_start(int ro)
{
	Fwd__IfConfigBatch ib = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic[2], *icp[2];
	Fwd__IfAddr ia[2], *iap[2];
	ProtobufCMessage *rep;
	char pidf[PATH_MAX + 16];
	FILE *f;
	int pid = 0;

	snprintf(pidf, sizeof(pidf), "%s/fwd.pid", G.b.dir);
	if (br_sh("ip netns exec %s %s/tern-fwd --rundir %s --log-level err "
		  "%s </dev/null >>%s/fwd.log 2>&1 & echo $! >%s",
		NS_R, G.b.bin, G.b.rundir, G.fwd_args, G.b.dir, pidf) != 0)
		return (-1);
	if ((f = fopen(pidf, "r")) != NULL) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	G.fwd_pid = pid;
	if (G.b.fwd == NULL)
		G.b.fwd = br_client(&G.b, &ipc_svc_fwd, false);
	if (br_wait_fib(&G.b, 0, 10, 20000, NULL) == 0) {
		fprintf(stderr, "bench-tcp: tern-fwd does not answer\n");
		return (-1);
	}
	for (int i = 0; i < 2; i++) {
		fwd__if_config__init(&ic[i]);
		fwd__if_addr__init(&ia[i]);
		ic[i].name = (char *)(i ? "rs0" : "rc0");
		ic[i].enabled = true;
		ic[i].backend = (char *)rbackend[ro];
		ic[i].host_path = FWD__HOST_PATH__HOST_PATH_DISABLE;
		ia[i].addr = htonl(i ? 0xc6120201u : 0xc6120101u);
		ia[i].len = 24;
		iap[i] = &ia[i];
		ic[i].addrs = &iap[i];
		ic[i].n_addrs = 1;
		icp[i] = &ic[i];
	}
	ib.interfaces = icp;
	ib.n_interfaces = 2;
	if (tc_fwd_call(FWD__METHOD__IF_CONFIG, &ib.base, &rep) != 0)
		return (-1);
	if (!((Fwd__IfConfigAck *)rep)->ok) {
		fprintf(stderr, "bench-tcp: IF_CONFIG refused: %s\n",
		    ((Fwd__IfConfigAck *)rep)->error);
		return (-1);
	}
	lc_arena_reset(G.b.ar);
	return (0);
}

static void
tc_fwd_stop(void)
{
	ipc_client_free(G.b.fwd);
	G.b.fwd = NULL;
	if (G.fwd_pid > 0) {
		kill(G.fwd_pid, SIGTERM);
		for (int i = 0; i < 150 && kill(G.fwd_pid, 0) == 0; i++)
			usleep(20000);
		kill(G.fwd_pid, SIGKILL);
		waitpid(G.fwd_pid, NULL, WNOHANG);
		G.fwd_pid = 0;
	}
}

/* tern-fwd's drops: its ports' rx drops (ring full and the kernel's) and
 * every reason of QUERY_DROPS, summed. */
static double
tc_fwd_drops(void)
{
	Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep;
	double d = 0;

	q.counters = true;
	if (tc_fwd_call(FWD__METHOD__QUERY_INTERFACES, &q.base, &rep) == 0) {
		const Fwd__InterfaceList *l = (const Fwd__InterfaceList *)rep;

		for (size_t i = 0; i < l->n_interfaces; i++)
			if (l->interfaces[i]->counters != NULL)
				d += (double)l->interfaces[i]
					 ->counters->rx_drops +
				    (double)l->interfaces[i]
					->counters->tx_drops;
	}
	lc_arena_reset(G.b.ar);
	if (tc_fwd_call(FWD__METHOD__QUERY_DROPS, &e.base, &rep) == 0) {
		const Fwd__DropList *l = (const Fwd__DropList *)rep;

		for (size_t i = 0; i < l->n_drops; i++)
			if (strcmp(l->drops[i]->reason, "arp") != 0 &&
			    strcmp(l->drops[i]->reason, "local") != 0)
				d += (double)l->drops[i]->count;
	}
	lc_arena_reset(G.b.ar);
	return (d);
}

/* The value after key in the JSON of iperf3 -J, from where (0 if absent). */
static double
jnum(const char *where, const char *key)
{
	const char *p = where != NULL ? strstr(where, key) : NULL;

	return (p != NULL ? strtod(p + strlen(key), NULL) : 0);
}

/* One iperf3 run of P streams; goodput (receiver's bit/s), retransmits and
 * bytes delivered. 0 or -1. */
static int
tc_iperf(unsigned p, double *bps, double *retr, double *bytes)
{
	char cmd[512], *buf, *q, *end;
	size_t len = 0, cap = 4 << 20;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	    "timeout %g ip netns exec %s iperf3 -c 198.18.2.2 -p %d -t %g "
	    "-P %u -M %d --connect-timeout 3000 %s -J 2>&1",
	    G.secs + 15, NS_C, TC_PORT, G.secs, p, TC_MSS,
	    G.quick ? "" : "-O 1");
	if ((buf = malloc(cap)) == NULL || (f = popen(cmd, "r")) == NULL) {
		free(buf);
		return (-1);
	}
	while (len + 1 < cap && (q = fgets(buf + len, (int)(cap - len), f)))
		len += strlen(q);
	buf[len] = '\0';
	pclose(f);
	/* the summary is at the end: "end": { ... "sum_sent", "sum_received" */
	if ((end = strstr(buf, "\"end\":")) == NULL ||
	    (q = strstr(end, "\"sum_received\"")) == NULL) {
		if ((q = strstr(buf, "\"error\"")) != NULL)
			printf("  iperf3: %.200s\n", q);
		free(buf);
		return (-1);
	}
	*bps = jnum(q, "\"bits_per_second\":");
	*bytes = jnum(q, "\"bytes\":");
	*retr = jnum(strstr(end, "\"sum_sent\""), "\"retransmits\":");
	free(buf);
	return (*bps > 0 ? 0 : -1);
}

static void
tc_round(int ro, int round)
{
	char nm[64];

	for (unsigned c = 0; c < NCASES; c++) {
		struct cell *x = &C[ro][c];
		double bps, retr, bytes, r0, r1, m0, m1, d0 = 0, d1 = 0;
		bool on = c >= NS_CASES;

		if (!(G.offl & (on ? 2 : 1)) || (G.quick && c % NS_CASES != 0))
			continue; /* --quick: one stream only */
		if (c == 0 || c == NS_CASES)
			(void)br_sh("bash '%s/tests/bench/lib_hostpath.sh' "
				    "offloads %s %s",
			    G.b.root, on ? "on" : "off", G.b.suffix);
		if (ro != R_KERN)
			d0 = tc_fwd_drops();
		r0 = ro != R_KERN ? br_task_ns(G.fwd_pid) : br_softirq_ns();
		m0 = br_busy_ns();
		if (tc_iperf(streams[c % NS_CASES], &bps, &retr, &bytes) != 0) {
			printf("  %-8s r%d %s: iperf3 failed\n", rname[ro],
			    round, cname(c, nm, sizeof(nm)));
			continue;
		}
		m1 = br_busy_ns();
		r1 = ro != R_KERN ? br_task_ns(G.fwd_pid) : br_softirq_ns();
		if (ro != R_KERN)
			d1 = tc_fwd_drops();
		x->gp[x->n] = bps;
		x->retr[x->n] = retr;
		x->rns[x->n] = bytes > 0 ? (r1 - r0) / (bytes / 1024) : 0;
		x->mns[x->n] = bytes > 0 ? (m1 - m0) / (bytes / 1024) : 0;
		x->drops[x->n] = d1 - d0;
		printf("  %-8s r%d %-32s %8.1f Mbit/s retr %6.0f router %6.0f "
		       "ns/KiB machine %6.0f ns/KiB drops %.0f\n",
		    rname[ro], round, cname(c, nm, sizeof(nm)), bps / 1e6, retr,
		    x->rns[x->n], x->mns[x->n], x->drops[x->n]);
		x->n++;
	}
	(void)br_sh("bash '%s/tests/bench/lib_hostpath.sh' offloads off %s",
	    G.b.root, G.b.suffix);
}

static void
tc_report(void)
{
	char nm[64], extra[256];

	printf("\n# medians over rounds; ns/KiB: CPU per KiB delivered "
	       "(router: tern-fwd's threads or the kernel's softirq; machine: "
	       "every CPU's busy time, both hosts included)\n");
	printf("%-8s %-32s %10s %8s %10s %10s %8s\n", "router", "case",
	    "Mbit/s", "retr", "router-ns", "machine-ns", "drops");
	for (unsigned c = 0; c < NCASES; c++)
		for (int ro = 0; ro < NR; ro++) {
			const struct cell *x = &C[ro][c];

			if (x->n == 0)
				continue;
			printf("%-8s %-32s %10.1f %8.0f %10.0f %10.0f %8.0f\n",
			    rname[ro], cname(c, nm, sizeof(nm)),
			    br_median(x->gp, (size_t)x->n) / 1e6,
			    br_median(x->retr, (size_t)x->n),
			    br_median(x->rns, (size_t)x->n),
			    br_median(x->mns, (size_t)x->n),
			    br_median(x->drops, (size_t)x->n));
		}
	printf("\n# against the targets (tern-fwd / kernel goodput, same "
	       "run; retransmits no more than the kernel's)\n");
	for (unsigned c = 0; c < NCASES; c++)
		for (int ro = 0; ro < R_KERN; ro++) {
			const struct cell *x = &C[ro][c], *k = &C[R_KERN][c];
			double kg = br_median(k->gp, (size_t)k->n);
			double g = kg > 0 ?
			    br_median(x->gp, (size_t)x->n) / kg :
			    0;

			if (x->n == 0 || k->n == 0)
				continue;
			printf(
			    "%-8s %-32s goodput %.2fx (target >= %.1fx: %s); "
			    "retransmits %.0f vs %.0f (%s)\n",
			    rname[ro], cname(c, nm, sizeof(nm)), g, target[ro],
			    g >= target[ro] ? "met" : "NOT met",
			    br_median(x->retr, (size_t)x->n),
			    br_median(k->retr, (size_t)k->n),
			    br_median(x->retr, (size_t)x->n) <=
				    br_median(k->retr, (size_t)k->n) ?
				"met" :
				"NOT met");
		}
	for (unsigned c = 0; c < NCASES; c++)
		for (int ro = 0; ro < R_KERN; ro++) {
			const struct cell *x = &C[ro][c], *k = &C[R_KERN][c];

			if (x->n == 0)
				continue;
			snprintf(extra, sizeof(extra),
			    "\"backend\":\"%s\",\"tool\":\"iperf3\","
			    "\"duration_s\":%g,\"mss\":%d,\"topology\":\"veth "
			    "client-router-server netns\"",
			    ritem[ro], G.secs, TC_MSS);
			cname(c, nm, sizeof(nm));
			br_bench_line("tcp", nm, "goodput", "bit/s", x->gp,
			    (size_t)x->n, "kernel", k->gp, (size_t)k->n,
			    "higher", extra);
			br_bench_line("tcp", nm, "retransmits", "segments",
			    x->retr, (size_t)x->n, "kernel", k->retr,
			    (size_t)k->n, "lower", extra);
			br_bench_line("tcp", nm, "router_ns_per_KiB", "ns",
			    x->rns, (size_t)x->n, "kernel", k->rns,
			    (size_t)k->n, "lower", extra);
			br_bench_line("tcp", nm, "machine_ns_per_KiB", "ns",
			    x->mns, (size_t)x->n, "kernel", k->mns,
			    (size_t)k->n, "lower", extra);
			br_bench_line("tcp", nm, "router_drops", "packets",
			    x->drops, (size_t)x->n, NULL, NULL, 0, "lower",
			    extra);
		}
}

static bool
has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; *p != '\0';) {
		size_t l = strcspn(p, ",");

		if (l == n && strncmp(p, item, n) == 0)
			return (true);
		p += l + (p[l] == ',');
	}
	return (false);
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: bench-tcp [--quick] [--rounds=N] [--secs=S] "
	    "[--backends=af_xdp,af_packet] [--offloads=off,on] "
	    "[--fwd-args='...']\n");
	return (2);
}

int
main(int argc, char **argv)
{
	char path[PATH_MAX + 32];
	const char *offl = "off,on";
	int nmeasured = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	G.rounds = 3;
	G.secs = 5;
	G.backends = "af_xdp,af_packet";
	G.fwd_args = "";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			G.quick = true;
			G.rounds = 1;
			G.secs = 1;
		} else if (strncmp(argv[i], "--rounds=", 9) == 0)
			G.rounds = atoi(argv[i] + 9);
		else if (strncmp(argv[i], "--secs=", 7) == 0)
			G.secs = atof(argv[i] + 7);
		else if (strncmp(argv[i], "--backends=", 11) == 0)
			G.backends = argv[i] + 11;
		else if (strncmp(argv[i], "--fwd-args=", 11) == 0)
			G.fwd_args = argv[i] + 11;
		else if (strncmp(argv[i], "--offloads=", 11) == 0)
			offl = argv[i] + 11;
		else
			return (usage());
	}
	G.offl = (has(offl, "off") ? 1 : 0) | (has(offl, "on") ? 2 : 0);
	if (G.rounds < 1 || G.rounds > TC_ROUNDS_MAX || G.secs < 1 ||
	    G.offl == 0)
		return (usage());
	if (lc_build_bench_check("bench-tcp") != 0)
		return (1);
	printf("# bench-tcp: built with %s\n", lc_build_flags());
	if (geteuid() != 0 || br_sh("ip netns list >/dev/null 2>&1") != 0 ||
	    br_sh("command -v iperf3 >/dev/null 2>&1") != 0) {
		printf("bench-tcp: needs root, ip netns and iperf3: skipped\n");
		return (0);
	}
	if (br_init(&G.b, "bt") != 0) {
		perror("bench-tcp: init");
		return (1);
	}
	snprintf(path, sizeof(path), "%s/tern-fwd", G.b.bin);
	if (access(path, X_OK) != 0) {
		printf("bench-tcp: %s not built: skipped\n", path);
		return (0);
	}
	if (br_lib(&G.b, "topo", false, NULL) != 0 ||
	    br_sh("ip netns exec %s iperf3 -s -p %d -D -I '%s/iperf3.pid' "
		  ">/dev/null 2>&1",
		NS_S, TC_PORT, G.b.dir) != 0) {
		fprintf(stderr, "bench-tcp: namespaces or server failed\n");
		return (1);
	}
	usleep(300000);
	printf("# topology: client ns --veth-- router ns --veth-- server ns "
	       "(tests/lib/netns.sh); iperf3 -c 198.18.2.2 -M %d -t %g%s from "
	       "the client ns, server in the server ns; routers alternated "
	       "each round: tern-fwd on AF_XDP, on AF_PACKET (host path off), "
	       "the router ns's kernel (ip_forward=1); %d rounds; hosts' "
	       "offloads off (netns.sh) and on (GSO/TSO/GRO/tx csum); %ld "
	       "CPUs shared, not pinned\n",
	    TC_MSS, G.secs, G.quick ? "" : " -O 1", G.rounds,
	    sysconf(_SC_NPROCESSORS_ONLN));
	for (int round = 1; round <= G.rounds; round++)
		for (int ro = 0; ro < NR; ro++) {
			if (ro != R_KERN && !has(G.backends, ritem[ro]))
				continue;
			if (br_sh("bash '%s/tests/bench/lib_hostpath.sh' "
				  "kernel %s %s",
				G.b.root, ro == R_KERN ? "on" : "off",
				G.b.suffix) != 0 ||
			    (ro != R_KERN && tc_fwd_start(ro) != 0)) {
				fprintf(stderr, "bench-tcp: %s did not start\n",
				    rname[ro]);
				tc_fwd_stop();
				return (1);
			}
			tc_round(ro, round);
			if (ro != R_KERN)
				tc_fwd_stop();
		}
	tc_report();
	(void)br_sh("kill $(cat '%s/iperf3.pid') 2>/dev/null", G.b.dir);
	for (int ro = 0; ro < NR; ro++)
		for (unsigned c = 0; c < NCASES; c++)
			nmeasured += C[ro][c].n;
	br_cleanup();
	return (nmeasured > 0 ? 0 : 1);
}
