/* mgmt/mgmt_conf_diff.c: diffs of two config trees in O(changes) by skipping
 * shared subtrees: change sets for commit, +/- text for compare. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/mgmt_conf_int.h"

/*
 * Two child sets (AVL trees that may share subtrees) are walked in order
 * side by side. Each side is a stack of pending items, either a whole
 * subtree or a single node. When both tops are the same subtree (pointer
 * equal) they cover the same run of entries in both sequences, so both are
 * popped unseen; otherwise the taller subtree is expanded. After a set or
 * delete the two trees differ only along O(log n) copied paths, so this
 * visits O(log n) items per change instead of n.
 */
struct dstack {
	struct {
		const struct mgmt_node *n;
		bool single;
	} e[256];
	int n;
};

static inline void
ds_push(struct dstack *s, const struct mgmt_node *n, bool single)
{
	if (n != NULL) {
		s->e[s->n].n = n;
		s->e[s->n].single = single;
		s->n++;
	}
}

static inline void
ds_expand(struct dstack *s)
{
	const struct mgmt_node *t = s->e[--s->n].n;

	ds_push(s, t->right, false);
	ds_push(s, t, true);
	ds_push(s, t->left, false);
}

static int
node_cmp(const struct mgmt_node *a, const struct mgmt_node *b)
{
	struct mgmt_key k;

	mgmt_node_key(a, &k);
	return (mgmt_key_cmp(&k, b));
}

typedef bool (
    *pair_fn)(void *arg, const struct mgmt_node *a, const struct mgmt_node *b);

/* Calls fn(a, NULL) for entries only in a, fn(NULL, b) for entries only in b,
 * fn(a, b) for same-key entries that are different objects. Stops when fn
 * returns false. */
static bool
diff_sets(const struct mgmt_node *ra, const struct mgmt_node *rb, pair_fn fn,
    void *arg)
{
	struct dstack *A, *B;
	bool go = true;

	if (ra == rb)
		return (true);
	A = mgmt_xmalloc(sizeof(*A));
	B = mgmt_xmalloc(sizeof(*B));
	A->n = B->n = 0;
	ds_push(A, ra, false);
	ds_push(B, rb, false);
	while (go && (A->n > 0 || B->n > 0)) {
		typeof(A->e[0]) *ta = A->n ? &A->e[A->n - 1] : NULL;
		typeof(B->e[0]) *tb = B->n ? &B->e[B->n - 1] : NULL;
		int c;

		if (ta && tb && ta->n == tb->n && ta->single == tb->single) {
			A->n--;
			B->n--;
			continue;
		}
		if (ta && !ta->single &&
		    (!tb || tb->single || ta->n->height >= tb->n->height)) {
			ds_expand(A);
			continue;
		}
		if (tb && !tb->single) {
			ds_expand(B);
			continue;
		}
		c = !tb ? -1 : !ta ? 1 : node_cmp(ta->n, tb->n);
		if (c < 0) {
			go = fn(arg, ta->n, NULL);
			A->n--;
		} else if (c > 0) {
			go = fn(arg, NULL, tb->n);
			B->n--;
		} else {
			go = fn(arg, ta->n, tb->n);
			A->n--;
			B->n--;
		}
	}
	free(A);
	free(B);
	return (go);
}

static bool
same_content(const struct mgmt_node *a, const struct mgmt_node *b)
{
	return (
	    a == b || (a->kids == b->kids && strcmp(a->value, b->value) == 0));
}

/* ---- equality
 * ---------------------------------------------------------------------- */

static bool
eq_pair(void *arg, const struct mgmt_node *a, const struct mgmt_node *b)
{
	if (a == NULL || b == NULL || strcmp(a->value, b->value) != 0)
		return (false);
	if (a->kids == b->kids)
		return (true);
	return (diff_sets(a->kids, b->kids, eq_pair, arg));
}

bool
mgmt_conf_equal(const struct mgmt_conf *a, const struct mgmt_conf *b)
{
	return (a->root == b->root || eq_pair(NULL, a->root, b->root));
}

/* ---- change sets
 * ----------------------------------------------------------------------- */

