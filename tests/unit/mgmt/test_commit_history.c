/* tests/unit/mgmt/test_commit_history.c: what each commit records (who,
 * when, via what, comment, lines changed) in the store and through the
 * commands (commit comment, show system commit in text and JSON, show |
 * compare rollback N, compare rollback N rollback M), across a restart of
 * mgmt, with files written before the metadata existed, the session's
 * user from its connection's credentials; save and load with their text in
 * parts (mgmt never opens the user's file). */
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

#include <pwd.h>

#include <json-c/json.h>

#include "ipc/ipc.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_int.h"

static char tmpdir[64], store[128];
static struct ev_loop *loop;

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tern-hist.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	loop = lc_loop_new();
	assert_non_null(loop);
	lc_log_init("test_commit_history", LC_LOG_WARNING, LC_LOG_STDERR);
	return (0);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return (system(cmd) == 0 ? 0 : -1);
}

/* ---- the store ---- */

static struct mgmt_conf *
conf_of(const char *text)
{
	struct mgmt_conf *c;
	struct lc_err err;

	assert_int_equal(mgmt_conf_parse(text, strlen(text), "t", &c, &err), 0);
	return (c);
}

static void
test_store_meta(void **state)
{
	struct mgmt_conf *a = conf_of("system { host-name a; }\n"),
			 *b = conf_of("system { host-name b; }\nrib { "
				      "ecmp-width 4; }\n"),
			 *r;
	struct mgmt_commit_meta m, got;
	struct lc_err err;
	char path[256];
	FILE *f;

	(void)state;
	/* a commit written before commit metadata: loads, unknown */
	assert_int_equal(mgmt_store_commit(store, a), 0);
	assert_int_equal(mgmt_store_meta(store, 0, &got), 0);
	assert_false(got.known);
	assert_string_equal(got.user, "unknown");
	assert_int_equal(got.uid, -1);
	assert_int_equal(got.seq, 1);

	/* one with it: every field back, a comment with quotes, a backslash
	 * and UTF-8 kept as it was */
	mgmt_commit_meta_init(&m);
	m.time = 1796310245;
	m.uid = 1000;
	m.pid = 4242;
	snprintf(m.user, sizeof(m.user), "alice");
	snprintf(m.via, sizeof(m.via), "ternsh");
	snprintf(m.from, sizeof(m.from), "pts/3");
	snprintf(m.comment, sizeof(m.comment), "say \"hi\" \\ caf\xc3\xa9 */");
	m.confirm = 5;
	mgmt_commit_meta_summary(&m, a, b);
	/* host-name a -> b, and the rib block added (3 lines) */
	assert_int_equal(m.added, 4);
	assert_int_equal(m.removed, 1);
	assert_int_equal(mgmt_store_commit_meta(store, b, &m), 0);
	assert_int_equal(mgmt_store_meta(store, 0, &got), 0);
	assert_true(got.known);
	assert_int_equal(got.seq, 2);
	assert_int_equal(got.time, 1796310245);
	assert_int_equal(got.uid, 1000);
	assert_int_equal(got.pid, 4242);
	assert_string_equal(got.user, "alice");
	assert_string_equal(got.via, "ternsh");
	assert_string_equal(got.from, "pts/3");
	assert_string_equal(got.comment, m.comment);
	assert_int_equal(got.confirm, 5);
	assert_int_equal(got.added, 4);
	assert_int_equal(got.removed, 1);
	/* the file is the metadata line, then the config as printed: it
	 * loads as the same tree */
	assert_int_equal(mgmt_store_path(store, 0, path, sizeof(path)), 0);
	assert_non_null(f = fopen(path, "r"));
	{
		char line[512];

		assert_non_null(fgets(line, sizeof(line), f));
		assert_memory_equal(line, "#tern-commit {", 14);
		assert_non_null(strchr(line, '\n'));
	}
	fclose(f);
	assert_int_equal(mgmt_store_rollback(store, 0, &r, &err), 0);
	assert_true(mgmt_conf_equal(r, b));
	mgmt_conf_free(r);
	/* compressed, it still says the same (rollback 1 now) */
	assert_int_equal(mgmt_store_commit_meta(store, a, &m), 0);
	assert_int_equal(mgmt_store_compress(store), 2);
	assert_int_equal(mgmt_store_meta(store, 1, &got), 0);
	assert_true(got.known);
	assert_string_equal(got.comment, m.comment);
	assert_int_equal(mgmt_store_meta(store, 2, &got), 0);
	assert_false(got.known);
	assert_int_equal(mgmt_store_rollback(store, 1, &r, &err), 0);
	assert_true(mgmt_conf_equal(r, b));
	mgmt_conf_free(r);
	assert_int_equal(mgmt_store_meta(store, 3, &got), -ENOENT);
	mgmt_conf_free(a);
	mgmt_conf_free(b);
}

