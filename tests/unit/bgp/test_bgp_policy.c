/* tests/unit/bgp/test_bgp_policy.c: routing policy (bgp/bgp_policy.c):
 * prefix lists (exact, ge, le, their boundaries, a big list against a
 * linear scan), AS path regexes and their cache, standard, large and
 * well-known communities, every action, term order and the default action,
 * RFC 8212 without a policy, interned results, what counts as a change,
 * compile errors, and no malloc per evaluation (-Wl,--wrap=malloc). */
#include <time.h>

#include "bgp_test.h"

#include "bgp/bgp_policy.h"
#include "libcommon/lc_arena.h"

/* ---- building a PolicyOptions --------------------------------------------- */

static struct lc_arena *ar;

static void *
A(size_t n)
{
	void *p = lc_arena_calloc(ar, n);

	assert_non_null(p);
	return (p);
}

static char *
S(const char *s)
{
	return (lc_arena_strdup(ar, s));
}

#define CAP 64

static Bgp__PolicyOptions *
po_new(void)
{
	Bgp__PolicyOptions *po = A(sizeof(*po));

	bgp__policy_options__init(po);
	po->prefix_lists = A(CAP * sizeof(void *));
	po->as_paths = A(CAP * sizeof(void *));
	po->communities = A(CAP * sizeof(void *));
	po->policies = A(CAP * sizeof(void *));
	return (po);
}

static Bgp__PrefixListEntry *
ple(const char *pfx, unsigned ge, unsigned le)
{
	Bgp__PrefixListEntry *e = A(sizeof(*e));
	struct lc_prefix4 p;

	bgp__prefix_list_entry__init(e);
	assert_int_equal(lc_prefix4_parse(pfx, &p), 0);
	e->prefix = p.addr.s_addr;
	e->len = p.len;
	e->ge = ge;
	e->le = le;
	return (e);
}

/* plist(po, name, "prefix", ge, le, ..., NULL) */
static Bgp__PrefixList *
plist(Bgp__PolicyOptions *po, const char *name, ...)
{
	Bgp__PrefixList *l = A(sizeof(*l));
	const char *p;
	va_list ap;

	bgp__prefix_list__init(l);
	l->name = S(name);
	l->entries = A(CAP * sizeof(void *));
	va_start(ap, name);
	while ((p = va_arg(ap, const char *)) != NULL) {
		unsigned ge = va_arg(ap, unsigned), le = va_arg(ap, unsigned);

		l->entries[l->n_entries++] = ple(p, ge, le);
	}
	va_end(ap);
	po->prefix_lists[po->n_prefix_lists++] = l;
	return (l);
}

static void
aspath(Bgp__PolicyOptions *po, const char *name, const char *re)
{
	Bgp__AsPathRegex *a = A(sizeof(*a));

	bgp__as_path_regex__init(a);
	a->name = S(name);
	a->regex = S(re);
	po->as_paths[po->n_as_paths++] = a;
}

/* "65000:100", "65000:1:2", "65000:*", "no-export" */
static Bgp__CommunityMember *
member(const char *s)
{
	Bgp__CommunityMember *m = A(sizeof(*m));
	char buf[64], *save = NULL;
	unsigned n = 0;
	uint32_t v[3] = {0};

	bgp__community_member__init(m);
	if (strcmp(s, "no-export") == 0)
		s = "65535:65281";
	else if (strcmp(s, "no-advertise") == 0)
		s = "65535:65282";
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ":", &save); t != NULL && n < 3;
	     t = strtok_r(NULL, ":", &save), n++) {
		if (strcmp(t, "*") == 0)
			m->wild |= 1u << n;
		else
			v[n] = (uint32_t)strtoul(t, NULL, 10);
	}
	m->large = n == 3;
	m->global = v[0];
	m->local1 = v[1];
	m->local2 = v[2];
	return (m);
}

/* community(po, name, "member", ..., NULL) */
static void
community(Bgp__PolicyOptions *po, const char *name, ...)
{
	Bgp__CommunityList *c = A(sizeof(*c));
	const char *s;
	va_list ap;

	bgp__community_list__init(c);
	c->name = S(name);
	c->members = A(CAP * sizeof(void *));
	va_start(ap, name);
	while ((s = va_arg(ap, const char *)) != NULL)
		c->members[c->n_members++] = member(s);
	va_end(ap);
	po->communities[po->n_communities++] = c;
}

/* names(&n, "a", "b", NULL) */
static char **
names(size_t *n, ...)
{
	char **v = A(CAP * sizeof(*v));
	const char *s;
	va_list ap;

	*n = 0;
	va_start(ap, n);
	while ((s = va_arg(ap, const char *)) != NULL)
		v[(*n)++] = S(s);
	va_end(ap);
	return (v);
}

static Bgp__PolicyTerm *
term(const char *name, Bgp__PolicyAction action)
{
	Bgp__PolicyTerm *t = A(sizeof(*t));

	bgp__policy_term__init(t);
	t->name = S(name);
	t->action = action;
	t->community_set = S("");
	t->neighbors = A(CAP * sizeof(uint32_t));
	return (t);
}

/* policy(po, name, default, term, ..., NULL) */
static Bgp__PolicyStatement *
policy(Bgp__PolicyOptions *po, const char *name, Bgp__PolicyAction dflt, ...)
{
	Bgp__PolicyStatement *p = A(sizeof(*p));
	Bgp__PolicyTerm *t;
	va_list ap;

	bgp__policy_statement__init(p);
	p->name = S(name);
	p->default_action = dflt;
	p->terms = A(CAP * sizeof(void *));
	va_start(ap, dflt);
	while ((t = va_arg(ap, Bgp__PolicyTerm *)) != NULL)
		p->terms[p->n_terms++] = t;
	va_end(ap);
	po->policies[po->n_policies++] = p;
	return (p);
}

#define NEXT   BGP__POLICY_ACTION__POLICY_NEXT
#define ACCEPT BGP__POLICY_ACTION__POLICY_ACCEPT
#define REJECT BGP__POLICY_ACTION__POLICY_REJECT

/* ---- attribute sets --------------------------------------------------------- */

struct aspec {
	const uint32_t *seq, *set, *comm, *large;
	unsigned nseq, nset, ncomm, nlarge; /* nlarge: triples */
	bool has_lp, has_med;
	uint32_t lp, med;
};
#define ARR(...) ((const uint32_t[]){__VA_ARGS__})
#define NARR(...) \
	(unsigned)(sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))
