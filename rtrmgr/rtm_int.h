/* rtrmgr/rtm_int.h: rtrmgr internals shared by its files: config layout,
 * component record, policy arithmetic, process and rundir helpers. */
#ifndef RTM_INT_H
#define RTM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "libcommon/lc_fdstore.h"
#include "rtm.h"

/* ---- config ----------------------------------------------------------------
 */

enum rtm_output {
	RTM_OUT_FILE,	 /* RUNDIR/NAME.log, appended */
	RTM_OUT_INHERIT, /* rtrmgr's own stdout/stderr */
};

enum rtm_health_kind {
	RTM_HEALTH_NONE, /* the pid only */
	RTM_HEALTH_FILE, /* rtm_health_file: RUNDIR/NAME.alive touched */
	RTM_HEALTH_IPC,	 /* lifecycle STATUS over IPC (plugs in later) */
};

struct rtm_comp_cfg {
	char name[RTM_NAME_MAX];
	const char *binary;		/* absolute path */
	const char *args[RTM_ARGS_MAX]; /* before the standard options */
	unsigned nargs;
	bool priv_root;		/* privileges root (default user) */
	int caps[RTM_CAPS_MAX]; /* CAP_* kept as ambient caps */
	unsigned ncaps;
	bool health;		/* health on (default) */
	uint32_t stop_grace_ms; /* 0: the global one */
	unsigned line;		/* where it was declared */
};

struct rtm_config {
	struct lc_arena *arena; /* every string below */
	const char *path;
	const char *rundir; /* NULL: default */
	const char *user;   /* for `privileges user` */
	/* who may use the sockets besides root and `user` (NULL: none):
	   every -ro socket, and mgmt.sock (configure, commit, restart) */
	const char *operator_group, *admin_group;
	const char *log_level; /* passed to children */
	enum rtm_output output;
	uint32_t backoff_initial_ms;
	uint32_t backoff_max_ms;
	uint32_t stable_ms;	    /* up this long -> backoff reset */
	unsigned failure_limit;	    /* N failures ... */
	uint32_t failure_window_ms; /* ... in T -> failed */
	enum rtm_health_kind health_kind;
	uint32_t health_interval_ms;
	uint32_t health_timeout_ms;
	unsigned health_failures;  /* in a row -> hung */
	uint32_t start_timeout_ms; /* STARTING longer -> hung */
	uint32_t stop_grace_ms;	   /* SIGTERM -> SIGKILL */
	struct rtm_comp_cfg comps[RTM_COMP_MAX];
	unsigned ncomps;
};

/*
 * The user of `privileges user` components (rtm_open): 0 with *uid, *gid;
 * 1 when there is no switch (rtrmgr not root, or every component root);
 * -ENOENT (no such user) or -EINVAL (root) with err set.
 */
int rtm_config_user(const struct rtm_config *, uid_t *uid, gid_t *gid,
    struct lc_err *err);
/*
 * operator-group or admin-group (key) named name: its gid in *out, -1 for
 * none (name NULL). -ENOENT when it does not exist; -EPERM when a rtrmgr
 * not running as root is not in it (its components, running as it, could
 * not give their sockets to it). err set.
 */
int rtm_config_group(const struct rtm_config *, const char *key,
    const char *name, gid_t *out, struct lc_err *err);
/* Capability names as written in the config ("net_admin"); -1 if unknown. */
int rtm_cap_parse(const char *name);
const char *rtm_cap_name(int cap);

/* Accessors for rtm_ipc.c. */
const struct rtm_config *rtm_config_of(const struct rtm *);
/* The component user's uid (its sockets' owner, trusted as a component),
 * or -1 when components keep rtrmgr's. */
uid_t rtm_comp_uid(const struct rtm *);
/* operator-group's gid (every -ro socket), or -1 when none. */
gid_t rtm_operator_gid(const struct rtm *);

/* ---- policy (pure functions, unit tested)
 * ------------------------------------ */

/*
 * Delay before restart number `consecutive` (1 = first restart after a
 * failure): initial * 2^(consecutive-1), capped at max. consecutive 0 -> 0.
 */
uint64_t rtm_backoff_delay_ms(uint32_t initial_ms, uint32_t max_ms,
    unsigned consecutive);

/* The last failure_limit failure times, to answer "N failures in T?". */
#define RTM_FAILWIN_MAX 64
struct rtm_failwin {
	uint64_t t_ms[RTM_FAILWIN_MAX]; /* ring of failure times */
	unsigned head;			/* next slot */
	unsigned count;			/* valid entries, <= limit */
};
void rtm_failwin_reset(struct rtm_failwin *);
/*
 * Records a failure at now_ms. Returns true when this makes `limit`
 * failures within the last window_ms (inclusive: the oldest of the last
 * `limit` failures is at most window_ms before now). limit 0 never trips;
 * limits above RTM_FAILWIN_MAX are clamped.
 */
bool rtm_failwin_add(struct rtm_failwin *, uint64_t now_ms, unsigned limit,
    uint64_t window_ms);
/* Failures recorded within window_ms before now_ms. */
unsigned rtm_failwin_count(const struct rtm_failwin *, uint64_t now_ms,
    uint64_t window_ms);

/* ---- processes
 * ------------------------------------------------------------------ */

/* Who a child runs as. uid/gid -1: unchanged (rtrmgr not root). */
struct rtm_ident {
	uid_t uid;
	gid_t gid;
	bool drop; /* switch to uid/gid, drop capabilities */
	/* supplementary groups (with drop; none: all dropped): operator- and
	   admin-group, so that the component may give its sockets to them */
	gid_t groups[2];
	unsigned ngroups;
};

