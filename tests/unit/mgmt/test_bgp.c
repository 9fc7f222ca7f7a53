/* tests/unit/mgmt/test_bgp.c: the protocols bgp block (issue 21): its
 * values and validation, its push to tern-bgp in the commit transaction
 * (a fake tern-bgp and a fake tern-rib over real IPC sockets), with
 * policy-options, the resync when tern-bgp connects, and show/clear bgp
 * (neighbours and routes) against the fake's answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_conf.h"
#include "mgmt/mgmt_int.h"

/* ---- values and validation -------------------------------------------------------- */

/* a good block: two interfaces, a connected and a multihop neighbour */
#define GOOD_IFS                                       \
	"interfaces { eth0 { address 198.18.1.1/24; }" \
	" lo0 { address 198.19.255.1/32; } }\n"

/* text parses, and validation refuses it with exactly msg */
static void
invalid(const char *text, const char *msg)
{
	struct mgmt_conf *c;
	struct lc_err err;

	if (mgmt_conf_parse(text, strlen(text), "b.conf", &c, &err) != 0)
		fail_msg("parse: %s: %s", text, err.msg);
	if (mgmt_conf_validate(c, &err) == 0)
		fail_msg("valid: %s", text);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
	mgmt_conf_free(c);
}

/* text does not parse: exactly msg */
static void
bad(const char *text, const char *msg)
{
	struct mgmt_conf *c = NULL;
	struct lc_err err;

	if (mgmt_conf_parse(text, strlen(text), "b.conf", &c, &err) == 0)
		fail_msg("parsed: %s", text);
	assert_null(c);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
}

static struct mgmt_conf *
good(const char *text)
{
	struct mgmt_conf *c;
	struct lc_err err;

	if (mgmt_conf_parse(text, strlen(text), "b.conf", &c, &err) != 0 ||
	    mgmt_conf_validate(c, &err) != 0)
		fail_msg("%s: %s", text, err.msg);
	return (c);
}

static void
test_values(void **st)
{
	struct mgmt_conf *c;
	struct mgmt_bgp_conf b;
	char canon[64];
	struct lc_err err;

	(void)st;
	bad("protocols bgp local-as 0;",
	    "b.conf:1:24: local-as 0 out of range, expected 1..4294967295");
	bad("protocols bgp local-as 4294967296;",
	    "b.conf:1:24: invalid local-as '4294967296': expected an AS "
	    "number in 1..4294967295 (or asdot 0.1..65535.65535)");
	bad("protocols bgp local-as 65536.1;",
	    "b.conf:1:24: invalid local-as '65536.1': expected an AS number "
	    "in 1..4294967295 (or asdot 0.1..65535.65535)");
	bad("protocols bgp local-as 0.0;",
	    "b.conf:1:24: local-as 0.0 out of range, expected 1..4294967295");
	bad("protocols bgp local-as -1;",
	    "b.conf:1:24: invalid local-as '-1': expected an AS number in "
	    "1..4294967295 (or asdot 0.1..65535.65535)");
	bad("protocols bgp neighbor 198.18.1.2 remote-as 1.2.3;",
	    "b.conf:1:45: invalid remote-as '1.2.3': expected an AS number in "
	    "1..4294967295 (or asdot 0.1..65535.65535)");
	bad("protocols bgp neighbor 198.18.1.2 hold-time 2;",
	    "b.conf:1:45: hold-time 2 out of range, expected 3..65535");
	bad("protocols bgp neighbor 198.18.1.2 hold-time 0;",
	    "b.conf:1:45: hold-time 0 out of range, expected 3..65535");
	bad("protocols bgp neighbor 198.18.1.2 multihop 1;",
	    "b.conf:1:44: multihop 1 out of range, expected 2..255");
	bad("protocols bgp neighbor 198.18.1.2 multihop 256;",
	    "b.conf:1:44: multihop 256 out of range, expected 2..255");
	bad("protocols bgp neighbor 198.18.1.256 remote-as 1;",
	    "b.conf:1:24: invalid neighbor '198.18.1.256': expected an IPv4 "
	    "address a.b.c.d");
	bad("protocols bgp neighbor 198.18.1.2 import \"a b\";",
	    "b.conf:1:42: invalid import 'a b': expected a name of 1..63 "
	    "letters, digits, '-', '_', '.' starting with a letter or digit");
	bad("protocols bgp neighbor 198.18.1.2 colour red;",
	    "b.conf:1:35: unknown word 'colour', expected remote-as, "
	    "description, passive, hold-time, connect-retry, multihop, "
	    "local-address, authentication-key, next-hop-self, "
	    "graceful-restart, import, export, shutdown, local-as, "
	    "local-address6, family");
	bad("protocols bgp neighbor 198.18.1.2 family inet6 multicast;",
	    "b.conf:1:48: unknown word 'multicast', expected unicast");
	bad("protocols bgp neighbor 198.18.1.2 family inet6;",
	    "b.conf:1:42: incomplete statement 'inet6': expected '{' or one "
	    "of unicast");
	/* asdot: H.L is H * 65536 + L, printed asplain */
	assert_int_equal(mgmt_schema_check_value(MGMT_S_BGP_LOCAL_AS, "1.10",
			     canon, &err),
	    0);
	assert_string_equal(canon, "65546");
	assert_int_equal(mgmt_schema_check_value(MGMT_S_BGP_LOCAL_AS,
			     "65535.65535", canon, &err),
	    0);
	assert_string_equal(canon, "4294967295");
	c = good("protocols bgp local-as 0.65001;");
	mgmt_conf_bgp_get(c, &b);
	assert_true(b.present);
	assert_int_equal(b.local_as, 65001);
	mgmt_conf_free(c);
	/* no block: not present */
	c = mgmt_conf_new();
	mgmt_conf_bgp_get(c, &b);
	assert_false(b.present);
	mgmt_conf_free(c);
}

static int
nbr_get(const struct mgmt_node *u, void *arg)
{
	return (mgmt_conf_bgp_nbr_get(u, arg));
}

static void
test_validation(void **st)
{
	struct mgmt_conf *c;

	(void)st;
	/* IPv6 unicast: local-address6 a global address, with family inet6 */
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { remote-as 65002; family inet6 "
			 "unicast; local-address6 2001:2::1::2; } }",
	    "b.conf:3:62: protocols bgp neighbor 198.18.1.2: local-address6 "
	    "'2001:2::1::2': more than one ::");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { remote-as 65002; family inet6 "
			 "unicast; local-address6 fe80::1; } }",
	    "b.conf:3:62: protocols bgp neighbor 198.18.1.2: local-address6 "
	    "fe80::1: expected a global unicast address");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { remote-as 65002; "
			 "local-address6 2001:2::1; } }",
	    "b.conf:3:40: protocols bgp neighbor 198.18.1.2: local-address6 "
	    "without family inet6 unicast");
	c = good(GOOD_IFS "protocols bgp { local-as 65001;\n"
			  "neighbor 198.18.1.2 { remote-as 65002; family { "
			  "inet unicast; inet6 unicast; } local-address6 "
			  "2001:2::1; } }");
	{
		struct mgmt_bgp_nbr_conf n;

		assert_int_equal(mgmt_conf_foreach(c, MGMT_S_BGP_NBR, nbr_get,
				     &n),
		    0);
		assert_int_equal(n.families, 3);
		assert_string_equal(n.local_address6, "2001:2::1");
	}
	mgmt_conf_free(c);
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { description x; } }",
	    "b.conf:3:1: protocols bgp neighbor 198.18.1.2: expected "
	    "remote-as");
	invalid(GOOD_IFS "protocols bgp neighbor 198.18.1.2 remote-as 65002;",
	    "b.conf:2:15: protocols bgp neighbor 198.18.1.2: no local-as (set "
	    "protocols bgp local-as, or the neighbor's own)");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.7.2 remote-as 65002; }",
	    "b.conf:3:1: protocols bgp neighbor 198.18.7.2: not on a "
	    "connected subnet (connected subnets: 198.18.1.0/24); set "
	    "multihop for a neighbor further away");
	invalid("protocols bgp { local-as 65001;\n"
		"neighbor 198.18.7.2 remote-as 65002; }",
	    "b.conf:2:1: protocols bgp neighbor 198.18.7.2: not on a "
	    "connected subnet (no interface has a subnet); set multihop for "
	    "a neighbor further away");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.1 remote-as 65002; }",
	    "b.conf:3:1: protocols bgp neighbor 198.18.1.1: the router's own "
	    "address (interface eth0)");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.19.255.1 { remote-as 65002; multihop "
			 "3; } }",
	    "b.conf:3:1: protocols bgp neighbor 198.19.255.1: the router's "
	    "own address (interface lo0)");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 224.0.0.5 { remote-as 65002; multihop "
			 "3; } }",
	    "b.conf:3:1: protocols bgp neighbor 224.0.0.5: not a unicast "
	    "address");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { remote-as 65002;\n"
			 "  import IN; } }",
	    "b.conf:4:3: protocols bgp neighbor 198.18.1.2: import IN: no "
	    "policy-options policy-statement IN");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.18.1.2 { remote-as 65002;\n"
			 "  export OUT; } }",
	    "b.conf:4:3: protocols bgp neighbor 198.18.1.2: export OUT: no "
	    "policy-options policy-statement OUT");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "neighbor 198.20.0.1 { remote-as 65002; multihop 2;\n"
			 "  local-address 198.18.1.9; } }",
	    "b.conf:4:3: protocols bgp neighbor 198.20.0.1: local-address "
	    "198.18.1.9 is none of the router's addresses");
	invalid(GOOD_IFS "protocols bgp { local-as 65001;\n"
			 "router-id 0.0.0.0; }",
	    "b.conf:3:1: protocols bgp: router-id 0.0.0.0 is not a BGP "
	    "identifier");
	/* what is fine: a neighbour's own local-as instead of the block's, a
	 * multihop neighbour anywhere, a block without neighbours */
	c = good(GOOD_IFS "protocols bgp neighbor 198.18.1.2 { remote-as "
			  "65002; local-as 65001; }\n"
			  "protocols bgp neighbor 203.0.113.9 { remote-as "
			  "65003; local-as 65001; multihop 5; local-address "
			  "198.19.255.1; }\n");
	assert_int_equal(mgmt_conf_count(c, MGMT_S_BGP_NBR), 2);
	mgmt_conf_free(c);
	c = good("protocols bgp router-id 198.18.0.1;");
	mgmt_conf_free(c);
}

