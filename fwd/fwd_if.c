/* fwd/fwd_if.c: tern-fwd's interfaces: attach and detach, their addresses
 * and static neighbours, link state, and the IF_CONFIG transaction (checked
 * as a whole, ports opened, then applied all or nothing). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"
#include "fwd_d_int.h"

/* Most interface items in one IF_CONFIG batch. */
#define IF_BATCH_MAX (4 * FWD_PORT_MAX)

/* ---- interfaces by name / ifindex ---- */

struct fwd_iface *
fwd_d_if_find(struct fwd_d *d, const char *name)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && strcmp(d->ifs[i].name, name) == 0)
			return (&d->ifs[i]);
	return (NULL);
}

struct fwd_iface *
fwd_d_if_by_ifindex(struct fwd_d *d, uint32_t ifindex)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (d->ifs[i].used && d->ifs[i].ifindex == ifindex)
			return (&d->ifs[i]);
	return (NULL);
}

struct fwd_port *
fwd_d_port(struct fwd_d *d, const char *name, unsigned w)
{
	struct fwd_iface *f = fwd_d_if_find(d, name);

	if (f == NULL || !f->attached || w >= d->nworkers)
		return (NULL);
	return (f->wport[w]);
}
/* ---- link state ---- */

/* The device's MTU, 0 when it cannot be read. */
static unsigned
if_dev_mtu(struct fwd_d *d, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (d->ioctl_fd < 0 || ioctl(d->ioctl_fd, SIOCGIFMTU, &ifr) != 0 ||
	    ifr.ifr_mtu <= 0)
		return (0);
	return (ifr.ifr_mtu > 0xffff ? 0xffff : (unsigned)ifr.ifr_mtu);
}

/*
 * The IP MTU f forwards with: the configured one, else the device's; never
 * above the device's (it would refuse the frames: a configured one above it
 * is refused at commit, but may come back in a full set after a restart, or
 * the device's may shrink later), nor above what a frame buffer holds.
 * f attached.
 */
static uint16_t
if_mtu_eff(const struct fwd_iface *f)
{
	unsigned m = f->mtu_conf;

	if (m == 0)
		m = f->dev_mtu != 0 ? f->dev_mtu : f->txport->mtu;
	if (f->dev_mtu != 0 && m > f->dev_mtu)
		m = f->dev_mtu;
	if (m > FWD_FRAME_MAX - 18)
		m = FWD_FRAME_MAX - 18;
	return ((uint16_t)(m < 68 ? 1500 : m));
}

/* f's MTU in use again (after its configured or its device's changed):
 * adjacencies and the host interface follow. */
static void
if_mtu_warn(const struct fwd_iface *f)
{
	if (f->dev_mtu != 0 && f->mtu_conf > f->dev_mtu)
		lc_log_warnx("%s: mtu %u is above the device's MTU %u: %u used",
		    f->name, f->mtu_conf, f->dev_mtu, if_mtu_eff(f));
}

static void
if_mtu_update(struct fwd_d *d, struct fwd_iface *f)
{
	uint16_t m = if_mtu_eff(f);

	if_mtu_warn(f);
	if (m == f->mtu)
		return;
	f->mtu = m;
	(void)fwd_adj_port_set(d->adj, (uint16_t)(f - d->ifs), f->mac, f->mtu,
	    f->link_up);
}

/* The device's MTU to f's ports (the frames they drop, tx_mtu). */
static void
if_dev_mtu_ports(struct fwd_d *d, struct fwd_iface *f)
{
	for (unsigned k = 0; k < d->nworkers; k++)
		if (f->wport[k] != NULL)
			fwd_port_dev_mtu_set(f->wport[k], f->dev_mtu);
	if (f->txport != NULL)
		fwd_port_dev_mtu_set(f->txport, f->dev_mtu);
}

/* The device's MTU is m (an event's, or read): f follows it (0: not known,
 * nothing changes). */
static void
if_dev_mtu_set(struct fwd_d *d, struct fwd_iface *f, unsigned m)
{
	if (m > 0xffff)
		m = 0xffff;
	if (f->backend == FWD_D_BK_MEM || m == 0 || m == f->dev_mtu)
		return;
	lc_log_notice("%s: the device's MTU is %u (was %u)", f->name, m,
	    f->dev_mtu);
	f->dev_mtu = (uint16_t)m;
	if_dev_mtu_ports(d, f);
	if_mtu_update(d, f);
	fwd_host_sync(d, f);
	fwd_ctl_if_event(d, f, false);
}

static bool
if_link_up(struct fwd_d *d, const struct fwd_iface *f)
{
	struct ifreq ifr;

	if (f->backend == FWD_D_BK_MEM)
		return (true);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->name);
	if (d->ioctl_fd < 0 || ioctl(d->ioctl_fd, SIOCGIFFLAGS, &ifr) != 0)
		return (false);
	return ((ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING));
}

/* The device is administratively up (IFF_UP). */
static bool
if_dev_admin_up(struct fwd_d *d, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	return (d->ioctl_fd >= 0 &&
	    ioctl(d->ioctl_fd, SIOCGIFFLAGS, &ifr) == 0 &&
	    (ifr.ifr_flags & IFF_UP));
}

/* The device's MAC into mac: false when it cannot be read. */
static bool
if_dev_mac(struct fwd_d *d, const char *name, uint8_t *mac)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (d->ioctl_fd < 0 || ioctl(d->ioctl_fd, SIOCGIFHWADDR, &ifr) != 0)
		return (false);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return (true);
}

/* f (attached) has its link up or down. */
static void
if_link_set(struct fwd_d *d, struct fwd_iface *f, bool up)
{
	uint16_t id = (uint16_t)(f - d->ifs);

	if (up == f->link_up)
		return;
	f->link_up = up;
	(void)fwd_adj_port_set(d->adj, id, f->mac, f->mtu, up);
	fwd_host_carrier(d, f);
	if (up) {
		(void)fwd_arp_announce(d->arp, id, d->out);
		fwd_d_nd_link_up(d, f);
	}
	lc_log_notice("%s: link %s", f->name, up ? "up" : "down");
	fwd_ctl_if_event(d, f, false);
}

