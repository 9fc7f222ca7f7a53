/* tests/bench/bench_forward.c: bench-forward: end to end through the router
 * namespace of tests/lib/netns.sh (client ns -- router ns -- server ns, veth),
 * tern-fwd on both port backends (AF_PACKET TPACKET_V2 and AF_XDP) against the
 * Linux kernel forwarding in the same topology, alternated, with one generator:
 * by default an XDP program (tests/bench/forward_gen.bpf.c, embedded) run with
 * BPF_PROG_RUN live frames out of the client's veth, or (--gen=afpacket, and
 * the fallback) an AF_PACKET TX ring in the client ns, in one pinned thread;
 * the hosts count, reflect (request/reply) and drop the frames in tc
 * programs at their eth0's ingress (tests/bench/forward_sink.bpf.c), or
 * (--sink=afpacket, and the fallback) that thread reads RX rings in the
 * server and client ns and reflects with a TX ring. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_router.h"
#include "libcommon/lc_embed.h"
#include "tests/lib/prefixset6.h"

#define BF_MAGIC     0x7e400000u /* | trial & 0xffff */
#define BF_DPORT     7777
#define BF_SPORT     10000 /* + flow */
#define BF_FLOWS     128
#define BF_FRAME     2048
#define BF_TX_FRAMES 4096 /* multiple of BF_FLOWS */
#define BF_RX_FRAMES 16384
#define BF_SEQ_MAX   (1u << 24)
#define BF_LAT_MAX   (1u << 21)
#define BF_BATCH     32
#define BF_PLOFF     42	 /* eth 14 + ip 20 + udp 8 */
#define BF_PLOFF6    62	 /* eth 14 + ipv6 40 + udp 8 */
#define BF_GEN_BATCH 256 /* XDP generator: frames per BPF_PROG_RUN call */

/* The XDP generator's object (forward_gen.bpf.c, built by
 * tests/bench/module.mk; empty when clang was missing). */
#ifdef BF_GEN_OBJ
LC_EMBED(bf_gen_obj, BF_GEN_OBJ);
#endif
/* The hosts' tc sink (forward_sink.bpf.c, likewise). */
#ifdef BF_SINK_OBJ
LC_EMBED(bf_sink_obj, BF_SINK_OBJ);
#endif

/* The XDP program's state (struct gen_state of forward_gen.bpf.c): one
 * mmap-ed array element the program and the bench share. */
struct bf_gen_state {
	uint32_t seq;	/* next sequence number = frames sent this trial */
	uint32_t magic; /* BF_MAGIC | trial */
	uint32_t v6;	/* IPv6 frames (62 header bytes) */
	uint32_t pad;
	uint64_t hdr[BF_FLOWS][8]; /* flow f's 42 or 62 header bytes, zero
				    * padded */
};
_Static_assert(sizeof(struct bf_gen_state) == 16 + 64 * BF_FLOWS,
    "struct gen_state of forward_gen.bpf.c");

enum { GEN_XDP, GEN_AFP };
static const char *const gen_name[] = {"xdp", "afpacket"};

/* The sink's state (struct sink_state of forward_sink.bpf.c). */
struct bf_sink_state {
	uint32_t magic; /* BF_MAGIC | trial; 0: none */
	uint32_t rr;	/* the server reflects */
	uint64_t srv_rx, cli_rx, dup, reord, lat_n;
	uint32_t last_seq[BF_FLOWS];
	uint64_t flow_rx[BF_FLOWS];
};
_Static_assert(sizeof(struct bf_sink_state) == 48 + 12 * BF_FLOWS,
    "struct sink_state of forward_sink.bpf.c");

/* Where the hosts take the bench's frames: tc programs at their eth0's
 * ingress (count, reflect, drop: forward_sink.bpf.c, the default), or
 * AF_PACKET RX rings read by this thread, with a TX ring reflecting, while
 * the hosts' kernels also receive and drop every frame (the fallback). */
enum { SINK_TC, SINK_AFP };
static const char *const sink_name[] = {"tc", "afpacket"};

static const uint8_t mac_client[6] = {2, 0x74, 0, 0, 1, 2};
static const uint8_t mac_rtr_c[6] = {2, 0x74, 0, 0, 1, 1};
static const uint8_t mac_server[6] = {2, 0x74, 0, 0, 2, 2};

struct ring {
	int fd;
	uint8_t *map;
	unsigned nframes, i;
};

struct tres {		  /* one trial */
	double rate, dur; /* asked (0 = as fast as possible), s */
	uint64_t sent, srv_rx, cli_rx, dup, reord, refl_drop, rxq_drop;
	double offered, delivered, loss;   /* pps, pps, fraction */
	double fwd_ns, sirq_ns, ksirqd_ns; /* router-side CPU deltas */
	uint64_t router_pkts;		   /* packets the router forwarded */
	/* XDP generator: frames the client's veth put in the router's veth
	 * ring, and those it refused (ring full); sent - both = lost before
	 * the veth (no NAPI on the router's side) */
	uint64_t gen_xmit, gen_xmit_err;
	double p50, p99; /* RTT us (request/reply) */
};

static struct {
	struct br b;
	bool quick;
	int rounds;
	int nice;      /* of the generator and tern-fwd */
	bool rt;       /* tern-fwd SCHED_FIFO (like the kernel's softirq) */
	bool gen_only; /* --gen-only: the generators' own rates, no router */
	double tdur;   /* s per trial */
	int steps;     /* binary search steps */
	pid_t fwd_pid;
	int guard_fd;
	struct ring tx, srx, crx, stx;
	uint16_t trial;
	uint8_t *seen; /* bitmap of seqs */
	uint32_t last_seq[BF_FLOWS];
	uint64_t flow_rx[BF_FLOWS];
	double *lat;
	size_t nlat;
	uint32_t dst[BF_FLOWS]; /* host order */
	unsigned fsize;		/* frame bytes (60 or 1514; IPv6 78 or 1514) */
	/* IPv6 cases (--family=6): this case's family, its flows'
	 * destinations, the payload's offset (BF_PLOFF or BF_PLOFF6) */
	int fam6;
	uint8_t dst6[BF_FLOWS][16];
	unsigned ploff;
	int srv_ifindex;
	long clk_tck;
	FILE *dat; /* all trials, for the plot */
	int gen;   /* GEN_XDP or GEN_AFP */
	unsigned gen_batch;
	struct {
		struct bpf_object *obj;
		int prog_fd, eth_fd; /* eth_fd: a socket in the client ns */
		struct bf_gen_state *st;
		uint8_t tmpl[BF_FRAME]; /* flow 0's frame, the data_in */
		int nstats;		/* of the client's eth0 */
		int *ix_xmit,
		    *ix_err; /* indices of tx_queue_N_xdp_xmit[_errors] */
		int nxmit;
		double call_us; /* one call of gen_batch frames, no receiver */
	} X;
	int sink; /* SINK_TC or SINK_AFP */
	struct {
		struct bpf_object *obj;
		struct bf_sink_state *st;
		uint64_t *seen; /* BF_SEQ_MAX bits */
		uint64_t *lat;	/* BF_LAT_MAX round-trip times, ns */
	} S;
} G;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

/* ---- cleanup, also when killed ------------------------------------------ */

static void
bf_kill_fwd(void)
{
	if (G.fwd_pid > 0) {
		kill(G.fwd_pid, SIGKILL);
		waitpid(G.fwd_pid, NULL, 0);
		G.fwd_pid = 0;
	}
	(void)br_sh("f='%s/fwd.pid'; [ -f \"$f\" ] && kill -9 $(cat \"$f\") "
		    "2>/dev/null; rm -f \"$f\"",
	    G.b.dir);
}

static void
bf_on_signal(int sig)
{
	(void)sig;
	bf_kill_fwd();
	br_cleanup();
	_exit(130);
}

/* A process of its own session that waits for our death (EOF on a pipe),
 * however it comes (SIGKILL too), then kills fwd and removes the namespaces
 * and the temp dir. */
static void
bf_guardian(void)
{
	int p[2];
	pid_t pid;
	char c;

	/* close-on-exec: tern-fwd and the shells must not hold it open */
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return;
	if (pid == 0) {
		close(p[1]);
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		(void)br_sh("f='%s/fwd.pid'; [ -f \"$f\" ] && kill -9 "
			    "$(cat \"$f\") 2>/dev/null; sleep 0.2",
		    G.b.dir);
		(void)
		    br_sh("cat '%s/fwd.log' >>'%s/build/bench/forward-fwd.log'"
			  " 2>/dev/null",
			G.b.dir, G.b.root);
		(void)br_lib(&G.b, "cleanup", true, NULL);
		if (strncmp(G.b.dir, "/tmp/tern-", 10) == 0)
			(void)br_sh("rm -rf '%s'", G.b.dir);
		_exit(0);
	}
	close(p[0]);
	G.guard_fd = p[1];
}

/* ---- CPU accounting -------------------------------------------------------
 */

/* The load averages (1, 5, 15 min) of /proc/loadavg. */
static const char *
bf_loadavg(void)
{
	static char buf[64];
	char a[16] = "?", b[16] = "?", c[16] = "?";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fscanf(f, "%15s %15s %15s", a, b, c) != 3)
			a[0] = '?', a[1] = '\0';
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "%s %s %s", a, b, c);
	return (buf);
}

/* Sum of schedstat run time (ns) of every thread of pid. */
static double
bf_task_ns(pid_t pid)
{
	char path[96];
	struct dirent *e;
	double sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		unsigned long long rt;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
		    (int)pid, e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%llu", &rt) == 1)
			sum += (double)rt;
		fclose(f);
	}
	closedir(d);
	return (sum);
}

/* softirq time of all CPUs from /proc/stat, ns (tick-sampled: the kernel
 * here has no IRQ_TIME_ACCOUNTING; a tick that lands in softirq, in any
 * context including ksoftirqd, counts as softirq). */
static double
bf_softirq_ns(void)
{
	unsigned long long v[7] = {0};
	FILE *f = fopen("/proc/stat", "r");

	if (f == NULL)
		return (0);
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		&v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		v[6] = 0;
	fclose(f);
	return ((double)v[6] * 1e9 / (double)G.clk_tck);
}

/* schedstat run time of the ksoftirqd threads (ns). */
static double
bf_ksoftirqd_ns(void)
{
	struct dirent *e;
	double sum = 0;
	DIR *d = opendir("/proc");

	if (d == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) == NULL)
			comm[0] = '\0';
		fclose(f);
		if (strncmp(comm, "ksoftirqd/", 10) == 0)
			sum += bf_task_ns((pid_t)atoi(e->d_name));
	}
	closedir(d);
	return (sum);
}

/* ---- rings ----------------------------------------------------------------
 */

/* An AF_PACKET TPACKET_V2 ring on ifname in namespace ns. 0 or -1. */
static int
bf_ring_open(struct ring *r, const char *ns, const char *ifname, bool tx)
{
	int self, v = TPACKET_V2, one = 1;
	struct tpacket_req req;
	struct sockaddr_ll sll = {0};

	memset(r, 0, sizeof(*r));
	if ((self = tt_netns_enter(ns)) < 0)
		return (-1);
	r->fd = socket(AF_PACKET, SOCK_RAW, tx ? 0 : htons(ETH_P_IP));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = tx ? 0 : htons(ETH_P_IP);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (tt_netns_leave(self) != 0)
		return (-1);
	if (r->fd < 0 || sll.sll_ifindex == 0)
		return (-1);
	if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) != 0)
		return (-1);
	if (tx)
		(void)setsockopt(r->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
		    sizeof(one));
	else
		(void)setsockopt(r->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING,
		    &one, sizeof(one));
	r->nframes = tx ? BF_TX_FRAMES : BF_RX_FRAMES;
	req.tp_block_size = 1u << 20;
	req.tp_frame_size = BF_FRAME;
	req.tp_block_nr = r->nframes * BF_FRAME / req.tp_block_size;
	req.tp_frame_nr = r->nframes;
	if (setsockopt(r->fd, SOL_PACKET, tx ? PACKET_TX_RING : PACKET_RX_RING,
		&req, sizeof(req)) != 0)
		return (-1);
	r->map = mmap(NULL, (size_t)r->nframes * BF_FRAME,
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, 0);
	if (r->map == MAP_FAILED)
		return (-1);
	if (bind(r->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)
		return (-1);
	return (0);
}

static inline struct tpacket2_hdr *
bf_slot(struct ring *r, unsigned i)
{
	return ((struct tpacket2_hdr *)(r->map + (size_t)i * BF_FRAME));
}

static inline uint8_t *
bf_txdata(struct tpacket2_hdr *h)
{
	return ((uint8_t *)h + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll));
}

static uint16_t
bf_csum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ((uint16_t)~s);
}