static int
run_cmd(struct mgmt_conf *c, const char *line, struct lc_err *err)
{
	char buf[512];
	const char *w[32];
	int n = mgmt_conf_split(line, buf, sizeof(buf), w, 32);

	assert_true(n >= 2);
	if (strcmp(w[0], "set") == 0)
		return (mgmt_conf_set(c, w + 1, (unsigned)n - 1, err));
	return (mgmt_conf_delete(c, w + 1, (unsigned)n - 1, err));
}

/*
 * The commit path validates only what changed: a change of the interfaces
 * alone still checks the neighbours against the new addresses; set's
 * nodes have no file position, the message names the path.
 */
static void
test_validate_changes(void **st)
{
	struct mgmt_conf *run = good(GOOD_IFS "protocols bgp { local-as 65001; "
					      "neighbor 198.18.1.2 remote-as "
					      "65002; }\n");
	struct mgmt_conf *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct lc_err err;

	(void)st;
	assert_int_equal(run_cmd(cand,
			     "delete interfaces eth0 address 198.18.1.1/24",
			     &err),
	    0);
	assert_int_equal(run_cmd(cand,
			     "set interfaces eth0 address 198.18.2.1/24", &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	assert_int_equal(chg.v[0].unit, MGMT_S_IFACE);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -EINVAL);
	assert_string_equal(err.msg,
	    "b.conf:2:33: protocols bgp neighbor 198.18.1.2: not on a "
	    "connected subnet (connected subnets: 198.18.2.0/24); set "
	    "multihop for a neighbor further away");
	mgmt_changes_fini(&chg);
	/* the neighbour made by set: the message names the path only */
	assert_int_equal(run_cmd(cand,
			     "set protocols bgp neighbor 198.18.2.2 import X",
			     &err),
	    0);
	assert_int_equal(run_cmd(cand,
			     "set protocols bgp neighbor 198.18.2.2 remote-as "
			     "1.1",
			     &err),
	    0);
	assert_int_equal(run_cmd(cand,
			     "delete protocols bgp neighbor 198.18.1.2", &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 2); /* the interface and the bgp block */
	assert_int_equal(chg.v[1].unit, MGMT_S_BGP);
	assert_int_equal(chg.v[1].comp, MGMT_COMP_BGP);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -EINVAL);
	assert_string_equal(err.msg,
	    "protocols bgp neighbor 198.18.2.2: import X: no policy-options "
	    "policy-statement X");
	{
		char path[64];

		assert_string_equal(mgmt_change_path(&chg.v[1], path,
					sizeof(path)),
		    "protocols bgp");
	}
	mgmt_changes_fini(&chg);
	assert_int_equal(run_cmd(cand,
			     "delete protocols bgp neighbor 198.18.2.2 import",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), 0);
	mgmt_changes_fini(&chg);
	mgmt_conf_free(cand);
	mgmt_conf_free(run);
}

static int
first_cb(const struct mgmt_node *n, void *arg)
{
	*(const struct mgmt_node **)arg = n;
	return (1);
}

/* Every leaf of a neighbour through the typed view. */
static void
test_typed(void **st)
{
	struct mgmt_conf *c = good(
	    GOOD_IFS "protocols bgp { local-as 4200000000; router-id "
		     "198.18.1.1; graceful-restart-time 200;\n"
		     "neighbor 198.20.0.1 { remote-as 65002; description "
		     "\"peer one\"; passive; hold-time 9; connect-retry 5; "
		     "multihop 4; local-address 198.19.255.1; "
		     "authentication-key k3y; next-hop-self; "
		     "graceful-restart; shutdown; local-as 65009; } }\n");
	struct mgmt_bgp_nbr_conf n;
	struct mgmt_bgp_conf b;
	const struct mgmt_node *node = NULL;

	(void)st;
	mgmt_conf_bgp_get(c, &b);
	assert_int_equal(b.local_as, 4200000000u);
	assert_string_equal(lc_ip4_ntoa(b.router_id), "198.18.1.1");
	assert_int_equal(b.gr_time, 200);
	assert_int_equal(mgmt_conf_count(c, MGMT_S_BGP_NBR), 1);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_BGP_NBR, first_cb, &node),
	    1);
	assert_int_equal(mgmt_conf_bgp_nbr_get(node, &n), 0);
	assert_string_equal(lc_ip4_ntoa(n.addr), "198.20.0.1");
	assert_int_equal(n.remote_as, 65002);
	assert_int_equal(n.local_as, 65009);
	assert_string_equal(n.description, "peer one");
	assert_true(
	    n.passive && n.next_hop_self && n.graceful_restart && n.shutdown);
	assert_int_equal(n.hold_time, 9);
	assert_int_equal(n.connect_retry, 5);
	assert_int_equal(n.multihop, 4);
	assert_string_equal(lc_ip4_ntoa(n.local_address), "198.19.255.1");
	assert_string_equal(n.auth_key, "k3y");
	assert_string_equal(n.import, "");
	/* not a neighbour */
	assert_int_equal(mgmt_conf_bgp_nbr_get(NULL, &n), -EINVAL);
	mgmt_conf_free(c);
}

/* ---- the push, against a fake tern-bgp -------------------------------------------- */

/* What the fake tern-bgp saw, and how it answers. */
static struct {
	struct ipc_server *srv;
	unsigned calls, dry;
	Bgp__BgpConfig *last; /* the last SET_CONFIG that was not a dry run */
	bool reject;	      /* refuse the next SET_CONFIG */
	uint32_t asked;	      /* QUERY_NEIGHBORS' address */
	unsigned clears;
	bool clear_soft, clear_reject;
	unsigned route_calls;
	Bgp__RouteQuery rq; /* the last QUERY_ROUTES */
	/* a config in parts (BgpConfig.part, more): what came */
	unsigned parts, last_part, refuse_part; /* refuse_part: that + 1 */
	unsigned aborts;
	uint64_t parts_txn;
	size_t part_entries[16], entries;	  /* per part, in all */
	char first_list[16][8], last_list[16][8]; /* of each part */
	size_t neighbors;			  /* of the last part */
} fbgp;

/* and tern-rib, to see the other part rolled back */
static struct {
	struct ipc_server *srv;
	unsigned batches, add, del, resyncs;
	bool reject;
} frib;

static struct ev_loop *loop;
static char tmpdir[64], rundir[128], store[128];

