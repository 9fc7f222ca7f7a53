/* tests/unit/libcommon/test_build.c: the recorded compile flags and the
 * benchmark guard agree with how this was built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_build.h"

/* How this test was compiled; the Makefile builds it with the library's flags.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_SAN 1
#else
#define TEST_SAN 0
#endif

static void
test_flags(void **state)
{
	const char *f = lc_build_flags();

	(void)state;
	assert_non_null(f);
	assert_true(strlen(f) > 0);
	if (strcmp(f, "unknown") != 0) {
		/* built by the Makefile: the flags say what the build is */
		assert_non_null(strstr(f, "-Wall"));
		assert_true(strstr(f, "-O") != NULL);
		assert_int_equal(strstr(f, "-fsanitize") != NULL,
		    !lc_build_optimized() && TEST_SAN);
	}
}

static void
test_optimized(void **state)
{
	const char *why = lc_build_why_not_optimized();

	(void)state;
	assert_int_equal(lc_build_optimized(), why == NULL);
	assert_int_equal(lc_build_is_bench_ok(), lc_build_optimized());
#if defined(__OPTIMIZE__)
	assert_int_equal(lc_build_optimized(), !TEST_SAN);
#endif
	if (TEST_SAN)
		assert_string_equal(why, "sanitizer build");
}

/* Captures fd 1 and 2 around lc_build_bench_check(). */
static int
run_check(char *out, size_t outsz, char *err, size_t errsz)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int so = dup(1), se = dup(2), rv;
	size_t n;

	assert_non_null(o);
	assert_non_null(e);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	rv = lc_build_bench_check("bench-x");
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(o);
	rewind(e);
	n = fread(out, 1, outsz - 1, o);
	out[n] = '\0';
	n = fread(err, 1, errsz - 1, e);
	err[n] = '\0';
	fclose(o);
	fclose(e);
	return (rv);
}

static void
test_bench_check(void **state)
{
	char out[4096], err[4096], want[4096];
	int rv;

	(void)state;
	rv = run_check(out, sizeof(out), err, sizeof(err));
	snprintf(want, sizeof(want), "bench-x: build flags: %s\n",
	    lc_build_flags());
	assert_string_equal(out, want);
	if (lc_build_optimized()) {
		assert_int_equal(rv, 0);
		assert_string_equal(err, "");
	} else {
		assert_int_equal(rv, -1);
		assert_non_null(
		    strstr(err, "bench-x: refusing to benchmark: "));
		assert_non_null(strstr(err, lc_build_why_not_optimized()));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_optimized),
	    cmocka_unit_test(test_bench_check),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
