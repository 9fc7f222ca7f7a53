/* tests/unit/mgmt/test_conf_tree.c: set/delete/show/compare, commit change
 * sets, merge, completion and typed views on config trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "mgmt/mgmt_conf.h"
#include "mgmt/mgmt_conf_int.h"

static const char base_text[] =
    "interfaces { eth0 { device veth0; address 198.18.0.1/24; }\n"
    "  eth1 { address 198.18.1.1/24; } }\n"
    "protocols static route 10.0.0.0/8 next-hop 198.18.0.2;\n"
    "protocols static route 10.1.0.0/16 interface eth1;\n"
    "rib { ecmp-width 4; }\n";

static struct mgmt_conf *
base(void)
{
	struct mgmt_conf *c;
	struct mgmt_err err;

	if (mgmt_conf_parse(base_text, strlen(base_text), "base", &c, &err))
		fail_msg("%s", err.msg);
	return (c);
}

/* Runs "set ..." / "delete ..." / "show ..." given as one line. */
static int
cmd(struct mgmt_conf *c, const char *line, struct mgmt_err *err)
{
	char buf[512];
	const char *w[32];
	int n = mgmt_conf_split(line, buf, sizeof(buf), w, 32);

	assert_true(n >= 1);
	if (strcmp(w[0], "set") == 0)
		return (mgmt_conf_set(c, w + 1, (unsigned)n - 1, err));
	if (strcmp(w[0], "delete") == 0)
		return (mgmt_conf_delete(c, w + 1, (unsigned)n - 1, err));
	fail_msg("bad command %s", line);
	return (-1);
}

static char *
printed(const struct mgmt_conf *c)
{
	struct lc_buf b = {0};
	char *s;

	mgmt_conf_print(c, &b);
	lc_buf_append(&b, "", 1);
	s = strdup((char *)b.data);
	lc_buf_fini(&b);
	return (s);
}

/* An error must leave the tree exactly as it was: same print, and still the
 * very same shared tree (equal to a snapshot taken before). */
static void
set_fails(struct mgmt_conf *c, const char *line, int rv, const char *msg)
{
	struct mgmt_conf *before = mgmt_conf_dup(c);
	struct mgmt_err err = {""};
	char *p0 = printed(c), *p1;

	assert_int_equal(cmd(c, line, &err), rv);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("%s\n got: %s\nwant: %s", line, err.msg, msg);
	p1 = printed(c);
	assert_string_equal(p0, p1);
	assert_true(mgmt_conf_equal(before, c));
	free(p0);
	free(p1);
	mgmt_conf_free(before);
}

