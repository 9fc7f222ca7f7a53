/* ipc/ipc_int.h: libtern-ipc internals: the frame format, the connection (byte stream + batching), server and client state. */
#ifndef IPC_INT_H
#define IPC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/ipc.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_loop.h"

/*
 * Frame: one header then `count` records, all in host byte order (Unix
 * sockets on one host). Several frames may follow each other on a stream.
 *
 *  frame header (24 bytes)          record header (16 bytes) + payload
 *  0  u32 magic  IPC_MAGIC           0  u32 id       request id / event seq
 *  4  u8  version                    4  u8  service  lifecycle.Service
 *  5  u8  flags (0)                  5  u8  kind     IPC_K_REQ/REP/EVENT
 *  6  u16 hdr_len (24)               6  u16 method
 *  8  u32 count                      8  i32 status   enum ipc_status
 *  12 u32 length (bytes after hdr)   12 u32 len      payload bytes
 *  16 u64 generation of the sender   16 payload: protobuf, or the error text
 *                                       when status != IPC_OK
 */
#define IPC_MAGIC	  0x43504954u /* "TIPC" in memory on LE */
#define IPC_FRAME_VERSION 1
#define IPC_FRAME_HDR	  24u
#define IPC_REC_HDR	  16u
#define IPC_FRAME_MIN_MAX 4096u /* smallest frame_max accepted */
/*
 * After handling a request with at least this many payload bytes, a server
 * sends the replies it has queued to that peer at once instead of at the end
 * of the loop turn: reading and handling such a request costs far more than
 * one more writev, and the client can reuse the window at once (a turn that
 * read four 1 MiB calls otherwise acks none until the fourth is read).
 */
#define IPC_FLUSH_REC (16u << 10)

enum ipc_kind { IPC_K_REQ = 0, IPC_K_REP = 1, IPC_K_EVENT = 2, IPC_K__COUNT };

struct ipc_frame_hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t flags;
	uint16_t hdr_len;
	uint32_t count;
	uint32_t length;
	uint64_t generation;
};

struct ipc_rec {
	uint32_t id;
	uint8_t service;
	uint8_t kind;
	uint16_t method;
	int32_t status;
	uint32_t len;
	const uint8_t *payload;
};

/*
 * Header check on the first bytes of a stream: 0 with *h filled; -EAGAIN
 * (fewer than IPC_FRAME_HDR bytes); -EBADMSG (bad magic or header length:
 * the stream cannot be trusted); -EPROTONOSUPPORT (other version: h->length
 * is still usable to skip it); -EMSGSIZE (length over frame_max; h filled).
 */
int ipc_frame_hdr_parse(const uint8_t *p, size_t avail, uint32_t frame_max,
    struct ipc_frame_hdr *h);
/*
 * Validates a whole frame body (the `length` bytes after the header): count
 * records whose lengths add up exactly, kinds in range. 0 or -EBADMSG.
 */
int ipc_frame_body_check(const struct ipc_frame_hdr *h, const uint8_t *body);
/* Reads the record at *off of a checked body and advances *off. */
void ipc_frame_rec_read(const uint8_t *body, size_t *off, struct ipc_rec *r);
/*
 * Parses a buffer holding whole frames (the fuzz entry point): calls fn for
 * every record of every valid frame. Returns frames accepted, or -errno of
 * the first bad frame (the rest is not looked at).
 */
int ipc_frame_parse_all(const uint8_t *p, size_t len, uint32_t frame_max,
    void (*fn)(const struct ipc_rec *, void *), void *arg);

/* Header writers (the layout above). */
void ipc_frame_hdr_write(uint8_t *p, uint32_t count, uint32_t length,
    uint64_t generation);
void ipc_rec_hdr_write(uint8_t *p, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, uint32_t len);

/* ---- outgoing queue: frames being built and bytes waiting to be written --- */

