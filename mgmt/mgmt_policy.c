/* mgmt/mgmt_policy.c: policy-options, tern-bgp's routing policy (issue 21):
 * its checks at commit (ranges, regexes, references) and its encoding in
 * bgp.PolicyOptions, sent with protocols bgp (docs/config.md "Routing
 * policy"). */
#include "mgmt_int.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "ipc/proto/bgp.pb-c.h"
#include "mgmt/mgmt_conf_int.h"

const struct mgmt_node *
mgmt_policy_of(const struct mgmt_conf *conf)
{
	return (mgmt_node_find_sid(conf->root, MGMT_S_POLICY));
}

bool
mgmt_policy_defined(const struct mgmt_conf *conf, enum mgmt_sid list,
    const char *name)
{
	struct mgmt_key k = {(uint16_t)list, 0, name};

	return (mgmt_node_find(mgmt_policy_of(conf), &k) != NULL);
}

/* ---- checks ------------------------------------------------------------- */

static unsigned
leaf_u(const struct mgmt_node *n, unsigned sid)
{
	const struct mgmt_node *c = mgmt_node_find_sid(n, sid);

	return (c != NULL ? (unsigned)c->kbin : 0);
}

/* ge and le of a prefix list's entry: len <= ge <= le. */
static int
check_plist(const struct mgmt_node *pl, struct lc_err *err)
{
	struct mgmt_iter it;
	const struct mgmt_node *e;

	mgmt_iter_init(&it, pl);
	while ((e = mgmt_iter_next(&it)) != NULL) {
		unsigned len = (unsigned)(e->kbin & 0xff);
		unsigned ge = leaf_u(e, MGMT_S_POL_PL_GE);
		unsigned le = leaf_u(e, MGMT_S_POL_PL_LE);
		const struct mgmt_node *bad = NULL;
		const char *what = NULL;

		if (ge != 0 && ge < len) {
			bad = mgmt_node_find_sid(e, MGMT_S_POL_PL_GE);
			what = "ge";
		} else if (le != 0 && le < len) {
			bad = mgmt_node_find_sid(e, MGMT_S_POL_PL_LE);
			what = "le";
		}
		if (bad != NULL) {
			mgmt_err_node(err, bad,
			    "policy-options prefix-list %s %s: %s %s is "
			    "shorter than the prefix, expected %u..32",
			    pl->value, e->value, what, bad->value, len);
			return (-EINVAL);
		}
		if (ge != 0 && le != 0 && ge > le) {
			mgmt_err_node(err,
			    mgmt_node_find_sid(e, MGMT_S_POL_PL_LE),
			    "policy-options prefix-list %s %s: le %u is below ge "
			    "%u",
			    pl->value, e->value, le, ge);
			return (-EINVAL);
		}
	}
	return (0);
}

