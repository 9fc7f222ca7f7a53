/* libcommon/lc_build.c: reports the compile flags (LC_BUILD_CFLAGS from the
 * Makefile) and refuses unoptimised benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_build.h"

#ifndef LC_BUILD_CFLAGS
#define LC_BUILD_CFLAGS "unknown"
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LC_BUILD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) ||                                     \
    __has_feature(undefined_behavior_sanitizer)
#define LC_BUILD_SANITIZER 1
#endif
#endif
#ifndef LC_BUILD_SANITIZER
#define LC_BUILD_SANITIZER 0
#endif

const char *
lc_build_flags(void)
{
	return (LC_BUILD_CFLAGS);
}

static bool
build_sanitized(void)
{
	/* gcc defines no macro for -fsanitize=undefined: look at the flags too.
	 */
	return (LC_BUILD_SANITIZER ||
	    strstr(LC_BUILD_CFLAGS, "-fsanitize") != NULL);
}

const char *
lc_build_why_not_optimized(void)
{
#ifndef __OPTIMIZE__
	return ("built without optimisation (no -O1/-O2/-O3)");
#endif
	if (build_sanitized())
		return ("sanitizer build");
	return (NULL);
}

bool
lc_build_optimized(void)
{
	return (lc_build_why_not_optimized() == NULL);
}

bool
lc_build_is_bench_ok(void)
{
	return (lc_build_optimized());
}

int
lc_build_bench_check(const char *prog)
{
	const char *why = lc_build_why_not_optimized(), *allow;

	if (prog == NULL)
		prog = "bench";
	printf("%s: build flags: %s\n", prog, lc_build_flags());
	fflush(stdout);
	/* make bench-compare BUILD=debug measures what -O0 costs: it asks for
	 * the unoptimised build explicitly (never a sanitizer build), and the
	 * output says what the figures are. */
	if (why != NULL && !build_sanitized() &&
	    (allow = getenv("TERN_BENCH_ALLOW_DEBUG")) != NULL &&
	    strcmp(allow, "1") == 0) {
		printf("%s: WARNING: %s, benchmarked anyway "
		       "(TERN_BENCH_ALLOW_DEBUG=1): these are not tern's "
		       "figures\n",
		    prog, why);
		fflush(stdout);
		return (0);
	}
	if (why != NULL) {
		fprintf(stderr,
		    "%s: refusing to benchmark: %s (flags: %s); "
		    "rebuild with the default flags\n",
		    prog, why, lc_build_flags());
		return (-1);
	}
	return (0);
}
