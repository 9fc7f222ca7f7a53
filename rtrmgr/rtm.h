/* rtrmgr/rtm.h: the tern supervisor: boot config, component lifecycle, health
 * checks, and the hooks the IPC layer plugs into. */
#ifndef RTM_H
#define RTM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_log.h"

#define RTM_NAME_MAX   32 /* component name, with its NUL */
#define RTM_COMP_MAX   16 /* components in one config */
#define RTM_ARGS_MAX   32 /* configured arguments of one component */
#define RTM_CAPS_MAX   8  /* capabilities kept by one component */
#define RTM_ERR_MAX    256
#define RTM_RUNDIR_MAX 80 /* sockets live there: sun_path is 108 bytes */

/* Component states; the values match rtrmgr.proto's State. */
enum rtm_state {
	RTM_STOPPED = 1,  /* not running, by request (or never started) */
	RTM_STARTING = 2, /* forked; not yet ready (health or rtm_comp_ready) */
	RTM_RUNNING = 3,  /* ready */
	RTM_STOPPING = 4, /* SIGTERM sent, waiting (SIGKILL after the grace) */
	RTM_BACKOFF = 5,  /* exited unexpectedly; restart timer running */
	RTM_FAILED = 6,	  /* too many failures: waits for rtm_comp_start() */
};
/* "stopped", "starting", ...; "unknown" for other values. Never NULL. */
const char *rtm_state_name(enum rtm_state);

/* ---- boot config ----------------------------------------------------------
 */

struct rtm_config;

/*
 * Parses a boot config (format in docs/rtrmgr.md). Returns a new config, or
 * NULL with errno set (EINVAL: syntax or semantic error, ENOENT/EACCES/...:
 * cannot read; ENOMEM) and err set: that code, "file:line:column: what" (or "file: what"
 * when no position applies). Nothing else is touched on error.
 */
struct rtm_config *rtm_config_load(const char *path, struct lc_err *err);
/* The same from memory; `name` is used in messages. */
struct rtm_config *rtm_config_parse(const char *name, const char *text,
    size_t len, struct lc_err *err);
void rtm_config_free(struct rtm_config *);
/* How many components it declares. */
unsigned rtm_config_ncomps(const struct rtm_config *);
/*
 * What a start with this config would refuse, checked without touching
 * anything (--check, and a reload before it changes anything): the rundir
 * (absolute, shorter than RTM_RUNDIR_MAX; rundir NULL: the config's or
 * the default), the user and the groups (as rtm_open), every binary an
 * executable regular file. 0, or -errno with err ("FILE...: what").
 */
int rtm_config_check(const struct rtm_config *, const char *rundir,
    struct lc_err *err);

/* ---- the supervisor --------------------------------------------------------
 */

struct rtm;
struct rtm_comp;

/* Overrides of the config, from the command line; NULL/0 keeps the config's. */
struct rtm_opts {
	const char *rundir;    /* --rundir or $TERN_RUNDIR */
	const char *log_level; /* passed to children as --log-level */
};

/* What a component looks like now (for LIST/COMPONENT_STATUS and events). */
struct rtm_comp_info {
	const char *name;
	enum rtm_state state;
	pid_t pid;	     /* 0 when not running */
	uint64_t generation; /* of the current (or last) instance */
	unsigned restarts;   /* unexpected exits since rtrmgr started */
	int last_exit;	     /* exit code, -signal, or RTM_EXIT_UNKNOWN/NONE */
	uint64_t uptime_ms;  /* 0 when not running */
	uint64_t backoff_ms; /* delay before the next start, in BACKOFF */
	bool adopted;	     /* re-adopted from a previous rtrmgr */
	const char *last_error; /* "" when none */
	/*
	 * The last instance that ended (crash, hang, exit, requested stop)
	 * since this rtrmgr started, kept across restarts (last_exit and
	 * last_error describe the current instance only): end_ms (realtime)
	 * 0 when none has; end_exit as last_exit; end_reason "killed by
	 * signal 9 (Killed)", "hung: ...; killed by signal 9 (Killed)",
	 * "stopped on request: exited with status 0", "cannot start: ...".
	 */
	int end_exit;
	uint64_t end_ms;
	uint64_t end_generation;
	const char *end_reason;
};
#define RTM_EXIT_NONE	 0x7fffffff /* has not exited */
#define RTM_EXIT_UNKNOWN 0x7ffffffe /* adopted process: status not visible */

/* A state change of one component, passed to the event callback. */
struct rtm_event {
	const char *name;
	enum rtm_state state; /* the new state */
	enum rtm_state old_state;
	pid_t pid;
	uint64_t generation;
	uint64_t prev_generation; /* generation before this start */
	int exit;		  /* as rtm_comp_info.last_exit */
};
typedef void rtm_event_fn(const struct rtm_event *, void *arg);

