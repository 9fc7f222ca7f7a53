/* ipc/ipc.h: libtern-ipc, the only way tern processes talk: pipelined, batched, typed calls and events over Unix sockets. */
#ifndef IPC_H
#define IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>
#include <protobuf-c/protobuf-c.h>

#include "libcommon/lc_err.h"

/*
 * Model (details in docs/ipc.md):
 * - A server offers one service (ipc_svc_rib, ...) on RUNDIR/SERVICE.sock
 *   and RUNDIR/SERVICE-ro.sock; methods flagged IPC_M_ADMIN are refused
 *   (IPC_DENIED) on the read-only socket, methods flagged IPC_M_COMPONENT
 *   to a peer that is not one of tern's components (its uid, SO_PEERCRED).
 *   Who may open each socket is struct ipc_access (docs/ipc.md, "Roles").
 *   Every socket also answers the lifecycle service (hello, status, ping,
 *   echo, shutdown).
 * - A client connects by service name, says hello (component name,
 *   generation, protocol version) and makes async calls: many in flight,
 *   matched by request id, each with a deadline and a typed status.
 * - Calls made during one loop turn leave as one frame, flushed just before
 *   the loop blocks (lc_loop_hook) or when the frame reaches batch_max.
 *   When the socket is full, calls keep aggregating up to hwm bytes, then
 *   ipc_call() returns -ENOBUFS and on_writable() fires when it drained.
 *   Nothing is resent and nothing is dropped without a status.
 * - Servers push events to subscribed clients on the same connection, with
 *   a per-connection sequence number; a gap calls on_resync().
 * - A peer's new generation fails the calls in flight with
 *   IPC_PEER_RESTARTED and calls on_peer_restart() so the owner resyncs.
 * Decoded messages (requests in handlers, replies and events in callbacks)
 * live in a per-frame arena: valid only during the callback. Copy what you
 * keep.
 */

#define IPC_PROTOCOL_VERSION   1
#define IPC_FRAME_MAX_DEFAULT  (16u << 20) /* bytes, whole frame */
#define IPC_BATCH_MAX_DEFAULT  (64u << 10) /* flush a frame at this size */
#define IPC_HWM_DEFAULT	       (8u << 20)  /* queued bytes before -ENOBUFS */
#define IPC_TIMEOUT_DEFAULT_MS 5000
/* a server's limits (struct ipc_opts) */
#define IPC_CONN_MAX_DEFAULT	 256
#define IPC_FRAME_MAX_RO_DEFAULT (64u << 10)
#define IPC_RX_BUDGET_DEFAULT	 (64u << 20)
#define IPC_RX_BUDGET_RO_DEFAULT (4u << 20)
#define IPC_HELLO_TIMEOUT_MS	 5000
#define IPC_FRAME_TIMEOUT_MS	 10000

/* Status of a call, as seen by the caller (and put in replies by servers). */
enum ipc_status {
	IPC_OK = 0,
	IPC_ERROR,	    /* the handler failed; see the message */
	IPC_TIMEOUT,	    /* no reply before the deadline */
	IPC_UNKNOWN_METHOD, /* method id not offered by the server */
	IPC_BAD_REQUEST,    /* payload did not decode, or a malformed frame */
	IPC_VERSION,	    /* protocol version mismatch */
	IPC_PEER_RESTARTED, /* connection lost / new generation: outcome unknown */
	IPC_NO_SPACE,	    /* receiver is out of room (back-pressure) */
	IPC_DENIED,    /* admin method on the read-only socket, component-only
		       method from another peer, or no permission to connect */
	IPC_TOO_BIG,   /* frame or payload over the peer's frame_max */
	IPC_CANCELLED, /* the client was freed with the call pending */
	IPC_UNAVAILABLE, /* the server has no handler ready (starting, shutting down) */
	IPC_STATUS__COUNT
};
/* "OK", "TIMEOUT", ...; "?" for an unknown value. */
const char *ipc_status_str(int status);
/*
 * The -errno a caller sees in its struct lc_err for a status: IPC_OK 0,
 * IPC_ERROR -EIO, IPC_TIMEOUT -ETIMEDOUT, IPC_UNKNOWN_METHOD -ENOSYS,
 * IPC_BAD_REQUEST -EBADMSG, IPC_VERSION -EPROTO, IPC_PEER_RESTARTED
 * -ECONNRESET, IPC_NO_SPACE -ENOBUFS, IPC_DENIED -EPERM, IPC_TOO_BIG
 * -EMSGSIZE, IPC_CANCELLED -ECANCELED, IPC_UNAVAILABLE -EAGAIN; -EIO for an
 * unknown value. The wire carries the status and the text only, so a
 * handler's own code (say -EINVAL) reaches the caller as IPC_ERROR, -EIO.
 */