#define SEQ(...)   .seq = ARR(__VA_ARGS__), .nseq = NARR(__VA_ARGS__)
#define ASSET(...) .set = ARR(__VA_ARGS__), .nset = NARR(__VA_ARGS__)
#define COMM(...)  .comm = ARR(__VA_ARGS__), .ncomm = NARR(__VA_ARGS__)
#define LARGE(...) .large = ARR(__VA_ARGS__), .nlarge = NARR(__VA_ARGS__) / 3
#define C(hi, lo)  ((uint32_t)(hi) << 16 | (lo))

static struct bgp_intern *it;

/* An IPv4 set: ORIGIN IGP, the AS path, NEXT_HOP 198.18.1.2 and what s
 * adds; interned (one reference for the caller). */
static struct bgp_aset *
mkset(const struct aspec *s)
{
	uint8_t at[2048], path[512], v[1024], canon[BGP_ATTR_CANON_MAX];
	static const uint8_t nh[] = {198, 18, 1, 2};
	uint8_t origin = BGP_ORIGIN_IGP;
	struct bgp_attrs a;
	struct bgp_err err;
	size_t o = 0, pl = 0;
	struct bgp_aset *set;
	int n;

	o = attr(at, o, WK, BGP_ATTR_ORIGIN, &origin, 1);
	if (s->nseq > 0) {
		path[pl++] = BGP_AS_SEQUENCE;
		path[pl++] = (uint8_t)s->nseq;
		for (unsigned i = 0; i < s->nseq; i++, pl += 4)
			bgp_put32(path + pl, s->seq[i]);
	}
	if (s->nset > 0) {
		path[pl++] = BGP_AS_SET;
		path[pl++] = (uint8_t)s->nset;
		for (unsigned i = 0; i < s->nset; i++, pl += 4)
			bgp_put32(path + pl, s->set[i]);
	}
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, path, pl);
	o = attr(at, o, WK, BGP_ATTR_NEXT_HOP, nh, 4);
	if (s->has_med) {
		bgp_put32(v, s->med);
		o = attr(at, o, OPT, BGP_ATTR_MED, v, 4);
	}
	if (s->has_lp) {
		bgp_put32(v, s->lp);
		o = attr(at, o, WK, BGP_ATTR_LOCAL_PREF, v, 4);
	}
	if (s->ncomm > 0) {
		for (unsigned i = 0; i < s->ncomm; i++)
			bgp_put32(v + 4 * i, s->comm[i]);
		o = attr(at, o, OPTT, BGP_ATTR_COMMUNITIES, v, 4 * s->ncomm);
	}
	if (s->nlarge > 0) {
		for (unsigned i = 0; i < 3 * s->nlarge; i++)
			bgp_put32(v + 4 * i, s->large[i]);
		o = attr(at, o, OPTT, BGP_ATTR_LARGE_COMMUNITY, v,
		    12 * s->nlarge);
	}
	assert_int_equal(bgp_attr_parse(at, o, &C4, NULL, &a, &err),
	    BGP_OUT_OK);
	n = bgp_attr_canon(&a, BGP_AF_IPV4, canon, sizeof(canon));
	assert_true(n > 0);
	set = bgp_intern_get(it, canon, (size_t)n);
	assert_non_null(set);
	return (set);
}
#define MK(...) mkset(&(struct aspec){__VA_ARGS__})

/* ---- running a policy ----------------------------------------------------------- */

static struct bgp_policy_scratch scr;
static struct bgp_policy_set *ps;
/* eBGP neighbour 198.18.1.2 of AS 65002; we are 65001 */
static struct bgp_policy_peer peer = {0, 65002, 65001, true};

static struct bgp_policy_set *
compile(const Bgp__PolicyOptions *po)
{
	struct bgp_policy_set *s = NULL;
	struct lc_err err;

	if (bgp_policy_set_compile(po, it, &s, &err) != 0)
		fail_msg("compile: %s", err.msg);
	return (s);
}

/* Policy pol of ps on pfx with set s in direction dir: the return value,
 * *out (a reference) when accepted. */
static int
run_dir(const char *pol, enum bgp_policy_dir dir, const char *pfx,
    struct bgp_aset *s, struct bgp_aset **out)
{
	struct bgp_policy_route rt = {.af = BGP_AF_IPV4, .set = s};
	struct bgp_policy *p = NULL;

	if (pol != NULL)
		assert_non_null(p = bgp_policy_find(ps, pol));
	assert_int_equal(lc_prefix4_parse(pfx, &rt.p4), 0);
	rt.from = peer.addr;
	*out = NULL;
	return (bgp_policy_eval(p, dir, &peer, &rt, &scr, out));
}

static int
run(const char *pol, const char *pfx, struct bgp_aset *s, struct bgp_aset **out)
{
	return (run_dir(pol, BGP_POL_IMPORT, pfx, s, out));
}

/* accepted (the reference dropped) or not */
static bool
accepts(const char *pol, const char *pfx, struct bgp_aset *s)
{
	struct bgp_aset *out;
	int rv = run(pol, pfx, s, &out);

	assert_true(rv == BGP_POLICY_ACCEPT || rv == BGP_POLICY_REJECT);
	if (rv == BGP_POLICY_ACCEPT)
		bgp_aset_unref(it, out);
	return (rv == BGP_POLICY_ACCEPT);
}

static int
setup(void **st)
{
	(void)st;
	ar = lc_arena_new(0);
	it = bgp_intern_new();
	assert_non_null(ar);
	assert_non_null(it);
	peer.addr = htonl(0xc6120102);
	ps = NULL;
	return (0);
}

static int
teardown(void **st)
{
	struct bgp_intern_stats is;

	(void)st;
	bgp_policy_set_free(ps);
	bgp_intern_stats(it, &is);
	/* every test drops what it took: nothing is left but what the
	 * policy cache held, now dropped too */
	assert_int_equal(is.sets, 0);
	bgp_intern_free(it);
	lc_arena_free(ar);
	return (0);
}

/* ---- prefix lists ----------------------------------------------------------- */

