/* fwd/fwd_d.h: the tern-fwd daemon object: control thread state (interfaces,
 * FIB and next-hop interning, ARP/ICMP, IPC), worker threads, punt rings. */
#ifndef FWD_D_H
#define FWD_D_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>
#include <net/if.h>

#include "libcommon/lc_err.h"
#include "fwd_adj.h"
#include "fwd_arp.h"
#include "fwd_d_nd.h"
#include "fwd_dp.h"
#include "fwd_fib.h"
#include "fwd_fib6.h"
#include "fwd_host.h"
#include "fwd_icmp.h"
#include "fwd_icmp6.h"
#include "fwd_port.h"
#include "fwd_qsbr.h"
#include "fwd_slow.h"

#define FWD_D_WORKERS_MAX 16
#define FWD_D_PORT_DEAD	  (FWD_PORT_MAX - 1) /* never attached: adj DOWN */
#define FWD_D_IF_MAX	  (FWD_PORT_MAX - 1) /* interfaces: port ids 0..62 */
#define FWD_D_NEIGH_MAX	  64 /* static neighbours per interface (config) */
/* ARP entries: every interface's static ones, and learned ones */
#define FWD_D_ARP_MAX	  8192
#define FWD_D_MEM_IFINDEX 10000u /* ifindex of a "mem" port: this + id */
#define FWD_D_PUNT_BUFS	  256	 /* per worker */
#define FWD_D_MAX_NH	  8192	 /* default adjacency / FIB next-hop space */
#define FWD_D_ADDR6_MAX	  16	 /* IPv6 addresses per interface (config) */
#define FWD_D_USE6_MAX	  (FWD_D_ADDR6_MAX + 2) /* in use, link-locals too */

struct fwd_d;
struct fwd_worker;
struct fwd_xdp_umem;
struct fwd_nl;
struct mnl_socket;
struct fwd_reap;
struct fwd_gro;

/*
 * Port factory for the "mem" backend (tests): the port of worker w (0..) for
 * interface name with port id, or the control thread's send port (w < 0).
 * NULL and errno to refuse.
 */
typedef struct fwd_port *fwd_d_port_fn(void *arg, const char *name, uint16_t id,
    int w);

struct fwd_d_conf {
	const char *rundir;  /* IPC sockets; NULL: $TERN_RUNDIR or /run/tern */
	uint64_t generation; /* IPC generation; 0: new one */
	/*
	 * Worker threads, 1..FWD_D_WORKERS_MAX; 0 = no threads: one worker
	 * state polled by fwd_d_poll() on the caller's thread (unit tests).
	 */
	unsigned workers;
	unsigned max_nh; /* 0: FWD_D_MAX_NH */
	/* busy-poll this long after the last packet; 0: 50 */
	unsigned spin_us;
	unsigned idle_ms;	   /* poll() timeout when idle; 0: 1 */
	unsigned ring_frames;	   /* AF_PACKET RX ring per socket; 0: 4096 */
	unsigned icmp_rate;	   /* ICMP errors per second; 0: 100 */
	unsigned arp_reachable_ms; /* fwd_arp_conf.reachable_ms; 0: 30000 */
	/* worker k pinned to CPU cpus[k] (fwd_cpus_parse); ncpus 0: none */
	unsigned ncpus;
	uint16_t cpus[FWD_D_WORKERS_MAX];
	/* SO_BUSY_POLL (us) and SO_PREFER_BUSY_POLL on the AF_XDP sockets,
	 * which the workers then poll with recvfrom when empty; 0: off */
	unsigned busy_poll_us;
	bool allow_mem; /* accept backend "mem" (tests) */
	/* IPv6 addresses in use at once, without Duplicate Address
	 * Detection (DupAddrDetectTransmits 0, RFC 4862 5.1; tests) */
	bool nd_no_dad;
	fwd_d_port_fn *port_new; /* "mem" ports; NULL: fwd_port_mem_new */
	void *port_arg;
};

/* Punted frame, copied by a worker for the control thread. */
struct fwd_punt {
	uint16_t len, port;
	uint8_t why;
	unsigned aux;
	uint8_t data[FWD_FRAME_MAX];
};

/*
 * What a worker reads of the control thread's settings: its own copy, made
 * by the control thread when the worker is created and with every port set
 * it publishes (fwd_workers_publish), so a worker never reads struct fwd_d.
 */
