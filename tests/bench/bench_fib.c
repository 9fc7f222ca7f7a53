/* tests/bench/bench_fib.c: fwd's FIB against DPDK rte_fib and rte_lpm, same process, same prefixes. */
/*
 * The DPDK peers are compiled in when tests/bench/module.mk defines BF_DPDK
 * (pkg-config found libdpdk at make time, and not make DPDK=no); without
 * them the benchmark says so and reports ours alone.
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
#include <rte_fib.h>
#include <rte_log.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_version.h>
#endif

#include "fwd/fwd_fib.h"
#include "libcommon/lc_build.h"
#include "tests/lib/benchstat.h"
#include "tests/lib/prefixset.h"

#define MAX_ROUNDS     TT_SERIES_MAX
#define BURST	       32
#define FIB_DEFAULT_NH 0x7fffu /* rte_fib 2-byte entries: nh < 2^15 */

static struct {
	bool quick;
	int rounds;
	size_t n;	 /* prefixes in the standard set */
	size_t nlookups; /* per lookup measurement */
	size_t nupdates; /* prefixes deleted then re-added per round */
	bool lpm;
	bool no_thp;	    /* ours without transparent huge pages */
	bool no_simd;	    /* ours with scalar bursts only */
	bool shared;	    /* ours with FWD_FIB_F_SHARED (issue 26) */
	double rib_factor;  /* rte_fib max_routes = factor * prefixes */
	const char *suffix; /* "1M" or e.g. "50k" in --quick */
} opt;

static volatile uint64_t sink;

/* Every figure is timed on this thread's CPU clock: the machine is shared
 * (2 vCPUs), and wall time also counts the time another process had the CPU.
 * --wall switches to CLOCK_MONOTONIC. */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

