/* mgmt/shell/sh.h: ternsh, the operator shell: pipes, the session with tern-mgmt, line editing. */
#ifndef SH_H
#define SH_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libcommon/lc_err.h"

/* ---- pipes: "show route | match 198.18 | count" ------------------------ */

#define SH_PIPE_MAX 8

enum sh_stage_kind {
	SH_STAGE_MATCH,	 /* keep lines matching REGEX (POSIX extended) */
	SH_STAGE_EXCEPT, /* drop lines matching REGEX */
	SH_STAGE_COUNT,	 /* replace the output by "Count: N lines" */
	SH_STAGE_JSON,	 /* ask mgmt for JSON; pretty-printed */
	SH_STAGE_NOMORE, /* no pager for this command's output */
};

/* "| compare" and "| display set" change what mgmt prints, so they stay
 * part of the command sent to it (they must come first after the command). */

struct sh_stage {
	enum sh_stage_kind kind;
	regex_t re;
	bool has_re;
};

struct sh_pipeline {
	/*
	 * what is sent to mgmt (owned): the text before the first local '|'
	 * stage
	 */
	char *command;
	unsigned n;
	struct sh_stage stages[SH_PIPE_MAX];
	bool json; /* a json stage is present */
};

/*
 * Splits line into the command and its pipe stages ('|' inside quotes does
 * not split). 0; -EINVAL with err set (an empty command, an unknown
 * stage, a missing or bad regex, too many stages); -ENOMEM.
 * On error nothing needs freeing.
 */
int sh_pipeline_parse(const char *line, struct sh_pipeline *out,
    struct lc_err *err);
void sh_pipeline_fini(struct sh_pipeline *);
/* Writes text through the stages to f. JSON text is pretty-printed first
 * when the pipeline asked for JSON (invalid JSON is written as it is). */
void sh_pipeline_output(const struct sh_pipeline *, const char *text, FILE *f);
/*
 * The same for a table whose first header lines are column names and whose
 * last footer lines count its rows ("3 routes"): | match and | except keep
 * the header, filter the rows, and when they dropped one the count line
 * says how many rows are shown ("2 of 3 routes"; a row is a line that does
 * not start with a blank: the next hops of an ECMP route continue it). 0, 0
 * is sh_pipeline_output.
 */
void sh_pipeline_print(const struct sh_pipeline *, const char *text,
    unsigned header, unsigned footer, FILE *f);
/* Whether the pipeline has | no-more (no pager). */
bool sh_pipeline_no_more(const struct sh_pipeline *);

/* ---- the pager: "--More--" ---------------------------------------------- */

/*
 * Writes text to out, a page at a time when paging is on and out is a
 * terminal: after each screenful (rows from the terminal, less the prompt
 * line) "--More--" waits for a key: space the next page, Enter the next
 * line, q (or Ctrl-C) the end of the output. Text shorter than the
 * terminal is written as it is. sh_more_enable(false) (the default: ternsh
 * -c, scripts) writes everything at once.
 */
void sh_more_enable(bool on);
bool sh_more_enabled(void);
void sh_more(const char *text, size_t len, FILE *out);

/* ---- the session with tern-mgmt ---------------------------------------- */

struct sh_session;

/* Result of one command. text/error point into the session (valid until
 * the next call). */
struct sh_result {
	int code; /* mgmt.Code: 0 OK */
	const char *text;
	const char *error;
	const char *prompt; /* the prompt mgmt wants next */
	bool configure;	    /* the session is in configuration mode */
	/* text is a table: its first header lines and last footer lines
	 * (a count) are not rows (sh_pipeline_print) */
	unsigned header, footer;
	bool streamed; /* the output went to the stream function as it came */
};

/*
 * Where a streaming command's output goes as it comes (ping, traceroute,
 * monitor log: mgmt says so in its reply, then sends OUTPUT events until
 * the command ends); text is NUL-terminated, valid during the call. Without
 * one, sh_session_exec collects it into res->text.
 */
typedef void sh_output_fn(void *arg, const char *text);
void sh_session_set_output(struct sh_session *, sh_output_fn *fn, void *arg);

