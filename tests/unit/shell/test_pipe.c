/* tests/unit/shell/test_pipe.c: ternsh pipe parsing and output filtering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/shell/sh.h"

/* Runs text through the pipeline of line and returns what it printed. */
static char *
filter(const char *line, const char *text)
{
	struct sh_pipeline p;
	struct lc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sh_pipeline_parse(line, &p, &err), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sh_pipeline_output(&p, text, f);
	fclose(f);
	sh_pipeline_fini(&p);
	return (buf);
}

static void
test_split(void **state)
{
	struct sh_pipeline p;
	struct lc_err err;

	assert_int_equal(sh_pipeline_parse("  show route  ", &p, &err), 0);
	assert_string_equal(p.command, "show route");
	assert_int_equal(p.n, 0);
	assert_false(p.json);
	sh_pipeline_fini(&p);

	assert_int_equal(sh_pipeline_parse("show route | match 198.18 | count",
			     &p, &err),
	    0);
	assert_string_equal(p.command, "show route");
	assert_int_equal(p.n, 2);
	assert_int_equal(p.stages[0].kind, SH_STAGE_MATCH);
	assert_int_equal(p.stages[1].kind, SH_STAGE_COUNT);
	sh_pipeline_fini(&p);

	/* a '|' inside quotes belongs to the command */
	assert_int_equal(
	    sh_pipeline_parse("set system host-name \"a|b\" | json", &p, &err),
	    0);
	assert_string_equal(p.command, "set system host-name \"a|b\"");
	assert_true(p.json);
	sh_pipeline_fini(&p);

	/* a quoted regex with a blank and a '|' in it */
	assert_int_equal(sh_pipeline_parse("show x | match \"up|down now\"", &p,
			     &err),
	    0);
	assert_int_equal(p.n, 1);
	sh_pipeline_fini(&p);

	/* mgmt's own stages stay in the command; local ones follow */
	assert_int_equal(sh_pipeline_parse("show | compare | match route", &p,
			     &err),
	    0);
	assert_string_equal(p.command, "show | compare");
	assert_int_equal(p.n, 1);
	assert_int_equal(p.stages[0].kind, SH_STAGE_MATCH);
	sh_pipeline_fini(&p);
	assert_int_equal(sh_pipeline_parse("show configuration | display set",
			     &p, &err),
	    0);
	assert_string_equal(p.command, "show configuration | display set");
	assert_int_equal(p.n, 0);
	sh_pipeline_fini(&p);

	assert_int_equal(sh_pipeline_parse("", &p, &err), 0);
	assert_string_equal(p.command, "");
	sh_pipeline_fini(&p);
}

static void
expect_error(const char *line, const char *msg)
{
	struct sh_pipeline p;
	struct lc_err err;

	assert_int_equal(sh_pipeline_parse(line, &p, &err), -EINVAL);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s': error '%s' lacks '%s'", line, err.msg, msg);
}

static void
test_errors(void **state)
{
	expect_error("show | frobnicate", "unknown pipe command 'frobnicate'");
	expect_error("show | match", "needs a regular expression");
	expect_error("show | match (", "'| match ('");
	expect_error("show | match a b", "unexpected 'b'");
	expect_error("show |", "empty pipe stage");
	expect_error("| count", "needs a command");
	expect_error("show \"open", "unterminated quote");
	expect_error("show | match \"open", "unterminated quote");
	expect_error("s|count|count|count|count|count|count|count|count|count",
	    "too many pipe stages");
	expect_error(NULL, "no command");
	expect_error("show | count | compare",
	    "must come right after the command");
}

static void
test_filter(void **state)
{
	const char *text = "eth0 up 198.18.0.1\neth1 down 198.18.1.1\n"
			   "eth2 up 198.19.0.1\n";
	char *out;

	out = filter("show | match up", text);
	assert_string_equal(out, "eth0 up 198.18.0.1\neth2 up 198.19.0.1\n");
	free(out);
	out = filter("show | except up", text);
	assert_string_equal(out, "eth1 down 198.18.1.1\n");
	free(out);
	out = filter("show | match 198\\.18 | except down", text);
	assert_string_equal(out, "eth0 up 198.18.0.1\n");
	free(out);
	out = filter("show | match 198 | count", text);
	assert_string_equal(out, "Count: 3 lines\n");
	free(out);
	out = filter("show | match nothing | count", text);
	assert_string_equal(out, "Count: 0 lines\n");
	free(out);
	/* the last line without a newline still counts */
	out = filter("show | count", "a\nb");
	assert_string_equal(out, "Count: 2 lines\n");
	free(out);
	out = filter("show | match ^eth[02]", text);
	assert_string_equal(out, "eth0 up 198.18.0.1\neth2 up 198.19.0.1\n");
	free(out);
}

