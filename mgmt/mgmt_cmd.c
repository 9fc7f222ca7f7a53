/* mgmt/mgmt_cmd.c: tern-mgmt's command interpreter: operational and configuration commands, and their completion. */
#include "mgmt_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"

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

/* "show ... | compare" and "show ... | display set" arrive as words. */
static int
show_modifier(struct cmd_ctx *c, unsigned *nw, bool *compare, bool *setform)
{
	*compare = *setform = false;
	*nw = c->nw;
	for (unsigned i = 0; i < c->nw; i++) {
		if (strcmp(c->w[i], "|") != 0)
			continue;
		*nw = i;
		if (i + 2 == c->nw && strcmp(c->w[i + 1], "compare") == 0)
			*compare = true;
		else if (i + 3 == c->nw &&
		    strcmp(c->w[i + 1], "display") == 0 &&
		    strcmp(c->w[i + 2], "set") == 0)
			*setform = true;
		else
			return (fail(c, MGMT_E_SYNTAX,
			    "after '|': expected "
			    "'compare' or 'display set'"));
		return (MGMT_OK);
	}
	return (MGMT_OK);
}

static int
show_conf(struct cmd_ctx *c, const struct mgmt_conf *conf)
{
	struct lc_err err;
	struct lc_buf b;
	bool compare, setform;
	unsigned nw;
	int rv;

	if ((rv = show_modifier(c, &nw, &compare, &setform)) != MGMT_OK)
		return (rv);
	lc_buf_init(&b);
	if (compare) {
		if (nw > 0) {
			lc_buf_fini(&b);
			return (fail(c, MGMT_E_SYNTAX,
			    "show | compare: compares "
			    "the whole configuration; no path before '|'"));
		}
		mgmt_conf_compare(c->m->running, conf, &b);
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

static int
c_show_commits(struct cmd_ctx *c)
{
	struct lc_buf b;
	int n, rv;

	if ((rv = no_args(c, "show system commit")) != MGMT_OK)
		return (rv);
	n = mgmt_store_count(c->m->store_dir);
	lc_buf_init(&b);
	lc_buf_printf(&b, "%d commit%s kept (rollback 0..%d)%s\n", n,
	    n == 1 ? "" : "s", n > 0 ? n - 1 : 0,
	    c->m->confirm_pending ? "; a commit confirmed is pending" : "");
	emit_buf(c, &b);
	lc_buf_fini(&b);
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
	if (l != NULL && l != c->s)
		return (fail(c, MGMT_E_LOCKED,
		    "configure: the configuration is "
		    "being edited by %s (session %llu); try again when they exit",
		    l->user, (unsigned long long)l->id));
	c->m->lock = c->s;
	c->s->configure = true;
	if (c->s->candidate == NULL)
		c->s->candidate = mgmt_conf_dup(c->m->running);
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

static int
c_commit(struct cmd_ctx *c)
{
	struct commit_wait *w;
	bool check = false;
	unsigned minutes = 0;

	if (c->nw == 1 && strcmp(c->w[0], "check") == 0) {
		check = true;
	} else if (c->nw >= 1 && strcmp(c->w[0], "confirmed") == 0) {
		minutes = 10;
		if (c->nw > 2 ||
		    (c->nw == 2 && parse_uint(c->w[1], 65535, &minutes) != 0) ||
		    minutes == 0)
			return (fail(c, MGMT_E_SYNTAX,
			    "commit confirmed: "
			    "expected minutes 1..65535, got '%s'",
			    c->w[1]));
	} else if (c->nw > 0) {
		return (fail(c, MGMT_E_SYNTAX,
		    "commit: unexpected '%s' "
		    "(expected check or confirmed [MINUTES])",
		    c->w[0]));
	}
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
	mgmt_commit_start(c->m, c->s->candidate, check, commit_done, w);
	return (MGMT_PENDING);
}

static int
c_rollback(struct cmd_ctx *c)
{
	struct mgmt_conf *conf;
	struct lc_err err;
	unsigned n = 0;

	if (c->nw > 1 ||
	    (c->nw == 1 && parse_uint(c->w[0], MGMT_STORE_KEEP - 1, &n) != 0))
		return (fail(c, MGMT_E_SYNTAX,
		    "rollback: expected a number "
		    "0..%d",
		    MGMT_STORE_KEEP - 1));
	if (mgmt_store_rollback(c->m->store_dir, n, &conf, &err) != 0) {
		if (n == 0 && mgmt_store_count(c->m->store_dir) == 0)
			conf = mgmt_conf_dup(c->m->running);
		else
			return (fail(c, MGMT_E_NOT_FOUND, "%s", err.msg));
	}
	mgmt_conf_free(c->s->candidate);
	c->s->candidate = conf;
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
	lc_buf_printf(c->out, "candidate discarded: it equals running\n");
	return (MGMT_OK);
}

static int
c_save(struct cmd_ctx *c)
{
	int rv;

	if (c->nw != 1)
		return (fail(c, MGMT_E_SYNTAX, "save: expected one file name"));
	if ((rv = mgmt_conf_save(c->s->candidate, c->w[0])) != 0)
		return (fail(c, MGMT_E_INVALID, "save %s: %s", c->w[0],
		    strerror(-rv)));
	lc_buf_printf(c->out, "wrote %s\n", c->w[0]);
	return (MGMT_OK);
}

static int
c_load(struct cmd_ctx *c)
{
	struct lc_err err;
	enum mgmt_load_mode mode;

	if (c->nw != 2 ||
	    (strcmp(c->w[0], "merge") != 0 && strcmp(c->w[0], "replace") != 0))
		return (fail(c, MGMT_E_SYNTAX,
		    "load: expected 'merge FILE' or "
		    "'replace FILE'"));
	mode = c->w[0][0] == 'm' ? MGMT_LOAD_MERGE : MGMT_LOAD_REPLACE;
	if (mgmt_conf_load(c->s->candidate, c->w[1], mode, &err) != 0)
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
	if (c->m->lock == c->s)
		c->m->lock = NULL;
	lc_buf_printf(c->out, "Exiting configuration mode\n");
	return (MGMT_OK);
}

static int c_run(struct cmd_ctx *c);

static const struct cmd cmds[] = {
    {{"show", "configuration"}, OPER, false, c_show_configuration,
	"show the running configuration", "[PATH] [| compare | display set]"},
    {{"show", "route"}, BOTH, false, c_show_route, "show routes",
	"[PREFIX [longer] | ADDRESS | summary] [active] [source S]"},
    {{"show", "interfaces"}, BOTH, false, c_show_interfaces, "show interfaces",
	"[NAME]"},
    {{"show", "fib"}, BOTH, false, c_show_fib, "show the forwarding table",
	"[PREFIX]"},
    {{"show", "neighbors"}, BOTH, false, c_show_neighbors,
	"show ARP neighbours", NULL},
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
    {{"set"}, CONF, true, c_set, "set a value in the candidate", "PATH VALUE"},
    {{"delete"}, CONF, true, c_delete, "delete a path from the candidate",
	"PATH"},
    {{"show"}, CONF, false, c_show_candidate, "show the candidate",
	"[PATH] [| compare | display set]"},
    {{"commit"}, CONF, true, c_commit, "make the candidate running",
	"[check | confirmed [MINUTES]]"},
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

static int
dispatch(struct cmd_ctx *c, unsigned mode, const char *const *words,
    unsigned nwords)
{
	const struct cmd *cmd;
	unsigned n;

	if ((cmd = cmd_find(mode, words, nwords)) == NULL)
		return (unknown(c, mode, words, nwords));
	if (cmd->writes && c->s->read_only)
		return (fail(c, MGMT_E_DENIED, "%s: this session is read-only",
		    words[0]));
	n = cmd_nwords(cmd);
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
	struct cmd_ctx c = {.m = m,
	    .s = s,
	    .json = json,
	    .out = out,
	    .err = err,
	    .later = later,
	    .later_arg = later_arg};
	const char *words[CMD_MAXWORDS];
	char buf[8192];
	int n, rv;

	lc_err_clear(err);
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
	if (mode == CONF && nw > 0 && strcmp(words[0], "run") == 0) {
		memmove(words, words + 1, (nw - 1) * sizeof(words[0]));
		nw--;
		mode = OPER;
	}

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
			k = add_cand(out, max, k, cc[i].word, cc[i].help);
	} else if (cmd != NULL &&
	    (cmd->fn == c_show_bgp_neighbor || cmd->fn == c_show_bgp_route)) {
		unsigned cn = cmd_nwords(cmd);

		k = bgp_complete(m, cmd->fn == c_show_bgp_route, words + cn,
		    nw - cn, partial, out, max, k);
	}
	if (cmd != NULL && cmd->args != NULL && k == 0 && partial[0] == '\0')
		k = add_cand(out, max, k, cmd->args, cmd->help);
	return (k);
}
