/* fwd/fwd_ipopt.h: IPv4 options of a datagram being forwarded (RFC 791,
 * RFC 1812 5.3.13): checked, and Record Route and Timestamp filled in. */
#ifndef FWD_IPOPT_H
#define FWD_IPOPT_H

#include <stdbool.h>
#include <stdint.h>

#define FWD_IPOPT_EOL  0   /* end of option list */
#define FWD_IPOPT_NOP  1   /* no operation */
#define FWD_IPOPT_RR   7   /* record route */
#define FWD_IPOPT_TS   68  /* internet timestamp */
#define FWD_IPOPT_LSRR 131 /* loose source route */
#define FWD_IPOPT_SSRR 137 /* strict source route */

/* Timestamp flags (the low nibble of the option's fourth octet). */
#define FWD_IPOPT_TS_ONLY  0 /* timestamps only */
#define FWD_IPOPT_TS_ADDR  1 /* each router: its address, then timestamp */
#define FWD_IPOPT_TS_PRESP 3 /* prespecified addresses: only those fill */

/*
 * The options of the IPv4 header ip (hlen bytes, 20 < hlen <= 60, the
 * header already checked by fwd_pkt_parse) of a datagram the router
 * forwards out of an interface whose address is out_n (network order; 0:
 * the interface has none, nothing is recorded). First every option is
 * checked, and nothing is changed when one is malformed; then Record Route
 * gets out_n at its pointer, Timestamp (flags 0, 1, and 3 where the next
 * prespecified address is out_n) gets ts_ms (host order), milliseconds since
 * midnight UT (RFC 791), with out_n before it for flag 1; a full Timestamp
 * option has
 * its overflow count raised instead. An option given twice (Record Route,
 * Timestamp, a source route) is malformed. Source route options are checked
 * but
 * not followed (the datagram is not addressed to the router: RFC 791 has
 * the routers on the way leave them as they are); other options are passed
 * through unchanged (RFC 1812 5.3.13.1: an unknown option is ignored).
 * *changed tells whether the header changed (its checksum is the caller's
 * to recompute). Returns 0, or the ICMP Parameter Problem pointer (RFC 792:
 * the offset in the header of the octet in error, >= 20) for a malformed
 * option: a length below 2 or beyond the header, a pointer below its
 * minimum, room for part of an entry only, a Timestamp overflow count that
 * overflows, an unknown Timestamp flag. Reads and writes ip[0..hlen) only.
 */
unsigned fwd_ipopt_forward(uint8_t *ip, unsigned hlen, uint32_t out_n,
    uint32_t ts_ms, bool *changed);

/* Milliseconds since midnight UT now (CLOCK_REALTIME, vDSO: no system
 * call), host order, for Timestamp options. */
uint32_t fwd_ipopt_now_ms(void);

#endif /* FWD_IPOPT_H */
