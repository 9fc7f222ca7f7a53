/* fwd/fwd_ops.c: what the router's operational commands need of tern-fwd: a counter baseline per interface (clear interfaces statistics) and datagrams the router originates through its FIB (ping, traceroute). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "libcommon/lc_err.h"
#include "fwd_d.h"
#include "fwd_d_int.h"

/* ---- clear interfaces statistics ---- */

int
fwd_d_if_clear(struct fwd_d *d, const char *name)
{
	uint64_t now = fwd_d_now_ms(d);
	int n = 0;

	for (unsigned i = 0; i < FWD_D_IF_MAX; i++) {
		struct fwd_iface *f = &d->ifs[i];

		if (!f->used ||
		    (name != NULL && name[0] != '\0' &&
			strcmp(name, f->name) != 0))
			continue;
		/* the raw counters go on (metrics need them monotonic);
		 * `show interfaces` shows what came since this */
		fwd_d_if_counters(d, f, &f->base);
		f->host_base = f->host.st;
		f->cleared_ms = now;
		f->cleared = true;
		n++;
	}
	return (n > 0 || name == NULL || name[0] == '\0' ? n : -ENOENT);
}

/* ---- datagrams of the router's own ---- */

/* The egress of dst: the adjacency, or an error that says why none. */
static int
ops_egress(struct fwd_d *d, uint32_t dst, const uint8_t *ip,
    const struct fwd_adj **out, struct lc_err *err)
{
	unsigned nh = fwd_fib_lookup(d->fib, dst);
	const struct fwd_adj *a = NULL;
	struct in_addr ia = {htonl(dst)};

	if (nh >= d->adj->size)
		return (lc_err_set(err, -ENETUNREACH, LC_ERR_NOINDEX,
		    "no route to %s", inet_ntoa(ia)));
	a = fwd_adj_select(d->adj, &d->adj->ent[nh], ip);
	switch (a->action) {
	case FWD_ADJ_A_FORWARD:
	case FWD_ADJ_A_RESOLVE:
	case FWD_ADJ_A_LOCAL:
		*out = a;
		return (0);
	case FWD_ADJ_A_DROP:
		return (lc_err_set(err, -ENETUNREACH, LC_ERR_NOINDEX,
		    "%s is routed to a blackhole (discard)", inet_ntoa(ia)));
	case FWD_ADJ_A_REJECT:
		return (lc_err_set(err, -EHOSTUNREACH, LC_ERR_NOINDEX,
		    "%s is routed to a reject route", inet_ntoa(ia)));
	case FWD_ADJ_A_DOWN:
		return (lc_err_set(err, -ENETDOWN, LC_ERR_NOINDEX,
		    "the interface toward %s is down", inet_ntoa(ia)));
	default:
		return (lc_err_set(err, -ENETUNREACH, LC_ERR_NOINDEX,
		    "no route to %s", inet_ntoa(ia)));
	}
}

int
fwd_d_originate(struct fwd_d *d, const struct fwd_orig *o,
    struct fwd_orig_res *res, struct lc_err *err)
{
	uint8_t frame[FWD_FRAME_MAX], *ip = frame + FWD_ETH_HLEN, *f;
	const struct fwd_adj *a = NULL;
	const struct fwd_iface *egr;
	struct fwd_neigh_info ni;
	unsigned tl = FWD_IPV4_HLEN + o->len;
	uint32_t src = o->src, target;
	int rv;

