/* fwd/fwd_d_int.h: what the parts of the daemon's control thread share
 * (fwd_d.c, fwd_nh.c, fwd_if.c, fwd_if_port.c, fwd_settings.c); not for the
 * workers, the IPC service or tests. */
#ifndef FWD_D_INT_H
#define FWD_D_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd_d.h"
#include "fwd_link.h"

static inline uint32_t
fwd_pmask(unsigned len)
{
	return (len == 0 ? 0 : 0xffffffffu << (32 - len));
}

/* ---- fwd_d.c: life cycle ---- */

/* Send what the slow path built (d->out) on the control thread's ports. */
void fwd_d_out_flush(struct fwd_d *);

/* ---- fwd_nh.c: next hops interned into adjacencies, routes ---- */

/* The record table and the permanent drop, reject and local adjacencies
 * (d->adj and d->fib exist). 0 or -ENOMEM. */
int fwd_nh_init(struct fwd_d *);
void fwd_nh_fini(struct fwd_d *);
/* The adjacency of next hop (gw, ifindex), created when new (no reference
 * taken). The index, or -ENOSPC. */
int fwd_nh_intern(struct fwd_d *, uint32_t gw, uint32_t ifindex);
/* (Re)point NH record idx at its port (force: even when unchanged). */
void fwd_nh_bind(struct fwd_d *, uint32_t idx, bool force);
/* Every NH record at its port, after interfaces came or went. */
void fwd_nh_rebind_all(struct fwd_d *);
/* Drop a hold on idx (released when nothing else holds it). */
void fwd_nh_unhold(struct fwd_d *, uint32_t idx);
/* Release the adjacencies whose grace period ended. */
void fwd_nh_reclaim(struct fwd_d *);
/* The connected route of address k of f (attached), unless one is there. */
void fwd_conn_add(struct fwd_d *, struct fwd_iface *, unsigned k);
/* The connected route of ip/plen, once no address of f is on it. */
void fwd_conn_del(struct fwd_d *, struct fwd_iface *, uint32_t ip,
    unsigned plen);

/* IPv6 of interface f (fwd_nh.c): on attach (the glean6), on detach
 * (every address out of use), and on a change of its IPv6 config to rq's
 * (f attached). */
void fwd_if6_attach(struct fwd_d *, struct fwd_iface *);
void fwd_if6_detach(struct fwd_d *, struct fwd_iface *);
void fwd_if6_update(struct fwd_d *, struct fwd_iface *,
    const struct fwd_if_req *rq);
/* rq's IPv6 config into f (nothing else done). */
void fwd_if6_conf_take(struct fwd_iface *, const struct fwd_if_req *rq);

/* ---- fwd_if_port.c: the ports of interfaces ---- */

/* Ports of one interface, opened before anything changes. */
struct fwd_if_ports {
	struct fwd_port *w[FWD_D_WORKERS_MAX];
	struct fwd_port *tx;
};

/* One interface whose ports fwd_if_ports_open opens. */
struct fwd_if_open {
	const char *name;
	uint8_t backend; /* in: the one to open; out: the one opened */
	bool fallback;	 /* auto: AF_PACKET if AF_XDP cannot be opened */
	bool fell_back;	 /* out: it did */
	uint16_t id, mtu;
	struct fwd_if_ports *ports;
	int err;
	bool workers_only; /* not the control thread's port */
};

/*
 * Open the ports of n interfaces: every worker's socket and the control
 * thread's, AF_PACKET ones all at once. 0, or -errno with *bad the index of
 * the first interface that failed; on error nothing stays open.
 */
int fwd_if_ports_open(struct fwd_d *, struct fwd_if_open *, unsigned n,
    unsigned *bad);
/* Close the ports of one interface (d->nworkers worker ports and tx). */
void fwd_if_ports_free(struct fwd_d *, struct fwd_if_ports *);
/*
 * The same on a thread of its own, with fd (its TAP; -1: none) closed
 * there too, so the control thread does not wait for the kernel (a device
 * that went away: tens of ms). AF_XDP ports are closed here, at once (they
 * share their worker's UMEM with ports being opened). Port id's next
 * ports wait for it (fwd_if_reap_wait).
 */
