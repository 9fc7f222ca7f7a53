/* mgmt/mgmt_cmd.c: tern-mgmt's command interpreter: operational and configuration commands, and their completion. */
#include "mgmt_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"

#define CMD_MAXWORDS 64

enum { OPER = 0x1, CONF = 0x2, BOTH = OPER | CONF };

struct cmd_ctx {
	struct mgmt *m;
	struct mgmt_session *s;
	const char *const *w; /* words after the command's own */
	unsigned nw;
	bool json;
	struct lc_buf *out;
	struct lc_err *err;
	mgmt_reply_fn *later;
	void *later_arg;
	struct mgmt_cmd_io *io; /* save and load's text, or NULL */
};

typedef int cmd_fn(struct cmd_ctx *);

struct cmd {
	const char *words[3]; /* the command, e.g. {"show", "configuration"} */
	unsigned modes;
	bool writes; /* changes configuration: not read-only */
	cmd_fn *fn;
	const char *help;
	const char *args; /* what follows, for "?" and errors */
};

static int fail(struct cmd_ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct cmd_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	c->err->code = -EINVAL;
	c->err->index = LC_ERR_NOINDEX;
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	return (code);
}

static int
no_args(struct cmd_ctx *c, const char *cmd)
{
	if (c->nw == 0)
		return (MGMT_OK);
	return (fail(c, MGMT_E_SYNTAX, "%s: unexpected '%s'", cmd, c->w[0]));
}

/* Text, or for JSON a {"output": text} object so every show has JSON. */
static void
emit_text(struct cmd_ctx *c, const char *text, size_t len)
{
	if (!c->json) {
		lc_buf_append(c->out, text, len);
		return;
	}
	lc_buf_printf(c->out, "{\"output\":\"");
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch == '"' || ch == '\\')
			lc_buf_printf(c->out, "\\%c", ch);
		else if (ch == '\n')
			lc_buf_printf(c->out, "\\n");
		else if (ch == '\t')
			lc_buf_printf(c->out, "\\t");
		else if (ch < 0x20)
			lc_buf_printf(c->out, "\\u%04x", ch);
		else
			lc_buf_append(c->out, &text[i], 1);
	}
	lc_buf_printf(c->out, "\"}");
}

static void
emit_buf(struct cmd_ctx *c, struct lc_buf *b)
{
	emit_text(c, (const char *)lc_buf_head(b), lc_buf_avail(b));
}

static int parse_uint(const char *s, unsigned max, unsigned *out);

/* w[0..nw): what follows "| compare": "rollback N" */
static int
compare_rollback_arg(struct cmd_ctx *c, const char *const *w, unsigned nw,
    bool *compare, int *rollback)
{
	unsigned n;

	if (nw != 2 || strcmp(w[0], "rollback") != 0 ||
	    parse_uint(w[1], MGMT_STORE_KEEP - 1, &n) != 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "show | compare: expected nothing or 'rollback N' (N "
		    "0..%d) after compare, got '%s'",
		    MGMT_STORE_KEEP - 1, w[0]));
	*compare = true;
	*rollback = (int)n;
	return (MGMT_OK);
}

/* "show ... | compare [rollback N]" and "show ... | display set" arrive as
 * words; *rollback is N, or -1 for a compare against running. */
static int
show_modifier(struct cmd_ctx *c, unsigned *nw, bool *compare, bool *setform,
    int *rollback)
{
	*compare = *setform = false;
	*rollback = -1;
	*nw = c->nw;
	for (unsigned i = 0; i < c->nw; i++) {
		if (strcmp(c->w[i], "|") != 0)
			continue;
		*nw = i;
		if (i + 2 == c->nw && strcmp(c->w[i + 1], "compare") == 0)
			*compare = true;
		else if (i + 2 < c->nw && strcmp(c->w[i + 1], "compare") == 0)
			return (compare_rollback_arg(c, &c->w[i + 2],
			    c->nw - i - 2, compare, rollback));
		else if (i + 3 == c->nw &&
		    strcmp(c->w[i + 1], "display") == 0 &&
		    strcmp(c->w[i + 2], "set") == 0)
			*setform = true;
		else
			return (fail(c, MGMT_E_SYNTAX,
			    "after '|': expected "
			    "'compare [rollback N]' or 'display set'"));
		return (MGMT_OK);
	}
	return (MGMT_OK);
}

/* rollback N of the history into *out (0 with no history: running) */
static int
load_rollback(struct cmd_ctx *c, unsigned n, struct mgmt_conf **out)
{
	struct lc_err err;

	if (mgmt_store_rollback(c->m->store_dir, n, out, &err) == 0)
		return (MGMT_OK);
	if (n == 0 && mgmt_store_count(c->m->store_dir) == 0) {
		*out = mgmt_conf_dup(c->m->running);
		return (MGMT_OK);
	}
	return (fail(c, MGMT_E_NOT_FOUND, "%s", err.msg));
}

static int
show_conf(struct cmd_ctx *c, const struct mgmt_conf *conf)
{
	struct lc_err err;
	struct lc_buf b;
	bool compare, setform;
	unsigned nw;
	int rv, rb;

	if ((rv = show_modifier(c, &nw, &compare, &setform, &rb)) != MGMT_OK)
		return (rv);
	lc_buf_init(&b);
	if (compare) {
		struct mgmt_conf *base = NULL;

		if (nw > 0) {
			lc_buf_fini(&b);
			return (fail(c, MGMT_E_SYNTAX,
			    "show | compare: compares "
			    "the whole configuration; no path before '|'"));
		}
		if (rb >= 0 &&
		    (rv = load_rollback(c, (unsigned)rb, &base)) != MGMT_OK) {
			lc_buf_fini(&b);
			return (rv);
		}
		mgmt_conf_compare(base != NULL ? base : c->m->running, conf,
		    &b);
		if (base != NULL)
			mgmt_conf_free(base);
	} else if (setform) {
		if (nw > 0) {
			lc_buf_fini(&b);
			return (fail(c, MGMT_E_SYNTAX,
			    "show | display set: no "
			    "path before '|'"));
		}
		mgmt_conf_print_set(conf, &b);
	} else if (c->json && nw == 0) {
		/* the whole tree as a JSON object */
		mgmt_conf_print_json(conf, &b);
		lc_buf_append(c->out, lc_buf_head(&b), lc_buf_avail(&b));
		lc_buf_fini(&b);
		return (MGMT_OK);
	} else if ((rv = mgmt_conf_show(conf, c->w, nw, &b, &err)) != 0) {
		lc_buf_fini(&b);
		return (
		    fail(c, rv == -ENOENT ? MGMT_E_NOT_FOUND : MGMT_E_INVALID,
			"%s", err.msg));
	}
	emit_buf(c, &b);
	lc_buf_fini(&b);
	return (MGMT_OK);
}

/* ---- operational commands ------------------------------------------------------ */

static int
c_show_configuration(struct cmd_ctx *c)
{
	return (show_conf(c, c->m->running));
}

static int
c_show_version(struct cmd_ctx *c)
{
	char text[128];
	int rv;

	if ((rv = no_args(c, "show version")) != MGMT_OK)
		return (rv);
	snprintf(text, sizeof(text), "tern %s\n", TERN_VERSION);
	emit_text(c, text, strlen(text));
	return (MGMT_OK);
}

