/* tests/integration/bgpctl.c: tern-bgp's configuration and neighbours for
 * the integration tests, until mgmt pushes the protocols bgp block itself:
 *
 *   bgpctl RUNDIR config LOCAL_AS ROUTER_ID [NEIGHBOR...]
 *       NEIGHBOR = ADDR,AS[,passive][,hold=S][,retry=S][,ttl=N][,md5=KEY]
 *                  [,local=ADDR][,gr][,shutdown]
 *   bgpctl RUNDIR off                   the block deleted
 *   bgpctl RUNDIR neighbors [ADDR]      one line per neighbour
 *   bgpctl RUNDIR clear ADDR
 *   bgpctl RUNDIR wait ADDR STATE SECS  until the neighbour is in STATE
 * Exit 0 on success, 1 with the reason on stderr. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"

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
		else {
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
	printf(" prefixes %llu/%llu ports %u/%u error \"%s\"\n",
	    (unsigned long long)s->prefixes_received,
	    (unsigned long long)s->prefixes_accepted, s->local_port,
	    s->remote_port, s->last_error ? s->last_error : "");
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
