/* bgp/bgp_d.c: the tern-bgp daemon's life cycle and bgp.sock: mgmt's
 * configuration (all or nothing, diffed against what runs), the neighbour
 * queries of `show bgp`, `clear bgp neighbor`, and the listening socket
 * that hands accepted connections to their neighbour (docs/bgp.md). */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"

#include "bgp_int.h"
#include "bgp_msg.h"

#define CEASE_DECONFIGURED 3 /* RFC 4486 */
#define CEASE_SHUTDOWN	   2

struct bgp_peer *
bgp_d_peer_find(struct bgp_d *d, uint32_t addr)
{
	for (unsigned i = 0; i < d->npeers; i++)
		if (d->peers[i]->c.addr == addr)
			return (d->peers[i]);
	return (NULL);
}

/* The configured router id, else the highest IPv4 address of the
 * namespace's interfaces (the host path's TAPs hold the ports' addresses),
 * chosen once and kept while it runs. */
uint32_t
bgp_d_router_id(struct bgp_d *d)
{
	struct ifaddrs *ifa, *i;
	uint32_t best = 0;

	if (d->router_id != 0 || getifaddrs(&ifa) != 0)
		return (d->router_id);
	for (i = ifa; i != NULL; i = i->ifa_next) {
		uint32_t a;

		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
		if ((ntohl(a) >> 24) != 127 && ntohl(a) > ntohl(best))
			best = a;
	}
	freeifaddrs(ifa);
	if (best != 0)
		lc_log_notice("router id %s (the highest interface address; "
			      "set protocols bgp router-id to choose)",
		    inet_ntoa((struct in_addr){best}));
	d->router_id = best;
	return (best);
}

/* ---- listening ---- */

static void
on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bgp_d *d = w->data;

	(void)loop;
	(void)revents;
	for (int n = 0; n < 16; n++) {
		struct sockaddr_in sin;
		socklen_t sl = sizeof(sin);
		struct bgp_peer *p;
		int fd = accept4(d->lfd, (struct sockaddr *)&sin, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (sin.sin_family != AF_INET ||
		    (p = bgp_d_peer_find(d, sin.sin_addr.s_addr)) == NULL) {
			lc_log_info("connection from %s refused: not a "
				    "configured neighbor",
			    inet_ntoa(sin.sin_addr));
			close(fd);
			continue;
		}
		if (!bgp_ribc_known(d)) { /* our OPEN's R bit: see retry_cb */
			close(fd);
			continue;
		}
		bgp_peer_accept(p, fd);
	}
}