static void
h_bgp_set_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Bgp__BgpConfig *c = (const Bgp__BgpConfig *)msg;
	Bgp__ConfigAck a = BGP__CONFIG_ACK__INIT;
	uint8_t buf[8192];
	size_t len;

	(void)arg;
	fbgp.calls++;
	fbgp.dry += c->dry_run;
	if (c->abort) {
		fbgp.aborts++;
		a.ok = true;
		ipc_reply(req, IPC_OK, &a.base);
		return;
	}
	if (c->part != 0 || c->more) {
		/* a part (too big to copy): its lists counted */
		const Bgp__PolicyOptions *po = c->policy;
		size_t n = 0;

		assert_true(c->part < 16);
		assert_true(c->part == 0 || c->txn == fbgp.parts_txn);
		fbgp.parts_txn = c->txn;
		fbgp.parts++;
		fbgp.last_part = c->part;
		for (size_t i = 0; po != NULL && i < po->n_prefix_lists; i++)
			n += po->prefix_lists[i]->n_entries;
		fbgp.part_entries[c->part] = n;
		fbgp.entries += n;
		if (po != NULL && po->n_prefix_lists > 0) {
			snprintf(fbgp.first_list[c->part], 8, "%s",
			    po->prefix_lists[0]->name);
			snprintf(fbgp.last_list[c->part], 8, "%s",
			    po->prefix_lists[po->n_prefix_lists - 1]->name);
		}
		fbgp.neighbors = c->n_neighbors;
		a.ok = fbgp.refuse_part != c->part + 1;
		a.error = (char *)(a.ok ? "" : "out of memory");
		if (!a.ok)
			fbgp.refuse_part = 0;
		ipc_reply(req, IPC_OK, &a.base);
		return;
	}
	if (!c->dry_run) {
		/* a copy through a real pack and unpack */
		assert_true(
		    protobuf_c_message_get_packed_size(msg) <= sizeof(buf));
		len = protobuf_c_message_pack(msg, buf);
		if (fbgp.last != NULL)
			bgp__bgp_config__free_unpacked(fbgp.last, NULL);
		fbgp.last = bgp__bgp_config__unpack(NULL, len, buf);
		assert_non_null(fbgp.last);
	}
	a.ok = !fbgp.reject;
	a.error = (char *)(fbgp.reject ? "neighbor 198.18.1.2: hold time "
					 "refused" :
					 "");
	fbgp.reject = false;
	ipc_reply(req, IPC_OK, &a.base);
}

/* two neighbours, or the one asked for */
static void
h_bgp_query(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Bgp__NeighborQuery *q = (const Bgp__NeighborQuery *)msg;
	Bgp__NeighborList l = BGP__NEIGHBOR_LIST__INIT;
	Bgp__NeighborState n[2] = {BGP__NEIGHBOR_STATE__INIT,
	    BGP__NEIGHBOR_STATE__INIT};
	Bgp__NeighborState *v[2];
	static char *caps[] = {"as4", "mp-ipv4-unicast", "route-refresh"};

	(void)arg;
	fbgp.asked = q->address;
	l.local_as = 65001;
	l.router_id = htonl(0xc6120101); /* 198.18.1.1 */
	l.paths = 12;
	l.best = 10;
	n[0].address = htonl(0xc6120102); /* 198.18.1.2 */
	n[0].remote_as = 65002;
	n[0].state = BGP__STATE__ESTABLISHED;
	n[0].state_ms = 3723000; /* 01:02:03 */
	n[0].description = "upstream A";
	n[0].remote_id = htonl(0xc6120102);
	n[0].hold_time = 90;
	n[0].keepalive = 30;
	n[0].capabilities = caps;
	n[0].n_capabilities = 3;
	n[0].msgs_in = 120;
	n[0].msgs_out = 110;
	n[0].updates_in = 7;
	n[0].updates_out = 0;
	n[0].prefixes_received = 5;
	n[0].prefixes_accepted = 0;
	n[0].local_address = htonl(0xc6120101);
	n[0].local_port = 179;
	n[0].remote_port = 40001;
	n[0].policy_note = "no import policy: nothing imported (RFC 8212)";
	n[1].address = htonl(0xc613000a); /* 198.19.0.10 */
	n[1].remote_as = 4200000000u;
	n[1].state = BGP__STATE__ACTIVE;
	n[1].state_ms = 2 * 86400000ull + 3 * 3600000 + 4 * 60000;
	n[1].last_error = "hold timer expired (NOTIFICATION 4/0 sent)";
	n[1].flaps = 1;
	n[1].passive = true;
	for (unsigned i = 0; i < 2; i++)
		if (q->address == 0 || q->address == n[i].address)
			v[l.n_neighbors++] = &n[i];
	l.neighbors = v;
	ipc_reply(req, IPC_OK, &l.base);
}

static void
h_bgp_clear(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Bgp__ClearNeighbor *q = (const Bgp__ClearNeighbor *)msg;
	Bgp__ConfigAck a = BGP__CONFIG_ACK__INIT;

	(void)arg;
	fbgp.clears++;
	fbgp.clear_soft = q->soft;
	a.ok = !fbgp.clear_reject;
	a.error = (char *)(a.ok ? "" : "no such neighbor 198.18.1.9");
	ipc_reply(req, IPC_OK, &a.base);
}

#define A4(a, b, c, d) htonl((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/*
 * QUERY_ROUTES: 198.18.50.0/24 with the best path (iBGP 198.18.2.2, with
 * communities) and a longer one (eBGP 198.18.1.2, stale, MED); 198.18.60.0/24
 * refused by 198.18.1.2's import policy; 1002 prefixes in all, so a whole
 * walk has more. Received from 198.18.1.2: its two; advertised to it:
 * 198.18.50.0/24 with our AS in front. 198.18.1.9 is no neighbour.
 */
static void
h_bgp_routes(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Bgp__RouteQuery *q = (const Bgp__RouteQuery *)msg;
	static uint32_t comm[] = {(65000u << 16) | 100, 0xffffff01u};
	static uint64_t ext[] = {0x0002fde800000064ull};
	Bgp__LargeCommunity lc = BGP__LARGE_COMMUNITY__INIT;
	Bgp__LargeCommunity *lcp[] = {&lc};
	Bgp__PathAttrs at[4] = {BGP__PATH_ATTRS__INIT, BGP__PATH_ATTRS__INIT,
	    BGP__PATH_ATTRS__INIT, BGP__PATH_ATTRS__INIT};
	Bgp__Path p[4] = {BGP__PATH__INIT, BGP__PATH__INIT, BGP__PATH__INIT,
	    BGP__PATH__INIT};
	Bgp__Path *p50[] = {&p[0], &p[1]}, *p60[] = {&p[2]}, *rcv50[] = {&p[1]},
		  *adv50[] = {&p[3]};
	Bgp__Route r[2] = {BGP__ROUTE__INIT, BGP__ROUTE__INIT};
	Bgp__Route *rv[2];
	Bgp__RouteList l = BGP__ROUTE_LIST__INIT;
	bool loc = q->view == BGP__ROUTE_VIEW__VIEW_LOC_RIB,
	     adv = q->view == BGP__ROUTE_VIEW__VIEW_ADVERTISED;

	(void)arg;
	fbgp.route_calls++;
	fbgp.rq = *q;
	if (!loc && q->neighbor == A4(198, 18, 1, 9)) {
		ipc_reply_error(req, IPC_ERROR, "no neighbor 198.18.1.9");
		return;
	}
	lc.global = 65000;
	lc.local1 = 1;
	lc.local2 = 2;
	at[0].as_path = "65100";
	at[0].as_path_len = 1;
	at[0].next_hop = A4(198, 18, 2, 2);
	at[0].has_local_pref = true;
	at[0].local_pref = 100;
	at[0].communities = comm;
	at[0].n_communities = 2;
	at[0].large_communities = lcp;
	at[0].n_large_communities = 1;
	at[0].ext_communities = ext;
	at[0].n_ext_communities = 1;
	p[0].neighbor = p[0].router_id = A4(198, 18, 2, 2);
	p[0].neighbor_as = 65001;
	p[0].best = p[0].imported = true;
	p[0].why_text = "";
	p[0].attrs = &at[0];
	at[1].as_path = "65002 65100 65100 65100";
	at[1].as_path_len = 4;
	at[1].next_hop = A4(198, 18, 1, 2);
	at[1].has_med = true;
	at[1].med = 5;
	at[1].local_pref = 100;
	p[1].neighbor = p[1].router_id = A4(198, 18, 1, 2);
	p[1].neighbor_as = 65002;
	p[1].ebgp = p[1].imported = p[1].stale = true;
	p[1].why = BGP__PATH_WHY__WHY_AS_PATH;
	p[1].why_text = "longer AS path";
	p[1].attrs = &at[1];
	at[2] = at[1];
	at[2].as_path = "65002";
	at[2].as_path_len = 1;
	at[2].origin = 2;
	at[2].has_med = false;
	p[2] = p[1];
	p[2].imported = p[2].stale = false;
	p[2].why = BGP__PATH_WHY__WHY_POLICY;
	p[2].why_text = "refused by import policy";
	p[2].attrs = &at[2];
	at[3].as_path = "65001 65100";
	at[3].as_path_len = 2;
	at[3].next_hop = A4(198, 18, 1, 1);
	at[3].local_pref = 100;
	p[3].neighbor = p[3].router_id = A4(198, 18, 1, 2);
	p[3].neighbor_as = 65002;
	p[3].ebgp = true;
	p[3].why_text = "";
	p[3].attrs = &at[3];
	r[0].prefix = A4(198, 18, 50, 0);
	r[0].len = 24;
	r[0].paths = loc ? p50 : adv ? adv50 : rcv50;
	r[0].n_paths = loc ? 2 : 1;
	r[1].prefix = A4(198, 18, 60, 0);
	r[1].len = 24;
	r[1].paths = p60;
	r[1].n_paths = 1;
	rv[0] = &r[0];
	rv[1] = &r[1];
	l.view = q->view;
	l.neighbor = q->neighbor;
	l.neighbor_state = BGP__STATE__ESTABLISHED;
	l.local_as = 65001;
	l.router_id = A4(198, 18, 1, 1);
	l.match = q->match;
	l.prefix = q->prefix;
	l.len = q->len;
	l.routes = rv;
	if (q->match == BGP__ROUTE_MATCH__MATCH_ALL) {
		l.n_routes = adv ? 1 : 2;
		l.total = loc ? 1002 : l.n_routes;
		l.total_paths = loc ? 1003 : l.n_routes;
		l.more = loc;
	} else if ((q->match == BGP__ROUTE_MATCH__MATCH_LONGEST &&
		       (q->prefix & A4(255, 255, 255, 0)) == r[0].prefix) ||
	    (q->match != BGP__ROUTE_MATCH__MATCH_LONGEST &&
		q->prefix == r[0].prefix && q->len == 24)) {
		l.n_routes = l.total = 1;
		l.total_paths = r[0].n_paths;
	}
	ipc_reply(req, IPC_OK, &l.base);
}

