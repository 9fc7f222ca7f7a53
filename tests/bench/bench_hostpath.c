/* tests/bench/bench_hostpath.c: bench-hostpath: tern-fwd's host path (issue
 * 20, docs/hostpath.md) against the Linux kernel owning the same interfaces,
 * in the namespaces of tests/lib/netns.sh, alternated round by round: TCP
 * goodput (iperf3) from the client ns to a server in the router ns at the
 * router's address, TCP echo round trips to it, and forwarding from the
 * client ns to the server ns with and without a flood of packets aimed at
 * the router's own address. tern-fwd runs on AF_XDP and on AF_PACKET ports;
 * the peer is the router namespace's kernel with the addresses on rc0 and
 * rs0 (netns_router_kernel on). */
#include "bench_router.h"

#include <dirent.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define HP_IPERF_PORT 5201
#define HP_ECHO_PORT  7007
#define HP_FWD_PORT   7777 /* the forwarded stream, to the server */
#define HP_FLOOD_PORT 9	   /* the flood, to the router's address */
#define HP_BATCH      32
#define HP_PAYLOAD    18 /* 60-byte frames (64 with the FCS) */
#define HP_ECHO_BYTES 64
#define HP_ROUNDS_MAX 8

#define HP_CLIENT_IP 0xc6120102u /* 198.18.1.2 */
#define HP_RTR_C_IP  0xc6120101u /* 198.18.1.1 */
#define HP_SERVER_IP 0xc6120202u /* 198.18.2.2 */

/* tern-fwd on AF_XDP ports, on AF_PACKET ports, the kernel */
enum { R_XDP, R_AFP, R_KERN, NR };
static const char *const rname[NR] = {"fwd-xdp", "fwd-afp", "kernel"};
static const char *const ritem[R_KERN] = {"af_xdp", "af_packet"};
static const char *const rbackend[R_KERN] = {"xdp", "afpacket"};
/* goodput through the host path, at least this much of the kernel's */
static const double goodput_target[R_KERN] = {0.5, 0.3};
#define RTT_P50_TARGET 2.0 /* at most this many times the kernel's */

struct cell {
	double gp[HP_ROUNDS_MAX];			  /* goodput, bit/s */
	double p50[HP_ROUNDS_MAX], p99[HP_ROUNDS_MAX];	  /* echo RTT, us */
	double pps[HP_ROUNDS_MAX], pps_fl[HP_ROUNDS_MAX]; /* delivered */
	double keep[HP_ROUNDS_MAX];			  /* pps_fl / pps */
	double ns[HP_ROUNDS_MAX], ns_fl[HP_ROUNDS_MAX];	  /* router CPU/pkt */
	double fl_rate[HP_ROUNDS_MAX]; /* flood achieved, pps */
	double up_drop[HP_ROUNDS_MAX]; /* host path drops in the flood */
	double punt_full[HP_ROUNDS_MAX];
	double maxdel[HP_ROUNDS_MAX]; /* delivered pps at the full rate */
	int n, ngp, nrtt;
};
static struct cell C[NR];

/* One forwarding trial. */
struct ftrial {
	double rate;			      /* asked, pps (0: full) */
	double dur, sent, fl_sent, delivered; /* s, packets */
	double loss;			      /* fraction */
	double router_ns;		      /* tern-fwd run time or softirq */
	uint64_t up, up_drop, punt_full, ring_full; /* deltas (tern-fwd) */
	uint64_t noports; /* router ns Udp NoPorts (kernel) */
};

static struct {
	struct br b;
	bool quick;
	int rounds;
	double iperf_s, trial_s, flood_pps;
	unsigned echo_n;
	int steps; /* of each zero-loss search */
	const char *fwd_args;
	const char *backends;
	pid_t fwd_pid, echo_pid;
	int guard_fd;
	long clk_tck;
	bool have_iperf;
	int rcpu; /* the router side's CPU: tern-fwd, the servers */
	bool failed;
} G;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

#define NS_C br_ns_name(&G.b, 'c')
#define NS_R br_ns_name(&G.b, 'r')
#define NS_S br_ns_name(&G.b, 's')

/* ---- cleanup, also when killed ------------------------------------------ */

/* Every process we started left its pid in DIR/NAME.pid (tern-fwd, the
 * echo server, iperf3's server): killed. */
static void
hp_kill_all(void)
{
	if (G.fwd_pid > 0) {
		kill(G.fwd_pid, SIGKILL);
		waitpid(G.fwd_pid, NULL, 0);
		G.fwd_pid = 0;
	}
	if (G.echo_pid > 0) {
		kill(G.echo_pid, SIGKILL);
		waitpid(G.echo_pid, NULL, 0);
		G.echo_pid = 0;
	}
	(void)br_sh("for f in '%s'/*.pid; do [ -f \"$f\" ] && kill -9 "
		    "$(cat \"$f\") 2>/dev/null; rm -f \"$f\"; done",
	    G.b.dir);
}

static void
hp_on_signal(int sig)
{
	(void)sig;
	hp_kill_all();
	br_cleanup();
	_exit(130);
}

/* A process of its own session that waits for our death (EOF on a pipe),
 * however it comes, then kills what we started and removes the namespaces
 * and the temp dir (as bench-forward's). */
static void
hp_guardian(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return;
	if (pid == 0) {
		int fd;

		close(p[1]);
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		(void)br_sh("for f in '%s'/*.pid; do [ -f \"$f\" ] && kill -9 "
			    "$(cat \"$f\") 2>/dev/null; done; sleep 0.2",
		    G.b.dir);
		(void)br_lib(&G.b, "cleanup", true, NULL);
		if (strncmp(G.b.dir, "/tmp/tern-", 10) == 0)
			(void)br_sh("rm -rf '%s'", G.b.dir);
		_exit(0);
	}
	close(p[0]);
	G.guard_fd = p[1];
}