static void
test_prefix_list(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t = term("t1", ACCEPT), *t2 = term("t", ACCEPT),
			*t3 = term("t", ACCEPT), *t4 = term("t", ACCEPT);
	struct bgp_aset *s;

	(void)st;
	plist(po, "CUST", "198.18.0.0/16", 0, 24, "198.19.0.0/16", 20, 24,
	    "198.19.255.128/25", 0, 0, "198.18.64.0/18", 28, 0, NULL);
	plist(po, "ANY", "0.0.0.0/0", 0, 32, NULL);
	plist(po, "DEFAULT", "0.0.0.0/0", 0, 0, NULL);
	plist(po, "EDGE", "198.18.7.0/24", 24, 24, "198.18.8.0/24", 24, 32,
	    "198.18.9.1/32", 0, 0, NULL);
	t->prefix_lists = names(&t->n_prefix_lists, "CUST", NULL);
	t2->prefix_lists = names(&t2->n_prefix_lists, "ANY", NULL);
	t3->prefix_lists = names(&t3->n_prefix_lists, "DEFAULT", NULL);
	t4->prefix_lists = names(&t4->n_prefix_lists, "EDGE", NULL);
	policy(po, "IN", REJECT, t, NULL);
	policy(po, "ANY", REJECT, t2, NULL);
	policy(po, "DEFAULT", REJECT, t3, NULL);
	policy(po, "EDGE", REJECT, t4, NULL);
	ps = compile(po);
	s = MK(SEQ(65002));
	/* le alone: the prefix's length up to le */
	assert_true(accepts("IN", "198.18.0.0/16", s));
	assert_true(accepts("IN", "198.18.5.0/24", s));
	assert_true(accepts("IN", "198.18.64.0/24", s));
	assert_false(accepts("IN", "198.18.5.0/25", s));
	assert_false(accepts("IN", "198.18.0.0/15", s)); /* shorter */
	/* ge alone: ge up to 32 */
	assert_true(accepts("IN", "198.18.64.16/28", s));
	assert_true(accepts("IN", "198.18.127.255/32", s));
	assert_false(accepts("IN", "198.18.64.0/27", s));
	assert_false(accepts("IN", "198.18.128.16/28", s)); /* not under */
	/* ge and le */
	assert_false(accepts("IN", "198.19.0.0/16", s));
	assert_false(accepts("IN", "198.19.0.0/19", s));
	assert_true(accepts("IN", "198.19.16.0/20", s));
	assert_true(accepts("IN", "198.19.1.0/24", s));
	assert_false(accepts("IN", "198.19.1.0/25", s));
	/* exact: only the prefix itself */
	assert_true(accepts("IN", "198.19.255.128/25", s));
	assert_false(accepts("IN", "198.19.255.0/25", s));
	assert_false(accepts("IN", "198.19.255.128/26", s));
	/* /0 */
	assert_true(accepts("ANY", "0.0.0.0/0", s));
	assert_true(accepts("ANY", "198.18.1.1/32", s));
	assert_true(accepts("DEFAULT", "0.0.0.0/0", s));
	assert_false(accepts("DEFAULT", "198.18.0.0/15", s));
	/* boundaries: ge = len = le, le 32, a /32 */
	assert_true(accepts("EDGE", "198.18.7.0/24", s));
	assert_false(accepts("EDGE", "198.18.7.0/25", s));
	assert_true(accepts("EDGE", "198.18.8.0/24", s));
	assert_true(accepts("EDGE", "198.18.8.255/32", s));
	assert_true(accepts("EDGE", "198.18.9.1/32", s));
	assert_false(accepts("EDGE", "198.18.9.0/32", s));
	assert_false(accepts("EDGE", "198.18.9.0/24", s));
	/* an IPv6 route is never in an IPv4 prefix list */
	{
		struct bgp_policy_route rt = {.af = BGP_AF_IPV6, .set = s};
		struct bgp_aset *out;

		assert_int_equal(bgp_policy_eval(bgp_policy_find(ps, "ANY"),
				     BGP_POL_IMPORT, &peer, &rt, &scr, &out),
		    BGP_POLICY_REJECT);
	}
	bgp_aset_unref(it, s);
}

/* A reference answer: the entries scanned one by one. */
struct ref_ent {
	uint32_t a;
	unsigned len, lo, hi;
};

static bool
ref_match(const struct ref_ent *e, unsigned n, uint32_t a, unsigned len)
{
	for (unsigned i = 0; i < n; i++)
		if (((a ^ e[i].a) & lc_prefix4_mask(e[i].len)) == 0 &&
		    len >= e[i].lo && len <= e[i].hi)
			return (true);
	return (false);
}

/* 5000 entries in 198.18.0.0/15, 200000 routes: the trie says what the
 * scan says; timed */
static void
test_prefix_list_big(void **st)
{
	enum { NE = 5000, NR = 200000 };
	static struct ref_ent ref[NE];
	Bgp__PolicyOptions *po = po_new();
	Bgp__PrefixList *l = A(sizeof(*l));
	Bgp__PolicyTerm *t = term("t1", ACCEPT);
	struct bgp_policy_route rt = {.af = BGP_AF_IPV4};
	struct bgp_policy *p;
	struct timespec t0, t1;
	unsigned seed = 21, yes = 0;
	double ns;

	(void)st;
	bgp__prefix_list__init(l);
	l->name = S("BIG");
	l->entries = A(NE * sizeof(void *));
	for (unsigned i = 0; i < NE; i++) {
		unsigned len = 16 + (unsigned)rand_r(&seed) % 13; /* 16..28 */
		uint32_t a = (0xc6120000u | (rand_r(&seed) & 0x1ffff)) &
		    lc_prefix4_mask(len);
		Bgp__PrefixListEntry *e = A(sizeof(*e));
		unsigned kind = (unsigned)rand_r(&seed) % 4;

		bgp__prefix_list_entry__init(e);
		e->prefix = htonl(a);
		e->len = len;
		ref[i] = (struct ref_ent){a, len, len, len};
		if (kind == 1 || kind == 3) {
			e->ge = len + (unsigned)rand_r(&seed) % (33 - len);
			ref[i].lo = e->ge;
			ref[i].hi = 32;
		}
		if (kind >= 2) {
			e->le = ref[i].lo +
			    (unsigned)rand_r(&seed) % (33 - ref[i].lo);
			ref[i].hi = e->le;
		}
		l->entries[l->n_entries++] = e;
	}
	po->prefix_lists[po->n_prefix_lists++] = l;
	t->prefix_lists = names(&t->n_prefix_lists, "BIG", NULL);
	policy(po, "IN", REJECT, t, NULL);
	ps = compile(po);
	p = bgp_policy_find(ps, "IN");
	rt.set = MK(SEQ(65002));
	rt.from = peer.addr;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < NR; i++) {
		unsigned len = 15 + (unsigned)rand_r(&seed) % 18;
		uint32_t a = (0xc6120000u | (rand_r(&seed) & 0x1ffff)) &
		    lc_prefix4_mask(len);
		struct bgp_aset *out = NULL;
		int rv;

		rt.p4.addr.s_addr = htonl(a);
		rt.p4.len = (uint8_t)len;
		rv = bgp_policy_eval(p, BGP_POL_IMPORT, &peer, &rt, &scr, &out);
		if ((rv == BGP_POLICY_ACCEPT) != ref_match(ref, NE, a, len))
			fail_msg("route %08x/%u: policy %d", a, len, rv);
		if (rv == BGP_POLICY_ACCEPT) {
			yes++;
			bgp_aset_unref(it, out);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		 (double)(t1.tv_nsec - t0.tv_nsec)) /
	    NR;
	/* the reference scan is in the loop too: this bounds the trie */
	print_message("5000-entry prefix list: %u of %u routes matched, "
		      "%.0f ns per route with the linear reference check\n",
	    yes, NR, ns);
	assert_true(yes > 1000 && yes < NR);
	/* the trie alone */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < NR; i++) {
		struct bgp_aset *out = NULL;

		rt.p4.len = (uint8_t)(16 + i % 17);
		rt.p4.addr.s_addr = htonl(
		    (0xc6120000u | (i * 2654435761u & 0x1ffff)) &
		    lc_prefix4_mask(rt.p4.len));
		if (bgp_policy_eval(p, BGP_POL_IMPORT, &peer, &rt, &scr,
			&out) == BGP_POLICY_ACCEPT)
			bgp_aset_unref(it, out);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		 (double)(t1.tv_nsec - t0.tv_nsec)) /
	    NR;
	print_message("5000-entry prefix list: %.0f ns per evaluation\n", ns);
	bgp_aset_unref(it, rt.set);
}