/* Runs a table (header and footer lines) through the pipeline of line. */
static char *
table(const char *line, const char *text, unsigned header, unsigned footer)
{
	struct sh_pipeline p;
	struct lc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sh_pipeline_parse(line, &p, &err), 0);
	assert_non_null(f = open_memstream(&buf, &len));
	sh_pipeline_print(&p, text, header, footer, f);
	fclose(f);
	sh_pipeline_fini(&p);
	return (buf);
}

/*
 * | match and | except on a table keep its header and make its count say
 * how many rows they kept (issue 23: after | except the count still said
 * every route); an ECMP route's second line continues its row.
 */
static void
test_table(void **state)
{
	const char *text = "Prefix  Source  Next hop\n"
			   "198.18.1.0/24  connected  -\n"
			   "198.19.0.0/16  static  198.18.1.2\n"
			   "               198.18.1.3\n"
			   "198.20.0.0/16  static  blackhole\n"
			   "3 routes\n";
	char *out;

	(void)state;
	out = table("show route | except blackhole", text, 1, 1);
	assert_string_equal(out,
	    "Prefix  Source  Next hop\n"
	    "198.18.1.0/24  connected  -\n"
	    "198.19.0.0/16  static  198.18.1.2\n"
	    "               198.18.1.3\n"
	    "2 of 3 routes\n");
	free(out);
	out = table("show route | match static", text, 1, 1);
	assert_string_equal(out,
	    "Prefix  Source  Next hop\n"
	    "198.19.0.0/16  static  198.18.1.2\n"
	    "198.20.0.0/16  static  blackhole\n"
	    "2 of 3 routes\n");
	free(out);
	/* nothing dropped: the count as it is */
	out = table("show route | match .", text, 1, 1);
	assert_string_equal(out, text);
	free(out);
	out = table("show route | match nothing", text, 1, 1);
	assert_string_equal(out, "Prefix  Source  Next hop\n0 of 3 routes\n");
	free(out);
	/* | count counts the rows' lines kept */
	out = table("show route | match static | count", text, 1, 1);
	assert_string_equal(out, "Count: 2 lines\n");
	free(out);
	/* without a filter, and when not a table, as before */
	out = table("show route", text, 1, 1);
	assert_string_equal(out, text);
	free(out);
	out = table("show route | except blackhole", text, 0, 0);
	assert_null(strstr(out, " of "));
	assert_non_null(strstr(out, "3 routes\n"));
	free(out);
	/* only a header and a count: no rows to filter */
	out = table("show fib | match zzz", "Prefix\n0 routes in the FIB\n", 1,
	    1);
	assert_string_equal(out, "");
	free(out);
}

/* | no-more is a stage; the pager writes through when not on a terminal
 * (ternsh -c, scripts). */
static void
test_no_more(void **state)
{
	struct sh_pipeline p;
	struct lc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(sh_pipeline_parse("show route | no-more", &p, &err),
	    0);
	assert_true(sh_pipeline_no_more(&p));
	assert_string_equal(p.command, "show route");
	sh_pipeline_fini(&p);
	assert_int_equal(sh_pipeline_parse("show route | count", &p, &err), 0);
	assert_false(sh_pipeline_no_more(&p));
	sh_pipeline_fini(&p);
	sh_more_enable(true);
	assert_non_null(f = open_memstream(&buf, &len));
	sh_more("a\nb\nc\n", 6, f);
	fclose(f);
	assert_string_equal(buf, "a\nb\nc\n");
	free(buf);
	sh_more_enable(false);
}

static void
test_json(void **state)
{
	char *out;

	out = filter("show | json", "{\"a\":1,\"b\":[1,2]}");
	assert_non_null(strstr(out, "\"a\":1"));
	assert_non_null(strchr(out, '\n')); /* pretty-printed: several lines */
	assert_true(strchr(out, '\n') != out + strlen(out) - 1);
	free(out);
	out = filter("show | json | match \"b\"", "{\"a\":1,\"b\":2}");
	assert_string_equal(out, "  \"b\":2\n");
	free(out);
	/* not JSON: written as it is */
	out = filter("show | json", "plain");
	assert_string_equal(out, "plain\n");
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_filter),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_no_more),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
