/* tests/bench/bench_fastpath.c: packets/s and instructions per packet through
 * fwd's real fast path on in-memory ports, FIB of 1, 128 and 1M routes; and
 * the instructions of IPv6's checks (fwd_pkt6.h) with a stand-in lookup. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND_H 1
#endif
#endif

#include "fwd/fwd_dp.h"
#include "fwd/fwd_fib6.h"
#include "fwd/fwd_pkt6.h"
#include "libcommon/lc_build.h"
#include "tests/lib/prefixset.h"
#include "tests/unit/fwd/fwd_test_frames.h"

#define NPORTS_OUT 4
#define NNH	   TT_PFX_NNH
#define B6_NFLOWS  128

struct bcase {
	const char *name; /* fastpath_short ... */
	size_t routes;	  /* 1, 128, 1M */
};

static const struct bcase cases[] = {
    {"fastpath_short", 1},
    {"fastpath_medium", 128},
    {"fastpath_long", TT_PFX_FULL},
};

struct bench {
	struct tt_prefixset ps;
	struct fwd_fib *fib;
	struct fwd_fib6 *fib6; /* bench6dp_setup's */
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	struct fwd_port *port[1 + NPORTS_OUT];
	struct fwd_dp dp;
	uint8_t *frames; /* nflows templates of 64 bytes */
	const uint8_t **fr;
	uint16_t *lens;
	unsigned nflows;
	double build_s;
	uint16_t adj_of[NNH]; /* the prefix set's next hop -> adjacency */
};

static const uint8_t in_mac[6] = {0x02, 0x74, 0, 0, 0, 1};
static const uint8_t src_mac[6] = {0x02, 0x74, 0, 0, 0, 0x99};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