/* ---- through the commands ---- */

struct answer {
	bool done;
	int code;
	char text[16384], err[512];
};

static void
later(void *arg, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const struct lc_err *err)
{
	struct answer *a = arg;

	a->done = true;
	a->code = code;
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(a->err, sizeof(a->err), "%s", err->msg);
}

static int
run_io(struct mgmt *m, struct mgmt_session *s, const char *line, bool json,
    struct mgmt_cmd_io *io, struct answer *a)
{
	struct lc_buf out;
	struct lc_err err;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec_io(m, s, line, json, io, &out, &err, later, a);
	if (code == MGMT_PENDING) {
		uint64_t end = lc_time_mono_ns() + 10000000000ull;

		while (!a->done && lc_time_mono_ns() < end) {
			ev_run(loop, EVRUN_NOWAIT);
			usleep(200);
		}
		assert_true(a->done);
		code = a->code;
	} else {
		snprintf(a->err, sizeof(a->err), "%s", err.msg);
		snprintf(a->text, sizeof(a->text), "%s",
		    out.len ? (char *)lc_buf_head(&out) : "");
	}
	lc_buf_fini(&out);
	return (code);
}

static int
run(struct mgmt *m, struct mgmt_session *s, const char *line, struct answer *a)
{
	return (run_io(m, s, line, false, NULL, a));
}

static struct mgmt *
start(void)
{
	struct mgmt_opts o = {.store_dir = store, .no_server = true};
	struct mgmt *m = mgmt_new(loop, &o);

	assert_non_null(m);
	return (m);
}

/* A session as h_session_open makes it from a connection's credentials. */
static struct mgmt_session *
session(struct mgmt *m, const char *user, long uid)
{
	struct mgmt_session *s = mgmt_session_open(m, user, false);

	assert_non_null(s);
	s->uid = uid;
	s->pid = 4321;
	snprintf(s->via, sizeof(s->via), "ternsh");
	snprintf(s->tty, sizeof(s->tty), "pts/7");
	return (s);
}

