/* bgp/bgp_policy.c: routing policy (issue 21): policy-options compiled from
 * bgp.proto into tries, regexes and community sets; a policy run per route,
 * with what depends only on the attribute set cached per (set, condition)
 * (docs/bgp.md "Policy"). */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_arena.h"

#include "bgp_policy.h"

#define PC_MIN 4096	  /* cache slots when first used */
#define PC_MAX (1u << 18) /* 4 MiB of slots at most */
/* an AS path printed: at most 10 digits and a separator per AS, and the
 * segments' brackets */
#define PSTR_MAX (BGP_ATTR_CANON_MAX / 4 * 12 + 64)

#define COMM_NO_EXPORT		 0xffffff01u /* RFC 1997 */
#define COMM_NO_ADVERTISE	 0xffffff02u
#define COMM_NO_EXPORT_SUBCONFED 0xffffff03u

/*
 * A prefix list is a path-compressed binary trie of its entries' prefixes.
 * A node is a prefix; lens has bit n set when a route of length n under it
 * matches (0: the node only joins two branches). A lookup walks the route's
 * bits once, so it visits at most 33 nodes (about log2 of the entries for
 * a list of scattered prefixes), whatever the list's size.
 */
struct pl_node {
	uint32_t addr; /* host order, bits past len zero */
	uint8_t len;
	uint64_t lens;
	uint32_t kid[2]; /* node indices; 0: none */
};

/* An entry as compiled (the ranges resolved), sorted: what
 * bgp_policy_changed() compares. */
struct pl_ent {
	uint32_t addr;
	uint8_t len, lo, hi;
	uint8_t zero; /* no padding: entries are compared with memcmp */
};

/* name is the first member of each definition: bsearch by name. */
struct pol_plist {
	const char *name;
	struct pl_ent *ent;
	uint32_t nent;
	struct pl_node *node; /* [0] unused */
	uint32_t nnode, root;
};

struct pol_aspath {
	const char *name;
	const char *text;
	regex_t re;
	bool re_ok;
	uint32_t cond; /* its id in the cache */
};

struct pol_std {
	uint32_t v, m; /* matches c when (c & m) == v */
};
struct pol_large {
	uint32_t v[3], m[3];
};

struct pol_comm {
	const char *name;
	struct pol_std *std;
	struct pol_large *lg;
	uint32_t nstd, nlg;
	bool wild; /* a member has a '*': matches and deletes only */
	uint32_t cond;
};

struct pol_term {
	const char *name;
	struct pol_plist **pl;
	struct pol_aspath **ap;
	struct pol_comm **cm, **cdel, **cadd, *cset;
	uint32_t *nbr;
	uint32_t npl, nap, ncm, nnbr, ncdel, ncadd;
	int action; /* BGP__POLICY_ACTION__* */
	bool set_lp, set_med, modifies;
	uint32_t lp, med, prepend;
};

struct bgp_policy {
	const char *name;
	struct bgp_policy_set *ps;
	struct pol_term *t;
	uint32_t nt;
	int dflt;
};

/* One cached answer: does condition cond hold for set? The entry holds a
 * reference on set, so that a freed set's address, reused, cannot find an
 * answer that was not about it. Slots go in pairs (two ways): [0] the
 * newer. */
struct pc_ent {
	struct bgp_aset *set;
	uint32_t cond;
	uint32_t match;
};

struct bgp_policy_set {
	struct lc_arena *ar;
	struct bgp_intern *it;
	struct pol_plist *pl;
	struct pol_aspath *ap;
	struct pol_comm *cm;
	struct bgp_policy *pol;
	uint32_t npl, nap, ncm, npol;
	struct pc_ent *pc; /* NULL until first used */
	uint32_t pcmask;
	uint64_t evict; /* since the cache last grew */
	struct bgp_policy_stats st;
	char *str; /* PSTR_MAX: the AS path being matched */
};

/* ---- names -------------------------------------------------------------- */

static int
name_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* The definition called name in v[0..n) (sorted, each sz bytes), or NULL. */
static void *
def_find(void *v, uint32_t n, size_t sz, const char *name)
{
	if (name == NULL || name[0] == '\0' || n == 0)
		return (NULL);
	return (bsearch(&name, v, n, sz, name_cmp));
}

/* Sorts v by name; -EINVAL (err) when two have the same one. */
static int
defs_sort(void *v, uint32_t n, size_t sz, const char *what, struct lc_err *err)
{
	qsort(v, n, sz, name_cmp);
	for (uint32_t i = 1; i < n; i++) {
		const char *a = *(const char **)((char *)v + (i - 1) * sz);
		const char *b = *(const char **)((char *)v + i * sz);

		if (strcmp(a, b) == 0)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "policy-options %s %s: defined twice", what, b));
	}
	return (0);
}

static int
name_check(const char *name, const char *what, struct lc_err *err)
{
	if (name == NULL || name[0] == '\0')
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "policy-options %s without a name", what));
	return (0);
}

/* ---- prefix lists ------------------------------------------------------- */

static inline unsigned
bit_at(uint32_t a, unsigned i)
{
	return ((a >> (31 - i)) & 1);
}

/* Length of the prefix a/alen and b/blen share. */
static inline unsigned
common_len(uint32_t a, unsigned alen, uint32_t b, unsigned blen)
{
	unsigned m = alen < blen ? alen : blen;
	uint32_t x = a ^ b;
	unsigned c = x != 0 ? (unsigned)__builtin_clz(x) : 32;

	return (c < m ? c : m);
}