/*
 * Connects to tern-mgmt in rundir (NULL: $TERN_RUNDIR or /run/tern) and
 * opens a session; the admin socket when we may write it, else the
 * read-only one. NULL with a reason in err when mgmt cannot be reached.
 */
struct sh_session *sh_session_new(const char *rundir, unsigned timeout_ms,
    struct lc_err *err);
void sh_session_free(struct sh_session *);
bool sh_session_read_only(const struct sh_session *);
/*
 * Runs one command line (no pipes) in text or JSON. 0 with *res filled,
 * after a streaming command ended (SIGINT meanwhile asks mgmt to end it;
 * a second one stops waiting),
 * or -errno when mgmt could not be asked (res->error says why).
 * When the session went with an mgmt that stopped (restart mgmt, a crash),
 * opens a new one first, presenting the old one's token: the new mgmt
 * gives back the candidate it kept for it (configuration mode again), and
 * a note says which (or that the old session's candidate is lost); a
 * command that mgmt refused for an unknown session is sent again in the
 * new one, a command that was in flight when the connection ended is not
 * (-ECONNRESET: its outcome is unknown).
 */
int sh_session_exec(struct sh_session *, const char *line, bool json,
    struct sh_result *res);
/*
 * The same with save or load's text (ExecuteRequest.client_file): data
 * [0..len) at offset goes to mgmt (load; more: parts follow); the reply's
 * part out[0..out_len) of out_total bytes comes back (save), valid until the
 * next call. The protocol of the parts is mgmt.h's struct mgmt_cmd_io.
 */
struct sh_io {
	const void *data;
	size_t len;
	uint64_t offset;
	bool more;
	const void *out;
	size_t out_len;
	uint64_t out_total;
};
int sh_session_exec_io(struct sh_session *, const char *line, bool json,
    struct sh_io *io, struct sh_result *res);
/* Whether mgmt said the session is in configuration mode (its last reply). */
bool sh_session_configuring(const struct sh_session *);
/*
 * What the user should be told that no command printed: ternsh's own notes
 * (a new session after mgmt restarted) and mgmt's notices ("notice: ...",
 * a commit confirmed rolled back), lines ending in '\n', "" when none.
 * Taken: valid until the next call. sh_print_notes() writes them to f.
 */
const char *sh_session_notes(struct sh_session *);
void sh_print_notes(struct sh_session *, FILE *f);
/* Completions for line[0..cursor): candidates (and help texts when help),
 * NUL-separated in the returned arrays, valid until the next call. */
struct sh_completion {
	unsigned n;
	const char **cand;
	const char **help;  /* NULL entries when not asked */
	const bool *hint;   /* a placeholder: shown as help, never inserted */
	const char *common; /* longest common prefix of the words (not of the
			     * placeholders) */
};
int sh_session_complete(struct sh_session *, const char *line, size_t cursor,
    bool help, struct sh_completion *out);

/* ---- running lines ------------------------------------------------------ */

/* Runs one full line (with pipes) and prints its output; returns 0 when
 * the command succeeded, 1 when it failed (the error was printed). */
int sh_run_line(struct sh_session *, const char *line, FILE *out, FILE *err);
/*
 * sh_file.c: `save FILE` and `load merge|replace FILE` in configuration
 * mode, the file read or written by the shell itself, as its user and
 * relative to its directory (`~/` is $HOME), its text sent to or taken from
 * tern-mgmt in parts; save writes atomically (a temp file beside FILE,
 * fsync, rename), mode 0666 less the umask. true when command (no pipes)
 * was one of them, with *rv 0 on success, 1 after printing the error to
 * err; false for anything else (and for a malformed one, whose error mgmt
 * gives).
 */
bool sh_file_cmd(struct sh_session *, const char *command, FILE *out, FILE *err,
    int *rv);
/* Interactive loop with libedit (history in $TERNSH_HISTORY or
 * ~/.ternsh_history), with the pager on a terminal. Returns 0: each
 * command's outcome is on the screen, and leaving is not a failure. */
int sh_interactive(struct sh_session *);

#endif