static void if_attach(struct fwd_d *, struct fwd_iface *,
    struct fwd_if_ports *);
static void if_detach_how(struct fwd_d *, struct fwd_iface *, bool reap);

/*
 * f's device went away (deleted, renamed, replaced by another of its name,
 * or its MAC changed): its ports close, its connected routes go, and tern-rib
 * hears that the ifindex is gone. f stays configured, absent, until a device
 * of its name appears (if_back).
 */
static void
if_gone(struct fwd_d *d, struct fwd_iface *f, const char *why)
{
	uint64_t t0 = lc_time_mono_ns();

	if (f->attached) {
		fwd_ctl_if_event(d, f, true); /* the old ifindex, for rib */
		if_detach_how(d, f, true);
	}
	f->absent = true;
	f->ifindex = 0;
	d->st.link_gone++;
	lc_log_notice("%s: %s: its ports are closed (in %llu ms); kept "
		      "configured until a device of that name appears",
	    f->name, why,
	    (unsigned long long)((lc_time_mono_ns() - t0) / 1000000));
	fwd_ctl_if_event(d, f, false);
}

/* A device of f's name is there (ifindex): f (absent) opens its ports on it
 * and attaches as at a commit. Its ports not opening leaves it absent; the
 * device's next change (it goes up, say) tries again. */
static void
if_back(struct fwd_d *d, struct fwd_iface *f, uint32_t ifindex)
{
	struct fwd_if_ports p;
	struct fwd_if_open o;
	unsigned bad;
	uint64_t t0 = lc_time_mono_ns();
	int rv;

	if (!f->enabled || f->backend == FWD_D_BK_MEM)
		return;
	memset(&p, 0, sizeof(p));
	memset(&o, 0, sizeof(o));
	o.name = f->name;
	o.backend = f->bk_auto ? fwd_if_backend_auto(f->name, f, d->nworkers) :
				 f->backend;
	o.fallback = f->bk_auto;
	o.id = (uint16_t)(f - d->ifs);
	o.mtu = f->mtu_conf;
	o.ports = &p;
	if ((rv = fwd_if_ports_open(d, &o, 1, &bad)) != 0) {
		d->st.link_open_failed++;
		lc_log_warnx("%s: a device of that name appeared (ifindex %u) "
			     "but its port does not open: %s (tried again at "
			     "its next change)",
		    f->name, ifindex, strerror(-rv));
		return;
	}
	f->backend = o.backend;
	if (o.fell_back)
		f->xdp_failed = true;
	f->ifindex = ifindex;
	f->absent = false;
	d->st.link_back++;
	if_attach(d, f, &p);
	lc_log_notice("%s: the device is there (ifindex %u): attached again "
		      "(in %llu ms)",
	    f->name, ifindex,
	    (unsigned long long)((lc_time_mono_ns() - t0) / 1000000));
	fwd_ctl_if_event(d, f, false);
}

/* The interface attached to device ifindex, or NULL. */
static struct fwd_iface *
if_on_device(struct fwd_d *d, uint32_t ifindex)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		if (f->used && f->attached && f->backend != FWD_D_BK_MEM &&
		    f->ifindex == ifindex)
			return (f);
	}
	return (NULL);
}

/*
 * f as its device is now: gone (no device of its name, or another one),
 * its MAC changed (its ports open again), back, its MTU and link state. The
 * state is read, not taken from an event: events queue up while the loop
 * is busy, and one from before a change must not undo it.
 */
static void
if_check_one(struct fwd_d *d, struct fwd_iface *f)
{
	uint32_t idx;
	uint8_t mac[6];
	char why[48];

	if (!f->used || f->backend == FWD_D_BK_MEM ||
	    (!f->attached && !f->absent))
		return;
	idx = if_nametoindex(f->name);
	if (f->attached && idx != f->ifindex)
		if_gone(d, f,
		    idx == 0 ? "the device was deleted or renamed" :
			       "the device was replaced");
	else if (f->attached && if_dev_mac(d, f->name, mac) &&
	    memcmp(mac, f->mac, 6) != 0) {
		snprintf(why, sizeof(why),
		    "the device's MAC changed to "
		    "%02x:%02x:%02x:%02x:%02x:%02x",
		    mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		if_gone(d, f, why);
	}
	if (f->absent) {
		/* AF_XDP: once the device is up (a socket bound to a veth
		 * still down sends nothing once it is up: measured, kernel
		 * 6.1, test_fwd_link_xdp.sh) */
		if (idx != 0 &&
		    (f->backend == FWD_D_BK_AFP || if_dev_admin_up(d, f->name)))
			if_back(d, f, idx);
		return;
	}
	if_dev_mtu_set(d, f, if_dev_mtu(d, f->name));
	if_link_set(d, f, if_link_up(d, f));
}

void
fwd_if_link_event(struct fwd_d *d, const struct fwd_link_ev *ev)
{
	struct fwd_iface *f = if_on_device(d, ev->ifindex), *g = NULL;

	/* the interface on that device, and the one of its (new) name */
	if (ev->name != NULL)
		g = fwd_d_if_find(d, ev->name);
	if (f != NULL)
		if_check_one(d, f);
	if (g != NULL && g != f)
		if_check_one(d, g);
}

void
fwd_if_link_check(struct fwd_d *d)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if_check_one(d, &d->ifs[i]);
}

/* ---- addresses and static neighbours ---- */

/* a is the network or broadcast address of its /plen (plen <= 30; a /31
 * or /32 has neither). */
static bool
subnet_edge(uint32_t a, unsigned plen)
{
	uint32_t h = a & ~fwd_pmask(plen);

	return (plen <= 30 && (h == 0 || h == ~fwd_pmask(plen)));
}

