/* fwd/bpf/xdp_port.h: what fwd/bpf/xdp_port.bpf.c and fwd/fwd_port_xdp.c
 * share for sending with BPF_PROG_RUN: sizes, the run's metadata, the send
 * queues and the counts of refused frames (both sides include this file;
 * docs/fwd.md "Sending with BPF_PROG_RUN"). */
#ifndef FWD_BPF_XDP_PORT_H
#define FWD_BPF_XDP_PORT_H

#include <linux/types.h>

#define XP_MAGIC       0x74657278u /* the run's metadata: "tern", then a slot */
#define XP_QUEUE_MAX   256	   /* descriptors per send queue */
#define XP_SLOTS       1024	   /* send queues */
#define XP_UMEMS       64	   /* UMEMs (one per worker) */
#define XP_FRAME_SHIFT 12	   /* UMEM frames of 4096 bytes */
#define XP_FRAME       (1u << XP_FRAME_SHIFT)
#define XP_PORTS       64   /* port ids (xp_dev keys) */
#define XP_XSK_QUEUES  64   /* XSKMAP entries: queues per interface */
#define XP_TMPL	       64   /* the run's frame length before the copy */
#define XP_IFX	       1024 /* xp_refused slots */

/* A frame to send: where in the UMEM, how long, out of which port. */
struct xp_desc {
	__u32 off;  /* frame index << XP_FRAME_SHIFT | offset in the frame */
	__u16 len;  /* frame length */
	__u16 port; /* egress port id (xp_dev key) */
};

/* One port's send queue (xp_queues[slot]) */
struct xp_queue {
	__u32 next; /* the run's next descriptor (the program advances it) */
	__u32 umem; /* xp_umems key of the sender's UMEM */
	struct xp_desc d[XP_QUEUE_MAX];
};

/* Frames a device dropped of the runs' (xp_refused[xp_slot(...)]) */
struct xp_refused {
	__u64 cookie;  /* the device's namespace */
	__u32 ifindex; /* and its ifindex: whose slot it is */
	__s32 err;     /* the last error */
	__u64 refused; /* frames refused with an error */
	__u64 full;    /* frames dropped without one (queue full) */
};

/* The xp_refused slot of a device */
static inline __u32
xp_slot(__u64 cookie, __u32 ifx)
{
	return ((ifx * 2654435761u ^ (__u32)cookie ^ (__u32)(cookie >> 32)) &
	    (XP_IFX - 1));
}

#endif /* FWD_BPF_XDP_PORT_H */
