/* tests/unit/mgmt/test_persist.c: what a restart of tern-mgmt must not
 * lose (issue 24): a pending commit confirmed resumes (or rolls back at
 * start when its time passed); the store's modes, and no file that is not
 * a regular file blocks mgmt. A kill of tern-mgmt is a child process that
 * _exits in the middle of its work. */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_store_modes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_blocking, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_confirm_resumed, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
