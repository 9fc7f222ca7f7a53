/* rtrmgr/rtm_config.c: the strict boot-config parser: `key value;` statements
 * and component blocks over libcommon's lexer, errors as file:line:column. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cap-ng.h>

#include "libcommon/lc_arena.h"
#include "libcommon/lc_lex.h"
#include "libcommon/lc_log.h"
#include "rtm_int.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define RTM_CONFIG_MAX_BYTES (1024 * 1024)
#define RTM_VALUES_MAX	     (RTM_ARGS_MAX + 1)
#define RTM_TOKEN_MAX	     4096 /* with its NUL */

struct tok {
	enum lc_tok kind;
	char *text; /* words and strings, in the arena */
	unsigned line, col;
};

struct parser {
	struct lc_lex lx;
	struct rtm_config *cfg;
	/* where each global key was set, to refuse duplicates and to place
	   cross-key errors */
	unsigned seen_line[32], seen_col[32];
};

#define perr(ps, ...) lc_lex_error(&(ps)->lx, __VA_ARGS__)

/* The name of a token in "found X" (the boot config says "file"). */
static const char *
tok_desc(const struct tok *t)
{
	return (
	    t->kind == LC_TOK_EOF ? "end of file" : lc_lex_tok_name(t->kind));
}

/* The lexer's current token as t, its text copied to the arena. */
static int
tok_take(struct parser *ps, const struct lc_lex *lx, struct tok *t)
{
	t->kind = lx->tok;
	t->line = lx->line;
	t->col = lx->col;
	t->text = NULL;
	if (t->kind == LC_TOK_ERR)
		return (-EINVAL);
	if (t->kind == LC_TOK_WORD || t->kind == LC_TOK_STRING)
		if ((t->text = lc_arena_strdup(ps->cfg->arena, lx->text)) ==
		    NULL)
			return (-ENOMEM);
	return (0);
}

/* Reads the next token; 0 or -EINVAL (message set) or -ENOMEM. */
static int
next(struct parser *ps, struct tok *t)
{
	lc_lex_next(&ps->lx);
	return (tok_take(ps, &ps->lx, t));
}

/* ---- values
 * --------------------------------------------------------------------- */

static int
parse_uint(struct parser *ps, const struct tok *t, unsigned min, unsigned max,
    unsigned *out)
{
	const char *s = t->text;
	unsigned long v = 0;

	if (t->kind != LC_TOK_WORD || *s == '\0')
		goto bad;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			goto bad;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			goto range;
	}
	if (v < min)
		goto range;
	*out = (unsigned)v;
	return (0);
bad:
	return (perr(ps, t->line, t->col, "'%s' is not a number", t->text));
range:
	return (perr(ps, t->line, t->col, "%s out of range %u..%u", t->text,
	    min, max));
}

/* "250ms", "2s", "1m": a unit is required; result in ms within min..max. */
static int
parse_duration(struct parser *ps, const struct tok *t, uint32_t min_ms,
    uint32_t max_ms, uint32_t *out)
{
	const char *s = t->text;
	unsigned long long v = 0, mul;

	if (t->kind != LC_TOK_WORD || *s < '0' || *s > '9')
		goto bad;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > 0xffffffffULL)
			goto range;
		s++;
	}
	if (strcmp(s, "ms") == 0)
		mul = 1;
	else if (strcmp(s, "s") == 0)
		mul = 1000;
	else if (strcmp(s, "m") == 0)
		mul = 60000;
	else
		goto bad;
	v *= mul;
	if (v < min_ms || v > max_ms)
		goto range;
	*out = (uint32_t)v;
	return (0);
bad:
	return (perr(ps, t->line, t->col,
	    "'%s' is not a duration (a number with ms, s or m: 100ms, 30s)",
	    t->text));
range:
	return (perr(ps, t->line, t->col, "%s out of range %ums..%ums", t->text,
	    min_ms, max_ms));
}

