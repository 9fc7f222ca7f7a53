/* mgmt/mgmt_conf_tree.c: persistent (copy-on-write) config trees: nodes, AVL
 * child sets, set/delete/merge and typed views. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"
#include "mgmt/mgmt_conf_int.h"

/* ---- small helpers
 * -------------------------------------------------------------- */

/* A config tree half built has nothing to fall back on: OOM is fatal. */
void *
mgmt_xmalloc(size_t n)
{
	return (lc_xmalloc(n, "a config tree"));
}

void *
mgmt_xrealloc(void *o, size_t n)
{
	return (lc_xrealloc(o, n, "a config tree"));
}

/* Source names: few (one per loaded file), kept for the process lifetime. */
static char **src_names;
static unsigned src_n;

uint16_t
mgmt_src_intern(const char *fname)
{
	if (fname == NULL)
		return (0);
	for (unsigned i = 0; i < src_n; i++)
		if (strcmp(src_names[i], fname) == 0)
			return ((uint16_t)(i + 1));
	if (src_n >= 65534)
		return (0);
	src_names = mgmt_xrealloc(src_names, (src_n + 1) * sizeof(char *));
	src_names[src_n] = mgmt_xmalloc(strlen(fname) + 1);
	strcpy(src_names[src_n], fname);
	return ((uint16_t)++src_n);
}

const char *
mgmt_src_name(uint16_t src)
{
	return (src == 0 || src > src_n ? NULL : src_names[src - 1]);
}

void
mgmt_err_node(struct lc_err *err, const struct mgmt_node *n, const char *fmt,
    ...)
{
	va_list ap;
	size_t off = 0;
	const char *f;

	if (err == NULL)
		return;
	err->msg[0] = '\0';
	if (n != NULL && n->line != 0 && (f = mgmt_src_name(n->src)) != NULL)
		off = (size_t)snprintf(err->msg, sizeof(err->msg),
		    "%s:%u:%u: ", f, n->line, n->col);
	if (off >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + off, sizeof(err->msg) - off, fmt, ap);
	va_end(ap);
}

/* ---- nodes
 * ------------------------------------------------------------------------ */

struct mgmt_node *
mgmt_node_new(unsigned sid, uint64_t kbin, const char *value)
{
	size_t vl = value ? strlen(value) : 0;
	struct mgmt_node *n = mgmt_xmalloc(sizeof(*n) + vl + 1);

	memset(n, 0, sizeof(*n));
	n->ref = 1;
	n->sid = (uint16_t)sid;
	n->height = 1;
	n->kbin = kbin;
	memcpy(n->value, value ? value : "", vl + 1);
	return (n);
}

struct mgmt_node *
mgmt_node_ref(struct mgmt_node *n)
{
	if (n != NULL)
		n->ref++;
	return (n);
}

void
mgmt_node_unref(struct mgmt_node *n)
{
	while (n != NULL && --n->ref == 0) {
		struct mgmt_node *next = n->right;

		mgmt_node_unref(n->left);
		mgmt_node_unref(n->kids);
		free(n);
		n = next; /* tail call by hand: long right spines */
	}
}

static struct mgmt_node *
node_copy(const struct mgmt_node *o)
{
	size_t sz = sizeof(*o) + strlen(o->value) + 1;
	struct mgmt_node *n = mgmt_xmalloc(sz);

	memcpy(n, o, sz);
	n->ref = 1;
	mgmt_node_ref(n->left);
	mgmt_node_ref(n->right);
	mgmt_node_ref(n->kids);
	return (n);
}

struct mgmt_node *
mgmt_node_detach(const struct mgmt_node *o)
{
	size_t sz = sizeof(*o) + strlen(o->value) + 1;
	struct mgmt_node *n = mgmt_xmalloc(sz);

	memcpy(n, o, sz);
	n->ref = 1;
	n->left = n->right = NULL;
	n->height = 1;
	mgmt_node_ref(n->kids);
	return (n);
}

void
mgmt_node_own(struct mgmt_node **slot)
{
	struct mgmt_node *o = *slot;

	if (o != NULL && o->ref > 1) {
		*slot = node_copy(o);
		o->ref--;
	}
}

void
mgmt_node_key(const struct mgmt_node *n, struct mgmt_key *k)
{
	k->sid = n->sid;
	k->kbin = n->kbin;
	k->str = n->value;
}

/*
 * Natural order (MGMT_SF_NATURAL): runs of digits compare as numbers, so
 * t2 comes before t10 and 10 before 100. Names that differ only in leading
 * zeros are equal here; strcmp orders them.
 */
static int
natural_cmp(const char *a, const char *b)
{
	while (*a != '\0' && *b != '\0') {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t na = 0, nb = 0;
			int c;

			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			while (isdigit((unsigned char)a[na]))
				na++;
			while (isdigit((unsigned char)b[nb]))
				nb++;
			if (na != nb)
				return (na < nb ? -1 : 1);
			if ((c = memcmp(a, b, na)) != 0)
				return (c < 0 ? -1 : 1);
			a += na;
			b += nb;
			continue;
		}
		if (*a != *b)
			return ((unsigned char)*a < (unsigned char)*b ? -1 : 1);
		a++;
		b++;
	}
	return ((*a != '\0') - (*b != '\0'));
}

