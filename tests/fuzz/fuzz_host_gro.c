/* tests/fuzz/fuzz_host_gro.c: libFuzzer harness: runs of frames through the
 * host path's TCP coalescing (fwd/fwd_host_gro.c). Input: records of a
 * control byte, a 16-bit length and that many bytes; the control byte can
 * make a record an IPv4/TCP frame with right checksums and a sequence
 * number that continues the last, to reach the merging itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "fwd/fwd_host_gro.h"
#include "fwd/fwd_pkt.h"

#define L4 (FWD_ETH_HLEN + FWD_IPV4_HLEN)

static struct fwd_gro g;

/* Make f (len bytes) pass segment()'s outer checks, as ctl says. */
static void
steer(uint8_t *f, unsigned len, unsigned ctl, uint32_t *seq)
{
	uint8_t *ip = f + FWD_ETH_HLEN, *th = f + L4;
	unsigned tl = len - FWD_ETH_HLEN, thl;
	uint64_t sum;

	f[12] = 0x08;
	f[13] = 0x00;
	ip[FWD_IP_VHL] = 0x45;
	ip[FWD_IP_PROTO] = FWD_IPPROTO_TCP;
	fwd_st16(ip + FWD_IP_OFF, htons(FWD_IP_DF));
	fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)tl));
	thl = (th[12] >> 4) * 4;
	if (thl < 20 || thl + 20 >= tl) {
		thl = 20;
		th[12] = 0x50;
	}
	if (ctl & 2)
		th[13] = (ctl & 4) ? 0x18 : 0x10;
	if (ctl & 8) {
		fwd_st32(th + 4, htonl(*seq));
		*seq += tl - FWD_IPV4_HLEN - thl;
	}
	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
	fwd_st16(th + 16, 0);
	sum = fwd_cksum_add(ip + FWD_IP_SRC, 8, 0) + htons(6) +
	    htons((uint16_t)(tl - FWD_IPV4_HLEN));
	fwd_st16(th + 16,
	    (uint16_t)~fwd_cksum_fold(
		fwd_cksum_add(th, tl - FWD_IPV4_HLEN, sum)));
}

static void
finish(void)
{
	unsigned n = fwd_gro_finish(&g);

	if (n > sizeof(g.buf) || (n != 0 && n < FWD_GRO_VNET_LEN + L4))
		abort();
	if (n != 0 &&
	    ntohs(fwd_ld16(g.buf + FWD_GRO_VNET_LEN + FWD_ETH_HLEN +
		FWD_IP_LEN)) != n - FWD_GRO_VNET_LEN - FWD_ETH_HLEN)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[2048];
	uint32_t seq = 0;

	memset(&g, 0, sizeof(g));
	while (size >= 3) {
		unsigned ctl = data[0];
		unsigned len = (unsigned)data[1] | (unsigned)data[2] << 8;
		uint16_t port = (ctl & 0x80) ? 1 : 0;

		data += 3;
		size -= 3;
		if (len > size)
			len = (unsigned)size;
		if (len > sizeof(f))
			len = sizeof(f);
		memcpy(f, data, len);
		data += len;
		size -= len;
		if ((ctl & 1) && len >= L4 + 21 && len <= 1514)
			steer(f, len, ctl, &seq);
		if (!fwd_gro_offer(&g, port, f, len)) {
			finish();
			(void)fwd_gro_offer(&g, port, f, len);
		}
	}
	finish();
	return (0);
}