static int
parse_choice(struct parser *ps, const struct tok *t, const char *const *names,
    int *out)
{
	char list[128] = "";

	for (int i = 0; names[i] != NULL; i++) {
		if (t->kind == LC_TOK_WORD && strcmp(t->text, names[i]) == 0) {
			*out = i;
			return (0);
		}
		if (i > 0)
			strncat(list,
			    i == 1 && names[2] == NULL ? " or " : ", ",
			    sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	return (perr(ps, t->line, t->col, "'%s': expected %s", t->text, list));
}

static bool
valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RTM_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
		return (false);
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
			*s == '-' || *s == '_'))
			return (false);
	return (true);
}

int
rtm_cap_parse(const char *name)
{
	char up[64];
	size_t i;

	/* Lower case only, with or without "cap_", as in capabilities(7). */
	for (i = 0; name[i] != '\0' && i + 1 < sizeof(up); i++) {
		if (name[i] >= 'A' && name[i] <= 'Z')
			return (-1);
		up[i] = name[i];
	}
	up[i] = '\0';
	if (strncmp(up, "cap_", 4) == 0)
		memmove(up, up + 4, strlen(up + 4) + 1);
	return (capng_name_to_capability(up));
}

const char *
rtm_cap_name(int cap)
{
	const char *s = capng_capability_to_name((unsigned)cap);

	return (s != NULL ? s : "unknown");
}

/* ---- statements
 * --------------------------------------------------------------------- */

/* One statement's values, up to ';' (or '{' for blocks): words, or one
 * [ list ] of them. */
struct stmt {
	struct tok key;
	struct tok v[RTM_VALUES_MAX];
	unsigned nv;
	bool list;	/* the values came as a [ list ] */
	struct tok end; /* the ';' or '{' */
};

struct list_ctx {
	struct parser *ps;
	struct stmt *st;
};

static int
list_add(void *arg, const struct lc_lex *lx)
{
	struct list_ctx *lc = arg;

	return (tok_take(lc->ps, lx, &lc->st->v[lc->st->nv++]));
}

static int
read_stmt(struct parser *ps, struct stmt *st)
{
	struct list_ctx lc = {ps, st};
	struct tok t;
	int rv;

	st->nv = 0;
	st->list = false;
	for (;;) {
		if ((rv = next(ps, &t)) != 0)
			return (rv);
		if (t.kind == LC_TOK_SEMI || t.kind == LC_TOK_LBRACE) {
			st->end = t;
			return (0);
		}
		if (st->list)
			return (perr(ps, t.line, t.col,
			    "expected ';' after the [ list ] of '%s', found %s",
			    st->key.text, tok_desc(&t)));
		if (t.kind == LC_TOK_LBRACK && st->nv > 0)
			return (perr(ps, t.line, t.col,
			    "a [ list ] must be the only value of '%s'",
			    st->key.text));
		if (t.kind == LC_TOK_LBRACK) {
			st->list = true;
			if ((rv = lc_lex_list(&ps->lx, RTM_VALUES_MAX - 1,
				 list_add, &lc)) < 0)
				return (rv);
			continue;
		}
		if (t.kind != LC_TOK_WORD && t.kind != LC_TOK_STRING)
			return (perr(ps, t.line, t.col,
			    "expected ';' after '%s', found %s", st->key.text,
			    tok_desc(&t)));
		if (st->nv == RTM_VALUES_MAX)
			return (perr(ps, t.line, t.col,
			    "too many values for '%s' (at most %d)",
			    st->key.text, RTM_VALUES_MAX - 1));
		st->v[st->nv++] = t;
	}
}

static int
want_values(struct parser *ps, const struct stmt *st, unsigned min,
    unsigned max)
{
	if (st->end.kind == LC_TOK_LBRACE)
		return (perr(ps, st->end.line, st->end.col,
		    "'%s' does not take a block", st->key.text));
	if (st->list && max == 1)
		return (perr(ps, st->key.line, st->key.col,
		    "'%s' takes one value, not a [ list ]", st->key.text));
	if (st->nv < min)
		return (perr(ps, st->end.line, st->end.col,
		    "'%s' needs a value", st->key.text));
	if (st->nv > max)
		return (perr(ps, st->v[max].line, st->v[max].col,
		    "'%s' takes %u value%s", st->key.text, max,
		    max == 1 ? "" : "s"));
	return (0);
}