struct fwd_worker_conf {
	bool threaded; /* a thread of its own (fwd_d_conf.workers > 0) */
	int cpu;       /* pinned to this CPU; -1: not pinned */
	unsigned spin_us, idle_ms, busy_poll_us; /* fwd_d_conf's */
	unsigned dp_flags;			 /* FWD_DP_F_* */
	/* the punt wake-up: ev_async_send(loop, punt) */
	struct ev_loop *loop;
	ev_async *punt;
};

struct fwd_worker {
	unsigned id;
	struct fwd_worker_conf conf;	  /* the worker's */
	struct fwd_worker_conf next_conf; /* written by control */
	pthread_t thr;
	bool started;
	struct fwd_dp dp;
	struct fwd_qsbr_thread *qs;
	struct fwd_port *ports[FWD_PORT_MAX];	   /* the worker's view */
	struct fwd_port *next_ports[FWD_PORT_MAX]; /* written by control */
	unsigned cfg_gen, cfg_ack, cur_gen;	   /* atomics */
	int stop;				   /* atomic */
	int efd;				   /* eventfd: wake up */
	struct lc_ring *puntq, *freeq;
	struct fwd_punt *bufs;
	bool punted;
	uint64_t punt_full; /* punts refused: ring or buffers exhausted */
	uint64_t polls, sleeps;
	unsigned tx_turns; /* full turns since held frames were sent */
};

/* An IPv6 address of the router's in use on an interface. */
struct fwd_addr6 {
	uint8_t a[16];
	uint8_t plen; /* 128 for a link-local */
	bool ll;
};

/* One configured interface (index = port id). */
struct fwd_iface {
	bool used;
	char name[IFNAMSIZ];
	uint32_t ifindex;
	/* configuration */
	bool enabled;
	uint16_t mtu_conf;
	uint8_t backend; /* FWD_D_BK_*: the one in use */
	/*
	 * configured "auto": AF_XDP where the device can (a queue per
	 * worker, XDP attaches), else AF_PACKET
	 */
	bool bk_auto;
	/*
	 * auto: AF_XDP failed to open here; not retried while the interface
	 * stays configured
	 */
	bool xdp_failed;
	unsigned naddr;
	uint32_t addr[FWD_LOCAL_MAX]; /* host order */
	uint8_t plen[FWD_LOCAL_MAX];
	unsigned nneigh; /* static neighbours (in fwd_arp while attached) */
	uint32_t neigh_ip[FWD_D_NEIGH_MAX]; /* host order */
	uint8_t neigh_mac[FWD_D_NEIGH_MAX][6];
	struct fwd_d_nd_cfg nd; /* RAs (fwd_d_nd.c) */
	/* state */
	bool attached, link_up;
	/* the device is not there (deleted, renamed away, or missing when
	 * the full set came): kept configured, attached when it appears */
	bool absent;
	uint16_t
	    mtu; /* in use: mtu_conf or the device's, at most the device's */
	/* the device's MTU (read at attach, then with the link state); 0 for
	 * a memory port (no device) */
	uint16_t dev_mtu;
	uint8_t mac[6];
	int glean; /* adjacency of (0, ifindex), held while attached */
	/* IPv6 (docs/ipv6.md): the configured global addresses, the
	 * configured link-local (has_ll; else ND derives one), IPv6 off */
	unsigned naddr6;
	uint8_t addr6[FWD_D_ADDR6_MAX][16];
	uint8_t plen6[FWD_D_ADDR6_MAX];
	bool has_ll, ipv6_off;
	uint8_t ll6[16];
	/* static IPv6 neighbours (ND's static entries: fwd_d_nd.c) */
	unsigned nneigh6;
	uint8_t neigh6_ip[FWD_D_NEIGH_MAX][16];
	uint8_t neigh6_mac[FWD_D_NEIGH_MAX][6];
	/* the addresses in use (DAD passed), link-local too:
	 * each /128 pinned to the LOCAL adjacency, each global's prefix
	 * connected (glean6); fwd_d_addr6_set keeps it */
	struct fwd_addr6 use6[FWD_D_USE6_MAX];
	unsigned nuse6;
	int glean6; /* adjacency of (::, ifindex), held while attached */
	struct fwd_port *wport[FWD_D_WORKERS_MAX];
	struct fwd_port *txport;
	/* of worker ports closed while attached (the worker count changed) */
	struct fwd_port_stats gone;
	/* the host path (fwd_host.c): configured on, and its TAP */
	bool host_conf;
	struct fwd_host_if host;
	/* clear interfaces statistics (fwd_ops.c): the counters then, which
	 * `show interfaces` subtracts; the raw ones stay monotonic */
	bool cleared;
	uint64_t cleared_ms;
	struct fwd_port_stats base;
	struct fwd_host_stats host_base;
};