/* IPv6 addresses of the IPv6 cases, all in 2001:2::/48: the client link
 * 2001:2:0:f1::/64 (router ::1, client ::2), the server link
 * 2001:2:0:f2::/64 (router ::1, next hops ::2-::254, all held by the
 * server), flow f to 2001:2:0:1XX::1 (XX = f: one /64 each, under
 * 2001:2:0:100::/56). */
static void
bf_a6(uint8_t a[16], unsigned net, unsigned host)
{
	tt_a6_put((tt_u128)0x20010002u << 96 | (tt_u128)(net & 0xffff) << 64 |
		(host & 0xffff),
	    a);
}

/* The IPv6 frame of flow f (as bf_frame): UDP checksummed for the
 * template's payload (the generators change it; nobody checks it). */
static void
bf_frame6(uint8_t *d, unsigned f)
{
	unsigned plen = G.fsize - 54;
	uint32_t sum = 0;

	memset(d, 0, G.fsize);
	memcpy(d, mac_rtr_c, 6);
	memcpy(d + 6, mac_client, 6);
	d[12] = 0x86;
	d[13] = 0xdd;
	d[14] = 0x60;
	d[18] = (uint8_t)(plen >> 8);
	d[19] = (uint8_t)plen;
	d[20] = 17;
	d[21] = 64;
	bf_a6(d + 22, 0xf1, 2);
	memcpy(d + 38, G.dst6[f], 16);
	d[54] = (uint8_t)((BF_SPORT + f) >> 8);
	d[55] = (uint8_t)(BF_SPORT + f);
	d[56] = BF_DPORT >> 8;
	d[57] = BF_DPORT & 255;
	d[58] = (uint8_t)(plen >> 8);
	d[59] = (uint8_t)plen;
	/* pseudo-header (addresses, length, next header) and the datagram */
	for (unsigned i = 22; i < 54; i += 2)
		sum += (uint32_t)(d[i] << 8 | d[i + 1]);
	sum += plen + 17;
	for (unsigned i = 54; i + 1 < 54 + plen; i += 2)
		sum += (uint32_t)(d[i] << 8 | d[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (sum == 0)
		sum = 0xffff;
	d[60] = (uint8_t)(sum >> 8);
	d[61] = (uint8_t)sum;
}

/* Writes the frame of flow f (frame size G.fsize, payload zero) at d. */
static void
bf_frame(uint8_t *d, unsigned f)
{
	unsigned iplen = G.fsize - 14;
	uint32_t src = 0xc6120102u, dst = G.dst[f];
	uint16_t c;

	if (G.fam6) {
		bf_frame6(d, f);
		return;
	}
	memset(d, 0, G.fsize);
	memcpy(d, mac_rtr_c, 6);
	memcpy(d + 6, mac_client, 6);
	d[12] = 0x08;
	d[14] = 0x45;
	d[16] = (uint8_t)(iplen >> 8);
	d[17] = (uint8_t)iplen;
	d[22] = 64;
	d[23] = 17;
	for (int k = 0; k < 4; k++) {
		d[26 + k] = (uint8_t)(src >> (24 - 8 * k));
		d[30 + k] = (uint8_t)(dst >> (24 - 8 * k));
	}
	c = bf_csum(d + 14, 20);
	d[24] = (uint8_t)(c >> 8);
	d[25] = (uint8_t)c;
	d[34] = (uint8_t)((BF_SPORT + f) >> 8);
	d[35] = (uint8_t)(BF_SPORT + f);
	d[36] = BF_DPORT >> 8;
	d[37] = BF_DPORT & 255;
	d[38] = (uint8_t)((iplen - 20) >> 8);
	d[39] = (uint8_t)(iplen - 20);
}

/* Writes the template of flow f into every TX slot of that flow (slot i
 * carries flow i % BF_FLOWS, always), and the XDP generator's template
 * (flow 0) and per-flow fields (frame i carries flow i % BF_FLOWS too). */
static void
bf_tx_templates(void)
{
	for (unsigned i = 0; i < G.tx.nframes; i++) {
		struct tpacket2_hdr *h = bf_slot(&G.tx, i);

		bf_frame(bf_txdata(h), i % BF_FLOWS);
		h->tp_len = G.fsize;
	}
	if (G.X.st != NULL) {
		uint8_t d[BF_FRAME];

		for (unsigned f = 0; f < BF_FLOWS; f++) {
			bf_frame(d, f);
			memset(G.X.st->hdr[f], 0, sizeof(G.X.st->hdr[f]));
			memcpy(G.X.st->hdr[f], d, G.ploff);
		}
		G.X.st->v6 = (uint32_t)G.fam6;
		bf_frame(G.X.tmpl, 0);
	}
}

/* payload: magic(4) seq(4) tx time ns(8), host order */
static inline bool
bf_ours(const uint8_t *d, unsigned len, uint16_t dport)
{
	uint32_t m;

	if (len < BF_PLOFF + 16 || d[12] != 0x08 || d[13] != 0 || d[23] != 17 ||
	    (d[14] & 0xf) != 5 || (unsigned)(d[36] << 8 | d[37]) != dport)
		return (false);
	memcpy(&m, d + BF_PLOFF, 4);
	return (m == (BF_MAGIC | G.trial));
}

static void
bf_mark(uint32_t seq, unsigned flow, struct tres *r)
{
	if (seq >= BF_SEQ_MAX)
		return;
	if (G.seen[seq >> 3] & (1u << (seq & 7))) {
		r->dup++;
		return;
	}
	G.seen[seq >> 3] |= (uint8_t)(1u << (seq & 7));
	flow %= BF_FLOWS;
	G.flow_rx[flow]++;
	if (seq + 1 < G.last_seq[flow])
		r->reord++;
	else
		G.last_seq[flow] = seq + 1;
}

/* Server side: count, and reflect when rr. */
static unsigned
bf_srv_rx(struct tres *r, bool rr)
{
	unsigned n = 0, nref = 0;

	for (;;) {
		struct tpacket2_hdr *h = bf_slot(&G.srx, G.srx.i);
		uint8_t *d;
		uint32_t seq;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
			TP_STATUS_USER))
			break;
		d = (uint8_t *)h + h->tp_mac;
		if (bf_ours(d, h->tp_snaplen, BF_DPORT)) {
			memcpy(&seq, d + BF_PLOFF + 4, 4);
			r->srv_rx++;
			if (!rr)
				bf_mark(seq,
				    (unsigned)(d[34] << 8 | d[35]) - BF_SPORT,
				    r);
			else {
				struct tpacket2_hdr *t = bf_slot(&G.stx,
				    G.stx.i);

				if (t->tp_status != TP_STATUS_AVAILABLE)
					r->refl_drop++;
				else {
					uint8_t *o = bf_txdata(t);
					unsigned len = h->tp_snaplen;

					memcpy(o, d + 6, 6);
					memcpy(o + 6, mac_server, 6);
					memcpy(o + 12, d + 12, len - 12);
					memcpy(o + 26, d + 30, 4);
					memcpy(o + 30, d + 26, 4);
					memcpy(o + 34, d + 36, 2);
					memcpy(o + 36, d + 34, 2);
					t->tp_len = len;
					__atomic_store_n(&t->tp_status,
					    TP_STATUS_SEND_REQUEST,
					    __ATOMIC_RELEASE);
					G.stx.i = (G.stx.i + 1) % G.stx.nframes;
					nref++;
				}
			}
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
		    __ATOMIC_RELEASE);
		G.srx.i = (G.srx.i + 1) % G.srx.nframes;
		if (++n == 256)
			break;
	}
	if (nref > 0)
		(void)send(G.stx.fd, NULL, 0, MSG_DONTWAIT);
	return (n);
}

/* Client side (rr): replies, RTT. */
static unsigned
bf_cli_rx(struct tres *r)
{
	unsigned n = 0;
	uint64_t t = now_ns();

	for (;;) {
		struct tpacket2_hdr *h = bf_slot(&G.crx, G.crx.i);
		uint8_t *d;
		uint32_t seq;
		uint64_t ts;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
			TP_STATUS_USER))
			break;
		d = (uint8_t *)h + h->tp_mac;
		if (h->tp_snaplen >= BF_PLOFF + 16 &&
		    (d[34] << 8 | d[35]) == BF_DPORT &&
		    bf_ours(d, h->tp_snaplen, (uint16_t)(d[36] << 8 | d[37]))) {
			memcpy(&seq, d + BF_PLOFF + 4, 4);
			memcpy(&ts, d + BF_PLOFF + 8, 8);
			r->cli_rx++;
			bf_mark(seq, (unsigned)(d[36] << 8 | d[37]) - BF_SPORT,
			    r);
			if (G.nlat < BF_LAT_MAX && t > ts)
				G.lat[G.nlat++] = (double)(t - ts) / 1000.0;
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
		    __ATOMIC_RELEASE);
		G.crx.i = (G.crx.i + 1) % G.crx.nframes;
		if (++n == 256)
			break;
	}
	return (n);
}

static uint64_t
bf_rx_drops(struct ring *r)
{
	struct tpacket_stats st;
	socklen_t l = sizeof(st);

	if (getsockopt(r->fd, SOL_PACKET, PACKET_STATISTICS, &st, &l) != 0)
		return (0);
	return (st.tp_drops);
}

/* ---- the XDP generator -----------------------------------------------------
 */

static const char *ns_client(void);

static int
bf_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level > LIBBPF_WARN)
		return (0);
	fprintf(stderr, "bench-forward: libbpf: ");
	return (vfprintf(stderr, fmt, ap));
}

/* An embedded BPF object (len 0: clang was missing at build), opened and
 * loaded: the object, or NULL with the reason in why. */
static __attribute__((unused)) struct bpf_object *
bf_bpf_load(const unsigned char *img, size_t len, char *why, size_t whylen)
{
	struct bpf_object *o;
	int rv;

	if (len == 0) {
		snprintf(why, whylen, "no BPF object (clang missing at build)");
		return (NULL);
	}
	libbpf_set_print(bf_libbpf_print);
	if ((o = bpf_object__open_mem(img, len, NULL)) == NULL) {
		snprintf(why, whylen, "BPF object: %s", strerror(errno));
		return (NULL);
	}
	if ((rv = bpf_object__load(o)) != 0) {
		snprintf(why, whylen, "BPF load: %s", strerror(-rv));
		bpf_object__close(o);
		return (NULL);
	}
	return (o);
}

/* The BPF_F_MMAPABLE map name of obj (bytes of it), mapped shared: its
 * address, or NULL with errno (ENOENT: no such map). */
static __attribute__((unused)) void *
bf_bpf_map(struct bpf_object *obj, const char *name, size_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = bpf_object__find_map_fd_by_name(obj, name);
	void *m;

	if (fd < 0) {
		errno = ENOENT;
		return (NULL);
	}
	bytes = (bytes + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return (m == MAP_FAILED ? NULL : m);
}

/* The indices of the client's eth0 counters of XDP frames its
 * ndo_xdp_xmit put in the peer's (the router's rc0) ring or could not
 * (ring full): veth's tx_queue_N_xdp_xmit and tx_queue_N_xdp_xmit_errors.
 * 0 or -1. */
static int
bf_gen_stats_init(void)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ethtool_gstrings *gs;
	struct ifreq ifr;
	int n, ne = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "eth0");
	ifr.ifr_data = (void *)&di;
	if (ioctl(G.X.eth_fd, SIOCETHTOOL, &ifr) != 0 || di.n_stats == 0)
		return (-1);
	n = (int)di.n_stats;
	if ((gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN)) == NULL)
		return (-1);
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (uint32_t)n;
	ifr.ifr_data = (void *)gs;
	G.X.ix_xmit = calloc((size_t)n, sizeof(int));
	G.X.ix_err = calloc((size_t)n, sizeof(int));
	if (G.X.ix_xmit == NULL || G.X.ix_err == NULL ||
	    ioctl(G.X.eth_fd, SIOCETHTOOL, &ifr) != 0) {
		free(gs);
		return (-1);
	}
	G.X.nxmit = 0;
	for (int i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1], tail[ETH_GSTRING_LEN + 1];
		unsigned q;

		memcpy(name, gs->data + (size_t)i * ETH_GSTRING_LEN,
		    ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (sscanf(name, "tx_queue_%u_%32s", &q, tail) != 2)
			continue;
		if (strcmp(tail, "xdp_xmit") == 0)
			G.X.ix_xmit[G.X.nxmit++] = i;
		else if (strcmp(tail, "xdp_xmit_errors") == 0)
			G.X.ix_err[ne++] = i;
	}
	free(gs);
	G.X.nstats = n;
	if (ne != G.X.nxmit) /* the sums below take as many of each */
		G.X.nxmit = ne < G.X.nxmit ? ne : G.X.nxmit;
	return (G.X.nxmit > 0 ? 0 : -1);
}

