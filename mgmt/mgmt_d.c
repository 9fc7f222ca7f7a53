/* mgmt/mgmt_d.c: tern-mgmt's state, sessions and IPC front door (session open/close, execute, complete). */
#include "mgmt_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_proc.h"

/* ---- sessions --------------------------------------------------------------- */

struct mgmt_session *
mgmt_session_open(struct mgmt *m, const char *user, bool read_only)
{
	struct mgmt_session *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	s->id = ++m->next_session;
	snprintf(s->user, sizeof(s->user), "%s",
	    user != NULL && user[0] != '\0' ? user : "unknown");
	s->read_only = read_only;
	s->uid = -1;
	lc_buf_init(&s->xfer);
	mgmt_persist_session_new(m, s);
	LIST_INSERT_HEAD(&m->sessions, s, link);
	return (s);
}

void
mgmt_session_free(struct mgmt *m, struct mgmt_session *s, bool keep)
{
	if (s == NULL)
		return;
	if (m->lock == s)
		m->lock = NULL;
	mgmt_ops_session_end(m, s);
	mgmt_persist_end(m, s, keep);
	if (s->candidate != NULL)
		mgmt_conf_free(s->candidate);
	lc_buf_fini(&s->xfer);
	LIST_REMOVE(s, link);
	free(s);
}

void
mgmt_session_close(struct mgmt *m, struct mgmt_session *s)
{
	mgmt_session_free(m, s, false);
}

uint64_t
mgmt_session_id(const struct mgmt_session *s)
{
	return (s->id);
}

bool
mgmt_session_configuring(const struct mgmt_session *s)
{
	return (s->configure);
}

struct mgmt_session *
mgmt_session_find(struct mgmt *m, uint64_t id)
{
	struct mgmt_session *s;

	LIST_FOREACH(s, &m->sessions, link)
	if (s->id == id)
		return (s);
	return (NULL);
}

const char *
mgmt_session_notices(const struct mgmt_session *s)
{
	return (s->notices);
}

void
mgmt_session_notices_clear(struct mgmt_session *s)
{
	s->notices[0] = '\0';
}

const char *
mgmt_session_prompt(struct mgmt *m, struct mgmt_session *s, char *buf,
    size_t len)
{
	snprintf(buf, len, "%s@%s%s ", s->user, m->host_name,
	    s->configure ? "#" : ">");
	return (buf);
}

/* ---- IPC handlers --------------------------------------------------------------- */

/* What a reply says besides the command's answer: save's part of the text,
 * the token of a session just opened. */
struct reply_extra {
	struct mgmt_cmd_io *io; /* save's part (io->out), or NULL */
	bool open;		/* SESSION_OPEN: the token, resumed */
	bool resumed;
};

static void reply_io(struct ipc_req *req, struct mgmt *m,
    struct mgmt_session *s, int code, const char *text, const char *error,
    const struct reply_extra *x);

static void
reply_code(struct ipc_req *req, struct mgmt *m, struct mgmt_session *s,
    int code, const char *text, const char *error)
{
	reply_io(req, m, s, code, text, error, NULL);
}

static void
reply_io(struct ipc_req *req, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const char *error, const struct reply_extra *x)
{
	Mgmt__Reply r = MGMT__REPLY__INIT;
	char prompt[128], *notices[1];
	struct mgmt_cmd_io *io = x != NULL ? x->io : NULL;

	if (io != NULL && io->out != NULL) {
		r.data.data = (uint8_t *)io->out;
		r.data.len = io->out_len;
		r.data_total = io->out_total;
	}
	if (code == MGMT_STREAM) { /* it goes on: OUTPUT events follow */
		r.streaming = true;
		code = MGMT_OK;
	}
	r.code = (Mgmt__Code)code;
	r.text = (char *)(text != NULL ? text : "");
	r.error = (char *)(error != NULL ? error : "");
	if (s != NULL) {
		r.session = s->id;
		r.mode = s->configure ? MGMT__MODE__CONFIGURE :
					MGMT__MODE__OPERATIONAL;
		r.prompt = (char *)mgmt_session_prompt(m, s, prompt,
		    sizeof(prompt));
		if (s->notices[0] != '\0') {
			notices[0] = s->notices;
			r.notices = notices;
			r.n_notices = 1;
		}
		/* the answer's table shape, for the shell's filters */
		r.table_header = s->table_header;
		r.table_footer = s->table_footer;
		s->table_header = s->table_footer = 0;
		if (x != NULL && x->open) {
			r.token = s->token;
			r.resumed = x->resumed;
		}
	} else {
		r.prompt = (char *)"";
	}
	if (ipc_reply(req, IPC_OK, &r.base) != 0)
		lc_log_warnx("reply to %s dropped",
		    ipc_peer_component(ipc_req_peer(req)));
	else if (s != NULL)
		mgmt_session_notices_clear(s); /* told */
	/* the last part of a save has gone: its text with it */
	if (io != NULL && io->out != NULL && s != NULL &&
	    io->offset + io->out_len >= io->out_total)
		mgmt_cmd_xfer_end(s);
}

