/* fwd/fwd_adj.c: adjacency table maintenance by the control thread (workers
 * only read). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_adj.h"
#include "fwd_pkt6.h"

struct fwd_adj_tbl *
fwd_adj_tbl_new(unsigned size, unsigned ngroups)
{
	struct fwd_adj_tbl *t;

	if (size == 0 || size > 0xffff) {
		errno = EINVAL;
		return (NULL);
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return (NULL);
	t->size = size;
	t->ngroups = ngroups;
	/*
	 * Entries for all 65536 indices (2 MiB, untouched beyond size; the
	 * reserved ones stay UNSET): the fast path indexes with any 16-bit
	 * FIB result without a bounds test.
	 */
	t->ent = calloc(FWD_ADJ_INDEX_SPACE, sizeof(*t->ent));
	t->used = calloc(size, 1);
	t->grp = calloc((size_t)ngroups * FWD_ADJ_GROUP_MAX + 1,
	    sizeof(*t->grp));
	t->grp_used = calloc(ngroups + 1, 1);
	t->v6 = calloc(size, 1);
	t->gw6 = calloc(size, sizeof(*t->gw6));
	if (t->ent == NULL || t->used == NULL || t->grp == NULL ||
	    t->grp_used == NULL || t->v6 == NULL || t->gw6 == NULL) {
		fwd_adj_tbl_free(t);
		errno = ENOMEM;
		return (NULL);
	}
	return (t);
}

void
fwd_adj_tbl_free(struct fwd_adj_tbl *t)
{
	if (t == NULL)
		return;
	free(t->ent);
	free(t->used);
	free(t->grp);
	free(t->grp_used);
	free(t->v6);
	free(t->gw6);
	free(t);
}

int
fwd_adj_alloc(struct fwd_adj_tbl *t)
{
	/* The lowest free index: the FIB's byte view holds next hops below
	 * 254 in one read (docs/fib.md), so a router keeps its next hops
	 * there however long it churns. (Reuse after release is safe: fwd_d
	 * releases an index only after the workers' grace period.) */
	for (unsigned i = t->low_free; i < t->size; i++)
		if (!t->used[i] && !fwd_adj_reserved(i)) {
			t->used[i] = 1;
			t->low_free = i + 1;
			return ((int)i);
		}
	t->low_free = t->size;
	return (-ENOSPC);
}

static void
adj_group_put(struct fwd_adj_tbl *t, struct fwd_adj *a)
{
	if (a->kind == FWD_ADJ_K_GROUP && a->group < t->ngroups)
		t->grp_used[a->group] = 0;
}

/* Publish an action (release): fmtu follows it (see struct fwd_adj). */
static void
adj_set_action(struct fwd_adj *a, uint8_t act)
{
	if (act != FWD_ADJ_A_FORWARD)
		__atomic_store_n(&a->fmtu, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&a->action, act, __ATOMIC_RELEASE);
	if (act == FWD_ADJ_A_FORWARD)
		__atomic_store_n(&a->fmtu, a->mtu, __ATOMIC_RELEASE);
}

/* Derive the action from kind, neighbour and port state; publish it last. */
static void
adj_publish(struct fwd_adj_tbl *t, struct fwd_adj *a)
{
	const struct fwd_adj_port *p = a->port < FWD_PORT_MAX ?
	    &t->port[a->port] :
	    NULL;
	unsigned idx = (unsigned)(a - t->ent);
	uint16_t type = idx < t->size && t->v6[idx] ? FWD_ETH_P_IPV6 :
						      FWD_ETH_P_IPV4;
	uint8_t act;

	switch (a->kind) {
	case FWD_ADJ_K_NH:
	case FWD_ADJ_K_GLEAN:
		if (p == NULL || !p->present || !p->up)
			act = FWD_ADJ_A_DOWN;
		else if (a->kind == FWD_ADJ_K_NH && a->resolved)
			act = FWD_ADJ_A_FORWARD;
		else
			act = FWD_ADJ_A_RESOLVE;
		if (p != NULL && p->present) {
			memcpy(a->eth + FWD_ETH_SRC, p->mac, 6);
			a->mtu = p->mtu;
		}
		a->eth[12] = type >> 8;
		a->eth[13] = type & 0xff;
		break;
	case FWD_ADJ_K_LOCAL:
		act = FWD_ADJ_A_LOCAL;
		break;
	case FWD_ADJ_K_DROP:
		act = FWD_ADJ_A_DROP;
		break;
	case FWD_ADJ_K_REJECT:
		act = FWD_ADJ_A_REJECT;
		break;
	case FWD_ADJ_K_GROUP:
		act = FWD_ADJ_A_GROUP;
		break;
	default:
		act = FWD_ADJ_A_UNSET;
		break;
	}
	adj_set_action(a, act);
}