/* ---- AS paths --------------------------------------------------------------- */

static void
test_aspath_regex(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t1 = term("t1", ACCEPT), *t2 = term("t1", ACCEPT),
			*t3 = term("t1", ACCEPT), *t4 = term("t1", ACCEPT);
	struct bgp_aset *a, *b, *c, *d, *e;
	struct bgp_policy_stats s0, s1;

	(void)st;
	aspath(po, "PATHS", "^65002( 65003)*$");
	aspath(po, "EMPTY", "^$");
	aspath(po, "VIA3", "(^| )65003( |$)");
	aspath(po, "SET", "\\{65005,65006\\}$");
	aspath(po, "ORIG7", " 65007$");
	t1->as_paths = names(&t1->n_as_paths, "PATHS", NULL);
	t2->as_paths = names(&t2->n_as_paths, "EMPTY", NULL);
	t3->as_paths = names(&t3->n_as_paths, "VIA3", NULL);
	/* two: either */
	t4->as_paths = names(&t4->n_as_paths, "SET", "ORIG7", NULL);
	policy(po, "P", REJECT, t1, NULL);
	policy(po, "E", REJECT, t2, NULL);
	policy(po, "V", REJECT, t3, NULL);
	policy(po, "S", REJECT, t4, NULL);
	ps = compile(po);
	a = MK(SEQ(65002, 65003));
	b = MK(SEQ(65002, 65003, 65003));
	c = MK(SEQ(65002));
	d = MK(SEQ(65002, 65004), ASSET(65005, 65006));
	e = MK(.nseq = 0);
	assert_true(accepts("P", "198.18.0.0/24", a));
	assert_true(accepts("P", "198.18.0.0/24", b));
	assert_true(accepts("P", "198.18.0.0/24", c));
	assert_false(accepts("P", "198.18.0.0/24", d));
	assert_false(accepts("P", "198.18.0.0/24", e));
	assert_true(accepts("E", "198.18.0.0/24", e));
	assert_false(accepts("E", "198.18.0.0/24", c));
	assert_true(accepts("V", "198.18.0.0/24", a));
	assert_false(accepts("V", "198.18.0.0/24", c));
	assert_true(accepts("S", "198.18.0.0/24", d));
	assert_false(accepts("S", "198.18.0.0/24", a));
	/* the answers are cached per (set, regex): the same sets again run
	 * no regex, whatever the prefix */
	bgp_policy_set_stats(ps, &s0);
	assert_int_equal(s0.regexec, 12); /* S tried both on a */
	for (unsigned i = 0; i < 100; i++) {
		assert_true(accepts("P", "198.18.1.0/24", a));
		assert_false(accepts("P", "198.19.0.0/16", d));
	}
	bgp_policy_set_stats(ps, &s1);
	assert_int_equal(s1.regexec, s0.regexec);
	assert_int_equal(s1.hits, s0.hits + 200);
	assert_true(s1.slots >= 4096);
	bgp_aset_unref(it, a);
	bgp_aset_unref(it, b);
	bgp_aset_unref(it, c);
	bgp_aset_unref(it, d);
	bgp_aset_unref(it, e);
	/* a set freed while cached is held by the cache: its address cannot
	 * come back with another path and find its answer */
	{
		struct bgp_intern_stats is;

		bgp_intern_stats(it, &is);
		assert_int_equal(is.sets, 5);
		bgp_policy_set_flush(ps);
		bgp_intern_stats(it, &is);
		assert_int_equal(is.sets, 0);
	}
}

/* ---- communities ------------------------------------------------------------ */