/*
 * Who the session is, for its prompt, its lock and its commits: the
 * connection's credentials (SO_PEERCRED), not the name the shell sends; the
 * claim is kept only when there are none. The terminal is the shell's word:
 * nothing else could tell it (it is only ever shown).
 */
static void
session_who(struct mgmt_session *s, const Mgmt__SessionOpen *o)
{
	struct ipc_cred cred;
	struct passwd pw, *pp = NULL;
	char buf[1024];

	snprintf(s->via, sizeof(s->via), "%s",
	    ipc_peer_component(s->peer)[0] ? ipc_peer_component(s->peer) :
					     "unknown");
	snprintf(s->tty, sizeof(s->tty), "%s", o->tty != NULL ? o->tty : "");
	for (char *p = s->tty; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (ipc_peer_cred(s->peer, &cred) != 0)
		return;
	s->uid = (long)cred.uid;
	s->pid = (long)cred.pid;
	/* with the pid, the shell's process for as long as it lives: what
	 * a kept candidate waits for (mgmt_persist.c) */
	s->start = lc_proc_starttime(cred.pid);
	if (getpwuid_r(cred.uid, &pw, buf, sizeof(buf), &pp) == 0 && pp != NULL)
		snprintf(s->user, sizeof(s->user), "%s", pp->pw_name);
	else
		snprintf(s->user, sizeof(s->user), "uid%ld", s->uid);
	if (o->user != NULL && o->user[0] != '\0' &&
	    strcmp(o->user, s->user) != 0)
		lc_log_notice("session %llu: the shell says it is %s, its "
			      "credentials say %s (uid %ld): %s it is",
		    (unsigned long long)s->id, o->user, s->user, s->uid,
		    s->user);
}

static void
h_session_open(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__SessionOpen *o = (const Mgmt__SessionOpen *)msg;
	struct reply_extra x = {0};
	struct mgmt *m = arg;
	struct mgmt_session *s;
	bool ro = ipc_peer_read_only(ipc_req_peer(req)) || o->read_only;

	if ((s = mgmt_session_open(m, o->user, ro)) == NULL) {
		ipc_reply_error(req, IPC_ERROR, "out of memory");
		return;
	}
	s->peer = ipc_req_peer(req);
	session_who(s, o);
	lc_log_info("session %llu opened by %s (uid %ld, pid %ld) via %s%s%s%s",
	    (unsigned long long)s->id, s->user, s->uid, s->pid, s->via,
	    s->tty[0] ? " on " : "", s->tty, ro ? " (read-only)" : "");
	/* a shell whose tern-mgmt restarted: its candidate, if kept */
	x.open = true;
	x.resumed = mgmt_persist_resume(m, s, o->resume_token);
	reply_io(req, m, s, MGMT_OK, NULL, NULL, &x);
}

/* The session named in a request, if it belongs to the caller. */
static struct mgmt_session *
req_session(struct mgmt *m, struct ipc_req *req, uint64_t id)
{
	struct mgmt_session *s = mgmt_session_find(m, id);

	if (s == NULL || s->peer != ipc_req_peer(req)) {
		ipc_reply_error(req, IPC_BAD_REQUEST,
		    "no session %llu on this connection",
		    (unsigned long long)id);
		return (NULL);
	}
	return (s);
}

static void
h_session_close(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__SessionRequest *r = (const Mgmt__SessionRequest *)msg;
	struct mgmt *m = arg;
	struct mgmt_session *s;

	if ((s = req_session(m, req, r->session)) == NULL)
		return;
	mgmt_session_close(m, s);
	reply_code(req, m, NULL, MGMT_OK, NULL, NULL);
}

static void
execute_later(void *arg, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const struct lc_err *err)
{
	reply_code(arg, m, s, code, text, err->msg);
}

static void
h_execute(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__ExecuteRequest *e = (const Mgmt__ExecuteRequest *)msg;
	struct mgmt *m = arg;
	struct mgmt_session *s;
	struct lc_buf out;
	struct lc_err err;
	int code;

	struct mgmt_cmd_io io = {0};

	if ((s = req_session(m, req, e->session)) == NULL)
		return;
	io.client_file = e->client_file;
	io.data = e->data.data;
	io.len = e->data.len;
	io.offset = e->data_offset;
	io.more = e->data_more;
	lc_buf_init(&out);
	code = mgmt_cmd_exec_io(m, s, e->line != NULL ? e->line : "",
	    e->format == MGMT__FORMAT__JSON, &io, &out, &err, execute_later,
	    req);
	if (code != MGMT_PENDING) {
		struct reply_extra x = {.io = &io};

		reply_io(req, m, s, code,
		    out.len > 0 ? (char *)lc_buf_head(&out) : "", err.msg, &x);
	}
	lc_buf_fini(&out);
}

/* The shell's Ctrl-C: the session's streaming command ends; its last
 * output says how (the reply says only whether one was running). */
static void
h_interrupt(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__SessionRequest *r = (const Mgmt__SessionRequest *)msg;
	struct mgmt *m = arg;
	struct mgmt_session *s;

	if ((s = req_session(m, req, r->session)) == NULL)
		return;
	if (mgmt_ops_interrupt(m, s) != 0)
		reply_code(req, m, s, MGMT_E_NOT_FOUND, NULL,
		    "no command is running");
	else
		reply_code(req, m, s, MGMT_OK, NULL, NULL);
}

static void
h_complete(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__CompleteRequest *c = (const Mgmt__CompleteRequest *)msg;
	Mgmt__CompleteReply r = MGMT__COMPLETE_REPLY__INIT;
	struct mgmt *m = arg;
	struct mgmt_session *s;
	struct mgmt_cand cand[128];
	char *words[128], *help[128], common[64] = "";
	protobuf_c_boolean hint[128];
	const char *line = c->line != NULL ? c->line : "";
	size_t cursor = c->cursor;
	bool first = true;
	int n;

	if ((s = req_session(m, req, c->session)) == NULL)
		return;
	if (cursor > strlen(line))
		cursor = strlen(line);
	n = mgmt_cmd_complete(m, s, line, cursor, cand, 128);
	for (int i = 0; i < n; i++) {
		words[i] = cand[i].word;
		help[i] = (char *)(cand[i].help != NULL ? cand[i].help : "");
		hint[i] = cand[i].hint;
		/* what Tab may insert: the words, never a placeholder */
		if (cand[i].hint) {
			continue;
		} else if (first) {
			snprintf(common, sizeof(common), "%s", cand[i].word);
			first = false;
		} else {
			size_t k = 0;

			while (
			    common[k] != '\0' && common[k] == cand[i].word[k])
				k++;
			common[k] = '\0';
		}
	}
	r.n_candidates = (size_t)n;
	r.candidates = words;
	r.n_placeholder = (size_t)n;
	r.placeholder = hint;
	if (c->help) {
		r.n_help = (size_t)n;
		r.help = help;
	}
	r.common_prefix = common;
	ipc_reply(req, IPC_OK, &r.base);
}

static void
h_request(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	ipc_reply_error(req, IPC_UNKNOWN_METHOD,
	    "structured requests are not served yet; use execute");
}

static void
on_peer_gone(struct ipc_server *srv, struct ipc_peer *peer, void *arg)
{
	struct mgmt *m = arg;
	struct mgmt_session *s, *next;

	/* A shell that went away ends its sessions and frees the lock. */
	for (s = LIST_FIRST(&m->sessions); s != NULL; s = next) {
		next = LIST_NEXT(s, link);
		if (s->peer == peer) {
			lc_log_info(
			    "session %llu of %s ended with its connection",
			    (unsigned long long)s->id, s->user);
			mgmt_session_close(m, s);
		}
	}
}

/* ---- life ---------------------------------------------------------------------- */

/* Temp files of a commit whose writer died with mgmt. */
static void
remove_stale_temps(const char *dir)
{
	struct dirent *e;
	char path[4096];
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "commit.", 7) == 0 &&
		    strstr(e->d_name, ".tmp.") != NULL &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			(int)sizeof(path))
			(void)unlink(path);
	closedir(d);
}