static void
test_set_delete(void **s)
{
	struct mgmt_conf *c = base();
	struct mgmt_err err;
	char *p;

	(void)s;
	assert_int_equal(cmd(c, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(cmd(c, "set interfaces eth1 mtu 1400", &err), 0);
	assert_int_equal(cmd(c,
			     "set protocols static route 10.0.0.0/8 "
			     "next-hop 198.18.0.3",
			     &err),
	    0);
	assert_int_equal(cmd(c,
			     "set protocols static route 10.2.0.0/16 "
			     "blackhole",
			     &err),
	    0);
	assert_int_equal(
	    cmd(c, "set system host-name \"lab router\"", &err), 0);
	assert_int_equal(cmd(c, "set interfaces eth2", &err), 0);
	assert_int_equal(cmd(c, "delete rib ecmp-width", &err), 0);
	assert_int_equal(cmd(c,
			     "delete interfaces eth0 address "
			     "198.18.0.1/24",
			     &err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	p = printed(c);
	assert_string_equal(p, "interfaces {\n"
			       "    eth0 device veth0;\n"
			       "    eth1 {\n"
			       "        address 198.18.1.1/24;\n"
			       "        mtu 1400;\n"
			       "    }\n"
			       "    eth2;\n"
			       "}\n"
			       "protocols {\n"
			       "    static {\n"
			       "        route 10.0.0.0/8 {\n"
			       "            next-hop 198.18.0.2;\n"
			       "            next-hop 198.18.0.3;\n"
			       "        }\n"
			       "        route 10.1.0.0/16 interface eth1;\n"
			       "        route 10.2.0.0/16 blackhole;\n"
			       "    }\n"
			       "}\n"
			       "system {\n"
			       "    host-name \"lab router\";\n"
			       "}\n");
	free(p);
	/* all next hops at once; then the whole static block */
	assert_int_equal(cmd(c,
			     "delete protocols static route 10.0.0.0/8 "
			     "next-hop",
			     &err),
	    0);
	assert_int_equal(cmd(c, "delete protocols static", &err), 0);
	assert_int_equal(mgmt_conf_count(c, MGMT_S_ROUTE), 0);
	p = printed(c);
	assert_null(strstr(p, "protocols")); /* empty parents pruned */
	free(p);
	assert_int_equal(cmd(c, "delete", &err), 0);
	p = printed(c);
	assert_string_equal(p, "");
	free(p);
	mgmt_conf_free(c);
}

static void
test_set_errors_change_nothing(void **s)
{
	struct mgmt_conf *c = base();

	(void)s;
	set_fails(c, "set interfaces eth0 mtu 99999", -22,
	    "interfaces eth0 mtu: mtu 99999 out of range, expected 68..9216");
	set_fails(c, "set interfaces eth0 mtu", -22,
	    "interfaces eth0 mtu: missing value, expected <68..9216>");
	set_fails(c, "set interfaces eth0 speed 10", -22,
	    "interfaces eth0: unknown word 'speed', expected device, address, "
	    "mtu, disable, port-backend");
	set_fails(c, "set protocols static route 10.0.0.1/8 blackhole", -22,
	    "protocols static route: invalid route '10.0.0.1/8': host bits "
	    "set, expected 10.0.0.0/8");
	set_fails(c, "set protocols static route 10.0.0.0/8 next-hop x", -22,
	    "protocols static route 10.0.0.0/8 next-hop: invalid next-hop "
	    "'x': expected an IPv4 address a.b.c.d");
	set_fails(c, "set protocols static route 10.0.0.0/8 blackhole yes", -22,
	    "protocols static route 10.0.0.0/8 blackhole: unexpected "
	    "'yes', blackhole takes no value");
	set_fails(c, "set fwd port-backend", -22,
	    "fwd port-backend: missing "
	    "value, expected one of af_packet, af_xdp, auto");
	set_fails(c, "set rib", -22,
	    "rib: incomplete, expected ecmp-width, "
	    "distance");
	set_fails(c, "set", -22,
	    "(top): incomplete, expected interfaces, "
	    "protocols, rib, fwd, system");
	set_fails(c, "set fwd workers 4 5", -22,
	    "fwd workers 4: unexpected "
	    "'5' after the value of workers");
	set_fails(
	    c, "delete interfaces eth7", -2, "interfaces eth7: not configured");
	set_fails(c, "delete interfaces eth0 mtu", -2,
	    "interfaces eth0 mtu: not configured");
	set_fails(c, "delete rib ecmp-width 5", -2,
	    "rib ecmp-width 5: not configured (the value is 4)");
	set_fails(c, "delete fwd", -2, "fwd: not configured");
	mgmt_conf_free(c);
}

static void
test_noop_set_keeps_sharing(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct mgmt_err err;
	struct lc_buf b = {0};

	(void)s;
	assert_int_equal(cmd(cand, "set rib ecmp-width 4", &err), 0);
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.0.0.0/8 "
			     "next-hop 198.18.0.2",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 0);
	mgmt_conf_compare(run, cand, &b);
	assert_int_equal(b.len, 0);
	/* a change and its undo: different objects, same content */
	assert_int_equal(cmd(cand, "set rib ecmp-width 5", &err), 0);
	assert_int_equal(cmd(cand, "set rib ecmp-width 4", &err), 0);
	assert_true(mgmt_conf_equal(run, cand));
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 0);
	mgmt_changes_fini(&chg);
	lc_buf_fini(&b);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
}

static void
test_compare(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_err err;
	struct lc_buf b = {0};

	(void)s;
	assert_int_equal(cmd(cand, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.0.0.0/8 "
			     "next-hop 198.18.0.9",
			     &err),
	    0);
	assert_int_equal(cmd(cand,
			     "delete protocols static route "
			     "10.1.0.0/16",
			     &err),
	    0);
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.3.0.0/16 "
			     "reject",
			     &err),
	    0);
	assert_int_equal(cmd(cand, "set rib ecmp-width 8", &err), 0);
	assert_int_equal(cmd(cand, "set fwd workers 2", &err), 0);
	mgmt_conf_compare(run, cand, &b);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "[edit interfaces eth1]\n"
	    "+    mtu 9000;\n"
	    "[edit protocols static route 10.0.0.0/8]\n"
	    "+    next-hop 198.18.0.9;\n"
	    "[edit protocols static]\n"
	    "-    route 10.1.0.0/16 interface eth1;\n"
	    "+    route 10.3.0.0/16 reject;\n"
	    "[edit rib]\n"
	    "-    ecmp-width 4;\n"
	    "+    ecmp-width 8;\n"
	    "[edit]\n"
	    "+    fwd {\n"
	    "+        workers 2;\n"
	    "+    }\n");
	lc_buf_fini(&b);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
}