/*
 * Two buffers so a large backlog is never moved: frames are built in b;
 * w is being written. When w is empty and b holds only closed frames, they
 * swap (no copy). b is consumed directly only while a frame is open in it,
 * which bounds any compaction to one open frame (<= batch_max).
 */
struct ipc_txq {
	struct lc_buf b;  /* [off, len): frames being built / not yet written */
	struct lc_buf w;  /* closed frames being written */
	size_t frame_rel; /* open frame header at head + frame_rel */
	uint32_t frame_count; /* records in the open frame */
	bool open;
	uint64_t generation; /* written in every header */
};

void ipc_txq_init(struct ipc_txq *, uint64_t generation);
void ipc_txq_fini(struct ipc_txq *);
/* Forgets everything queued (connection lost). */
void ipc_txq_reset(struct ipc_txq *);
/* Closes the open frame (fills count and length); drops it if empty. */
void ipc_txq_close(struct ipc_txq *);
/* Bytes of the open frame, header included (0 when none). */
size_t ipc_txq_open_size(const struct ipc_txq *);
/*
 * Appends a record header + room for plen payload bytes to the open frame
 * (opening one), and returns where the payload goes. NULL on ENOMEM.
 */
uint8_t *ipc_txq_rec(struct ipc_txq *, uint32_t id, uint8_t service,
    uint8_t kind, uint16_t method, int32_t status, uint32_t plen);
/*
 * Gives back the last `unused` bytes of the record just appended (payload
 * at p, room asked for by ipc_txq_rec: a bound), fixing its length.
 */
void ipc_txq_trim(struct ipc_txq *, uint8_t *p, uint32_t plen, uint32_t unused);
/* Bytes of b ready to write (closed frames only). */
static inline size_t
ipc_txq_ready_b(const struct ipc_txq *q)
{
	return (q->open ? q->frame_rel : lc_buf_avail(&q->b));
}
/* Bytes ready to write (closed frames only). */
static inline size_t
ipc_txq_ready(const struct ipc_txq *q)
{
	return (lc_buf_avail(&q->w) + ipc_txq_ready_b(q));
}

/* ---- transport: a byte stream with a pollable fd -------------------------- */

/*
 * What the library needs from a transport: a connection is an fd libev can
 * watch for readability and writability, carrying a byte stream. Functions
 * return an fd / a byte count, or -errno (-EAGAIN when it would block).
 * ipc_transport_unix (AF_UNIX SOCK_STREAM) is the one in use; docs/ipc.md
 * says why not nanomsg.
 */
struct iovec;
struct ipc_transport {
	const char *name;
	int (*listen)(const char *path, unsigned mode);
	int (*accept)(int lfd);
	int (*connect)(const char *path);
	void (*tune)(int fd, int bufsz);
	ssize_t (*read)(int fd, void *buf, size_t len);
	ssize_t (*writev)(int fd, const struct iovec *iov, int cnt);
	/* Waits up to timeout_ms for room to write: 1 writable, 0 not yet, -errno. */
	int (*wait_writable)(int fd, int timeout_ms);
	void (*close)(int fd);
	/* The credentials of the peer of an accepted fd: 0 or -errno. */
	int (*peer_cred)(int fd, struct ipc_cred *c);
};
extern const struct ipc_transport ipc_transport_unix;

/* ---- connection: a stream socket with batching and framing --------------- */

struct ipc_conn;
struct ipc_conn_ops {
	/* A whole, header-checked frame (body validated). Return false to stop reading (conn closing). */
	bool (*on_frame)(struct ipc_conn *, const struct ipc_frame_hdr *,
	    const uint8_t *body);
	/* Bad input (frame refused): status + text for an error reply to id 0. */
	void (*on_bad)(struct ipc_conn *, int status, const char *what);
	/* EOF or a socket error: the owner closes the connection. */
	void (*on_down)(struct ipc_conn *, int err);
	/* Queue drained below hwm/2 after an -ENOBUFS. */
	void (*on_drain)(struct ipc_conn *);
};