int ipc_status_errno(int status);

/* Method flags, in the service tables (ipc_svc_*). */
#define IPC_M_ADMIN 0x1 /* changes state: refused on SERVICE-ro.sock */
#define IPC_M_EVENT 0x2 /* server -> client event, never called */
/*
 * Only tern's components may call it (resync, FIB and route batches,
 * interface and protocol config, start/stop of components): refused with
 * IPC_DENIED, counted (ipc_stats.denied) and logged, to a peer whose uid
 * (SO_PEERCRED) is not root, the server's own or ipc_access.comp_uid.
 */
#define IPC_M_COMPONENT 0x4
/* Each call is logged (notice) with the caller's uid, pid and component. */
#define IPC_M_AUDIT 0x8

struct ipc_method_desc {
	const char *name;
	const ProtobufCMessageDescriptor *req; /* request / event payload */
	const ProtobufCMessageDescriptor *rep; /* reply payload */
	unsigned flags;
};

/*
 * Service flags. IPC_SVC_FRONT: the read-write socket is the
 * administrators' door (mgmt: configure, commit, restart through it), so
 * it takes the admin group ($TERN_ADMIN_GROUP); other services'
 * read-write sockets are for the components only.
 */
#define IPC_SVC_FRONT 0x1

/* A service: its id (lifecycle.Service) and methods indexed by method id. */
struct ipc_service_desc {
	const char *name; /* socket name: RUNDIR/<name>.sock */
	unsigned id;
	unsigned n_methods; /* methods[0 .. n_methods-1], [0] unused */
	const struct ipc_method_desc *methods;
	unsigned flags; /* IPC_SVC_* */
};

extern const struct ipc_service_desc ipc_svc_lifecycle;
extern const struct ipc_service_desc ipc_svc_rtrmgr;
extern const struct ipc_service_desc ipc_svc_mgmt;
extern const struct ipc_service_desc ipc_svc_rib;
extern const struct ipc_service_desc ipc_svc_fwd;
extern const struct ipc_service_desc ipc_svc_bgp;

/*
 * Method argument of ipc_call(): a method id of the connection's service,
 * or IPC_LC(LIFECYCLE__METHOD__STATUS) for a lifecycle method.
 */
#define IPC_LC_BIT 0x10000u
#define IPC_LC(m)  (IPC_LC_BIT | (unsigned)(m))

/*
 * Who may use a server's sockets (docs/ipc.md, "Roles"). The socket files
 * are the first gate: each is owner-only (0600) unless it has a group
 * (0660); the kernel refuses connect() to anyone else. IPC_M_COMPONENT
 * methods are the second: they are served only to root, the server's own
 * euid and comp_uid, whatever socket the peer came through.
 */