static uint32_t
pl_new_node(struct pol_plist *l, uint32_t addr, unsigned len, uint64_t lens)
{
	struct pl_node *n = &l->node[++l->nnode];

	n->addr = addr;
	n->len = (uint8_t)len;
	n->lens = lens;
	n->kid[0] = n->kid[1] = 0;
	return (l->nnode);
}

/* Adds a/len with the route lengths lens; l->node has room for two more
 * nodes (a leaf and the node that joins it), so slot pointers stay valid. */
static void
pl_insert(struct pol_plist *l, uint32_t a, unsigned len, uint64_t lens)
{
	uint32_t *slot = &l->root;

	for (;;) {
		struct pl_node *n;
		unsigned c;
		uint32_t m, g;

		if (*slot == 0) {
			*slot = pl_new_node(l, a, len, lens);
			return;
		}
		n = &l->node[*slot];
		c = common_len(a, len, n->addr, n->len);
		if (c == n->len && c == len) {
			n->lens |= lens;
			return;
		}
		if (c == n->len) { /* under n */
			slot = &n->kid[bit_at(a, n->len)];
			continue;
		}
		if (c == len) { /* above n */
			m = pl_new_node(l, a, len, lens);
			l->node[m].kid[bit_at(n->addr, len)] = *slot;
			*slot = m;
			return;
		}
		/* beside n: a node at the bits they share joins the two */
		g = pl_new_node(l, a & lc_prefix4_mask(c), c, 0);
		m = pl_new_node(l, a, len, lens);
		l->node[g].kid[bit_at(n->addr, c)] = *slot;
		l->node[g].kid[bit_at(a, c)] = m;
		*slot = g;
		return;
	}
}

/* a/len (host order) matches an entry of l. */
static bool
pl_match(const struct pol_plist *l, uint32_t a, unsigned len)
{
	uint32_t i = l->root;

	while (i != 0) {
		const struct pl_node *n = &l->node[i];

		if (n->len > len ||
		    ((a ^ n->addr) & lc_prefix4_mask(n->len)) != 0)
			return (false);
		if ((n->lens >> len) & 1)
			return (true);
		if (n->len == 32)
			return (false);
		i = n->kid[bit_at(a, n->len)];
	}
	return (false);
}

static int
pl_ent_cmp(const void *a, const void *b)
{
	const struct pl_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr < y->addr ? -1 : 1);
	if (x->len != y->len)
		return (x->len < y->len ? -1 : 1);
	if (x->lo != y->lo)
		return (x->lo < y->lo ? -1 : 1);
	return ((x->hi > y->hi) - (x->hi < y->hi));
}

static int
plist_compile(struct bgp_policy_set *ps, const Bgp__PrefixList *in,
    struct pol_plist *l, struct lc_err *err)
{
	if (name_check(in->name, "prefix-list", err) != 0)
		return (-EINVAL);
	if ((l->name = lc_arena_strdup(ps->ar, in->name)) == NULL)
		return (-ENOMEM);
	l->nent = (uint32_t)in->n_entries;
	l->ent = lc_arena_alloc(ps->ar, (l->nent + 1) * sizeof(*l->ent));
	l->node = lc_arena_alloc(ps->ar, (2 * l->nent + 1) * sizeof(*l->node));
	if (l->ent == NULL || l->node == NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; i < l->nent; i++) {
		const Bgp__PrefixListEntry *e = in->entries[i];
		uint32_t a = ntohl(e->prefix);
		unsigned lo = e->len, hi = e->len;
		char pb[LC_PREFIX4_STRLEN];
		struct lc_prefix4 p = {{e->prefix}, (uint8_t)e->len};

		if (e->len > 32 || (a & ~lc_prefix4_mask(e->len)) != 0)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "policy-options prefix-list %s: entry %u is not a "
			    "prefix",
			    l->name, i));
		if (e->ge != 0) {
			lo = e->ge;
			hi = 32;
		}
		if (e->le != 0)
			hi = e->le;
		if (lo < e->len || hi > 32 || lo > hi)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "policy-options prefix-list %s %s: ge %u le %u: "
			    "expected %u <= ge <= le <= 32",
			    l->name, lc_prefix4_str(&p, pb), e->ge, e->le,
			    e->len));
		l->ent[i].addr = a;
		l->ent[i].len = (uint8_t)e->len;
		l->ent[i].lo = (uint8_t)lo;
		l->ent[i].hi = (uint8_t)hi;
		l->ent[i].zero = 0;
		/* bits lo..hi */
		pl_insert(l, a, e->len,
		    ((2ull << hi) - 1) & ~((1ull << lo) - 1));
	}
	qsort(l->ent, l->nent, sizeof(*l->ent), pl_ent_cmp);
	return (0);
}

/* ---- communities and the canonical encoding ----------------------------- */

/* The value of attribute type in a canonical encoding (sorted by type,
 * well formed), or NULL. */
static const uint8_t *
canon_attr(const struct bgp_aset *s, uint8_t type, size_t *vlen)
{
	const uint8_t *p = s->data;
	size_t off = 0;

	while (off + 3 <= s->len) {
		size_t hl = p[off] & BGP_ATTR_F_EXTLEN ? 4 : 3;
		size_t vl = hl == 4 ? bgp_get16(p + off + 2) : p[off + 2];

		if (p[off + 1] == type) {
			*vlen = vl;
			return (p + off + hl);
		}
		if (p[off + 1] > type)
			break;
		off += hl + vl;
	}
	*vlen = 0;
	return (NULL);
}

