/* tests/unit/rtrmgr/test_config.c: the boot-config parser: a full config,
 * defaults, and every error class with its file:line:column. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/capability.h>

#include "rtrmgr/rtm_int.h"

static struct rtm_config *
parse(const char *text, struct lc_err *err)
{
	return (rtm_config_parse("t.conf", text, strlen(text), err));
}

static void
test_full(void **state)
{
	static const char text[] =
	    "# boot config\n"
	    "rundir /run/tern-test;\n"
	    "user nobody;\n"
	    "log-level debug;\n"
	    "output inherit;\n"
	    "backoff-initial 100ms;  backoff-max 30s;\n"
	    "stable-time 2m;\n"
	    "failure-limit 5;\n"
	    "failure-window 60s;\n"
	    "health-check file;\n"
	    "health-interval 1s;\n"
	    "health-timeout 500ms;\n"
	    "health-failures 3;\n"
	    "start-timeout 10s;\n"
	    "stop-grace 5s;\n"
	    "component mgmt {\n"
	    "\tbinary /usr/sbin/tern-mgmt;\n"
	    "\targs --config \"/etc/tern/a b.conf\" \"q\\\"x\\\\\";\n"
	    "}\n"
	    "component rib { binary /usr/sbin/tern-rib; health off; }\n"
	    "component fwd {\n"
	    "  binary /usr/sbin/tern-fwd;\n"
	    "  capabilities net_admin cap_net_raw;\n"
	    "  stop-grace 2s;\n"
	    "}\n"
	    "component dev { binary /bin/true; privileges root; }\n";
	struct lc_err err;
	struct rtm_config *cfg;

	(void)state;
	cfg = parse(text, &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->rundir, "/run/tern-test");
	assert_string_equal(cfg->user, "nobody");
	assert_string_equal(cfg->log_level, "debug");
	assert_int_equal(cfg->output, RTM_OUT_INHERIT);
	assert_int_equal(cfg->backoff_initial_ms, 100);
	assert_int_equal(cfg->backoff_max_ms, 30000);
	assert_int_equal(cfg->stable_ms, 120000);
	assert_int_equal(cfg->failure_limit, 5);
	assert_int_equal(cfg->failure_window_ms, 60000);
	assert_int_equal(cfg->health_kind, RTM_HEALTH_FILE);
	assert_int_equal(cfg->health_interval_ms, 1000);
	assert_int_equal(cfg->health_timeout_ms, 500);
	assert_int_equal(cfg->health_failures, 3);
	assert_int_equal(cfg->start_timeout_ms, 10000);
	assert_int_equal(cfg->stop_grace_ms, 5000);
	assert_int_equal(cfg->ncomps, 4);
	/* order is the start order */
	assert_string_equal(cfg->comps[0].name, "mgmt");
	assert_string_equal(cfg->comps[1].name, "rib");
	assert_string_equal(cfg->comps[2].name, "fwd");
	assert_string_equal(cfg->comps[3].name, "dev");
	assert_string_equal(cfg->comps[0].binary, "/usr/sbin/tern-mgmt");
	assert_int_equal(cfg->comps[0].nargs, 3);
	assert_string_equal(cfg->comps[0].args[0], "--config");
	assert_string_equal(cfg->comps[0].args[1], "/etc/tern/a b.conf");
	assert_string_equal(cfg->comps[0].args[2], "q\"x\\");
	assert_true(cfg->comps[0].health);
	assert_false(cfg->comps[1].health);
	assert_false(cfg->comps[0].priv_root);
	assert_true(cfg->comps[3].priv_root);
	assert_int_equal(cfg->comps[2].ncaps, 2);
	assert_int_equal(cfg->comps[2].caps[0], CAP_NET_ADMIN);
	assert_int_equal(cfg->comps[2].caps[1], CAP_NET_RAW);
	assert_int_equal(cfg->comps[2].stop_grace_ms, 2000);
	assert_int_equal(cfg->comps[0].stop_grace_ms, 0);
	assert_int_equal(cfg->comps[2].line, 21);
	rtm_config_free(cfg);
}

