/* fwd/fwd_port.h: the port interface (batch receive, batch send) and its
 * backends. */
#ifndef FWD_PORT_H
#define FWD_PORT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define FWD_PORT_MAX  64   /* port ids 0..63 (a power of 2, <= 64) */
#define FWD_BURST     32   /* packets per receive burst */
#define FWD_FRAME_MAX 2048 /* largest frame a backend hands out */

struct fwd_port;

/*
 * A packet descriptor. data points at the Ethernet header inside a buffer
 * that belongs to owner (a receive ring slot, a umem frame, a pool buffer);
 * nothing is copied on receive. A descriptor with owner NULL belongs to the
 * caller (a slow-path buffer), and releasing it does nothing.
 */
struct fwd_pkt {
	uint8_t *data;		/* Ethernet header */
	uint16_t len;		/* frame length */
	uint16_t port;		/* receiving port id */
	uint32_t slot;		/* backend's buffer index */
	struct fwd_port *owner; /* whose buffer; NULL: caller's */
};

struct fwd_port_stats {
	uint64_t rx_pkts, rx_bytes;
	uint64_t tx_pkts, tx_bytes;
	uint64_t tx_full; /* not accepted: ring full */
	/*
	 * Frames the device would refuse or did. tx_mtu: over its MTU
	 * (dev_mtu), taken and dropped before the kernel sees them (an
	 * AF_PACKET socket would skip them silently). tx_refused: taken,
	 * then dropped by the device (AF_XDP: a copy-mode send the device
	 * dropped, the frames of a BPF_PROG_RUN it refused or dropped).
	 * tx_errors: send calls that failed otherwise (device down or gone,
	 * no buffers): their frames stay queued for the next one.
	 */
	uint64_t tx_mtu, tx_refused, tx_errors;
	/* lost in the kernel before we saw them (fwd_port_kernel_drops) */
	uint64_t rx_kernel_drops;
	uint64_t rx_ring_full; /* of which: our receive ring was full */
	uint64_t rx_vlan;      /* VLAN-tagged (tag offloaded): dropped */
	/*
	 * L4 checksum not filled in by a local sender (its tx checksum
	 * offload is on): filled in by fwd (fwd_l4_csum_fill). Not a drop.
	 */
	uint64_t rx_csum_partial;
	/* over FWD_FRAME_MAX: a GSO/GRO super-frame (a local sender's TSO or
	 * GSO through a veth): dropped, never forwarded cut short */
	uint64_t rx_oversize;
};

/*
 * Backend operations. rx hands out descriptors of the backend's own buffers,
 * which stay valid until released. tx takes ownership of the packets it
 * accepts (a copying backend copies and releases them at once; a
 * descriptor-moving backend such as AF_XDP with a shared umem releases them
 * on completion) and returns how many it accepted, in order; the caller
 * still owns the rest. release gives buffers back to this port (owner).
 */
struct fwd_port_ops {
	unsigned (*rx)(struct fwd_port *, struct fwd_pkt **, unsigned);
	unsigned (*tx)(struct fwd_port *, struct fwd_pkt **, unsigned);
	void (*release)(struct fwd_port *, struct fwd_pkt **, unsigned);
	void (*poll_tx)(struct fwd_port *); /* kick/complete TX */
	void (*free)(struct fwd_port *);
	/* Cumulative frames the kernel dropped on their way to us, and of
	 * those the ones dropped because our receive ring was full (read
	 * from the socket's statistics: a system call; control thread, not
	 * per packet). NULL: the backend drops nothing unseen. */
	void (*kernel_drops)(struct fwd_port *, uint64_t *all,
	    uint64_t *ring_full);
	/* The socket an idle worker sleeps on in poll(). NULL: none (the
	 * port never has anything to wait for, e.g. memory ports). */
	int (*fd)(const struct fwd_port *);
	/* Busy-poll the socket for us microseconds, up to budget frames per
	 * poll, from now on (a port keeps it: set once). 0 or -errno; NULL:
	 * the backend cannot. */
	int (*busy_poll)(struct fwd_port *, unsigned us, unsigned budget);
};