static const char *const outputs[] = {"file", "inherit", NULL};
static const char *const health_kinds[] = {"none", "file", "ipc", NULL};
static const char *const privileges[] = {"user", "root", NULL};
static const char *const onoff[] = {"off", "on", NULL};
static const char *const log_levels[] = {"err", "warning", "notice", "info",
    "debug", NULL};

static int
comp_stmt(struct parser *ps, struct rtm_comp_cfg *c, const struct stmt *st,
    unsigned *seen)
{
	static const char *const keys[] = {"binary", "args", "privileges",
	    "capabilities", "health", "stop-grace", NULL};
	const char *k = st->key.text;
	int i, idx = -1, rv, choice;

	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(k, keys[i]) == 0)
			idx = i;
	if (idx < 0)
		return (perr(ps, st->key.line, st->key.col,
		    "unknown setting '%s' in component %s (expected binary, "
		    "args, privileges, capabilities, health or stop-grace)",
		    k, c->name));
	if (seen[idx] != 0)
		return (perr(ps, st->key.line, st->key.col,
		    "'%s' set twice in component %s (first at line %u)", k,
		    c->name, seen[idx]));
	seen[idx] = st->key.line;
	switch (idx) {
	case 0:
		if ((rv = want_values(ps, st, 1, 1)) != 0)
			return (rv);
		if (st->v[0].text[0] != '/')
			return (perr(ps, st->v[0].line, st->v[0].col,
			    "binary '%s' must be an absolute path",
			    st->v[0].text));
		c->binary = st->v[0].text;
		return (0);
	case 1:
		if ((rv = want_values(ps, st, 1, RTM_ARGS_MAX)) != 0)
			return (rv);
		for (unsigned j = 0; j < st->nv; j++)
			c->args[j] = st->v[j].text;
		c->nargs = st->nv;
		return (0);
	case 2:
		if ((rv = want_values(ps, st, 1, 1)) != 0 ||
		    (rv = parse_choice(ps, &st->v[0], privileges, &choice)) !=
			0)
			return (rv);
		c->priv_root = choice == 1;
		return (0);
	case 3:
		if ((rv = want_values(ps, st, 1, RTM_CAPS_MAX)) != 0)
			return (rv);
		for (unsigned j = 0; j < st->nv; j++) {
			int cap = rtm_cap_parse(st->v[j].text);

			if (cap < 0)
				return (perr(ps, st->v[j].line, st->v[j].col,
				    "unknown capability '%s' (lower case, as "
				    "net_admin)",
				    st->v[j].text));
			for (unsigned m = 0; m < j; m++)
				if (c->caps[m] == cap)
					return (perr(ps, st->v[j].line,
					    st->v[j].col,
					    "capability '%s' listed twice",
					    st->v[j].text));
			c->caps[j] = cap;
		}
		c->ncaps = st->nv;
		return (0);
	case 4:
		if ((rv = want_values(ps, st, 1, 1)) != 0 ||
		    (rv = parse_choice(ps, &st->v[0], onoff, &choice)) != 0)
			return (rv);
		c->health = choice == 1;
		return (0);
	default:
		if ((rv = want_values(ps, st, 1, 1)) != 0)
			return (rv);
		return (parse_duration(ps, &st->v[0], 1, 600000,
		    &c->stop_grace_ms));
	}
}

