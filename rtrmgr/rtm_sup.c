/* rtrmgr/rtm_sup.c: the supervisor state machine: boot order, exit detection
 * through pidfds, backoff and failure limit, health, stop/start/restart,
 * re-adoption, ordered shutdown. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"
#include "rtm_int.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

enum rtm_phase { PH_NEW, PH_BOOT, PH_UP, PH_SHUTDOWN, PH_DOWN };

struct rtm_comp {
	struct rtm *rtm;
	const struct rtm_comp_cfg *cfg;
	enum rtm_state state;
	pid_t pid;
	int pidfd;
	bool adopted;	/* not our child: no exit status */
	bool boot_done; /* handled by the boot sequence */
	bool restart_after_stop;
	bool hung;     /* killed by us for a failed health */
	bool held;     /* stopped by request: not started at boot */
	bool in_use;   /* this slot holds a component */
	bool gone;     /* removed by a reload: stopping, then dropped */
	bool answered; /* a health check succeeded since its start */
	uint64_t generation, prev_generation;
	uint64_t starttime;   /* /proc starttime, for re-adoption */
	uint64_t started_ms;  /* realtime */
	double started_at;    /* ev_now */
	unsigned consecutive; /* failures since the last stable run */
	unsigned restarts;
	int last_exit;
	uint64_t backoff_ms;
	char last_error[RTM_ERR_MAX];
	/* how the last instance that ended did: kept across the restarts
	 * that clear last_exit and last_error, so `show processes` can still
	 * say why a component died once it is back (issue 23) */
	int end_exit;
	uint64_t end_ms; /* realtime; 0: none has ended */
	uint64_t end_generation;
	char end_reason[RTM_ERR_MAX];
	struct rtm_failwin fw;
	ev_io io;	/* pidfd readable: the process ended */
	ev_timer timer; /* backoff, stop grace, start timeout */
	ev_timer htick; /* health interval */
	ev_timer hto;	/* health answer timeout */
	uint64_t htoken;
	bool hpending;
	unsigned hfails;
	struct rtm_fds fds; /* kept across its restarts (rtm_fdstore.c) */
};

/* A reload may remove every component while adding as many. */
#define RTM_SLOTS (2 * RTM_COMP_MAX)

struct rtm {
	struct ev_loop *loop;
	struct rtm_config *cfg;
	/* the settings of the components a reload removed, until they have
	   stopped (their cfg points into it) */
	struct rtm_config *old_cfg;
	char rundir[RTM_RUNDIR_MAX];
	char log_level[16];
	bool log_level_opt;		   /* --log-level: a reload keeps it */
	struct rtm_comp slot[RTM_SLOTS];   /* storage: the pointers stay */
	struct rtm_comp *comps[RTM_SLOTS]; /* config order, then the gone */
	unsigned n;			   /* in the config: comps[0..n) */
	unsigned ngone;			   /* removed, stopping: after them */
	struct rtm_ident ident;
	gid_t op_gid, adm_gid; /* operator-group, admin-group; -1: none */
	int lockfd;
	enum rtm_phase phase;
	unsigned boot_next;
	bool in_boot;
	int shut_next;
	bool in_shut;
	void (*done)(void *);
	void *done_arg;
	rtm_event_fn *ev_fn;
	void *ev_arg;
	rtm_health_fn *h_fn;
	void *h_arg;
	rtm_change_fn *ch_fn;
	void *ch_arg;
	ev_async keepalive; /* keeps ev_run alive while supervising */
};

static void comp_launch(struct rtm_comp *);
static void comp_terminate(struct rtm_comp *);
static void changed(struct rtm *);
static void gone_drop(struct rtm_comp *);

static void
keepalive_cb(struct ev_loop *loop, ev_async *w, int revents)
{
}

static void boot_continue(struct rtm *);
static void shut_continue(struct rtm *);

const char *
rtm_state_name(enum rtm_state s)
{
	switch (s) {
	case RTM_STOPPED:
		return ("stopped");
	case RTM_STARTING:
		return ("starting");
	case RTM_RUNNING:
		return ("running");
	case RTM_STOPPING:
		return ("stopping");
	case RTM_BACKOFF:
		return ("backoff");
	case RTM_FAILED:
		return ("failed");
	}
	return ("unknown");
}

static uint64_t
now_ms(const struct rtm *rtm)
{
	return ((uint64_t)(ev_now(rtm->loop) * 1000.0));
}

static void
state_save(struct rtm *rtm)
{
	struct rtm_state_rec recs[RTM_SLOTS];
	int rv;

	memset(recs, 0, sizeof(recs));
	for (unsigned i = 0; i < rtm->n + rtm->ngone; i++) {
		struct rtm_comp *c = rtm->comps[i];

		snprintf(recs[i].name, sizeof(recs[i].name), "%s",
		    c->cfg->name);
		recs[i].generation = c->generation;
		recs[i].held = c->held;
		if (c->pid > 0) {
			recs[i].pid = c->pid;
			recs[i].starttime = c->starttime;
			recs[i].started_ms = c->started_ms;
		}
		snprintf(recs[i].binary, sizeof(recs[i].binary), "%s",
		    c->cfg->binary);
	}
	if ((rv = rtm_state_write(rtm->rundir, recs, rtm->n + rtm->ngone)) != 0)
		lc_log_warnx("cannot write %s/rtrmgr.state: %s (re-adoption "
			     "after a crash of rtrmgr may miss components)",
		    rtm->rundir, strerror(-rv));
}

/* Tells the change callback that rtm_overall() may say something else. */
static void
changed(struct rtm *rtm)
{
	if (rtm->ch_fn != NULL)
		rtm->ch_fn(rtm, rtm->ch_arg);
}

static void
set_state(struct rtm_comp *c, enum rtm_state s, int exit_code)
{
	struct rtm *rtm = c->rtm;
	struct rtm_event ev;
	enum rtm_state old = c->state;

	c->state = s;
	if (rtm->ev_fn != NULL) {
		memset(&ev, 0, sizeof(ev));
		ev.name = c->cfg->name;
		ev.state = s;
		ev.old_state = old;
		ev.pid = c->pid;
		ev.generation = c->generation;
		ev.prev_generation = c->prev_generation;
		ev.exit = exit_code;
		rtm->ev_fn(&ev, rtm->ev_arg);
	}
	if (rtm->phase == PH_BOOT)
		boot_continue(rtm);
	else if (rtm->phase == PH_SHUTDOWN)
		shut_continue(rtm);
	changed(rtm);
}

static bool
health_on(const struct rtm_comp *c)
{
	return (c->rtm->h_fn != NULL && c->cfg->health &&
	    c->rtm->cfg->health_kind != RTM_HEALTH_NONE);
}

static void
health_stop(struct rtm_comp *c)
{
	ev_timer_stop(c->rtm->loop, &c->htick);
	ev_timer_stop(c->rtm->loop, &c->hto);
	c->hpending = false;
	c->hfails = 0;
}

/* A process is gone for good: release its watchers. */
static void
proc_release(struct rtm_comp *c)
{
	ev_io_stop(c->rtm->loop, &c->io);
	ev_timer_stop(c->rtm->loop, &c->timer);
	health_stop(c);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	c->pid = 0;
	c->starttime = 0;
	c->adopted = false;
	c->hung = false;
}