/* "2026-12-03 15:04:05 UTC" */
static void
commit_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "unknown time");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* One commit as Junos lists it: rollback number, when, who, via what,
 * then the comment on a line of its own. */
static void
commit_text(struct lc_buf *b, unsigned n, const struct mgmt_commit_meta *mm)
{
	char when[64];

	if (!mm->known) {
		lc_buf_printf(b,
		    "%-3u unknown time by unknown (stored before tern kept "
		    "commit history)\n",
		    n);
		return;
	}
	commit_time(mm->time, when, sizeof(when));
	lc_buf_printf(b, "%-3u %s by %s via %s", n, when, mm->user,
	    mm->via[0] ? mm->via : "unknown");
	if (mm->from[0] != '\0')
		lc_buf_printf(b, " (%s)", mm->from);
	if (mm->confirm > 0)
		lc_buf_printf(b, ", commit confirmed %u min", mm->confirm);
	if (mm->added >= 0)
		lc_buf_printf(b, ", +%ld -%ld lines", mm->added, mm->removed);
	lc_buf_printf(b, "\n");
	if (mm->comment[0] != '\0')
		lc_buf_printf(b, "    %s\n", mm->comment);
}

static struct json_object *
commit_json(unsigned n, const struct mgmt_commit_meta *mm)
{
	struct json_object *o = json_object_new_object();
	char when[64];

	json_object_object_add(o, "rollback", json_object_new_int(n));
	json_object_object_add(o, "seq", json_object_new_int64(mm->seq));
	json_object_object_add(o, "known", json_object_new_boolean(mm->known));
	json_object_object_add(o, "user", json_object_new_string(mm->user));
	if (!mm->known)
		return (o);
	commit_time(mm->time, when, sizeof(when));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "epoch", json_object_new_int64(mm->time));
	json_object_object_add(o, "uid", json_object_new_int64(mm->uid));
	json_object_object_add(o, "pid", json_object_new_int64(mm->pid));
	json_object_object_add(o, "via", json_object_new_string(mm->via));
	json_object_object_add(o, "from", json_object_new_string(mm->from));
	json_object_object_add(o, "comment",
	    json_object_new_string(mm->comment));
	json_object_object_add(o, "confirm_minutes",
	    json_object_new_int64(mm->confirm));
	json_object_object_add(o, "lines_added",
	    json_object_new_int64(mm->added));
	json_object_object_add(o, "lines_removed",
	    json_object_new_int64(mm->removed));
	return (o);
}

/* show system commit: the history, newest (rollback 0) first */
static int
c_show_commits(struct cmd_ctx *c)
{
	struct json_object *jo = NULL, *ja = NULL;
	struct mgmt_commit_meta mm;
	struct lc_buf b;
	int n, rv;

	if ((rv = no_args(c, "show system commit")) != MGMT_OK)
		return (rv);
	n = mgmt_store_count(c->m->store_dir);
	if (n < 0)
		n = 0;
	lc_buf_init(&b);
	if (c->json) {
		jo = json_object_new_object();
		ja = json_object_new_array();
	}
	for (int i = 0; i < n; i++) {
		if (mgmt_store_meta(c->m->store_dir, (unsigned)i, &mm) != 0)
			continue; /* gone meanwhile (trimmed by a commit) */
		if (jo != NULL)
			json_object_array_add(ja,
			    commit_json((unsigned)i, &mm));
		else
			commit_text(&b, (unsigned)i, &mm);
	}
	if (jo != NULL) {
		json_object_object_add(jo, "commits", ja);
		json_object_object_add(jo, "count", json_object_new_int(n));
		json_object_object_add(jo, "confirm_pending",
		    json_object_new_boolean(c->m->confirm_pending));
		if (c->m->confirm_pending)
			json_object_object_add(jo, "confirm_deadline",
			    json_object_new_int64(
				c->m->confirm_deadline_ms / 1000));
		lc_buf_printf(c->out, "%s",
		    json_object_to_json_string_ext(jo,
			JSON_C_TO_STRING_PLAIN |
			    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(jo);
		lc_buf_fini(&b);
		return (MGMT_OK);
	}
	lc_buf_printf(&b, "%d commit%s kept (rollback 0..%d)", n,
	    n == 1 ? "" : "s", n > 0 ? n - 1 : 0);
	if (c->m->confirm_pending) {
		char when[64];

		commit_time(c->m->confirm_deadline_ms / 1000, when,
		    sizeof(when));
		lc_buf_printf(&b,
		    "; a commit confirmed is pending: rolled back at %s "
		    "unless confirmed",
		    when);
	}
	lc_buf_printf(&b, "\n");
	emit_buf(c, &b);
	lc_buf_fini(&b);
	return (MGMT_OK);
}

/* compare rollback N [rollback M]: what changed from commit N to commit M
 * (M 0, the newest, when not given): '-' lines are N's, '+' lines M's */
static int
c_compare_rollback(struct cmd_ctx *c)
{
	struct mgmt_conf *a = NULL, *b = NULL;
	unsigned n, m = 0;
	struct lc_buf out;
	int rv;

	if ((c->nw != 1 && c->nw != 3) ||
	    parse_uint(c->w[0], MGMT_STORE_KEEP - 1, &n) != 0 ||
	    (c->nw == 3 &&
		(strcmp(c->w[1], "rollback") != 0 ||
		    parse_uint(c->w[2], MGMT_STORE_KEEP - 1, &m) != 0)))
		return (fail(c, MGMT_E_SYNTAX,
		    "compare rollback: expected N [rollback M], each 0..%d",
		    MGMT_STORE_KEEP - 1));
	if ((rv = load_rollback(c, n, &a)) != MGMT_OK)
		return (rv);
	if ((rv = load_rollback(c, m, &b)) != MGMT_OK) {
		mgmt_conf_free(a);
		return (rv);
	}
	lc_buf_init(&out);
	mgmt_conf_compare(a, b, &out);
	emit_buf(c, &out);
	lc_buf_fini(&out);
	mgmt_conf_free(a);
	mgmt_conf_free(b);
	return (MGMT_OK);
}

static int
c_configure(struct cmd_ctx *c)
{
	struct mgmt_session *l = c->m->lock;
	int rv;

	if ((rv = no_args(c, "configure")) != MGMT_OK)
		return (rv);
	if (c->s->read_only)
		return (fail(c, MGMT_E_DENIED,
		    "configure: this session is "
		    "read-only (no access to the admin socket)"));
	/* a candidate kept for a shell that has gone meanwhile frees the
	 * lock now, not at the next check */
	if (l != NULL && l->orphan && !mgmt_persist_orphan_alive(c->m, l))
		l = NULL;
	if (l != NULL && l != c->s && l->orphan) {
		char why[256];

		mgmt_persist_orphan_why(l, why, sizeof(why));
		return (fail(c, MGMT_E_LOCKED,
		    "configure: the configuration is being edited by %s "
		    "(session %llu): %s",
		    l->user, (unsigned long long)l->id, why));
	}
	if (l != NULL && l != c->s)
		return (fail(c, MGMT_E_LOCKED,
		    "configure: the configuration is "
		    "being edited by %s (session %llu); try again when they exit",
		    l->user, (unsigned long long)l->id));
	c->m->lock = c->s;
	c->s->configure = true;
	if (c->s->candidate == NULL) {
		c->s->candidate = mgmt_conf_dup(c->m->running);
		mgmt_persist_rebase(c->m, c->s, c->m->running_seq);
	}
	lc_buf_printf(c->out, "Entering configuration mode\n");
	return (MGMT_OK);
}

/* Commands another component answers (mgmt_show.c). */
#define REMOTE(fn, impl)                                                       \
	static int fn(struct cmd_ctx *c)                                       \
	{                                                                      \
		struct mgmt_op op = {c->m, c->s->id, c->json, c->later,        \
		    c->later_arg};                                             \
                                                                               \
		if (c->later == NULL)                                          \
			return (fail(c, MGMT_E_INTERNAL, "no way to answer")); \
		return (impl(&op, c->w, c->nw, c->err));                       \
	}
REMOTE(c_show_route, mgmt_show_route)
REMOTE(c_show_interfaces, mgmt_show_interfaces)
REMOTE(c_show_fib, mgmt_show_fib)
REMOTE(c_show_neighbors, mgmt_show_neighbors)
REMOTE(c_show_processes, mgmt_show_processes)
static int
control(struct cmd_ctx *c, const char *verb)
{
	struct mgmt_op op = {c->m, c->s->id, c->json, c->later, c->later_arg};

	if (c->later == NULL)
		return (fail(c, MGMT_E_INTERNAL, "no way to answer"));
	return (mgmt_control(&op, verb, c->w, c->nw, c->err));
}
static int
c_restart(struct cmd_ctx *c)
{
	return (control(c, "restart"));
}
static int
c_stop(struct cmd_ctx *c)
{
	return (control(c, "stop"));
}
static int
c_start(struct cmd_ctx *c)
{
	return (control(c, "start"));
}
REMOTE(c_show_ipc, mgmt_show_ipc)
REMOTE(c_show_bgp_summary, mgmt_show_bgp_summary)
REMOTE(c_show_bgp_neighbor, mgmt_show_bgp_neighbor)
REMOTE(c_show_bgp_route, mgmt_show_bgp_route)
REMOTE(c_clear_bgp_neighbor, mgmt_clear_bgp_neighbor)

/* ping, traceroute, logs, show system, clear interfaces statistics
 * (mgmt_ops.c) */
#define OPS(fn, impl)                                                   \
	static int fn(struct cmd_ctx *c)                                \
	{                                                               \
		struct mgmt_op op = {c->m, c->s->id, c->json, c->later, \
		    c->later_arg};                                      \
                                                                        \
		return (impl(&op, c->w, c->nw, c->out, c->err));        \
	}
OPS(c_ping, mgmt_ops_ping)
OPS(c_traceroute, mgmt_ops_traceroute)
OPS(c_monitor_log, mgmt_ops_monitor_log)
OPS(c_show_log, mgmt_ops_show_log)
OPS(c_show_system, mgmt_ops_show_system)
OPS(c_clear_ifstats, mgmt_ops_clear_ifstats)

/* ---- configuration commands ------------------------------------------------------ */

static int
c_set(struct cmd_ctx *c)
{
	struct lc_err err;

	if (c->nw == 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "set: expected a path and a value "
		    "(try 'set ?')"));
	if (mgmt_conf_set(c->s->candidate, c->w, c->nw, &err) != 0)
		return (fail(c, MGMT_E_INVALID, "%s", err.msg));
	mgmt_persist_edit(c->m, c->s, "set", c->w, c->nw);
	return (MGMT_OK);
}

static int
c_delete(struct cmd_ctx *c)
{
	struct lc_err err;
	int rv;

	if (c->nw == 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "delete: expected a path (to "
		    "delete everything, use 'load replace' with an empty file)"));
	if ((rv = mgmt_conf_delete(c->s->candidate, c->w, c->nw, &err)) != 0)
		return (
		    fail(c, rv == -ENOENT ? MGMT_E_NOT_FOUND : MGMT_E_INVALID,
			"%s", err.msg));
	mgmt_persist_edit(c->m, c->s, "delete", c->w, c->nw);
	return (MGMT_OK);
}