static void
test_defaults(void **state)
{
	struct lc_err err;
	struct rtm_config *cfg;

	(void)state;
	cfg = parse("component a { binary /bin/true; }", &err);
	assert_non_null(cfg);
	assert_null(cfg->rundir);
	assert_string_equal(cfg->user, "tern");
	assert_string_equal(cfg->log_level, "info");
	assert_int_equal(cfg->output, RTM_OUT_FILE);
	assert_int_equal(cfg->backoff_initial_ms, 100);
	assert_int_equal(cfg->backoff_max_ms, 30000);
	assert_int_equal(cfg->failure_limit, 5);
	assert_int_equal(cfg->failure_window_ms, 60000);
	assert_int_equal(cfg->health_kind, RTM_HEALTH_NONE);
	assert_int_equal(cfg->stop_grace_ms, 5000);
	assert_int_equal(cfg->comps[0].nargs, 0);
	assert_true(cfg->comps[0].health);
	/* no operator or admin group: owner-only sockets */
	assert_null(cfg->operator_group);
	assert_null(cfg->admin_group);
	rtm_config_free(cfg);
}

/* The groups of the socket roles (docs/rtrmgr.md, "Who may use what"). */
static void
test_groups(void **state)
{
	struct lc_err err;
	struct rtm_config *cfg;

	(void)state;
	cfg = parse("operator-group tern-operator;\nadmin-group tern-admin;\n"
		    "component a { binary /bin/true; }",
	    &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->operator_group, "tern-operator");
	assert_string_equal(cfg->admin_group, "tern-admin");
	rtm_config_free(cfg);
	cfg = parse("operator-group none; admin-group wheel;\n"
		    "component a { binary /bin/true; }",
	    &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_null(cfg->operator_group);
	assert_string_equal(cfg->admin_group, "wheel");
	rtm_config_free(cfg);
}

/* Every error class: the exact position and the gist of the message. */
static void
test_errors(void **state)
{
	static const struct {
		const char *text;
		const char *want; /* prefix of err.msg */
		const char *gist; /* substring of err.msg */
	} cases[] = {
	    /* lexical */
	    {"user \"nobody;\n", "t.conf:1:6: ", "unterminated string"},
	    {"user \"a\\n\";", "t.conf:1:8: ", "unknown escape"},
	    {"user \"a\x01\";", "t.conf:1:8: ", "control character 0x01"},
	    {"user nobody;\n  \x7f",
		"t.conf:2:3: ", "unexpected character 0x7f"},
	    {"component a { binary /bin/true; }\nuser a\0b;",
		"t.conf:2:7: ", "NUL byte"},
	    /* syntax */
	    {"user nobody", "t.conf:1:12: ",
		"expected ';' after 'user', found end of file"},
	    {"component a {\n binary /bin/true\n}",
		"t.conf:3:1: ", "expected ';' after 'binary', found '}'"},
	    {"}",
		"t.conf:1:1: ", "expected a setting or 'component', found '}'"},
	    {";", "t.conf:1:1: ", "found ';'"},
	    {"\"user\" x;", "t.conf:1:1: ", "found a string"},
	    {"component a {\n  binary /bin/true;\n",
		"t.conf:3:1: ", "missing '}' for component a opened at line 1"},
	    {"component a;",
		"t.conf:1:12: ", "expected '{' after 'component NAME'"},
	    {"component a b {", "t.conf:1:15: ", "expected 'component NAME {'"},
	    {"user nobody { }",
		"t.conf:1:13: ", "'user' does not take a block"},
	    {"user;", "t.conf:1:5: ", "'user' needs a value"},
	    {"user a b;", "t.conf:1:8: ", "'user' takes 1 value"},
	    /* unknown and duplicate keys */
	    {"colour blue;", "t.conf:1:1: ", "unknown setting 'colour'"},
	    {"component a { binary /bin/true; colour x; }",
		"t.conf:1:33: ", "unknown setting 'colour' in component a"},
	    {"user a;\nuser b;",
		"t.conf:2:1: ", "'user' set twice (first at line 1)"},
	    {"component a { binary /bin/true;\n binary /bin/false; }",
		"t.conf:2:2: ",
		"'binary' set twice in component a (first at line 1)"},
	    {"component a { binary /bin/true; }\ncomponent a { binary "
	     "/bin/true; }",
		"t.conf:2:11: ",
		"component 'a' declared twice (first at line 1)"},
	    /* values */
	    {"backoff-initial 100;",
		"t.conf:1:17: ", "'100' is not a duration"},
	    {"backoff-initial 100h;",
		"t.conf:1:17: ", "'100h' is not a duration"},
	    {"backoff-initial -1s;", "t.conf:1:17: ", "not a duration"},
	    {"backoff-initial 99999999999ms;", "t.conf:1:17: ", "out of range"},
	    {"stop-grace 0s;",
		"t.conf:1:12: ", "0s out of range 1ms..600000ms"},
	    {"failure-limit x;", "t.conf:1:15: ", "'x' is not a number"},
	    {"failure-limit 0;", "t.conf:1:15: ", "0 out of range 1..64"},
	    {"failure-limit 65;", "t.conf:1:15: ", "65 out of range 1..64"},
	    {"output syslog;",
		"t.conf:1:8: ", "'syslog': expected file or inherit"},
	    {"health-check ping;", "t.conf:1:14: ", "expected none, file, ipc"},
	    {"log-level loud;",
		"t.conf:1:11: ", "'loud': expected err, warning"},
	    {"rundir run/tern;", "t.conf:1:8: ", "must be an absolute path"},
	    /* components */
	    {"component Mgmt { binary /bin/true; }",
		"t.conf:1:11: ", "invalid component name 'Mgmt'"},
	    {"component a-very-long-component-name-here-x2 { binary /bin/true; "
	     "}",
		"t.conf:1:11: ", "invalid component name"},
	    {"component a { args x; }",
		"t.conf:1:23: ", "component a has no binary"},
	    {"component a { binary tern-fwd; }",
		"t.conf:1:22: ", "binary 'tern-fwd' must be an absolute path"},
	    {"component a { binary /bin/true; privileges admin; }",
		"t.conf:1:44: ", "'admin': expected user or root"},
	    {"component a { binary /bin/true; health maybe; }",
		"t.conf:1:40: ", "'maybe': expected off or on"},
	    {"component a { binary /bin/true; capabilities net_admin fly; }",
		"t.conf:1:56: ", "unknown capability 'fly'"},
	    {"component a { binary /bin/true; capabilities NET_ADMIN; }",
		"t.conf:1:46: ", "unknown capability 'NET_ADMIN'"},
	    {"component a { binary /bin/true; capabilities net_raw net_raw; }",
		"t.conf:1:54: ", "listed twice"},
	    {"component a {\n binary /bin/true;\n capabilities net_raw;\n "
	     "privileges root; }",
		"t.conf:3:2: ", "capabilities need 'privileges user'"},
	    {"component a { binary /bin/true; args 1 2 3 4 5 6 7 8 9 10 11 12 "
	     "13 "
	     "14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34; "
	     "}",
		"t.conf:1:", "too many values for 'args'"},
	    /* operator-group, admin-group */
	    {"operator-group a:b;", "t.conf:1:16: ", "invalid group name"},
	    {"admin-group -x;", "t.conf:1:13: ", "invalid group name"},
	    {"admin-group [ a b ];", "t.conf:1:1: ",
		"'admin-group' takes one value, not a [ list ]"},
	    {"operator-group a;\noperator-group b;",
		"t.conf:2:1: ", "'operator-group' set twice (first at line 1)"},
	    {"admin-group;", "t.conf:1:12: ", "'admin-group' needs a value"},
	    /* across settings */
	    {"", "t.conf:1:1: ", "no component declared"},
	    {"# nothing\n", "t.conf:2:1: ", "no component declared"},
	    {"backoff-max 1s;\nbackoff-initial 2s;\ncomponent a { binary "
	     "/bin/true; }",
		"t.conf:2:1: ",
		"backoff-initial (2000ms) is above backoff-max (1000ms)"},
	    {"health-timeout 2s;\ncomponent a { binary /bin/true; }",
		"t.conf:1:1: ",
		"health-timeout (2000ms) is above health-interval (1000ms)"},
	};
	struct lc_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);
		struct rtm_config *cfg;

		/* the NUL case carries text past its first NUL */
		if (strstr(cases[i].gist, "NUL") != NULL)
			len += 1 + strlen(cases[i].text + len + 1);
		errno = 0;
		cfg = rtm_config_parse("t.conf", cases[i].text, len, &err);
		if (cfg != NULL)
			fail_msg("case %zu parsed: %s", i, cases[i].text);
		assert_int_equal(errno, EINVAL);
		if (strncmp(err.msg, cases[i].want, strlen(cases[i].want)) !=
			0 ||
		    strstr(err.msg, cases[i].gist) == NULL)
			fail_msg("case %zu: got \"%s\", want \"%s...%s\"", i,
			    err.msg, cases[i].want, cases[i].gist);
	}
}