static bool
addr_ok(uint32_t a, unsigned plen)
{
	uint8_t top = (uint8_t)(a >> 24);

	if (plen < 1 || plen > 32)
		return (false);
	if (top == 0 || top == 127 || top >= 224)
		return (false);
	return (!subnet_edge(a, plen));
}

static void
ipstr(uint32_t a, char *b, size_t n)
{
	struct in_addr ia = {htonl(a)};

	inet_ntop(AF_INET, &ia, b, (socklen_t)n);
}

/* Index of static neighbour ip in f's set, or -1. */
static int
neigh_find(const struct fwd_iface *f, uint32_t ip)
{
	for (unsigned k = 0; k < f->nneigh; k++)
		if (f->neigh_ip[k] == ip)
			return ((int)k);
	return (-1);
}

/* Static neighbour ip -> mac into fwd_arp on f's port (f attached). */
static void
neigh_install(struct fwd_d *d, struct fwd_iface *f, uint32_t ip,
    const uint8_t *mac)
{
	char b[INET_ADDRSTRLEN];
	int rv = fwd_arp_static_add(d->arp, (uint16_t)(f - d->ifs), ip, mac,
	    fwd_d_now_ms(d), d->out);

	if (rv != 0) {
		ipstr(ip, b, sizeof(b));
		lc_log_warnx("%s: static neighbour %s: %s", f->name, b,
		    strerror(-rv));
	}
}

/* Is entry j of rq's static neighbours new to f, or with a new MAC? */
static bool
neigh_changed(const struct fwd_iface *f, const struct fwd_if_req *rq,
    unsigned j)
{
	int k = neigh_find(f, rq->neigh_ip[j]);

	return (k < 0 || memcmp(f->neigh_mac[k], rq->neigh_mac[j], 6) != 0);
}

/* f keeps rq's set of static neighbours (its config). */
static void
neigh_take(struct fwd_iface *f, const struct fwd_if_req *rq)
{
	f->nneigh = rq->nneigh;
	memcpy(f->neigh_ip, rq->neigh_ip, sizeof(f->neigh_ip));
	memcpy(f->neigh_mac, rq->neigh_mac, sizeof(f->neigh_mac));
}

/* Before f's addresses change: its static neighbours that rq does not
 * list leave fwd_arp. */
static void
if_neigh_drop(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *rq)
{
	for (unsigned k = 0; k < f->nneigh; k++) {
		unsigned j = 0;

		while (j < rq->nneigh && rq->neigh_ip[j] != f->neigh_ip[k])
			j++;
		if (j == rq->nneigh)
			(void)fwd_arp_static_del(d->arp, (uint16_t)(f - d->ifs),
			    f->neigh_ip[k]);
	}
}

/* After: the new ones, and those with a new MAC, go in; f keeps rq's set. */
static void
if_neigh_add(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *rq)
{
	for (unsigned j = 0; j < rq->nneigh; j++)
		if (neigh_changed(f, rq, j))
			neigh_install(d, f, rq->neigh_ip[j], rq->neigh_mac[j]);
	neigh_take(f, rq);
}

/* The static neighbours of r (item i of the batch), checked against r's
 * own addresses. */
static int
neigh_check(const struct fwd_if_req *r, long i, struct lc_err *err)
{
	char b1[INET_ADDRSTRLEN], b2[INET_ADDRSTRLEN];

	if (r->neigh_too_many || r->nneigh > FWD_D_NEIGH_MAX)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: more than %u static neighbours", r->name,
		    FWD_D_NEIGH_MAX));
	for (unsigned k = 0; k < r->nneigh; k++) {
		uint32_t ip = r->neigh_ip[k];
		const uint8_t *m = r->neigh_mac[k];
		unsigned a;

		ipstr(ip, b1, sizeof(b1));
		if (r->neigh_maclen[k] != 6)
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s: a MAC of %u bytes "
			    "(expected 6)",
			    r->name, b1, r->neigh_maclen[k]));
		if (!fwd_arp_mac_ok(m))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s: "
			    "%02x:%02x:%02x:%02x:%02x:%02x is not a unicast "
			    "MAC",
			    r->name, b1, m[0], m[1], m[2], m[3], m[4], m[5]));
		for (unsigned j = 0; j < k; j++)
			if (r->neigh_ip[j] == ip)
				return (lc_err_set(err, -EINVAL, i,
				    "%s: static neighbour %s given twice",
				    r->name, b1));
		for (a = 0; a < r->naddr; a++)
			if (r->addr[a] == ip)
				return (lc_err_set(err, -EINVAL, i,
				    "%s: static neighbour %s is an address of "
				    "the interface",
				    r->name, b1));
		for (a = 0; a < r->naddr; a++)
			if (r->plen[a] < 32 &&
			    ((r->addr[a] ^ ip) & fwd_pmask(r->plen[a])) == 0)
				break;
		if (a == r->naddr)
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s is on none of the "
			    "interface's subnets",
			    r->name, b1));
		if (subnet_edge(ip, r->plen[a])) {
			ipstr(r->addr[a] & fwd_pmask(r->plen[a]), b2,
			    sizeof(b2));
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static neighbour %s is the network or "
			    "broadcast address of %s/%u",
			    r->name, b1, b2, r->plen[a]));
		}
	}
	return (0);
}

/* The same IPv6 config (addresses in the same order: the first is the
 * source of ICMPv6 errors). */
static bool
if6_same(const struct fwd_iface *f, const struct fwd_if_req *rq)
{
	if (f->naddr6 != rq->naddr6 || f->has_ll != rq->has_ll ||
	    f->ipv6_off != rq->ipv6_off || f->nneigh6 != rq->nneigh6 ||
	    (f->has_ll && memcmp(f->ll6, rq->ll6, 16) != 0) ||
	    memcmp(f->neigh6_ip, rq->neigh6_ip, rq->nneigh6 * 16) != 0 ||
	    memcmp(f->neigh6_mac, rq->neigh6_mac, rq->nneigh6 * 6) != 0)
		return (false);
	for (unsigned k = 0; k < rq->naddr6; k++)
		if (f->plen6[k] != rq->plen6[k] ||
		    memcmp(f->addr6[k], rq->addr6[k], 16) != 0)
			return (false);
	return (true);
}

