/* mgmt/mgmt_int.h: tern-mgmt's private state shared by its files. */
#ifndef MGMT_INT_H
#define MGMT_INT_H

#include "mgmt/mgmt.h"
#include "mgmt/mgmt_conf.h"

#include <sys/queue.h>

struct ipc_server;
struct ipc_peer;
struct ipc_req;
struct mgmt_txn;
struct mgmt_job;

#define MGMT_NOTICES_MAX 1024 /* a session's untold notices, bytes */
#define MGMT_TOKEN_LEN	 32   /* a session's token: 128 random bits, hex */
#define MGMT_COMPS_MAX	 16   /* components named in completion */

/* A commit finished: rv 0, or -errno with the reason in err. */
typedef void mgmt_commit_done_fn(void *arg, int rv, const struct lc_err *err);

struct mgmt_session {
	LIST_ENTRY(mgmt_session) link;
	uint64_t id;
	char user[32];
	bool read_only;
	bool configure;			/* in configuration mode */
	struct mgmt_conf *candidate;	/* in configure mode */
	struct ipc_peer *peer;		/* the shell's connection, or NULL */
	char notices[MGMT_NOTICES_MAX]; /* mgmt_session_notices() */
	/* the answer being sent is a table: its header and count lines
	 * (Reply.table_header, table_footer), set by mgmt_show.c */
	unsigned table_header, table_footer;
	/* who, for the commit history: user (above) and uid from the
	 * connection's credentials (uid -1 without them: sessions opened in
	 * tests), the client's component name and terminal */
	long uid, pid;
	char via[32], tty[32];
	/* save and load's text between the parts of one command (mgmt_cmd.c:
	 * xfer_kind 0 none, 's' save, 'l' load) */
	struct lc_buf xfer;
	int xfer_kind;
	struct mgmt_job *job; /* a streaming command running (mgmt_ops.c) */
	/* what brings the session back after tern-mgmt restarts
	 * (mgmt_persist.c): the token its shell presents then, the shell's
	 * start time (with pid, whether that process still runs; 0: unknown),
	 * the candidate's journal (jfd -1: none) */
	char token[MGMT_TOKEN_LEN + 1];
	uint64_t start;
	int jfd;
	char jname[32];
	/* rebuilt from a journal by this tern-mgmt, its shell not back yet:
	 * it holds its candidate (and the configure lock) until orphan_until
	 * (CLOCK_REALTIME, ms) or until its shell ends */
	bool orphan;
	int64_t orphan_until;
};

struct mgmt {
	struct ev_loop *loop;
	struct ipc_server *server;
	struct mgmt_opts opts;
	char store_dir[4096];
	struct mgmt_conf *running;
	LIST_HEAD(, mgmt_session) sessions;
	uint64_t next_session;
	struct mgmt_session *lock; /* the session in configure mode */
	/* commit confirmed: rolled back when the timer fires */
	ev_timer confirm_timer;
	bool confirm_pending;
	unsigned confirm_minutes;
	struct mgmt_conf *confirm_prev; /* what to go back to */
	int64_t confirm_deadline_ms;	/* when (CLOCK_REALTIME), 0 unknown */
	/* the commit running is (its seq in the store; 0: none, empty) */
	unsigned long running_seq;
	/* the sessions' candidate journals (mgmt_persist.c; "" none), the
	 * check of sessions waiting for their shell, and the tokens of the
	 * last ones that expired (told when their shell comes back late) */
	char sess_dir[4096];
	ev_timer orphan_timer;
	struct {
		char token[MGMT_TOKEN_LEN + 1];
		int64_t when;
	} expired[8];
	unsigned nexpired;
	char host_name[64];
	struct mgmt_txn *txn; /* the commit in flight */
	/* the commit being written by a child process (mgmt_commit_store) */
	ev_io store_w;
	pid_t store_pid;
	/* a store child still compressing older commits after it reported */
	pid_t gz_pid;
	struct mgmt_conf *store_conf;
	mgmt_commit_done_fn *store_done;
	void *store_arg;
	/* tern-rtrmgr's components, for completion (mgmt_compl.c asks LIST
	 * when rtrmgr connects and at each completion of a component) */
	char comps[MGMT_COMPS_MAX][32];
	unsigned ncomps;
	/* system metrics (mgmt_metrics.c): NULL when not configured */
	struct mgmt_metrics *metrics;
	uint64_t st_commits, st_commits_failed; /* since this start */
};

/*
 * mgmt_push.c: the commit transaction. Validates conf against running,
 * sends each connected component its part (fwd: interfaces, rib: static
 * routes), and when all accepted stores conf and makes it running
 * (mgmt_commit_local); when one refuses, the others are sent the reverse
 * and running stays. done() runs exactly once, maybe before this returns.
 * One commit at a time: a second gets -EBUSY.
 */