enum { FWD_D_BK_AFP = 0, FWD_D_BK_MEM = 1, FWD_D_BK_XDP = 2 };

/* Kinds of adjacency records the control side owns (rec[idx].kind). */
enum { FWD_REC_NONE = 0, FWD_REC_NH, FWD_REC_GROUP, FWD_REC_DROP };

struct fwd_rec {
	uint8_t kind;
	uint8_t nm;   /* GROUP: members */
	bool dying;   /* unreferenced: released after a grace period */
	uint32_t gw;  /* NH: host order, 0 = attached (glean) */
	bool v6;      /* NH: IPv6, gw6 its gateway (:: = attached) */
	bool host6;   /* NH v6: a neighbour's /128 of fwd's own */
	bool mac6_ok; /* host6: mac6 is the neighbour's MAC */
	uint8_t mac6[6];
	uint8_t gw6[16];
	uint32_t ifindex; /* NH: 0 = the interface whose subnet holds gw */
	uint32_t routes;  /* FIB routes pointing here */
	uint32_t hold;	  /* interface attach + group memberships */
	uint32_t hnext;	  /* hash chain: index + 1, 0 ends */
	uint32_t hash;
	uint16_t m[FWD_ADJ_GROUP_MAX];
};

struct fwd_pending {
	uint32_t idx;
	uint64_t tok;
};

struct fwd_d_stats {
	uint64_t fib_batches, fib_adds, fib_dels, fib_failed;
	uint64_t if_batches, if_refused;
	uint64_t resyncs, swept;
	uint64_t punts, slow_errors, out_sent;
	/* link events (fwd_link.c): messages taken; datagrams the kernel
	 * dropped for us (ENOBUFS: a full re-check follows); devices that
	 * went away, came (back) and could not be opened when they did */
	uint64_t link_events, link_overruns, link_gone, link_back,
	    link_open_failed;
};

struct fwd_d {
	struct fwd_d_conf conf;
	struct ev_loop *loop;
	struct ipc_server *srv;
	struct lc_arena *ar; /* replies and events being built */
	/* forwarding state */
	struct fwd_qsbr *qsbr;
	struct fwd_fib *fib;
	struct fwd_fib6 *fib6; /* same next-hop space, same QSBR */
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	/* IPv6 ND (fwd_nd.c; NULL: none, addresses in use at once) */
	struct fwd_nd *nd;
	struct fwd_icmp6 icmp6;
	struct fwd_arp *arp;
	struct fwd_icmp icmp;
	struct fwd_slow slow;
	struct fwd_out *out;
	/* interfaces: index = port id */
	struct fwd_iface ifs[FWD_PORT_MAX];
	struct fwd_port *ctl_ports[FWD_PORT_MAX];
	/* next hops and groups, by adjacency index */
	struct fwd_rec *rec;
	uint32_t *hbucket; /* index + 1 */
	unsigned nbucket;
	struct fwd_pending *pend;
	unsigned npend, pend_cap;
	int drop_adj;	/* blackhole routes (no next hop) */
	int reject_adj; /* reject routes: ICMP host unreachable */
	int local_adj;	/* pinned in the FIB: the router's own addresses */
	bool resyncing;
	/* workers */
	unsigned nworkers;	 /* >= 1 (one unthreaded worker when conf 0) */
	unsigned nworkers_start; /* as started (conf) */
	unsigned icmp_rate_start, icmp_rate_cur; /* errors/s */
	struct fwd_worker *w[FWD_D_WORKERS_MAX];
	struct fwd_xdp_umem *xdp_umem[FWD_D_WORKERS_MAX]; /* AF_XDP ports' */
	unsigned cfg_gen;
	unsigned dp_flags; /* FWD_DP_F_* the workers take at their next apply */
	int fanout_base;
	struct fwd_dp_stats gone_dp; /* of workers that were stopped */
	uint64_t gone_punt_full;
	ev_async punt_async;
	ev_timer tick;
	int ioctl_fd;
	/* link events (fwd_link.c); without them (netlink refused) the link
	 * state is polled every LINK_MS, as a fallback */
	struct mnl_socket *link_nl;
	struct fwd_reap *reap[FWD_PORT_MAX]; /* ports being closed */
	ev_io link_io;
	char *link_buf;
	uint64_t last_link_ms;
	struct fwd_d_stats st;
	/* the host path (fwd_host.c) */
	struct fwd_nl *nl;    /* NULL: no host path (netlink failed) */
	int host_prog;	      /* the ports' tc ingress drop program; -1 */
	struct fwd_out *hout; /* frames the kernel sent, being sent */
	struct fwd_gro *gro;  /* TCP segments being merged, going up */
	bool host_swept;      /* leftovers dealt with (first full set) */
	unsigned nleft;	      /* leftovers of an earlier tern-fwd */
	char left[FWD_PORT_MAX][IFNAMSIZ];
};

