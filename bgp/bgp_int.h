/* bgp/bgp_int.h: tern-bgp's daemon state (docs/bgp.md): the configuration it
 * runs, its neighbours with their sessions (bgp_peer.c: the RFC 4271 FSM
 * over kernel TCP sockets), and the IPC it serves (bgp_d.c). */
#ifndef BGP_INT_H
#define BGP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_err.h"
#include "libcommon/lc_loop.h"

#include "bgp_adj.h"
#include "bgp_attr.h"
#include "bgp_d.h"
#include "bgp_msg.h"
#include "bgp_rib.h"
#include "bgp_rib6.h"
#include "bgp_policy.h"

#define BGP_PEERS_MAX	     (BGP_RIB_PEERS - 1)
#define BGP_HOLD_DEFAULT     90	   /* s */
#define BGP_RETRY_DEFAULT    30	   /* s: ConnectRetryTime, the backoff's cap */
#define BGP_RETRY_FIRST_MS   1000  /* the first retry; doubled up to the cap */
#define BGP_OPEN_HOLD	     240   /* s: the hold timer in OpenSent (8.2.2) */
#define BGP_IDLE_HOLD_MAX_MS 60000 /* damping of a flapping session */
#define BGP_MSG_MAX	     BGP_MAX_LEN
#define BGP_RX_BUF	     (BGP_MSG_MAX * 16)
#define BGP_TX_BUF	     (BGP_MSG_MAX * 64)
#define BGP_ERR_MAX	     160
#define BGP_STALE_PATH_S     360 /* s: a restarted neighbour's End-of-RIB */

/* RFC 4271 8.2.2 */
enum bgp_state {
	BGP_IDLE,
	BGP_CONNECT,
	BGP_ACTIVE,
	BGP_OPEN_SENT,
	BGP_OPEN_CONFIRM,
	BGP_ESTABLISHED,
};

/* A neighbour as configured (bgp.proto Neighbor, decoded). */
struct bgp_nconf {
	uint32_t addr; /* network order */
	uint32_t remote_as, local_as;
	char descr[128];
	bool passive, next_hop_self, gr, shutdown;
	unsigned hold, retry; /* s */
	unsigned ttl;	      /* multihop TTL; 0: directly connected */
	uint32_t local_addr;  /* network order, 0: any */
	char md5[81];	      /* TCP MD5 keys are at most 80 bytes */
	char import[64], export[64];
	uint8_t afs;		   /* BGP_AF_BIT()s configured (IPv4 default) */
	bool has_local6;	   /* local_addr6 configured */
	struct lc_ip6 local_addr6; /* our IPv6 next hop (next-hop self) */
};

/* One TCP connection of a neighbour: ours (connect) or theirs (accept). Two
 * can exist at once until the collision is resolved (RFC 4271 6.8). */
struct bgp_conn {
	struct bgp_peer *p;
	int fd; /* -1: none */
	bool inbound;
	enum bgp_state state; /* CONNECT .. ESTABLISHED */
	ev_io rio, wio;
	uint8_t *rx, *tx; /* BGP_RX_BUF, BGP_TX_BUF */
	unsigned rlen, toff, tlen;
	uint32_t remote_id; /* from its OPEN, network order */
	bool open_seen;
	bool after_est; /* accepted while the session was Established */
};