static bool
std_has(const uint8_t *c, size_t len, const struct pol_std *m)
{
	for (size_t o = 0; o + 4 <= len; o += 4)
		if ((bgp_get32(c + o) & m->m) == m->v)
			return (true);
	return (false);
}

static bool
large_is(const uint8_t *c, const struct pol_large *m)
{
	for (unsigned k = 0; k < 3; k++)
		if ((bgp_get32(c + 4 * k) & m->m[k]) != m->v[k])
			return (false);
	return (true);
}

static bool
large_has(const uint8_t *c, size_t len, const struct pol_large *m)
{
	for (size_t o = 0; o + 12 <= len; o += 12)
		if (large_is(c + o, m))
			return (true);
	return (false);
}

/* s carries every member of l. */
static bool
comm_match(const struct pol_comm *l, const struct bgp_aset *s)
{
	size_t sl, ll;
	const uint8_t *sc = canon_attr(s, BGP_ATTR_COMMUNITIES, &sl);
	const uint8_t *lc = canon_attr(s, BGP_ATTR_LARGE_COMMUNITY, &ll);

	for (uint32_t i = 0; i < l->nstd; i++)
		if (sc == NULL || !std_has(sc, sl, &l->std[i]))
			return (false);
	for (uint32_t i = 0; i < l->nlg; i++)
		if (lc == NULL || !large_has(lc, ll, &l->lg[i]))
			return (false);
	return (true);
}

static int
comm_compile(struct bgp_policy_set *ps, const Bgp__CommunityList *in,
    struct pol_comm *l, struct lc_err *err)
{
	if (name_check(in->name, "community", err) != 0)
		return (-EINVAL);
	if ((l->name = lc_arena_strdup(ps->ar, in->name)) == NULL)
		return (-ENOMEM);
	if (in->n_members == 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "policy-options community %s: no members", l->name));
	l->std = lc_arena_alloc(ps->ar, in->n_members * sizeof(*l->std));
	l->lg = lc_arena_alloc(ps->ar, in->n_members * sizeof(*l->lg));
	if (l->std == NULL || l->lg == NULL)
		return (-ENOMEM);
	for (size_t i = 0; i < in->n_members; i++) {
		const Bgp__CommunityMember *m = in->members[i];
		uint32_t w = m->wild;

		if (w > 7 ||
		    (!m->large &&
			(m->global > 0xffff || m->local1 > 0xffff ||
			    m->local2 != 0 || w > 3)))
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "policy-options community %s: member %zu is not a "
			    "community",
			    l->name, i));
		l->wild |= w != 0;
		if (m->large) {
			struct pol_large *g = &l->lg[l->nlg++];
			const uint32_t v[3] = {m->global, m->local1, m->local2};

			for (unsigned k = 0; k < 3; k++) {
				g->m[k] = (w >> k) & 1 ? 0 : 0xffffffffu;
				g->v[k] = v[k] & g->m[k];
			}
		} else {
			struct pol_std *s = &l->std[l->nstd++];

			s->m = ((w & 1) ? 0 : 0xffff0000u) |
			    ((w & 2) ? 0 : 0xffffu);
			s->v = (m->global << 16 | m->local1) & s->m;
		}
	}
	return (0);
}

/* ---- policy statements -------------------------------------------------- */

/* The definitions called names[0..n) into *out; -EINVAL naming the first
 * missing one. */
static int
refs_resolve(struct bgp_policy_set *ps, void *defs, uint32_t ndefs, size_t sz,
    char **names, size_t n, void ***out, uint32_t *nout, const char *ctx,
    const char *what, struct lc_err *err)
{
	*nout = 0;
	if ((*out = lc_arena_alloc(ps->ar, (n + 1) * sizeof(void *))) == NULL)
		return (-ENOMEM);
	for (size_t i = 0; i < n; i++) {
		void *d = def_find(defs, ndefs, sz, names[i]);

		if (d == NULL)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: %s %s is not defined", ctx, what,
			    names[i] ? names[i] : ""));
		(*out)[(*nout)++] = d;
	}
	return (0);
}

/* A community list an action adds: its members must be whole. */
static int
comm_addable(const struct pol_comm *c, const char *ctx, const char *verb,
    struct lc_err *err)
{
	if (c->wild)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: community %s %s: a member with '*' cannot be added",
		    ctx, verb, c->name));
	return (0);
}