static int
c_show_candidate(struct cmd_ctx *c)
{
	return (show_conf(c, c->s->candidate));
}

static int
parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (s[0] < '0' || s[0] > '9')
		return (-EINVAL);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return (-EINVAL);
	*out = (unsigned)v;
	return (0);
}

/* A commit waiting for the components. */
struct commit_wait {
	struct mgmt *m;
	uint64_t sid;
	bool check;
	unsigned minutes;
	struct mgmt_conf *prev; /* commit confirmed: what to go back to */
	mgmt_reply_fn *later;
	void *arg;
};

static void
commit_done(void *arg, int rv, const struct lc_err *err)
{
	struct commit_wait *w = arg;
	char text[768] = "";

	if (!w->check) {
		if (rv == 0)
			w->m->st_commits++;
		else
			w->m->st_commits_failed++;
	}
	if (rv == 0 && !w->check) {
		struct mgmt_session *s = mgmt_session_find(w->m, w->sid);

		/* the candidate is running now: its journal starts over from
		 * there (unless it was changed while the commit ran) */
		if (s != NULL && s->candidate != NULL &&
		    mgmt_conf_equal(s->candidate, w->m->running))
			mgmt_persist_rebase(w->m, s, w->m->running_seq);
	}
	if (rv == 0) {
		if (w->check) {
			snprintf(text, sizeof(text),
			    "configuration check succeeds\n");
		} else if (w->minutes > 0) {
			snprintf(text, sizeof(text),
			    "commit confirmed will be "
			    "automatically rolled back in %u minute%s unless "
			    "confirmed\ncommit complete\n",
			    w->minutes, w->minutes == 1 ? "" : "s");
			mgmt_commit_confirm_arm(w->m, w->prev, w->minutes);
			w->prev = NULL;
		} else {
			snprintf(text, sizeof(text), "commit complete\n");
		}
		if (err != NULL && err->msg[0] != '\0')
			snprintf(text + strlen(text),
			    sizeof(text) - strlen(text), "%s\n", err->msg);
	}
	if (w->prev != NULL)
		mgmt_conf_free(w->prev);
	{
		struct lc_err none = {0};

		w->later(w->arg, w->m, mgmt_session_find(w->m, w->sid),
		    rv == 0 ? MGMT_OK : MGMT_E_COMMIT_FAILED, text,
		    rv == 0 ? &none : err);
	}
	free(w);
}

/*
 * The commit's record: who from the session's credentials, via and from
 * what (the client's name and terminal), the comment. The time and the
 * change summary are added when it is stored.
 */
static void
commit_meta(const struct cmd_ctx *c, const char *comment, unsigned minutes,
    struct mgmt_commit_meta *mm)
{
	const struct mgmt_session *s = c->s;

	mgmt_commit_meta_init(mm);
	snprintf(mm->user, sizeof(mm->user), "%s", s->user);
	mm->uid = s->uid;
	mm->pid = s->pid;
	snprintf(mm->via, sizeof(mm->via), "%s",
	    s->via[0] != '\0' ? s->via : "unknown");
	snprintf(mm->from, sizeof(mm->from), "%s", s->tty);
	snprintf(mm->comment, sizeof(mm->comment), "%s", comment);
	mm->confirm = minutes;
}