static int
component_block(struct parser *ps, const struct stmt *head)
{
	struct rtm_config *cfg = ps->cfg;
	struct rtm_comp_cfg *c;
	unsigned seen[8] = {0}, caps_line = 0, caps_col = 0;
	struct stmt st;
	int rv;

	if (head->list)
		return (perr(ps, head->key.line, head->key.col,
		    "'component' takes one name, not a [ list ]"));
	if (head->nv != 1)
		return (perr(ps, head->end.line, head->end.col,
		    "expected 'component NAME {'"));
	if (!valid_name(head->v[0].text))
		return (perr(ps, head->v[0].line, head->v[0].col,
		    "invalid component name '%s' (a-z, 0-9, '-', '_'; "
		    "starts with a letter; at most %d characters)",
		    head->v[0].text, RTM_NAME_MAX - 1));
	for (unsigned i = 0; i < cfg->ncomps; i++)
		if (strcmp(cfg->comps[i].name, head->v[0].text) == 0)
			return (perr(ps, head->v[0].line, head->v[0].col,
			    "component '%s' declared twice (first at line %u)",
			    head->v[0].text, cfg->comps[i].line));
	if (cfg->ncomps == RTM_COMP_MAX)
		return (perr(ps, head->key.line, head->key.col,
		    "too many components (at most %d)", RTM_COMP_MAX));
	c = &cfg->comps[cfg->ncomps];
	memset(c, 0, sizeof(*c));
	strcpy(c->name, head->v[0].text);
	c->health = true;
	c->line = head->key.line;

	for (;;) {
		if ((rv = next(ps, &st.key)) != 0)
			return (rv);
		if (st.key.kind == LC_TOK_RBRACE)
			break;
		if (st.key.kind == LC_TOK_EOF)
			return (perr(ps, st.key.line, st.key.col,
			    "missing '}' for component %s opened at line %u",
			    c->name, c->line));
		if (st.key.kind != LC_TOK_WORD)
			return (perr(ps, st.key.line, st.key.col,
			    "expected a setting name, found %s",
			    tok_desc(&st.key)));
		if ((rv = read_stmt(ps, &st)) != 0 ||
		    (rv = comp_stmt(ps, c, &st, seen)) != 0)
			return (rv);
		if (strcmp(st.key.text, "capabilities") == 0) {
			caps_line = st.key.line;
			caps_col = st.key.col;
		}
	}
	if (c->binary == NULL)
		return (perr(ps, st.key.line, st.key.col,
		    "component %s has no binary", c->name));
	if (c->ncaps > 0 && c->priv_root)
		return (perr(ps, caps_line, caps_col,
		    "component %s: capabilities need 'privileges user' (root "
		    "keeps all of them)",
		    c->name));
	cfg->ncomps++;
	return (0);
}

/* Global settings, in the order of ps->seen_*. */
static const char *const gkeys[] = {"rundir", "user", "log-level", "output",
    "backoff-initial", "backoff-max", "stable-time", "failure-limit",
    "failure-window", "health-check", "health-interval", "health-timeout",
    "health-failures", "start-timeout", "stop-grace", "operator-group",
    "admin-group", NULL};
enum {
	G_RUNDIR,
	G_USER,
	G_LOGLEVEL,
	G_OUTPUT,
	G_BINIT,
	G_BMAX,
	G_STABLE,
	G_FLIMIT,
	G_FWINDOW,
	G_HCHECK,
	G_HINTERVAL,
	G_HTIMEOUT,
	G_HFAILS,
	G_STARTTO,
	G_GRACE,
	G_OPGROUP,
	G_ADMGROUP
};

/* operator-group, admin-group: a group name, or none (owner-only sockets). */
static int
group_value(struct parser *ps, const struct tok *v, const char **out)
{
	size_t n = strlen(v->text);

	if (n == 0 || n > 32 || v->text[0] == '-' ||
	    strcspn(v->text, ":/,") != n)
		return (perr(ps, v->line, v->col, "invalid group name"));
	*out = strcmp(v->text, "none") == 0 ? NULL : v->text;
	return (0);
}

