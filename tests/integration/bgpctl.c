/* tests/integration/bgpctl.c: tern-bgp's configuration and neighbours for
 * the integration tests, until mgmt pushes the protocols bgp block itself:
 *
 *   bgpctl RUNDIR config LOCAL_AS ROUTER_ID [NEIGHBOR...]
 *       NEIGHBOR = ADDR,AS[,passive][,hold=S][,retry=S][,ttl=N][,md5=KEY]
 *                  [,local=ADDR][,gr][,shutdown][,import=P][,export=P]
 *                  [,nhself][,v6][,v6only][,nh6=IPV6ADDR]
 *       (v6: IPv4 and IPv6 unicast, v6only: IPv6 alone; nh6: our IPv6 next
 *       hop; a policy ALL that accepts everything is always defined)
 *   bgpctl RUNDIR routes6 [PREFIX6]      tern-bgp's IPv6 paths, one a line
 *   bgpctl RUNDIR off                   the block deleted
 *   bgpctl RUNDIR neighbors [ADDR]      one line per neighbour
 *   bgpctl RUNDIR clear ADDR
 *   bgpctl RUNDIR wait ADDR STATE SECS  until the neighbour is in STATE
 * Exit 0 on success, 1 with the reason on stderr. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"

#define BGP_NBR_MAX 16

static struct ipc_client *cl;
static struct lc_arena *ar;
static const char *const states[] = {"Idle", "Connect", "Active", "OpenSent",
    "OpenConfirm", "Established"};

static ProtobufCMessage *
call(unsigned m, const ProtobufCMessage *msg, bool fatal)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, m, msg, 5000, ar, &rep, &err);

	if (st != IPC_OK) {
		if (!fatal)
			return (NULL);
		fprintf(stderr, "bgpctl: %s %s\n", ipc_status_str(st), err.msg);
		exit(1);
	}
	return (rep);
}

static uint32_t
addr(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "bgpctl: bad address %s\n", s);
		exit(2);
	}
	return (a.s_addr);
}

static void
neighbor(char *spec, Bgp__Neighbor *n)
{
	char *tok, *save = NULL;

	bgp__neighbor__init(n);
	n->address = addr(strtok_r(spec, ",", &save));
	tok = strtok_r(NULL, ",", &save);
	n->remote_as = tok ? (uint32_t)strtoul(tok, NULL, 10) : 0;
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		if (strcmp(tok, "passive") == 0)
			n->passive = true;
		else if (strcmp(tok, "gr") == 0)
			n->graceful_restart = true;
		else if (strcmp(tok, "shutdown") == 0)
			n->shutdown = true;
		else if (strncmp(tok, "hold=", 5) == 0)
			n->hold_time = (uint32_t)atoi(tok + 5);
		else if (strncmp(tok, "retry=", 6) == 0)
			n->connect_retry = (uint32_t)atoi(tok + 6);
		else if (strncmp(tok, "ttl=", 4) == 0)
			n->multihop_ttl = (uint32_t)atoi(tok + 4);
		else if (strncmp(tok, "md5=", 4) == 0)
			n->md5_password = tok + 4;
		else if (strncmp(tok, "local=", 6) == 0)
			n->local_address = addr(tok + 6);
		else if (strncmp(tok, "import=", 7) == 0)
			n->import_policy = tok + 7;
		else if (strncmp(tok, "export=", 7) == 0)
			n->export_policy = tok + 7;
		else if (strcmp(tok, "nhself") == 0)
			n->next_hop_self = true;
		else if (strcmp(tok, "v6") == 0)
			n->families = 3;
		else if (strcmp(tok, "v6only") == 0)
			n->families = 2;
		else if (strncmp(tok, "nh6=", 4) == 0) {
			static uint8_t a6[BGP_NBR_MAX][16];
			static unsigned na6;

			if (na6 == BGP_NBR_MAX ||
			    inet_pton(AF_INET6, tok + 4, a6[na6]) != 1) {
				fprintf(stderr, "bgpctl: bad %s\n", tok);
				exit(2);
			}
			n->local_address6.data = a6[na6++];
			n->local_address6.len = 16;
		} else {
			fprintf(stderr, "bgpctl: unknown %s\n", tok);
			exit(2);
		}
	}
}

static const Bgp__NeighborState *
find(const Bgp__NeighborList *l, uint32_t a)
{
	for (size_t i = 0; i < l->n_neighbors; i++)
		if (l->neighbors[i]->address == a)
			return (l->neighbors[i]);
	return (NULL);
}

static void
print(const Bgp__NeighborState *s)
{
	char a[INET_ADDRSTRLEN], id[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &s->address, a, sizeof(a));
	inet_ntop(AF_INET, &s->remote_id, id, sizeof(id));
	printf("%s as %u %s %llu ms id %s hold %u keepalive %u msgs %llu/%llu "
	       "updates %llu/%llu flaps %u caps",
	    a, s->remote_as, (unsigned)s->state < 6 ? states[s->state] : "?",
	    (unsigned long long)s->state_ms, id, s->hold_time, s->keepalive,
	    (unsigned long long)s->msgs_in, (unsigned long long)s->msgs_out,
	    (unsigned long long)s->updates_in,
	    (unsigned long long)s->updates_out, s->flaps);
	for (size_t i = 0; i < s->n_capabilities; i++)
		printf("%s%s", i ? "," : " ", s->capabilities[i]);
	printf(" prefixes %llu/%llu ports %u/%u families %u/%u prefixes6 "
	       "%llu/%llu/%llu error \"%s\"\n",
	    (unsigned long long)s->prefixes_received,
	    (unsigned long long)s->prefixes_accepted, s->local_port,
	    s->remote_port, s->families, s->families_negotiated,
	    (unsigned long long)s->prefixes6_received,
	    (unsigned long long)s->prefixes6_accepted,
	    (unsigned long long)s->prefixes6_advertised,
	    s->last_error ? s->last_error : "");
}

/* routes6: PREFIX best|- from NEIGHBOR nh NH6[,LL] path "ASES" med M|-
 * lp L comm A:B,... why TEXT */