/*
 * A socket's budget of receive memory: the bytes of incomplete frames over
 * IPC_RX_FREE held for all of its connections (ipc_conn.c). A frame that
 * would pass max is refused (NO_SPACE) and skipped as it arrives.
 */
#define IPC_RX_FREE (16u << 10)
/* Receive buffers up to this size stay while idle (the read chunk). */
#define IPC_RX_KEEP (256u << 10)
struct ipc_rxbudget {
	size_t max, used;
};

struct ipc_conn {
	const struct ipc_transport *tp;
	int fd;
	struct ev_loop *loop;
	ev_io rio, wio;
	struct ipc_txq tx;
	struct lc_buf rx;
	uint64_t discard;	 /* bytes of a refused frame still to skip */
	uint32_t frame_max;	 /* largest frame we accept */
	uint32_t peer_frame_max; /* largest the peer accepts */
	uint32_t batch_max, hwm, work_max;
	bool want_drain; /* someone got -ENOBUFS */
	bool down;	 /* on_down already reported */
	bool wr_dead;	 /* the peer hung up: read what it sent, then down */
	/*
	 * Receive limits (a server's peers; a client has no budget): the
	 * socket's budget, what the frame being received is charged to it,
	 * lc_now_ns() when that frame was first seen incomplete (0: none)
	 * and of the last read.
	 */
	struct ipc_rxbudget *budget;
	size_t rx_charged;
	uint64_t rx_since, rx_last;
	const struct ipc_conn_ops *ops;
	struct ipc_stats *st;
	void *owner;
};

void ipc_conn_init(struct ipc_conn *, struct ev_loop *,
    const struct ipc_conn_ops *, void *owner, struct ipc_stats *,
    const struct ipc_opts *, uint64_t generation);
/* Takes ownership of fd (non-blocking) and starts reading. */
void ipc_conn_attach(struct ipc_conn *, int fd);
/* Stops watchers, closes the fd, forgets queued bytes (buffers kept for reuse). */
void ipc_conn_detach(struct ipc_conn *);
void ipc_conn_fini(struct ipc_conn *);
/*
 * Gives the receive buffer's memory back when nothing is buffered and the
 * last read was at least idle_ns before now (a peer that sent a large
 * frame keeps none of it while idle). true when released.
 */
bool ipc_conn_rx_release_idle(struct ipc_conn *, uint64_t now,
    uint64_t idle_ns);
/*
 * Room check before appending a record of plen payload bytes: 0, -ENOBUFS
 * (over hwm; want_drain set), -EMSGSIZE (a frame with it would exceed
 * peer_frame_max). Closes and flushes the open frame first if the record
 * would push it over batch_max or peer_frame_max.
 */
int ipc_conn_room(struct ipc_conn *, size_t plen);
/* After appending: flushes when the open frame reached batch_max. */
void ipc_conn_appended(struct ipc_conn *);
/* Closes the open frame and writes what the socket takes. 0, or -errno (connection down, reported). */
int ipc_conn_flush(struct ipc_conn *);
/* Packs msg (or copies raw) as one record. Returns 0 or -errno as ipc_conn_room, -ENOMEM. */
int ipc_conn_put(struct ipc_conn *, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, const ProtobufCMessage *msg,
    const void *raw, size_t rawlen);
/* Queued bytes (open frame included). */
static inline size_t
ipc_conn_queued(const struct ipc_conn *c)
{
	return (lc_buf_avail(&c->tx.w) + lc_buf_avail(&c->tx.b));
}

/* ---- helpers ------------------------------------------------------------- */

/*
 * Upper bound of protobuf_c_message_get_packed_size(m), much cheaper to
 * compute (ipc_pbsize.c); SIZE_MAX when not known (use the exact size).
 */