static void
test_change_sets(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct mgmt_route_conf r;
	struct mgmt_iface_conf ic;
	struct mgmt_err err;

	(void)s;
	assert_int_equal(cmd(cand, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(cmd(cand,
			     "set interfaces eth3 address "
			     "198.18.3.1/24",
			     &err),
	    0);
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.0.0.0/8 "
			     "next-hop 198.18.0.9",
			     &err),
	    0);
	assert_int_equal(cmd(cand,
			     "delete protocols static route "
			     "10.1.0.0/16",
			     &err),
	    0);
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.3.0.0/16 "
			     "interface eth3",
			     &err),
	    0);
	assert_int_equal(cmd(cand, "set system log-level debug", &err), 0);
	mgmt_conf_diff(run, cand, &chg);
	/* the trees may go away: the change set holds its nodes */
	mgmt_conf_free(run);
	assert_int_equal(cmd(cand, "delete", &err), 0);
	mgmt_conf_free(cand);

	assert_int_equal(chg.n, 6);
	assert_int_equal(chg.comp, MGMT_COMP_ALL);
	assert_true(chg.v[0].op == MGMT_CHG_MOD &&
		    chg.v[0].unit == MGMT_S_IFACE &&
		    chg.v[0].comp == MGMT_COMP_FWD);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].new, &ic), 0);
	assert_string_equal(ic.name, "eth1");
	assert_string_equal(ic.device, "eth1");
	assert_int_equal(ic.mtu, 9000);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].old, &ic), 0);
	assert_int_equal(ic.mtu, 1500);
	assert_true(chg.v[1].op == MGMT_CHG_ADD && chg.v[1].old == NULL);
	assert_int_equal(mgmt_conf_iface_get(chg.v[1].new, &ic), 0);
	assert_int_equal(ic.naddr, 1);
	assert_string_equal(lc_ip4_ntoa(ic.host[0]), "198.18.3.1");
	assert_string_equal(lc_prefix4_ntoa(&ic.addr[0]), "198.18.3.0/24");
	assert_true(chg.v[2].op == MGMT_CHG_MOD &&
		    chg.v[2].unit == MGMT_S_ROUTE &&
		    chg.v[2].comp == MGMT_COMP_RIB);
	assert_int_equal(mgmt_conf_route_get(chg.v[2].new, &r), 0);
	assert_string_equal(lc_prefix4_ntoa(&r.prefix), "10.0.0.0/8");
	assert_int_equal(r.nnh, 2);
	assert_string_equal(lc_ip4_ntoa(r.nh[1]), "198.18.0.9");
	assert_true(chg.v[3].op == MGMT_CHG_DEL && chg.v[3].new == NULL);
	assert_int_equal(mgmt_conf_route_get(chg.v[3].old, &r), 0);
	assert_string_equal(r.ifname, "eth1");
	assert_true(chg.v[4].op == MGMT_CHG_ADD);
	assert_true(chg.v[5].op == MGMT_CHG_ADD &&
		    chg.v[5].unit == MGMT_S_SYSTEM &&
		    chg.v[5].comp == MGMT_COMP_ALL);
	assert_int_equal(mgmt_conf_route_get(chg.v[0].new, &r), -22);
	mgmt_changes_fini(&chg);
}