static void
proc_signal(struct rtm_comp *c, int sig)
{
	/* Through the pidfd: never a recycled pid. */
	if (c->pidfd >= 0 && pidfd_send_signal(c->pidfd, sig, NULL, 0) != 0 &&
	    errno != ESRCH)
		lc_log_warn("%s: cannot send signal %d to pid %d", c->cfg->name,
		    sig, (int)c->pid);
}

/* Kills a hung component; its exit then counts as a failure. */
static void
comp_hung(struct rtm_comp *c, const char *why)
{
	snprintf(c->last_error, sizeof(c->last_error), "hung: %s", why);
	lc_log_err("%s: pid %d generation %" PRIu64 " is hung (%s): SIGKILL",
	    c->cfg->name, (int)c->pid, c->generation, why);
	c->hung = true;
	health_stop(c);
	ev_timer_stop(c->rtm->loop, &c->timer);
	proc_signal(c, SIGKILL);
}

static void
health_fail(struct rtm_comp *c, const char *why)
{
	const struct rtm_config *cfg = c->rtm->cfg;
	char buf[128];

	/* A starting component may not answer yet: start-timeout covers it. */
	if (c->state != RTM_RUNNING)
		return;
	c->hfails++;
	lc_log_warnx("%s: health check %s (%u of %u)", c->cfg->name, why,
	    c->hfails, cfg->health_failures);
	if (c->hfails >= cfg->health_failures) {
		snprintf(buf, sizeof(buf),
		    "%u health checks failed in a row, "
		    "last: %s",
		    c->hfails, why);
		comp_hung(c, buf);
	}
}

static void
health_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rtm_comp *c = w->data;
	char why[64];

	c->hpending = false;
	snprintf(why, sizeof(why), "got no answer in %u ms",
	    c->rtm->cfg->health_timeout_ms);
	health_fail(c, why);
}

static void
health_tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rtm_comp *c = w->data;
	struct rtm *rtm = c->rtm;

	if (c->hpending || rtm->h_fn == NULL)
		return;
	c->hpending = true;
	c->htoken++;
	ev_timer_set(&c->hto, rtm->cfg->health_timeout_ms / 1000.0, 0.);
	ev_timer_start(loop, &c->hto);
	/* May answer at once (rtm_health_done from inside). */
	rtm->h_fn(c, c->htoken, rtm->h_arg);
}

void
rtm_health_done(struct rtm_comp *c, uint64_t token, bool ok)
{
	if (!c->hpending || token != c->htoken || c->pid == 0)
		return;
	c->hpending = false;
	ev_timer_stop(c->rtm->loop, &c->hto);
	if (!ok) {
		health_fail(c, "failed");
		return;
	}
	c->hfails = 0;
	if (!c->answered) {
		c->answered = true;
		if (c->state != RTM_STARTING)
			changed(c->rtm); /* an adopted one: now it answers */
	}
	if (c->state == RTM_STARTING) {
		double iv = c->rtm->cfg->health_interval_ms / 1000.0;

		ev_timer_stop(c->rtm->loop, &c->timer);
		lc_log_info("%s: running (pid %d generation %" PRIu64 ")",
		    c->cfg->name, (int)c->pid, c->generation);
		set_state(c, RTM_RUNNING, RTM_EXIT_NONE);
		ev_timer_stop(c->rtm->loop, &c->htick);
		ev_timer_set(&c->htick, iv, iv);
		ev_timer_start(c->rtm->loop, &c->htick);
	}
}

void
rtm_health_file(struct rtm_comp *c, uint64_t token, void *arg)
{
	char path[PATH_MAX];
	struct stat sb;
	uint64_t mtime_ms, now = lc_time_real_ns() / LC_NS_PER_MSEC;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/%s.alive", c->rtm->rundir,
	    c->cfg->name);
	if (stat(path, &sb) == 0) {
		mtime_ms = (uint64_t)sb.st_mtim.tv_sec * 1000 +
		    (uint64_t)sb.st_mtim.tv_nsec / 1000000;
		ok = mtime_ms + c->rtm->cfg->health_interval_ms >= now;
	}
	rtm_health_done(c, token, ok);
}

#define RTM_STARTING_CHECK_S 0.05 /* health checks while starting */

static void
health_start(struct rtm_comp *c)
{
	double iv = c->rtm->cfg->health_interval_ms / 1000.0;

	c->hfails = 0;
	c->hpending = false;
	if (!health_on(c))
		return;
	/* Ask often while it starts, so the next component starts as soon
	 * as this one answers; the normal interval once it runs. */
	if (c->state == RTM_STARTING && iv > RTM_STARTING_CHECK_S)
		iv = RTM_STARTING_CHECK_S;
	/* An adopted one is asked soon too: readiness waits for its answer. */
	ev_timer_set(&c->htick,
	    !c->answered && iv > RTM_STARTING_CHECK_S ? RTM_STARTING_CHECK_S :
							iv,
	    iv);
	ev_timer_start(c->rtm->loop, &c->htick);
}

static void
backoff_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rtm_comp *c = w->data;

	if (c->state == RTM_BACKOFF)
		comp_launch(c);
}

/* An unexpected end (exit, crash, hang, exec failure): back off or give up. */
static void
comp_failure(struct rtm_comp *c, int exit_code, double uptime)
{
	struct rtm *rtm = c->rtm;
	const struct rtm_config *cfg = rtm->cfg;

	c->last_exit = exit_code;
	if (rtm->phase == PH_SHUTDOWN || rtm->phase == PH_DOWN) {
		set_state(c, RTM_STOPPED, exit_code);
		return;
	}
	c->restarts++;
	if (uptime * 1000.0 >= cfg->stable_ms)
		c->consecutive = 0; /* it had been stable: start over */
	c->consecutive++;
	if (rtm_failwin_add(&c->fw, now_ms(rtm), cfg->failure_limit,
		cfg->failure_window_ms)) {
		char prev[RTM_ERR_MAX];

		snprintf(prev, sizeof(prev), "%s", c->last_error);
		snprintf(c->last_error, sizeof(c->last_error),
		    "%u failures in %u ms%s%.180s", cfg->failure_limit,
		    cfg->failure_window_ms, prev[0] ? "; last: " : "", prev);
		c->backoff_ms = 0;
		lc_log_err("%s: %s: marked failed, not restarting (start it "
			   "again with `restart %s`)",
		    c->cfg->name, c->last_error, c->cfg->name);
		set_state(c, RTM_FAILED, exit_code);
		return;
	}
	c->backoff_ms = rtm_backoff_delay_ms(cfg->backoff_initial_ms,
	    cfg->backoff_max_ms, c->consecutive);
	lc_log_notice("%s: restart %u in %" PRIu64 " ms", c->cfg->name,
	    c->consecutive, c->backoff_ms);
	/* Count the delay from now, not from the start of this loop turn
	 * (waitid, the log and the state file took some time). */
	ev_now_update(rtm->loop);
	ev_timer_set(&c->timer, c->backoff_ms / 1000.0, 0.);
	ev_set_cb(&c->timer, backoff_cb);
	ev_timer_start(rtm->loop, &c->timer);
	set_state(c, RTM_BACKOFF, exit_code);
}

static void
exit_str(int code, char *buf, size_t len)
{
	if (code == RTM_EXIT_UNKNOWN)
		snprintf(buf, len, "ended (status unknown: adopted)");
	else if (code < 0)
		snprintf(buf, len, "killed by signal %d (%s)", -code,
		    strsignal(-code));
	else
		snprintf(buf, len, "exited with status %d", code);
}