struct bgp_peer {
	struct bgp_d *d;
	struct bgp_nconf c;
	bool configured;	 /* in the running config (a sweep mark) */
	enum bgp_state state;	 /* the best of its connections' */
	struct bgp_conn conn[2]; /* [0] outbound, [1] inbound */
	ev_timer retry;		 /* ConnectRetry / IdleHold */
	ev_timer hold, keep;
	unsigned retry_ms;     /* next connect retry (backoff) */
	unsigned idle_hold_ms; /* damping after a flap; 0: none */
	ev_tstamp state_since;
	/* negotiated (Established) */
	unsigned hold_neg, keep_neg;
	uint32_t remote_id;
	bool cap_as4, cap_mp4, cap_rr, cap_gr;
	/* the neighbour's graceful restart capability (RFC 4724 3) */
	unsigned peer_gr_time; /* s: its Restart Time */
	bool peer_gr_r;	       /* R: it restarted */
	bool peer_gr_v4;       /* IPv4 unicast listed: we keep its routes */
	bool peer_gr_f4;       /* ... F: its forwarding state was kept */
	/* N (RFC 8538): it keeps graceful restart through a NOTIFICATION;
	 * with ours, a session ending on any NOTIFICATION but a Hard Reset
	 * is helped to restart, both ways */
	bool peer_gr_n;
	/* helping it restart (RFC 4724 4.2): its paths kept, flagged stale,
	 * until its End-of-RIB; gr_timer is the Restart Time while the
	 * session is down, then BGP_STALE_PATH_S while waiting for EoR */
	enum { BGP_GR_NONE, BGP_GR_WAIT, BGP_GR_EOR } gr_help;
	ev_timer gr_timer;
	size_t gr_stale;    /* paths flagged stale when it went down */
	unsigned gr_helped; /* restarts helped */
	bool hold_expired;  /* the session ends on the hold timer */
	bool hard_reset;    /* ...on a Hard Reset sent or received */
	/* IPv6 unicast (RFC 4760, 2545): the peer's capabilities, the
	 * families both announced, its graceful restart entry for IPv6 */
	uint8_t peer_afs, afs_neg;
	bool peer_gr_v6, peer_gr_f6;
	bool eor6_rcvd;
	struct bgp_adv6 *adv6;	/* advertising IPv6 (bgp_adv6.c); NULL: not */
	struct bgp_codec codec; /* how this session encodes (bgp_msg.h) */
	unsigned id;		/* its paths' peer id in the rib (bgp_rib.h) */
	struct bgp_policy *imp, *exp; /* c.import / c.export in d->pol */
	/* advertising (bgp_adv.c) */
	struct bgp_adj out; /* Adj-RIB-Out */
	uint64_t *advq;	    /* prefixes to judge again: addr << 8 | len */
	size_t advq_h, advq_n, advq_cap;
	uint32_t adv_cursor; /* the walk of the whole table */
	bool adv_on, adv_walk, adv_lost, eor_sent;
	uint32_t local_ip;   /* the session's local address (next hop self) */
	bool eor_rcvd;	     /* End-of-RIB received (RFC 4724) */
	uint64_t upd_errors; /* UPDATEs with an RFC 7606 outcome */
	/* counters */
	uint64_t msgs_in, msgs_out, updates_in, updates_out;
	uint64_t pfx_adv;
	unsigned flaps;
	uint64_t refresh_in, refresh_out; /* ROUTE-REFRESH messages */
	char last_error[BGP_ERR_MAX];
	bool err_sent;	/* last_error is a NOTIFICATION just sent */
	bool err_notif; /* last_error is a NOTIFICATION */
};

/* The client of tern-rib (bgp_ribc.c). */
struct bgp_ribc {
	struct ipc_client *cl;
	struct lc_loop_hook hook;
	ev_timer deferral; /* selection deferral after start (RFC 4724) */
	ev_tstamp started;
	bool deferral_over;
	bool begin_acked; /* the first RESYNC_BEGIN answered */
	bool restarting;  /* ... and rib had routes of ours */
	bool need_resync; /* connected: RESYNC_BEGIN and everything again */
	bool resyncing;	  /* RESYNC_END not sent yet */
	bool nh_rewatch;  /* every next hop to be watched again */
	unsigned inflight;
	uint64_t seq, acked, batch;
	uint64_t sent, accepted, rejected; /* routes */
	struct ipc_route_set set;
	struct ipc_route_enc enc;
	uint64_t *del; /* the batch's deletes: addr << 8 | len */
	size_t ndel, capdel;
	struct lc_prefix6 *del6; /* the batch's IPv6 deletes */
	size_t ndel6, capdel6;
	uint64_t *run; /* next-hop set id -> batch << 32 | index in set.nh */
	size_t caprun;
};