static void
test_commit_comment(void **state)
{
	struct mgmt *m = start();
	struct mgmt_session *s = session(m, "alice", 1000);
	struct answer a;
	struct json_object *jo, *arr, *e, *v;

	(void)state;
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "set system host-name r1", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit comment \"first: host name\"", &a),
	    MGMT_OK);
	assert_string_equal(a.text, "commit complete\n");
	assert_int_equal(run(m, s, "set rib ecmp-width 4", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit confirmed 5 comment second", &a),
	    MGMT_OK);
	assert_non_null(strstr(a.text, "rolled back in 5 minutes"));
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK); /* confirms */

	/* refused, and nothing committed */
	assert_int_equal(run(m, s, "commit comment", &a), MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "expected the text"));
	assert_int_equal(run(m, s, "commit comment a b", &a), MGMT_E_SYNTAX);
	assert_int_equal(run(m, s, "commit frobnicate", &a), MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "comment \"TEXT\""));
	{
		char line[400];

		snprintf(line, sizeof(line), "commit comment %0300d", 7);
		assert_int_equal(run(m, s, line, &a), MGMT_E_INVALID);
		assert_string_equal(a.err,
		    "commit comment: 300 bytes, at most 255");
	}
	assert_int_equal(run(m, s, "commit comment \"a\tb\"", &a),
	    MGMT_E_INVALID);
	assert_non_null(strstr(a.err, "control characters"));
	assert_int_equal(mgmt_commit_count(m), 3);

	/* the list, newest first, as Junos has it */
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "0   2"));
	assert_non_null(strstr(a.text,
	    " UTC by alice via ternsh (pts/7), +0 -0 lines\n1   "));
	assert_non_null(strstr(a.text,
	    " UTC by alice via ternsh (pts/7), commit confirmed 5 min, +3 -0 "
	    "lines\n    second\n2   "));
	assert_non_null(strstr(a.text,
	    " UTC by alice via ternsh (pts/7), +3 -0 lines\n    first: host "
	    "name\n3 commits kept (rollback 0..2)\n"));

	/* | json: every field */
	assert_int_equal(run_io(m, s, "show system commit", true, NULL, &a),
	    MGMT_OK);
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_true(json_object_object_get_ex(jo, "commits", &arr));
	assert_int_equal(json_object_array_length(arr), 3);
	e = json_object_array_get_idx(arr, 1);
	assert_true(json_object_object_get_ex(e, "comment", &v));
	assert_string_equal(json_object_get_string(v), "second");
	assert_true(json_object_object_get_ex(e, "uid", &v));
	assert_int_equal(json_object_get_int(v), 1000);
	assert_true(json_object_object_get_ex(e, "pid", &v));
	assert_int_equal(json_object_get_int(v), 4321);
	assert_true(json_object_object_get_ex(e, "confirm_minutes", &v));
	assert_int_equal(json_object_get_int(v), 5);
	assert_true(json_object_object_get_ex(e, "lines_added", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(e, "from", &v));
	assert_string_equal(json_object_get_string(v), "pts/7");
	assert_true(json_object_object_get_ex(e, "time", &v));
	assert_non_null(strstr(json_object_get_string(v), " UTC"));
	assert_true(json_object_object_get_ex(jo, "count", &v));
	assert_int_equal(json_object_get_int(v), 3);
	json_object_put(jo);

	/* it survives mgmt: a new one lists the same */
	{
		char before[sizeof(a.text)];

		assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
		snprintf(before, sizeof(before), "%s", a.text);
		assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
		mgmt_session_close(m, s);
		mgmt_free(m);
		m = start();
		s = session(m, "bob", 1001);
		assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
		assert_string_equal(a.text, before);
	}
	mgmt_session_close(m, s);
	mgmt_free(m);
}

static void
test_compare_rollback(void **state)
{
	struct mgmt *m;
	struct mgmt_session *s;
	struct answer a;

	(void)state;
	/* a history from before commit metadata: one commit, no line */
	{
		struct mgmt_conf *c = conf_of("system { host-name old; }\n");

		assert_int_equal(mgmt_store_commit(store, c), 0);
		mgmt_conf_free(c);
	}
	m = start();
	s = session(m, "alice", 1000);
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "set system host-name r1", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK);
	assert_int_equal(run(m, s, "set rib ecmp-width 4", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK);
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text,
	    "\n2   unknown time by unknown (stored before tern kept commit "
	    "history)\n3 commits kept"));

	/* candidate against rollback N */
	assert_int_equal(run(m, s, "set rib ecmp-width 8", &a), MGMT_OK);
	assert_int_equal(run(m, s, "show | compare rollback 2", &a), MGMT_OK);
	assert_string_equal(a.text,
	    "[edit]\n"
	    "+    rib {\n"
	    "+        ecmp-width 8;\n"
	    "+    }\n"
	    "[edit system]\n"
	    "-    host-name old;\n"
	    "+    host-name r1;\n");
	assert_int_equal(run(m, s, "show | compare rollback 0", &a), MGMT_OK);
	assert_string_equal(a.text,
	    "[edit rib]\n"
	    "-    ecmp-width 4;\n"
	    "+    ecmp-width 8;\n");
	/* plain compare: against running, as before */
	assert_int_equal(run(m, s, "show | compare", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "+    ecmp-width 8;"));
	assert_int_equal(run(m, s, "show | compare rollback 3", &a),
	    MGMT_E_NOT_FOUND);
	assert_string_equal(a.err,
	    "rollback 3: no such commit (3 stored: 0..2)");
	assert_int_equal(run(m, s, "show | compare rollback x", &a),
	    MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "'rollback N'"));
	assert_int_equal(run(m, s, "show | compare frob", &a), MGMT_E_SYNTAX);
	/* the operational form: running against rollback N */
	assert_int_equal(run(m, s,
			     "run show configuration | compare rollback 1", &a),
	    MGMT_OK);
	assert_string_equal(a.text,
	    "[edit]\n"
	    "+    rib {\n"
	    "+        ecmp-width 4;\n"
	    "+    }\n");

	/* two commits of the history: N's lines '-', M's '+' */
	assert_int_equal(run(m, s, "compare rollback 2 rollback 1", &a),
	    MGMT_OK);
	assert_string_equal(a.text,
	    "[edit system]\n"
	    "-    host-name old;\n"
	    "+    host-name r1;\n");
	assert_int_equal(run(m, s, "compare rollback 1", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "+        ecmp-width 4;"));
	assert_int_equal(run(m, s, "compare rollback 0 rollback 0", &a),
	    MGMT_OK);
	assert_string_equal(a.text, "");
	assert_int_equal(run(m, s, "compare rollback 1 rollback 9", &a),
	    MGMT_E_NOT_FOUND);
	assert_int_equal(run(m, s, "compare rollback", &a), MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "expected N [rollback M]"));
	assert_int_equal(run(m, s, "compare rollback 1 2", &a), MGMT_E_SYNTAX);

	/* rollback N with the new files: into the candidate, commit */
	assert_int_equal(run(m, s, "rollback 2", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit comment \"back to old\"", &a),
	    MGMT_OK);
	assert_int_equal(run(m, s, "run show configuration", &a), MGMT_OK);
	assert_string_equal(a.text, "system {\n    host-name old;\n}\n");
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "+1 -4 lines\n    back to old\n"));
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	/* the operational mode has it too */
	assert_int_equal(run(m, s, "compare rollback 1 rollback 0", &a),
	    MGMT_OK);
	assert_non_null(strstr(a.text, "-        ecmp-width 4;"));
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* The record of a commit made by nobody's command: an expired commit
 * confirmed rolls back as tern-mgmt itself. */
