/* mgmt/mgmt_persist.c: what a restart of tern-mgmt must not lose of its
 * sessions: each configuring session's candidate, journaled so that the
 * next tern-mgmt rebuilds it and gives it back to the shell that presents
 * the session's token. */
#include "mgmt_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ipc/ipc.h"
#include "libcommon/lc_file.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_proc.h"
#include "libcommon/lc_time.h"

/*
 * A journal, RUNDIR/mgmt-sessions/cand.<16 hex>, mode 0600 in a 0700
 * directory (it holds the session's token):
 *
 *   #tern-candidate {"version":1,"token":...,"user":...,"uid":...,"base":SEQ,"time":...}
 *   {"op":"shell","pid":P,"start":T}
 *   {"op":"set","w":["system","host-name","r1"]}
 *   {"op":"delete","w":[...]}
 *   {"op":"load","mode":"merge","name":"x.conf","len":N}
 *   <N bytes of the file's text>
 *
 * The candidate is commit SEQ of the store (0: the empty config) with the
 * edits done in order. Every record is appended with write(2) as the edit
 * is made, and not fsync'ed: what must survive is a kill of tern-mgmt
 * (the page cache keeps it); a reboot ends the shells too (and RUNDIR is
 * a tmpfs). A record cut short by a kill is dropped (its command was never
 * answered). A new base (commit, discard, rollback) writes a new file and
 * renames it over the old: the journal never grows past one base.
 *
 * Why a journal and not the candidate itself: printing a 1M-route
 * candidate takes 0.3-0.6 s and writes 76 MB (docs/config.md), on every
 * `set`; an append is a few microseconds whatever the size of the config
 * (test_conf_scale measures both). The price is paid once, at the next
 * start: the base is loaded (already loaded when it is running) and the
 * edits replayed.
 */
#define JOURNAL_TAG	"#tern-candidate "
#define JOURNAL_VERSION 1
/* An orphan waits for its shell this long after tern-mgmt started (while
 * the shell's process runs; a shell that ended frees it at once). */
#define ORPHAN_TTL_MS (3600LL * 1000)

static int64_t
wall_ms(void)
{
	return ((int64_t)(lc_time_real_ns() / LC_NS_PER_MSEC));
}

/* ORPHAN_TTL_MS, unless the test hook TERN_MGMT_ORPHAN_TTL_MS is set. */
static int64_t
orphan_ttl_ms(void)
{
	const char *s = getenv("TERN_MGMT_ORPHAN_TTL_MS");
	long long v;

	if (s != NULL && (v = strtoll(s, NULL, 10)) > 0)
		return ((int64_t)v);
	return (ORPHAN_TTL_MS);
}

static void
hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* n random bytes as hex into out (2n + 1 bytes); 0 or -errno. */
static int
random_hex(char *out, size_t n)
{
	uint8_t b[32];
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return (r < 0 ? -errno : -EIO);
		got += (size_t)r;
	}
	hex(out, b, n);
	return (0);
}

/* "HH:MM:SS UTC" of a CLOCK_REALTIME ms */
static const char *
utc_hms(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "?");
	else
		strftime(buf, len, "%H:%M:%S UTC", &tm);
	return (buf);
}