static int
check_aspath(const struct mgmt_node *ap, struct lc_err *err)
{
	const struct mgmt_node *re = mgmt_node_find_sid(ap, MGMT_S_POL_ASP_RE);
	char why[128];
	regex_t r;
	int rv;

	if (re == NULL) {
		mgmt_err_node(err, ap,
		    "policy-options as-path %s: expected a regular expression "
		    "(as-path %s \"^65001 \";)",
		    ap->value, ap->value);
		return (-EINVAL);
	}
	if ((rv = regcomp(&r, re->value, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rv, &r, why, sizeof(why));
		mgmt_err_node(err, re,
		    "policy-options as-path %s \"%s\": not a regular "
		    "expression: %s",
		    ap->value, re->value, why);
		return (-EINVAL);
	}
	regfree(&r);
	return (0);
}

/* A member of community list c with a '*' (mgmt_comm_parse), or NULL. */
static const struct mgmt_node *
comm_wild(const struct mgmt_node *c)
{
	struct mgmt_iter it;
	const struct mgmt_node *m;
	struct mgmt_comm cm;

	mgmt_iter_init(&it, c);
	while ((m = mgmt_iter_next(&it)) != NULL)
		if (m->sid == MGMT_S_POL_COMM_MEMBERS &&
		    mgmt_comm_parse(m->value, &cm) == 0 && cm.wild != 0)
			return (m);
	return (NULL);
}

/* Each value of leaf(-list) sid under n names a defined `list`; for an
 * action that adds (add, set), one without '*' members. */
static int
check_refs(const struct mgmt_node *po, const struct mgmt_node *n, unsigned sid,
    enum mgmt_sid list, bool adds, const char *ctx, struct lc_err *err)
{
	/* "community add X", "prefix-list X": the words of the config */
	const char *pre = mgmt_schema[sid].parent == MGMT_S_POL_THEN_COMM ?
	    "community " :
	    "";
	struct mgmt_iter it;
	const struct mgmt_node *r, *d, *w;

	mgmt_iter_init(&it, n);
	while ((r = mgmt_iter_next(&it)) != NULL) {
		struct mgmt_key k = {(uint16_t)list, 0, r->value};

		if (r->sid != sid)
			continue;
		if ((d = mgmt_node_find(po, &k)) == NULL) {
			mgmt_err_node(err, r,
			    "%s: %s%s %s: no policy-options %s %s", ctx, pre,
			    mgmt_schema[sid].name, r->value,
			    mgmt_schema[list].name, r->value);
			return (-EINVAL);
		}
		if (adds && (w = comm_wild(d)) != NULL) {
			mgmt_err_node(err, r,
			    "%s: %s%s %s: member %s has a '*', which only "
			    "matches or deletes",
			    ctx, pre, mgmt_schema[sid].name, r->value,
			    w->value);
			return (-EINVAL);
		}
	}
	return (0);
}

/* A `then` (a term's, or the policy's default) with accept or reject, not
 * both. */
static int
check_action(const struct mgmt_node *then, unsigned acc, unsigned rej,
    const char *ctx, struct lc_err *err)
{
	if (then != NULL && mgmt_node_find_sid(then, acc) != NULL &&
	    mgmt_node_find_sid(then, rej) != NULL) {
		mgmt_err_node(err, mgmt_node_find_sid(then, rej),
		    "%s: then accept and reject exclude each other", ctx);
		return (-EINVAL);
	}
	return (0);
}

static int
check_term(const struct mgmt_node *po, const char *pname,
    const struct mgmt_node *t, struct lc_err *err)
{
	const struct mgmt_node *from = mgmt_node_find_sid(t, MGMT_S_POL_FROM);
	const struct mgmt_node *then = mgmt_node_find_sid(t, MGMT_S_POL_THEN);
	const struct mgmt_node *cm = mgmt_node_find_sid(then,
	    MGMT_S_POL_THEN_COMM);
	char ctx[192];

	snprintf(ctx, sizeof(ctx), "policy-options policy-statement %s term %s",
	    pname, t->value);
	if (check_refs(po, from, MGMT_S_POL_FROM_PL, MGMT_S_POL_PL, false, ctx,
		err) != 0 ||
	    check_refs(po, from, MGMT_S_POL_FROM_ASP, MGMT_S_POL_ASP, false,
		ctx, err) != 0 ||
	    check_refs(po, from, MGMT_S_POL_FROM_COMM, MGMT_S_POL_COMM, false,
		ctx, err) != 0 ||
	    check_refs(po, cm, MGMT_S_POL_THEN_COMM_SET, MGMT_S_POL_COMM, true,
		ctx, err) != 0 ||
	    check_refs(po, cm, MGMT_S_POL_THEN_COMM_DEL, MGMT_S_POL_COMM, false,
		ctx, err) != 0 ||
	    check_refs(po, cm, MGMT_S_POL_THEN_COMM_ADD, MGMT_S_POL_COMM, true,
		ctx, err) != 0)
		return (-EINVAL);
	return (check_action(then, MGMT_S_POL_THEN_ACCEPT,
	    MGMT_S_POL_THEN_REJECT, ctx, err));
}

int
mgmt_validate_policy(const struct mgmt_conf *conf, const struct mgmt_node *po,
    struct lc_err *err)
{
	struct mgmt_iter it, ti;
	const struct mgmt_node *c, *t;
	char ctx[128];
	int rv = 0;

	(void)conf;
	mgmt_iter_init(&it, po);
	while (rv == 0 && (c = mgmt_iter_next(&it)) != NULL) {
		switch (c->sid) {
		case MGMT_S_POL_PL:
			rv = check_plist(c, err);
			break;
		case MGMT_S_POL_ASP:
			rv = check_aspath(c, err);
			break;
		case MGMT_S_POL_COMM:
			if (mgmt_node_find_sid(c, MGMT_S_POL_COMM_MEMBERS) ==
			    NULL) {
				mgmt_err_node(err, c,
				    "policy-options community %s: expected "
				    "members",
				    c->value);
				rv = -EINVAL;
			}
			break;
		case MGMT_S_POL_PS:
			mgmt_iter_init(&ti, c);
			while (rv == 0 && (t = mgmt_iter_next(&ti)) != NULL)
				if (t->sid == MGMT_S_POL_TERM)
					rv = check_term(po, c->value, t, err);
			snprintf(ctx, sizeof(ctx),
			    "policy-options policy-statement %s", c->value);
			if (rv == 0)
				rv = check_action(mgmt_node_find_sid(c,
						      MGMT_S_POL_PS_THEN),
				    MGMT_S_POL_PS_ACCEPT, MGMT_S_POL_PS_REJECT,
				    ctx, err);
			break;
		}
	}
	return (rv);
}

/* ---- encoding ----------------------------------------------------------- */

struct penc {
	mgmt_alloc_fn *alloc;
	void *arg;
};

static size_t
nkids(const struct mgmt_node *n, unsigned sid)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;
	size_t k = 0;

	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL)
		k += c->sid == sid;
	return (k);
}

