/* tests/unit/mgmt/test_persist.c: what a restart of tern-mgmt must not
 * lose (issue 24): a pending commit confirmed resumes (or rolls back at
 * start when its time passed), each configuring session's candidate comes
 * back to its shell (journal, token, uid, the lock held meanwhile, expiry),
 * the store's modes, and no file that is not a regular file blocks mgmt.
 * A kill of tern-mgmt is a child process that _exits in the middle of its
 * work. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_proc.h"
#include "libcommon/lc_time.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_int.h"

static char tmpdir[64], store[128], rundir[128], sessdir[160];
static struct ev_loop *loop;

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tern-persist.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	snprintf(rundir, sizeof(rundir), "%s/run", tmpdir);
	snprintf(sessdir, sizeof(sessdir), "%s/mgmt-sessions", rundir);
	assert_int_equal(mkdir(rundir, 0750), 0);
	loop = lc_loop_new();
	assert_non_null(loop);
	lc_log_init("test_persist", LC_LOG_WARNING, LC_LOG_STDERR);
	/* a test that blocks (a FIFO opened without O_NONBLOCK) fails, it
	 * does not hang the suite */
	alarm(60);
	return (0);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	alarm(0);
	unsetenv("TERN_MGMT_MINUTE_MS");
	unsetenv("TERN_MGMT_ORPHAN_TTL_MS");
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return (system(cmd) == 0 ? 0 : -1);
}

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

	(void)m;
	(void)s;
	a->done = true;
	a->code = code;
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(a->err, sizeof(a->err), "%s", err->msg);
}

static int
run_io(struct mgmt *m, struct mgmt_session *s, const char *line,
    struct mgmt_cmd_io *io, struct answer *a)
{
	struct lc_buf out;
	struct lc_err err;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec_io(m, s, line, false, io, &out, &err, later, a);
	if (code == MGMT_PENDING) {
		uint64_t end = lc_time_mono_ns() + 10000000000ull;

		while (!a->done && lc_time_mono_ns() < end) {
			ev_run(loop, EVRUN_NOWAIT);
			usleep(200);
		}
		code = a->done ? a->code : -1;
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
	return (run_io(m, s, line, NULL, a));
}

/* mgmt without sockets, journaling its candidates in our rundir */
static struct mgmt *
start(void)
{
	struct mgmt_opts o = {.store_dir = store,
	    .rundir = rundir,
	    .no_server = true};

	return (mgmt_new(loop, &o));
}

/* A session as h_session_open makes it: uid from the credentials, the
 * shell's pid and start time (pid 0: not known). */
static struct mgmt_session *
session(struct mgmt *m, long uid, pid_t pid)
{
	struct mgmt_session *s = mgmt_session_open(m, "alice", false);

	if (s == NULL)
		return (NULL);
	s->uid = uid;
	s->pid = pid;
	s->start = pid > 0 ? lc_proc_starttime(pid) : 0;
	snprintf(s->via, sizeof(s->via), "ternsh");
	return (s);
}

static void
loop_for(unsigned ms)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)ms * 1000000ull;

	while (lc_time_mono_ns() < end) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(1000);
	}
}

/* the running config's host name, "" when none */
static const char *
host_name(struct mgmt *m)
{
	static struct mgmt_system_conf sys;

	mgmt_conf_system_get(m->running, &sys);
	return (sys.host_name);
}

/*
 * A tern-mgmt killed in the middle of its work: fn runs in a child with a
 * loop of its own and the child _exits when fn returns (no free, no
 * flush: what is on disk is what a kill -9 leaves). fn returns 0, or a
 * line saying what went wrong (the child cannot use cmocka's asserts).
 */
typedef const char *killed_fn(void *arg);