struct rtm_spawn {
	const char *binary;
	const char *const *argv; /* full argv, NULL-terminated */
	const char *const
	    *envp_extra; /* NAME=VALUE added to environ, NULL-terminated */
	int out_fd;	 /* stdout and stderr; -1: inherit */
	const struct rtm_ident *ident;
	const int *caps; /* kept as ambient capabilities (with drop) */
	unsigned ncaps;
	int state_fd; /* the fd store's channel (> 2): the child's fd 3; <= 2: none */
};

/*
 * fork + exec. On success stores the child's pid and a pidfd (CLOEXEC) and
 * returns 0. If the exec (or the privilege change before it) fails in the
 * child, returns the child's -errno (the child has been reaped) and writes
 * what failed into err (that code). -errno for fork/pidfd failures.
 */
int rtm_spawn(const struct rtm_spawn *, pid_t *pid, int *pidfd,
    struct lc_err *err);

/* /proc/PID/stat field 22 (start time in clock ticks since boot); 0 if gone. */
uint64_t rtm_proc_starttime(pid_t);
/* true if /proc/PID/exe is binary, or argv[0] or argv[1] is (scripts). */
bool rtm_proc_matches(pid_t, const char *binary);

/* ---- rundir and state file
 * -------------------------------------------------------- */

struct rtm_state_rec {
	char name[RTM_NAME_MAX];
	uint64_t generation;
	pid_t pid;	     /* 0: not running */
	uint64_t starttime;  /* rtm_proc_starttime() at start */
	uint64_t started_ms; /* CLOCK_REALTIME at start, ms */
	bool held;	     /* stopped by an operator: stays stopped */
	char binary[256];
};

/*
 * Creates dir (one level) with mode (0750, or 0751 when operators and
 * admins must reach their sockets in it) owned by uid:gid (-1: unchanged),
 * or sets them on the one there; refuses a symlink or a non-directory. 0 or
 * -errno.
 */
int rtm_rundir_prepare(const char *dir, uid_t uid, gid_t gid, mode_t mode);
/*
 * Takes RUNDIR/rtrmgr.lock with flock (CLOEXEC, so children never hold it).
 * Returns the fd; -EBUSY when held (the holder's pid in *holder if known).
 */
int rtm_rundir_lock(const char *dir, pid_t *holder);

/* Writes RUNDIR/rtrmgr.state atomically (temp file, rename; no fsync). 0 or -errno. */
int rtm_state_write(const char *dir, const struct rtm_state_rec *, unsigned n);
/*
 * Reads it; returns the number of records (<= max), 0 if absent, -EINVAL if
 * malformed (nothing usable), other -errno.
 */
int rtm_state_read(const char *dir, struct rtm_state_rec *, unsigned max);

/* ---- the fd store (rtm_fdstore.c) -------------------------------------------
 */

#define RTM_FDS_CRASHES 2 /* in a row, after starting from it: discarded */

/* What one component keeps across its restarts. */
struct rtm_fds {
	char comp[RTM_NAME_MAX];
	struct {
		char name[LC_FDSTORE_NAME_MAX];
		int fd;
	} ent[LC_FDSTORE_MAX];
	unsigned n;
	int sock;	  /* the running instance's channel, -1: none */
	int pending;	  /* made for the instance being started, -1 */
	ev_io io;	  /* sock readable */
	unsigned handed;  /* given to the running instance at its start */
	unsigned crashes; /* instances in a row that crashed after that */
	uint64_t puts, dels, refused;
};

void rtm_fds_init(struct rtm_fds *, const char *comp);
/* A channel for the instance about to start: *child is its end (>= 3,
 * CLOEXEC: rtm_spawn makes it the child's fd 3). 0 or -errno. */
int rtm_fds_channel(struct rtm_fds *, int *child);
/* The start failed: the channel made for it closed. */
void rtm_fds_abandon(struct rtm_fds *);
/* The instance started: what is kept sent to it ("fd" records, "end"),
 * then its requests served from loop. 0 or -errno (logged; no channel). */
int rtm_fds_handover(struct rtm_fds *, struct ev_loop *loop);
/* The instance ended: its last records applied, the channel closed;
 * crashed (not asked to stop), stable (up for stable_ms) decide the
 * crash-loop rule (RTM_FDS_CRASHES). */
void rtm_fds_ended(struct rtm_fds *, struct ev_loop *loop, bool crashed,
    bool stable);
/* Every fd closed (also in systemd's store), logged with why if any. */
void rtm_fds_discard(struct rtm_fds *, const char *why);
/* Keeps fd (taken) as name without asking anyone (tests, restore). 0,
 * -EINVAL, -ENOSPC (fd closed in each case). */
int rtm_fds_keep(struct rtm_fds *, const char *name, int fd);
/* rtrmgr ends: everything closed; mirror: also out of systemd's store. */
void rtm_fds_fini(struct rtm_fds *, struct ev_loop *loop, bool mirror);
/* Takes back what systemd kept for us (LISTEN_FDS, FDNAME=COMP/NAME) into
 * the components' stores. How many, or -errno. */
int rtm_fds_restore(struct rtm *);
/* The store of the component of that name in the config, or NULL. */
struct rtm_fds *rtm_comp_fds(struct rtm *, const char *name);

#endif /* RTM_INT_H */
