/* tests/unit/mgmt/test_policy.c: policy-options (issue 21): community
 * values, the anonymous as-path regex (set, print, set form, JSON,
 * completion), terms in natural order, every validation error, the checks
 * a commit runs when only policy-options changed, and the encoding sent to
 * tern-bgp (bgp.PolicyOptions). The push itself: test_bgp.c. */
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

#include "ipc/proto/bgp.pb-c.h"
#include "mgmt/mgmt_conf_int.h"
#include "mgmt/mgmt_int.h"

#define IFS "interfaces eth0 address 198.18.1.1/24;\n"
#define NBR                                                                \
	"protocols bgp { local-as 65001; neighbor 198.18.1.2 { remote-as " \
	"65002; import IN; } }\n"

static struct mgmt_conf *
parse(const char *text)
{
	struct mgmt_conf *c;
	struct lc_err err;

	if (mgmt_conf_parse(text, strlen(text), "p.conf", &c, &err) != 0)
		fail_msg("parse: %s: %s", text, err.msg);
	return (c);
}

static struct mgmt_conf *
good(const char *text)
{
	struct mgmt_conf *c = parse(text);
	struct lc_err err;

	if (mgmt_conf_validate(c, &err) != 0)
		fail_msg("%s: %s", text, err.msg);
	return (c);
}

static unsigned mismatches;

/* parses, and validation refuses it with exactly msg */
static void
invalid(const char *text, const char *msg)
{
	struct mgmt_conf *c = parse(text);
	struct lc_err err;

	if (mgmt_conf_validate(c, &err) == 0)
		fail_msg("valid: %s", text);
	/* each mismatch said, the test fails at its end (test_validation) */
	if (strcmp(err.msg, msg) != 0) {
		print_error("for %s\n got: %s\nwant: %s\n", text, err.msg, msg);
		mismatches++;
	}
	mgmt_conf_free(c);
}

/* does not parse: exactly msg */
static void
bad(const char *text, const char *msg)
{
	struct mgmt_conf *c = NULL;
	struct lc_err err;

	if (mgmt_conf_parse(text, strlen(text), "p.conf", &c, &err) == 0)
		fail_msg("parsed: %s", text);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
}

static int
cmd(struct mgmt_conf *c, const char *line, struct lc_err *err)
{
	char buf[512];
	const char *w[32];
	int n = mgmt_conf_split(line, buf, sizeof(buf), w, 32);

	assert_true(n >= 2);
	if (strcmp(w[0], "set") == 0)
		return (mgmt_conf_set(c, w + 1, (unsigned)n - 1, err));
	return (mgmt_conf_delete(c, w + 1, (unsigned)n - 1, err));
}