/*
 * The store: made MGMT_STORE_DIR_MODE when missing; one that others may
 * read (made 0755 by hand or by an older tern) loses their access when it
 * is ours. 0 or -errno (logged).
 */
static int
store_dir_init(const char *dir)
{
	struct stat st;
	int e;

	if ((mkdir(dir, MGMT_STORE_DIR_MODE) != 0 && errno != EEXIST) ||
	    stat(dir, &st) != 0) {
		e = errno;
		lc_log_err("store %s: %s", dir, strerror(e));
		return (-e);
	}
	if (!S_ISDIR(st.st_mode)) {
		lc_log_err("store %s: not a directory", dir);
		return (-ENOTDIR);
	}
	if ((st.st_mode & 007) != 0 && st.st_uid == geteuid()) {
		if (chmod(dir, st.st_mode & 07770) == 0)
			lc_log_notice(
			    "store %s was mode 0%o: now 0%o (a config "
			    "may hold secrets)",
			    dir, st.st_mode & 07777, st.st_mode & 07770);
		else
			lc_log_warn("store %s is mode 0%o: %s", dir,
			    st.st_mode & 07777, strerror(errno));
	}
	return (0);
}

static int
load_running(struct mgmt *m)
{
	struct lc_err err;
	int rv, n;

	remove_stale_temps(m->store_dir);
	/* commits an older tern wrote 0644 */
	if ((n = mgmt_store_tighten(m->store_dir)) > 0)
		lc_log_notice("store %s: %d commit files were readable by "
			      "everyone: now mode 0%o",
		    m->store_dir, n, MGMT_STORE_FILE_MODE);
	n = mgmt_store_count(m->store_dir);

	if (n > 0) {
		if ((rv = mgmt_store_rollback(m->store_dir, 0, &m->running,
			 &err)) != 0) {
			lc_log_err("running config in %s: %s", m->store_dir,
			    err.msg);
			return (rv);
		}
		lc_log_info("running config: commit 0 of %d in %s", n,
		    m->store_dir);
		return (mgmt_store_newest(m->store_dir, &m->running_seq));
	}
	if (m->opts.boot_config != NULL) {
		if ((rv = mgmt_conf_load_file(m->opts.boot_config, &m->running,
			 &err)) != 0) {
			lc_log_err("%s", err.msg);
			return (rv);
		}
		struct mgmt_commit_meta meta;

		mgmt_commit_meta_self(&meta, "boot", m->opts.boot_config, "");
		meta.added = MGMT_META_ADDED_ALL;
		if ((rv = mgmt_store_commit_meta(m->store_dir, m->running,
			 &meta)) != 0) {
			lc_log_err("storing the boot config in %s: %s",
			    m->store_dir, strerror(-rv));
			return (rv);
		}
		lc_log_info("running config: %s (first commit)",
		    m->opts.boot_config);
		return (mgmt_store_newest(m->store_dir, &m->running_seq));
	}
	m->running = mgmt_conf_new();
	lc_log_info("running config: empty (no commits in %s)", m->store_dir);
	return (0);
}

