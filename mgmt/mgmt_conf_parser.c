/* mgmt/mgmt_conf_parser.c: parses brace-syntax config text (Junos/XORP style)
 * into a tree, with file:line:col errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "libcommon/lc_file.h"
#include "libcommon/lc_lex.h"
#include "mgmt/mgmt_conf_int.h"

#define WORD_MAX   256
#define STMT_WORDS 24
#define BRACK_MAX  MGMT_MAX_NH

struct word {
	char *s;
	uint32_t line, col;
};

struct parser {
	struct lc_lex lx; /* and its current token */
	uint16_t src;
	/* statement scratch */
	char sbuf[(STMT_WORDS + BRACK_MAX) * (WORD_MAX + 1)];
	size_t sused;
	/* static routes are collected here, found through a hash, and built
	 * into a balanced child set once at the end: inserting 1M routes one
	 * by one costs a cache miss per AVL level (4 s for a shuffled file) */
	struct {
		struct mgmt_node *parent; /* the static node, NULL until used */
		struct bulk_ent {
			uint64_t k;
			struct mgmt_node *n;
		} * v;
		size_t n, cap;
		uint32_t *slot; /* index + 1 into v, 0 = free */
		size_t mask;
	} bulk;
};

static inline size_t
bulk_hash(uint64_t k, size_t mask)
{
	return ((size_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & mask);
}

/* The collected route of key k. An IPv4 kbin is the whole key; an IPv6
 * one (bit 63) is 63 bits of it, the text tells the rest. */
static struct mgmt_node *
bulk_find(struct parser *P, const struct mgmt_key *k)
{
	size_t i;

	if (P->bulk.slot == NULL)
		return (NULL);
	for (i = bulk_hash(k->kbin, P->bulk.mask); P->bulk.slot[i] != 0;
	     i = (i + 1) & P->bulk.mask) {
		struct bulk_ent *e = &P->bulk.v[P->bulk.slot[i] - 1];

		if (e->k == k->kbin &&
		    ((k->kbin >> 63) == 0 || strcmp(e->n->value, k->str) == 0))
			return (e->n);
	}
	return (NULL);
}

static void
bulk_add(struct parser *P, struct mgmt_node *n)
{
	size_t i;

	if (P->bulk.n == P->bulk.cap) {
		P->bulk.cap = P->bulk.cap ? P->bulk.cap * 2 : 1024;
		P->bulk.v = mgmt_xrealloc(P->bulk.v,
		    P->bulk.cap * sizeof(*P->bulk.v));
		/* a table of twice the capacity: load <= 1/2 */
		free(P->bulk.slot);
		P->bulk.mask = P->bulk.cap * 2 - 1;
		P->bulk.slot = mgmt_xmalloc(
		    (P->bulk.mask + 1) * sizeof(uint32_t));
		memset(P->bulk.slot, 0, (P->bulk.mask + 1) * sizeof(uint32_t));
		for (size_t j = 0; j < P->bulk.n; j++) {
			for (i = bulk_hash(P->bulk.v[j].k, P->bulk.mask);
			     P->bulk.slot[i] != 0; i = (i + 1) & P->bulk.mask)
				;
			P->bulk.slot[i] = (uint32_t)(j + 1);
		}
	}
	P->bulk.v[P->bulk.n].k = n->kbin;
	P->bulk.v[P->bulk.n++].n = n;
	for (i = bulk_hash(n->kbin, P->bulk.mask); P->bulk.slot[i] != 0;
	     i = (i + 1) & P->bulk.mask)
		;
	P->bulk.slot[i] = (uint32_t)P->bulk.n;
}

static int
bulk_cmp(const void *a, const void *b)
{
	const struct bulk_ent *x = a, *y = b;
	struct mgmt_key k;

	if (x->k != y->k)
		return (x->k < y->k ? -1 : 1);
	mgmt_node_key(x->n, &k); /* IPv6 keys of equal kbin */
	return (mgmt_key_cmp(&k, y->n));
}

static struct mgmt_node *
bulk_build(const struct bulk_ent *v, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;
	struct mgmt_node *n;
	int hl, hr;

	if (lo >= hi)
		return (NULL);
	n = v[mid].n;
	n->left = bulk_build(v, lo, mid);
	n->right = bulk_build(v, mid + 1, hi);
	hl = n->left ? n->left->height : 0;
	hr = n->right ? n->right->height : 0;
	n->height = (uint8_t)(1 + (hl > hr ? hl : hr));
	return (n);
}

/* Moves the collected routes into the tree (ok) or frees them. */
static void
bulk_finish(struct parser *P, bool ok)
{
	size_t i;

	if (ok && P->bulk.n > 0) {
		for (i = 1; i < P->bulk.n; i++)
			if (P->bulk.v[i - 1].k >= P->bulk.v[i].k)
				break;
		if (i < P->bulk.n) /* not already in order */
			qsort(P->bulk.v, P->bulk.n, sizeof(*P->bulk.v),
			    bulk_cmp);
		if (P->bulk.parent->kids == NULL)
			P->bulk.parent->kids = bulk_build(P->bulk.v, 0,
			    P->bulk.n);
		else
			for (i = 0; i < P->bulk.n; i++)
				mgmt_node_put(P->bulk.parent, P->bulk.v[i].n);
	} else
		for (i = 0; i < P->bulk.n; i++)
			mgmt_node_unref(P->bulk.v[i].n);
	free(P->bulk.v);
	free(P->bulk.slot);
	memset(&P->bulk, 0, sizeof(P->bulk));
}

static inline bool
is_word(enum lc_tok t)
{
	return (t == LC_TOK_WORD || t == LC_TOK_STRING);
}

static inline void
next(struct parser *P)
{
	lc_lex_next(&P->lx);
}

static bool
save_word(struct parser *P, struct word *w)
{
	size_t n = P->lx.len + 1;

	if (P->sused + n > sizeof(P->sbuf))
		return (false);
	w->s = P->sbuf + P->sused;
	memcpy(w->s, P->lx.text, n);
	P->sused += n;
	w->line = P->lx.line;
	w->col = P->lx.col;
	return (true);
}

static void
locate(struct parser *P, struct mgmt_node *n, const struct word *w)
{
	n->line = w->line;
	n->col = (uint16_t)(w->col > 65535 ? 65535 : w->col);
	n->src = P->src;
}

static int parse_block(struct parser *P, struct mgmt_node *n, unsigned cur,
    int depth);

static int
dup_err(struct parser *P, const struct word *w, const struct mgmt_node *old,
    const char *what)
{
	if (old->line != 0)
		return (lc_lex_error(&P->lx, w->line, w->col,
		    "duplicate %s (first at line "
		    "%u, column %u)",
		    what, old->line, old->col));
	return (lc_lex_error(&P->lx, w->line, w->col, "duplicate %s", what));
}

/* One statement as read: its words, the values of a [ list ], and the ';'
 * or '{' that ended it. */
struct stmt {
	struct word w[STMT_WORDS], vals[BRACK_MAX];
	unsigned nw, nv;
	bool brack;
	enum lc_tok term;
};

/* A flag, schema row ch, named by word kw of st (its value, an error,
 * would be word i); n is its parent. */
static int
stmt_flag(struct parser *P, struct mgmt_node *n, int ch, unsigned kw,
    unsigned i, const struct stmt *st)
{
	const struct mgmt_schema_node *s = &mgmt_schema[ch];
	const struct word *w = st->w;
	struct mgmt_key k = {.sid = (uint16_t)ch, .kbin = 0, .str = ""};
	const struct mgmt_node *old;
	struct mgmt_node *c;

	if (i < st->nw)
		return (lc_lex_error(&P->lx, w[i].line, w[i].col,
		    "unexpected '%.64s': '%s' takes no value", w[i].s,
		    s->name));
	if (st->term != LC_TOK_SEMI || st->brack)
		return (lc_lex_error(&P->lx, w[kw].line, w[kw].col,
		    "expected ';' after '%s'", s->name));
	if ((old = mgmt_node_find(n, &k)) != NULL)
		return (dup_err(P, &w[kw], old, s->name));
	c = mgmt_node_new((unsigned)ch, 0, "");
	locate(P, c, &w[kw]);
	mgmt_node_put(n, c);
	return (0);
}

/* The entry of list ch keyed by word i (named by word kw) under *n, found
 * or made: *n becomes it. Static routes go to the bulk set. */
static int
stmt_entry(struct parser *P, struct mgmt_node **n, int ch, unsigned kw,
    unsigned i, const struct stmt *st)
{
	const struct mgmt_schema_node *s = &mgmt_schema[ch];
	const struct word *w = st->w;
	struct mgmt_key k = {.sid = (uint16_t)ch, .kbin = 0, .str = ""};
	bool bulk = ch == MGMT_S_ROUTE &&
	    (P->bulk.parent == NULL || P->bulk.parent == *n);
	const struct mgmt_node *old;
	struct mgmt_node *c;
	char canon[64];
	struct lc_err e2;
	bool created;

	if (i == st->nw)
		return (lc_lex_error(&P->lx, w[kw].line, w[kw].col,
		    "expected %s after '%s'", s->tname, s->name));
	if (mgmt_value_parse((unsigned)ch, w[i].s, canon, &k.kbin, &e2) != 0)
		return (
		    lc_lex_error(&P->lx, w[i].line, w[i].col, "%s", e2.msg));
	k.str = canon;
	old = bulk ? bulk_find(P, &k) : mgmt_node_find(*n, &k);
	if (i + 1 == st->nw && old != NULL) {
		char what[128];

		snprintf(what, sizeof(what), "%s%s%s",
		    s->name ? s->name : "interface", " ", canon);
		return (dup_err(P, &w[i], old, what));
	}
	if (bulk) {
		P->bulk.parent = *n;
		if (old == NULL) {
			c = mgmt_node_new((unsigned)ch, k.kbin, canon);
			locate(P, c, &w[kw]);
			bulk_add(P, c);
			*n = c;
		} else
			*n = (struct mgmt_node *)old;
	} else {
		*n = mgmt_node_child(*n, &k, true, &created);
		if (created)
			locate(P, *n, &w[kw]);
	}
	return (0);
}

/* A leaf or repeatable leaf ch under n, named by word kw, its value word
 * i or the [ list ]. */
static int
stmt_leaf(struct parser *P, struct mgmt_node *n, int ch, unsigned kw,
    unsigned i, const struct stmt *st)
{
	const struct mgmt_schema_node *s = &mgmt_schema[ch];
	const struct word *w = st->w, *vv = &w[i];
	struct mgmt_key k = {.sid = (uint16_t)ch, .kbin = 0, .str = ""};
	bool leaf = s->kind == MGMT_SK_LEAF;
	/* an anonymous leaf (as-path NAME REGEX) is named by its list */
	const char *name = s->name != NULL ? s->name :
					     mgmt_schema[s->parent].name;
	const struct mgmt_node *old;
	struct mgmt_node *c;
	unsigned nvv = 1, bad;
	char canon[64];
	struct lc_err e2;

	if (st->term != LC_TOK_SEMI)
		return (lc_lex_error(&P->lx, w[kw].line, w[kw].col,
		    "expected ';' after the value of '%s', got %s", name,
		    lc_lex_tok_name(st->term)));
	if (i == st->nw && st->brack) {
		if (leaf)
			return (lc_lex_error(&P->lx, w[kw].line, w[kw].col,
			    "'%s' takes one value, not a [ list ]", name));
		vv = st->vals;
		nvv = st->nv;
	} else if (i == st->nw)
		return (lc_lex_error(&P->lx, w[kw].line, w[kw].col,
		    "expected %s after '%s'", s->tname ? s->tname : "a value",
		    name));
	else if (i + 1 < st->nw || st->brack) {
		bad = i + 1 < st->nw ? i + 1 : i;
		return (lc_lex_error(&P->lx, w[bad].line, w[bad].col,
		    "expected ';' after the value of '%s'", name));
	}
	for (unsigned j = 0; j < nvv; j++) {
		if (mgmt_value_parse((unsigned)ch, vv[j].s, canon, &k.kbin,
			&e2) != 0)
			return (lc_lex_error(&P->lx, vv[j].line, vv[j].col,
			    "%s", e2.msg));
		k.str = canon;
		if ((old = mgmt_node_find(n, &k)) != NULL) {
			char what[128];

			snprintf(what, sizeof(what), "%s%s%s", name,
			    leaf ? "" : " ", leaf ? "" : canon);
			return (dup_err(P, leaf ? &w[kw] : &vv[j], old, what));
		}
		c = mgmt_node_new((unsigned)ch, k.kbin, canon);
		locate(P, c, &w[kw]);
		mgmt_node_put(n, c);
	}
	return (0);
}

/* The statement named container or list entry n (schema cur), reached
 * through chain[0..nchain): its block, or the error of a missing one. */
static int
stmt_block(struct parser *P, struct mgmt_node *n, unsigned cur,
    struct mgmt_node **chain, unsigned nchain, const struct stmt *st, int depth)
{
	const struct word *last = &st->w[st->nw - 1];
	struct mgmt_key k;
	char exp[256];
	int rv;

	if (st->brack)
		return (lc_lex_error(&P->lx, last->line, last->col,
		    "unexpected '[' after '%.64s'", last->s));
	if (st->term == LC_TOK_LBRACE) {
		P->sused = 0; /* words are no longer needed */
		if ((rv = parse_block(P, n, cur, depth + 1)) != 0)
			return (rv);
		/* empty containers are as if absent (printing drops them) */
		while (nchain > 1 && chain[nchain - 1]->kids == NULL &&
		    chain[nchain - 1] != P->bulk.parent &&
		    mgmt_schema[chain[nchain - 1]->sid].kind ==
			MGMT_SK_CONTAINER) {
			mgmt_node_key(chain[nchain - 1], &k);
			mgmt_node_remove(chain[nchain - 2], &k);
			nchain--;
		}
		return (0);
	}
	if (mgmt_schema[cur].kind == MGMT_SK_CONTAINER) {
		mgmt_schema_expected(cur, exp, sizeof(exp));
		return (lc_lex_error(&P->lx, last->line, last->col,
		    "incomplete statement '%.64s': expected '{' or one of %s",
		    last->s, exp));
	}
	return (0);
}

/* Word j of st (there is one, the statement ends with ';' and no [ list ])
 * names a leaf, a repeatable leaf or a flag under cur: several leaves of one
 * parent in one statement. */
static bool
sibling_leaf(unsigned cur, const struct stmt *st, unsigned j)
{
	int c;

	if (j >= st->nw || st->brack || st->term != LC_TOK_SEMI ||
	    (c = mgmt_schema_child(cur, st->w[j].s)) < 0)
		return (false);
	return (mgmt_schema[c].kind == MGMT_SK_LEAF ||
	    mgmt_schema[c].kind == MGMT_SK_LEAFLIST ||
	    mgmt_schema[c].kind == MGMT_SK_FLAG);
}

/* The flag or leaf ch (keyword kw, value word i) of a statement that goes
 * on at word end with another leaf: applied as if the statement ended
 * there. */
static int
stmt_part(struct parser *P, struct mgmt_node *n, int ch, unsigned kw,
    unsigned i, unsigned end, const struct stmt *st)
{
	struct stmt one = *st; /* 1.4 KB, as parse_block's */

	one.nw = end;
	return (mgmt_schema[ch].kind == MGMT_SK_FLAG ?
		stmt_flag(P, n, ch, kw, i, &one) :
		stmt_leaf(P, n, ch, kw, i, &one));
}

/* Applies one statement relative to block node n (schema cur): its words
 * walk containers and list entries down to a leaf, a flag or a block. */
static int
statement(struct parser *P, struct mgmt_node *n, unsigned cur,
    const struct stmt *st, int depth)
{
	struct mgmt_node *chain[STMT_WORDS + 1]; /* n and the nodes walked */
	const struct word *w = st->w;
	unsigned i = 0, nchain = 0;
	char exp[256];
	int rv;

	chain[nchain++] = n;
	while (i < st->nw) {
		int ch = mgmt_schema_child(cur, w[i].s);
		struct mgmt_key k = {.kbin = 0, .str = ""};
		unsigned kw = i;
		bool created;

		if (ch < 0 && (ch = mgmt_schema_anon(cur)) < 0) {
			mgmt_schema_expected(cur, exp, sizeof(exp));
			return (lc_lex_error(&P->lx, w[i].line, w[i].col,
			    "unknown word '%.64s', expected %s", w[i].s, exp));
		}
		if (mgmt_schema[ch].name != NULL)
			i++;
		switch (mgmt_schema[ch].kind) {
		case MGMT_SK_CONTAINER:
			k.sid = (uint16_t)ch;
			n = mgmt_node_child(n, &k, true, &created);
			chain[nchain++] = n;
			if (created)
				locate(P, n, &w[kw]);
			cur = (unsigned)ch;
			continue;
		case MGMT_SK_FLAG:
			/* a flag then another leaf of its parent: "reject
			 * distance 5;" */
			if (sibling_leaf(cur, st, i)) {
				if ((rv = stmt_part(P, n, ch, kw, i, i, st)) !=
				    0)
					return (rv);
				continue;
			}
			return (stmt_flag(P, n, ch, kw, i, st));
		case MGMT_SK_LIST:
			if ((rv = stmt_entry(P, &n, ch, kw, i, st)) != 0)
				return (rv);
			chain[nchain++] = n;
			cur = (unsigned)ch;
			i++;
			continue;
		case MGMT_SK_LEAF:
		case MGMT_SK_LEAFLIST:
			/* a leaf's value, then another leaf of its parent
			 * (Junos' "next-hop fe80::2 interface veth1;") */
			if (sibling_leaf(cur, st, i + 1)) {
				if ((rv = stmt_part(P, n, ch, kw, i, i + 1,
					 st)) != 0)
					return (rv);
				i++;
				continue;
			}
			return (stmt_leaf(P, n, ch, kw, i, st));
		}
	}
	return (stmt_block(P, n, cur, chain, nchain, st, depth));
}

/* Where a [ list ]'s values go (lc_lex_list's add). */
struct list_ctx {
	struct parser *P;
	struct word *v;
	unsigned n;
};

static int
list_add(void *arg, const struct lc_lex *lx)
{
	struct list_ctx *lc = arg;

	if (!save_word(lc->P, &lc->v[lc->n]))
		return (lc_lex_error(&lc->P->lx, lx->line, lx->col,
		    "statement too long"));
	lc->n++;
	return (0);
}

static int
parse_block(struct parser *P, struct mgmt_node *n, unsigned cur, int depth)
{
	uint32_t oline = P->lx.line, ocol = P->lx.col;

	for (;;) {
		struct stmt st;
		int rv;

		P->sused = 0;
		st.nw = st.nv = 0;
		st.brack = false;
		next(P);
		if (P->lx.tok == LC_TOK_ERR)
			return (-EINVAL);
		if (P->lx.tok == LC_TOK_RBRACE) {
			if (depth == 0)
				return (
				    lc_lex_error(&P->lx, P->lx.line, P->lx.col,
					"unexpected '}' (no block is open)"));
			return (0);
		}
		if (P->lx.tok == LC_TOK_EOF) {
			if (depth > 0)
				return (lc_lex_error(&P->lx, P->lx.line,
				    P->lx.col,
				    "expected "
				    "'}' before end of input (block opened at "
				    "line %u, column %u)",
				    oline, ocol));
			return (0);
		}
		if (!is_word(P->lx.tok))
			return (lc_lex_error(&P->lx, P->lx.line, P->lx.col,
			    "expected a "
			    "statement, got %s",
			    lc_lex_tok_name(P->lx.tok)));
		while (is_word(P->lx.tok)) {
			if (st.nw == STMT_WORDS || st.brack)
				return (lc_lex_error(&P->lx, P->lx.line,
				    P->lx.col,
				    "statement too long, expected ';' or '{'"));
			if (!save_word(P, &st.w[st.nw++]))
				return (lc_lex_error(&P->lx, P->lx.line,
				    P->lx.col, "statement too long"));
			next(P);
			if (P->lx.tok == LC_TOK_LBRACK) {
				struct list_ctx lc = {P, st.vals, 0};

				st.brack = true;
				if ((rv = lc_lex_list(&P->lx, BRACK_MAX,
					 list_add, &lc)) < 0)
					return (rv);
				st.nv = (unsigned)rv;
				next(P);
			}
		}
		if (P->lx.tok == LC_TOK_ERR)
			return (-EINVAL);
		if (P->lx.tok != LC_TOK_SEMI && P->lx.tok != LC_TOK_LBRACE)
			return (lc_lex_error(&P->lx, P->lx.line, P->lx.col,
			    "expected ';' or "
			    "'{' after '%.64s', got %s",
			    st.w[st.nw - 1].s, lc_lex_tok_name(P->lx.tok)));
		st.term = P->lx.tok;
		rv = statement(P, n, cur, &st, depth);
		if (rv != 0)
			return (rv);
	}
}

int
mgmt_conf_parse(const char *text, size_t len, const char *fname,
    struct mgmt_conf **out, struct lc_err *err)
{
	struct parser *P = mgmt_xmalloc(sizeof(*P));
	struct lc_err dummy;
	struct mgmt_conf *c = mgmt_conf_new();
	int rv;

	memset(P, 0, offsetof(struct parser, sbuf));
	memset(&P->bulk, 0, sizeof(P->bulk));
	fname = fname ? fname : "<input>";
	err = err ? err : &dummy;
	lc_lex_init(&P->lx, fname, text, len, WORD_MAX, err);
	P->src = mgmt_src_intern(fname);
	rv = parse_block(P, c->root, MGMT_S_ROOT, 0);
	bulk_finish(P, rv == 0);
	free(P);
	if (rv != 0) {
		mgmt_conf_free(c);
		return (rv);
	}
	*out = c;
	return (0);
}

#define GUNZIP_MAX \
	((size_t)MGMT_FILE_MAX) /* no config is bigger: refuse bombs */

/* *buf (len bytes of gzip) replaced by what it inflates to; 0, or -errno
 * with *buf freed (as read_file leaves it on error) */
static int
gunzip_buf(const char *path, char **buf, size_t *len, struct lc_err *err)
{
	size_t cap = *len * 8 + 4096, out = 0;
	char *o = mgmt_xmalloc(cap);
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(o);
		free(*buf);
		*buf = NULL;
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: cannot start gzip decoding", path);
		return (-ENOMEM);
	}
	z.next_in = (Bytef *)*buf;
	z.avail_in = (uInt)*len;
	for (;;) {
		if (cap - out < 2) {
			if (cap >= GUNZIP_MAX) {
				zr = Z_MEM_ERROR; /* too big */
				break;
			}
			cap *= 2;
			o = mgmt_xrealloc(o, cap);
		}
		z.next_out = (Bytef *)o + out;
		z.avail_out = (uInt)(cap - out - 1 > (1u << 30) ?
			(1u << 30) :
			cap - out - 1);
		zr = inflate(&z, Z_NO_FLUSH);
		out = (size_t)((char *)z.next_out - o);
		if (zr == Z_STREAM_END)
			break;
		if ((zr != Z_OK && zr != Z_BUF_ERROR) ||
		    (z.avail_in == 0 && z.avail_out > 0))
			break; /* corrupt, or the input ended early */
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(o);
		free(*buf); /* on error the caller has nothing to free */
		*buf = NULL;
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: not a valid gzip file (%s)", path,
		    zr == Z_MEM_ERROR ? "over 2 GiB" :
			z.msg != NULL ? z.msg :
					"truncated");
		return (-EINVAL);
	}
	o[out] = '\0';
	free(*buf);
	*buf = o;
	*len = out;
	return (0);
}