static void
test_confirm_expired(void **state)
{
	struct mgmt *m;
	struct mgmt_session *s;
	struct answer a;
	struct mgmt_commit_meta mm;

	(void)state;
	setenv("TERN_MGMT_MINUTE_MS", "50", 1);
	m = start();
	s = session(m, "alice", 1000);
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "set system host-name tmp", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit confirmed 1", &a), MGMT_OK);
	{
		uint64_t end = lc_time_mono_ns() + 5000000000ull;

		/* done when the sessions are told */
		while (mgmt_session_notices(s)[0] == '\0' &&
		    lc_time_mono_ns() < end) {
			ev_run(loop, EVRUN_NOWAIT);
			usleep(500);
		}
	}
	unsetenv("TERN_MGMT_MINUTE_MS");
	assert_int_equal(mgmt_commit_count(m), 2);
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_true(mm.known);
	assert_string_equal(mm.via, "rollback");
	assert_string_equal(mm.from, "confirm expired");
	assert_string_equal(mm.comment,
	    "commit confirmed was not confirmed within 1 minute");
	assert_int_equal(mm.uid, (long)geteuid());
	assert_int_equal(mm.removed, 3);
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text, " via rollback (confirm expired), "));
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* The first commit of a router started with a boot config. */
static void
test_boot(void **state)
{
	struct mgmt_opts o = {.store_dir = store, .no_server = true};
	struct mgmt_commit_meta mm;
	char boot[128];
	struct mgmt *m;
	FILE *f;

	(void)state;
	snprintf(boot, sizeof(boot), "%s/boot.conf", tmpdir);
	assert_non_null(f = fopen(boot, "w"));
	fputs("system { host-name b; }\nrib { ecmp-width 2; }\n", f);
	fclose(f);
	o.boot_config = boot;
	assert_non_null(m = mgmt_new(loop, &o));
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_true(mm.known);
	assert_string_equal(mm.via, "boot");
	assert_string_equal(mm.from, boot);
	assert_int_equal(mm.uid, (long)geteuid());
	assert_int_equal(mm.added, 6); /* the printed lines */
	assert_int_equal(mm.removed, 0);
	mgmt_free(m);
}

/* Over a real connection: the session's user is the connection's
 * credentials, whatever the shell says; the client's name and terminal are
 * the commit's "via" and "from". */
