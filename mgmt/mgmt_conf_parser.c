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

#include "mgmt/mgmt_conf_int.h"

enum tok {
	T_WORD,
	T_LBRACE,
	T_RBRACE,
	T_SEMI,
	T_LBRACK,
	T_RBRACK,
	T_EOF,
	T_ERR
};

#define WORD_MAX   256
#define STMT_WORDS 24
#define BRACK_MAX  MGMT_MAX_NH

struct word {
	char *s;
	uint32_t line, col;
};

struct parser {
	const char *p, *end;
	const char *fname;
	uint16_t src;
	uint32_t line;
	const char *lstart; /* start of the current line */
	/* the current token */
	enum tok t;
	uint32_t tline, tcol;
	char tw[WORD_MAX + 1];
	struct mgmt_err *err;
	int failed;
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

static struct mgmt_node *
bulk_find(struct parser *P, uint64_t kbin)
{
	size_t i;

	if (P->bulk.slot == NULL)
		return (NULL);
	for (i = bulk_hash(kbin, P->bulk.mask); P->bulk.slot[i] != 0;
	     i = (i + 1) & P->bulk.mask) {
		struct bulk_ent *e = &P->bulk.v[P->bulk.slot[i] - 1];

		if (e->k == kbin)
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
	uint64_t x = ((const struct bulk_ent *)a)->k;
	uint64_t y = ((const struct bulk_ent *)b)->k;

	return (x < y ? -1 : x > y);
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
			if (P->bulk.v[i - 1].k > P->bulk.v[i].k)
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

static int perr(struct parser *P, uint32_t line, uint32_t col, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
perr(struct parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	int off;

	if (P->failed)
		return (-EINVAL);
	P->failed = 1;
	off = snprintf(P->err->msg, sizeof(P->err->msg), "%s:%u:%u: ", P->fname,
	    line, col);
	if (off > 0 && (size_t)off < sizeof(P->err->msg)) {
		va_start(ap, fmt);
		vsnprintf(P->err->msg + off, sizeof(P->err->msg) - (size_t)off,
		    fmt, ap);
		va_end(ap);
	}
	return (-EINVAL);
}

static const char *
tok_name(enum tok t)
{
	switch (t) {
	case T_LBRACE:
		return ("'{'");
	case T_RBRACE:
		return ("'}'");
	case T_SEMI:
		return ("';'");
	case T_LBRACK:
		return ("'['");
	case T_RBRACK:
		return ("']'");
	case T_EOF:
		return ("end of input");
	default:
		return ("a word");
	}
}

static inline uint32_t
colof(struct parser *P, const char *at)
{
	return ((uint32_t)(at - P->lstart) + 1);
}

static inline void
newline(struct parser *P, const char *after)
{
	P->line++;
	P->lstart = after;
}

/* Characters of unquoted words: printable but space and { } ; " [ ],
 * and bytes >= 0x80 (UTF-8 in strings). */
static const uint8_t word_tab[256] = {
    ['!'] = 1,
    ['#'] = 1,
    ['$'] = 1,
    ['%'] = 1,
    ['&'] = 1,
    ['\''] = 1,
    ['('] = 1,
    [')'] = 1,
    ['*'] = 1,
    ['+'] = 1,
    [','] = 1,
    ['-'] = 1,
    ['.'] = 1,
    ['/'] = 1,
    ['0' ... '9'] = 1,
    [':'] = 1,
    ['<'] = 1,
    ['='] = 1,
    ['>'] = 1,
    ['?'] = 1,
    ['@'] = 1,
    ['A' ... 'Z'] = 1,
    ['\\'] = 1,
    ['^'] = 1,
    ['_'] = 1,
    ['`'] = 1,
    ['a' ... 'z'] = 1,
    ['|'] = 1,
    ['~'] = 1,
    [0x80 ... 0xff] = 1,
};

static inline bool
word_char(char c)
{
	return (word_tab[(unsigned char)c] != 0);
}

/* Next token into P->t (and P->tw for words). */
static void
next(struct parser *P)
{
	const char *s;

	for (;;) {
		while (P->p < P->end &&
		    (*P->p == ' ' || *P->p == '\t' || *P->p == '\r' ||
			*P->p == '\n')) {
			if (*P->p == '\n')
				newline(P, P->p + 1);
			P->p++;
		}
		if (P->p >= P->end)
			break;
		if (*P->p == '#') {
			while (P->p < P->end && *P->p != '\n')
				P->p++;
			continue;
		}
		if (*P->p == '/' && P->p + 1 < P->end && P->p[1] == '*') {
			uint32_t l = P->line, c = colof(P, P->p);

			P->p += 2;
			while (P->p + 1 < P->end &&
			    !(P->p[0] == '*' && P->p[1] == '/')) {
				if (*P->p == '\n')
					newline(P, P->p + 1);
				P->p++;
			}
			if (P->p + 1 >= P->end) {
				P->t = T_ERR;
				perr(P, l, c, "unterminated comment");
				return;
			}
			P->p += 2;
			continue;
		}
		break;
	}
	P->tline = P->line;
	P->tcol = colof(P, P->p);
	if (P->p >= P->end) {
		P->t = T_EOF;
		return;
	}
	s = P->p;
	switch (*s) {
	case '{':
		P->t = T_LBRACE;
		P->p++;
		return;
	case '}':
		P->t = T_RBRACE;
		P->p++;
		return;
	case ';':
		P->t = T_SEMI;
		P->p++;
		return;
	case '[':
		P->t = T_LBRACK;
		P->p++;
		return;
	case ']':
		P->t = T_RBRACK;
		P->p++;
		return;
	case '"': {
		size_t n = 0;

		P->p++;
		while (P->p < P->end && *P->p != '"') {
			char c = *P->p;

			if (c == '\\' && P->p + 1 < P->end &&
			    (P->p[1] == '"' || P->p[1] == '\\'))
				c = *++P->p;
			else if (c == '\n' || (unsigned char)c < 0x20) {
				P->t = T_ERR;
				perr(P, P->tline, P->tcol,
				    "unterminated "
				    "string (strings end on the same line)");
				return;
			}
			if (n >= WORD_MAX) {
				P->t = T_ERR;
				perr(P, P->tline, P->tcol,
				    "string longer "
				    "than %d characters",
				    WORD_MAX);
				return;
			}
			P->tw[n++] = c;
			P->p++;
		}
		if (P->p >= P->end) {
			P->t = T_ERR;
			perr(P, P->tline, P->tcol, "unterminated string");
			return;
		}
		P->p++;
		P->tw[n] = '\0';
		P->t = T_WORD;
		return;
	}
	default:
		break;
	}
	if (!word_char(*s)) {
		P->t = T_ERR;
		perr(P, P->tline, P->tcol, "unexpected character 0x%02x",
		    (unsigned char)*s);
		return;
	}
	while (P->p < P->end && word_char(*P->p) &&
	    !(P->p[0] == '/' && P->p + 1 < P->end && P->p[1] == '*'))
		P->p++;
	if ((size_t)(P->p - s) > WORD_MAX) {
		P->t = T_ERR;
		perr(P, P->tline, P->tcol, "word longer than %d characters",
		    WORD_MAX);
		return;
	}
	memcpy(P->tw, s, (size_t)(P->p - s));
	P->tw[P->p - s] = '\0';
	P->t = T_WORD;
}

static bool
save_word(struct parser *P, struct word *w)
{
	size_t n = strlen(P->tw) + 1;

	if (P->sused + n > sizeof(P->sbuf))
		return (false);
	w->s = P->sbuf + P->sused;
	memcpy(w->s, P->tw, n);
	P->sused += n;
	w->line = P->tline;
	w->col = P->tcol;
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
		return (perr(P, w->line, w->col,
		    "duplicate %s (first at line "
		    "%u, column %u)",
		    what, old->line, old->col));
	return (perr(P, w->line, w->col, "duplicate %s", what));
}

/* Applies one statement: words w[0..nw) relative to block node n (schema
 * cur), vals[0..nv) from a [ ... ] list, terminated by term. */
static int
statement(struct parser *P, struct mgmt_node *n, unsigned cur, struct word *w,
    unsigned nw, struct word *vals, unsigned nv, bool has_brack, enum tok term,
    int depth)
{
	struct mgmt_node *chain[STMT_WORDS + 1]; /* n and the nodes walked */
	unsigned i = 0, nchain = 0;
	char canon[64], exp[256];
	struct mgmt_err e2;

	chain[nchain++] = n;
	while (i < nw) {
		int ch = mgmt_schema_child(cur, w[i].s);
		const struct mgmt_schema_node *s;
		struct mgmt_key k;
		const struct mgmt_node *old;
		struct mgmt_node *c;
		bool created;
		unsigned kw = i;

		if (ch < 0 && (ch = mgmt_schema_anon(cur)) < 0) {
			mgmt_schema_expected(cur, exp, sizeof(exp));
			return (perr(P, w[i].line, w[i].col,
			    "unknown word "
			    "'%.64s', expected %s",
			    w[i].s, exp));
		}
		s = &mgmt_schema[ch];
		if (s->name != NULL)
			i++;
		k.sid = (uint16_t)ch;
		k.kbin = 0;
		k.str = "";
		switch (s->kind) {
		case MGMT_SK_CONTAINER:
			n = mgmt_node_child(n, &k, true, &created);
			chain[nchain++] = n;
			if (created)
				locate(P, n, &w[kw]);
			cur = (unsigned)ch;
			continue;
		case MGMT_SK_FLAG:
			if (i < nw)
				return (perr(P, w[i].line, w[i].col,
				    "unexpected '%.64s': '%s' takes no value",
				    w[i].s, s->name));
			if (term != T_SEMI || has_brack)
				return (perr(P, w[kw].line, w[kw].col,
				    "expected ';' after '%s'", s->name));
			if ((old = mgmt_node_find(n, &k)) != NULL)
				return (dup_err(P, &w[kw], old, s->name));
			c = mgmt_node_new((unsigned)ch, 0, "");
			locate(P, c, &w[kw]);
			mgmt_node_put(n, c);
			return (0);
		case MGMT_SK_LIST:
			if (i == nw)
				return (perr(P, w[kw].line, w[kw].col,
				    "expected %s after '%s'", s->tname,
				    s->name));
			if (mgmt_value_parse((unsigned)ch, w[i].s, canon,
				&k.kbin, &e2) != 0)
				return (
				    perr(P, w[i].line, w[i].col, "%s", e2.msg));
			k.str = canon;
			if (ch == MGMT_S_ROUTE &&
			    (P->bulk.parent == NULL || P->bulk.parent == n))
				old = bulk_find(P, k.kbin);
			else
				old = mgmt_node_find(n, &k);
			if (i + 1 == nw && old != NULL) {
				char what[128];

				snprintf(what, sizeof(what), "%s%s%s",
				    s->name ? s->name : "interface", " ",
				    canon);
				return (dup_err(P, &w[i], old, what));
			}
			if (ch == MGMT_S_ROUTE &&
			    (P->bulk.parent == NULL || P->bulk.parent == n)) {
				P->bulk.parent = n;
				if (old == NULL) {
					c = mgmt_node_new((unsigned)ch, k.kbin,
					    canon);
					locate(P, c, &w[kw]);
					bulk_add(P, c);
					n = c;
				} else
					n = (struct mgmt_node *)old;
			} else {
				n = mgmt_node_child(n, &k, true, &created);
				if (created)
					locate(P, n, &w[kw]);
			}
			chain[nchain++] = n;
			cur = (unsigned)ch;
			i++;
			continue;
		case MGMT_SK_LEAF:
		case MGMT_SK_LEAFLIST: {
			struct word *vv = &w[i];
			unsigned nvv = 1;

			if (term != T_SEMI)
				return (perr(P, w[kw].line, w[kw].col,
				    "expected ';' after the value of '%s', "
				    "got %s",
				    s->name, tok_name(term)));
			if (i == nw && has_brack) {
				if (s->kind != MGMT_SK_LEAFLIST)
					return (perr(P, w[kw].line, w[kw].col,
					    "'%s' takes one value, not a "
					    "[ list ]",
					    s->name));
				vv = vals;
				nvv = nv;
			} else if (i == nw)
				return (perr(P, w[kw].line, w[kw].col,
				    "expected %s after '%s'",
				    s->tname ? s->tname : "a value", s->name));
			else if (i + 1 < nw || has_brack)
				return (perr(P, w[i + 1 < nw ? i + 1 : i].line,
				    w[i + 1 < nw ? i + 1 : i].col,
				    "expected ';' after the value of '%s'",
				    s->name));
			for (unsigned j = 0; j < nvv; j++) {
				if (mgmt_value_parse((unsigned)ch, vv[j].s,
					canon, &k.kbin, &e2) != 0)
					return (perr(P, vv[j].line, vv[j].col,
					    "%s", e2.msg));
				k.str = canon;
				if ((old = mgmt_node_find(n, &k)) != NULL) {
					char what[128];

					snprintf(what, sizeof(what), "%s%s%s",
					    s->name,
					    s->kind == MGMT_SK_LEAF ? "" : " ",
					    s->kind == MGMT_SK_LEAF ? "" :
								      canon);
					return (dup_err(P,
					    s->kind == MGMT_SK_LEAF ? &w[kw] :
								      &vv[j],
					    old, what));
				}
				c = mgmt_node_new((unsigned)ch, k.kbin, canon);
				locate(P, c, &w[kw]);
				mgmt_node_put(n, c);
			}
			return (0);
		}
		}
	}
	/* the statement names a container or a list entry */
	if (has_brack)
		return (perr(P, w[nw - 1].line, w[nw - 1].col,
		    "unexpected "
		    "'[' after '%.64s'",
		    w[nw - 1].s));
	if (term == T_LBRACE) {
		struct mgmt_key k;
		int rv;

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
		return (perr(P, w[nw - 1].line, w[nw - 1].col,
		    "incomplete "
		    "statement '%.64s': expected '{' or one of %s",
		    w[nw - 1].s, exp));
	}
	return (0);
}

static int
parse_block(struct parser *P, struct mgmt_node *n, unsigned cur, int depth)
{
	uint32_t oline = P->tline, ocol = P->tcol;

	for (;;) {
		struct word w[STMT_WORDS], vals[BRACK_MAX];
		unsigned nw = 0, nv = 0;
		bool brack = false;
		int rv;

		P->sused = 0;
		next(P);
		if (P->t == T_ERR)
			return (-EINVAL);
		if (P->t == T_RBRACE) {
			if (depth == 0)
				return (perr(P, P->tline, P->tcol,
				    "unexpected '}' (no block is open)"));
			return (0);
		}
		if (P->t == T_EOF) {
			if (depth > 0)
				return (perr(P, P->tline, P->tcol,
				    "expected "
				    "'}' before end of input (block opened at "
				    "line %u, column %u)",
				    oline, ocol));
			return (0);
		}
		if (P->t != T_WORD)
			return (perr(P, P->tline, P->tcol,
			    "expected a "
			    "statement, got %s",
			    tok_name(P->t)));
		while (P->t == T_WORD) {
			if (nw == STMT_WORDS || brack)
				return (perr(P, P->tline, P->tcol,
				    "statement too long, expected ';' or '{'"));
			if (!save_word(P, &w[nw++]))
				return (perr(P, P->tline, P->tcol,
				    "statement too long"));
			next(P);
			if (P->t == T_LBRACK) {
				uint32_t bl = P->tline, bc = P->tcol;

				brack = true;
				for (next(P); P->t == T_WORD; next(P)) {
					if (nv == BRACK_MAX ||
					    !save_word(P, &vals[nv++]))
						return (
						    perr(P, P->tline, P->tcol,
							"more than %d "
							"values in [ ]",
							BRACK_MAX));
				}
				if (P->t == T_ERR)
					return (-EINVAL);
				if (P->t != T_RBRACK)
					return (perr(P, P->tline, P->tcol,
					    "expected ']' (list opened at "
					    "line %u, column %u), got %s",
					    bl, bc, tok_name(P->t)));
				if (nv == 0)
					return (perr(P, bl, bc, "empty [ ]"));
				next(P);
			}
		}
		if (P->t == T_ERR)
			return (-EINVAL);
		if (P->t != T_SEMI && P->t != T_LBRACE)
			return (perr(P, P->tline, P->tcol,
			    "expected ';' or "
			    "'{' after '%.64s', got %s",
			    w[nw - 1].s, tok_name(P->t)));
		rv = statement(P, n, cur, w, nw, vals, nv, brack, P->t, depth);
		if (rv != 0)
			return (rv);
	}
}

int
mgmt_conf_parse(const char *text, size_t len, const char *fname,
    struct mgmt_conf **out, struct mgmt_err *err)
{
	struct parser *P = mgmt_xmalloc(sizeof(*P));
	struct mgmt_err dummy;
	struct mgmt_conf *c = mgmt_conf_new();
	int rv;

	memset(P, 0, offsetof(struct parser, sbuf));
	memset(&P->bulk, 0, sizeof(P->bulk));
	P->p = text;
	P->end = text + len;
	P->fname = fname ? fname : "<input>";
	P->src = mgmt_src_intern(P->fname);
	P->line = 1;
	P->lstart = text;
	P->err = err ? err : &dummy;
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

#define GUNZIP_MAX ((size_t)2 << 30) /* no config is bigger: refuse bombs */

/* *buf (len bytes of gzip) replaced by what it inflates to; 0, or -errno
 * with *buf freed (as read_file leaves it on error) */
static int
gunzip_buf(const char *path, char **buf, size_t *len, struct mgmt_err *err)
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
		mgmt_err_set(err, "%s: cannot start gzip decoding", path);
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
		mgmt_err_set(err, "%s: not a valid gzip file (%s)", path,
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
read_file(const char *path, char **buf, size_t *len, struct mgmt_err *err)
{
	struct stat st;
	size_t off = 0;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		e = errno;
		mgmt_err_set(err, "%s: %s", path, strerror(e));
		return (-e);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		e = S_ISREG(st.st_mode) ? errno : EINVAL;
		mgmt_err_set(err, "%s: %s", path,
		    S_ISREG(st.st_mode) ? strerror(e) : "not a regular file");
		close(fd);
		return (-e);
	}
	*buf = mgmt_xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			mgmt_err_set(err, "%s: read: %s", path, strerror(e));
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
    struct mgmt_err *err)
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

int
mgmt_conf_load(struct mgmt_conf *conf, const char *path,
    enum mgmt_load_mode mode, struct mgmt_err *err)
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
	if (mode == MGMT_LOAD_REPLACE)
		mgmt_conf_assign(conf, c);
	else
		mgmt_conf_merge(conf, c);
	mgmt_conf_free(c);
	return (0);
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