static int
term_compile(struct bgp_policy_set *ps, const char *pname,
    const Bgp__PolicyTerm *in, struct pol_term *t, struct lc_err *err)
{
	char ctx[192];
	int rv;

	t->name = lc_arena_strdup(ps->ar, in->name != NULL ? in->name : "");
	if (t->name == NULL)
		return (-ENOMEM);
	snprintf(ctx, sizeof(ctx), "policy-options policy-statement %s term %s",
	    pname, t->name);
	if ((rv = refs_resolve(ps, ps->pl, ps->npl, sizeof(*ps->pl),
		 in->prefix_lists, in->n_prefix_lists, (void ***)&t->pl,
		 &t->npl, ctx, "prefix-list", err)) != 0 ||
	    (rv = refs_resolve(ps, ps->ap, ps->nap, sizeof(*ps->ap),
		 in->as_paths, in->n_as_paths, (void ***)&t->ap, &t->nap, ctx,
		 "as-path", err)) != 0 ||
	    (rv = refs_resolve(ps, ps->cm, ps->ncm, sizeof(*ps->cm),
		 in->communities, in->n_communities, (void ***)&t->cm, &t->ncm,
		 ctx, "community", err)) != 0 ||
	    (rv = refs_resolve(ps, ps->cm, ps->ncm, sizeof(*ps->cm),
		 in->community_delete, in->n_community_delete,
		 (void ***)&t->cdel, &t->ncdel, ctx, "community", err)) != 0 ||
	    (rv = refs_resolve(ps, ps->cm, ps->ncm, sizeof(*ps->cm),
		 in->community_add, in->n_community_add, (void ***)&t->cadd,
		 &t->ncadd, ctx, "community", err)) != 0)
		return (rv);
	for (uint32_t i = 0; i < t->ncadd; i++)
		if (comm_addable(t->cadd[i], ctx, "add", err) != 0)
			return (-EINVAL);
	if (in->community_set != NULL && in->community_set[0] != '\0') {
		t->cset = def_find(ps->cm, ps->ncm, sizeof(*ps->cm),
		    in->community_set);
		if (t->cset == NULL)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: community %s is not defined", ctx,
			    in->community_set));
		if (comm_addable(t->cset, ctx, "set", err) != 0)
			return (-EINVAL);
	}
	t->nnbr = (uint32_t)in->n_neighbors;
	t->nbr = lc_arena_alloc(ps->ar, (t->nnbr + 1) * sizeof(*t->nbr));
	if (t->nbr == NULL)
		return (-ENOMEM);
	if (t->nnbr > 0)
		memcpy(t->nbr, in->neighbors, t->nnbr * sizeof(*t->nbr));
	if (in->action != BGP__POLICY_ACTION__POLICY_NEXT &&
	    in->action != BGP__POLICY_ACTION__POLICY_ACCEPT &&
	    in->action != BGP__POLICY_ACTION__POLICY_REJECT)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: unknown action %d", ctx, (int)in->action));
	t->action = in->action;
	t->set_lp = in->set_local_pref;
	t->lp = in->local_pref;
	t->set_med = in->set_med;
	t->med = in->med;
	if (in->as_path_prepend > 255)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: as-path-prepend %u: at most 255", ctx,
		    in->as_path_prepend));
	t->prepend = in->as_path_prepend;
	t->modifies = t->set_lp || t->set_med || t->prepend > 0 ||
	    t->cset != NULL || t->ncdel > 0 || t->ncadd > 0;
	return (0);
}

static int
policy_compile(struct bgp_policy_set *ps, const Bgp__PolicyStatement *in,
    struct bgp_policy *p, struct lc_err *err)
{
	int rv;

	p->ps = ps;
	p->nt = (uint32_t)in->n_terms;
	if ((p->t = lc_arena_calloc(ps->ar, (p->nt + 1) * sizeof(*p->t))) ==
	    NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; i < p->nt; i++)
		if ((rv = term_compile(ps, p->name, in->terms[i], &p->t[i],
			 err)) != 0)
			return (rv);
	if (in->default_action != BGP__POLICY_ACTION__POLICY_NEXT &&
	    in->default_action != BGP__POLICY_ACTION__POLICY_ACCEPT &&
	    in->default_action != BGP__POLICY_ACTION__POLICY_REJECT)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "policy-options policy-statement %s: unknown default "
		    "action %d",
		    p->name, (int)in->default_action));
	p->dflt = in->default_action == BGP__POLICY_ACTION__POLICY_ACCEPT ?
	    BGP__POLICY_ACTION__POLICY_ACCEPT :
	    BGP__POLICY_ACTION__POLICY_REJECT;
	return (0);
}

/* ---- the set ------------------------------------------------------------ */

static int
set_compile(struct bgp_policy_set *ps, const Bgp__PolicyOptions *po,
    struct lc_err *err)
{
	char why[128];
	int rv;