/*
 * One port queue: with several workers each has its own fwd_port for every
 * interface (same id, same MAC), so nothing here is shared between threads.
 */
struct fwd_port {
	const struct fwd_port_ops *ops;
	uint16_t id;  /* index in the workers' port arrays */
	uint16_t mtu; /* IP MTU */
	/* the device's MTU: a longer frame is dropped (tx_mtu); read at open,
	 * then kept by the control thread (fwd_port_dev_mtu_set) */
	uint16_t dev_mtu;
	uint8_t mac[8]; /* 6 used; 8 so it loads as one word */
	int ifindex;
	char name[16];
	bool tx_held; /* tx queued frames without sending: poll_tx sends */
	struct fwd_port_stats stats;
};

/* Receive up to n packets; returns how many (0 when idle). */
static inline unsigned
fwd_port_rx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	return (p->ops->rx(p, pkts, n));
}

/* Send up to n packets; returns how many were taken (see fwd_port_ops). */
static inline unsigned
fwd_port_tx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	return (p->ops->tx(p, pkts, n));
}

/* Give packets back to their owners; they may have different owners. */
static inline void
fwd_pkt_release(struct fwd_pkt **pkts, unsigned n)
{
	unsigned i = 0;

	while (i < n) {
		struct fwd_port *o = pkts[i]->owner;
		unsigned j = i + 1;

		while (j < n && pkts[j]->owner == o)
			j++;
		if (o != NULL)
			o->ops->release(o, pkts + i, j - i);
		i = j;
	}
}

/* Flush pending sends (one syscall per call where the backend needs it). */
static inline void
fwd_port_poll_tx(struct fwd_port *p)
{
	if (p->ops->poll_tx != NULL)
		p->ops->poll_tx(p);
}

/* Add the port's kernel-side drops (fwd_port_ops.kernel_drops) to *s:
 * rx_kernel_drops and rx_ring_full. The control thread; a system call. */
static inline void
fwd_port_kernel_drops(struct fwd_port *p, struct fwd_port_stats *s)
{
	uint64_t all = 0, full = 0;

	if (p->ops->kernel_drops == NULL)
		return;
	p->ops->kernel_drops(p, &all, &full);
	s->rx_kernel_drops += all;
	s->rx_ring_full += full;
}

/* The port's socket for poll() (fwd_port_ops.fd), or -1 when it has none. */
static inline int
fwd_port_fd(const struct fwd_port *p)
{
	return (p->ops->fd != NULL ? p->ops->fd(p) : -1);
}

/* Busy-poll options on the port (fwd_port_ops.busy_poll): 0, -errno, or
 * -EOPNOTSUPP when the backend has none. */
static inline int
fwd_port_busy_poll(struct fwd_port *p, unsigned us, unsigned budget)
{
	if (p->ops->busy_poll == NULL)
		return (-EOPNOTSUPP);
	return (p->ops->busy_poll(p, us, budget));
}

/* The device's MTU changed (the control thread; the port's thread reads it
 * on each send). */
static inline void
fwd_port_dev_mtu_set(struct fwd_port *p, uint16_t mtu)
{
	__atomic_store_n(&p->dev_mtu, mtu, __ATOMIC_RELAXED);
}

/* The longest frame the port's device takes (Ethernet header and its IP
 * MTU; the kernel's AF_PACKET check). The port's thread. */
static inline unsigned
fwd_port_frame_max(const struct fwd_port *p)
{
	return (__atomic_load_n(&p->dev_mtu, __ATOMIC_RELAXED) +
	    14u /* Ethernet header */);
}

/* Close the port and free it; NULL is fine. */
void fwd_port_free(struct fwd_port *);

/* ---- in-memory backend (tests, benchmarks) ---- */

struct fwd_port_mem_conf {
	uint16_t id;
	uint16_t mtu; /* 0: 1500 */
	uint8_t mac[6];
	unsigned nbufs;	  /* receive buffers; 0: 256 */
	unsigned capture; /* frames kept from tx; 0: count only */
};

/* Returns NULL and sets errno (EINVAL, ENOMEM). */
struct fwd_port *fwd_port_mem_new(const struct fwd_port_mem_conf *);

