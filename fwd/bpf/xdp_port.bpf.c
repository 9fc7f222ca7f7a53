/* fwd/bpf/xdp_port.bpf.c: the AF_XDP backend's XDP program when tern-fwd
 * sends with BPF_PROG_RUN (--xdp-tx=auto|run; docs/fwd.md "Sending with
 * BPF_PROG_RUN"). Built with clang -target bpf (fwd/module.mk) and embedded
 * in tern-fwd; one instance is loaded and attached per interface, with
 * xsks its own and the other maps shared by all instances.
 *
 * Two jobs, told apart by the frame's metadata:
 * - a frame the device received (no metadata): XSKMAP[rx_queue_index], else
 *   XDP_PASS, as the default program (fwd_port_xdp.c prog_load);
 * - a frame of tern-fwd's BPF_PROG_RUN (BPF_F_TEST_XDP_LIVE_FRAMES), whose
 *   8 bytes of metadata are XP_MAGIC and a send queue's slot: the program
 *   copies the queue's next frame out of the sender's UMEM (an array map
 *   that is the UMEM's memory) into the page-pool frame and redirects it to
 *   the egress port's device (devmap by port id). The kernel flushes the
 *   redirects once per run: one system call and one device transmit for a
 *   whole batch, and no socket buffer on the sending side. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "xdp_port.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XP_XSK_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xp_queue);
} xp_queues SEC(".maps");

struct xp_umem {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__type(key, __u32);
	__uint(value_size, XP_FRAME);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, XP_UMEMS);
	__type(key, __u32);
	__array(values, struct xp_umem);
} xp_umems SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, XP_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} xp_dev SEC(".maps");

static __always_inline int
xp_send(struct xdp_md *ctx, __u32 slot)
{
	struct xp_queue *q = bpf_map_lookup_elem(&xp_queues, &slot);
	struct xp_desc *d;
	void *umem;
	__u8 *f;
	__u32 i, fr, in, len, port;

	if (q == NULL)
		return (XDP_ABORTED);
	i = q->next++;
	if (i >= XP_QUEUE_MAX)
		return (XDP_ABORTED);
	d = &q->d[i];
	fr = d->off >> XP_FRAME_SHIFT;
	in = d->off & (XP_FRAME - 1);
	len = d->len;
	port = d->port;
	if ((umem = bpf_map_lookup_elem(&xp_umems, &q->umem)) == NULL ||
	    (f = bpf_map_lookup_elem(umem, &fr)) == NULL)
		return (XDP_ABORTED);
	/* in + len within the frame, in bounds the verifier can follow */
	if (in >= XP_FRAME / 2 || len < 14 || len > XP_FRAME / 2)
		return (XDP_ABORTED);
	if (bpf_xdp_adjust_tail(ctx, (int)len - XP_TMPL) != 0)
		return (XDP_ABORTED);
	if (bpf_xdp_store_bytes(ctx, 0, f + in, len) != 0)
		return (XDP_ABORTED);
	return (bpf_redirect_map(&xp_dev, port, 0));
}

/*
 * The third job, in the one instance tern-fwd loads for the two tracepoint
 * programs below (the XDP program is not loaded there): a device that
 * refuses XDP frames loses them in the run, unseen by tern-fwd. Refused at
 * the redirect (the device does not advertise ndo_xdp_xmit: veth while its
 * peer has no NAPI, EOPNOTSUPP) the kernel reports it in xdp_redirect_err;
 * at the devmap's flush (ndo_xdp_xmit failed, or took only part of the
 * batch) in xdp_devmap_xmit. Drops are counted per device (namespace cookie
 * and ifindex, in the slot xp_slot gives them; a slot taken by another
 * device starts again): with an error (refused: tern-fwd sends through
 * the TX ring from then on) or without one (the device's queue was full).
 */
struct net {
	__u64 net_cookie;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} possible_net_t;

struct net_device {
	int ifindex;
	possible_net_t nd_net;
} __attribute__((preserve_access_index));

/* a devmap entry (kernel/bpf/devmap.c), the redirect's target */
struct bpf_dtab_netdev {
	struct net_device *dev;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_IFX);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xp_refused);
} xp_refused SEC(".maps");

static __always_inline void
xp_count(const struct net_device *to, int drops, int err)
{
	struct xp_refused *r;
	__u64 cookie;
	__u32 ifx, k;

	cookie = BPF_CORE_READ(to, nd_net.net, net_cookie);
	ifx = (__u32)BPF_CORE_READ(to, ifindex);
	k = xp_slot(cookie, ifx);
	if ((r = bpf_map_lookup_elem(&xp_refused, &k)) == NULL)
		return;
	if (r->cookie != cookie || r->ifindex != ifx) {
		r->refused = r->full = 0;
		r->cookie = cookie;
		r->ifindex = ifx;
	}
	if (err != 0) {
		r->err = err;
		__sync_fetch_and_add(&r->refused, (__u64)drops);
	} else
		__sync_fetch_and_add(&r->full, (__u64)drops);
}

/* (from_dev, to_dev, sent, drops, err) */
SEC("tp_btf/xdp_devmap_xmit")
int
tern_xp_watch(unsigned long long *ctx)
{
	if ((int)ctx[3] > 0)
		xp_count((const void *)ctx[1], (int)ctx[3], (int)ctx[4]);
	return (0);
}

/* (dev, xdp, tgt, err, map_type, map_id, index): tgt is the devmap entry */
SEC("tp_btf/xdp_redirect_err")
int
tern_xp_watch_redirect(unsigned long long *ctx)
{
	const struct bpf_dtab_netdev *t = (const void *)ctx[2];
	const struct net_device *to;

	if ((int)ctx[4] != BPF_MAP_TYPE_DEVMAP || t == NULL ||
	    (to = BPF_CORE_READ(t, dev)) == NULL)
		return (0);
	xp_count(to, 1, (int)ctx[3] != 0 ? (int)ctx[3] : -1);
	return (0);
}

SEC("xdp")
int
tern_xdp_port(struct xdp_md *ctx)
{
	__u32 *m = (__u32 *)(long)ctx->data_meta;

	/* a run's frames arrive on the loopback device (ifindex 1), which
	 * never has this program; a device's frames have no metadata */
	if (ctx->ingress_ifindex == 1 &&
	    (void *)(m + 2) <= (void *)(long)ctx->data && m[0] == XP_MAGIC)
		return (xp_send(ctx, m[1]));
	return (bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS));
}

char _license[] SEC("license") = "GPL";