/*
 * ---- the daemon: fwd_d.c (life cycle, punts, timers), fwd_settings.c,
 * fwd_if.c (interfaces), fwd_nh.c (next hops, routes, resync); what these
 * share is in fwd_d_int.h ----
 */

/*
 * Run-time settings (fwd.proto FwdConfig). workers: forwarding threads,
 * 1..FWD_D_WORKERS_MAX, or 0 for the number tern-fwd started with;
 * icmp_rate: ICMP errors per second (0: none), or -1 for the start value.
 * Validated as a whole first; dry_run stops there. A new worker count stops
 * the workers, reopens the worker ports of every interface for the new
 * count and starts the workers again: forwarding pauses for the few
 * milliseconds that takes, counters carry over. 0, or -errno with err set
 * (nothing changed).
 */
struct fwd_d_settings {
	unsigned workers;
	long icmp_rate;
};
int fwd_d_set_config(struct fwd_d *, const struct fwd_d_settings *,
    bool dry_run, struct lc_err *err);

/* Builds everything and starts the workers and the IPC server on loop.
 * NULL and errno. */
struct fwd_d *fwd_d_new(struct ev_loop *loop, const struct fwd_d_conf *);
void fwd_d_free(struct fwd_d *);
/* Unthreaded mode (conf.workers == 0): poll every port once and handle the
 * punted packets. Returns packets received. */
unsigned fwd_d_poll(struct fwd_d *);
/* Handle what the workers punted; send what the slow path built. */
unsigned fwd_d_drain(struct fwd_d *);
/* The timers' work (ARP, reclamation, link state) at now_ms. */
void fwd_d_tick(struct fwd_d *, uint64_t now_ms);
uint64_t fwd_d_now_ms(struct fwd_d *);

/* Interface by name / ifindex; NULL when not configured. */
struct fwd_iface *fwd_d_if_find(struct fwd_d *, const char *name);
struct fwd_iface *fwd_d_if_by_ifindex(struct fwd_d *, uint32_t ifindex);
/* Worker w's port for interface name (tests); NULL when none. */
struct fwd_port *fwd_d_port(struct fwd_d *, const char *name, unsigned w);

/* fwd_if_req.host_path: fwd.proto HostPath */
enum { FWD_HOST_PATH_DEFAULT = 0, FWD_HOST_PATH_ON = 1, FWD_HOST_PATH_OFF = 2 };

/* One interface item of a batch, decoded (addresses host order). */
struct fwd_if_req {
	const char *name;
	bool enabled, deleted;
	uint16_t mtu;
	const char *backend;
	unsigned naddr;
	uint32_t addr[FWD_LOCAL_MAX];
	uint8_t plen[FWD_LOCAL_MAX];
	bool too_many;
	/* static neighbours: the interface's whole set */
	unsigned nneigh;
	uint32_t neigh_ip[FWD_D_NEIGH_MAX]; /* host order */
	uint8_t neigh_mac[FWD_D_NEIGH_MAX][6];
	uint8_t neigh_maclen[FWD_D_NEIGH_MAX]; /* as received: must be 6 */
	bool neigh_too_many;
	unsigned host_path; /* fwd.proto HostPath: 0 (default) or 1 on, 2 off */
	/* IPv6 (IfConfig.addrs6, link_local, ipv6_disabled) */
	unsigned naddr6;
	uint8_t addr6[FWD_D_ADDR6_MAX][16];
	uint8_t plen6[FWD_D_ADDR6_MAX]; /* as received: 1..128 checked */
	bool too_many6, has_ll, ll_bad, ipv6_off;
	uint8_t ll6[16];
	/* static IPv6 neighbours (StaticNeighbour.addr6); neigh6_bad: more
	 * than FWD_D_NEIGH_MAX, or a length not 16 / 6 */
	unsigned nneigh6;
	uint8_t neigh6_ip[FWD_D_NEIGH_MAX][16];
	uint8_t neigh6_mac[FWD_D_NEIGH_MAX][6];
	bool neigh6_bad;
	struct fwd_d_nd_req nd; /* RAs (fwd_d_nd.c) */
};