static bool
token_eq(const char *a, const char *b)
{
	unsigned char d = 0;

	if (strlen(a) != MGMT_TOKEN_LEN || strlen(b) != MGMT_TOKEN_LEN)
		return (false);
	for (size_t i = 0; i < MGMT_TOKEN_LEN; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return (d == 0);
}

static int
jpath(const struct mgmt *m, const char *name, const char *suffix, char *buf,
    size_t len)
{
	if (snprintf(buf, len, "%s/%s%s", m->sess_dir, name, suffix) >=
	    (int)len)
		return (-ENAMETOOLONG);
	return (0);
}

/* ---- writing ---------------------------------------------------------------------- */

/* The session is told once that its candidate would not survive, and
 * keeps working. */
void
mgmt_persist_drop(struct mgmt *m, struct mgmt_session *s, const char *what,
    int rv)
{
	char path[PATH_MAX];

	if (m->sess_dir[0] == '\0')
		return;
	if (s->jfd >= 0)
		close(s->jfd);
	s->jfd = -1;
	if (s->jname[0] != '\0' &&
	    jpath(m, s->jname, "", path, sizeof(path)) == 0)
		(void)unlink(path);
	s->jname[0] = '\0';
	lc_log_warn("session %llu of %s: cannot %s its candidate's journal in "
		    "%s: %s (the candidate is not kept across a restart of "
		    "tern-mgmt)",
	    (unsigned long long)s->id, s->user, what, m->sess_dir,
	    strerror(-rv));
	(void)lc_str_addline(s->notices, sizeof(s->notices),
	    "tern-mgmt cannot keep your candidate (cannot %s its journal: "
	    "%s): it would be lost if tern-mgmt restarted; commit or save it",
	    what, strerror(-rv));
}

static void
json_line(struct json_object *o, struct lc_buf *b)
{
	lc_buf_printf(b, "%s\n",
	    json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* {"op":"shell",...}: who may come back for it (the last such record) */
static void
shell_record(const struct mgmt_session *s, struct lc_buf *b)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("shell"));
	json_object_object_add(o, "pid", json_object_new_int64(s->pid));
	json_object_object_add(o, "start",
	    json_object_new_int64((int64_t)s->start));
	json_line(o, b);
}

static void
append(struct mgmt *m, struct mgmt_session *s, const void *p, size_t len)
{
	int rv;

	if (s->jfd < 0 || len == 0)
		return;
	if ((rv = lc_write_all(s->jfd, p, len)) != 0)
		mgmt_persist_drop(m, s, "append to", rv);
}

void
mgmt_persist_rebase(struct mgmt *m, struct mgmt_session *s, unsigned long base)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct json_object *o;
	struct lc_buf b;
	int fd, rv;

	if (m->sess_dir[0] == '\0' || s->candidate == NULL)
		return;
	if (s->jname[0] == '\0') {
		char r[17];

		if ((rv = random_hex(r, 8)) != 0) {
			mgmt_persist_drop(m, s, "name", rv);
			return;
		}
		snprintf(s->jname, sizeof(s->jname), "cand.%s", r);
	}
	if (jpath(m, s->jname, "", path, sizeof(path)) != 0 ||
	    jpath(m, s->jname, ".tmp", tmp, sizeof(tmp)) != 0) {
		mgmt_persist_drop(m, s, "name", -ENAMETOOLONG);
		return;
	}
	lc_buf_init(&b);
	o = json_object_new_object();
	json_object_object_add(o, "version",
	    json_object_new_int(JOURNAL_VERSION));
	json_object_object_add(o, "token", json_object_new_string(s->token));
	json_object_object_add(o, "user", json_object_new_string(s->user));
	json_object_object_add(o, "uid", json_object_new_int64(s->uid));
	json_object_object_add(o, "base", json_object_new_int64((int64_t)base));
	json_object_object_add(o, "time",
	    json_object_new_int64(wall_ms() / 1000));
	lc_buf_printf(&b, "%s", JOURNAL_TAG);
	json_line(o, &b);
	shell_record(s, &b);
	/* a new file renamed over the old: a kill leaves one or the other */
	(void)unlink(tmp);
	if ((fd = open(tmp,
		 O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW |
		     O_CLOEXEC,
		 0600)) < 0) {
		rv = -errno;
		lc_buf_fini(&b);
		mgmt_persist_drop(m, s, "create", rv);
		return;
	}
	if ((rv = lc_write_all(fd, lc_buf_head(&b), lc_buf_avail(&b))) != 0 ||
	    (rename(tmp, path) != 0 && (rv = -errno) != 0)) {
		close(fd);
		(void)unlink(tmp);
		lc_buf_fini(&b);
		mgmt_persist_drop(m, s, "write", rv);
		return;
	}
	lc_buf_fini(&b);
	if (s->jfd >= 0)
		close(s->jfd);
	s->jfd = fd;
}

void
mgmt_persist_edit(struct mgmt *m, struct mgmt_session *s, const char *op,
    const char *const *w, unsigned nw)
{
	struct json_object *o, *a;
	struct lc_buf b;

	if (s->jfd < 0)
		return;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "op", json_object_new_string(op));
	for (unsigned i = 0; i < nw; i++)
		json_object_array_add(a, json_object_new_string(w[i]));
	json_object_object_add(o, "w", a);
	lc_buf_init(&b);
	json_line(o, &b);
	append(m, s, lc_buf_head(&b), lc_buf_avail(&b));
	lc_buf_fini(&b);
}

void
mgmt_persist_load(struct mgmt *m, struct mgmt_session *s,
    enum mgmt_load_mode mode, const char *name, const void *text, size_t len)
{
	struct json_object *o;
	struct lc_buf b;