/*
 * Remembers how this instance ended, for after the next start: the exit
 * (code or -signal), and a reason: how, behind what made us kill it (a
 * hang) or that it was asked to stop.
 */
static void __attribute__((format(printf, 3, 4)))
end_note(struct rtm_comp *c, int code, const char *fmt, ...)
{
	va_list ap;

	c->end_exit = code;
	c->end_ms = lc_time_real_ns() / LC_NS_PER_MSEC;
	c->end_generation = c->generation;
	va_start(ap, fmt);
	vsnprintf(c->end_reason, sizeof(c->end_reason), fmt, ap);
	va_end(ap);
}

static void
comp_ended(struct rtm_comp *c, int code, const char *how)
{
	if (c->state == RTM_STOPPING)
		end_note(c, code, "stopped on request: %s", how);
	else if (c->hung)
		end_note(c, code, "%.200s; %s", c->last_error, how);
	else
		end_note(c, code, "%s", how);
}

static void
pidfd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct rtm_comp *c = w->data;
	double uptime = ev_now(loop) - c->started_at;
	int code = RTM_EXIT_UNKNOWN;
	siginfo_t si;
	char how[96];

	memset(&si, 0, sizeof(si));
	if (!c->adopted) {
		if (waitid(P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG) !=
		    0) {
			lc_log_warn("%s: waitid", c->cfg->name);
		} else if (si.si_pid == 0) {
			return; /* spurious: not yet */
		} else if (si.si_code == CLD_EXITED) {
			code = si.si_status;
		} else {
			code = -si.si_status;
		}
	}
	exit_str(code, how, sizeof(how));
	lc_log(c->state == RTM_STOPPING ? LC_LOG_INFO : LC_LOG_WARNING,
	    "%s: pid %d generation %" PRIu64 " %s after %.3f s", c->cfg->name,
	    (int)c->pid, c->generation, how, uptime);
	comp_ended(c, code, how); /* before proc_release clears hung */
	rtm_fds_ended(&c->fds, loop, c->state != RTM_STOPPING,
	    uptime * 1000.0 >= c->rtm->cfg->stable_ms);
	proc_release(c);
	c->last_exit = code;
	if (c->state == RTM_STOPPING) {
		if (c->restart_after_stop && c->rtm->phase != PH_SHUTDOWN) {
			c->restart_after_stop = false;
			comp_launch(c);
		} else {
			c->restart_after_stop = false;
			state_save(c->rtm);
			set_state(c, RTM_STOPPED, code);
			if (c->gone)
				gone_drop(c);
		}
		return;
	}
	if (c->last_error[0] == '\0' || strncmp(c->last_error, "hung", 4) != 0)
		snprintf(c->last_error, sizeof(c->last_error), "%s", how);
	state_save(c->rtm);
	comp_failure(c, code, uptime);
}

static void
start_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rtm_comp *c = w->data;
	char why[80];

	if (c->state != RTM_STARTING)
		return;
	snprintf(why, sizeof(why), "not ready after %u ms",
	    c->rtm->cfg->start_timeout_ms);
	comp_hung(c, why);
}

static void
grace_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rtm_comp *c = w->data;

	if (c->state != RTM_STOPPING)
		return;
	lc_log_warnx("%s: pid %d still there after the grace: SIGKILL",
	    c->cfg->name, (int)c->pid);
	proc_signal(c, SIGKILL);
}

/*
 * A component that a reload removed has stopped: out of the list and the
 * state file; the old config goes with the last of them. Not during the
 * shutdown, which walks the list by index.
 */
static void
gone_drop(struct rtm_comp *c)
{
	struct rtm *rtm = c->rtm;
	unsigned i, total = rtm->n + rtm->ngone;

	if (rtm->phase == PH_SHUTDOWN || rtm->phase == PH_DOWN)
		return;
	for (i = rtm->n; i < total && rtm->comps[i] != c; i++)
		;
	if (i == total)
		return;
	lc_log_notice("%s: stopped and removed (no longer in the config)",
	    c->cfg->name);
	rtm_fds_discard(&c->fds, "no longer in the config");
	memmove(&rtm->comps[i], &rtm->comps[i + 1],
	    (total - i - 1) * sizeof(rtm->comps[0]));
	rtm->ngone--;
	c->in_use = false;
	c->cfg = NULL;
	if (rtm->ngone == 0) {
		rtm_config_free(rtm->old_cfg);
		rtm->old_cfg = NULL;
	}
	state_save(rtm);
	changed(rtm);
}