static void
print6(const Bgp__RouteList *l)
{
	char a[INET6_ADDRSTRLEN], nb[INET_ADDRSTRLEN];

	for (size_t i = 0; i < l->n_routes; i++) {
		const Bgp__Route *r = l->routes[i];

		if (r->prefix6.len != 16)
			continue;
		inet_ntop(AF_INET6, r->prefix6.data, a, sizeof(a));
		for (size_t k = 0; k < r->n_paths; k++) {
			const Bgp__Path *p = r->paths[k];
			const Bgp__PathAttrs *t = p->attrs;

			inet_ntop(AF_INET, &p->neighbor, nb, sizeof(nb));
			printf("%s/%u %s from %s nh ", a, r->len,
			    p->best ? "best" : "-", nb);
			if (t->next_hop6.len == 16) {
				char h[INET6_ADDRSTRLEN];

				inet_ntop(AF_INET6, t->next_hop6.data, h,
				    sizeof(h));
				printf("%s", h);
				if (t->next_hop6_ll.len == 16) {
					inet_ntop(AF_INET6,
					    t->next_hop6_ll.data, h, sizeof(h));
					printf(",%s", h);
				}
			} else {
				printf("none");
			}
			printf(" path \"%s\" med ", t->as_path);
			if (t->has_med)
				printf("%u", t->med);
			else
				printf("-");
			printf(" lp %u comm", t->local_pref);
			for (size_t c = 0; c < t->n_communities; c++)
				printf("%s%u:%u", c ? "," : " ",
				    t->communities[c] >> 16,
				    t->communities[c] & 0xffff);
			if (t->n_communities == 0)
				printf(" -");
			printf(" why \"%s\"\n", p->why_text);
		}
	}
}