/* ---- CPU accounting (as bench-forward) ---------------------------------- */

/* This thread on CPU cpu, or on all CPUs (cpu < 0). */
static void
hp_pin(int cpu)
{
	cpu_set_t cs;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&cs);
	for (long i = 0; i < n; i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &cs);
	(void)sched_setaffinity(0, sizeof(cs), &cs);
}

/* ---- shell output ----------------------------------------------------------- */

/* The first line of a shell command's output as a number (0 if none). */
static double hp_sh_num(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static double
hp_sh_num(const char *fmt, ...)
{
	char cmd[2048], buf[128] = "";
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if ((f = popen(cmd, "r")) == NULL)
		return (0);
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	pclose(f);
	return (atof(buf));
}

/* The packets the server's eth0 received (veth counts them as its peer,
 * the router's rs0, sent them; the sink drops them after). */
static double
hp_server_rx(void)
{
	return (hp_sh_num("ip netns exec %s cat "
			  "/sys/class/net/eth0/statistics/rx_packets",
	    NS_S));
}

/* The router namespace's UDP datagrams to a port nobody listens on. */
static double
hp_router_noports(void)
{
	return (hp_sh_num("ip netns exec %s awk '/^Udp:/ { if (!h) { for (i "
			  "= 1; i <= NF; i++) if ($i == \"NoPorts\") c = i; h "
			  "= 1 } else print $c }' /proc/net/snmp",
	    NS_R));
}

/* ---- the server's sink: a tc program at eth0's ingress that drops -------- */

/* The forwarded stream ends in the server's eth0: a program at its clsact
 * ingress (return TC_ACT_SHOT for IPv4, TC_ACT_OK for the rest, so that
 * the server still answers ARP) drops it before the server's IP stack,
 * which would otherwise spend the CPU of whoever sent the frame (on veth
 * the receive runs in the sender's transmit) on UDP to a closed port and
 * its ICMP errors. 0 or -1. */
static int
hp_sink(void)
{
	struct bpf_insn insn[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = TC_ACT_OK},
	    {.code = BPF_LDX | BPF_MEM | BPF_W,
		.dst_reg = BPF_REG_2,
		.src_reg = BPF_REG_1,
		.off = offsetof(struct __sk_buff, protocol)},
	    {.code = BPF_JMP | BPF_JNE | BPF_K,
		.dst_reg = BPF_REG_2,
		.off = 1,
		.imm = htons(ETH_P_IP)},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = TC_ACT_SHOT},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	int fd, self, rv;
	unsigned ifx;

	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "hp_sink", "GPL", insn,
	    sizeof(insn) / sizeof(insn[0]), NULL);
	if (fd < 0) {
		fprintf(stderr, "bench-hostpath: sink program: %s\n",
		    strerror(-fd));
		return (-1);
	}
	if ((self = tt_netns_enter(NS_S)) < 0)
		return (-1);
	if ((ifx = if_nametoindex("eth0")) == 0)
		rv = -ENODEV;
	else {
		LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = (int)ifx,
		    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .prog_fd = fd);

		rv = bpf_tc_hook_create(&h);
		if (rv == -EEXIST)
			rv = 0;
		if (rv == 0)
			rv = bpf_tc_attach(&h, &o);
	}
	(void)tt_netns_leave(self);
	close(fd); /* the filter holds the program */
	if (rv != 0)
		fprintf(stderr, "bench-hostpath: sink attach: %s\n",
		    strerror(-rv));
	return (rv == 0 ? 0 : -1);
}

/* ---- the servers in the router namespace ------------------------------------ */

/* A TCP echo server on 0.0.0.0:HP_ECHO_PORT in the router ns, one
 * connection at a time, in a child of ours. 0 or -1. */
static int
hp_echo_server(void)
{
	int p[2], s, one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET,
	    .sin_port = htons(HP_ECHO_PORT)};
	char c = 0, path[PATH_MAX + 16];
	FILE *f;

	if (pipe(p) != 0)
		return (-1);
	fflush(stdout);
	if ((G.echo_pid = fork()) < 0)
		return (-1);
	if (G.echo_pid == 0) {
		int back = tt_netns_enter(NS_R);

		close(p[0]);
		if (back < 0)
			_exit(1);
		close(back);
		hp_pin(G.rcpu);
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		    listen(s, 4) != 0)
			_exit(1);
		(void)write(p[1], &c, 1);
		close(p[1]);
		for (;;) {
			char buf[4096];
			ssize_t n;
			int cs = accept(s, NULL, NULL);

			if (cs < 0)
				continue;
			setsockopt(cs, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof(one));
			while ((n = read(cs, buf, sizeof(buf))) > 0)
				if (write(cs, buf, (size_t)n) != n)
					break;
			close(cs);
		}
	}
	close(p[1]);
	snprintf(path, sizeof(path), "%s/echo.pid", G.b.dir);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%d\n", (int)G.echo_pid);
		fclose(f);
	}
	s = read(p[0], &c, 1) == 1 ? 0 : -1;
	close(p[0]);
	return (s);
}

/* iperf3's server in the router ns, on every address (the router's, on
 * the TAP or on rc0, whichever router runs). 0 or -1. */
static int
hp_iperf_server(void)
{
	char path[PATH_MAX + 16];

	if (br_sh("ip netns exec %s taskset -c %d iperf3 -s -p %d -D -I "
		  "'%s/iperf3.pid' >/dev/null 2>&1",
		NS_R, G.rcpu, HP_IPERF_PORT, G.b.dir) != 0)
		return (-1);
	snprintf(path, sizeof(path), "%s/iperf3.pid", G.b.dir);
	for (int i = 0; i < 100; i++) {
		if (access(path, F_OK) == 0)
			return (0);
		usleep(20000);
	}
	return (-1);
}