	if (s->jfd < 0)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "op", json_object_new_string("load"));
	json_object_object_add(o, "mode",
	    json_object_new_string(
		mode == MGMT_LOAD_MERGE ? "merge" : "replace"));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "len", json_object_new_int64((int64_t)len));
	lc_buf_init(&b);
	json_line(o, &b);
	/* the text after its line, then a newline: a record cut short by
	 * a kill is shorter than its len and is dropped whole */
	append(m, s, lc_buf_head(&b), lc_buf_avail(&b));
	append(m, s, text, len);
	append(m, s, "\n", 1);
	lc_buf_fini(&b);
}

void
mgmt_persist_end(struct mgmt *m, struct mgmt_session *s, bool keep)
{
	char path[PATH_MAX];

	if (s->jfd >= 0)
		close(s->jfd);
	s->jfd = -1;
	if (!keep && s->jname[0] != '\0' &&
	    jpath(m, s->jname, "", path, sizeof(path)) == 0)
		(void)unlink(path);
	s->jname[0] = '\0';
}

void
mgmt_persist_session_new(struct mgmt *m, struct mgmt_session *s)
{
	(void)m;
	s->jfd = -1;
	/* without a token the session just cannot come back */
	if (random_hex(s->token, MGMT_TOKEN_LEN / 2) != 0)
		s->token[0] = '\0';
	s->start = s->pid > 0 ? lc_proc_starttime((pid_t)s->pid) : 0;
}

/* ---- orphans: candidates waiting for their shell ---------------------------------- */

/* Whether the shell of s may still come back: its process runs (the same
 * one: pid and start time). Unknown (no pid, /proc hidden): yes, and its
 * time decides. */
static bool
shell_runs(const struct mgmt_session *s)
{
	uint64_t st;

	if (s->pid <= 0)
		return (true);
	if ((st = lc_proc_starttime((pid_t)s->pid)) != 0)
		return (s->start == 0 || st == s->start);
	return (kill((pid_t)s->pid, 0) == 0 || errno == EPERM);
}

static void
orphan_expire(struct mgmt *m, struct mgmt_session *s, const char *why)
{
	unsigned i = m->nexpired++ %
	    (sizeof(m->expired) / sizeof(m->expired[0]));

	lc_log_notice("session %llu of %s (kept since tern-mgmt restarted): "
		      "its candidate is dropped, uncommitted changes lost: %s",
	    (unsigned long long)s->id, s->user, why);
	snprintf(m->expired[i].token, sizeof(m->expired[i].token), "%s",
	    s->token);
	m->expired[i].when = wall_ms();
	mgmt_session_free(m, s, false);
}

bool
mgmt_persist_orphan_alive(struct mgmt *m, struct mgmt_session *s)
{
	char why[128];

	if (!s->orphan)
		return (true);
	if (!shell_runs(s)) {
		snprintf(why, sizeof(why), "its shell (pid %ld) has ended",
		    s->pid);
		orphan_expire(m, s, why);
		return (false);
	}
	if (wall_ms() >= s->orphan_until) {
		snprintf(why, sizeof(why),
		    "its shell did not come back within %lld s",
		    (long long)(orphan_ttl_ms() / 1000));
		orphan_expire(m, s, why);
		return (false);
	}
	return (true);
}

void
mgmt_persist_orphan_why(const struct mgmt_session *s, char *buf, size_t len)
{
	char until[32];

	snprintf(buf, len,
	    "its shell has not come back since tern-mgmt restarted: its "
	    "candidate is kept for it until %s, or until that shell (pid "
	    "%ld) ends",
	    utc_hms(s->orphan_until, until, sizeof(until)), s->pid);
}

static void
orphan_check(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgmt *m = w->data;
	struct mgmt_session *s, *next;
	bool any = false;

	(void)revents;
	for (s = LIST_FIRST(&m->sessions); s != NULL; s = next) {
		next = LIST_NEXT(s, link);
		if (s->orphan && mgmt_persist_orphan_alive(m, s))
			any = true;
	}
	if (!any)
		ev_timer_stop(loop, w);
}

