/* libcommon/lc_daemon.h: the command-line options every tern daemon shares. */
#ifndef LC_DAEMON_H
#define LC_DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "libcommon/lc_err.h"
#include "libcommon/lc_log.h"

#define TERN_VERSION "0.1.0"

struct ev_loop;
struct lc_daemon_opts;

/* How a daemon's own option is read. */
enum lc_opt_kind {
	LC_OPT_FLAG,   /* --name: *(bool *)dst = true (dst may be NULL) */
	LC_OPT_UINT,   /* --name=N, decimal, min..max: *(unsigned *)dst */
	LC_OPT_STRING, /* --name=S: *(const char **)dst (S may be "") */
	LC_OPT_CHOICE, /* --name=one of choices: *(const char **)dst */
	LC_OPT_FN,     /* --name=S: fn(S, dst, err, errsz) */
};

/*
 * One of a daemon's own options, in a table ended by a NULL name. Values
 * come as "--name=V" or "--name V" (a short "-n" takes "-n V"). The table
 * also writes --help: "  " and name=arg in 19 columns, then help, whose
 * further lines ('\n') are indented to the same column.
 */
struct lc_opt {
	const char *name; /* "--workers" */
	enum lc_opt_kind kind;
	const char *arg;	    /* "N" in --help, NULL for a flag */
	const char *help;	    /* lines separated by '\n', no final one */
	void *dst;		    /* where the value goes */
	unsigned min, max;	    /* LC_OPT_UINT */
	const char *const *choices; /* LC_OPT_CHOICE, NULL-terminated */
	/* LC_OPT_FN: 0, or -EINVAL with the reason in err (without the
	 * option's name: "'x' is not a CPU list") */
	int (*fn)(const char *v, void *dst, struct lc_err *err);
};

/* Table rows, one line each (help last: it is the long one). */
#define LC_OPT_ROW_FLAG(name_, dst_, help_)                          \
	{                                                            \
		.name = (name_), .kind = LC_OPT_FLAG, .dst = (dst_), \
		.help = (help_)                                      \
	}
#define LC_OPT_ROW_UINT(name_, arg_, dst_, min_, max_, help_)                \
	{                                                                    \
		.name = (name_), .kind = LC_OPT_UINT, .arg = (arg_),         \
		.dst = (dst_), .min = (min_), .max = (max_), .help = (help_) \
	}
#define LC_OPT_ROW_STRING(name_, arg_, dst_, help_)                    \
	{                                                              \
		.name = (name_), .kind = LC_OPT_STRING, .arg = (arg_), \
		.dst = (dst_), .help = (help_)                         \
	}
#define LC_OPT_ROW_CHOICE(name_, arg_, dst_, choices_, help_)          \
	{                                                              \
		.name = (name_), .kind = LC_OPT_CHOICE, .arg = (arg_), \
		.dst = (dst_), .choices = (choices_), .help = (help_)  \
	}
#define LC_OPT_ROW_FN(name_, arg_, dst_, fn_, help_)               \
	{                                                          \
		.name = (name_), .kind = LC_OPT_FN, .arg = (arg_), \
		.dst = (dst_), .fn = (fn_), .help = (help_)        \
	}
#define LC_OPT_ROW_END       \
	{                    \
		.name = NULL \
	}

/* What a daemon says about itself in --help and --version. */
struct lc_daemon_info {
	const char *name;	   /* "tern-fwd" */
	const char *summary;	   /* one line: what it does */
	const char *status;	   /* what works now, said plainly in --help */
	const struct lc_opt *opts; /* its own options, or NULL */
	const char *usage_extra;   /* more lines for --help, or NULL */
	/* without opts: daemon-specific options that take a value
	 * ("--store"), so that "--store DIR" reaches rest_argv as
	 * "--store=DIR"; NULL-terminated */
	const char *const *value_opts;
};

/* A daemon's life around its event loop (lc_daemon_main). */
struct lc_daemon_ops {
	/* Options read, logging on, no loop yet: 0 to go on, else the exit
	 * status, having said why. NULL: nothing to check. */
	int (*check)(const struct lc_daemon_opts *);
	/* The daemon on the loop, or NULL having logged why (exit 1). */
	void *(*start)(struct ev_loop *, const struct lc_daemon_opts *);
	/* After SIGTERM or SIGINT ended the loop: stops and frees it. */
	void (*stop)(void *daemon, struct ev_loop *);
};

/* The shared options; a daemon reads its own ones from rest_argc/argv. */
struct lc_daemon_opts {
	const char *rundir; /* --rundir, else $TERN_RUNDIR, else TERN_RUN_DIR */
	const char *config; /* --config FILE, or NULL */
	enum lc_log_level log_level; /* --log-level, default info */
	bool syslog;		     /* --syslog: log to syslog, not stderr */
	unsigned generation;	     /* --generation N, given by rtrmgr */
	bool rundir_set, log_level_set; /* given on the command line */
	int rest_argc;			/* options not recognised here */
	char **rest_argv;
	char **owned; /* strings made here, freed by _fini */
	int nowned;
};

/*
 * Parses argv. Returns 0 to go on; 1 when --help or --version was handled
 * (the caller exits 0); -EINVAL on bad usage, after printing the reason and
 * a usage hint to stderr (the caller exits 2). With info->opts, the
 * daemon's options are read into their places and any other one is bad
 * usage. Without, unknown options starting with "--" are left in rest_argv
 * (argv[0] first) for the daemon; one of info->value_opts given as
 * "--opt VALUE" arrives there as "--opt=VALUE".
 */
int lc_daemon_parse(int argc, char **argv, const struct lc_daemon_info *,
    struct lc_daemon_opts *out);
/*
 * A daemon's own numeric option "--name=N" (rest_argv holds them so):
 * 1 when arg is that option with a decimal N <= max (in *out); 0 when arg
 * is another option; -EINVAL when the value is missing, not a number or
 * over max (*out unchanged).
 */
int lc_daemon_opt_uint(const char *arg, const char *name, unsigned max,
    unsigned *out);
/*
 * The whole main() of a daemon: lc_daemon_parse(), logging, ops->check,
 * an event loop stopped by SIGTERM and SIGINT, ops->start, the loop,
 * ops->stop. Returns the exit status: 0, 1 (could not start) or 2 (usage).
 */
int lc_daemon_main(int argc, char **argv, const struct lc_daemon_info *,
    const struct lc_daemon_ops *);
/*
 * For a program without the shared options (ternsh): reads argv[*i] if it
 * is one of opts (moving *i past a separate value). 0 when read; 1 when it
 * is none of them; -EINVAL after saying why on stderr as "prog: ...".
 */
int lc_opt_take(int argc, char **argv, int *i, const char *prog,
    const struct lc_opt *opts);
/* The rows of opts as in --help. */
void lc_opt_usage(FILE *, const struct lc_opt *opts);
/* A decimal min..max for an LC_OPT_FN: 0, or -EINVAL with err set. */
int lc_opt_uint(const char *v, unsigned min, unsigned max, unsigned *out,
    struct lc_err *err);
/* Frees what lc_daemon_parse() allocated; safe after any of its returns. */
void lc_daemon_opts_fini(struct lc_daemon_opts *);
void lc_daemon_usage(FILE *, const struct lc_daemon_info *);

#endif
