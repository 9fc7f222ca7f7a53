/* mgmt/mgmt_conf_int.h: private structures of the config core (persistent node
 * trees, keys, walkers). */
#ifndef MGMT_CONF_INT_H
#define MGMT_CONF_INT_H

#include <stdarg.h>
#include <stdio.h>

#include "mgmt/mgmt_conf.h"

/*
 * A node is an entry of its parent's child set, and the child sets are AVL
 * trees whose links live in the nodes themselves (left/right). Nodes are
 * reference counted and immutable while shared (ref > 1): a change copies the
 * path from the root to what it touches ("own" = copy if shared), so trees
 * share everything else. Order within a child set: schema index (so print
 * order is schema order), then for list entries and leaf-list values the
 * binary key (addresses numerically), then the text.
 */
struct mgmt_node {
	uint32_t ref;
	uint16_t sid;
	uint8_t height; /* AVL height among siblings */
	uint8_t flags;
	uint64_t kbin;			/* numeric key (see mgmt_key) */
	struct mgmt_node *left, *right; /* siblings (AVL) */
	struct mgmt_node *kids;		/* root of the children AVL */
	uint32_t line;			/* source position, 0 if from set */
	uint16_t col;
	uint16_t src; /* index into the source-name table */
	char value[]; /* key or value text, "" if none */
};

struct mgmt_conf {
	struct mgmt_node *root;
};

/* Identity of a node among its siblings. */
struct mgmt_key {
	uint16_t sid;
	uint64_t kbin;
	const char *str;
};

/* Source names for node locations (interned, process-wide). */
uint16_t mgmt_src_intern(const char *fname);
const char *mgmt_src_name(uint16_t src);

/* err helpers */
/* "file:line:col: " prefix for a node, or "" when it came from set. */
void mgmt_err_node(struct lc_err *, const struct mgmt_node *n, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/* schema helpers */
static inline bool
mgmt_schema_keyed(unsigned sid) /* LIST or LEAFLIST */
{
	return (mgmt_schema[sid].kind == MGMT_SK_LIST ||
	    mgmt_schema[sid].kind == MGMT_SK_LEAFLIST);
}
/* Child of parent sid with this keyword, -1 if none. */
int mgmt_schema_child(unsigned parent, const char *word);
/* The anonymous list under parent, -1 if none. */
int mgmt_schema_anon(unsigned parent);
/* Parse a value for sid (leaf value or list key): canonical text into canon
 * (64 bytes) and the binary key into *kbin. 0 or -EINVAL with err set to
 * "invalid X 'v': expected Y". */
int mgmt_value_parse(unsigned sid, const char *v, char *canon, uint64_t *kbin,
    struct lc_err *err);
/* sid's values may be IPv6 (MGMT_T_IP6 .. MGMT_T_PREFIX46) */
bool mgmt_type_is6(unsigned sid);
/* Order of two canonical IPv6 values (address, then length): the tie
 * breaker of keys whose kbin is equal (kbin holds 63 of the 128 bits) */
int mgmt_value_cmp6(const char *a, const char *b);
/* "one of: a, b, c" list of keywords allowed under parent. */
void mgmt_schema_expected(unsigned parent, char *buf, size_t sz);
/* Path text of schema + keys, for messages. */

/* node primitives */
struct mgmt_node *mgmt_node_new(unsigned sid, uint64_t kbin, const char *value);
struct mgmt_node *mgmt_node_ref(struct mgmt_node *);
void mgmt_node_unref(struct mgmt_node *);
int mgmt_key_cmp(const struct mgmt_key *k, const struct mgmt_node *n);
void mgmt_node_key(const struct mgmt_node *n, struct mgmt_key *k);
/* Lookup among the children of parent. */
const struct mgmt_node *mgmt_node_find(const struct mgmt_node *parent,
    const struct mgmt_key *k);
const struct mgmt_node *mgmt_node_find_sid(const struct mgmt_node *parent,
    unsigned sid);
/* Makes *slot exclusively owned (copy if shared). */
void mgmt_node_own(struct mgmt_node **slot);
/* Returns the owned child with key k of owned parent p, creating it as
 * mgmt_node_new(k) if absent (*created set). */
struct mgmt_node *mgmt_node_child(struct mgmt_node *p, const struct mgmt_key *k,
    bool create, bool *created);
/* Inserts n (owned by caller, reference passed, links cleared) as a child of
 * owned p, replacing a child with the same key (whose reference is dropped). */
void mgmt_node_put(struct mgmt_node *p, struct mgmt_node *n);
/* Removes the child with key k of owned p; true if one was removed. */
bool mgmt_node_remove(struct mgmt_node *p, const struct mgmt_key *k);
/* A copy of n detached from its siblings (kids shared). */
struct mgmt_node *mgmt_node_detach(const struct mgmt_node *n);

/* In-order iteration over the children of a node (stack based). */
struct mgmt_iter {
	const struct mgmt_node *st[96];
	int n;
};
void mgmt_iter_init(struct mgmt_iter *, const struct mgmt_node *parent);
const struct mgmt_node *mgmt_iter_next(struct mgmt_iter *);
size_t mgmt_node_nkids(const struct mgmt_node *);

/* printer helpers shared with diff */
void mgmt_print_node(struct lc_buf *b, const struct mgmt_node *n, int indent,
    const char *prefix);
void mgmt_buf_printf(struct lc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mgmt_buf_puts(struct lc_buf *b, const char *s);
/* Appends a word, quoted if it must be. */
void mgmt_buf_word(struct lc_buf *b, const char *s);

/* validation of one unit (shared by whole-tree and incremental) */
int mgmt_validate_unit(const struct mgmt_conf *conf,
    const struct mgmt_node *unit, struct lc_err *err);
int mgmt_validate_iface_refs(const struct mgmt_conf *conf, struct lc_err *err);

/* policy-options (mgmt_policy.c): its node (NULL: none); whether it has an
 * entry called name in list (MGMT_S_POL_PL, _ASP, _COMM, _PS); the checks
 * of the block po: ranges, regexes, references between its parts. */
const struct mgmt_node *mgmt_policy_of(const struct mgmt_conf *conf);
bool mgmt_policy_defined(const struct mgmt_conf *conf, enum mgmt_sid list,
    const char *name);
int mgmt_validate_policy(const struct mgmt_conf *conf,
    const struct mgmt_node *po, struct lc_err *err);

void *mgmt_xmalloc(size_t);
void *mgmt_xrealloc(void *, size_t);

#endif /* MGMT_CONF_INT_H */