/* ---- the routers ----------------------------------------------------------------- */

static int
hp_fwd_call(unsigned method, const ProtobufCMessage *m, ProtobufCMessage **rep,
    unsigned ms)
{
	int st = ipc_call_wait(G.b.fwd, method, m, ms, G.b.ar, rep, &G.b.err);

	if (st != IPC_OK) {
		fprintf(stderr, "bench-hostpath: fwd: %s %s\n",
		    ipc_status_str(st), G.b.err.msg);
		return (-1);
	}
	return (0);
}

/* Starts tern-fwd in the router ns on the router side's CPU (with the
 * servers) with rc0 and rs0 on backend, host path on, and more options
 * (spin: --spin-us=1); returns when both TAPs have their addresses. 0 or
 * -1. */
static int
hp_fwd_start(int ro, bool spin1)
{
	Fwd__IfConfigBatch ib = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic[2], *icp[2];
	Fwd__IfAddr ia[2], *iap[2];
	ProtobufCMessage *rep;
	char pidf[PATH_MAX + 16];
	FILE *f;
	int pid = 0;

	snprintf(pidf, sizeof(pidf), "%s/fwd.pid", G.b.dir);
	if (br_sh("ip netns exec %s taskset -c %d %s/tern-fwd --rundir %s "
		  "--log-level err %s %s %s </dev/null >>%s/fwd.log 2>&1 & "
		  "echo $! >%s",
		NS_R, G.rcpu, G.b.bin, G.b.rundir,
		ro == R_XDP ? "--xdp-tx=ring" : "", spin1 ? "--spin-us=1" : "",
		G.fwd_args, G.b.dir, pidf) != 0)
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
		fprintf(stderr, "bench-hostpath: tern-fwd does not answer\n");
		(void)br_sh("tail -5 '%s/fwd.log'", G.b.dir);
		return (-1);
	}
	for (int i = 0; i < 2; i++) {
		fwd__if_config__init(&ic[i]);
		fwd__if_addr__init(&ia[i]);
		ic[i].name = (char *)(i ? "rs0" : "rc0");
		ic[i].enabled = true;
		ic[i].backend = (char *)rbackend[ro];
		ic[i].host_path = FWD__HOST_PATH__HOST_PATH_ENABLE;
		ia[i].addr = htonl(i ? 0xc6120201u : HP_RTR_C_IP);
		ia[i].len = 24;
		iap[i] = &ia[i];
		ic[i].addrs = &iap[i];
		ic[i].n_addrs = 1;
		icp[i] = &ic[i];
	}
	ib.interfaces = icp;
	ib.n_interfaces = 2;
	if (hp_fwd_call(FWD__METHOD__IF_CONFIG, &ib.base, &rep, 5000) != 0)
		return (-1);
	if (!((Fwd__IfConfigAck *)rep)->ok) {
		fprintf(stderr, "bench-hostpath: IF_CONFIG refused: %s\n",
		    ((Fwd__IfConfigAck *)rep)->error);
		return (-1);
	}
	lc_arena_reset(G.b.ar);
	if (br_sh("bash '%s/tests/bench/lib_hostpath.sh' taps %s 10", G.b.root,
		G.b.suffix) != 0) {
		fprintf(stderr, "bench-hostpath: no TAPs with addresses\n");
		return (-1);
	}
	return (0);
}

/* SIGTERM: a clean exit removes the TAPs and the tc drops. */
static void
hp_fwd_stop(void)
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
	(void)br_sh("rm -f '%s/fwd.pid'", G.b.dir);
}

/* tern-fwd's host path counters of rc0 and its punt_full drops. */
static void
hp_fwd_ctrs(uint64_t *up, uint64_t *up_drop, uint64_t *punt_full,
    uint64_t *ring_full)
{
	Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	ProtobufCMessage *rep;

	*up = *up_drop = *punt_full = *ring_full = 0;
	q.name = (char *)"rc0";
	q.counters = true;
	if (hp_fwd_call(FWD__METHOD__QUERY_INTERFACES, &q.base, &rep, 2000) ==
	    0) {
		const Fwd__InterfaceList *l = (const Fwd__InterfaceList *)rep;

		for (size_t i = 0; i < l->n_interfaces; i++) {
			const Fwd__Interface *x = l->interfaces[i];

			if (x->host != NULL) {
				*up += x->host->up_packets;
				*up_drop += x->host->up_dropped;
			}
			if (x->counters != NULL)
				*ring_full += x->counters->rx_ring_full;
		}
	}
	lc_arena_reset(G.b.ar);
	if (hp_fwd_call(FWD__METHOD__QUERY_DROPS, &e.base, &rep, 2000) == 0) {
		const Fwd__DropList *l = (const Fwd__DropList *)rep;

		for (size_t i = 0; i < l->n_drops; i++)
			if (strcmp(l->drops[i]->reason, "punt_full") == 0)
				*punt_full += l->drops[i]->count;
	}
	lc_arena_reset(G.b.ar);
}

/* The kernel of the router ns owns rc0 and rs0 (addresses, ip_forward=1),
 * or not; lib_hostpath.sh first removes what a tern-fwd that did not exit
 * cleanly left (TAPs, the tc drops on the ports). 0 or -1. */
static int
hp_kernel(bool on)
{
	return (br_sh("bash '%s/tests/bench/lib_hostpath.sh' kernel %s %s",
	    G.b.root, on ? "on" : "off", G.b.suffix));
}

/* ---- (i) TCP goodput: iperf3 ------------------------------------------------- */

/* iperf3 from the client ns (CPU 0) to the router's address for G.iperf_s
 * seconds: the receiver's bit/s, 0 on failure. */