static void
start_fake_bgp(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "fake"};

	fbgp.srv = ipc_server_new(loop, &ipc_svc_bgp, &o);
	assert_non_null(fbgp.srv);
	ipc_server_handle(fbgp.srv, BGP__METHOD__SET_CONFIG, h_bgp_set_config,
	    NULL);
	ipc_server_handle(fbgp.srv, BGP__METHOD__QUERY_NEIGHBORS, h_bgp_query,
	    NULL);
	ipc_server_handle(fbgp.srv, BGP__METHOD__CLEAR_NEIGHBOR, h_bgp_clear,
	    NULL);
	ipc_server_handle(fbgp.srv, BGP__METHOD__QUERY_ROUTES, h_bgp_routes,
	    NULL);
}

/* every method of the fake rib answers a RouteBatchAck; batches count */
static void
h_rib(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	Rib__RouteBatchAck a = RIB__ROUTE_BATCH_ACK__INIT;

	if (arg == (void *)1) {
		const Rib__RouteBatch *b = (const Rib__RouteBatch *)msg;

		/* mgmt sends routes with an address alone packed */
		unsigned add = (unsigned)(b->n_add +
			     b->packed_add.len / IPC_ROUTE_PACKED4),
			 del = (unsigned)(b->n_del +
			     b->packed_del.len / IPC_ROUTE_PACKED4);

		frib.batches++;
		frib.add += add;
		frib.del += del;
		a.seq = b->seq;
		if (frib.reject)
			a.rejected = add + del;
		else
			a.accepted = add + del;
		frib.reject = false;
	} else if (arg == (void *)2) {
		frib.resyncs++;
	}
	ipc_reply(req, IPC_OK, &a.base);
}

static void
start_fake_rib(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "fake"};

	frib.srv = ipc_server_new(loop, &ipc_svc_rib, &o);
	assert_non_null(frib.srv);
	ipc_server_handle(frib.srv, RIB__METHOD__ROUTE_BATCH, h_rib, (void *)1);
	ipc_server_handle(frib.srv, RIB__METHOD__RESYNC_BEGIN, h_rib, NULL);
	ipc_server_handle(frib.srv, RIB__METHOD__RESYNC_END, h_rib, (void *)2);
	ipc_server_handle(frib.srv, RIB__METHOD__SET_CONFIG, h_rib, NULL);
}

/* Runs the loop until *counter >= want (5 s at most). */
static bool
run_until(const unsigned *counter, unsigned want)
{
	uint64_t end = lc_time_mono_ns() + 5ull * 1000000000ull;

	while (lc_time_mono_ns() < end) {
		if (*counter >= want)
			return (true);
		ev_run(loop, EVRUN_NOWAIT);
		usleep(200);
	}
	return (false);
}

struct answer {
	unsigned done;
	int code;
	char text[4096], err[512];
};

static void
later(void *arg, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const struct lc_err *err)
{
	struct answer *a = arg;

	(void)m;
	(void)s;
	a->done = 1;
	a->code = code;
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(a->err, sizeof(a->err), "%s", err->msg);
}

/* One command line; its code, text and error in *a. */
static int
exec(struct mgmt *m, struct mgmt_session *s, const char *line, bool json,
    struct answer *a)
{
	struct lc_buf out;
	struct lc_err err;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec(m, s, line, json, &out, &err, later, a);
	if (code == MGMT_PENDING) {
		assert_true(run_until(&a->done, 1));
		code = a->code;
	} else {
		snprintf(a->err, sizeof(a->err), "%s", err.msg);
		snprintf(a->text, sizeof(a->text), "%s",
		    out.len ? (char *)lc_buf_head(&out) : "");
	}
	lc_buf_fini(&out);
	return (code);
}

static int
setup(void **st)
{
	(void)st;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tern-bgp.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(rundir, sizeof(rundir), "%s/run", tmpdir);
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	memset(&fbgp, 0, sizeof(fbgp));
	memset(&frib, 0, sizeof(frib));
	loop = lc_loop_new();
	assert_non_null(loop);
	lc_log_init("test_bgp", LC_LOG_WARNING, LC_LOG_STDERR);
	return (0);
}

static int
teardown(void **st)
{
	char cmd[256];

	(void)st;
	ipc_server_free(fbgp.srv);
	ipc_server_free(frib.srv);
	if (fbgp.last != NULL)
		bgp__bgp_config__free_unpacked(fbgp.last, NULL);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
	return (0);
}

/* tern-mgmt started with text as its boot config */
static struct mgmt *
mgmt_boot(const char *text)
{
	static char boot[256];
	struct mgmt_opts o = {.rundir = rundir,
	    .store_dir = store,
	    .boot_config = boot};
	struct mgmt *m;
	FILE *f;

	snprintf(boot, sizeof(boot), "%s/boot.conf", tmpdir);
	assert_non_null(f = fopen(boot, "w"));
	fputs(text, f);
	fclose(f);
	m = mgmt_new(loop, &o);
	assert_non_null(m);
	return (m);
}

#define OK(line) assert_int_equal(exec(m, s, line, false, &a), MGMT_OK)