static int
listen_start(struct bgp_d *d)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int one = 1, e;

	if (d->lfd >= 0)
		return (0);
	if ((d->lfd = socket(AF_INET,
		 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	(void)setsockopt(d->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons((uint16_t)d->port);
	if (bind(d->lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(d->lfd, 64) != 0) {
		e = errno;
		close(d->lfd);
		d->lfd = -1;
		return (-e);
	}
	ev_io_init(&d->lio, on_accept, d->lfd, EV_READ);
	d->lio.data = d;
	ev_io_start(d->loop, &d->lio);
	lc_log_info("listening on TCP port %u", d->port);
	return (0);
}

static void
listen_stop(struct bgp_d *d)
{
	if (d->lfd < 0)
		return;
	ev_io_stop(d->loop, &d->lio);
	close(d->lfd);
	d->lfd = -1;
}

/* ---- configuration ---- */

static void
peers_clear(struct bgp_d *d, unsigned cease)
{
	for (unsigned i = 0; i < d->npeers; i++)
		bgp_peer_free(d->peers[i], cease);
	d->npeers = 0;
}

/* A neighbour's import or export (a = its address): "" or a policy of
 * pol, the set being committed. */
static int
nconf_policy(struct bgp_policy_set *pol, const char *name, const char *what,
    const char *a, char *out, size_t sz, struct lc_err *err, long i)
{
	out[0] = '\0';
	if (name == NULL || name[0] == '\0')
		return (0);
	if (strlen(name) >= sz || bgp_policy_find(pol, name) == NULL)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: %s %s: no such policy-statement", a, what,
		    name));
	snprintf(out, sz, "%s", name);
	return (0);
}

/* Decode and check one neighbour; 0 or -EINVAL with err. */
static int
nconf_of(const Bgp__Neighbor *n, struct bgp_policy_set *pol,
    struct bgp_nconf *c, struct lc_err *err, long i)
{
	char a[INET_ADDRSTRLEN];

	memset(c, 0, sizeof(*c));
	inet_ntop(AF_INET, &n->address, a, sizeof(a));
	if (n->address == 0 || (ntohl(n->address) >> 28) >= 14)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: not a unicast address", a));
	if (n->remote_as == 0)
		return (lc_err_set(err, -EINVAL, i, "neighbor %s: no remote-as",
		    a));
	if (n->hold_time == 1 || n->hold_time == 2 || n->hold_time > 65535)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: hold-time %u: 0 or 3..65535", a,
		    n->hold_time));
	if (n->multihop_ttl == 1 || n->multihop_ttl > 255)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: multihop %u: 2..255", a, n->multihop_ttl));
	if (n->md5_password != NULL && strlen(n->md5_password) > 80)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: authentication-key longer than 80 bytes", a));
	if (n->families & ~3u)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: families %#x: bit 0 IPv4 unicast, bit 1 "
		    "IPv6 unicast",
		    a, n->families));
	if (n->local_address6.len != 0 && n->local_address6.len != 16)
		return (lc_err_set(err, -EINVAL, i,
		    "neighbor %s: local-address6 of %zu bytes: 16", a,
		    n->local_address6.len));
	if (n->local_address6.len == 16) {
		struct lc_ip6 l6;

		memcpy(l6.b, n->local_address6.data, 16);
		if (lc_ip6_is_multicast(&l6) || lc_ip6_is_linklocal(&l6) ||
		    memcmp(l6.b, (uint8_t[16]){0}, 16) == 0)
			return (lc_err_set(err, -EINVAL, i,
			    "neighbor %s: local-address6 %s: a global "
			    "unicast address",
			    a, lc_ip6_ntoa(&l6)));
		c->local_addr6 = l6;
		c->has_local6 = true;
	}
	c->afs = (uint8_t)(n->families ? n->families : BGP_AF_BIT(BGP_AF_IPV4));
	if (nconf_policy(pol, n->import_policy, "import", a, c->import,
		sizeof(c->import), err, i) != 0 ||
	    nconf_policy(pol, n->export_policy, "export", a, c->export,
		sizeof(c->export), err, i) != 0)
		return (-EINVAL);
	c->addr = n->address;
	c->remote_as = n->remote_as;
	c->local_as = n->local_as;
	snprintf(c->descr, sizeof(c->descr), "%s",
	    n->description ? n->description : "");
	c->passive = n->passive;
	c->next_hop_self = n->next_hop_self;
	c->gr = n->graceful_restart;
	c->shutdown = n->shutdown;
	c->hold = n->hold_time;
	c->retry = n->connect_retry;
	c->ttl = n->multihop_ttl;
	c->local_addr = n->local_address;
	snprintf(c->md5, sizeof(c->md5), "%s",
	    n->md5_password ? n->md5_password : "");
	return (0);
}

static int
config_check(const Bgp__BgpConfig *bc, struct bgp_policy_set *pol,
    struct bgp_nconf *nc, struct lc_err *err)
{
	if (!bc->enabled)
		return (0);
	if (bc->n_neighbors > BGP_PEERS_MAX)
		return (
		    lc_err_set(err, -EINVAL, -1, "%zu neighbors: at most %d",
			bc->n_neighbors, BGP_PEERS_MAX));
	if (bc->local_as == 0 && bc->n_neighbors > 0)
		return (lc_err_set(err, -EINVAL, -1, "no local-as"));
	for (size_t i = 0; i < bc->n_neighbors; i++) {
		int rv = nconf_of(bc->neighbors[i], pol, &nc[i], err, (long)i);

		if (rv != 0)
			return (rv);
		for (size_t j = 0; j < i; j++)
			if (nc[j].addr == nc[i].addr)
				return (lc_err_set(err, -EINVAL, (long)i,
				    "neighbor %s twice",
				    inet_ntoa((struct in_addr){nc[i].addr})));
	}
	return (0);
}