	ps->npl = (uint32_t)po->n_prefix_lists;
	ps->nap = (uint32_t)po->n_as_paths;
	ps->ncm = (uint32_t)po->n_communities;
	ps->npol = (uint32_t)po->n_policies;
	ps->pl = lc_arena_calloc(ps->ar, (ps->npl + 1) * sizeof(*ps->pl));
	ps->ap = lc_arena_calloc(ps->ar, (ps->nap + 1) * sizeof(*ps->ap));
	ps->cm = lc_arena_calloc(ps->ar, (ps->ncm + 1) * sizeof(*ps->cm));
	ps->pol = lc_arena_calloc(ps->ar, (ps->npol + 1) * sizeof(*ps->pol));
	if (ps->pl == NULL || ps->ap == NULL || ps->cm == NULL ||
	    ps->pol == NULL)
		return (-ENOMEM);
	for (uint32_t i = 0; i < ps->npl; i++)
		if ((rv = plist_compile(ps, po->prefix_lists[i], &ps->pl[i],
			 err)) != 0)
			return (rv);
	for (uint32_t i = 0; i < ps->ncm; i++)
		if ((rv = comm_compile(ps, po->communities[i], &ps->cm[i],
			 err)) != 0)
			return (rv);
	for (uint32_t i = 0; i < ps->nap; i++) {
		if (name_check(po->as_paths[i]->name, "as-path", err) != 0)
			return (-EINVAL);
		ps->ap[i].name = lc_arena_strdup(ps->ar, po->as_paths[i]->name);
		ps->ap[i].text = lc_arena_strdup(ps->ar,
		    po->as_paths[i]->regex != NULL ? po->as_paths[i]->regex :
						     "");
		if (ps->ap[i].name == NULL || ps->ap[i].text == NULL)
			return (-ENOMEM);
	}
	for (uint32_t i = 0; i < ps->npol; i++) {
		if (name_check(po->policies[i]->name, "policy-statement",
			err) != 0)
			return (-EINVAL);
		ps->pol[i].name = lc_arena_strdup(ps->ar,
		    po->policies[i]->name);
		if (ps->pol[i].name == NULL)
			return (-ENOMEM);
	}
	/* sorted first: regex_t and the resolved pointers do not move */
	if (defs_sort(ps->pl, ps->npl, sizeof(*ps->pl), "prefix-list", err) ||
	    defs_sort(ps->ap, ps->nap, sizeof(*ps->ap), "as-path", err) ||
	    defs_sort(ps->cm, ps->ncm, sizeof(*ps->cm), "community", err))
		return (-EINVAL);
	for (uint32_t i = 0; i < ps->nap; i++) {
		struct pol_aspath *a = &ps->ap[i];

		if ((rv = regcomp(&a->re, a->text, REG_EXTENDED | REG_NOSUB)) !=
		    0) {
			regerror(rv, &a->re, why, sizeof(why));
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "policy-options as-path %s \"%s\": %s", a->name,
			    a->text, why));
		}
		a->re_ok = true;
		a->cond = i;
	}
	for (uint32_t i = 0; i < ps->ncm; i++)
		ps->cm[i].cond = ps->nap + i;
	/* each policy compiled from the message's entry of its name */
	for (uint32_t i = 0; i < ps->npol; i++)
		if ((rv = policy_compile(ps, po->policies[i], &ps->pol[i],
			 err)) != 0)
			return (rv);
	return (defs_sort(ps->pol, ps->npol, sizeof(*ps->pol),
		    "policy-statement", err) != 0 ?
		-EINVAL :
		0);
}

int
bgp_policy_set_compile(const Bgp__PolicyOptions *po, struct bgp_intern *it,
    struct bgp_policy_set **out, struct lc_err *err)
{
	struct bgp_policy_set *ps = calloc(1, sizeof(*ps));
	int rv;

	if (ps == NULL || (ps->ar = lc_arena_new(0)) == NULL ||
	    (ps->str = malloc(PSTR_MAX)) == NULL) {
		bgp_policy_set_free(ps);
		return (lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX,
		    "policy-options: out of memory"));
	}
	ps->it = it;
	if (po != NULL && (rv = set_compile(ps, po, err)) != 0) {
		if (rv == -ENOMEM)
			lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX,
			    "policy-options: out of memory");
		bgp_policy_set_free(ps);
		return (rv);
	}
	*out = ps;
	return (0);
}

void
bgp_policy_set_flush(struct bgp_policy_set *ps)
{
	if (ps == NULL || ps->pc == NULL)
		return;
	for (uint32_t i = 0; i <= ps->pcmask; i++)
		if (ps->pc[i].set != NULL)
			bgp_aset_unref(ps->it, ps->pc[i].set);
	free(ps->pc);
	ps->pc = NULL;
	ps->pcmask = 0;
	ps->evict = 0;
}

void
bgp_policy_set_free(struct bgp_policy_set *ps)
{
	if (ps == NULL)
		return;
	bgp_policy_set_flush(ps);
	for (uint32_t i = 0; i < ps->nap; i++)
		if (ps->ap[i].re_ok)
			regfree(&ps->ap[i].re);
	lc_arena_free(ps->ar);
	free(ps->str);
	free(ps);
}

struct bgp_policy *
bgp_policy_find(struct bgp_policy_set *ps, const char *name)
{
	if (ps == NULL)
		return (NULL);
	return (def_find(ps->pol, ps->npol, sizeof(*ps->pol), name));
}

static const struct bgp_policy *
policy_find(const struct bgp_policy_set *ps, const char *name)
{
	if (ps == NULL)
		return (NULL);
	return (def_find(ps->pol, ps->npol, sizeof(*ps->pol), name));
}

const char *
bgp_policy_name(const struct bgp_policy *p)
{
	return (p->name);
}

void
bgp_policy_set_stats(const struct bgp_policy_set *ps,
    struct bgp_policy_stats *st)
{
	*st = ps->st;
	st->slots = ps->pc != NULL ? ps->pcmask + 1 : 0;
}

/* ---- what changed ------------------------------------------------------- */

static bool
plist_eq(const void *pa, const void *pb)
{
	const struct pol_plist *a = pa, *b = pb;

	return (a->nent == b->nent &&
	    memcmp(a->ent, b->ent, a->nent * sizeof(*a->ent)) == 0);
}

static bool
aspath_eq(const void *pa, const void *pb)
{
	const struct pol_aspath *a = pa, *b = pb;

	return (strcmp(a->text, b->text) == 0);
}

static bool
comm_eq(const void *pa, const void *pb)
{
	const struct pol_comm *a = pa, *b = pb;

	if (a == NULL || b == NULL)
		return (a == b);
	return (a->nstd == b->nstd && a->nlg == b->nlg &&
	    memcmp(a->std, b->std, a->nstd * sizeof(*a->std)) == 0 &&
	    memcmp(a->lg, b->lg, a->nlg * sizeof(*a->lg)) == 0);
}

typedef bool def_eq_fn(const void *, const void *);

