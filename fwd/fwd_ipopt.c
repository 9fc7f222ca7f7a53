/* fwd/fwd_ipopt.c: the IPv4 options of a forwarded datagram, checked and
 * filled in (RFC 791 3.1, RFC 1812 5.3.13); the checks follow Linux's
 * ip_options_compile, so both answer the same octet in a Parameter Problem. */
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "fwd_ipopt.h"
#include "fwd_pkt.h"

/* Options seen once at most (a second one is malformed). */
#define SEEN_RR 0x1
#define SEEN_TS 0x2
#define SEEN_SR 0x4

/* Record Route at o (at: its offset in the header), len octets. */
static unsigned
opt_rr(uint8_t *o, unsigned at, unsigned len, uint32_t out_n, bool apply,
    bool *changed)
{
	unsigned ptr;

	if (len < 3)
		return (at + 1);
	ptr = o[2];
	if (ptr < 4)
		return (at + 2);
	if (ptr > len)
		return (0); /* full: forwarded without an address (RFC 791) */
	if (ptr + 3 > len)
		return (at + 2); /* room for part of an address */
	if (apply && out_n != 0) {
		memcpy(o + ptr - 1, &out_n, 4);
		o[2] = (uint8_t)(ptr + 4);
		*changed = true;
	}
	return (0);
}

/* Internet Timestamp at o. */
static unsigned
opt_ts(uint8_t *o, unsigned at, unsigned len, uint32_t out_n, uint32_t ts_ms,
    bool apply, bool *changed)
{
	uint32_t ts_n = htonl(ts_ms);
	unsigned ptr, flg, oflw, room;

	if (len < 4)
		return (at + 1);
	ptr = o[2];
	if (ptr < 5)
		return (at + 2);
	flg = o[3] & 0xfu;
	oflw = o[3] >> 4;
	if (flg != FWD_IPOPT_TS_ONLY && flg != FWD_IPOPT_TS_ADDR &&
	    flg != FWD_IPOPT_TS_PRESP)
		return (at + 3);
	room = flg == FWD_IPOPT_TS_ONLY ? 4 : 8;
	if (ptr > len) {
		/* full: count this router in the overflow nibble */
		if (oflw == 15)
			return (at + 3);
		if (apply) {
			o[3] = (uint8_t)((oflw + 1) << 4 | flg);
			*changed = true;
		}
		return (0);
	}
	if (ptr + room - 1 > len)
		return (at + 2);
	if (!apply)
		return (0);
	switch (flg) {
	case FWD_IPOPT_TS_ONLY:
		memcpy(o + ptr - 1, &ts_n, 4);
		break;
	case FWD_IPOPT_TS_ADDR:
		if (out_n == 0)
			return (0);
		memcpy(o + ptr - 1, &out_n, 4);
		memcpy(o + ptr + 3, &ts_n, 4);
		break;
	default: /* prespecified: only when the next address is ours */
		if (out_n == 0 || memcmp(o + ptr - 1, &out_n, 4) != 0)
			return (0);
		memcpy(o + ptr + 3, &ts_n, 4);
		break;
	}
	o[2] = (uint8_t)(ptr + room);
	*changed = true;
	return (0);
}

/* One pass over the options: checks only (apply false), or the changes
 * too. 0 or the pointer. */
static unsigned
opt_walk(uint8_t *ip, unsigned hlen, uint32_t out_n, uint32_t ts_ms, bool apply,
    bool *changed)
{
	unsigned i = FWD_IPV4_HLEN, seen = 0, rv = 0;

	while (i < hlen) {
		uint8_t *o = ip + i;
		unsigned len = 0, bit = 0;

		if (o[0] == FWD_IPOPT_EOL)
			break;
		if (o[0] == FWD_IPOPT_NOP) {
			i++;
			continue;
		}
		/* a type octet needs its length octet, within the header */
		if (hlen - i < 2 || (len = o[1]) < 2 || len > hlen - i)
			return (i);
		switch (o[0]) {
		case FWD_IPOPT_RR:
			bit = SEEN_RR;
			break;
		case FWD_IPOPT_TS:
			bit = SEEN_TS;
			break;
		case FWD_IPOPT_LSRR:
		case FWD_IPOPT_SSRR:
			bit = SEEN_SR;
			break;
		default:
			break;
		}
		if (seen & bit)
			return (i);
		seen |= bit;
		switch (o[0]) {
		case FWD_IPOPT_RR:
			rv = opt_rr(o, i, len, out_n, apply, changed);
			break;
		case FWD_IPOPT_TS:
			rv = opt_ts(o, i, len, out_n, ts_ms, apply, changed);
			break;
		case FWD_IPOPT_LSRR:
		case FWD_IPOPT_SSRR:
			/* checked, left as they are: not addressed to us */
			if (len < 3)
				rv = i + 1;
			else if (o[2] < 4)
				rv = i + 2;
			break;
		default:
			break; /* passed through unchanged */
		}
		if (rv != 0)
			return (rv);
		i += len;
	}
	return (0);
}

unsigned
fwd_ipopt_forward(uint8_t *ip, unsigned hlen, uint32_t out_n, uint32_t ts_ms,
    bool *changed)
{
	unsigned rv;

	*changed = false;
	if (hlen <= FWD_IPV4_HLEN || hlen > 60)
		return (0);
	/* all checked before anything changes: an error quotes the header
	 * as it came */
	if ((rv = opt_walk(ip, hlen, out_n, ts_ms, false, changed)) != 0)
		return (rv);
	return (opt_walk(ip, hlen, out_n, ts_ms, true, changed));
}

uint32_t
fwd_ipopt_now_ms(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_REALTIME, &t) != 0)
		return (0x80000000u); /* RFC 791: not in standard form */
	return ((uint32_t)((t.tv_sec % 86400) * 1000 + t.tv_nsec / 1000000));
}