static void
test_communities(void **st)
{
	struct mgmt_comm c;
	static const char *const nope[] = {"", "1", "1:2:3:4", ":1",
	    "1:", "1::2", "65536:1", "1:65536", "4294967296:1:1", "a:b", "-1:2",
	    "01:2", "no-exports", "**:1", "1:2:", NULL};

	(void)st;
	assert_int_equal(mgmt_comm_parse("65000:100", &c), 0);
	assert_false(c.large);
	assert_int_equal(c.v[0], 65000);
	assert_int_equal(c.v[1], 100);
	assert_int_equal(c.wild, 0);
	assert_int_equal(mgmt_comm_parse("4200000000:1:4294967295", &c), 0);
	assert_true(c.large);
	assert_int_equal(c.v[0], 4200000000u);
	assert_int_equal(c.v[2], 4294967295u);
	assert_int_equal(mgmt_comm_parse("65000:*", &c), 0);
	assert_int_equal(c.wild, 2);
	assert_int_equal(mgmt_comm_parse("*:*:7", &c), 0);
	assert_int_equal(c.wild, 3);
	assert_true(c.large);
	assert_int_equal(mgmt_comm_parse("no-export", &c), 0);
	assert_int_equal(c.v[0] << 16 | c.v[1], 0xffffff01u);
	assert_int_equal(mgmt_comm_parse("no-advertise", &c), 0);
	assert_int_equal(c.v[1], 0xff02);
	assert_int_equal(mgmt_comm_parse("no-export-subconfed", &c), 0);
	assert_int_equal(c.v[1], 0xff03);
	assert_int_equal(mgmt_comm_parse("no-peer", &c), 0);
	assert_int_equal(mgmt_comm_parse("blackhole", &c), 0);
	assert_int_equal(c.v[1], 666);
	assert_int_equal(mgmt_comm_parse("graceful-shutdown", &c), 0);
	assert_int_equal(c.v[0], 65535);
	assert_int_equal(c.v[1], 0);
	for (unsigned i = 0; nope[i] != NULL; i++)
		if (mgmt_comm_parse(nope[i], &c) == 0)
			fail_msg("'%s' parsed", nope[i]);
	bad("policy-options community C members 65536:1;",
	    "p.conf:1:36: invalid members '65536:1': expected a community "
	    "high:low (0..65535 each), a large community "
	    "global:local1:local2, '*' for any field, or a name: no-export, "
	    "no-advertise, no-export-subconfed, no-peer, blackhole, "
	    "graceful-shutdown");
}

static void
test_values(void **st)
{
	(void)st;
	bad("policy-options prefix-list L 198.18.0.1/16;",
	    "p.conf:1:30: invalid prefix '198.18.0.1/16': host bits set, "
	    "expected 198.18.0.0/16");
	bad("policy-options prefix-list L 198.18.0.0/16 ge 0;",
	    "p.conf:1:47: ge 0 out of range, expected 1..32");
	bad("policy-options prefix-list L 198.18.0.0/16 le 33;",
	    "p.conf:1:47: le 33 out of range, expected 1..32");
	bad("policy-options as-path P \"a\" \"b\";",
	    "p.conf:1:30: expected ';' after the value of 'as-path'");
	bad("policy-options policy-statement P term t1 then as-path-prepend 33;",
	    "p.conf:1:64: as-path-prepend 33 out of range, expected 1..32");
	bad("policy-options policy-statement P term t1 then accept yes;",
	    "p.conf:1:55: unexpected 'yes': 'accept' takes no value");
	bad("policy-options policy-statement P term t1 from colour red;",
	    "p.conf:1:48: unknown word 'colour', expected prefix-list, "
	    "as-path, community, neighbor");
	bad("policy-options as-path P "
	    "\"0123456789012345678901234567890123456789012345678901234567890123"
	    "\";",
	    "p.conf:1:26: invalid regex "
	    "'0123456789012345678901234567890123456789012345678901234567890123'"
	    ": expected text of 1..63 characters");
}