size_t ipc_pb_bound(const ProtobufCMessage *m);
/* protobuf-c allocator that takes from an arena (free is a no-op). */
void ipc_arena_allocator(ProtobufCAllocator *, struct lc_arena *);
/*
 * After a record: resets the decode arena; when decoding it took more than
 * the arena's first chunk (which is all a reset keeps), replaces the arena
 * with one whose first chunk is that big (doubling, up to IPC_ARENA_MAX), so
 * large messages in steady state allocate nothing either. *ap and alloc's
 * data change then.
 */
#define IPC_ARENA_MAX (1u << 20)
void ipc_arena_recycle(struct lc_arena **ap, ProtobufCAllocator *alloc);
/* Method descriptor for (service, method) of svc or lifecycle; NULL when out of range or unnamed. */
const struct ipc_method_desc *ipc_method_lookup(const struct ipc_service_desc
						    *svc,
    unsigned service, unsigned method);
/* RUNDIR/<name>[-ro].sock into buf. 0 or -ENAMETOOLONG. */
int ipc_sock_path(char *buf, size_t len, const char *rundir, const char *name,
    bool ro);
const char *ipc_default_component(void);
/* ipc_route.c: grows an array of *cap elements to hold need, doubling,
 * with realloc (ar NULL) or from the arena (the old copy stays there).
 * 0 or -ENOMEM. */
int ipc_route_grow(struct lc_arena *ar, void **p, size_t *cap, size_t need,
    size_t elem);

/* ---- server limits (ipc_limit.c) ------------------------------------------ */

struct ipc_listener;

/* A listener that failed to accept stops for this long (no busy loop). */
#define IPC_ACCEPT_PAUSE_MS 100
/* Connections taken (or shed) per listener per loop turn. */
#define IPC_ACCEPT_TURN 64
/* An idle peer's receive buffer is freed after this long without a read. */
#define IPC_RX_IDLE_NS (1000ull * 1000000ull)

/* Fills the limit fields of o left 0 with their defaults (RLIMIT_NOFILE). */
void ipc_limits_opts(struct ipc_opts *o);
/* Sets up the server's reserve fd and tick, its listeners' caps, budgets and
 * pause timers (s->o filled). */
void ipc_limits_init(struct ipc_server *s);
/* Stops the timers, closes the reserve fd. */
void ipc_limits_fini(struct ipc_server *s);
/* The listener is readable: takes, or refuses, up to IPC_ACCEPT_TURN. */
void ipc_limits_accept(struct ipc_listener *l);
/* A peer left: its socket's counts go down. */
void ipc_limits_peer_gone(struct ipc_peer *p);
/* From the server's end-of-turn hook: arms or stops the tick (need: some
 * peer has a hello, a frame or a buffer to watch). */
void ipc_limits_turn(struct ipc_server *s, bool need);
/* Does peer p need the tick (no hello yet, a frame in progress, a large
 * buffer to give back)? A hello of another version was one: its calls are
 * answered VERSION. */
bool ipc_limits_watch(const struct ipc_peer *p);
/* Adds the limits' counters to a STATUS reply (valid until the next call). */
struct Lifecycle__Status;
void ipc_limits_status(const struct ipc_server *s,
    struct Lifecycle__Status *st);

/*
 * ipc_server.c, for ipc_limit.c: a new peer of l on fd (taken), with the
 * kernel's credentials (NULL: unknown). NULL on ENOMEM (fd not taken).
 */
struct ipc_peer *ipc_server_peer_add(struct ipc_listener *l, int fd,
    const struct ipc_cred *cred);
/* Closes p at once (reason already counted and told). */
void ipc_server_peer_drop(struct ipc_peer *p);

/* ---- server and client state ------------------------------------------- */

#define IPC_NAME_MAX 64

struct ipc_peer {
	struct ipc_conn c;
	struct ipc_server *srv;
	struct ipc_peer *next, *prev;