static void
comp_launch(struct rtm_comp *c)
{
	struct rtm *rtm = c->rtm;
	const struct rtm_comp_cfg *cc = c->cfg;
	const char *argv[RTM_ARGS_MAX + 8];
	char gen[24], path[PATH_MAX];
	struct lc_err err;
	char env_c[64], env_r[PATH_MAX + 16], env_g[48], env_o[48], env_a[48];
	const char *envp[6];
	struct rtm_ident id = rtm->ident;
	bool front = strcmp(cc->name, "mgmt") == 0;
	struct rtm_spawn sp;
	unsigned a = 0;
	int outfd = -1, rv, pidfd, chfd = -1;
	pid_t pid;

	ev_timer_stop(rtm->loop, &c->timer);
	c->prev_generation = c->generation;
	c->generation++;
	c->hung = false;
	c->answered = false;
	c->last_error[0] = '\0';
	snprintf(gen, sizeof(gen), "%" PRIu64, c->generation);
	argv[a++] = cc->binary;
	for (unsigned i = 0; i < cc->nargs; i++)
		argv[a++] = cc->args[i];
	argv[a++] = "--rundir";
	argv[a++] = rtm->rundir;
	argv[a++] = "--generation";
	argv[a++] = gen;
	argv[a++] = "--log-level";
	argv[a++] = rtm->log_level;
	argv[a] = NULL;
	snprintf(env_c, sizeof(env_c), "TERN_COMPONENT=%s", cc->name);
	snprintf(env_r, sizeof(env_r), "TERN_RUNDIR=%s", rtm->rundir);
	snprintf(env_g, sizeof(env_g), "TERN_GENERATION=%s", gen);
	/*
	 * Who may use the sockets (docs/ipc.md, "Roles"): libtern-ipc gives
	 * every -ro socket the operator group and mgmt.sock the admin group.
	 * Always set (empty: none), so that rtrmgr's own environment never
	 * decides it. The admin group goes to mgmt only: it alone serves
	 * people on its read-write socket.
	 */
	snprintf(env_o, sizeof(env_o), "TERN_OPERATOR_GROUP=");
	snprintf(env_a, sizeof(env_a), "TERN_ADMIN_GROUP=");
	if (rtm->op_gid != (gid_t)-1)
		snprintf(env_o, sizeof(env_o), "TERN_OPERATOR_GROUP=%u",
		    (unsigned)rtm->op_gid);
	if (front && rtm->adm_gid != (gid_t)-1)
		snprintf(env_a, sizeof(env_a), "TERN_ADMIN_GROUP=%u",
		    (unsigned)rtm->adm_gid);
	envp[0] = env_c;
	envp[1] = env_r;
	envp[2] = env_g;
	envp[3] = env_o;
	envp[4] = env_a;
	envp[5] = NULL;
	/* chown(2) lets the component give its sockets only to its own
	 * groups: it gets these two (and no other) as supplementary ones. */
	id.ngroups = 0;
	if (rtm->op_gid != (gid_t)-1 && rtm->op_gid != id.gid)
		id.groups[id.ngroups++] = rtm->op_gid;
	if (front && rtm->adm_gid != (gid_t)-1 && rtm->adm_gid != id.gid &&
	    rtm->adm_gid != rtm->op_gid)
		id.groups[id.ngroups++] = rtm->adm_gid;

	if (rtm->cfg->output == RTM_OUT_FILE) {
		snprintf(path, sizeof(path), "%s/%s.log", rtm->rundir,
		    cc->name);
		outfd = open(path,
		    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
		    0640);
		if (outfd < 0)
			lc_log_warn("%s: cannot open %s, output goes to "
				    "rtrmgr's",
			    cc->name, path);
		/* the components' group may read it (0640): tern-mgmt's
		 * show log and monitor log */
		else if (rtm->ident.drop &&
		    fchown(outfd, (uid_t)-1, rtm->ident.gid) != 0)
			lc_log_warn("%s: cannot give %s to group %u", cc->name,
			    path, (unsigned)rtm->ident.gid);
	}
	memset(&sp, 0, sizeof(sp));
	sp.binary = cc->binary;
	sp.argv = argv;
	sp.envp_extra = envp;
	sp.out_fd = outfd;
	sp.ident = (rtm->ident.drop && !cc->priv_root) ? &id : NULL;
	sp.caps = cc->caps;
	sp.ncaps = cc->ncaps;
	/* its channel to the fd store; without one it starts as before, with
	 * nothing kept for it this time */
	if ((rv = rtm_fds_channel(&c->fds, &chfd)) != 0)
		lc_log_warnx("%s: no state channel: %s", cc->name,
		    strerror(-rv));
	sp.state_fd = chfd;
	rv = rtm_spawn(&sp, &pid, &pidfd, &err);
	if (outfd >= 0)
		close(outfd);
	if (chfd >= 0)
		close(chfd);
	c->started_at = ev_now(rtm->loop);
	if (rv != 0) {
		snprintf(c->last_error, sizeof(c->last_error), "%s", err.msg);
		lc_log_err("%s: cannot start: %s", cc->name, err.msg);
		end_note(c, 127, "cannot start: %.200s", err.msg);
		rtm_fds_abandon(&c->fds);
		state_save(rtm);
		comp_failure(c, 127, 0);
		return;
	}
	c->pid = pid;
	c->pidfd = pidfd;
	c->adopted = false;
	c->starttime = rtm_proc_starttime(pid);
	c->started_ms = lc_time_real_ns() / LC_NS_PER_MSEC;
	c->last_exit = RTM_EXIT_NONE;
	c->backoff_ms = 0;
	ev_io_set(&c->io, pidfd, EV_READ);
	ev_io_start(rtm->loop, &c->io);
	if (chfd >= 0)
		(void)rtm_fds_handover(&c->fds, rtm->loop);
	lc_log_info("%s: started pid %d generation %" PRIu64, cc->name,
	    (int)pid, c->generation);
	state_save(rtm);
	health_start(c);
	if (health_on(c)) {
		ev_timer_set(&c->timer, rtm->cfg->start_timeout_ms / 1000.0,
		    0.);
		ev_set_cb(&c->timer, start_timeout_cb);
		ev_timer_start(rtm->loop, &c->timer);
		set_state(c, RTM_STARTING, RTM_EXIT_NONE);
	} else {
		set_state(c, RTM_STARTING, RTM_EXIT_NONE);
		/* set_state may have run a boot step; still ours? */
		if (c->state == RTM_STARTING && c->pid == pid)
			set_state(c, RTM_RUNNING, RTM_EXIT_NONE);
	}
}

/* SIGTERM now, SIGKILL after the grace. */
static void
comp_terminate(struct rtm_comp *c)
{
	struct rtm *rtm = c->rtm;
	uint32_t grace = c->cfg->stop_grace_ms ? c->cfg->stop_grace_ms :
						 rtm->cfg->stop_grace_ms;

	health_stop(c);
	ev_timer_stop(rtm->loop, &c->timer);
	lc_log_info("%s: stopping pid %d (SIGTERM, SIGKILL after %u ms)",
	    c->cfg->name, (int)c->pid, grace);
	proc_signal(c, SIGTERM);
	/* The grace counts from the signal, not from the loop turn's start
	 * (an API call may come long after it). */
	ev_now_update(rtm->loop);
	ev_timer_set(&c->timer, grace / 1000.0, 0.);
	ev_set_cb(&c->timer, grace_cb);
	ev_timer_start(rtm->loop, &c->timer);
	set_state(c, RTM_STOPPING, RTM_EXIT_NONE);
}

static void
boot_continue(struct rtm *rtm)
{
	if (rtm->in_boot)
		return;
	rtm->in_boot = true;
	while (rtm->phase == PH_BOOT && rtm->boot_next < rtm->n) {
		struct rtm_comp *c = rtm->comps[rtm->boot_next];

		if (!c->boot_done) {
			c->boot_done = true;
			if (c->state == RTM_STOPPED)
				comp_launch(c);
		}
		/* The next one starts when this one is ready (or gave up). */
		if (c->state == RTM_STARTING)
			break;
		rtm->boot_next++;
	}
	if (rtm->phase == PH_BOOT && rtm->boot_next == rtm->n) {
		rtm->phase = PH_UP;
		lc_log_notice("boot sequence done (%u components)", rtm->n);
	}
	rtm->in_boot = false;
}

static void
shut_continue(struct rtm *rtm)
{
	if (rtm->in_shut || rtm->phase != PH_SHUTDOWN)
		return;
	rtm->in_shut = true;
	while (rtm->shut_next >= 0) {
		struct rtm_comp *c = rtm->comps[rtm->shut_next];

		c->restart_after_stop = false;
		if (c->state == RTM_STARTING || c->state == RTM_RUNNING) {
			comp_terminate(c);
			break;
		}
		if (c->state == RTM_STOPPING)
			break;
		if (c->state == RTM_BACKOFF) {
			ev_timer_stop(rtm->loop, &c->timer);
			set_state(c, RTM_STOPPED, c->last_exit);
		}
		rtm->shut_next--;
	}
	rtm->in_shut = false;
	if (rtm->shut_next < 0) {
		rtm->phase = PH_DOWN;
		state_save(rtm);
		ev_async_stop(rtm->loop, &rtm->keepalive);
		lc_log_notice("all components stopped");
		if (rtm->done != NULL)
			rtm->done(rtm->done_arg);
	}
}

void
rtm_shutdown(struct rtm *rtm, void (*done)(void *), void *arg)
{
	if (rtm->phase == PH_SHUTDOWN || rtm->phase == PH_DOWN)
		return;
	lc_log_notice("shutting down: stopping components in reverse order");
	rtm->done = done;
	rtm->done_arg = arg;
	rtm->phase = PH_SHUTDOWN;
	rtm->shut_next = (int)(rtm->n + rtm->ngone) - 1;
	shut_continue(rtm);
	changed(rtm);
}

bool
rtm_is_down(const struct rtm *rtm)
{
	return (rtm->phase == PH_DOWN);
}

/* ---- one component, by name
 * ---------------------------------------------------- */

