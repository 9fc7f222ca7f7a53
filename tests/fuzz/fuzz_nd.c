/* tests/fuzz/fuzz_nd.c: libFuzzer harness of fwd_nd_input (IPv6 Neighbour
 * Discovery): frames into one long-lived fwd_nd with two ports, our
 * addresses, RAs on, a glean and a gateway adjacency, and a fake clock the
 * input moves forward, so state builds up across inputs (entries, DAD,
 * queues, timers). The first byte picks the port, the time step and the
 * mode: a raw frame, or an ICMPv6 body the harness wraps in a valid
 * Ethernet/IPv6 header with hop limit 255 and a correct checksum (so the
 * fuzzer gets past the checks into the protocol). Checked after each:
 * every frame sent is a well-formed IPv6 packet (length, version, hop
 * limit 255 for ND, a correct ICMPv6 checksum), every entry in a known
 * state with at most queue_len packets, reads stay in the frame (a heap
 * copy of exactly its length). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_nd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fz_mac[2][6] = {{0x02, 0x74, 0, 0, 0, 1},
    {0x02, 0x74, 0, 0, 0, 2}};
static const uint8_t fz_host[6] = {0x02, 0x74, 0, 0, 9, 9};
static struct fwd_adj_tbl *fz_adj;
static struct fwd_nd *fz_nd;
static struct fwd_out *fz_out;
static uint64_t fz_now = 1000000;
static uint8_t fz_a[2][16];

static uint64_t
fz_clock(void *arg)
{
	(void)arg;
	return (fz_now);
}

static void
fz_unreach(void *arg, uint16_t in_port, const uint8_t *frame, unsigned len,
    struct fwd_out *out)
{
	(void)arg;
	(void)out;
	if (in_port >= 2 || len < FWD_IPV6_MIN_FRAME || len > FWD_FRAME_MAX ||
	    frame == NULL)
		abort();
}

static void
fz_init(void)
{
	struct fwd_nd_conf c = {.max_neigh = 64, .queue_len = 3, .seed = 1};
	struct fwd_nd_ra_conf rc = {.enabled = true,
	    .interval_max_s = 4,
	    .mtu = 1400};

	c.clock = fz_clock;
	c.unreach = fz_unreach;
	fz_adj = fwd_adj_tbl_new(64, 0);
	fz_out = calloc(1, sizeof(*fz_out));
	if (fz_adj == NULL || fz_out == NULL)
		abort();
	for (uint16_t p = 0; p < 2; p++) {
		if (fwd_adj_port_set(fz_adj, p, fz_mac[p], 1500, true) != 0)
			abort();
		/* 2001:2:0:p::1/64 */
		memset(fz_a[p], 0, 16);
		fz_a[p][0] = 0x20;
		fz_a[p][1] = 0x01;
		fz_a[p][3] = 0x02;
		fz_a[p][7] = (uint8_t)p;
		fz_a[p][15] = 1;
	}
	for (int i = 0; i < 3; i++)
		(void)fwd_adj_alloc(fz_adj);
	fz_nd = fwd_nd_new(&c, fz_adj);
	if (fz_nd == NULL)
		abort();
	for (uint16_t p = 0; p < 2; p++) {
		if (fwd_nd_addr_add(fz_nd, p, fz_a[p], 64, fz_out) != 0 ||
		    fwd_nd_ll_set(fz_nd, p, NULL, fz_out) != 0)
			abort();
	}
	fz_now += 1000;
	(void)fwd_nd_tick(fz_nd, fz_out);
	if (fwd_nd_ra_set(fz_nd, 1, &rc, fz_out) != 0)
		abort();
	{
		uint8_t gw[16];

		memcpy(gw, fz_a[1], 16);
		gw[15] = 0xfe;
		(void)fwd_adj_set_nh6(fz_adj, 1, 1, gw, NULL);
		(void)fwd_adj_set_glean6(fz_adj, 2, 1);
	}
	fz_out->n = 0;
}

static uint16_t
fz_sum(const uint8_t *ip, unsigned ilen)
{
	uint8_t ph[8] = {0};
	uint64_t s;

	fwd_st32(ph, htonl(ilen));
	ph[7] = 58;
	s = fwd_cksum_add(ip + 8, 32, 0);
	s = fwd_cksum_add(ph, 8, s);
	return (fwd_cksum_fold(fwd_cksum_add(ip + 40, ilen, s)));
}