	memset(res, 0, sizeof(*res));
	if (o->ttl < 1 || o->ttl > 255 || tl > 0xffff ||
	    FWD_ETH_HLEN + tl > sizeof(frame))
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "bad datagram: ttl %u, %u bytes", o->ttl, tl));
	if (src != 0 && !fwd_local_has(&d->local, src)) {
		struct in_addr ia = {htonl(src)};

		return (lc_err_set(err, -EADDRNOTAVAIL, LC_ERR_NOINDEX,
		    "source %s is not an address of the router",
		    inet_ntoa(ia)));
	}
	/* the header first: the ECMP member is picked by its addresses */
	memset(frame, 0, FWD_ETH_HLEN + FWD_IPV4_HLEN);
	ip[FWD_IP_VHL] = 0x45;
	fwd_st16(ip + FWD_IP_LEN, htons((uint16_t)tl));
	ip[FWD_IP_TTL] = (uint8_t)o->ttl;
	ip[FWD_IP_PROTO] = o->proto;
	fwd_st32(ip + FWD_IP_DST, htonl(o->dst));
	fwd_st32(ip + FWD_IP_SRC, htonl(src));
	memcpy(ip + FWD_IPV4_HLEN, o->payload, o->len);
	if (fwd_local_has(&d->local, o->dst)) {
		res->local = true; /* the kernel answers its own */
		res->src = src != 0 ? src : o->dst;
		return (0);
	}
	if ((rv = ops_egress(d, o->dst, ip, &a, err)) != 0)
		return (rv);
	if (a->action == FWD_ADJ_A_LOCAL) {
		res->local = true;
		res->src = src != 0 ? src : o->dst;
		return (0);
	}
	egr = a->port < FWD_D_IF_MAX && d->ifs[a->port].used ?
	    &d->ifs[a->port] :
	    NULL;
	if (egr == NULL || !egr->attached)
		return (lc_err_set(err, -ENETDOWN, LC_ERR_NOINDEX,
		    "the interface toward the destination is not attached"));
	if (o->ifname != NULL && o->ifname[0] != '\0' &&
	    strcmp(o->ifname, egr->name) != 0)
		return (lc_err_set(err, -ENETUNREACH, LC_ERR_NOINDEX,
		    "the destination is routed out %s, not %s", egr->name,
		    o->ifname));
	if (src == 0) {
		if (egr->naddr == 0)
			return (lc_err_set(err, -EADDRNOTAVAIL, LC_ERR_NOINDEX,
			    "%s has no address to send from: give a source",
			    egr->name));
		src = egr->addr[0];
		fwd_st32(ip + FWD_IP_SRC, htonl(src));
	}
	if (tl > egr->mtu)
		return (lc_err_set(err, -EMSGSIZE, LC_ERR_NOINDEX,
		    "a %u-byte datagram is over the MTU %u of %s", tl, egr->mtu,
		    egr->name));
	fwd_st16(ip + FWD_IP_ID, htons(d->icmp.ip_id++));
	fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
	res->src = src;
	res->port = a->port;
	snprintf(res->ifname, sizeof(res->ifname), "%s", egr->name);
	target = a->kind == FWD_ADJ_K_NH ? a->gw : o->dst;
	res->next_hop = target;

	if (a->action == FWD_ADJ_A_FORWARD) {
		memcpy(frame, a->eth, FWD_ETH_HLEN);
	} else if (fwd_arp_get(d->arp, a->port, target, &ni) == 0 &&
	    ni.state != FWD_NEIGH_INCOMPLETE) {
		memcpy(frame, ni.mac, 6);
		memcpy(frame + 6, egr->mac, 6);
		fwd_st16(frame + 12, htons(0x0800));
	} else {
		/*
		 * Resolve, the datagram queued: the ARP queue forwards what
		 * it holds (TTL decremented), so it gets one more, which the
		 * queue takes off again. At 255 there is no more: only the
		 * resolution starts, and this one is not sent.
		 */
		memcpy(frame + 6, egr->mac, 6);
		fwd_st16(frame + 12, htons(0x0800));
		if (o->ttl < 255) {
			ip[FWD_IP_TTL]++;
			fwd_ipv4_cksum_set(ip, FWD_IPV4_HLEN);
		}
		rv = fwd_arp_resolve(d->arp, a->port, target, FWD_D_PORT_DEAD,
		    o->ttl < 255 ? frame : NULL, FWD_ETH_HLEN + tl,
		    fwd_d_now_ms(d), d->out);
		fwd_d_out_flush(d);
		if (rv != 0)
			return (lc_err_set(err, rv, LC_ERR_NOINDEX,
			    "cannot resolve the next hop on %s: %s", egr->name,
			    strerror(-rv)));
		res->queued = true;
		return (0);
	}
	if ((f = fwd_out_push(d->out, a->port, FWD_ETH_HLEN + tl)) == NULL)
		return (lc_err_set(err, -ENOBUFS, LC_ERR_NOINDEX,
		    "no room to send"));
	memcpy(f, frame, FWD_ETH_HLEN + tl);
	fwd_d_out_flush(d);
	return (0);
}
