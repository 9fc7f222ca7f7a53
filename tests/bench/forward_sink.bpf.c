/* tests/bench/forward_sink.bpf.c: bench-forward's hosts, as tc programs.
 *
 * Built with `clang -O2 -g -target bpf -mcpu=v3` (tests/bench/module.mk) and
 * embedded in build/bin/bench-forward, which attaches them with libbpf to
 * the ingress (clsact, direct action) of the server's and the client's eth0.
 * They count the bench's frames where they arrive and drop them, so that a
 * host's receive costs a tc program run, not its IP stack: with AF_PACKET
 * RX rings on the hosts, the server's kernel also looked up every frame's
 * destination (not its own), dropped it through ip_error with a route cache
 * entry allocated and freed (RCU) per frame, and copied it into the bench's
 * ring: 55-67% of the router CPU per packet that bench-forward charged to
 * either router, since the hosts' receive runs inside the router's transmit
 * (docs/benchmarks.md, "The tc sink").
 *
 *   tern_sink_srv (server's eth0): one-way, counts the frame, marks its
 *     sequence number (duplicates, per-flow reordering) and drops it;
 *     request/reply, counts it and reflects it out of the same eth0 (MACs,
 *     addresses and ports swapped; the IP checksum does not change, UDP's is
 *     0), as the AF_PACKET reflector did.
 *   tern_sink_cli (client's eth0): replies; counts, marks, and keeps the
 *     round-trip time (now - the send time the generator wrote), drops.
 *
 * Frames that are not the current trial's (ARP, the hosts' own traffic, a
 * late frame of an earlier trial) go on to the stack (TC_ACT_OK).
 *
 * IPv6 frames (type 0x86dd, next header UDP) the same way: addresses at
 * 22 and 38, ports at 54 and 56, the payload at 62 (SINK_PLOFF6).
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define SINK_FLOWS   128	/* = BF_FLOWS of bench_forward.c */
#define SINK_SEQ_MAX (1u << 24) /* = BF_SEQ_MAX */
#define SINK_LAT_MAX (1u << 21) /* = BF_LAT_MAX */
#define SINK_DPORT   7777	/* = BF_DPORT */
#define SINK_SPORT   10000	/* = BF_SPORT */
#define SINK_PLOFF   42		/* eth 14 + ip 20 + udp 8 */
#define SINK_PLOFF6  62		/* eth 14 + ipv6 40 + udp 8 */

/* Shared with bench_forward.c (struct bf_sink_state there): keep in step.
 * The bench zeroes it and then sets magic for each trial. */
struct sink_state {
	__u32 magic; /* BF_MAGIC | trial; 0: no trial, nothing is ours */
	__u32 rr;    /* the server reflects (request/reply) */
	__u64 srv_rx, cli_rx, dup, reord, lat_n;
	__u32 last_seq[SINK_FLOWS];
	__u64 flow_rx[SINK_FLOWS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct sink_state);
} sink_state SEC(".maps");

/* bit s of the bitmap: sequence number s arrived */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SINK_SEQ_MAX / 64);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} sink_seen SEC(".maps");

/* round-trip times, ns, in arrival order (lat_n of them) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SINK_LAT_MAX);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	/*
	 * an array's values are 8-byte aligned in its mmap: __u64, so the
	 * bench reads them as such
	 */
	__type(value, __u64);
} sink_lat SEC(".maps");

static __always_inline __u16
rd16(const unsigned char *p)
{
	return ((__u16)(p[0] << 8 | p[1]));
}

/* An IPv6 frame of the current trial (as sink_ours): its state, bytes in
 * *d (at least SINK_PLOFF6 + 16); dst: the fixed port is the destination
 * (toward the server: 56) or the source (a reply: 54). */