/*
 * Validate and (unless dry_run) apply an interface batch, all or nothing.
 * 0, or -errno with err set: code, the message, and as index the item of
 * rq the error is about (LC_ERR_NOINDEX when it is about the batch or the
 * set as a whole).
 */
int fwd_d_if_apply(struct fwd_d *, const struct fwd_if_req *, unsigned n,
    bool replace_all, bool dry_run, struct lc_err *err);

/*
 * Settings and an interface batch of one transaction (commit), checked
 * together against the state both make (a new worker count against the
 * batch's AF_XDP interfaces, and the batch against the new count), then
 * applied in the order that works: fewer workers before the interfaces
 * that need them, the interfaces before the workers that need theirs.
 * dry_run checks only. 0, or -errno with err set; a failure in the second
 * step leaves the first applied (the commit then rolls back).
 */
int fwd_d_config_apply(struct fwd_d *, const struct fwd_d_settings *,
    const struct fwd_if_req *, unsigned n, bool replace_all, bool dry_run,
    struct lc_err *err);

/*
 * Route add/replace: gw[i]/ifindex[i] (gw host order, 0 = attached), n
 * next hops (0: blackhole). 0, -EINVAL, -ENOSPC.
 */
int fwd_d_route_add(struct fwd_d *, uint32_t pfx, unsigned len,
    const uint32_t *gw, const uint32_t *ifindex, unsigned n);
/* Add/replace a route without next hop, kind as fwd.proto RouteKind: 0 or
 * 1 blackhole (silent drop), 2 reject (ICMP host unreachable). -EINVAL. */
int fwd_d_route_nonh(struct fwd_d *, uint32_t pfx, unsigned len, unsigned kind);
/* 1 for a blackhole, 2 for a reject adjacency, else 0 (fwd.proto RouteKind) */
unsigned fwd_d_nh_kind(const struct fwd_d *, unsigned nh);
/* 0 (also when absent), -EINVAL. */
int fwd_d_route_del(struct fwd_d *, uint32_t pfx, unsigned len);
/* IPv6: the same with 16-byte prefix and gateways (network order; :: =
 * attached, ifindex then required), gw6 n * 16 bytes. */
int fwd_d_route6_add(struct fwd_d *, const uint8_t *pfx, unsigned len,
    const uint8_t *gw6, const uint32_t *ifindex, unsigned n);
int fwd_d_route6_nonh(struct fwd_d *, const uint8_t *pfx, unsigned len,
    unsigned kind);
int fwd_d_route6_del(struct fwd_d *, const uint8_t *pfx, unsigned len);
/* Next hops of IPv6 adjacency nh: gw6 max * 16 bytes. */
unsigned fwd_d_nh_describe6(struct fwd_d *, unsigned nh, uint8_t *gw6,
    uint32_t *ifindex, unsigned max);
/*
 * Our IPv6 address ip6/plen on port is in use (DAD passed) or not (any
 * other state, deleted): its /128 pinned to the LOCAL adjacency in the
 * FIB6, its prefix (plen < 128) a connected route to the port's glean6;
 * what ND's addr_event calls. 0, -ENOENT (no such port), or the FIB's
 * error.
 */
int fwd_d_addr6_set(struct fwd_d *, uint16_t port, const uint8_t ip6[16],
    unsigned plen, bool in_use);
/*
 * The on-link neighbour ip6 on port has MAC mac (NULL: gone, or no longer
 * valid): a /128 of fwd's own to an adjacency of it, so the fast path
 * forwards to it rather than punting through the connected route's
 * glean; what ND's neigh_event calls. Kept through a resync. 0, -ENOENT
 * (port), -ENOSPC.
 */
