/* mgmt/shell/sh_session.c: ternsh's session with tern-mgmt over libtern-ipc (execute, complete). */
#include "sh.h"

#include <errno.h>
#include <stdio.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_loop.h"

struct sh_session {
	struct ev_loop *loop;
	struct ipc_client *client;
	struct lc_arena *arena; /* replies; reset per call */
	uint64_t id;		/* mgmt's session id */
	/* its token (Reply.token): presented when a new mgmt answers, so
	 * that a candidate kept for the session comes back */
	char token[64];
	bool read_only;
	bool configure; /* mgmt said so in its last reply */
	/* the session is gone with the mgmt that had it: a new mgmt (another
	 * generation) answered, or our connection was lost */
	bool lost;
	unsigned timeout_ms;
	const char *cand[512];
	const char *help[512];
	bool hint[512];
	char errbuf[512];
	char notes[2048];   /* sh_session_notes(): lines to tell the user */
	struct lc_err ierr; /* of the last ipc_call_wait */
	/* a streaming command: where its output goes, what came before its
	 * reply was taken in, and how it ended */
	sh_output_fn *out_fn;
	void *out_arg;
	struct lc_buf early, collected;
	bool live, done;
	int done_code;
	unsigned interrupts;
};

void
sh_session_set_output(struct sh_session *s, sh_output_fn *fn, void *arg)
{
	s->out_fn = fn;
	s->out_arg = arg;
}

static void
stream_out(struct sh_session *s, const char *text)
{
	if (text == NULL || text[0] == '\0')
		return;
	if (!s->live)
		lc_buf_append(&s->early, text, strlen(text));
	else if (s->out_fn != NULL)
		s->out_fn(s->out_arg, text);
	else
		lc_buf_append(&s->collected, text, strlen(text));
}

/* OUTPUT events of our session's streaming command. */
static void
on_event(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    void *arg)
{
	struct sh_session *s = arg;
	const Mgmt__Output *o = (const Mgmt__Output *)msg;

	(void)cl;
	if (method != MGMT__METHOD__OUTPUT || o == NULL || o->session != s->id)
		return;
	stream_out(s, o->text);
	if (o->done) {
		s->done = true;
		s->done_code = o->code;
		snprintf(s->errbuf, sizeof(s->errbuf), "%s",
		    o->error != NULL ? o->error : "");
	}
}

static void
interrupt_done(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	(void)arg;
	(void)status;
	(void)err;
	(void)msg;
}

/* ^C while a command streams: ask mgmt to end it (ping then prints its
 * summary); a second one stops waiting. */
static void
on_sigint(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct sh_session *s = w->data;
	Mgmt__SessionRequest req = MGMT__SESSION_REQUEST__INIT;

	(void)loop;
	(void)revents;
	if (s->interrupts++ > 0) {
		s->done = true;
		s->done_code = -1;
		snprintf(s->errbuf, sizeof(s->errbuf),
		    "interrupted: stopped waiting for the command");
		return;
	}
	stream_out(s, "\n"); /* after the terminal's ^C */
	req.session = s->id;
	(void)ipc_call(s->client, MGMT__METHOD__INTERRUPT, &req.base,
	    interrupt_done, s, s->timeout_ms);
}

/* The rest of a streaming command, after its first reply: until its last
 * OUTPUT, the connection's end, or a second ^C. */
static void
stream_wait(struct sh_session *s, const char *first, struct sh_result *res)
{
	ev_signal sig;

	s->live = true;
	stream_out(s, first);
	if (lc_buf_avail(&s->early) > 0) {
		lc_buf_append(&s->early, "", 1);
		stream_out(s, (const char *)lc_buf_head(&s->early));
	}
	lc_buf_reset(&s->early);
	s->interrupts = 0;
	ev_signal_init(&sig, on_sigint, SIGINT);
	sig.data = s;
	ev_signal_start(s->loop, &sig);
	while (!s->done) {
		if (s->lost || !ipc_client_connected(s->client)) {
			s->done_code = -1;
			snprintf(s->errbuf, sizeof(s->errbuf),
			    "tern-mgmt: the connection was lost while the "
			    "command ran");
			s->lost = true;
			break;
		}
		ev_run(s->loop, EVRUN_ONCE);
	}
	ev_signal_stop(s->loop, &sig);
	s->live = false;
	res->code = s->done_code;
	res->error = s->errbuf;
	res->streamed = s->out_fn != NULL;
	lc_buf_append(&s->collected, "", 1);
	res->text = s->out_fn != NULL ?
	    "" :
	    (const char *)lc_buf_head(&s->collected);
}