static double
hp_goodput(void)
{
	char cmd[512], *buf, *p;
	size_t len = 0, cap = 1 << 20;
	double bps = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	    "ip netns exec %s taskset -c 0 iperf3 -c 198.18.1.1 -p %d -t %g "
	    "%s -J 2>&1",
	    NS_C, HP_IPERF_PORT, G.iperf_s, G.quick ? "" : "-O 1");
	if ((buf = malloc(cap)) == NULL || (f = popen(cmd, "r")) == NULL) {
		free(buf);
		return (0);
	}
	while (len + 1 < cap && (p = fgets(buf + len, (int)(cap - len), f)))
		len += strlen(p);
	buf[len] = '\0';
	pclose(f);
	if ((p = strstr(buf, "\"sum_received\"")) != NULL &&
	    (p = strstr(p, "\"bits_per_second\":")) != NULL)
		bps = strtod(p + 18, NULL);
	else if ((p = strstr(buf, "\"error\"")) != NULL)
		printf("  iperf3: %.200s\n", p);
	free(buf);
	return (bps);
}

/* ---- (ii) TCP echo round trips ------------------------------------------------ */

/* G.echo_n round trips of HP_ECHO_BYTES from the client ns (this thread on
 * CPU 0) to the echo server at the router's address, after 50 not
 * counted: p50 and p99 in us. 0 or -1. */
