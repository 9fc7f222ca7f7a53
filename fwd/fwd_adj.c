/* fwd/fwd_adj.c: adjacency table maintenance by the control thread (workers
 * only read). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_adj.h"
#include "fwd_pkt6.h"
#include "libcommon/lc_err.h"
#include "libcommon/lc_seg.h"

/* A shared table's layout (kind ADJ1): the regions of its segment. */
enum {
	ADJ_R_ENT,
	ADJ_R_USED,
	ADJ_R_GRP,
	ADJ_R_GRP_USED,
	ADJ_R_V6,
	ADJ_R_GW6,
	ADJ_R_SHAPE,
	ADJ_R__N
};
#define ADJ_SEG_KIND	0x41444a31u /* "ADJ1" */
#define ADJ_SEG_VERSION 1u	    /* change with struct fwd_adj's layout */

struct adj_shape {
	uint32_t size, ngroups, entry_bytes;
};

static void
adj_spec(struct lc_seg_spec *sp, unsigned size, unsigned ngroups)
{
	sp[ADJ_R_ENT] = (struct lc_seg_spec){"ent",
	    FWD_ADJ_INDEX_SPACE * sizeof(struct fwd_adj), true};
	sp[ADJ_R_USED] = (struct lc_seg_spec){"used", size, false};
	sp[ADJ_R_GRP] = (struct lc_seg_spec){"grp",
	    ((size_t)ngroups * FWD_ADJ_GROUP_MAX + 1) * sizeof(uint16_t),
	    false};
	sp[ADJ_R_GRP_USED] = (struct lc_seg_spec){"grp_used", ngroups + 1,
	    false};
	sp[ADJ_R_V6] = (struct lc_seg_spec){"v6", size, false};
	sp[ADJ_R_GW6] = (struct lc_seg_spec){"gw6", (size_t)size * 16, false};
	sp[ADJ_R_SHAPE] = (struct lc_seg_spec){"shape",
	    sizeof(struct adj_shape), false};
}

static void
adj_seg_bind(struct fwd_adj_tbl *t)
{
	t->ent = lc_seg_region(t->seg, ADJ_R_ENT);
	t->used = lc_seg_region(t->seg, ADJ_R_USED);
	t->grp = lc_seg_region(t->seg, ADJ_R_GRP);
	t->grp_used = lc_seg_region(t->seg, ADJ_R_GRP_USED);
	t->v6 = lc_seg_region(t->seg, ADJ_R_V6);
	t->gw6 = lc_seg_region(t->seg, ADJ_R_GW6);
}

/* Every public change inside the segment's epoch, when shared (a crash in
 * one leaves it refused by adopt; nested calls count once: lc_seg). */
static inline void
adj_upd_begin(struct fwd_adj_tbl *t)
{
	if (t->seg != NULL)
		lc_seg_begin(t->seg);
}

static inline void
adj_upd_end(struct fwd_adj_tbl *t)
{
	if (t->seg != NULL)
		lc_seg_end(t->seg);
}

static struct fwd_adj_tbl *
adj_tbl_make(unsigned size, unsigned ngroups, bool shared, int fd,
    struct lc_err *err)
{
	struct lc_seg_spec sp[ADJ_R__N];
	struct fwd_adj_tbl *t;
	struct adj_shape *sh;
	struct lc_err e2;
	int rv;

	if (err == NULL)
		err = &e2;
	lc_err_clear(err);
	if (size == 0 || size > 0xffff) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "bad size %u", size);
		errno = EINVAL;
		return (NULL);
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		goto nomem;
	t->size = size;
	t->ngroups = ngroups;
	if (shared) {
		adj_spec(sp, size, ngroups);
		if ((t->seg = calloc(1, sizeof(*t->seg))) == NULL)
			goto nomem;
		rv = fd < 0 ?
		    lc_seg_create(t->seg, "tern-fwd-adj", ADJ_SEG_KIND,
			ADJ_SEG_VERSION, sp, ADJ_R__N, err) :
		    lc_seg_adopt(t->seg, fd, ADJ_SEG_KIND, ADJ_SEG_VERSION, sp,
			ADJ_R__N, err);
		if (rv != 0) {
			free(t->seg);
			t->seg = NULL;
			fwd_adj_tbl_free(t);
			errno = -rv;
			return (NULL);
		}
		adj_seg_bind(t);
		sh = lc_seg_region(t->seg, ADJ_R_SHAPE);
		if (fd < 0) {
			sh->size = size;
			sh->ngroups = ngroups;
			sh->entry_bytes = sizeof(struct fwd_adj);
		} else if (sh->size != size || sh->ngroups != ngroups ||
		    sh->entry_bytes != sizeof(struct fwd_adj)) {
			lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
			    "an adjacency table of another shape (%u entries, "
			    "%u groups; this one %u, %u)",
			    sh->size, sh->ngroups, size, ngroups);
			fwd_adj_tbl_free(t);
			errno = EPROTO;
			return (NULL);
		}
		(void)lc_seg_collapse(t->seg, ADJ_R_ENT);
		/* the lowest free index, as fwd_adj_alloc keeps it */
		while (t->low_free < size &&
		    (t->used[t->low_free] || fwd_adj_reserved(t->low_free)))
			t->low_free++;
		return (t);
	}
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
	    t->grp_used == NULL || t->v6 == NULL || t->gw6 == NULL)
		goto nomem;
	return (t);
nomem:
	fwd_adj_tbl_free(t);
	lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
	errno = ENOMEM;
	return (NULL);
}

struct fwd_adj_tbl *
fwd_adj_tbl_new(unsigned size, unsigned ngroups)
{
	return (adj_tbl_make(size, ngroups, false, -1, NULL));
}