bool
mgmt_persist_resume(struct mgmt *m, struct mgmt_session *s, const char *token)
{
	struct mgmt_session *o;
	char when[32];

	if (token == NULL || token[0] == '\0')
		return (false);
	LIST_FOREACH(o, &m->sessions, link)
	if (o->orphan && token_eq(o->token, token))
		break;
	if (o == NULL || !mgmt_persist_orphan_alive(m, o)) {
		for (unsigned i = 0;
		     i < sizeof(m->expired) / sizeof(m->expired[0]); i++)
			if (m->expired[i].token[0] != '\0' &&
			    token_eq(m->expired[i].token, token))
				(void)lc_str_addline(s->notices,
				    sizeof(s->notices),
				    "the candidate of your session before "
				    "tern-mgmt restarted was dropped at %s "
				    "(its shell did not come back in time): "
				    "its uncommitted changes are lost",
				    utc_hms(m->expired[i].when, when,
					sizeof(when)));
		return (false);
	}
	if (o->uid != s->uid || s->read_only) {
		lc_log_notice(
		    "session %llu of %s (uid %ld) presented the token "
		    "of session %llu of uid %ld%s: refused",
		    (unsigned long long)s->id, s->user, s->uid,
		    (unsigned long long)o->id, o->uid,
		    s->read_only ? " on the read-only socket" : "");
		return (false);
	}
	/* s takes it all; the orphan goes without its journal */
	s->candidate = o->candidate;
	o->candidate = NULL;
	s->configure = true;
	snprintf(s->token, sizeof(s->token), "%s", o->token);
	/* what happened to it meanwhile (lines ending in '\n') */
	{
		size_t n = strlen(s->notices);

		snprintf(s->notices + n, sizeof(s->notices) - n, "%s",
		    o->notices);
	}
	s->jfd = o->jfd;
	o->jfd = -1;
	snprintf(s->jname, sizeof(s->jname), "%s", o->jname);
	o->jname[0] = '\0';
	if (m->lock == o)
		m->lock = s;
	lc_log_notice("session %llu of %s: the candidate of session %llu "
		      "(kept since tern-mgmt restarted) is back with its shell "
		      "(pid %ld)",
	    (unsigned long long)s->id, s->user, (unsigned long long)o->id,
	    s->pid);
	mgmt_session_free(m, o, false);
	/* the shell that has it now: a process of another pid after a
	 * second restart would not count as its shell */
	if (s->jfd >= 0) {
		struct lc_buf b;

		lc_buf_init(&b);
		shell_record(s, &b);
		append(m, s, lc_buf_head(&b), lc_buf_avail(&b));
		lc_buf_fini(&b);
	}
	return (true);
}

/* ---- reading, at start ------------------------------------------------------------- */

struct journal {
	char token[MGMT_TOKEN_LEN + 1];
	char user[32];
	long uid, pid;
	uint64_t start;
	unsigned long base;
	int64_t time;
};

static int64_t
jint(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_int))
		return (json_object_get_int64(v));
	return (dflt);
}

static const char *
jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return (json_object_get_string(v));
	return (NULL);
}

/* One JSON object of text[0..len) exactly (no NUL needed), or NULL. */
static struct json_object *
json_parse_len(const char *text, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (len > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return (NULL);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o != NULL &&
	    (json_tokener_get_error(tok) != json_tokener_success ||
		json_tokener_get_parse_end(tok) != len ||
		!json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return (o);
}

/* The words of a set or delete record into w (pointing into o). */
static int
jwords(struct json_object *o, const char **w, unsigned max)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, "w", &a) ||
	    !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) == 0 || n > max)
		return (-EINVAL);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_string))
			return (-EINVAL);
		w[i] = json_object_get_string(e);
	}
	return ((int)n);
}

/*
 * Replays the records of text[0..len) (after the header) into *cand.
 * *good: the length of the records replayed whole (a record cut short by
 * a kill ends it). 0, or -EINVAL with why (the journal does not fit its
 * base: dropped).
 */
