/* bgp/bgp_adj.h: a neighbour's Adj-RIB-Out (bgp_adj.c). */
#ifndef BGP_ADJ_H
#define BGP_ADJ_H

#include <stdint.h>

#include "bgp_attr.h"

struct bgp_adj_ent {
	uint32_t addr; /* network order, host bits zero */
	uint8_t len;
	struct bgp_aset *set; /* NULL: a free slot */
};

struct bgp_adj {
	struct bgp_adj_ent *e;
	uint32_t cap; /* a power of two, or 0 */
	uint32_t n;
};

void bgp_adj_init(struct bgp_adj *);
/* The prefix's attributes are set (a reference taken, the old one's
 * dropped): 1 when the prefix is new, 0 when it was there, -ENOMEM. */
int bgp_adj_set(struct bgp_adj *, struct bgp_intern *, uint32_t addr,
    uint8_t len, struct bgp_aset *set);
/* 1 when the prefix was there (its reference dropped), else 0. */
int bgp_adj_del(struct bgp_adj *, struct bgp_intern *, uint32_t addr,
    uint8_t len);
struct bgp_aset *bgp_adj_get(const struct bgp_adj *, uint32_t addr,
    uint8_t len);
/* Every prefix gone, the memory freed. */
void bgp_adj_clear(struct bgp_adj *, struct bgp_intern *);

#endif /* BGP_ADJ_H */