static char *
penc_str(struct penc *pe, const char *s)
{
	size_t n = strlen(s) + 1;

	return (memcpy(pe->alloc(pe->arg, n), s, n));
}

/* The values of leaf-list sid under n (NULL: none), copied. */
static char **
penc_names(struct penc *pe, const struct mgmt_node *n, unsigned sid,
    size_t *count)
{
	size_t k = nkids(n, sid);
	char **v = pe->alloc(pe->arg, (k + 1) * sizeof(*v));
	struct mgmt_iter it;
	const struct mgmt_node *c;

	*count = 0;
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == sid)
			v[(*count)++] = penc_str(pe, c->value);
	return (v);
}

static Bgp__PrefixList *
penc_plist(struct penc *pe, const struct mgmt_node *n)
{
	Bgp__PrefixList *l = pe->alloc(pe->arg, sizeof(*l));
	struct mgmt_iter it;
	const struct mgmt_node *e;

	bgp__prefix_list__init(l);
	l->name = penc_str(pe, n->value);
	l->entries = pe->alloc(pe->arg,
	    (nkids(n, MGMT_S_POL_PL_ENT) + 1) * sizeof(*l->entries));
	mgmt_iter_init(&it, n);
	while ((e = mgmt_iter_next(&it)) != NULL) {
		Bgp__PrefixListEntry *x = pe->alloc(pe->arg, sizeof(*x));

		bgp__prefix_list_entry__init(x);
		/* the key: address << 8 | length (MGMT_T_PREFIX4) */
		x->prefix = htonl((uint32_t)(e->kbin >> 8));
		x->len = (uint32_t)(e->kbin & 0xff);
		x->ge = leaf_u(e, MGMT_S_POL_PL_GE);
		x->le = leaf_u(e, MGMT_S_POL_PL_LE);
		l->entries[l->n_entries++] = x;
	}
	return (l);
}

static Bgp__CommunityList *
penc_comm(struct penc *pe, const struct mgmt_node *n)
{
	Bgp__CommunityList *l = pe->alloc(pe->arg, sizeof(*l));
	struct mgmt_iter it;
	const struct mgmt_node *m;

	bgp__community_list__init(l);
	l->name = penc_str(pe, n->value);
	l->members = pe->alloc(pe->arg,
	    (nkids(n, MGMT_S_POL_COMM_MEMBERS) + 1) * sizeof(*l->members));
	mgmt_iter_init(&it, n);
	while ((m = mgmt_iter_next(&it)) != NULL) {
		Bgp__CommunityMember *x;
		struct mgmt_comm cm;

		if (m->sid != MGMT_S_POL_COMM_MEMBERS ||
		    mgmt_comm_parse(m->value, &cm) != 0)
			continue; /* the schema checked it */
		x = pe->alloc(pe->arg, sizeof(*x));
		bgp__community_member__init(x);
		x->large = cm.large;
		x->global = cm.v[0];
		x->local1 = cm.v[1];
		x->local2 = cm.v[2];
		x->wild = cm.wild;
		l->members[l->n_members++] = x;
	}
	return (l);
}

static Bgp__PolicyAction
penc_action(const struct mgmt_node *then, unsigned acc, unsigned rej)
{
	if (mgmt_node_find_sid(then, acc) != NULL)
		return (BGP__POLICY_ACTION__POLICY_ACCEPT);
	if (mgmt_node_find_sid(then, rej) != NULL)
		return (BGP__POLICY_ACTION__POLICY_REJECT);
	return (BGP__POLICY_ACTION__POLICY_NEXT);
}