static int
replay(const char *text, size_t len, struct journal *j, struct mgmt_conf *cand,
    size_t *good, char *why, size_t whylen)
{
	const char *p = text, *end = text + len;
	struct lc_err err;

	*good = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *w[64];
		struct json_object *o;
		const char *op;
		int rv = 0, n;

		if (nl == NULL)
			break; /* cut short */
		if ((o = json_parse_len(p, (size_t)(nl - p))) == NULL) {
			snprintf(why, whylen, "record at byte %zu is not JSON",
			    (size_t)(p - text));
			return (-EINVAL);
		}
		op = jstr(o, "op");
		p = nl + 1;
		if (op == NULL) {
			rv = -EINVAL;
			snprintf(why, whylen, "a record without op");
		} else if (strcmp(op, "shell") == 0) {
			j->pid = (long)jint(o, "pid", 0);
			j->start = (uint64_t)jint(o, "start", 0);
		} else if (strcmp(op, "set") == 0 ||
		    strcmp(op, "delete") == 0) {
			if ((n = jwords(o, w, 64)) < 0) {
				rv = -EINVAL;
				snprintf(why, whylen, "a %s without words", op);
			} else if ((rv = op[0] == 's' ?
					   mgmt_conf_set(cand, w, (unsigned)n,
					       &err) :
					   mgmt_conf_delete(cand, w,
					       (unsigned)n, &err)) != 0) {
				snprintf(why, whylen, "%s", err.msg);
			}
		} else if (strcmp(op, "load") == 0) {
			int64_t l = jint(o, "len", -1);
			const char *mode = jstr(o, "mode"),
				   *name = jstr(o, "name");

			if (l < 0 || mode == NULL || name == NULL) {
				rv = -EINVAL;
				snprintf(why, whylen,
				    "a load without its text");
			} else if ((size_t)(end - p) < (size_t)l + 1) {
				json_object_put(o);
				break; /* its text cut short */
			} else if ((rv = mgmt_conf_load_text(cand, name, p,
					(size_t)l,
					strcmp(mode, "merge") == 0 ?
					    MGMT_LOAD_MERGE :
					    MGMT_LOAD_REPLACE,
					&err)) != 0) {
				snprintf(why, whylen, "%s", err.msg);
			} else {
				p += l + 1;
			}
		} else {
			rv = -EINVAL;
			snprintf(why, whylen, "unknown op '%s'", op);
		}
		json_object_put(o);
		if (rv != 0)
			return (-EINVAL);
		*good = (size_t)(p - text);
	}
	return (0);
}

/* Header of the journal; 0 or -EINVAL. */
static int
header(const char *line, size_t len, struct journal *j)
{
	struct json_object *o;
	const char *t, *u;
	int rv = -EINVAL;

	if (len < strlen(JOURNAL_TAG) ||
	    memcmp(line, JOURNAL_TAG, strlen(JOURNAL_TAG)) != 0 ||
	    (o = json_parse_len(line + strlen(JOURNAL_TAG),
		 len - strlen(JOURNAL_TAG))) == NULL)
		return (-EINVAL);
	t = jstr(o, "token");
	u = jstr(o, "user");
	if (jint(o, "version", 0) == JOURNAL_VERSION && t != NULL &&
	    strlen(t) == MGMT_TOKEN_LEN && u != NULL) {
		snprintf(j->token, sizeof(j->token), "%s", t);
		snprintf(j->user, sizeof(j->user), "%s", u);
		j->uid = (long)jint(o, "uid", -1);
		j->base = (unsigned long)jint(o, "base", 0);
		j->time = jint(o, "time", 0);
		rv = 0;
	}
	json_object_put(o);
	return (rv);
}

/* Journal name of dir: rebuilds its candidate into an orphan, or removes
 * it (its shell is gone, it does not load). */
