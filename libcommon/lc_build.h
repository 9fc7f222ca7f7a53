/* libcommon/lc_build.h: the compile flags built into the binary, and the
 * benchmark guard that checks them. */
#ifndef LC_BUILD_H
#define LC_BUILD_H

#include <stdbool.h>

/* The CFLAGS libtern-common was compiled with ("unknown" if the Makefile did
 * not say). Never NULL. */
const char *lc_build_flags(void);
/* true if compiled with optimisation (__OPTIMIZE__) and without a sanitizer. */
bool lc_build_optimized(void);
/* Same as lc_build_optimized() (the name docs/DEVELOPING.md uses). */
bool lc_build_is_bench_ok(void);
/* Why the build is not fit for benchmarks ("no optimisation (-O0)", "sanitizer
 * build"), or NULL if it is. */
const char *lc_build_why_not_optimized(void);
/*
 * For benchmarks: prints "<prog>: build flags: <flags>" to stdout. If the
 * build is not optimized, prints the reason to stderr and returns -1 (the
 * benchmark must then exit 2); else 0. An unoptimised build that is not a
 * sanitizer build is let through with a warning on stdout when the
 * environment says TERN_BENCH_ALLOW_DEBUG=1 (make bench-compare BUILD=debug).
 */
int lc_build_bench_check(const char *prog);

#endif /* LC_BUILD_H */