int
mgmt_key_cmp(const struct mgmt_key *k, const struct mgmt_node *n)
{
	int c;

	if (k->sid != n->sid)
		return (k->sid < n->sid ? -1 : 1);
	if (!mgmt_schema_keyed(k->sid))
		return (0);
	if (k->kbin != n->kbin)
		return (k->kbin < n->kbin ? -1 : 1);
	/* IPv6: kbin holds 63 bits of 128, the text decides the rest */
	if ((k->kbin >> 63) != 0 && mgmt_type_is6(k->sid) &&
	    (c = mgmt_value_cmp6(k->str, n->value)) != 0)
		return (c);
	if ((mgmt_schema[k->sid].flags & MGMT_SF_NATURAL) &&
	    (c = natural_cmp(k->str, n->value)) != 0)
		return (c);
	c = strcmp(k->str, n->value);
	return (c < 0 ? -1 : c > 0);
}

enum mgmt_sid
mgmt_node_sid(const struct mgmt_node *n)
{
	return ((enum mgmt_sid)n->sid);
}

const char *
mgmt_node_value(const struct mgmt_node *n)
{
	return (n->value);
}

/* ---- AVL child sets
 * --------------------------------------------------------------- */

static inline int
h(const struct mgmt_node *n)
{
	return (n ? n->height : 0);
}

static inline void
upd(struct mgmt_node *n)
{
	int a = h(n->left), b = h(n->right);

	n->height = (uint8_t)(1 + (a > b ? a : b));
}

/* *p owned; its left child becomes the subtree root. */
static void
rot_right(struct mgmt_node **p)
{
	struct mgmt_node *n = *p, *l;

	mgmt_node_own(&n->left);
	l = n->left;
	n->left = l->right;
	l->right = n;
	upd(n);
	upd(l);
	*p = l;
}

static void
rot_left(struct mgmt_node **p)
{
	struct mgmt_node *n = *p, *r;

	mgmt_node_own(&n->right);
	r = n->right;
	n->right = r->left;
	r->left = n;
	upd(n);
	upd(r);
	*p = r;
}

/* *p owned. */
static void
rebalance(struct mgmt_node **p)
{
	struct mgmt_node *n = *p;
	int bf = h(n->left) - h(n->right);

	if (bf > 1) {
		if (h(n->left->left) < h(n->left->right)) {
			mgmt_node_own(&n->left);
			rot_left(&n->left);
		}
		rot_right(p);
	} else if (bf < -1) {
		if (h(n->right->right) < h(n->right->left)) {
			mgmt_node_own(&n->right);
			rot_right(&n->right);
		}
		rot_left(p);
	} else
		upd(n);
}

static const struct mgmt_node *
avl_find(const struct mgmt_node *t, const struct mgmt_key *k)
{
	while (t != NULL) {
		int c = mgmt_key_cmp(k, t);

		if (c == 0)
			return (t);
		t = c < 0 ? t->left : t->right;
	}
	return (NULL);
}

/* Owns the path to the node with key k (which must exist); returns its slot. */
static struct mgmt_node **
avl_own_slot(struct mgmt_node **slot, const struct mgmt_key *k)
{
	for (;;) {
		int c;

		mgmt_node_own(slot);
		c = mgmt_key_cmp(k, *slot);
		if (c == 0)
			return (slot);
		slot = c < 0 ? &(*slot)->left : &(*slot)->right;
	}
}

static void
avl_insert(struct mgmt_node **slot, struct mgmt_node *n,
    const struct mgmt_key *k)
{
	if (*slot == NULL) {
		*slot = n;
		return;
	}
	mgmt_node_own(slot);
	if (mgmt_key_cmp(k, *slot) < 0)
		avl_insert(&(*slot)->left, n, k);
	else
		avl_insert(&(*slot)->right, n, k);
	rebalance(slot);
}

static struct mgmt_node *
avl_pop_min(struct mgmt_node **q)
{
	struct mgmt_node *m, *r;

	mgmt_node_own(q);
	m = *q;
	if (m->left != NULL) {
		r = avl_pop_min(&m->left);
		rebalance(q);
		return (r);
	}
	*q = m->right;
	m->right = NULL;
	m->height = 1;
	return (m);
}

/* k must be present. */
static void
avl_remove(struct mgmt_node **slot, const struct mgmt_key *k)
{
	struct mgmt_node *n = *slot, *s, *child;
	int c = mgmt_key_cmp(k, n);

	if (c != 0) {
		mgmt_node_own(slot);
		avl_remove(c < 0 ? &(*slot)->left : &(*slot)->right, k);
		rebalance(slot);
		return;
	}
	if (n->left == NULL || n->right == NULL) {
		child = mgmt_node_ref(n->left ? n->left : n->right);
		*slot = child;
		mgmt_node_unref(n);
		return;
	}
	mgmt_node_own(slot);
	n = *slot;
	s = avl_pop_min(&n->right);
	s->left = n->left;
	s->right = n->right;
	n->left = n->right = NULL;
	mgmt_node_unref(n);
	*slot = s;
	rebalance(slot);
}

const struct mgmt_node *
mgmt_node_find(const struct mgmt_node *parent, const struct mgmt_key *k)
{
	return (parent ? avl_find(parent->kids, k) : NULL);
}

const struct mgmt_node *
mgmt_node_find_sid(const struct mgmt_node *parent, unsigned sid)
{
	struct mgmt_key k = {(uint16_t)sid, 0, ""};

	if (parent == NULL)
		return (NULL);
	if (mgmt_schema_keyed(sid)) {
		/* first entry of that sid */
		const struct mgmt_node *t = parent->kids, *best = NULL;

		while (t != NULL) {
			if (t->sid >= sid) {
				if (t->sid == sid)
					best = t;
				t = t->left;
			} else
				t = t->right;
		}
		return (best);
	}
	return (avl_find(parent->kids, &k));
}

