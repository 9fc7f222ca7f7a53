/* mgmt/mgmt.h: tern-mgmt, the configuration manager: sessions, commands, commit and rollback, served over IPC. */
#ifndef MGMT_H
#define MGMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ev.h>

#include "libcommon/lc_buf.h"
#include "libcommon/lc_err.h"

struct mgmt_opts {
	const char *rundir;    /* NULL: $TERN_RUNDIR or /run/tern */
	const char *store_dir; /* commit history (running = newest); required */
	const char
	    *boot_config;    /* loaded when the store is empty; may be NULL */
	uint64_t generation; /* 0: a new one */
	bool no_server;	     /* tests: no IPC sockets */
};

struct mgmt;
struct mgmt_session;

/*
 * Loads the running config (the newest commit in store_dir, else
 * boot_config, else empty) and serves RUNDIR/mgmt.sock and mgmt-ro.sock.
 * NULL with errno (EINVAL: a stored or boot config does not load, and the
 * reason is logged; or the errors of ipc_server_new()).
 */
struct mgmt *mgmt_new(struct ev_loop *, const struct mgmt_opts *);
void mgmt_free(struct mgmt *);

/* Sessions (one per shell). read_only sessions may only run operational
 * commands that change nothing. NULL with errno ENOMEM. */
struct mgmt_session *mgmt_session_open(struct mgmt *, const char *user,
    bool read_only);
/* Leaves configure mode (dropping the candidate and the lock) and frees. */
void mgmt_session_close(struct mgmt *, struct mgmt_session *);
uint64_t mgmt_session_id(const struct mgmt_session *);

/* Result codes: the values of mgmt.Code in ipc/proto/mgmt.proto. */
enum mgmt_code {
	MGMT_OK = 0,
	MGMT_E_SYNTAX,
	MGMT_E_UNKNOWN_COMMAND,
	MGMT_E_INVALID,
	MGMT_E_NOT_FOUND,
	MGMT_E_COMMIT_FAILED,
	MGMT_E_LOCKED,
	MGMT_E_DENIED,
	MGMT_E_UNAVAILABLE,
	MGMT_E_INTERNAL,
	MGMT_E_CONFLICT,
};

/* A command that finishes later (commit waits for the components). s is
 * NULL when the session ended meanwhile. */
#define MGMT_PENDING 1000
/* A reply (of later() or mgmt_cmd_exec) that says: the command goes on,
 * its output follows as mgmt.Output events to the session's connection
 * (ping, traceroute, monitor log: Reply.streaming). */
#define MGMT_STREAM 1001
/* err: code 0 and "" on success, else the reason (never NULL). */
typedef void mgmt_reply_fn(void *arg, struct mgmt *, struct mgmt_session *s,
    int code, const char *text, const struct lc_err *err);

/*
 * Runs one command line (no shell pipes, but "show | compare" and
 * "show | display set" are commands here). Output is appended to out
 * (NUL-terminated); on failure err gets one line. Returns an mgmt_code,
 * or MGMT_PENDING when the answer will come through later(later_arg, ...)
 * exactly once (possibly before this returns).
 */
int mgmt_cmd_exec(struct mgmt *, struct mgmt_session *, const char *line,
    bool json, struct lc_buf *out, struct lc_err *err, mgmt_reply_fn *later,
    void *later_arg);
/*
 * What travels with a command besides its line: the text of save and load,
 * whose file the client (ternsh) reads and writes itself, as its user;
 * tern-mgmt opens no user's path (a save or load without client_file is
 * refused). The text goes in parts of at most MGMT_XFER_PART bytes:
 * - load merge|replace FILE: data[0..len) goes at offset of the file
 *   (offset 0 starts anew, the next part must start where the last ended);
 *   with more, it is kept and the command answers nothing; the last part
 *   parses the whole and applies it (nothing changes on an error). At most
 *   MGMT_LOAD_MAX bytes.
 * - save FILE: offset 0 prints the candidate; out[0..out_len) is its part
 *   from offset, out_total its size (out points into the session: valid
 *   until its next command). The client asks again from offset + out_len
 *   until it has out_total bytes.
 */
#define MGMT_XFER_PART (4u << 20)
struct mgmt_cmd_io {
	bool client_file;
	const void *data; /* load */
	size_t len;
	uint64_t offset;
	bool more;
	const void *out; /* save */
	size_t out_len;
	uint64_t out_total;
};
/* mgmt_cmd_exec with io (NULL: none, as mgmt_cmd_exec). */
int mgmt_cmd_exec_io(struct mgmt *, struct mgmt_session *, const char *line,
    bool json, struct mgmt_cmd_io *io, struct lc_buf *out, struct lc_err *err,
    mgmt_reply_fn *later, void *later_arg);
/* The prompt for the session's mode ("user@host> " or "user@host# "). */
const char *mgmt_session_prompt(struct mgmt *, struct mgmt_session *, char *buf,
    size_t len);
bool mgmt_session_configuring(const struct mgmt_session *);
/*
 * What happened to the session that it was not asked about (a commit
 * confirmed rolled back by its timer): lines ending in '\n', "" when none.
 * They ride on the session's next reply (Reply.notices), which clears
 * them.
 */
const char *mgmt_session_notices(const struct mgmt_session *);
void mgmt_session_notices_clear(struct mgmt_session *);

/* Completions of line[0..cursor): writes up to max words (and help texts)
 * and returns how many. A placeholder (hint: "[NAME]", "<a.b.c.d/len>")
 * says what may be typed there; the shell shows it as help, on '?' and on a
 * Tab with nothing to insert, and never inserts it. */
struct mgmt_cand {
	char word[64];
	const char *help;
	bool hint;
};
int mgmt_cmd_complete(struct mgmt *, struct mgmt_session *, const char *line,
    size_t cursor, struct mgmt_cand *out, unsigned max);

/* The command table, for tern-mangen's ternsh(1) (mgmt/mgmt_man.c): the
 * i-th command in *out, false past the end. */
struct mgmt_cmd_info {
	const char *words[3]; /* {"show", "route", NULL} */
	bool oper, conf;      /* in operational, configuration mode */
	bool writes; /* changes something: not for read-only sessions */
	const char *help;
	const char *args; /* what follows, or NULL */
};
bool mgmt_cmd_table_get(size_t i, struct mgmt_cmd_info *out);

/* The generated parts of the manual pages (mgmt/mgmt_man.c, tern-mangen,
 * the templates in man/), as roff, from the tables themselves so the pages never drift:
 * every row of the schema (tern.conf(5)), the commands of a mode and the
 * pipe stages (ternsh(1)). mgmt_man_text writes s escaped for roff. */
void mgmt_man_schema(FILE *f);
void mgmt_man_commands(FILE *f, bool conf_mode);
void mgmt_man_pipes(FILE *f, bool config_show);
void mgmt_man_text(FILE *f, const char *s);

/* The running config's commit count, for tests and `show system commit`. */
int mgmt_commit_count(const struct mgmt *);

#endif