bool
sh_session_read_only(const struct sh_session *s)
{
	return (s->read_only);
}

static const char *
user_name(void)
{
	struct passwd *pw = getpwuid(getuid());

	return (pw != NULL ? pw->pw_name : "unknown");
}

/* Our terminal as "pts/3" (what tern-mgmt records as the "from" of our
 * commits), "" without one. */
static const char *
tty_name(void)
{
	const char *t = ttyname(STDIN_FILENO);

	if (t == NULL)
		return ("");
	return (strncmp(t, "/dev/", 5) == 0 ? t + 5 : t);
}

bool
sh_session_configuring(const struct sh_session *s)
{
	return (s->configure);
}

const char *
sh_session_notes(struct sh_session *s)
{
	static char told[sizeof(s->notes)];

	snprintf(told, sizeof(told), "%s", s->notes);
	s->notes[0] = '\0';
	return (told);
}

/* mgmt's notices of a reply, each line as "notice: LINE". */
static void
take_notices(struct sh_session *s, const Mgmt__Reply *r)
{
	for (size_t i = 0; i < r->n_notices; i++) {
		const char *p = r->notices[i], *e;

		for (; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
			e = strchr(p, '\n');
			if (e == NULL)
				e = p + strlen(p);
			if (e > p)
				(void)lc_str_addline(s->notes, sizeof(s->notes),
				    "notice: %.*s", (int)(e - p), p);
		}
	}
}

static void
on_peer_restart(struct ipc_client *cl, uint64_t old_gen, uint64_t new_gen,
    void *arg)
{
	struct sh_session *s = arg;

	(void)cl;
	(void)old_gen;
	(void)new_gen;
	s->lost = true; /* a new mgmt does not know our session */
}

/* SESSION_OPEN: 0 with s->id set, or the IPC status. With the token of
 * the session before (a new mgmt), *resumed says whether it gave its
 * candidate back. */
static int
session_open(struct sh_session *s, bool *resumed)
{
	Mgmt__SessionOpen req = MGMT__SESSION_OPEN__INIT;
	ProtobufCMessage *rep = NULL;
	Mgmt__Reply *r;
	int st;

	lc_arena_reset(s->arena);
	req.user = (char *)user_name();
	req.read_only = s->read_only;
	req.tty = (char *)tty_name();
	req.resume_token = s->token;
	st = ipc_call_wait(s->client, MGMT__METHOD__SESSION_OPEN, &req.base,
	    s->timeout_ms, s->arena, &rep, &s->ierr);
	if (st != IPC_OK)
		return (st);
	r = (Mgmt__Reply *)rep;
	s->id = r->session;
	/* an mgmt older than tokens sends none: nothing to come back to */
	snprintf(s->token, sizeof(s->token), "%s",
	    r->token != NULL ? r->token : "");
	s->configure = r->mode == MGMT__MODE__CONFIGURE;
	if (resumed != NULL)
		*resumed = r->resumed;
	take_notices(s, r);
	s->lost = false;
	lc_arena_reset(s->arena);
	return (IPC_OK);
}

/*
 * Before a call: take in what came while we were not looking (the end of
 * the connection to an mgmt that stopped, its successor's hello), and when
 * the session went with the old mgmt, open a new one and say so. true when
 * there is a session to ask in.
 */