	/* limits (ipc_limit.c) */
	struct ipc_listener *lst; /* the socket it came in on */
	int uid_slot;		  /* lst->uids[] counting it; -1: none */
	uint64_t accepted_ns;	  /* lc_now_ns() at accept (hello timeout) */

	char component[IPC_NAME_MAX];
	uint64_t generation;
	uint64_t ev_seq; /* last event sequence number used */
	unsigned refs;	 /* reqs not yet answered + 1 while connected */
	bool ro, hello, subscribed, closed, bad_version;
	bool has_cred;	      /* cred was taken at accept */
	struct ipc_cred cred; /* ipc_peer_cred() */
	/* ipc_auth.c: whether cred is a component's, worked out once */
	bool auth_known, auth_comp;
};

struct ipc_req {
	struct ipc_peer *peer;
	uint32_t id;
	uint16_t method;
	uint8_t service;
};

/* Connections per uid on one socket (ipc_limit.c): a few users connect. */
#define IPC_UID_SLOTS 32
struct ipc_uid_count {
	uid_t uid;
	uint32_t n; /* 0: free slot */
};

struct ipc_listener {
	struct ipc_server *srv;
	int fd;
	ev_io w;
	bool ro;
	char path[108];
	/* limits (ipc_limit.c) */
	uint32_t conn_max, conn_max_uid, frame_max;
	uint32_t n_conns;
	struct ipc_uid_count uids[IPC_UID_SLOTS];
	struct ipc_rxbudget budget;
	ev_timer pause;	       /* accept stopped after an error, until this */
	uint64_t burst_errors; /* accept errors of the burst being logged */
};

struct ipc_handler {
	ipc_handler_fn *fn;
	void *arg;
};

struct ipc_known {
	char component[IPC_NAME_MAX];
	uint64_t generation;
};
#define IPC_KNOWN_MAX 64

struct ipc_server {
	struct ev_loop *loop;
	const struct ipc_service_desc *svc;
	struct ipc_opts o;
	char component[IPC_NAME_MAX];
	char state[32];
	uint64_t generation, start_ns;
	struct ipc_listener l[2];

	/* limits (ipc_limit.c) */
	int reserve_fd;	   /* kept open to accept and shed when out of fds */
	ev_timer tick;	   /* hello and frame timeouts, idle buffers */
	uint64_t tick_due; /* when the running tick should fire next */
	uint64_t hello_to_ns, frame_to_ns;

	struct ipc_handler *handlers;
	struct ipc_peer *peers;
	struct lc_loop_hook hook;
	struct lc_arena *arena;
	ProtobufCAllocator alloc;
	struct lc_pool reqs;
	struct ipc_server_cbs cbs;
	struct ipc_stats st;
	struct ipc_known known[IPC_KNOWN_MAX];
	unsigned n_known;
	struct ipc_access acc; /* ipc_auth.c */
};

/* ---- access (ipc_auth.c) ------------------------------------------------- */

/*
 * Gives the socket at path (bound 0600 and listening) the owner and group
 * of a (ro: the read-only socket's group), then 0660 when it has a group.
 * 0 or -errno of chown/chmod.
 */
int ipc_auth_socket(const char *path, const struct ipc_access *a, bool ro);
/*
 * Whether p may call m: IPC_OK, or IPC_DENIED with the reason in why (an
 * admin method on the read-only socket; a component-only method from a
 * peer that is not a component: counted in s->st.denied and logged,
 * rate-limited).
 */
int ipc_auth_check(struct ipc_server *s, struct ipc_peer *p,
    const struct ipc_method_desc *m, char *why, size_t len);
/* Logs a call of an IPC_M_AUDIT method: its caller and request fields. */
void ipc_auth_audit(const struct ipc_server *s, const struct ipc_peer *p,
    const struct ipc_method_desc *m, const ProtobufCMessage *msg);

#endif /* IPC_INT_H */
