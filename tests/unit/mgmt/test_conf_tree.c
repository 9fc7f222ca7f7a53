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
	struct lc_err err;

	if (mgmt_conf_parse(base_text, strlen(base_text), "base", &c, &err))
		fail_msg("%s", err.msg);
	return (c);
}

/* Runs "set ..." / "delete ..." / "show ..." given as one line. */
static int
cmd(struct mgmt_conf *c, const char *line, struct lc_err *err)
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

/* What print (brace, set or JSON form) makes of c, to free. */
static char *
printed_as(const struct mgmt_conf *c,
    int (*print)(const struct mgmt_conf *, struct lc_buf *))
{
	struct lc_buf b = {0};
	char *s;

	print(c, &b);
	lc_buf_append(&b, "", 1);
	s = strdup((char *)b.data);
	lc_buf_fini(&b);
	return (s);
}

static char *
printed(const struct mgmt_conf *c)
{
	return (printed_as(c, mgmt_conf_print));
}

/* An error must leave the tree exactly as it was: same print, and still the
 * very same shared tree (equal to a snapshot taken before). */
static void
set_fails(struct mgmt_conf *c, const char *line, int rv, const char *msg)
{
	struct mgmt_conf *before = mgmt_conf_dup(c);
	struct lc_err err = {0};
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
	struct lc_err err;
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
	assert_int_equal(cmd(c, "set system host-name \"lab router\"", &err),
	    0);
	assert_int_equal(cmd(c, "set interfaces eth2", &err), 0);
	assert_int_equal(cmd(c, "delete rib ecmp-width", &err), 0);
	assert_int_equal(cmd(c,
			     "delete interfaces eth0 address "
			     "198.18.0.1/24",
			     &err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	p = printed(c);
	assert_string_equal(p,
	    "interfaces {\n"
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
	    "inet6, link-local, router-advertisement, mtu, disable, "
	    "port-backend, host-path, arp, ndp");
	set_fails(c, "set protocols static route 10.0.0.1/8 blackhole", -22,
	    "protocols static route: invalid route '10.0.0.1/8': host bits "
	    "set, expected 10.0.0.0/8");
	set_fails(c, "set protocols static route 10.0.0.0/8 next-hop x", -22,
	    "protocols static route 10.0.0.0/8 next-hop: invalid next-hop "
	    "'x': expected an IPv4 address a.b.c.d or an IPv6 address x:x::x");
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
	    "protocols, policy-options, rib, fwd, system");
	set_fails(c, "set fwd workers 4 5", -22,
	    "fwd workers 4: unexpected "
	    "'5' after the value of workers");
	set_fails(c, "delete interfaces eth7", -2,
	    "interfaces eth7: not configured");
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
	struct lc_err err;
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
	struct lc_err err;
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
	struct lc_err err;

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
	    chg.v[0].unit == MGMT_S_IFACE && chg.v[0].comp == MGMT_COMP_FWD);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].new, &ic), 0);
	assert_string_equal(ic.name, "eth1");
	assert_string_equal(ic.device, "eth1");
	assert_int_equal(ic.mtu, 9000);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].old, &ic), 0);
	assert_int_equal(ic.mtu, 0); /* not configured: the device's */
	assert_true(chg.v[1].op == MGMT_CHG_ADD && chg.v[1].old == NULL);
	assert_int_equal(mgmt_conf_iface_get(chg.v[1].new, &ic), 0);
	assert_int_equal(ic.naddr, 1);
	assert_string_equal(lc_ip4_ntoa(ic.host[0]), "198.18.3.1");
	assert_string_equal(lc_prefix4_ntoa(&ic.addr[0]), "198.18.3.0/24");
	assert_true(chg.v[2].op == MGMT_CHG_MOD &&
	    chg.v[2].unit == MGMT_S_ROUTE && chg.v[2].comp == MGMT_COMP_RIB);
	assert_int_equal(mgmt_conf_route_get(chg.v[2].new, &r), 0);
	assert_string_equal(lc_prefix4_ntoa(&r.prefix), "10.0.0.0/8");
	assert_int_equal(r.nnh, 2);
	assert_string_equal(lc_ip4_ntoa(r.nh[1]), "198.18.0.9");
	assert_true(chg.v[3].op == MGMT_CHG_DEL && chg.v[3].new == NULL);
	assert_int_equal(mgmt_conf_route_get(chg.v[3].old, &r), 0);
	assert_string_equal(r.ifname, "eth1");
	assert_true(chg.v[4].op == MGMT_CHG_ADD);
	assert_true(chg.v[5].op == MGMT_CHG_ADD &&
	    chg.v[5].unit == MGMT_S_SYSTEM && chg.v[5].comp == MGMT_COMP_ALL);
	assert_int_equal(mgmt_conf_route_get(chg.v[0].new, &r), -22);
	mgmt_changes_fini(&chg);
}