/*
 * Queue one frame (copied) for rx. 0, -EMSGSIZE when len is 0 or over
 * FWD_FRAME_MAX, -ENOBUFS when every buffer is in use.
 */
int fwd_port_mem_inject(struct fwd_port *, const void *frame, unsigned len);

/*
 * Replay mode: rx serves copies of these frames (kept by reference, the
 * caller keeps them alive) round robin, without end. n == 0 turns it off.
 */
void fwd_port_mem_replay(struct fwd_port *, const uint8_t *const *frames,
    const uint16_t *lens, unsigned n);

/*
 * Take the oldest captured tx frame: copies up to room bytes to buf and
 * returns the frame's length, or -ENOENT when none is left.
 */
int fwd_port_mem_take(struct fwd_port *, void *buf, unsigned room);

/* Frames captured and not taken yet. */
unsigned fwd_port_mem_pending(const struct fwd_port *);

/* Receive buffers currently handed out (not released). */
unsigned fwd_port_mem_inuse(const struct fwd_port *);

/* ---- AF_PACKET TPACKET_V2 backend ---- */

#define FWD_AFP_TX_ONLY 0x1 /* a send-only socket (slow path) */

struct fwd_port_afp_conf {
	const char *ifname;
	uint16_t id;
	uint16_t mtu; /* 0: the interface's */
	unsigned
	    ring_frames;  /* RX ring, power of 2; 0: 4096; TX: at most 1024 */
	int fanout_group; /* >0: join this PACKET_FANOUT_HASH group */
	unsigned flags;	  /* FWD_AFP_* */
};

/*
 * Open an AF_PACKET socket on ifname with TPACKET_V2 RX and TX rings,
 * PACKET_QDISC_BYPASS, PACKET_IGNORE_OUTGOING, non-blocking, promiscuous.
 * Needs CAP_NET_RAW. The interface must have GRO/GSO/TSO and checksum
 * offloads off (fwd_port_afp_offloads_off). Returns NULL and sets errno.
 */
struct fwd_port *fwd_port_afp_new(const struct fwd_port_afp_conf *);

/* The socket, for poll() by an idle worker; -1 for a port of another backend. */
int fwd_port_afp_fd(const struct fwd_port *);

/*
 * Turn off GRO, LRO, GSO, TSO and rx/tx checksum offload on ifname with the
 * ethtool ioctls, so AF_PACKET sees wire-sized frames with complete
 * checksums. 0 or -errno of the first feature that could not be changed.
 */
int fwd_port_afp_offloads_off(const char *ifname);

/* ---- frames built by the slow path ---- */

#define FWD_OUT_MAX 64

/*
 * Frames the slow path wants sent, each with its egress port id. About
 * 132 KiB: allocate it (calloc), one per control thread, not on a stack.
 */
struct fwd_out {
	unsigned n;
	uint64_t overflow; /* frames that did not fit */
	struct fwd_pkt pkt[FWD_OUT_MAX];
	uint8_t buf[FWD_OUT_MAX][FWD_FRAME_MAX];
};

/*
 * Room for one frame of len bytes to send on port: returns the buffer, or
 * NULL (counted in overflow) when full or len > FWD_FRAME_MAX.
 */
uint8_t *fwd_out_push(struct fwd_out *, uint16_t port, unsigned len);

/* Drop the last pushed frame (the builder gave up). */
void fwd_out_pop(struct fwd_out *);

/*
 * Send every frame on ports[pkt.port] (one tx burst per run of frames of the
 * same port) and empty out. Returns frames sent; frames for a missing port
 * or not accepted are dropped.
 */
unsigned fwd_out_send(struct fwd_out *, struct fwd_port *const *ports,
    unsigned nports);

/*
 * Every multicast frame for the device ifindex (its ALLMULTI count raised
 * for as long as fd, an AF_PACKET socket, stays open): IPv6's solicited-
 * node and all-nodes groups (33:33:...) reach fwd on devices that filter
 * multicast. fd < 0: a socket of its own (bound to no protocol: it
 * receives nothing) is opened. Returns that fd (or fd), or -errno.
 */
int fwd_port_allmulti(int fd, int ifindex);

#endif /* FWD_PORT_H */