/*
 * Health checks. Every health interval the supervisor calls fn for each
 * STARTING or RUNNING component whose config says `health on`. The checker
 * answers exactly once, now or later from the loop, with
 * rtm_health_done(c, token, ok). No answer within the health timeout counts
 * as a failure; health-failures failures in a row -> the component is hung:
 * SIGKILL, then restarted like a crash. A success turns STARTING into
 * RUNNING. Late or repeated answers (stale token) are ignored.
 */
typedef void rtm_health_fn(struct rtm_comp *c, uint64_t token, void *arg);
void rtm_health_done(struct rtm_comp *c, uint64_t token, bool ok);
/* The checker used with `health-check file` (tests, scripts): ok when
 * RUNDIR/NAME.alive was modified within the last health interval. */
void rtm_health_file(struct rtm_comp *c, uint64_t token, void *arg);

/*
 * Creates the supervisor on loop. Takes ownership of cfg (freed by
 * rtm_free, or here on failure). Does not touch the system yet.
 * Returns NULL with errno set (ENOMEM; ENAMETOOLONG: rundir not absolute or
 * RTM_RUNDIR_MAX long, logged).
 */
struct rtm *rtm_new(struct ev_loop *loop, struct rtm_config *cfg,
    const struct rtm_opts *opts);
/* Set before rtm_start(); fn NULL disables. rtm_new sets rtm_health_file
 * for `health-check file`; for `health-check ipc` the IPC layer sets its
 * lifecycle STATUS checker here. */
void rtm_set_event_cb(struct rtm *, rtm_event_fn *fn, void *arg);
void rtm_set_health(struct rtm *, rtm_health_fn *fn, void *arg);

/*
 * The first half of rtm_start(): resolves the component user, prepares the
 * rundir (mode 0750) and takes its lock; starts nothing. Call it before
 * rtm_ipc_new() (whose sockets live in the rundir). Same errors as
 * rtm_start(); rtm_start() calls it when it was not called.
 */
int rtm_open(struct rtm *);

/*
 * Called after anything that may change what rtm_overall() says: a state
 * change, a component's first health answer, a reload, the shutdown. The
 * systemd notifier (rtm_notify.c) hangs here. fn NULL disables.
 */
typedef void rtm_change_fn(struct rtm *, void *arg);
void rtm_set_change_cb(struct rtm *, rtm_change_fn *fn, void *arg);

/* The router as a whole, for systemd's READY=1 and STATUS=. */
enum rtm_overall {
	RTM_OV_STARTING, /* a component is still coming (or going) */
	RTM_OV_UP,	 /* every component is up and answers */
	RTM_OV_STOPPING, /* shutting down */
};
/*
 * UP when the boot sequence is done and every component is running and has
 * answered a health check since it started or was adopted (or has health
 * off), or was given up on (failed) or stopped by an operator: those are
 * not waited for, and said. STARTING while one is starting, backing off
 * before a restart, restarting, not started yet, or removed by a reload and
 * still stopping. buf gets one line for STATUS=: "Waiting for rib (starting,
 * pid 812, generation 1) (1 of 4 up)", "Running: 4 of 4 components up",
 * "Running: 3 of 4 components up; fwd failed", "Stopping: waiting for fwd
 * (pid 815) to stop".
 */
enum rtm_overall rtm_overall(const struct rtm *, char *buf, size_t len);

/*
 * Applies a new boot config to the running supervisor (SIGHUP). Takes
 * ownership of ncfg. All or nothing: first rtm_config_check() (users,
 * groups, binaries) and the supervisor's own state; on error nothing has
 * changed and err says why: -ESHUTDOWN (not started or shutting down),
 * -EBUSY (components removed by the previous reload are still stopping),
 * rtm_config_check's errors. Then: backoff, failure, health (interval,
 * timeout, failures, a component's `health`) and stop-grace settings apply
 * at once; log-level, output, start-timeout and a component's binary,
 * args, privileges and capabilities at its next start (logged); rundir,
 * user, operator-group, admin-group and health-check only at the next
 * start of rtrmgr (logged; the old values stay in force). An added
 * component starts in config order as at boot; a removed one is stopped
 * (SIGTERM, then SIGKILL after its grace) and dropped; the new order is the
 * next shutdown's. 0.
 */
int rtm_reload(struct rtm *, struct rtm_config *ncfg, struct lc_err *err);

/*
 * Prepares the rundir (mode 0750, locked), reads the state file, re-adopts
 * the live components of a previous rtrmgr, then starts the others in
 * config order (each one after the previous has left STARTING).
 * Returns 0; -EBUSY if another rtrmgr holds the rundir; -ENOENT if the
 * configured user does not exist; other -errno. Errors are logged here.
 */
int rtm_start(struct rtm *);

/*
 * Orderly shutdown: stops the components in reverse config order (SIGTERM,
 * SIGKILL after the grace), one after the other, then calls done(arg)
 * (from the loop) and lets ev_run return. Components stopped this way are
 * recorded as stopped. Calling it twice is harmless.
 */