static void
test_communities(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t1 = term("t1", ACCEPT), *t2 = term("t1", ACCEPT),
			*t3 = term("t1", ACCEPT), *t4 = term("t1", ACCEPT),
			*t5 = term("t1", ACCEPT);
	struct bgp_aset *both, *one, *none, *wk, *lg;
	struct bgp_policy_peer ibgp = {1, 65001, 65001, false};

	(void)st;
	community(po, "TAGS", "65000:100", "65000:200", NULL);
	community(po, "ANY65000", "65000:*", NULL);
	community(po, "LARGE", "65000:1:2", "*:*:7", NULL);
	community(po, "NOEXP", "no-export", NULL);
	community(po, "ONE", "65000:100", NULL);
	t1->communities = names(&t1->n_communities, "TAGS", NULL);
	t2->communities = names(&t2->n_communities, "ANY65000", NULL);
	t3->communities = names(&t3->n_communities, "LARGE", NULL);
	t4->communities = names(&t4->n_communities, "NOEXP", NULL);
	/* two lists: either */
	t5->communities = names(&t5->n_communities, "LARGE", "ONE", NULL);
	policy(po, "TAGS", REJECT, t1, NULL);
	policy(po, "ANY", REJECT, t2, NULL);
	policy(po, "LARGE", REJECT, t3, NULL);
	policy(po, "NOEXP", REJECT, t4, NULL);
	policy(po, "EITHER", REJECT, t5, NULL);
	ps = compile(po);
	both = MK(SEQ(65002), COMM(C(65000, 200), C(65001, 1), C(65000, 100)));
	one = MK(SEQ(65002), COMM(C(65000, 100)));
	none = MK(SEQ(65002), COMM(C(65001, 100)));
	wk = MK(SEQ(65002), COMM(0xffffff01u));
	lg = MK(SEQ(65002), LARGE(65000, 1, 2, 4200000000u, 3, 7));
	/* every member of a list (AND), in any order */
	assert_true(accepts("TAGS", "198.18.0.0/24", both));
	assert_false(accepts("TAGS", "198.18.0.0/24", one));
	assert_false(accepts("TAGS", "198.18.0.0/24", none));
	/* a '*' field */
	assert_true(accepts("ANY", "198.18.0.0/24", one));
	assert_false(accepts("ANY", "198.18.0.0/24", none));
	assert_false(accepts("ANY", "198.18.0.0/24", lg));
	/* large: 65000:1:2 and anything ending in :7 */
	assert_true(accepts("LARGE", "198.18.0.0/24", lg));
	assert_false(accepts("LARGE", "198.18.0.0/24", both));
	/* well-known by name */
	assert_true(accepts("NOEXP", "198.18.0.0/24", wk));
	assert_false(accepts("NOEXP", "198.18.0.0/24", one));
	/* one of two lists */
	assert_true(accepts("EITHER", "198.18.0.0/24", lg));
	assert_true(accepts("EITHER", "198.18.0.0/24", one));
	assert_false(accepts("EITHER", "198.18.0.0/24", none));
	/* RFC 1997's rules on export */
	assert_false(bgp_policy_export_ok(wk, &peer));
	assert_true(bgp_policy_export_ok(wk, &ibgp));
	assert_true(bgp_policy_export_ok(one, &peer));
	{
		struct bgp_aset *na = MK(SEQ(65002), COMM(0xffffff02u)),
				*sc = MK(SEQ(65002), COMM(0xffffff03u));

		assert_false(bgp_policy_export_ok(na, &ibgp));
		assert_false(bgp_policy_export_ok(sc, &peer));
		assert_true(bgp_policy_export_ok(sc, &ibgp));
		bgp_aset_unref(it, na);
		bgp_aset_unref(it, sc);
	}
	bgp_aset_unref(it, both);
	bgp_aset_unref(it, one);
	bgp_aset_unref(it, none);
	bgp_aset_unref(it, wk);
	bgp_aset_unref(it, lg);
}

/* ---- actions ----------------------------------------------------------------- */

/* The standard communities of s, in order; their count. */
static unsigned
comms_of(const struct bgp_aset *s, uint32_t *v)
{
	struct bgp_attrs a;
	unsigned n = 0;

	assert_int_equal(bgp_aset_attrs(s, &a), 0);
	if (!(a.present & BGP_ABIT(BGP_ATTR_COMMUNITIES)))
		return (0);
	for (unsigned o = 0; o < a.comm_len; o += 4)
		v[n++] = bgp_get32(a.comm + o);
	return (n);
}

