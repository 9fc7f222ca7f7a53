/* mgmt/mgmt_commit.c: the end of a commit (store atomically, make running) and commit confirmed's timer. */
#include "mgmt_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcommon/lc_buf.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

/*
 * Seconds in a "minute" of commit confirmed: 60, unless the test hook
 * TERN_MGMT_MINUTE_MS is set (tests cannot wait minutes).
 */
static double
minute_s(void)
{
	const char *s = getenv("TERN_MGMT_MINUTE_MS");
	long v;

	if (s != NULL && (v = strtol(s, NULL, 10)) > 0)
		return ((double)v / 1000.0);
	return (60.0);
}

static int64_t
wall_ms(void)
{
	return ((int64_t)(lc_time_real_ns() / LC_NS_PER_MSEC));
}

/* The stored conf becomes running. */
static void
make_running(struct mgmt *m, const struct mgmt_conf *conf)
{
	mgmt_conf_assign(m->running, conf);
	(void)mgmt_store_newest(m->store_dir, &m->running_seq);
	/* A plain commit while a commit confirmed is pending confirms it
	 * (and its record: the newest commit is no longer the one pending). */
	mgmt_commit_confirm_cancel(m);
	mgmt_apply_system(m);
	lc_log_info("commit: stored as commit 0 of %d",
	    mgmt_store_count(m->store_dir));
}

void
mgmt_commit_meta_self(struct mgmt_commit_meta *meta, const char *via,
    const char *from, const char *comment)
{
	struct passwd pw, *pp = NULL;
	char buf[1024];

	mgmt_commit_meta_init(meta);
	meta->time = (int64_t)time(NULL);
	meta->uid = (long)geteuid();
	meta->pid = (long)getpid();
	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &pp) == 0 &&
	    pp != NULL)
		snprintf(meta->user, sizeof(meta->user), "%s", pp->pw_name);
	else
		snprintf(meta->user, sizeof(meta->user), "uid%ld", meta->uid);
	snprintf(meta->via, sizeof(meta->via), "%s", via);
	snprintf(meta->from, sizeof(meta->from), "%s", from);
	snprintf(meta->comment, sizeof(meta->comment), "%s", comment);
}

/*
 * Writes the commit with its metadata: stamped now, with what it changes
 * against running (still the config before it). In the store child for a
 * commit, so the compare of a big change costs mgmt's loop nothing.
 */
static int
store_with_meta(struct mgmt *m, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta)
{
	struct mgmt_commit_meta mm;

	if (meta == NULL)
		return (mgmt_store_commit(m->store_dir, conf));
	mm = *meta;
	mm.time = (int64_t)time(NULL);
	/* a commit confirmed records until when (the wall clock: a tern-mgmt
	 * started after a kill or a reboot goes by it) */
	if (mm.confirm > 0)
		mm.confirm_deadline_ms = wall_ms() +
		    (int64_t)(minute_s() * 1000.0 * mm.confirm);
	mgmt_commit_meta_summary(&mm, m->running, conf);
	return (mgmt_store_commit_meta(m->store_dir, conf, &mm));
}

int
mgmt_commit_local(struct mgmt *m, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta, struct lc_err *err)
{
	int rv;

	if ((rv = store_with_meta(m, conf, meta)) != 0)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "commit failed: writing %s: %s", m->store_dir,
		    strerror(-rv)));
	(void)mgmt_store_compress(m->store_dir);
	make_running(m, conf);
	return (0);
}

/* Stop and reap the store child still compressing older commits, if any
 * (a crash there leaves a loadable file: mgmt_store_compress). */