/* "comment TEXT" at w[0..nw): one line of printable text */
static int
commit_comment(struct cmd_ctx *c, const char *const *w, unsigned nw,
    const char **comment)
{
	if (nw == 1 && strcmp(w[0], "comment") == 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "commit comment: expected the text (in quotes when it has "
		    "blanks)"));
	if (nw != 2 || strcmp(w[0], "comment") != 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "commit: unexpected '%s' (expected check, confirmed "
		    "[MINUTES], comment \"TEXT\")",
		    w[0]));
	if (strlen(w[1]) > MGMT_COMMENT_MAX)
		return (fail(c, MGMT_E_INVALID,
		    "commit comment: %zu bytes, at most %d", strlen(w[1]),
		    MGMT_COMMENT_MAX));
	for (const char *p = w[1]; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return (fail(c, MGMT_E_INVALID,
			    "commit comment: control characters are not "
			    "allowed (byte %zu)",
			    (size_t)(p - w[1]) + 1));
	*comment = w[1];
	return (MGMT_OK);
}

static int
c_commit(struct cmd_ctx *c)
{
	struct mgmt_commit_meta mm;
	struct commit_wait *w;
	const char *comment = "";
	bool check = false;
	unsigned minutes = 0, i = 0;
	int rv;

	if (c->nw == 1 && strcmp(c->w[0], "check") == 0) {
		check = true;
		i = 1;
	} else if (c->nw >= 1 && strcmp(c->w[0], "confirmed") == 0) {
		minutes = 10;
		i = 1;
		if (c->nw > 1 && strcmp(c->w[1], "comment") != 0) {
			if (parse_uint(c->w[1], 65535, &minutes) != 0 ||
			    minutes == 0)
				return (fail(c, MGMT_E_SYNTAX,
				    "commit confirmed: "
				    "expected minutes 1..65535, got '%s'",
				    c->w[1]));
			i = 2;
		}
	}
	if (i < c->nw &&
	    (rv = commit_comment(c, c->w + i, c->nw - i, &comment)) != MGMT_OK)
		return (rv);
	commit_meta(c, comment, minutes, &mm);
	if (c->later == NULL)
		return (fail(c, MGMT_E_INTERNAL, "commit: no way to answer"));
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return (fail(c, MGMT_E_INTERNAL, "commit: out of memory"));
	w->m = c->m;
	w->sid = c->s->id;
	w->check = check;
	w->minutes = minutes;
	w->later = c->later;
	w->arg = c->later_arg;
	if (minutes > 0)
		w->prev = mgmt_conf_dup(c->m->running);
	mgmt_commit_start(c->m, c->s->candidate, check, check ? NULL : &mm,
	    commit_done, w);
	return (MGMT_PENDING);
}

static int
c_rollback(struct cmd_ctx *c)
{
	struct mgmt_conf *conf;
	unsigned n = 0;
	int rv;

	if (c->nw > 1 ||
	    (c->nw == 1 && parse_uint(c->w[0], MGMT_STORE_KEEP - 1, &n) != 0))
		return (fail(c, MGMT_E_SYNTAX,
		    "rollback: expected a number "
		    "0..%d",
		    MGMT_STORE_KEEP - 1));
	if ((rv = load_rollback(c, n, &conf)) != MGMT_OK)
		return (rv);
	mgmt_conf_free(c->s->candidate);
	c->s->candidate = conf;
	{
		struct mgmt_commit_meta mm;

		/* the journal's base is that commit (none: running is the
		 * empty config, seq 0) */
		if ((rv = mgmt_store_meta(c->m->store_dir, n, &mm)) == 0)
			mgmt_persist_rebase(c->m, c->s, mm.seq);
		else if (mgmt_store_count(c->m->store_dir) == 0)
			mgmt_persist_rebase(c->m, c->s, 0);
		else
			mgmt_persist_drop(c->m, c->s, "name the base of", rv);
	}
	lc_buf_printf(c->out,
	    "load complete (rollback %u into the candidate; "
	    "commit to apply)\n",
	    n);
	return (MGMT_OK);
}

static int
c_discard(struct cmd_ctx *c)
{
	int rv;

	if ((rv = no_args(c, "discard")) != MGMT_OK)
		return (rv);
	mgmt_conf_assign(c->s->candidate, c->m->running);
	mgmt_persist_rebase(c->m, c->s, c->m->running_seq);
	lc_buf_printf(c->out, "candidate discarded: it equals running\n");
	return (MGMT_OK);
}

void
mgmt_cmd_xfer_end(struct mgmt_session *s)
{
	lc_buf_fini(&s->xfer);
	lc_buf_init(&s->xfer);
	s->xfer_kind = 0;
}

/* save FILE: the printed candidate goes back to the shell, which writes
 * FILE as its user (MGMT_XFER_PART at a time: mgmt.h) */
static int
c_save(struct cmd_ctx *c)
{
	struct mgmt_cmd_io *io = c->io;
	struct mgmt_session *s = c->s;
	size_t len, n;

	if (c->nw != 1)
		return (fail(c, MGMT_E_SYNTAX, "save: expected one file name"));
	if (io == NULL || !io->client_file)
		return (fail(c, MGMT_E_DENIED,
		    "save %s: tern-mgmt writes no user's file: ternsh writes "
		    "it, as you and relative to your directory",
		    c->w[0]));
	if (io->offset == 0) {
		mgmt_cmd_xfer_end(s);
		mgmt_conf_print(s->candidate, &s->xfer);
		s->xfer_kind = 's';
	}
	len = lc_buf_avail(&s->xfer);
	if (s->xfer_kind != 's' || io->offset > len)
		return (fail(c, MGMT_E_INVALID,
		    "save %s: no save under way at offset %llu (start at 0)",
		    c->w[0], (unsigned long long)io->offset));
	n = len - (size_t)io->offset;
	if (n > MGMT_XFER_PART)
		n = MGMT_XFER_PART;
	io->out = len > 0 ? (const char *)lc_buf_head(&s->xfer) + io->offset :
			    "";
	io->out_len = n;
	io->out_total = len;
	return (MGMT_OK);
}

/* load merge|replace FILE: the shell sends the file's text in parts; the
 * last applies the whole, or nothing on an error */
