/* libcommon/lc_daemon.h: the command-line options every tern daemon shares. */
#ifndef LC_DAEMON_H
#define LC_DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "libcommon/lc_log.h"

#define TERN_VERSION	    "0.1.0"
#define TERN_RUNDIR_DEFAULT "/run/tern"

/* What a daemon says about itself in --help and --version. */
struct lc_daemon_info {
	const char *name;	 /* "tern-fwd" */
	const char *summary;	 /* one line: what it does */
	const char *status;	 /* what works now, said plainly in --help */
	const char *usage_extra; /* daemon-specific options, or NULL */
	/* daemon-specific options that take a value ("--store"), so that
	 * "--store DIR" reaches rest_argv as "--store=DIR"; NULL-terminated */
	const char *const *value_opts;
};

/* The shared options; a daemon reads its own ones from rest_argc/argv. */
struct lc_daemon_opts {
	const char *rundir; /* --rundir, else $TERN_RUNDIR, else /run/tern */
	const char *config; /* --config FILE, or NULL */
	enum lc_log_level log_level; /* --log-level, default info */
	bool syslog;		     /* --syslog: log to syslog, not stderr */
	unsigned generation;	     /* --generation N, given by rtrmgr */
	int rest_argc;		     /* options not recognised here */
	char **rest_argv;
	char **owned; /* strings made here, freed by _fini */
	int nowned;
};

/*
 * Parses argv. Returns 0 to go on; 1 when --help or --version was handled
 * (the caller exits 0); -EINVAL on bad usage, after printing the reason and
 * a usage hint to stderr (the caller exits 2). Unknown options starting
 * with "--" are left in rest_argv (argv[0] first) for the daemon; one of
 * info->value_opts given as "--opt VALUE" arrives there as "--opt=VALUE".
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
/* Frees what lc_daemon_parse() allocated; safe after any of its returns. */
void lc_daemon_opts_fini(struct lc_daemon_opts *);
void lc_daemon_usage(FILE *, const struct lc_daemon_info *);

#endif