static void
test_validate_changes(void **s)
{
	struct mgmt_conf *run = base(), *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct lc_err err;

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
	assert_string_equal(err.msg,
	    "interface x: duplicate device veth0 "
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
	struct lc_err err;
	char *p;

	(void)s;
	assert_int_equal(mgmt_conf_parse(t, strlen(t), "m", &m, &err), 0);
	mgmt_conf_merge(c, m);
	mgmt_conf_rib_get(c, &rc);
	assert_int_equal(rc.ecmp_width, 2);
	assert_int_equal(rc.distance_static, 1);
	p = printed(c);
	assert_non_null(strstr(p,
	    "            next-hop 198.18.0.2;\n"
	    "            next-hop 198.18.0.7;\n"));
	assert_non_null(strstr(p,
	    "        address 198.18.1.1/24;\n"
	    "        address 198.18.5.1/24;\n        mtu 9000;\n"));
	free(p);
	assert_int_equal(mgmt_conf_foreach(c, MGMT_S_IFACE,
			     (int (*)(const struct mgmt_node *,
				 void *))mgmt_conf_iface_get,
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
	struct lc_err err;

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
	struct lc_err err;
	const char *w1[] = {"interfaces", "eth0"};
	const char *w2[] = {"protocols", "static", "route"};
	const char *w3[] = {"interfaces", "eth5"};

	(void)s;
	assert_int_equal(mgmt_conf_show(c, w1, 2, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "device veth0;\naddress 198.18.0.1/24;\n");
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
	struct lc_err err;
	const char *w[8];
	int n, i;

	(void)s;
	n = mgmt_schema_complete(NULL, w, 0, "", v, 32, &err);
	assert_int_equal(n, 6);
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
	assert_int_equal(n, 11);
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
	assert_string_equal(err.msg,
	    "unknown word 'colour': expected device, address, inet6, "
	    "link-local, router-advertisement, mtu, disable, port-backend, "
	    "host-path, arp, ndp");
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
	struct lc_err err;

	(void)s;
	for (unsigned i = 1; i < MGMT_S__COUNT; i++) {
		const struct mgmt_schema_node *n = &mgmt_schema[i];

		/* parents come first; help everywhere; defaults are valid */
		assert_true(n->parent >= 0 && (unsigned)n->parent < i);
		assert_non_null(n->help);
		assert_true(n->comp != 0);
		if (n->dflt != NULL &&
		    mgmt_schema_check_value((enum mgmt_sid)i, n->dflt, canon,
			&err) != 0)
			fail_msg("default of %s: %s", n->name, err.msg);
		if (n->kind == MGMT_SK_LIST || n->kind == MGMT_SK_LEAF ||
		    n->kind == MGMT_SK_LEAFLIST)
			assert_true(n->type != MGMT_T_NONE);
	}
	assert_int_equal(mgmt_schema_check_value(MGMT_S_ROUTE, "10.0.0.0/8",
			     canon, &err),
	    0);
	assert_int_equal(mgmt_schema_check_value(MGMT_S_IFACE_ADDRESS,
			     "198.18.0.1/24", canon, &err),
	    0);
	assert_string_equal(canon, "198.18.0.1/24");
	assert_int_equal(mgmt_schema_check_value(MGMT_S_SYS_HOSTNAME, "", canon,
			     &err),
	    -22);
	assert_int_equal(mgmt_schema_check_value(MGMT_S_STATIC, "x", canon,
			     &err),
	    -22);
	assert_int_equal(mgmt_schema_check_value(MGMT_S_IFACE_ARP_MAC,
			     "0A:1b:2C:3d:4E:5f", canon, &err),
	    0);
	assert_string_equal(canon, "0a:1b:2c:3d:4e:5f");
	{
		uint64_t kbin;

		assert_int_equal(mgmt_value_parse(MGMT_S_IFACE_ARP_MAC,
				     "0A:1b:2C:3d:4E:5f", canon, &kbin, &err),
		    0);
		assert_true(kbin == 0x0a1b2c3d4e5full);
	}
	assert_int_equal(mgmt_schema_check_value(MGMT_S_IFACE_ARP_MAC,
			     "01:00:00:00:00:00", canon, &err),
	    -22);
	assert_int_equal(mgmt_schema_check_value(MGMT_S_IFACE_ARP,
			     "198.18.1.10", canon, &err),
	    0);
	assert_int_equal(mgmt_schema_comp(MGMT_S_IFACE_ARP), MGMT_COMP_FWD);
	assert_int_equal(mgmt_schema_comp(MGMT_S_ROUTE), MGMT_COMP_RIB);
	assert_int_equal(mgmt_schema_comp(MGMT_S_IFACE), MGMT_COMP_FWD);
}

/* Rebasing b (made from b0) on run must be a conflict on unit, and leave b
 * as it was. */
static void
rebase_conflicts(struct mgmt_conf *b, const struct mgmt_conf *b0,
    const struct mgmt_conf *run, const char *unit)
{
	struct mgmt_conf *before = mgmt_conf_dup(b);
	struct lc_err err;
	char want[200];

	snprintf(want, sizeof(want),
	    "conflict: %s was changed by another commit since this candidate "
	    "was made",
	    unit);
	assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), -EBUSY);
	assert_string_equal(err.msg, want);
	assert_true(mgmt_conf_equal(before, b));
	mgmt_conf_free(before);
}

static void
test_rebase(void **s)
{
	struct mgmt_conf *b0 = base(), *a = mgmt_conf_dup(b0),
			 *b = mgmt_conf_dup(b0), *run;
	struct lc_err err;
	char *p;

	(void)s;
	/* session A commits first */
	assert_int_equal(cmd(a, "set interfaces eth1 mtu 9000", &err), 0);
	assert_int_equal(cmd(a, "delete protocols static route 10.0.0.0/8",
			     &err),
	    0);
	run = mgmt_conf_dup(a);
	/* session B, made from the old running, changes other units */
	assert_int_equal(cmd(b,
			     "set protocols static route 10.5.0.0/16 "
			     "blackhole",
			     &err),
	    0);
	assert_int_equal(cmd(b, "delete protocols static route 10.1.0.0/16",
			     &err),
	    0);
	assert_int_equal(cmd(b, "set fwd workers 2", &err), 0);
	assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), 0);
	p = printed(b);
	assert_string_equal(p,
	    "interfaces {\n"
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
	rebase_conflicts(b, b0, run, "interfaces eth1");
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
	struct lc_err err;
	struct json_object *j, *v;

	(void)s;
	assert_int_equal(cmd(c, "set interfaces eth0 disable", &err), 0);
	assert_int_equal(cmd(c, "set system host-name \"a \\\"q\\\"\"", &err),
	    0);
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
	struct lc_err err;

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
	struct lc_err err;
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
			assert_int_equal(cmd(c, line, &err),
			    ref.nh[key] ? 0 : -2);
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
	struct lc_err err;
	const struct mgmt_node *p = NULL;
	unsigned seed = 99;
	char line[128];

	(void)s;
	lc_buf_printf(&t, "protocols static {\n");
	for (unsigned i = 0; i < 3000; i++)
		lc_buf_printf(&t, "route 11.%u.%u.0/24 blackhole;\n",
		    ((i * 7) % 3000) >> 8, ((i * 7) % 3000) & 255);
	lc_buf_printf(&t, "}\n");
	assert_int_equal(mgmt_conf_parse((char *)t.data, t.len, "p", &c, &err),
	    0);
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

/* ---- static ARP entries: a list inside the interface list ---- */

/* The block of docs/config.md, in brace form. */
static const char arp_block[] = "interfaces {\n"
				"    eth1 {\n"
				"        address 198.18.1.1/24;\n"
				"        arp 198.18.1.10 {\n"
				"            mac 02:00:5e:00:01:0a;\n"
				"        }\n"
				"    }\n"
				"}\n";

/* line must succeed */
static void
ok(struct mgmt_conf *c, const char *line)
{
	struct lc_err err = {0};

	if (cmd(c, line, &err) != 0)
		fail_msg("%s: %s", line, err.msg);
}

static const struct mgmt_node *
iface_node(const struct mgmt_conf *c, const char *name)
{
	struct mgmt_key k = {MGMT_S_IFACE, 0, name};

	return (
	    mgmt_node_find(mgmt_node_find_sid(c->root, MGMT_S_INTERFACES), &k));
}

/* Brace form in; one-line form, set form and JSON out; each parses or
 * applies back to the same tree. */
static void
test_arp_round_trip(void **s)
{
	struct mgmt_conf *c, *re, *fromset = mgmt_conf_new();
	struct lc_err err;
	struct json_object *j, *v;
	char *p, *line, *save;

	(void)s;
	assert_int_equal(mgmt_conf_parse(arp_block, strlen(arp_block), "arp",
			     &c, &err),
	    0);
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	p = printed(c);
	assert_string_equal(p,
	    "interfaces {\n"
	    "    eth1 {\n"
	    "        address 198.18.1.1/24;\n"
	    "        arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n"
	    "    }\n"
	    "}\n");
	assert_int_equal(mgmt_conf_parse(p, strlen(p), "printed", &re, &err),
	    0);
	assert_true(mgmt_conf_equal(c, re));
	mgmt_conf_free(re);
	free(p);
	p = printed_as(c, mgmt_conf_print_set);
	assert_string_equal(p,
	    "set interfaces eth1 address 198.18.1.1/24\n"
	    "set interfaces eth1 arp 198.18.1.10 mac "
	    "02:00:5e:00:01:0a\n");
	for (line = strtok_r(p, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		assert_int_equal(cmd(fromset, line, &err), 0);
	assert_true(mgmt_conf_equal(c, fromset));
	free(p);
	p = printed_as(c, mgmt_conf_print_json);
	assert_string_equal(p,
	    "{\"interfaces\":{\"eth1\":{\"address\":"
	    "[\"198.18.1.1/24\"],\"arp\":{\"198.18.1.10\":"
	    "{\"mac\":\"02:00:5e:00:01:0a\"}}}}}");
	j = json_tokener_parse(p);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "interfaces", &v));
	assert_true(json_object_object_get_ex(v, "eth1", &v));
	assert_true(json_object_object_get_ex(v, "arp", &v));
	assert_true(json_object_object_get_ex(v, "198.18.1.10", &v));
	assert_true(json_object_object_get_ex(v, "mac", &v));
	assert_string_equal(json_object_get_string(v), "02:00:5e:00:01:0a");
	json_object_put(j);
	free(p);
	mgmt_conf_free(c);
	mgmt_conf_free(fromset);
}

static void
test_arp_set_delete(void **s)
{
	static const uint8_t m9[6] = {0x02, 0x00, 0x5e, 0x00, 0x01, 0x09},
			     m10[6] = {0x02, 0x00, 0x5e, 0x00, 0x01, 0x0a};
	struct mgmt_conf *c = base();
	struct mgmt_iface_conf ic;
	const struct mgmt_node *root;
	struct lc_err err;
	char *p;

	(void)s;
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5E:00:01:0A");
	ok(c, "set interfaces eth1 arp 198.18.1.9 mac 02:00:5e:00:01:09");
	ok(c, "set interfaces eth0 arp 198.18.0.77 mac 0a:0b:0c:0d:0e:0f");
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	p = printed(c);
	assert_string_equal(p,
	    "interfaces {\n"
	    "    eth0 {\n"
	    "        device veth0;\n"
	    "        address 198.18.0.1/24;\n"
	    "        arp 198.18.0.77 mac 0a:0b:0c:0d:0e:0f;\n"
	    "    }\n"
	    "    eth1 {\n"
	    "        address 198.18.1.1/24;\n"
	    "        arp 198.18.1.9 mac 02:00:5e:00:01:09;\n"
	    "        arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n"
	    "    }\n"
	    "}\n"
	    "protocols {\n"
	    "    static {\n"
	    "        route 10.0.0.0/8 next-hop 198.18.0.2;\n"
	    "        route 10.1.0.0/16 interface eth1;\n"
	    "    }\n"
	    "}\n"
	    "rib {\n"
	    "    ecmp-width 4;\n"
	    "}\n");
	free(p);
	p = printed_as(c, mgmt_conf_print_set);
	assert_non_null(strstr(p,
	    "set interfaces eth0 address 198.18.0.1/24\n"
	    "set interfaces eth0 arp 198.18.0.77 mac "
	    "0a:0b:0c:0d:0e:0f\n"
	    "set interfaces eth1 address 198.18.1.1/24\n"
	    "set interfaces eth1 arp 198.18.1.9 mac "
	    "02:00:5e:00:01:09\n"
	    "set interfaces eth1 arp 198.18.1.10 mac "
	    "02:00:5e:00:01:0a\n"));
	free(p);
	/* the typed view, in address order */
	assert_int_equal(mgmt_conf_iface_get(iface_node(c, "eth1"), &ic), 0);
	assert_int_equal(ic.narp, 2);
	assert_string_equal(lc_ip4_ntoa(ic.arp_ip[0]), "198.18.1.9");
	assert_memory_equal(ic.arp_mac[0], m9, 6);
	assert_string_equal(lc_ip4_ntoa(ic.arp_ip[1]), "198.18.1.10");
	assert_memory_equal(ic.arp_mac[1], m10, 6);
	/* the same value in other case is no change (the tree stays) */
	root = c->root;
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0A");
	assert_ptr_equal(c->root, root);
	/* a new mac replaces the old one */
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:ff");
	assert_int_equal(mgmt_conf_iface_get(iface_node(c, "eth1"), &ic), 0);
	assert_int_equal(ic.narp, 2);
	assert_int_equal(ic.arp_mac[1][5], 0xff);
	/* an entry without a mac: set accepts, validation refuses (a set
	 * node has no position: the message names the path) */
	ok(c, "set interfaces eth1 arp 198.18.1.11");
	assert_int_equal(mgmt_conf_iface_get(iface_node(c, "eth1"), &ic), 0);
	assert_int_equal(ic.narp, 3);
	assert_true(ic.arp_nomac[2]);
	assert_false(ic.arp_nomac[0] || ic.arp_nomac[1]);
	assert_int_equal(mgmt_conf_validate(c, &err), -22);
	assert_string_equal(err.msg,
	    "interface eth1: arp 198.18.1.11: expected mac");
	/* delete one entry; one that is not there */
	ok(c, "delete interfaces eth1 arp 198.18.1.11");
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	set_fails(c, "delete interfaces eth1 arp 198.18.1.11", -2,
	    "interfaces eth1 arp 198.18.1.11: not configured");
	set_fails(c,
	    "delete interfaces eth1 arp 198.18.1.10 mac 02:00:00:00:00:99", -2,
	    "interfaces eth1 arp 198.18.1.10 mac 02:00:00:00:00:99: not "
	    "configured (the value is 02:00:5e:00:01:ff)");
	/* the mac only: the entry stays, without one */
	ok(c, "delete interfaces eth1 arp 198.18.1.10 mac");
	assert_int_equal(mgmt_conf_iface_get(iface_node(c, "eth1"), &ic), 0);
	assert_int_equal(ic.narp, 2);
	assert_true(ic.arp_nomac[1]);
	/* all entries of an interface; the interface stays */
	ok(c, "delete interfaces eth1 arp");
	assert_int_equal(mgmt_conf_iface_get(iface_node(c, "eth1"), &ic), 0);
	assert_int_equal(ic.narp, 0);
	assert_int_equal(ic.naddr, 1);
	set_fails(c, "delete interfaces eth1 arp", -2,
	    "interfaces eth1 arp: not configured");
	ok(c, "delete interfaces eth0 arp");
	p = printed(c);
	assert_null(strstr(p, "arp"));
	free(p);
	mgmt_conf_free(c);
}

#define MAC_EXPECTED \
	"expected a MAC address xx:xx:xx:xx:xx:xx (six pairs of hex digits)"

#define UNICAST_EXPECTED "expected a unicast MAC address"

/* `set interfaces eth1 arp ip mac v` is refused with why, naming v; the
 * tree is unchanged */
static void
mac_fails(struct mgmt_conf *c, const char *ip, const char *v, const char *why)
{
	char line[200], msg[400];

	snprintf(line, sizeof(line), "set interfaces eth1 arp %s mac %s", ip,
	    v);
	snprintf(msg, sizeof(msg),
	    "interfaces eth1 arp %s mac: invalid mac '%s': %s", ip, v, why);
	set_fails(c, line, -22, msg);
}

static void
test_arp_set_errors(void **s)
{
	struct mgmt_conf *c = base();

	(void)s;
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a");
	/* every bad mac, on the existing entry and on a new one */
	mac_fails(c, "198.18.1.10", "02:00:5e:00:01", MAC_EXPECTED);
	mac_fails(c, "198.18.1.10", "02:00:5e:00:01:0a:0b", MAC_EXPECTED);
	mac_fails(c, "198.18.1.10", "2:0:5e:0:1:a", MAC_EXPECTED);
	mac_fails(c, "198.18.1.10", "02-00-5e-00-01-0a", MAC_EXPECTED);
	mac_fails(c, "198.18.1.10", "zz:00:5e:00:01:0a", MAC_EXPECTED);
	mac_fails(c, "198.18.1.11", "01:00:5e:00:00:01",
	    "a group (multicast) address, " UNICAST_EXPECTED);
	mac_fails(c, "198.18.1.10", "ff:ff:ff:ff:ff:ff",
	    "the broadcast address, " UNICAST_EXPECTED);
	mac_fails(c, "198.18.1.11", "00:00:00:00:00:00",
	    "the all-zero address, " UNICAST_EXPECTED);
	/* the path around it */
	set_fails(c, "set interfaces eth1 arp 198.18.1.10 mac", -22,
	    "interfaces eth1 arp 198.18.1.10 mac: missing value, expected "
	    "<xx:xx:xx:xx:xx:xx>");
	set_fails(c, "set interfaces eth1 arp", -22,
	    "interfaces eth1 arp: missing value, expected <a.b.c.d>");
	set_fails(c, "set interfaces eth1 arp 198.18.1 mac 02:00:5e:00:01:0a",
	    -22,
	    "interfaces eth1 arp: invalid arp '198.18.1': expected an IPv4 "
	    "address a.b.c.d");
	set_fails(c, "set interfaces eth1 arp 198.18.1.10 colour red", -22,
	    "interfaces eth1 arp 198.18.1.10: unknown word 'colour', expected "
	    "mac");
	set_fails(c,
	    "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0b extra",
	    -22,
	    "interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0b: "
	    "unexpected 'extra' after the value of mac");
	mgmt_conf_free(c);
}

/* A change to an entry is a MOD of its interface; compare shows where. */
/* show | compare of old -> new is exactly want */
static void
compare_is(const struct mgmt_conf *old, const struct mgmt_conf *new,
    const char *want)
{
	struct lc_buf b = {0};

	mgmt_conf_compare(old, new, &b);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data, want);
	lc_buf_fini(&b);
}

static void
test_arp_changes(void **s)
{
	struct mgmt_conf *run = base(), *cand;
	struct mgmt_changes chg = {0};
	struct mgmt_iface_conf ic;
	struct lc_err err;

	(void)s;
	ok(run, "set interfaces eth1 arp 198.18.1.9 mac 02:00:5e:00:01:09");
	ok(run, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a");
	cand = mgmt_conf_dup(run);
	ok(cand, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:ff");
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	assert_true(chg.v[0].op == MGMT_CHG_MOD &&
	    chg.v[0].unit == MGMT_S_IFACE && chg.v[0].comp == MGMT_COMP_FWD);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].new, &ic), 0);
	assert_string_equal(ic.name, "eth1");
	assert_int_equal(ic.narp, 2);
	assert_int_equal(ic.arp_mac[0][5], 0x09);
	assert_int_equal(ic.arp_mac[1][5], 0xff);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].old, &ic), 0);
	assert_int_equal(ic.arp_mac[1][5], 0x0a);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), 0);
	mgmt_changes_fini(&chg);
	compare_is(run, cand,
	    "[edit interfaces eth1 arp 198.18.1.10]\n"
	    "-    mac 02:00:5e:00:01:0a;\n"
	    "+    mac 02:00:5e:00:01:ff;\n");
	/* one entry gone, one new */
	ok(cand, "delete interfaces eth1 arp 198.18.1.9");
	ok(cand, "set interfaces eth1 arp 198.18.1.20 mac 02:00:5e:00:01:14");
	compare_is(run, cand,
	    "[edit interfaces eth1]\n"
	    "-    arp 198.18.1.9 mac 02:00:5e:00:01:09;\n"
	    "[edit interfaces eth1 arp 198.18.1.10]\n"
	    "-    mac 02:00:5e:00:01:0a;\n"
	    "+    mac 02:00:5e:00:01:ff;\n"
	    "[edit interfaces eth1]\n"
	    "+    arp 198.18.1.20 mac 02:00:5e:00:01:14;\n");
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	mgmt_changes_fini(&chg);
	/* undone in new nodes: no change */
	ok(cand, "delete interfaces eth1 arp 198.18.1.20");
	ok(cand, "set interfaces eth1 arp 198.18.1.9 mac 02:00:5e:00:01:09");
	ok(cand, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a");
	assert_true(mgmt_conf_equal(run, cand));
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 0);
	mgmt_changes_fini(&chg);
	/* the incremental check of an entry outside the subnets */
	ok(cand, "set interfaces eth1 arp 198.18.9.9 mac 02:00:5e:00:01:0a");
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -22);
	assert_string_equal(err.msg,
	    "interface eth1: arp 198.18.9.9: not in a subnet of the "
	    "interface (subnets: 198.18.1.0/24)");
	mgmt_changes_fini(&chg);
	/* an address change re-checks the entries */
	mgmt_conf_assign(cand, run);
	ok(cand, "delete interfaces eth1 address 198.18.1.1/24");
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -22);
	assert_string_equal(err.msg,
	    "interface eth1: arp 198.18.1.9: not in a subnet of the interface "
	    "(the interface has no address)");
	mgmt_changes_fini(&chg);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
}