static int
read_file(const char *path, char **buf, size_t *len, struct lc_err *err)
{
	struct stat st;
	size_t off = 0;
	int fd, e;

	/* never blocks: a FIFO, a device or a directory is refused before
	 * anything is read (a boot config or a commit that is a FIFO hung
	 * mgmt's loop in open(), and rtrmgr killed it as hung) */
	if ((e = lc_open_regular(path, 0, MGMT_FILE_MAX, &fd, &st)) != 0) {
		if (e == -EFBIG)
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: %.1f MiB, over the %llu MiB a config file may "
			    "have",
			    path, (double)st.st_size / (1 << 20),
			    (unsigned long long)(MGMT_FILE_MAX >> 20));
		else
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s: %s", path,
			    lc_open_regular_str(e));
		return (e);
	}
	*buf = mgmt_xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s: read: %s",
			    path, strerror(e));
			free(*buf);
			close(fd);
			return (-e);
		}
		off += (size_t)n;
	}
	close(fd);
	(*buf)[off] = '\0';
	*len = off;
	/* a compressed commit of the history (or any gzip file) */
	if (off >= 2 && (uint8_t)(*buf)[0] == 0x1f &&
	    (uint8_t)(*buf)[1] == 0x8b)
		return (gunzip_buf(path, buf, len, err));
	return (0);
}