/* The client's eth0 XDP transmit counters (sums over its queues). */
static void
bf_gen_stats(uint64_t *xmit, uint64_t *err)
{
	struct ethtool_stats *st;
	struct ifreq ifr;

	*xmit = *err = 0;
	if (G.X.nstats == 0 ||
	    (st = calloc(1, sizeof(*st) + (size_t)G.X.nstats * 8)) == NULL)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "eth0");
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = (uint32_t)G.X.nstats;
	ifr.ifr_data = (void *)st;
	if (ioctl(G.X.eth_fd, SIOCETHTOOL, &ifr) == 0)
		for (int i = 0; i < G.X.nxmit; i++) {
			*xmit += st->data[G.X.ix_xmit[i]];
			*err += st->data[G.X.ix_err[i]];
		}
	free(st);
}

/* n frames through the XDP generator (one BPF_PROG_RUN): 0 or -errno. The
 * kernel runs the program over page-pool frames holding G.X.tmpl, in
 * batches of 64 (its default), flushing the redirects after each batch,
 * where the router's veth NAPI runs (softirq, this CPU). */
static int
bf_gen_run(unsigned n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = G.X.tmpl,
	    .data_size_in = G.fsize, .repeat = n,
	    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	return (bpf_prog_test_run_opts(G.X.prog_fd, &o) == 0 ? 0 : -errno);
}

/* Loads the XDP generator and points it at the client's eth0: 0, or -1
 * with the reason in why. */
static int
bf_gen_xdp_open(char *why, size_t whylen)
{
#ifndef BF_GEN_OBJ
	snprintf(why, whylen, "bench-forward built without it");
	return (-1);
#else
	size_t len = (size_t)(bf_gen_obj_end - bf_gen_obj);
	struct bpf_program *prog;
	int tx_fd, self, rv;
	uint32_t k = 0, ifx;

	if ((G.X.obj = bf_bpf_load(bf_gen_obj, len, why, whylen)) == NULL)
		return (-1);
	prog = bpf_object__find_program_by_name(G.X.obj, "tern_gen");
	tx_fd = bpf_object__find_map_fd_by_name(G.X.obj, "gen_tx");
	if (prog == NULL || tx_fd < 0) {
		snprintf(why, whylen, "BPF object lacks tern_gen or maps");
		return (-1);
	}
	G.X.prog_fd = bpf_program__fd(prog);
	if ((G.X.st = bf_bpf_map(G.X.obj, "gen_state", sizeof(*G.X.st))) ==
	    NULL) {
		snprintf(why, whylen, "mmap of the state map: %s",
		    strerror(errno));
		return (-1);
	}
	/* A BPF_PROG_RUN of more than one frame puts the program in the
	 * kernel's XDP dispatcher and takes it out again, two dispatcher
	 * updates that wait for RCU: ~25 ms a call here. A program attached
	 * to a device (native mode) stays in the dispatcher, so those updates
	 * become no-ops (43 us for a 64-frame call): the generator is attached
	 * to a veth pair of its own in the client ns, down, that carries
	 * nothing (removed with the namespace). */
	if (br_sh("ip -n %s link add xdpgen0 type veth peer name xdpgen1",
		ns_client()) != 0) {
		snprintf(why, whylen, "no veth for the XDP dispatcher");
		return (-1);
	}
	/* the devmap slot, the counters' socket, the attachment: from inside
	 * the client ns, where eth0's ifindex means that eth0 */
	if ((self = tt_netns_enter(ns_client())) < 0) {
		snprintf(why, whylen, "setns: %s", strerror(errno));
		return (-1);
	}
	ifx = if_nametoindex("eth0");
	rv = ifx == 0 ? -1 : bpf_map_update_elem(tx_fd, &k, &ifx, 0);
	if (rv != 0)
		snprintf(why, whylen, "devmap of the client's eth0: %s",
		    strerror(errno));
	else if ((ifx = if_nametoindex("xdpgen0")) == 0 ||
	    (rv = bpf_xdp_attach((int)ifx, G.X.prog_fd, XDP_FLAGS_DRV_MODE,
		 NULL)) != 0)
		snprintf(why, whylen,
		    "native XDP attach to xdpgen0 (dispatcher): %s",
		    strerror(rv < 0 ? -rv : errno));
	G.X.eth_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tt_netns_leave(self) != 0 || rv != 0)
		return (-1);
	if (G.X.eth_fd < 0 || bf_gen_stats_init() != 0) {
		snprintf(why, whylen,
		    "no tx_queue_N_xdp_xmit counters on the client's eth0");
		return (-1);
	}
	/* a call of no trial (magic of trial 0: receivers ignore it; the
	 * router's rc0 has no NAPI yet, so the frames go nowhere), timed */
	G.fsize = 60;
	bf_tx_templates();
	G.X.st->magic = BF_MAGIC;
	for (int i = 0; i < 3; i++) {
		uint64_t t = now_ns();

		if ((rv = bf_gen_run(G.gen_batch)) != 0) {
			snprintf(why, whylen,
			    "BPF_PROG_RUN with live frames: %s", strerror(-rv));
			return (-1);
		}
		G.X.call_us = (double)(now_ns() - t) / 1e3;
	}
	return (0);
#endif
}

/* ---- the hosts' tc sink ---------------------------------------------------
 */

static const char *ns_server(void);

/* prog at the tc ingress (clsact) of ifname in namespace ns: 0 or -errno. */
static int
bf_tc_attach(const char *ns, const char *ifname, int prog_fd)
{
	int self, rv;
	unsigned ifx;

	if ((self = tt_netns_enter(ns)) < 0)
		return (-errno);
	if ((ifx = if_nametoindex(ifname)) == 0)
		rv = -ENODEV;
	else {
		LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = (int)ifx,
		    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .prog_fd = prog_fd);

		rv = bpf_tc_hook_create(&h);
		if (rv == -EEXIST)
			rv = 0;
		if (rv == 0)
			rv = bpf_tc_attach(&h, &o);
	}
	if (tt_netns_leave(self) != 0 && rv == 0)
		rv = -EIO;
	return (rv);
}

/* Loads the tc sink and attaches it to the server's and the client's eth0:
 * 0, or -1 with the reason in why. */
static int
bf_sink_open(char *why, size_t whylen)
{
#ifndef BF_SINK_OBJ
	snprintf(why, whylen, "bench-forward built without it");
	return (-1);
#else
	size_t len = (size_t)(bf_sink_obj_end - bf_sink_obj);
	struct bpf_program *srv, *cli;
	int rv;

	if ((G.S.obj = bf_bpf_load(bf_sink_obj, len, why, whylen)) == NULL)
		return (-1);
	srv = bpf_object__find_program_by_name(G.S.obj, "tern_sink_srv");
	cli = bpf_object__find_program_by_name(G.S.obj, "tern_sink_cli");
	G.S.st = bf_bpf_map(G.S.obj, "sink_state", sizeof(*G.S.st));
	G.S.seen = bf_bpf_map(G.S.obj, "sink_seen", BF_SEQ_MAX / 8);
	G.S.lat = bf_bpf_map(G.S.obj, "sink_lat", (size_t)BF_LAT_MAX * 8);
	if (srv == NULL || cli == NULL || G.S.st == NULL || G.S.seen == NULL ||
	    G.S.lat == NULL) {
		snprintf(why, whylen,
		    "BPF object lacks a program or a map, or "
		    "mmap failed");
		return (-1);
	}
	memset(G.S.st, 0, sizeof(*G.S.st)); /* magic 0: nothing is ours */
	if ((rv = bf_tc_attach(ns_server(), "eth0", bpf_program__fd(srv))) !=
		0 ||
	    (rv = bf_tc_attach(ns_client(), "eth0", bpf_program__fd(cli))) !=
		0) {
		snprintf(why, whylen, "tc ingress attach: %s", strerror(-rv));
		return (-1);
	}
	return (0);
#endif
}

/* A new trial for the sink: nothing counted, nothing seen, the trial's
 * magic. A frame of the trial before (drained: 20 ms without one) no
 * longer matches. */
static void
bf_sink_reset(bool rr)
{
	struct bf_sink_state *s = G.S.st;

	__atomic_store_n(&s->magic, 0, __ATOMIC_RELEASE);
	memset((char *)s + 8, 0, sizeof(*s) - 8);
	memset(G.S.seen, 0, BF_SEQ_MAX / 8);
	s->rr = rr;
	__atomic_store_n(&s->magic, BF_MAGIC | G.trial, __ATOMIC_RELEASE);
}

/* Frames the sink took so far this trial. */
static uint64_t
bf_sink_count(void)
{
	return (__atomic_load_n(&G.S.st->srv_rx, __ATOMIC_RELAXED) +
	    __atomic_load_n(&G.S.st->cli_rx, __ATOMIC_RELAXED));
}

/* The trial's counts, per-flow counts and round-trip times, as the
 * AF_PACKET receivers would have left them. */
static void
bf_sink_read(struct tres *r)
{
	struct bf_sink_state *s = G.S.st;
	uint64_t n;

	__atomic_store_n(&s->magic, 0, __ATOMIC_RELEASE);
	r->srv_rx = s->srv_rx;
	r->cli_rx = s->cli_rx;
	r->dup = s->dup;
	r->reord = s->reord;
	memcpy(G.flow_rx, s->flow_rx, sizeof(G.flow_rx));
	n = s->lat_n < BF_LAT_MAX ? s->lat_n : BF_LAT_MAX;
	for (uint64_t i = 0; i < n; i++)
		G.lat[i] = (double)G.S.lat[i] / 1000.0;
	G.nlat = (size_t)n;
}