void fwd_if_ports_reap(struct fwd_d *, uint16_t id, struct fwd_if_ports *,
    int fd);
/* What fwd_if_ports_reap started for port id (every port: FWD_PORT_MAX)
 * is done. */
void fwd_if_reap_wait(struct fwd_d *, unsigned id);
/* Close n ports (NULL ones skipped), AF_PACKET ones in parallel; v[] is
 * cleared. */
void fwd_ports_free(struct fwd_port **v, unsigned n);
/* Add port p's counters (and its kernel drops) to *s; p NULL: nothing. */
void fwd_if_port_stats_add(struct fwd_port_stats *, struct fwd_port *p);
/* The device's queue count when it has fewer than nw (an AF_XDP port binds
 * one queue per worker), else 0: enough, or the driver does not say. */
int fwd_if_xdp_queues_short(const char *name, unsigned nw);
/* port-backend auto: the backend name gets under nw workers (f: the
 * interface as configured now, or NULL). */
uint8_t fwd_if_backend_auto(const char *name, const struct fwd_iface *f,
    unsigned nw);

/* ---- fwd_if.c: interfaces and the IF_CONFIG transaction ---- */

/* fwd_d_if_apply, with the batch's AF_XDP and auto interfaces checked for
 * nw workers (the count the batch will run under). */
int fwd_if_apply(struct fwd_d *, const struct fwd_if_req *, unsigned n,
    bool replace_all, bool dry_run, unsigned nw, struct lc_err *err);
/* Link state of every attached interface, checked again (and absent ones
 * looked for): changes go to the adjacencies, ARP (announce) and
 * subscribers. The fallback when link events are missing or were lost. */
void fwd_if_link_check(struct fwd_d *);
/* One link event (fwd_link.c): the interface on that device, or of that
 * name, follows it (link, MTU, MAC; the device gone, renamed or back). */
void fwd_if_link_event(struct fwd_d *, const struct fwd_link_ev *);

/* ---- fwd_host.c: the host path (docs/hostpath.md) ---- */

/* Netlink, the ports' tc drop program, and the list of host interfaces an
 * earlier tern-fwd left; sets d->slow's host hook. Without netlink there
 * is no host path (logged). 0 or -ENOMEM. */
int fwd_host_init(struct fwd_d *);
/* Every host interface removed (a clean exit), the rest freed. */
void fwd_host_fini(struct fwd_d *);
/* f attached with host_conf: its TAP created, or adopted when an earlier
 * tern-fwd left it, and mirrored; nothing for memory ports. 0 or -errno
 * (logged; the port forwards without a host path). */
int fwd_host_attach(struct fwd_d *, struct fwd_iface *);
/* f's TAP removed (with the port's tc drop). */
void fwd_host_detach(struct fwd_d *, struct fwd_iface *);
/* fwd_host_detach but the close: the TAP's fd (-1: none), whose close
 * removes the device (the kernel waits for an RCU grace period there). */
int fwd_host_unhook(struct fwd_d *, struct fwd_iface *);
/* After a change of f (host_conf, MTU, addresses): the TAP made, removed
 * or mirrored again. */
void fwd_host_sync(struct fwd_d *, struct fwd_iface *);
/* f's link state to its TAP's carrier. */
void fwd_host_carrier(struct fwd_d *, struct fwd_iface *);
/* Leftovers of an earlier tern-fwd that the first full interface set did
 * not adopt (and no process holds): removed. Once. */
void fwd_host_sweep(struct fwd_d *);
/* fwd_slow_host_fn: arg is the fwd_d. */
int fwd_host_up(void *arg, uint16_t port, const uint8_t *frame, unsigned len);
/* Write what fwd_host_up holds (the end of a drain). */
void fwd_host_flush(struct fwd_d *);

#endif /* FWD_D_INT_H */