void rtm_shutdown(struct rtm *, void (*done)(void *), void *arg);
bool rtm_is_down(const struct rtm *);

/*
 * Frees the supervisor. Components still running are left running (this
 * is what happens when rtrmgr dies): call rtm_shutdown() first to stop
 * them. Stops every watcher; closes the lock.
 */
void rtm_free(struct rtm *);

/*
 * One component, by name, as the IPC layer (RESTART/STOP/START) calls them.
 * rtm_comp_start: starts a STOPPED or FAILED component (failure history
 * cleared), or a BACKOFF one at once. 0; -EALREADY if starting/running;
 * -EBUSY if stopping; -ENOENT unknown name; -ESHUTDOWN during shutdown.
 * rtm_comp_stop: SIGTERM then SIGKILL after the grace; the component stays
 * STOPPED. 0; -EALREADY if stopped or failed (a BACKOFF one just stays
 * stopped, 0); -ENOENT; -ESHUTDOWN.
 * rtm_comp_restart: stop (if running) then start again; not counted as a
 * failure. 0; -ENOENT; -ESHUTDOWN; -EBUSY if already stopping.
 */
int rtm_comp_start(struct rtm *, const char *name);
int rtm_comp_stop(struct rtm *, const char *name);
int rtm_comp_restart(struct rtm *, const char *name);

/*
 * A component says it is ready (IPC REGISTER). STARTING -> RUNNING when pid
 * and generation match the current instance. 0; -ENOENT; -ESTALE when pid
 * or generation do not match (an old instance).
 */
int rtm_comp_ready(struct rtm *, const char *name, pid_t pid,
    uint64_t generation);

/* Lookup and listing. Component handles live as long as the rtm. */
struct rtm_comp *rtm_comp_find(struct rtm *, const char *name);
unsigned rtm_comp_count(const struct rtm *);
struct rtm_comp *rtm_comp_at(struct rtm *, unsigned i); /* config order */
void rtm_comp_get_info(const struct rtm_comp *, struct rtm_comp_info *);
const char *rtm_comp_name(const struct rtm_comp *);
enum rtm_state rtm_comp_state(const struct rtm_comp *);
pid_t rtm_comp_pid(const struct rtm_comp *); /* 0 when not running */
struct rtm *rtm_comp_rtm(const struct rtm_comp *);
/* The rundir in use (after rtm_start). */
const char *rtm_rundir(const struct rtm *);

/* ---- IPC front end (rtm_ipc.c)
 * ------------------------------------------------ */

struct rtm_ipc;
/*
 * Serves the rtrmgr service (ipc/proto/rtrmgr.proto) on RUNDIR/rtrmgr.sock
 * and rtrmgr-ro.sock (group: the component user's, so mgmt can forward
 * ternsh's commands): LIST, COMPONENT_STATUS, START, STOP, RESTART,
 * SUBSCRIBE (then EVENT_COMPONENT on every state change), REGISTER (->
 * rtm_comp_ready), and lifecycle SHUTDOWN (-> rtm_shutdown, then ev_break).
 * With `health-check ipc` it is the health checker: lifecycle STATUS on
 * RUNDIR/NAME.sock, ok when it answers in time from the current pid.
 * Call after rtm_open() and before rtm_start(); it sets the event callback
 * and the health checker. NULL with errno (from ipc_server_new).
 */
struct rtm_ipc *rtm_ipc_new(struct rtm *, struct ev_loop *);
/* Closes the sockets and clients; before rtm_free(). NULL is a no-op. */
void rtm_ipc_free(struct rtm_ipc *);

/* ---- systemd (rtm_notify.c)
 * ---------------------------------------------------------- */

struct rtm_notify;
/*
 * Under systemd's Type=notify ($NOTIFY_SOCKET set): sends READY=1 when
 * rtm_overall() is first UP (again after a reload), STATUS= with its line
 * at every change, STOPPING=1 when the shutdown starts, and, when
 * sd_watchdog_enabled() (WATCHDOG_USEC, WATCHDOG_PID), WATCHDOG=1 every
 * half of the interval from a timer of loop, the loop that supervises: a
 * stuck loop stops the pings. Sets the change callback. NULL with errno 0
 * when NOTIFY_SOCKET is not set (nothing to do), ENOMEM.
 */
struct rtm_notify *rtm_notify_new(struct rtm *, struct ev_loop *loop);
/* Around rtm_reload(): RELOADING=1 (with MONOTONIC_USEC) and a STATUS=;
 * then, err NULL or code 0, READY=1 once UP again; else READY=1 (if it
 * was up) with the refusal as STATUS=. NULL n is a no-op. */
void rtm_notify_reloading(struct rtm_notify *, const char *path);
void rtm_notify_reloaded(struct rtm_notify *, const struct lc_err *err);
/* Stops the pings and unsets the change callback. NULL is a no-op. */
void rtm_notify_free(struct rtm_notify *);

#endif /* RTM_H */