/* One trial: rate pps (0: as fast as the generator goes) for dur s. */
static void
bf_trial(double rate, double dur, bool rr, struct tres *r)
{
	uint64_t t0, tend, now, sent = 0, quiet, gx0 = 0, ge0 = 0, took = 0;
	double c0, s0, k0, c1, s1, k1;
	bool xdp = G.gen == GEN_XDP, tc = G.sink == SINK_TC;

	memset(r, 0, sizeof(*r));
	r->rate = rate;
	r->dur = dur;
	G.trial++;
	if (G.trial == 0)
		G.trial = 1;
	if (!tc) /* the tc sink keeps its own bitmap */
		memset(G.seen, 0, BF_SEQ_MAX / 8);
	memset(G.last_seq, 0, sizeof(G.last_seq));
	memset(G.flow_rx, 0, sizeof(G.flow_rx));
	G.nlat = 0;
	/* drain what is left of the last trial */
	while (!tc && bf_srv_rx(r, false) + bf_cli_rx(r) > 0)
		;
	memset(r, 0, sizeof(*r));
	r->rate = rate;
	r->dur = dur;
	if (tc)
		bf_sink_reset(rr);
	else {
		(void)bf_rx_drops(&G.srx);
		(void)bf_rx_drops(&G.crx);
	}
	if (xdp) {
		__atomic_store_n(&G.X.st->magic, BF_MAGIC | G.trial,
		    __ATOMIC_RELAXED);
		__atomic_store_n(&G.X.st->seq, 0, __ATOMIC_RELEASE);
		bf_gen_stats(&gx0, &ge0);
	}
	c0 = G.fwd_pid > 0 ? bf_task_ns(G.fwd_pid) : 0;
	s0 = bf_softirq_ns();
	k0 = bf_ksoftirqd_ns();
	t0 = now_ns();
	tend = t0 + (uint64_t)(dur * 1e9);
	quiet = 0;
	for (;;) {
		unsigned got;

		now = now_ns();
		if (now < tend) {
			uint64_t target = rate <= 0 ?
			    UINT64_MAX :
			    (uint64_t)(rate * (double)(now - t0) / 1e9) + 1;
			unsigned n = 0;

			if (xdp) {
				uint64_t due = target > sent ? target - sent :
							       0;

				if (due > G.gen_batch)
					due = G.gen_batch;
				if (due > BF_SEQ_MAX - sent)
					due = BF_SEQ_MAX - sent;
				/* the program counts what it sent (an
				 * interrupted run sent part of it) */
				if (due > 0)
					(void)bf_gen_run((unsigned)due);
				sent = __atomic_load_n(&G.X.st->seq,
				    __ATOMIC_ACQUIRE);
			}
			while (!xdp && sent < target && n < BF_BATCH &&
			    sent < BF_SEQ_MAX) {
				struct tpacket2_hdr *h = bf_slot(&G.tx, G.tx.i);
				uint8_t *d;
				uint32_t m = BF_MAGIC | G.trial,
					 s = (uint32_t)sent;

				if (__atomic_load_n(&h->tp_status,
					__ATOMIC_ACQUIRE) !=
				    TP_STATUS_AVAILABLE)
					break;
				d = bf_txdata(h);
				memcpy(d + G.ploff, &m, 4);
				memcpy(d + G.ploff + 4, &s, 4);
				memcpy(d + G.ploff + 8, &now, 8);
				__atomic_store_n(&h->tp_status,
				    TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
				G.tx.i = (G.tx.i + 1) % G.tx.nframes;
				sent++;
				n++;
			}
			if (n > 0)
				(void)send(G.tx.fd, NULL, 0, MSG_DONTWAIT);
		}
		/* what arrived: everything (the XDP generator sends up to
		 * G.gen_batch frames a pass, more than one 256-frame look) */
		got = 0;
		if (tc) {
			uint64_t c = bf_sink_count();

			got = c != took;
			took = c;
		}
		for (int k = 0; !tc && k < 16; k++) {
			unsigned g = bf_srv_rx(r, rr);

			if (rr)
				g += bf_cli_rx(r);
			got += g;
			if (g < 256)
				break;
		}
		if (now >= tend) {
			/* in flight: until 20 ms without a frame, at most
			 * 200 ms */
			if (got > 0)
				quiet = now;
			else if (quiet == 0)
				quiet = now;
			if (now - quiet > 20000000ull ||
			    now - tend > 200000000ull)
				break;
		}
	}
	c1 = G.fwd_pid > 0 ? bf_task_ns(G.fwd_pid) : 0;
	s1 = bf_softirq_ns();
	k1 = bf_ksoftirqd_ns();
	r->sent = sent;
	if (xdp) {
		bf_gen_stats(&r->gen_xmit, &r->gen_xmit_err);
		r->gen_xmit -= gx0;
		r->gen_xmit_err -= ge0;
	}
	if (tc)
		bf_sink_read(r);
	else
		r->rxq_drop = bf_rx_drops(&G.srx) + bf_rx_drops(&G.crx);
	r->offered = (double)sent / dur;
	if (rr) {
		r->delivered = (double)r->cli_rx / dur;
		r->loss = sent ?
		    1.0 - (double)(r->cli_rx - r->dup) / (double)sent :
		    0;
		r->router_pkts = r->srv_rx + r->cli_rx;
		r->p50 = br_pct(G.lat, G.nlat, 50);
		r->p99 = br_pct(G.lat, G.nlat, 99);
	} else {
		r->delivered = (double)(r->srv_rx - r->dup) / dur;
		r->loss = sent ?
		    1.0 - (double)(r->srv_rx - r->dup) / (double)sent :
		    0;
		r->router_pkts = r->srv_rx;
	}
	r->fwd_ns = c1 - c0;
	r->sirq_ns = s1 - s0;
	r->ksirqd_ns = k1 - k0;
}

/* ---- routers ---------------------------------------------------------------
 */

static const char *
ns_router(void)
{
	static char n[64];

	snprintf(n, sizeof(n), "tern-r-%s", G.b.suffix);
	return (n);
}

static const char *
ns_client(void)
{
	static char n[64];

	snprintf(n, sizeof(n), "tern-c-%s", G.b.suffix);
	return (n);
}

static const char *
ns_server(void)
{
	static char n[64];

	snprintf(n, sizeof(n), "tern-s-%s", G.b.suffix);
	return (n);
}

/* The kernel of the router ns forwards (peer) or not (tern-fwd's state:
 * no addresses, ip_forward=0). A tc ingress drop behind the AF_PACKET taps
 * would spare the kernel the frames fwd forwards, but this kernel has no
 * TC actions (act_gact) nor classifiers other than u32: the kernel sees
 * each frame and drops it (ip_forward=0), in softirq, in both runs' hosts. */
static int
bf_kernel(bool on)
{
	if (G.fam6) /* the IPv6 cases: its IPv6 (IPv4 stays off) */
		return (br_sh("bash '%s/tests/bench/lib_forward.sh' kernel6 "
			      "%s %s",
		    G.b.root, on ? "on" : "off", G.b.suffix));
	return (br_sh("bash '%s/tests/bench/lib_forward.sh' kernel %s %s",
	    G.b.root, on ? "on" : "off", G.b.suffix));
}

/* The XDP generator's frames reach the router only through the NAPI of
 * its rc0's veth queue: enabled by an XDP program there (tern-fwd on
 * AF_XDP) or by GRO; tern-fwd turns GRO off on its ports, so this runs after
 * each router's set-up (lib_forward.sh: GRO on, UDP GRO forwarding and
 * fraglist GRO off, so that forwarded UDP frames are never merged). */
static int
bf_gen_napi(void)
{
	if (G.gen != GEN_XDP)
		return (0);
	if (br_sh("bash '%s/tests/bench/lib_forward.sh' napi %s", G.b.root,
		G.b.suffix) != 0) {
		fprintf(stderr,
		    "bench-forward: no NAPI on the router's rc0 "
		    "for the XDP generator\n");
		return (-1);
	}
	return (0);
}

static int
bf_fwd_call(unsigned method, const ProtobufCMessage *m, ProtobufCMessage **rep,
    unsigned ms)
{
	int st = ipc_call_wait(G.b.fwd, method, m, ms, G.b.ar, rep, &G.b.err);

	if (st != IPC_OK) {
		fprintf(stderr, "bench-forward: fwd: %s %s\n",
		    ipc_status_str(st), G.b.err.msg);
		return (-1);
	}
	return (0);
}

/* Starts tern-fwd in the router ns on CPU 1 with its two ports on backend
 * ("afpacket" or "xdp") and the routes. 0 or -1. */
/* One FIB_BATCH of n routes to tern-fwd: 0, or -1 when refused (any
 * route, or an IPv6 one by a fwd without ipv6_ok). */
static int
bf_fwd_batch(Fwd__FibRoute **rp, size_t n, uint64_t seq)
{
	Fwd__FibBatch fb = FWD__FIB_BATCH__INIT;
	ProtobufCMessage *rep;
	Fwd__FibAck *a;

	fb.seq = seq;
	fb.add = rp;
	fb.n_add = n;
	if (bf_fwd_call(FWD__METHOD__FIB_BATCH, &fb.base, &rep, 30000) != 0)
		return (-1);
	a = (Fwd__FibAck *)rep;
	if (a->failed > 0 || (G.fam6 && !a->ipv6_ok)) {
		fprintf(stderr, "bench-forward: fwd refused %u %sroutes%s\n",
		    a->failed, G.fam6 ? "IPv6 " : "",
		    G.fam6 && !a->ipv6_ok ? " (no ipv6_ok)" : "");
		return (-1);
	}
	lc_arena_reset(G.b.ar);
	return (0);
}

/* The IPv6 cases' routes into tern-fwd (8192 a batch), via the server's
 * 2001:2:0:f2::(2 + nh % 253) on rs0. 0 or -1. */
static int
bf_fwd_routes6(const struct tt_prefixset6 *ps6)
{
	size_t chunk = 8192;
	Fwd__FibRoute *rt = calloc(chunk, sizeof(*rt));
	Fwd__FibRoute **rp = calloc(chunk, sizeof(*rp));
	ProtobufCBinaryData *nh = calloc(chunk, sizeof(*nh));
	uint8_t(*gw)[16] = calloc(chunk, 16);
	uint32_t ifx = (uint32_t)G.srv_ifindex;
	uint64_t seq = 1;
	int rv = -1;

	if (rt == NULL || rp == NULL || nh == NULL || gw == NULL)
		goto out;
	for (size_t off = 0; off < ps6->n; off += chunk) {
		size_t n = ps6->n - off < chunk ? ps6->n - off : chunk;

		for (size_t i = 0; i < n; i++) {
			const struct tt_prefix6 *p = &ps6->p[off + i];

			fwd__fib_route__init(&rt[i]);
			rt[i].prefix6.data = (uint8_t *)p->addr;
			rt[i].prefix6.len = 16;
			rt[i].len = p->len;
			bf_a6(gw[i], 0xf2, 2 + p->nh % 253);
			nh[i].data = gw[i];
			nh[i].len = 16;
			rt[i].nh_addr6 = &nh[i];
			rt[i].n_nh_addr6 = 1;
			rt[i].nh_ifindex = &ifx;
			rt[i].n_nh_ifindex = 1;
			rp[i] = &rt[i];
		}
		if (bf_fwd_batch(rp, n, seq++) != 0)
			goto out;
	}
	rv = 0;
out:
	free(rt);
	free(rp);
	free(nh);
	free(gw);
	return (rv);
}

/* tern-fwd's IPv6 addresses in use on both ports (DAD passed: about 1 s
 * after the config), at most 5 s. 0 or -1. */
static int
bf_fwd_dad(void)
{
	uint64_t end = now_ns() + 5000000000ull;

	while (now_ns() < end) {
		Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
		ProtobufCMessage *rep;
		unsigned up = 0;

		if (bf_fwd_call(FWD__METHOD__QUERY_INTERFACES, &q.base, &rep,
			2000) != 0)
			return (-1);
		for (size_t i = 0;
		     i < ((Fwd__InterfaceList *)rep)->n_interfaces; i++) {
			const Fwd__Interface *f =
			    ((Fwd__InterfaceList *)rep)->interfaces[i];

			up += f->n_addrs6 > 0 && f->link_local.len == 16;
		}
		lc_arena_reset(G.b.ar);
		if (up >= 2)
			return (0);
		usleep(50000);
	}
	fprintf(stderr,
	    "bench-forward: tern-fwd's IPv6 addresses not in use "
	    "after 5 s (DAD)\n");
	return (-1);
}

static int
bf_fwd_start(const struct tt_prefixset *ps, const struct tt_prefixset6 *ps6,
    const char *backend, const char *fwd_args)
{
	Fwd__IfConfigBatch ib = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic[2], *icp[2];
	Fwd__IfAddr ia[2], *iap[2];
	Fwd__IfAddr6 ia6[2], *ia6p[2];
	uint8_t a6[2][16];
	ProtobufCMessage *rep;
	char pidf[PATH_MAX + 16];
	FILE *f;
	int pid = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(pidf, sizeof(pidf), "%s/fwd.pid", G.b.dir);
	if (br_sh("ip netns exec %s %s %s %s/tern-fwd --rundir %s --log-level "
		  "err %s </dev/null >>%s/fwd.log 2>&1 & echo $! >%s",
		ns_router(), ncpu > 1 ? "taskset -c 1" : "",
		G.rt ? "chrt -f 10" : "", G.b.bin, G.b.rundir, fwd_args,
		G.b.dir, pidf) != 0)
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
		fprintf(stderr, "bench-forward: tern-fwd does not answer\n");
		(void)br_sh("ps -o pid,stat,cmd -p %d; tail -5 '%s/fwd.log'; "
			    "ls -la '%s'",
		    (int)G.fwd_pid, G.b.dir, G.b.rundir);
		return (-1);
	}
	for (int i = 0; i < 2; i++) {
		fwd__if_config__init(&ic[i]);
		fwd__if_addr__init(&ia[i]);
		ic[i].name = (char *)(i ? "rs0" : "rc0");
		ic[i].enabled = true;
		ic[i].backend = (char *)backend;
		ia[i].addr = htonl(i ? 0xc6120201u : 0xc6120101u);
		ia[i].len = 24;
		iap[i] = &ia[i];
		ic[i].addrs = &iap[i];
		ic[i].n_addrs = 1;
		if (G.fam6) { /* 2001:2:0:f1::1/64, 2001:2:0:f2::1/64 */
			fwd__if_addr6__init(&ia6[i]);
			bf_a6(a6[i], i ? 0xf2 : 0xf1, 1);
			ia6[i].addr.data = a6[i];
			ia6[i].addr.len = 16;
			ia6[i].len = 64;
			ia6p[i] = &ia6[i];
			ic[i].addrs6 = &ia6p[i];
			ic[i].n_addrs6 = 1;
		}
		icp[i] = &ic[i];
	}
	ib.interfaces = icp;
	ib.n_interfaces = 2;
	if (bf_fwd_call(FWD__METHOD__IF_CONFIG, &ib.base, &rep, 5000) != 0)
		return (-1);
	if (!((Fwd__IfConfigAck *)rep)->ok) {
		fprintf(stderr, "bench-forward: IF_CONFIG refused: %s\n",
		    ((Fwd__IfConfigAck *)rep)->error);
		return (-1);
	}
	lc_arena_reset(G.b.ar);
	if (G.fam6)
		return (bf_fwd_routes6(ps6) != 0 || bf_fwd_dad() != 0 ? -1 : 0);
	/* the routes, 8192 a batch */
	{
		size_t chunk = 8192;
		Fwd__FibRoute *rt = calloc(chunk, sizeof(*rt));
		Fwd__FibRoute **rp = calloc(chunk, sizeof(*rp));
		uint32_t *nh = calloc(chunk, sizeof(*nh));
		uint32_t ifx = (uint32_t)G.srv_ifindex;
		uint64_t seq = 1;

		for (size_t off = 0; off < ps->n; off += chunk) {
			size_t n = ps->n - off < chunk ? ps->n - off : chunk;

			for (size_t i = 0; i < n; i++) {
				const struct tt_prefix *p = &ps->p[off + i];

				fwd__fib_route__init(&rt[i]);
				rt[i].prefix = htonl(p->addr);
				rt[i].len = p->len;
				nh[i] = htonl(br_nh(p->nh));
				rt[i].nh_addr = &nh[i];
				rt[i].n_nh_addr = 1;
				rt[i].nh_ifindex = &ifx;
				rt[i].n_nh_ifindex = 1;
				rp[i] = &rt[i];
			}
			if (bf_fwd_batch(rp, n, seq++) != 0)
				return (-1);
		}
		free(rt);
		free(rp);
		free(nh);
	}
	return (0);
}

