/* tests/bench/bench_fib6.c: fwd's IPv6 FIB against DPDK rte_fib6 (trie), same process, same prefixes. */
/*
 * The DPDK peer is compiled in when tests/bench/module.mk defines BF_DPDK
 * (as for bench-fib); without it the benchmark says so and reports ours
 * alone. A third table, a prototype of the other design the issue names
 * (hash tables per prefix length, binary search on lengths with markers,
 * Waldvogel et al. 1997; "bsl" below), is built from the same set for the
 * design comparison in docs/fib.md: single lookups and memory only.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef BF_DPDK
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_version.h>
#endif

#include "fwd/fwd_fib6.h"
#include "libcommon/lc_build.h"
#include "tests/lib/benchstat.h"
#include "tests/lib/prefixset6.h"

#define MAX_ROUNDS TT_SERIES_MAX
#define BURST	   32
#ifndef TBL8_FACTOR
#define TBL8_FACTOR 4
#endif

typedef tt_u128 u128;

static struct {
	bool quick, peer, bsl, lookups;
	int rounds;
	size_t n, nlookups, nupdates;
	bool no_thp;
} opt;

static volatile uint64_t sink;
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

/* ---- results ---- */

static void
report(const char *cas, const char *metric, const char *unit,
    const struct tt_series *ours, const char *peer,
    const struct tt_series *theirs, bool higher)
{
	tt_bench_report("fib6", cas, metric, unit, ours, peer, theirs, higher);
}

/* ---- ours ---- */

static struct fwd_fib6 *
ours_build(const struct tt_prefixset6 *ps, size_t *rejected, double *secs)
{
	struct fwd_fib6_conf c = {.max_nh = TT_PFX6_NNH,
	    .flags = opt.no_thp ? FWD_FIB6_F_NO_THP : 0};
	struct fwd_fib6 *f;
	double t0 = now_s();

	*rejected = 0;
	if ((f = fwd_fib6_new(&c)) == NULL) {
		fprintf(stderr, "fwd_fib6_new: %s\n", strerror(errno));
		exit(1);
	}
	for (size_t k = 0; k < ps->n; k++)
		if (fwd_fib6_add(f, ps->p[k].addr, ps->p[k].len, ps->p[k].nh) !=
		    0)
			(*rejected)++;
	*secs = now_s() - t0;
	return (f);
}

/* ---- the design prototype: binary search on prefix lengths ---- */

struct bsl_ent {
	uint64_t hi, lo;
	uint16_t bmp; /* next hop of the best matching prefix <= this length */
	uint8_t used, real;
	uint32_t pad_;
};

struct bsl_tab {
	struct bsl_ent *e;
	size_t mask, n;
	unsigned len;
};

struct bsl {
	struct bsl_tab t[129]; /* by index into lens */
	unsigned lens[129], nl;
	size_t bytes;
};

static inline size_t
bsl_home(u128 k, size_t mask)
{
	uint64_t h = (uint64_t)(k >> 64) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return ((size_t)(h * 0x165667b19e3779f9ull >> 20) & mask);
}

static struct bsl_ent *
bsl_slot(struct bsl_tab *t, u128 k)
{
	size_t i = bsl_home(k, t->mask);

	while (t->e[i].used &&
	    (t->e[i].hi != (uint64_t)(k >> 64) || t->e[i].lo != (uint64_t)k))
		i = (i + 1) & t->mask;
	return (&t->e[i]);
}

