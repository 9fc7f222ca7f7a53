/* tests/unit/libcommon/test_daemon.c: the shared daemon options parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"

static const char *const value_opts[] = {"--store", NULL};
static const struct lc_daemon_info info = {
    .name = "tern-test",
    .summary = "test",
    .status = "test",
    .value_opts = value_opts,
};

static int
parse(struct lc_daemon_opts *o, ...)
{
	char *argv[16];
	int argc = 0, rv;
	va_list ap;

	argv[argc++] = "tern-test";
	va_start(ap, o);
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	rv = lc_daemon_parse(argc, argv, &info, o);
	return (rv);
}

static void
test_defaults(void **state)
{
	struct lc_daemon_opts o;

	unsetenv("TERN_RUNDIR");
	assert_int_equal(parse(&o, NULL), 0);
	assert_string_equal(o.rundir, TERN_RUNDIR_DEFAULT);
	assert_null(o.config);
	assert_int_equal(o.log_level, LC_LOG_INFO);
	assert_int_equal(o.rest_argc, 1);
	lc_daemon_opts_fini(&o);

	setenv("TERN_RUNDIR", "/tmp/tern-env", 1);
	assert_int_equal(parse(&o, NULL), 0);
	assert_string_equal(o.rundir, "/tmp/tern-env");
	lc_daemon_opts_fini(&o);
	/* the flag wins over the environment */
	assert_int_equal(parse(&o, "--rundir", "/tmp/x", NULL), 0);
	assert_string_equal(o.rundir, "/tmp/x");
	lc_daemon_opts_fini(&o);
	unsetenv("TERN_RUNDIR");
}

static void
test_values(void **state)
{
	struct lc_daemon_opts o;

	assert_int_equal(parse(&o, "--rundir=/tmp/r", "--config", "c.conf",
			     "--log-level", "debug", "--generation=42",
			     "--syslog", "--workers=2", NULL),
	    0);
	assert_string_equal(o.rundir, "/tmp/r");
	assert_string_equal(o.config, "c.conf");
	assert_int_equal(o.log_level, LC_LOG_DEBUG);
	assert_int_equal(o.generation, 42);
	assert_true(o.syslog);
	assert_int_equal(o.rest_argc, 2);
	assert_string_equal(o.rest_argv[1], "--workers=2");
	assert_null(o.rest_argv[2]);
	lc_daemon_opts_fini(&o);
}

static void
test_value_opts(void **state)
{
	struct lc_daemon_opts o;

	assert_int_equal(parse(&o, "--store", "/tmp/s", "--flag", NULL), 0);
	assert_int_equal(o.rest_argc, 3);
	assert_string_equal(o.rest_argv[1], "--store=/tmp/s");
	assert_string_equal(o.rest_argv[2], "--flag");
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--store=/tmp/t", NULL), 0);
	assert_string_equal(o.rest_argv[1], "--store=/tmp/t");
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--store", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
}

static void
test_opt_uint(void **state)
{
	unsigned v = 7;

	assert_int_equal(lc_daemon_opt_uint("--workers=4", "--workers", 16, &v),
	    1);
	assert_int_equal(v, 4);
	assert_int_equal(lc_daemon_opt_uint("--max-nh=4", "--workers", 16, &v),
	    0);
	assert_int_equal(lc_daemon_opt_uint("--workersx=4", "--workers", 16,
			     &v),
	    0);
	assert_int_equal(lc_daemon_opt_uint("--workers", "--workers", 16, &v),
	    0);
	assert_int_equal(lc_daemon_opt_uint("--workers=", "--workers", 16, &v),
	    -EINVAL);
	assert_int_equal(lc_daemon_opt_uint("--workers=-1", "--workers", 16,
			     &v),
	    -EINVAL);
	assert_int_equal(lc_daemon_opt_uint("--workers=17", "--workers", 16,
			     &v),
	    -EINVAL);
	assert_int_equal(lc_daemon_opt_uint("--workers=3x", "--workers", 16,
			     &v),
	    -EINVAL);
	assert_int_equal(lc_daemon_opt_uint("--workers=99999999999999999999",
			     "--workers", ~0u, &v),
	    -EINVAL);
	assert_int_equal(v, 4); /* unchanged by the refusals */
}

static void
test_bad(void **state)
{
	struct lc_daemon_opts o;

	assert_int_equal(parse(&o, "--log-level", "loud", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--generation", "-1", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--generation", "4294967296", NULL),
	    -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--generation", "12x", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--rundir", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--rundir=", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "stray", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--config", NULL), -EINVAL);
	lc_daemon_opts_fini(&o);
}

static void
test_help_version(void **state)
{
	struct lc_daemon_opts o;

	assert_int_equal(parse(&o, "--version", NULL), 1);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--help", NULL), 1);
	lc_daemon_opts_fini(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_value_opts),
	    cmocka_unit_test(test_opt_uint),
	    cmocka_unit_test(test_help_version),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