static void
bf_fwd_stop(void)
{
	(void)br_sh("mkdir -p '%s/build/bench'; { echo '--- fwd pid %d:'; "
		    "cat '%s/fwd.log' 2>/dev/null; } "
		    ">>'%s/build/bench/forward-fwd.log';"
		    " : >'%s/fwd.log'",
	    G.b.root, (int)G.fwd_pid, G.b.dir, G.b.root, G.b.dir);
	ipc_client_free(G.b.fwd);
	G.b.fwd = NULL;
	if (G.fwd_pid > 0) {
		kill(G.fwd_pid, SIGTERM);
		for (int i = 0; i < 100 && kill(G.fwd_pid, 0) == 0; i++)
			usleep(20000);
	}
	bf_kill_fwd();
}

/* Kernel routes of the set in the router ns (onlink via rs0: they outlive
 * the address flush of netns_router_kernel off). */
static int
bf_kernel_routes(const struct tt_prefixset *ps, const struct tt_prefixset6 *ps6)
{
	char path[PATH_MAX + 16], a[16], h[16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kroutes", G.b.dir);
	if ((f = fopen(path, "w")) == NULL)
		return (-1);
	if (G.fam6) {
		/* the kernel drops them with rs0's IPv6 (kernel6 off) */
		for (size_t i = 0; i < ps6->n; i++) {
			char as[INET6_ADDRSTRLEN], gs[INET6_ADDRSTRLEN];
			uint8_t g[16];

			bf_a6(g, 0xf2, 2 + ps6->p[i].nh % 253);
			inet_ntop(AF_INET6, ps6->p[i].addr, as, sizeof(as));
			inet_ntop(AF_INET6, g, gs, sizeof(gs));
			fprintf(f, "route add %s/%u via %s dev rs0\n", as,
			    ps6->p[i].len, gs);
		}
		fclose(f);
		return (br_sh("ip -6 -n %s -batch %s", ns_router(), path));
	}
	for (size_t i = 0; i < ps->n; i++)
		fprintf(f, "route add %s/%u via %s dev rs0 onlink\n",
		    br_ip(ps->p[i].addr, a), ps->p[i].len,
		    br_ip(br_nh(ps->p[i].nh), h));
	fclose(f);
	(void)br_sh("ip -n %s route flush proto boot 2>/dev/null", ns_router());
	return (br_sh("ip -n %s -batch %s", ns_router(), path));
}

/* ---- the benchmark ---------------------------------------------------------
 */

/* tern-fwd on AF_PACKET ports, on AF_XDP ports (TX ring), on AF_XDP ports
 * sending with BPF_PROG_RUN (--xdp-tx=run, the hosts' eth0 taking XDP
 * frames for that router only), the kernel */
enum { R_AFP, R_XDP, R_XRUN, R_KERN, NR };
static const char *const rname[NR] = {"fwd-afp", "fwd-xdp", "fwd-xrun",
    "kernel"};
/* per tern router: the IF_CONFIG backend, the --backends item, the BENCH
 * "backend" and "xdp_tx" */
static const char *const rbackend[R_KERN] = {"afpacket", "xdp", "xdp"};
static const char *const ritem[R_KERN] = {"af_packet", "af_xdp", "af_xdp_run"};
static const char *const rbench[R_KERN] = {"af_packet", "af_xdp", "af_xdp"};
static const char *const rtx[R_KERN] = {"", "ring", "run"};

struct cell { /* one (fib, size, traffic) for one router */
	double zl[8], ns_max[8], ns_zl[8], sirq_max[8], p50[8], p99[8],
	    loss_zl[8], maxoff[8], maxdel[8];
	int n;
};

#define NFIB 3
#define NSZ  2
/* family (IPv4, IPv6), fib, size, rr, router: C is the current
 * family's (G.fam6) */
static struct cell Cf[2][NFIB][NSZ][2][NR];
#define C (Cf[G.fam6])
static const size_t fib_n[NFIB] = {1, 128, 1000000};
/* the IPv6 cases' names in the trial lines and tables: v6:FIB, 78B */
static const char *const fib_name4[NFIB] = {"1", "128", "1M"};
static const char *const fib_name6[NFIB] = {"v6:1", "v6:128", "v6:1M"};
#define fib_name (G.fam6 ? fib_name6 : fib_name4)
static const unsigned sizes4[NSZ] = {60, 1514}, sizes6[NSZ] = {78, 1514};
#define sizes (G.fam6 ? sizes6 : sizes4)
static const char *const size_name4[NSZ] = {"64B", "1500B"};
static const char *const size_name6[NSZ] = {"78B", "1500B"};
#define size_name (G.fam6 ? size_name6 : size_name4)
static const double loads[] = {50e3, 100e3, 200e3, 400e3, 800e3};

static void
bf_log_trial(int router, int fi, int si, bool rr, int round, const char *what,
    const struct tres *r)
{
	double rp = r->router_pkts ? (double)r->router_pkts : 1;
	/* XDP generator: frames lost before the router's veth ring (no NAPI
	 * there), and refused by it (full: the router's input queue) */
	uint64_t glost = G.gen == GEN_XDP &&
		r->sent > r->gen_xmit + r->gen_xmit_err ?
	    r->sent - r->gen_xmit - r->gen_xmit_err :
	    0;

	printf("  %-8s fib %-4s %-5s %-6s r%d %-9s offered %9.0f delivered "
	       "%9.0f loss %7.4f%% fwd %6.0f softirq %6.0f ns/pkt%s",
	    rname[router], fib_name[fi], size_name[si], rr ? "rr" : "oneway",
	    round, what, r->offered, r->delivered, r->loss * 100,
	    r->fwd_ns / rp, r->sirq_ns / rp,
	    r->reord || r->dup || r->rxq_drop || r->refl_drop || glost ? " !" :
									 "");
	if (r->reord || r->dup || r->rxq_drop || r->refl_drop || glost)
		printf(" reord %llu dup %llu gen-rx-drop %llu refl-drop %llu "
		       "gen-lost %llu",
		    (unsigned long long)r->reord, (unsigned long long)r->dup,
		    (unsigned long long)r->rxq_drop,
		    (unsigned long long)r->refl_drop,
		    (unsigned long long)glost);
	if (r->gen_xmit_err > 0)
		printf(" veth-ring-full %llu",
		    (unsigned long long)r->gen_xmit_err);
	if (rr)
		printf(" rtt p50 %.1f p99 %.1f us", r->p50, r->p99);
	{
		int dead = 0;

		for (int f = 0; f < BF_FLOWS; f++)
			dead += G.flow_rx[f] == 0;
		if (dead > 0 && r->sent >= 4 * BF_FLOWS) {
			char a[INET6_ADDRSTRLEN];

			printf(" %d flows got nothing:", dead);
			for (int f = 0, k = 0; f < BF_FLOWS && k < 4; f++)
				if (G.flow_rx[f] == 0 && ++k)
					printf(" %s",
					    G.fam6 ?
						inet_ntop(AF_INET6, G.dst6[f],
						    a, sizeof(a)) :
						br_ip(G.dst[f], a));
		}
	}
	printf("\n");
	fflush(stdout);
	if (G.dat != NULL)
		fprintf(G.dat, "%s %s %s %s %d %s %.0f %.0f %.6f\n",
		    rname[router], fib_name[fi], size_name[si],
		    rr ? "rr" : "oneway", round, what, r->offered, r->delivered,
		    r->loss);
}

/* Warm neighbours up: a few frames per flow until every flow gets through
 * (at most 5 s); false if some never did. */
static bool
bf_warm(bool rr)
{
	struct tres r;

	for (int i = 0; i < 50; i++) {
		int dead = 0;

		bf_trial(20000, 0.02, rr, &r);
		for (int f = 0; f < BF_FLOWS; f++)
			dead += G.flow_rx[f] == 0;
		if (dead == 0)
			return (true);
		usleep(80000);
	}
	printf("  warm-up: some flows never got through in 5 s\n");
	return (false);
}

/* Latency at half the zero-loss rate of this round's request/reply cell
 * (the last one recorded), with the AF_PACKET ring generator whichever
 * generator loads the router: a BPF_PROG_RUN call of the XDP generator
 * costs 9-19 us for 1-16 frames, ~40 for 256 (the kernel sets up its
 * live-frame state each call), during which this
 * process, the only receiver and reflector, takes nothing, and that time
 * landed in every round trip (FIB 1, 1500 B, 2026-12-01: tern-fwd
 * af_packet p50 40.5 us with it, 13.1 us with the ring; the kernel 31.6
 * and 6.1 us). Half a zero-loss rate is well within the ring's 1 Mpps. */
static void
bf_latency(int router, int fi, int si, int round)
{
	struct cell *c = &C[fi][si][1][router];
	struct tres t;
	double zl = c->n > 0 ? c->zl[c->n - 1] : 0;
	int gen = G.gen;

	if (c->n == 0)
		return;
	if (gen == GEN_XDP) {
		/* rc0 as the router leaves it (no GRO): as in --gen=afpacket */
		G.gen = GEN_AFP;
		if (br_sh("bash '%s/tests/bench/lib_forward.sh' napi-off %s",
			G.b.root, G.b.suffix) != 0)
			printf("# rc0 NAPI off failed\n");
	}
	/* no zero-loss rate found: at 10,000 requests/s (flagged) */
	bf_warm(true);
	bf_trial(zl > 0 ? zl / 2 : 10000, G.tdur * 2, true, &t);
	bf_log_trial(router, fi, si, true, round,
	    zl > 0 ? "latency" : "lat@10k", &t);
	G.gen = gen;
	if (bf_gen_napi() != 0)
		printf("# rc0 NAPI for the XDP generator failed\n");
	c->p50[c->n - 1] = t.p50;
	c->p99[c->n - 1] = t.p99;
}

static void
bf_cell(int router, int fi, int si, bool rr, int round)
{
	struct cell *c = &C[fi][si][rr][router];
	struct tres max, t, best;
	double lo = 0, hi, ok_rate = 0;
	double rp;

	bf_warm(rr);
	bf_trial(0, G.tdur, rr, &max);
	bf_log_trial(router, fi, si, rr, round, "max", &max);
	memset(&best, 0, sizeof(best));
	if (max.loss < 0.001) {
		ok_rate = max.offered;
		best = max;
	} else {
		/* below 1.5x what the router delivered at full rate: the XDP
		 * generator offers up to several times that, and a search from
		 * its full rate would spend its steps far above. A router that
		 * collapses under overload delivers less than its zero-loss
		 * rate: when every step of a search passes, the search goes
		 * on above it (up to 4x, at most the full rate). */
		double top = max.offered;

		hi = max.delivered * 1.5 < top ? max.delivered * 1.5 : top;
		if (hi < 1000) /* nothing delivered: rate 0 is "full" */
			hi = top < 1000 ? top : 1000;
		for (;;) {
			bool all_ok = true;

			for (int s = 0; s < G.steps; s++) {
				double mid = (lo + hi) / 2;

				bf_trial(mid, G.tdur, rr, &t);
				bf_log_trial(router, fi, si, rr, round,
				    "search", &t);
				if (t.loss < 0.001) {
					lo = mid;
					ok_rate = t.offered;
					best = t;
				} else {
					hi = mid;
					all_ok = false;
				}
			}
			if (!all_ok || hi >= top)
				break;
			hi = hi * 4 < top ? hi * 4 : top;
		}
	}
	if (!G.quick && !rr && fi == NFIB - 1)
		for (unsigned k = 0; k < sizeof(loads) / sizeof(loads[0]);
		     k++) {
			bf_trial(loads[k], G.tdur, rr, &t);
			bf_log_trial(router, fi, si, rr, round, "fixed", &t);
		}
	rp = max.router_pkts ? (double)max.router_pkts : 1;
	c->zl[c->n] = ok_rate;
	c->loss_zl[c->n] = best.loss;
	c->ns_max[c->n] = (router != R_KERN ? max.fwd_ns : max.sirq_ns) / rp;
	c->sirq_max[c->n] = max.sirq_ns / rp;
	c->maxoff[c->n] = max.offered;
	c->maxdel[c->n] = max.delivered;
	rp = best.router_pkts ? (double)best.router_pkts : 1;
	c->ns_zl[c->n] = (router != R_KERN ? best.fwd_ns : best.sirq_ns) / rp;
	c->n++;
}

/* Every cell that ran got frames through at the full rate in some round:
 * a router, generator or sink that passed nothing measured nothing, and
 * the run fails (so does make check's --quick smoke run). */
static bool
bf_measured(void)
{
	bool ok = true;

	for (G.fam6 = 0; G.fam6 < 2; G.fam6++)
		for (int fi = 0; fi < NFIB; fi++)
			for (int si = 0; si < NSZ; si++)
				for (int rr = 0; rr < 2; rr++)
					for (int ro = 0; ro < NR; ro++) {
						const struct cell *c =
						    &C[fi][si][rr][ro];
						double best = 0;

						for (int k = 0; k < c->n; k++)
							if (c->maxdel[k] > best)
								best = c->maxdel
									   [k];
						if (c->n > 0 && best <= 0) {
							printf(
							    "bench-forward: %s fib %s %s "
							    "%s delivered nothing\n",
							    rname[ro],
							    fib_name[fi],
							    size_name[si],
							    rr ? "rr" :
								 "oneway");
							ok = false;
						}
					}
	G.fam6 = 0;
	return (ok);
}

/* The BENCH lines' fields that say what was measured. */
static void
bf_extra(char *b, size_t n, int fi, int si, int rr, int ro, int gen)
{
	snprintf(b, n,
	    "%s\"backend\":\"%s\",%s%s%s\"fib\":%zu,\"flows\":128,"
	    "\"traffic\":\"%s\",\"frame_bytes\":%u,\"topology\":\"veth "
	    "client-router-server netns\",\"generator\":\"%s\","
	    "\"sink\":\"%s\"",
	    G.fam6 ? "\"family\":\"ipv6\"," : "", rbench[ro],
	    rtx[ro][0] ? "\"xdp_tx\":\"" : "", rtx[ro], rtx[ro][0] ? "\"," : "",
	    fib_n[fi], rr ? "request_reply" : "one_way", sizes[si],
	    gen_name[gen], sink_name[G.sink]);
}

/* The BENCH lines of one cell of a tern router, the kernel's as the peer. */
static void
bf_bench_lines(int fi, int si, int rr, int ro)
{
	struct cell *f = &C[fi][si][rr][ro], *k = &C[fi][si][rr][R_KERN];
	char extra[256], cas[96];

	if (f->n == 0)
		return;
	snprintf(cas, sizeof(cas), "forward%s_%s_128f_fib%s%s",
	    G.fam6 ? "6" : "", size_name[si], fib_name4[fi], rr ? "_rr" : "");
	bf_extra(extra, sizeof(extra), fi, si, rr, ro, G.gen);
	br_bench_line("forward", cas, "router_ns_per_pkt", "ns", f->ns_max,
	    f->n, "kernel", k->ns_max, k->n, "lower", extra);
	/* the same at each router's zero-loss rate: neither overloaded (at
	 * the full rate the XDP generator offers tern-fwd several times what
	 * it forwards, while the kernel router, on the generator's CPU,
	 * throttles it) */
	br_bench_line("forward", cas, "router_ns_per_pkt_zero_loss", "ns",
	    f->ns_zl, f->n, "kernel", k->ns_zl, k->n, "lower", extra);
	br_bench_line("forward", cas, "zero_loss_pps", "1/s", f->zl, f->n,
	    "kernel", k->zl, k->n, "higher", extra);
	if (rr) {
		/* latency trials always run on the ring (bf_latency) */
		bf_extra(extra, sizeof(extra), fi, si, rr, ro, GEN_AFP);
		br_bench_line("forward", cas, "latency_p50_us", "us", f->p50,
		    f->n, "kernel", k->p50, k->n, "lower", extra);
		br_bench_line("forward", cas, "latency_p99_us", "us", f->p99,
		    f->n, "kernel", k->p99, k->n, "lower", extra);
	}
}

static void bf_report1(void);

static void
bf_report(void)
{
	for (G.fam6 = 0; G.fam6 < 2; G.fam6++)
		bf_report1();
	G.fam6 = 0;
}

/* The tables and BENCH lines of the current family's cells (none: nothing) */
static void
bf_report1(void)
{
	bool any = false;

	for (int fi = 0; fi < NFIB; fi++)
		for (int si = 0; si < NSZ; si++)
			for (int rr = 0; rr < 2; rr++)
				for (int ro = 0; ro < NR; ro++)
					any |= C[fi][si][rr][ro].n > 0;
	if (!any)
		return;
	if (G.fam6)
		printf("\n# IPv6 (2001:2::/48; frames 78 B and 1514 B; "
		       "tern-fwd's IPv6 FIB and ND, the kernel's IPv6 "
		       "forwarding):");
	printf("\n# medians over rounds (min-max); ns/pkt at the generator's "
	       "full rate\n");
	printf("%-6s %-5s %-6s %-8s %10s %10s %12s %9s %9s %8s %8s %9s\n",
	    "fib", "size", "traffic", "router", "zero-loss", "max-deliv",
	    "router-ns/p", "ns/p@zl", "sirq-ns/p", "p50us", "p99us",
	    "loss@zl%");
	for (int fi = 0; fi < NFIB; fi++)
		for (int si = 0; si < NSZ; si++)
			for (int rr = 0; rr < 2; rr++)
				for (int ro = 0; ro < NR; ro++) {
					struct cell *c = &C[fi][si][rr][ro];

					if (c->n == 0)
						continue;
					printf(
					    "%-6s %-5s %-6s %-8s %10.0f "
					    "%10.0f %12.0f %9.0f %9.0f %8.1f "
					    "%8.1f %9.4f\n",
					    fib_name[fi], size_name[si],
					    rr ? "rr" : "oneway", rname[ro],
					    br_median(c->zl, c->n),
					    br_median(c->maxdel, c->n),
					    br_median(c->ns_max, c->n),
					    br_median(c->ns_zl, c->n),
					    br_median(c->sirq_max, c->n),
					    rr ? br_median(c->p50, c->n) : 0,
					    rr ? br_median(c->p99, c->n) : 0,
					    br_median(c->loss_zl, c->n) * 100);
				}
	/* the host's speed moves within minutes: each round's tern-fwd
	 * against the kernel of the same round, a few minutes apart at most */
	printf("\n# CPU per packet, tern-fwd / kernel of the same round, at "
	       "the full rate (round 1, 2, ...)\n");
	for (int fi = 0; fi < NFIB; fi++)
		for (int si = 0; si < NSZ; si++)
			for (int rr = 0; rr < 2; rr++)
				for (int ro = R_AFP; ro < R_KERN; ro++) {
					const struct cell
					    *c = &C[fi][si][rr][ro],
					    *k = &C[fi][si][rr][R_KERN];

					if (c->n == 0 || k->n == 0)
						continue;
					printf("%-6s %-5s %-6s %-8s",
					    fib_name[fi], size_name[si],
					    rr ? "rr" : "oneway", rname[ro]);
					for (int i = 0; i < c->n && i < k->n;
					     i++)
						printf(" %5.2f",
						    k->ns_max[i] > 0 ?
							c->ns_max[i] /
							    k->ns_max[i] :
							0);
					printf("\n");
				}
	for (int fi = 0; fi < NFIB; fi++)
		for (int si = 0; si < NSZ; si++)
			for (int rr = 0; rr < 2; rr++)
				for (int ro = R_AFP; ro < R_KERN; ro++)
					bf_bench_lines(fi, si, rr, ro);
}

/* build/bench/forward[-quick].png from the trials file dat (copied to
 * build/bench/forward[-quick]-trials.dat). */
static void
bf_plot(const char *dat, const char *fib)
{
	const char *tag = G.quick ? "forward-quick" : "forward";

	(void)br_sh("mkdir -p '%s/build/bench' && { [ '%s' -ef "
		    "'%s/build/bench/%s-trials.dat' ] || cp '%s' "
		    "'%s/build/bench/%s-trials.dat'; }",
	    G.b.root, dat, G.b.root, tag, dat, G.b.root, tag);
	if (br_sh("command -v gnuplot >/dev/null") != 0) {
		printf("# gnuplot not installed: no plot\n");
		return;
	}
	(void)br_sh(
	    "cd '%s/build/bench' && gnuplot -e \"set terminal pngcairo "
	    "size 1200,500 noenhanced; set output '%s.png'; "
	    "set multiplot layout 1,2 title 'bench-forward: delivered vs "
	    "offered, one-way, 128 flows, FIB %s (all rounds)'; "
	    "set xlabel 'offered kpps'; set ylabel 'delivered kpps'; "
	    "set key top left; set grid; "
	    "do for [s in '64B 1500B'] { set title s.' frames'; "
	    "plot '%s-trials.dat' using "
	    "((strcol(1) eq 'fwd-afp' && strcol(2) eq '%s' && strcol(3) eq s "
	    "&& strcol(4) eq 'oneway') ? \\$7/1000 : 1/0):(\\$8/1000) "
	    "title 'tern-fwd af_packet' pt 7 ps 0.6, '' using "
	    "((strcol(1) eq 'fwd-xdp' && strcol(2) eq '%s' && strcol(3) eq s "
	    "&& strcol(4) eq 'oneway') ? \\$7/1000 : 1/0):(\\$8/1000) "
	    "title 'tern-fwd af_xdp' pt 9 ps 0.6, '' using "
	    "((strcol(1) eq 'kernel' && strcol(2) eq '%s' && strcol(3) eq s "
	    "&& strcol(4) eq 'oneway') ? \\$7/1000 : 1/0):(\\$8/1000) "
	    "title 'kernel' pt 5 ps 0.6, x title 'no loss' lt 0 }; "
	    "unset multiplot\" 2>&1 | grep -v '^$' | head -5",
	    G.b.root, tag, fib, tag, fib, fib, fib);
	printf("# plot: %s/build/bench/%s.png\n", G.b.root, tag);
}

/* --gen-only: each generator flat out, one-way, 3 trials of 1 s per frame
 * size, with nothing forwarding: the router ns's kernel (no addresses,
 * ip_forward=0) drops the frames in softirq on CPU 0, with the generator.
 * The XDP generator with rc0's NAPI from GRO (as in the kernel and
 * AF_PACKET runs), the AF_PACKET one with rc0 as tern-fwd leaves it (GRO
 * off: frames go through the per-CPU backlog). */
static void
bf_gen_only(const char *szs)
{
	int gens[2], ng = 0;

	if (G.gen == GEN_XDP)
		gens[ng++] = GEN_XDP;
	gens[ng++] = GEN_AFP;
	for (int f = 0; f < BF_FLOWS; f++)
		G.dst[f] = 0xc6130000u + 1 + (uint32_t)f;
	for (int gi = 0; gi < ng; gi++) {
		G.gen = gens[gi];
		if (br_sh("bash '%s/tests/bench/lib_forward.sh' napi%s %s",
			G.b.root, G.gen == GEN_XDP ? "" : "-off",
			G.b.suffix) != 0)
			printf("# rc0 NAPI set-up failed\n");
		for (int si = 0; si < NSZ; si++) {
			char want_s[8];

			snprintf(want_s, sizeof(want_s), "%u", si ? 1500 : 64);
			if (strstr(szs, want_s) == NULL)
				continue;
			G.fsize = sizes[si];
			bf_tx_templates();
			for (int k = 1; k <= 3; k++) {
				struct tres r;
				double rp;

				bf_trial(0, 1.0, false, &r);
				rp = r.sent ? (double)r.sent : 1;
				printf("  gen %-8s %-5s t%d sent %9.0f pps "
				       "softirq %5.0f ns/frame (sent) "
				       "veth-ring-full %llu gen-lost %llu load "
				       "%s\n",
				    gen_name[G.gen], size_name[si], k,
				    r.offered, r.sirq_ns / rp,
				    (unsigned long long)r.gen_xmit_err,
				    (unsigned long long)(G.gen == GEN_XDP &&
						r.sent > r.gen_xmit +
							r.gen_xmit_err ?
					    r.sent - r.gen_xmit -
						r.gen_xmit_err :
					    0),
				    bf_loadavg());
			}
		}
	}
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: bench-forward [--quick] [--rounds=N] "
	    "[--trial-s=S] [--fib=1,128,1M] [--sizes=64,1500] "
	    "[--backends=af_packet,af_xdp,af_xdp_run] "
	    "[--fwd-args='--spin-us=N ...'] "
	    "[--lat-args='...'] [--no-rt] [--gen=xdp|afpacket] "
	    "[--gen-batch=N] [--sink=tc|afpacket] [--gen-only] "
	    "[--family=4|6|4,6] [--replot=TRIALS.dat]\n"
	    "  --family: the IPv4 cases, the IPv6 ones (2001:2::/48, frames "
	    "of 78 and 1514 B for --sizes 64 and 1500), or both (the "
	    "default)\n"
	    "  --fwd-args: extra tern-fwd options of every run; --lat-args: "
	    "of the latency runs only; --no-rt: tern-fwd not SCHED_FIFO\n"
	    "  --backends: af_xdp_run is AF_XDP with --xdp-tx=run, the "
	    "hosts' eth0 taking XDP frames (GRO on) for that router only\n"
	    "  --gen: the traffic generator, XDP (BPF_PROG_RUN live frames, "
	    "the default; AF_PACKET if it cannot load) or an AF_PACKET TX "
	    "ring; --gen-batch: XDP frames per BPF_PROG_RUN (1-4096, %d); "
	    "--gen-only: each generator's full rate with no router (the "
	    "router ns's kernel drops the frames), then exit\n"
	    "  --sink: where the hosts take the frames, tc programs at their "
	    "eth0's ingress (the default; AF_PACKET if they cannot load) or "
	    "AF_PACKET RX rings with the hosts' stacks dropping every frame\n",
	    BF_GEN_BATCH);
	return (2);
}