/* The dialect shared with the mgmt config (libcommon/lc_lex.c): block
 * comments and [ lists ] where a setting takes several values. */
static void
test_comments_lists(void **state)
{
	static const char text[] = "/* boot config,\n"
				   "   over lines */\n"
				   "user nobody; /* after */ log-level debug;\n"
				   "component fwd { /* a block */\n"
				   "  binary /usr/sbin/tern-fwd; # and a line\n"
				   "  capabilities [ net_admin cap_net_raw ];\n"
				   "  args [ --workers=2\n"
				   "         \"--cpus=1 2\" ];\n"
				   "}\n"
				   "component dev { binary /bin/true; }\n";
	static const struct {
		const char *text;
		const char *msg; /* all of err.msg */
	} bad[] = {
	    {"/* open\ncomponent a { binary /bin/true; }",
		"t.conf:1:1: unterminated comment"},
	    {"user [ nobody ];",
		"t.conf:1:1: 'user' takes one value, not a [ list ]"},
	    {"component a { binary [ /bin/true ]; }",
		"t.conf:1:15: 'binary' takes one value, not a [ list ]"},
	    {"component [ a ] { binary /bin/true; }",
		"t.conf:1:1: 'component' takes one name, not a [ list ]"},
	    {"component a { binary /bin/true; args x [ y ]; }",
		"t.conf:1:40: a [ list ] must be the only value of 'args'"},
	    {"component a { binary /bin/true; args [ x ] y; }",
		"t.conf:1:44: expected ';' after the [ list ] of 'args', found "
		"a word"},
	    {"component a { binary /bin/true; args [ ]; }",
		"t.conf:1:38: empty [ ]"},
	    {"component a { binary /bin/true; args [ x; }",
		"t.conf:1:41: expected ']' (list opened at line 1, column 38), "
		"got ';'"},
	    {"component a { binary /bin/true; args x ]; }",
		"t.conf:1:40: expected ';' after 'args', found ']'"},
	    {"] x;",
		"t.conf:1:1: expected a setting or 'component', found ']'"},
	};
	struct lc_err err;
	struct rtm_config *cfg;

	(void)state;
	cfg = parse(text, &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->user, "nobody");
	assert_string_equal(cfg->log_level, "debug");
	assert_int_equal(cfg->ncomps, 2);
	assert_int_equal(cfg->comps[0].line, 4);
	assert_int_equal(cfg->comps[0].ncaps, 2);
	assert_int_equal(cfg->comps[0].caps[0], CAP_NET_ADMIN);
	assert_int_equal(cfg->comps[0].caps[1], CAP_NET_RAW);
	assert_int_equal(cfg->comps[0].nargs, 2);
	assert_string_equal(cfg->comps[0].args[0], "--workers=2");
	assert_string_equal(cfg->comps[0].args[1], "--cpus=1 2");
	/* '#' inside a word is the word's, a block comment ends it */
	assert_null(parse("component a#b { binary /bin/true; }", &err));
	assert_string_equal(err.msg,
	    "t.conf:1:11: invalid component name "
	    "'a#b' (a-z, 0-9, '-', '_'; starts with a "
	    "letter; at most 31 characters)");
	rtm_config_free(cfg);
	cfg = parse("component b { binary /bin/true; args x/*y*/z; }", &err);
	assert_non_null(cfg);
	assert_int_equal(cfg->comps[0].nargs, 2);
	assert_string_equal(cfg->comps[0].args[0], "x");
	assert_string_equal(cfg->comps[0].args[1], "z");
	rtm_config_free(cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if ((cfg = parse(bad[i].text, &err)) != NULL)
			fail_msg("case %zu parsed: %s", i, bad[i].text);
		assert_int_equal(errno, EINVAL);
		if (strcmp(err.msg, bad[i].msg) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i,
			    err.msg, bad[i].msg);
	}
}