/* Find or insert in one descent, owning the path. *grew: the subtree got
 * taller, so the levels above must rebalance (most inserts stop early). */
static struct mgmt_node *
avl_get(struct mgmt_node **slot, const struct mgmt_key *k, bool *created,
    bool *grew)
{
	struct mgmt_node *r;
	uint8_t oh;
	int c;

	if (*slot == NULL) {
		*slot = mgmt_node_new(k->sid, k->kbin, k->str);
		*created = *grew = true;
		return (*slot);
	}
	mgmt_node_own(slot);
	if ((c = mgmt_key_cmp(k, *slot)) == 0)
		return (*slot);
	oh = (*slot)->height;
	r = avl_get(c < 0 ? &(*slot)->left : &(*slot)->right, k, created, grew);
	if (*grew) {
		rebalance(slot);
		*grew = (*slot)->height != oh;
	}
	return (r);
}

struct mgmt_node *
mgmt_node_child(struct mgmt_node *p, const struct mgmt_key *k, bool create,
    bool *created)
{
	bool cr = false, grew = false;
	struct mgmt_node *n;

	if (create) {
		n = avl_get(&p->kids, k, &cr, &grew);
		if (created != NULL)
			*created = cr;
		return (n);
	}
	if (created != NULL)
		*created = false;
	if (avl_find(p->kids, k) != NULL)
		return (*avl_own_slot(&p->kids, k));
	return (NULL);
}

void
mgmt_node_put(struct mgmt_node *p, struct mgmt_node *n)
{
	struct mgmt_key k;
	struct mgmt_node **slot, *old;

	mgmt_node_key(n, &k);
	if (avl_find(p->kids, &k) == NULL) {
		avl_insert(&p->kids, n, &k);
		return;
	}
	slot = avl_own_slot(&p->kids, &k);
	old = *slot;
	n->left = old->left;
	n->right = old->right;
	n->height = old->height;
	old->left = old->right = NULL;
	mgmt_node_unref(old);
	*slot = n;
}

bool
mgmt_node_remove(struct mgmt_node *p, const struct mgmt_key *k)
{
	if (avl_find(p->kids, k) == NULL)
		return (false);
	avl_remove(&p->kids, k);
	return (true);
}

void
mgmt_iter_init(struct mgmt_iter *it, const struct mgmt_node *parent)
{
	const struct mgmt_node *t = parent ? parent->kids : NULL;

	it->n = 0;
	for (; t != NULL; t = t->left)
		it->st[it->n++] = t;
}

const struct mgmt_node *
mgmt_iter_next(struct mgmt_iter *it)
{
	const struct mgmt_node *n, *t;

	if (it->n == 0)
		return (NULL);
	n = it->st[--it->n];
	for (t = n->right; t != NULL; t = t->left)
		it->st[it->n++] = t;
	return (n);
}

static size_t
avl_count(const struct mgmt_node *t)
{
	size_t c = 0;

	while (t != NULL) {
		c += 1 + avl_count(t->left);
		t = t->right;
	}
	return (c);
}

size_t
mgmt_node_nkids(const struct mgmt_node *n)
{
	return (avl_count(n->kids));
}

/* ---- configs
 * ------------------------------------------------------------------------ */

struct mgmt_conf *
mgmt_conf_new(void)
{
	struct mgmt_conf *c = mgmt_xmalloc(sizeof(*c));

	c->root = mgmt_node_new(MGMT_S_ROOT, 0, "");
	return (c);
}

struct mgmt_conf *
mgmt_conf_dup(const struct mgmt_conf *o)
{
	struct mgmt_conf *c = mgmt_xmalloc(sizeof(*c));

	c->root = mgmt_node_ref(o->root);
	return (c);
}

void
mgmt_conf_assign(struct mgmt_conf *dst, const struct mgmt_conf *src)
{
	struct mgmt_node *r = mgmt_node_ref(src->root);

	mgmt_node_unref(dst->root);
	dst->root = r;
}

void
mgmt_conf_free(struct mgmt_conf *c)
{
	if (c == NULL)
		return;
	mgmt_node_unref(c->root);
	free(c);
}

/* ---- paths: words -> steps
 * ------------------------------------------------------------- */

enum step_kind {
	ST_NODE, /* container, list entry, leaf-list value, flag, bare leaf */
	ST_LEAF, /* leaf with a value */
	ST_ALL,	 /* every entry of a list / value of a leaf-list */
};

struct step {
	struct mgmt_key k;
	enum step_kind kind;
	unsigned word; /* index of the word that names it */
	char canon[64];
};

#define MAX_STEPS 16

/* Path words [0..upto) for messages. */
static void
path_text(const char *const *w, unsigned upto, char *buf, size_t sz)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < upto && off < sz; i++)
		off += (size_t)snprintf(buf + off, sz - off, "%s%.64s",
		    i ? " " : "", w[i]);
}

static int
path_err(struct lc_err *err, const char *const *w, unsigned upto,
    const char *msg)
{
	char p[256];

	path_text(w, upto, p, sizeof(p));
	lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s: %s", upto ? p : "(top)",
	    msg);
	return (-EINVAL);
}

/*
 * Resolves words to steps from the root. partial_ok allows a path that ends
 * at a container, at a list or leaf-list keyword without key (ST_ALL), or at
 * a leaf without value (delete, show). Returns the step count or -EINVAL.
 */