#define IPC_ID_NONE ((unsigned)-1) /* as a uid_t or gid_t: not set */
struct ipc_access {
	uid_t owner;	/* of both socket files; IPC_ID_NONE: ours */
	gid_t ro_group; /* SERVICE-ro.sock 0660 with it; IPC_ID_NONE: 0600 */
	gid_t rw_group; /* SERVICE.sock 0660 with it; IPC_ID_NONE: 0600 */
	uid_t comp_uid; /* another uid trusted as a component; IPC_ID_NONE */
};
/*
 * The access a server has when ipc_opts.access is NULL: owner ours,
 * ro_group from $TERN_OPERATOR_GROUP, rw_group from $TERN_ADMIN_GROUP for
 * a service flagged IPC_SVC_FRONT (else none), comp_uid none. A variable
 * holds a group name or number (tern-rtrmgr passes numbers); unset or
 * empty: none. 0, or -EINVAL (a name that is no group).
 */
int ipc_access_from_env(const struct ipc_service_desc *svc,
    struct ipc_access *a);

/* Options shared by servers and clients; a zeroed struct means defaults. */
struct ipc_opts {
	const char *rundir;    /* NULL: $TERN_RUNDIR, else /run/tern */
	const char *component; /* our name in hello; NULL: program name */
	uint64_t generation; /* 0: from the clock and pid (unique per start) */
	uint32_t frame_max;  /* 0: IPC_FRAME_MAX_DEFAULT */
	uint32_t batch_max;  /* 0: IPC_BATCH_MAX_DEFAULT */
	uint32_t hwm;	     /* 0: IPC_HWM_DEFAULT */
	uint32_t
	    timeout_ms; /* default call timeout; 0: IPC_TIMEOUT_DEFAULT_MS */

	/*
	 * Limits of a server (clients ignore them; docs/ipc.md, "Limits").
	 * Each socket (SERVICE.sock, SERVICE-ro.sock) has its own counts, so
	 * a flood of one leaves the other served.
	 */
	uint32_t conn_max; /* connections per socket; 0: IPC_CONN_MAX_DEFAULT,
				  at most RLIMIT_NOFILE / 4 */
	uint32_t conn_max_uid; /* per socket and peer uid; 0: conn_max / 4 */
	uint32_t frame_max_ro; /* largest frame from a read-only peer; 0:
				  IPC_FRAME_MAX_RO_DEFAULT (never above frame_max) */
	uint32_t rx_budget;    /* bytes of incomplete frames over 16 KiB held
				  for the peers of SERVICE.sock; 0: 64 MiB */
	uint32_t rx_budget_ro; /* the same for SERVICE-ro.sock; 0: 4 MiB */
	uint32_t hello_timeout_ms; /* no hello by then: closed; 0: 5000 */
	uint32_t frame_timeout_ms; /* a frame not complete by then: closed;
				      0: 10000 */

	uint32_t reconnect_ms; /* client: retry interval; 0: 100 */
	uint32_t work_max;     /* records handled per read turn; 0: 4096 */
	/* server: who may use the sockets (copied); NULL: ipc_access_from_env */
	const struct ipc_access *access;
};

/* Counters (ipc_server_stats / ipc_client_stats). */
struct ipc_stats {
	uint64_t calls_out, calls_in, replies_out, replies_in;
	uint64_t events_out, events_in;
	uint64_t frames_out, frames_in, bytes_out, bytes_in;
	uint64_t drops; /* records or frames refused (bad input) */

	/*
	 * Servers: connections refused or closed by the limits, by reason.
	 * A refused connection is accepted, told why (an UNAVAILABLE reply
	 * to id 0) and closed.
	 */
	uint64_t shed_conn_max; /* over the socket's conn_max */
	uint64_t shed_uid_max;	/* over conn_max_uid for the peer's uid */
	uint64_t shed_no_fd;	/* out of fds: taken on the reserve fd */
	uint64_t accept_errors; /* accept() failures (EMFILE, ENOBUFS, ...) */
	uint64_t accept_pauses; /* a listener stopped for IPC_ACCEPT_PAUSE_MS */
	uint64_t hello_timeouts;    /* closed: no hello in hello_timeout_ms */
	uint64_t frame_timeouts;    /* closed: a frame incomplete too long */
	uint64_t rx_budget_refused; /* frames refused (NO_SPACE): the socket's
				       rx_budget was spent */