static __always_inline struct sink_state *
sink_ours6(struct __sk_buff *skb, unsigned char **d, int dst)
{
	unsigned char *p = (unsigned char *)(long)skb->data;
	unsigned char *end = (unsigned char *)(long)skb->data_end;
	struct sink_state *s;
	__u32 k = 0;

	if (p + SINK_PLOFF6 + 16 > end) {
		if (bpf_skb_pull_data(skb, SINK_PLOFF6 + 16) != 0)
			return (0);
		p = (unsigned char *)(long)skb->data;
		end = (unsigned char *)(long)skb->data_end;
		if (p + SINK_PLOFF6 + 16 > end)
			return (0);
	}
	if (p[20] != 17 || rd16(p + (dst ? 56 : 54)) != SINK_DPORT)
		return (0);
	s = bpf_map_lookup_elem(&sink_state, &k);
	if (s == 0 || s->magic == 0 || *(__u32 *)(p + SINK_PLOFF6) != s->magic)
		return (0);
	*d = p;
	return (s);
}

/* The frame's Ethernet type is IPv6 (its first 14 bytes are linear: tc). */
static __always_inline int
sink_is6(struct __sk_buff *skb)
{
	unsigned char *p = (unsigned char *)(long)skb->data;
	unsigned char *end = (unsigned char *)(long)skb->data_end;

	return (p + 14 <= end && p[12] == 0x86 && p[13] == 0xdd);
}

/* The frame of the current trial: its state, and its bytes in *d (at
 * least SINK_PLOFF + 16 of them); NULL when it is not ours. port_off: where
 * the bench's fixed port (SINK_DPORT) stands, 36 (destination: toward the
 * server) or 34 (source: a reply). */
static __always_inline struct sink_state *
sink_ours(struct __sk_buff *skb, unsigned char **d, unsigned port_off)
{
	unsigned char *p = (unsigned char *)(long)skb->data;
	unsigned char *end = (unsigned char *)(long)skb->data_end;
	struct sink_state *s;
	__u32 k = 0;

	if (p + SINK_PLOFF + 16 > end) {
		/* a frame of ours is linear; anything shorter is not ours */
		if (bpf_skb_pull_data(skb, SINK_PLOFF + 16) != 0)
			return (0);
		p = (unsigned char *)(long)skb->data;
		end = (unsigned char *)(long)skb->data_end;
		if (p + SINK_PLOFF + 16 > end)
			return (0);
	}
	if (p[12] != 0x08 || p[13] != 0 || p[23] != 17 || (p[14] & 0xf) != 5 ||
	    rd16(p + port_off) != SINK_DPORT)
		return (0);
	s = bpf_map_lookup_elem(&sink_state, &k);
	if (s == 0 || s->magic == 0 || *(__u32 *)(p + SINK_PLOFF) != s->magic)
		return (0);
	*d = p;
	return (s);
}

/* seq arrived on flow: a duplicate, or the flow's first or next frame (or
 * a late one: reordering). */
static __always_inline void
sink_mark(struct sink_state *s, __u32 seq, __u32 flow)
{
	__u32 w = seq >> 6;
	__u64 bit = 1ull << (seq & 63), *word;

	if (seq >= SINK_SEQ_MAX ||
	    (word = bpf_map_lookup_elem(&sink_seen, &w)) == 0)
		return;
	if (__sync_fetch_and_or(word, bit) & bit) {
		__sync_fetch_and_add(&s->dup, 1);
		return;
	}
	flow &= SINK_FLOWS - 1;
	__sync_fetch_and_add(&s->flow_rx[flow], 1);
	/* per flow, frames come from one CPU at a time: a plain update */
	if (seq + 1 < s->last_seq[flow])
		__sync_fetch_and_add(&s->reord, 1);
	else
		s->last_seq[flow] = seq + 1;
}