static bool
session_ensure(struct sh_session *s)
{
	bool had_candidate = s->configure, resumed = false;
	uint64_t old = s->id;
	char told[sizeof(s->notes)];
	size_t n0 = strlen(s->notes);
	int st;

	ev_run(s->loop, EVRUN_NOWAIT);
	if (!s->lost && ipc_client_connected(s->client))
		return (true);
	s->lost = true;
	if ((st = session_open(s, &resumed)) != IPC_OK) {
		snprintf(s->errbuf, sizeof(s->errbuf),
		    "tern-mgmt: %s%s%s (the connection was lost; the command "
		    "was not sent)",
		    ipc_status_str(st), s->ierr.msg[0] ? ": " : "",
		    s->ierr.msg);
		return (false);
	}
	/* our line first, then what mgmt said of the session */
	snprintf(told, sizeof(told), "%s", s->notes + n0);
	s->notes[n0] = '\0';
	if (resumed)
		(void)lc_str_addline(s->notes, sizeof(s->notes),
		    "ternsh: tern-mgmt restarted: reconnected in session %llu "
		    "with the candidate of session %llu (its uncommitted "
		    "changes are kept)",
		    (unsigned long long)s->id, (unsigned long long)old);
	else
		(void)lc_str_addline(s->notes, sizeof(s->notes),
		    "ternsh: tern-mgmt restarted: reconnected in session "
		    "%llu%s",
		    (unsigned long long)s->id,
		    had_candidate ? "; the old session's candidate is lost" :
				    "");
	n0 = strlen(s->notes);
	snprintf(s->notes + n0, sizeof(s->notes) - n0, "%s", told);
	return (true);
}

struct sh_session *
sh_session_new(const char *rundir, unsigned timeout_ms, struct lc_err *err)
{
	struct sh_session *s;
	struct ipc_opts opts = {0};
	struct ipc_client_cbs cbs = {0};
	char path[4096];
	int st;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (NULL);
	}
	s->timeout_ms = timeout_ms;
	opts.rundir = ipc_rundir(rundir);
	opts.component = "ternsh";
	opts.timeout_ms = timeout_ms;
	/* The admin socket when we may write it; else read-only access. */
	snprintf(path, sizeof(path), "%s/mgmt.sock", opts.rundir);
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "no tern-mgmt socket at %s (is the router "
		    "running? start it with 'make run' or tern-rtrmgr; set "
		    "--rundir or TERN_RUNDIR if it uses another directory)",
		    path);
		free(s);
		return (NULL);
	}
	s->read_only = access(path, W_OK) != 0 && errno == EACCES;
	if ((s->loop = lc_loop_new()) == NULL ||
	    (s->arena = lc_arena_new(0)) == NULL ||
	    (s->client = ipc_client_new(s->loop, &ipc_svc_mgmt, &opts,
		 s->read_only)) == NULL) {
		lc_err_set(err, -errno, LC_ERR_NOINDEX,
		    "cannot set up a connection to tern-mgmt "
		    "in %s: %s",
		    opts.rundir, strerror(errno));
		sh_session_free(s);
		return (NULL);
	}
	cbs.on_peer_restart = on_peer_restart;
	cbs.on_event = on_event;
	cbs.arg = s;
	ipc_client_set_cbs(s->client, &cbs);
	if ((st = session_open(s, NULL)) == IPC_DENIED) {
		char adm[512];

		/* At once, and what each socket needs (issue 24). */
		lc_err_set(err, -EACCES, LC_ERR_NOINDEX,
		    "cannot reach tern-mgmt: %s%s%s", s->ierr.msg,
		    s->read_only ? "; for configuration, " : "",
		    s->read_only ? ipc_access_explain(path, adm, sizeof(adm)) :
				   "");
		s->id = 0;
		sh_session_free(s);
		return (NULL);
	}
	if (st != IPC_OK) {
		lc_err_set(err, s->ierr.code != 0 ? s->ierr.code : -EIO,
		    LC_ERR_NOINDEX,
		    "cannot reach tern-mgmt at %s/mgmt%s.sock: "
		    "%s%s%s (is the router running? start it with 'make run' or "
		    "tern-rtrmgr)",
		    opts.rundir, s->read_only ? "-ro" : "", ipc_status_str(st),
		    s->ierr.msg[0] ? ": " : "", s->ierr.msg);
		s->id = 0;
		sh_session_free(s);
		return (NULL);
	}
	return (s);
}

void
sh_session_free(struct sh_session *s)
{
	if (s == NULL)
		return;
	if (s->client != NULL && s->id != 0 && !s->lost) {
		Mgmt__SessionRequest req = MGMT__SESSION_REQUEST__INIT;
		ProtobufCMessage *rep;

		req.session = s->id;
		(void)ipc_call_wait(s->client, MGMT__METHOD__SESSION_CLOSE,
		    &req.base, 1000, s->arena, &rep, &s->ierr);
	}
	ipc_client_free(s->client);
	lc_buf_fini(&s->early);
	lc_buf_fini(&s->collected);
	if (s->arena != NULL)
		lc_arena_free(s->arena);
	if (s->loop != NULL)
		lc_loop_free(s->loop);
	free(s);
}