/* The references a[0..n) and b[0..n) name definitions of equal content. */
static bool
refs_eq(void *a, void *b, uint32_t n, def_eq_fn *eq)
{
	void *const *x = a, *const *y = b;

	for (uint32_t i = 0; i < n; i++)
		if (!eq(x[i], y[i]))
			return (false);
	return (true);
}

static bool
term_eq(const struct pol_term *a, const struct pol_term *b)
{
	return (a->npl == b->npl && a->nap == b->nap && a->ncm == b->ncm &&
	    a->nnbr == b->nnbr && a->ncdel == b->ncdel &&
	    a->ncadd == b->ncadd && a->action == b->action &&
	    a->set_lp == b->set_lp && a->set_med == b->set_med &&
	    (!a->set_lp || a->lp == b->lp) &&
	    (!a->set_med || a->med == b->med) && a->prepend == b->prepend &&
	    memcmp(a->nbr, b->nbr, a->nnbr * sizeof(*a->nbr)) == 0 &&
	    comm_eq(a->cset, b->cset) &&
	    refs_eq(a->pl, b->pl, a->npl, plist_eq) &&
	    refs_eq(a->ap, b->ap, a->nap, aspath_eq) &&
	    refs_eq(a->cm, b->cm, a->ncm, comm_eq) &&
	    refs_eq(a->cdel, b->cdel, a->ncdel, comm_eq) &&
	    refs_eq(a->cadd, b->cadd, a->ncadd, comm_eq));
}

bool
bgp_policy_changed(const struct bgp_policy_set *a,
    const struct bgp_policy_set *b, const char *name)
{
	const struct bgp_policy *pa = policy_find(a, name);
	const struct bgp_policy *pb = policy_find(b, name);

	if (pa == NULL || pb == NULL)
		return (pa != pb);
	if (pa->nt != pb->nt || pa->dflt != pb->dflt)
		return (true);
	for (uint32_t i = 0; i < pa->nt; i++)
		if (!term_eq(&pa->t[i], &pb->t[i]))
			return (true);
	return (false);
}

/* ---- the cache of attribute-set conditions ------------------------------ */

/* The first slot of the pair of (s, cond). */
static inline uint32_t
pc_slot(const struct bgp_aset *s, uint32_t cond, uint32_t mask)
{
	/* splitmix64's finalizer: every bit of both reaches the low bits
	 * (the conditions of one set must not share a pair) */
	uint64_t k = ((uint64_t)(uintptr_t)s >> 4) +
	    (uint64_t)cond * 0x9e3779b97f4a7c15ull;

	k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
	k = (k ^ (k >> 27)) * 0x94d049bb133111ebull;
	return ((uint32_t)(k ^ (k >> 31)) & mask & ~1u);
}

/* e (the pair's [0]) gets the entry; the older of a full pair goes. */
static void
pc_put(struct bgp_policy_set *ps, struct pc_ent *e, const struct pc_ent *n)
{
	if (e[0].set != NULL && e[1].set != NULL) {
		bgp_aset_unref(ps->it, e[1].set);
		ps->evict++;
	}
	if (e[0].set != NULL)
		e[1] = e[0];
	e[0] = *n;
}

/* Twice the slots; the entries that collide there are dropped. A failed
 * allocation keeps the cache as it is. */
static void
pc_grow(struct bgp_policy_set *ps)
{
	uint32_t nmask = ps->pcmask * 2 + 1;
	struct pc_ent *n = calloc((size_t)nmask + 1, sizeof(*n));

	ps->evict = 0;
	if (n == NULL)
		return;
	/* the older of each pair first, so the newer stays the newer */
	for (uint32_t i = 0; i <= ps->pcmask; i++) {
		struct pc_ent *e = &ps->pc[i ^ 1];

		if (e->set != NULL)
			pc_put(ps, &n[pc_slot(e->set, e->cond, nmask)], e);
	}
	free(ps->pc);
	ps->pc = n;
	ps->pcmask = nmask;
}

/* AS path regex ap against s's path as printed. */
static bool
aspath_match(struct bgp_policy_set *ps, const struct pol_aspath *ap,
    const struct bgp_aset *s)
{
	size_t vl;
	const uint8_t *v = canon_attr(s, BGP_ATTR_AS_PATH, &vl);

	ps->st.regexec++;
	/* a path too long to print matches nothing rather than a part */
	if (bgp_aspath_str(v, v != NULL ? vl : 0, ps->str, PSTR_MAX) >=
	    PSTR_MAX)
		return (false);
	return (regexec(&ap->re, ps->str, 0, NULL, 0) == 0);
}

static bool
cond_eval(struct bgp_policy_set *ps, const struct bgp_aset *s, uint32_t cond)
{
	if (cond < ps->nap)
		return (aspath_match(ps, &ps->ap[cond], s));
	return (comm_match(&ps->cm[cond - ps->nap], s));
}

/*
 * Condition cond (an as-path regex or a community list) on s: both depend
 * on the set alone, so the answer is kept per (set, condition) in a
 * two-way table. It doubles (up to PC_MAX) when it evicts more than
 * twice its size between two growths: the working set is larger.
 */