static size_t
rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, rss = 0;

	if (f == NULL)
		return (0);
	if (fscanf(f, "%lu %lu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return ((size_t)rss * (size_t)sysconf(_SC_PAGESIZE));
}

/* Bytes of this process on transparent huge pages (AnonHugePages): a
 * random lookup in a table on 4 KiB pages takes a TLB miss as well, so a
 * build that did not get them is a slower table, printed as such. */
static size_t
thp_bytes(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[128];
	unsigned long kb = 0;

	if (f == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return ((size_t)kb * 1024);
}

/* ---- results ---- */

static void
report(const char *cas, const char *metric, const char *unit,
    const struct tt_series *ours, const char *peer,
    const struct tt_series *theirs, bool higher)
{
	tt_bench_report("fib", cas, metric, unit, ours, peer, theirs, higher);
}

/* ---- the three tables ---- */

static struct fwd_fib *
ours_build(const struct tt_prefixset *ps, size_t *rejected, double *secs)
{
	struct fwd_fib_conf c = {.max_nh = TT_PFX_FIB_NNH,
	    .flags = (opt.no_thp ? FWD_FIB_F_NO_THP : 0) |
		(opt.no_simd ? FWD_FIB_F_NO_SIMD : 0) |
		(opt.shared ? FWD_FIB_F_SHARED : 0)};
	struct fwd_fib *f;
	double t0 = now_s();

	*rejected = 0;
	f = fwd_fib_new(&c);
	if (f == NULL) {
		fprintf(stderr, "fwd_fib_new: %s\n", strerror(errno));
		exit(1);
	}
	for (size_t k = 0; k < ps->n; k++)
		if (fwd_fib_add(f, ps->p[k].addr, ps->p[k].len, ps->p[k].nh) !=
		    0)
			(*rejected)++;
	*secs = now_s() - t0;
	return (f);
}

enum impl { OURS, DFIB, LPM, DFIB512, NIMPL };
static const char *impl_peer[NIMPL] = {"ours", "dpdk_rte_fib", "dpdk_rte_lpm",
    "dpdk_rte_fib_avx512"};
static bool have_avx512; /* rte_fib's AVX512 lookup is selectable */

/* Without DPDK the two peer pointers stay NULL (incomplete types). */
struct rte_fib;
struct rte_lpm;

struct tables {
	struct fwd_fib *ours;
	struct rte_fib *dfib;
	struct rte_lpm *lpm;
};

/* ---- the peers: DPDK's rte_fib and rte_lpm, or stubs without DPDK ---- */
#ifdef BF_DPDK
static const bool have_peers = true;

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

static unsigned fib_seq;

static struct rte_fib *
dfib_build(const struct tt_prefixset *ps, double rib_factor, size_t *rejected,
    double *secs, size_t *heap)
{
	struct rte_fib_conf c;
	struct rte_fib *f;
	char name[32];
	size_t h0 = dpdk_heap_bytes();
	double t0 = now_s();

	memset(&c, 0, sizeof(c));
	c.type = RTE_FIB_DIR24_8;
	c.default_nh = FIB_DEFAULT_NH;
	/* rte_rib counts every node, branch points too */
	c.max_routes = (int)((double)ps->n * rib_factor);
	c.rib_ext_sz = 0;
	c.dir24_8.nh_sz = RTE_FIB_DIR24_8_2B;
	c.dir24_8.num_tbl8 = (1u << 15) - 1; /* the most 2-byte entries allow */
	snprintf(name, sizeof(name), "fib%u", fib_seq++);
	*rejected = 0;
	f = rte_fib_create(name, SOCKET_ID_ANY, &c);
	if (f == NULL) {
		fprintf(stderr, "rte_fib_create: %s\n",
		    rte_strerror(rte_errno));
		exit(1);
	}
	for (size_t k = 0; k < ps->n; k++)
		if (rte_fib_add(f, ps->p[k].addr, ps->p[k].len, ps->p[k].nh) !=
		    0)
			(*rejected)++;
	*secs = now_s() - t0;
	if (heap != NULL)
		*heap = dpdk_heap_bytes() - h0;
	return (f);
}

static struct rte_lpm *
lpm_build(const struct tt_prefixset *ps, size_t *rejected, double *secs,
    size_t *heap)
{
	struct rte_lpm_config c = {
	    .max_rules = (uint32_t)ps->n,
	    .number_tbl8s = 1u << 16,
	};
	struct rte_lpm *l;
	size_t h0 = dpdk_heap_bytes();
	double t0 = now_s();

	*rejected = 0;
	l = rte_lpm_create("lpm", SOCKET_ID_ANY, &c);
	if (l == NULL) {
		fprintf(stderr, "rte_lpm_create: %s\n",
		    rte_strerror(rte_errno));
		exit(1);
	}
	for (size_t k = 0; k < ps->n; k++)
		if (rte_lpm_add(l, ps->p[k].addr, ps->p[k].len, ps->p[k].nh) !=
		    0)
			(*rejected)++;
	*secs = now_s() - t0;
	*heap = dpdk_heap_bytes() - h0;
	return (l);
}

/* EAL set up without taking this thread's CPUs away. */
static int
peers_init(char *prog)
{
	char *eal_argv[] = {prog, "--no-huge", "--no-pci", "--no-shconf",
	    "--no-telemetry", "-m", "3072", "--log-level=3",
	    "--force-max-simd-bitwidth=512", NULL};
	int eal_argc = (int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1;
	cpu_set_t all;

	/* EAL pins this thread to one lcore; give the scheduler all CPUs back
	 * (2 shared vCPUs: pinning to a busy one would skew one side). */
	sched_getaffinity(0, sizeof(all), &all);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return (-1);
	}
	sched_setaffinity(0, sizeof(all), &all);
	rte_log_set_global_level(RTE_LOG_ERR);
	return (0);
}

static void
peers_fini(void)
{
	rte_eal_cleanup();
}

/* The start of the header line that names the peers. */
static void
peers_print(void)
{
	printf("peers: %s rte_fib DIR24_8 2-byte entries (num_tbl8 32767, "
	       "max_routes %.2f x prefixes (standard set), scalar lookup: "
	       "what DEFAULT picks without --force-max-simd-bitwidth=512) and "
	       "rte_lpm, EAL --no-huge (4 KiB pages); ",
	    rte_version(), opt.rib_factor);
}

static void
dfib_free(struct rte_fib *f)
{
	rte_fib_free(f);
}

static void
lpm_free(struct rte_lpm *l)
{
	rte_lpm_free(l);
}

/* rte_fib's bulk lookup: the AVX512 one or the scalar one; false if the
 * CPU or the build lacks the one asked for. */
static bool
dfib_select(struct rte_fib *f, bool avx512)
{
	return (rte_fib_select_lookup(f,
		    avx512 ? RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512 :
			     RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO) == 0);
}

/* One pass of a peer's lookups over the stream; returns a sum of the next
 * hops so that nothing is optimised away. */
static uint64_t
peer_lookups(const struct tables *t, enum impl im, bool burst,
    const uint32_t *a, size_t m)
{
	uint64_t sum = 0;

	switch (im * 2 + burst) {
	case DFIB * 2:
		for (size_t i = 0; i < m; i++) {
			uint64_t nh;

			rte_fib_lookup_bulk(t->dfib, (uint32_t *)&a[i], &nh, 1);
			sum += nh;
		}
		break;
	case DFIB512 * 2:
	case DFIB512 * 2 + 1:
	case DFIB * 2 + 1: {
		uint64_t nh[BURST];

		for (size_t i = 0; i + BURST <= m; i += BURST)
			rte_fib_lookup_bulk(t->dfib, (uint32_t *)a + i, nh,
			    BURST);
		sum += nh[0];
		break;
	}
	case LPM * 2:
		for (size_t i = 0; i < m; i++) {
			uint32_t nh = 0;

			rte_lpm_lookup(t->lpm, a[i], &nh);
			sum += nh;
		}
		break;
	case LPM * 2 + 1: {
		uint32_t nh[BURST];

		for (size_t i = 0; i + BURST <= m; i += BURST) {
			rte_lpm_lookup_bulk(t->lpm, a + i, nh, BURST);
			__asm__ volatile("" : : "r"(nh) : "memory");
		}
		sum += nh[0];
		break;
	}
	}
	return (sum);
}

/* All three agree on every address of the stream? Returns mismatches. */
static size_t
verify(const struct tables *t, const uint32_t *a, size_t m)
{
	size_t bad = 0;

	for (size_t i = 0; i < m; i++) {
		unsigned o = fwd_fib_lookup(t->ours, a[i]);
		uint64_t f;
		uint32_t l;

		rte_fib_lookup_bulk(t->dfib, (uint32_t *)&a[i], &f, 1);
		if (f == FIB_DEFAULT_NH)
			f = FWD_FIB_NH_NONE;
		if (o != f)
			bad++;
		if (t->lpm != NULL) {
			if (rte_lpm_lookup(t->lpm, a[i], &l) != 0)
				l = FWD_FIB_NH_NONE;
			if (o != l)
				bad++;
		}
	}
	return (bad);
}

static int
peer_update(const struct tables *t, enum impl im, const struct tt_prefix *p,
    bool del)
{
	if (im == DFIB)
		return (del ? rte_fib_delete(t->dfib, p->addr, p->len) :
			      rte_fib_add(t->dfib, p->addr, p->len, p->nh));
	return (del ? rte_lpm_delete(t->lpm, p->addr, p->len) :
		      rte_lpm_add(t->lpm, p->addr, p->len, p->nh));
}
#else
/* Built without DPDK: main() never asks the stubs below for a table. */
static const bool have_peers = false;

static int
peers_init(char *prog)
{
	return (0);
}

static void
peers_fini(void)
{
}

static void
peers_print(void)
{
	printf("bench-fib: built without DPDK (pkg-config found no libdpdk at "
	       "make time, or make DPDK=no): no rte_fib/rte_lpm peers, ours "
	       "alone; make bench-fib installs libdpdk-dev and builds them "
	       "in\n");
	printf("peers: none; ");
}

static struct rte_fib *
dfib_build(const struct tt_prefixset *ps, double rib_factor, size_t *rejected,
    double *secs, size_t *heap)
{
	return (NULL);
}

static struct rte_lpm *
lpm_build(const struct tt_prefixset *ps, size_t *rejected, double *secs,
    size_t *heap)
{
	return (NULL);
}

static void
dfib_free(struct rte_fib *f)
{
}

static void
lpm_free(struct rte_lpm *l)
{
}

static bool
dfib_select(struct rte_fib *f, bool avx512)
{
	return (false);
}

static uint64_t
peer_lookups(const struct tables *t, enum impl im, bool burst,
    const uint32_t *a, size_t m)
{
	return (0);
}

static size_t
verify(const struct tables *t, const uint32_t *a, size_t m)
{
	return (0);
}

static int
peer_update(const struct tables *t, enum impl im, const struct tt_prefix *p,
    bool del)
{
	return (-ENOTSUP);
}
#endif

/* ---- lookups ---- */

/* lookups/s over the whole stream (repeated to nlookups) */
static double
run_lookups(const struct tables *t, enum impl im, bool burst, const uint32_t *a,
    size_t m)
{
	size_t reps = opt.nlookups / m ? opt.nlookups / m : 1;
	uint64_t sum = 0;
	double t0, t1;

	if (im == DFIB512)
		dfib_select(t->dfib, true);
	t0 = now_s();
	for (size_t r = 0; r < reps; r++) {
		switch (im * 2 + burst) {
		case OURS * 2:
			for (size_t i = 0; i < m; i++)
				sum += fwd_fib_lookup(t->ours, a[i]);
			break;
		case OURS * 2 + 1: {
			uint16_t nh[BURST];

			for (size_t i = 0; i + BURST <= m; i += BURST) {
				fwd_fib_lookup_burst(t->ours, a + i, nh, BURST);
				/* keep the results alive as a caller would */
				__asm__ volatile("" : : "r"(nh) : "memory");
			}
			sum += nh[0];
			break;
		}
		default:
			sum += peer_lookups(t, im, burst, a, m);
			break;
		}
	}
	t1 = now_s();
	if (im == DFIB512)
		dfib_select(t->dfib, false);
	sink += sum;
	return ((double)(reps * (m - (burst ? m % BURST : 0))) / (t1 - t0));
}

/* ---- updates ---- */

static double
run_updates(const struct tables *t, enum impl im, const struct tt_prefixset *ps,
    const size_t *idx, size_t u, size_t *errs)
{
	double t0 = now_s();

	for (size_t k = 0; k < u; k++) {
		const struct tt_prefix *p = &ps->p[idx[k]];
		int rv = im == OURS ? fwd_fib_del(t->ours, p->addr, p->len) :
				      peer_update(t, im, p, true);

		*errs += rv != 0;
	}
	for (size_t k = 0; k < u; k++) {
		const struct tt_prefix *p = &ps->p[idx[k]];
		int rv = im == OURS ?
		    fwd_fib_add(t->ours, p->addr, p->len, p->nh) :
		    peer_update(t, im, p, false);

		*errs += rv != 0;
	}
	return ((double)(2 * u) / (now_s() - t0));
}

/* ---- main ---- */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench-fib [--quick] [--rounds N] [--n PREFIXES] "
	    "[--no-lpm] [--no-thp] [--no-simd] [--shared] [--wall] "
	    "[--rib-factor F]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct tt_prefixset ps, pl;
	struct tables t = {0};
	char cas[64];
	size_t rej, rej2, heap_fib = 0, heap_lpm = 0, m;
	double secs;
	uint32_t *streams[3];

	opt.rounds = 3;
	opt.n = TT_PFX_FULL;
	opt.lpm = true;
	opt.rib_factor = 1.0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			opt.quick = true;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			opt.rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			opt.n = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--no-lpm") == 0)
			opt.lpm = false;
		else if (strcmp(argv[i], "--no-thp") == 0)
			opt.no_thp = true;
		else if (strcmp(argv[i], "--no-simd") == 0)
			opt.no_simd = true;
		else if (strcmp(argv[i], "--shared") == 0)
			opt.shared = true;
		else if (strcmp(argv[i], "--wall") == 0)
			bench_clock = CLOCK_MONOTONIC;
		else if (strcmp(argv[i], "--rib-factor") == 0 && i + 1 < argc)
			opt.rib_factor = atof(argv[++i]);
		else
			usage();
	}
	if (opt.rounds < 3 || opt.rounds > MAX_ROUNDS)
		opt.rounds = 3;
	/* libcommon and this file share the flags (one CFLAGS, rebuilt when
	 * they change), so libcommon's check covers this file too. */
	if (lc_build_bench_check("bench-fib") != 0)
		return (2);
	if (!have_peers)
		opt.lpm = false;
	if (opt.quick && opt.n == TT_PFX_FULL)
		opt.n = 50000;
	opt.suffix = opt.n == TT_PFX_FULL ? "1M" : NULL;
	m = opt.quick ? 1u << 16 : 1u << 20; /* addresses per stream */
	opt.nlookups = opt.quick ? 1u << 21 : 1u << 25;
	opt.nupdates = opt.quick ? 5000 : 50000;
	if (opt.nupdates > opt.n / 2)
		opt.nupdates = opt.n / 2;

	if (peers_init(argv[0]) != 0)
		return (1);

	printf("bench-fib: %s mode, %zu prefixes (standard set, seed %#" PRIx64
	       "), %d rounds alternating ours/peers, %zu lookups per figure, "
	       "%d-address bursts, cpu %d, timed on the %s clock\n",
	    opt.quick ? "quick" : "full", opt.n, (uint64_t)TT_PFX_SEED,
	    opt.rounds, opt.nlookups, BURST, sched_getcpu(),
	    bench_clock == CLOCK_MONOTONIC ? "wall" : "thread CPU");
	peers_print();
	printf("ours %s%s, %s bursts\n",
	    opt.no_thp ? "on 4 KiB pages (--no-thp)" :
			 "with transparent huge pages (madvise)",
	    opt.shared ? ", in a shared memory segment (--shared: memfd, "
			 "tbl24 and its byte view collapsed to huge pages)" :
			 "",
	    opt.no_simd ? "scalar" : "AVX-512 (where the CPU has it)");

	if (tt_prefixset_gen(&ps, opt.n, TT_PFX_SEED, 0) != 0 ||
	    tt_prefixset_gen(&pl, opt.n, TT_PFX_SEED, TT_PFX_LONG) != 0) {
		fprintf(stderr, "prefix set generation failed\n");
		return (1);
	}
	/* ours keeps 255 for "no route": next hop 255 is 256 for all three */
	tt_prefixset_fib_nh(&ps);
	tt_prefixset_fib_nh(&pl);
	printf("prefix set: %zu prefixes, %zu nested (%.1f%%); long variant "
	       "%zu (+%zu of /25-/32)\n",
	    ps.n, ps.nested, 100.0 * (double)ps.nested / (double)ps.n, pl.n,
	    pl.nlong);
	for (int k = 0; k < 3; k++) {
		streams[k] = malloc(m * sizeof(uint32_t));
		if (streams[k] == NULL ||
		    tt_addrs_gen(&ps, (enum tt_addr_kind)k, streams[k], m,
			TT_PFX_SEED + (uint64_t)k) != 0)
			return (1);
	}

#define CASE(base)                                                         \
	(opt.suffix ?                                                      \
		snprintf(cas, sizeof(cas), "%s_%s", base, opt.suffix) :    \
		snprintf(cas, sizeof(cas), "%s_%zuk", base, opt.n / 1000), \
	    cas)

	/* ---- build: alternate, keep the last table of each ---- */
	{
		struct tt_series sb_o = {0}, sb_f = {0}, mem_o = {0},
				 mem_f = {0}, rss_o = {0}, thp_o = {0};

		printf("\nbuild (%zu adds in random order from empty, table "
		       "creation included)\n",
		    ps.n);
		for (int r = 0; r < opt.rounds; r++) {
			size_t r0, h0;

			fwd_fib_free(t.ours);
			dfib_free(t.dfib);
			r0 = rss_bytes();
			h0 = thp_bytes();
			t.ours = ours_build(&ps, &rej, &secs);
			tt_series_add(&rss_o, (double)(rss_bytes() - r0));
			tt_series_add(&thp_o, (double)thp_bytes() - (double)h0);
			tt_series_add(&sb_o, secs);
			tt_series_add(&mem_o, (double)fwd_fib_memory(t.ours));
			if (rej)
				printf("  ours rejected %zu\n", rej);
			if (!have_peers)
				continue;
			t.dfib = dfib_build(&ps, opt.rib_factor, &rej2, &secs,
			    &heap_fib);
			tt_series_add(&sb_f, secs);
			tt_series_add(&mem_f, (double)heap_fib);
			if (rej2)
				printf("  rte_fib rejected %zu\n", rej2);
		}
		report(CASE("build"), "seconds", "s", &sb_o, "dpdk_rte_fib",
		    &sb_f, false);
		report(CASE("memory"), "bytes", "B", &mem_o, "dpdk_rte_fib",
		    &mem_f, false);
		printf(
		    "  (memory: ours = fwd_fib_memory(): tbl24, dep24, tbl8 "
		    "and dep8 of groups touched, route hash table; RSS growth over our build "
		    "%.1f MiB; rte_fib = DPDK heap bytes allocated by "
		    "rte_fib_create+adds: tbl24, tbl8 pool, rte_rib mempool of "
		    "max_routes nodes)\n",
		    tt_series_med(&rss_o) / 1048576.0);
		printf(
		    "  ours: %zu routes, %zu tbl8 groups in use; %.1f MiB of "
		    "the build's RSS growth on transparent huge pages%s\n",
		    fwd_fib_count(t.ours), fwd_fib_tbl8_used(t.ours),
		    tt_series_med(&thp_o) / 1048576.0,
		    opt.no_thp ?
			" (--no-thp)" :
			tt_series_med(&thp_o) < 16.0 * 1048576 ?
			" (FEWER THAN THE BYTE VIEW'S 16 MiB: lookups pay TLB "
			"misses, the host is short of free 2 MiB pages)" :
			"");
	}
	if (opt.lpm) {
		struct tt_series sb_l = {0}, mem_l = {0};

		printf("\nrte_lpm build: once per process (its rule table "
		       "insert is O(n), a 1M build takes minutes)\n");
		fflush(stdout);
		t.lpm = lpm_build(&ps, &rej, &secs, &heap_lpm);
		tt_series_add(&sb_l, secs);
		tt_series_add(&mem_l, (double)heap_lpm);
		printf("  rte_lpm: %.1f s, %zu rejected, %.1f MiB heap\n", secs,
		    rej, (double)heap_lpm / 1048576.0);
		/* one sample against one: only the ratio's direction means
		 * much, so the ours side is the median above */
		(void)sb_l;
		(void)mem_l;
	}

	/* rte_fib's AVX512 bulk lookup, where the CPU has it: an extra peer
	 * for bursts (the default selection stays the scalar one) */
	if (have_peers) {
		have_avx512 = dfib_select(t.dfib, true);
		dfib_select(t.dfib, false);
		printf("rte_fib AVX512 lookup: %s\n",
		    have_avx512 ? "available, measured as the extra peer "
				  "dpdk_rte_fib_avx512 (bursts)" :
				  "not available");
	}

	/* ---- correctness across the three ---- */
	for (int k = 0; k < 3 && have_peers; k++) {
		size_t bad = verify(&t, streams[k], m);

		printf("verify %-8s: %zu addresses, %zu disagreements\n",
		    tt_addr_kind_name((enum tt_addr_kind)k), m, bad);
		if (bad != 0) {
			fprintf(stderr, "bench-fib: results disagree\n");
			return (1);
		}
	}

	/* ---- lookups ---- */
	printf("\nlookups (lookups/s; single = one call per address, burst = "
	       "%d per call)\n",
	    BURST);
	for (int k = 0; k < 3; k++) {
		static const char *cname[3] = {"lookup_match", "lookup_uniform",
		    "lookup_hot128"};

		for (int b = 0; b < 2; b++) {
			struct tt_series s[NIMPL] = {{{0}, 0}};
			char base[48];

			for (int r = 0; r < opt.rounds; r++)
				for (int im = 0; im < NIMPL; im++) {
					if ((im != OURS && !have_peers) ||
					    (im == LPM && t.lpm == NULL) ||
					    (im == DFIB512 &&
						(!have_avx512 || !b)))
						continue;
					tt_series_add(&s[im],
					    run_lookups(&t, (enum impl)im, b,
						streams[k], m));
				}
			/* the issue's case names are single-address calls;
			 * _burst are 32 addresses per call (fwd's way) */
			snprintf(base, sizeof(base), "%s%s", cname[k],
			    b ? "_burst" : "");
			report(CASE(base), "lookups_per_s", "1/s", &s[OURS],
			    impl_peer[DFIB], &s[DFIB], true);
			if (t.lpm != NULL)
				report(CASE(base), "lookups_per_s", "1/s",
				    &s[OURS], impl_peer[LPM], &s[LPM], true);
			if (s[DFIB512].n > 0)
				report(CASE(base), "lookups_per_s", "1/s",
				    &s[OURS], impl_peer[DFIB512], &s[DFIB512],
				    true);
		}
	}

	/* ---- updates on the full table ---- */
	{
		struct tt_series su_o = {0}, su_f = {0};
		size_t *idx = malloc(opt.nupdates * sizeof(*idx)), e_o = 0,
		       e_f = 0;
		struct tt_rng rng;

		/* distinct random prefixes: a partial Fisher-Yates shuffle */
		size_t *perm = malloc(ps.n * sizeof(*perm));

		tt_rng_seed(&rng, TT_PFX_SEED ^ 0x757064);
		for (size_t k = 0; k < ps.n; k++)
			perm[k] = k;
		for (size_t k = 0; k < opt.nupdates; k++) {
			size_t j = k + (size_t)tt_rng_below(&rng, ps.n - k);
			size_t x = perm[k];

			perm[k] = perm[j];
			perm[j] = x;
			idx[k] = perm[k];
		}
		free(perm);
		printf("\nupdates on the full table (%zu deletes then %zu "
		       "adds of random table prefixes per round)\n",
		    opt.nupdates, opt.nupdates);
		for (int r = 0; r < opt.rounds; r++) {
			tt_series_add(&su_o,
			    run_updates(&t, OURS, &ps, idx, opt.nupdates,
				&e_o));
			if (!have_peers)
				continue;
			tt_series_add(&su_f,
			    run_updates(&t, DFIB, &ps, idx, opt.nupdates,
				&e_f));
		}
		if (e_o || e_f)
			printf("  errors: ours %zu rte_fib %zu\n", e_o, e_f);
		report(CASE("update_full"), "updates_per_s", "1/s", &su_o,
		    "dpdk_rte_fib", &su_f, true);
		if (t.lpm != NULL && !opt.quick) {
			/* rte_lpm: a few hundred only, it takes ~ms each */
			struct tt_series su_l = {0};
			size_t e_l = 0, few = 200;

			tt_series_add(&su_l,
			    run_updates(&t, LPM, &ps, idx, few, &e_l));
			printf("  rte_lpm: %.0f updates/s (%zu deletes + adds, "
			       "one run)\n",
			    su_l.v[0], few);
			report(CASE("update_full"), "updates_per_s", "1/s",
			    &su_o, "dpdk_rte_lpm", &su_l, true);
		}
		/* the tables still hold the whole set */
		if (have_peers && verify(&t, streams[0], m) != 0) {
			fprintf(stderr, "bench-fib: disagree after updates\n");
			return (1);
		}
		free(idx);
	}

	/* ---- the long variant: routes rejected ---- */
	{
		struct tt_series rj_o = {0}, rj_f = {0}, sb_o = {0}, sb_f = {0},
				 mem_o = {0}, mem_f = {0};
		struct tables tl = {0};

		printf("\nlong variant (%zu prefixes, %zu of /25-/32): "
		       "rejected routes (rte_fib max_routes 2 x prefixes, so "
		       "only its tbl8 pool can refuse)\n",
		    pl.n, pl.nlong);
		fwd_fib_free(t.ours);
		dfib_free(t.dfib);
		t.ours = NULL;
		t.dfib = NULL;
		tl.ours = ours_build(&pl, &rej, &secs);
		tt_series_add(&rj_o, (double)rej);
		tt_series_add(&sb_o, secs);
		tt_series_add(&mem_o, (double)fwd_fib_memory(tl.ours));
		/* a rib twice the routes: every rejection is its tbl8 pool */
		if (have_peers) {
			tl.dfib = dfib_build(&pl, 2.0, &rej2, &secs, &heap_fib);
			tt_series_add(&rj_f, (double)rej2);
			tt_series_add(&sb_f, secs);
			tt_series_add(&mem_f, (double)heap_fib);
		}
		/* the issue's name for the 1M set; others carry their size */
		report(opt.suffix ? "rejected_long5" : CASE("rejected_long5"),
		    "routes", "routes", &rj_o, "dpdk_rte_fib", &rj_f, false);
		report(CASE("build_long5"), "seconds", "s", &sb_o,
		    "dpdk_rte_fib", &sb_f, false);
		report(CASE("memory_long5"), "bytes", "B", &mem_o,
		    "dpdk_rte_fib", &mem_f, false);
		printf("  ours: %zu routes, %zu tbl8 groups in use\n",
		    fwd_fib_count(tl.ours), fwd_fib_tbl8_used(tl.ours));
		fwd_fib_free(tl.ours);
		dfib_free(tl.dfib);
	}

	printf("\n");
	tt_bench_flush();
	lpm_free(t.lpm);
	for (int k = 0; k < 3; k++)
		free(streams[k]);
	tt_prefixset_free(&ps);
	tt_prefixset_free(&pl);
	peers_fini();
	return (0);
}