int fwd_d_nd_host6(struct fwd_d *, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac);
/* Is ip6 one of the router's IPv6 addresses in use (any port)? */
bool fwd_d_is_ours6(const struct fwd_d *, const uint8_t ip6[16]);
void fwd_d_resync_begin(struct fwd_d *);
/* Returns the number of routes swept. */
size_t fwd_d_resync_end(struct fwd_d *);
/* Next hops of adjacency nh as (gw, ifindex) pairs; returns how many. */
unsigned fwd_d_nh_describe(struct fwd_d *, unsigned nh, uint32_t *gw,
    uint32_t *ifindex, unsigned max);
/* Burst lookups on above this many routes, off again below half. */
#define FWD_D_BURST_ON 4096
/* After FIB changes: turn the workers' burst lookup on or off. */
void fwd_d_fib_tune(struct fwd_d *);
/* Sum of the workers' fast-path counters. */
void fwd_d_stats(struct fwd_d *, struct fwd_dp_stats *, uint64_t *punt_full);
/* The interface's counters summed over the workers' and control ports. */
void fwd_d_if_counters(struct fwd_d *, const struct fwd_iface *,
    struct fwd_port_stats *);

/* ---- fwd_ops.c: for the router's operational commands ---- */

/* A baseline of the counters of interface name (a device; NULL or "":
 * every one). How many, or -ENOENT when name is not configured. */
int fwd_d_if_clear(struct fwd_d *, const char *name);

/* A datagram of the router's own (fwd.proto Originate). Host order. */
struct fwd_orig {
	uint32_t dst, src; /* src 0: the egress interface's first address */
	unsigned ttl;	   /* 1..255 */
	uint8_t proto;
	const uint8_t *payload;
	unsigned len;
	const char *ifname; /* NULL or "": any egress; else must be this */
};
struct fwd_orig_res {
	uint32_t src, next_hop;
	uint16_t port;
	char ifname[IFNAMSIZ];
	bool local;  /* dst is ours: not sent (the kernel answers) */
	bool queued; /* waiting for ARP */
};
/*
 * Builds the IPv4 header, looks dst up in the FIB and sends the datagram
 * out the egress port (TTL as given), or queues it while the next hop is
 * resolved. 0 with *res; -EINVAL (ttl, size), -EADDRNOTAVAIL (src not ours,
 * or an egress without address), -ENETUNREACH / -EHOSTUNREACH /
 * -ENETDOWN (no usable route, or not out o->ifname), -EMSGSIZE (over the
 * egress MTU), -ENOBUFS; err says which.
 */
int fwd_d_originate(struct fwd_d *, const struct fwd_orig *o,
    struct fwd_orig_res *res, struct lc_err *err);

/* ---- fwd_worker.c ---- */

struct fwd_worker *fwd_worker_new(struct fwd_d *, unsigned id);
int fwd_worker_start(struct fwd_worker *);
void fwd_worker_stop(struct fwd_worker *);
void fwd_worker_free(struct fwd_worker *);
/* One pass over the worker's ports; packets received. */
unsigned fwd_worker_poll(struct fwd_worker *);
/* Pick up next_ports now (unthreaded mode, or from the worker itself). */
void fwd_worker_apply(struct fwd_worker *);
/* Control: publish next_ports of every worker and wait until all took them
 * (or 1 s passed: -ETIMEDOUT). */
int fwd_workers_publish(struct fwd_d *);
/*
 * Parse a CPU list ("0", "1,3", "0-2,5"; ranges ascending, no CPU twice,
 * each below CPU_SETSIZE) into cpus[0..*n), at most max entries. 0, or
 * -EINVAL / -E2BIG with a message in err (cpus and *n unchanged).
 */
int fwd_cpus_parse(const char *s, uint16_t *cpus, unsigned max, unsigned *n,
    struct lc_err *err);
/* Every CPU of cpus is in this process's allowed set (sched_getaffinity):
 * 0, or -EINVAL with a message in err naming the first one that is not. */
int fwd_cpus_check(const uint16_t *cpus, unsigned n, struct lc_err *err);

/* ---- fwd_ctl.c: the IPC service ---- */

int fwd_ctl_init(struct fwd_d *);
/* Stops the IPC server (NULL or not started is fine). */
void fwd_ctl_fini(struct fwd_d *);
/* EVENT_INTERFACE for ifc to subscribers (deleted: it was removed). */
void fwd_ctl_if_event(struct fwd_d *, const struct fwd_iface *, bool deleted);

#endif /* FWD_D_H */