/* mgmt refused the call for a session it does not know: nothing ran. */
static bool
no_session(int st, const struct lc_err *e)
{
	return (
	    st == IPC_BAD_REQUEST && strncmp(e->msg, "no session ", 11) == 0);
}

/* "restart mgmt": the connection ending is the command working. */
static bool
is_restart_mgmt(const char *line)
{
	char a[16], b[16], c[2];

	return (sscanf(line, "%15s %15s %1s", a, b, c) == 2 &&
	    strcmp(a, "restart") == 0 && strcmp(b, "mgmt") == 0);
}

int
sh_session_exec(struct sh_session *s, const char *line, bool json,
    struct sh_result *res)
{
	return (sh_session_exec_io(s, line, json, NULL, res));
}

int
sh_session_exec_io(struct sh_session *s, const char *line, bool json,
    struct sh_io *io, struct sh_result *res)
{
	Mgmt__ExecuteRequest req = MGMT__EXECUTE_REQUEST__INIT;
	ProtobufCMessage *rep = NULL;
	Mgmt__Reply *r;
	int st, tries = 0;

	memset(res, 0, sizeof(*res));
	lc_buf_reset(&s->early);
	lc_buf_reset(&s->collected);
	s->done = false;
	s->errbuf[0] = '\0';
	if (io != NULL) {
		req.client_file = true;
		req.data.data = (uint8_t *)io->data;
		req.data.len = io->len;
		req.data_offset = io->offset;
		req.data_more = io->more;
		io->out = NULL;
		io->out_len = 0;
		io->out_total = 0;
	}
again:
	if (!session_ensure(s)) {
		res->code = -1;
		res->error = s->errbuf;
		return (-ENOTCONN);
	}
	lc_arena_reset(s->arena);
	req.session = s->id;
	req.line = (char *)line;
	req.format = json ? MGMT__FORMAT__JSON : MGMT__FORMAT__TEXT;
	st = ipc_call_wait(s->client, MGMT__METHOD__EXECUTE, &req.base,
	    s->timeout_ms, s->arena, &rep, &s->ierr);
	if (no_session(st, &s->ierr) && tries++ == 0) {
		s->lost = true; /* refused, not run: once more, in a new one */
		goto again;
	}
	if (st == IPC_PEER_RESTARTED) {
		/* mgmt went away with the command: reconnect now, so that the
		 * next prompt is the new session's */
		s->lost = true;
		if (is_restart_mgmt(line) && session_ensure(s)) {
			res->text = "mgmt: restarted\n";
			res->prompt = "";
			return (0);
		}
		snprintf(s->errbuf, sizeof(s->errbuf),
		    "tern-mgmt: the connection was lost while the command ran: "
		    "its outcome is unknown (check with show commands)");
		(void)session_ensure(s);
		res->code = -1;
		res->error = s->errbuf;
		return (-ECONNRESET);
	}
	if (st != IPC_OK) {
		snprintf(s->errbuf, sizeof(s->errbuf), "tern-mgmt: %s%s%s",
		    ipc_status_str(st), s->ierr.msg[0] ? ": " : "",
		    s->ierr.msg);
		res->code = -1;
		res->error = s->errbuf;
		return (st == IPC_TIMEOUT ? -ETIMEDOUT : -EIO);
	}
	r = (Mgmt__Reply *)rep;
	take_notices(s, r);
	s->configure = r->mode == MGMT__MODE__CONFIGURE;
	res->code = r->code;
	res->text = r->text;
	res->error = r->error;
	res->prompt = r->prompt;
	res->configure = s->configure;
	res->header = r->table_header;
	res->footer = r->table_footer;
	if (io != NULL) {
		io->out = r->data.data;
		io->out_len = r->data.len;
		io->out_total = r->data_total;
	}
	if (r->streaming && r->code == MGMT__CODE__OK)
		stream_wait(s, r->text, res);
	return (res->code == -1 ? -ECONNRESET : 0);
}