/* Every comma-separated item of list is one of names (or the list is
 * empty, for "none"): else the bad item is printed and false. */
static bool
bf_list_ok(const char *opt, const char *list, const char *const *names, int n)
{
	for (const char *p = list; *p != '\0';) {
		size_t l = strcspn(p, ",");
		bool ok = false;

		for (int k = 0; k < n; k++)
			if (strlen(names[k]) == l &&
			    strncmp(p, names[k], l) == 0)
				ok = true;
		if (!ok) {
			fprintf(stderr,
			    "bench-forward: %s: '%.*s' is not one of", opt,
			    (int)l, p);
			for (int k = 0; k < n; k++)
				fprintf(stderr, " %s", names[k]);
			fprintf(stderr, "\n");
			return (false);
		}
		p += l + (p[l] == ',');
	}
	return (true);
}

/* Is item one of list's comma-separated items? */
static bool
bf_list_has(const char *list, const char *item)
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

/* The IPv6 cases' set of FIB size fi and the flows' destinations
 * (G.dst6): 0 or -1. */
static int
bf_set6(int fi, struct tt_prefixset6 *ps6)
{
	for (unsigned f = 0; f < BF_FLOWS; f++) {
		bf_a6(G.dst6[f], 0x100 + f, 0);
		G.dst6[f][15] = 1; /* 2001:2:0:1XX::1 */
	}
	if (fib_n[fi] == 1) {
		if ((ps6->p = calloc(1, sizeof(*ps6->p))) == NULL)
			return (-1);
		ps6->n = 1;
		bf_a6(ps6->p[0].addr, 0x100, 0); /* 2001:2:0:100::/56 */
		ps6->p[0].len = 56;
		return (0);
	}
	if (fib_n[fi] == BF_FLOWS) {
		if ((ps6->p = calloc(BF_FLOWS, sizeof(*ps6->p))) == NULL)
			return (-1);
		ps6->n = BF_FLOWS;
	} else {
		size_t k = 0;

		/* the IPv6 set without what lies in 2001:2::/48 (the bench's
		 * own addresses), its first 128 then the flows' /64s */
		if (tt_prefixset6_gen(ps6, fib_n[fi], TT_PFX6_SEED) != 0)
			return (-1);
		for (size_t i = 0; i < ps6->n; i++) {
			const struct tt_prefix6 *p = &ps6->p[i];
			static const uint8_t bench48[6] = {0x20, 1, 0, 2, 0, 0};

			if (p->len >= 48 && memcmp(p->addr, bench48, 6) == 0)
				continue;
			ps6->p[k++] = *p;
		}
		ps6->n = k;
	}
	for (unsigned f = 0; f < BF_FLOWS; f++) {
		bf_a6(ps6->p[f].addr, 0x100 + f, 0);
		ps6->p[f].len = 64;
		ps6->p[f].nh = (uint16_t)f;
	}
	return (0);
}