struct rtm_fds *
rtm_comp_fds(struct rtm *rtm, const char *name)
{
	for (unsigned i = 0; i < rtm->n; i++)
		if (strcmp(rtm->comps[i]->cfg->name, name) == 0)
			return (&rtm->comps[i]->fds);
	return (NULL);
}

struct rtm_comp *
rtm_comp_find(struct rtm *rtm, const char *name)
{
	/* the ones a reload removed too, while they stop */
	for (unsigned i = 0; i < rtm->n + rtm->ngone; i++)
		if (strcmp(rtm->comps[i]->cfg->name, name) == 0)
			return (rtm->comps[i]);
	return (NULL);
}

static int
comp_lookup(struct rtm *rtm, const char *name, struct rtm_comp **cp)
{
	if ((*cp = rtm_comp_find(rtm, name)) == NULL || (*cp)->gone)
		return (-ENOENT); /* removed by a reload: going */
	if (rtm->phase == PH_SHUTDOWN || rtm->phase == PH_DOWN ||
	    rtm->phase == PH_NEW)
		return (-ESHUTDOWN);
	return (0);
}

int
rtm_comp_start(struct rtm *rtm, const char *name)
{
	struct rtm_comp *c;
	int rv;

	if ((rv = comp_lookup(rtm, name, &c)) != 0)
		return (rv);
	switch (c->state) {
	case RTM_STARTING:
	case RTM_RUNNING:
		return (-EALREADY);
	case RTM_STOPPING:
		return (-EBUSY);
	default:
		break;
	}
	/* An operator's start forgives the past. */
	c->held = false;
	rtm_failwin_reset(&c->fw);
	c->consecutive = 0;
	lc_log_notice("%s: start requested", name);
	comp_launch(c);
	return (0);
}

int
rtm_comp_stop(struct rtm *rtm, const char *name)
{
	struct rtm_comp *c;
	int rv;

	if ((rv = comp_lookup(rtm, name, &c)) != 0)
		return (rv);
	lc_log_notice("%s: stop requested", name);
	if (c->state == RTM_STOPPED || c->state == RTM_FAILED)
		return (-EALREADY);
	c->held = true; /* a new rtrmgr leaves it stopped too */
	switch (c->state) {
	case RTM_STOPPING:
		c->restart_after_stop = false;
		return (0);
	case RTM_BACKOFF:
		ev_timer_stop(rtm->loop, &c->timer);
		state_save(rtm);
		set_state(c, RTM_STOPPED, c->last_exit);
		return (0);
	default:
		c->restart_after_stop = false;
		comp_terminate(c);
		return (0);
	}
}

int
rtm_comp_restart(struct rtm *rtm, const char *name)
{
	struct rtm_comp *c;
	int rv;

	if ((rv = comp_lookup(rtm, name, &c)) != 0)
		return (rv);
	lc_log_notice("%s: restart requested", name);
	if (c->state == RTM_STOPPING)
		return (-EBUSY);
	c->held = false;
	switch (c->state) {
	case RTM_STARTING:
	case RTM_RUNNING:
		c->restart_after_stop = true;
		comp_terminate(c);
		return (0);
	default:
		rtm_failwin_reset(&c->fw);
		c->consecutive = 0;
		comp_launch(c);
		return (0);
	}
}

int
rtm_comp_ready(struct rtm *rtm, const char *name, pid_t pid,
    uint64_t generation)
{
	struct rtm_comp *c = rtm_comp_find(rtm, name);

	if (c == NULL)
		return (-ENOENT);
	if (c->pid == 0 || c->pid != pid || c->generation != generation)
		return (-ESTALE);
	if (c->state == RTM_STARTING) {
		ev_timer_stop(rtm->loop, &c->timer);
		lc_log_info("%s: ready (pid %d generation %" PRIu64 ")", name,
		    (int)pid, generation);
		set_state(c, RTM_RUNNING, RTM_EXIT_NONE);
	}
	return (0);
}

unsigned
rtm_comp_count(const struct rtm *rtm)
{
	return (rtm->n + rtm->ngone);
}

struct rtm_comp *
rtm_comp_at(struct rtm *rtm, unsigned i)
{
	return (i < rtm->n + rtm->ngone ? rtm->comps[i] : NULL);
}

const char *
rtm_comp_name(const struct rtm_comp *c)
{
	return (c->cfg->name);
}

struct rtm *
rtm_comp_rtm(const struct rtm_comp *c)
{
	return (c->rtm);
}

const char *
rtm_rundir(const struct rtm *rtm)
{
	return (rtm->rundir);
}

enum rtm_state
rtm_comp_state(const struct rtm_comp *c)
{
	return (c->state);
}

pid_t
rtm_comp_pid(const struct rtm_comp *c)
{
	return (c->pid);
}

const struct rtm_config *
rtm_config_of(const struct rtm *rtm)
{
	return (rtm->cfg);
}

uid_t
rtm_comp_uid(const struct rtm *rtm)
{
	return (rtm->ident.drop ? rtm->ident.uid : (uid_t)-1);
}

gid_t
rtm_operator_gid(const struct rtm *rtm)
{
	return (rtm->op_gid);
}

void
rtm_comp_get_info(const struct rtm_comp *c, struct rtm_comp_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	ci->name = c->cfg->name;
	ci->state = c->state;
	ci->pid = c->pid;
	ci->generation = c->generation;
	ci->restarts = c->restarts;
	ci->last_exit = c->last_exit;
	if (c->pid > 0)
		ci->uptime_ms =
		    (uint64_t)((ev_now(c->rtm->loop) - c->started_at) * 1000.0);
	ci->backoff_ms = c->state == RTM_BACKOFF ? c->backoff_ms : 0;
	ci->adopted = c->adopted;
	ci->last_error = c->last_error;
	ci->end_exit = c->end_exit;
	ci->end_ms = c->end_ms;
	ci->end_generation = c->end_generation;
	ci->end_reason = c->end_reason;
}

/* A free slot made into a stopped component of cc; NULL when none is left
 * (cannot happen: RTM_SLOTS covers a reload's worst case). */
static struct rtm_comp *
slot_new(struct rtm *rtm, const struct rtm_comp_cfg *cc)
{
	struct rtm_comp *c = NULL;

	for (unsigned i = 0; i < RTM_SLOTS && c == NULL; i++)
		if (!rtm->slot[i].in_use)
			c = &rtm->slot[i];
	if (c == NULL)
		return (NULL);
	memset(c, 0, sizeof(*c));
	c->in_use = true;
	c->rtm = rtm;
	c->cfg = cc;
	c->state = RTM_STOPPED;
	c->pidfd = -1;
	c->last_exit = RTM_EXIT_NONE;
	ev_init(&c->io, pidfd_cb);
	c->io.data = c;
	ev_init(&c->timer, backoff_cb);
	c->timer.data = c;
	ev_init(&c->htick, health_tick_cb);
	c->htick.data = c;
	ev_init(&c->hto, health_timeout_cb);
	c->hto.data = c;
	rtm_fds_init(&c->fds, cc->name);
	return (c);
}

/* ---- life of the supervisor
 * ------------------------------------------------------- */