static int
resolve(const char *const *w, unsigned nw, bool partial_ok, struct step *st,
    struct lc_err *err)
{
	unsigned cur = MGMT_S_ROOT, i = 0;
	int ns = 0;
	char exp[256];
	struct lc_err e2;

	while (i < nw) {
		int ch = mgmt_schema_child(cur, w[i]);
		const struct mgmt_schema_node *s;
		struct step *p;

		if (ns >= MAX_STEPS)
			return (path_err(err, w, i, "path too long"));
		if (ch < 0 && (ch = mgmt_schema_anon(cur)) < 0) {
			char m[400];

			mgmt_schema_expected(cur, exp, sizeof(exp));
			snprintf(m, sizeof(m),
			    "unknown word '%.64s', expected "
			    "%s",
			    w[i], exp);
			return (path_err(err, w, i, m));
		}
		s = &mgmt_schema[ch];
		p = &st[ns++];
		p->k.sid = (uint16_t)ch;
		p->k.kbin = 0;
		p->k.str = "";
		p->canon[0] = '\0';
		p->kind = ST_NODE;
		p->word = i;
		if (s->name != NULL)
			i++; /* the keyword */
		if (s->kind == MGMT_SK_CONTAINER || s->kind == MGMT_SK_FLAG) {
			cur = (unsigned)ch;
			if (s->kind == MGMT_SK_FLAG && i < nw) {
				char m[160];

				snprintf(m, sizeof(m),
				    "unexpected '%.64s', %s "
				    "takes no value",
				    w[i], s->name);
				return (path_err(err, w, i, m));
			}
			continue;
		}
		if (i == nw) {
			/* keyword without key or value */
			if (partial_ok) {
				p->kind = s->kind == MGMT_SK_LEAF ? ST_NODE :
								    ST_ALL;
				return (ns);
			}
			snprintf(exp, sizeof(exp), "missing value, expected %s",
			    s->tname ? s->tname : "a value");
			if (s->type == MGMT_T_ENUM) {
				char ex2[200];

				mgmt_value_parse((unsigned)ch, "", p->canon,
				    &p->k.kbin, &e2);
				snprintf(ex2, sizeof(ex2), "missing value, %s",
				    strstr(e2.msg, "expected"));
				return (path_err(err, w, i, ex2));
			}
			return (path_err(err, w, i, exp));
		}
		if (mgmt_value_parse((unsigned)ch, w[i], p->canon, &p->k.kbin,
			&e2) != 0)
			return (path_err(err, w, i, e2.msg));
		p->k.str = p->canon;
		i++;
		if (s->kind == MGMT_SK_LEAF)
			p->kind = ST_LEAF; /* kbin kept: the value's */
		if (s->kind == MGMT_SK_LEAF || s->kind == MGMT_SK_LEAFLIST) {
			if (i < nw) {
				char m[160];

				snprintf(m, sizeof(m),
				    "unexpected '%.64s' after "
				    "the value of %s",
				    w[i],
				    s->name ? s->name :
					      mgmt_schema[s->parent].name);
				return (path_err(err, w, i, m));
			}
			return (ns);
		}
		cur = (unsigned)ch; /* list entry */
	}
	if (!partial_ok &&
	    (ns == 0 ||
		mgmt_schema[st[ns - 1].k.sid].kind == MGMT_SK_CONTAINER)) {
		char m[400];

		mgmt_schema_expected(cur, exp, sizeof(exp));
		snprintf(m, sizeof(m), "incomplete, expected %s", exp);
		return (path_err(err, w, nw, m));
	}
	return (ns);
}

/* Applies a resolved set path to owned node n (never fails). */
static void
apply_set(struct mgmt_node *n, const struct step *st, int ns)
{
	for (int i = 0; i < ns; i++) {
		if (st[i].kind == ST_LEAF) {
			struct mgmt_node *leaf = mgmt_node_new(st[i].k.sid,
			    st[i].k.kbin, st[i].canon);
			const struct mgmt_node *old = mgmt_node_find(n,
			    &st[i].k);

			if (old == NULL || strcmp(old->value, st[i].canon) != 0)
				mgmt_node_put(n, leaf);
			else
				mgmt_node_unref(
				    leaf); /* unchanged: keep sharing */
			return;
		}
		n = mgmt_node_child(n, &st[i].k, true, NULL);
	}
}

int
mgmt_conf_set(struct mgmt_conf *conf, const char *const *words, unsigned nwords,
    struct lc_err *err)
{
	struct step st[MAX_STEPS];
	int ns = resolve(words, nwords, false, st, err);
	const struct mgmt_node *n = conf->root;
	int i;

	if (ns < 0)
		return (ns);
	/* a no-op set leaves the tree shared (keeps diffs empty) */
	for (i = 0; i < ns && n != NULL; i++) {
		const struct mgmt_node *c = mgmt_node_find(n, &st[i].k);

		if (st[i].kind == ST_LEAF && c != NULL &&
		    strcmp(c->value, st[i].canon) != 0)
			c = NULL;
		n = c;
	}
	if (n != NULL)
		return (0);
	mgmt_node_own(&conf->root);
	apply_set(conf->root, st, ns);
	return (0);
}

static bool
is_empty_container(const struct mgmt_node *n)
{
	return (
	    n->kids == NULL && mgmt_schema[n->sid].kind == MGMT_SK_CONTAINER);
}

/* Removes what st[i..] names under owned n; returns true when n became an
 * empty container that the caller should remove. */