	uint64_t timeouts, errors, connects, restarts, nobufs;
	/* server: calls refused as IPC_M_COMPONENT from another peer;
	   client: connects refused for permissions (EACCES, EPERM) */
	uint64_t denied;
};

/* ---- server ------------------------------------------------------------ */

struct ipc_server;
struct ipc_req;	 /* one incoming call, owned by the library until replied */
struct ipc_peer; /* one connected client */

/*
 * A handler runs for each call of its method. msg is the decoded request
 * (valid during the handler only). It must answer exactly once with
 * ipc_reply()/ipc_reply_error(), now or later (the req stays valid until
 * then; if the peer is gone by then the reply is discarded).
 */
typedef void ipc_handler_fn(struct ipc_req *req, const ProtobufCMessage *msg,
    void *arg);

struct ipc_server_cbs {
	/* A client said hello; restarted is true when its name was seen before with another generation. */
	void (*on_peer)(struct ipc_server *, struct ipc_peer *, bool restarted,
	    void *arg);
	void (*on_peer_gone)(struct ipc_server *, struct ipc_peer *, void *arg);
	/* lifecycle SHUTDOWN (admin); if unset, the call is answered IPC_UNAVAILABLE. */
	void (*on_shutdown)(struct ipc_server *, const char *reason, void *arg);
	void *arg;
};

/*
 * Creates RUNDIR (0750) if needed and binds RUNDIR/<svc>.sock and
 * RUNDIR/<svc>-ro.sock with the owner, groups and modes of opts->access
 * (struct ipc_access), replacing stale sockets. No one but the owner can
 * connect before they are set. The server runs in `loop` from here on.
 * NULL with errno: EINVAL (also: a group in the environment that does not
 * exist), ENAMETOOLONG, EADDRINUSE (a live server owns the socket),
 * ENOMEM, EPERM (a group we are not in), or bind/chmod errors.
 */
struct ipc_server *ipc_server_new(struct ev_loop *loop,
    const struct ipc_service_desc *svc, const struct ipc_opts *opts);
/* Closes the sockets and connections (unlinks the socket files). Pending reqs are dropped: do not reply to them afterwards. Not from inside a handler. NULL is a no-op. */
void ipc_server_free(struct ipc_server *);
/* Sets the handler of `method` (an id of the server's service). 0, or -EINVAL (out of range, an event id). */
int ipc_server_handle(struct ipc_server *, unsigned method, ipc_handler_fn *fn,
    void *arg);
void ipc_server_set_cbs(struct ipc_server *, const struct ipc_server_cbs *);
/* Text shown in lifecycle STATUS replies ("running", "resyncing"). Copied. */
void ipc_server_set_state(struct ipc_server *, const char *state);
void ipc_server_stats(const struct ipc_server *, struct ipc_stats *);
uint64_t ipc_server_generation(const struct ipc_server *);
/* Path of the read-write (ro = false) or read-only socket. */
const char *ipc_server_path(const struct ipc_server *, bool ro);

/*
 * Answers req with status and (for IPC_OK) reply msg (NULL: empty payload).
 * The reply joins this loop turn's frame to that peer. req is released.
 * 0; -EMSGSIZE (the reply is over frame_max: the caller gets IPC_TOO_BIG
 * instead); -ENOBUFS (the peer's queue is over hwm: the caller gets
 * IPC_NO_SPACE); -ENOTCONN (the peer left; the req is released anyway).
 */