struct rtm *
rtm_new(struct ev_loop *loop, struct rtm_config *cfg,
    const struct rtm_opts *opts)
{
	const char *rundir, *env;
	struct rtm *rtm;

	if ((rtm = calloc(1, sizeof(*rtm))) == NULL) {
		rtm_config_free(cfg);
		errno = ENOMEM;
		return (NULL);
	}
	rtm->loop = loop;
	rtm->cfg = cfg;
	rtm->lockfd = -1;
	rtm->op_gid = rtm->adm_gid = (gid_t)-1;
	rtm->phase = PH_NEW;
	/* --rundir / $TERN_RUNDIR, then the config, then the default. */
	env = getenv("TERN_RUNDIR");
	if (opts != NULL && opts->rundir != NULL)
		rundir = opts->rundir;
	else if (env != NULL && env[0] != '\0')
		rundir = env;
	else if (cfg->rundir != NULL)
		rundir = cfg->rundir;
	else
		rundir = TERN_RUN_DIR;
	if (strlen(rundir) >= sizeof(rtm->rundir) || rundir[0] != '/') {
		lc_log_err("rundir '%s': must be an absolute path shorter than "
			   "%d bytes (socket paths must fit in sun_path)",
		    rundir, RTM_RUNDIR_MAX);
		rtm_config_free(cfg);
		free(rtm);
		errno = ENAMETOOLONG;
		return (NULL);
	}
	snprintf(rtm->rundir, sizeof(rtm->rundir), "%s", rundir);
	rtm->log_level_opt = opts != NULL && opts->log_level != NULL;
	snprintf(rtm->log_level, sizeof(rtm->log_level), "%s",
	    rtm->log_level_opt ? opts->log_level : cfg->log_level);
	rtm->n = cfg->ncomps;
	for (unsigned i = 0; i < rtm->n; i++)
		rtm->comps[i] = slot_new(rtm, &cfg->comps[i]);
	ev_async_init(&rtm->keepalive, keepalive_cb);
	if (cfg->health_kind == RTM_HEALTH_FILE)
		rtm->h_fn = rtm_health_file;
	return (rtm);
}

void
rtm_set_event_cb(struct rtm *rtm, rtm_event_fn *fn, void *arg)
{
	rtm->ev_fn = fn;
	rtm->ev_arg = arg;
}

void
rtm_set_health(struct rtm *rtm, rtm_health_fn *fn, void *arg)
{
	rtm->h_fn = fn;
	rtm->h_arg = arg;
}

void
rtm_set_change_cb(struct rtm *rtm, rtm_change_fn *fn, void *arg)
{
	rtm->ch_fn = fn;
	rtm->ch_arg = arg;
}

/* What readiness waits for in c, in why; false when nothing. */
static bool
comp_waiting(const struct rtm_comp *c, char *why, size_t len)
{
	const char *n = c->cfg->name;

	if (c->gone) {
		if (c->state == RTM_STOPPED)
			return (false);
		snprintf(why, len, "%s to stop (removed from the config)", n);
		return (true);
	}
	switch (c->state) {
	case RTM_STARTING:
		snprintf(why, len,
		    "%s (starting, pid %d, generation %" PRIu64 ")", n,
		    (int)c->pid, c->generation);
		return (true);
	case RTM_RUNNING:
		if (!health_on(c) || c->answered)
			return (false);
		snprintf(why, len, "%s to answer its health check (pid %d)", n,
		    (int)c->pid);
		return (true);
	case RTM_BACKOFF:
		snprintf(why, len,
		    "%s (restart in %" PRIu64 " ms after: %.120s)", n,
		    c->backoff_ms, c->last_error);
		return (true);
	case RTM_STOPPING:
		if (!c->restart_after_stop)
			return (false); /* stopped by request */
		snprintf(why, len, "%s (restarting)", n);
		return (true);
	case RTM_STOPPED:
		if (c->held || c->boot_done)
			return (false);
		snprintf(why, len, "%s (not started yet)", n);
		return (true);
	default: /* RTM_FAILED: given up, not waited for */
		return (false);
	}
}

enum rtm_overall
rtm_overall(const struct rtm *rtm, char *buf, size_t len)
{
	char why[200], other[200], down[160] = "";
	unsigned up = 0, waiting = 0, total = rtm->n + rtm->ngone;
	size_t dl = 0;

	why[0] = '\0';
	if (rtm->phase == PH_SHUTDOWN || rtm->phase == PH_DOWN) {
		for (int i = (int)total - 1; i >= 0; i--) {
			const struct rtm_comp *c = rtm->comps[i];

			if (c->pid > 0) {
				snprintf(buf, len,
				    "Stopping: waiting for %s (pid %d) to "
				    "stop",
				    c->cfg->name, (int)c->pid);
				return (RTM_OV_STOPPING);
			}
		}
		snprintf(buf, len, "Stopping: all components stopped");
		return (RTM_OV_STOPPING);
	}
	for (unsigned i = 0; i < total; i++) {
		const struct rtm_comp *c = rtm->comps[i];

		if (comp_waiting(c, waiting == 0 ? why : other, sizeof(why))) {
			waiting++;
			continue;
		}
		if (c->gone)
			continue;
		if (c->state == RTM_RUNNING) {
			up++;
		} else if (dl + 2 < sizeof(down)) {
			snprintf(down + dl, sizeof(down) - dl, "%s%s %s",
			    dl ? ", " : "", c->cfg->name,
			    c->state == RTM_FAILED ? "failed" :
						     "stopped on request");
			dl = strlen(down);
		}
	}
	if (rtm->phase == PH_NEW) {
		snprintf(buf, len, "Starting");
		return (RTM_OV_STARTING);
	}
	if (waiting > 0 || rtm->phase != PH_UP) {
		snprintf(buf, len, "Waiting for %s (%u of %u up)", why, up,
		    rtm->n);
		return (RTM_OV_STARTING);
	}
	if (dl == 0)
		snprintf(buf, len, "Running: %u of %u components up", up,
		    rtm->n);
	else
		snprintf(buf, len, "Running: %u of %u components up; %s", up,
		    rtm->n, down);
	return (RTM_OV_UP);
}

/* ---- reload
 * --------------------------------------------------------------------- */

/* A setting that cannot change under a running rtrmgr: the old value
 * stays in force (copied into ncfg), said once. */
static int
keep_str(struct rtm_config *ncfg, const char *key, const char **nv,
    const char *ov, const char *def)
{
	const char *a = *nv != NULL ? *nv : def, *b = ov != NULL ? ov : def;

	if (strcmp(a != NULL ? a : "none", b != NULL ? b : "none") == 0)
		return (0);
	lc_log_warnx("reload: %s changed from %s to %s: applies at the next "
		     "start of tern-rtrmgr (systemctl restart tern); %s is "
		     "kept until then",
	    key, b != NULL ? b : "none", a != NULL ? a : "none",
	    b != NULL ? b : "none");
	if (ov == NULL) {
		*nv = NULL;
		return (0);
	}
	if ((*nv = lc_arena_strdup(ncfg->arena, ov)) == NULL)
		return (-ENOMEM);
	return (0);
}

static bool
same_args(const struct rtm_comp_cfg *a, const struct rtm_comp_cfg *b)
{
	if (a->nargs != b->nargs)
		return (false);
	for (unsigned i = 0; i < a->nargs; i++)
		if (strcmp(a->args[i], b->args[i]) != 0)
			return (false);
	return (true);
}

