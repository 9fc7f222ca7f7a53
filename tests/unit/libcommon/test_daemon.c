/* tests/unit/libcommon/test_daemon.c: the shared daemon options parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "libcommon/lc_daemon.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

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
	assert_string_equal(o.rundir, TERN_RUN_DIR);
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

/* rtrmgr lets the command line override its config: what was given. */
static void
test_given(void **state)
{
	struct lc_daemon_opts o;

	(void)state;
	setenv("TERN_RUNDIR", "/tmp/tern-env", 1);
	assert_int_equal(parse(&o, NULL), 0);
	assert_false(o.rundir_set);
	assert_false(o.log_level_set);
	lc_daemon_opts_fini(&o);
	assert_int_equal(parse(&o, "--rundir", "/tmp/x", "--log-level=info",
			     NULL),
	    0);
	assert_true(o.rundir_set);
	assert_true(o.log_level_set);
	lc_daemon_opts_fini(&o);
	unsetenv("TERN_RUNDIR");
}

/* ---- the option table ---- */

static struct {
	unsigned n, ms;
	const char *dir, *mode;
	bool flag;
} t;

static const char *const modes[] = {"run", "ring", "auto", NULL};

static int
even(const char *v, void *dst, struct lc_err *err)
{
	unsigned x;

	if (lc_opt_uint(v, 0, 100, &x, err) != 0)
		return (-EINVAL);
	if (x % 2 != 0) {
		return (
		    lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "'%s' is odd", v));
	}
	*(unsigned *)dst = x;
	return (0);
}

static const struct lc_opt table[] = {
    LC_OPT_ROW_UINT("--n", "N", &t.n, 1, 16, "a count, 1..16"),
    LC_OPT_ROW_STRING("--dir", "DIR", &t.dir, "a place"),
    LC_OPT_ROW_CHOICE("--mode", "MODE", &t.mode, modes,
	"how: run, ring or auto\n(default auto)"),
    LC_OPT_ROW_FN("--even-ms", "N", &t.ms, even, "an even number"),
    LC_OPT_ROW_FLAG("--flag", &t.flag, "a flag"),
    LC_OPT_ROW_FLAG("--ignored", NULL, "accepted, ignored"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info tinfo = {
    .name = "tern-table",
    .summary = "table test",
    .opts = table,
    .usage_extra = "  (a note)\n",
};

/* Parses with tinfo; stderr of the parse into err (for the messages). */
static int
tparse(char *err, size_t errsz, ...)
{
	struct lc_daemon_opts o;
	char *argv[16];
	int argc = 0, rv, fd, saved;
	va_list ap;
	FILE *f = tmpfile();
	size_t n;

	memset(&t, 0, sizeof(t));
	t.mode = "auto";
	argv[argc++] = "tern-table";
	va_start(ap, errsz);
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stderr);
	saved = dup(2);
	fd = fileno(f);
	dup2(fd, 2);
	rv = lc_daemon_parse(argc, argv, &tinfo, &o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(err, 1, errsz - 1, f);
	err[n] = '\0';
	fclose(f);
	if (rv == 0)
		assert_int_equal(o.rest_argc, 1); /* the table took them all */
	lc_daemon_opts_fini(&o);
	return (rv);
}

static void
test_table_values(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(tparse(err, sizeof(err), "--n=16", "--dir", "/d",
			     "--mode=ring", "--even-ms", "42", "--flag",
			     "--ignored", "--log-level", "debug", NULL),
	    0);
	assert_string_equal(err, "");
	assert_int_equal(t.n, 16);
	assert_string_equal(t.dir, "/d");
	assert_string_equal(t.mode, "ring");
	assert_int_equal(t.ms, 42);
	assert_true(t.flag);
	/* both forms; the last one given wins; "--dir=" is an empty value */
	assert_int_equal(tparse(err, sizeof(err), "--n", "1", "--n=3",
			     "--dir=", NULL),
	    0);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.dir, "");
	assert_false(t.flag);
	assert_string_equal(t.mode, "auto"); /* untouched when not given */
}

static void
test_table_errors(void **state)
{
	static const struct {
		const char *a, *b; /* argv[1], argv[2] or NULL */
		const char *msg;   /* all of stderr */
	} cases[] = {
	    {"--n=0", NULL, "tern-table: --n: '0' is not a number in 1..16\n"},
	    {"--n=17", NULL,
		"tern-table: --n: '17' is not a number in 1..16\n"},
	    {"--n", "x", "tern-table: --n: 'x' is not a number in 1..16\n"},
	    {"--n=-1", NULL,
		"tern-table: --n: '-1' is not a number in 1..16\n"},
	    {"--n=99999999999999999999", NULL,
		"tern-table: --n: '99999999999999999999' is not a number in "
		"1..16\n"},
	    {"--n=", NULL, "tern-table: --n: '' is not a number in 1..16\n"},
	    {"--mode=fast", NULL,
		"tern-table: --mode: 'fast' is not run, ring or auto\n"},
	    {"--even-ms=3", NULL, "tern-table: --even-ms: '3' is odd\n"},
	    {"--even-ms=101", NULL,
		"tern-table: --even-ms: '101' is not a number in 0..100\n"},
	    {"--n", NULL, "tern-table: missing value for '--n'\n"},
	    {"--dir", "", "tern-table: missing value for '--dir'\n"},
	    {"--flag=1", NULL, "tern-table: no value expected in '--flag=1'\n"},
	    {"--nn=1", NULL, "tern-table: unknown option '--nn=1'\n"},
	    {"--bogus", NULL, "tern-table: unknown option '--bogus'\n"},
	    {"stray", NULL, "tern-table: unexpected argument 'stray'\n"},
	};
	char err[512], want[600];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rv = cases[i].b != NULL ?
		    tparse(err, sizeof(err), cases[i].a, cases[i].b, NULL) :
		    tparse(err, sizeof(err), cases[i].a, NULL);

		snprintf(want, sizeof(want), "%sTry 'tern-table --help'.\n",
		    cases[i].msg);
		if (rv != -EINVAL || strcmp(err, want) != 0)
			fail_msg("case %zu (%s): rv %d, stderr \"%s\"", i,
			    cases[i].a, rv, err);
	}
}