static int
c_load(struct cmd_ctx *c)
{
	struct mgmt_cmd_io *io = c->io;
	struct mgmt_session *s = c->s;
	enum mgmt_load_mode mode;
	struct lc_err err;
	size_t have;
	int rv;

	if (c->nw != 2 ||
	    (strcmp(c->w[0], "merge") != 0 && strcmp(c->w[0], "replace") != 0))
		return (fail(c, MGMT_E_SYNTAX,
		    "load: expected 'merge FILE' or "
		    "'replace FILE'"));
	mode = c->w[0][0] == 'm' ? MGMT_LOAD_MERGE : MGMT_LOAD_REPLACE;
	if (io == NULL || !io->client_file)
		return (fail(c, MGMT_E_DENIED,
		    "load %s %s: tern-mgmt reads no user's file: ternsh reads "
		    "it, as you and relative to your directory",
		    c->w[0], c->w[1]));
	if (io->offset == 0) {
		mgmt_cmd_xfer_end(s);
		s->xfer_kind = 'l';
	}
	have = lc_buf_avail(&s->xfer);
	if (s->xfer_kind != 'l' || io->offset != have) {
		mgmt_cmd_xfer_end(s);
		return (fail(c, MGMT_E_INVALID,
		    "load %s: a part at offset %llu, expected %zu (send the "
		    "file again from 0)",
		    c->w[1], (unsigned long long)io->offset, have));
	}
	if (io->len > MGMT_LOAD_MAX - have) {
		mgmt_cmd_xfer_end(s);
		return (fail(c, MGMT_E_INVALID,
		    "load %s: over the %u MiB a load takes; nothing changed",
		    c->w[1], MGMT_LOAD_MAX >> 20));
	}
	if (io->len > 0)
		lc_buf_append(&s->xfer, io->data, io->len);
	if (io->more)
		return (MGMT_OK); /* the rest comes */
	rv = mgmt_conf_load_text(s->candidate, c->w[1], lc_buf_head(&s->xfer),
	    lc_buf_avail(&s->xfer), mode, &err);
	if (rv == 0)
		mgmt_persist_load(c->m, s, mode, c->w[1], lc_buf_head(&s->xfer),
		    lc_buf_avail(&s->xfer));
	mgmt_cmd_xfer_end(s);
	if (rv != 0)
		return (fail(c, MGMT_E_INVALID, "%s", err.msg));
	lc_buf_printf(c->out, "load complete\n");
	return (MGMT_OK);
}

static int
c_exit(struct cmd_ctx *c)
{
	bool discard = c->nw == 1 && strcmp(c->w[0], "discard") == 0;

	if (c->nw > 0 && !discard)
		return (fail(c, MGMT_E_SYNTAX,
		    "exit: unexpected '%s' (expected "
		    "'discard')",
		    c->w[0]));
	if (!discard && !mgmt_conf_equal(c->s->candidate, c->m->running))
		return (fail(c, MGMT_E_CONFLICT,
		    "exit: the candidate has "
		    "uncommitted changes: commit them, or 'exit discard'"));
	mgmt_conf_free(c->s->candidate);
	c->s->candidate = NULL;
	c->s->configure = false;
	mgmt_persist_end(c->m, c->s, false);
	if (c->m->lock == c->s)
		c->m->lock = NULL;
	lc_buf_printf(c->out, "Exiting configuration mode\n");
	return (MGMT_OK);
}

static int c_run(struct cmd_ctx *c);

static const struct cmd cmds[] = {
    {{"show", "configuration"}, OPER, false, c_show_configuration,
	"show the running configuration",
	"[PATH] [| compare [rollback N] | display set]"},
    {{"show", "route"}, BOTH, false, c_show_route, "show routes",
	"[inet | inet6] [PREFIX [longer] | ADDRESS | summary] [active] "
	"[source S]"},
    {{"show", "interfaces"}, BOTH, false, c_show_interfaces, "show interfaces",
	"[NAME] [inet | inet6]"},
    {{"show", "fib"}, BOTH, false, c_show_fib, "show the forwarding table",
	"[PREFIX | ADDRESS] [inet | inet6]"},
    {{"show", "neighbors"}, BOTH, false, c_show_neighbors,
	"show ARP and IPv6 ND neighbours", "[inet | inet6]"},
    {{"show", "processes"}, BOTH, false, c_show_processes,
	"show tern's processes", NULL},
    {{"show", "ipc"}, BOTH, false, c_show_ipc,
	"show IPC counters of every component", NULL},
    {{"show", "bgp", "summary"}, BOTH, false, c_show_bgp_summary,
	"show BGP neighbours, one line each", NULL},
    {{"show", "bgp", "neighbor"}, BOTH, false, c_show_bgp_neighbor,
	"show BGP neighbours in detail, or the routes one sent or is sent",
	"[ADDRESS [received-routes | advertised-routes ...]]"},
    {{"show", "bgp", "route"}, BOTH, false, c_show_bgp_route,
	"show BGP routes: every path, the best marked, why the others lost",
	"[PREFIX [longer] | ADDRESS] [detail]"},
    {{"clear", "bgp", "neighbor"}, OPER, true, c_clear_bgp_neighbor,
	"reset a BGP session (soft: route refresh, no reset)",
	"ADDRESS [soft]"},
    {{"show", "version"}, BOTH, false, c_show_version, "show the version",
	NULL},
    {{"show", "system"}, BOTH, false, c_show_system,
	"show the host name, uptimes, versions and memory of every component",
	NULL},
    {{"show", "log"}, BOTH, false, c_show_log,
	"show the end of the components' logs", "[COMPONENT] [lines N]"},
    {{"monitor", "log"}, OPER, false, c_monitor_log,
	"follow the components' logs until ^C", "[COMPONENT]"},
    {{"ping"}, OPER, false, c_ping,
	"send ICMP echo requests through tern's ports",
	"ADDRESS [count N] [source ADDRESS | interface NAME] [size N] [ttl N]"},
    {{"traceroute"}, OPER, false, c_traceroute,
	"show the hops to a host, probed through tern's ports",
	"ADDRESS [source ADDRESS | interface NAME] [ttl N] [wait S]"},
    {{"clear", "interfaces", "statistics"}, OPER, true, c_clear_ifstats,
	"restart show interfaces' counters from zero", "[NAME]"},
    {{"show", "system", "commit"}, BOTH, false, c_show_commits,
	"show the commit history", NULL},
    {{"configure"}, OPER, false, c_configure, "enter configuration mode", NULL},
    {{"restart"}, OPER, true, c_restart, "restart a component", "COMPONENT"},
    {{"stop"}, OPER, true, c_stop, "stop a component (it stays stopped)",
	"COMPONENT"},
    {{"start"}, OPER, true, c_start, "start a stopped or failed component",
	"COMPONENT"},
    {{"compare", "rollback"}, BOTH, false, c_compare_rollback,
	"show what changed between two commits of the history",
	"N [rollback M]"},
    {{"set"}, CONF, true, c_set, "set a value in the candidate", "PATH VALUE"},
    {{"delete"}, CONF, true, c_delete, "delete a path from the candidate",
	"PATH"},
    {{"show"}, CONF, false, c_show_candidate, "show the candidate",
	"[PATH] [| compare [rollback N] | display set]"},
    {{"commit"}, CONF, true, c_commit, "make the candidate running",
	"[check | confirmed [MINUTES]] [comment TEXT]"},
    {{"rollback"}, CONF, true, c_rollback,
	"load an earlier commit into the candidate", "[0..49]"},
    {{"discard"}, CONF, true, c_discard, "throw the candidate's changes away",
	NULL},
    {{"save"}, CONF, false, c_save, "write the candidate to a file", "FILE"},
    {{"load"}, CONF, true, c_load, "load a file into the candidate",
	"merge|replace FILE"},
    {{"exit"}, CONF, false, c_exit, "leave configuration mode", "[discard]"},
    {{"run"}, CONF, false, c_run, "run an operational command", "COMMAND"},
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

bool
mgmt_cmd_table_get(size_t i, struct mgmt_cmd_info *out)
{
	if (i >= NCMDS)
		return (false);
	memcpy(out->words, cmds[i].words, sizeof(out->words));
	out->oper = (cmds[i].modes & OPER) != 0;
	out->conf = (cmds[i].modes & CONF) != 0;
	out->writes = cmds[i].writes;
	out->help = cmds[i].help;
	out->args = cmds[i].args;
	return (true);
}

static unsigned
cmd_nwords(const struct cmd *cmd)
{
	unsigned n = 0;

	while (n < 3 && cmd->words[n] != NULL)
		n++;
	return (n);
}

/* The command whose words start words[], for this mode; longest first. */
static const struct cmd *
cmd_find(unsigned mode, const char *const *words, unsigned nwords)
{
	const struct cmd *best = NULL;
	unsigned bestn = 0;

	for (size_t i = 0; i < NCMDS; i++) {
		const struct cmd *cmd = &cmds[i];
		unsigned n = cmd_nwords(cmd), k;

		if (!(cmd->modes & mode) || n > nwords || n <= bestn)
			continue;
		for (k = 0; k < n && strcmp(cmd->words[k], words[k]) == 0; k++)
			;
		if (k == n) {
			best = cmd;
			bestn = n;
		}
	}
	return (best);
}

/* Whether a command of this mode before cmds[i] has the same first word. */
static bool
seen_before(size_t i, unsigned mode)
{
	for (size_t j = 0; j < i; j++)
		if ((cmds[j].modes & mode) &&
		    strcmp(cmds[j].words[0], cmds[i].words[0]) == 0)
			return (true);
	return (false);
}

static int
unknown(struct cmd_ctx *c, unsigned mode, const char *const *words,
    unsigned nwords)
{
	struct lc_buf b;
	const char *prev = "";

	lc_buf_init(&b);
	/* Say what was expected at the first word that matched nothing. */
	for (size_t i = 0; i < NCMDS; i++) {
		const struct cmd *cmd = &cmds[i];

		if (!(cmd->modes & mode))
			continue;
		if (nwords > 1 && strcmp(cmd->words[0], words[0]) == 0 &&
		    cmd->words[1] != NULL) {
			if (strcmp(prev, cmd->words[1]) != 0)
				lc_buf_printf(&b, "%s%s", b.len ? ", " : "",
				    cmd->words[1]);
			prev = cmd->words[1];
		}
	}
	if (b.len > 0) {
		lc_buf_append(&b, "", 1);
		fail(c, MGMT_E_UNKNOWN_COMMAND,
		    "unknown command '%s %s': after "
		    "'%s' expected one of: %s",
		    words[0], words[1], words[0], (char *)lc_buf_head(&b));
	} else {
		for (size_t i = 0; i < NCMDS; i++) {
			if (!(cmds[i].modes & mode) || seen_before(i, mode))
				continue;
			lc_buf_printf(&b, "%s%s", b.len ? ", " : "",
			    cmds[i].words[0]);
		}
		lc_buf_append(&b, "", 1);
		fail(c, MGMT_E_UNKNOWN_COMMAND,
		    "unknown command '%s' in %s "
		    "mode: expected one of: %s",
		    words[0], mode == CONF ? "configuration" : "operational",
		    (char *)lc_buf_head(&b));
	}
	lc_buf_fini(&b);
	return (MGMT_E_UNKNOWN_COMMAND);
}

/* Whether choices[0..n) holds word. */
static bool
has_word(const char *const *choices, unsigned n, const char *word)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(choices[i], word) == 0)
			return (true);
	return (false);
}