static void
test_validate_changes(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct mgmt_err err;

	(void)s;
	/* deleting an interface a route uses: found by the incremental check */
	assert_int_equal(cmd(cand, "delete interfaces eth1", &err), 0);
	mgmt_conf_diff(run, cand, &chg);
	assert_true(chg.iface_deleted);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -22);
	assert_string_equal(err.msg,
	    "base:4:36: static route 10.1.0.0/16: "
	    "interface eth1 is not configured (configured: eth0)");
	mgmt_changes_fini(&chg);
	mgmt_conf_assign(cand, run);
	/* a new route via a missing interface: set-made, so a path */
	assert_int_equal(cmd(cand,
			     "set protocols static route 10.9.0.0/16 "
			     "interface eth9",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -22);
	assert_string_equal(err.msg,
	    "static route 10.9.0.0/16: interface "
	    "eth9 is not configured (configured: eth0, eth1)");
	assert_int_equal(mgmt_conf_validate(cand, &err), -22);
	mgmt_changes_fini(&chg);
	/* a second interface on eth0's device */
	mgmt_conf_assign(cand, run);
	assert_int_equal(cmd(cand, "set interfaces x device veth0", &err), 0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -22);
	assert_string_equal(err.msg, "interface x: duplicate device veth0 "
				     "(also used by interface eth0)");
	mgmt_changes_fini(&chg);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
}

static void
test_merge(void **s)
{
	struct mgmt_conf *c = base(), *m;
	const char *t =
	    "interfaces eth1 { mtu 9000; address 198.18.5.1/24; }\n"
	    "protocols static route 10.0.0.0/8 next-hop 198.18.0.7;\n"
	    "rib ecmp-width 2;\n";
	struct mgmt_rib_conf rc;
	struct mgmt_iface_conf ic;
	struct mgmt_err err;
	char *p;

	(void)s;
	assert_int_equal(mgmt_conf_parse(t, strlen(t), "m", &m, &err), 0);
	mgmt_conf_merge(c, m);
	mgmt_conf_rib_get(c, &rc);
	assert_int_equal(rc.ecmp_width, 2);
	assert_int_equal(rc.distance_static, 1);
	p = printed(c);
	assert_non_null(strstr(p, "            next-hop 198.18.0.2;\n"
				  "            next-hop 198.18.0.7;\n"));
	assert_non_null(
	    strstr(p, "        address 198.18.1.1/24;\n"
		      "        address 198.18.5.1/24;\n        mtu 9000;\n"));
	free(p);
	assert_int_equal(
	    mgmt_conf_foreach(c, MGMT_S_IFACE,
		(int (*)(const struct mgmt_node *, void *))mgmt_conf_iface_get,
		&ic),
	    0);
	assert_string_equal(ic.name, "eth1"); /* the last one */
	mgmt_conf_free(m);
	mgmt_conf_free(c);
}

static void
test_defaults(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new();
	struct mgmt_fwd_conf f;
	struct mgmt_rib_conf r;
	struct mgmt_system_conf sy;
	struct mgmt_err err;

	(void)s;
	mgmt_conf_fwd_get(c, &f);
	mgmt_conf_rib_get(c, &r);
	mgmt_conf_system_get(c, &sy);
	assert_int_equal(f.workers, 1);
	assert_int_equal(f.backend, MGMT_BACKEND_AUTO);
	assert_int_equal(f.icmp_rate_limit, 100);
	assert_false(f.workers_set);
	assert_false(f.icmp_set);
	assert_int_equal(r.ecmp_width, 8);
	assert_int_equal(r.distance_connected, 0);
	assert_string_equal(sy.host_name, "tern");
	assert_int_equal(sy.log_level, 2);
	assert_int_equal(cmd(c, "set fwd port-backend af_xdp", &err), 0);
	assert_int_equal(cmd(c, "set system log-level debug", &err), 0);
	mgmt_conf_fwd_get(c, &f);
	mgmt_conf_system_get(c, &sy);
	assert_int_equal(f.backend, MGMT_BACKEND_AF_XDP);
	assert_int_equal(sy.log_level, 4);
	mgmt_conf_free(c);
}

