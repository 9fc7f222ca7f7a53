/* tests/integration/ribctl.c: a protocol source and a reader of tern-rib for the integration tests. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"

static struct ipc_client *cl;
static struct lc_arena *ar;

static ProtobufCMessage *
call(unsigned m, const ProtobufCMessage *msg)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, m, msg, 5000, ar, &rep, &err);

	if (st != IPC_OK) {
		fprintf(stderr, "ribctl: %s %s\n", ipc_status_str(st), err.msg);
		exit(1);
	}
	return (rep);
}

/* route k: 198.19.(k/16).((k%16)*16)/28 via 198.18.1.(k%200+1) */
static void
mkroute(struct ipc_route_set *s, unsigned k)
{
	struct ipc_route *r = ipc_route_set_add(s, 1);

	if (r == NULL) {
		fprintf(stderr, "ribctl: out of memory\n");
		exit(1);
	}
	r->pfx.v4.s_addr = htonl(
	    0xc6130000u | ((k / 16) << 8) | ((k % 16) * 16));
	r->len = 28;
	s->nh[r->nh].addr.v4.s_addr = htonl(0xc6120100u | (k % 200 + 1));
}

/* route k (IPv6): 2001:2:0:(k+1)::/64 via 2001:2::(k%200+1), recursive */
static void
mkroute6(struct ipc_route_set *s, unsigned k, bool del)
{
	struct ipc_route *r = ipc_route_set_add(s, del ? 0 : 1);

	if (r == NULL) {
		fprintf(stderr, "ribctl: out of memory\n");
		exit(1);
	}
	memset(&r->pfx, 0, sizeof(r->pfx));
	inet_pton(AF_INET6, "2001:2::", r->pfx.v6.b);
	r->pfx.v6.b[6] = (uint8_t)((k + 1) >> 8);
	r->pfx.v6.b[7] = (uint8_t)(k + 1);
	r->len = 64;
	r->family = AF_INET6;
	r->op = del ? IPC_ROUTE_DEL : IPC_ROUTE_ADD;
	if (del)
		return;
	s->nh[r->nh].family = AF_INET6;
	memset(&s->nh[r->nh].addr, 0, sizeof(s->nh[r->nh].addr));
	inet_pton(AF_INET6, "2001:2::", s->nh[r->nh].addr.v6.b);
	s->nh[r->nh].addr.v6.b[15] = (uint8_t)(k % 200 + 1);
}

/* send a batch of source (source_name): exits 1 when refused */
static void
send_batch(const struct ipc_route_set *s, int source, const char *name,
    bool packed)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	struct ipc_route_enc e;
	Rib__RouteBatchAck *a;

	ipc_route_enc_init(&e);
	if (ipc_route_batch_encode(&e, &b, s, packed) != 0)
		exit(1);
	b.source = source;
	b.source_name = (char *)name;
	a = (Rib__RouteBatchAck *)call(RIB__METHOD__ROUTE_BATCH, &b.base);
	if (a->rejected) {
		fprintf(stderr, "ribctl: refused: %s\n",
		    a->n_errors ? a->errors[0]->message : "?");
		exit(1);
	}
	printf("accepted %u\n", a->accepted);
	ipc_route_enc_fini(&e);
}

/* one line per route, both families: prefix source best next hops ->
 * resolved (inet_ntop's text, RFC 5952) */