int
mgmt_conf_load_file(const char *path, struct mgmt_conf **out,
    struct lc_err *err)
{
	struct mgmt_conf *c;
	char *buf;
	size_t len;
	int rv;

	if ((rv = read_file(path, &buf, &len, err)) != 0)
		return (rv);
	rv = mgmt_conf_parse(buf, len, path, &c, err);
	free(buf);
	if (rv != 0)
		return (rv);
	if ((rv = mgmt_conf_validate(c, err)) != 0) {
		mgmt_conf_free(c);
		return (rv);
	}
	*out = c;
	return (0);
}

/* Parses text (a gzip file is inflated first) and applies it to conf. */
static int
load_apply(struct mgmt_conf *conf, const char *name, char *buf, size_t len,
    enum mgmt_load_mode mode, struct lc_err *err)
{
	struct mgmt_conf *c;
	int rv;

	rv = mgmt_conf_parse(buf, len, name, &c, err);
	free(buf);
	if (rv != 0)
		return (rv);
	if (mode == MGMT_LOAD_REPLACE)
		mgmt_conf_assign(conf, c);
	else
		mgmt_conf_merge(conf, c);
	mgmt_conf_free(c);
	return (0);
}

int
mgmt_conf_load(struct mgmt_conf *conf, const char *path,
    enum mgmt_load_mode mode, struct lc_err *err)
{
	char *buf;
	size_t len;
	int rv;