static bool
if_same(const struct fwd_iface *f, const struct fwd_if_req *rq, uint8_t bk,
    bool bk_auto)
{
	if (f->enabled != rq->enabled || f->mtu_conf != rq->mtu ||
	    f->backend != bk || f->bk_auto != bk_auto ||
	    f->naddr != rq->naddr || f->nneigh != rq->nneigh ||
	    f->host_conf != (rq->host_path != FWD_HOST_PATH_OFF) ||
	    !fwd_d_nd_same(&f->nd, &rq->nd))
		return (false);
	for (unsigned j = 0; j < rq->nneigh; j++)
		if (neigh_changed(f, rq, j))
			return (false);
	if (!if6_same(f, rq))
		return (false);
	for (unsigned k = 0; k < rq->naddr; k++) {
		unsigned j;

		for (j = 0; j < f->naddr; j++)
			if (f->addr[j] == rq->addr[k] &&
			    f->plen[j] == rq->plen[k])
				break;
		if (j == f->naddr)
			return (false);
	}
	return (true);
}

/* What datagrams forwarded out of f record in their IP options: its first
 * address (f attached). */
static void
if_port_addr(struct fwd_d *d, const struct fwd_iface *f)
{
	fwd_adj_port_addr_set(d->adj, (uint16_t)(f - d->ifs),
	    f->naddr > 0 ? htonl(f->addr[0]) : 0);
}

/* The addresses of f become those of rq (f attached): diff in place. */
static void
if_addrs_update(struct fwd_d *d, struct fwd_iface *f,
    const struct fwd_if_req *rq)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	uint32_t oa[FWD_LOCAL_MAX];
	uint8_t op[FWD_LOCAL_MAX];
	unsigned on = f->naddr;
	uint64_t now = fwd_d_now_ms(d);

	memcpy(oa, f->addr, sizeof(oa));
	memcpy(op, f->plen, sizeof(op));
	f->naddr = rq->naddr;
	memcpy(f->addr, rq->addr, sizeof(f->addr));
	memcpy(f->plen, rq->plen, sizeof(f->plen));
	for (unsigned k = 0; k < on; k++) {
		unsigned j;

		for (j = 0; j < f->naddr; j++)
			if (f->addr[j] == oa[k] && f->plen[j] == op[k])
				break;
		if (j < f->naddr)
			continue;
		(void)fwd_arp_addr_del(d->arp, id, oa[k]);
		fwd_conn_del(d, f, oa[k], op[k]);
	}
	for (unsigned j = 0; j < f->naddr; j++) {
		unsigned k;

		for (k = 0; k < on; k++)
			if (f->addr[j] == oa[k] && f->plen[j] == op[k])
				break;
		if (k < on)
			continue;
		(void)fwd_arp_addr_add(d->arp, id, f->addr[j], f->plen[j], now,
		    d->out);
		fwd_conn_add(d, f, j);
	}
	if_port_addr(d, f);
}

/* ---- attach, detach ---- */

static void
if_attach(struct fwd_d *d, struct fwd_iface *f, struct fwd_if_ports *p)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	uint64_t now = fwd_d_now_ms(d);
	int g;

	fwd_if_reap_wait(d, id); /* its TAP of that name, say */
	for (unsigned k = 0; k < d->nworkers; k++)
		f->wport[k] = p->w[k];
	f->txport = p->tx;
	memset(p, 0, sizeof(*p));
	memset(&f->gone, 0, sizeof(f->gone));
	f->cleared = false; /* new ports count from zero: no baseline */
	memcpy(f->mac, f->txport->mac, 6);
	f->dev_mtu = f->backend == FWD_D_BK_MEM ? 0 : f->txport->dev_mtu;
	f->mtu = if_mtu_eff(f);
	if_mtu_warn(f);
	f->link_up = if_link_up(d, f);
	d->ctl_ports[id] = f->txport;
	f->attached = true;
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx("%s: a worker did not take the port in 1 s",
		    f->name);
	(void)fwd_adj_port_set(d->adj, id, f->mac, f->mtu, f->link_up);
	f->glean = -1;
	if ((g = fwd_nh_intern(d, 0, f->ifindex)) >= 0) {
		d->rec[g].hold++;
		f->glean = g;
		fwd_nh_bind(d, (uint32_t)g, false);
	} else
		lc_log_warnx("%s: no adjacency left for the connected "
			     "routes",
		    f->name);
	for (unsigned k = 0; k < f->naddr; k++) {
		int rv = fwd_arp_addr_add(d->arp, id, f->addr[k], f->plen[k],
		    now, d->out);

		if (rv != 0 && rv != -EEXIST)
			lc_log_warnx("%s: address: %s", f->name, strerror(-rv));
		fwd_conn_add(d, f, k);
	}
	if_port_addr(d, f);
	fwd_if6_attach(d, f);
	/* after the addresses: a static neighbour on one of their subnets
	 * gets its host route */
	for (unsigned k = 0; k < f->nneigh; k++)
		neigh_install(d, f, f->neigh_ip[k], f->neigh_mac[k]);
	fwd_d_nd_attach(d, f);
	fwd_nh_rebind_all(d);
	fwd_d_out_flush(d);
	lc_log_info("%s: attached as port %u, ifindex %u, mtu %u, link %s",
	    f->name, id, f->ifindex, f->mtu, f->link_up ? "up" : "down");
	(void)fwd_host_attach(d, f);
}

/* f's ports close; reap: on a thread (fwd_if_ports_reap), the control
 * thread going on at once (a device that went away). */