static void
killed(killed_fn *fn, void *arg)
{
	int pipefd[2], st;
	char why[512] = "";
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		const char *w;

		close(pipefd[0]);
		loop = lc_loop_new();
		w = fn(arg);
		/* its store child compressing the commit before: done (a
		 * few ms here), not left to outlive the test */
		while (wait(NULL) > 0 || errno == EINTR)
			;
		if (w != NULL && write(pipefd[1], w, strlen(w)) < 0)
			_exit(2);
		_exit(w == NULL ? 0 : 1);
	}
	close(pipefd[1]);
	n = read(pipefd[0], why, sizeof(why) - 1);
	why[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the killed tern-mgmt: %s", why[0] ? why : "crashed");
}

static char chk_buf[1024];
#define CHK(cond, what)                                                      \
	do {                                                                 \
		if (!(cond)) {                                               \
			snprintf(chk_buf, sizeof(chk_buf), "%s: %s", (what), \
			    #cond);                                          \
			return (chk_buf);                                    \
		}                                                            \
	} while (0)

/* ---- point 8: the store is not everyone's ---------------------------------------- */

static void
test_store_modes(void **state)
{
	struct mgmt_conf *c = mgmt_conf_new();
	struct stat st;
	char path[256];
	mode_t old;
	struct mgmt *m;
	FILE *f;

	(void)state;
	/* the worst umask: what we ask for is what we get */
	old = umask(0);
	assert_int_equal(mgmt_store_commit(store, c), 0);
	assert_int_equal(stat(store, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	snprintf(path, sizeof(path), "%s/commit.1", store);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(mgmt_store_commit(store, c), 0);
	assert_int_equal(mgmt_store_compress(store), 1);
	snprintf(path, sizeof(path), "%s/commit.1.gz", store);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	mgmt_conf_free(c);

	/* a store an older tern (or a hand) made for everyone: tightened at
	 * start, files and directory */
	assert_int_equal(chmod(store, 0755), 0);
	snprintf(path, sizeof(path), "%s/commit.3", store);
	assert_non_null(f = fopen(path, "w"));
	fputs("system { host-name old; }\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	assert_non_null(m = start());
	assert_string_equal(host_name(m), "old");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(stat(store, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	mgmt_free(m);
	/* the candidates' journals: only ours */
	assert_int_equal(stat(sessdir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	umask(old);
}

/* ---- point 9: nothing blocks on a file that is not a file ------------------------- */

static double
secs_since(uint64_t t0)
{
	return ((double)(lc_time_mono_ns() - t0) / 1e9);
}

static void
test_no_blocking(void **state)
{
	struct mgmt_opts o = {.store_dir = store, .no_server = true};
	char fifo[256], path[256], dir[256];
	struct mgmt_conf *c;
	struct mgmt_session *s;
	struct lc_err err;
	struct answer a;
	struct mgmt *m;
	uint64_t t0;
	FILE *f;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", tmpdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(dir, sizeof(dir), "%s/adir", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);

	/* the boot config: a FIFO (blocked mgmt_new in open() for ever), a
	 * device, a directory: refused at once, with the reason */
	t0 = lc_time_mono_ns();
	assert_int_equal(mgmt_conf_load_file(fifo, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "fifo.conf: not a regular file"));
	assert_int_equal(mgmt_conf_load_file("/dev/zero", &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/dev/zero: not a regular file"));
	assert_int_equal(mgmt_conf_load_file(dir, &c, &err), -EISDIR);
	assert_non_null(strstr(err.msg, "adir: is a directory"));
	o.boot_config = fifo;
	assert_null(mgmt_new(loop, &o));
	assert_int_equal(errno, EINVAL);
	o.boot_config = "/dev/zero";
	assert_null(mgmt_new(loop, &o));
	assert_true(secs_since(t0) < 2.0);

	/* a FIFO in the store, as an older commit: listing, rollback to it
	 * and the compression of older commits pass it by */
	snprintf(path, sizeof(path), "%s/commit.1", store);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/commit.2", store);
	assert_non_null(f = fopen(path, "w"));
	fputs("system { host-name two; }\n", f);
	fclose(f);
	o.boot_config = NULL;
	o.rundir = rundir;
	assert_non_null(m = mgmt_new(loop, &o));
	assert_string_equal(host_name(m), "two");
	assert_non_null(s = session(m, 1000, 0));
	t0 = lc_time_mono_ns();
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "2 commits kept"));
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "rollback 1", &a), MGMT_E_NOT_FOUND);
	assert_non_null(strstr(a.err, "commit.1: not a regular file"));
	assert_int_equal(run(m, s, "set system host-name three", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK);
	assert_true(mgmt_store_compress(store) >= 0);
	assert_true(secs_since(t0) < 3.0);

	/* show log: a FIFO named like a component's log */
	snprintf(path, sizeof(path), "%s/evil.log", rundir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/good.log", rundir);
	assert_non_null(f = fopen(path, "w"));
	fputs("2026-12-03T00:00:00.000Z good[1]: info: a line\n", f);
	fclose(f);
	t0 = lc_time_mono_ns();
	assert_int_equal(run(m, s, "run show log evil", &a), MGMT_E_DENIED);
	assert_non_null(strstr(a.err, "evil.log: not a regular file"));
	assert_int_equal(run(m, s, "run show log", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "a line"));
	assert_true(secs_since(t0) < 2.0);
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* ---- point 1: commit confirmed survives tern-mgmt --------------------------------- */

/* a commit confirmed 1 of host-name arg, on a base committed first when
 * there is none, then the kill */
static const char *
confirm_then_die(void *arg)
{
	const char *name = arg;
	struct mgmt_session *s;
	struct answer a;
	struct mgmt *m;
	char line[128];

	CHK((m = start()) != NULL, "start");
	CHK((s = session(m, 1000, 0)) != NULL, "session");
	CHK(run(m, s, "configure", &a) == MGMT_OK, a.err);
	if (mgmt_commit_count(m) == 0) {
		CHK(run(m, s, "set system host-name base", &a) == MGMT_OK,
		    "set base");
		CHK(run(m, s, "commit", &a) == MGMT_OK, "commit base");
	}
	snprintf(line, sizeof(line), "set system host-name %s", name);
	CHK(run(m, s, line, &a) == MGMT_OK, "set");
	CHK(run(m, s, "commit confirmed 1", &a) == MGMT_OK, a.err);
	CHK(m->confirm_pending, "pending");
	/* no candidate left to keep: not what this is about */
	CHK(run(m, s, "exit", &a) == MGMT_OK, a.err);
	return (NULL);
}

static void
test_confirm_resumed(void **state)
{
	struct mgmt_commit_meta mm;
	struct mgmt_session *s;
	struct answer a;
	struct mgmt *m;
	uint64_t end;

	(void)state;
	setenv("TERN_MGMT_MINUTE_MS", "400", 1);

	/* killed, started again within the minute: still pending, and rolled
	 * back when it is up (without anyone asking) */
	killed(confirm_then_die, "pending-1");
	assert_non_null(m = start());
	assert_string_equal(host_name(m), "pending-1");
	assert_true(m->confirm_pending);
	assert_non_null(s = session(m, 1000, 0));
	assert_int_equal(run(m, s, "show system commit", &a), MGMT_OK);
	assert_non_null(strstr(a.text,
	    "a commit confirmed is pending: rolled "
	    "back at 20"));
	end = lc_time_mono_ns() + 3000000000ull;
	while (strcmp(host_name(m), "base") != 0 && lc_time_mono_ns() < end)
		loop_for(10);
	assert_string_equal(host_name(m), "base");
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_string_equal(mm.via, "rollback");
	assert_string_equal(mm.from, "confirm expired");
	assert_string_equal(mm.comment,
	    "commit confirmed was not confirmed within 1 minute");
	mgmt_session_close(m, s);
	mgmt_free(m);

	/* killed, and its time passes before the next start: rolled back at
	 * start, before the loop runs at all */
	killed(confirm_then_die, "pending-2");
	usleep(600 * 1000);
	assert_non_null(m = start());
	assert_string_equal(host_name(m), "base");
	assert_false(m->confirm_pending);
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_string_equal(mm.via, "rollback");
	assert_string_equal(mm.from, "confirm expired");
	assert_int_equal(mgmt_store_meta(store, 1, &mm), 0);
	assert_int_equal(mm.confirm, 1);
	assert_true(mm.confirm_deadline_ms > 0);
	mgmt_free(m);

	/* killed, then confirmed by a plain commit of the next tern-mgmt:
	 * stays, and the record is no longer pending */
	killed(confirm_then_die, "pending-3");
	assert_non_null(m = start());
	assert_true(m->confirm_pending);
	assert_non_null(s = session(m, 1000, 0));
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "commit", &a), MGMT_OK);
	assert_false(m->confirm_pending);
	loop_for(700);
	assert_string_equal(host_name(m), "pending-3");
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	mgmt_session_close(m, s);
	mgmt_free(m);
	assert_non_null(m = start());
	assert_false(m->confirm_pending);
	assert_string_equal(host_name(m), "pending-3");
	assert_int_equal(mgmt_store_meta(store, 0, &mm), 0);
	assert_int_equal(mm.confirm, 0);
	mgmt_free(m);
}

/* ---- point 10: candidates kept for their shells ----------------------------------- */

static int
journals(void)
{
	char cmd[256], out[16] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null | grep -c '^cand\\.'",
	    sessdir);
	if ((p = popen(cmd, "r")) == NULL)
		return (-1);
	if (fgets(out, sizeof(out), p) == NULL)
		out[0] = '\0';
	pclose(p);
	return (atoi(out));
}

static void
print_to(const struct mgmt_conf *c, const char *name)
{
	char path[256];
	struct lc_buf b;
	FILE *f;

	lc_buf_init(&b);
	mgmt_conf_print(c, &b);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((f = fopen(path, "w")) != NULL) {
		if (lc_buf_avail(&b) > 0)
			fwrite(lc_buf_head(&b), 1, lc_buf_avail(&b), f);
		fclose(f);
	}
	lc_buf_fini(&b);
}

static bool
prints_as(const struct mgmt_conf *c, const char *name)
{
	char path[256], want[65536];
	struct lc_buf b;
	size_t n;
	bool eq;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((f = fopen(path, "r")) == NULL)
		return (false);
	n = fread(want, 1, sizeof(want), f);
	fclose(f);
	lc_buf_init(&b);
	mgmt_conf_print(c, &b);
	eq = lc_buf_avail(&b) == n &&
	    (n == 0 || memcmp(lc_buf_head(&b), want, n) == 0);
	lc_buf_fini(&b);
	return (eq);
}

/* the pid whose shell the session is: this test process (it lives) */
static pid_t shell_pid;

/* configure, set, delete, a load in two parts, a rollback and edits after
 * it, then the kill */
static const char *
edit_then_die(void *arg)
{
	static const char part1[] = "rib { ecmp-", part2[] = "width 4; }\n";
	struct mgmt_session *s;
	struct mgmt_cmd_io io = {0};
	struct answer a;
	struct mgmt *m;

	(void)arg;
	CHK((m = start()) != NULL, "start");
	CHK((s = session(m, 1000, shell_pid)) != NULL, "session");
	CHK(run(m, s, "configure", &a) == MGMT_OK, a.err);
	CHK(run(m, s, "set system host-name c0", &a) == MGMT_OK, "set");
	CHK(run(m, s, "commit", &a) == MGMT_OK, "commit");
	CHK(run(m, s, "set system host-name c1", &a) == MGMT_OK, "set");
	CHK(run(m, s, "commit", &a) == MGMT_OK, "commit");
	CHK(run(m, s, "set system host-name \"c 2\"", &a) == MGMT_OK, "set");
	CHK(run(m, s, "set interfaces eth0 device veth0", &a) == MGMT_OK,
	    "set");
	CHK(run(m, s, "set interfaces eth0 address 198.18.0.1/24", &a) ==
		MGMT_OK,
	    "set");
	CHK(run(m, s, "set interfaces eth0 address 198.18.1.1/24", &a) ==
		MGMT_OK,
	    "set");
	CHK(run(m, s, "delete interfaces eth0 address 198.18.0.1/24", &a) ==
		MGMT_OK,
	    "delete");
	io.client_file = true;
	io.data = part1;
	io.len = strlen(part1);
	io.more = true;
	CHK(run_io(m, s, "load merge my.conf", &io, &a) == MGMT_OK, "load 1");
	io.data = part2;
	io.len = strlen(part2);
	io.offset = strlen(part1);
	io.more = false;
	CHK(run_io(m, s, "load merge my.conf", &io, &a) == MGMT_OK, a.err);
	/* an edit that fails is not journaled (it changed nothing) */
	CHK(run(m, s, "set rib ecmp-width 900", &a) == MGMT_E_INVALID, "bad");
	print_to(s->candidate, "want");
	CHK(strcmp(m->lock->token, s->token) == 0, "lock");
	print_to(m->running, "running");
	return (NULL);
}

static void
test_candidate_back(void **state)
{
	struct mgmt_session *o, *t, *u;
	char token[MGMT_TOKEN_LEN + 1];
	struct answer a;
	struct mgmt *m;

	(void)state;
	shell_pid = getpid();
	killed(edit_then_die, NULL);
	assert_int_equal(journals(), 1);
	assert_non_null(m = start());
	assert_true(prints_as(m->running, "running"));
	/* rebuilt, waiting for its shell, with the lock */
	assert_non_null(o = m->lock);
	assert_true(o->orphan);
	assert_true(o->configure);
	assert_true(prints_as(o->candidate, "want"));
	snprintf(token, sizeof(token), "%s", o->token);
	/* nobody else may configure meanwhile: exclusive, as if it had
	 * never gone; the refusal says why and until when */
	assert_non_null(t = session(m, 1001, 0));
	assert_int_equal(run(m, t, "configure", &a), MGMT_E_LOCKED);
	assert_non_null(strstr(a.err, "being edited by alice (session "));
	assert_non_null(strstr(a.err,
	    "its shell has not come back since "
	    "tern-mgmt restarted"));
	/* the token from another uid, a wrong token, the read-only socket:
	 * nothing */
	assert_false(mgmt_persist_resume(m, t, token));
	assert_non_null(u = session(m, 1000, getpid()));
	assert_false(
	    mgmt_persist_resume(m, u, "0123456789abcdef0123456789abcdef"));
	u->read_only = true;
	assert_false(mgmt_persist_resume(m, u, token));
	u->read_only = false;
	assert_true(m->lock == o && o->candidate != NULL);
	/* its shell: the candidate, configuration mode and the lock */
	assert_true(mgmt_persist_resume(m, u, token));
	assert_true(m->lock == u);
	assert_true(u->configure);
	assert_true(prints_as(u->candidate, "want"));
	assert_int_equal(run(m, u, "show | compare", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "+        ecmp-width 4;"));
	assert_int_equal(run(m, t, "configure", &a), MGMT_E_LOCKED);
	assert_non_null(strstr(a.err, "try again when they exit"));
	/* it goes on, and a stop of tern-mgmt (SIGTERM) keeps it too */
	assert_int_equal(run(m, u, "delete rib", &a), MGMT_OK);
	print_to(u->candidate, "want2");
	mgmt_session_close(m, t);
	mgmt_free(m);
	assert_int_equal(journals(), 1);
	assert_non_null(m = start());
	assert_non_null(o = m->lock);
	assert_true(prints_as(o->candidate, "want2"));
	assert_non_null(u = session(m, 1000, getpid()));
	assert_true(mgmt_persist_resume(m, u, token));
	/* rollback N and discard start the journal over from a commit */
	assert_int_equal(run(m, u, "rollback 1", &a), MGMT_OK);
	print_to(u->candidate, "want3");
	mgmt_free(m);
	assert_non_null(m = start());
	assert_true(prints_as(m->lock->candidate, "want3"));
	assert_non_null(u = session(m, 1000, getpid()));
	assert_true(mgmt_persist_resume(m, u, token));
	assert_int_equal(run(m, u, "set system host-name c3", &a), MGMT_OK);
	assert_int_equal(run(m, u, "commit", &a), MGMT_OK);
	assert_int_equal(run(m, u, "set system host-name c4", &a), MGMT_OK);
	assert_int_equal(run(m, u, "discard", &a), MGMT_OK);
	mgmt_free(m);
	assert_non_null(m = start());
	assert_string_equal(host_name(m), "c3");
	assert_true(mgmt_conf_equal(m->lock->candidate, m->running));
	assert_non_null(u = session(m, 1000, getpid()));
	assert_true(mgmt_persist_resume(m, u, token));
	/* exit ends it: nothing kept */
	assert_int_equal(run(m, u, "exit", &a), MGMT_OK);
	assert_int_equal(journals(), 0);
	assert_int_equal(run(m, u, "configure", &a), MGMT_OK);
	assert_int_equal(journals(), 1);
	mgmt_session_close(m, u); /* the shell's SESSION_CLOSE */
	assert_int_equal(journals(), 0);
	mgmt_free(m);
}

static const char *
edit_then_die_short(void *arg)
{
	struct mgmt_session *s;
	struct answer a;
	struct mgmt *m;

	(void)arg;
	CHK((m = start()) != NULL, "start");
	CHK((s = session(m, 1000, shell_pid)) != NULL, "session");
	CHK(run(m, s, "configure", &a) == MGMT_OK, a.err);
	CHK(run(m, s, "set system host-name gone", &a) == MGMT_OK, "set");
	return (NULL);
}

static void
test_candidate_expires(void **state)
{
	struct mgmt_session *s, *u;
	char token[MGMT_TOKEN_LEN + 1], path[300];
	struct answer a;
	struct mgmt *m;
	int st;
	pid_t pid;
	FILE *f;

	(void)state;
	/* its shell has ended (a pid that was, reaped): dropped at start */
	if ((pid = fork()) == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	shell_pid = pid;
	killed(edit_then_die_short, NULL);
	assert_int_equal(journals(), 1);
	assert_non_null(m = start());
	assert_null(m->lock);
	assert_int_equal(journals(), 0);
	assert_non_null(s = session(m, 1001, 0));
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	mgmt_session_close(m, s);
	mgmt_free(m);

	/* its shell lives but does not come back in time: dropped, the lock
	 * free; the shell told when it comes back late */
	shell_pid = getpid();
	killed(edit_then_die_short, NULL);
	setenv("TERN_MGMT_ORPHAN_TTL_MS", "300", 1);
	assert_non_null(m = start());
	assert_non_null(m->lock);
	snprintf(token, sizeof(token), "%s", m->lock->token);
	loop_for(700);
	assert_null(m->lock);
	assert_int_equal(journals(), 0);
	assert_non_null(u = session(m, 1000, getpid()));
	assert_false(mgmt_persist_resume(m, u, token));
	assert_non_null(strstr(mgmt_session_notices(u),
	    "the candidate of your session before tern-mgmt restarted was "
	    "dropped at "));
	mgmt_session_close(m, u);
	mgmt_free(m);
	unsetenv("TERN_MGMT_ORPHAN_TTL_MS");

	/* a record cut short by the kill: what came before it is kept, the
	 * rest cut off the file */
	killed(edit_then_die_short, NULL);
	snprintf(path, sizeof(path), "%s/", sessdir);
	{
		char cmd[400];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "ls %s/cand.*", sessdir);
		assert_non_null(p = popen(cmd, "r"));
		assert_non_null(fgets(path, sizeof(path), p));
		path[strcspn(path, "\n")] = '\0';
		pclose(p);
	}
	{
		struct stat before, after;

		assert_int_equal(stat(path, &before), 0);
		assert_non_null(f = fopen(path, "a"));
		fputs("{\"op\":\"set\",\"w\":[\"system\",\"host-", f);
		fclose(f);
		assert_non_null(m = start());
		assert_non_null(m->lock);
		{
			struct mgmt_system_conf sys;

			mgmt_conf_system_get(m->lock->candidate, &sys);
			assert_string_equal(sys.host_name, "gone");
		}
		assert_int_equal(stat(path, &after), 0);
		assert_int_equal(after.st_size, before.st_size);
	}
	mgmt_free(m);
}

/* A commit confirmed that expires while a candidate waits for its shell:
 * the candidate is reset as a connected session's is (issue 23), and the
 * shell is told when it comes back. */
static const char *
confirm_edit_then_die(void *arg)
{
	struct mgmt_session *s;
	struct answer a;
	struct mgmt *m;

	(void)arg;
	CHK((m = start()) != NULL, "start");
	CHK((s = session(m, 1000, shell_pid)) != NULL, "session");
	CHK(run(m, s, "configure", &a) == MGMT_OK, a.err);
	CHK(run(m, s, "set system host-name base", &a) == MGMT_OK, "set");
	CHK(run(m, s, "commit", &a) == MGMT_OK, "commit");
	CHK(run(m, s, "set system host-name trial", &a) == MGMT_OK, "set");
	CHK(run(m, s, "commit confirmed 1", &a) == MGMT_OK, "commit");
	CHK(run(m, s, "set rib ecmp-width 2", &a) == MGMT_OK, "set");
	return (NULL);
}

static void
test_confirm_with_candidate(void **state)
{
	struct mgmt_session *u;
	char token[MGMT_TOKEN_LEN + 1];
	struct mgmt *m;

	(void)state;
	setenv("TERN_MGMT_MINUTE_MS", "300", 1);
	shell_pid = getpid();
	killed(confirm_edit_then_die, NULL);
	usleep(500 * 1000);
	assert_non_null(m = start());
	assert_string_equal(host_name(m), "base");
	assert_non_null(m->lock);
	snprintf(token, sizeof(token), "%s", m->lock->token);
	assert_true(mgmt_conf_equal(m->lock->candidate, m->running));
	assert_non_null(u = session(m, 1000, getpid()));
	assert_true(mgmt_persist_resume(m, u, token));
	assert_non_null(strstr(mgmt_session_notices(u),
	    "commit confirmed was not confirmed within 1 minute: rolled back "
	    "to the configuration before it; your candidate was reset"));
	mgmt_free(m);
	/* and its journal was started over from the rollback */
	assert_non_null(m = start());
	assert_true(mgmt_conf_equal(m->lock->candidate, m->running));
	mgmt_free(m);
}

/* Over the socket: SESSION_OPEN gives a token; after a restart the same
 * shell presents it and its session comes back in configuration mode. */
static void
test_resume_ipc(void **state)
{
	struct mgmt_opts o = {.store_dir = store, .rundir = rundir};
	struct ipc_opts io = {.component = "ternsh", .rundir = rundir};
	struct lc_arena *ar = lc_arena_new(0);
	Mgmt__SessionOpen so = MGMT__SESSION_OPEN__INIT;
	Mgmt__ExecuteRequest er = MGMT__EXECUTE_REQUEST__INIT;
	const char *lines[] = {"configure", "set system host-name over-ipc"};
	ProtobufCMessage *rep = NULL;
	char token[64];
	struct ipc_client *c;
	struct lc_err err;
	struct mgmt *m;
	Mgmt__Reply *r;

	(void)state;
	assert_non_null(m = mgmt_new(loop, &o));
	assert_non_null(c = ipc_client_new(loop, &ipc_svc_mgmt, &io, false));
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &so.base,
			     5000, ar, &rep, &err),
	    IPC_OK);
	r = (Mgmt__Reply *)rep;
	assert_int_equal(strlen(r->token), MGMT_TOKEN_LEN);
	assert_false(r->resumed);
	snprintf(token, sizeof(token), "%s", r->token);
	er.session = r->session;
	for (size_t i = 0; i < 2; i++) {
		lc_arena_reset(ar);
		er.line = (char *)lines[i];
		assert_int_equal(ipc_call_wait(c, MGMT__METHOD__EXECUTE,
				     &er.base, 10000, ar, &rep, &err),
		    IPC_OK);
		assert_int_equal(((Mgmt__Reply *)rep)->code, 0);
	}
	ipc_client_free(c);
	/* the connection's end is the shell's end: nothing kept */
	loop_for(100);
	assert_int_equal(journals(), 0);

	assert_non_null(c = ipc_client_new(loop, &ipc_svc_mgmt, &io, false));
	lc_arena_reset(ar);
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &so.base,
			     5000, ar, &rep, &err),
	    IPC_OK);
	r = (Mgmt__Reply *)rep;
	snprintf(token, sizeof(token), "%s", r->token);
	er.session = r->session;
	for (size_t i = 0; i < 2; i++) {
		lc_arena_reset(ar);
		er.line = (char *)lines[i];
		assert_int_equal(ipc_call_wait(c, MGMT__METHOD__EXECUTE,
				     &er.base, 10000, ar, &rep, &err),
		    IPC_OK);
		if (((Mgmt__Reply *)rep)->code != 0)
			fail_msg("%s: %s", lines[i],
			    ((Mgmt__Reply *)rep)->error);
	}
	/* tern-mgmt stops under the shell (restart mgmt) */
	mgmt_free(m);
	ipc_client_free(c);
	assert_int_equal(journals(), 1);
	assert_non_null(m = mgmt_new(loop, &o));
	assert_non_null(c = ipc_client_new(loop, &ipc_svc_mgmt, &io, false));
	lc_arena_reset(ar);
	so.resume_token = token;
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &so.base,
			     5000, ar, &rep, &err),
	    IPC_OK);
	r = (Mgmt__Reply *)rep;
	assert_true(r->resumed);
	assert_int_equal(r->mode, MGMT__MODE__CONFIGURE);
	assert_string_equal(r->token, token);
	er.session = r->session;
	er.line = (char *)"show | compare";
	lc_arena_reset(ar);
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__EXECUTE, &er.base,
			     10000, ar, &rep, &err),
	    IPC_OK);
	if (strstr(((Mgmt__Reply *)rep)->text,
		"+        host-name over-ipc;") == NULL)
		fail_msg("show | compare: '%s' '%s'",
		    ((Mgmt__Reply *)rep)->text, ((Mgmt__Reply *)rep)->error);
	/* presented again by a second shell: that one is not it */
	{
		struct ipc_client *c2;

		assert_non_null(
		    c2 = ipc_client_new(loop, &ipc_svc_mgmt, &io, false));
		lc_arena_reset(ar);
		assert_int_equal(ipc_call_wait(c2, MGMT__METHOD__SESSION_OPEN,
				     &so.base, 5000, ar, &rep, &err),
		    IPC_OK);
		assert_false(((Mgmt__Reply *)rep)->resumed);
		assert_int_equal(((Mgmt__Reply *)rep)->mode,
		    MGMT__MODE__OPERATIONAL);
		ipc_client_free(c2);
	}
	ipc_client_free(c);
	mgmt_free(m);
	lc_arena_free(ar);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_store_modes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_blocking, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_confirm_resumed, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_candidate_back, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_candidate_expires, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_confirm_with_candidate, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_resume_ipc, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