static void
test_push(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	const Bgp__Neighbor *n;
	unsigned calls;

	(void)st;
	start_fake_rib();
	start_fake_bgp();
	m = mgmt_boot(GOOD_IFS);

	/* 1. on connect: the running config's block, here none */
	assert_true(run_until(&fbgp.calls, 1));
	assert_true(run_until(&frib.resyncs, 1));
	assert_non_null(fbgp.last);
	assert_false(fbgp.last->enabled);
	assert_int_equal(fbgp.last->n_neighbors, 0);

	/* 2. a commit of the block sends it whole, every leaf in its field */
	s = mgmt_session_open(m, "tester", false);
	OK("configure");
	OK("set protocols bgp local-as 65001");
	OK("set protocols bgp router-id 198.18.1.1");
	OK("set protocols bgp graceful-restart-time 300");
	OK("set protocols bgp neighbor 198.18.1.2 remote-as 1.2");
	OK("set protocols bgp neighbor 198.18.1.2 description \"upstream A\"");
	OK("set protocols bgp neighbor 198.18.1.2 hold-time 30");
	OK("set protocols bgp neighbor 198.18.1.2 graceful-restart");
	OK("set protocols bgp neighbor 198.18.1.2 family inet6 unicast");
	OK("set protocols bgp neighbor 198.18.1.2 local-address6 "
	   "2001:2:0:400::1");
	OK("set protocols bgp neighbor 198.20.0.9 remote-as 4200000000");
	OK("set protocols bgp neighbor 198.20.0.9 multihop 3");
	OK("set protocols bgp neighbor 198.20.0.9 local-address 198.19.255.1");
	OK("set protocols bgp neighbor 198.20.0.9 authentication-key s3cret");
	OK("set protocols bgp neighbor 198.20.0.9 passive");
	OK("set protocols bgp neighbor 198.20.0.9 next-hop-self");
	OK("set protocols bgp neighbor 198.20.0.9 shutdown");
	OK("set protocols bgp neighbor 198.20.0.9 local-as 65009");
	OK("set protocols bgp neighbor 198.20.0.9 connect-retry 7");
	OK("commit");
	assert_string_equal(a.text, "commit complete\n");
	assert_int_equal(fbgp.calls, 2);
	assert_int_equal(mgmt_commit_count(m), 2);
	assert_true(fbgp.last->enabled);
	assert_false(fbgp.last->dry_run);
	assert_int_equal(fbgp.last->local_as, 65001);
	assert_int_equal(fbgp.last->router_id, htonl(0xc6120101));
	assert_int_equal(fbgp.last->graceful_restart_time, 300);
	assert_int_equal(fbgp.last->n_neighbors, 2);
	n = fbgp.last->neighbors[0];
	assert_int_equal(n->address, htonl(0xc6120102));
	assert_int_equal(n->remote_as, 65538);
	assert_string_equal(n->description, "upstream A");
	assert_int_equal(n->hold_time, 30);
	assert_true(n->graceful_restart);
	assert_false(n->passive);
	assert_int_equal(n->multihop_ttl, 0);
	assert_int_equal(n->local_as, 0); /* the block's */
	assert_int_equal(n->connect_retry, 0);
	assert_string_equal(n->md5_password, "");
	assert_string_equal(n->import_policy, "");
	/* IPv6 unicast alone (Junos: a family block lists them all) */
	assert_int_equal(n->families, 2);
	assert_int_equal(n->local_address6.len, 16);
	assert_memory_equal(n->local_address6.data,
	    ((uint8_t[16]){0x20, 0x01, 0, 2, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0,
		1}),
	    16);
	n = fbgp.last->neighbors[1];
	assert_int_equal(n->families, 0); /* IPv4 unicast, as before */
	assert_int_equal(n->local_address6.len, 0);
	assert_int_equal(n->address, htonl(0xc6140009));
	assert_int_equal(n->remote_as, 4200000000u);
	assert_int_equal(n->multihop_ttl, 3);
	assert_int_equal(n->local_address, htonl(0xc613ff01));
	assert_string_equal(n->md5_password, "s3cret");
	assert_true(n->passive && n->next_hop_self && n->shutdown);
	assert_int_equal(n->local_as, 65009);
	assert_int_equal(n->connect_retry, 7);
	assert_int_equal(n->hold_time, 0); /* tern-bgp's default */

	/* 3. a commit that does not touch the block does not call tern-bgp */
	OK("set protocols static route 198.21.0.0/16 next-hop 198.18.1.2");
	OK("commit");
	assert_int_equal(fbgp.calls, 2);
	assert_int_equal(frib.add, 1);

	/* 4. commit check: tern-bgp's dry run, nothing stored or applied */
	OK("set protocols bgp neighbor 198.18.1.3 remote-as 65003");
	OK("commit check");
	assert_string_equal(a.text, "configuration check succeeds\n");
	assert_int_equal(fbgp.calls, 3);
	assert_int_equal(fbgp.dry, 1);
	assert_int_equal(fbgp.last->n_neighbors, 2);
	assert_int_equal(mgmt_commit_count(m), 3);

	/* 5. tern-bgp refuses: the commit fails, rib's part is undone */
	OK("set protocols static route 198.22.0.0/16 next-hop 198.18.1.2");
	fbgp.reject = true;
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_string_equal(a.err,
	    "commit failed: tern-bgp refused its part: neighbor 198.18.1.2: "
	    "hold time refused");
	assert_true(run_until(&frib.del, 1));
	assert_int_equal(frib.add, 2); /* the route, then its removal */
	assert_int_equal(mgmt_commit_count(m), 3);
	assert_int_equal(exec(m, s, "run show bgp summary", false, &a),
	    MGMT_OK); /* still up */

	/* 6. rib refuses after tern-bgp accepted: it gets running's block */
	calls = fbgp.calls;
	frib.reject = true;
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_non_null(strstr(a.err, "tern-rib refused its part"));
	assert_true(run_until(&fbgp.calls, calls + 2));
	assert_int_equal(fbgp.last->n_neighbors, 2); /* not 3 */
	assert_int_equal(mgmt_commit_count(m), 3);

	/* 7. an undefined policy is refused before anything is sent */
	OK("discard");
	calls = fbgp.calls;
	OK("set protocols bgp neighbor 198.18.1.2 import ALL");
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_string_equal(a.err,
	    "commit failed: protocols bgp neighbor 198.18.1.2: import ALL: no "
	    "policy-options policy-statement ALL");
	assert_int_equal(fbgp.calls, calls);

	/* 8. the block deleted: enabled false, no neighbours */
	OK("discard");
	OK("delete protocols bgp");
	OK("commit");
	assert_int_equal(fbgp.calls, calls + 1);
	assert_false(fbgp.last->enabled);
	assert_int_equal(fbgp.last->n_neighbors, 0);
	OK("exit");
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/*
 * policy-options travel in BgpConfig.policy: with the block, and alone
 * when only they changed; deleting a policy a neighbour names is refused;
 * tern-bgp's refusal (a policy it cannot compile) fails the commit.
 */
static void
test_policy_push(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	const Bgp__PolicyOptions *po;
	const Bgp__PolicyTerm *t;
	unsigned calls;

	(void)st;
	start_fake_rib();
	start_fake_bgp();
	m = mgmt_boot(GOOD_IFS "protocols bgp { local-as 65001; neighbor "
			       "198.18.1.2 remote-as 65002; }\n");
	assert_true(run_until(&fbgp.calls, 1));
	assert_null(fbgp.last->policy); /* none configured */
	s = mgmt_session_open(m, "tester", false);
	OK("configure");
	OK("set policy-options prefix-list CUST 198.18.0.0/15 le 24");
	OK("set policy-options as-path PATHS \"^65002( 65003)*$\"");
	OK("set policy-options community TAGS members 65000:100");
	OK("set policy-options community TAGS members 65000:1:2");
	OK("set policy-options policy-statement IN term t1 from prefix-list "
	   "CUST");
	OK("set policy-options policy-statement IN term t1 then "
	   "local-preference 200");
	OK("set policy-options policy-statement IN term t1 then accept");
	OK("set policy-options policy-statement IN then reject");
	OK("set protocols bgp neighbor 198.18.1.2 import IN");
	OK("commit");
	assert_int_equal(fbgp.calls, 2);
	assert_string_equal(fbgp.last->neighbors[0]->import_policy, "IN");
	assert_non_null(po = fbgp.last->policy);
	assert_int_equal(po->n_prefix_lists, 1);
	assert_int_equal(po->prefix_lists[0]->n_entries, 1);
	assert_int_equal(po->prefix_lists[0]->entries[0]->prefix,
	    htonl(0xc6120000));
	assert_int_equal(po->prefix_lists[0]->entries[0]->len, 15);
	assert_int_equal(po->prefix_lists[0]->entries[0]->le, 24);
	assert_int_equal(po->prefix_lists[0]->entries[0]->ge, 0);
	assert_int_equal(po->n_as_paths, 1);
	assert_string_equal(po->as_paths[0]->regex, "^65002( 65003)*$");
	assert_int_equal(po->n_communities, 1);
	assert_int_equal(po->communities[0]->n_members, 2);
	assert_int_equal(po->n_policies, 1);
	assert_int_equal(po->policies[0]->default_action,
	    BGP__POLICY_ACTION__POLICY_REJECT);
	t = po->policies[0]->terms[0];
	assert_string_equal(t->prefix_lists[0], "CUST");
	assert_true(t->set_local_pref);
	assert_int_equal(t->local_pref, 200);
	assert_int_equal(t->action, BGP__POLICY_ACTION__POLICY_ACCEPT);

	/* a change of policy-options alone: BgpConfig again, whole */
	OK("set policy-options prefix-list CUST 198.19.0.0/16 ge 20");
	OK("commit");
	assert_int_equal(fbgp.calls, 3);
	assert_true(fbgp.last->enabled);
	assert_int_equal(fbgp.last->n_neighbors, 1);
	assert_int_equal(fbgp.last->policy->prefix_lists[0]->n_entries, 2);
	/* commit check: tern-bgp's dry run of it */
	OK("set policy-options policy-statement IN term t1 then metric 5");
	OK("commit check");
	assert_int_equal(fbgp.calls, 4);
	assert_int_equal(fbgp.dry, 1);
	OK("discard");

	/* a policy a neighbour names cannot go; nothing is sent */
	calls = fbgp.calls;
	OK("delete policy-options policy-statement IN");
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_string_equal(a.err,
	    "commit failed: protocols bgp neighbor 198.18.1.2: import IN: no "
	    "policy-options policy-statement IN");
	assert_int_equal(fbgp.calls, calls);
	OK("discard");

	/* tern-bgp refuses: the commit fails, running keeps the old policy */
	OK("set policy-options as-path PATHS \"^65003\"");
	fbgp.reject = true;
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_non_null(strstr(a.err, "tern-bgp refused its part"));
	OK("discard");
	OK("show policy-options as-path");
	assert_string_equal(a.text, "as-path PATHS \"^65002( 65003)*$\";\n");

	/* the block deleted with its neighbour: policy-options go alone */
	OK("delete protocols bgp");
	OK("delete policy-options");
	OK("commit");
	assert_false(fbgp.last->enabled);
	assert_null(fbgp.last->policy);
	OK("exit");
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/*
 * tern-bgp not running: commits go through; show says so in one line;
 * when it starts it gets the running block (and again after a restart).
 */
static void
test_bgp_down(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;

	(void)st;
	m = mgmt_boot(GOOD_IFS);
	s = mgmt_session_open(m, "tester", false);
	assert_int_equal(exec(m, s, "show bgp summary", false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_string_equal(a.err,
	    "BGP is not running: no protocols bgp in the configuration and "
	    "no tern-bgp");
	OK("configure");
	OK("set protocols bgp local-as 65001");
	OK("set protocols bgp neighbor 198.18.1.2 remote-as 65002");
	OK("commit");
	assert_string_equal(a.text, "commit complete\n");
	assert_int_equal(mgmt_commit_count(m), 2);
	OK("exit");
	assert_int_equal(exec(m, s, "show bgp neighbor", false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_string_equal(a.err,
	    "tern-bgp is not running: the 1 configured neighbor has no "
	    "session until it starts");
	assert_int_equal(exec(m, s, "clear bgp neighbor 198.18.1.2", false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_null(strchr(a.err, '\n'));
	assert_int_equal(exec(m, s, "show bgp route", false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_string_equal(a.err,
	    "tern-bgp is not running: the 1 configured neighbor has no "
	    "session until it starts");
	assert_int_equal(exec(m, s,
			     "show bgp neighbor 198.18.1.2 "
			     "advertised-routes 198.18.50.1",
			     false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_null(strchr(a.err, '\n'));

	start_fake_bgp();
	assert_true(run_until(&fbgp.calls, 1));
	assert_true(fbgp.last->enabled);
	assert_int_equal(fbgp.last->local_as, 65001);
	assert_int_equal(fbgp.last->n_neighbors, 1);
	assert_int_equal(fbgp.last->neighbors[0]->remote_as, 65002);
	/* restarted: the same again */
	ipc_server_free(fbgp.srv);
	start_fake_bgp();
	assert_true(run_until(&fbgp.calls, 2));
	assert_int_equal(fbgp.last->n_neighbors, 1);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

static void
test_show(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	json_object *jo, *nb, *v;

	(void)st;
	start_fake_bgp();
	m = mgmt_boot(GOOD_IFS "protocols bgp { local-as 65001; neighbor "
			       "198.18.1.2 remote-as 65002; }\n");
	assert_true(run_until(&fbgp.calls, 1));
	s = mgmt_session_open(m, "tester", false);
	OK("show bgp summary");
	assert_string_equal(a.text,
	    "BGP router id 198.18.1.1, local AS 65001: 12 paths, 10 prefixes "
	    "with a best path\n"
	    "Neighbor         AS          State        Up/Down     MsgIn  "
	    "MsgOut Rcvd/Accepted/Advertised\n"
	    "198.18.1.2       65002       Established  01:02:03      120     "
	    "110 5/0/0\n"
	    "198.19.0.10      4200000000  Active       2d03h04m        0     "
	    "  0 0/0/0\n"
	    "198.18.1.2: no import policy: nothing imported (RFC 8212)\n"
	    "198.19.0.10: last error: hold timer expired (NOTIFICATION 4/0 "
	    "sent)\n");
	assert_int_equal(fbgp.asked, 0);

	OK("show bgp neighbor 198.18.1.2");
	assert_int_equal(fbgp.asked, htonl(0xc6120102));
	assert_string_equal(a.text,
	    "Neighbor 198.18.1.2, remote AS 65002, \"upstream A\"\n"
	    "  state Established for 01:02:03, 0 flaps\n"
	    "  remote router id 198.18.1.2, hold time 90, keepalive 30\n"
	    "  local 198.18.1.1 port 179, remote port 40001\n"
	    "  capabilities: as4 mp-ipv4-unicast route-refresh\n"
	    "  messages: in 120 (7 updates), out 110 (0 updates)\n"
	    "  prefixes: 5 received, 0 accepted, 0 advertised\n"
	    "  last error: none\n"
	    "  policy: no import policy: nothing imported (RFC 8212)\n");
	OK("show bgp neighbor 198.18.1.9");
	assert_string_equal(a.text, "no such BGP neighbor\n");
	assert_int_equal(exec(m, s, "show bgp neighbor x", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp neighbor: unexpected 'x' (expected at most a neighbor "
	    "address a.b.c.d)");
	assert_int_equal(exec(m, s, "show bgp summary x", false, &a),
	    MGMT_E_SYNTAX);

	/* JSON: every field of every neighbour */
	assert_int_equal(exec(m, s, "show bgp summary", true, &a), MGMT_OK);
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_true(json_object_object_get_ex(jo, "local_as", &v));
	assert_int_equal(json_object_get_int64(v), 65001);
	assert_true(json_object_object_get_ex(jo, "neighbors", &nb));
	assert_int_equal(json_object_array_length(nb), 2);
	v = json_object_array_get_idx(nb, 1);
	assert_string_equal(json_object_get_string(
				json_object_object_get(v, "state")),
	    "Active");
	assert_int_equal(json_object_get_int64(
			     json_object_object_get(v, "remote_as")),
	    4200000000ll);
	assert_true(
	    json_object_get_boolean(json_object_object_get(v, "passive")));
	v = json_object_array_get_idx(nb, 0);
	assert_string_equal(json_object_get_string(
				json_object_object_get(v, "policy_note")),
	    "no import policy: nothing imported (RFC 8212)");
	assert_int_equal(json_object_array_length(
			     json_object_object_get(v, "capabilities")),
	    3);
	assert_int_equal(json_object_get_int64(
			     json_object_object_get(v, "state_ms")),
	    3723000);
	json_object_put(jo);

	/* clear: soft or not; tern-bgp's refusal is the command's error */
	OK("clear bgp neighbor 198.18.1.2 soft");
	assert_int_equal(fbgp.clears, 1);
	assert_true(fbgp.clear_soft);
	assert_string_equal(a.text,
	    "neighbor 198.18.1.2: soft reset (route refresh in, routes sent "
	    "again)\n");
	OK("clear bgp neighbor 198.18.1.2");
	assert_false(fbgp.clear_soft);
	assert_string_equal(a.text, "neighbor 198.18.1.2: session reset\n");
	fbgp.clear_reject = true;
	assert_int_equal(exec(m, s, "clear bgp neighbor 198.18.1.9", false, &a),
	    MGMT_E_INVALID);
	assert_string_equal(a.err,
	    "clear bgp neighbor 198.18.1.9: no such neighbor 198.18.1.9");
	assert_int_equal(exec(m, s, "clear bgp neighbor 198.18.1.2 hard", false,
			     &a),
	    MGMT_E_SYNTAX);
	assert_int_equal(fbgp.clears, 3);
	mgmt_session_close(m, s);
	/* a read-only session may show but not clear */
	s = mgmt_session_open(m, "viewer", true);
	OK("show bgp summary");
	assert_int_equal(exec(m, s, "clear bgp neighbor 198.18.1.2", false, &a),
	    MGMT_E_DENIED);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* The completion candidates of line, joined by spaces. */
static const char *
complete(struct mgmt *m, struct mgmt_session *s, const char *line)
{
	static char buf[1024];
	struct mgmt_cand c[32];
	int n = mgmt_cmd_complete(m, s, line, strlen(line), c, 32);

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
		    i ? " " : "", c[i].word);
	return (buf);
}

static json_object *
jget(json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t != NULL && o != NULL;
	     t = strtok_r(NULL, ".", &save))
		if (t[0] >= '0' && t[0] <= '9')
			o = json_object_array_get_idx(o, (size_t)atoi(t));
		else if (!json_object_object_get_ex(o, t, &o))
			o = NULL;
	return (o);
}

/*
 * show bgp route and show bgp neighbor A received-routes |
 * advertised-routes against the fake's QUERY_ROUTES: what is asked, the
 * text (one prefix in detail, a walk as a table with the "more" line),
 * JSON, the errors, and completion.
 */
static void
test_show_routes(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	json_object *jo;

	(void)st;
	start_fake_bgp();
	m = mgmt_boot(GOOD_IFS "protocols bgp { local-as 65001; neighbor "
			       "198.18.1.2 remote-as 65002; }\n");
	assert_true(run_until(&fbgp.calls, 1));
	s = mgmt_session_open(m, "tester", true); /* read-only: fine */

	/* one prefix: every path in detail, the best first and marked */
	OK("show bgp route 198.18.50.0/24");
	assert_int_equal(fbgp.rq.view, BGP__ROUTE_VIEW__VIEW_LOC_RIB);
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_EXACT);
	assert_int_equal(fbgp.rq.prefix, A4(198, 18, 50, 0));
	assert_int_equal(fbgp.rq.len, 24);
	assert_int_equal(fbgp.rq.limit, 1000);
	assert_string_equal(a.text,
	    "198.18.50.0/24: 2 paths\n"
	    "  * 198.18.2.2 (AS 65001, iBGP, router id 198.18.2.2): best\n"
	    "      AS path 65100, origin IGP\n"
	    "      next hop 198.18.2.2, local-preference 100\n"
	    "      communities 65000:100 no-export\n"
	    "      large communities 65000:1:2\n"
	    "      extended communities rt 65000:100\n"
	    "  + 198.18.1.2 (AS 65002, eBGP, router id 198.18.1.2): not best: "
	    "longer AS path, stale (graceful restart)\n"
	    "      AS path 65002 65100 65100 65100, origin IGP\n"
	    "      next hop 198.18.1.2, MED 5, local-preference 100\n");
	/* an address: the longest match */
	OK("show bgp route 198.18.50.1");
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_LONGEST);
	assert_int_equal(fbgp.rq.prefix, A4(198, 18, 50, 1));
	assert_non_null(strstr(a.text,
	    "198.18.50.0/24 (longest match for 198.18.50.1): 2 paths\n"));
	OK("show bgp route 198.18.70.0/24");
	assert_string_equal(a.text, "no BGP route for 198.18.70.0/24\n");
	OK("show bgp route 198.18.0.0/15 longer");
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_LONGER);
	assert_int_equal(fbgp.rq.len, 15);
	assert_string_equal(a.text, "no BGP route in 198.18.0.0/15\n");
	/* IPv6 unicast: a prefix, longer, an address, the table */
	OK("show bgp route 2001:2:0:4a0::/64");
	assert_true(fbgp.rq.ipv6);
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_EXACT);
	assert_int_equal(fbgp.rq.len, 64);
	OK("show bgp route 2001:2:0:400::/56 longer");
	assert_true(fbgp.rq.ipv6);
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_LONGER);
	assert_int_equal(fbgp.rq.len, 56);
	OK("show bgp route 2001:2:0:4a0::1");
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_LONGEST);
	assert_int_equal(fbgp.rq.len, 128);
	OK("show bgp route inet6");
	assert_true(fbgp.rq.ipv6);
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_ALL);
	OK("show bgp route 198.18.0.0/15 longer");
	assert_false(fbgp.rq.ipv6);

	/* the whole table: one line per path, how many, what was left out */
	OK("show bgp route");
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_ALL);
	assert_string_equal(a.text,
	    "BGP routes of local AS 65001, router id 198.18.1.1\n"
	    "Status: * best, = multipath, + usable, x not used, S stale\n"
	    "   Prefix             Next hop         MED        LocPrf     From "
	    "            AS path\n"
	    "*  198.18.50.0/24     198.18.2.2       -          100        "
	    "198.18.2.2       65100 i\n"
	    "+S                    198.18.1.2       5          100        "
	    "198.18.1.2       65002 65100 65100 65100 i\n"
	    "x  198.18.60.0/24     198.18.1.2       -          100        "
	    "198.18.1.2       65002 ? (refused by import policy)\n"
	    "1002 prefixes, 1003 paths\n"
	    "... 1000 more prefixes not shown, give a prefix: show bgp route "
	    "PREFIX [longer]\n");
	OK("show bgp route detail");
	assert_non_null(strstr(a.text,
	    "\n198.18.60.0/24: 1 path, none usable\n"
	    "  x 198.18.1.2 (AS 65002, eBGP, router id 198.18.1.2): not used: "
	    "refused by import policy\n"
	    "      AS path 65002, origin incomplete\n"));
	assert_non_null(strstr(a.text, "\n1002 prefixes, 1003 paths\n... "));

	/* a neighbour's routes as received, and what it is sent */
	OK("show bgp neighbor 198.18.1.2 received-routes");
	assert_int_equal(fbgp.rq.view, BGP__ROUTE_VIEW__VIEW_RECEIVED);
	assert_int_equal(fbgp.rq.neighbor, A4(198, 18, 1, 2));
	assert_string_equal(a.text,
	    "Routes received from 198.18.1.2 (as received, before import "
	    "policy), session Established\n"
	    "Status: * best, = multipath, + imported, x not imported, S "
	    "stale\n"
	    "   Prefix             Next hop         MED        LocPrf     AS "
	    "path\n"
	    "+S 198.18.50.0/24     198.18.1.2       5          -          65002 "
	    "65100 65100 65100 i\n"
	    "x  198.18.60.0/24     198.18.1.2       -          -          65002 "
	    "? (refused by import policy)\n"
	    "2 prefixes\n");
	OK("show bgp neighbor 198.18.1.2 received-routes 198.18.50.0/24");
	assert_int_equal(fbgp.rq.match, BGP__ROUTE_MATCH__MATCH_EXACT);
	assert_string_equal(a.text,
	    "Routes received from 198.18.1.2 (as received, before import "
	    "policy), session Established\n"
	    "\n198.18.50.0/24: imported, not best: longer AS path, stale "
	    "(graceful restart)\n"
	    "    AS path 65002 65100 65100 65100, origin IGP\n"
	    "    next hop 198.18.1.2, MED 5\n");
	OK("show bgp neighbor 198.18.1.2 advertised-routes");
	assert_int_equal(fbgp.rq.view, BGP__ROUTE_VIEW__VIEW_ADVERTISED);
	assert_string_equal(a.text,
	    "Routes advertised to 198.18.1.2 (attributes as sent), session "
	    "Established\n"
	    "   Prefix             Next hop         MED        LocPrf     AS "
	    "path\n"
	    "   198.18.50.0/24     198.18.1.1       -          -          65001 "
	    "65100 i\n"
	    "1 prefix\n");
	OK("show bgp neighbor 198.18.1.2 advertised-routes 198.18.70.0/24");
	assert_string_equal(a.text,
	    "no BGP route for 198.18.70.0/24 advertised to 198.18.1.2\n");

	/* JSON: every attribute, communities as numbers */
	assert_int_equal(exec(m, s, "show bgp route 198.18.50.0/24", true, &a),
	    MGMT_OK);
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_string_equal(json_object_get_string(jget(jo, "view")),
	    "loc-rib");
	assert_int_equal(json_object_get_int64(jget(jo, "total")), 1);
	assert_string_equal(json_object_get_string(jget(jo, "routes.0.prefix")),
	    "198.18.50.0/24");
	assert_true(json_object_get_boolean(jget(jo, "routes.0.paths.0.best")));
	assert_string_equal(json_object_get_string(
				jget(jo, "routes.0.paths.0.communities.1")),
	    "65535:65281");
	assert_string_equal(json_object_get_string(jget(jo,
				"routes.0.paths.0.large_communities.0")),
	    "65000:1:2");
	assert_null(jget(jo, "routes.0.paths.0.med"));
	assert_false(
	    json_object_get_boolean(jget(jo, "routes.0.paths.1.best")));
	assert_true(
	    json_object_get_boolean(jget(jo, "routes.0.paths.1.stale")));
	assert_string_equal(json_object_get_string(
				jget(jo, "routes.0.paths.1.why")),
	    "longer AS path");
	assert_string_equal(json_object_get_string(
				jget(jo, "routes.0.paths.1.as_path")),
	    "65002 65100 65100 65100");
	assert_int_equal(json_object_get_int64(
			     jget(jo, "routes.0.paths.1.med")),
	    5);
	assert_int_equal(json_object_get_int64(
			     jget(jo, "routes.0.paths.1.local_pref")),
	    100);
	json_object_put(jo);
	assert_int_equal(exec(m, s,
			     "show bgp neighbor 198.18.1.2 "
			     "advertised-routes",
			     true, &a),
	    MGMT_OK);
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_string_equal(json_object_get_string(jget(jo, "view")),
	    "advertised");
	assert_string_equal(json_object_get_string(jget(jo, "neighbor")),
	    "198.18.1.2");
	assert_string_equal(json_object_get_string(
				jget(jo, "routes.0.paths.0.as_path")),
	    "65001 65100");
	assert_null(jget(jo, "routes.0.paths.0.best"));
	assert_null(jget(jo, "routes.0.paths.0.local_pref"));
	json_object_put(jo);
	assert_int_equal(exec(m, s, "show bgp route", true, &a), MGMT_OK);
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_true(json_object_get_boolean(jget(jo, "more")));
	assert_int_equal(json_object_array_length(jget(jo, "routes")), 2);
	json_object_put(jo);

	/* errors: tern-bgp's, and the command's own before any query */
	assert_int_equal(exec(m, s,
			     "show bgp neighbor 198.18.1.9 "
			     "received-routes",
			     false, &a),
	    MGMT_E_UNAVAILABLE);
	assert_non_null(strstr(a.err, "no neighbor 198.18.1.9"));
	fbgp.route_calls = 0;
	assert_int_equal(exec(m, s, "show bgp route 198.18.50.1/24", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp route: 198.18.50.1/24 has host bits set (the prefix is "
	    "198.18.50.0/24)");
	assert_int_equal(exec(m, s, "show bgp route 198.18.50.1 longer", false,
			     &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp route: unexpected 'longer' (expected a.b.c.d/len "
	    "[longer], a.b.c.d, inet6, x:x::x/len [longer], x:x::x or "
	    "detail)");
	assert_int_equal(exec(m, s, "show bgp route 2001:2::1::2/64", false,
			     &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp route: invalid IPv6 prefix '2001:2::1::2/64': more than "
	    "one ::");
	assert_int_equal(exec(m, s, "show bgp neighbor 198.18.1.2 routes",
			     false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp neighbor: unexpected 'routes' (expected received-routes "
	    "or advertised-routes after the address)");
	assert_int_equal(exec(m, s,
			     "show bgp neighbor 198.18.1.2 "
			     "received-routes x",
			     false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show bgp neighbor received-routes: unexpected 'x' (expected "
	    "a.b.c.d/len [longer], a.b.c.d, inet6, x:x::x/len [longer], "
	    "x:x::x or detail)");
	assert_int_equal(fbgp.route_calls, 0);

	/* completion: the command, the configured neighbours, the views */
	assert_string_equal(complete(m, s, "show bgp r"), "route");
	assert_string_equal(complete(m, s, "show bgp route "),
	    "[PREFIX [longer] | ADDRESS] [detail]");
	assert_string_equal(complete(m, s, "show bgp route 198.18.0.0/15 "),
	    "longer detail");
	/* the neighbours, then the arguments as a placeholder (help only) */
	assert_string_equal(complete(m, s, "show bgp neighbor "),
	    "198.18.1.2 [ADDRESS [received-routes | advertised-routes ...]]");
	assert_string_equal(complete(m, s, "show bgp neighbor 198.18.1.2 "),
	    "received-routes advertised-routes");
	assert_string_equal(complete(m, s, "show bgp neighbor 198.18.1.2 a"),
	    "advertised-routes");
	assert_string_equal(complete(m, s,
				"show bgp neighbor 198.18.1.2 received-routes "
				"d"),
	    "detail");
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* `load merge` of text in the session, as ternsh sends a file: one part */
static int
load_text(struct mgmt *m, struct mgmt_session *s, const char *text,
    struct answer *a)
{
	struct mgmt_cmd_io io = {.client_file = true,
	    .data = text,
	    .len = strlen(text)};
	struct lc_buf out;
	struct lc_err err;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec_io(m, s, "load merge big.conf", false, &io, &out,
	    &err, later, a);
	if (code != MGMT_OK)
		snprintf(a->err, sizeof(a->err), "%s", err.msg);
	lc_buf_fini(&out);
	return (code);
}

/*
 * Prefix lists too big for one frame go to tern-bgp in parts of 262,144
 * entries, one at a time, a list going on from one part to the next, the
 * rest of the config in the last; a refused part fails the commit; a
 * reconnected tern-bgp gets the parts again.
 */
static void
test_policy_parts(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	struct lc_buf text;
	unsigned calls;

	(void)st;
	start_fake_rib();
	start_fake_bgp();
	m = mgmt_boot(GOOD_IFS "protocols bgp { local-as 65001; neighbor "
			       "198.18.1.2 remote-as 65002; }\n");
	assert_true(run_until(&fbgp.calls, 1));
	s = mgmt_session_open(m, "tester", false);
	OK("configure");
	/* 3 lists of 200,000 entries: parts of 262,144, 262,144 and 75,712 */
	lc_buf_init(&text);
	lc_buf_printf(&text, "policy-options {\n");
	for (unsigned l = 0; l < 3; l++) {
		lc_buf_printf(&text, "prefix-list PL%u {\n", l);
		for (unsigned k = 0; k < 200000; k++)
			lc_buf_printf(&text, "198.%u.%u.%u/32;\n",
			    18 + (k >> 16), (k >> 8) & 255, k & 255);
		lc_buf_printf(&text, "}\n");
	}
	lc_buf_printf(&text, "}\n");
	lc_buf_append(&text, "", 1);
	assert_int_equal(load_text(m, s, (const char *)lc_buf_head(&text), &a),
	    MGMT_OK);
	lc_buf_fini(&text);
	calls = fbgp.calls;
	OK("commit");
	assert_int_equal(fbgp.calls, calls + 3);
	assert_int_equal(fbgp.parts, 3);
	assert_int_equal(fbgp.last_part, 2);
	assert_int_equal(fbgp.part_entries[0], 262144);
	assert_int_equal(fbgp.part_entries[1], 262144);
	assert_int_equal(fbgp.part_entries[2], 75712);
	assert_int_equal(fbgp.entries, 600000);
	/* PL1 goes on from part 0 into part 1, PL2 from part 1 into 2 */
	assert_string_equal(fbgp.first_list[0], "PL0");
	assert_string_equal(fbgp.last_list[0], "PL1");
	assert_string_equal(fbgp.first_list[1], "PL1");
	assert_string_equal(fbgp.last_list[1], "PL2");
	assert_string_equal(fbgp.first_list[2], "PL2");
	assert_int_equal(fbgp.neighbors, 1); /* the rest in the last part */

	/* part 1 refused: the commit fails, nothing stored */
	OK("set protocols bgp neighbor 198.18.1.2 description x");
	fbgp.refuse_part = 2;
	fbgp.parts = 0;
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_non_null(strstr(a.err,
	    "tern-bgp refused its part: out of "
	    "memory (part 1 of 3)"));
	assert_int_equal(fbgp.parts, 2); /* no part after the refused one */
	assert_true(run_until(&fbgp.aborts, 1)); /* the parts kept: dropped */
	OK("exit discard");

	/* tern-bgp restarts: the running config again, in parts */
	ipc_server_free(fbgp.srv);
	fbgp.srv = NULL;
	fbgp.parts = 0;
	fbgp.entries = 0;
	start_fake_bgp();
	assert_true(run_until(&fbgp.parts, 3));
	assert_int_equal(fbgp.entries, 600000);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_validation),
	    cmocka_unit_test(test_validate_changes),
	    cmocka_unit_test(test_typed),
	    cmocka_unit_test_setup_teardown(test_push, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_policy_push, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_policy_parts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bgp_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_show, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_show_routes, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