/*
 * Unique prefixes, as in Junos: each of a command's own words may be cut
 * short while it starts one command word of the mode ("sh ro" is "show
 * route"); w[] gets the whole words. Expansion ends at a word that starts
 * none (unknown() names the choices) and where the words so far are a
 * command that takes arguments: the next word may be one (configuration
 * mode's "show PATH": "show r" is not taken for show route there). A word
 * that starts several is an error naming them, MGMT_E_UNKNOWN_COMMAND; c
 * NULL: quiet (completion), the words stay as typed from there on.
 */
static int
cmd_expand(struct cmd_ctx *c, unsigned mode, const char **w, unsigned nw)
{
	for (unsigned k = 0; k < nw && k < 3; k++) {
		const char *choices[NCMDS];
		unsigned nch = 0;
		bool exact = false, complete = false;
		struct lc_buf b;

		for (size_t i = 0; i < NCMDS && !exact; i++) {
			const struct cmd *cmd = &cmds[i];
			unsigned n = cmd_nwords(cmd), j;

			if (!(cmd->modes & mode) || n < k)
				continue;
			for (j = 0; j < k && strcmp(cmd->words[j], w[j]) == 0;
			     j++)
				;
			if (j < k)
				continue;
			if (n == k)
				complete = true;
			else if (strcmp(cmd->words[k], w[k]) == 0)
				exact = true;
			else if (strncmp(cmd->words[k], w[k], strlen(w[k])) ==
				0 &&
			    !has_word(choices, nch, cmd->words[k]))
				choices[nch++] = cmd->words[k];
		}
		if (exact)
			continue;
		if (nch == 0 || complete)
			return (MGMT_OK);
		if (nch == 1) {
			w[k] = choices[0];
			continue;
		}
		if (c == NULL)
			return (MGMT_OK);
		lc_buf_init(&b);
		for (unsigned i = 0; i < nch; i++)
			lc_buf_printf(&b, "%s%s", i ? ", " : "", choices[i]);
		lc_buf_append(&b, "", 1);
		fail(c, MGMT_E_UNKNOWN_COMMAND,
		    "ambiguous command '%s%s%s%s%s': '%s' may be %s",
		    k > 0 ? w[0] : "", k > 0 ? " " : "", k > 1 ? w[1] : "",
		    k > 1 ? " " : "", w[k], w[k], (char *)lc_buf_head(&b));
		lc_buf_fini(&b);
		return (MGMT_E_UNKNOWN_COMMAND);
	}
	return (MGMT_OK);
}

/* "| display set" and "| compare" come to mgmt as words: they belong to
 * the shows of the configuration. */
static int
pipe_misplaced(struct cmd_ctx *c, const struct cmd *cmd, const char *const *w,
    unsigned nw)
{
	/* (run's command is checked when run dispatches it) */
	if (cmd->fn == c_show_configuration || cmd->fn == c_show_candidate ||
	    cmd->fn == c_run)
		return (MGMT_OK);
	for (unsigned i = 0; i < nw; i++)
		if (strcmp(w[i], "|") == 0)
			return (fail(c, MGMT_E_SYNTAX,
			    "'| %s%s%s' is for show configuration (and show "
			    "in configuration mode); other commands take "
			    "| match, except, count, json or no-more",
			    i + 1 < nw ? w[i + 1] : "", i + 2 < nw ? " " : "",
			    i + 2 < nw ? w[i + 2] : ""));
	return (MGMT_OK);
}

/*
 * Who changed what, in the log (issue 24): every command that writes, with
 * the session's user, uid and pid (its connection's SO_PEERCRED). Edits of
 * the candidate (set, delete, load, discard) only at debug and without
 * their values (a password, a megabyte of config): they change nothing
 * running, and the commit that applies them is logged here and kept in the
 * commit history with its lines.
 */