static void
die(const char *what, int err)
{
	fprintf(stderr, "bench-fastpath: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The adjacency of the prefix set's next hop nh, made at its first route as
 * tern-fwd does (fwd_d: a next hop gets an adjacency index when a route
 * first names it). */
static unsigned
adj_of(struct bench *b, unsigned nh)
{
	uint8_t mac[6] = {0x02, 0x75, 0, 0, (uint8_t)(nh >> 8), (uint8_t)nh};
	int idx, rv;

	if (b->adj_of[nh] != FWD_FIB_NH_NONE)
		return (b->adj_of[nh]);
	if ((idx = fwd_adj_alloc(b->adj)) < 0)
		die("fwd_adj_alloc", -idx);
	if ((rv = fwd_adj_set_nh(b->adj, (unsigned)idx,
		 (uint16_t)(1 + nh % NPORTS_OUT), TF_IP(100, nh), mac)) != 0)
		die("fwd_adj_set_nh", -rv);
	b->adj_of[nh] = (uint16_t)idx;
	return ((unsigned)idx);
}

/*
 * The router: a FIB of c->routes routes over 256 next hops, resolved
 * adjacencies spread over 4 egress ports, 64-byte UDP frames to nflows
 * destinations inside the table's prefixes arriving on port 0. Adjacency
 * indices come from fwd_adj_alloc at a next hop's first route, as in
 * tern-fwd: 0-253, then 256 and up (254 and 255 are the FIB byte view's
 * special values). The local adjacency takes 0, so with 1M routes the last
 * three next hops met take the byte view's escape to tbl24.
 */
static void
bench_setup(struct bench *b, const struct bcase *c, unsigned nflows,
    unsigned flags)
{
	struct fwd_fib_conf fc = {.max_nh = NNH + 3,
	    .flags = FWD_FIB_F_MARTIAN};
	struct fwd_dp_conf dc;
	uint32_t *dst;
	double t0;
	int rv;

	memset(b, 0, sizeof(*b));
	if ((b->fib = fwd_fib_new(&fc)) == NULL)
		die("fwd_fib_new", errno);
	if ((b->adj = fwd_adj_tbl_new(NNH + 3, 0)) == NULL)
		die("fwd_adj_tbl_new", errno);
	for (unsigned i = 0; i <= NPORTS_OUT; i++) {
		struct fwd_port_mem_conf pc = {.id = (uint16_t)i,
		    .nbufs = 4 * FWD_BURST};

		memcpy(pc.mac, in_mac, 6);
		pc.mac[4] = (uint8_t)i;
		if ((b->port[i] = fwd_port_mem_new(&pc)) == NULL)
			die("fwd_port_mem_new", errno);
		fwd_adj_port_set(b->adj, (uint16_t)i, pc.mac, 1500, true);
	}
	for (unsigned nh = 0; nh < NNH; nh++)
		b->adj_of[nh] = FWD_FIB_NH_NONE;
	/* the router's address, pinned to a LOCAL adjacency as fwd does */
	if ((rv = fwd_adj_alloc(b->adj)) < 0 ||
	    fwd_adj_set_local(b->adj, (unsigned)rv) != 0 ||
	    fwd_local_bind(&b->local, b->fib, (unsigned)rv) != 0 ||
	    fwd_local_add(&b->local, TF_IP(1, 1)) != 0)
		die("local address", EINVAL);
	if (c->routes == 1) {
		/* one route: the default */
		if ((rv = tt_prefixset_gen(&b->ps, 128, TT_PFX_SEED, 0)) != 0)
			die("tt_prefixset_gen", -rv);
		t0 = now_s();
		if ((rv = fwd_fib_add(b->fib, 0, 0, adj_of(b, 7))) != 0)
			die("fwd_fib_add", -rv);
	} else {
		if ((rv = tt_prefixset_gen(&b->ps, c->routes, TT_PFX_SEED,
			 0)) != 0)
			die("tt_prefixset_gen", -rv);
		t0 = now_s();
		for (size_t i = 0; i < b->ps.n; i++)
			if ((rv = fwd_fib_add(b->fib, b->ps.p[i].addr,
				 b->ps.p[i].len, adj_of(b, b->ps.p[i].nh))) !=
			    0)
				die("fwd_fib_add", -rv);
	}
	b->build_s = now_s() - t0;
	b->nflows = nflows;
	if ((dst = calloc(nflows, sizeof(*dst))) == NULL ||
	    (b->frames = calloc(nflows, 64)) == NULL ||
	    (b->fr = calloc(nflows, sizeof(*b->fr))) == NULL ||
	    (b->lens = calloc(nflows, sizeof(*b->lens))) == NULL)
		die("calloc", ENOMEM);
	if ((rv = tt_addrs_gen(&b->ps, TT_ADDR_MATCH, dst, nflows, 1)) != 0)
		die("tt_addrs_gen", -rv);
	for (unsigned i = 0; i < nflows; i++) {
		uint8_t *f = b->frames + (size_t)i * 64;

		/* 64-byte frames on the wire: 14 + 20 + 26 (+ 4 FCS) */
		b->lens[i] = (uint16_t)tf_ipv4(f, in_mac, src_mac,
		    TF_IP(1, 2 + i % 200), dst[i], 64, FWD_IPPROTO_UDP, 26, 0);
		b->fr[i] = f;
	}
	free(dst);
	fwd_port_mem_replay(b->port[0], b->fr, b->lens, nflows);
	memset(&dc, 0, sizeof(dc));
	dc.fib = b->fib;
	dc.adj = b->adj;
	dc.local = &b->local;
	dc.ports = b->port;
	dc.nports = 1 + NPORTS_OUT;
	dc.flags = flags;
	if ((rv = fwd_dp_init(&b->dp, &dc)) != 0)
		die("fwd_dp_init", -rv);
}

static void
bench_teardown(struct bench *b)
{
	fwd_dp_fini(&b->dp);
	for (unsigned i = 0; i <= NPORTS_OUT; i++)
		fwd_port_free(b->port[i]);
	fwd_adj_tbl_free(b->adj);
	fwd_fib6_free(b->fib6);
	fwd_fib_free(b->fib);
	tt_prefixset_free(&b->ps);
	free(b->frames);
	free(b->fr);
	free(b->lens);
}

/*
 * IPv6 through fwd_dp_process itself (the daemon's path, ports and all):
 * the medium IPv4 router, plus a FIB6 of one /32 and a /64 a flow under it
 * (as the fastpath6 line's), each /64 to one of 128 resolved IPv6
 * adjacencies over the 4 egress ports, and 64-byte IPv6 UDP frames
 * (14 + 40 + 8 + 2) 2001:2:0:1::x -> 2001:2:0:<flow>::1 arriving on port 0.
 */
static void
bench6dp_setup(struct bench *b)
{
	struct fwd_fib6_conf fc = {.max_nh = NNH + 3};
	struct fwd_dp_conf dc;
	uint8_t s6[16], d6[16];
	int rv;

	bench_setup(b, &cases[1], B6_NFLOWS, 0);
	fwd_dp_fini(&b->dp);
	fc.qsbr = fwd_fib_qsbr(b->fib);
	if ((b->fib6 = fwd_fib6_new(&fc)) == NULL)
		die("fwd_fib6_new", errno);
	for (unsigned i = 0; i < B6_NFLOWS; i++) {
		uint8_t mac[6] = {0x02, 0x76, 0, 0, 0, (uint8_t)i};
		int idx = fwd_adj_alloc(b->adj);

		tf_ip6(s6, 1, (uint16_t)(2 + i));
		tf_ip6(d6, (uint16_t)(0x100 + i), 1);
		if (idx < 0 ||
		    (rv = fwd_adj_set_nh6(b->adj, (unsigned)idx,
			 (uint16_t)(1 + i % NPORTS_OUT), d6, mac)) != 0)
			die("fwd_adj_set_nh6", EINVAL);
		b->lens[i] = (uint16_t)tf_ipv6(b->frames + (size_t)i * 64,
		    in_mac, src_mac, s6, d6, 64, FWD_IPPROTO_UDP, 10);
		memset(d6 + 8, 0, 8);
		if ((rv = fwd_fib6_add(b->fib6, d6, 64, (unsigned)idx)) != 0 ||
		    (i == 0 &&
			(rv = fwd_fib6_add(b->fib6,
			     (uint8_t[16]){0x20, 0x01, 0x00, 0x02}, 32,
			     (unsigned)idx)) != 0))
			die("fwd_fib6_add", -rv);
	}
	fwd_port_mem_replay(b->port[0], b->fr, b->lens, B6_NFLOWS);
	dc = b->dp.conf;
	dc.fib6 = b->fib6;
	if ((rv = fwd_dp_init(&b->dp, &dc)) != 0)
		die("fwd_dp_init", -rv);
}

/* Poll until npkts were received; every one must be forwarded. */
static void
run_pkts(struct bench *b, uint64_t npkts)
{
	uint64_t got = 0;

	while (got < npkts)
		got += fwd_dp_poll(&b->dp, b->port[0]);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/*
 * Instructions per packet: this binary again under callgrind (with
 * "--callgrind-child" and args, 4 of them, the last NULL when fewer),
 * collecting only inside the function fn (fwd_dp_process: parse, local
 * test, LPM, adjacency, TTL and checksum, rewrite, queueing; port receive
 * and send excluded), and with instrumentation switched on only after the
 * FIB is built.
 */
static double
instr_run(const char *self, const char *fn, char *const args[4], uint64_t npkts)
{
	char out[64], line[512];
	double ir = -1;
	pid_t pid;
	int st;
	FILE *f;

	snprintf(out, sizeof(out), "/tmp/bench-fastpath-cg.%d", (int)getpid());
	fflush(stdout);
	if ((pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		char ofarg[96], tgarg[96];

		snprintf(ofarg, sizeof(ofarg), "--callgrind-out-file=%s", out);
		snprintf(tgarg, sizeof(tgarg), "--toggle-collect=%s", fn);
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		execlp("valgrind", "valgrind", "--tool=callgrind",
		    "--instr-atstart=no", tgarg, ofarg, self,
		    "--callgrind-child", args[0], args[1], args[2], args[3],
		    (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		unlink(out);
		return (-1);
	}
	if ((f = fopen(out, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "totals:", 7) == 0 ||
		    strncmp(line, "summary:", 8) == 0)
			ir = strtod(line + (line[0] == 't' ? 7 : 8), NULL);
	fclose(f);
	unlink(out);
	return (ir < 0 ? -1 : ir / (double)npkts);
}

/* fwd_dp_process's instructions per packet for case ci. */
static double
instr_per_pkt(const char *self, unsigned ci, unsigned nflows, uint64_t npkts,
    unsigned flags)
{
	char arg[4][32], *args[4];

	snprintf(arg[0], sizeof(arg[0]), "%u", ci);
	snprintf(arg[1], sizeof(arg[1]), "%u", nflows);
	snprintf(arg[2], sizeof(arg[2]), "%" PRIu64, npkts);
	snprintf(arg[3], sizeof(arg[3]), "%u", flags);
	for (unsigned i = 0; i < 4; i++)
		args[i] = arg[i];
	return (instr_run(self, "fwd_dp_process", args, npkts));
}

/* ---- IPv6: fwd_pkt6.h's fast test, a stand-in lookup, the rewrite ---- */

#define B6_NADJ 256

struct bench6 {
	uint64_t mac64;		     /* in_mac, as fwd_port.mac */
	uint64_t slow;		     /* not taken by the fast test */
	unsigned mtu;		     /* the egress MTU, one for all */
	uint8_t nh_floor[256];	     /* copies of fwd_pkt6.c's tables, */
	uint8_t addr_floor[256];     /* addressed from b as fwd_dp would */
	uint16_t stub[65536];	     /* the stand-in FIB */
	struct fwd_fib6 *fib;	     /* the IPv6 FIB (bench6_burst_fib) */
	uint8_t hdr[B6_NADJ][16];    /* Ethernet headers of adjacencies */
	uint8_t tmpl[B6_NFLOWS][64]; /* the frames as received */
	uint8_t work[FWD_BURST][64]; /* a burst's copy, rewritten */
	uint16_t len[B6_NFLOWS];
};

/*
 * One burst as fwd_dp_process would take it, for IPv6: the fast test
 * (fwd_pkt6_fast_ok_k), a lookup, the MTU test (Packet Too Big: IPv6 is
 * never fragmented by a router), the hop limit decrement, the Ethernet
 * rewrite from the adjacency, onto the out list. The lookup is a stand-in
 * of one load from both halves of the destination (stub[], 16 bits of the
 * /64 mixed with the top of the interface id): not the IPv6 FIB (another
 * helper's), whose own instructions add to these. noinline: callgrind
 * counts inside it only (and its clones: the compiler may specialise it,
 * bench6_burst.constprop.0, hence "bench6_burst*").
 */
static inline __attribute__((always_inline)) unsigned
bench6_body(struct bench6 *b, uint8_t (*fr)[64], const uint16_t *len,
    unsigned n, uint8_t **out, bool real)
{
	unsigned nout = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *f = fr[i];
		uint64_t hi, lo;
		unsigned il, a;

		if (__builtin_expect(!fwd_pkt6_fast_ok_k(f, len[i], b->mac64,
					 b->nh_floor, b->addr_floor, &hi, &lo,
					 &il),
			0)) {
			b->slow++;
			continue;
		}
		a = real ? fwd_fib6_lookup(b->fib, f + FWD_ETH_HLEN + 24) :
			   b->stub[(uint16_t)(hi ^ (lo >> 48))];
		if (__builtin_expect((real && a >= B6_NADJ) || il > b->mtu,
			0)) {
			b->slow++;
			continue;
		}
		fwd_ip6_hlim_dec(f + FWD_ETH_HLEN);
		fwd_eth_write(f, b->hdr[a]);
		out[nout++] = f;
	}
	return (nout);
}

__attribute__((noinline)) static unsigned
bench6_burst(struct bench6 *b, uint8_t (*fr)[64], const uint16_t *len,
    unsigned n, uint8_t **out)
{
	return (bench6_body(b, fr, len, n, out, false));
}

/* The same with fwd_fib6_lookup on a FIB of one /64 a flow under a /32
 * (the lookup reads tbl24, then the groups of bytes 3 to 7: a /48 reads
 * two fewer). */
__attribute__((noinline)) static unsigned
bench6_burst_fib(struct bench6 *b, uint8_t (*fr)[64], const uint16_t *len,
    unsigned n, uint8_t **out)
{
	return (bench6_body(b, fr, len, n, out, true));
}

static struct bench6 *
bench6_new(void)
{
	struct bench6 *b = calloc(1, sizeof(*b));
	uint8_t s[16], d[16];

	if (b == NULL)
		die("calloc", ENOMEM);
	for (unsigned i = 0; i < 6; i++)
		b->mac64 |= (uint64_t)in_mac[i] << (8 * i);
	b->mtu = 1500;
	memcpy(b->nh_floor, fwd_ip6_nh_floor, 256);
	memcpy(b->addr_floor, fwd_ip6_addr_floor, 256);
	for (unsigned i = 0; i < 65536; i++)
		b->stub[i] = (uint16_t)(i % B6_NADJ);
	for (unsigned a = 0; a < B6_NADJ; a++) {
		uint8_t mac[6] = {0x02, 0x75, 0, 0, 0, (uint8_t)a};

		memcpy(b->hdr[a], mac, 6);
		memcpy(b->hdr[a] + 6, in_mac, 6);
		b->hdr[a][12] = 0x86;
		b->hdr[a][13] = 0xdd;
	}
	/* 64-byte UDP frames (14 + 40 + 8 + 2), 2001:2:0:1::x ->
	 * 2001:2:0:<flow>::1 */
	{
		struct fwd_fib6_conf fc = {.max_nh = B6_NADJ};

		if ((b->fib = fwd_fib6_new(&fc)) == NULL)
			die("fwd_fib6_new", errno);
	}
	tf_ip6(d, 0, 0);
	if (fwd_fib6_add(b->fib, d, 32, B6_NADJ - 1) != 0)
		die("fwd_fib6_add", EINVAL);
	for (unsigned i = 0; i < B6_NFLOWS; i++) {
		tf_ip6(s, 1, (uint16_t)(2 + i));
		tf_ip6(d, (uint16_t)(0x100 + i), 1);
		b->len[i] = (uint16_t)tf_ipv6(b->tmpl[i], in_mac, src_mac, s, d,
		    64, FWD_IPPROTO_UDP, 10);
		memset(d + 8, 0, 8);
		if (fwd_fib6_add(b->fib, d, 64, i % B6_NADJ) != 0)
			die("fwd_fib6_add", EINVAL);
	}
	return (b);
}

/* npkts packets in bursts of FWD_BURST over the flows; each burst a fresh
 * copy of the received frames (outside bench6_burst). All must pass. */
static int
bench6_run(struct bench6 *b, uint64_t npkts, bool real)
{
	uint8_t *out[FWD_BURST];
	uint16_t len[FWD_BURST];
	uint64_t done = 0;

	for (uint64_t k = 0; k < npkts / FWD_BURST; k++) {
		for (unsigned i = 0; i < FWD_BURST; i++) {
			unsigned fl = (unsigned)((k * FWD_BURST + i) %
			    B6_NFLOWS);

			memcpy(b->work[i], b->tmpl[fl], 64);
			len[i] = b->len[fl];
		}
		done += real ?
		    bench6_burst_fib(b, b->work, len, FWD_BURST, out) :
		    bench6_burst(b, b->work, len, FWD_BURST, out);
	}
	return (done == npkts / FWD_BURST * FWD_BURST && b->slow == 0 ? 0 : 1);
}

static int
callgrind_child(char **argv)
{
	unsigned ci = (unsigned)atoi(argv[0]), nflows = (unsigned)atoi(argv[1]);
	uint64_t npkts = strtoull(argv[2], NULL, 10);
	unsigned flags = (unsigned)atoi(argv[3]);
	struct bench b;

	if (strcmp(argv[0], "ip6") == 0) {
		struct bench6 *b6 = bench6_new();
		bool real = flags != 0; /* the IPv6 FIB, not the stand-in */
		int rv;

		if (npkts == 0 || npkts % FWD_BURST != 0)
			return (2);
		(void)bench6_run(b6, 4 * FWD_BURST, real); /* warm up */
#ifdef HAVE_CALLGRIND_H
		CALLGRIND_START_INSTRUMENTATION;
#endif
		rv = bench6_run(b6, npkts, real);
#ifdef HAVE_CALLGRIND_H
		CALLGRIND_STOP_INSTRUMENTATION;
#endif
		fwd_fib6_free(b6->fib);
		free(b6);
		return (rv);
	}
	if (strcmp(argv[0], "dp6") == 0 && npkts != 0 && npkts % FWD_BURST == 0)
		bench6dp_setup(&b);
	else if (ci >= sizeof(cases) / sizeof(cases[0]) || npkts == 0 ||
	    npkts % FWD_BURST != 0)
		return (2);
	else
		bench_setup(&b, &cases[ci], nflows, flags);
	run_pkts(&b, 4 * FWD_BURST); /* warm up, not counted */
	b.dp.st.fwd = 0;
#ifdef HAVE_CALLGRIND_H
	CALLGRIND_START_INSTRUMENTATION;
#endif
	run_pkts(&b, npkts);
#ifdef HAVE_CALLGRIND_H
	CALLGRIND_STOP_INSTRUMENTATION;
#endif
	if (b.dp.st.fwd != npkts) {
		fprintf(stderr, "forwarded %" PRIu64 " of %" PRIu64 "\n",
		    b.dp.st.fwd, npkts);
		return (1);
	}
	bench_teardown(&b);
	return (0);
}

/* The end of a table line (instr/pkt or "-") and the case's BENCH lines:
 * pps when pps >= 0, instr_per_pkt when ipp >= 0. */
static void
print_instr(const char *name, const char *vfield, double ipp, unsigned nflows,
    double pps, double pps_min, double pps_max)
{
	if (ipp >= 0)
		printf("%10.1f\n", ipp);
	else
		printf("%10s\n", "-");
	if (pps >= 0)
		printf("BENCH {\"bench\":\"fastpath\",\"case\":\"%s\"%s,"
		       "\"metric\":\"pps\",\"unit\":\"1/s\",\"value\":%.4g,"
		       "\"min\":%.4g,\"max\":%.4g,\"flows\":%u,"
		       "\"better\":\"higher\"}\n",
		    name, vfield, pps, pps_min, pps_max, nflows);
	if (ipp >= 0)
		printf("BENCH {\"bench\":\"fastpath\",\"case\":\"%s\"%s,"
		       "\"metric\":\"instr_per_pkt\",\"unit\":\"instr\","
		       "\"value\":%.1f,\"min\":%.1f,\"max\":%.1f,"
		       "\"method\":\"callgrind\",\"flows\":%u,"
		       "\"better\":\"lower\"}\n",
		    name, vfield, ipp, ipp, ipp, nflows);
	fflush(stdout);
}

/* rounds of round_s seconds of polling b (set up; torn down here): pps[]
 * sorted. 1 when a packet was not forwarded. */
static int
rounds_pps(struct bench *b, const char *name, unsigned rounds, double round_s,
    double *pps)
{
	uint64_t chunk = 1u << 16;

	run_pkts(b, chunk); /* warm up */
	for (unsigned r = 0; r < rounds; r++) {
		double t0 = now_s(), t;
		uint64_t n = 0;

		do {
			run_pkts(b, chunk);
			n += chunk;
			t = now_s() - t0;
		} while (t < round_s);
		pps[r] = (double)n / t;
	}
	if (b->dp.st.fwd != b->dp.st.rx) {
		fprintf(stderr, "%s: forwarded %" PRIu64 " of %" PRIu64 "\n",
		    name, b->dp.st.fwd, b->dp.st.rx);
		return (1);
	}
	bench_teardown(b);
	qsort(pps, rounds, sizeof(pps[0]), cmp_dbl);
	return (0);
}

/* One case with one fast-path variant: table line and BENCH lines. */
static int
run_case(const char *self, unsigned ci, unsigned flags, unsigned nflows,
    unsigned rounds, double round_s, bool quick, bool vg)
{
	const struct bcase *c = &cases[ci];
	const char *variant = flags & FWD_DP_F_BURST_LOOKUP ? "burst_lookup" :
							      "per_packet";
	struct bench b;
	double pps[16], ipp = -1;
	char vfield[64] = "";

	if (flags != 0)
		snprintf(vfield, sizeof(vfield), ",\"variant\":\"%s\"",
		    variant);
	bench_setup(&b, c, nflows, flags);
	if (rounds_pps(&b, c->name, rounds, round_s, pps) != 0)
		return (1);
	/* In --quick, callgrind only for the small tables (the 1M build
	 * under valgrind takes a while). */
	if (vg && (!quick || c->routes < 1000))
		ipp = instr_per_pkt(self, ci, nflows, quick ? 4096 : 65536,
		    flags);
	printf("%-16s %-12s %9zu %8.3f %12.4g %12.4g %12.4g ", c->name, variant,
	    c->routes, b.build_s, pps[rounds / 2], pps[0], pps[rounds - 1]);
	print_instr(c->name, vfield, ipp, nflows, pps[rounds / 2], pps[0],
	    pps[rounds - 1]);
	return (0);
}

/* The IPv6 line of fwd_dp_process (bench6dp_setup): pps of the whole poll
 * loop and instructions inside fwd_dp_process, as the IPv4 cases'. */
static int
run_case6dp(const char *self, bool quick, bool vg)
{
	uint64_t npkts = quick ? 4096 : 65536;
	unsigned rounds = quick ? 3 : 5;
	double round_s = quick ? 0.1 : 1.0, pps[16], ipp = -1;
	char *args[4] = {"dp6", "0", NULL, "0"}, nb[32];
	struct bench b;

	bench6dp_setup(&b);
	if (rounds_pps(&b, "fastpath6_dp", rounds, round_s, pps) != 0)
		return (1);
	snprintf(nb, sizeof(nb), "%" PRIu64, npkts);
	args[2] = nb;
	if (vg)
		ipp = instr_run(self, "fwd_dp_process", args, npkts);
	printf("%-16s %-12s %9s %8s %12.4g %12.4g %12.4g ", "fastpath6_dp",
	    "per_packet", "fib6_64", "-", pps[rounds / 2], pps[0],
	    pps[rounds - 1]);
	print_instr("fastpath6_dp", "", ipp, B6_NFLOWS, pps[rounds / 2], pps[0],
	    pps[rounds - 1]);
	printf("  (IPv6 through fwd_dp_process: the IPv4 quick test failing, "
	       "fwd_pkt6_fast_ok, fwd_fib6_lookup of a /64 under a /32, the "
	       "adjacency test, hop limit, rewrite, port queueing)\n");
	fflush(stdout);
	return (0);
}

/*
 * The IPv6 line: bench6_burst's instructions per packet (fwd_pkt6_fast_ok_k
 * + stand-in lookup + MTU test + hop limit decrement + rewrite + out list),
 * 128 flows, no ports. Not comparable with the IPv4 cases' figure, which
 * is fwd_dp_process with the real FIB, the local test and port queueing.
 */
static int
run_case6(const char *self, bool quick, bool vg)
{
	uint64_t npkts = quick ? 4096 : 65536;

	for (int real = 0; real <= 1; real++) {
		const char *name = real ? "fastpath6" : "fastpath6_stub";
		struct bench6 *b = bench6_new();
		char *args[4] = {"ip6", "0", NULL, real ? "1" : "0"}, nb[32];
		double ipp = -1;
		int bad = bench6_run(b, npkts, real != 0);

		fwd_fib6_free(b->fib);
		free(b);
		if (bad) {
			fprintf(stderr, "%s: a packet left the fast path\n",
			    name);
			return (1);
		}
		snprintf(nb, sizeof(nb), "%" PRIu64, npkts);
		args[2] = nb;
		if (vg)
			ipp = instr_run(self,
			    real ? "bench6_burst_fib*" : "bench6_burst*", args,
			    npkts);
		printf("%-16s %-12s %9s %8s %12s %12s %12s ", name,
		    "per_packet", real ? "fib6_64" : "stub", "-", "-", "-",
		    "-");
		print_instr(name, "", ipp, B6_NFLOWS, -1, -1, -1);
		if (real)
			printf("  (IPv6: the same with fwd_fib6_lookup: one "
			       "/64 a flow under a /32, tbl24 then 5 groups; a "
			       "/48 reads 2 groups fewer; no port queueing)\n");
		else
			printf("  (IPv6: fwd_pkt6_fast_ok_k + a one-load "
			       "stand-in lookup + MTU test + hop limit "
			       "decrement + Ethernet rewrite, bench6_burst "
			       "only; no port queueing)\n");
		fflush(stdout);
	}
	return (run_case6dp(self, quick, vg));
}

static bool
have_valgrind(void)
{
	return (system("valgrind --version >/dev/null 2>&1") == 0);
}

int
main(int argc, char **argv)
{
	bool quick = false;
	unsigned nflows = 128, rounds = 5;
	double round_s = 1.0;
	bool vg;

	if (argc >= 6 && strcmp(argv[1], "--callgrind-child") == 0)
		return (callgrind_child(argv + 2));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--flows") == 0 && i + 1 < argc)
			nflows = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--quick] [--flows N]\n",
			    argv[0]);
			return (2);
		}
	}
	if (nflows == 0 || nflows > 1000000)
		nflows = 128;
	if (lc_build_bench_check("bench-fastpath") != 0)
		return (2);
	if (quick) {
		rounds = 3;
		round_s = 0.1;
	}
	vg = have_valgrind();
	printf("bench-fastpath: fwd_dp_poll on in-memory ports, 64-byte UDP "
	       "frames, %u flows (random addresses inside table prefixes), "
	       "256 next hops over %u egress ports, burst %u, one thread\n",
	    nflows, NPORTS_OUT, FWD_BURST);
	printf("pps: whole poll loop (replay rx copy + fast path + tx), "
	       "median of %u rounds of %.1f s\n",
	    rounds, round_s);
	printf("instr_per_pkt: %s\n",
	    vg ? "callgrind Ir inside "
		 "fwd_dp_process (parse + lookup + rewrite + queue; port I/O "
		 "excluded); exact, one run" :
		 "valgrind not found: not measured");
	printf(
	    "variants: per_packet (default: one lookup per packet) and "
	    "burst_lookup (FWD_DP_F_BURST_LOOKUP: whole burst looked up first "
	    "with prefetch)\n");
	printf("%-16s %-12s %9s %8s %12s %12s %12s %10s\n", "case", "variant",
	    "routes", "build_s", "pps_median", "pps_min", "pps_max",
	    "instr/pkt");
	for (unsigned ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++)
		for (unsigned v = 0; v < 2; v++)
			if (run_case(argv[0], ci, v ? FWD_DP_F_BURST_LOOKUP : 0,
				nflows, rounds, round_s, quick, vg) != 0)
				return (1);
	return (run_case6(argv[0], quick, vg));
}