/* old: the policies that ran until now (d->pol holds the new ones). */
static void
config_apply(struct bgp_d *d, const Bgp__BgpConfig *bc,
    const struct bgp_nconf *nc, const struct bgp_policy_set *old)
{
	bool reset_all = d->enabled &&
	    (bc->local_as != d->local_as ||
		(bc->router_id != 0 && bc->router_id != d->router_id));
	unsigned keep = 0;

	d->config_seen = true;
	if (!bc->enabled) {
		peers_clear(d, CEASE_SHUTDOWN);
		listen_stop(d);
		d->enabled = false;
		return;
	}
	if (reset_all)
		peers_clear(d,
		    CEASE_DECONFIGURED + 3); /* other config change */
	d->enabled = true;
	d->local_as = bc->local_as;
	d->router_id_conf = bc->router_id != 0;
	if (bc->router_id != 0)
		d->router_id = bc->router_id;
	d->gr_time = bc->graceful_restart_time ? bc->graceful_restart_time :
						 120;
	bgp_ribc_deferral(d);
	bgp_rib_set_local_as(d->rib, d->local_as);
	/* a changed width marks every prefix: the changes go to rib as
	 * the routes' next-hop sets, no session reset */
	bgp_rib_set_multipath(d->rib, bc->multipath ? bc->multipath : 1);
	if (bc->n_neighbors > 0) {
		int rv = listen_start(d);

		if (rv != 0)
			lc_log_err("cannot listen on TCP port %u: %s: only "
				   "outbound sessions",
			    d->port, strerror(-rv));
	}
	for (unsigned i = 0; i < d->npeers; i++)
		d->peers[i]->configured = false;
	for (size_t i = 0; i < bc->n_neighbors; i++) {
		struct bgp_peer *p = bgp_d_peer_find(d, nc[i].addr);
		bool imp_changed = false, exp_changed = false;

		if (d->lfd >= 0 && (p == NULL || strcmp(p->c.md5, nc[i].md5)))
			(void)bgp_md5_set(d->lfd, nc[i].addr, nc[i].md5);
		if (p != NULL) {
			/* a changed import policy runs again over the paths
			 * as received: no reset, no route refresh */
			imp_changed = strcmp(p->c.import, nc[i].import) != 0 ||
			    (nc[i].import[0] != '\0' &&
				bgp_policy_changed(old, d->pol, nc[i].import));
			exp_changed = strcmp(p->c.export, nc[i].export) != 0 ||
			    p->c.next_hop_self != nc[i].next_hop_self ||
			    p->c.has_local6 != nc[i].has_local6 ||
			    memcmp(&p->c.local_addr6, &nc[i].local_addr6,
				sizeof(nc[i].local_addr6)) != 0 ||
			    (nc[i].export[0] != '\0' &&
				bgp_policy_changed(old, d->pol, nc[i].export));
			bgp_peer_reconf(p, &nc[i]);
		} else if ((p = bgp_peer_new(d, &nc[i])) == NULL) {
			lc_log_err("neighbor %s: out of memory",
			    inet_ntoa((struct in_addr){nc[i].addr}));
			continue;
		} else {
			d->peers[d->npeers++] = p;
		}
		p->configured = true;
		/* the old set goes after this: every neighbour's names
		 * resolved in the new one */
		p->imp = p->c.import[0] ? bgp_policy_find(d->pol, p->c.import) :
					  NULL;
		p->exp = p->c.export[0] ? bgp_policy_find(d->pol, p->c.export) :
					  NULL;
		if (imp_changed && p->state == BGP_ESTABLISHED)
			bgp_peer_reimport(p);
		if (exp_changed) {
			bgp_adv_again(p);
			bgp_adv6_again(p);
		}
	}
	for (unsigned i = 0; i < d->npeers; i++) {
		struct bgp_peer *p = d->peers[i];

		if (p->configured) {
			d->peers[keep++] = p;
			continue;
		}
		if (d->lfd >= 0 && p->c.md5[0] != '\0')
			(void)bgp_md5_set(d->lfd, p->c.addr, "");
		bgp_peer_free(p, CEASE_DECONFIGURED);
	}
	d->npeers = keep;
	if (bc->n_neighbors == 0)
		listen_stop(d);
}

