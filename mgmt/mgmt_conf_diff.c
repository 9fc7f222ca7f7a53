/* mgmt/mgmt_conf_diff.c: diffs of two config trees in O(changes) by skipping shared subtrees: change sets for commit, +/- text for compare. */
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
		const struct mgmt_node	*n;
		bool			single;
	} e[256];
	int	n;
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

typedef bool (*pair_fn)(void *arg, const struct mgmt_node *a,
    const struct mgmt_node *b);

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
		if (ta && !ta->single && (!tb || tb->single ||
		    ta->n->height >= tb->n->height)) {
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
	return (a == b || (a->kids == b->kids && strcmp(a->value, b->value) ==
	    0));
}

/* ---- equality ---------------------------------------------------------------------- */

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

/* ---- change sets ----------------------------------------------------------------------- */

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
		record(out, !a ? MGMT_CHG_ADD : !b ? MGMT_CHG_DEL :
		    MGMT_CHG_MOD, a, b);
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

/* ---- compare text ------------------------------------------------------------------------- */

struct cmp_ctx {
	struct lc_buf		*out;
	const struct mgmt_node	*path[32];
	int			depth;
	int			hdr_depth;	/* path printed in the last header */
	const struct mgmt_node	*hdr_last;	/* node that ends it */
};

static void
header(struct cmp_ctx *x)
{
	const struct mgmt_node *last = x->depth ? x->path[x->depth - 1] : NULL;

	if (x->hdr_depth == x->depth && x->hdr_last == last)
		return;
	mgmt_buf_puts(x->out, "[edit");
	for (int i = 0; i < x->depth; i++) {
		const struct mgmt_schema_node *s = &mgmt_schema[x->path[i]->sid];

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
