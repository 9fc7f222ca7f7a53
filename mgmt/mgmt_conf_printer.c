/* mgmt/mgmt_conf_printer.c: prints config trees in brace syntax and as set
 * commands; output parses back to the same tree. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_file.h"
#include "mgmt/mgmt_conf_int.h"

/* mgmt_conf_print_fd's buffer and where it goes (one at a time: mgmt
 * prints from one thread, the store child from its own process) */
static struct {
	struct lc_buf *b;
	int fd, err;
} spill = {NULL, -1, 0};

static void
spill_check(struct lc_buf *b)
{
	if (spill.b != b || lc_buf_avail(b) < MGMT_PRINT_SPILL)
		return;
	if (spill.err == 0)
		spill.err = lc_write_all(spill.fd, lc_buf_head(b),
		    lc_buf_avail(b));
	lc_buf_reset(b);
}

void
mgmt_buf_puts(struct lc_buf *b, const char *s)
{
	if (lc_buf_append(b, s, strlen(s)) != 0)
		lc_oom("a config text");
}

void
mgmt_buf_printf(struct lc_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		char *big = mgmt_xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		mgmt_buf_puts(b, big);
		free(big);
		return;
	}
	if (lc_buf_append(b, tmp, (size_t)n) != 0)
		lc_oom("a config text");
}

static bool
needs_quote(const char *s)
{
	if (*s == '\0' || (s[0] == '/' && s[1] == '*') || s[0] == '#')
		return (true);
	for (; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '{' || *s == '}' ||
		    *s == ';' || *s == '"' || *s == '\\' || *s == '[' ||
		    *s == ']' || (unsigned char)*s < 0x20 ||
		    (s[0] == '/' && s[1] == '*'))
			return (true);
	return (false);
}

void
mgmt_buf_word(struct lc_buf *b, const char *s)
{
	if (!needs_quote(s)) {
		mgmt_buf_puts(b, s);
		return;
	}
	mgmt_buf_puts(b, "\"");
	for (; *s; s++) {
		char c[3] = {'\\', *s, 0};

		mgmt_buf_puts(b, (*s == '"' || *s == '\\') ? c : c + 1);
	}
	mgmt_buf_puts(b, "\"");
}

static void
line_start(struct lc_buf *b, int indent, const char *prefix)
{
	static const char sp[] = "                                        ";

	mgmt_buf_puts(b, prefix);
	for (int i = 0; i < indent; i++)
		lc_buf_append(b, sp, 4);
}

/* "name value" / "name" / "value" of a leaf-ish node, no terminator. */
static void
stmt_head(struct lc_buf *b, const struct mgmt_node *n)
{
	const struct mgmt_schema_node *s = &mgmt_schema[n->sid];

	if (s->name != NULL)
		mgmt_buf_puts(b, s->name);
	if (s->kind == MGMT_SK_FLAG || s->kind == MGMT_SK_CONTAINER)
		return;
	if (s->name != NULL)
		mgmt_buf_puts(b, " ");
	mgmt_buf_word(b, n->value);
}

void
mgmt_print_node(struct lc_buf *b, const struct mgmt_node *n, int indent,
    const char *prefix)
{
	enum mgmt_skind kind = mgmt_schema[n->sid].kind;
	struct mgmt_iter it;
	const struct mgmt_node *c;

	line_start(b, indent, prefix);
	stmt_head(b, n);
	if (kind != MGMT_SK_CONTAINER && kind != MGMT_SK_LIST) {
		mgmt_buf_puts(b, ";\n");
		return;
	}
	if (kind == MGMT_SK_LIST) {
		c = n->kids;
		if (c == NULL) {
			mgmt_buf_puts(b, ";\n");
			return;
		}
		/* one leaf inside: Junos' one-line form, which keeps a config
		 * of 1M routes at one line each */
		if (c->left == NULL && c->right == NULL &&
		    mgmt_schema[c->sid].kind != MGMT_SK_CONTAINER &&
		    mgmt_schema[c->sid].kind != MGMT_SK_LIST) {
			mgmt_buf_puts(b, " ");
			stmt_head(b, c);
			mgmt_buf_puts(b, ";\n");
			return;
		}
	}
	mgmt_buf_puts(b, " {\n");
	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		mgmt_print_node(b, c, indent + 1, prefix);
		spill_check(b);
	}
	line_start(b, indent, prefix);
	mgmt_buf_puts(b, "}\n");
}

int
mgmt_conf_print(const struct mgmt_conf *conf, struct lc_buf *out)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_iter_init(&it, conf->root);
	while ((c = mgmt_iter_next(&it)) != NULL)
		mgmt_print_node(out, c, 0, "");
	return (0);
}

int
mgmt_conf_print_fd(const struct mgmt_conf *conf, int fd, const void *head,
    size_t headlen)
{
	struct lc_buf b = {0};
	int rv;

	lc_buf_init(&b);
	if (lc_buf_reserve(&b, MGMT_PRINT_SPILL + 4096) != 0)
		lc_oom("a config text");
	if (headlen > 0 && lc_buf_append(&b, head, headlen) != 0)
		lc_oom("a config text");
	spill.b = &b;
	spill.fd = fd;
	spill.err = 0;
	(void)mgmt_conf_print(conf, &b);
	rv = spill.err;
	if (rv == 0 && lc_buf_avail(&b) > 0)
		rv = lc_write_all(fd, lc_buf_head(&b), lc_buf_avail(&b));
	spill.b = NULL;
	spill.fd = -1;
	lc_buf_fini(&b);
	return (rv);
}