static void
show(const Rib__QueryReply *r)
{
	for (size_t i = 0; i < r->n_routes; i++) {
		const Rib__RouteEntry *e = r->routes[i];
		const Rib__Route *rt = e->route;
		char a[INET6_ADDRSTRLEN];
		bool v6 = rt->prefix6.len == 16;

		inet_ntop(v6 ? AF_INET6 : AF_INET,
		    v6 ? (const void *)rt->prefix6.data :
			 (const void *)&rt->prefix,
		    a, sizeof(a));
		printf("%s/%u %s best %d via", a, rt->len, e->source_name,
		    e->best);
		for (size_t k = 0; k < rt->n_nh_ifindex; k++) {
			if (v6 && k < rt->n_nh_addr6)
				inet_ntop(AF_INET6, rt->nh_addr6[k].data, a,
				    sizeof(a));
			else if (!v6 && k < rt->n_nh_addr)
				inet_ntop(AF_INET, &rt->nh_addr[k], a,
				    sizeof(a));
			printf(" %s%%%u", a, rt->nh_ifindex[k]);
		}
		printf(" ->");
		for (size_t k = 0; k < e->n_resolved_ifindex; k++) {
			if (v6 && k < e->n_resolved_addr6)
				inet_ntop(AF_INET6, e->resolved_addr6[k].data,
				    a, sizeof(a));
			else if (!v6 && k < e->n_resolved_addr)
				inet_ntop(AF_INET, &e->resolved_addr[k], a,
				    sizeof(a));
			printf(" %s%%%u", a, e->resolved_ifindex[k]);
		}
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	struct ipc_opts o = {0};
	struct ev_loop *loop = lc_loop_new();

	if (argc < 3)
		return (2);
	o.rundir = argv[1];
	o.component = "ribctl";
	ar = lc_arena_new(1 << 16);
	cl = ipc_client_new(loop, &ipc_svc_rib, &o, false);
	if (strcmp(argv[2], "add") == 0 || strcmp(argv[2], "hold") == 0) {
		/* add FROM TO [GRACE_MS]: routes FROM..TO-1 as source bgp */
		unsigned from = (unsigned)atoi(argv[3]),
			 to = (unsigned)atoi(argv[4]);
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
		struct ipc_route_set s;
		struct ipc_route_enc e;
		Rib__RouteBatchAck *a;

		ipc_route_set_init(&s);
		ipc_route_enc_init(&e);
		for (unsigned k = from; k < to; k++)
			mkroute(&s, k);
		if (ipc_route_batch_encode(&e, &b, &s, false) != 0)
			return (1);
		b.source = RIB__SOURCE__PROTOCOL;
		b.source_name = (char *)"bgp";
		b.grace_ms = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
		a = (Rib__RouteBatchAck *)call(RIB__METHOD__ROUTE_BATCH,
		    &b.base);
		if (a->rejected) {
			fprintf(stderr, "ribctl: refused: %s\n",
			    a->n_errors ? a->errors[0]->message : "?");
			return (1);
		}
		printf("accepted %u\n", a->accepted);
		ipc_route_enc_fini(&e);
		ipc_route_set_fini(&s);
		if (strcmp(argv[2], "hold") == 0) { /* stay connected */
			fflush(stdout);
			for (;;)
				ev_run(loop, EVRUN_ONCE);
		}
	} else if ((strcmp(argv[2], "add6") == 0 ||
		       strcmp(argv[2], "del6") == 0) &&
	    argc > 4) {
		/* add6|del6 FROM TO [packed]: IPv6 routes of source bgp */
		unsigned from = (unsigned)atoi(argv[3]),
			 to = (unsigned)atoi(argv[4]);
		struct ipc_route_set s;

		ipc_route_set_init(&s);
		for (unsigned k = from; k < to; k++)
			mkroute6(&s, k, argv[2][0] == 'd');
		send_batch(&s, RIB__SOURCE__PROTOCOL, "bgp",
		    argc > 5 && strcmp(argv[5], "packed") == 0);
		ipc_route_set_fini(&s);
	} else if ((strcmp(argv[2], "conn") == 0 ||
		       strcmp(argv[2], "route6") == 0) &&
	    argc > 4) {
		/* conn PREFIX IFNAME: a connected route from this client;
		 * route6 PREFIX6 GW6: an IPv6 route of source bgp */
		bool conn = argv[2][0] == 'c';
		struct ipc_route_set s;
		struct ipc_route *r;
		char buf[64], *sl;

		snprintf(buf, sizeof(buf), "%s", argv[3]);
		if ((sl = strchr(buf, '/')) == NULL)
			return (2);
		*sl = 0;
		ipc_route_set_init(&s);
		r = ipc_route_set_add(&s, 1);
		memset(&r->pfx, 0, sizeof(r->pfx));
		r->len = (uint8_t)atoi(sl + 1);
		if (inet_pton(AF_INET6, buf, r->pfx.v6.b) == 1) {
			r->family = AF_INET6;
			s.nh[r->nh].family = AF_INET6;
		} else if (!conn || inet_pton(AF_INET, buf, &r->pfx.v4) != 1)
			return (2);
		if (conn) {
			s.nh[r->nh].ifname = argv[4];
			send_batch(&s, RIB__SOURCE__CONNECTED, "", false);
		} else {
			memset(&s.nh[r->nh].addr, 0, sizeof(s.nh[r->nh].addr));
			if (inet_pton(AF_INET6, argv[4],
				s.nh[r->nh].addr.v6.b) != 1)
				return (2);
			send_batch(&s, RIB__SOURCE__PROTOCOL, "bgp", false);
		}
		ipc_route_set_fini(&s);
	} else if (strcmp(argv[2], "show") == 0) {
		/* show [4|6|ADDRESS]: routes (ADDRESS: the longest match) */
		Rib__Query q = RIB__QUERY__INIT;
		uint8_t a6[16];

		q.limit = 100000;
		if (argc > 3 && strcmp(argv[3], "4") == 0)
			q.family = 4;
		else if (argc > 3 && strcmp(argv[3], "6") == 0)
			q.family = 6;
		else if (argc > 3 && inet_pton(AF_INET6, argv[3], a6) == 1) {
			q.lookup6.data = a6;
			q.lookup6.len = 16;
		} else if (argc > 3 &&
		    inet_pton(AF_INET, argv[3], &q.lookup) != 1)
			return (2);
		show((Rib__QueryReply *)call(RIB__METHOD__QUERY, &q.base));
	} else if (strcmp(argv[2], "status") == 0) {
		Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
		Rib__FibStatus *s = (Rib__FibStatus *)
		    call(RIB__METHOD__FIB_STATUS, &e.base);

		printf("routes %u pending %u resyncing %d fwd %d sent %llu "
		       "acked %llu held6 %u\n",
		    s->routes, s->pending, s->resyncing, s->fwd_connected,
		    (unsigned long long)s->sent_seq,
		    (unsigned long long)s->acked_seq, s->held6);
	} else if (strcmp(argv[2], "source") == 0 && argc > 3) {
		/* source NAME: its routes, selected, stale (SOURCES) */
		Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
		Rib__SourceList *l = (Rib__SourceList *)
		    call(RIB__METHOD__SOURCES, &e.base);

		for (size_t i = 0; i < l->n_sources; i++)
			if (strcmp(l->sources[i]->source_name, argv[3]) == 0)
				printf("routes %u active %u stale %u\n",
				    l->sources[i]->routes,
				    l->sources[i]->active,
				    l->sources[i]->stale);
	} else if (strcmp(argv[2], "count") == 0) {
		/* count SOURCE: routes of a source, and how many stale */
		Rib__Query q = RIB__QUERY__INIT;
		Rib__QueryReply *r;
		unsigned stale = 0;

		q.source_name = argv[3];
		q.limit = 100000;
		r = (Rib__QueryReply *)call(RIB__METHOD__QUERY, &q.base);
		for (size_t i = 0; i < r->n_routes; i++)
			stale += r->routes[i]->stale;
		printf("%u %u\n", r->total, stale);
	} else {
		return (2);
	}
	ipc_client_free(cl);
	lc_arena_free(ar);
	lc_loop_free(loop);
	return (0);
}