/* ---- a configuration in parts (BgpConfig.part, more) ---- */

/*
 * Prefix lists too big for one frame come in parts before the rest of the
 * config: their lists are copied here (the request's memory lives only in
 * its handler) and joined to the last part's, which is then checked and
 * applied as one BgpConfig. One config in parts at a time.
 */
#define BGP_CFG_ENTRIES_MAX (16u << 20) /* prefix-list entries kept */

struct bgp_cfg_parts {
	struct ipc_peer *peer;
	uint64_t txn;
	uint32_t next;
	Bgp__PrefixList **pl; /* the parts' lists as they came, in ar */
	size_t npl, cap, nent;
	struct lc_arena *ar;
};

static void
parts_drop(struct bgp_d *d, const char *why)
{
	struct bgp_cfg_parts *p = d->parts;

	if (p == NULL)
		return;
	if (why != NULL)
		lc_log_info("config %llu: %zu prefix-list entries in %u parts "
			    "dropped: %s",
		    (unsigned long long)p->txn, p->nent, p->next, why);
	free(p->pl);
	lc_arena_free(p->ar);
	free(p);
	d->parts = NULL;
}

static void
parts_peer_gone(struct ipc_server *srv, struct ipc_peer *peer, void *arg)
{
	struct bgp_d *d = arg;

	(void)srv;
	if (d->parts != NULL && d->parts->peer == peer)
		parts_drop(d, "its sender went away");
}

static const char *
pl_name(const Bgp__PrefixList *l)
{
	return (l->name != NULL ? l->name : "");
}