static void
if_detach_how(struct fwd_d *d, struct fwd_iface *f, bool reap)
{
	uint16_t id = (uint16_t)(f - d->ifs);
	unsigned naddr = f->naddr;
	int tapfd;

	if (!f->attached)
		return;
	f->attached = false;
	if (fwd_workers_publish(d) != 0)
		lc_log_warnx("%s: a worker did not drop the port in 1 s",
		    f->name);
	/* what the workers punted from it is handled while it still exists
	 * (its port id may be another interface's by the next drain) */
	(void)fwd_d_drain(d);
	tapfd = fwd_host_unhook(d, f);
	d->ctl_ports[id] = NULL;
	/* addresses and their connected routes */
	f->naddr = 0;
	for (unsigned k = 0; k < naddr; k++) {
		(void)fwd_arp_addr_del(d->arp, id, f->addr[k]);
		if (f->glean >= 0)
			fwd_conn_del(d, f, f->addr[k], f->plen[k]);
	}
	f->naddr = naddr;
	/* the port id may be another interface's next: its static entries
	 * go too (kept in f, installed again on attach) */
	for (unsigned k = 0; k < f->nneigh; k++)
		(void)fwd_arp_static_del(d->arp, id, f->neigh_ip[k]);
	fwd_arp_port_flush(d->arp, id);
	fwd_d_nd_detach(d, f);
	fwd_if6_detach(d, f);
	fwd_adj_port_del(d->adj, id);
	if (f->glean >= 0) {
		uint32_t g = (uint32_t)f->glean;

		f->glean = -1;
		fwd_nh_bind(d, g, false);
		fwd_nh_unhold(d, g);
	}
	fwd_nh_rebind_all(d);
	{
		struct fwd_if_ports p = {.tx = f->txport};

		for (unsigned k = 0; k < d->nworkers; k++) {
			p.w[k] = f->wport[k];
			f->wport[k] = NULL;
		}
		f->txport = NULL;
		if (reap)
			fwd_if_ports_reap(d, id, &p, tapfd);
		else {
			fwd_if_ports_free(d, &p);
			if (tapfd >= 0)
				close(tapfd);
		}
	}
	f->link_up = false;
	lc_log_info("%s: detached (port %u)", f->name, id);
}

static void
if_detach(struct fwd_d *d, struct fwd_iface *f)
{
	if_detach_how(d, f, false);
}

/* ---- IF_CONFIG: checked as a whole, then all or nothing ---- */

/* One interface of an IF_CONFIG batch, as planned before anything changes. */
struct if_plan {
	bool in; /* in the new set */
	const struct fwd_if_req *rq;
	uint8_t backend;
	bool bk_auto;	 /* "auto" configured */
	bool xdp_failed; /* auto: AF_XDP failed to open, AF_PACKET opened */
	bool absent; /* no device of its name (allowed: see if_check_device) */
	uint32_t ifindex;
	int slot; /* port id: existing, or chosen for a new one */
	struct fwd_if_ports ports;
	bool open;
};

/* An IF_CONFIG batch being applied. */
struct if_txn {
	struct fwd_d *d;
	const struct fwd_if_req *rq;
	unsigned n;
	unsigned nw; /* the worker count it runs under */
	/* plans: [0, FWD_D_IF_MAX) for existing slots, then new ones */
	struct if_plan *pl;
	unsigned np;
	bool replace_all; /* the full set */
	struct lc_err *err;
};

/* The index in the batch of item r, for the error about it. */
static long
if_item(const struct if_txn *t, const struct fwd_if_req *r)
{
	return ((long)(r - t->rq));
}

/* r's port backend into p (bk_auto for "auto"). */
static int
if_check_backend(struct if_txn *t, const struct fwd_if_req *r,
    const struct fwd_iface *f, struct if_plan *p)
{
	p->bk_auto = false;
	if (r->backend == NULL || r->backend[0] == '\0' ||
	    strcmp(r->backend, "afpacket") == 0)
		p->backend = FWD_D_BK_AFP;
	else if (strcmp(r->backend, "xdp") == 0)
		p->backend = FWD_D_BK_XDP;
	else if (strcmp(r->backend, "auto") == 0) {
		p->bk_auto = true;
		p->backend = fwd_if_backend_auto(r->name, f, t->nw);
	} else if (strcmp(r->backend, "mem") == 0 && t->d->conf.allow_mem)
		p->backend = FWD_D_BK_MEM;
	else
		return (lc_err_set(t->err, -EINVAL, if_item(t, r),
		    "%s: unknown port backend '%s' (afpacket, xdp, "
		    "auto)",
		    r->name, r->backend));
	return (0);
}

/* r's IPv6 addresses: global unicast (not ::, ::1, IPv4-mapped,
 * multicast or link-local: the link-local is its own field, fe80::/64),
 * length 1..128, none twice. */
static int
if_check_addrs6(const struct fwd_if_req *r, long i, struct lc_err *err)
{
	char b[INET6_ADDRSTRLEN];

	if (r->too_many6 || r->naddr6 > FWD_D_ADDR6_MAX)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: more than %u IPv6 addresses", r->name,
		    FWD_D_ADDR6_MAX));
	if (r->ll_bad ||
	    (r->has_ll &&
		(r->ll6[0] != 0xfe || r->ll6[1] != 0x80 ||
		    memcmp(r->ll6 + 2, "\0\0\0\0\0\0", 6) != 0)))
		return (lc_err_set(err, -EINVAL, i,
		    "%s: link-local address: 16 bytes in fe80::/64", r->name));
	for (unsigned k = 0; k < r->naddr6; k++) {
		const uint8_t *a = r->addr6[k];
		uint64_t hi = fwd_ip6_hi(a), lo = fwd_ip6_lo(a);

		(void)inet_ntop(AF_INET6, a, b, sizeof(b));
		if (r->plen6[k] < 1 || r->plen6[k] > 128 ||
		    fwd_ip6_dst_martian(hi, lo) || fwd_ip6_linklocal(hi))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: IPv6 address %s/%u is not a usable global "
			    "address",
			    r->name, b, r->plen6[k]));
		for (unsigned j = 0; j < k; j++)
			if (memcmp(r->addr6[j], a, 16) == 0)
				return (lc_err_set(err, -EINVAL, i,
				    "%s: IPv6 address %s given twice", r->name,
				    b));
	}
	if (r->neigh6_bad)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: static IPv6 neighbours: at most %u, each a 16-byte "
		    "address and a 6-byte MAC",
		    r->name, FWD_D_NEIGH_MAX));
	for (unsigned k = 0; k < r->nneigh6; k++) {
		const uint8_t *a = r->neigh6_ip[k], *m = r->neigh6_mac[k];

		(void)inet_ntop(AF_INET6, a, b, sizeof(b));
		if (fwd_ip6_dst_martian(fwd_ip6_hi(a), fwd_ip6_lo(a)) ||
		    (m[0] & 1) || memcmp(m, "\0\0\0\0\0\0", 6) == 0)
			return (lc_err_set(err, -EINVAL, i,
			    "%s: static IPv6 neighbour %s: a unicast address "
			    "and MAC",
			    r->name, b));
	}
	return (0);
}