/* the regex as a value of the list entry, every way the config is seen */
static void
test_aspath_forms(void **st)
{
	struct mgmt_conf *c = mgmt_conf_new();
	struct lc_buf out = {0};
	struct lc_err err;
	struct mgmt_compl cv[8];
	const char *w[] = {"policy-options", "as-path", "P"};
	json_object *jo, *v;

	(void)st;
	assert_int_equal(cmd(c, "set policy-options as-path P \"^65002 \"",
			     &err),
	    0);
	mgmt_conf_print(c, &out);
	lc_buf_append(&out, "", 1);
	assert_string_equal((char *)out.data,
	    "policy-options {\n    as-path P \"^65002 \";\n}\n");
	lc_buf_fini(&out);
	/* set replaces it */
	assert_int_equal(cmd(c, "set policy-options as-path P ^65003$", &err),
	    0);
	mgmt_conf_print_set(c, &out);
	lc_buf_append(&out, "", 1);
	assert_string_equal((char *)out.data,
	    "set policy-options as-path P ^65003$\n");
	lc_buf_fini(&out);
	mgmt_conf_print_json(c, &out);
	lc_buf_append(&out, "", 1);
	assert_non_null(jo = json_tokener_parse((char *)out.data));
	assert_true(json_object_object_get_ex(jo, "policy-options", &v));
	assert_true(json_object_object_get_ex(v, "as-path", &v));
	assert_true(json_object_object_get_ex(v, "P", &v));
	assert_string_equal(json_object_get_string(v), "^65003$");
	json_object_put(jo);
	lc_buf_fini(&out);
	/* after the name: the regex is what comes */
	assert_int_equal(mgmt_schema_complete(c, w, 3, "", cv, 8, &err), 2);
	assert_string_equal(cv[0].word, "^65003$");
	assert_true(cv[1].is_value);
	assert_string_equal(cv[1].word, "<regex>");
	assert_int_equal(mgmt_schema_complete(c, w, 2, "", cv, 8, &err), 2);
	assert_string_equal(cv[0].word, "P");
	assert_int_equal(cmd(c, "set policy-options as-path P x y", &err),
	    -EINVAL);
	assert_string_equal(err.msg,
	    "policy-options as-path P x: unexpected 'y' after the value of "
	    "as-path");
	assert_int_equal(cmd(c, "delete policy-options as-path P", &err), 0);
	assert_null(mgmt_policy_of(c));
	mgmt_conf_free(c);
}

/* The encoder's memory: every part, freed by palloc_free(). */
static void *palloc_v[4096];
static unsigned palloc_n;

static void *
palloc(void *arg, size_t n)
{
	void *p = calloc(1, n);

	(void)arg;
	assert_non_null(p);
	assert_true(palloc_n < 4096);
	palloc_v[palloc_n++] = p;
	return (p);
}

static void
palloc_free(void)
{
	while (palloc_n > 0)
		free(palloc_v[--palloc_n]);
}

static const Bgp__PolicyOptions *
encode(const struct mgmt_conf *c)
{
	return (
	    (const Bgp__PolicyOptions *)mgmt_policy_encode(c, palloc, NULL));
}

/* terms in natural order: the order they run in, and print in */
static void
test_term_order(void **st)
{
	struct mgmt_conf *c = mgmt_conf_new();
	static const char *const order[] = {"9", "010", "10", "a", "t1", "t2",
	    "t10", "t10b", "t100"};
	static const char *const set[] = {"t100", "t10", "a", "t2", "9", "t10b",
	    "010", "10", "t1"};
	const Bgp__PolicyOptions *po;
	struct lc_buf out = {0};
	struct lc_err err;
	char line[128];
	const char *p;

	(void)st;
	for (unsigned i = 0; i < 9; i++) {
		snprintf(line, sizeof(line),
		    "set policy-options policy-statement P term %s then "
		    "accept",
		    set[i]);
		assert_int_equal(cmd(c, line, &err), 0);
	}
	po = encode(c);
	assert_non_null(po);
	assert_int_equal(po->n_policies, 1);
	assert_int_equal(po->policies[0]->n_terms, 9);
	for (unsigned i = 0; i < 9; i++)
		assert_string_equal(po->policies[0]->terms[i]->name, order[i]);
	palloc_free();
	mgmt_conf_print(c, &out);
	lc_buf_append(&out, "", 1);
	p = (char *)out.data;
	for (unsigned i = 0; i < 9; i++) {
		snprintf(line, sizeof(line), "term %s ", order[i]);
		assert_non_null(p = strstr(p, line));
	}
	lc_buf_fini(&out);
	mgmt_conf_free(c);
}