static unsigned
bsl_lookup(const struct bsl *b, const uint8_t *dst)
{
	u128 a = tt_a6_get(dst);
	int lo = 0, hi = (int)b->nl - 1;
	unsigned best = FWD_FIB6_NH_NONE;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct bsl_tab *t = &b->t[mid];
		u128 k = a & tt_a6_mask(t->len);
		size_t i = bsl_home(k, t->mask);
		const struct bsl_ent *e;

		for (;;) {
			e = &t->e[i];
			if (!e->used ||
			    (e->hi == (uint64_t)(k >> 64) &&
				e->lo == (uint64_t)k))
				break;
			i = (i + 1) & t->mask;
		}
		if (e->used) {
			best = e->bmp;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return (best);
}

/* Markers on the search path of every prefix; each entry's bmp from a
 * staging FIB filled one length at a time (shortest first). */
static struct bsl *
bsl_build(const struct tt_prefixset6 *ps, double *secs)
{
	struct bsl *b = calloc(1, sizeof(*b));
	size_t cnt[129] = {0}, idx[129];
	struct fwd_fib6_conf c = {.max_nh = TT_PFX6_NNH};
	struct fwd_fib6 *stage = fwd_fib6_new(&c);
	double t0 = now_s();

	if (b == NULL || stage == NULL)
		exit(1);
	for (unsigned l = 0; l <= 128; l++)
		if (ps->count_len[l] != 0) {
			idx[l] = b->nl;
			b->lens[b->nl] = l;
			b->t[b->nl++].len = l;
		}
	/* entries per table: prefixes plus markers (an upper bound) */
	for (size_t k = 0; k < ps->n; k++) {
		int lo = 0, hi = (int)b->nl - 1;
		unsigned len = ps->p[k].len;

		while (lo <= hi) {
			int mid = (lo + hi) / 2;

			cnt[mid]++;
			if (b->lens[mid] == len)
				break;
			if (b->lens[mid] < len)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
	for (unsigned i = 0; i < b->nl; i++) {
		size_t sz = 16;

		while (sz < cnt[i] * 2)
			sz <<= 1;
		b->t[i].e = calloc(sz, sizeof(struct bsl_ent));
		b->t[i].mask = sz - 1;
		b->bytes += sz * sizeof(struct bsl_ent);
		if (b->t[i].e == NULL)
			exit(1);
	}
	for (size_t k = 0; k < ps->n; k++) {
		u128 a = tt_a6_get(ps->p[k].addr);
		unsigned len = ps->p[k].len;
		int lo = 0, hi = (int)b->nl - 1;

		while (lo <= hi) {
			int mid = (lo + hi) / 2;
			struct bsl_tab *t = &b->t[mid];
			u128 key = a & tt_a6_mask(t->len);
			struct bsl_ent *e = bsl_slot(t, key);

			if (!e->used) {
				e->used = 1;
				e->hi = (uint64_t)(key >> 64);
				e->lo = (uint64_t)key;
				e->bmp = FWD_FIB6_NH_NONE;
				t->n++;
			}
			if (t->len == len) {
				e->real = 1;
				break;
			}
			if (t->len < len)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
	/* bmp: a length's entries once every prefix of it and shorter is in
	 * the staging FIB */
	(void)idx;
	for (unsigned i = 0; i < b->nl; i++) {
		struct bsl_tab *t = &b->t[i];

		for (size_t k = 0; k < ps->n; k++)
			if (ps->p[k].len == t->len)
				fwd_fib6_add(stage, ps->p[k].addr, t->len,
				    ps->p[k].nh);
		for (size_t j = 0; j <= t->mask; j++) {
			uint8_t a[16];

			if (!t->e[j].used)
				continue;
			tt_a6_put(((u128)t->e[j].hi << 64) | t->e[j].lo, a);
			t->e[j].bmp = (uint16_t)fwd_fib6_lookup(stage, a);
		}
	}
	fwd_fib6_free(stage);
	*secs = now_s() - t0;
	return (b);
}

static void
bsl_free(struct bsl *b)
{
	if (b == NULL)
		return;
	for (unsigned i = 0; i < b->nl; i++)
		free(b->t[i].e);
	free(b);
}

/* ---- the peer: DPDK rte_fib6, trie ---- */

struct rte_fib6;

#ifdef BF_DPDK
static const bool have_dpdk = true;
static unsigned fib_seq;

static size_t
dpdk_heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	size_t sum = 0;

	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	return (sum);
}

static struct rte_fib6 *
peer_build(const struct tt_prefixset6 *ps, unsigned num_tbl8, size_t *rej,
    double *secs, size_t *heap)
{
	struct rte_fib6_conf c;
	struct rte_fib6 *f;
	char name[32];
	size_t h0 = dpdk_heap_bytes();
	double t0 = now_s();

	memset(&c, 0, sizeof(c));
	c.type = RTE_FIB6_TRIE;
	c.default_nh = FWD_FIB6_NH_NONE;
	c.max_routes = (int)(2 * ps->n); /* rte_rib6 counts branch nodes too */
	c.trie.nh_sz = RTE_FIB6_TRIE_4B; /* 2B allows 2^15 tbl8s only */
	c.trie.num_tbl8 = num_tbl8;
	snprintf(name, sizeof(name), "fib6_%u", fib_seq++);
	if ((f = rte_fib6_create(name, SOCKET_ID_ANY, &c)) == NULL) {
		fprintf(stderr, "rte_fib6_create: %s\n",
		    rte_strerror(rte_errno));
		exit(1);
	}
	*rej = 0;
	for (size_t k = 0; k < ps->n; k++)
		if (rte_fib6_add(f, ps->p[k].addr, ps->p[k].len, ps->p[k].nh) !=
		    0)
			(*rej)++;
	*secs = now_s() - t0;
	*heap = dpdk_heap_bytes() - h0;
	return (f);
}

/*
 * The tbl8 groups rte_fib6's trie has reserved: the second 32-bit field of
 * its data-plane struct (lib/fib/trie.h, struct rte_trie_tbl: number_tbl8s,
 * rsvd_tbl8s, cur_tbl8s), which DPDK does not export otherwise. An add is
 * refused when its reservation would pass the pool, so a pool of this size
 * refuses nothing in the same order. 0 when the first field is not the
 * pool size we gave (another layout).
 */
static unsigned
peer_tbl8_used(struct rte_fib6 *f, unsigned num_tbl8)
{
	const uint32_t *dp = rte_fib6_get_dp(f);

	return (dp != NULL && dp[0] == num_tbl8 ? dp[1] : 0);
}

static int
peer_init(char *prog)
{
	char *eal_argv[] = {prog, "--no-huge", "--no-pci", "--no-shconf",
	    "--no-telemetry", "-m", "6144", "--log-level=3", NULL};
	cpu_set_t all;

	sched_getaffinity(0, sizeof(all), &all);
	if (rte_eal_init((int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1,
		eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return (-1);
	}
	sched_setaffinity(0, sizeof(all), &all);
	rte_log_set_global_level(RTE_LOG_ERR);
	printf(
	    "peer: %s rte_fib6 TRIE, 4-byte entries (2-byte ones allow "
	    "32767 tbl8 groups), num_tbl8 = what a first build reserved + 1%%, max_routes "
	    "= 2 x prefixes, default lookup, EAL --no-huge\n",
	    rte_version());
	return (0);
}

static void
peer_fini(void)
{
	rte_eal_cleanup();
}

static void
peer_free(struct rte_fib6 *f)
{
	rte_fib6_free(f);
}

static uint64_t
peer_lookups(struct rte_fib6 *f, bool burst, const uint8_t *a, size_t m)
{
	uint64_t sum = 0, nh[BURST];
	uint8_t(*ips)[16] = (uint8_t(*)[16])(uintptr_t)a;

	if (!burst) {
		for (size_t i = 0; i < m; i++) {
			rte_fib6_lookup_bulk(f, ips + i, nh, 1);
			sum += nh[0];
		}
		return (sum);
	}
	for (size_t i = 0; i + BURST <= m; i += BURST) {
		rte_fib6_lookup_bulk(f, ips + i, nh, BURST);
		__asm__ volatile("" : : "r"(nh) : "memory");
	}
	return (sum + nh[0]);
}

static unsigned
peer_lookup1(struct rte_fib6 *f, const uint8_t *a)
{
	uint64_t nh;

	rte_fib6_lookup_bulk(f, (uint8_t(*)[16])(uintptr_t)a, &nh, 1);
	return ((unsigned)nh);
}

static int
peer_update(struct rte_fib6 *f, const struct tt_prefix6 *p, bool del)
{
	return (del ? rte_fib6_delete(f, p->addr, p->len) :
		      rte_fib6_add(f, p->addr, p->len, p->nh));
}
#else
static const bool have_dpdk = false;

static int
peer_init(char *prog)
{
	(void)prog;
	printf("bench-fib6: built without DPDK (pkg-config found no libdpdk "
	       "at make time, or make DPDK=no): no rte_fib6 peer, ours "
	       "alone; make bench-fib6 installs libdpdk-dev and builds it "
	       "in\n");
	return (0);
}

static void
peer_fini(void)
{
}

static struct rte_fib6 *
peer_build(const struct tt_prefixset6 *ps, unsigned num_tbl8, size_t *rej,
    double *secs, size_t *heap)
{
	return (NULL);
}

static void
peer_free(struct rte_fib6 *f)
{
}

static unsigned
peer_tbl8_used(struct rte_fib6 *f, unsigned num_tbl8)
{
	return (0);
}

static uint64_t
peer_lookups(struct rte_fib6 *f, bool burst, const uint8_t *a, size_t m)
{
	return (0);
}

static unsigned
peer_lookup1(struct rte_fib6 *f, const uint8_t *a)
{
	return (0);
}

static int
peer_update(struct rte_fib6 *f, const struct tt_prefix6 *p, bool del)
{
	return (-ENOTSUP);
}
#endif

/* ---- measurements ---- */

enum impl { OURS, PEER, BSL };

static double
run_lookups(struct fwd_fib6 *ours, struct rte_fib6 *peer, struct bsl *b,
    enum impl im, bool burst, const uint8_t *a, size_t m)
{
	/* the prototype is ~10x slower: an eighth of the lookups */
	size_t nl = im == BSL ? opt.nlookups / 8 : opt.nlookups,
	       reps = nl / m ? nl / m : 1;
	uint64_t sum = 0;
	double t0 = now_s(), t1;

	for (size_t r = 0; r < reps; r++) {
		if (im == PEER) {
			sum += peer_lookups(peer, burst, a, m);
		} else if (im == BSL) {
			for (size_t i = 0; i < m; i++)
				sum += bsl_lookup(b, a + 16 * i);
		} else if (!burst) {
			for (size_t i = 0; i < m; i++)
				sum += fwd_fib6_lookup(ours, a + 16 * i);
		} else {
			uint16_t nh[BURST];

			for (size_t i = 0; i + BURST <= m; i += BURST) {
				fwd_fib6_lookup_burst(ours, a + 16 * i, nh,
				    BURST);
				__asm__ volatile("" : : "r"(nh) : "memory");
			}
			sum += nh[0];
		}
	}
	t1 = now_s();
	sink += sum;
	return ((double)(reps * (m - (burst ? m % BURST : 0))) / (t1 - t0));
}

/* pf: ours prefetches what the update PF routes ahead touches first
 * (fwd_fib6_prefetch), as a batch of route downloads can */
#define PF 8
static double
run_updates(struct fwd_fib6 *ours, struct rte_fib6 *peer, enum impl im, bool pf,
    const struct tt_prefixset6 *ps, const size_t *idx, size_t u, size_t *errs)
{
	double t0 = now_s();

	for (int del = 1; del >= 0; del--)
		for (size_t k = 0; k < u; k++) {
			const struct tt_prefix6 *p = &ps->p[idx[k]];
			int rv;

			if (pf && k + PF < u)
				fwd_fib6_prefetch(ours, ps->p[idx[k + PF]].addr,
				    ps->p[idx[k + PF]].len);
			if (im == PEER)
				rv = peer_update(peer, p, del);
			else if (del)
				rv = fwd_fib6_del(ours, p->addr, p->len);
			else
				rv = fwd_fib6_add(ours, p->addr, p->len, p->nh);
			*errs += rv != 0;
		}
	return ((double)(2 * u) / (now_s() - t0));
}

/* disagreements of ours with the peer (and the prototype) on a stream */
static size_t
verify(struct fwd_fib6 *ours, struct rte_fib6 *peer, struct bsl *b,
    const uint8_t *a, size_t m)
{
	size_t bad = 0;

	for (size_t i = 0; i < m; i++) {
		unsigned o = fwd_fib6_lookup(ours, a + 16 * i);

		if (peer != NULL && peer_lookup1(peer, a + 16 * i) != o)
			bad++;
		if (b != NULL && bsl_lookup(b, a + 16 * i) != o)
			bad++;
	}
	return (bad);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench-fib6 [--quick] [--rounds N] [--n "
	    "PREFIXES] [--no-peer] [--no-bsl] [--no-lookups] [--no-thp] "
	    "[--wall]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct tt_prefixset6 ps;
	struct fwd_fib6 *ours = NULL;
	struct rte_fib6 *peer = NULL;
	struct bsl *bsl = NULL;
	uint8_t *streams[2];
	char cas[64], sfx[16];
	size_t m, rej, groups;
	double secs;
	unsigned num_tbl8;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opt.rounds = 3;
	opt.n = TT_PFX6_FULL;
	opt.peer = opt.bsl = opt.lookups = true;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			opt.quick = true;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			opt.rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			opt.n = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--no-peer") == 0)
			opt.peer = false;
		else if (strcmp(argv[i], "--no-bsl") == 0)
			opt.bsl = false;
		else if (strcmp(argv[i], "--no-lookups") == 0)
			opt.lookups = opt.bsl = false;
		else if (strcmp(argv[i], "--no-thp") == 0)
			opt.no_thp = true;
		else if (strcmp(argv[i], "--wall") == 0)
			bench_clock = CLOCK_MONOTONIC;
		else
			usage();
	}
	if (opt.rounds < 3 || opt.rounds > MAX_ROUNDS)
		opt.rounds = 3;
	if (lc_build_bench_check("bench-fib6") != 0)
		return (2);
	if (opt.quick && opt.n == TT_PFX6_FULL)
		opt.n = 100000;
	if (opt.n == TT_PFX6_FULL)
		snprintf(sfx, sizeof(sfx), "1M");
	else
		snprintf(sfx, sizeof(sfx), "%zuk", opt.n / 1000);
	m = opt.quick ? 1u << 16 : 1u << 20;
	opt.nlookups = opt.quick ? 1u << 21 : 1u << 25;
	opt.nupdates = opt.quick ? 10000 : 100000;
	if (opt.nupdates > opt.n / 2)
		opt.nupdates = opt.n / 2;
	if (opt.peer && peer_init(argv[0]) != 0)
		return (1);
	if (!have_dpdk)
		opt.peer = false;
	printf("bench-fib6: %s mode, %zu prefixes (tests/lib/prefixset6, seed "
	       "%#" PRIx64 "), %d rounds alternating ours/peer, %zu lookups "
	       "per figure, %d-address bursts, cpu %d, timed on the %s "
	       "clock\n",
	    opt.quick ? "quick" : "full", opt.n, (uint64_t)TT_PFX6_SEED,
	    opt.rounds, opt.nlookups, BURST, sched_getcpu(),
	    bench_clock == CLOCK_MONOTONIC ? "wall" : "thread CPU");
	if (tt_prefixset6_gen(&ps, opt.n, TT_PFX6_SEED) != 0) {
		fprintf(stderr, "prefix set generation failed\n");
		return (1);
	}
	printf("prefix set: /48 %zu, /32 %zu, /44 %zu, /40 %zu, /29 %zu, "
	       "/64 %zu, /128 %zu\n",
	    ps.count_len[48], ps.count_len[32], ps.count_len[44],
	    ps.count_len[40], ps.count_len[29], ps.count_len[64],
	    ps.count_len[128]);
	for (int k = 0; k < 2; k++) {
		streams[k] = malloc(16 * m);
		if (streams[k] == NULL ||
		    tt_addrs6_gen(&ps, (enum tt_addr6_kind)k, streams[k], m,
			TT_PFX6_SEED + (uint64_t)k) != 0)
			return (1);
	}
#define CASE(base) (snprintf(cas, sizeof(cas), "%s_%s", base, sfx), cas)

	/* ---- build ---- */
	{
		struct tt_series sb_o = {0}, sb_p = {0}, mem_o = {0},
				 mem_p = {0}, rj_o = {0}, rj_p = {0};
		size_t heap = 0, rej2 = 0;

		/* the peer's tbl8 pool: what a first build of it reserved
		 * (plus 1%), about the smallest that refuses nothing */
		ours = ours_build(&ps, &rej, &secs);
		groups = fwd_fib6_tbl8_used(ours);
		num_tbl8 = (unsigned)(groups * TBL8_FACTOR + 1024);
		fwd_fib6_free(ours);
		ours = NULL;
		if (opt.peer) {
			unsigned used;

			peer = peer_build(&ps, num_tbl8, &rej2, &secs, &heap);
			used = peer_tbl8_used(peer, num_tbl8);
			printf("rte_fib6 sizing build: %u tbl8 groups reserved "
			       "(ours %zu), %zu refused with a pool of %u\n",
			    used, groups, rej2, num_tbl8);
			if (used != 0 && rej2 == 0)
				num_tbl8 = used + used / 100 + 16;
			peer_free(peer);
			peer = NULL;
		}
		printf("\nbuild (%zu adds in random order from empty, table "
		       "creation included)\n",
		    ps.n);
		for (int r = 0; r < opt.rounds; r++) {
			fwd_fib6_free(ours);
			peer_free(peer);
			peer = NULL;
			ours = ours_build(&ps, &rej, &secs);
			tt_series_add(&sb_o, secs);
			tt_series_add(&mem_o, (double)fwd_fib6_memory(ours));
			tt_series_add(&rj_o, (double)rej);
			if (!opt.peer)
				continue;
			peer = peer_build(&ps, num_tbl8, &rej2, &secs, &heap);
			tt_series_add(&sb_p, secs);
			tt_series_add(&mem_p, (double)heap);
			tt_series_add(&rj_p, (double)rej2);
		}
		report(CASE("build"), "seconds", "s", &sb_o, "dpdk_rte_fib6",
		    &sb_p, false);
		report(CASE("memory"), "bytes", "B", &mem_o, "dpdk_rte_fib6",
		    &mem_p, false);
		report(CASE("rejected"), "routes", "routes", &rj_o,
		    "dpdk_rte_fib6", &rj_p, false);
		printf(
		    "  ours: %zu routes, %zu groups of 256 entries; memory = "
		    "fwd_fib6_memory() (tbl24, groups, route hash); "
		    "rte_fib6 = DPDK heap bytes of create + adds (tbl24, "
		    "tbl8 pool of %u, rte_rib6 nodes)\n",
		    fwd_fib6_count(ours), groups, num_tbl8);
		if (opt.peer) {
			/* a delete does not give back all that its add
			 * reserved: the table the lookups and updates use
			 * gets twice the pool (built untimed) */
			peer_free(peer);
			peer = peer_build(&ps, 2 * num_tbl8, &rej2, &secs,
			    &heap);
			printf("  lookups and updates: an rte_fib6 with a pool "
			       "of %u\n",
			    2 * num_tbl8);
		}
	}
	if (opt.bsl) {
		size_t bad;

		bsl = bsl_build(&ps, &secs);
		printf("prototype bsl (binary search on %u lengths, markers): "
		       "built in %.2f s (staging FIB included), %.1f MiB of "
		       "hash tables\n",
		    bsl->nl, secs, (double)bsl->bytes / 1048576.0);
		bad = verify(ours, NULL, bsl, streams[0], m / 4);
		if (bad != 0) {
			fprintf(stderr, "bench-fib6: prototype disagrees\n");
			return (1);
		}
	}
	for (int k = 0; k < 2 && opt.peer; k++) {
		size_t bad = verify(ours, peer, NULL, streams[k], m);

		printf("verify %-8s: %zu addresses, %zu disagreements\n",
		    tt_addr6_kind_name((enum tt_addr6_kind)k), m, bad);
		if (bad != 0) {
			fprintf(stderr, "bench-fib6: results disagree\n");
			return (1);
		}
	}

	/* ---- lookups ---- */
	printf("\nlookups (lookups/s; single = one call per address, burst = "
	       "%d per call)\n",
	    BURST);
	for (int k = 0; k < 2 && opt.lookups; k++)
		for (int b = 0; b < 2; b++) {
			struct tt_series s[3] = {{{0}, 0}};
			char base[48];

			for (int r = 0; r < opt.rounds; r++)
				for (int im = 0; im < 3; im++) {
					if ((im == PEER && !opt.peer) ||
					    (im == BSL && (!opt.bsl || b)))
						continue;
					tt_series_add(&s[im],
					    run_lookups(ours, peer, bsl,
						(enum impl)im, b, streams[k],
						m));
				}
			snprintf(base, sizeof(base), "lookup_%s%s",
			    tt_addr6_kind_name((enum tt_addr6_kind)k),
			    b ? "_burst" : "");
			report(CASE(base), "lookups_per_s", "1/s", &s[OURS],
			    "dpdk_rte_fib6", &s[PEER], true);
			if (s[BSL].n > 0)
				report(CASE(base), "lookups_per_s", "1/s",
				    &s[OURS], "proto_bsl", &s[BSL], true);
		}

	/* ---- updates on the full table ---- */
	{
		struct tt_series su_o = {0}, su_p = {0}, su_f = {0};
		size_t *idx = malloc(opt.nupdates * sizeof(*idx)),
		       *perm = malloc(ps.n * sizeof(*perm)), e_o = 0, e_p = 0;
		struct tt_rng rng;

		if (idx == NULL || perm == NULL)
			return (1);
		tt_rng_seed(&rng, TT_PFX6_SEED ^ 0x757064);
		for (size_t k = 0; k < ps.n; k++)
			perm[k] = k;
		for (size_t k = 0; k < opt.nupdates; k++) {
			size_t j = k + (size_t)tt_rng_below(&rng, ps.n - k),
			       x = perm[k];

			perm[k] = perm[j];
			perm[j] = x;
			idx[k] = perm[k];
		}
		free(perm);
		printf("\nupdates on the full table (%zu deletes then %zu adds "
		       "of random table prefixes per round)\n",
		    opt.nupdates, opt.nupdates);
		for (int r = 0; r < opt.rounds; r++) {
			tt_series_add(&su_o,
			    run_updates(ours, peer, OURS, false, &ps, idx,
				opt.nupdates, &e_o));
			tt_series_add(&su_f,
			    run_updates(ours, peer, OURS, true, &ps, idx,
				opt.nupdates, &e_o));
			if (opt.peer)
				tt_series_add(&su_p,
				    run_updates(ours, peer, PEER, false, &ps,
					idx, opt.nupdates, &e_p));
		}
		if (e_o || e_p)
			printf("  refused: ours %zu, rte_fib6 %zu\n", e_o, e_p);
		report(CASE("update_full"), "updates_per_s", "1/s", &su_o,
		    "dpdk_rte_fib6", &su_p, true);
		report(CASE("update_full_prefetch"), "updates_per_s", "1/s",
		    &su_f, "dpdk_rte_fib6", &su_p, true);
		for (int k = 0; k < 2 && opt.peer && e_p == 0; k++)
			if (verify(ours, peer, NULL, streams[k], m) != 0) {
				fprintf(stderr,
				    "bench-fib6: disagree after updates\n");
				return (1);
			}
		free(idx);
	}

	printf("\n");
	tt_bench_flush();
	fwd_fib6_free(ours);
	peer_free(peer);
	bsl_free(bsl);
	for (int k = 0; k < 2; k++)
		free(streams[k]);
	tt_prefixset6_free(&ps);
	if (opt.peer)
		peer_fini();
	return (0);
}