static void
test_actions(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *lp = term("t", ACCEPT), *med = term("t", ACCEPT),
			*add = term("t", ACCEPT), *del = term("t", ACCEPT),
			*set = term("t", ACCEPT), *pre = term("t", ACCEPT),
			*all = term("t", ACCEPT), *ladd = term("t", ACCEPT);
	struct bgp_aset *in, *out, *in2;
	struct bgp_attrs a;
	uint32_t v[16];
	char path[128];

	(void)st;
	community(po, "TAGS", "65000:100", "65000:200", NULL);
	community(po, "ALL65000", "65000:*", NULL);
	community(po, "NEW", "65010:1", NULL);
	community(po, "BIG", "65000:1:2", NULL);
	lp->set_local_pref = true;
	lp->local_pref = 200;
	med->set_med = true;
	med->med = 0; /* 0 is a value */
	add->community_add = names(&add->n_community_add, "TAGS", NULL);
	del->community_delete = names(&del->n_community_delete, "ALL65000",
	    NULL);
	set->community_set = S("NEW");
	pre->as_path_prepend = 2;
	/* set, delete, add in that order whatever the order given */
	all->community_add = names(&all->n_community_add, "TAGS", NULL);
	all->community_delete = names(&all->n_community_delete, "ALL65000",
	    NULL);
	all->community_set = S("NEW");
	all->set_local_pref = true;
	all->local_pref = 50;
	all->as_path_prepend = 1;
	ladd->community_add = names(&ladd->n_community_add, "BIG", NULL);
	policy(po, "LP", REJECT, lp, NULL);
	policy(po, "MED", REJECT, med, NULL);
	policy(po, "ADD", REJECT, add, NULL);
	policy(po, "DEL", REJECT, del, NULL);
	policy(po, "SET", REJECT, set, NULL);
	policy(po, "PRE", REJECT, pre, NULL);
	policy(po, "ALL", REJECT, all, NULL);
	policy(po, "LADD", REJECT, ladd, NULL);
	ps = compile(po);
	in = MK(SEQ(65002, 65003), COMM(C(65000, 200), C(65001, 5)),
	    .has_med = true, .med = 7);

	assert_int_equal(run("LP", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_ptr_not_equal(out, in);
	assert_int_equal(out->local_pref, 200);
	assert_true(out->flags & BGP_ASET_F_LOCAL_PREF);
	assert_int_equal(out->med, 7);
	bgp_aset_unref(it, out);

	assert_int_equal(run("MED", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(out->med, 0);
	assert_true(out->flags & BGP_ASET_F_MED);
	bgp_aset_unref(it, out);

	/* add: the missing ones appended, none twice */
	assert_int_equal(run("ADD", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(comms_of(out, v), 3);
	assert_int_equal(v[0], C(65000, 200));
	assert_int_equal(v[1], C(65001, 5));
	assert_int_equal(v[2], C(65000, 100));
	bgp_aset_unref(it, out);
	/* to a set without communities */
	in2 = MK(SEQ(65002));
	assert_int_equal(run("ADD", "198.18.0.0/24", in2, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(comms_of(out, v), 2);
	assert_int_equal(v[0], C(65000, 100));
	bgp_aset_unref(it, out);

	/* delete with '*': 65000:200 goes, 65001:5 stays */
	assert_int_equal(run("DEL", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(comms_of(out, v), 1);
	assert_int_equal(v[0], C(65001, 5));
	bgp_aset_unref(it, out);
	/* deleting the last one leaves no COMMUNITIES attribute (an empty
	 * one is malformed, RFC 7606 7.8) */
	{
		struct bgp_aset *only = MK(SEQ(65002), COMM(C(65000, 9)));

		assert_int_equal(run("DEL", "198.18.0.0/24", only, &out),
		    BGP_POLICY_ACCEPT);
		assert_int_equal(bgp_aset_attrs(out, &a), 0);
		assert_false(a.present & BGP_ABIT(BGP_ATTR_COMMUNITIES));
		/* which is the set without them: the same pointer */
		assert_ptr_equal(out, in2);
		bgp_aset_unref(it, out);
		bgp_aset_unref(it, only);
	}
	/* deleting what is not there changes nothing but is a new build:
	 * the same set comes back interned */
	assert_int_equal(run("DEL", "198.18.0.0/24", in2, &out),
	    BGP_POLICY_ACCEPT);
	assert_ptr_equal(out, in2);
	bgp_aset_unref(it, out);

	/* set: every community replaced */
	assert_int_equal(run("SET", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(comms_of(out, v), 1);
	assert_int_equal(v[0], C(65010, 1));
	bgp_aset_unref(it, out);

	/* prepend: import puts the neighbour's AS, export ours */
	assert_int_equal(run("PRE", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(bgp_aset_attrs(out, &a), 0);
	bgp_aspath_str(a.aspath, a.aspath_len, path, sizeof(path));
	assert_string_equal(path, "65002 65002 65002 65003");
	assert_int_equal(out->aspath_count, 4);
	bgp_aset_unref(it, out);
	assert_int_equal(run_dir("PRE", BGP_POL_EXPORT, "198.18.0.0/24", in,
			     &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(bgp_aset_attrs(out, &a), 0);
	bgp_aspath_str(a.aspath, a.aspath_len, path, sizeof(path));
	assert_string_equal(path, "65001 65001 65002 65003");
	bgp_aset_unref(it, out);

	/* all at once */
	assert_int_equal(run("ALL", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(comms_of(out, v), 3);
	assert_int_equal(v[0], C(65010, 1));
	assert_int_equal(v[1], C(65000, 100));
	assert_int_equal(v[2], C(65000, 200));
	assert_int_equal(out->local_pref, 50);
	assert_int_equal(out->aspath_count, 3);
	assert_int_equal(out->med, 7); /* untouched */
	assert_int_equal(out->nexthop.s_addr, in->nexthop.s_addr);
	bgp_aset_unref(it, out);

	/* large communities */
	assert_int_equal(run("LADD", "198.18.0.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(bgp_aset_attrs(out, &a), 0);
	assert_int_equal(a.large_len, 12);
	assert_int_equal(bgp_get32(a.large), 65000);
	assert_int_equal(bgp_get32(a.large + 4), 1);
	assert_int_equal(bgp_get32(a.large + 8), 2);
	assert_int_equal(comms_of(out, v), 2); /* the standard ones kept */
	bgp_aset_unref(it, out);
	bgp_aset_unref(it, in);
	bgp_aset_unref(it, in2);
}

/* ---- terms --------------------------------------------------------------------- */

static void
test_term_order(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t1 = term("t1", NEXT), *t2 = term("t2", REJECT),
			*t3 = term("t3", ACCEPT), *t4 = term("t4", NEXT),
			*u1 = term("u1", ACCEPT), *u2 = term("u2", REJECT),
			*nb = term("nb", ACCEPT);
	struct bgp_aset *in, *out;
	struct bgp_policy_peer ibgp = {1, 65001, 65001, false};

	(void)st;
	plist(po, "A", "198.18.0.0/16", 0, 32, NULL);
	plist(po, "B", "198.18.1.0/24", 0, 0, NULL);
	/* t1: every route gets local-preference 300 and goes on; t2 rejects
	 * B; t3 accepts A; t4 prepends (and goes on); then the default */
	t1->set_local_pref = true;
	t1->local_pref = 300;
	t2->prefix_lists = names(&t2->n_prefix_lists, "B", NULL);
	t3->prefix_lists = names(&t3->n_prefix_lists, "A", NULL);
	t4->as_path_prepend = 1;
	policy(po, "SEQ", ACCEPT, t1, t2, t3, t4, NULL);
	policy(po, "NODEFAULT", NEXT, t4, NULL);
	/* the first term that decides wins, even against a later one */
	u1->prefix_lists = names(&u1->n_prefix_lists, "B", NULL);
	u2->prefix_lists = names(&u2->n_prefix_lists, "A", NULL);
	policy(po, "FIRST", ACCEPT, u1, u2, NULL);
	/* from neighbor: the one the route was learned from */
	nb->neighbors[nb->n_neighbors++] = htonl(0xc6120109);
	nb->neighbors[nb->n_neighbors++] = htonl(0xc6120102);
	policy(po, "NBR", REJECT, nb, NULL);
	policy(po, "EMPTY", ACCEPT, NULL);
	ps = compile(po);
	in = MK(SEQ(65002));

	assert_int_equal(run("SEQ", "198.18.1.0/24", in, &out),
	    BGP_POLICY_REJECT);
	assert_null(out);
	/* t1's change is kept when t3 accepts */
	assert_int_equal(run("SEQ", "198.18.2.0/24", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(out->local_pref, 300);
	assert_int_equal(out->aspath_count, 1); /* t4 did not run */
	bgp_aset_unref(it, out);
	/* neither decides: t1 and t4 both apply, the default accepts */
	assert_int_equal(run("SEQ", "198.19.0.0/16", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_int_equal(out->local_pref, 300);
	assert_int_equal(out->aspath_count, 2);
	bgp_aset_unref(it, out);
	/* no default action: reject */
	assert_int_equal(run("NODEFAULT", "198.19.0.0/16", in, &out),
	    BGP_POLICY_REJECT);
	assert_true(accepts("FIRST", "198.18.1.0/24", in));
	assert_false(accepts("FIRST", "198.18.2.0/24", in));
	assert_true(accepts("FIRST", "198.19.2.0/24", in));
	/* no terms: the default; unchanged: the same set, one more ref */
	assert_int_equal(run("EMPTY", "198.19.0.0/16", in, &out),
	    BGP_POLICY_ACCEPT);
	assert_ptr_equal(out, in);
	assert_int_equal(in->refs, 2);
	bgp_aset_unref(it, out);
	/* from neighbor */
	assert_true(accepts("NBR", "198.19.0.0/16", in));
	peer.addr = htonl(0xc6120103);
	assert_false(accepts("NBR", "198.19.0.0/16", in));
	peer.addr = htonl(0xc6120102);
	/* no policy: RFC 8212 */
	assert_false(accepts(NULL, "198.19.0.0/16", in));
	{
		struct bgp_policy_route rt = {.af = BGP_AF_IPV4, .set = in};

		assert_int_equal(bgp_policy_eval(NULL, BGP_POL_IMPORT, &ibgp,
				     &rt, &scr, &out),
		    BGP_POLICY_ACCEPT);
		assert_ptr_equal(out, in);
		bgp_aset_unref(it, out);
	}
	assert_null(bgp_policy_find(ps, "NONE"));
	assert_null(bgp_policy_find(ps, ""));
	assert_null(bgp_policy_find(ps, NULL));
	assert_string_equal(bgp_policy_name(bgp_policy_find(ps, "SEQ")), "SEQ");
	bgp_aset_unref(it, in);
}

/* ---- interning --------------------------------------------------------------- */

static void
test_interned(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t = term("t", ACCEPT);
	struct bgp_aset *a, *b, *o1, *o2, *o3;
	struct bgp_intern_stats is;

	(void)st;
	t->set_local_pref = true;
	t->local_pref = 200;
	policy(po, "LP", REJECT, t, NULL);
	ps = compile(po);
	a = MK(SEQ(65002), .has_lp = true, .lp = 100);
	b = MK(SEQ(65002), .has_lp = true, .lp = 150);
	assert_ptr_not_equal(a, b);
	assert_int_equal(run("LP", "198.18.0.0/24", a, &o1), BGP_POLICY_ACCEPT);
	assert_int_equal(run("LP", "198.18.1.0/24", a, &o2), BGP_POLICY_ACCEPT);
	/* two sets that become the same: one set */
	assert_int_equal(run("LP", "198.18.2.0/24", b, &o3), BGP_POLICY_ACCEPT);
	assert_ptr_equal(o1, o2);
	assert_ptr_equal(o1, o3);
	assert_int_equal(o1->refs, 3);
	bgp_intern_stats(it, &is);
	assert_int_equal(is.sets, 3);
	bgp_aset_unref(it, o1);
	bgp_aset_unref(it, o2);
	bgp_aset_unref(it, o3);
	bgp_aset_unref(it, a);
	bgp_aset_unref(it, b);
}

/* ---- no malloc per evaluation ------------------------------------------------ */

static void
test_no_malloc(void **st)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t1 = term("t1", NEXT), *t2 = term("t2", ACCEPT);
	struct bgp_aset *in[8], *out;
	unsigned long before;

	(void)st;
	plist(po, "A", "198.18.0.0/15", 0, 24, NULL);
	aspath(po, "P", "^65002");
	community(po, "TAGS", "65000:100", NULL);
	t1->as_paths = names(&t1->n_as_paths, "P", NULL);
	t1->community_add = names(&t1->n_community_add, "TAGS", NULL);
	t1->as_path_prepend = 1;
	t2->prefix_lists = names(&t2->n_prefix_lists, "A", NULL);
	t2->communities = names(&t2->n_communities, "TAGS", NULL);
	t2->set_med = true;
	t2->med = 10;
	policy(po, "IN", REJECT, t1, t2, NULL);
	ps = compile(po);
	for (unsigned i = 0; i < 8; i++)
		in[i] = MK(SEQ(65002, 65100 + i), COMM(C(65000, 100)));
	/* warm: the cache filled, the results interned */
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(run("IN", "198.18.0.0/24", in[i], &out),
		    BGP_POLICY_ACCEPT);
		bgp_aset_unref(it, in[i]); /* out keeps in's result alive */
		in[i] = out;		   /* and runs again on it */
	}
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(run("IN", "198.18.0.0/24", in[i], &out),
		    BGP_POLICY_ACCEPT);
		bgp_aset_unref(it, out);
		assert_int_equal(run("IN", "198.18.0.0/24", in[i], &out),
		    BGP_POLICY_ACCEPT);
		bgp_aset_unref(it, out);
	}
	/* hold one result per set so that each build finds its set */
	{
		struct bgp_aset *keep[8];

		for (unsigned i = 0; i < 8; i++)
			assert_int_equal(run("IN", "198.18.0.0/24", in[i],
					     &keep[i]),
			    BGP_POLICY_ACCEPT);
		before = allocs;
		for (unsigned n = 0; n < 10000; n++) {
			char pfx[32];

			snprintf(pfx, sizeof(pfx), "198.18.%u.0/24", n % 256);
			assert_int_equal(run("IN", pfx, in[n % 8], &out),
			    BGP_POLICY_ACCEPT);
			assert_ptr_equal(out, keep[n % 8]);
			bgp_aset_unref(it, out);
		}
		assert_int_equal(allocs, before);
		for (unsigned i = 0; i < 8; i++)
			bgp_aset_unref(it, keep[i]);
	}
	for (unsigned i = 0; i < 8; i++)
		bgp_aset_unref(it, in[i]);
}

/* ---- what changed between two configurations ---------------------------------- */

/* The options of one configuration: IN uses CUST and PATHS, OUT uses
 * TAGS; v picks a variant. */
static Bgp__PolicyOptions *
gen(int v)
{
	Bgp__PolicyOptions *po = po_new();
	Bgp__PolicyTerm *t = term(v == 3 ? "renamed" : "t1", ACCEPT);
	Bgp__PolicyTerm *o = term("o1", ACCEPT);

	plist(po, "CUST", "198.18.0.0/15", 0, v == 1 ? 23 : 24, NULL);
	aspath(po, "PATHS", v == 2 ? "^65003" : "^65002");
	community(po, "TAGS", "65000:100", NULL);
	t->prefix_lists = names(&t->n_prefix_lists, "CUST", NULL);
	t->as_paths = names(&t->n_as_paths, "PATHS", NULL);
	if (v == 4) {
		t->set_local_pref = true;
		t->local_pref = 120;
	}
	o->community_add = names(&o->n_community_add, "TAGS", NULL);
	policy(po, "IN", REJECT, t, NULL);
	policy(po, "OUT", v == 5 ? ACCEPT : REJECT, o, NULL);
	if (v == 6)
		policy(po, "EXTRA", ACCEPT, NULL);
	return (po);
}

static void
test_changed(void **st)
{
	struct bgp_policy_set *base, *v;

	(void)st;
	base = compile(gen(0));
	v = compile(gen(0));
	assert_false(bgp_policy_changed(base, v, "IN"));
	assert_false(bgp_policy_changed(base, v, "OUT"));
	assert_false(bgp_policy_changed(base, v, "NONE"));
	bgp_policy_set_free(v);
	/* a prefix list IN uses */
	v = compile(gen(1));
	assert_true(bgp_policy_changed(base, v, "IN"));
	assert_false(bgp_policy_changed(base, v, "OUT"));
	bgp_policy_set_free(v);
	/* a regex IN uses */
	v = compile(gen(2));
	assert_true(bgp_policy_changed(base, v, "IN"));
	assert_false(bgp_policy_changed(base, v, "OUT"));
	bgp_policy_set_free(v);
	/* a term's name does not count */
	v = compile(gen(3));
	assert_false(bgp_policy_changed(base, v, "IN"));
	bgp_policy_set_free(v);
	/* an action, the default */
	v = compile(gen(4));
	assert_true(bgp_policy_changed(base, v, "IN"));
	bgp_policy_set_free(v);
	v = compile(gen(5));
	assert_false(bgp_policy_changed(base, v, "IN"));
	assert_true(bgp_policy_changed(base, v, "OUT"));
	bgp_policy_set_free(v);
	/* there in one only; no set at all */
	v = compile(gen(6));
	assert_true(bgp_policy_changed(base, v, "EXTRA"));
	assert_true(bgp_policy_changed(v, base, "EXTRA"));
	assert_true(bgp_policy_changed(NULL, v, "IN"));
	assert_false(bgp_policy_changed(NULL, NULL, "IN"));
	bgp_policy_set_free(v);
	bgp_policy_set_free(base);
	/* NULL options: an empty set */
	v = compile(NULL);
	assert_null(bgp_policy_find(v, "IN"));
	bgp_policy_set_free(v);
}

/* ---- compile errors ---------------------------------------------------------- */

static void
refused(const Bgp__PolicyOptions *po, const char *msg)
{
	struct bgp_policy_set *s = (void *)1;
	struct lc_err err;

	assert_int_equal(bgp_policy_set_compile(po, it, &s, &err), -EINVAL);
	assert_ptr_equal(s, (void *)1);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("got: %s\nwant: %s", err.msg, msg);
}

static void
test_compile_errors(void **st)
{
	Bgp__PolicyOptions *po;
	Bgp__PolicyTerm *t;

	(void)st;
	po = po_new();
	t = term("t1", ACCEPT);
	t->prefix_lists = names(&t->n_prefix_lists, "CUST", NULL);
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t1: prefix-list CUST "
	    "is not defined");

	po = po_new();
	t = term("t1", ACCEPT);
	t->as_paths = names(&t->n_as_paths, "P", NULL);
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t1: as-path P is not "
	    "defined");

	po = po_new();
	t = term("t2", ACCEPT);
	t->community_delete = names(&t->n_community_delete, "X", NULL);
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t2: community X is not "
	    "defined");

	po = po_new();
	aspath(po, "BAD", "(65001");
	refused(po,
	    "policy-options as-path BAD \"(65001\": Unmatched ( or \\(");

	po = po_new();
	community(po, "W", "65000:*", NULL);
	t = term("t1", ACCEPT);
	t->community_add = names(&t->n_community_add, "W", NULL);
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t1: community add W: a "
	    "member with '*' cannot be added");

	po = po_new();
	community(po, "W", "65000:*", NULL);
	t = term("t1", ACCEPT);
	t->community_set = S("W");
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t1: community set W: a "
	    "member with '*' cannot be added");

	po = po_new();
	plist(po, "A", "198.18.0.0/16", 8, 0, NULL);
	refused(po,
	    "policy-options prefix-list A 198.18.0.0/16: ge 8 le 0: expected "
	    "16 <= ge <= le <= 32");
	po = po_new();
	plist(po, "A", "198.18.0.0/16", 24, 20, NULL);
	refused(po,
	    "policy-options prefix-list A 198.18.0.0/16: ge 24 le 20: "
	    "expected 16 <= ge <= le <= 32");
	po = po_new();
	plist(po, "A", "198.18.0.0/16", 0, 33, NULL);
	refused(po,
	    "policy-options prefix-list A 198.18.0.0/16: ge 0 le 33: expected "
	    "16 <= ge <= le <= 32");
	po = po_new();
	plist(po, "A", "198.18.0.0/16", 0, 8, NULL);
	refused(po,
	    "policy-options prefix-list A 198.18.0.0/16: ge 0 le 8: expected "
	    "16 <= ge <= le <= 32");
	po = po_new();
	plist(po, "A", "198.18.0.0/16", 0, 0, NULL);
	po->prefix_lists[0]->entries[0]->prefix = htonl(0xc6120001);
	refused(po, "policy-options prefix-list A: entry 0 is not a prefix");

	po = po_new();
	plist(po, "A", "198.18.0.0/16", 0, 0, NULL);
	plist(po, "A", "198.19.0.0/16", 0, 0, NULL);
	refused(po, "policy-options prefix-list A: defined twice");
	po = po_new();
	policy(po, "IN", REJECT, NULL);
	policy(po, "IN", ACCEPT, NULL);
	refused(po, "policy-options policy-statement IN: defined twice");
	po = po_new();
	community(po, "E", NULL);
	refused(po, "policy-options community E: no members");
	po = po_new();
	t = term("t1", (Bgp__PolicyAction)7);
	policy(po, "IN", REJECT, t, NULL);
	refused(po,
	    "policy-options policy-statement IN term t1: unknown action 7");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_prefix_list, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prefix_list_big, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_aspath_regex, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_communities, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_actions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_term_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_malloc, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_changed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compile_errors, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