static void
test_too_many_components(void **state)
{
	char text[4096] = "";
	struct lc_err err;

	(void)state;
	for (int i = 0; i <= RTM_COMP_MAX; i++) {
		char line[64];

		snprintf(line, sizeof(line),
		    "component c%d { binary /bin/true; }\n", i);
		strcat(text, line);
	}
	assert_null(parse(text, &err));
	assert_string_equal(err.msg,
	    "t.conf:17:1: too many components (at most 16)");
}

static void
test_load(void **state)
{
	char path[] = "/tmp/test_rtm_config.XXXXXX";
	struct lc_err err;
	struct rtm_config *cfg;
	FILE *f;
	int fd;

	(void)state;
	assert_null(rtm_config_load("/nonexistent/tern.conf", &err));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.msg,
	    "/nonexistent/tern.conf: No such file or directory");
	assert_null(rtm_config_load("/tmp", &err));
	assert_string_equal(err.msg, "/tmp: not a regular file");

	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	fputs("component a {\n binary /bin/true;\n args x\n}\n", f);
	fclose(f);
	assert_null(cfg = rtm_config_load(path, &err));
	/* the message names the file as given, then line:column */
	assert_true(strncmp(err.msg, path, strlen(path)) == 0);
	assert_string_equal(err.msg + strlen(path),
	    ":4:1: expected ';' after 'args', found '}'");
	assert_non_null(f = fopen(path, "w"));
	fputs("component a {\n binary /bin/true;\n args x;\n}\n", f);
	fclose(f);
	assert_non_null(cfg = rtm_config_load(path, &err));
	assert_string_equal(cfg->path, path);
	rtm_config_free(cfg);
	unlink(path);
}