struct bgp_d {
	struct ev_loop *loop;
	struct ipc_server *srv;
	unsigned port;
	bool enabled;
	uint32_t local_as;
	uint32_t router_id;  /* network order; 0: not known yet */
	bool router_id_conf; /* configured, not chosen */
	unsigned gr_time;    /* s */
	int lfd;	     /* listening socket; -1 */
	ev_io lio;
	struct bgp_peer *peers[BGP_PEERS_MAX];
	unsigned npeers;
	uint64_t config_txn;
	bool config_seen; /* mgmt's config arrived once */
	struct bgp_rib *rib;
	struct bgp_rib6 *rib6; /* IPv6 unicast (bgp_rib6.c) */
	struct bgp_ribc rc;
	struct bgp_policy_scratch *pscr;      /* where policies build changes */
	struct bgp_upd_builder upd;	      /* UPDATEs being advertised */
	uint8_t adv_path[BGP_ATTR_CANON_MAX]; /* an exported AS path */
	uint8_t peer_ids[BGP_RIB_PEERS];      /* 1: id in use */
	/* attribute sets shared by every neighbour's routes, stored once */
	struct bgp_intern *intern;
	uint8_t scratch[BGP_ASPATH_SCRATCH]; /* a 2-octet session's AS path */
	uint8_t canon[BGP_ATTR_CANON_MAX];   /* the set being interned */
	struct lc_prefix4 nlri[BGP_MAX_LEN]; /* one UPDATE's prefixes */
	/* policy-options as running (bgp_policy.h), swapped at apply */
	struct bgp_policy_set *pol;
	/* a config coming in parts (bgp_d.c); NULL: none */
	struct bgp_cfg_parts *parts;
};

/* bgp_peer.c */
struct bgp_peer *bgp_peer_new(struct bgp_d *, const struct bgp_nconf *);
/* Closed with a Cease (subcode: RFC 4486) if up, and freed. */
void bgp_peer_free(struct bgp_peer *, unsigned cease_subcode);
/* A changed configuration: applied; the session is reset when what it
 * negotiated or how it connects changed. */
void bgp_peer_reconf(struct bgp_peer *, const struct bgp_nconf *);
/* An accepted connection from the peer's address. */
void bgp_peer_accept(struct bgp_peer *, int fd);
/* Reset the session (Cease, administrative reset) and start again. */
void bgp_peer_clear(struct bgp_peer *);
const char *bgp_state_name(enum bgp_state);
/* TCP MD5 key for addr on fd (empty key: removed). 0 or -errno. */
int bgp_md5_set(int fd, uint32_t addr, const char *key);

/* bgp_peer.c: the Established connection (NULL: none), its send buffer */
struct bgp_conn *bgp_peer_conn(struct bgp_peer *);
unsigned bgp_conn_room(const struct bgp_conn *);
/* Appends a whole message (no send yet): 0, or -ENOBUFS. */
int bgp_conn_put(struct bgp_conn *, const uint8_t *msg, size_t len);
void bgp_conn_send(struct bgp_conn *);
/* A loop turn as soon as the socket takes more (there is more to send). */
void bgp_conn_poll_write(struct bgp_conn *);
/* clear bgp neighbor A soft: everything advertised again, and a
 * ROUTE-REFRESH asked of the neighbour (0, -ENOTCONN, -ENOBUFS). */
int bgp_peer_soft(struct bgp_peer *);
/* Closes the session with Cease 8 (out of resources) and why. */
void bgp_peer_reset(struct bgp_peer *, const char *why);