static void
test_show(void **s)
{
	struct mgmt_conf *c = base();
	struct lc_buf b = {0};
	struct mgmt_err err;
	const char *w1[] = {"interfaces", "eth0"};
	const char *w2[] = {"protocols", "static", "route"};
	const char *w3[] = {"interfaces", "eth5"};

	(void)s;
	assert_int_equal(mgmt_conf_show(c, w1, 2, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal(
	    (char *)b.data, "device veth0;\naddress 198.18.0.1/24;\n");
	lc_buf_reset(&b);
	assert_int_equal(mgmt_conf_show(c, w2, 3, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "route 10.0.0.0/8 next-hop "
	    "198.18.0.2;\nroute 10.1.0.0/16 interface eth1;\n");
	assert_int_equal(mgmt_conf_show(c, w3, 2, &b, &err), -2);
	assert_string_equal(err.msg, "interfaces eth5: not configured");
	lc_buf_fini(&b);
	mgmt_conf_free(c);
}

static int
find(const struct mgmt_compl *v, int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].word, w) == 0)
			return (i);
	return (-1);
}

static void
test_complete(void **s)
{
	struct mgmt_conf *c = base();
	struct mgmt_compl v[32];
	struct mgmt_err err;
	const char *w[8];
	int n, i;

	(void)s;
	n = mgmt_schema_complete(NULL, w, 0, "", v, 32, &err);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].word, "interfaces");
	assert_string_equal(v[0].help, "Interfaces of the forwarding plane");
	n = mgmt_schema_complete(NULL, w, 0, "pr", v, 32, &err);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].word, "protocols");
	/* list keys: existing ones and a placeholder */
	w[0] = "interfaces";
	n = mgmt_schema_complete(c, w, 1, "", v, 32, &err);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].word, "eth0");
	assert_string_equal(v[2].word, "<name>");
	assert_true(v[2].is_value);
	w[1] = "eth0";
	n = mgmt_schema_complete(c, w, 2, "", v, 32, &err);
	assert_int_equal(n, 5);
	assert_true((i = find(v, n, "disable")) >= 0 && v[i].is_leaf);
	assert_true(find(v, n, "mtu") >= 0);
	/* enum values */
	w[0] = "fwd";
	w[1] = "port-backend";
	n = mgmt_schema_complete(c, w, 2, "af_x", v, 32, &err);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].word, "af_xdp");
	/* a typed value: the placeholder with its help */
	w[0] = "rib";
	w[1] = "ecmp-width";
	n = mgmt_schema_complete(c, w, 2, "", v, 32, &err);
	assert_true((i = find(v, n, "<1..64>")) >= 0);
	assert_string_equal(v[i].help, "Maximum equal-cost paths per prefix");
	assert_string_equal(v[i].dflt, "8");
	assert_true(find(v, n, "4") >= 0); /* the current value */
	/* route keys and next hops of an existing route */
	w[0] = "protocols";
	w[1] = "static";
	w[2] = "route";
	n = mgmt_schema_complete(c, w, 3, "10.1", v, 32, &err);
	assert_true(find(v, n, "10.1.0.0/16") >= 0);
	assert_true(find(v, n, "10.0.0.0/8") < 0);
	/* errors name the word */
	w[0] = "interfaces";
	w[1] = "eth0";
	w[2] = "colour";
	assert_int_equal(mgmt_schema_complete(c, w, 3, "", v, 32, &err), -22);
	assert_string_equal(err.msg, "unknown word 'colour': expected device, "
				     "address, mtu, disable, port-backend");
	w[2] = "mtu";
	w[3] = "12";
	assert_int_equal(mgmt_schema_complete(c, w, 4, "", v, 32, &err), -22);
	assert_string_equal(err.msg, "mtu 12 out of range, expected 68..9216");
	/* a bounded number of candidates */
	w[0] = "interfaces";
	assert_int_equal(mgmt_schema_complete(c, w, 1, "", v, 1, &err), 1);
	mgmt_conf_free(c);
}

