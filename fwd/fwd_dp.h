/* fwd/fwd_dp.h: the forwarding fast path: burst in, parse, look up, rewrite,
 * burst out; drops counted by reason. */
#ifndef FWD_DP_H
#define FWD_DP_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_adj.h"
#include "fwd_fib.h"
#include "fwd_fib6.h"
#include "fwd_pkt.h"
#include "fwd_port.h"
#include "fwd_qsbr.h"

/* ---- the router's own addresses: a small exact-match set ---- */

#define FWD_LOCAL_MAX 64

/*
 * Written by the control thread. The data path never reads it: each address
 * is pinned in the FIB to a LOCAL adjacency (fwd_local_bind, fwd_fib_pin),
 * so the route lookup finds it, on the fast path and in the classifier.
 */
struct fwd_local {
	uint32_t addr[FWD_LOCAL_MAX]; /* host order */
	unsigned n;
	struct fwd_fib *fib; /* where the addresses are pinned (bound) */
	unsigned nh;	     /* to this LOCAL adjacency */
};

/* Is a one of the set's addresses? (Control side: a scan of at most 64.) */
static inline bool
fwd_local_has(const struct fwd_local *l, uint32_t a)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->addr[i] == a)
			return (true);
	return (false);
}

/* Pin the set's addresses, those there now and those to come, in fib to
 * nh (a LOCAL adjacency). 0, or fwd_fib_pin's error (nothing pinned). */
int fwd_local_bind(struct fwd_local *, struct fwd_fib *fib, unsigned nh);
/* 0, -EEXIST, -ENOSPC (FWD_LOCAL_MAX addresses), fwd_fib_pin's error. */
int fwd_local_add(struct fwd_local *, uint32_t addr);
/* 0, -ENOENT. */
int fwd_local_del(struct fwd_local *, uint32_t addr);

/* ---- counters ---- */

/* Per worker; summed on read (fwd_dp_stats_sum). */
struct fwd_dp_stats {
	uint64_t rx;		       /* packets processed */
	uint64_t fwd;		       /* accepted by an egress port */
	uint64_t reason[FWD_R__COUNT]; /* not forwarded, by reason */
	uint64_t punt_refused;	       /* slow path did not take it */
};

/*
 * Slow path hand-off. Called on the worker for each packet the fast path
 * does not forward and that needs the slow path (fwd_reason_is_slow). aux:
 * FWD_R_RESOLVE: the adjacency index (K_NH: resolve its gw; K_GLEAN:
 * resolve the packet's dst); FWD_R_MTU_DF: the egress MTU; FWD_R_MTU_FRAG:
 * the adjacency index; otherwise 0. Returns true when it took ownership of
 * pkt (it must fwd_pkt_release it, typically after copying it to a queue
 * for the control thread); false leaves it to the fast path, which drops it
 * and counts punt_refused.
 */
typedef bool fwd_dp_punt_fn(void *arg, struct fwd_pkt *pkt, enum fwd_reason why,
    unsigned aux);

/* fwd_dp_conf.flags */
/*
 * look a burst up at once, prefetching:                           \
 * for full tables and many flows
 */
#define FWD_DP_F_BURST_LOOKUP 0x1

struct fwd_dp_conf {
	const struct fwd_fib *fib;
	/* IPv6 (type 0x86dd): routed when set, the router's own addresses
	 * pinned in it to local->nh as /128s; NULL: IPv6 frames are dropped
	 * (ethertype) */
	const struct fwd_fib6 *fib6;
	const struct fwd_adj_tbl *adj;
	const struct fwd_local *local;
	struct fwd_port *const *ports; /* this worker's, by port id */
	unsigned nports;	       /* <= FWD_PORT_MAX */
	fwd_dp_punt_fn *punt;	       /* NULL: slow packets dropped */
	void *punt_arg;
	struct fwd_qsbr_thread *qsbr; /* NULL: caller reports QS */
	unsigned flags;		      /* FWD_DP_F_* */
};

/* One worker's fast path state. Not shared between threads. */
struct fwd_dp {
	/* first: the per-packet queueing addresses it with no offset */
	struct fwd_pkt **txt[FWD_PORT_MAX]; /* next free slot of txq[p] */
	struct fwd_dp_conf conf;
	struct fwd_dp_stats st;
	uint64_t txmask;  /* packets queued (0: none) */
	unsigned npunted; /* this burst, taken by punt */
	uint32_t cl_dst;  /* scratch of the slow classifier */
	unsigned cl_iplen;
	/* fwd_ttl_floor's copy: addressed from dp, which the fast loop has in
	 * a register (the global's address took one, spilled: +1 instruction
	 * per packet) */
	uint8_t ttl_floor[256];
	struct fwd_pkt *txq[FWD_PORT_MAX][FWD_BURST];
};

/* Set up dp (caller's storage). 0, -EINVAL (missing fib/adj/local/ports). */
int fwd_dp_init(struct fwd_dp *, const struct fwd_dp_conf *);
void fwd_dp_fini(struct fwd_dp *);

/*
 * The fast path on a burst of at most FWD_BURST packets received on port
 * in_port: checks, LPM, adjacency, TTL and checksum, Ethernet rewrite, and
 * the same for IPv6 (fwd_pkt6 checks, FIB6 lookup, hop limit, rewrite; a
 * packet over the egress MTU goes to the slow path as FWD_R_MTU_DF with
 * the MTU, for a Packet Too Big: no router fragments IPv6), off the IPv4
 * loop (in the branch its quick test fails to), and
 * queueing on the egress port's batch (sent by fwd_dp_flush, which must
 * run before the next call, else this one flushes first). Every packet is
 * queued, handed to the slow path, or released and counted. No port I/O.
 * Returns the number queued for sending.
 */
unsigned fwd_dp_process(struct fwd_dp *, uint16_t in_port,
    struct fwd_pkt **pkts, unsigned n);

/* Send every queued batch (one tx burst per port). Returns packets sent. */
unsigned fwd_dp_flush(struct fwd_dp *);

/*
 * One poll of one port: receive a burst, process it, flush, and report a
 * quiescent state if conf.qsbr is set. Returns packets received.
 */
unsigned fwd_dp_poll(struct fwd_dp *, struct fwd_port *in);

/* sum += dp's counters (reads another thread's counters: relaxed loads). */
void fwd_dp_stats_sum(struct fwd_dp_stats *sum, const struct fwd_dp *);

#endif /* FWD_DP_H */