static int
global_stmt(struct parser *ps, const struct stmt *st)
{
	struct rtm_config *cfg = ps->cfg;
	const char *k = st->key.text;
	const struct tok *v = &st->v[0];
	int idx = -1, rv, choice;
	unsigned n;

	for (int i = 0; gkeys[i] != NULL; i++)
		if (strcmp(k, gkeys[i]) == 0)
			idx = i;
	if (idx < 0)
		return (perr(ps, st->key.line, st->key.col,
		    "unknown setting '%s'", k));
	if (ps->seen_line[idx] != 0)
		return (perr(ps, st->key.line, st->key.col,
		    "'%s' set twice (first at line %u)", k,
		    ps->seen_line[idx]));
	if ((rv = want_values(ps, st, 1, 1)) != 0)
		return (rv);
	ps->seen_line[idx] = st->key.line;
	ps->seen_col[idx] = st->key.col;
	switch (idx) {
	case G_RUNDIR:
		if (v->text[0] != '/')
			return (perr(ps, v->line, v->col,
			    "rundir '%s' must be an absolute path", v->text));
		cfg->rundir = v->text;
		return (0);
	case G_USER:
		if (v->text[0] == '\0' || strlen(v->text) > 32)
			return (perr(ps, v->line, v->col, "invalid user name"));
		cfg->user = v->text;
		return (0);
	case G_LOGLEVEL:
		if ((rv = parse_choice(ps, v, log_levels, &choice)) != 0)
			return (rv);
		cfg->log_level = log_levels[choice];
		return (0);
	case G_OUTPUT:
		if ((rv = parse_choice(ps, v, outputs, &choice)) != 0)
			return (rv);
		cfg->output = (enum rtm_output)choice;
		return (0);
	case G_BINIT:
		return (parse_duration(ps, v, 1, 3600000,
		    &cfg->backoff_initial_ms));
	case G_BMAX:
		return (
		    parse_duration(ps, v, 1, 3600000, &cfg->backoff_max_ms));
	case G_STABLE:
		return (parse_duration(ps, v, 1, 86400000, &cfg->stable_ms));
	case G_FLIMIT:
		if ((rv = parse_uint(ps, v, 1, RTM_FAILWIN_MAX, &n)) != 0)
			return (rv);
		cfg->failure_limit = n;
		return (0);
	case G_FWINDOW:
		return (parse_duration(ps, v, 1, 86400000,
		    &cfg->failure_window_ms));
	case G_HCHECK:
		if ((rv = parse_choice(ps, v, health_kinds, &choice)) != 0)
			return (rv);
		cfg->health_kind = (enum rtm_health_kind)choice;
		return (0);
	case G_HINTERVAL:
		return (parse_duration(ps, v, 10, 3600000,
		    &cfg->health_interval_ms));
	case G_HTIMEOUT:
		return (
		    parse_duration(ps, v, 1, 3600000, &cfg->health_timeout_ms));
	case G_HFAILS:
		if ((rv = parse_uint(ps, v, 1, 100, &n)) != 0)
			return (rv);
		cfg->health_failures = n;
		return (0);
	case G_STARTTO:
		return (
		    parse_duration(ps, v, 1, 3600000, &cfg->start_timeout_ms));
	case G_OPGROUP:
		return (group_value(ps, v, &cfg->operator_group));
	case G_ADMGROUP:
		return (group_value(ps, v, &cfg->admin_group));
	default: /* G_GRACE */
		return (parse_duration(ps, v, 1, 600000, &cfg->stop_grace_ms));
	}
}

static void
config_defaults(struct rtm_config *cfg)
{
	cfg->user = "tern";
	cfg->log_level = "info";
	cfg->output = RTM_OUT_FILE;
	cfg->backoff_initial_ms = 100;
	cfg->backoff_max_ms = 30000;
	cfg->stable_ms = 10000;
	cfg->failure_limit = 5;
	cfg->failure_window_ms = 60000;
	cfg->health_kind = RTM_HEALTH_NONE;
	cfg->health_interval_ms = 1000;
	cfg->health_timeout_ms = 500;
	cfg->health_failures = 3;
	cfg->start_timeout_ms = 30000;
	cfg->stop_grace_ms = 5000;
}