/* r's MTU and addresses (r is item i of the batch). */
static int
if_check_addrs(const struct fwd_if_req *r, long i, struct lc_err *err)
{
	char b[INET_ADDRSTRLEN];

	if (r->mtu != 0 && (r->mtu < 68 || r->mtu > FWD_FRAME_MAX - 18))
		return (lc_err_set(err, -EINVAL, i,
		    "%s: mtu %u out of range (68..%u)", r->name, r->mtu,
		    FWD_FRAME_MAX - 18));
	if (r->too_many || r->naddr > FWD_LOCAL_MAX)
		return (lc_err_set(err, -EINVAL, i,
		    "%s: more than %u addresses", r->name, FWD_LOCAL_MAX));
	for (unsigned k = 0; k < r->naddr; k++) {
		ipstr(r->addr[k], b, sizeof(b));
		if (!addr_ok(r->addr[k], r->plen[k]))
			return (lc_err_set(err, -EINVAL, i,
			    "%s: address %s/%u is not a usable "
			    "host address",
			    r->name, b, r->plen[k]));
		for (unsigned j = 0; j < k; j++)
			if (r->addr[j] == r->addr[k])
				return (lc_err_set(err, -EINVAL, i,
				    "%s: address %s given twice", r->name, b));
	}
	return (if_check_addrs6(r, i, err));
}

/* A device behind p (but a memory port), with a queue per worker for
 * AF_XDP as configured (auto falls back instead). */
static int
if_check_device(struct if_txn *t, const struct fwd_if_req *r, struct if_plan *p)
{
	unsigned dm;
	int nq;

	const struct fwd_iface *f;

	p->absent = false;
	if (p->backend == FWD_D_BK_MEM)
		return (0);
	/*
	 * No device of that name: refused for a new interface (a typo, most
	 * likely), taken for one already absent and in a full set (tern-mgmt's
	 * after a restart: a device that went must not cost every other
	 * interface its config); it attaches when the device appears.
	 */
	if ((p->ifindex = if_nametoindex(r->name)) == 0) {
		f = fwd_d_if_find(t->d, r->name);
		if (!t->replace_all && (f == NULL || !f->absent))
			return (lc_err_set(t->err, -EINVAL, if_item(t, r),
			    "%s: no such network device", r->name));
		p->absent = true;
		return (0);
	}
	/* the device would refuse the frames over its MTU: refused in a
	 * change; in a full set (tern-mgmt's on connect, after a restart)
	 * accepted, with the device's used (if_mtu_eff) */
	if ((dm = if_dev_mtu(t->d, r->name)) != 0 && r->mtu > dm &&
	    !t->replace_all)
		return (lc_err_set(t->err, -EINVAL, if_item(t, r),
		    "%s: mtu %u is above the device's MTU %u (tern-fwd does "
		    "not change a device's MTU: raise it first)",
		    r->name, r->mtu, dm));
	if (p->backend == FWD_D_BK_XDP && !p->bk_auto &&
	    (nq = fwd_if_xdp_queues_short(r->name, t->nw)) > 0)
		return (lc_err_set(t->err, -EINVAL, if_item(t, r),
		    "%s: AF_XDP binds a device queue "
		    "per worker: %u workers, %d queue%s",
		    r->name, t->nw, nq, nq == 1 ? "" : "s"));
	return (0);
}

/* Item i of the batch on its own, planned. */
static int
if_check_item(struct if_txn *t, unsigned i)
{
	struct fwd_d *d = t->d;
	const struct fwd_if_req *r = &t->rq[i];
	struct fwd_iface *f;
	struct if_plan *p;
	int rv;

	if (r->name == NULL || r->name[0] == '\0')
		return (
		    lc_err_set(t->err, -EINVAL, i, "interface %u: no name", i));
	if (strlen(r->name) >= IFNAMSIZ || strchr(r->name, '/'))
		return (lc_err_set(t->err, -EINVAL, i,
		    "%s: not a valid device name", r->name));
	for (unsigned j = 0; j < i; j++)
		if (strcmp(t->rq[j].name, r->name) == 0)
			return (lc_err_set(t->err, -EINVAL, i,
			    "%s: listed twice", r->name));
	f = fwd_d_if_find(d, r->name);
	p = f != NULL ? &t->pl[f - d->ifs] : &t->pl[t->np++];
	p->rq = r;
	if (r->deleted) {
		p->in = false;
		return (0);
	}
	if (r->host_path > FWD_HOST_PATH_OFF)
		return (lc_err_set(t->err, -EINVAL, i,
		    "%s: host path: unknown setting %u", r->name,
		    r->host_path));
	for (unsigned j = 0; j < FWD_D_IF_MAX; j++)
		if (d->ifs[j].host.open &&
		    strcmp(d->ifs[j].host.name, r->name) == 0)
			return (lc_err_set(t->err, -EINVAL, i,
			    "%s: the host interface of %s, not a port", r->name,
			    d->ifs[j].name));
	if ((rv = if_check_backend(t, r, f, p)) != 0 ||
	    (rv = if_check_addrs(r, i, t->err)) != 0 ||
	    (rv = neigh_check(r, i, t->err)) != 0 ||
	    (rv = fwd_d_nd_check(r, i, t->err)) != 0 ||
	    (rv = if_check_device(t, r, p)) != 0)
		return (rv);
	p->in = true;
	return (0);
}