/* bgp_adv.c */
void bgp_adv_init(struct bgp_d *);
/* Established: the whole table is walked and sent, then End-of-RIB. */
void bgp_adv_start(struct bgp_peer *, uint32_t local_addr);
void bgp_adv_stop(struct bgp_peer *);
/* Route refresh (RFC 2918): every route sent again. */
void bgp_adv_refresh(struct bgp_peer *);
/* The export policy changed: the table judged again (only changes go). */
void bgp_adv_again(struct bgp_peer *);
/* Once per loop turn: what the sessions' send buffers take. */
void bgp_adv_run(struct bgp_d *);
bool bgp_adv_busy(const struct bgp_d *);
/* d->upd's message into c's send buffer: 0, or -ENOBUFS. */
int bgp_adv_put(struct bgp_peer *, struct bgp_conn *);

/* bgp_adv6.c: advertising IPv6 unicast, the same way (docs/bgp.md "IPv6
 * unicast") */
void bgp_adv6_init(struct bgp_d *);
void bgp_adv6_start(struct bgp_peer *);
void bgp_adv6_stop(struct bgp_peer *);
void bgp_adv6_refresh(struct bgp_peer *);
void bgp_adv6_again(struct bgp_peer *);
/* What the send buffer takes now: 1 more to send, 0 done (End-of-RIB
 * sent), < 0 the buffer overflowed. */
int bgp_adv6_run_peer(struct bgp_peer *, struct bgp_conn *);
bool bgp_adv6_busy(const struct bgp_peer *);
size_t bgp_adv6_count(const struct bgp_peer *); /* Adj-RIB-Out6 size */
/* The export decision for any family (bgp_adv.c): the set to send to p
 * for the best path (from, b) of the route rt (its af and prefix), with
 * our next hop nh6 for IPv6 (NULL: none known: nothing goes to eBGP). A
 * reference, or NULL. */
struct bgp_aset *bgp_adv_export(struct bgp_peer *p, unsigned from,
    struct bgp_aset *b, const struct bgp_policy_route *rt,
    const struct lc_ip6 *nh6);

/* bgp_ribc.c */
int bgp_ribc_init(struct bgp_d *, const struct ipc_opts *);
void bgp_ribc_fini(struct bgp_d *);
/* Whether rib said if this is a restart (or kept silent 2 s). */
bool bgp_ribc_known(struct bgp_d *);
/* May we advertise? Not while restarting (rib kept our routes) until every
 * neighbour's End-of-RIB came or the deferral is over (RFC 4724 4.1). */
bool bgp_ribc_adv_ok(struct bgp_d *);
/* The graceful restart time changed (config): the deferral follows it. */
void bgp_ribc_deferral(struct bgp_d *);

/* The import policy's verdict on a path (RFC 8212 without one): the set
 * to use (a reference the caller owns), or NULL with *why. */
struct bgp_aset *bgp_peer_import(struct bgp_peer *, uint32_t addr, uint8_t len,
    struct bgp_aset *in, uint8_t *why);
struct bgp_aset *bgp_peer_import6(struct bgp_peer *,
    const struct lc_prefix6 *pfx, struct bgp_aset *in, uint8_t *why);
/* The import policy changed: the Adj-RIB-In runs through it again. */
void bgp_peer_reimport(struct bgp_peer *);

/* bgp_show.c: QUERY_ROUTES (show bgp route, show bgp neighbor A
 * received-routes | advertised-routes) */
void bgp_show_init(struct bgp_d *);
/* One page of q's view into *l, allocated in ar (l points into it): 0,
 * -EINVAL (a bad query), -ENOENT (no such neighbour), -ENOMEM; err says
 * why. */
int bgp_show_routes(struct bgp_d *, const Bgp__RouteQuery *q,
    struct lc_arena *ar, Bgp__RouteList *l, struct lc_err *err);

/* bgp_d.c */
struct bgp_peer *bgp_d_peer_find(struct bgp_d *, uint32_t addr);
uint32_t bgp_d_router_id(struct bgp_d *);

#endif /* BGP_INT_H */
