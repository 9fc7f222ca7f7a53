/* fwd/fwd_pkt6.c: the IPv6 fast test's tables (fwd_pkt6.h). */
#include "fwd_pkt6.h"

/* 255 for the first bytes the full parse must see: ::/8 (::, ::1,
 * ::ffff:0:0/96), fe00::/8 (fe80::/10), ff00::/8 (multicast) */
const uint8_t fwd_ip6_addr_floor[256] = {
    [0x00] = 255,
    [0x01 ... 0xfd] = 1,
    [0xfe] = 255,
    [0xff] = 255,
};

/* 255 for the extension headers (RFC 8200 4; RFC 7045's list: AH,
 * Mobility, HIP, Shim6, the two experimental values), 1 for the rest:
 * upper layers, ESP, No Next Header and unknown values end the chain */
const uint8_t fwd_ip6_nh_floor[256] = {
    [FWD_IP6_NH_HOPOPTS] = 255,
    [1 ... FWD_IP6_NH_ROUTING - 1] = 1,
    [FWD_IP6_NH_ROUTING] = 255,
    [FWD_IP6_NH_FRAGMENT] = 255,
    [FWD_IP6_NH_FRAGMENT + 1 ... FWD_IP6_NH_AH - 1] = 1,
    [FWD_IP6_NH_AH] = 255,
    [FWD_IP6_NH_AH + 1 ... FWD_IP6_NH_DSTOPTS - 1] = 1,
    [FWD_IP6_NH_DSTOPTS] = 255,
    [FWD_IP6_NH_DSTOPTS + 1 ... FWD_IP6_NH_MOBILITY - 1] = 1,
    [FWD_IP6_NH_MOBILITY] = 255,
    [FWD_IP6_NH_MOBILITY + 1 ... FWD_IP6_NH_HIP - 1] = 1,
    [FWD_IP6_NH_HIP] = 255,
    [FWD_IP6_NH_SHIM6] = 255,
    [FWD_IP6_NH_SHIM6 + 1 ... FWD_IP6_NH_EXP1 - 1] = 1,
    [FWD_IP6_NH_EXP1] = 255,
    [FWD_IP6_NH_EXP2] = 255,
    [255] = 1,
};