/* The addresses of plan i: the batch's, or the interface's as it is. */
struct if_addrs {
	const uint32_t *addr;
	const uint8_t *plen;
	unsigned n;
	const char *name;
};

static void
plan_addrs(const struct if_txn *t, unsigned i, struct if_addrs *a)
{
	const struct if_plan *p = &t->pl[i];
	const struct fwd_iface *f;

	if (p->rq != NULL) {
		a->addr = p->rq->addr;
		a->plen = p->rq->plen;
		a->n = p->rq->naddr;
		a->name = p->rq->name;
	} else {
		/* not in the batch: an interface there now (i < FWD_D_IF_MAX) */
		f = &t->d->ifs[i];
		a->addr = f->addr;
		a->plen = f->plen;
		a->n = f->naddr;
		a->name = f->name;
	}
}

/* No subnet of x overlaps one of y. */
static int
if_check_overlap(const struct if_txn *t, const struct if_addrs *x,
    const struct if_addrs *y)
{
	char b1[INET_ADDRSTRLEN], b2[INET_ADDRSTRLEN];

	for (unsigned a = 0; a < x->n; a++)
		for (unsigned b = 0; b < y->n; b++) {
			unsigned l = x->plen[a] < y->plen[b] ? x->plen[a] :
							       y->plen[b];

			if (((x->addr[a] ^ y->addr[b]) & fwd_pmask(l)) != 0)
				continue;
			ipstr(x->addr[a], b1, sizeof(b1));
			ipstr(y->addr[b], b2, sizeof(b2));
			return (lc_err_set(t->err, -EINVAL, LC_ERR_NOINDEX,
			    "%s/%u on %s overlaps %s/%u on %s", b1, x->plen[a],
			    x->name, b2, y->plen[b], y->name));
		}
	return (0);
}

/* The new set as a whole: no two interfaces on one subnet, within the
 * limits on interfaces and addresses. */
static int
if_check_set(struct if_txn *t)
{
	unsigned total = 0, naddr = 0;
	int rv;

	for (unsigned i = 0; i < t->np; i++) {
		struct if_addrs x, y;

		if (!t->pl[i].in)
			continue;
		total++;
		plan_addrs(t, i, &x);
		naddr += x.n;
		for (unsigned j = i + 1; j < t->np; j++) {
			if (!t->pl[j].in)
				continue;
			plan_addrs(t, j, &y);
			if ((rv = if_check_overlap(t, &x, &y)) != 0)
				return (rv);
		}
	}
	if (total > FWD_D_IF_MAX)
		return (lc_err_set(t->err, -EINVAL, LC_ERR_NOINDEX,
		    "more than %u interfaces", FWD_D_IF_MAX));
	if (naddr > FWD_LOCAL_MAX)
		return (lc_err_set(t->err, -EINVAL, LC_ERR_NOINDEX,
		    "more than %u addresses in all", FWD_LOCAL_MAX));
	return (0);
}

/* Port ids for the new interfaces: slots free now. */
static int
if_check_slots(struct if_txn *t)
{
	unsigned s = 0;

	for (unsigned i = FWD_D_IF_MAX; i < t->np; i++) {
		if (!t->pl[i].in)
			continue;
		while (s < FWD_D_IF_MAX && t->d->ifs[s].used)
			s++;
		if (s == FWD_D_IF_MAX)
			return (
			    lc_err_set(t->err, -EINVAL, if_item(t, t->pl[i].rq),
				"no port id left for %s", t->pl[i].rq->name));
		t->pl[i].slot = (int)s++;
	}
	return (0);
}

/* Each item on its own, then the set as a whole; nothing changes. */
static int
if_check(struct if_txn *t)
{
	int rv;

	for (unsigned i = 0; i < t->n; i++)
		if ((rv = if_check_item(t, i)) != 0)
			return (rv);
	if ((rv = if_check_set(t)) != 0)
		return (rv);
	return (if_check_slots(t));
}

/* Open every port that will be attached, before anything changes. */
static int
if_open_ports(struct if_txn *t)
{
	struct fwd_d *d = t->d;
	struct fwd_if_open *o;
	unsigned at[FWD_D_IF_MAX + IF_BATCH_MAX]; /* o[k] is plan at[k]'s */
	unsigned no = 0, bad;
	int rv;

	if ((o = calloc(t->np, sizeof(*o))) == NULL)
		return (lc_err_set(t->err, -ENOMEM, LC_ERR_NOINDEX,
		    "out of memory"));
	for (unsigned i = 0; i < t->np; i++) {
		struct if_plan *p = &t->pl[i];
		bool was = i < FWD_D_IF_MAX && d->ifs[i].used;

		if (!p->in || p->rq == NULL || !p->rq->enabled || p->absent)
			continue;
		if (was && d->ifs[i].attached &&
		    d->ifs[i].backend == p->backend)
			continue;
		o[no].name = p->rq->name;
		o[no].backend = p->backend;
		o[no].fallback = p->bk_auto;
		o[no].id = (uint16_t)p->slot;
		o[no].mtu = p->rq->mtu;
		o[no].ports = &p->ports;
		at[no++] = i;
	}
	if ((rv = fwd_if_ports_open(d, o, no, &bad)) != 0)
		lc_err_set(t->err, rv, if_item(t, t->pl[at[bad]].rq),
		    "%s: cannot open the port: %s", o[bad].name, strerror(-rv));
	for (unsigned k = 0; k < no && rv == 0; k++) {
		t->pl[at[k]].backend = o[k].backend;
		t->pl[at[k]].xdp_failed = o[k].fell_back;
		t->pl[at[k]].open = t->pl[at[k]].ports.tx != NULL;
	}
	free(o);
	return (rv);
}