static Bgp__PolicyTerm *
penc_term(struct penc *pe, const struct mgmt_node *n)
{
	Bgp__PolicyTerm *t = pe->alloc(pe->arg, sizeof(*t));
	const struct mgmt_node *from = mgmt_node_find_sid(n, MGMT_S_POL_FROM);
	const struct mgmt_node *then = mgmt_node_find_sid(n, MGMT_S_POL_THEN);
	const struct mgmt_node *cm = mgmt_node_find_sid(then,
	    MGMT_S_POL_THEN_COMM);
	const struct mgmt_node *c;
	struct mgmt_iter it;

	bgp__policy_term__init(t);
	t->name = penc_str(pe, n->value);
	t->prefix_lists = penc_names(pe, from, MGMT_S_POL_FROM_PL,
	    &t->n_prefix_lists);
	t->as_paths = penc_names(pe, from, MGMT_S_POL_FROM_ASP, &t->n_as_paths);
	t->communities = penc_names(pe, from, MGMT_S_POL_FROM_COMM,
	    &t->n_communities);
	t->neighbors = pe->alloc(pe->arg,
	    (nkids(from, MGMT_S_POL_FROM_NBR) + 1) * sizeof(*t->neighbors));
	mgmt_iter_init(&it, from);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == MGMT_S_POL_FROM_NBR)
			t->neighbors[t->n_neighbors++] = htonl(
			    (uint32_t)c->kbin);
	t->action = penc_action(then, MGMT_S_POL_THEN_ACCEPT,
	    MGMT_S_POL_THEN_REJECT);
	if ((c = mgmt_node_find_sid(then, MGMT_S_POL_THEN_LP)) != NULL) {
		t->set_local_pref = true;
		t->local_pref = (uint32_t)c->kbin;
	}
	if ((c = mgmt_node_find_sid(then, MGMT_S_POL_THEN_MED)) != NULL) {
		t->set_med = true;
		t->med = (uint32_t)c->kbin;
	}
	c = mgmt_node_find_sid(cm, MGMT_S_POL_THEN_COMM_SET);
	t->community_set = penc_str(pe, c != NULL ? c->value : "");
	t->community_delete = penc_names(pe, cm, MGMT_S_POL_THEN_COMM_DEL,
	    &t->n_community_delete);
	t->community_add = penc_names(pe, cm, MGMT_S_POL_THEN_COMM_ADD,
	    &t->n_community_add);
	t->as_path_prepend = leaf_u(then, MGMT_S_POL_THEN_PREPEND);
	return (t);
}

static Bgp__PolicyStatement *
penc_policy(struct penc *pe, const struct mgmt_node *n)
{
	Bgp__PolicyStatement *p = pe->alloc(pe->arg, sizeof(*p));
	struct mgmt_iter it;
	const struct mgmt_node *t;

	bgp__policy_statement__init(p);
	p->name = penc_str(pe, n->value);
	p->terms = pe->alloc(pe->arg,
	    (nkids(n, MGMT_S_POL_TERM) + 1) * sizeof(*p->terms));
	/* in key order, which is natural order (MGMT_SF_NATURAL) */
	mgmt_iter_init(&it, n);
	while ((t = mgmt_iter_next(&it)) != NULL)
		if (t->sid == MGMT_S_POL_TERM)
			p->terms[p->n_terms++] = penc_term(pe, t);
	p->default_action = penc_action(mgmt_node_find_sid(n,
					    MGMT_S_POL_PS_THEN),
	    MGMT_S_POL_PS_ACCEPT, MGMT_S_POL_PS_REJECT);
	return (p);
}

struct ProtobufCMessage *
mgmt_policy_encode(const struct mgmt_conf *conf, mgmt_alloc_fn *alloc,
    void *arg)
{
	const struct mgmt_node *po = mgmt_policy_of(conf), *c;
	struct penc pe = {alloc, arg};
	Bgp__PolicyOptions *o;
	struct mgmt_iter it;

	if (po == NULL)
		return (NULL);
	o = alloc(arg, sizeof(*o));
	bgp__policy_options__init(o);
	o->prefix_lists = alloc(arg,
	    (nkids(po, MGMT_S_POL_PL) + 1) * sizeof(*o->prefix_lists));
	o->as_paths = alloc(arg,
	    (nkids(po, MGMT_S_POL_ASP) + 1) * sizeof(*o->as_paths));
	o->communities = alloc(arg,
	    (nkids(po, MGMT_S_POL_COMM) + 1) * sizeof(*o->communities));
	o->policies = alloc(arg,
	    (nkids(po, MGMT_S_POL_PS) + 1) * sizeof(*o->policies));
	mgmt_iter_init(&it, po);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		switch (c->sid) {
		case MGMT_S_POL_PL:
			o->prefix_lists[o->n_prefix_lists++] = penc_plist(&pe,
			    c);
			break;
		case MGMT_S_POL_ASP: {
			Bgp__AsPathRegex *a = alloc(arg, sizeof(*a));
			const struct mgmt_node *re = mgmt_node_find_sid(c,
			    MGMT_S_POL_ASP_RE);

			bgp__as_path_regex__init(a);
			a->name = penc_str(&pe, c->value);
			a->regex = penc_str(&pe, re != NULL ? re->value : "");
			o->as_paths[o->n_as_paths++] = a;
			break;
		}
		case MGMT_S_POL_COMM:
			o->communities[o->n_communities++] = penc_comm(&pe, c);
			break;
		case MGMT_S_POL_PS:
			o->policies[o->n_policies++] = penc_policy(&pe, c);
			break;
		}
	}
	return (&o->base);
}