static void
test_shipped_config(void **state)
{
	struct lc_err err;
	struct rtm_config *cfg;

	(void)state;
	/* The shipped boot config must parse: build/etc/tern-rtrmgr.conf, made
	 * from etc/tern-rtrmgr.conf.in with the installation directories (the
	 * Makefile makes it before this test; tests run from the tree root). */
	cfg = rtm_config_load("build/etc/tern-rtrmgr.conf", &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->ncomps, 4);
	assert_string_equal(cfg->comps[0].name, "mgmt");
	assert_string_equal(cfg->comps[1].name, "rib");
	assert_string_equal(cfg->comps[2].name, "fwd");
	assert_string_equal(cfg->comps[3].name, "bgp");
	/* net_raw net_admin bpf ipc_lock perfmon */
	assert_int_equal(cfg->comps[2].ncaps, 5);
	/* net_bind_service (port 179), as a user */
	assert_int_equal(cfg->comps[3].ncaps, 1);
	assert_false(cfg->comps[3].priv_root);
	assert_false(cfg->comps[0].priv_root);
	/* net_raw: ping and traceroute's ICMP socket */
	assert_int_equal(cfg->comps[0].ncaps, 1);
	rtm_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_groups),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_comments_lists),
	    cmocka_unit_test(test_too_many_components),
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_shipped_config),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
