/* rib/rib_d_int.h: the tern-rib daemon's private state, shared by rib_d.c (life cycle), rib_in.c (routes in, queries) and rib_fwd.c (the fwd session). */
#ifndef RIB_D_INT_H
#define RIB_D_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_loop.h"

#include "rib_d.h"

#define RD_IF_ADDRS   16 /* addresses per interface kept */
#define RD_IFNAME_MAX 32
#define RD_IF_UNKNOWN RIB_IFINDEX_MAX /* a name fwd has not told: down */
#define RD_FB_SLOTS   4096u	      /* pointer -> run cache, a power of 2 */

struct rd_src {
	struct ipc_peer *peer; /* owner while connected (protocols) */
	uint64_t seq;	       /* last batch seq */
	ev_timer grace;
	bool grace_on;
	bool used;
};

struct rd_if {
	uint32_t ifindex;
	char name[RD_IFNAME_MAX];
	bool up;
	bool seen;
	unsigned naddr;
	struct lc_prefix4 addr[RD_IF_ADDRS];
	/* IPv6: the subnets of Interface.addrs6 (in use: DAD passed; not the
	 * link-local, fe80::/64 on every link, nor tentative ones) */
	unsigned naddr6;
	struct lc_prefix6 addr6[RD_IF_ADDRS];
};

/* A (prefix, ifindex) pair of a connected route; IPv4 (family 0) sorts
 * first, then IPv6 (AF_INET6, pfx6). */
struct rd_conn {
	struct lc_prefix4 pfx;
	uint32_t ifindex;
	uint8_t family;
	struct lc_prefix6 pfx6;
};

/* A static route with next hops given by interface name. */
struct rd_named {
	struct lc_prefix4 pfx;
	uint8_t family; /* AF_INET6: pfx6 */
	struct lc_prefix6 pfx6;
	uint8_t type;
	int16_t distance;
	uint32_t metric;
	unsigned n;
	struct rib_nexthop nh[RIB_NH_MAX];    /* addresses as given */
	char name[RIB_NH_MAX][RD_IFNAME_MAX]; /* "" = none */
	uint32_t ifindex[RIB_NH_MAX];	      /* as resolved when added */
};

/* A static route of a transaction's part with next hops given by interface
 * name: resolved again when the transaction is applied. */
struct rd_tname {
	size_t k;		     /* its index in the transaction */
	unsigned n;		     /* next hops */
	char (*name)[RD_IFNAME_MAX]; /* n names, "" = none */
};

/* A transaction in parts (RouteBatch.txn) being gathered: one at a time. */
struct rd_txn {
	struct ipc_peer *peer; /* its sender; NULL: none */
	uint64_t txn;
	uint32_t next_part;
	unsigned src;
	struct rib_route_upd *upd; /* the parts' updates, in order */
	size_t n, cap;
	struct lc_arena *ar; /* their next hops and names (never moved) */
	struct rd_tname *names;
	size_t nnames, capnames;
	ev_timer idle;
	uint64_t started_ns;
};

/* One FIB_BATCH in flight: the seq we sent (acked even if fwd's FibAck
 * does not echo it). */
struct rd_call {
	struct rib_d *d;
	uint64_t seq;
	struct rd_call *next;
};

/* A FIB group's hop array (found by pointer) -> its run in the batch's
 * next-hop table. */
struct rd_fbslot {
	const struct rib_nexthop *nh;
	uint32_t first;
	uint32_t n;
	uint64_t gen;
};

struct rib_d {
	struct ev_loop *loop;
	struct rib *rib;
	struct ipc_server *srv;
	struct ipc_client *fwd;
	struct lc_loop_hook hook;
	struct lc_arena *arena; /* query replies */
	uint32_t hold_ms, grace_ms;

	struct rd_src src[RIB_SOURCE_MAX];

	/* fwd session */
	enum rib_d_fwd_state fs;
	bool fwd_blocked;	      /* ipc_call said -ENOBUFS */
	bool fwd_redo;		      /* an error: start the session again */
	bool ifs_synced;	      /* SUBSCRIBE answered in this session */
	bool begin_done;	      /* RESYNC_BEGIN answered */
	bool fwd_packed;	      /* fwd's FibAck said packed_ok */
	bool static_synced;	      /* mgmt ended a static resync */
	bool hold_over;		      /* the start hold timer expired */
	unsigned hold_extended;	      /* times, while mgmt is resyncing */
	struct ipc_peer *static_peer; /* began a static resync, not ended */
	ev_timer hold;
	uint64_t session; /* counts fwd sessions */
	const char *state;

	/* interfaces and connected routes */
	struct rd_if *ifs;
	size_t nifs, capifs;
	struct rd_conn *conn; /* installed, sorted */
	size_t nconn;
	struct rd_named **named;
	size_t nnamed, capnamed;

	/* scratch */
	struct ipc_route_set in; /* a decoded RouteBatch */
	struct rib_route_upd *upd;
	size_t capupd;
	struct rib_nexthop *nh;
	size_t capnh;
	struct ipc_route_set out; /* a FIB batch being encoded */
	struct ipc_route_enc enc;
	struct rd_fbslot *fbslot; /* hop array -> next-hop table run */
	uint64_t fbgen;		  /* batch of the valid slots */
	struct rd_call *calls;	  /* free FIB call contexts */

	struct rd_txn txn; /* rib_in.c */

	/* next-hop tracking (rib_nht.c) */
	struct rd_watch *watch;
	size_t nwatch, capwatch;
};

/* The lifecycle STATUS state from the fwd session and the static resync. */
void rib_d_set_state(struct rib_d *);

/* rib_in.c: rib.sock's handlers, sources and their grace timers, static
 * routes by interface name (remembered; rib_fwd.c re-resolves them) */
void rib_d_in_init(struct rib_d *);
void rib_d_in_fini(struct rib_d *);

/* rib_nht.c: next-hop tracking (NH_WATCH, NH_CHANGED events) */
#define RIB_D_WATCH_MAX 4096 /* watched next hops, all connections */
struct rd_watch {
	struct ipc_peer *peer;
	uint32_t addr; /* network order */
	uint32_t id;   /* rib_nh_watch()'s */
	struct rib_nh_state told;
};
void rib_d_nht_init(struct rib_d *);
void rib_d_nht_fini(struct rib_d *);
/* Once per loop turn: changed states to their watchers. */
void rib_d_nht_turn(struct rib_d *);
void rib_d_nht_peer_gone(struct rib_d *, struct ipc_peer *);

/* rib_fwd.c: interfaces and connected routes from fwd, FIB download and
 * resync */
int rib_d_fwd_init(struct rib_d *, const struct ipc_opts *);
void rib_d_fwd_fini(struct rib_d *);
/* Once per loop turn: the session's next step, and the FIB queue out. */
void rib_d_fwd_turn(struct rib_d *);
/* Sends what the FIB queue holds to fwd, up to the window. */
void rib_d_fib_push(struct rib_d *);
struct rd_if *rib_d_if_by_index(struct rib_d *, uint32_t ifindex);
/* The ifindex of an interface name, RD_IF_UNKNOWN when fwd has not told. */
uint32_t rib_d_if_resolve(struct rib_d *, const char *name);

#endif /* RIB_D_INT_H */