int
main(int argc, char **argv)
{
	static const char *const szn[] = {"64", "1500"};
	static const char *const ben[] = {"af_packet", "af_xdp", "af_xdp_run",
	    "none"};
	const char *fibs = "1,128,1M", *szs = "64,1500", *fwd_args = "";
	const char *replot = NULL, *backends = "af_packet,af_xdp,af_xdp_run";
	const char *lat_args = "";
	struct tt_prefixset ps[NFIB];
	struct tt_prefixset6 ps6[NFIB];
	bool fam4 = true, fam6 = true;
	/* the IPv6 cases' backends: --backends, or in --quick (make check's
	 * smoke run) the two the ratios name, AF_XDP (run) and
	 * AF_PACKET: each tern-fwd start waits ~1 s for DAD */
	const char *backends6 = NULL;
	cpu_set_t cs;
	char path[PATH_MAX + 32];

	setvbuf(stdout, NULL, _IOLBF, 0);
	G.rounds = 3;
	G.rt = true;
	G.tdur = 0.5;
	G.ploff = BF_PLOFF;
	G.steps = 6;
	G.gen = GEN_XDP;
	G.gen_batch = BF_GEN_BATCH;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			G.quick = true;
			G.rounds = 1;
			G.tdur = 0.1;
			G.steps = 2;
			fibs = "128";
			szs = "64";
		} else if (strncmp(argv[i], "--rounds=", 9) == 0)
			G.rounds = atoi(argv[i] + 9);
		else if (strncmp(argv[i], "--trial-s=", 10) == 0)
			G.tdur = atof(argv[i] + 10);
		else if (strncmp(argv[i], "--fib=", 6) == 0)
			fibs = argv[i] + 6;
		else if (strncmp(argv[i], "--sizes=", 8) == 0)
			szs = argv[i] + 8;
		else if (strncmp(argv[i], "--replot=", 9) == 0)
			replot = argv[i] + 9;
		else if (strncmp(argv[i], "--fwd-args=", 11) == 0)
			fwd_args = argv[i] + 11;
		else if (strncmp(argv[i], "--lat-args=", 11) == 0)
			lat_args = argv[i] + 11;
		else if (strcmp(argv[i], "--gen-only") == 0)
			G.gen_only = true;
		else if (strcmp(argv[i], "--family=4") == 0)
			fam4 = true, fam6 = false;
		else if (strcmp(argv[i], "--family=6") == 0)
			fam4 = false, fam6 = true;
		else if (strcmp(argv[i], "--family=4,6") == 0)
			fam4 = fam6 = true;
		else if (strcmp(argv[i], "--no-rt") == 0)
			G.rt = false;
		else if (strncmp(argv[i], "--backends=", 11) == 0)
			backends = backends6 = argv[i] + 11;
		else if (strcmp(argv[i], "--gen=xdp") == 0)
			G.gen = GEN_XDP;
		else if (strcmp(argv[i], "--gen=afpacket") == 0)
			G.gen = GEN_AFP;
		else if (strcmp(argv[i], "--sink=tc") == 0)
			G.sink = SINK_TC;
		else if (strcmp(argv[i], "--sink=afpacket") == 0)
			G.sink = SINK_AFP;
		else if (strncmp(argv[i], "--gen-batch=", 12) == 0)
			G.gen_batch = (unsigned)atoi(argv[i] + 12);
		else
			return (usage());
	}
	if (G.rounds < 1 || G.rounds > 8 || G.tdur <= 0 || G.gen_batch < 1 ||
	    G.gen_batch > 4096)
		return (usage());
	/* a list that names nothing known would run nothing and exit 0 */
	if (!bf_list_ok("--fib", fibs, fib_name, NFIB) ||
	    !bf_list_ok("--sizes", szs, szn, 2) ||
	    !bf_list_ok("--backends", backends, ben, 4))
		return (2);
	if (replot != NULL) {
		/* the plot of a trials file (as written by a run): no run */
		char exe[PATH_MAX], *sl;
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return (1);
		exe[n] = '\0';
		if ((sl = strrchr(exe, '/')) != NULL)
			*sl = '\0';
		snprintf(G.b.root, sizeof(G.b.root), "%s/../..", exe);
		bf_plot(replot, G.quick ? "128" : "1M");
		return (0);
	}
	if (lc_build_bench_check("bench-forward") != 0)
		return (1);
	printf("# bench-forward: built with %s\n", lc_build_flags());
	if (geteuid() != 0 || br_sh("ip netns list >/dev/null 2>&1") != 0) {
		printf("bench-forward: needs root and ip netns: skipped\n");
		return (0);
	}
	if (br_init(&G.b, "bf") != 0) {
		perror("bench-forward: init");
		return (1);
	}
	if (access(G.b.bin, F_OK) == 0) {
		snprintf(path, sizeof(path), "%s/tern-fwd", G.b.bin);
		if (access(path, X_OK) != 0) {
			printf("bench-forward: %s not built: skipped\n", path);
			return (0);
		}
	}
	signal(SIGINT, bf_on_signal);
	signal(SIGTERM, bf_on_signal);
	signal(SIGHUP, bf_on_signal);
	bf_guardian();
	G.clk_tck = sysconf(_SC_CLK_TCK);
	G.seen = calloc(BF_SEQ_MAX / 8, 1);
	G.lat = calloc(BF_LAT_MAX, sizeof(double));
	snprintf(path, sizeof(path), "%s/trials.dat", G.b.dir);
	G.dat = fopen(path, "w");
	if (br_lib(&G.b, "topo", false, NULL) != 0) {
		fprintf(stderr, "bench-forward: cannot build the namespaces\n");
		return (1);
	}
	/* every next hop of the set answers ARP on the server */
	if (br_lib(&G.b, "srv-addrs", false, NULL) != 0) {
		fprintf(stderr, "bench-forward: host set-up failed\n");
		return (1);
	}
	if (backends6 == NULL)
		backends6 = G.quick ? "af_packet,af_xdp_run" : backends;
	{
		char buf[32] = "";
		FILE *f;

		snprintf(path, sizeof(path),
		    "ip netns exec %s cat "
		    "/sys/class/net/rs0/ifindex",
		    ns_router());
		if ((f = popen(path, "r")) != NULL) {
			if (fgets(buf, sizeof(buf), f) == NULL)
				buf[0] = '\0';
			pclose(f);
		}
		G.srv_ifindex = atoi(buf);
	}
	CPU_ZERO(&cs);
	CPU_SET(0, &cs);
	(void)sched_setaffinity(0, sizeof(cs), &cs);
	/* ahead of whatever else runs on the machine (builds): the kernel
	 * router runs in softirq, which preempts it anyway; the generator
	 * and tern-fwd (started from here, it inherits it) get nice -15 */
	G.nice = setpriority(PRIO_PROCESS, 0, -15) == 0 ? -15 : 0;
	/* no CAP_SYS_NICE or no real-time budget (containers, cgroups) */
	if (G.rt && br_sh("chrt -f 10 true >/dev/null 2>&1") != 0) {
		G.rt = false;
		printf(
		    "# chrt -f 10 refused here: tern-fwd runs SCHED_OTHER\n");
	}
	if (G.sink == SINK_TC) {
		char why[256] = "";

		if (bf_sink_open(why, sizeof(why)) != 0) {
			printf(
			    "# tc sink unavailable (%s): falling back to the "
			    "AF_PACKET rings on the hosts\n",
			    why);
			G.sink = SINK_AFP;
		}
	}
	if (G.sink == SINK_AFP && fam6) {
		/* the AF_PACKET receivers parse IPv4 only */
		printf("# IPv6 cases: need the tc sink: not run\n");
		fam6 = false;
	}
	/* the TX ring: the AF_PACKET generator, and every latency trial */
	if (bf_ring_open(&G.tx, ns_client(), "eth0", true) != 0 ||
	    (G.sink == SINK_AFP &&
		(bf_ring_open(&G.crx, ns_client(), "eth0", false) != 0 ||
		    bf_ring_open(&G.srx, ns_server(), "eth0", false) != 0 ||
		    bf_ring_open(&G.stx, ns_server(), "eth0", true) != 0))) {
		perror("bench-forward: AF_PACKET rings");
		return (1);
	}
	if (G.gen == GEN_XDP) {
		char why[256] = "";

		if (bf_gen_xdp_open(why, sizeof(why)) != 0) {
			printf(
			    "# XDP generator unavailable (%s): falling back to "
			    "the AF_PACKET generator\n",
			    why);
			G.X.st = NULL;
			G.gen = GEN_AFP;
		}
	}
	printf("# topology: client ns --veth-- router ns --veth-- server ns "
	       "(tests/lib/netns.sh); %d flows (UDP, 128 destinations); frames "
	       "60 B (64 B with FCS) and 1514 B (IP 1500); trial %.2f s; "
	       "zero loss: loss < 0.1%%, %d-step binary search below the "
	       "generator's full rate; %d rounds, tern-fwd on AF_PACKET, on "
	       "AF_XDP, then the kernel each round\n",
	    BF_FLOWS, G.tdur, G.steps, G.rounds);
	if (fam6 && !G.gen_only)
		printf("# IPv6 cases (rows fib v6:N): the same topology with "
		       "addresses of 2001:2::/48 (client 2001:2:0:f1::2/64, "
		       "server 2001:2:0:f2::2-254/64, the router ::1 on both); "
		       "flows to 2001:2:0:1XX::1 (XX = flow), UDP; frames 78 B "
		       "(the 16 payload bytes after 62 header bytes; 82 with "
		       "FCS) and 1514 B (IPv6 packet 1500); FIB 1: "
		       "2001:2:0:100::/56; 128: a /64 a flow; 1M: the IPv6 set "
		       "(tests/lib/prefixset6) with its first 128 replaced by "
		       "those /64s; next hops resolved by ND (tern-fwd's, the "
		       "kernel's); the kernel peer: net.ipv6.conf.all."
		       "forwarding=1 in the router ns\n");
	if (G.gen == GEN_XDP)
		printf("# generator: xdp: tests/bench/forward_gen.bpf.c run by "
		       "BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES, up to %u "
		       "frames a call (paced between calls), redirected "
		       "(devmap) out of the client's eth0; the router's rc0 "
		       "gets veth NAPI from GRO (UDP GRO forwarding and "
		       "fraglist off: no merging) or from tern-fwd's AF_XDP "
		       "program (--gen=afpacket: the AF_PACKET TX ring); one "
		       "call of %u frames with nobody taking them: %.0f us; "
		       "latency trials use the AF_PACKET ring generator "
		       "(no per-call set-up)\n",
		    G.gen_batch, G.gen_batch, G.X.call_us);
	else
		printf("# generator: afpacket: TPACKET_V2 TX ring on the "
		       "client's eth0, up to %d frames a send() "
		       "(PACKET_QDISC_BYPASS)\n",
		    BF_BATCH);
	if (G.sink == SINK_TC)
		printf("# sink: tc: tests/bench/forward_sink.bpf.c at the tc "
		       "ingress of the server's eth0 (counts and drops; "
		       "request/reply: reflects) and of the client's eth0 "
		       "(replies: counts, round-trip time at arrival, drops); "
		       "the hosts' IP stacks never see the bench's frames "
		       "(--sink=afpacket: AF_PACKET RX rings read by the "
		       "generator's thread, a TX ring reflecting)\n");
	else
		printf("# sink: afpacket: TPACKET_V2 RX rings on the server's "
		       "and the client's eth0 read by the generator's thread, "
		       "a TX ring on the server's reflecting; the hosts' "
		       "kernels also receive and drop every frame\n");
	printf("# CPUs: generator%s pid %d pinned to CPU 0; "
	       "tern-fwd pinned to CPU 1 (taskset); the kernel router runs in "
	       "softirq wherever the packets arrive (mostly CPU 0, in the "
	       "generator's send); generator and tern-fwd at nice %d; "
	       "tern-fwd %s; load average at start: %s\n",
	    G.sink == SINK_AFP ? "+receiver+reflector" : "", (int)getpid(),
	    G.nice,
	    G.rt ? "SCHED_FIFO 10 (chrt: ahead of other tasks, as softirq is)" :
		   "SCHED_OTHER",
	    bf_loadavg());
	if (G.gen_only) {
		bf_gen_only(szs);
		printf("# load average at the end: %s\n", bf_loadavg());
		bf_kill_fwd();
		br_cleanup();
		return (0);
	}
	/* the IPv4 cases, then the IPv6 ones (--family) */
	for (int fam = 0; fam < 2; fam++) {
		if (!(fam ? fam6 : fam4))
			continue;
		/* the IPv4 kernel router of the cases before: off */
		G.fam6 = 0;
		if (fam == 1 && bf_kernel(false) != 0)
			printf("# router ns kernel (IPv4) off failed\n");
		/* the IPv6 cases: IPv6 on the hosts (after the IPv4 ones,
		 * which see the hosts as before), every next hop answering
		 * ND */
		if (fam == 1 &&
		    br_sh("bash '%s/tests/bench/lib_forward.sh' hosts6 %s",
			G.b.root, G.b.suffix) != 0) {
			fprintf(stderr,
			    "bench-forward: IPv6 host set-up failed\n");
			br_cleanup();
			return (1);
		}
		G.fam6 = fam;
		G.ploff = fam ? BF_PLOFF6 : BF_PLOFF;
		for (int fi = 0; fi < NFIB; fi++) {
			bool want = false;
			const char *p = fibs;

			while (p && *p) {
				size_t l = strcspn(p, ",");

				if (strlen(fib_name4[fi]) == l &&
				    strncmp(p, fib_name4[fi], l) == 0)
					want = true;
				p = p[l] ? p + l + 1 : NULL;
			}
			if (!want)
				continue;
			memset(&ps[fi], 0, sizeof(ps[fi]));
			memset(&ps6[fi], 0, sizeof(ps6[fi]));
			if (G.fam6) {
				if (bf_set6(fi, &ps6[fi]) != 0)
					return (1);
			} else if (fib_n[fi] == 1) {
				ps[fi].p = calloc(1, sizeof(struct tt_prefix));
				ps[fi].n = 1;
				ps[fi].p[0].addr =
				    0xc6130000u; /* 198.19.0.0/16 */
				ps[fi].p[0].len = 16;
				ps[fi].p[0].nh = 0;
				for (int f = 0; f < BF_FLOWS; f++)
					G.dst[f] = 0xc6130000u + 1 +
					    (uint32_t)f;
			} else {
				uint32_t cand[4096];
				int k = 0;

				/* 128 distinct addresses inside table prefixes (the
			 * standard "match" stream, first 128 distinct) */
				if (tt_prefixset_gen(&ps[fi], fib_n[fi],
					TT_PFX_SEED, 0) != 0 ||
				    tt_addrs_gen(&ps[fi], TT_ADDR_MATCH, cand,
					4096, TT_PFX_SEED + 1) != 0)
					return (1);
				for (int j = 0; j < 4096 && k < BF_FLOWS; j++) {
					bool dup = false;

					for (int g = 0; g < k && !dup; g++)
						dup = G.dst[g] == cand[j];
					if (!dup)
						G.dst[k++] = cand[j];
				}
				if (k < BF_FLOWS)
					return (1);
			}
			for (int round = 1; round <= G.rounds; round++)
				for (int ph = 0; ph < 2 * R_KERN + 1; ph++) {
					/* 0, 2, 4: fwd on AF_PACKET, AF_XDP, AF_XDP
				 * with --xdp-tx=run, sleeping when idle
				 * (throughput, CPU per packet); 1, 3, 5: the
				 * same busy-polling (latency); 6: the kernel
				 * (all three) */
					int ro = ph / 2;
					bool lat = ro != R_KERN && ph % 2 == 1;
					uint64_t t0 = now_ns();
					char args[512];

					if (ro != R_KERN &&
					    !bf_list_has(G.fam6 ? backends6 :
								  backends,
						ritem[ro]))
						continue;
					snprintf(args, sizeof(args),
					    "%s %s %s %s",
					    lat ? "" : "--spin-us=1",
					    ro == R_XRUN    ? "--xdp-tx=run" :
						ro == R_XDP ? "--xdp-tx=ring" :
							      "",
					    fwd_args, lat ? lat_args : "");
					/* veth takes XDP frames only on a queue with
				 * NAPI: the hosts' eth0 for --xdp-tx=run
				 * (GRO on), as netns.sh leaves them for the
				 * other routers, the kernel too */
					if (br_sh(
						"bash '%s/tests/lib/netns.sh' "
						"hosts-napi %s %s",
						G.b.root, G.b.suffix,
						ro == R_XRUN ? "on" : "off") !=
					    0) {
						fprintf(stderr,
						    "bench-forward: the "
						    "hosts' NAPI\n");
						br_cleanup();
						return (1);
					}
					if (ro != R_KERN) {
						/* a tern-fwd that started but did not
					 * answer is killed here, not left */
						if (bf_kernel(false) != 0 ||
						    bf_fwd_start(&ps[fi],
							&ps6[fi], rbackend[ro],
							args) != 0 ||
						    bf_gen_napi() != 0) {
							bf_kill_fwd();
							br_cleanup();
							return (1);
						}
						printf(
						    "# round %d: tern-fwd on %s %s "
						    "pid %d (CPU %d) up with %zu "
						    "routes in %.1f s\n",
						    round, ritem[ro], args,
						    (int)G.fwd_pid,
						    br_pid_cpu(G.fwd_pid),
						    G.fam6 ? ps6[fi].n :
							     ps[fi].n,
						    (double)(now_ns() - t0) /
							1e9);
					} else {
						/* the kernel drops a device's routes
					 * with its last address: reloaded
					 * each round */
						if (bf_kernel(true) != 0 ||
						    bf_kernel_routes(&ps[fi],
							&ps6[fi]) != 0 ||
						    bf_gen_napi() != 0) {
							fprintf(stderr,
							    "bench-forward: "
							    "kernel routes failed\n");
							return (1);
						}
						printf(
						    "# round %d: kernel forwarding "
						    "on, %zu routes loaded with ip "
						    "-batch in %.1f s\n",
						    round,
						    G.fam6 ? ps6[fi].n :
							     ps[fi].n,
						    (double)(now_ns() - t0) /
							1e9);
					}
					for (int si = 0; si < NSZ; si++) {
						char want_s[8];

						snprintf(want_s, sizeof(want_s),
						    "%u", si ? 1500 : 64);
						if (strstr(szs, want_s) == NULL)
							continue;
						G.fsize = sizes[si];
						bf_tx_templates();
						if (!lat)
							for (int rr = 0; rr < 2;
							     rr++)
								bf_cell(ro, fi,
								    si, rr,
								    round);
						if (lat || ro == R_KERN)
							bf_latency(ro, fi, si,
							    round);
					}
					if (ro != R_KERN) {
						printf("# tern-fwd drops:");
						(void)br_sh(
						    "%s/../tests/tools/fwdctl %s "
						    "drops | awk '$2 > 0 {printf \" "
						    "%%s "
						    "%%s\", $1, $2}'; echo",
						    G.b.bin, G.b.rundir);
						/* the kernel's drops on the way to
					 * tern-fwd's sockets (rings full) */
						printf(
						    "# tern-fwd interfaces:");
						(void)br_sh(
						    "%s/../tests/tools/fwdctl %s "
						    "interfaces | awk '{for (i = 1; i "
						    "< NF; i++) if ($i ~ /^rx_(drops|"
						    "ring_full)$/ || $i == \"rx\") "
						    "printf \" %%s %%s %%s\", $1, $i, "
						    "$(i + 1)}'; echo",
						    G.b.bin, G.b.rundir);
						/* where the rest went: the veths' own
					 * counters (XDP drops, ring full) */
						(void)br_sh(
						    "for i in rc0 rs0; do printf "
						    "'# %%s:' $i; ip netns exec "
						    "%s ethtool -S $i 2>/dev/null"
						    " | awk '/drop|full|err/ "
						    "&& $2 > 0 {printf \" %%s "
						    "%%s\", $1, $2}'; echo; done",
						    ns_router());
						printf(
						    "# tern-fwd threads' last CPUs:");
						(void)br_sh(
						    "for t in /proc/%d/task/*; "
						    "do printf ' %%s' $(awk '{print "
						    "$39}' $t/stat); done; echo",
						    (int)G.fwd_pid);
						bf_fwd_stop();
					}
				}
			(void)
			    br_sh("ip -n %s route flush proto boot 2>/dev/null",
				ns_router());
		}
	}
	G.fam6 = 0;
	G.ploff = BF_PLOFF;
	printf("# load average at the end: %s\n", bf_loadavg());
	bf_report();
	if (G.dat != NULL)
		fclose(G.dat);
	G.dat = NULL;
	snprintf(path, sizeof(path), "%s/trials.dat", G.b.dir);
	bf_plot(path, G.quick ? "128" : "1M");
	bf_kill_fwd();
	br_cleanup();
	return (bf_measured() ? 0 : 1);
}
