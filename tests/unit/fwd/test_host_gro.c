/* tests/unit/fwd/test_host_gro.c: the host path's TCP coalescing
 * (fwd/fwd_host_gro.c): what merges, what never does, and the frame and
 * virtio-net header it writes, checked against a full recompute. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_host_gro.h"
#include "fwd/fwd_pkt.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t rmac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t hmac[6] = {0x02, 0, 0, 0, 0, 0x99};

#define SEQ0 1000000u
#define L4   (FWD_ETH_HLEN + FWD_IPV4_HLEN)

static struct fwd_gro g;
static uint8_t fr[2048];

/* Fill in a TCP header (thl bytes, timestamps option when 32) over pay
 * bytes of payload (byte i of the stream is (uint8_t)(seq + i)) and its
 * checksum. */
static unsigned
tcp(uint8_t *f, uint32_t seq, unsigned pay, uint8_t flags, unsigned thl)
{
	unsigned len = tf_ipv4(f, rmac, hmac, TF_IP(1, 2), TF_IP(1, 1), 64, 6,
	    thl + pay, FWD_IP_DF);
	uint8_t *th = f + L4;
	uint64_t sum;

	memset(th, 0, thl);
	fwd_st16(th, htons(40000));
	fwd_st16(th + 2, htons(5201));
	fwd_st32(th + 4, htonl(seq));
	fwd_st32(th + 8, htonl(77));
	th[12] = (uint8_t)((thl / 4) << 4);
	th[13] = flags;
	fwd_st16(th + 14, htons(501));
	if (thl == 32) {
		th[20] = 1;
		th[21] = 1;
		th[22] = 8;
		th[23] = 10;
		fwd_st32(th + 24, htonl(0xabcd));
	}
	for (unsigned i = 0; i < pay; i++)
		th[thl + i] = (uint8_t)(seq + i);
	sum = fwd_cksum_add(f + L4 - 8, 8, 0) + htons(6) +
	    htons((uint16_t)(thl + pay));
	fwd_st16(th + 16,
	    (uint16_t)~fwd_cksum_fold(fwd_cksum_add(th, thl + pay, sum)));
	return (len);
}

/* The IPv4 and TCP checksums of f (len bytes) again, after an edit. */
static unsigned
fix(uint8_t *f, unsigned len)
{
	uint8_t *ip = f + FWD_ETH_HLEN, *th = f + L4;
	unsigned tl = len - L4;
	uint64_t sum;

	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
	fwd_st16(th + 16, 0);
	sum = fwd_cksum_add(ip + FWD_IP_SRC, 8, 0) + htons(6) +
	    htons((uint16_t)tl);
	fwd_st16(th + 16,
	    (uint16_t)~fwd_cksum_fold(fwd_cksum_add(th, tl, sum)));
	return (len);
}

static unsigned
seg(uint32_t seq, unsigned pay)
{
	return (tcp(fr, seq, pay, 0x10, 32));
}

static int
setup(void **st)
{
	(void)st;
	memset(&g, 0, sizeof(g));
	return (0);
}

static void
test_merge_run(void **st)
{
	struct virtio_net_hdr *v = (struct virtio_net_hdr *)g.buf;
	uint8_t *h = g.buf + FWD_GRO_VNET_LEN, *th = h + L4;
	unsigned n, len = 0;

	(void)st;
	for (unsigned i = 0; i < 4; i++) {
		len = seg(SEQ0 + i * 1400, 1400);
		assert_true(fwd_gro_offer(&g, 3, fr, len));
	}
	/* a shorter one ends the run, with PSH */
	len = tcp(fr, SEQ0 + 4 * 1400, 100, 0x18, 32);
	assert_true(fwd_gro_offer(&g, 3, fr, len));
	len = seg(SEQ0 + 4 * 1400 + 100, 1400);
	assert_false(fwd_gro_offer(&g, 3, fr, len));
	assert_int_equal(g.segs, 5);
	assert_int_equal(g.bytes, 4 * (L4 + 32 + 1400) + (L4 + 32 + 100));
	n = fwd_gro_finish(&g);
	assert_int_equal(n, FWD_GRO_VNET_LEN + L4 + 32 + 5700);
	assert_int_equal(g.len, 0);
	assert_int_equal(v->gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(v->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(v->gso_size, 1400);
	assert_int_equal(v->hdr_len, L4 + 32);
	assert_int_equal(v->csum_start, L4);
	assert_int_equal(v->csum_offset, 16);
	assert_int_equal(ntohs(fwd_ld16(h + FWD_ETH_HLEN + FWD_IP_LEN)),
	    20 + 32 + 5700);
	assert_true(fwd_ipv4_cksum_ok(h + FWD_ETH_HLEN, FWD_IPV4_HLEN));
	assert_int_equal(th[13], 0x18);
	for (unsigned i = 0; i < 5700; i++)
		assert_int_equal(th[32 + i], (uint8_t)(SEQ0 + i));
	/* the checksum field, completed over the whole segment as the kernel
	 * would (from csum_start, the field as the seed), verifies */
	{
		uint64_t sum = fwd_cksum_add(th, 32 + 5700, 0);
		uint16_t c = (uint16_t)~fwd_cksum_fold(sum);
		uint64_t full;

		fwd_st16(th + 16, c);
		full = fwd_cksum_add(h + L4 - 8, 8, 0) + htons(6) +
		    htons(32 + 5700);
		assert_int_equal(fwd_cksum_fold(
				     fwd_cksum_add(th, 32 + 5700, full)),
		    0xffff);
	}
}

static void
test_single_as_is(void **st)
{
	struct virtio_net_hdr *v = (struct virtio_net_hdr *)g.buf;
	uint8_t copy[2048];
	unsigned len = seg(SEQ0, 1400), n;

	(void)st;
	memcpy(copy, fr, len);
	assert_true(fwd_gro_offer(&g, 1, fr, len));
	n = fwd_gro_finish(&g);
	assert_int_equal(n, FWD_GRO_VNET_LEN + len);
	assert_int_equal(v->gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(v->flags, 0);
	assert_memory_equal(g.buf + FWD_GRO_VNET_LEN, copy, len);
	assert_int_equal(fwd_gro_finish(&g), 0);
}

static void
test_never_merged(void **st)
{
	unsigned len;

	(void)st;
	/* SYN, FIN, RST, no ACK, no data */
	assert_false(fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0, 10, 0x12, 32)));
	assert_false(fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0, 10, 0x11, 32)));
	assert_false(fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0, 10, 0x14, 32)));
	assert_false(fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0, 10, 0x08, 32)));
	assert_false(fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0, 0, 0x10, 32)));
	/* bad TCP checksum, bad IPv4 checksum */
	len = seg(SEQ0, 100);
	fr[L4 + 40] ^= 1;
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	len = seg(SEQ0, 100);
	fr[FWD_ETH_HLEN + FWD_IP_TTL] = 3;
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	/* a fragment, IP options, UDP, truncated */
	len = seg(SEQ0, 100);
	fwd_st16(fr + FWD_ETH_HLEN + FWD_IP_OFF, htons(FWD_IP_MF));
	fwd_ipv4_cksum_set(fr + FWD_ETH_HLEN, FWD_IPV4_HLEN);
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	len = seg(SEQ0, 100);
	fr[FWD_ETH_HLEN] = 0x46;
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	len = tf_ipv4(fr, rmac, hmac, TF_IP(1, 2), TF_IP(1, 1), 64, 17, 100, 0);
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	len = seg(SEQ0, 100);
	assert_false(fwd_gro_offer(&g, 1, fr, len - 1));
	assert_false(fwd_gro_offer(&g, 1, fr, 30));
	assert_int_equal(g.len, 0);
}