static void
record(struct mgmt_changes *out, enum mgmt_change_op op,
    const struct mgmt_node *a, const struct mgmt_node *b)
{
	struct mgmt_change *c;
	const struct mgmt_node *n = a ? a : b;

	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 16;
		out->v = mgmt_xrealloc(out->v, out->cap * sizeof(*out->v));
	}
	c = &out->v[out->n++];
	c->op = op;
	c->unit = (enum mgmt_sid)n->sid;
	c->comp = mgmt_schema[n->sid].comp;
	c->old = mgmt_node_ref((struct mgmt_node *)a);
	c->new = mgmt_node_ref((struct mgmt_node *)b);
	out->comp |= c->comp;
	if (op == MGMT_CHG_DEL && n->sid == MGMT_S_IFACE)
		out->iface_deleted = true;
}

static bool
cs_pair(void *arg, const struct mgmt_node *a, const struct mgmt_node *b)
{
	struct mgmt_changes *out = arg;
	const struct mgmt_node *n = a ? a : b;
	struct mgmt_iter it;
	const struct mgmt_node *k;

	if (a && b && same_content(a, b))
		return (true);
	if (mgmt_schema[n->sid].flags & MGMT_SF_UNIT) {
		/* a change and its undo leave equal content in new nodes */
		if (a && b && eq_pair(NULL, a, b))
			return (true);
		record(out,
		    !a	   ? MGMT_CHG_ADD :
			!b ? MGMT_CHG_DEL :
			     MGMT_CHG_MOD,
		    a, b);
		return (true);
	}
	if (a && b)
		return (diff_sets(a->kids, b->kids, cs_pair, arg));
	mgmt_iter_init(&it, n);
	while ((k = mgmt_iter_next(&it)) != NULL)
		cs_pair(arg, a ? k : NULL, b ? k : NULL);
	return (true);
}

void
mgmt_conf_diff(const struct mgmt_conf *old, const struct mgmt_conf *new,
    struct mgmt_changes *out)
{
	cs_pair(out, old->root, new->root);
}

void
mgmt_changes_fini(struct mgmt_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		mgmt_node_unref((struct mgmt_node *)c->v[i].old);
		mgmt_node_unref((struct mgmt_node *)c->v[i].new);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void
mgmt_changes_invert(struct mgmt_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct mgmt_change *x = &c->v[i];
		const struct mgmt_node *t = x->old;

		x->old = x->new;
		x->new = t;
		if (x->op != MGMT_CHG_MOD)
			x->op = x->op == MGMT_CHG_ADD ? MGMT_CHG_DEL :
							MGMT_CHG_ADD;
	}
	c->iface_deleted = false;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].op == MGMT_CHG_DEL && c->v[i].unit == MGMT_S_IFACE)
			c->iface_deleted = true;
}

/* ---- compare text
 * ------------------------------------------------------------------------- */

struct cmp_ctx {
	struct lc_buf *out;
	const struct mgmt_node *path[32];
	int depth;
	int hdr_depth;			  /* path printed in the last header */
	const struct mgmt_node *hdr_last; /* node that ends it */
};

static void
header(struct cmp_ctx *x)
{
	const struct mgmt_node *last = x->depth ? x->path[x->depth - 1] : NULL;

	if (x->hdr_depth == x->depth && x->hdr_last == last)
		return;
	mgmt_buf_puts(x->out, "[edit");
	for (int i = 0; i < x->depth; i++) {
		const struct mgmt_schema_node *s =
		    &mgmt_schema[x->path[i]->sid];

		mgmt_buf_puts(x->out, " ");
		if (s->name != NULL)
			mgmt_buf_puts(x->out, s->name);
		if (s->kind == MGMT_SK_LIST) {
			if (s->name != NULL)
				mgmt_buf_puts(x->out, " ");
			mgmt_buf_word(x->out, x->path[i]->value);
		}
	}
	mgmt_buf_puts(x->out, "]\n");
	x->hdr_depth = x->depth;
	x->hdr_last = last;
}

static bool
cmp_pair(void *arg, const struct mgmt_node *a, const struct mgmt_node *b)
{
	struct cmp_ctx *x = arg;
	enum mgmt_skind kind;

	if (a && b && same_content(a, b))
		return (true);
	if (!a || !b) {
		header(x);
		mgmt_print_node(x->out, a ? a : b, 1, a ? "-" : "+");
		return (true);
	}
	kind = mgmt_schema[a->sid].kind;
	if (kind == MGMT_SK_LEAF) {
		header(x);
		mgmt_print_node(x->out, a, 1, "-");
		mgmt_print_node(x->out, b, 1, "+");
		return (true);
	}
	if (x->depth >= 32)
		return (true);
	x->path[x->depth++] = b;
	diff_sets(a->kids, b->kids, cmp_pair, x);
	x->depth--;
	return (true);
}

