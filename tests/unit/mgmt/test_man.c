/* tests/unit/mgmt/test_man.c: the generated parts of the manual pages
 * (mgmt/mgmt_man.c, tern-mangen): every schema row is in tern.conf(5) with
 * its help, every command of the table in ternsh(1) under its mode, every
 * pipe stage; roff escapes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/mgmt.h"
#include "mgmt/mgmt_int.h"

/* What fn writes, as a string (free it). */
static char *
capture(void (*fn)(FILE *, bool), bool arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	assert_int_equal(fclose(f), 0);
	return (buf);
}

static void
schema(FILE *f, bool unused)
{
	(void)unused;
	mgmt_man_schema(f);
}

static void
text(FILE *f, bool unused)
{
	(void)unused;
	mgmt_man_text(f, ".a-b\\c");
}

/* s as the page has it: '-' as \-, '\' as \e */
static const char *
esc(const char *s)
{
	static char out[1024];
	size_t k = 0;

	for (; *s != '\0' && k + 3 < sizeof(out); s++) {
		if (*s == '-' || *s == '\\') {
			out[k++] = '\\';
			out[k++] = *s == '-' ? '-' : 'e';
		} else
			out[k++] = *s;
	}
	out[k] = '\0';
	return (out);
}

static unsigned
count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return (n);
}

static void
test_schema_every_row(void **state)
{
	char *out = capture(schema, false);
	char want[1200];

	(void)state;
	/* one entry per row but the root, a section per top-level block */
	assert_int_equal(count(out, ".TP\n"), MGMT_S__COUNT - 1);
	for (int sid = 1; sid < MGMT_S__COUNT; sid++) {
		const struct mgmt_schema_node *n = &mgmt_schema[sid];

		if (strstr(out, esc(n->help)) == NULL)
			fail_msg("row %d (%s): help '%s' missing", sid,
			    n->name ? n->name : "(key)", n->help);
		if (n->name != NULL) {
			snprintf(want, sizeof(want), "\\fB\\%%%s\\fP",
			    esc(n->name));
			if (strstr(out, want) == NULL)
				fail_msg("row %d: %s missing", sid, want);
		}
		if (n->parent == MGMT_S_ROOT) {
			snprintf(want, sizeof(want), ".SS %s\n", esc(n->name));
			assert_non_null(strstr(out, want));
		}
		if (n->dflt != NULL) {
			snprintf(want, sizeof(want), "Default: \\fB\\%%%s\\fP",
			    esc(n->dflt));
			assert_non_null(strstr(out, want));
		}
	}
	/* a leaf's full path, its list keys and value as placeholders */
	assert_non_null(strstr(out,
	    "\\fB\\%interfaces\\fP \\fI\\%name\\fP \\fB\\%mtu\\fP "
	    "\\fI\\%68..9216\\fP\n"));
	assert_non_null(strstr(out, "A number from 68 to 9216."));
	free(out);
}

static void
test_commands_every_command(void **state)
{
	char *oper = capture(mgmt_man_commands, false);
	char *conf = capture(mgmt_man_commands, true);
	struct mgmt_cmd_info ci;
	char want[256];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; mgmt_cmd_table_get(i, &ci); i++, n++) {
		size_t k = snprintf(want, sizeof(want), ".TP\n\\fB");

		for (size_t w = 0; w < 3 && ci.words[w] != NULL; w++)
			k += snprintf(want + k, sizeof(want) - k, "%s%s",
			    w > 0 ? " " : "", esc(ci.words[w]));
		snprintf(want + k, sizeof(want) - k, "\\fP");
		/* an operational command in the operational list; one of
		 * configuration mode alone in the other */
		if (strstr(ci.oper ? oper : conf, want) == NULL)
			fail_msg("command %zu '%s' missing", i, want);
		if (ci.oper && strstr(conf, want) != NULL)
			fail_msg("'%s' listed in both modes", want);
		if (strstr(ci.oper ? oper : conf, esc(ci.help)) == NULL)
			fail_msg("help of '%s' missing", want);
		if (ci.args != NULL) {
			snprintf(want, sizeof(want), "\\fI\\%%%s\\fP",
			    esc(ci.args));
			assert_non_null(strstr(ci.oper ? oper : conf, want));
		}
	}
	assert_true(n >= 30);
	assert_int_equal(count(oper, ".TP\n") + count(conf, ".TP\n"), n);
	assert_non_null(strstr(oper, "\\fBshow route\\fP"));
	assert_non_null(strstr(conf, "\\fBcommit\\fP"));
	free(oper);
	free(conf);
}

static void
test_pipes(void **state)
{
	char *all = capture(mgmt_man_pipes, false);
	char *cfg = capture(mgmt_man_pipes, true);
	struct mgmt_cand st[16];
	char want[128];
	int n;

	(void)state;
	n = mgmt_compl_pipe(true, true, NULL, 0, "", st, 16, 0);
	assert_true(n >= 7);
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "\\fB| %s\\fP", esc(st[i].word));
		if (strstr(all, want) == NULL && strstr(cfg, want) == NULL)
			fail_msg("pipe stage '%s' missing", want);
	}
	/* a stage's argument: REGEX a placeholder, display's set a word */
	assert_non_null(strstr(all, "\\fB| match\\fP \\fI\\%REGEX\\fP\n"));
	assert_non_null(strstr(cfg, "\\fB| display\\fP \\fB\\%set\\fP\n"));
	assert_null(strstr(cfg, "| match"));
	assert_null(strstr(all, "| display"));
	free(all);
	free(cfg);
}

static void
test_escape(void **state)
{
	char *out = capture(text, false);

	(void)state;
	assert_string_equal(out, "\\&.a\\-b\\ec");
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_schema_every_row),
	    cmocka_unit_test(test_commands_every_command),
	    cmocka_unit_test(test_pipes),
	    cmocka_unit_test(test_escape),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