static void
load_one(struct mgmt *m, const char *name)
{
	char path[PATH_MAX], why[512] = "";
	struct mgmt_session *s, *l;
	struct mgmt_conf *cand = NULL;
	struct journal j = {0};
	struct lc_err err;
	struct stat st;
	const char *nl;
	char *buf = NULL;
	size_t len = 0, good;
	int fd = -1, rv;

	if (jpath(m, name, "", path, sizeof(path)) != 0)
		return;
	if ((rv = lc_open_regular(path, O_NOFOLLOW, MGMT_FILE_MAX, &fd, &st)) !=
	    0) {
		snprintf(why, sizeof(why), "%s", lc_open_regular_str(rv));
		goto drop;
	}
	buf = lc_xmalloc((size_t)st.st_size + 1, "candidate journal");
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	fd = -1;
	if ((nl = memchr(buf, '\n', len)) == NULL ||
	    header(buf, (size_t)(nl - buf), &j) != 0) {
		snprintf(why, sizeof(why), "not a journal of candidate");
		goto drop;
	}
	if (j.base == m->running_seq)
		cand = mgmt_conf_dup(m->running);
	else if (mgmt_store_load_seq(m->store_dir, j.base, &cand, &err) != 0) {
		snprintf(why, sizeof(why), "its base: %s", err.msg);
		goto drop;
	}
	if (replay(nl + 1, len - (size_t)(nl + 1 - buf), &j, cand, &good, why,
		sizeof(why)) != 0)
		goto drop;
	{
		struct mgmt_session probe = {.pid = j.pid, .start = j.start};

		if (!shell_runs(&probe)) {
			lc_log_info("candidate of %s (%s) not kept: its shell "
				    "(pid %ld) has ended",
			    j.user, name, j.pid);
			why[0] = '\0';
			goto drop;
		}
	}
	/* a record cut short by the kill: gone for good */
	if ((size_t)(nl + 1 - buf) + good < len &&
	    truncate(path, (off_t)((size_t)(nl + 1 - buf) + good)) != 0)
		lc_log_warn("%s: truncate: %s", path, strerror(errno));
	free(buf);
	buf = NULL;
	if ((s = mgmt_session_open(m, j.user, false)) == NULL) {
		snprintf(why, sizeof(why), "out of memory");
		goto drop;
	}
	snprintf(s->token, sizeof(s->token), "%s", j.token);
	s->uid = j.uid;
	s->pid = j.pid;
	s->start = j.start;
	s->candidate = cand;
	cand = NULL;
	s->configure = true;
	s->orphan = true;
	s->orphan_until = wall_ms() + orphan_ttl_ms();
	snprintf(s->jname, sizeof(s->jname), "%s", name);
	if ((s->jfd = open(path,
		 O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) < 0)
		lc_log_warn("%s: %s (edits after its return are not kept)",
		    path, strerror(errno));
	/* one session configures at a time: of two kept (one left by a
	 * crash), the newer keeps the lock, the other goes */
	if ((l = m->lock) != NULL) {
		lc_log_warn("two candidates kept: session %llu's (%s) goes, "
			    "session %llu's stays",
		    (unsigned long long)l->id, l->jname,
		    (unsigned long long)s->id);
		mgmt_session_free(m, l, false);
	}
	m->lock = s;
	lc_log_notice("session %llu: the candidate of %s (uid %ld) is kept for "
		      "its shell (pid %ld) to come back, for %lld s at most",
	    (unsigned long long)s->id, s->user, s->uid, s->pid,
	    (long long)(orphan_ttl_ms() / 1000));
	return;
drop:
	if (why[0] != '\0')
		lc_log_warn("%s: dropped: %s", path, why);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (cand != NULL)
		mgmt_conf_free(cand);
	(void)unlink(path);
}

int
mgmt_persist_init(struct mgmt *m)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	double every;

	ev_init(&m->orphan_timer, orphan_check);
	m->orphan_timer.data = m;
	m->sess_dir[0] = '\0';
	/* tests without sockets and without a rundir of their own: never
	 * the system's */
	if (m->opts.no_server && m->opts.rundir == NULL)
		return (0);
	snprintf(m->sess_dir, sizeof(m->sess_dir), "%s/mgmt-sessions",
	    ipc_rundir(m->opts.rundir));
	(void)mkdir(ipc_rundir(m->opts.rundir), 0750);
	if ((mkdir(m->sess_dir, 0700) != 0 && errno != EEXIST) ||
	    lstat(m->sess_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() ||
	    ((st.st_mode & 077) != 0 && chmod(m->sess_dir, 0700) != 0)) {
		lc_log_warn("%s: %s: candidates are not kept across a restart "
			    "of tern-mgmt",
		    m->sess_dir,
		    errno != 0 ? strerror(errno) : "not a directory of ours");
		m->sess_dir[0] = '\0';
		return (0);
	}
	if ((d = opendir(m->sess_dir)) == NULL) {
		lc_log_warn("%s: %s", m->sess_dir, strerror(errno));
		m->sess_dir[0] = '\0';
		return (0);
	}
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char path[PATH_MAX];

		if (strncmp(e->d_name, "cand.", 5) != 0)
			continue;
		if (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0) {
			if (jpath(m, e->d_name, "", path, sizeof(path)) == 0)
				(void)unlink(path);
			continue;
		}
		load_one(m, e->d_name);
	}
	closedir(d);
	if (m->lock != NULL) {
		every = orphan_ttl_ms() < 20000 ? 0.1 : 5.0;
		ev_timer_set(&m->orphan_timer, every, every);
		ev_timer_start(m->loop, &m->orphan_timer);
	}
	return (0);
}

void
mgmt_persist_fini(struct mgmt *m)
{
	if (ev_is_active(&m->orphan_timer))
		ev_timer_stop(m->loop, &m->orphan_timer);
}
