/* bgp/bgp_adj.c: a neighbour's Adj-RIB-Out for IPv4 unicast (RFC 4271 3.2):
 * prefix -> the interned attribute set advertised, in an open-addressing
 * hash table with linear probing and backward-shift deletion (no
 * tombstones), grown at 3/4 load: 16 bytes per prefix, the attributes
 * stored once however many prefixes share them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bgp_adj.h"

static uint32_t
slot_of(const struct bgp_adj *a, uint32_t addr, uint8_t len)
{
	uint64_t h = ((uint64_t)addr << 8 | len) * 0x9e3779b97f4a7c15ull;

	return ((uint32_t)(h >> 32) & (a->cap - 1));
}

void
bgp_adj_init(struct bgp_adj *a)
{
	memset(a, 0, sizeof(*a));
}

static int
grow(struct bgp_adj *a)
{
	struct bgp_adj_ent *old = a->e;
	uint32_t ocap = a->cap, ncap = ocap ? ocap * 2 : 64;
	struct bgp_adj_ent *e = calloc(ncap, sizeof(*e));

	if (e == NULL)
		return (-ENOMEM);
	a->e = e;
	a->cap = ncap;
	for (uint32_t i = 0; i < ocap; i++) {
		uint32_t s;

		if (old[i].set == NULL)
			continue;
		s = slot_of(a, old[i].addr, old[i].len);
		while (e[s].set != NULL)
			s = (s + 1) & (ncap - 1);
		e[s] = old[i];
	}
	free(old);
	return (0);
}

static int64_t
find(const struct bgp_adj *a, uint32_t addr, uint8_t len)
{
	uint32_t s;

	if (a->cap == 0)
		return (-1);
	for (s = slot_of(a, addr, len); a->e[s].set != NULL;
	     s = (s + 1) & (a->cap - 1))
		if (a->e[s].addr == addr && a->e[s].len == len)
			return (s);
	return (-1);
}

int
bgp_adj_set(struct bgp_adj *a, struct bgp_intern *t, uint32_t addr, uint8_t len,
    struct bgp_aset *set)
{
	int64_t i = find(a, addr, len);
	uint32_t s;

	if (i >= 0) {
		struct bgp_aset *old = a->e[i].set;

		a->e[i].set = bgp_aset_ref(set);
		bgp_aset_unref(t, old);
		return (0);
	}
	if ((a->n + 1) * 4 > a->cap * 3 && grow(a) != 0)
		return (-ENOMEM);
	for (s = slot_of(a, addr, len); a->e[s].set != NULL;
	     s = (s + 1) & (a->cap - 1))
		;
	a->e[s].addr = addr;
	a->e[s].len = len;
	a->e[s].set = bgp_aset_ref(set);
	a->n++;
	return (1);
}

int
bgp_adj_del(struct bgp_adj *a, struct bgp_intern *t, uint32_t addr, uint8_t len)
{
	int64_t i = find(a, addr, len);
	uint32_t hole, j, mask = a->cap - 1;

	if (i < 0)
		return (0);
	bgp_aset_unref(t, a->e[i].set);
	a->e[i].set = NULL;
	a->n--;
	/* backward shift: pull later entries of the run into the hole when
	 * their home slot is not between the hole and them */
	hole = (uint32_t)i;
	for (j = (hole + 1) & mask; a->e[j].set != NULL; j = (j + 1) & mask) {
		uint32_t home = slot_of(a, a->e[j].addr, a->e[j].len);

		if (((j - home) & mask) >= ((j - hole) & mask)) {
			a->e[hole] = a->e[j];
			a->e[j].set = NULL;
			hole = j;
		}
	}
	return (1);
}

struct bgp_aset *
bgp_adj_get(const struct bgp_adj *a, uint32_t addr, uint8_t len)
{
	int64_t i = find(a, addr, len);

	return (i >= 0 ? a->e[i].set : NULL);
}

void
bgp_adj_clear(struct bgp_adj *a, struct bgp_intern *t)
{
	for (uint32_t i = 0; i < a->cap; i++)
		if (a->e[i].set != NULL)
			bgp_aset_unref(t, a->e[i].set);
	free(a->e);
	memset(a, 0, sizeof(*a));
}