static bool
cond_get(struct bgp_policy_set *ps, struct bgp_aset *s, uint32_t cond)
{
	struct pc_ent *e;
	bool m;

	if (ps->pc == NULL &&
	    (ps->pc = calloc(PC_MIN, sizeof(*ps->pc))) != NULL)
		ps->pcmask = PC_MIN - 1;
	if (ps->pc == NULL)
		return (cond_eval(ps, s, cond));
	e = &ps->pc[pc_slot(s, cond, ps->pcmask)];
	for (unsigned w = 0; w < 2; w++)
		if (e[w].set == s && e[w].cond == cond) {
			ps->st.hits++;
			return (e[w].match != 0);
		}
	ps->st.misses++;
	m = cond_eval(ps, s, cond);
	pc_put(ps, e, &(struct pc_ent){bgp_aset_ref(s), cond, m});
	if (ps->evict > 2ull * (ps->pcmask + 1) && ps->pcmask + 1 < PC_MAX)
		pc_grow(ps);
	return (m);
}

/* ---- evaluation --------------------------------------------------------- */

static bool
term_match(struct bgp_policy_set *ps, const struct pol_term *t,
    const struct bgp_policy_route *rt)
{
	uint32_t i;

	if (t->nnbr > 0) {
		for (i = 0; i < t->nnbr && t->nbr[i] != rt->from; i++)
			;
		if (i == t->nnbr)
			return (false);
	}
	if (t->npl > 0) {
		uint32_t a;

		if (rt->af != BGP_AF_IPV4)
			return (false);
		a = ntohl(rt->p4.addr.s_addr);
		for (i = 0; i < t->npl && !pl_match(t->pl[i], a, rt->p4.len);
		     i++)
			;
		if (i == t->npl)
			return (false);
	}
	if (t->nap > 0) {
		for (i = 0;
		     i < t->nap && !cond_get(ps, rt->set, t->ap[i]->cond); i++)
			;
		if (i == t->nap)
			return (false);
	}
	if (t->ncm > 0) {
		for (i = 0;
		     i < t->ncm && !cond_get(ps, rt->set, t->cm[i]->cond); i++)
			;
		if (i == t->ncm)
			return (false);
	}
	return (true);
}

/* The route's attributes as the actions change them: decoded from the set
 * at the first action, the communities copied into the scratch at the
 * first change of them, the prepends added up and done at the end. */
struct edit {
	bool decoded;
	bool own_std, own_large;
	struct bgp_attrs a;
	uint32_t nstd, nlarge; /* bytes in scr->comm, scr->large */
	unsigned prepend;
};

static int
edit_begin(struct edit *e, const struct bgp_aset *s)
{
	if (e->decoded)
		return (0);
	if (bgp_aset_attrs(s, &e->a) != 0)
		return (-EINVAL);
	e->decoded = true;
	return (0);
}

static void
edit_own(struct edit *e, struct bgp_policy_scratch *scr)
{
	if (!e->own_std) {
		e->nstd = (e->a.present & BGP_ABIT(BGP_ATTR_COMMUNITIES)) ?
		    e->a.comm_len :
		    0;
		if (e->nstd > 0)
			memcpy(scr->comm, e->a.comm, e->nstd);
		e->own_std = true;
	}
	if (!e->own_large) {
		e->nlarge = (e->a.present &
				BGP_ABIT(BGP_ATTR_LARGE_COMMUNITY)) ?
		    e->a.large_len :
		    0;
		if (e->nlarge > 0)
			memcpy(scr->large, e->a.large, e->nlarge);
		e->own_large = true;
	}
}

/* Every community of the route that a member of l matches, removed. */
static void
edit_delete(struct edit *e, struct bgp_policy_scratch *scr,
    const struct pol_comm *l)
{
	uint32_t o, w = 0;

	for (o = 0; o + 4 <= e->nstd; o += 4) {
		uint32_t c = bgp_get32(scr->comm + o), i;

		for (i = 0; i < l->nstd && (c & l->std[i].m) != l->std[i].v;
		     i++)
			;
		if (i < l->nstd)
			continue; /* deleted */
		memmove(scr->comm + w, scr->comm + o, 4);
		w += 4;
	}
	e->nstd = w;
	w = 0;
	for (o = 0; o + 12 <= e->nlarge; o += 12) {
		uint32_t i;

		for (i = 0; i < l->nlg && !large_is(scr->large + o, &l->lg[i]);
		     i++)
			;
		if (i < l->nlg)
			continue;
		memmove(scr->large + w, scr->large + o, 12);
		w += 12;
	}
	e->nlarge = w;
}

/* l's members (whole, no '*') added where the route lacks them. */
static int
edit_add(struct edit *e, struct bgp_policy_scratch *scr,
    const struct pol_comm *l)
{
	for (uint32_t i = 0; i < l->nstd; i++) {
		if (std_has(scr->comm, e->nstd, &l->std[i]))
			continue;
		if (e->nstd + 4 > sizeof(scr->comm) || e->nstd + 4 > 0xffff)
			return (-ENOSPC);
		bgp_put32(scr->comm + e->nstd, l->std[i].v);
		e->nstd += 4;
	}
	for (uint32_t i = 0; i < l->nlg; i++) {
		if (large_has(scr->large, e->nlarge, &l->lg[i]))
			continue;
		if (e->nlarge + 12 > sizeof(scr->large) ||
		    e->nlarge + 12 > 0xffff)
			return (-ENOSPC);
		for (unsigned k = 0; k < 3; k++)
			bgp_put32(scr->large + e->nlarge + 4 * k,
			    l->lg[i].v[k]);
		e->nlarge += 12;
	}
	return (0);
}