struct fwd_adj_tbl *
fwd_adj_tbl_new_shared(unsigned size, unsigned ngroups)
{
	return (adj_tbl_make(size, ngroups, true, -1, NULL));
}

struct fwd_adj_tbl *
fwd_adj_tbl_adopt(unsigned size, unsigned ngroups, int fd, struct lc_err *err)
{
	if (fd < 0) {
		lc_err_set(err, -EBADF, LC_ERR_NOINDEX, "no fd");
		return (NULL);
	}
	return (adj_tbl_make(size, ngroups, true, fd, err));
}

int
fwd_adj_tbl_seg_fd(const struct fwd_adj_tbl *t)
{
	return (t->seg != NULL ? lc_seg_fd(t->seg) : -1);
}

void
fwd_adj_tbl_free(struct fwd_adj_tbl *t)
{
	if (t == NULL)
		return;
	if (t->seg != NULL) {
		lc_seg_close(t->seg);
		free(t->seg);
	} else {
		free(t->ent);
		free(t->used);
		free(t->grp);
		free(t->grp_used);
		free(t->v6);
		free(t->gw6);
	}
	free(t);
}

static int
adj_x_alloc(struct fwd_adj_tbl *t)
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

int
fwd_adj_alloc(struct fwd_adj_tbl *t)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_alloc(t);
	adj_upd_end(t);
	return (rv);
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

static void
adj_x_release(struct fwd_adj_tbl *t, unsigned idx)
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

void
fwd_adj_release(struct fwd_adj_tbl *t, unsigned idx)
{
	adj_upd_begin(t);
	adj_x_release(t, idx);
	adj_upd_end(t);
}

static int
adj_x_port_set(struct fwd_adj_tbl *t, uint16_t port, const uint8_t *mac,
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

int
fwd_adj_port_set(struct fwd_adj_tbl *t, uint16_t port, const uint8_t *mac,
    uint16_t mtu, bool up)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_port_set(t, port, mac, mtu, up);
	adj_upd_end(t);
	return (rv);
}

static void
adj_x_port_del(struct fwd_adj_tbl *t, uint16_t port)
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

void
fwd_adj_port_del(struct fwd_adj_tbl *t, uint16_t port)
{
	adj_upd_begin(t);
	adj_x_port_del(t, port);
	adj_upd_end(t);
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

static int
adj_x_set_nh(struct fwd_adj_tbl *t, unsigned idx, uint16_t port, uint32_t gw,
    const uint8_t *mac)
{
	return (adj_set_port(t, idx, FWD_ADJ_K_NH, port, gw, NULL, false, mac));
}

int
fwd_adj_set_nh(struct fwd_adj_tbl *t, unsigned idx, uint16_t port, uint32_t gw,
    const uint8_t *mac)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_nh(t, idx, port, gw, mac);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_glean(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	return (
	    adj_set_port(t, idx, FWD_ADJ_K_GLEAN, port, 0, NULL, false, NULL));
}

int
fwd_adj_set_glean(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_glean(t, idx, port);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_nh6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port,
    const uint8_t gw6[16], const uint8_t *mac)
{
	if (gw6 == NULL)
		return (-EINVAL);
	return (adj_set_port(t, idx, FWD_ADJ_K_NH, port, 0, gw6, true, mac));
}

int
fwd_adj_set_nh6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port,
    const uint8_t gw6[16], const uint8_t *mac)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_nh6(t, idx, port, gw6, mac);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_glean6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	return (
	    adj_set_port(t, idx, FWD_ADJ_K_GLEAN, port, 0, NULL, true, NULL));
}

int
fwd_adj_set_glean6(struct fwd_adj_tbl *t, unsigned idx, uint16_t port)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_glean6(t, idx, port);
	adj_upd_end(t);
	return (rv);
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

static int
adj_x_set_local(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_LOCAL));
}

int
fwd_adj_set_local(struct fwd_adj_tbl *t, unsigned idx)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_local(t, idx);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_drop(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_DROP));
}

int
fwd_adj_set_drop(struct fwd_adj_tbl *t, unsigned idx)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_drop(t, idx);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_reject(struct fwd_adj_tbl *t, unsigned idx)
{
	return (adj_set_simple(t, idx, FWD_ADJ_K_REJECT));
}

int
fwd_adj_set_reject(struct fwd_adj_tbl *t, unsigned idx)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_reject(t, idx);
	adj_upd_end(t);
	return (rv);
}

static int
adj_x_set_group(struct fwd_adj_tbl *t, unsigned idx, const uint16_t *members,
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

int
fwd_adj_set_group(struct fwd_adj_tbl *t, unsigned idx, const uint16_t *members,
    unsigned n)
{
	int rv;

	adj_upd_begin(t);
	rv = adj_x_set_group(t, idx, members, n);
	adj_upd_end(t);
	return (rv);
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

static unsigned
adj_x_neigh_set(struct fwd_adj_tbl *t, uint16_t port, uint32_t ip,
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
fwd_adj_neigh_set(struct fwd_adj_tbl *t, uint16_t port, uint32_t ip,
    const uint8_t *mac)
{
	unsigned rv;

	adj_upd_begin(t);
	rv = adj_x_neigh_set(t, port, ip, mac);
	adj_upd_end(t);
	return (rv);
}

static unsigned
adj_x_neigh_set6(struct fwd_adj_tbl *t, uint16_t port, const uint8_t ip6[16],
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

unsigned
fwd_adj_neigh_set6(struct fwd_adj_tbl *t, uint16_t port, const uint8_t ip6[16],
    const uint8_t *mac)
{
	unsigned rv;

	adj_upd_begin(t);
	rv = adj_x_neigh_set6(t, port, ip6, mac);
	adj_upd_end(t);
	return (rv);
}
