/* tests/fuzz/fuzz_ipopt.c: libFuzzer harness: arbitrary option bytes through
 * the IP option walker of forwarded datagrams (fwd_ipopt_forward): it reads
 * and writes nothing outside the header, changes nothing when it answers a
 * pointer (which points into the options), and leaves the fixed header
 * alone. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_ipopt.h"
#include "fwd/fwd_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *ip, orig[60];
	unsigned hlen, olen, ptr;
	uint32_t out;
	bool ch;

	if (size < 5)
		return (0);
	/* the first byte picks the egress address (0: none), the rest is
	 * the options, in a heap buffer of exactly the header's size so that
	 * ASan sees any read or write past it */
	out = data[0] & 1 ? 0 : htonl(0xc6120201u + (data[0] >> 1));
	data++;
	size--;
	olen = size > 40 ? 40 : (unsigned)size;
	hlen = FWD_IPV4_HLEN + ((olen + 3) & ~3u);
	if (hlen > 60)
		hlen = 60;
	if ((ip = calloc(1, hlen)) == NULL)
		return (0);
	ip[FWD_IP_VHL] = (uint8_t)(0x40 | hlen / 4);
	memcpy(ip + FWD_IPV4_HLEN, data, olen > hlen - 20 ? hlen - 20 : olen);
	memcpy(orig, ip, hlen);
	ptr = fwd_ipopt_forward(ip, hlen, out, 12345, &ch);
	if (ptr != 0) {
		if (ptr < FWD_IPV4_HLEN || ptr >= hlen || ch ||
		    memcmp(ip, orig, hlen) != 0)
			abort();
	} else {
		if (!ch && memcmp(ip, orig, hlen) != 0)
			abort();
		/* the fixed header is never touched */
		if (memcmp(ip, orig, FWD_IPV4_HLEN) != 0)
			abort();
		/* a second router's pass over it (a full Timestamp's
		 * overflow count may then overflow: an error, fine) */
		(void)fwd_ipopt_forward(ip, hlen, out, 12346, &ch);
	}
	free(ip);
	return (0);
}