static int
term_apply(struct edit *e, const struct pol_term *t,
    const struct bgp_policy_route *rt, struct bgp_policy_scratch *scr)
{
	int rv;

	if ((rv = edit_begin(e, rt->set)) != 0)
		return (rv);
	if (t->set_lp) {
		e->a.local_pref = t->lp;
		e->a.present |= BGP_ABIT(BGP_ATTR_LOCAL_PREF);
	}
	if (t->set_med) {
		e->a.med = t->med;
		e->a.present |= BGP_ABIT(BGP_ATTR_MED);
	}
	e->prepend += t->prepend;
	if (t->cset == NULL && t->ncdel == 0 && t->ncadd == 0)
		return (0);
	edit_own(e, scr);
	if (t->cset != NULL)
		e->nstd = e->nlarge = 0;
	for (uint32_t i = 0; i < t->ncdel; i++)
		edit_delete(e, scr, t->cdel[i]);
	if (t->cset != NULL && (rv = edit_add(e, scr, t->cset)) != 0)
		return (rv);
	for (uint32_t i = 0; i < t->ncadd; i++)
		if ((rv = edit_add(e, scr, t->cadd[i])) != 0)
			return (rv);
	return (0);
}

/* The changed attributes, canonical, interned into *out. */
static int
edit_finish(struct bgp_policy_set *ps, struct edit *e, enum bgp_policy_dir dir,
    const struct bgp_policy_peer *peer, const struct bgp_policy_route *rt,
    struct bgp_policy_scratch *scr, struct bgp_aset **out)
{
	struct bgp_attrs *a = &e->a;
	struct bgp_aset *s;
	int n;

	if (e->prepend > 0) {
		n = bgp_aspath_prepend(a->aspath, a->aspath_len,
		    dir == BGP_POL_IMPORT ? peer->remote_as : peer->local_as,
		    e->prepend, scr->aspath, sizeof(scr->aspath));
		if (n < 0 || n > 0xffff)
			return (-ENOSPC);
		a->aspath = scr->aspath;
		a->aspath_len = (uint16_t)n;
		a->present |= BGP_ABIT(BGP_ATTR_AS_PATH);
	}
	/* an empty COMMUNITIES attribute is malformed (RFC 7606 7.8): none */
	if (e->own_std) {
		a->comm = scr->comm;
		a->comm_len = (uint16_t)e->nstd;
		a->present = e->nstd > 0 ?
		    a->present | BGP_ABIT(BGP_ATTR_COMMUNITIES) :
		    a->present & ~BGP_ABIT(BGP_ATTR_COMMUNITIES);
	}
	if (e->own_large) {
		a->large = scr->large;
		a->large_len = (uint16_t)e->nlarge;
		a->present = e->nlarge > 0 ?
		    a->present | BGP_ABIT(BGP_ATTR_LARGE_COMMUNITY) :
		    a->present & ~BGP_ABIT(BGP_ATTR_LARGE_COMMUNITY);
	}
	if ((n = bgp_attr_canon(a, (enum bgp_af)rt->af, scr->canon,
		 sizeof(scr->canon))) < 0)
		return (-ENOSPC);
	if ((s = bgp_intern_get(ps->it, scr->canon, (size_t)n)) == NULL)
		return (errno == EINVAL ? -ENOSPC : -ENOMEM);
	*out = s;
	return (BGP_POLICY_ACCEPT);
}

int
bgp_policy_eval(struct bgp_policy *pol, enum bgp_policy_dir dir,
    const struct bgp_policy_peer *peer, const struct bgp_policy_route *rt,
    struct bgp_policy_scratch *scr, struct bgp_aset **out)
{
	struct edit e;
	bool mod = false;
	int rv;

	if (pol == NULL) { /* RFC 8212 */
		if (peer->ebgp)
			return (BGP_POLICY_REJECT);
		*out = bgp_aset_ref(rt->set);
		return (BGP_POLICY_ACCEPT);
	}
	e.decoded = e.own_std = e.own_large = false;
	e.prepend = 0;
	for (uint32_t i = 0; i < pol->nt; i++) {
		const struct pol_term *t = &pol->t[i];

		if (!term_match(pol->ps, t, rt))
			continue;
		if (t->modifies) {
			if ((rv = term_apply(&e, t, rt, scr)) != 0)
				return (rv);
			mod = true;
		}
		if (t->action == BGP__POLICY_ACTION__POLICY_REJECT)
			return (BGP_POLICY_REJECT);
		if (t->action == BGP__POLICY_ACTION__POLICY_ACCEPT)
			goto accept;
	}
	if (pol->dflt != BGP__POLICY_ACTION__POLICY_ACCEPT)
		return (BGP_POLICY_REJECT);
accept:
	if (!mod) {
		*out = bgp_aset_ref(rt->set);
		return (BGP_POLICY_ACCEPT);
	}
	return (edit_finish(pol->ps, &e, dir, peer, rt, scr, out));
}

bool
bgp_policy_export_ok(const struct bgp_aset *s,
    const struct bgp_policy_peer *peer)
{
	size_t vl;
	const uint8_t *c = canon_attr(s, BGP_ATTR_COMMUNITIES, &vl);

	for (size_t o = 0; c != NULL && o + 4 <= vl; o += 4) {
		uint32_t v = bgp_get32(c + o);

		if (v == COMM_NO_ADVERTISE ||
		    (peer->ebgp &&
			(v == COMM_NO_EXPORT || v == COMM_NO_EXPORT_SUBCONFED)))
			return (false);
	}
	return (true);
}