static void
test_arp_merge_rebase(void **s)
{
	struct mgmt_conf *c = base(), *m, *b0, *a, *b, *run;
	const char *t =
	    "interfaces eth1 arp 198.18.1.10 mac 02:00:00:00:00:0b;\n"
	    "interfaces eth1 arp 198.18.1.11 mac 02:00:00:00:00:0c;\n";
	struct lc_err err;
	char *p;

	(void)s;
	ok(c, "set interfaces eth1 arp 198.18.1.9 mac 02:00:00:00:00:09");
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:00:00:00:0a");
	b0 = mgmt_conf_dup(c);
	/* merge: entries united, the file's mac wins */
	assert_int_equal(mgmt_conf_parse(t, strlen(t), "m", &m, &err), 0);
	mgmt_conf_merge(c, m);
	p = printed(c);
	assert_non_null(strstr(p,
	    "    eth1 {\n"
	    "        address 198.18.1.1/24;\n"
	    "        arp 198.18.1.9 mac 02:00:00:00:00:09;\n"
	    "        arp 198.18.1.10 mac 02:00:00:00:00:0b;\n"
	    "        arp 198.18.1.11 mac 02:00:00:00:00:0c;\n"
	    "    }\n"));
	free(p);
	mgmt_conf_free(m);
	mgmt_conf_free(c);
	/* rebase: A changed eth0, B the entries of eth1: both kept */
	a = mgmt_conf_dup(b0);
	b = mgmt_conf_dup(b0);
	ok(a, "set interfaces eth0 mtu 9000");
	run = mgmt_conf_dup(a);
	ok(b, "delete interfaces eth1 arp 198.18.1.9");
	ok(b, "set interfaces eth1 arp 198.18.1.12 mac 02:00:00:00:00:12");
	assert_int_equal(mgmt_conf_rebase(b, b0, run, &err), 0);
	p = printed(b);
	assert_non_null(strstr(p, "        mtu 9000;\n"));
	assert_non_null(strstr(p,
	    "    eth1 {\n"
	    "        address 198.18.1.1/24;\n"
	    "        arp 198.18.1.10 mac 02:00:00:00:00:0a;\n"
	    "        arp 198.18.1.12 mac 02:00:00:00:00:12;\n"
	    "    }\n"));
	free(p);
	/* B's entry change on the interface A changed: conflict */
	mgmt_conf_assign(b, b0);
	ok(b, "set interfaces eth0 arp 198.18.0.5 mac 02:00:00:00:00:05");
	rebase_conflicts(b, b0, run, "interfaces eth0");
	mgmt_conf_free(a);
	mgmt_conf_free(b);
	mgmt_conf_free(b0);
	mgmt_conf_free(run);
}

