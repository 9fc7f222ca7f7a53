/* tests/bench/forward_gen.bpf.c: bench-forward's XDP traffic generator.
 *
 * Built with `clang -O2 -g -target bpf` (tests/bench/module.mk) and embedded
 * in build/bin/bench-forward. The bench runs it with BPF_PROG_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES: the kernel feeds it page-pool frames that
 * hold the template frame (flow 0) the bench passes as data_in, and every
 * frame the program redirects leaves through the client's veth (devmap
 * slot 0) toward the router.
 *
 * Pages are recycled with their content within a run, and with what the
 * receivers did to it: the kernel router forwards the very page, rewriting
 * its MACs, TTL and IP checksum in place. So the program writes, in every
 * frame, the whole header of the frame's flow (Ethernet, IP with its
 * checksum, UDP with checksum 0: 42 bytes the bench precomputes per flow)
 * and the payload's trial magic, sequence number and send time
 * (CLOCK_MONOTONIC, as the bench's receiver reads it). The rest of the
 * payload (zeros) is never written by anyone. The sequence number
 * continues across runs: it lives in an mmap-able array the bench reads
 * (the count of frames sent) and resets per trial. Frame i carries flow
 * i % 128, as the AF_PACKET generator's TX ring slots do.
 *
 * IPv6 (v6 set): the header is 62 bytes (Ethernet, IPv6, UDP with the
 * checksum of the template: nobody on the way checks it), the payload's
 * magic, sequence number and time at 62..77: frames of 78 bytes and
 * more. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define GEN_FLOWS 128 /* power of two; = BF_FLOWS of bench_forward.c */

/* Shared with bench_forward.c (struct bf_gen_state there): keep in step. */
struct gen_state {
	__u32 seq;   /* next sequence number = frames sent this trial */
	__u32 magic; /* BF_MAGIC | trial, host order */
	__u32 v6;    /* IPv6 frames: 62 header bytes, else 42 */
	__u32 pad;
	__u64 hdr[GEN_FLOWS][8]; /* flow f's 42 or 62 header bytes, zero
				  * padded */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct gen_state);
} gen_state SEC(".maps");

/* slot 0: the client's eth0 (ifindex set from inside the client ns) */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gen_tx SEC(".maps");

SEC("xdp")
int
tern_gen(struct xdp_md *ctx)
{
	unsigned char *d = (unsigned char *)(long)ctx->data;
	unsigned char *end = (unsigned char *)(long)ctx->data_end;
	__u32 k = 0, seq, f;
	struct gen_state *s;
	__u64 *h;

	/* eth 14 + ip 20 + udp 8, payload magic 4, seq 4, time 8 */
	if (d + 58 > end)
		return (XDP_ABORTED);
	s = bpf_map_lookup_elem(&gen_state, &k);
	if (s == 0)
		return (XDP_ABORTED);
	if (s->v6) {
		/* eth 14 + ipv6 40 + udp 8, then the same 16 bytes */
		if (d + 78 > end)
			return (XDP_ABORTED);
		seq = s->seq;
		s->seq = seq + 1;
		h = s->hdr[seq & (GEN_FLOWS - 1)];
		*(__u64 *)(d + 0) = h[0];
		*(__u64 *)(d + 8) = h[1];
		*(__u64 *)(d + 16) = h[2];
		*(__u64 *)(d + 24) = h[3];
		*(__u64 *)(d + 32) = h[4];
		*(__u64 *)(d + 40) = h[5];
		*(__u64 *)(d + 48) = h[6];
		*(__u32 *)(d + 56) = (__u32)h[7];
		*(__u16 *)(d + 60) = (__u16)(h[7] >> 32);
		*(__u32 *)(d + 62) = s->magic;
		*(__u32 *)(d + 66) = seq;
		*(__u64 *)(d + 70) = bpf_ktime_get_ns();
		return (bpf_redirect_map(&gen_tx, 0, 0));
	}
	/* one caller at a time (the bench's generator thread): no atomics */
	seq = s->seq;
	s->seq = seq + 1;
	f = seq & (GEN_FLOWS - 1);
	h = s->hdr[f];
	/* 8-byte stores (x86 takes them unaligned; so does the verifier
	 * there): header bytes 0-39, then 40-41 with magic and seq, then
	 * the time */
	*(__u64 *)(d + 0) = h[0];
	*(__u64 *)(d + 8) = h[1];
	*(__u64 *)(d + 16) = h[2];
	*(__u64 *)(d + 24) = h[3];
	*(__u64 *)(d + 32) = h[4];
	*(__u16 *)(d + 40) = (__u16)h[5];
	*(__u32 *)(d + 42) = s->magic;
	*(__u32 *)(d + 46) = seq;
	*(__u64 *)(d + 50) = bpf_ktime_get_ns();
	return (bpf_redirect_map(&gen_tx, 0, 0));
}

char LICENSE[] SEC("license") = "GPL";