static int
hp_rtt(double *p50, double *p99)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	    .sin_port = htons(HP_ECHO_PORT),
	    .sin_addr.s_addr = htonl(HP_RTR_C_IP)};
	struct timeval tv = {.tv_sec = 2};
	char buf[HP_ECHO_BYTES];
	double *v = calloc(G.echo_n, sizeof(*v));
	int s = -1, back, one = 1, rv = -1;

	if (v == NULL || (back = tt_netns_enter(NS_C)) < 0) {
		free(v);
		return (-1);
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	(void)tt_netns_leave(back);
	if (s < 0)
		goto out;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		printf("  echo: connect: %s\n", strerror(errno));
		goto out;
	}
	hp_pin(0);
	memset(buf, 'e', sizeof(buf));
	for (unsigned i = 0; i < G.echo_n + 50; i++) {
		uint64_t t0 = now_ns();
		size_t got = 0;

		if (write(s, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			goto out;
		while (got < sizeof(buf)) {
			ssize_t n = read(s, buf + got, sizeof(buf) - got);

			if (n <= 0) {
				printf("  echo: read: %s\n",
				    n < 0 ? strerror(errno) : "closed");
				goto out;
			}
			got += (size_t)n;
		}
		if (i >= 50)
			v[i - 50] = (double)(now_ns() - t0) / 1e3;
	}
	*p50 = br_pct(v, G.echo_n, 50);
	*p99 = br_pct(v, G.echo_n, 99);
	rv = 0;
out:
	hp_pin(-1);
	if (s >= 0)
		close(s);
	free(v);
	return (rv);
}

/* ---- (iii) forwarding, with and without a flood at the router ----------------- */

/* The sender, in a child in the client ns on CPU 0, for dur s: 60-byte UDP
 * frames to the server (sendmmsg, up to HP_BATCH a call) at rate pps (0: as
 * fast as it goes) and, when flood_pps > 0, interleaved at that rate,
 * frames to the router's address, UDP port 9 (nobody listens: the router's
 * kernel answers port unreachable, rate-limited). Writes "sent
 * flood_sent" to fd. */
static void
hp_sender(int fd, double dur, double rate, double flood_pps)
{
	struct sockaddr_in fa = {.sin_family = AF_INET,
	    .sin_port = htons(HP_FWD_PORT),
	    .sin_addr.s_addr = htonl(HP_SERVER_IP)};
	struct sockaddr_in la = {.sin_family = AF_INET,
	    .sin_port = htons(HP_FLOOD_PORT),
	    .sin_addr.s_addr = htonl(HP_RTR_C_IP)};
	struct mmsghdr m[64];
	struct iovec iov;
	char pl[HP_PAYLOAD], out[64];
	uint64_t t0, end, sent = 0, fl = 0;
	int sf, sl, back;

	if ((back = tt_netns_enter(NS_C)) < 0)
		_exit(1);
	close(back);
	hp_pin(0);
	sf = socket(AF_INET, SOCK_DGRAM, 0);
	sl = socket(AF_INET, SOCK_DGRAM, 0);
	if (sf < 0 || sl < 0 ||
	    connect(sf, (struct sockaddr *)&fa, sizeof(fa)) != 0 ||
	    connect(sl, (struct sockaddr *)&la, sizeof(la)) != 0)
		_exit(1);
	memset(pl, 0, sizeof(pl));
	iov.iov_base = pl;
	iov.iov_len = sizeof(pl);
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 64; i++) {
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now_ns();
	end = t0 + (uint64_t)(dur * 1e9);
	for (uint64_t t = t0; t < end; t = now_ns()) {
		double el = (double)(t - t0) / 1e9, due;
		int n;

		if (flood_pps > 0) {
			due = flood_pps * el - (double)fl;
			while (due >= 1) {
				unsigned k = due > 64 ? 64 : (unsigned)due;

				if ((n = sendmmsg(sl, m, k, MSG_DONTWAIT)) <= 0)
					break;
				fl += (unsigned)n;
				due -= n;
			}
		}
		due = rate > 0 ? rate * el - (double)sent : HP_BATCH;
		if (due >= 1 &&
		    (n = sendmmsg(sf, m,
			 due > HP_BATCH ? HP_BATCH : (unsigned)due,
			 MSG_DONTWAIT)) > 0)
			sent += (unsigned)n;
	}
	snprintf(out, sizeof(out), "%llu %llu\n", (unsigned long long)sent,
	    (unsigned long long)fl);
	(void)write(fd, out, strlen(out));
	_exit(0);
}

/* One trial of dur s at rate (0: full), flood or not, router ro. */
static void
hp_ftrial(int ro, double dur, double rate, bool flood, struct ftrial *r)
{
	uint64_t up0 = 0, ud0 = 0, pf0 = 0, rf0 = 0;
	double rx0, c0, np0 = 0;
	char buf[64] = "";
	int p[2];
	pid_t pid;
	unsigned long long s = 0, fl = 0;

	memset(r, 0, sizeof(*r));
	r->rate = rate;
	if (ro != R_KERN)
		hp_fwd_ctrs(&up0, &ud0, &pf0, &rf0);
	else
		np0 = hp_router_noports();
	rx0 = hp_server_rx();
	if (pipe(p) != 0)
		return;
	fflush(stdout);
	c0 = ro != R_KERN ? br_task_ns(G.fwd_pid) : br_softirq_ns();
	if ((pid = fork()) == 0) {
		close(p[0]);
		hp_sender(p[1], dur, rate, flood ? G.flood_pps : 0);
	}
	close(p[1]);
	if (pid > 0) {
		ssize_t n = read(p[0], buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		waitpid(pid, NULL, 0);
	}
	close(p[0]);
	usleep(50000); /* what is in flight */
	r->router_ns = (ro != R_KERN ? br_task_ns(G.fwd_pid) :
				       br_softirq_ns()) -
	    c0;
	r->dur = dur;
	if (sscanf(buf, "%llu %llu", &s, &fl) == 2) {
		r->sent = (double)s;
		r->fl_sent = (double)fl;
	}
	r->delivered = hp_server_rx() - rx0;
	/* the server's eth0 also counts the router's ARP; a frame is lost
	 * or not */
	r->loss = r->sent > 0 ? 1.0 - r->delivered / r->sent : 1;
	if (r->loss < 0)
		r->loss = 0;
	if (ro != R_KERN) {
		uint64_t up, ud, pf, rf;

		hp_fwd_ctrs(&up, &ud, &pf, &rf);
		r->up = up - up0;
		r->up_drop = ud - ud0;
		r->punt_full = pf - pf0;
		r->ring_full = rf - rf0;
	} else
		r->noports = (uint64_t)(hp_router_noports() - np0);
}

static void
hp_log_ftrial(int ro, int round, bool flood, const char *what,
    const struct ftrial *r)
{
	double d = r->delivered > 0 ? r->delivered : 1;

	printf("  %-8s r%d forward %-6s %-6s offered %8.0f delivered %8.0f "
	       "pps loss %7.4f%% router %5.0f ns/pkt",
	    rname[ro], round, flood ? "+flood" : "alone", what,
	    r->sent / r->dur, r->delivered / r->dur, r->loss * 100,
	    r->router_ns / d);
	if (flood)
		printf(" flood %6.0f pps", r->fl_sent / r->dur);
	if (ro != R_KERN)
		printf(" host up %llu up_drop %llu punt_full %llu "
		       "rx_ring_full %llu",
		    (unsigned long long)r->up, (unsigned long long)r->up_drop,
		    (unsigned long long)r->punt_full,
		    (unsigned long long)r->ring_full);
	else if (flood)
		printf(" udp noports %llu", (unsigned long long)r->noports);
	printf("\n");
}

/* The zero-loss forwarding rate (loss < 0.1%), flood or not: a trial at
 * the sender's full rate, and if it lost, a binary search below 1.5x what
 * it delivered. The trials at full rate and at the rate found into *max
 * and *zl (zl zeroed when no rate passed). */
static double
hp_search(int ro, int round, bool flood, struct ftrial *max, struct ftrial *zl)
{
	struct ftrial t;
	double lo = 0, hi, ok = 0;

	memset(zl, 0, sizeof(*zl));
	hp_ftrial(ro, G.trial_s, 0, flood, max);
	hp_log_ftrial(ro, round, flood, "max", max);
	if (max->loss < 0.001) {
		*zl = *max;
		return (max->sent / max->dur);
	}
	hi = (max->delivered * 1.5 < max->sent ? max->delivered * 1.5 :
						 max->sent) /
	    max->dur;
	if (hi < 1000)
		hi = 1000;
	for (int s = 0; s < G.steps; s++) {
		double mid = (lo + hi) / 2;

		hp_ftrial(ro, G.trial_s, mid, flood, &t);
		hp_log_ftrial(ro, round, flood, "search", &t);
		if (t.loss < 0.001) {
			lo = mid;
			ok = t.sent / t.dur;
			*zl = t;
		} else
			hi = mid;
	}
	return (ok);
}

/* ---- one router, one round ---------------------------------------------------------- */

static void
hp_round(int ro, int round)
{
	struct cell *c = &C[ro];
	struct ftrial w, amax, azl, fmax, fzl;
	double p50 = 0, p99 = 0, gp = 0, za, zf;

	if (G.have_iperf) {
		gp = hp_goodput();
		printf("  %-8s r%d tcp goodput %8.1f Mbit/s\n", rname[ro],
		    round, gp / 1e6);
		if (gp > 0)
			c->gp[c->ngp++] = gp;
	}
	if (hp_rtt(&p50, &p99) == 0) {
		printf("  %-8s r%d tcp echo %u x %d B: rtt p50 %.1f p99 %.1f "
		       "us\n",
		    rname[ro], round, G.echo_n, HP_ECHO_BYTES, p50, p99);
		c->p50[c->nrtt] = p50;
		c->p99[c->nrtt++] = p99;
	}
	/* CPU per packet: a tern-fwd that sleeps when idle (--spin-us=1, as
	 * bench-forward's throughput runs), so that its run time follows its
	 * work; the default back-off (busy-polling 50 us) for (i) and (ii) */
	if (ro != R_KERN) {
		hp_fwd_stop();
		if (hp_fwd_start(ro, true) != 0) {
			printf("bench-hostpath: tern-fwd --spin-us=1 did not "
			       "start\n");
			G.failed = true;
			return;
		}
	}
	/* neighbours resolved, queues warm */
	hp_ftrial(ro, 0.2, 20000, false, &w);
	za = hp_search(ro, round, false, &amax, &azl);
	zf = hp_search(ro, round, true, &fmax, &fzl);
	c->pps[c->n] = za;
	c->pps_fl[c->n] = zf;
	c->keep[c->n] = za > 0 ? zf / za : 0;
	c->ns[c->n] = azl.router_ns / (azl.delivered > 0 ? azl.delivered : 1);
	c->ns_fl[c->n] = fzl.router_ns /
	    (fzl.delivered > 0 ? fzl.delivered : 1);
	c->fl_rate[c->n] = fzl.dur > 0 ? fzl.fl_sent / fzl.dur : 0;
	/* the host path's drops under the flood at full rate: what a flood
	 * with forwarding overloaded costs it */
	c->up_drop[c->n] = (double)fmax.up_drop;
	c->punt_full[c->n] = (double)fmax.punt_full;
	c->maxdel[c->n] = amax.delivered / amax.dur;
	c->n++;
}

/* ---- the report ------------------------------------------------------------------- */

static void
hp_extra(char *b, size_t n, int ro, const char *more)
{
	snprintf(b, n,
	    "\"backend\":\"%s\",\"topology\":\"veth client-router-server "
	    "netns\",\"server\":\"router ns, router address 198.18.1.1\"%s%s",
	    ro == R_KERN ? "kernel" : ritem[ro], more[0] ? "," : "", more);
}

static void
hp_report(void)
{
	const struct cell *k = &C[R_KERN];
	char extra[512], more[256];

	printf("\n# medians over rounds (min-max: the BENCH lines); zl: "
	       "zero-loss forwarding rate; ns/pkt: router CPU per packet at "
	       "it\n");
	printf("%-8s %14s %9s %9s %11s %11s %7s %9s %9s %9s %9s\n", "router",
	    "goodput-Mb/s", "rtt-p50", "rtt-p99", "zl-pps", "zl-pps-fl", "kept",
	    "ns/pkt", "ns/pkt-fl", "up_drop", "punt_full");
	for (int ro = 0; ro < NR; ro++) {
		const struct cell *c = &C[ro];

		if (c->n == 0)
			continue;
		printf(
		    "%-8s %14.1f %9.1f %9.1f %11.0f %11.0f %7.3f %9.0f %9.0f "
		    "%9.0f %9.0f\n",
		    rname[ro], br_median(c->gp, c->ngp) / 1e6,
		    br_median(c->p50, c->nrtt), br_median(c->p99, c->nrtt),
		    br_median(c->pps, c->n), br_median(c->pps_fl, c->n),
		    br_median(c->keep, c->n), br_median(c->ns, c->n),
		    br_median(c->ns_fl, c->n), br_median(c->up_drop, c->n),
		    br_median(c->punt_full, c->n));
	}
	printf("\n# against the targets (tern-fwd / kernel, same run)\n");
	for (int ro = 0; ro < R_KERN; ro++) {
		const struct cell *c = &C[ro];
		double kg = br_median(k->gp, k->ngp),
		       kp = br_median(k->p50, k->nrtt);
		double g = kg > 0 ? br_median(c->gp, c->ngp) / kg : 0;
		double l = kp > 0 ? br_median(c->p50, c->nrtt) / kp : 0;
		double kk = br_median(k->keep, k->n);

		if (c->n == 0)
			continue;
		if (c->ngp > 0 && k->ngp > 0)
			printf("%-8s goodput %.2fx the kernel's (target >= "
			       "%.1fx: %s)\n",
			    rname[ro], g, goodput_target[ro],
			    g >= goodput_target[ro] ? "met" : "NOT met");
		if (c->nrtt > 0 && k->nrtt > 0)
			printf("%-8s echo p50 %.2fx the kernel's (target <= "
			       "%.1fx: %s)\n",
			    rname[ro], l, RTT_P50_TARGET,
			    l <= RTT_P50_TARGET ? "met" : "NOT met");
		printf(
		    "%-8s forwarding under a %.0f pps flood keeps %.3f of "
		    "its zero-loss rate (kernel %.3f); %.2fx the kernel's under "
		    "the flood; host path drops %.0f, punt_full %.0f\n",
		    rname[ro], G.flood_pps, br_median(c->keep, c->n), kk,
		    br_median(k->pps_fl, k->n) > 0 ?
			br_median(c->pps_fl, c->n) /
			    br_median(k->pps_fl, k->n) :
			0,
		    br_median(c->up_drop, c->n), br_median(c->punt_full, c->n));
	}
	for (int ro = 0; ro < R_KERN; ro++) {
		const struct cell *c = &C[ro];

		if (c->n == 0)
			continue;
		snprintf(more, sizeof(more),
		    "\"tool\":\"iperf3\",\"duration_s\":%g,\"target_ratio\":%g",
		    G.iperf_s, goodput_target[ro]);
		hp_extra(extra, sizeof(extra), ro, more);
		if (c->ngp > 0)
			br_bench_line("hostpath", "tcp_goodput", "goodput",
			    "bit/s", c->gp, (size_t)c->ngp, "kernel", k->gp,
			    (size_t)k->ngp, "higher", extra);
		snprintf(more, sizeof(more),
		    "\"bytes\":%d,\"round_trips\":%u,\"target_ratio_p50\":%g",
		    HP_ECHO_BYTES, G.echo_n, RTT_P50_TARGET);
		hp_extra(extra, sizeof(extra), ro, more);
		if (c->nrtt > 0) {
			br_bench_line("hostpath", "tcp_echo_64B", "rtt_p50_us",
			    "us", c->p50, (size_t)c->nrtt, "kernel", k->p50,
			    (size_t)k->nrtt, "lower", extra);
			br_bench_line("hostpath", "tcp_echo_64B", "rtt_p99_us",
			    "us", c->p99, (size_t)c->nrtt, "kernel", k->p99,
			    (size_t)k->nrtt, "lower", extra);
		}
		snprintf(more, sizeof(more),
		    "\"frame_bytes\":60,\"flood_pps\":%g,\"flood_to\":\"198.18."
		    "1.1:9/udp\",\"trial_s\":%g",
		    G.flood_pps, G.trial_s);
		hp_extra(extra, sizeof(extra), ro, more);
		br_bench_line("hostpath", "forward_udp_64B", "zero_loss_pps",
		    "1/s", c->pps, (size_t)c->n, "kernel", k->pps, (size_t)k->n,
		    "higher", extra);
		br_bench_line("hostpath", "forward_udp_64B_flood",
		    "zero_loss_pps", "1/s", c->pps_fl, (size_t)c->n, "kernel",
		    k->pps_fl, (size_t)k->n, "higher", extra);
		br_bench_line("hostpath", "forward_udp_64B_flood",
		    "kept_of_alone", "1", c->keep, (size_t)c->n, "kernel",
		    k->keep, (size_t)k->n, "higher", extra);
		br_bench_line("hostpath", "forward_udp_64B",
		    "router_ns_per_pkt", "ns", c->ns, (size_t)c->n, "kernel",
		    k->ns, (size_t)k->n, "lower", extra);
		br_bench_line("hostpath", "forward_udp_64B_flood",
		    "router_ns_per_pkt", "ns", c->ns_fl, (size_t)c->n, "kernel",
		    k->ns_fl, (size_t)k->n, "lower", extra);
		br_bench_line("hostpath", "forward_udp_64B_flood",
		    "host_up_dropped", "packets", c->up_drop, (size_t)c->n,
		    NULL, NULL, 0, "lower", extra);
		br_bench_line("hostpath", "forward_udp_64B_flood", "punt_full",
		    "packets", c->punt_full, (size_t)c->n, NULL, NULL, 0,
		    "lower", extra);
	}
}

/* Every router measured something in every part that ran: else the run
 * (and make check's smoke run) fails. */
static bool
hp_measured(void)
{
	bool ok = true;

	for (int ro = 0; ro < NR; ro++) {
		const struct cell *c = &C[ro];

		if (c->n == 0)
			continue;
		if ((G.have_iperf && c->ngp < c->n) || c->nrtt < c->n ||
		    br_max(c->maxdel, (size_t)c->n) <= 0) {
			printf("bench-hostpath: %s measured nothing in a part "
			       "(goodput %d, echo %d, forwarding %.0f pps of "
			       "%d rounds)\n",
			    rname[ro], c->ngp, c->nrtt,
			    br_max(c->maxdel, (size_t)c->n), c->n);
			ok = false;
		}
	}
	return (ok);
}

/* ---- main ----------------------------------------------------------------------- */

static int
usage(void)
{
	fprintf(stderr,
	    "usage: bench-hostpath [--quick] [--rounds=N] [--iperf-s=S] "
	    "[--trial-s=S] [--steps=N] [--echo-n=N] [--flood-pps=N] "
	    "[--backends=af_xdp,af_packet] [--fwd-args='...']\n"
	    "  --iperf-s: each goodput run (default 5 s, first second "
	    "omitted); --trial-s: each forwarding trial (default 1 s); "
	    "--steps: of each zero-loss search (default 6); --echo-n: round "
	    "trips per echo run (default 5000); "
	    "--flood-pps: the flood at the router's address (default "
	    "100000)\n");
	return (2);
}

static bool
hp_has(const char *list, const char *item)
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

int
main(int argc, char **argv)
{
	char path[PATH_MAX + 32];

	setvbuf(stdout, NULL, _IOLBF, 0);
	G.rounds = 3;
	G.iperf_s = 5;
	G.trial_s = 1;
	G.echo_n = 5000;
	G.steps = 6;
	G.flood_pps = 100000;
	G.fwd_args = "";
	G.backends = "af_xdp,af_packet";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			G.quick = true;
			G.rounds = 1;
			G.iperf_s = 1;
			G.trial_s = 0.2;
			G.echo_n = 200;
			G.steps = 3;
		} else if (strncmp(argv[i], "--rounds=", 9) == 0)
			G.rounds = atoi(argv[i] + 9);
		else if (strncmp(argv[i], "--iperf-s=", 10) == 0)
			G.iperf_s = atof(argv[i] + 10);
		else if (strncmp(argv[i], "--trial-s=", 10) == 0)
			G.trial_s = atof(argv[i] + 10);
		else if (strncmp(argv[i], "--echo-n=", 9) == 0)
			G.echo_n = (unsigned)atoi(argv[i] + 9);
		else if (strncmp(argv[i], "--steps=", 8) == 0)
			G.steps = atoi(argv[i] + 8);
		else if (strncmp(argv[i], "--flood-pps=", 12) == 0)
			G.flood_pps = atof(argv[i] + 12);
		else if (strncmp(argv[i], "--backends=", 11) == 0)
			G.backends = argv[i] + 11;
		else if (strncmp(argv[i], "--fwd-args=", 11) == 0)
			G.fwd_args = argv[i] + 11;
		else
			return (usage());
	}
	if (G.rounds < 1 || G.rounds > HP_ROUNDS_MAX || G.iperf_s < 1 ||
	    G.trial_s <= 0 || G.echo_n < 10 || G.flood_pps < 0 || G.steps < 1 ||
	    G.steps > 20 ||
	    (!hp_has(G.backends, "af_xdp") && !hp_has(G.backends, "af_packet")))
		return (usage());
	if (lc_build_bench_check("bench-hostpath") != 0)
		return (1);
	printf("# bench-hostpath: built with %s\n", lc_build_flags());
	if (geteuid() != 0 || br_sh("ip netns list >/dev/null 2>&1") != 0) {
		printf("bench-hostpath: needs root and ip netns: skipped\n");
		return (0);
	}
	if (br_init(&G.b, "bh") != 0) {
		perror("bench-hostpath: init");
		return (1);
	}
	snprintf(path, sizeof(path), "%s/tern-fwd", G.b.bin);
	if (access(path, X_OK) != 0) {
		printf("bench-hostpath: %s not built: skipped\n", path);
		return (0);
	}
	G.have_iperf = br_sh("command -v iperf3 >/dev/null 2>&1") == 0;
	signal(SIGINT, hp_on_signal);
	signal(SIGTERM, hp_on_signal);
	signal(SIGHUP, hp_on_signal);
	hp_guardian();
	G.clk_tck = sysconf(_SC_CLK_TCK);
	G.rcpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	if (br_lib(&G.b, "topo", false, NULL) != 0) {
		fprintf(stderr,
		    "bench-hostpath: cannot build the namespaces\n");
		return (1);
	}
	if (hp_sink() != 0 || hp_echo_server() != 0 ||
	    (G.have_iperf && hp_iperf_server() != 0)) {
		fprintf(stderr, "bench-hostpath: servers or sink failed\n");
		hp_kill_all();
		return (1);
	}
	printf("# topology: client ns --veth-- router ns --veth-- server ns "
	       "(tests/lib/netns.sh); servers in the router ns on 0.0.0.0: "
	       "iperf3 (port %d) and a TCP echo (port %d, TCP_NODELAY); the "
	       "client reaches them at the router's address 198.18.1.1\n",
	    HP_IPERF_PORT, HP_ECHO_PORT);
	printf("# routers, alternated each round: tern-fwd on AF_XDP (copy "
	       "mode, --xdp-tx=ring) and on AF_PACKET ports with the host "
	       "path on (the TAPs h-rc0, h-rs0 hold the addresses), then the "
	       "router ns's kernel with the addresses on rc0 and rs0; %d "
	       "round%s\n",
	    G.rounds, G.rounds > 1 ? "s" : "");
	printf("# (i) %s; (ii) %u round trips of %d B, one connection, "
	       "client on CPU 0; (iii) UDP 60-byte frames client -> server "
	       "(198.18.2.2:%d, dropped by a tc program at the server's "
	       "eth0), sendmmsg from one thread on CPU 0, alone and with %.0f "
	       "pps to 198.18.1.1:%d interleaved by the same thread: "
	       "zero-loss rate (loss < 0.1%%: a trial at the full rate, then "
	       "a %d-step binary search below 1.5x what it delivered; trials "
	       "of %.2f s; delivered = the server eth0's rx_packets); host "
	       "path drops from the flood's full-rate trial\n",
	    G.have_iperf ? "iperf3 -c 198.18.1.1 from the client ns on CPU 0" :
			   "iperf3 not installed (scripts/deps.sh): no goodput",
	    G.echo_n, HP_ECHO_BYTES, HP_FWD_PORT, G.flood_pps, HP_FLOOD_PORT,
	    G.steps, G.trial_s);
	printf("# CPUs: clients and sender on CPU 0; tern-fwd and the servers "
	       "on CPU %d (taskset); the kernel's work in softirq wherever "
	       "the frames arrive (for the kernel router mostly CPU 0, inside "
	       "the client's send; for tern-fwd's host path CPU %d, inside "
	       "its TAP writes); machine has %ld CPUs; router CPU per packet: "
	       "tern-fwd's threads' run time, the kernel's softirq time (all "
	       "CPUs, tick-sampled)\n",
	    G.rcpu, G.rcpu, sysconf(_SC_NPROCESSORS_ONLN));
	for (int round = 1; round <= G.rounds; round++)
		for (int ro = 0; ro < NR; ro++) {
			uint64_t t0 = now_ns();

			if (ro != R_KERN && !hp_has(G.backends, ritem[ro]))
				continue;
			if (ro != R_KERN) {
				if (hp_kernel(false) != 0 ||
				    hp_fwd_start(ro, false) != 0) {
					hp_kill_all();
					return (1);
				}
				printf("# round %d: tern-fwd on %s pid %d up "
				       "with its host path in %.2f s\n",
				    round, ritem[ro], (int)G.fwd_pid,
				    (double)(now_ns() - t0) / 1e9);
			} else {
				if (hp_kernel(true) != 0) {
					fprintf(stderr,
					    "bench-hostpath: kernel "
					    "router failed\n");
					hp_kill_all();
					return (1);
				}
				printf("# round %d: the kernel owns rc0 and "
				       "rs0\n",
				    round);
			}
			hp_round(ro, round);
			if (ro != R_KERN) {
				printf("# tern-fwd threads' last CPUs:");
				(void)br_sh("for t in /proc/%d/task/*; do "
					    "printf ' %%s' $(awk '{print $39}' "
					    "$t/stat); done; echo",
				    (int)G.fwd_pid);
				hp_fwd_stop();
			}
		}
	hp_report();
	hp_kill_all();
	br_cleanup();
	return (hp_measured() && !G.failed ? 0 : 1);
}
