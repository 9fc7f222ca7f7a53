/* tests/integration/fwdctl.c: a small IPC client of tern-fwd for the
 * integration tests (the part of rib's and mgmt's calls a test needs):
 * interfaces, FIB batches, resync, queries. Built by the test scripts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"
#include "tests/lib/prefixset.h"

static struct ipc_client *cl;
static struct lc_arena *ar;

static ProtobufCMessage *
call(unsigned method, const ProtobufCMessage *msg)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, method, msg, 3000, ar, &rep, &err);

	if (st != IPC_OK) {
		fprintf(stderr, "fwdctl: %s: %s\n", ipc_status_str(st),
		    err.msg);
		exit(1);
	}
	return (rep);
}

static int
parse_pfx(const char *s, uint32_t *a, uint32_t *len)
{
	char buf[64], *sl;
	struct in_addr ia;

	snprintf(buf, sizeof(buf), "%s", s);
	*len = 32;
	if ((sl = strchr(buf, '/')) != NULL) {
		*sl = '\0';
		*len = (uint32_t)atoi(sl + 1);
	}
	if (inet_pton(AF_INET, buf, &ia) != 1)
		return (-1);
	*a = ia.s_addr; /* network order, as on the wire */
	return (0);
}

static const char *
ip6s(const uint8_t *a)
{
	static char b[4][INET6_ADDRSTRLEN];
	static int k;

	k = (k + 1) % 4;
	return (inet_ntop(AF_INET6, a, b[k], sizeof(b[k])));
}

static const char *
ip(uint32_t a)
{
	static char b[4][INET_ADDRSTRLEN];
	static int k;
	struct in_addr ia = {a};

	k = (k + 1) & 3;
	inet_ntop(AF_INET, &ia, b[k], sizeof(b[k]));
	return (b[k]);
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: fwdctl RUNDIR CMD...\n"
	    "  if NAME [ADDR/LEN...] [host-path on|off] [backend B]\n"
	    "     [mtu N] [neigh6 ADDR6 MAC]...\n"
	    "                              IF_CONFIG (enabled; afpacket\n"
	    "                              unless B); an ADDR with ':' is\n"
	    "                              IPv6 (addrs6)\n"
	    "  route add PFX/LEN GW[,GW..] [IFINDEX]  FIB_BATCH add (GW 0: "
	    "attached)\n"
	    "  route del PFX/LEN           FIB_BATCH del\n"
	    "  resync-begin | resync-end\n"
	    "  interfaces | fib [PFX/LEN] | lookup ADDR | neigh | drops\n"
	    "  fib6 [PFX6/LEN] | lookup6 ADDR6   QUERY_FIB ipv6\n"
	    "  load-set N GW[,GW..] SAMPLES  the standard prefix set of N,\n"
	    "                              route k via GW[nh %% count]; then\n"
	    "                              SAMPLES lines 'ADDR GW' (longest\n"
	    "                              match found by a scan of the set)\n");
	return (2);
}

/* The longest prefix of ps holding a (host order): its index, or -1. A scan
 * of every prefix: slow and obviously right, unlike the FIB under test. */
static long
set_lpm(const struct tt_prefixset *ps, uint32_t a)
{
	long best = -1;

	for (size_t k = 0; k < ps->n; k++) {
		const struct tt_prefix *p = &ps->p[k];
		uint32_t m = p->len ? ~0u << (32 - p->len) : 0;

		if ((a & m) == p->addr &&
		    (best < 0 || p->len > ps->p[best].len))
			best = (long)k;
	}
	return (best);
}