int
mgmt_conf_compare(const struct mgmt_conf *old, const struct mgmt_conf *new,
    struct lc_buf *out)
{
	struct cmp_ctx x;

	memset(&x, 0, sizeof(x));
	x.out = out;
	x.hdr_depth = -1;
	if (old->root != new->root)
		diff_sets(old->root->kids, new->root->kids, cmp_pair, &x);
	return (0);
}

/* ---- rebase
 * --------------------------------------------------------------------------------
 */

/* Schema ids from the root down to a unit's parent. */
static int
unit_parents(unsigned unit, unsigned *sids)
{
	int n = 0;

	for (int p = mgmt_schema[unit].parent; p > 0; p = mgmt_schema[p].parent)
		sids[n++] = (unsigned)p;
	for (int i = 0; i < n / 2; i++) {
		unsigned t = sids[i];

		sids[i] = sids[n - 1 - i];
		sids[n - 1 - i] = t;
	}
	return (n);
}

/* The unit in conf with the key of n (NULL if absent). */
static const struct mgmt_node *
unit_find(const struct mgmt_conf *conf, const struct mgmt_node *n)
{
	unsigned sids[8];
	int np = unit_parents(n->sid, sids);
	const struct mgmt_node *p = conf->root;
	struct mgmt_key k;

	for (int i = 0; i < np && p != NULL; i++)
		p = mgmt_node_find_sid(p, sids[i]);
	mgmt_node_key(n, &k);
	return (mgmt_node_find(p, &k));
}

static bool
unit_eq(const struct mgmt_node *a, const struct mgmt_node *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (a == b || eq_pair(NULL, a, b));
}

/* Puts (n != NULL) or removes (the unit keyed like key) in owned root. */
static bool
unit_apply(struct mgmt_node *p, const unsigned *sids, int i, int np,
    const struct mgmt_node *key, const struct mgmt_node *n)
{
	struct mgmt_key k;

	if (i < np) {
		struct mgmt_key ck = {(uint16_t)sids[i], 0, ""};
		struct mgmt_node *c = mgmt_node_child(p, &ck, n != NULL, NULL);

		if (c != NULL && unit_apply(c, sids, i + 1, np, key, n))
			mgmt_node_remove(p, &ck);
	} else if (n != NULL)
		mgmt_node_put(p, mgmt_node_detach(n));
	else {
		mgmt_node_key(key, &k);
		mgmt_node_remove(p, &k);
	}
	return (p->kids == NULL && p->sid != MGMT_S_ROOT);
}

int
mgmt_conf_rebase(struct mgmt_conf *cand, const struct mgmt_conf *base,
    const struct mgmt_conf *running, struct lc_err *err)
{
	struct mgmt_changes chg = {0};
	struct mgmt_conf *out;
	char path[200];
	size_t i;

	mgmt_conf_diff(base, cand, &chg);
	for (i = 0; i < chg.n; i++) {
		const struct mgmt_change *c = &chg.v[i];
		const struct mgmt_node *r = unit_find(running,
		    c->old ? c->old : c->new);

		if (!unit_eq(r, c->old) && !unit_eq(r, c->new)) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "conflict: %s was changed by another "
			    "commit since this candidate was made",
			    mgmt_change_path(c, path, sizeof(path)));
			mgmt_changes_fini(&chg);
			return (-EBUSY);
		}
	}
	out = mgmt_conf_dup(running);
	for (i = 0; i < chg.n; i++) {
		const struct mgmt_change *c = &chg.v[i];
		const struct mgmt_node *n = c->old ? c->old : c->new;
		unsigned sids[8];
		int np = unit_parents(n->sid, sids);

		mgmt_node_own(&out->root);
		unit_apply(out->root, sids, 0, np, n, c->new);
	}
	mgmt_conf_assign(cand, out);
	mgmt_conf_free(out);
	mgmt_changes_fini(&chg);
	return (0);
}

const char *
mgmt_change_path(const struct mgmt_change *c, char *buf, size_t bufsz)
{
	const struct mgmt_node *n = c->old ? c->old : c->new;

	switch (n->sid) {
	case MGMT_S_IFACE:
		snprintf(buf, bufsz, "interfaces %s", n->value);
		break;
	case MGMT_S_ROUTE:
		snprintf(buf, bufsz, "protocols static route %s", n->value);
		break;
	case MGMT_S_BGP:
		snprintf(buf, bufsz, "protocols bgp");
		break;
	default:
		snprintf(buf, bufsz, "%s", mgmt_schema[n->sid].name);
	}
	return (buf);
}