static void
test_schema_table(void **s)
{
	char canon[64];
	struct mgmt_err err;

	(void)s;
	for (unsigned i = 1; i < MGMT_S__COUNT; i++) {
		const struct mgmt_schema_node *n = &mgmt_schema[i];

		/* parents come first; help everywhere; defaults are valid */
		assert_true(n->parent >= 0 && (unsigned)n->parent < i);
		assert_non_null(n->help);
		assert_true(n->comp != 0);
		if (n->dflt != NULL && mgmt_schema_check_value((enum mgmt_sid)i,
					   n->dflt, canon, &err) != 0)
			fail_msg("default of %s: %s", n->name, err.msg);
		if (n->kind == MGMT_SK_LIST || n->kind == MGMT_SK_LEAF ||
		    n->kind == MGMT_SK_LEAFLIST)
			assert_true(n->type != MGMT_T_NONE);
	}
	assert_int_equal(
	    mgmt_schema_check_value(MGMT_S_ROUTE, "10.0.0.0/8", canon, &err),
	    0);
	assert_int_equal(mgmt_schema_check_value(MGMT_S_IFACE_ADDRESS,
			     "198.18.0.1/24", canon, &err),
	    0);
	assert_string_equal(canon, "198.18.0.1/24");
	assert_int_equal(
	    mgmt_schema_check_value(MGMT_S_SYS_HOSTNAME, "", canon, &err), -22);
	assert_int_equal(
	    mgmt_schema_check_value(MGMT_S_STATIC, "x", canon, &err), -22);
	assert_int_equal(mgmt_schema_comp(MGMT_S_ROUTE), MGMT_COMP_RIB);
	assert_int_equal(mgmt_schema_comp(MGMT_S_IFACE), MGMT_COMP_FWD);
}

static void
test_rebase(void **s)
{
	struct mgmt_conf *b0 = base(), *a = mgmt_conf_dup(b0),
			 *b = mgmt_conf_dup(b0), *run;
	struct mgmt_err err;
	char *p;

	(void)s;
	/* session A commits first */
	assert_int_equal(cmd(a, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(
	    cmd(a, "delete protocols static route 10.0.0.0/8", &err), 0);
	run = mgmt_conf_dup(a);
	/* session B, made from the old running, changes other units */
	assert_int_equal(cmd(b,
			     "set protocols static route 10.5.0.0/16 "
			     "blackhole",
			     &err),
	    0);
	assert_int_equal(
	    cmd(b, "delete protocols static route 10.1.0.0/16", &err), 0);
	assert_int_equal(cmd(b, "set fwd workers 2", &err), 0);
	assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), 0);
	p = printed(b);
	assert_string_equal(p, "interfaces {\n"
			       "    eth0 {\n"
			       "        device veth0;\n"
			       "        address 198.18.0.1/24;\n"
			       "    }\n"
			       "    eth1 {\n"
			       "        address 198.18.1.1/24;\n"
			       "        mtu 9000;\n"
			       "    }\n"
			       "}\n"
			       "protocols {\n"
			       "    static {\n"
			       "        route 10.5.0.0/16 blackhole;\n"
			       "    }\n"
			       "}\n"
			       "rib {\n"
			       "    ecmp-width 4;\n"
			       "}\n"
			       "fwd {\n"
			       "    workers 2;\n"
			       "}\n");
	free(p);
	/* a unit both changed: conflict, candidate unchanged */
	mgmt_conf_assign(b, b0);
	assert_int_equal(cmd(b, "set interfaces eth1 mtu 1400", &err), 0);
	{
		struct mgmt_conf *before = mgmt_conf_dup(b);

		assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), -EBUSY);
		assert_string_equal(err.msg,
		    "conflict: interfaces eth1 was "
		    "changed by another commit since this candidate was made");
		assert_true(mgmt_conf_equal(before, b));
		mgmt_conf_free(before);
	}
	/* the same change on both sides is no conflict */
	assert_int_equal(cmd(b, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), 0);
	assert_true(mgmt_conf_equal(b, run));
	mgmt_conf_free(b0);
	mgmt_conf_free(a);
	mgmt_conf_free(b);
	mgmt_conf_free(run);
}