/* The candidates for w[0..nw) and partial are exactly the words given
 * (NULL-terminated), in that order; v gets them. */
static void
compl_is(const struct mgmt_conf *c, const char *const *w, unsigned nw,
    const char *partial, struct mgmt_compl *v, ...)
{
	struct lc_err err = {0};
	const char *want;
	va_list ap;
	int n = mgmt_schema_complete(c, w, nw, partial, v, 32, &err), k = 0;

	if (n < 0)
		fail_msg("%s", err.msg);
	va_start(ap, v);
	while ((want = va_arg(ap, const char *)) != NULL) {
		assert_true(k < n);
		assert_string_equal(v[k++].word, want);
	}
	va_end(ap);
	assert_int_equal(n, k);
}

static void
test_arp_complete_show(void **s)
{
	struct mgmt_conf *c = base();
	struct mgmt_compl v[32];
	struct lc_err err;
	struct lc_buf b = {0};
	const char *w[8] = {"interfaces", "eth1", "arp", "198.18.1.10", "mac"};

	(void)s;
	ok(c, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a");
	ok(c, "set interfaces eth1 arp 198.18.1.9 mac 02:00:5e:00:01:09");
	/* the keyword, with its help, after the other leaves */
	compl_is(c, w, 2, "", v, "device", "address", "inet6", "link-local",
	    "router-advertisement", "mtu", "disable", "port-backend",
	    "host-path", "arp", "ndp", NULL);
	assert_string_equal(v[9].help,
	    "Static ARP entry: neighbour address on this interface's subnet");
	assert_false(v[9].is_value || v[9].is_leaf);
	compl_is(c, w, 2, "a", v, "address", "arp", NULL);
	/* the keys: existing ones in address order, then the placeholder */
	compl_is(c, w, 3, "", v, "198.18.1.9", "198.18.1.10", "<a.b.c.d>",
	    NULL);
	assert_true(v[2].is_value && !v[0].is_value);
	compl_is(c, w, 3, "198.18.1.1", v, "198.18.1.10", "<a.b.c.d>", NULL);
	/* inside an entry: mac */
	compl_is(c, w, 4, "", v, "mac", NULL);
	assert_string_equal(v[0].help,
	    "Link-layer address of the neighbour (unicast)");
	/* the value: the current one and the placeholder */
	compl_is(c, w, 5, "", v, "02:00:5e:00:01:0a", "<xx:xx:xx:xx:xx:xx>",
	    NULL);
	assert_true(v[1].is_value && v[1].is_leaf);
	assert_string_equal(v[1].help,
	    "Link-layer address of the neighbour (unicast)");
	/* a new entry: no value to offer but the placeholder */
	w[3] = "198.18.1.77";
	compl_is(c, w, 5, "", v, "<xx:xx:xx:xx:xx:xx>", NULL);
	/* a bad value is named */
	w[5] = "01:00:5e:00:00:01";
	assert_int_equal(mgmt_schema_complete(c, w, 6, "", v, 32, &err), -22);
	assert_string_equal(err.msg,
	    "invalid mac '01:00:5e:00:00:01': a group (multicast) address, "
	    "expected a unicast MAC address");
	/* show at each level */
	w[3] = "198.18.1.10";
	assert_int_equal(mgmt_conf_show(c, w, 3, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data,
	    "arp 198.18.1.9 mac 02:00:5e:00:01:09;\n"
	    "arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n");
	lc_buf_reset(&b);
	assert_int_equal(mgmt_conf_show(c, w, 4, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data, "mac 02:00:5e:00:01:0a;\n");
	lc_buf_reset(&b);
	assert_int_equal(mgmt_conf_show(c, w, 5, &b, &err), 0);
	lc_buf_append(&b, "", 1);
	assert_string_equal((char *)b.data, "mac 02:00:5e:00:01:0a;\n");
	w[3] = "198.18.1.99";
	assert_int_equal(mgmt_conf_show(c, w, 4, &b, &err), -2);
	assert_string_equal(err.msg,
	    "interfaces eth1 arp 198.18.1.99: not "
	    "configured");
	lc_buf_fini(&b);
	mgmt_conf_free(c);
}

/*
 * host-path enable|disable: an enum leaf of the interface (default
 * enable), set and deleted, refused with the words it takes, printed in
 * each form, a MOD of its interface, completed with its values.
 */
static void
test_host_path(void **s)
{
	struct mgmt_conf *run = base(), *cand, *re;
	struct mgmt_changes chg = {0};
	struct mgmt_iface_conf ic;
	struct mgmt_compl v[32];
	const char *w[4] = {"interfaces", "eth1", "host-path"};
	struct lc_err err;
	char *p;

	(void)s;
	/* the default, and each value */
	assert_int_equal(mgmt_conf_iface_get(iface_node(run, "eth1"), &ic), 0);
	assert_true(ic.host_path);
	cand = mgmt_conf_dup(run);
	ok(cand, "set interfaces eth1 host-path disable");
	assert_int_equal(mgmt_conf_iface_get(iface_node(cand, "eth1"), &ic), 0);
	assert_false(ic.host_path);
	assert_int_equal(mgmt_conf_iface_get(iface_node(cand, "eth0"), &ic), 0);
	assert_true(ic.host_path);
	/* bad values change nothing and name the words */
	set_fails(cand, "set interfaces eth1 host-path off", -22,
	    "interfaces eth1 host-path: invalid host-path 'off': expected one "
	    "of enable, disable");
	set_fails(cand, "set interfaces eth1 host-path", -22,
	    "interfaces eth1 host-path: missing value, expected one of "
	    "enable, disable");
	set_fails(cand, "set interfaces eth1 host-path disable now", -22,
	    "interfaces eth1 host-path disable: unexpected 'now' after the "
	    "value of host-path");
	/* printed after port-backend, before arp, in all three forms */
	ok(cand, "set interfaces eth1 arp 198.18.1.10 mac 02:00:5e:00:01:0a");
	p = printed(cand);
	assert_non_null(strstr(p,
	    "    eth1 {\n"
	    "        address 198.18.1.1/24;\n"
	    "        host-path disable;\n"
	    "        arp 198.18.1.10 mac 02:00:5e:00:01:0a;\n"
	    "    }\n"));
	assert_int_equal(mgmt_conf_parse(p, strlen(p), "printed", &re, &err),
	    0);
	assert_true(mgmt_conf_equal(cand, re));
	mgmt_conf_free(re);
	free(p);
	p = printed_as(cand, mgmt_conf_print_set);
	assert_non_null(strstr(p,
	    "set interfaces eth1 address 198.18.1.1/24\n"
	    "set interfaces eth1 host-path disable\n"
	    "set interfaces eth1 arp 198.18.1.10"));
	free(p);
	p = printed_as(cand, mgmt_conf_print_json);
	assert_non_null(strstr(p,
	    "\"eth1\":{\"address\":[\"198.18.1.1/24\"],\"host-path\":"
	    "\"disable\",\"arp\":"));
	free(p);
	ok(cand, "delete interfaces eth1 arp");
	/* one MOD of the interface, sent to fwd; compare says what */
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	assert_true(chg.v[0].op == MGMT_CHG_MOD &&
	    chg.v[0].unit == MGMT_S_IFACE && chg.v[0].comp == MGMT_COMP_FWD);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].old, &ic), 0);
	assert_true(ic.host_path);
	assert_int_equal(mgmt_conf_iface_get(chg.v[0].new, &ic), 0);
	assert_false(ic.host_path);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), 0);
	mgmt_changes_fini(&chg);
	compare_is(run, cand,
	    "[edit interfaces eth1]\n"
	    "+    host-path disable;\n");
	ok(cand, "set interfaces eth1 host-path enable");
	compare_is(run, cand,
	    "[edit interfaces eth1]\n"
	    "+    host-path enable;\n");
	/* enable written out is a change of the config (fwd gets ENABLE
	 * again); deleting it is none */
	assert_int_equal(mgmt_conf_iface_get(iface_node(cand, "eth1"), &ic), 0);
	assert_true(ic.host_path);
	ok(cand, "delete interfaces eth1 host-path");
	assert_true(mgmt_conf_equal(run, cand));
	/* completion: the keyword with its help, then the values */
	compl_is(cand, w, 2, "h", v, "host-path", NULL);
	assert_string_equal(v[0].help,
	    "Mirror the port in a kernel interface for the router's own "
	    "sockets");
	assert_string_equal(v[0].dflt, "enable");
	compl_is(cand, w, 3, "", v, "enable", "disable", NULL);
	assert_true(v[1].is_leaf && !v[1].is_value);
	compl_is(cand, w, 3, "d", v, "disable", NULL);
	mgmt_conf_free(run);
	mgmt_conf_free(cand);
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
	    cmocka_unit_test(test_arp_round_trip),
	    cmocka_unit_test(test_arp_set_delete),
	    cmocka_unit_test(test_arp_set_errors),
	    cmocka_unit_test(test_arp_changes),
	    cmocka_unit_test(test_arp_merge_rebase),
	    cmocka_unit_test(test_arp_complete_show),
	    cmocka_unit_test(test_host_path),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
