/* fwd/fwd_d_nd.h: tern-fwd's Neighbour Discovery glue (fwd_d_nd.c): an
 * interface's IPv6 configuration (IfConfig addrs6, link_local,
 * ipv6_disabled and StaticNeighbour.addr6 as fwd_if keeps them; ra kept
 * here) applied to fwd_nd; ND's results to the daemon (addresses in use:
 * fwd_d_addr6_set; neighbours: fwd_d_nd_host6); its state reported
 * (Interface, Neighbour, NeighbourEvent). The hooks the daemon's files call
 * are one line each. */
#ifndef FWD_D_ND_H
#define FWD_D_ND_H

#include <stdbool.h>
#include <stdint.h>

#include "libcommon/lc_err.h"

#include "fwd_nd.h"

/* One interface's Router Advertisement config, as IfConfig has it (zeroed
 * where unused: compared with memcmp). Its addresses, link-local and static
 * IPv6 neighbours are fwd_if's (struct fwd_iface, fwd_if_req). */
struct fwd_d_nd_cfg {
	struct fwd_nd_ra_conf ra;
};

/* The same as received, with what parsing found wrong. */
struct fwd_d_nd_req {
	struct fwd_d_nd_cfg c;
	char bad[128]; /* "" or why the item is refused */
};

struct fwd_d;
struct fwd_iface;
struct fwd_if_req;
struct Fwd__IfConfig;
struct Fwd__Interface;
struct Fwd__NeighbourList;

/* d->nd made (and d->slow's ND hooks set): 0 or -errno. */
int fwd_d_nd_init(struct fwd_d *);
/* Final RAs sent, d->nd freed. */
void fwd_d_nd_fini(struct fwd_d *);
/* fwd_d_tick's part. */
void fwd_d_nd_tick(struct fwd_d *);

/* IfConfig's RA into r. */
void fwd_d_nd_req_parse(struct fwd_d_nd_req *r, const struct Fwd__IfConfig *);
/* Item i of a batch, its ND part checked (its addresses as fwd_if checks
 * them): 0 or -EINVAL with err. */
int fwd_d_nd_check(const struct fwd_if_req *rq, long i, struct lc_err *err);
/* The interface's IPv6 configuration is r's already. */
bool fwd_d_nd_same(const struct fwd_d_nd_cfg *have,
    const struct fwd_d_nd_req *r);
/* f (not attached) keeps r's configuration. */
void fwd_d_nd_take(struct fwd_d_nd_cfg *have, const struct fwd_d_nd_req *r);
/* f attached (its port in the adjacency table): its configuration into
 * fwd_nd. */
void fwd_d_nd_attach(struct fwd_d *, struct fwd_iface *);
/* f detaching: everything of its port out of fwd_nd (a final RA). */
void fwd_d_nd_detach(struct fwd_d *, struct fwd_iface *);
/* f attached: its configuration becomes rq's, diffed in fwd_nd (called
 * before fwd_if6_update takes rq's addresses into f), then
 * fwd_d_nd_sync. */
void fwd_d_nd_diff(struct fwd_d *, struct fwd_iface *,
    const struct fwd_if_req *rq);
/* After fwd_if6_update: the addresses fwd_nd has in use marked so again
 * (fwd_d_addr6_set). */
void fwd_d_nd_sync(struct fwd_d *, struct fwd_iface *);
/* f's link came up. */
void fwd_d_nd_link_up(struct fwd_d *, struct fwd_iface *);

/* Interface.addrs6_tentative, addrs6_duplicate and ra_enabled of f
 * (attached) into x, allocated in d's reply arena (addrs6 and link_local:
 * fwd_ctl's, from what fwd_d_addr6_set was told). */
void fwd_d_nd_if_fill(struct fwd_d *, const struct fwd_iface *,
    struct Fwd__Interface *x);
/* The IPv6 neighbours (ifindex 0: all) appended to l (its array grown in
 * d's reply arena; *cap its room). */
void fwd_d_nd_neigh_list(struct fwd_d *, uint32_t ifindex,
    struct Fwd__NeighbourList *l, size_t *cap);

#endif /* FWD_D_ND_H */