static void
gz_stop(struct mgmt *m)
{
	int st;

	if (m->gz_pid == 0)
		return;
	if (waitpid(m->gz_pid, &st, WNOHANG) == 0) {
		/* SIGKILL: the child inherited the loop's SIGTERM watcher
		 * (libev's handler), which would only write to a pipe nobody
		 * reads; the wait below then lasted as long as the
		 * compression (and forever under libFuzzer's handlers) */
		kill(m->gz_pid, SIGKILL);
		while (waitpid(m->gz_pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	m->gz_pid = 0;
}

/* The child said how it went (an int: 0 or -errno) and exited. */
static void
store_child_done(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mgmt *m = w->data;
	struct mgmt_conf *conf = m->store_conf;
	mgmt_commit_done_fn *done = m->store_done;
	struct lc_err err = {0};
	int rv = -EIO, st;

	if (read(w->fd, &rv, sizeof(rv)) != (ssize_t)sizeof(rv))
		rv = -EIO; /* the child died before it could say */
	ev_io_stop(loop, w);
	close(w->fd);
	/* it may go on compressing the commit before (reaped later) */
	if (waitpid(m->store_pid, &st, WNOHANG) == 0)
		m->gz_pid = m->store_pid;
	m->store_pid = 0;
	m->store_conf = NULL;
	if (rv == 0)
		make_running(m, conf);
	else
		lc_err_set(&err, rv, LC_ERR_NOINDEX,
		    "commit failed: writing %s: %s", m->store_dir,
		    strerror(-rv));
	mgmt_conf_free(conf);
	done(m->store_arg, rv, &err);
}

int
mgmt_commit_store(struct mgmt *m, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta, mgmt_commit_done_fn *done, void *arg)
{
	int fds[2], rv;
	pid_t pid;

	if (m->store_pid != 0)
		return (-EBUSY);
	/* One compressor at a time: the child of the commit before may still
	 * be compressing. Stopped and reaped here, or the next child's pid
	 * would replace its own and it would never be reaped; the new child
	 * removes its temp file and compresses every plain older commit,
	 * that one's too. */
	gz_stop(m);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return (-errno);
	if ((pid = fork()) < 0) {
		rv = -errno;
		close(fds[0]);
		close(fds[1]);
		return (rv);
	}
	if (pid == 0) {
		/* the child: a snapshot of the tree, nothing else to do; it
		 * dies with mgmt, so a commit nobody was told about never
		 * lands later (its temp file is removed at the next start) */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(3);
		/* signals as a plain process has them: the parent's loop
		 * watches SIGTERM and SIGINT, and its handlers mean nothing
		 * here (a SIGTERM must end the child) */
		{
			sigset_t all;

			(void)signal(SIGTERM, SIG_DFL);
			(void)signal(SIGINT, SIG_DFL);
			sigfillset(&all);
			(void)sigprocmask(SIG_UNBLOCK, &all, NULL);
		}
		close(fds[0]);
		rv = store_with_meta(m, conf, meta);
		if (write(fds[1], &rv, sizeof(rv)) != (ssize_t)sizeof(rv))
			_exit(2);
		/* reported: now keep the older commits small (1M routes:
		 * ~1 s of CPU, off mgmt's loop and after the commit answered;
		 * killed with mgmt, a crash leaves a loadable file) */
		if (rv == 0)
			(void)mgmt_store_compress(m->store_dir);
		_exit(rv == 0 ? 0 : 1);
	}
	close(fds[1]);
	m->store_pid = pid;
	m->store_conf = mgmt_conf_dup(conf);
	m->store_done = done;
	m->store_arg = arg;
	ev_io_init(&m->store_w, store_child_done, fds[0], EV_READ);
	m->store_w.data = m;
	ev_io_start(m->loop, &m->store_w);
	return (0);
}

static void confirm_expired(struct ev_loop *, ev_timer *, int);

/*
 * The rollback is done (rv 0) or failed: every session is told, and a
 * candidate holding the rolled-back change goes back to running with it,
 * or a plain `commit` would apply the change again (issue 23). Uncommitted
 * edits made since are dropped with it: the notice says so.
 */
static void
rollback_tell(struct mgmt *m, int rv, const struct lc_err *err)
{
	struct mgmt_session *s;
	bool reset;

	LIST_FOREACH(s, &m->sessions, link)
	{
		if (rv != 0) {
			(void)lc_str_addline(s->notices, sizeof(s->notices),
			    "commit confirmed was not confirmed within %u "
			    "minute%s, and rolling it back failed: %s",
			    m->confirm_minutes,
			    m->confirm_minutes == 1 ? "" : "s", err->msg);
			continue;
		}
		reset = s->candidate != NULL &&
		    !mgmt_conf_equal(s->candidate, m->running);
		if (reset) {
			mgmt_conf_assign(s->candidate, m->running);
			mgmt_persist_rebase(m, s, m->running_seq);
		}
		(void)lc_str_addline(s->notices, sizeof(s->notices),
		    "commit confirmed was not confirmed within %u minute%s: "
		    "rolled back to the configuration before it%s",
		    m->confirm_minutes, m->confirm_minutes == 1 ? "" : "s",
		    reset ? "; your candidate was reset to it (uncommitted "
			    "changes discarded)" :
			    "");
	}
}

static void
rollback_done(void *arg, int rv, const struct lc_err *err)
{
	struct mgmt *m = arg;

	if (rv == -EBUSY) {
		/* a commit is in flight: try again shortly */
		ev_timer_set(&m->confirm_timer, 1., 0.);
		ev_timer_start(m->loop, &m->confirm_timer);
		m->confirm_pending = true;
		return;
	}
	if (rv != 0)
		lc_log_err("rollback after commit confirmed: %s", err->msg);
	else
		lc_log_notice("commit confirmed: rolled back");
	rollback_tell(m, rv, err);
	mgmt_conf_free(m->confirm_prev);
	m->confirm_prev = NULL;
}

static void
confirm_expired(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgmt *m = w->data;
	struct mgmt_commit_meta meta;
	char why[128];

	m->confirm_pending = false;
	lc_log_notice(
	    "commit confirmed was not confirmed in time: rolling back");
	snprintf(why, sizeof(why),
	    "commit confirmed was not confirmed within %u minute%s",
	    m->confirm_minutes, m->confirm_minutes == 1 ? "" : "s");
	mgmt_commit_meta_self(&meta, "rollback", "confirm expired", why);
	mgmt_commit_start(m, m->confirm_prev, false, &meta, rollback_done, m);
}

/* Rolls back to prev in after seconds; deadline_ms: when that is. */
static void
confirm_arm_at(struct mgmt *m, struct mgmt_conf *prev, unsigned minutes,
    double after, int64_t deadline_ms)
{
	mgmt_commit_confirm_cancel(m);
	m->confirm_prev = prev;
	m->confirm_pending = true;
	m->confirm_minutes = minutes;
	m->confirm_deadline_ms = deadline_ms;
	ev_timer_init(&m->confirm_timer, confirm_expired,
	    after > 0 ? after : 0., 0.);
	m->confirm_timer.data = m;
	ev_timer_start(m->loop, &m->confirm_timer);
}

void
mgmt_commit_confirm_arm(struct mgmt *m, struct mgmt_conf *prev,
    unsigned minutes)
{
	struct mgmt_commit_meta mm;
	int64_t now = wall_ms();

	/* the deadline stored with the commit (commit 0, just written) is
	 * the one: a tern-mgmt started after this one goes by it too */
	if (mgmt_store_meta(m->store_dir, 0, &mm) == 0 && mm.confirm > 0 &&
	    mm.confirm_deadline_ms > 0)
		confirm_arm_at(m, prev, minutes,
		    (double)(mm.confirm_deadline_ms - now) / 1000.0,
		    mm.confirm_deadline_ms);
	else
		confirm_arm_at(m, prev, minutes, minute_s() * minutes,
		    now + (int64_t)(minute_s() * 1000.0 * minutes));
}

void
mgmt_commit_confirm_resume(struct mgmt *m)
{
	struct mgmt_commit_meta mm, meta;
	struct mgmt_conf *prev;
	struct lc_err err;
	char why[128], when[64];
	int64_t now = wall_ms();
	time_t t;
	struct tm tm;

	if (mgmt_store_meta(m->store_dir, 0, &mm) != 0 || !mm.known ||
	    mm.confirm == 0 || mm.confirm_deadline_ms <= 0)
		return; /* none pending (or an older tern's, which says not
			 * until when) */
	t = (time_t)(mm.confirm_deadline_ms / 1000);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(when, sizeof(when), "?");
	if (mgmt_store_load_seq(m->store_dir, mm.confirm_to, &prev, &err) !=
	    0) {
		lc_log_err("commit confirmed (commit %lu by %s) was pending "
			   "until %s, but what it rolls back to does not load: "
			   "%s; it stays",
		    mm.seq, mm.user, when, err.msg);
		return;
	}
	if (now < mm.confirm_deadline_ms) {
		lc_log_notice(
		    "commit confirmed (commit %lu by %s, %u minute%s) "
		    "is still pending: rolled back at %s unless "
		    "confirmed",
		    mm.seq, mm.user, mm.confirm, mm.confirm == 1 ? "" : "s",
		    when);
		confirm_arm_at(m, prev, mm.confirm,
		    (double)(mm.confirm_deadline_ms - now) / 1000.0,
		    mm.confirm_deadline_ms);
		return;
	}
	/* its time passed while no tern-mgmt ran: the rollback now, before
	 * any component connects (each gets the rolled-back running config
	 * in full when it does) */
	lc_log_notice("commit confirmed (commit %lu by %s, %u minute%s) was "
		      "not confirmed by %s (tern-mgmt was not running then): "
		      "rolling back to commit %lu",
	    mm.seq, mm.user, mm.confirm, mm.confirm == 1 ? "" : "s", when,
	    mm.confirm_to);
	snprintf(why, sizeof(why),
	    "commit confirmed was not confirmed within %u minute%s", mm.confirm,
	    mm.confirm == 1 ? "" : "s");
	mgmt_commit_meta_self(&meta, "rollback", "confirm expired", why);
	m->confirm_minutes = mm.confirm;
	if (mgmt_commit_local(m, prev, &meta, &err) != 0) {
		lc_log_err("rollback after commit confirmed: %s (tried again "
			   "at the next start)",
		    err.msg);
		rollback_tell(m, -EIO, &err);
	} else {
		lc_log_notice("commit confirmed: rolled back");
		rollback_tell(m, 0, NULL);
	}
	mgmt_conf_free(prev);
}

void
mgmt_commit_confirm_cancel(struct mgmt *m)
{
	if (!m->confirm_pending)
		return;
	ev_timer_stop(m->loop, &m->confirm_timer);
	m->confirm_pending = false;
	m->confirm_deadline_ms = 0;
	mgmt_conf_free(m->confirm_prev);
	m->confirm_prev = NULL;
	lc_log_info("commit confirmed: confirmed");
}

void
mgmt_commit_fini(struct mgmt *m)
{
	if (m->store_pid != 0) {
		/* let the write finish: it is atomic, but it is the commit */
		int st;

		ev_io_stop(m->loop, &m->store_w);
		close(m->store_w.fd);
		while (waitpid(m->store_pid, &st, 0) < 0 && errno == EINTR)
			;
		m->store_pid = 0;
		mgmt_conf_free(m->store_conf);
		m->store_conf = NULL;
	}
	/* compressing an older commit: stop it (its temp file goes at the
	 * next commit) */
	gz_stop(m);
	if (m->confirm_pending) {
		ev_timer_stop(m->loop, &m->confirm_timer);
		m->confirm_pending = false;
	}
	if (m->confirm_prev != NULL) {
		mgmt_conf_free(m->confirm_prev);
		m->confirm_prev = NULL;
	}
}