void
mgmt_apply_system(struct mgmt *m)
{
	struct mgmt_system_conf sys;
	struct lc_err err;

	mgmt_conf_system_get(m->running, &sys);
	snprintf(m->host_name, sizeof(m->host_name), "%s",
	    sys.host_name[0] != '\0' ? sys.host_name : "tern");
	if (mgmt_metrics_apply(m, sys.metrics_addr,
		sys.metrics ? sys.metrics_port : 0, &err) != 0)
		lc_log_warnx("%s", err.msg);
}

struct mgmt *
mgmt_new(struct ev_loop *loop, const struct mgmt_opts *opts)
{
	struct mgmt *m;
	struct ipc_opts io = {0};
	struct lc_err merr;
	int rv;

	if (opts->store_dir == NULL || opts->store_dir[0] == '\0') {
		errno = EINVAL;
		return (NULL);
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return (NULL);
	m->loop = loop;
	m->opts = *opts;
	snprintf(m->store_dir, sizeof(m->store_dir), "%s", opts->store_dir);
	LIST_INIT(&m->sessions);
	ev_init(&m->confirm_timer, NULL);
	ev_init(&m->orphan_timer, NULL);
	if ((rv = store_dir_init(m->store_dir)) != 0 ||
	    (rv = load_running(m)) != 0) {
		free(m);
		errno = rv == -EINVAL ? EINVAL : -rv;
		return (NULL);
	}
	mgmt_apply_system(m);
	/* the candidates of the sessions of the tern-mgmt before, then its
	 * commit confirmed (whose rollback resets them) */
	(void)mgmt_persist_init(m);
	mgmt_commit_confirm_resume(m);
	if (opts->no_server)
		return (m);

	io.rundir = opts->rundir;
	io.component = "mgmt";
	io.generation = opts->generation;
	if ((m->server = ipc_server_new(loop, &ipc_svc_mgmt, &io)) == NULL) {
		rv = errno;
		lc_log_warn("mgmt server in %s", ipc_rundir(opts->rundir));
		mgmt_free(m);
		errno = rv;
		return (NULL);
	}
	{
		struct ipc_server_cbs cbs = {.on_peer_gone = on_peer_gone,
		    .arg = m};

		ipc_server_set_cbs(m->server, &cbs);
	}
	ipc_server_handle(m->server, MGMT__METHOD__SESSION_OPEN, h_session_open,
	    m);
	ipc_server_handle(m->server, MGMT__METHOD__SESSION_CLOSE,
	    h_session_close, m);
	ipc_server_handle(m->server, MGMT__METHOD__EXECUTE, h_execute, m);
	ipc_server_handle(m->server, MGMT__METHOD__COMPLETE, h_complete, m);
	ipc_server_handle(m->server, MGMT__METHOD__INTERRUPT, h_interrupt, m);
	ipc_server_handle(m->server, MGMT__METHOD__REQUEST, h_request, m);
	/* the schema's leaves to their fields, once: a row that names no
	 * usable field stops mgmt here, not at the first commit */
	if (mgmt_wire_init(mgmt_schema, &merr) != 0) {
		lc_log_err("%s", merr.msg);
		mgmt_free(m);
		errno = EINVAL;
		return (NULL);
	}
	if ((rv = mgmt_push_init(m)) != 0) {
		lc_log_err("clients of tern-fwd and tern-rib: %s",
		    strerror(-rv));
		mgmt_free(m);
		errno = -rv;
		return (NULL);
	}
	ipc_server_set_state(m->server, "running");
	return (m);
}

void
mgmt_free(struct mgmt *m)
{
	struct mgmt_session *s;

	if (m == NULL)
		return;
	/* a stop is not the end of the sessions: their candidates wait for
	 * their shells in the next tern-mgmt */
	while ((s = LIST_FIRST(&m->sessions)) != NULL)
		mgmt_session_free(m, s, true);
	mgmt_metrics_free(m);
	mgmt_persist_fini(m);
	mgmt_commit_fini(m);
	mgmt_push_fini(m);
	ipc_server_free(m->server);
	if (m->running != NULL)
		mgmt_conf_free(m->running);
	free(m);
}

int
mgmt_commit_count(const struct mgmt *m)
{
	return (mgmt_store_count(m->store_dir));
}

int
mgmt_server_stats(struct mgmt *m, struct ipc_stats *st)
{
	if (m->server == NULL)
		return (-ENOENT);
	ipc_server_stats(m->server, st);
	return (0);
}