static void
test_breaks_run(void **st)
{
	unsigned len;

	(void)st;
	assert_true(fwd_gro_offer(&g, 1, fr, seg(SEQ0, 1000)));
	/* out of order, another port, longer than the first */
	assert_false(fwd_gro_offer(&g, 1, fr, seg(SEQ0 + 1001, 1000)));
	assert_false(fwd_gro_offer(&g, 2, fr, seg(SEQ0 + 1000, 1000)));
	assert_false(fwd_gro_offer(&g, 1, fr, seg(SEQ0 + 1000, 1001)));
	/* another acknowledgement, window, timestamp, TTL, TOS, source,
	 * MAC, header length (each with its checksums right) */
	len = seg(SEQ0 + 1000, 1000);
	fwd_st32(fr + L4 + 8, htonl(78));
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fwd_st16(fr + L4 + 14, htons(502));
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fr[L4 + 27] ^= 1;
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fr[FWD_ETH_HLEN + FWD_IP_TTL] = 63;
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fr[FWD_ETH_HLEN + FWD_IP_TOS] = 4;
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fr[FWD_ETH_HLEN + FWD_IP_SRC + 3] = 9;
	assert_false(fwd_gro_offer(&g, 1, fr, fix(fr, len)));
	len = seg(SEQ0 + 1000, 1000);
	fr[FWD_ETH_SRC + 5] = 0x98;
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	len = tcp(fr, SEQ0 + 1000, 1000, 0x10, 20);
	assert_false(fwd_gro_offer(&g, 1, fr, len));
	assert_int_equal(g.segs, 1);
	/* the right one still merges */
	assert_true(fwd_gro_offer(&g, 1, fr, seg(SEQ0 + 1000, 1000)));
	assert_int_equal(g.segs, 2);
	/* after a PSH nothing more */
	assert_true(
	    fwd_gro_offer(&g, 1, fr, tcp(fr, SEQ0 + 2000, 1000, 0x18, 32)));
	assert_false(fwd_gro_offer(&g, 1, fr, seg(SEQ0 + 3000, 1000)));
	assert_int_equal(fwd_gro_finish(&g), FWD_GRO_VNET_LEN + L4 + 32 + 3000);
}

static void
test_size_bound(void **st)
{
	unsigned n = 0;

	(void)st;
	/* up to the largest IPv4 datagram, then refused */
	while (fwd_gro_offer(&g, 1, fr, seg(SEQ0 + n * 1448, 1448)))
		n++;
	assert_true(n > 40);
	assert_true(g.len <= FWD_GRO_FRAME_MAX);
	assert_true(g.len + 1448 > FWD_GRO_FRAME_MAX);
	assert_int_equal(ntohs(fwd_ld16(g.buf + FWD_GRO_VNET_LEN +
			     FWD_ETH_HLEN + FWD_IP_LEN)),
	    20 + 32 + 1448);
	(void)fwd_gro_finish(&g);
	assert_int_equal(ntohs(fwd_ld16(g.buf + FWD_GRO_VNET_LEN +
			     FWD_ETH_HLEN + FWD_IP_LEN)),
	    20 + 32 + n * 1448);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_merge_run, setup),
	    cmocka_unit_test_setup(test_single_as_is, setup),
	    cmocka_unit_test_setup(test_never_merged, setup),
	    cmocka_unit_test_setup(test_breaks_run, setup),
	    cmocka_unit_test_setup(test_size_bound, setup),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