static void
test_json(void **s)
{
	struct mgmt_conf *c = base();
	struct lc_buf b = {0};
	struct mgmt_err err;
	struct json_object *j, *v;

	(void)s;
	assert_int_equal(cmd(c, "set interfaces eth0 disable", &err), 0);
	assert_int_equal(
	    cmd(c, "set system host-name \"a \\\"q\\\"\"", &err), 0);
	mgmt_conf_print_json(c, &b);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "{\"interfaces\":{\"eth0\":{\"device\":\"veth0\",\"address\":"
	    "[\"198.18.0.1/24\"],\"disable\":true},\"eth1\":{\"address\":"
	    "[\"198.18.1.1/24\"]}},\"protocols\":{\"static\":{\"route\":"
	    "{\"10.0.0.0/8\":{\"next-hop\":[\"198.18.0.2\"]},"
	    "\"10.1.0.0/16\":{\"interface\":\"eth1\"}}}},\"rib\":"
	    "{\"ecmp-width\":4},\"system\":{\"host-name\":\"a \\\"q\\\"\"}}");
	j = json_tokener_parse((char *)b.data);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "system", &v));
	assert_true(json_object_object_get_ex(v, "host-name", &v));
	assert_string_equal(json_object_get_string(v), "a \"q\"");
	json_object_put(j);
	lc_buf_fini(&b);
	mgmt_conf_free(c);
}

static void
test_invert(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0}, back = {0};
	struct mgmt_err err;

	(void)s;
	assert_int_equal(cmd(cand, "delete interfaces eth1", &err), 0);
	assert_int_equal(cmd(cand,
			     "delete protocols static route "
			     "10.1.0.0/16",
			     &err),
	    0);
	assert_int_equal(cmd(cand, "set rib ecmp-width 2", &err), 0);
	mgmt_conf_diff(run, cand, &chg);
	mgmt_conf_diff(cand, run, &back);
	mgmt_changes_invert(&chg);
	assert_int_equal(chg.n, back.n);
	for (size_t i = 0; i < chg.n; i++) {
		assert_int_equal(chg.v[i].op, back.v[i].op);
		assert_ptr_equal(chg.v[i].old, back.v[i].old);
		assert_ptr_equal(chg.v[i].new, back.v[i].new);
	}
	assert_false(chg.iface_deleted);
	mgmt_changes_fini(&chg);
	mgmt_changes_fini(&back);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
}

/* AVL invariants of one child set, and recursively below. */
static int
check_avl(const struct mgmt_node *t, const struct mgmt_node **prev)
{
	int hl, hr;

	if (t == NULL)
		return (0);
	assert_true(t->ref >= 1);
	hl = check_avl(t->left, prev);
	if (*prev != NULL) {
		struct mgmt_key k;

		mgmt_node_key(*prev, &k);
		assert_true(mgmt_key_cmp(&k, t) < 0); /* strictly ordered */
	}
	*prev = t;
	{
		const struct mgmt_node *p = NULL;

		check_avl(t->kids, &p);
	}
	hr = check_avl(t->right, prev);
	assert_true(hl - hr <= 1 && hr - hl <= 1);
	assert_int_equal(t->height, 1 + (hl > hr ? hl : hr));
	return (t->height);
}

#define NKEYS 600

struct model {
	uint8_t nh[NKEYS]; /* 0: absent, else next hop 198.18.0.<nh> */
};

static int
collect(const struct mgmt_node *n, void *arg)
{
	struct model *m = arg;
	struct mgmt_route_conf r;
	unsigned key;

	assert_int_equal(mgmt_conf_route_get(n, &r), 0);
	key = (lc_ip4_to_host(r.prefix.addr) >> 8) & 0xffff;
	assert_true(key < NKEYS);
	assert_int_equal(r.nnh, 1);
	m->nh[key] = (uint8_t)(lc_ip4_to_host(r.nh[0]) & 0xff);
	return (0);
}