/* Take an entry out of service before rewriting its fields. */
static void
adj_quiesce(struct fwd_adj *a)
{
	__atomic_store_n(&a->ngrp, 0, __ATOMIC_RELEASE);
	adj_set_action(a, FWD_ADJ_A_RESOLVE);
}

void
fwd_adj_release(struct fwd_adj_tbl *t, unsigned idx)
{
	struct fwd_adj *a;

	if (idx >= t->size)
		return;
	a = &t->ent[idx];
	adj_set_action(a, FWD_ADJ_A_UNSET);
	__atomic_store_n(&a->ngrp, 0, __ATOMIC_RELEASE);
	adj_group_put(t, a);
	a->kind = FWD_ADJ_K_NONE;
	a->resolved = 0;
	a->gw = 0;
	t->v6[idx] = 0;
	memset(t->gw6[idx], 0, 16);
	t->used[idx] = 0;
	if (idx < t->low_free)
		t->low_free = idx;
}

int
fwd_adj_port_set(struct fwd_adj_tbl *t, uint16_t port, const uint8_t *mac,
    uint16_t mtu, bool up)
{
	struct fwd_adj_port *p;

	if (port >= FWD_PORT_MAX || mac == NULL || mtu < 68)
		return (-EINVAL);
	p = &t->port[port];
	memcpy(p->mac, mac, 6);
	p->mtu = mtu;
	p->up = up;
	p->present = true;
	for (unsigned i = 0; i < t->size; i++) {
		struct fwd_adj *a = &t->ent[i];

		if ((a->kind == FWD_ADJ_K_NH || a->kind == FWD_ADJ_K_GLEAN) &&
		    a->port == port) {
			adj_quiesce(a);
			adj_publish(t, a);
		}
	}
	return (0);
}

void
fwd_adj_port_del(struct fwd_adj_tbl *t, uint16_t port)
{
	if (port >= FWD_PORT_MAX)
		return;
	t->port[port].present = false;
	t->port[port].up = false;
	fwd_adj_port_addr_set(t, port, 0);
	for (unsigned i = 0; i < t->size; i++) {
		struct fwd_adj *a = &t->ent[i];

		if ((a->kind == FWD_ADJ_K_NH || a->kind == FWD_ADJ_K_GLEAN) &&
		    a->port == port)
			adj_publish(t, a);
	}
}

static struct fwd_adj *
adj_prep(struct fwd_adj_tbl *t, unsigned idx)
{
	struct fwd_adj *a;

	if (idx >= t->size || fwd_adj_reserved(idx))
		return (NULL);
	a = &t->ent[idx];
	adj_quiesce(a);
	adj_group_put(t, a);
	t->used[idx] = 1;
	a->resolved = 0;
	a->gw = 0;
	t->v6[idx] = 0;
	memset(t->gw6[idx], 0, 16);
	return (a);
}

/* K_NH (gw or gw6 its gateway) or K_GLEAN on port, of either family. */
static int
adj_set_port(struct fwd_adj_tbl *t, unsigned idx, uint8_t kind, uint16_t port,
    uint32_t gw, const uint8_t *gw6, bool v6, const uint8_t *mac)
{
	struct fwd_adj *a;

	if (port >= FWD_PORT_MAX || (a = adj_prep(t, idx)) == NULL)
		return (-EINVAL);
	a->kind = kind;
	a->port = port;
	a->gw = gw;
	t->v6[idx] = v6;
	if (gw6 != NULL)
		memcpy(t->gw6[idx], gw6, 16);
	if (mac != NULL) {
		memcpy(a->eth, mac, 6);
		a->resolved = 1;
	}
	adj_publish(t, a);
	return (0);
}

int
fwd_adj_set_nh(struct fwd_adj_tbl *t, unsigned idx, uint16_t port, uint32_t gw,
    const uint8_t *mac)
{
	return (adj_set_port(t, idx, FWD_ADJ_K_NH, port, gw, NULL, false, mac));
}