static void
test_table_help(void **state)
{
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	lc_daemon_usage(f, &tinfo);
	fclose(f);
	/* after the shared options, one row each, then the extra lines */
	assert_non_null(strstr(buf,
	    "  --version          show the version\n"
	    "  --n=N              a count, 1..16\n"
	    "  --dir=DIR          a place\n"
	    "  --mode=MODE        how: run, ring or auto\n"
	    "                     (default auto)\n"
	    "  --even-ms=N        an even number\n"
	    "  --flag             a flag\n"
	    "  --ignored          accepted, ignored\n"
	    "  (a note)\n"));
	assert_int_equal(tparse(buf, sizeof(buf), "--help", NULL), 1);
}

/* A program without the shared options reads its table itself. */
static void
test_opt_take(void **state)
{
	static const char *cmd;
	static const struct lc_opt short_table[] = {
	    LC_OPT_ROW_STRING("-c", "CMD", &cmd, "a command"),
	    LC_OPT_ROW_UINT("--n", "N", &t.n, 1, 16, "a count"),
	    LC_OPT_ROW_END,
	};
	char *argv[] = {"prog", "-c", "show x", "--n", "4", "--rundir", "-c",
	    NULL};
	char buf[512];
	FILE *f;
	int i = 1;

	(void)state;
	assert_int_equal(lc_opt_take(7, argv, &i, "prog", short_table), 0);
	assert_int_equal(i, 2);
	assert_string_equal(cmd, "show x");
	i++;
	assert_int_equal(lc_opt_take(7, argv, &i, "prog", short_table), 0);
	assert_int_equal(i, 4);
	assert_int_equal(t.n, 4);
	i++;
	/* not in the table: the caller's */
	assert_int_equal(lc_opt_take(7, argv, &i, "prog", short_table), 1);
	i++;
	assert_int_equal(lc_opt_take(7, argv, &i, "prog", short_table),
	    -EINVAL); /* -c without its value */
	f = fmemopen(buf, sizeof(buf), "w");
	lc_opt_usage(f, short_table);
	fclose(f);
	assert_string_equal(buf,
	    "  -c CMD             a command\n"
	    "  --n=N              a count\n");
}

/* ---- lc_daemon_main ---- */

static int started, stopped, check_rv;

static int
m_check(const struct lc_daemon_opts *o)
{
	(void)o;
	return (check_rv);
}

static void
m_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void *
m_start(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	static ev_timer tm;

	started++;
	if (t.n == 9) /* --n=9: cannot start */
		return (NULL);
	assert_string_equal(o->rundir, "/tmp/m");
	ev_timer_init(&tm, m_timer, 0., 0.);
	ev_timer_start(loop, &tm);
	return (&tm);
}

static void
m_stop(void *d, struct ev_loop *loop)
{
	ev_timer_stop(loop, d);
	stopped++;
}

static int
run_main(const char *a)
{
	static const struct lc_daemon_ops ops = {m_check, m_start, m_stop};
	char *argv[] = {"tern-table", "--rundir=/tmp/m", (char *)a, NULL};
	int rv, saved = dup(2), null = open("/dev/null", O_WRONLY);

	started = stopped = 0;
	memset(&t, 0, sizeof(t));
	fflush(stderr);
	dup2(null, 2); /* logs and usage messages */
	rv = lc_daemon_main(a != NULL ? 3 : 2, argv, &tinfo, &ops);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	return (rv);
}

static void
test_main(void **state)
{
	(void)state;
	check_rv = 0;
	assert_int_equal(run_main(NULL), 0);
	assert_int_equal(started, 1);
	assert_int_equal(stopped, 1);
	assert_int_equal(run_main("--n=9"), 1);
	assert_int_equal(started, 1);
	assert_int_equal(stopped, 0);
	assert_int_equal(run_main("--n=99"), 2);
	assert_int_equal(started, 0);
	check_rv = 3;
	assert_int_equal(run_main(NULL), 3);
	assert_int_equal(started, 0);
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
	    cmocka_unit_test(test_given),
	    cmocka_unit_test(test_table_values),
	    cmocka_unit_test(test_table_errors),
	    cmocka_unit_test(test_table_help),
	    cmocka_unit_test(test_opt_take),
	    cmocka_unit_test(test_main),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