static int
parse_all(struct parser *ps)
{
	struct rtm_config *cfg = ps->cfg;
	struct stmt st;
	int rv;

	for (;;) {
		if ((rv = next(ps, &st.key)) != 0)
			return (rv);
		if (st.key.kind == LC_TOK_EOF)
			break;
		if (st.key.kind != LC_TOK_WORD)
			return (perr(ps, st.key.line, st.key.col,
			    "expected a setting or 'component', found %s",
			    tok_desc(&st.key)));
		if ((rv = read_stmt(ps, &st)) != 0)
			return (rv);
		if (strcmp(st.key.text, "component") == 0) {
			if (st.end.kind != LC_TOK_LBRACE)
				return (perr(ps, st.end.line, st.end.col,
				    "expected '{' after 'component NAME'"));
			if ((rv = component_block(ps, &st)) != 0)
				return (rv);
		} else if ((rv = global_stmt(ps, &st)) != 0) {
			return (rv);
		}
	}
	/* Checks across settings, placed at the later of the two. */
	if (cfg->ncomps == 0)
		return (
		    perr(ps, st.key.line, st.key.col, "no component declared"));
	if (cfg->backoff_initial_ms > cfg->backoff_max_ms) {
		unsigned i = ps->seen_line[G_BINIT] > ps->seen_line[G_BMAX] ?
		    G_BINIT :
		    G_BMAX;

		return (perr(ps, ps->seen_line[i], ps->seen_col[i],
		    "backoff-initial (%ums) is above backoff-max (%ums)",
		    cfg->backoff_initial_ms, cfg->backoff_max_ms));
	}
	if (cfg->health_timeout_ms > cfg->health_interval_ms) {
		unsigned i = ps->seen_line[G_HTIMEOUT] >
			ps->seen_line[G_HINTERVAL] ?
		    G_HTIMEOUT :
		    G_HINTERVAL;

		return (perr(ps, ps->seen_line[i], ps->seen_col[i],
		    "health-timeout (%ums) is above health-interval (%ums)",
		    cfg->health_timeout_ms, cfg->health_interval_ms));
	}
	return (0);
}

struct rtm_config *
rtm_config_parse(const char *name, const char *text, size_t len,
    struct lc_err *err)
{
	struct rtm_config *cfg;
	struct parser ps;
	int rv;

	lc_err_clear(err);
	if ((cfg = calloc(1, sizeof(*cfg))) == NULL ||
	    (cfg->arena = lc_arena_new(0)) == NULL) {
		free(cfg);
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "%s: out of memory",
		    name);
		errno = ENOMEM;
		return (NULL);
	}
	config_defaults(cfg);
	memset(ps.seen_line, 0, sizeof(ps.seen_line));
	memset(ps.seen_col, 0, sizeof(ps.seen_col));
	lc_lex_init(&ps.lx, name, text, len, RTM_TOKEN_MAX - 1, err);
	ps.cfg = cfg;
	rv = parse_all(&ps);
	if (rv == 0 && (cfg->path = lc_arena_strdup(cfg->arena, name)) == NULL)
		rv = -ENOMEM;
	if (rv != 0) {
		if (rv == -ENOMEM)
			lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX,
			    "%s: out of memory", name);
		rtm_config_free(cfg);
		errno = -rv;
		return (NULL);
	}
	return (cfg);
}

struct rtm_config *
rtm_config_load(const char *path, struct lc_err *err)
{
	struct rtm_config *cfg;
	struct stat sb;
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		e = errno;
		lc_err_set(err, -e, LC_ERR_NOINDEX, "%s: %s", path,
		    strerror(e));
		errno = e;
		return (NULL);
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > RTM_CONFIG_MAX_BYTES) {
		e = S_ISREG(sb.st_mode) ? EFBIG : EINVAL;
		lc_err_set(err, -e, LC_ERR_NOINDEX, "%s: %s", path,
		    e == EFBIG ? "larger than 1 MiB" : "not a regular file");
		close(fd);
		errno = e;
		return (NULL);
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL) {
		close(fd);
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "%s: out of memory",
		    path);
		errno = ENOMEM;
		return (NULL);
	}
	while (len < (size_t)sb.st_size &&
	    (n = read(fd, buf + len, (size_t)sb.st_size - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			lc_err_set(err, -e, LC_ERR_NOINDEX, "%s: %s", path,
			    strerror(e));
			free(buf);
			close(fd);
			errno = e;
			return (NULL);
		}
		len += (size_t)n;
	}
	close(fd);
	cfg = rtm_config_parse(path, buf, len, err);
	e = errno;
	free(buf);
	errno = e;
	return (cfg);
}

unsigned
rtm_config_ncomps(const struct rtm_config *cfg)
{
	return (cfg->ncomps);
}