static void
test_validation(void **st)
{
	struct mgmt_conf *c;

	(void)st;
	invalid("policy-options prefix-list L 198.18.0.0/16 ge 8;",
	    "p.conf:1:44: policy-options prefix-list L 198.18.0.0/16: ge 8 "
	    "is shorter than the prefix, expected 16..32");
	invalid("policy-options prefix-list L 198.18.0.0/16 le 15;",
	    "p.conf:1:44: policy-options prefix-list L 198.18.0.0/16: le 15 "
	    "is shorter than the prefix, expected 16..32");
	invalid("policy-options prefix-list L 198.18.0.0/16 { ge 24; le 20; "
		"}",
	    "p.conf:1:53: policy-options prefix-list L 198.18.0.0/16: le 20 "
	    "is below ge 24");
	invalid("policy-options as-path P \"(65001\";",
	    "p.conf:1:26: policy-options as-path P \"(65001\": not a regular "
	    "expression: Unmatched ( or \\(");
	invalid("policy-options as-path P;",
	    "p.conf:1:16: policy-options as-path P: expected a regular "
	    "expression (as-path P \"^65001 \";)");
	invalid("policy-options community C;",
	    "p.conf:1:16: policy-options community C: expected members");
	invalid("policy-options policy-statement P term t1 from prefix-list "
		"L;",
	    "p.conf:1:48: policy-options policy-statement P term t1: "
	    "prefix-list L: no policy-options prefix-list L");
	invalid("policy-options policy-statement P term t1 from as-path A;",
	    "p.conf:1:48: policy-options policy-statement P term t1: as-path "
	    "A: no policy-options as-path A");
	invalid("policy-options policy-statement P term t1 from community C;",
	    "p.conf:1:48: policy-options policy-statement P term t1: "
	    "community C: no policy-options community C");
	invalid("policy-options policy-statement P term t1 then community add "
		"C;",
	    "p.conf:1:58: policy-options policy-statement P term t1: "
	    "community add C: no policy-options community C");
	invalid("policy-options policy-statement P term t1 then community "
		"delete C;",
	    "p.conf:1:58: policy-options policy-statement P term t1: "
	    "community delete C: no policy-options community C");
	invalid("policy-options { community W members [ 1:2 65000:* ];\n"
		"policy-statement P term t1 then community add W; }",
	    "p.conf:2:43: policy-options policy-statement P term t1: "
	    "community add W: member 65000:* has a '*', which only matches "
	    "or deletes");
	invalid("policy-options { community W members *:*:1;\n"
		"policy-statement P term t1 then community set W; }",
	    "p.conf:2:43: policy-options policy-statement P term t1: "
	    "community set W: member *:*:1 has a '*', which only matches or "
	    "deletes");
	invalid("policy-options policy-statement P term t1 then { accept; "
		"reject; }",
	    "p.conf:1:58: policy-options policy-statement P term t1: then "
	    "accept and reject exclude each other");
	invalid("policy-options policy-statement P then { accept; reject; }",
	    "p.conf:1:50: policy-options policy-statement P: then accept and "
	    "reject exclude each other");
	/* neighbours name policy-statements, not other definitions */
	invalid(IFS "policy-options prefix-list IN 198.18.0.0/16;\n" NBR,
	    "p.conf:3:72: protocols bgp neighbor 198.18.1.2: import IN: no "
	    "policy-options policy-statement IN");
	/* what is fine: a delete of a wildcard, a policy of no term, an
	 * empty prefix list, several of each condition */
	c = good(IFS NBR "policy-options {\n"
			 "  prefix-list E;\n"
			 "  prefix-list L 198.18.0.0/15 { ge 16; le 16; }\n"
			 "  community W members 65000:*;\n"
			 "  community T members [ 65000:1 no-export 1:2:3 ];\n"
			 "  as-path A \"^65002\";\n"
			 "  policy-statement IN {\n"
			 "    term a { from { prefix-list [ E L ]; community [ "
			 "W T ]; as-path A; neighbor [ 198.18.1.2 198.18.1.3 "
			 "]; } then { community { delete W; add T; set T; } "
			 "metric 0; local-preference 4294967295; "
			 "as-path-prepend 32; } }\n"
			 "    then accept;\n"
			 "  }\n"
			 "  policy-statement EMPTY;\n"
			 "}\n");
	mgmt_conf_free(c);
	assert_int_equal(mismatches, 0);
}