static bool
apply_delete(struct mgmt_node *n, const struct step *st, int i, int ns)
{
	if (i == ns - 1) {
		if (st[i].kind == ST_ALL) {
			const struct mgmt_node *c;

			while (
			    (c = mgmt_node_find_sid(n, st[i].k.sid)) != NULL) {
				struct mgmt_key k;

				mgmt_node_key(c, &k);
				mgmt_node_remove(n, &k);
			}
		} else {
			struct mgmt_key k = st[i].k;

			if (st[i].kind == ST_LEAF)
				k.kbin = 0;
			mgmt_node_remove(n, &k);
		}
	} else {
		struct mgmt_node *c = mgmt_node_child(n, &st[i].k, false, NULL);

		if (apply_delete(c, st, i + 1, ns))
			mgmt_node_remove(n, &st[i].k);
	}
	return (is_empty_container(n) && n->sid != MGMT_S_ROOT);
}

/* Walks to the node the steps name; on a miss sets err and returns NULL. */
static const struct mgmt_node *
walk(const struct mgmt_conf *conf, const char *const *w, const struct step *st,
    int ns, struct lc_err *err)
{
	const struct mgmt_node *n = conf->root;

	for (int i = 0; i < ns; i++) {
		const struct mgmt_node *c;
		char p[256];
		unsigned upto = i + 1 < ns ? st[i + 1].word :
					     st[i].word + 1 +
			(st[i].kind != ST_ALL &&
			    mgmt_schema[st[i].k.sid].name != NULL &&
			    mgmt_schema[st[i].k.sid].kind !=
				MGMT_SK_CONTAINER &&
			    mgmt_schema[st[i].k.sid].kind != MGMT_SK_FLAG &&
			    st[i].canon[0] != '\0');

		if (st[i].kind == ST_ALL)
			c = mgmt_node_find_sid(n, st[i].k.sid);
		else
			c = mgmt_node_find(n, &st[i].k);
		if (c != NULL && st[i].kind == ST_LEAF &&
		    strcmp(c->value, st[i].canon) != 0) {
			path_text(w, upto, p, sizeof(p));
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: not configured (the value is "
			    "%s)",
			    p, c->value);
			return (NULL);
		}
		if (c == NULL) {
			path_text(w, upto, p, sizeof(p));
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: not configured", p);
			return (NULL);
		}
		n = c;
	}
	return (n);
}

int
mgmt_conf_delete(struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, struct lc_err *err)
{
	struct step st[MAX_STEPS];
	int ns = resolve(words, nwords, true, st, err);

	if (ns < 0)
		return (ns);
	if (ns == 0) {
		/* delete everything */
		mgmt_node_unref(conf->root);
		conf->root = mgmt_node_new(MGMT_S_ROOT, 0, "");
		return (0);
	}
	if (walk(conf, words, st, ns, err) == NULL)
		return (-ENOENT);
	mgmt_node_own(&conf->root);
	apply_delete(conf->root, st, 0, ns);
	return (0);
}

int
mgmt_conf_show(const struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, struct lc_buf *out, struct lc_err *err)
{
	struct step st[MAX_STEPS];
	int ns = resolve(words, nwords, true, st, err);
	const struct mgmt_node *n, *p;

	if (ns < 0)
		return (ns);
	if (ns == 0)
		return (mgmt_conf_print(conf, out));
	if ((n = walk(conf, words, st, ns, err)) == NULL)
		return (-ENOENT);
	p = ns >= 2 ? walk(conf, words, st, ns - 1, err) : conf->root;
	if (st[ns - 1].kind == ST_ALL) {
		struct mgmt_iter it;
		const struct mgmt_node *c;

		mgmt_iter_init(&it, p);
		while ((c = mgmt_iter_next(&it)) != NULL)
			if (c->sid == st[ns - 1].k.sid)
				mgmt_print_node(out, c, 0, "");
		return (0);
	}
	if (mgmt_schema[n->sid].kind == MGMT_SK_CONTAINER ||
	    mgmt_schema[n->sid].kind == MGMT_SK_LIST) {
		/* the inside of a block, as Junos `show interfaces eth0` */
		struct mgmt_iter it;
		const struct mgmt_node *c;

		mgmt_iter_init(&it, n);
		while ((c = mgmt_iter_next(&it)) != NULL)
			mgmt_print_node(out, c, 0, "");
		return (0);
	}
	mgmt_print_node(out, n, 0, "");
	return (0);
}

/* ---- merge
 * ------------------------------------------------------------------------------
 */

static void
merge_into(struct mgmt_node *dst, const struct mgmt_node *src)
{
	struct mgmt_iter it;
	const struct mgmt_node *k;

	mgmt_iter_init(&it, src);
	while ((k = mgmt_iter_next(&it)) != NULL) {
		enum mgmt_skind kind = mgmt_schema[k->sid].kind;
		struct mgmt_key key;
		struct mgmt_node *d;

		mgmt_node_key(k, &key);
		if ((kind == MGMT_SK_CONTAINER || kind == MGMT_SK_LIST) &&
		    (d = mgmt_node_child(dst, &key, false, NULL)) != NULL) {
			merge_into(d, k);
			continue;
		}
		if (kind != MGMT_SK_LEAF && mgmt_node_find(dst, &key) != NULL)
			continue;
		mgmt_node_put(dst, mgmt_node_detach(k));
	}
}