int ipc_reply(struct ipc_req *req, int status, const ProtobufCMessage *msg);
/* Answers with a non-OK status and a printf message (the caller sees it). Same returns. */
int ipc_reply_error(struct ipc_req *req, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * As ipc_reply_error() with err's message (a handler's struct lc_err);
 * IPC_OK becomes IPC_ERROR. The code and index do not travel (the caller
 * gets the status's code, see ipc_status_errno). Same returns.
 */
int ipc_reply_err(struct ipc_req *req, int status, const struct lc_err *err);
/* The caller of req (valid until the reply). */
struct ipc_peer *ipc_req_peer(const struct ipc_req *req);
/* Subscribes the caller's connection to this server's events (ipc_server_publish). */
void ipc_req_subscribe(struct ipc_req *req);

const char *ipc_peer_component(const struct ipc_peer *);
uint64_t ipc_peer_generation(const struct ipc_peer *);
bool ipc_peer_read_only(const struct ipc_peer *);

/*
 * Who a peer is, as the kernel saw it when it connected (SO_PEERCRED on the
 * accepted socket): the process that called connect(), its effective uid
 * and gid. Not what the peer says about itself (hello's component name, a
 * user name in a request): a handler that needs to know who asks uses this.
 */
struct ipc_cred {
	pid_t pid;
	uid_t uid;
	gid_t gid;
};
/* 0 with *c filled; -ENOENT when the transport could not tell (*c zeroed). */
int ipc_peer_cred(const struct ipc_peer *, struct ipc_cred *c);

/*
 * Sends an event (a method flagged IPC_M_EVENT) to every subscribed peer,
 * on their call connection, numbered per connection. Returns the number of
 * peers it was queued for. A peer whose queue is over hwm misses it and
 * sees a sequence gap (on_resync): never a silent loss.
 */
int ipc_server_publish(struct ipc_server *, unsigned method,
    const ProtobufCMessage *msg);
/* The same to one peer: 0, -EINVAL, -ENOBUFS (counted as a gap), -EMSGSIZE. */
int ipc_peer_send_event(struct ipc_peer *, unsigned method,
    const ProtobufCMessage *msg);

/* ---- client ------------------------------------------------------------ */

struct ipc_client;

/*
 * Reply callback: status IPC_OK with the decoded reply (msg may be NULL if
 * the reply had no payload and no descriptor), or an error status and msg
 * NULL. err is never NULL and valid during the call only: err->code is 0 on
 * IPC_OK, else ipc_status_errno(status); err->index is LC_ERR_NOINDEX;
 * err->msg is the server's or the client's text ("" when none). Callers
 * switch on status. Called exactly once per accepted call, never from
 * inside ipc_call().
 */
typedef void ipc_reply_fn(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg);

struct ipc_client_cbs {
	/* The server came back with another generation: calls in flight already failed with IPC_PEER_RESTARTED; resync. */
	void (*on_peer_restart)(struct ipc_client *, uint64_t old_gen,
	    uint64_t new_gen, void *arg);
	/* Hello done (first connect and every reconnect). */
	void (*on_connect)(struct ipc_client *, uint64_t peer_gen, void *arg);
	/* An event (method flagged IPC_M_EVENT) arrived. */
	void (*on_event)(struct ipc_client *, unsigned method,
	    const ProtobufCMessage *msg, void *arg);
	/* Events were missed (sequence gap): resync the state they describe. */
	void (*on_resync)(struct ipc_client *, uint64_t missed, void *arg);
	/* The queue drained below hwm after ipc_call() returned -ENOBUFS. */
	void (*on_writable)(struct ipc_client *, void *arg);
	void *arg;
};

/*
 * Client of service svc at RUNDIR/<svc>.sock (read_only: <svc>-ro.sock).
 * Connects asynchronously and reconnects by itself; calls made before the
 * connection is up are queued (bounded by hwm) and keep their deadlines.
 * When connect() is refused for permissions (EACCES, EPERM) the calls do
 * not wait for their deadline: they fail at once (in the next loop turn)
 * with IPC_DENIED and ipc_access_explain()'s text, and are never sent; it
 * keeps trying to connect as usual, in case the permissions change.
 * NULL with errno: EINVAL, ENAMETOOLONG, ENOMEM.
 */
struct ipc_client *ipc_client_new(struct ev_loop *loop,
    const struct ipc_service_desc *svc, const struct ipc_opts *opts,
    bool read_only);
/* Fails pending calls with IPC_CANCELLED (callbacks run), closes. NULL is a no-op. Not from inside one of this client's callbacks. */
void ipc_client_free(struct ipc_client *);
void ipc_client_set_cbs(struct ipc_client *, const struct ipc_client_cbs *);

/*
 * Queues a call of `method` (see IPC_LC) with request msg (NULL = empty).
 * cb(arg, ...) runs exactly once when it is answered, fails or times out.
 * timeout_ms 0 = the client's default. The deadline counts from
 * lc_now_ns(), the start of this loop turn: a caller outside the loop that
 * may have blocked since the last turn calls lc_now_update() and
 * ev_now_update() first (ipc_call_wait does).
 * Returns 0 (accepted), -EINVAL (unknown method, event method, wrong
 * message type), -EMSGSIZE (over the peer's frame_max), -ENOBUFS (queue
 * over hwm: back-pressure, retry from on_writable), -ENOMEM.
 */
int ipc_call(struct ipc_client *, unsigned method, const ProtobufCMessage *msg,
    ipc_reply_fn *cb, void *arg, uint32_t timeout_ms);
/* As ipc_call() with an already packed payload (len bytes copied). */
int ipc_call_raw(struct ipc_client *, unsigned method, const void *payload,
    size_t len, ipc_reply_fn *cb, void *arg, uint32_t timeout_ms);
/* Sends the batched calls now instead of at the end of the loop turn. 0 or -errno of the socket. */
int ipc_client_flush(struct ipc_client *);
/*
 * Blocking helper for tools and tests: runs the loop until the call is
 * answered. Called from outside the loop: the deadline counts from the
 * moment of the call, however long the caller blocked since the loop last
 * ran (the cached clocks are refreshed first). Returns the status; *reply (decoded into `arena`, which the
 * caller resets) on IPC_OK. *err (NULL: not wanted) is filled as for a
 * reply callback: cleared on IPC_OK, else the status's code and the text;
 * a call refused before it was sent gives IPC_TOO_BIG, IPC_NO_SPACE or
 * IPC_ERROR with ipc_call()'s -errno as the code.
 */
struct lc_arena;
int ipc_call_wait(struct ipc_client *, unsigned method,
    const ProtobufCMessage *msg, uint32_t timeout_ms, struct lc_arena *arena,
    ProtobufCMessage **reply, struct lc_err *err);

bool ipc_client_connected(const struct ipc_client *);
uint64_t ipc_client_peer_generation(const struct ipc_client *);
unsigned ipc_client_inflight(const struct ipc_client *);
void ipc_client_stats(const struct ipc_client *, struct ipc_stats *);

/* ---- misc -------------------------------------------------------------- */

/* RUNDIR: explicit if non-NULL, else $TERN_RUNDIR, else TERN_RUN_DIR
 * (build/gen/tern_paths.h: $(RUNSTATEDIR)/tern, /run/tern by default). */
const char *ipc_rundir(const char *explicit_dir);
/* A generation number for this process start (clock ns ^ pid << 48). */
uint64_t ipc_generation_new(void);
/*
 * Why this process may not connect to the socket at path, for a person:
 * "PATH: permission denied: for group G (srw-rw---- owner:G), which uid U
 * is not in", "... only its owner O and root may use it (...)", or the
 * directory on the way that cannot be entered. Always fills buf (NUL
 * terminated, truncated to len); returns buf.
 */
char *ipc_access_explain(const char *path, char *buf, size_t len);

#endif /* IPC_H */