static void
cmd_audit(const struct cmd_ctx *c, const struct cmd *cmd,
    const char *const *words, unsigned ncmd, unsigned nwords)
{
	bool edit = cmd->fn == c_set || cmd->fn == c_delete ||
	    cmd->fn == c_load || cmd->fn == c_discard;
	char line[256];
	size_t o = 0;

	if (!lc_log_enabled(edit ? LC_LOG_DEBUG : LC_LOG_INFO))
		return;
	line[0] = '\0';
	for (unsigned i = 0; i < (edit ? ncmd : nwords) && o < sizeof(line);
	     i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s",
		    i > 0 ? " " : "", words[i]);
	lc_log(edit ? LC_LOG_DEBUG : LC_LOG_INFO,
	    "session %llu (%s, uid %ld, pid %ld): %s%s",
	    (unsigned long long)c->s->id, c->s->user, c->s->uid, c->s->pid,
	    line, edit && nwords > ncmd ? " ..." : "");
}

static int
dispatch(struct cmd_ctx *c, unsigned mode, const char *const *words_,
    unsigned nwords)
{
	const char *words[CMD_MAXWORDS];
	const struct cmd *cmd;
	unsigned n;
	int rv;

	if (nwords > CMD_MAXWORDS)
		nwords = CMD_MAXWORDS;
	memcpy(words, words_, nwords * sizeof(words[0]));
	if ((rv = cmd_expand(c, mode, words, nwords)) != MGMT_OK)
		return (rv);
	if ((cmd = cmd_find(mode, words, nwords)) == NULL)
		return (unknown(c, mode, words, nwords));
	if ((rv = pipe_misplaced(c, cmd, words, nwords)) != MGMT_OK)
		return (rv);
	if (cmd->writes && c->s->read_only)
		return (fail(c, MGMT_E_DENIED, "%s: this session is read-only",
		    words[0]));
	n = cmd_nwords(cmd);
	if (cmd->writes)
		cmd_audit(c, cmd, words, n, nwords);
	c->w = words + n;
	c->nw = nwords - n;
	return (cmd->fn(c));
}

static int
c_run(struct cmd_ctx *c)
{
	if (c->nw == 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "run: expected an operational "
		    "command"));
	if (strcmp(c->w[0], "configure") == 0)
		return (fail(c, MGMT_E_SYNTAX,
		    "run configure: already in "
		    "configuration mode"));
	return (dispatch(c, OPER, c->w, c->nw));
}

int
mgmt_cmd_exec(struct mgmt *m, struct mgmt_session *s, const char *line,
    bool json, struct lc_buf *out, struct lc_err *err, mgmt_reply_fn *later,
    void *later_arg)
{
	return (mgmt_cmd_exec_io(m, s, line, json, NULL, out, err, later,
	    later_arg));
}

int
mgmt_cmd_exec_io(struct mgmt *m, struct mgmt_session *s, const char *line,
    bool json, struct mgmt_cmd_io *io, struct lc_buf *out, struct lc_err *err,
    mgmt_reply_fn *later, void *later_arg)
{
	struct cmd_ctx c = {.m = m,
	    .s = s,
	    .json = json,
	    .out = out,
	    .err = err,
	    .later = later,
	    .later_arg = later_arg,
	    .io = io};
	const char *words[CMD_MAXWORDS];
	char buf[8192];
	int n, rv;

	lc_err_clear(err);
	/* a save or load in parts holds its text only while its parts come */
	if (io == NULL || !io->client_file || io->offset == 0)
		mgmt_cmd_xfer_end(s);
	s->table_header = s->table_footer = 0;
	n = mgmt_conf_split(line, buf, sizeof(buf), words, CMD_MAXWORDS);
	if (n < 0) {
		rv = fail(&c, MGMT_E_SYNTAX,
		    n == -EINVAL ? "unterminated quote" :
				   "line too long or too many words");
	} else if (n == 0) {
		rv = MGMT_OK; /* an empty line: the shell asks for the prompt */
	} else {
		rv = dispatch(&c, s->configure ? CONF : OPER, words,
		    (unsigned)n);
	}
	lc_buf_append(out, "", 1); /* NUL-terminated for the reply */
	out->len--;
	return (rv);
}

/* ---- completion ---------------------------------------------------------------- */

static int
add_cand(struct mgmt_cand *out, unsigned max, int n, const char *word,
    const char *help)
{
	if ((unsigned)n >= max)
		return (n);
	for (int i = 0; i < n; i++)
		if (strcmp(out[i].word, word) == 0)
			return (n);
	snprintf(out[n].word, sizeof(out[n].word), "%s", word);
	out[n].help = help;
	out[n].hint = false;
	return (n + 1);
}

/* Configured BGP neighbours whose address starts with the partial word. */
struct nbr_compl {
	const char *partial;
	struct mgmt_cand *out;
	unsigned max;
	int k;
};

static int
nbr_compl_cb(const struct mgmt_node *node, void *arg)
{
	struct nbr_compl *nc = arg;
	struct mgmt_bgp_nbr_conf n;
	const char *a;

	if (mgmt_conf_bgp_nbr_get(node, &n) != 0)
		return (0);
	a = lc_ip4_ntoa(n.addr);
	if (strncmp(a, nc->partial, strlen(nc->partial)) == 0)
		nc->k = add_cand(nc->out, nc->max, nc->k, a, "BGP neighbor");
	return (0);
}

/*
 * After show bgp neighbor: the configured neighbours, then received-routes
 * or advertised-routes; after those and after show bgp route: detail, and
 * longer after a prefix. w[0..nw): the words after the command's own.
 */
static int
bgp_complete(struct mgmt *m, bool route, const char *const *w, unsigned nw,
    const char *partial, struct mgmt_cand *out, unsigned max, int k)
{
	static const struct {
		const char *word, *help;
	} adj[] = {
	    {"received-routes", "the neighbour's routes as received"},
	    {"advertised-routes", "what is sent to the neighbour"},
	};
	struct lc_prefix4 p;
	size_t pl = strlen(partial);

	if (!route && nw == 0) {
		struct nbr_compl nc = {partial, out, max, k};

		(void)mgmt_conf_foreach(m->running, MGMT_S_BGP_NBR,
		    nbr_compl_cb, &nc);
		return (nc.k);
	}
	if (!route && nw == 1) {
		for (size_t i = 0; i < sizeof(adj) / sizeof(adj[0]); i++)
			if (strncmp(adj[i].word, partial, pl) == 0)
				k = add_cand(out, max, k, adj[i].word,
				    adj[i].help);
		return (k);
	}
	if (!route) {
		if (strcmp(w[1], adj[0].word) != 0 &&
		    strcmp(w[1], adj[1].word) != 0)
			return (k);
		w += 2;
		nw -= 2;
	}
	if (route && nw == 0 && pl == 0)
		return (k); /* the command's arguments say more */
	for (unsigned i = 0; i < nw; i++)
		if (strcmp(w[i], "detail") == 0)
			return (k);
	if (nw == 1 && lc_prefix4_parse(w[0], &p) == 0 &&
	    strncmp("longer", partial, pl) == 0)
		k = add_cand(out, max, k, "longer",
		    "and every prefix inside it");
	if (strncmp("detail", partial, pl) == 0)
		k = add_cand(out, max, k, "detail", "every path in detail");
	return (k);
}

/*
 * After a '|': the pipe's stages (the shell runs them; compare and display
 * set are mgmt's, for the shows of the configuration). -1 when the line
 * has no '|'.
 */