static void
test_session_cred(void **state)
{
	char rundir[160], name[64];
	struct mgmt_opts o = {.store_dir = store};
	struct ipc_opts io = {.component = "tester"};
	struct lc_arena *ar = lc_arena_new(0);
	Mgmt__SessionOpen so = MGMT__SESSION_OPEN__INIT;
	Mgmt__ExecuteRequest er = MGMT__EXECUTE_REQUEST__INIT;
	const char *lines[] = {"configure", "set system host-name cred",
	    "commit comment \"over ipc\"", "exit"};
	ProtobufCMessage *rep = NULL;
	struct mgmt_commit_meta mm;
	struct ipc_client *c;
	struct lc_err err;
	struct passwd *pw = getpwuid(geteuid());
	struct mgmt *m;
	uint64_t sid;

	(void)state;
	snprintf(rundir, sizeof(rundir), "%s/run", tmpdir);
	o.rundir = rundir;
	io.rundir = rundir;
	assert_non_null(m = mgmt_new(loop, &o));
	assert_non_null(c = ipc_client_new(loop, &ipc_svc_mgmt, &io, false));
	so.user = (char *)"mallory";
	so.tty = (char *)"pts/9";
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &so.base,
			     5000, ar, &rep, &err),
	    IPC_OK);
	sid = ((Mgmt__Reply *)rep)->session;
	snprintf(name, sizeof(name), "%s", pw != NULL ? pw->pw_name : "?");
	/* the prompt names who it is */
	assert_memory_equal(((Mgmt__Reply *)rep)->prompt, name, strlen(name));
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		lc_arena_reset(ar);
		er.session = sid;
		er.line = (char *)lines[i];
		assert_int_equal(ipc_call_wait(c, MGMT__METHOD__EXECUTE,
				     &er.base, 10000, ar, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Mgmt__Reply *)rep)->code, 0);
	}
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_true(mm.known);
	assert_string_equal(mm.user, name);
	assert_int_equal(mm.uid, (long)geteuid());
	assert_int_equal(mm.pid, (long)getpid());
	assert_string_equal(mm.via, "tester");
	assert_string_equal(mm.from, "pts/9");
	assert_string_equal(mm.comment, "over ipc");
	ipc_client_free(c);
	lc_arena_free(ar);
	mgmt_free(m);
}

/* ---- save and load: the text in parts ---- */