void
mgmt_conf_merge(struct mgmt_conf *dst, const struct mgmt_conf *src)
{
	if (src->root->kids == NULL)
		return;
	if (dst->root->kids == NULL) {
		mgmt_conf_assign(dst, src);
		return;
	}
	mgmt_node_own(&dst->root);
	merge_into(dst->root, src->root);
}

/* ---- counting and iteration
 * ----------------------------------------------------------------- */

static const struct mgmt_node *
list_parent(const struct mgmt_conf *conf, enum mgmt_sid list)
{
	const struct mgmt_node *p;

	switch (list) {
	case MGMT_S_IFACE:
		return (mgmt_node_find_sid(conf->root, MGMT_S_INTERFACES));
	case MGMT_S_ROUTE:
		p = mgmt_node_find_sid(conf->root, MGMT_S_PROTOCOLS);
		return (mgmt_node_find_sid(p, MGMT_S_STATIC));
	case MGMT_S_BGP_NBR:
		p = mgmt_node_find_sid(conf->root, MGMT_S_PROTOCOLS);
		return (mgmt_node_find_sid(p, MGMT_S_BGP));
	default:
		return (NULL);
	}
}

static int
count_cb(const struct mgmt_node *n, void *arg)
{
	(void)n;
	++*(size_t *)arg;
	return (0);
}

size_t
mgmt_conf_count(const struct mgmt_conf *conf, enum mgmt_sid list)
{
	const struct mgmt_node *p = list_parent(conf, list);
	size_t n = 0;

	/* route/interface are the only children of their parents */
	if (list != MGMT_S_BGP_NBR)
		return (p ? mgmt_node_nkids(p) : 0);
	mgmt_conf_foreach(conf, list, count_cb, &n);
	return (n);
}

int
mgmt_conf_foreach(const struct mgmt_conf *conf, enum mgmt_sid list,
    int (*fn)(const struct mgmt_node *, void *), void *arg)
{
	const struct mgmt_node *p = list_parent(conf, list), *c;
	struct mgmt_iter it;
	int rv;

	mgmt_iter_init(&it, p);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == list && (rv = fn(c, arg)) != 0)
			return (rv);
	return (0);
}

/* ---- typed views
 * ------------------------------------------------------------------------------
 */

static unsigned
uint_dflt(unsigned sid)
{
	return ((unsigned)strtoul(mgmt_schema[sid].dflt, NULL, 10));
}

/* Entry i of o's static ARP entries from the list node c. */
static void
arp_get(const struct mgmt_node *c, struct mgmt_iface_conf *o, unsigned i)
{
	const struct mgmt_node *m = mgmt_node_find_sid(c, MGMT_S_IFACE_ARP_MAC);

	o->arp_ip[i] = lc_ip4_from_host((uint32_t)c->kbin);
	o->arp_nomac[i] = m == NULL;
	for (unsigned j = 0; m != NULL && j < 6; j++)
		o->arp_mac[i][j] = (uint8_t)(m->kbin >> (40 - 8 * j));
}

/* The IPv6 address of node c (its canonical text). */
static bool
ip6_of(const struct mgmt_node *c, struct lc_ip6 *a)
{
	struct lc_err e;

	return (lc_inet6_parse(c->value, 0, a, NULL, &e) == 0);
}

/* The IPv6 prefix of node c, and the address as written (host, may be
 * NULL): its canonical "addr/len". */
static bool
prefix6_of(const struct mgmt_node *c, struct lc_prefix6 *p, struct lc_ip6 *host)
{
	struct lc_err e;

	return (
	    lc_inet6_prefix_parse(c->value, LC_INET6_F_HOST, p, host, &e) == 0);
}

static void
inet6_get(const struct mgmt_node *n, struct mgmt_iface_conf *o)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL)
		if (c->sid == MGMT_S_IFACE_INET6_DISABLE)
			o->inet6_disable = true;
		else if (c->sid == MGMT_S_IFACE_INET6_ADDRESS &&
		    o->naddr6 < MGMT_MAX_ADDRS &&
		    prefix6_of(c, &o->addr6[o->naddr6], &o->host6[o->naddr6]))
			o->naddr6++;
}

static void
ra_get(const struct mgmt_node *n, struct mgmt_iface_conf *o)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	o->ra = true;
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL)
		switch (c->sid) {
		case MGMT_S_IFACE_RA_PREFIX:
			if (o->ra_nprefix < MGMT_MAX_ADDRS &&
			    prefix6_of(c, &o->ra_prefix[o->ra_nprefix], NULL))
				o->ra_nprefix++;
			break;
		case MGMT_S_IFACE_RA_MTU:
			o->ra_mtu = (unsigned)c->kbin;
			break;
		case MGMT_S_IFACE_RA_LIFETIME:
			o->ra_lifetime = (unsigned)c->kbin;
			o->ra_lifetime_set = true;
			break;
		case MGMT_S_IFACE_RA_INTERVAL:
			o->ra_interval = (unsigned)c->kbin;
			break;
		}
}

/* Entry i of o's static IPv6 neighbours from the list node c. */
static void
ndp_get(const struct mgmt_node *c, struct mgmt_iface_conf *o, unsigned i)
{
	const struct mgmt_node *m = mgmt_node_find_sid(c, MGMT_S_IFACE_NDP_MAC);

	ip6_of(c, &o->ndp_ip[i]);
	o->ndp_nomac[i] = m == NULL;
	for (unsigned j = 0; m != NULL && j < 6; j++)
		o->ndp_mac[i][j] = (uint8_t)(m->kbin >> (40 - 8 * j));
}