static int
pipe_complete(unsigned mode, const char *const *words, unsigned nw,
    const char *partial, struct mgmt_cand *out, unsigned max)
{
	const struct cmd *cmd;
	unsigned bar = nw, last = 0, nbars = 0;

	for (unsigned i = 0; i < nw; i++)
		if (strcmp(words[i], "|") == 0) {
			if (nbars++ == 0)
				bar = i;
			last = i;
		}
	if (nbars == 0)
		return (-1);
	cmd = cmd_find(mode, words, bar);
	return (mgmt_compl_pipe(cmd != NULL &&
		(cmd->fn == c_show_configuration ||
		    cmd->fn == c_show_candidate),
	    nbars == 1, words + last + 1, nw - last - 1, partial, out, max, 0));
}

/*
 * The values of operational commands from live data: the configured
 * interfaces after show interfaces, the configured prefixes and the
 * options after show route and show fib, tern-rtrmgr's components after
 * restart, stop and start. w[0..nw): the words after the command's own.
 */
static int
live_complete(struct mgmt *m, const struct cmd *cmd, const char *const *w,
    unsigned nw, const char *partial, struct mgmt_cand *out, unsigned max,
    int k)
{
	static const struct {
		const char *word, *help;
	} route_opts[] = {
	    {"longer", "and every prefix inside it"},
	    {"active", "only the routes in use"},
	    {"source", "only the routes of one source"},
	};
	static const char *const sources[] = {"connected", "static", "bgp"};
	static const struct {
		const char *word, *help;
	} families[] = {
	    {"inet", "IPv4 only (also: ipv4)"},
	    {"inet6", "IPv6 only (also: ipv6)"},
	};
	struct lc_prefix4 p;
	struct lc_prefix6 p6;
	size_t pl = strlen(partial);
	bool fam = false;

	/* the family filter, once, of the commands that show both */
	for (unsigned i = 0; i < nw; i++)
		fam |= strcmp(w[i], "inet") == 0 ||
		    strcmp(w[i], "inet6") == 0 || strcmp(w[i], "ipv4") == 0 ||
		    strcmp(w[i], "ipv6") == 0;
	if (!fam && pl > 0 &&
	    (cmd->fn == c_show_route || cmd->fn == c_show_fib ||
		cmd->fn == c_show_interfaces || cmd->fn == c_show_neighbors) &&
	    (nw == 0 || strcmp(w[nw - 1], "source") != 0))
		for (size_t i = 0; i < sizeof(families) / sizeof(families[0]);
		     i++)
			if (strncmp(families[i].word, partial, pl) == 0)
				k = add_cand(out, max, k, families[i].word,
				    families[i].help);

	if (cmd->fn == c_show_interfaces && nw == 0)
		return (mgmt_compl_ifaces(m->running, partial, out, max, k));
	if ((cmd->fn == c_restart || cmd->fn == c_stop || cmd->fn == c_start) &&
	    nw == 0)
		return (mgmt_compl_comps(m, partial, out, max, k));
	if (cmd->fn == c_show_fib && nw == 0)
		return (mgmt_compl_prefixes(m->running, partial, out, max, k));
	if (cmd->fn != c_show_route || (nw > 0 && strcmp(w[0], "summary") == 0))
		return (k);
	if (nw > 0 && strcmp(w[nw - 1], "source") == 0) {
		for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]);
		     i++)
			if (strncmp(sources[i], partial, pl) == 0)
				k = add_cand(out, max, k, sources[i],
				    "routes of this source");
		return (k);
	}
	if (nw == 0 && strncmp("summary", partial, pl) == 0)
		k = add_cand(out, max, k, "summary", "counts per source");
	for (size_t i = 0; i < sizeof(route_opts) / sizeof(route_opts[0]); i++)
		if ((i > 0 ||
			(nw == 1 &&
			    (lc_prefix4_parse(w[0], &p) == 0 ||
				lc_prefix6_parse(w[0], &p6) == 0))) &&
		    strncmp(route_opts[i].word, partial, pl) == 0)
			k = add_cand(out, max, k, route_opts[i].word,
			    route_opts[i].help);
	if (nw == 0)
		k = mgmt_compl_prefixes(m->running, partial, out, max, k);
	return (k);
}

int
mgmt_cmd_complete(struct mgmt *m, struct mgmt_session *s, const char *line,
    size_t cursor, struct mgmt_cand *out, unsigned max)
{
	const char *words[CMD_MAXWORDS], *partial;
	char text[8192], buf[8192];
	unsigned mode = s->configure ? CONF : OPER, nw;
	const struct cmd *cmd;
	int n, k = 0;

	if (cursor >= sizeof(text))
		return (0);
	memcpy(text, line, cursor);
	text[cursor] = '\0';
	if ((n = mgmt_conf_split(text, buf, sizeof(buf), words, CMD_MAXWORDS)) <
	    0)
		return (0);
	/* the word under the cursor is partial unless a blank ends the text */
	if (n > 0 && cursor > 0 && text[cursor - 1] != ' ' &&
	    text[cursor - 1] != '\t') {
		partial = words[--n];
	} else {
		partial = "";
	}
	nw = (unsigned)n;
	(void)cmd_expand(NULL, mode, words, nw);
	if (mode == CONF && nw > 0 && strcmp(words[0], "run") == 0) {
		memmove(words, words + 1, (nw - 1) * sizeof(words[0]));
		nw--;
		mode = OPER;
		(void)cmd_expand(NULL, mode, words, nw);
	}
	if ((k = pipe_complete(mode, words, nw, partial, out, max)) >= 0)
		return (k);
	k = 0;

	/* command words */
	for (size_t i = 0; i < NCMDS; i++) {
		const struct cmd *c = &cmds[i];
		unsigned cn = cmd_nwords(c), j;

		if (!(c->modes & mode) || nw >= cn)
			continue;
		for (j = 0; j < nw && strcmp(c->words[j], words[j]) == 0; j++)
			;
		if (j == nw &&
		    strncmp(c->words[nw], partial, strlen(partial)) == 0)
			k = add_cand(out, max, k, c->words[nw],
			    nw + 1 == cn ? c->help : NULL);
	}
	/* paths after set/delete/show in configuration mode */
	cmd = nw > 0 ? cmd_find(mode, words, nw) : NULL;
	if (cmd != NULL && mode == CONF &&
	    (cmd->fn == c_set || cmd->fn == c_delete ||
		cmd->fn == c_show_candidate)) {
		struct mgmt_compl cc[128];
		struct lc_err err;
		int r;

		r = mgmt_schema_complete(s->candidate, words + 1, nw - 1,
		    partial, cc, 128, &err);
		for (int i = 0; i < r; i++)
			k = mgmt_compl_add(out, max, k, cc[i].word, cc[i].help,
			    cc[i].is_value);
	} else if (cmd != NULL &&
	    (cmd->fn == c_show_bgp_neighbor || cmd->fn == c_show_bgp_route)) {
		unsigned cn = cmd_nwords(cmd);

		k = bgp_complete(m, cmd->fn == c_show_bgp_route, words + cn,
		    nw - cn, partial, out, max, k);
	} else if (cmd != NULL) {
		unsigned cn = cmd_nwords(cmd);

		k = live_complete(m, cmd, words + cn, nw - cn, partial, out,
		    max, k);
	}
	/* what the arguments are: help, never inserted */
	if (cmd != NULL && cmd->args != NULL && partial[0] == '\0' &&
	    nw == cmd_nwords(cmd))
		k = mgmt_compl_add(out, max, k, cmd->args, cmd->help, true);
	return (k);
}