void
rtm_config_free(struct rtm_config *cfg)
{
	if (cfg == NULL)
		return;
	lc_arena_free(cfg->arena);
	free(cfg);
}

/* ---- the system around the config
 * ----------------------------------------------------- */

int
rtm_config_user(const struct rtm_config *cfg, uid_t *uid, gid_t *gid,
    struct lc_err *err)
{
	struct passwd *pw;
	bool wanted = false;

	lc_err_clear(err);
	for (unsigned i = 0; i < cfg->ncomps; i++)
		wanted |= !cfg->comps[i].priv_root;
	if (geteuid() != 0 || !wanted)
		return (1);
	errno = 0;
	if ((pw = getpwnam(cfg->user)) == NULL)
		return (lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "user '%s' (for unprivileged components) does not "
		    "exist: create it (useradd --system --no-create-home "
		    "--shell /usr/sbin/nologin %s) or set `user` in %s",
		    cfg->user, cfg->user, cfg->path));
	if (pw->pw_uid == 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "user '%s' is root: pick an unprivileged user", cfg->user));
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return (0);
}

static bool
in_group(gid_t g)
{
	gid_t list[256];
	int n;

	if (g == getegid())
		return (true);
	if ((n = getgroups(256, list)) < 0)
		return (false);
	for (int i = 0; i < n; i++)
		if (list[i] == g)
			return (true);
	return (false);
}

int
rtm_config_group(const struct rtm_config *cfg, const char *key,
    const char *name, gid_t *out, struct lc_err *err)
{
	struct group *gr;

	lc_err_clear(err);
	*out = (gid_t)-1;
	if (name == NULL)
		return (0);
	if ((gr = getgrnam(name)) == NULL)
		return (lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "group '%s' (%s) does not exist: create it (groupadd "
		    "--system %s) or set `%s none;` in %s",
		    name, key, name, key, cfg->path));
	if (geteuid() != 0 && !in_group(gr->gr_gid))
		return (lc_err_set(err, -EPERM, LC_ERR_NOINDEX,
		    "%s %s: tern-rtrmgr runs as uid %d, not root, and "
		    "is not in that group: its components could not "
		    "give their sockets to it",
		    key, name, (int)geteuid()));
	*out = gr->gr_gid;
	return (0);
}

int
rtm_config_check(const struct rtm_config *cfg, const char *rundir,
    struct lc_err *err)
{
	struct stat sb;
	uid_t uid;
	gid_t gid;
	int rv;

	if (rundir == NULL)
		rundir = cfg->rundir != NULL ? cfg->rundir : TERN_RUN_DIR;
	if (strlen(rundir) >= RTM_RUNDIR_MAX || rundir[0] != '/')
		return (lc_err_set(err, -ENAMETOOLONG, LC_ERR_NOINDEX,
		    "%s: rundir '%s': must be an absolute path shorter than "
		    "%d bytes (socket paths must fit in sun_path)",
		    cfg->path, rundir, RTM_RUNDIR_MAX));
	if ((rv = rtm_config_user(cfg, &uid, &gid, err)) < 0 ||
	    (rv = rtm_config_group(cfg, "operator-group", cfg->operator_group,
		 &gid, err)) < 0 ||
	    (rv = rtm_config_group(cfg, "admin-group", cfg->admin_group, &gid,
		 err)) < 0)
		return (rv);
	for (unsigned i = 0; i < cfg->ncomps; i++) {
		const struct rtm_comp_cfg *c = &cfg->comps[i];
		int e = 0;

		if (stat(c->binary, &sb) != 0)
			e = errno;
		else if (!S_ISREG(sb.st_mode))
			e = EISDIR;
		else if (access(c->binary, X_OK) != 0)
			e = errno;
		if (e != 0)
			return (lc_err_set(err, -e, LC_ERR_NOINDEX,
			    "%s:%u: component %s: binary %s: %s", cfg->path,
			    c->line, c->name, c->binary,
			    e == EISDIR ? "not a regular file" : strerror(e)));
	}
	lc_err_clear(err);
	return (0);
}