int
mgmt_conf_iface_get(const struct mgmt_node *n, struct mgmt_iface_conf *o)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	if (n == NULL || n->sid != MGMT_S_IFACE)
		return (-EINVAL);
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", n->value);
	snprintf(o->device, sizeof(o->device), "%s", n->value);
	o->mtu = 0; /* unset: the device's (fwd reads it) */
	o->backend = MGMT_BACKEND_DEFAULT;
	o->host_path = true;
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		switch (c->sid) {
		case MGMT_S_IFACE_DEVICE:
			snprintf(o->device, sizeof(o->device), "%s", c->value);
			break;
		case MGMT_S_IFACE_ADDRESS:
			if (o->naddr < MGMT_MAX_ADDRS) {
				uint32_t host = (uint32_t)(c->kbin >> 8);
				unsigned len = (unsigned)(c->kbin & 0xff);

				o->host[o->naddr] = lc_ip4_from_host(host);
				o->addr[o->naddr].addr = lc_ip4_from_host(
				    host & lc_prefix4_mask(len));
				o->addr[o->naddr].len = (uint8_t)len;
				o->naddr++;
			}
			break;
		case MGMT_S_IFACE_MTU:
			o->mtu = (unsigned)c->kbin;
			break;
		case MGMT_S_IFACE_DISABLE:
			o->disable = true;
			break;
		case MGMT_S_IFACE_BACKEND:
			o->backend = (enum mgmt_port_backend)c->kbin;
			break;
		case MGMT_S_IFACE_HOST_PATH:
			o->host_path = c->kbin == 0; /* enable, disable */
			break;
		case MGMT_S_IFACE_ARP:
			if (o->narp < MGMT_MAX_ARP)
				arp_get(c, o, o->narp++);
			break;
		case MGMT_S_IFACE_INET6:
			inet6_get(c, o);
			break;
		case MGMT_S_IFACE_LINKLOCAL:
			o->ll6_set = ip6_of(c, &o->ll6);
			break;
		case MGMT_S_IFACE_RA:
			ra_get(c, o);
			break;
		case MGMT_S_IFACE_NDP:
			if (o->nndp < MGMT_MAX_ARP)
				ndp_get(c, o, o->nndp++);
			break;
		}
	}
	return (0);
}

int
mgmt_conf_route_get(const struct mgmt_node *n, struct mgmt_route_conf *o)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	if (n == NULL || n->sid != MGMT_S_ROUTE)
		return (-EINVAL);
	memset(o, 0, offsetof(struct mgmt_route_conf, nh));
	o->family = (n->kbin >> 63) != 0 ? AF_INET6 : AF_INET;
	if (o->family == AF_INET6)
		prefix6_of(n, &o->prefix6, NULL);
	else {
		o->prefix.addr = lc_ip4_from_host((uint32_t)(n->kbin >> 8));
		o->prefix.len = (uint8_t)(n->kbin & 0xff);
	}
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		switch (c->sid) {
		case MGMT_S_ROUTE_NH:
			/* a next hop of the other family: counted, not kept
			 * (validation refuses the route) */
			if (((c->kbin >> 63) != 0) != (o->family == AF_INET6))
				o->nnh_other++;
			else if (o->nnh < MGMT_MAX_NH && o->family == AF_INET6)
				ip6_of(c, &o->nh6[o->nnh++]);
			else if (o->nnh < MGMT_MAX_NH)
				o->nh[o->nnh++] = lc_ip4_from_host(
				    (uint32_t)c->kbin);
			break;
		case MGMT_S_ROUTE_IFACE:
			snprintf(o->ifname, sizeof(o->ifname), "%s", c->value);
			break;
		case MGMT_S_ROUTE_DISTANCE:
			o->distance = (unsigned)c->kbin;
			break;
		case MGMT_S_ROUTE_BLACKHOLE:
			o->blackhole = true;
			break;
		case MGMT_S_ROUTE_REJECT:
			o->reject = true;
			break;
		}
	}
	return (0);
}

static unsigned
leaf_uint(const struct mgmt_node *p, unsigned sid)
{
	const struct mgmt_node *c = mgmt_node_find_sid(p, sid);

	return (c ? (unsigned)c->kbin : uint_dflt(sid));
}

void
mgmt_conf_rib_get(const struct mgmt_conf *conf, struct mgmt_rib_conf *o)
{
	const struct mgmt_node *r = mgmt_node_find_sid(conf->root, MGMT_S_RIB);
	const struct mgmt_node *d = mgmt_node_find_sid(r, MGMT_S_RIB_DISTANCE);

	o->ecmp_width = leaf_uint(r, MGMT_S_RIB_ECMP);
	o->distance_connected = leaf_uint(d, MGMT_S_RIB_DIST_CONNECTED);
	o->distance_static = leaf_uint(d, MGMT_S_RIB_DIST_STATIC);
}

void
mgmt_conf_fwd_node_get(const struct mgmt_node *f, struct mgmt_fwd_conf *o)
{
	const struct mgmt_node *b = mgmt_node_find_sid(f, MGMT_S_FWD_BACKEND);

	o->workers = leaf_uint(f, MGMT_S_FWD_WORKERS);
	o->icmp_rate_limit = leaf_uint(f, MGMT_S_FWD_ICMP_RATE);
	o->workers_set = mgmt_node_find_sid(f, MGMT_S_FWD_WORKERS) != NULL;
	o->icmp_set = mgmt_node_find_sid(f, MGMT_S_FWD_ICMP_RATE) != NULL;
	o->backend = b ? (enum mgmt_port_backend)b->kbin : MGMT_BACKEND_AUTO;
}