/* What of a kept component's settings waits for its next start. */
static void
comp_diff(const struct rtm_comp_cfg *o, const struct rtm_comp_cfg *n,
    bool running)
{
	char what[96] = "";

	if (strcmp(o->binary, n->binary) != 0)
		strcat(what, ", binary");
	if (!same_args(o, n))
		strcat(what, ", args");
	if (o->priv_root != n->priv_root)
		strcat(what, ", privileges");
	if (o->ncaps != n->ncaps ||
	    memcmp(o->caps, n->caps, o->ncaps * sizeof(o->caps[0])) != 0)
		strcat(what, ", capabilities");
	if (what[0] != '\0' && running)
		lc_log_notice("reload: %s: %s changed: applies at its next "
			      "start (restart %s to apply it now)",
		    n->name, what + 2, n->name);
}

int
rtm_reload(struct rtm *rtm, struct rtm_config *ncfg, struct lc_err *err)
{
	struct rtm_config *ocfg = rtm->cfg;
	struct rtm_comp *list[RTM_SLOTS], *drop[RTM_COMP_MAX];
	unsigned nl = 0, ng = 0, nd = 0, added = 0, removed = 0;
	bool health_moved;
	int rv;

	lc_err_clear(err);
	if (rtm->phase == PH_NEW || rtm->phase == PH_SHUTDOWN ||
	    rtm->phase == PH_DOWN) {
		rtm_config_free(ncfg);
		return (lc_err_set(err, -ESHUTDOWN, LC_ERR_NOINDEX,
		    "tern-rtrmgr is %s",
		    rtm->phase == PH_NEW ? "not started" : "shutting down"));
	}
	if (rtm->ngone > 0) {
		rv = lc_err_set(err, -EBUSY, LC_ERR_NOINDEX,
		    "the previous reload is still stopping %s: try again "
		    "when it has stopped",
		    rtm->comps[rtm->n]->cfg->name);
		rtm_config_free(ncfg);
		return (rv);
	}
	if ((rv = rtm_config_check(ncfg, NULL, err)) != 0) {
		rtm_config_free(ncfg);
		return (rv);
	}
	/* Fixed while rtrmgr runs: the rundir, the sockets' owners (user and
	 * groups, resolved at rtm_open) and the health checker set up by the
	 * IPC front end. */
	if ((rv = keep_str(ncfg, "rundir", &ncfg->rundir, ocfg->rundir,
		 TERN_RUN_DIR)) != 0 ||
	    (rv = keep_str(ncfg, "user", &ncfg->user, ocfg->user, NULL)) != 0 ||
	    (rv = keep_str(ncfg, "operator-group", &ncfg->operator_group,
		 ocfg->operator_group, NULL)) != 0 ||
	    (rv = keep_str(ncfg, "admin-group", &ncfg->admin_group,
		 ocfg->admin_group, NULL)) != 0) {
		rtm_config_free(ncfg);
		return (lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "reload: out of memory"));
	}
	if (ncfg->health_kind != ocfg->health_kind) {
		static const char *const kinds[] = {"none", "file", "ipc"};

		lc_log_warnx("reload: health-check changed from %s to %s: "
			     "applies at the next start of tern-rtrmgr "
			     "(systemctl restart tern); %s is kept until then",
		    kinds[ocfg->health_kind], kinds[ncfg->health_kind],
		    kinds[ocfg->health_kind]);
		ncfg->health_kind = ocfg->health_kind;
	}
	if (strcmp(ncfg->log_level, ocfg->log_level) != 0 ||
	    ncfg->output != ocfg->output ||
	    ncfg->start_timeout_ms != ocfg->start_timeout_ms)
		lc_log_notice("reload: log-level, output and start-timeout "
			      "apply to each component at its next start");

	/* The new order; what is gone. Nothing changes before this is done. */
	for (unsigned j = 0; j < ncfg->ncomps; j++) {
		struct rtm_comp *c = rtm_comp_find(rtm, ncfg->comps[j].name);

		if (c == NULL) {
			c = slot_new(rtm, &ncfg->comps[j]);
			c->boot_done = false;
			added++;
		}
		list[nl++] = c;
	}
	for (unsigned i = 0; i < rtm->n; i++) {
		struct rtm_comp *c = rtm->comps[i];
		bool kept = false;

		for (unsigned j = 0; j < nl && !kept; j++)
			kept = list[j] == c;
		if (kept)
			continue;
		removed++;
		if (c->pid > 0) {
			c->gone = true;
			c->held = false;
			c->restart_after_stop = false;
			list[nl + ng++] = c;
		} else {
			drop[nd++] = c;
		}
	}
	/* Removed ones that are not running: forgotten (a pending restart
	 * cancelled, while it is still in the list for the event). */
	for (unsigned i = 0; i < nd; i++) {
		struct rtm_comp *c = drop[i];

		lc_log_notice("%s: removed from the config", c->cfg->name);
		if (c->state == RTM_BACKOFF) {
			ev_timer_stop(rtm->loop, &c->timer);
			set_state(c, RTM_STOPPED, c->last_exit);
		}
	}
	/* Swap in: from here on the new config is in force. */
	for (unsigned j = 0; j < ncfg->ncomps; j++) {
		struct rtm_comp *c = list[j];

		if (c->cfg != &ncfg->comps[j]) { /* kept: compare, then move */
			comp_diff(c->cfg, &ncfg->comps[j], c->pid > 0);
			c->cfg = &ncfg->comps[j];
		}
	}
	health_moved = ncfg->health_interval_ms != ocfg->health_interval_ms;
	memcpy(rtm->comps, list, (nl + ng) * sizeof(list[0]));
	rtm->n = nl;
	rtm->ngone = ng;
	rtm->cfg = ncfg;
	if (!rtm->log_level_opt)
		snprintf(rtm->log_level, sizeof(rtm->log_level), "%s",
		    ncfg->log_level);
	lc_log_notice("reloaded %s: %u components (%u added, %u removed)",
	    ncfg->path, nl, added, removed);

	for (unsigned i = 0; i < nd; i++)
		drop[i]->in_use = false;
	/* Removed ones that run: stopped, then dropped (gone_drop). */
	for (unsigned i = 0; i < ng; i++) {
		struct rtm_comp *c = list[nl + i];

		lc_log_notice("%s: removed from the config: stopping it",
		    c->cfg->name);
		if (c->state != RTM_STOPPING)
			comp_terminate(c);
	}
	/* Health settings apply at once. */
	for (unsigned j = 0; j < nl; j++) {
		struct rtm_comp *c = list[j];
		bool ticking = ev_is_active(&c->htick);

		if (c->pid == 0 || c->state == RTM_STOPPING)
			continue;
		if (!health_on(c) && ticking) {
			health_stop(c);
			if (c->state == RTM_STARTING) {
				ev_timer_stop(rtm->loop, &c->timer);
				set_state(c, RTM_RUNNING, RTM_EXIT_NONE);
			}
		} else if (health_on(c) && (!ticking || health_moved)) {
			health_stop(c);
			health_start(c);
		}
	}
	if (ng == 0)
		rtm_config_free(ocfg);
	else
		rtm->old_cfg = ocfg;
	state_save(rtm);
	/* Added ones start in config order, each after the previous one is
	 * ready, as at boot. */
	if (added > 0 || rtm->phase == PH_BOOT) {
		rtm->phase = PH_BOOT;
		rtm->boot_next = 0;
		boot_continue(rtm);
	}
	changed(rtm);
	return (0);
}