static void
fz_check_out(void)
{
	for (unsigned i = 0; i < fz_out->n; i++) {
		const struct fwd_pkt *p = &fz_out->pkt[i];
		const uint8_t *ip = p->data + FWD_ETH_HLEN;
		unsigned pl;

		if (p->port >= 2 || p->len < FWD_IPV6_MIN_FRAME ||
		    p->len > FWD_FRAME_MAX ||
		    fwd_ld16(p->data + 12) != htons(FWD_ETH_P_IPV6) ||
		    (ip[0] >> 4) != 6)
			abort();
		pl = ntohs(fwd_ld16(ip + 4));
		if (FWD_IPV6_MIN_FRAME + pl > p->len)
			abort();
		if (memcmp(p->data + 6, fz_mac[p->port], 6) != 0)
			abort();
		/* what we built ourselves (a forwarded queued packet has its
		 * hop limit decremented: never 255) */
		if (ip[6] == 58 && ip[7] == 255 &&
		    (pl < 4 || fz_sum(ip, pl) != 0xffff))
			abort();
	}
}

static int
fz_walk(const struct fwd_nd_info *ni, void *arg)
{
	(void)arg;
	if (ni->state < FWD_ND_INCOMPLETE || ni->state > FWD_ND_STATIC ||
	    ni->queued > 3 || ni->port >= 2 || (ni->ip6[0] == 0xff))
		abort();
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t port;
	uint8_t *f;
	unsigned len;

	if (fz_nd == NULL)
		fz_init();
	if (size < 1 || size > FWD_FRAME_MAX)
		return (0);
	port = data[0] & 1;
	fz_now += (uint64_t)(data[0] >> 2) * 100;
	if (!(data[0] & 2)) {
		/* raw frame */
		len = (unsigned)size - 1;
		f = malloc(len ? len : 1);
		if (f == NULL)
			abort();
		memcpy(f, data + 1, len);
	} else {
		/* body wrapped: data[1] picks the source and destination */
		static const uint8_t zero[16];
		uint8_t src[16], dst[16];
		unsigned il;

		if (size < 2)
			return (0);
		il = (unsigned)size - 2;
		len = FWD_IPV6_MIN_FRAME + il;
		if (len > FWD_FRAME_MAX)
			return (0);
		f = malloc(len);
		if (f == NULL)
			abort();
		memcpy(src, fz_a[port], 16);
		src[15] = (uint8_t)(data[1] & 0x0f); /* a neighbour or ours */
		if (data[1] & 0x10)
			memcpy(src, zero, 16);
		if (data[1] & 0x20) {
			src[0] = 0xfe; /* link-local */
			src[1] = 0x80;
			memset(src + 2, 0, 6);
		}
		switch (data[1] >> 6) {
		case 0:
			memcpy(dst, fz_a[port], 16);
			break;
		case 1: /* our solicited-node group */
			memset(dst, 0, 16);
			dst[0] = 0xff;
			dst[1] = 0x02;
			dst[11] = 1;
			dst[12] = 0xff;
			memcpy(dst + 13, fz_a[port] + 13, 3);
			break;
		case 2: /* all-nodes */
			memset(dst, 0, 16);
			dst[0] = 0xff;
			dst[1] = 0x02;
			dst[15] = 1;
			break;
		default: /* all-routers */
			memset(dst, 0, 16);
			dst[0] = 0xff;
			dst[1] = 0x02;
			dst[15] = 2;
			break;
		}
		memcpy(f, fz_mac[port], 6);
		memcpy(f + 6, fz_host, 6);
		f[12] = 0x86;
		f[13] = 0xdd;
		fwd_st32(f + 14, htonl(0x60000000u));
		fwd_st16(f + 18, htons((uint16_t)il));
		f[20] = 58;
		f[21] = 255;
		memcpy(f + 22, src, 16);
		memcpy(f + 38, dst, 16);
		memcpy(f + 54, data + 2, il);
		if (il >= 4) {
			fwd_st16(f + 56, 0);
			fwd_st16(f + 56, (uint16_t)~fz_sum(f + 14, il));
		}
	}
	(void)fwd_nd_input(fz_nd, port, f, len, fz_out);
	/* and a punt of it, as the slow path does for a glean adjacency */
	if (len >= FWD_IPV6_MIN_FRAME && (data[0] & 0x80))
		(void)fwd_nd_punt(fz_nd, port ^ 1, 2, f, len, fz_out);
	fz_check_out();
	fz_out->n = 0;
	(void)fwd_nd_tick(fz_nd, fz_out);
	fz_check_out();
	fz_out->n = 0;
	(void)fwd_nd_walk(fz_nd, fz_walk, NULL);
	free(f);
	return (0);
}
