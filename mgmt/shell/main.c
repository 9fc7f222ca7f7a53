/* mgmt/shell/main.c: ternsh, the tern operator shell (talks only to tern-mgmt). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/lc_daemon.h"
#include "sh.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define CMDS_MAX 64

static const char *rundir, *cmds[CMDS_MAX], *complete_line;
static unsigned ncmds, timeout_ms;

/* -c COMMAND, in order. */
static int
opt_cmd(const char *v, void *dst, struct lc_err *err)
{
	(void)dst;
	if (ncmds == CMDS_MAX) {
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "too many commands (at most %d)", CMDS_MAX));
	}
	cmds[ncmds++] = v;
	return (0);
}

static const struct lc_opt opts[] = {
    LC_OPT_ROW_STRING("--rundir", "DIR", &rundir,
	"where tern-mgmt's sockets are ($TERN_RUNDIR, " TERN_RUN_DIR ")"),
    LC_OPT_ROW_UINT("--timeout", "MS", &timeout_ms, 1, ~0u,
	"how long one command may take (default 30000; 1000 for --complete)"),
    LC_OPT_ROW_FN("-c", "COMMAND", NULL, opt_cmd,
	"run COMMAND; repeated, in order"),
    LC_OPT_ROW_STRING("--complete", "LINE", &complete_line,
	"print what completes LINE's last word, one per line (tern-mgmt's "
	"own completion, as Tab has it: for bash completion)"),
    LC_OPT_ROW_END,
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: ternsh [--rundir DIR] [--timeout MS] [-c COMMAND]...\n"
	    "       ternsh [--rundir DIR] --complete LINE\n"
	    "The tern operator shell. Interactive on a terminal (Tab completes,\n"
	    "'?' shows help); otherwise runs each -c COMMAND in order, or each\n"
	    "line of standard input, and stops at the first error (exit 1).\n"
	    "Pipes: | match REGEX, | except REGEX, | count, | json.\n");
	lc_opt_usage(f, opts);
}

/*
 * --complete LINE: the words that complete LINE's last word (the one the
 * cursor, at the end, is in: "" after a blank), from tern-mgmt, as Tab
 * would offer them; placeholders ("<a.b.c.d>") are help, not words, and
 * left out. 0, or 1 when mgmt cannot be asked (bash then offers nothing).
 */
static int
run_complete(struct sh_session *s, const char *line)
{
	struct sh_completion c;

	if (sh_session_complete(s, line, strlen(line), false, &c) != 0)
		return (1);
	for (unsigned i = 0; i < c.n; i++)
		if (!c.hint[i] && c.cand[i] != NULL && c.cand[i][0] != '\0')
			printf("%s\n", c.cand[i]);
	return (0);
}

static int
run_stream(struct sh_session *s, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	int rv = 0;

	while ((n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (sh_run_line(s, line, stdout, stderr) != 0) {
			fprintf(stderr, "ternsh: stopped at line %lu: %s\n",
			    lineno, line);
			rv = 1;
			break;
		}
	}
	free(line);
	return (rv);
}

int
main(int argc, char **argv)
{
	struct sh_session *s;
	struct lc_err err = {0};
	int rv = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return (0);
		} else if (strcmp(a, "--version") == 0) {
			printf("ternsh %s\n", TERN_VERSION);
			return (0);
		} else if ((rv = lc_opt_take(argc, argv, &i, "ternsh", opts)) <
		    0) {
			return (2);
		} else if (rv == 1) {
			fprintf(stderr,
			    "ternsh: unexpected argument '%s'\n"
			    "Try 'ternsh --help'.\n",
			    a);
			return (2);
		}
	}

	/* a Tab in bash waits for --complete: not long when mgmt is away */
	if (timeout_ms == 0)
		timeout_ms = complete_line != NULL ? 1000 : 30000;
	if ((s = sh_session_new(rundir, timeout_ms, &err)) == NULL) {
		/* completion is best effort: quiet when mgmt is not there */
		if (complete_line == NULL)
			fprintf(stderr, "ternsh: %s\n", err.msg);
		return (1);
	}
	if (complete_line != NULL) {
		rv = run_complete(s, complete_line);
	} else if (ncmds > 0) {
		for (unsigned i = 0; i < ncmds && rv == 0; i++)
			rv = sh_run_line(s, cmds[i], stdout, stderr);
	} else if (isatty(STDIN_FILENO)) {
		rv = sh_interactive(s);
	} else {
		rv = run_stream(s, stdin);
	}
	fflush(stdout);
	sh_session_free(s);
	return (rv);
}
