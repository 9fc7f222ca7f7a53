/* tests/fuzz/fuzz_pkt6.c: libFuzzer harness: arbitrary frames through the
 * IPv6 full parse and fast test (fwd_pkt6.h): no read past the frame (a heap
 * copy of exactly its length), a known reason, the fast test's yes only
 * where the parse says OK and with the same destination and length, the
 * meta within the frame and written only with the reasons that have one,
 * and a decremented hop limit parsed again as the next router would. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_pkt6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fz_mac[6] = {0x02, 0x74, 0, 0, 0, 1};
#define FZ_MAC64 0x010000007402ull

static void
fz_check(uint8_t *f, unsigned len)
{
	struct fwd_pkt6_meta m, sent;
	uint64_t hi = 0, lo = 0;
	unsigned il = 0;
	enum fwd_reason r;
	bool fo;

	memset(&sent, 0x5a, sizeof(sent));
	m = sent;
	fo = fwd_pkt6_fast_ok(f, len, FZ_MAC64, &hi, &lo, &il);
	r = fwd_pkt6_parse(f, len, fz_mac, &m);
	if ((unsigned)r >= FWD_R__COUNT)
		abort();
	if (fo &&
	    (r != FWD_R_OK || hi != m.dst_hi || lo != m.dst_lo ||
		il != m.ip_len))
		abort();
	if (!fwd_pkt6_has_meta(r)) {
		if (memcmp(&m, &sent, sizeof(m)) != 0)
			abort();
		return;
	}
	if (m.ip != f + FWD_ETH_HLEN || m.ip_len < FWD_IPV6_HLEN ||
	    m.ip_len > len - FWD_ETH_HLEN || m.l4_off < FWD_IPV6_HLEN ||
	    m.l4_off > m.ip_len || m.hlim != m.ip[FWD_IP6_HLIM])
		abort();
	if (r == FWD_R_OK) {
		/* forwarded: what the next router sees */
		if (m.hlim <= 1 || fwd_ip6_dst_martian(m.dst_hi, m.dst_lo) ||
		    fwd_ip6_linklocal(m.dst_hi))
			abort();
		fwd_ip6_hlim_dec(m.ip);
		r = fwd_pkt6_parse(f, len, fz_mac, &m);
		if (r != (m.hlim <= 1 ? FWD_R_IP6_HLIM : FWD_R_OK))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f;
	unsigned len;

	/* the first byte steers past what a random frame rarely gets right:
	 * bit 0 our MAC, bit 1 type 0x86dd, bit 2 version 6 */
	if (size < 1 || size > 4096)
		return (0);
	len = (unsigned)size - 1;
	if ((f = malloc(len ? len : 1)) == NULL)
		return (0);
	memcpy(f, data + 1, len);
	if ((data[0] & 1) && len >= 6)
		memcpy(f, fz_mac, 6);
	if ((data[0] & 2) && len >= 14) {
		f[12] = 0x86;
		f[13] = 0xdd;
	}
	if ((data[0] & 4) && len >= 15)
		f[14] = (uint8_t)(0x60 | (f[14] & 0x0f));
	fz_check(f, len);
	free(f);
	return (0);
}