	if ((rv = read_file(path, &buf, &len, err)) != 0)
		return (rv);
	return (load_apply(conf, path, buf, len, mode, err));
}

int
mgmt_conf_load_text(struct mgmt_conf *conf, const char *name, const void *text,
    size_t len, enum mgmt_load_mode mode, struct lc_err *err)
{
	char *buf;
	size_t n = len;
	int rv;

	if (len > MGMT_LOAD_MAX)
		return (lc_err_set(err, -EFBIG, LC_ERR_NOINDEX,
		    "%s: %zu bytes, over the %u MiB a load takes", name, len,
		    MGMT_LOAD_MAX >> 20));
	/* NUL-terminated, as read_file leaves a file */
	buf = mgmt_xmalloc(len + 1);
	if (len > 0)
		memcpy(buf, text, len);
	buf[len] = '\0';
	if (n >= 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b &&
	    (rv = gunzip_buf(name, &buf, &n, err)) != 0) {
		free(buf);
		return (rv);
	}
	return (load_apply(conf, name, buf, n, mode, err));
}

int
mgmt_conf_split(const char *line, char *buf, size_t bufsz, const char **words,
    unsigned maxwords)
{
	size_t o = 0;
	unsigned n = 0;
	const char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '\0')
			return ((int)n);
		if (n == maxwords)
			return (-E2BIG);
		words[n++] = buf + o;
		if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0')
					return (-EINVAL);
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				if (o + 1 >= bufsz)
					return (-E2BIG);
				buf[o++] = *p;
			}
			p++;
		} else {
			while (*p != '\0' && *p != ' ' && *p != '\t' &&
			    *p != '\n' && *p != '\r') {
				if (o + 1 >= bufsz)
					return (-E2BIG);
				buf[o++] = *p++;
			}
		}
		if (o >= bufsz)
			return (-E2BIG);
		buf[o++] = '\0';
	}
}