SEC("tc")
int
tern_sink_srv(struct __sk_buff *skb)
{
	struct sink_state *s;
	unsigned char *d;
	__u32 a;
	__u16 p;
	unsigned char m[6];

	if (sink_is6(skb)) {
		__u64 x;

		if ((s = sink_ours6(skb, &d, 1)) == 0)
			return (TC_ACT_OK);
		__sync_fetch_and_add(&s->srv_rx, 1);
		if (!s->rr) {
			sink_mark(s, *(__u32 *)(d + SINK_PLOFF6 + 4),
			    (__u32)rd16(d + 54) - SINK_SPORT);
			return (TC_ACT_SHOT);
		}
		/* reflect: MACs, addresses (16 bytes), ports swapped; the
		 * UDP checksum's sum does not change */
		__builtin_memcpy(m, d, 6);
		__builtin_memcpy(d, d + 6, 6);
		__builtin_memcpy(d + 6, m, 6);
		x = *(__u64 *)(d + 22);
		*(__u64 *)(d + 22) = *(__u64 *)(d + 38);
		*(__u64 *)(d + 38) = x;
		x = *(__u64 *)(d + 30);
		*(__u64 *)(d + 30) = *(__u64 *)(d + 46);
		*(__u64 *)(d + 46) = x;
		p = *(__u16 *)(d + 54);
		*(__u16 *)(d + 54) = *(__u16 *)(d + 56);
		*(__u16 *)(d + 56) = p;
		return (bpf_redirect(skb->ifindex, 0));
	}
	if ((s = sink_ours(skb, &d, 36)) == 0)
		return (TC_ACT_OK);
	__sync_fetch_and_add(&s->srv_rx, 1);
	if (!s->rr) {
		sink_mark(s, *(__u32 *)(d + SINK_PLOFF + 4),
		    (__u32)rd16(d + 34) - SINK_SPORT);
		return (TC_ACT_SHOT);
	}
	/* reflect: the frame came to this host's MAC from the router's */
	__builtin_memcpy(m, d, 6);
	__builtin_memcpy(d, d + 6, 6);
	__builtin_memcpy(d + 6, m, 6);
	a = *(__u32 *)(d + 26);
	*(__u32 *)(d + 26) = *(__u32 *)(d + 30);
	*(__u32 *)(d + 30) = a;
	p = *(__u16 *)(d + 34);
	*(__u16 *)(d + 34) = *(__u16 *)(d + 36);
	*(__u16 *)(d + 36) = p;
	return (bpf_redirect(skb->ifindex, 0));
}

SEC("tc")
int
tern_sink_cli(struct __sk_buff *skb)
{
	struct sink_state *s;
	unsigned char *d;
	__u64 now = bpf_ktime_get_ns(), ts, i;
	__u64 *slot;
	__u32 k;

	if (sink_is6(skb)) {
		if ((s = sink_ours6(skb, &d, 0)) == 0)
			return (TC_ACT_OK);
		__sync_fetch_and_add(&s->cli_rx, 1);
		sink_mark(s, *(__u32 *)(d + SINK_PLOFF6 + 4),
		    (__u32)rd16(d + 56) - SINK_SPORT);
		ts = *(__u64 *)(d + SINK_PLOFF6 + 8);
	} else {
		if ((s = sink_ours(skb, &d, 34)) == 0)
			return (TC_ACT_OK);
		__sync_fetch_and_add(&s->cli_rx, 1);
		sink_mark(s, *(__u32 *)(d + SINK_PLOFF + 4),
		    (__u32)rd16(d + 36) - SINK_SPORT);
		ts = *(__u64 *)(d + SINK_PLOFF + 8);
	}
	if (now > ts && s->lat_n < SINK_LAT_MAX) {
		i = __sync_fetch_and_add(&s->lat_n, 1);
		k = (__u32)i;
		if (i < SINK_LAT_MAX &&
		    (slot = bpf_map_lookup_elem(&sink_lat, &k)) != 0)
			*slot = now - ts;
	}
	return (TC_ACT_SHOT);
}

char LICENSE[] SEC("license") = "GPL";