static void
test_random_ops_and_snapshots(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new(), *snap[40];
	struct model ref = {{0}}, refs[40], got;
	struct mgmt_err err;
	unsigned nsnap = 0, seed = 12345;
	char line[128];

	(void)s;
	for (unsigned op = 0; op < 8000; op++) {
		unsigned key, nh;

		seed = seed * 1103515245u + 12345u;
		key = (seed >> 8) % NKEYS;
		nh = 1 + (seed >> 20) % 250;
		if ((seed >> 3) % 3 == 0) {
			snprintf(line, sizeof(line),
			    "delete protocols static "
			    "route 11.%u.%u.0/24",
			    key >> 8, key & 255);
			assert_int_equal(
			    cmd(c, line, &err), ref.nh[key] ? 0 : -2);
			ref.nh[key] = 0;
		} else {
			if (ref.nh[key] != 0) {
				snprintf(line, sizeof(line),
				    "delete protocols "
				    "static route 11.%u.%u.0/24 next-hop",
				    key >> 8, key & 255);
				assert_int_equal(cmd(c, line, &err), 0);
			}
			snprintf(line, sizeof(line),
			    "set protocols static "
			    "route 11.%u.%u.0/24 next-hop 198.18.0.%u",
			    key >> 8, key & 255, nh);
			assert_int_equal(cmd(c, line, &err), 0);
			ref.nh[key] = (uint8_t)nh;
		}
		if (op % 200 == 0 && nsnap < 40) {
			const struct mgmt_node *p = NULL;

			check_avl(c->root->kids, &p);
			snap[nsnap] = mgmt_conf_dup(c);
			refs[nsnap++] = ref;
		}
	}
	/* every snapshot still holds exactly what it held when taken */
	for (unsigned i = 0; i < nsnap; i++) {
		struct mgmt_changes chg = {0};
		unsigned ndiff = 0;

		memset(&got, 0, sizeof(got));
		mgmt_conf_foreach(snap[i], MGMT_S_ROUTE, collect, &got);
		assert_memory_equal(&got, &refs[i], sizeof(got));
		if (i == 0)
			continue;
		/* and the diff between consecutive ones is the model's */
		for (unsigned k = 0; k < NKEYS; k++)
			ndiff += refs[i - 1].nh[k] != refs[i].nh[k];
		mgmt_conf_diff(snap[i - 1], snap[i], &chg);
		assert_int_equal(chg.n, ndiff);
		mgmt_changes_fini(&chg);
	}
	for (unsigned i = 0; i < nsnap; i++)
		mgmt_conf_free(snap[i]);
	memset(&got, 0, sizeof(got));
	mgmt_conf_foreach(c, MGMT_S_ROUTE, collect, &got);
	assert_memory_equal(&got, &ref, sizeof(got));
	mgmt_conf_free(c);
}

/* A parsed (bulk-built) route set is a valid AVL and stays one under
 * set/delete. */
static void
test_parsed_avl(void **s)
{
	struct lc_buf t = {0};
	struct mgmt_conf *c;
	struct mgmt_err err;
	const struct mgmt_node *p = NULL;
	unsigned seed = 99;
	char line[128];

	(void)s;
	lc_buf_printf(&t, "protocols static {\n");
	for (unsigned i = 0; i < 3000; i++)
		lc_buf_printf(&t, "route 11.%u.%u.0/24 blackhole;\n",
		    ((i * 7) % 3000) >> 8, ((i * 7) % 3000) & 255);
	lc_buf_printf(&t, "}\n");
	assert_int_equal(
	    mgmt_conf_parse((char *)t.data, t.len, "p", &c, &err), 0);
	check_avl(c->root->kids, &p);
	for (unsigned k = 0; k < 2000; k++) {
		unsigned key;

		seed = seed * 1103515245u + 12345u;
		key = (seed >> 8) % 4000;
		snprintf(line, sizeof(line),
		    "%s protocols static route "
		    "11.%u.%u.0/24%s",
		    (seed >> 4) % 2 ? "set" : "delete", key >> 8, key & 255,
		    (seed >> 4) % 2 ? " reject" : "");
		(void)cmd(c, line, &err);
		if (k % 100 == 0) {
			p = NULL;
			check_avl(c->root->kids, &p);
		}
	}
	p = NULL;
	check_avl(c->root->kids, &p);
	lc_buf_fini(&t);
	mgmt_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_schema_table),
	    cmocka_unit_test(test_set_delete),
	    cmocka_unit_test(test_set_errors_change_nothing),
	    cmocka_unit_test(test_noop_set_keeps_sharing),
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_change_sets),
	    cmocka_unit_test(test_validate_changes),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_show),
	    cmocka_unit_test(test_complete),
	    cmocka_unit_test(test_random_ops_and_snapshots),
	    cmocka_unit_test(test_rebase),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_invert),
	    cmocka_unit_test(test_parsed_avl),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