/* load-set: see usage(). Prints what fwd acked, then the samples. */
static int
load_set(size_t n, char *gws, unsigned nsample)
{
	enum { CHUNK = 8192 };
	struct tt_prefixset ps;
	uint32_t gw[16], ngw = 0, len, applied = 0, failed = 0, routes = 0;
	uint32_t *addrs;
	struct ipc_route_set s;
	struct ipc_route_enc e;
	struct timespec t0, t1;
	uint64_t seq = 1;
	char *tok;

	while ((tok = strsep(&gws, ",")) != NULL && ngw < 16)
		if (parse_pfx(tok, &gw[ngw++], &len) != 0 || len != 32)
			return (usage());
	ipc_route_set_init(&s);
	ipc_route_enc_init(&e);
	if (ngw == 0 || tt_prefixset_gen(&ps, n, TT_PFX_SEED, 0) != 0) {
		fprintf(stderr,
		    "fwdctl: load-set: no gateway, or cannot "
		    "make a set of %zu\n",
		    n);
		return (1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t off = 0; off < ps.n; off += CHUNK) {
		Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
		size_t c = ps.n - off < CHUNK ? ps.n - off : CHUNK;
		Fwd__FibAck *a;

		ipc_route_set_clear(&s);
		for (size_t i = 0; i < c; i++) {
			const struct tt_prefix *p = &ps.p[off + i];
			struct ipc_route *r = ipc_route_set_add(&s, 1);

			if (r == NULL)
				return (1);
			r->pfx.v4.s_addr = htonl(p->addr);
			r->len = p->len;
			/* ifindex 0: by subnet */
			s.nh[r->nh].addr.v4.s_addr = gw[p->nh % ngw];
		}
		if (ipc_route_fib_encode(&e, &b, &s, false) != 0)
			return (1);
		b.seq = seq++;
		a = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
		applied += a->applied;
		failed += a->failed;
		routes = a->routes;
		lc_arena_reset(ar);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("loaded %zu routes: applied %u failed %u, fwd has %u, "
	       "%.0f ms\n",
	    ps.n, applied, failed, routes,
	    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	if ((addrs = calloc(nsample + 1, sizeof(*addrs))) == NULL ||
	    tt_addrs_gen(&ps, TT_ADDR_MATCH, addrs, nsample, 0x73616d70) != 0)
		return (1);
	for (unsigned i = 0; i < nsample; i++) {
		long k = set_lpm(&ps, addrs[i]);

		printf("%s %s\n", ip(htonl(addrs[i])),
		    k < 0 ? "none" : ip(gw[ps.p[k].nh % ngw]));
	}
	free(addrs);
	ipc_route_enc_fini(&e);
	ipc_route_set_fini(&s);
	tt_prefixset_free(&ps);
	return (failed ? 1 : 0);
}

int
main(int argc, char **argv)
{
	struct ev_loop *loop;
	struct ipc_opts o = {0};
	const char *cmd;

	if (argc < 3)
		return (usage());
	loop = lc_loop_new();
	o.rundir = argv[1];
	o.component = "fwdctl";
	cl = ipc_client_new(loop, &ipc_svc_fwd, &o, false);
	ar = lc_arena_new(0);
	cmd = argv[2];
	if (strcmp(cmd, "if") == 0 && argc >= 4) {
		Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
		Fwd__IfConfig ic = FWD__IF_CONFIG__INIT, *icp = &ic;
		Fwd__IfAddr ia[16], *iap[16];
		Fwd__IfAddr6 ia6[16], *ia6p[16];
		Fwd__StaticNeighbour sn[16], *snp[16];
		static uint8_t addr6[48][16], mac6[16][6];
		Fwd__IfConfigAck *a;

		ic.name = argv[3];
		ic.enabled = true;
		ic.backend = (char *)"afpacket";
		for (int i = 4; i < argc; i++) {
			if (strcmp(argv[i], "host-path") == 0 && i + 1 < argc) {
				i++;
				if (strcmp(argv[i], "on") == 0)
					ic.host_path =
					    FWD__HOST_PATH__HOST_PATH_ENABLE;
				else if (strcmp(argv[i], "off") == 0)
					ic.host_path =
					    FWD__HOST_PATH__HOST_PATH_DISABLE;
				else
					return (usage());
				continue;
			}
			if (strcmp(argv[i], "backend") == 0 && i + 1 < argc) {
				ic.backend = argv[++i];
				continue;
			}
			if (strcmp(argv[i], "mtu") == 0 && i + 1 < argc) {
				ic.mtu = (uint32_t)atoi(argv[++i]);
				continue;
			}
			if (strcmp(argv[i], "neigh6") == 0 && i + 2 < argc &&
			    ic.n_neighbours < 16) {
				Fwd__StaticNeighbour *n = &sn[ic.n_neighbours];
				uint8_t *m = mac6[ic.n_neighbours];

				fwd__static_neighbour__init(n);
				if (inet_pton(AF_INET6, argv[i + 1],
					addr6[32 + ic.n_neighbours]) != 1 ||
				    sscanf(argv[i + 2],
					"%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0],
					&m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
					return (usage());
				n->addr6.data = addr6[32 + ic.n_neighbours];
				n->addr6.len = 16;
				n->mac.data = m;
				n->mac.len = 6;
				snp[ic.n_neighbours++] = n;
				ic.neighbours = snp;
				i += 2;
				continue;
			}
			if (strchr(argv[i], ':') != NULL) {
				char b6[64], *sl;

				if (ic.n_addrs6 == 16)
					return (usage());
				snprintf(b6, sizeof(b6), "%s", argv[i]);
				fwd__if_addr6__init(&ia6[ic.n_addrs6]);
				ia6[ic.n_addrs6].len = 128;
				if ((sl = strchr(b6, '/')) != NULL) {
					*sl = '\0';
					ia6[ic.n_addrs6].len = (uint32_t)atoi(
					    sl + 1);
				}
				if (inet_pton(AF_INET6, b6,
					addr6[ic.n_addrs6]) != 1)
					return (usage());
				ia6[ic.n_addrs6].addr.data = addr6[ic.n_addrs6];
				ia6[ic.n_addrs6].addr.len = 16;
				ia6p[ic.n_addrs6] = &ia6[ic.n_addrs6];
				ic.n_addrs6++;
				ic.addrs6 = ia6p;
				continue;
			}
			if (ic.n_addrs == 16)
				return (usage());
			fwd__if_addr__init(&ia[ic.n_addrs]);
			if (parse_pfx(argv[i], &ia[ic.n_addrs].addr,
				&ia[ic.n_addrs].len) != 0)
				return (usage());
			iap[ic.n_addrs] = &ia[ic.n_addrs];
			ic.n_addrs++;
		}
		ic.addrs = iap;
		b.interfaces = &icp;
		b.n_interfaces = 1;
		a = (Fwd__IfConfigAck *)call(FWD__METHOD__IF_CONFIG, &b.base);
		if (!a->ok) {
			fprintf(stderr, "fwdctl: refused: %s\n", a->error);
			return (1);
		}
		return (0);
	}
	if (strcmp(cmd, "route") == 0 && argc >= 5) {
		Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
		struct ipc_route_set s;
		struct ipc_route_enc e;
		struct ipc_route *r;
		uint32_t gw[16], pfx, len, n = 0;
		bool add = strcmp(argv[3], "add") == 0 && argc >= 6;
		Fwd__FibAck *a;

		if ((!add && strcmp(argv[3], "del") != 0) ||
		    parse_pfx(argv[4], &pfx, &len) != 0)
			return (usage());
		if (add) {
			char *gws = argv[5], *tok;

			while ((tok = strsep(&gws, ",")) != NULL && n < 16) {
				uint32_t l;

				if (parse_pfx(tok, &gw[n++], &l) != 0)
					return (usage());
			}
		}
		ipc_route_set_init(&s);
		ipc_route_enc_init(&e);
		if ((r = ipc_route_set_add(&s, n)) == NULL)
			return (1);
		r->op = add ? IPC_ROUTE_ADD : IPC_ROUTE_DEL;
		r->pfx.v4.s_addr = pfx;
		r->len = (uint8_t)len;
		for (uint32_t i = 0; i < n; i++) {
			s.nh[r->nh + i].addr.v4.s_addr = gw[i];
			s.nh[r->nh + i].ifindex = argc >= 7 ?
			    (uint32_t)atoi(argv[6]) :
			    0;
		}
		if (ipc_route_fib_encode(&e, &b, &s, false) != 0)
			return (1);
		b.seq = 1;
		a = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
		printf("applied %u failed %u routes %u\n", a->applied,
		    a->failed, a->routes);
		return (a->failed ? 1 : 0);
	}
	if (strcmp(cmd, "resync-begin") == 0 ||
	    strcmp(cmd, "resync-end") == 0) {
		Fwd__Resync r = FWD__RESYNC__INIT;
		Fwd__FibAck *a;

		a = (Fwd__FibAck *)call(cmd[7] == 'b' ?
			FWD__METHOD__RESYNC_BEGIN :
			FWD__METHOD__RESYNC_END,
		    &r.base);
		printf("routes %u swept %u\n", a->routes, a->swept);
		return (0);
	}
	if (strcmp(cmd, "interfaces") == 0) {
		Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
		Fwd__InterfaceList *l;

		q.counters = true;
		l = (Fwd__InterfaceList *)call(FWD__METHOD__QUERY_INTERFACES,
		    &q.base);
		for (size_t i = 0; i < l->n_interfaces; i++) {
			Fwd__Interface *x = l->interfaces[i];

			printf("%s ifindex %u link %s mtu %u", x->name,
			    x->ifindex,
			    x->absent				    ? "absent" :
				x->link == FWD__LINK_STATE__LINK_UP ? "up" :
								      "down",
			    x->mtu);
			for (size_t k = 0; k < x->n_addrs; k++)
				printf(" %s/%u", ip(x->addrs[k]->addr),
				    x->addrs[k]->len);
			for (size_t k = 0; k < x->n_addrs6; k++)
				if (x->addrs6[k]->addr.len == 16)
					printf(" %s/%u",
					    ip6s(x->addrs6[k]->addr.data),
					    x->addrs6[k]->len);
			if (x->counters != NULL)
				printf(" rx %llu tx %llu rx_drops %llu "
				       "rx_ring_full %llu",
				    (unsigned long long)x->counters->rx_packets,
				    (unsigned long long)x->counters->tx_packets,
				    (unsigned long long)x->counters->rx_drops,
				    (unsigned long long)
					x->counters->rx_ring_full);
			if (!x->host_path)
				printf(" host off");
			else if (x->host != NULL)
				printf(" host %s up %llu/%llu down %llu/%llu "
				       "up_drop %llu down_drop %llu "
				       "coalesced %llu/%llu",
				    x->host_ifname[0] ? x->host_ifname : "-",
				    (unsigned long long)x->host->up_packets,
				    (unsigned long long)x->host->up_bytes,
				    (unsigned long long)x->host->down_packets,
				    (unsigned long long)x->host->down_bytes,
				    (unsigned long long)x->host->up_dropped,
				    (unsigned long long)x->host->down_dropped,
				    (unsigned long long)x->host->up_coalesced,
				    (unsigned long long)x->host->up_gso_writes);
			if (x->counters != NULL)
				printf(" rx_oversize %llu csum_filled %llu "
				       "tx_drops %llu",
				    (unsigned long long)
					x->counters->rx_oversize,
				    (unsigned long long)
					x->counters->rx_csum_filled,
				    (unsigned long long)x->counters->tx_drops);
			printf("\n");
		}
		return (0);
	}
	if (strcmp(cmd, "fib") == 0 || strcmp(cmd, "lookup") == 0) {
		Fwd__FibQuery q = FWD__FIB_QUERY__INIT;
		Fwd__FibList *l;

		if (argc >= 4) {
			if (parse_pfx(argv[3], &q.prefix, &q.len) != 0)
				return (usage());
			q.exact = cmd[0] == 'f';
			q.use_lookup = cmd[0] == 'l';
			q.lookup = q.prefix;
		}
		l = (Fwd__FibList *)call(FWD__METHOD__QUERY_FIB, &q.base);
		for (size_t i = 0; i < l->n_routes; i++) {
			Fwd__FibRoute *r = l->routes[i];

			printf("%s/%u", ip(r->prefix), r->len);
			for (size_t k = 0; k < r->n_nh_addr; k++)
				printf(" via %s if %u", ip(r->nh_addr[k]),
				    r->nh_ifindex[k]);
			printf("\n");
		}
		printf("total %u\n", l->total);
		return (0);
	}
	if (strcmp(cmd, "fib6") == 0 || strcmp(cmd, "lookup6") == 0) {
		Fwd__FibQuery q = FWD__FIB_QUERY__INIT;
		Fwd__FibList *l;
		uint8_t a6[16];

		q.ipv6 = true;
		if (argc >= 4) {
			char b6[64], *sl;

			snprintf(b6, sizeof(b6), "%s", argv[3]);
			q.len = 128;
			if ((sl = strchr(b6, '/')) != NULL) {
				*sl = '\0';
				q.len = (uint32_t)atoi(sl + 1);
			}
			if (inet_pton(AF_INET6, b6, a6) != 1)
				return (usage());
			q.prefix6.data = a6;
			q.prefix6.len = 16;
			q.lookup6 = q.prefix6;
			q.exact = cmd[0] == 'f';
			q.use_lookup = cmd[0] == 'l';
		}
		l = (Fwd__FibList *)call(FWD__METHOD__QUERY_FIB, &q.base);
		for (size_t i = 0; i < l->n_routes; i++) {
			Fwd__FibRoute *r = l->routes[i];

			printf("%s/%u",
			    r->prefix6.len == 16 ? ip6s(r->prefix6.data) : "?",
			    r->len);
			for (size_t k = 0; k < r->n_nh_addr6; k++)
				printf(" via %s if %u",
				    r->nh_addr6[k].len == 16 ?
					ip6s(r->nh_addr6[k].data) :
					"?",
				    k < r->n_nh_ifindex ? r->nh_ifindex[k] : 0);
			if (r->n_nh_addr6 == 0 && r->kind != 0)
				printf(" kind %d", (int)r->kind);
			printf("\n");
		}
		printf("total %u\n", l->total);
		return (0);
	}
	if (strcmp(cmd, "neigh") == 0) {
		Fwd__NeighbourQuery q = FWD__NEIGHBOUR_QUERY__INIT;
		Fwd__NeighbourList *l;

		l = (Fwd__NeighbourList *)call(FWD__METHOD__QUERY_NEIGHBOURS,
		    &q.base);
		for (size_t i = 0; i < l->n_neighbours; i++)
			printf("%s if %u state %d\n",
			    ip(l->neighbours[i]->addr),
			    l->neighbours[i]->ifindex,
			    (int)l->neighbours[i]->state);
		return (0);
	}
	if (strcmp(cmd, "load-set") == 0 && argc == 6)
		return (load_set(strtoul(argv[3], NULL, 10), argv[4],
		    (unsigned)atoi(argv[5])));
	if (strcmp(cmd, "drops") == 0) {
		Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
		Fwd__DropList *l;

		l = (Fwd__DropList *)call(FWD__METHOD__QUERY_DROPS, &e.base);
		for (size_t i = 0; i < l->n_drops; i++)
			printf("%s %llu\n", l->drops[i]->reason,
			    (unsigned long long)l->drops[i]->count);
		return (0);
	}
	return (usage());
}