int
main(int argc, char **argv)
{
	struct ipc_opts o = {0};
	struct ev_loop *loop = lc_loop_new();
	const char *cmd;

	if (argc < 3)
		return (2);
	o.rundir = argv[1];
	o.component = "bgpctl";
	ar = lc_arena_new(1 << 16);
	cl = ipc_client_new(loop, &ipc_svc_bgp, &o, false);
	cmd = argv[2];
	if (strcmp(cmd, "config") == 0 || strcmp(cmd, "off") == 0) {
		Bgp__BgpConfig c = BGP__BGP_CONFIG__INIT;
		Bgp__ConfigAck *a;
		int nn = strcmp(cmd, "config") == 0 ? argc - 5 : 0;
		Bgp__Neighbor *nv = calloc((size_t)(nn > 0 ? nn : 1),
		    sizeof(*nv));
		Bgp__Neighbor **np = calloc((size_t)(nn > 0 ? nn : 1),
		    sizeof(*np));

		if (nn < 0)
			return (2);
		c.enabled = strcmp(cmd, "config") == 0;
		if (c.enabled) {
			c.local_as = (uint32_t)strtoul(argv[3], NULL, 10);
			c.router_id = strcmp(argv[4], "0") ? addr(argv[4]) : 0;
		}
		for (int i = 0; i < nn; i++) {
			neighbor(argv[5 + i], &nv[i]);
			np[i] = &nv[i];
		}
		c.n_neighbors = (size_t)nn;
		c.neighbors = np;
		{
			static Bgp__PolicyOptions po =
			    BGP__POLICY_OPTIONS__INIT;
			static Bgp__PolicyStatement ps =
			    BGP__POLICY_STATEMENT__INIT;
			static Bgp__PolicyStatement *psv[1] = {&ps};

			ps.name = "ALL";
			ps.default_action = BGP__POLICY_ACTION__POLICY_ACCEPT;
			po.policies = psv;
			po.n_policies = 1;
			c.policy = &po;
		}
		a = (Bgp__ConfigAck *)call(BGP__METHOD__SET_CONFIG, &c.base,
		    true);
		if (!a->ok) {
			fprintf(stderr, "bgpctl: refused: %s\n", a->error);
			return (1);
		}
		return (0);
	}
	if (strcmp(cmd, "neighbors") == 0) {
		Bgp__NeighborQuery q = BGP__NEIGHBOR_QUERY__INIT;
		Bgp__NeighborList *l;

		if (argc > 3)
			q.address = addr(argv[3]);
		l = (Bgp__NeighborList *)call(BGP__METHOD__QUERY_NEIGHBORS,
		    &q.base, true);
		for (size_t i = 0; i < l->n_neighbors; i++)
			print(l->neighbors[i]);
		return (0);
	}
	if (strcmp(cmd, "routes6") == 0) {
		Bgp__RouteQuery q = BGP__ROUTE_QUERY__INIT;
		uint8_t a6[16];
		char pb[INET6_ADDRSTRLEN + 8], *sl;

		q.ipv6 = true;
		q.limit = 10000;
		if (argc > 3) {
			snprintf(pb, sizeof(pb), "%s", argv[3]);
			if ((sl = strchr(pb, '/')) != NULL)
				*sl++ = '\0';
			if (inet_pton(AF_INET6, pb, a6) != 1)
				return (2);
			q.prefix6.data = a6;
			q.prefix6.len = 16;
			q.len = sl != NULL ? (uint32_t)atoi(sl) : 128;
			q.match = sl != NULL ? BGP__ROUTE_MATCH__MATCH_EXACT :
					       BGP__ROUTE_MATCH__MATCH_LONGEST;
		}
		print6((Bgp__RouteList *)call(BGP__METHOD__QUERY_ROUTES,
		    &q.base, true));
		return (0);
	}
	if (strcmp(cmd, "clear") == 0 && argc == 4) {
		Bgp__ClearNeighbor c = BGP__CLEAR_NEIGHBOR__INIT;
		Bgp__ConfigAck *a;

		c.address = addr(argv[3]);
		a = (Bgp__ConfigAck *)call(BGP__METHOD__CLEAR_NEIGHBOR, &c.base,
		    true);
		if (!a->ok) {
			fprintf(stderr, "bgpctl: %s\n", a->error);
			return (1);
		}
		return (0);
	}
	if (strcmp(cmd, "wait") == 0 && argc == 6) {
		uint32_t a = addr(argv[3]);
		time_t end = time(NULL) + atoi(argv[5]);
		Bgp__NeighborQuery q = BGP__NEIGHBOR_QUERY__INIT;

		do {
			Bgp__NeighborList *l = (Bgp__NeighborList *)
			    call(BGP__METHOD__QUERY_NEIGHBORS, &q.base, false);
			const Bgp__NeighborState *s = l ? find(l, a) : NULL;

			if (s != NULL && (unsigned)s->state < 6 &&
			    strcmp(states[s->state], argv[4]) == 0)
				return (0);
			lc_arena_reset(ar);
			usleep(100000);
		} while (time(NULL) < end);
		fprintf(stderr, "bgpctl: %s not %s in %s s\n", argv[3], argv[4],
		    argv[5]);
		return (1);
	}
	return (2);
}