static void
test_save_load_parts(void **state)
{
	struct mgmt *m = start();
	struct mgmt_session *s = session(m, "alice", 1000);
	struct mgmt_cmd_io io;
	struct answer a;
	struct lc_buf text, got, printed;
	size_t off = 0, part = 1u << 20;

	(void)state;
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	/* without a client that handles the file: refused, mgmt opens
	 * nothing */
	assert_int_equal(run(m, s, "save /tmp/x.conf", &a), MGMT_E_DENIED);
	assert_string_equal(a.err,
	    "save /tmp/x.conf: tern-mgmt writes no user's file: ternsh "
	    "writes it, as you and relative to your directory");
	assert_int_equal(run(m, s, "load merge /etc/passwd", &a),
	    MGMT_E_DENIED);
	assert_non_null(strstr(a.err, "tern-mgmt reads no user's file"));
	assert_int_equal(run(m, s, "save", &a), MGMT_E_SYNTAX);
	assert_int_equal(run(m, s, "load frob x", &a), MGMT_E_SYNTAX);

	/* a config bigger than a part: 120k routes, ~6 MB */
	lc_buf_init(&text);
	lc_buf_printf(&text,
	    "interfaces { eth0 { device veth0; address "
	    "198.18.0.1/24; } }\nprotocols { static {\n");
	for (unsigned i = 0; i < 120000; i++)
		lc_buf_printf(&text,
		    "route %u.%u.%u.0/24 next-hop 198.18.0.%u;\n",
		    11 + (i >> 16), i >> 8 & 255, i & 255, 2 + i % 200);
	lc_buf_printf(&text, "} }\n");
	assert_true(lc_buf_avail(&text) > MGMT_XFER_PART);
	while (off < lc_buf_avail(&text)) {
		size_t n = lc_buf_avail(&text) - off;

		if (n > part)
			n = part;
		memset(&io, 0, sizeof(io));
		io.client_file = true;
		io.data = (const char *)lc_buf_head(&text) + off;
		io.len = n;
		io.offset = off;
		io.more = off + n < lc_buf_avail(&text);
		assert_int_equal(run_io(m, s, "load replace big.conf", false,
				     &io, &a),
		    MGMT_OK);
		off += n;
		/* nothing applied until the last part */
		if (io.more)
			assert_string_equal(a.text, "");
	}
	assert_string_equal(a.text, "load complete\n");
	assert_int_equal(mgmt_conf_count(s->candidate, MGMT_S_ROUTE), 120000);

	/* save: the printed candidate, part after part (the session keeps
	 * the text between them; h_execute drops it after the last) */
	lc_buf_init(&got);
	off = 0;
	for (unsigned parts = 0;; parts++) {
		memset(&io, 0, sizeof(io));
		io.client_file = true;
		io.offset = off;
		assert_int_equal(run_io(m, s, "save big.conf", false, &io, &a),
		    MGMT_OK);
		lc_buf_append(&got, io.out, io.out_len);
		off += io.out_len;
		if (off >= io.out_total) {
			assert_true(parts >= 1);
			break;
		}
	}
	lc_buf_init(&printed);
	mgmt_conf_print(s->candidate, &printed);
	assert_int_equal(lc_buf_avail(&got), lc_buf_avail(&printed));
	assert_memory_equal(lc_buf_head(&got), lc_buf_head(&printed),
	    lc_buf_avail(&printed));
	lc_buf_fini(&got);
	lc_buf_fini(&printed);
	mgmt_cmd_xfer_end(s);
	/* a later part with no save under way */
	memset(&io, 0, sizeof(io));
	io.client_file = true;
	io.offset = 100;
	assert_int_equal(run_io(m, s, "save big.conf", false, &io, &a),
	    MGMT_E_INVALID);
	assert_non_null(strstr(a.err, "no save under way at offset 100"));

	/* load errors change nothing */
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK);
	memset(&io, 0, sizeof(io));
	io.client_file = true;
	io.data = "system { host-name x; }\nsystem { mtu 5; }\n";
	io.len = strlen(io.data);
	assert_int_equal(run_io(m, s, "load merge my.conf", false, &io, &a),
	    MGMT_E_INVALID);
	assert_string_equal(a.err,
	    "my.conf:2:10: unknown word 'mtu', expected host-name, "
	    "log-level, metrics");
	/* a part out of order */
	io.data = "system {";
	io.len = 8;
	io.more = true;
	assert_int_equal(run_io(m, s, "load merge my.conf", false, &io, &a),
	    MGMT_OK);
	io.offset = 3;
	io.data = "}";
	io.len = 1;
	io.more = false;
	assert_int_equal(run_io(m, s, "load merge my.conf", false, &io, &a),
	    MGMT_E_INVALID);
	assert_string_equal(a.err,
	    "load my.conf: a part at offset 3, expected 8 (send the file "
	    "again from 0)");
	/* over the limit (refused before its bytes are looked at) */
	io.offset = 0;
	io.len = (size_t)MGMT_LOAD_MAX + 1;
	assert_int_equal(run_io(m, s, "load merge huge.conf", false, &io, &a),
	    MGMT_E_INVALID);
	assert_string_equal(a.err,
	    "load huge.conf: over the 256 MiB a load takes; nothing changed");
	/* a binary */
	io.data = "system\0{";
	io.len = 8;
	assert_int_equal(run_io(m, s, "load merge bin", false, &io, &a),
	    MGMT_E_INVALID);
	assert_memory_equal(a.err, "bin:1:7: ", 9);
	assert_true(mgmt_conf_equal(s->candidate, m->running));
	/* an empty file: replace empties the candidate */
	io.data = "";
	io.len = 0;
	assert_int_equal(run_io(m, s, "load replace empty", false, &io, &a),
	    MGMT_OK);
	assert_int_equal(mgmt_conf_count(s->candidate, MGMT_S_ROUTE), 0);
	assert_int_equal(run(m, s, "exit discard", &a), MGMT_OK);
	lc_buf_fini(&text);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_store_meta, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_comment, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_compare_rollback, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_confirm_expired, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_boot, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_session_cred, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_save_load_parts, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