void
mgmt_conf_fwd_get(const struct mgmt_conf *conf, struct mgmt_fwd_conf *o)
{
	mgmt_conf_fwd_node_get(mgmt_node_find_sid(conf->root, MGMT_S_FWD), o);
}

void
mgmt_conf_system_get(const struct mgmt_conf *conf, struct mgmt_system_conf *o)
{
	const struct mgmt_node *s = mgmt_node_find_sid(conf->root,
	    MGMT_S_SYSTEM);
	const struct mgmt_node *hn = mgmt_node_find_sid(s, MGMT_S_SYS_HOSTNAME);
	const struct mgmt_node *ll = mgmt_node_find_sid(s, MGMT_S_SYS_LOGLEVEL);
	const struct mgmt_node *mt = mgmt_node_find_sid(s, MGMT_S_SYS_METRICS);
	const struct mgmt_node *ma = mgmt_node_find_sid(mt,
	    MGMT_S_SYS_METRICS_LISTEN);
	const struct mgmt_node *mp = mgmt_node_find_sid(mt,
	    MGMT_S_SYS_METRICS_PORT);

	snprintf(o->host_name, sizeof(o->host_name), "%s",
	    hn ? hn->value : mgmt_schema[MGMT_S_SYS_HOSTNAME].dflt);
	/* enum words are in lc_log_level order */
	o->log_level = ll ? (int)ll->kbin : LC_LOG_NOTICE;
	o->metrics = mt != NULL;
	o->metrics_addr = htonl(ma ? (uint32_t)ma->kbin : 0x7f000001u);
	o->metrics_port = mp ? (unsigned)mp->kbin : 9324;
}

void
mgmt_conf_bgp_get(const struct mgmt_conf *conf, struct mgmt_bgp_conf *o)
{
	const struct mgmt_node *b = list_parent(conf, MGMT_S_BGP_NBR), *c;

	memset(o, 0, sizeof(*o));
	o->present = b != NULL;
	if ((c = mgmt_node_find_sid(b, MGMT_S_BGP_LOCAL_AS)) != NULL)
		o->local_as = (uint32_t)c->kbin;
	if ((c = mgmt_node_find_sid(b, MGMT_S_BGP_ROUTER_ID)) != NULL)
		o->router_id = lc_ip4_from_host((uint32_t)c->kbin);
	if ((c = mgmt_node_find_sid(b, MGMT_S_BGP_GR_TIME)) != NULL)
		o->gr_time = (unsigned)c->kbin;
}

int
mgmt_conf_bgp_nbr_get(const struct mgmt_node *n, struct mgmt_bgp_nbr_conf *o)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	if (n == NULL || n->sid != MGMT_S_BGP_NBR)
		return (-EINVAL);
	memset(o, 0, sizeof(*o));
	o->addr = lc_ip4_from_host((uint32_t)n->kbin);
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		switch (c->sid) {
		case MGMT_S_BGP_NBR_REMOTE_AS:
			o->remote_as = (uint32_t)c->kbin;
			break;
		case MGMT_S_BGP_NBR_LOCAL_AS:
			o->local_as = (uint32_t)c->kbin;
			break;
		case MGMT_S_BGP_NBR_DESCR:
			snprintf(o->description, sizeof(o->description), "%s",
			    c->value);
			break;
		case MGMT_S_BGP_NBR_PASSIVE:
			o->passive = true;
			break;
		case MGMT_S_BGP_NBR_NH_SELF:
			o->next_hop_self = true;
			break;
		case MGMT_S_BGP_NBR_GR:
			o->graceful_restart = true;
			break;
		case MGMT_S_BGP_NBR_SHUTDOWN:
			o->shutdown = true;
			break;
		case MGMT_S_BGP_NBR_HOLD:
			o->hold_time = (unsigned)c->kbin;
			break;
		case MGMT_S_BGP_NBR_RETRY:
			o->connect_retry = (unsigned)c->kbin;
			break;
		case MGMT_S_BGP_NBR_MULTIHOP:
			o->multihop = (unsigned)c->kbin;
			break;
		case MGMT_S_BGP_NBR_LOCAL_ADDR:
			o->local_address = lc_ip4_from_host((uint32_t)c->kbin);
			break;
		case MGMT_S_BGP_NBR_AUTH:
			snprintf(o->auth_key, sizeof(o->auth_key), "%s",
			    c->value);
			break;
		case MGMT_S_BGP_NBR_IMPORT:
			snprintf(o->import, sizeof(o->import), "%s", c->value);
			break;
		case MGMT_S_BGP_NBR_EXPORT:
			snprintf(o->export, sizeof(o->export), "%s", c->value);
			break;
		case MGMT_S_BGP_NBR_LOCAL_ADDR6:
			snprintf(o->local_address6, sizeof(o->local_address6),
			    "%s", c->value);
			break;
		case MGMT_S_BGP_NBR_FAMILY:
			if (mgmt_node_find_sid(mgmt_node_find_sid(c,
						   MGMT_S_BGP_NBR_FAM_INET),
				MGMT_S_BGP_NBR_FAM_INET_UNI) != NULL)
				o->families |= 1;
			if (mgmt_node_find_sid(mgmt_node_find_sid(c,
						   MGMT_S_BGP_NBR_FAM_INET6),
				MGMT_S_BGP_NBR_FAM_INET6_UNI) != NULL)
				o->families |= 2;
			break;
		}
	}
	return (0);
}