int mgmt_commit_start(struct mgmt *, const struct mgmt_conf *conf,
    bool check_only, const struct mgmt_commit_meta *meta,
    mgmt_commit_done_fn *done, void *arg);
/* Clients of tern-fwd and tern-rib; they get the whole running config
 * every time they (re)connect. */
int mgmt_push_init(struct mgmt *);
void mgmt_push_fini(struct mgmt *);
/*
 * mgmt_wire.c: each schema row with a wire column goes in one field of its
 * unit's message (interfaces: fwd.IfConfig, the fwd block: fwd.FwdConfig,
 * static routes: rib.Route, the rib block: rib.RibConfig, the bgp block:
 * bgp.BgpConfig and each of its neighbours bgp.Neighbor). init binds the
 * rows of tab (MGMT_S__COUNT of them; mgmt_schema but in tests) to the
 * fields by name and checks each: 0, or -EINVAL with err naming the row.
 * fill sets the leaves of unit node n (NULL: not configured) in msg, a
 * message of the unit's type: a leaf that is there as its value (an enum
 * as its index, a flag as true), one that is not as its default when the
 * row has MGMT_SF_WIRE_DFLT, else not at all (unset). fill_conf does it
 * for a container unit (the fwd or rib block) of conf.
 */
struct ProtobufCMessage;
struct ProtobufCMessageDescriptor;
int mgmt_wire_init(const struct mgmt_schema_node *tab, struct lc_err *err);
const struct ProtobufCMessageDescriptor *mgmt_wire_desc(enum mgmt_sid unit);
void mgmt_wire_fill(enum mgmt_sid unit, const struct mgmt_node *n,
    struct ProtobufCMessage *msg);
void mgmt_wire_fill_conf(const struct mgmt_conf *conf, enum mgmt_sid unit,
    struct ProtobufCMessage *msg);
/*
 * mgmt_policy.c: conf's policy-options as a bgp.PolicyOptions for tern-bgp
 * (NULL when there are none), every part from alloc (zeroed memory that the
 * caller frees with the message). Terms go in their key order, the order
 * they run in.
 */
typedef void *mgmt_alloc_fn(void *arg, size_t size);
struct ProtobufCMessage *mgmt_policy_encode(const struct mgmt_conf *conf,
    mgmt_alloc_fn *alloc, void *arg);
/* mgmt's clients of the other components (NULL in tests without server). */
enum mgmt_peer {
	MGMT_PEER_FWD,
	MGMT_PEER_RIB,
	MGMT_PEER_RTRMGR,
	MGMT_PEER_BGP
};
struct ipc_client *mgmt_peer_client(struct mgmt *, enum mgmt_peer);
const char *mgmt_peer_name(enum mgmt_peer);

/*
 * mgmt_compl.c: live values for the completion of operational commands.
 * Each adds to out[k..max) the candidates that start with partial and
 * returns the new count; add skips a word already there. ifaces: the
 * configured interfaces' names; prefixes: their subnets and the static
 * routes; comps: tern-rtrmgr's components (as last listed: each call asks
 * again, for the next); pipe: the stages after a '|' (w[0..nw) typed after
 * it; compare and display set for a show of the configuration, first: no
 * other stage before).
 */
int mgmt_compl_add(struct mgmt_cand *out, unsigned max, int k, const char *word,
    const char *help, bool hint);
int mgmt_compl_ifaces(const struct mgmt_conf *, const char *partial,
    struct mgmt_cand *out, unsigned max, int k);
int mgmt_compl_prefixes(const struct mgmt_conf *, const char *partial,
    struct mgmt_cand *out, unsigned max, int k);
int mgmt_compl_comps(struct mgmt *, const char *partial, struct mgmt_cand *out,
    unsigned max, int k);
int mgmt_compl_pipe(bool config_show, bool first, const char *const *w,
    unsigned nw, const char *partial, struct mgmt_cand *out, unsigned max,
    int k);
void mgmt_compl_comps_refresh(struct mgmt *);
/* on_connect of the client of tern-rtrmgr (arg: the mgmt) */
struct ipc_client;
void mgmt_compl_rtrmgr_connected(struct ipc_client *, uint64_t gen, void *arg);

/* mgmt_show.c: operational commands answered by another component. They
 * return MGMT_PENDING and answer through later(), or an error code. */
struct mgmt_op {
	struct mgmt *m;
	uint64_t sid;
	bool json;
	mgmt_reply_fn *later;
	void *arg;
};
/* How an answer is printed: text into out, or (| json) into jo. m: the
 * running config names interfaces (fwd knows their devices). */