/* Interfaces the new set does not have go. */
static void
if_remove(struct if_txn *t)
{
	struct fwd_d *d = t->d;

	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		if (!f->used || t->pl[i].in)
			continue;
		if_detach(d, f);
		fwd_ctl_if_event(d, f, true);
		memset(f, 0, sizeof(*f));
		f->glean = -1;
		f->glean6 = -1;
	}
}

/* f attached, same backend, still enabled: r's MTU, static neighbours and
 * addresses, diffed in place. */
static void
if_diff(struct fwd_d *d, struct fwd_iface *f, const struct fwd_if_req *r)
{
	if (f->mtu_conf != r->mtu) {
		f->mtu_conf = r->mtu;
		if_mtu_update(d, f);
	}
	if_neigh_drop(d, f, r);
	if_addrs_update(d, f, r);
	fwd_d_nd_diff(d, f, r); /* before f takes r's IPv6 config */
	if (!if6_same(f, r)) {
		fwd_if6_update(d, f, r);
		fwd_d_nd_sync(d, f);
	}
	if_neigh_add(d, f, r);
	fwd_nh_rebind_all(d);
	fwd_d_out_flush(d);
	f->host_conf = r->host_path != FWD_HOST_PATH_OFF;
	fwd_host_sync(d, f);
}

/* Plan p (in the new set, listed) takes effect on its interface. */
static void
if_commit_one(struct fwd_d *d, struct if_plan *p)
{
	const struct fwd_if_req *r = p->rq;
	struct fwd_iface *f = &d->ifs[p->slot];
	bool was = f->used;

	if (was && f->absent == p->absent &&
	    if_same(f, r, p->backend, p->bk_auto))
		return; /* unchanged: untouched */
	if (was &&
	    (p->open || !r->enabled || f->backend != p->backend || p->absent)) {
		if (f->attached && p->absent)
			fwd_ctl_if_event(d, f, true); /* the old ifindex */
		if_detach(d, f);
	}
	if (!was) {
		memset(f, 0, sizeof(*f));
		f->used = true;
		f->glean = -1;
		f->glean6 = -1;
		snprintf(f->name, sizeof(f->name), "%s", r->name);
	}
	f->backend = p->backend;
	if (!p->bk_auto)
		f->xdp_failed = false;
	else if (p->xdp_failed)
		f->xdp_failed = true;
	f->bk_auto = p->bk_auto;
	f->ifindex = p->backend == FWD_D_BK_MEM ?
	    FWD_D_MEM_IFINDEX + (uint32_t)p->slot :
	    p->ifindex;
	if ((f->absent = p->absent))
		lc_log_notice("%s: no such network device: kept configured "
			      "until one of that name appears",
		    f->name);
	f->enabled = r->enabled;
	if (f->attached)
		if_diff(d, f, r);
	else {
		f->host_conf = r->host_path != FWD_HOST_PATH_OFF;
		f->mtu_conf = r->mtu;
		f->naddr = r->naddr;
		memcpy(f->addr, r->addr, sizeof(f->addr));
		memcpy(f->plen, r->plen, sizeof(f->plen));
		fwd_if6_conf_take(f, r);
		neigh_take(f, r);
		fwd_d_nd_take(&f->nd, &r->nd);
		if (p->open) {
			if_attach(d, f, &p->ports);
			p->open = false;
		}
	}
	fwd_ctl_if_event(d, f, false);
}

/* Removals first, then changes and additions. */
static void
if_commit(struct if_txn *t)
{
	if_remove(t);
	for (unsigned i = 0; i < t->np; i++)
		if (t->pl[i].in && t->pl[i].rq != NULL)
			if_commit_one(t->d, &t->pl[i]);
}

int
fwd_if_apply(struct fwd_d *d, const struct fwd_if_req *rq, unsigned n,
    bool replace_all, bool dry_run, unsigned nw, struct lc_err *err)
{
	struct if_txn t = {.d = d,
	    .rq = rq,
	    .n = n,
	    .nw = nw,
	    .np = FWD_D_IF_MAX,
	    .replace_all = replace_all,
	    .err = err};
	int rv;

	lc_err_clear(err);
	if (n > IF_BATCH_MAX)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%u interfaces in one batch (at most %u)", n,
		    IF_BATCH_MAX));
	if ((t.pl = calloc(FWD_D_IF_MAX + n, sizeof(*t.pl))) == NULL)
		return (
		    lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory"));
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		t.pl[i].in = d->ifs[i].used && !replace_all;
		t.pl[i].slot = d->ifs[i].used ? (int)i : -1;
	}
	if ((rv = if_check(&t)) == 0 && !dry_run &&
	    (rv = if_open_ports(&t)) == 0) {
		if_commit(&t);
		/* the whole set is known: what an earlier tern-fwd left and
		 * this one did not adopt goes */
		if (replace_all)
			fwd_host_sweep(d);
	}
	/* ports opened and not attached (an interface that turned out
	 * unchanged); a refused batch left none open */
	for (unsigned i = 0; i < t.np; i++)
		if (t.pl[i].open)
			fwd_if_ports_free(d, &t.pl[i].ports);
	free(t.pl);
	d->st.if_batches++;
	if (rv != 0)
		d->st.if_refused++;
	return (rv);
}

int
fwd_d_if_apply(struct fwd_d *d, const struct fwd_if_req *rq, unsigned n,
    bool replace_all, bool dry_run, struct lc_err *err)
{
	return (fwd_if_apply(d, rq, n, replace_all, dry_run, d->nworkers, err));
}

/* ---- counters ---- */

void
fwd_d_if_counters(struct fwd_d *d, const struct fwd_iface *f,
    struct fwd_port_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!f->attached)
		return;
	*s = f->gone;
	for (unsigned k = 0; k < d->nworkers; k++)
		fwd_if_port_stats_add(s, f->wport[k]);
	fwd_if_port_stats_add(s, f->txport);
}