/* A part's prefix lists, copied: 0, -E2BIG or -ENOMEM (err says so). */
static int
parts_keep(struct bgp_d *d, const Bgp__PolicyOptions *po, struct lc_err *err)
{
	struct bgp_cfg_parts *p = d->parts;

	for (size_t i = 0; po != NULL && i < po->n_prefix_lists; i++) {
		const Bgp__PrefixList *l = po->prefix_lists[i];
		size_t n = l->n_entries;
		Bgp__PrefixListEntry *ev;
		Bgp__PrefixList *c;

		if (p->nent + n > BGP_CFG_ENTRIES_MAX)
			return (lc_err_set(err, -E2BIG, -1,
			    "more than %u prefix-list entries",
			    BGP_CFG_ENTRIES_MAX));
		if (lc_array_grow((void **)&p->pl, &p->cap, p->npl + 1,
			sizeof(*p->pl)) != 0 ||
		    (c = lc_arena_alloc(p->ar, sizeof(*c))) == NULL ||
		    (ev = lc_arena_alloc(p->ar, (n + 1) * sizeof(*ev))) == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		bgp__prefix_list__init(c);
		c->name = lc_arena_strdup(p->ar, pl_name(l));
		c->entries = lc_arena_alloc(p->ar,
		    (n + 1) * sizeof(*c->entries));
		if (c->name == NULL || c->entries == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		for (size_t j = 0; j < n; j++) {
			ev[j] = *l->entries[j];
			/* (unknown fields stay in the request's memory) */
			ev[j].base.n_unknown_fields = 0;
			ev[j].base.unknown_fields = NULL;
			c->entries[j] = &ev[j];
		}
		c->n_entries = n;
		p->pl[p->npl++] = c;
		p->nent += n;
	}
	return (0);
}

/* The whole config: the last part bc with the lists kept before its own, a
 * list that went on from one part to the next joined. m and po point into
 * bc and the parts' arena. */
static int
parts_join(struct bgp_d *d, const Bgp__BgpConfig *bc, Bgp__BgpConfig *m,
    Bgp__PolicyOptions *po, struct lc_err *err)
{
	struct bgp_cfg_parts *p = d->parts;
	size_t nl = bc->policy != NULL ? bc->policy->n_prefix_lists : 0, n = 0;
	Bgp__PrefixList **all;

	if ((all = lc_arena_alloc(p->ar, (p->npl + nl + 1) * sizeof(*all))) ==
	    NULL)
		return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
	for (size_t i = 0; i < p->npl + nl; i++) {
		Bgp__PrefixList *l = i < p->npl ?
		    p->pl[i] :
		    bc->policy->prefix_lists[i - p->npl];
		Bgp__PrefixList *j, *prev = n > 0 ? all[n - 1] : NULL;
		size_t k;

		if (prev == NULL || strcmp(pl_name(prev), pl_name(l)) != 0) {
			all[n++] = l;
			continue;
		}
		k = prev->n_entries + l->n_entries;
		if ((j = lc_arena_alloc(p->ar, sizeof(*j))) == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		*j = *prev;
		if ((j->entries = lc_arena_alloc(p->ar,
			 (k + 1) * sizeof(*j->entries))) == NULL)
			return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
		memcpy(j->entries, prev->entries,
		    prev->n_entries * sizeof(*j->entries));
		memcpy(j->entries + prev->n_entries, l->entries,
		    l->n_entries * sizeof(*j->entries));
		j->n_entries = k;
		all[n - 1] = j;
	}
	if (bc->policy != NULL)
		*po = *bc->policy;
	else
		bgp__policy_options__init(po);
	po->prefix_lists = all;
	po->n_prefix_lists = n;
	*m = *bc;
	m->policy = po;
	return (0);
}

static void config_set(struct bgp_d *, struct ipc_req *,
    const Bgp__BgpConfig *);

/* One part of config bc->txn. */
static void
parts_part(struct bgp_d *d, struct ipc_req *req, const Bgp__BgpConfig *bc)
{
	struct ipc_peer *peer = ipc_req_peer(req);
	struct bgp_cfg_parts *p = d->parts;
	bool mine = p != NULL && p->peer == peer && p->txn == bc->txn;
	Bgp__ConfigAck ack = BGP__CONFIG_ACK__INIT;
	Bgp__PolicyOptions po;
	Bgp__BgpConfig m;
	struct lc_err err;

	memset(&err, 0, sizeof(err));
	if (bc->abort) {
		if (mine)
			parts_drop(d, "given up by its sender");
		ack.ok = true;
		(void)ipc_reply(req, IPC_OK, &ack.base);
		return;
	}
	if (bc->part == 0) {
		parts_drop(d, p != NULL ? "another began" : NULL);
		if ((p = calloc(1, sizeof(*p))) == NULL ||
		    (p->ar = lc_arena_new(1 << 20)) == NULL) {
			free(p);
			lc_err_set(&err, -ENOMEM, -1, "out of memory");
			goto refuse;
		}
		p->peer = peer;
		p->txn = bc->txn;
		d->parts = p;
		lc_log_info("config %llu from %s: in parts",
		    (unsigned long long)bc->txn, ipc_peer_component(peer));
	} else if (!mine || bc->part != p->next) {
		lc_err_set(&err, -EPROTO, -1,
		    "config %llu: part %u out of sequence",
		    (unsigned long long)bc->txn, bc->part);
		if (mine)
			parts_drop(d, err.msg);
		goto refuse;
	}
	if (!bc->more) {
		if (parts_join(d, bc, &m, &po, &err) != 0) {
			parts_drop(d, err.msg);
			goto refuse;
		}
		lc_log_info("config %llu: %zu prefix-list entries in %u parts "
			    "before the last",
		    (unsigned long long)bc->txn, d->parts->nent, bc->part);
		config_set(d, req, &m);
		parts_drop(d, NULL);
		return;
	}
	if (parts_keep(d, bc->policy, &err) != 0) {
		parts_drop(d, err.msg);
		goto refuse;
	}
	d->parts->next++;
	ack.ok = true;
	(void)ipc_reply(req, IPC_OK, &ack.base);
	return;
refuse:
	ack.ok = false;
	ack.error = err.msg;
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

/* A whole config (one message, or the parts joined): checked, and applied
 * unless a dry run. */
static void
config_set(struct bgp_d *d, struct ipc_req *req, const Bgp__BgpConfig *bc)
{
	Bgp__ConfigAck ack = BGP__CONFIG_ACK__INIT;
	struct bgp_policy_set *pol = NULL, *old;
	struct bgp_nconf *nc = NULL;
	struct lc_err err;

	memset(&err, 0, sizeof(err));
	if (bc->n_neighbors > 0 &&
	    (nc = calloc(bc->n_neighbors, sizeof(*nc))) == NULL) {
		(void)ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	/* policies compiled in the check too: a commit check refuses what
	 * does not compile */
	if (bgp_policy_set_compile(bc->policy, d->intern, &pol, &err) != 0 ||
	    config_check(bc, pol, nc, &err) != 0) {
		ack.ok = false;
		ack.error = err.msg;
	} else {
		ack.ok = true;
		if (!bc->dry_run) {
			/* the new set runs from here; the old one lives until
			 * after apply, where the neighbours whose import or
			 * export changed (bgp_policy_changed(old, d->pol,
			 * name)) are run again, without a reset */
			old = d->pol;
			d->pol = pol;
			pol = old;
			config_apply(d, bc, nc, old);
			d->config_txn = bc->txn;
		}
	}
	(void)ipc_reply(req, IPC_OK, &ack.base);
	bgp_policy_set_free(pol); /* the old set, or the checked one */
	free(nc);
}

static void
h_set_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct bgp_d *d = arg;
	const Bgp__BgpConfig *bc = (const Bgp__BgpConfig *)msg;

	if (bc->part != 0 || bc->more || bc->abort) {
		parts_part(d, req, bc);
		return;
	}
	parts_drop(d, d->parts != NULL ? "a whole config came" : NULL);
	config_set(d, req, bc);
}

/* ---- queries ---- */

static void
neighbor_state(struct bgp_d *d, struct lc_arena *ar, const struct bgp_peer *p,
    Bgp__NeighborState *s)
{
	const struct bgp_conn *c = NULL;
	const char *caps[6];
	size_t nc = 0;

	bgp__neighbor_state__init(s);
	s->address = p->c.addr;
	s->remote_as = p->c.remote_as;
	s->state = (Bgp__State)p->state;
	s->state_ms = (uint64_t)((ev_now(d->loop) - p->state_since) * 1000);
	s->description = lc_arena_strdup(ar, p->c.descr);
	s->remote_id = p->remote_id;
	s->hold_time = p->hold_neg;
	s->keepalive = p->keep_neg;
	if (p->state >= BGP_OPEN_CONFIRM) {
		if (p->cap_as4)
			caps[nc++] = "as4";
		if (p->cap_mp4)
			caps[nc++] = "mp-ipv4-unicast";
		if (p->peer_afs & BGP_AF_BIT(BGP_AF_IPV6))
			caps[nc++] = "mp-ipv6-unicast";
		if (p->cap_rr)
			caps[nc++] = "route-refresh";
		if (p->cap_gr)
			caps[nc++] = "graceful-restart";
		if (p->cap_gr && p->peer_gr_n)
			caps[nc++] = "graceful-restart-notification";
		s->capabilities = lc_arena_memdup(ar, caps, nc * sizeof(*caps));
		s->n_capabilities = nc;
	}
	s->msgs_in = p->msgs_in;
	s->msgs_out = p->msgs_out;
	s->updates_in = p->updates_in;
	s->updates_out = p->updates_out;
	{
		size_t all, imp;

		bgp_rib_peer_counts(d->rib, p->id, &all, &imp);
		s->prefixes_received = all;
		s->prefixes_accepted = imp;
	}
	s->prefixes_advertised = p->pfx_adv;
	s->families = p->c.afs;
	s->families_negotiated = p->state == BGP_ESTABLISHED ? p->afs_neg : 0;
	{
		size_t all, imp;

		bgp_rib6_peer_counts(d->rib6, p->id, &all, &imp);
		s->prefixes6_received = all;
		s->prefixes6_accepted = imp;
	}
	s->prefixes6_advertised = bgp_adv6_count(p);
	s->last_error = lc_arena_strdup(ar, p->last_error);
	s->flaps = p->flaps;
	s->passive = p->c.passive;
	for (int i = 0; i < 2; i++)
		if (p->conn[i].fd >= 0 &&
		    (c == NULL || p->conn[i].state > c->state))
			c = &p->conn[i];
	if (c != NULL) {
		struct sockaddr_in a;
		socklen_t al = sizeof(a);

		if (getsockname(c->fd, (struct sockaddr *)&a, &al) == 0) {
			s->local_address = a.sin_addr.s_addr;
			s->local_port = ntohs(a.sin_port);
		}
		al = sizeof(a);
		if (getpeername(c->fd, (struct sockaddr *)&a, &al) == 0)
			s->remote_port = ntohs(a.sin_port);
	}
	s->peer_restart_time = p->peer_gr_time;
	s->peer_forwarding = p->peer_gr_f4;
	s->gr_help = (Bgp__GrHelp)p->gr_help;
	s->stale_paths = bgp_rib_peer_stale_count(d->rib, p->id) +
	    bgp_rib6_peer_stale_count(d->rib6, p->id);
	if (p->gr_help != BGP_GR_NONE)
		s->gr_timer_ms =
		    (uint64_t)(ev_timer_remaining(d->loop,
				   &((struct bgp_peer *)p)->gr_timer) *
			1000);
	s->restarts_helped = p->gr_helped;
	if (p->c.remote_as != (p->c.local_as ? p->c.local_as : d->local_as)) {
		bool ni = p->c.import[0] == '\0', ne = p->c.export[0] == '\0';

		s->policy_note = ni && ne ?
		    "no import or export policy: nothing imported or "
		    "exported (RFC 8212)" :
		    ni ? "no import policy: nothing imported (RFC 8212)" :
		    ne ? "no export policy: nothing exported (RFC 8212)" :
			 NULL;
	}
}

static void
h_query_neighbors(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct bgp_d *d = arg;
	const Bgp__NeighborQuery *q = (const Bgp__NeighborQuery *)msg;
	Bgp__NeighborList l = BGP__NEIGHBOR_LIST__INIT;
	struct lc_arena *ar = lc_arena_new(16 << 10);
	Bgp__NeighborState **sp;

	if (ar == NULL ||
	    (sp = lc_arena_calloc(ar, (d->npeers + 1) * sizeof(*sp))) == NULL) {
		(void)ipc_reply_error(req, IPC_ERROR, "out of memory");
		lc_arena_free(ar);
		return;
	}
	l.local_as = d->local_as;
	l.router_id = d->enabled ? bgp_d_router_id(d) : 0;
	{
		struct bgp_rib_stats st;

		bgp_rib_stats(d->rib, &st);
		l.paths = st.paths;
		l.best = st.best;
	}
	{
		struct bgp_rib6_stats st6;

		bgp_rib6_stats(d->rib6, &st6);
		l.paths6 = st6.paths;
		l.best6 = st6.best;
	}
	for (unsigned i = 0; i < d->npeers; i++) {
		const struct bgp_peer *p = d->peers[i];

		if (q->address != 0 && p->c.addr != q->address)
			continue;
		sp[l.n_neighbors] = lc_arena_calloc(ar, sizeof(**sp));
		if (sp[l.n_neighbors] == NULL)
			break;
		neighbor_state(d, ar, p, sp[l.n_neighbors]);
		l.n_neighbors++;
	}
	l.neighbors = sp;
	if (q->address != 0 && l.n_neighbors == 0)
		(void)ipc_reply_error(req, IPC_ERROR, "no neighbor %s",
		    inet_ntoa((struct in_addr){q->address}));
	else
		(void)ipc_reply(req, IPC_OK, &l.base);
	lc_arena_free(ar);
}

static void
h_clear_neighbor(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	struct bgp_d *d = arg;
	const Bgp__ClearNeighbor *cn = (const Bgp__ClearNeighbor *)msg;
	Bgp__ConfigAck ack = BGP__CONFIG_ACK__INIT;
	struct bgp_peer *p = bgp_d_peer_find(d, cn->address);

	if (p == NULL) {
		ack.error = "no such neighbor";
	} else if (cn->soft) {
		int rv = bgp_peer_soft(p);

		ack.ok = rv == 0;
		if (rv == -ENOTCONN)
			ack.error = "the session is not Established";
		else if (rv != 0)
			ack.error = "the send buffer is full";
	} else {
		bgp_peer_clear(p);
		ack.ok = true;
	}
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

/* ---- life cycle ---- */

struct bgp_d *
bgp_d_new(struct ev_loop *loop, const struct bgp_d_opts *o)
{
	struct ipc_opts io;
	struct bgp_d *d;
	int e;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return (NULL);
	d->loop = loop;
	d->lfd = -1;
	d->port = o != NULL && o->port ? o->port : BGP_PORT;
	d->gr_time = 120;
	if ((d->intern = bgp_intern_new()) == NULL ||
	    (d->rib = bgp_rib_new(d->intern)) == NULL ||
	    (d->rib6 = bgp_rib6_new(d->rib, d->intern)) == NULL ||
	    (d->pscr = malloc(sizeof(*d->pscr))) == NULL) {
		bgp_rib6_free(d->rib6);
		bgp_rib_free(d->rib);
		bgp_intern_free(d->intern);
		free(d);
		errno = ENOMEM;
		return (NULL);
	}
	memset(&io, 0, sizeof(io));
	io.rundir = o != NULL ? o->rundir : NULL;
	io.component = "bgp";
	io.generation = o != NULL ? o->generation : 0;
	if ((d->srv = ipc_server_new(loop, &ipc_svc_bgp, &io)) == NULL) {
		e = errno ? errno : ENOMEM;
		free(d->pscr);
		bgp_rib6_free(d->rib6);
		bgp_rib_free(d->rib);
		bgp_intern_free(d->intern);
		free(d);
		errno = e;
		return (NULL);
	}
	bgp_adv_init(d);
	bgp_adv6_init(d);
	if ((e = bgp_ribc_init(d, &io)) != 0) {
		ipc_server_free(d->srv);
		free(d->pscr);
		bgp_rib6_free(d->rib6);
		bgp_rib_free(d->rib);
		bgp_intern_free(d->intern);
		free(d);
		errno = -e;
		return (NULL);
	}
	ipc_server_handle(d->srv, BGP__METHOD__SET_CONFIG, h_set_config, d);
	ipc_server_set_cbs(d->srv,
	    &(struct ipc_server_cbs){.on_peer_gone = parts_peer_gone,
		.arg = d});
	ipc_server_handle(d->srv, BGP__METHOD__QUERY_NEIGHBORS,
	    h_query_neighbors, d);
	ipc_server_handle(d->srv, BGP__METHOD__CLEAR_NEIGHBOR, h_clear_neighbor,
	    d);
	bgp_show_init(d);
	ipc_server_set_state(d->srv, "running");
	return (d);
}

void
bgp_d_free(struct bgp_d *d)
{
	if (d == NULL)
		return;
	parts_drop(d, NULL);
	peers_clear(d, CEASE_SHUTDOWN);
	listen_stop(d);
	bgp_ribc_fini(d);
	ipc_server_free(d->srv);
	bgp_rib6_free(d->rib6);
	bgp_rib_free(d->rib);
	bgp_policy_set_free(d->pol); /* its cache holds sets: before */
	free(d->pscr);
	bgp_intern_free(d->intern);
	free(d);
}