struct json_object;
struct lc_buf;
typedef void mgmt_render_fn(const struct mgmt *m, struct lc_buf *out,
    struct json_object *jo, const struct ProtobufCMessage *msg);
/* Sends the query; MGMT_PENDING, or an error when the peer is not up. */
int mgmt_show_ask(const struct mgmt_op *, enum mgmt_peer, unsigned method,
    const struct ProtobufCMessage *req, mgmt_render_fn *render,
    struct lc_err *err);
/* "cmd: unexpected 'got' (expected ...)": MGMT_E_SYNTAX */
int mgmt_show_bad_args(struct lc_err *err, const char *cmd,
    const char *expected, const char *got);
/* Whether tern-bgp is connected; when not, the one line that says whether
 * BGP is configured at all (MGMT_E_UNAVAILABLE). */
bool mgmt_show_bgp_up(const struct mgmt_op *);
int mgmt_show_bgp_down(const struct mgmt_op *, struct lc_err *err);
int mgmt_show_route(const struct mgmt_op *, const char *const *w, unsigned nw,
    struct lc_err *err);
int mgmt_show_interfaces(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_show_fib(const struct mgmt_op *, const char *const *w, unsigned nw,
    struct lc_err *err);
int mgmt_show_neighbors(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_show_processes(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
/* verb: "restart", "stop" or "start" */
int mgmt_control(const struct mgmt_op *, const char *verb, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_show_route_summary(const struct mgmt_op *, struct lc_err *err);
int mgmt_show_ipc(const struct mgmt_op *, const char *const *w, unsigned nw,
    struct lc_err *err);
/* show bgp summary, show bgp neighbor [A], clear bgp neighbor A [soft]:
 * tern-bgp's QUERY_NEIGHBORS and CLEAR_NEIGHBOR */
int mgmt_show_bgp_summary(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_show_bgp_neighbor(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_clear_bgp_neighbor(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
/* mgmt_show_bgp.c: show bgp route [PREFIX [longer] | ADDRESS] [detail], and
 * (from show bgp neighbor A) A's received-routes or advertised-routes
 * (w: the words after that one): tern-bgp's QUERY_ROUTES */
int mgmt_show_bgp_route(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_err *err);
int mgmt_show_bgp_adj(const struct mgmt_op *, struct lc_ip4 nbr,
    bool advertised, const char *const *w, unsigned nw, struct lc_err *err);
/* A component's state (rtrmgr.State) as show processes names it. */
const char *mgmt_show_proc_state(int state);
/* The configured interface on device dev (dev when none is). */
const char *mgmt_show_if_name(const struct mgmt *m, const char *dev, char *buf,
    size_t n);
/*
 * mgmt_ops.c: the router's operational commands. Each takes the words
 * after its own; out gets the text of an answer given at once. They
 * return an mgmt code, MGMT_PENDING (the answer comes through op->later),
 * or MGMT_STREAM (out is the first output; more follows as OUTPUT events).
 * ping and traceroute answer later with MGMT_STREAM once tern-fwd sent
 * the first probe, or with the error that stopped it.
 */
int mgmt_ops_ping(const struct mgmt_op *, const char *const *w, unsigned nw,
    struct lc_buf *out, struct lc_err *err);
int mgmt_ops_traceroute(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err);
int mgmt_ops_monitor_log(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err);
int mgmt_ops_show_log(const struct mgmt_op *, const char *const *w, unsigned nw,
    struct lc_buf *out, struct lc_err *err);
int mgmt_ops_show_system(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err);
int mgmt_ops_clear_ifstats(const struct mgmt_op *, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err);
/* Ctrl-C of the shell: the session's streaming command ends (ping with its
 * summary). 0, or -ENOENT when none runs. */
int mgmt_ops_interrupt(struct mgmt *, struct mgmt_session *);
/* The session ends: its streaming command with it. */
void mgmt_ops_session_end(struct mgmt *, struct mgmt_session *);
/* mgmt_d.c: our server's counters; -ENOENT without a server. */
struct ipc_stats;
int mgmt_server_stats(struct mgmt *, struct ipc_stats *);

/*
 * mgmt_metrics.c: the Prometheus endpoint. Serve on addr (network order)
 * and port, or stop (port 0); as it is when unchanged. 0, or -errno with
 * err (cannot listen: the config stays, the endpoint does not run).
 */
int mgmt_metrics_apply(struct mgmt *, uint32_t addr, unsigned port,
    struct lc_err *err);
void mgmt_metrics_free(struct mgmt *);
/* The running config's system block takes effect in mgmt (host name, the
 * metrics endpoint): at start and after each commit. */
void mgmt_apply_system(struct mgmt *);
struct mgmt_session *mgmt_session_find(struct mgmt *, uint64_t id);
/* mgmt_cmd.c: forgets the session's save or load text in transit. */
void mgmt_cmd_xfer_end(struct mgmt_session *);

/* mgmt_commit.c: stores conf and makes it running (after the components
 * accepted). 0, or -errno with err set; running unchanged on error. */
int mgmt_commit_local(struct mgmt *, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta, struct lc_err *err);
/*
 * The same, without blocking the loop: a child process prints, writes and
 * fsyncs the commit (about 0.8 s at 1M routes) while mgmt keeps answering;
 * then conf becomes running and done(arg, rv, err) runs once. 0 when
 * started; -errno when no child could be made (call mgmt_commit_local).
 */
int mgmt_commit_store(struct mgmt *, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta, mgmt_commit_done_fn *done, void *arg);
/* A meta of tern-mgmt itself (its own user, via, from, comment), timed now,
 * for the commits nobody typed (the boot config, an expired commit
 * confirmed). */
void mgmt_commit_meta_self(struct mgmt_commit_meta *, const char *via,
    const char *from, const char *comment);
/* commit confirmed: remember prev, roll back to it after minutes (from
 * the deadline stored with the commit, commit 0). */
void mgmt_commit_confirm_arm(struct mgmt *, struct mgmt_conf *prev,
    unsigned minutes);
void mgmt_commit_confirm_cancel(struct mgmt *);
/*
 * At start, once running and the sessions kept are loaded: a commit
 * confirmed that the last tern-mgmt left pending (commit 0's record) is
 * resumed: the timer armed for what is left, or, when its deadline has
 * passed, the rollback done now (stored as "rollback (confirm expired)",
 * logged, the kept candidates reset as a connected session's would be).
 */
void mgmt_commit_confirm_resume(struct mgmt *);
void mgmt_commit_fini(struct mgmt *);

/*
 * mgmt_persist.c: what a restart of tern-mgmt must not lose of its
 * sessions. Each session in configuration mode journals its candidate in
 * RUNDIR/mgmt-sessions (the commit it started from, then each edit as it
 * is made: an append, never a print of the tree), and the next tern-mgmt
 * rebuilds every candidate whose shell still runs; the shell gets it back
 * by presenting the session's token (SessionOpen.resume_token) from the
 * same uid. Failures to write are told to the session (its candidate is
 * then not kept), never fail its command.
 *
 * init: the directory, and the sessions of the journals found (orphans,
 * holding the configure lock). fini: stops the check; the journals stay.
 */
int mgmt_persist_init(struct mgmt *);
void mgmt_persist_fini(struct mgmt *);
/* A new session: its token and its shell's start time. */
void mgmt_persist_session_new(struct mgmt *, struct mgmt_session *);
/* The candidate is now commit base (configure, commit, discard, rollback
 * N, a rollback by the confirm timer): a new journal with no edits. */
void mgmt_persist_rebase(struct mgmt *, struct mgmt_session *,
    unsigned long base);
/* An edit done to the candidate: set or delete (op) with its words, or a
 * load of text (mode, name as the user gave it). */
void mgmt_persist_edit(struct mgmt *, struct mgmt_session *, const char *op,
    const char *const *w, unsigned nw);
void mgmt_persist_load(struct mgmt *, struct mgmt_session *,
    enum mgmt_load_mode mode, const char *name, const void *text, size_t len);
/* The journal cannot be kept (what: the operation that failed, rv its
 * -errno): removed, and the session told its candidate would not survive
 * a restart. The next new base starts one again. */
void mgmt_persist_drop(struct mgmt *, struct mgmt_session *, const char *what,
    int rv);
/* The session ends: its journal with it (keep: tern-mgmt stops, the
 * journal stays for the next one). */
void mgmt_persist_end(struct mgmt *, struct mgmt_session *, bool keep);
/*
 * SESSION_OPEN with a token: when a kept candidate (an orphan) has it and
 * the uid of s, s takes its candidate, configuration mode, the configure
 * lock, its notices and its journal, and the orphan goes: true. false when
 * none does (s gets a notice when the one it had expired).
 */
bool mgmt_persist_resume(struct mgmt *, struct mgmt_session *s,
    const char *token);
/* Whether the orphan s still waits for its shell; when not (the shell
 * ended, or its time is up) it is ended here, its lock freed: false. */
bool mgmt_persist_orphan_alive(struct mgmt *, struct mgmt_session *s);
/* Why the configure lock is held by orphan s, for configure's refusal. */
void mgmt_persist_orphan_why(const struct mgmt_session *s, char *buf,
    size_t len);
/* Ends a session: mgmt_session_close, keeping its journal when keep. */
void mgmt_session_free(struct mgmt *, struct mgmt_session *, bool keep);

#endif
