/* fwd/fwd_host_gro.h: the host path's receive coalescing (docs/hostpath.md):
 * consecutive in-order TCP segments of one connection, punted in one drain,
 * written up the TAP as one frame with a virtio-net GSO header, so that the
 * kernel walks its TCP receive path once for many segments (what GRO does
 * for a NIC). Each segment's checksums are verified before it is merged;
 * what does not fit goes up as it came. The control thread's only. */
#ifndef FWD_HOST_GRO_H
#define FWD_HOST_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net.h>

/* The TAP's per-frame header (IFF_VNET_HDR, the default 10 bytes). */
#define FWD_GRO_VNET_LEN ((unsigned)sizeof(struct virtio_net_hdr))
/* Largest merged frame: Ethernet + the largest IPv4 datagram. */
#define FWD_GRO_FRAME_MAX (14u + 65535u)

struct fwd_gro {
	/* the vnet header, then the merged frame */
	uint8_t buf[FWD_GRO_VNET_LEN + FWD_GRO_FRAME_MAX];
	unsigned len;	/* frame bytes after the vnet header; 0: none held */
	unsigned segs;	/* segments in it */
	unsigned bytes; /* their frames' bytes, as they came (the counters) */
	unsigned mss;	/* the first segment's payload length */
	unsigned hlen;	/* Ethernet + IPv4 + TCP header bytes */
	uint32_t next_seq; /* host order: the sequence number that continues */
	bool closed;	   /* a short or PSH segment came last: no more */
	uint16_t port;	   /* the interface it came in on */
};

/*
 * Offer one frame (len bytes, from port). True when the frame is now held:
 * it continued the held segments or, when nothing is held, started them.
 * False when it is not for merging (not TCP data, options, a bad checksum,
 * flags other than ACK and PSH) or does not continue what is held; the
 * caller then sends what is held (fwd_gro_finish) and this frame as it is,
 * or offers it again once nothing is held.
 */
bool fwd_gro_offer(struct fwd_gro *g, uint16_t port, const uint8_t *frame,
    unsigned len);

/* The held frame, ready to write (vnet header included): its length, or 0
 * when nothing is held. Its vnet header asks for GSO only when it holds
 * two segments or more. Nothing is held afterwards (the buffer stays valid
 * until the next offer). */
unsigned fwd_gro_finish(struct fwd_gro *g);

#endif /* FWD_HOST_GRO_H */