int
fwd_adj_set_glean(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	return (
	    adj_set_port(t, idx, FWD_ADJ_K_GLEAN, port, 0, NULL, false, NULL));
}

int
fwd_adj_set_nh6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port,
    const uint8_t gw6[16], const uint8_t *mac)
{
	if (gw6 == NULL)
		return (-EINVAL);
	return (adj_set_port(t, idx, FWD_ADJ_K_NH, port, 0, gw6, true, mac));
}

int
fwd_adj_set_glean6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	return (
	    adj_set_port(t, idx, FWD_ADJ_K_GLEAN, port, 0, NULL, true, NULL));
}

static int
adj_set_simple(struct fwd_adj_tbl *t, unsigned idx, uint8_t kind)
{
	struct fwd_adj *a;

	if ((a = adj_prep(t, idx)) == NULL)
		return (-EINVAL);
	a->kind = kind;
	adj_publish(t, a);
	return (0);
}

int
fwd_adj_set_local(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_LOCAL));
}

int
fwd_adj_set_drop(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_DROP));
}

int
fwd_adj_set_reject(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_REJECT));
}

int
fwd_adj_set_group(struct fwd_adj_tbl *t, unsigned idx, const uint16_t *members,
    unsigned n)
{
	struct fwd_adj *a;
	unsigned g;

	if (idx >= t->size || fwd_adj_reserved(idx) || n == 0 ||
	    n > FWD_ADJ_GROUP_MAX || members == NULL)
		return (-EINVAL);
	for (unsigned i = 0; i < n; i++) {
		uint8_t k;

		if (members[i] >= t->size || members[i] == idx)
			return (-EINVAL);
		k = t->ent[members[i]].kind;
		if (k != FWD_ADJ_K_NH && k != FWD_ADJ_K_GLEAN)
			return (-EINVAL);
	}
	a = &t->ent[idx];
	if (a->kind == FWD_ADJ_K_GROUP)
		g = a->group;
	else {
		for (g = 0; g < t->ngroups && t->grp_used[g]; g++)
			;
		if (g == t->ngroups)
			return (-ENOSPC);
		adj_quiesce(a);
		t->grp_used[g] = 1;
		t->used[idx] = 1;
		a->kind = FWD_ADJ_K_GROUP;
		a->group = g;
	}
	/*
	 * Shrink n first, rewrite the members, then publish the new n: a
	 * worker always hashes over members that are valid adjacencies.
	 */
	__atomic_store_n(&a->ngrp, 0, __ATOMIC_RELEASE);
	adj_set_action(a, FWD_ADJ_A_RESOLVE);
	memcpy(&t->grp[g * FWD_ADJ_GROUP_MAX], members, n * sizeof(*members));
	__atomic_store_n(&a->ngrp, (uint8_t)n, __ATOMIC_RELEASE);
	adj_publish(t, a);
	return (0);
}

/* K_NH entry a's neighbour has MAC mac (NULL: invalid): 1 if it changed. */
static unsigned
adj_neigh_update(struct fwd_adj_tbl *t, struct fwd_adj *a, const uint8_t *mac)
{
	if (mac != NULL && a->resolved && memcmp(a->eth, mac, 6) == 0)
		return (0);
	adj_quiesce(a);
	if (mac != NULL) {
		memcpy(a->eth, mac, 6);
		a->resolved = 1;
	} else
		a->resolved = 0;
	adj_publish(t, a);
	return (1);
}

unsigned
fwd_adj_neigh_set(struct fwd_adj_tbl *t, uint16_t port, uint32_t ip,
    const uint8_t *mac)
{
	unsigned changed = 0;

	for (unsigned i = 0; i < t->size; i++) {
		struct fwd_adj *a = &t->ent[i];

		if (a->kind != FWD_ADJ_K_NH || a->port != port || t->v6[i] ||
		    a->gw != ip)
			continue;
		changed += adj_neigh_update(t, a, mac);
	}
	return (changed);
}

unsigned
fwd_adj_neigh_set6(struct fwd_adj_tbl *t, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac)
{
	unsigned changed = 0;

	if (ip6 == NULL)
		return (0);
	for (unsigned i = 0; i < t->size; i++) {
		struct fwd_adj *a = &t->ent[i];

		if (a->kind != FWD_ADJ_K_NH || a->port != port || !t->v6[i] ||
		    memcmp(t->gw6[i], ip6, 16) != 0)
			continue;
		changed += adj_neigh_update(t, a, mac);
	}
	return (changed);
}