/* At commit only what changed is validated: a change of policy-options
 * alone still checks the neighbours' names, and is one unit for bgp. */
static void
test_validate_changes(void **st)
{
	struct mgmt_conf *run = good(IFS NBR "policy-options "
					     "policy-statement IN then "
					     "accept;\n");
	struct mgmt_conf *cand = mgmt_conf_dup(run);
	struct mgmt_changes chg = {0};
	struct lc_err err;
	char path[64];

	(void)st;
	assert_int_equal(cmd(cand,
			     "set policy-options prefix-list L 198.18.0.0/16",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	assert_int_equal(chg.v[0].unit, MGMT_S_POLICY);
	assert_int_equal(chg.v[0].comp, MGMT_COMP_BGP);
	assert_int_equal(chg.v[0].op, MGMT_CHG_MOD);
	assert_string_equal(mgmt_change_path(&chg.v[0], path, sizeof(path)),
	    "policy-options");
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), 0);
	mgmt_changes_fini(&chg);
	/* the policy a neighbour names, deleted */
	assert_int_equal(cmd(cand, "delete policy-options policy-statement IN",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(chg.n, 1);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -EINVAL);
	assert_string_equal(err.msg,
	    "p.conf:2:72: protocols bgp neighbor 198.18.1.2: import IN: no "
	    "policy-options policy-statement IN");
	mgmt_changes_fini(&chg);
	/* a term made by set: the message names the path */
	assert_int_equal(cmd(cand,
			     "set policy-options policy-statement IN term x "
			     "from as-path NONE",
			     &err),
	    0);
	mgmt_conf_diff(run, cand, &chg);
	assert_int_equal(mgmt_conf_validate_changes(cand, &chg, &err), -EINVAL);
	assert_string_equal(err.msg,
	    "policy-options policy-statement IN term x: as-path NONE: no "
	    "policy-options as-path NONE");
	mgmt_changes_fini(&chg);
	mgmt_conf_free(cand);
	mgmt_conf_free(run);
}

/* Every field of bgp.PolicyOptions from the config */
static void
test_encode(void **st)
{
	struct mgmt_conf *c = good(
	    "policy-options {\n"
	    "  prefix-list CUST { 198.18.0.0/15 le 24; 198.19.0.0/16 { ge "
	    "20; le 24; } 198.19.9.0/24; }\n"
	    "  as-path PATHS \"^65002( 65003)*$\";\n"
	    "  community TAGS members [ 65000:100 65000:1:2 no-export "
	    "65000:* ];\n"
	    "  community ADD members 65010:1;\n"
	    "  policy-statement IN {\n"
	    "    term t1 { from { prefix-list CUST; as-path PATHS; community "
	    "TAGS; neighbor 198.18.1.2; } then { local-preference 200; metric "
	    "0; community { add ADD; delete TAGS; set ADD; } as-path-prepend "
	    "2; accept; } }\n"
	    "    term t2 { then reject; }\n"
	    "    term t3 { then metric 7; }\n"
	    "    then accept;\n"
	    "  }\n"
	    "  policy-statement OUT { term x { then community add ADD; } }\n"
	    "}\n");
	const Bgp__PolicyOptions *po;
	const Bgp__PrefixList *pl;
	const Bgp__CommunityList *cl;
	const Bgp__PolicyTerm *t;

	(void)st;
	po = encode(c);
	assert_non_null(po);
	assert_int_equal(po->n_prefix_lists, 1);
	pl = po->prefix_lists[0];
	assert_string_equal(pl->name, "CUST");
	assert_int_equal(pl->n_entries, 3);
	/* in key order: 198.18.0.0/15, 198.19.0.0/16, 198.19.9.0/24 */
	assert_int_equal(pl->entries[0]->prefix, htonl(0xc6120000));
	assert_int_equal(pl->entries[0]->len, 15);
	assert_int_equal(pl->entries[0]->ge, 0);
	assert_int_equal(pl->entries[0]->le, 24);
	assert_int_equal(pl->entries[1]->prefix, htonl(0xc6130000));
	assert_int_equal(pl->entries[1]->ge, 20);
	assert_int_equal(pl->entries[1]->le, 24);
	assert_int_equal(pl->entries[2]->prefix, htonl(0xc6130900));
	assert_int_equal(pl->entries[2]->len, 24);
	assert_int_equal(pl->entries[2]->ge + pl->entries[2]->le, 0);
	assert_int_equal(po->n_as_paths, 1);
	assert_string_equal(po->as_paths[0]->name, "PATHS");
	assert_string_equal(po->as_paths[0]->regex, "^65002( 65003)*$");
	assert_int_equal(po->n_communities, 2);
	cl = po->communities[1]; /* ADD, TAGS */
	assert_string_equal(cl->name, "TAGS");
	assert_int_equal(cl->n_members, 4);
	/* standard ones by value, those with a '*' after them, then the
	 * large one */
	assert_false(cl->members[0]->large);
	assert_int_equal(cl->members[0]->global, 65000);
	assert_int_equal(cl->members[0]->local1, 100);
	assert_int_equal(cl->members[1]->global, 65535); /* no-export */
	assert_int_equal(cl->members[1]->local1, 65281);
	assert_int_equal(cl->members[2]->wild, 2); /* 65000:* */
	assert_true(cl->members[3]->large);
	assert_int_equal(cl->members[3]->local2, 2);
	assert_int_equal(po->n_policies, 2);
	assert_string_equal(po->policies[0]->name, "IN");
	assert_int_equal(po->policies[0]->default_action,
	    BGP__POLICY_ACTION__POLICY_ACCEPT);
	assert_int_equal(po->policies[0]->n_terms, 3);
	t = po->policies[0]->terms[0];
	assert_string_equal(t->name, "t1");
	assert_int_equal(t->n_prefix_lists, 1);
	assert_string_equal(t->prefix_lists[0], "CUST");
	assert_string_equal(t->as_paths[0], "PATHS");
	assert_string_equal(t->communities[0], "TAGS");
	assert_int_equal(t->n_neighbors, 1);
	assert_int_equal(t->neighbors[0], htonl(0xc6120102));
	assert_true(t->set_local_pref);
	assert_int_equal(t->local_pref, 200);
	assert_true(t->set_med);
	assert_int_equal(t->med, 0);
	assert_string_equal(t->community_set, "ADD");
	assert_int_equal(t->n_community_add, 1);
	assert_string_equal(t->community_delete[0], "TAGS");
	assert_int_equal(t->as_path_prepend, 2);
	assert_int_equal(t->action, BGP__POLICY_ACTION__POLICY_ACCEPT);
	t = po->policies[0]->terms[1];
	assert_int_equal(t->action, BGP__POLICY_ACTION__POLICY_REJECT);
	assert_int_equal(t->n_prefix_lists + t->n_neighbors, 0);
	assert_false(t->set_local_pref);
	assert_string_equal(t->community_set, "");
	t = po->policies[0]->terms[2];
	assert_int_equal(t->action, BGP__POLICY_ACTION__POLICY_NEXT);
	assert_int_equal(t->med, 7);
	assert_int_equal(po->policies[1]->default_action,
	    BGP__POLICY_ACTION__POLICY_NEXT); /* none: reject */
	/* it packs (a message protobuf-c can send) */
	assert_true(protobuf_c_message_get_packed_size(&po->base) > 100);
	palloc_free();
	mgmt_conf_free(c);
	/* none configured: nothing */
	c = mgmt_conf_new();
	assert_null(encode(c));
	mgmt_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_communities),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_aspath_forms),
	    cmocka_unit_test(test_term_order),
	    cmocka_unit_test(test_validation),
	    cmocka_unit_test(test_validate_changes),
	    cmocka_unit_test(test_encode),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