static void
print_set(struct lc_buf *b, const struct mgmt_node *n, char *path, size_t plen)
{
	enum mgmt_skind kind = mgmt_schema[n->sid].kind;
	struct lc_buf w = {0};
	struct mgmt_iter it;
	const struct mgmt_node *c;
	size_t l = strlen(path);

	stmt_head(&w, n);
	lc_buf_append(&w, "", 1);
	snprintf(path + l, plen - l, "%s%s", l ? " " : "", (char *)w.data);
	lc_buf_fini(&w);
	if ((kind != MGMT_SK_CONTAINER && kind != MGMT_SK_LIST) ||
	    n->kids == NULL) {
		if (kind != MGMT_SK_CONTAINER)
			mgmt_buf_printf(b, "set %s\n", path);
	} else {
		mgmt_iter_init(&it, n);
		while ((c = mgmt_iter_next(&it)) != NULL)
			print_set(b, c, path, plen);
	}
	path[l] = '\0';
}

int
mgmt_conf_print_set(const struct mgmt_conf *conf, struct lc_buf *out)
{
	char path[1024] = "";
	struct mgmt_iter it;
	const struct mgmt_node *c;

	mgmt_iter_init(&it, conf->root);
	while ((c = mgmt_iter_next(&it)) != NULL)
		print_set(out, c, path, sizeof(path));
	return (0);
}

/* ---- JSON
 * ------------------------------------------------------------------------ */

static void
json_str(struct lc_buf *b, const char *s)
{
	mgmt_buf_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			mgmt_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			mgmt_buf_printf(b, "\\u%04x", c);
		else
			lc_buf_append(b, s, 1);
	}
	mgmt_buf_puts(b, "\"");
}

static void
json_value(struct lc_buf *b, const struct mgmt_node *n)
{
	if (mgmt_schema[n->sid].type == MGMT_T_UINT)
		mgmt_buf_puts(b, n->value);
	else
		json_str(b, n->value);
}

/* The members of n's object: children grouped by schema id. */
static void
json_members(struct lc_buf *b, const struct mgmt_node *n)
{
	struct mgmt_iter it;
	const struct mgmt_node *c;
	int last = -1;
	bool first = true;

	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		const struct mgmt_schema_node *s = &mgmt_schema[c->sid];
		bool group = s->kind == MGMT_SK_LIST ||
		    s->kind == MGMT_SK_LEAFLIST;

		if (c->sid != last) {
			/* close the previous group */
			if (last >= 0 && mgmt_schema_keyed((unsigned)last) &&
			    mgmt_schema[last].name != NULL)
				mgmt_buf_puts(b,
				    mgmt_schema[last].kind == MGMT_SK_LIST ?
					"}" :
					"]");
			if (!first)
				mgmt_buf_puts(b, ",");
			first = false;
			/* an anonymous list's entries are the members */
			if (s->name != NULL) {
				json_str(b, s->name);
				mgmt_buf_puts(b, ":");
				if (group)
					mgmt_buf_puts(b,
					    s->kind == MGMT_SK_LIST ? "{" :
								      "[");
			}
			last = c->sid;
		} else if (group)
			mgmt_buf_puts(b, ",");
		switch (s->kind) {
		case MGMT_SK_CONTAINER:
			mgmt_buf_puts(b, "{");
			json_members(b, c);
			mgmt_buf_puts(b, "}");
			break;
		case MGMT_SK_LIST:
			json_str(b, c->value);
			/* an entry that is only its anonymous leaf (as-path
			 * NAME REGEX): "NAME":"REGEX" */
			if (c->kids != NULL && c->kids->left == NULL &&
			    c->kids->right == NULL &&
			    mgmt_schema[c->kids->sid].name == NULL &&
			    mgmt_schema[c->kids->sid].kind == MGMT_SK_LEAF) {
				mgmt_buf_puts(b, ":");
				json_value(b, c->kids);
				break;
			}
			mgmt_buf_puts(b, ":{");
			json_members(b, c);
			mgmt_buf_puts(b, "}");
			break;
		case MGMT_SK_LEAF:
		case MGMT_SK_LEAFLIST:
			json_value(b, c);
			break;
		case MGMT_SK_FLAG:
			mgmt_buf_puts(b, "true");
			break;
		}
	}
	if (last >= 0 && mgmt_schema_keyed((unsigned)last) &&
	    mgmt_schema[last].name != NULL)
		mgmt_buf_puts(b,
		    mgmt_schema[last].kind == MGMT_SK_LIST ? "}" : "]");
}

int
mgmt_conf_print_json(const struct mgmt_conf *conf, struct lc_buf *out)
{
	mgmt_buf_puts(out, "{");
	json_members(out, conf->root);
	mgmt_buf_puts(out, "}");
	return (0);
}