int
sh_session_complete(struct sh_session *s, const char *line, size_t cursor,
    bool help, struct sh_completion *out)
{
	Mgmt__CompleteRequest req = MGMT__COMPLETE_REQUEST__INIT;
	ProtobufCMessage *rep = NULL;
	Mgmt__CompleteReply *r;
	size_t n;
	int st;

	memset(out, 0, sizeof(*out));
	if (!session_ensure(s))
		return (-ENOTCONN);
	lc_arena_reset(s->arena);
	req.session = s->id;
	req.line = (char *)line;
	req.cursor = (uint32_t)cursor;
	req.help = help;
	st = ipc_call_wait(s->client, MGMT__METHOD__COMPLETE, &req.base,
	    s->timeout_ms, s->arena, &rep, &s->ierr);
	if (no_session(st, &s->ierr) || st == IPC_PEER_RESTARTED)
		s->lost = true; /* a new session at the next call */
	if (st != IPC_OK)
		return (-EIO);
	r = (Mgmt__CompleteReply *)rep;
	n = r->n_candidates;
	if (n > sizeof(s->cand) / sizeof(s->cand[0]))
		n = sizeof(s->cand) / sizeof(s->cand[0]);
	for (size_t i = 0; i < n; i++) {
		s->cand[i] = r->candidates[i];
		s->help[i] = i < r->n_help ? r->help[i] : NULL;
		s->hint[i] = i < r->n_placeholder && r->placeholder[i];
	}
	out->n = (unsigned)n;
	out->cand = s->cand;
	out->help = s->help;
	out->hint = s->hint;
	out->common = r->common_prefix != NULL ? r->common_prefix : "";
	return (0);
}

void
sh_print_notes(struct sh_session *s, FILE *f)
{
	const char *n = sh_session_notes(s);

	if (n[0] != '\0') {
		fflush(stdout); /* after what earlier commands printed */
		fputs(n, f);
		fflush(f);
	}
}

/* The command's output through the pipeline, and the pager when on. */
static void
run_output(const struct sh_pipeline *p, const struct sh_result *res, FILE *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (!sh_more_enabled() || sh_pipeline_no_more(p) ||
	    (mem = open_memstream(&buf, &len)) == NULL) {
		sh_pipeline_print(p, res->text, res->header, res->footer, out);
		return;
	}
	sh_pipeline_print(p, res->text, res->header, res->footer, mem);
	fclose(mem);
	sh_more(buf, len, out);
	free(buf);
}

struct line_out {
	const struct sh_pipeline *p;
	FILE *out;
};

/* A streaming command's output as it comes, through the pipe's stages. */
static void
line_stream(void *arg, const char *text)
{
	struct line_out *lo = arg;

	sh_pipeline_output(lo->p, text, lo->out);
	fflush(lo->out);
}

int
sh_run_line(struct sh_session *s, const char *line, FILE *out, FILE *err)
{
	struct sh_pipeline p;
	struct sh_result res;
	struct lc_err msg;
	struct line_out lo;
	bool whole = false;
	int rv;

	if (sh_pipeline_parse(line, &p, &msg) != 0) {
		fprintf(err, "error: %s\n", msg.msg);
		return (1);
	}
	if (p.command[0] == '\0') {
		sh_pipeline_fini(&p);
		return (0);
	}
	/* save and load: the file is ours to read and write */
	if (sh_file_cmd(s, p.command, out, err, &rv)) {
		sh_pipeline_fini(&p);
		return (rv);
	}
	/* stages that need the whole output (count, json) get it at the end;
	 * match and except take it as it comes */
	for (unsigned i = 0; i < p.n; i++)
		if (p.stages[i].kind == SH_STAGE_COUNT ||
		    p.stages[i].kind == SH_STAGE_JSON)
			whole = true;
	lo.p = &p;
	lo.out = out;
	sh_session_set_output(s, whole ? NULL : line_stream, &lo);
	rv = sh_session_exec(s, p.command, p.json, &res);
	sh_session_set_output(s, NULL, NULL);
	sh_print_notes(s, err);
	if (rv != 0 || res.code != 0) {
		if (res.text != NULL && res.text[0] != '\0')
			run_output(&p, &res, out);
		fprintf(err, "error: %s\n",
		    res.error != NULL && res.error[0] ? res.error :
							"command failed");
		sh_pipeline_fini(&p);
		return (1);
	}
	run_output(&p, &res, out);
	sh_pipeline_fini(&p);
	return (0);
}