static int
resolve_user(struct rtm *rtm)
{
	const struct rtm_config *cfg = rtm->cfg;
	struct lc_err err;
	int rv;

	rtm->ident.uid = (uid_t)-1;
	rtm->ident.gid = (gid_t)-1;
	rtm->ident.drop = false;
	rv = rtm_config_user(cfg, &rtm->ident.uid, &rtm->ident.gid, &err);
	if (rv < 0) {
		lc_log_err("%s", err.msg);
		return (rv);
	}
	if (rv > 0) {
		for (unsigned i = 0; i < cfg->ncomps; i++)
			if (!cfg->comps[i].priv_root && geteuid() != 0) {
				lc_log_notice(
				    "not running as root: components run as "
				    "uid %d with rtrmgr's privileges (user "
				    "'%s' and capabilities apply only under "
				    "root)",
				    (int)geteuid(), cfg->user);
				break;
			}
		return (0); /* no switch: every component runs as rtrmgr */
	}
	rtm->ident.drop = true;
	return (0);
}

static int
resolve_group(struct rtm *rtm, const char *key, const char *name, gid_t *out)
{
	struct lc_err err;
	int rv;

	if ((rv = rtm_config_group(rtm->cfg, key, name, out, &err)) != 0)
		lc_log_err("%s", err.msg);
	return (rv);
}

/* Takes back the live components of a previous rtrmgr from its state file. */
static void
adopt(struct rtm *rtm)
{
	struct rtm_state_rec recs[RTM_COMP_MAX * 2];
	uint64_t realnow = lc_time_real_ns() / LC_NS_PER_MSEC;
	int n;

	n = rtm_state_read(rtm->rundir, recs, RTM_COMP_MAX * 2);
	if (n < 0) {
		lc_log_warnx("%s/rtrmgr.state unreadable (%s): starting every "
			     "component anew",
		    rtm->rundir, strerror(-n));
		return;
	}
	for (int i = 0; i < n; i++) {
		struct rtm_state_rec *r = &recs[i];
		struct rtm_comp *c = rtm_comp_find(rtm, r->name);
		int pidfd;

		if (c == NULL) {
			if (r->pid > 0 &&
			    rtm_proc_starttime(r->pid) == r->starttime)
				lc_log_warnx(
				    "%s (pid %d) from the previous "
				    "rtrmgr is not in the config: left running",
				    r->name, (int)r->pid);
			continue;
		}
		c->generation = r->generation;
		if (r->pid <= 0) {
			if (r->held) {
				/* stopped by an operator: not started at boot
				 */
				c->held = true;
				c->boot_done = true;
				lc_log_notice(
				    "%s: stopped by request before; "
				    "left stopped (start it to run it)",
				    r->name);
			}
			continue;
		}
		if (rtm_proc_starttime(r->pid) != r->starttime ||
		    !rtm_proc_matches(r->pid, c->cfg->binary)) {
			lc_log_info("%s: recorded pid %d is gone (or another "
				    "program): starting anew",
			    r->name, (int)r->pid);
			continue;
		}
		if ((pidfd = pidfd_open(r->pid, 0)) < 0) {
			lc_log_warn("%s: pidfd_open(%d)", r->name, (int)r->pid);
			continue;
		}
		/* The pid could have been recycled between the check and the
		 * open: the start time pins the process the pidfd refers to. */
		if (rtm_proc_starttime(r->pid) != r->starttime) {
			close(pidfd);
			continue;
		}
		c->pid = r->pid;
		c->pidfd = pidfd;
		c->adopted = true;
		c->starttime = r->starttime;
		c->started_ms = r->started_ms;
		c->started_at = ev_now(rtm->loop) -
		    (realnow > r->started_ms ?
			    (double)(realnow - r->started_ms) / 1000.0 :
			    0.0);
		c->prev_generation = c->generation;
		c->last_exit = RTM_EXIT_NONE;
		c->answered = false;
		ev_io_set(&c->io, pidfd, EV_READ);
		ev_io_start(rtm->loop, &c->io);
		health_start(c);
		lc_log_notice("%s: adopted pid %d generation %" PRIu64, r->name,
		    (int)r->pid, c->generation);
		set_state(c, RTM_RUNNING, RTM_EXIT_NONE);
	}
}

int
rtm_open(struct rtm *rtm)
{
	pid_t holder;
	int rv;

	if (rtm->phase != PH_NEW)
		return (-EALREADY);
	if (rtm->lockfd >= 0)
		return (0);
	if ((rv = resolve_user(rtm)) != 0 ||
	    (rv = resolve_group(rtm, "operator-group", rtm->cfg->operator_group,
		 &rtm->op_gid)) != 0 ||
	    (rv = resolve_group(rtm, "admin-group", rtm->cfg->admin_group,
		 &rtm->adm_gid)) != 0)
		return (rv);
	/* Operators and admins must reach their sockets: search (not list)
	 * for others, each file's own mode then decides. */
	if ((rv = rtm_rundir_prepare(rtm->rundir, rtm->ident.uid,
		 rtm->ident.gid,
		 rtm->op_gid != (gid_t)-1 || rtm->adm_gid != (gid_t)-1 ?
		     0751 :
		     0750)) != 0) {
		lc_log_err("rundir %s: %s", rtm->rundir, strerror(-rv));
		return (rv);
	}
	if ((rv = rtm_rundir_lock(rtm->rundir, &holder)) < 0) {
		if (rv == -EBUSY)
			lc_log_err("rundir %s is in use by another tern-rtrmgr "
				   "(pid %d)",
			    rtm->rundir, (int)holder);
		else
			lc_log_err("rundir %s: lock: %s", rtm->rundir,
			    strerror(-rv));
		return (rv);
	}
	rtm->lockfd = rv;
	return (0);
}

int
rtm_start(struct rtm *rtm)
{
	int rv;

	if (rtm->phase != PH_NEW)
		return (-EALREADY);
	if ((rv = rtm_open(rtm)) != 0)
		return (rv);
	if (rtm->cfg->health_kind == RTM_HEALTH_IPC && rtm->h_fn == NULL)
		lc_log_warnx("health-check ipc without the IPC front end "
			     "(rtm_ipc_new): watching the pids only");
	ev_async_start(rtm->loop, &rtm->keepalive);
	(void)rtm_fds_restore(rtm); /* what systemd kept while none ran */
	adopt(rtm);
	state_save(rtm);
	rtm->phase = PH_BOOT;
	rtm->boot_next = 0;
	boot_continue(rtm);
	changed(rtm); /* adopted ones: up once they answer */
	return (0);
}

void
rtm_free(struct rtm *rtm)
{
	if (rtm == NULL)
		return;
	for (unsigned i = 0; i < RTM_SLOTS; i++) {
		struct rtm_comp *c = &rtm->slot[i];

		if (!c->in_use)
			continue;
		ev_io_stop(rtm->loop, &c->io);
		ev_timer_stop(rtm->loop, &c->timer);
		ev_timer_stop(rtm->loop, &c->htick);
		ev_timer_stop(rtm->loop, &c->hto);
		if (c->pidfd >= 0)
			close(c->pidfd);
		/* an orderly shutdown stopped them all: the next start is a
		 * fresh boot, so systemd keeps nothing either */
		rtm_fds_fini(&c->fds, rtm->loop, rtm->phase == PH_DOWN);
	}
	ev_async_stop(rtm->loop, &rtm->keepalive);
	if (rtm->lockfd >= 0)
		close(rtm->lockfd);
	rtm_config_free(rtm->cfg);
	rtm_config_free(rtm->old_cfg);
	free(rtm);
}
