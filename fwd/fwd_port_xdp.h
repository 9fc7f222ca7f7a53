/* fwd/fwd_port_xdp.h: the AF_XDP port backend (see fwd_port.h for the port
 * interface it implements). */
#ifndef FWD_PORT_XDP_H
#define FWD_PORT_XDP_H

#include "fwd_port.h"

/*
 * A UMEM: frames of 4096 bytes registered with the kernel, shared by the
 * AF_XDP ports of one thread (each port has its own fill and completion
 * rings on it). A packet received on one port and sent on another port of
 * the same UMEM moves as a descriptor; from anywhere else it is copied into
 * a free frame. Not thread-safe: one UMEM per worker.
 */
struct fwd_xdp_umem;

/* nframes: 0 for 4096 (16 MiB). Returns NULL and sets errno. */
struct fwd_xdp_umem *fwd_xdp_umem_new(unsigned nframes);

/* Drop the caller's reference; freed when the last port on it is freed. */
void fwd_xdp_umem_put(struct fwd_xdp_umem *);

/* Frames currently free in the UMEM (not in any ring or handed out). */
unsigned fwd_xdp_umem_free_frames(const struct fwd_xdp_umem *);

#define FWD_XDP_COPY	0x1 /* do not ask for zero-copy */
#define FWD_XDP_GENERIC 0x2 /* attach XDP in generic (skb) mode only */

struct fwd_port_xdp_conf {
	const char *ifname;
	uint16_t id;
	uint16_t mtu;	/* 0: the interface's */
	unsigned queue; /* device queue to bind */
	/*
	 * rx/tx ring entries, power of 2; 0: 1024 (fill and completion rings
	 * get twice that)
	 */
	unsigned ring;
	struct fwd_xdp_umem *umem; /* NULL: a private one */
	unsigned flags;		   /* FWD_XDP_* */
};

/*
 * Attach the AF_XDP redirect program to ifname (native mode, generic as a
 * fallback; shared by the ports of the interface, detached with the last),
 * open an AF_XDP socket on queue, ask for XDP_ZEROCOPY and fall back to
 * copy mode when the driver cannot (veth: EOPNOTSUPP), with need_wakeup.
 * Needs CAP_NET_ADMIN, CAP_BPF, CAP_NET_RAW. Returns NULL and sets errno.
 */
struct fwd_port *fwd_port_xdp_new(const struct fwd_port_xdp_conf *);

/* "xdp-zerocopy", "xdp-copy" or "xdp-generic"; NULL for another backend. */
const char *fwd_port_xdp_mode(const struct fwd_port *);

/* The socket, for poll(); -1 for a port of another backend. */
int fwd_port_xdp_fd(const struct fwd_port *);

/*
 * Busy-polling on the port's socket: SO_BUSY_POLL us, SO_PREFER_BUSY_POLL,
 * SO_BUSY_POLL_BUDGET budget; from then on an empty rx calls recvfrom, which
 * runs the device queue's NAPI in the caller's thread. Once per port (later
 * calls return 0). 0; -EINVAL (bad arguments, another backend); or the
 * kernel's -errno (EPERM, ENOPROTOOPT, ...) for the first option it
 * refused: the port still works (busy-polling when SO_BUSY_POLL was taken).
 * The port's thread only.
 */
int fwd_port_xdp_busy_poll(struct fwd_port *, unsigned us, unsigned budget);

/*
 * Receive queues of ifname (ETHTOOL_GCHANNELS: rx + combined), the queues an
 * AF_XDP port can bind; -errno when the driver does not say (EOPNOTSUPP).
 */
int fwd_port_xdp_queues(const char *ifname);

/* Counters of the socket (XDP_STATISTICS): rx dropped, rx ring full,
 * fill ring empty, tx invalid. 0 or -errno. */
struct fwd_port_xdp_stats {
	uint64_t rx_dropped, rx_ring_full, fill_empty, tx_invalid;
	uint64_t tx_moved, tx_copied, wakeups;
	uint64_t runs, run_errors; /* BPF_PROG_RUN sending: runs, frames */
	uint64_t run_ringed;	   /* queued, sent by the TX ring (short) */
	uint64_t run_refused;	   /* refused by the device: TX ring since */
	uint64_t run_resent;	   /* of them, sent again by the TX ring */
	uint64_t run_dropped;	   /* dropped by the device (queue full) */
};
int fwd_port_xdp_stats(const struct fwd_port *, struct fwd_port_xdp_stats *);

/*
 * Send with BPF_PROG_RUN instead of the socket's TX ring, on every copy-mode
 * or generic-mode port opened from now on (process-wide; before the first
 * AF_XDP port): a port's frames are queued and a queue of 64 is
 * sent in one run of its XDP program (fwd/bpf/xdp_port.bpf.c,
 * BPF_F_TEST_XDP_LIVE_FRAMES), which copies each out of the UMEM and
 * redirects it to the egress device; shorter queues go through the TX
 * ring; UMEMs are array maps. No socket buffer per frame and one device
 * transmit per run, where copy mode's sendto builds and transmits a socket
 * buffer per frame. The egress device must take XDP frames (ndo_xdp_xmit;
 * a veth only while its peer has NAPI: an XDP program or GRO on): the
 * frames of a run it refuses are sent again through the TX ring, counted
 * (run_refused, seen by tracepoint programs; run_resent) and the port uses
 * its TX ring from then on.
 * Zero-copy ports keep the TX ring. 0 (also when already on); -EOPNOTSUPP
 * (built without clang); -EBUSY (ports exist); or the kernel's -errno.
 */
int fwd_port_xdp_tx_run(void);
bool fwd_port_xdp_tx_running(void);

#endif /* FWD_PORT_XDP_H */
