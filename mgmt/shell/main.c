/* mgmt/shell/main.c: ternsh, the tern operator shell (talks only to tern-mgmt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/lc_daemon.h"
#include "sh.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: ternsh [--rundir DIR] [--timeout MS] [-c COMMAND]...\n"
	    "The tern operator shell. Interactive on a terminal (Tab completes,\n"
	    "'?' shows help); otherwise runs each -c COMMAND in order, or each\n"
	    "line of standard input, and stops at the first error (exit 1).\n"
	    "Pipes: | match REGEX, | except REGEX, | count, | json.\n"
	    "  --rundir DIR   where tern-mgmt's sockets are ($TERN_RUNDIR, %s)\n"
	    "  --timeout MS   how long one command may take (default 30000)\n",
	    TERN_RUNDIR_DEFAULT);
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
	const char *rundir = NULL, *cmds[64];
	unsigned ncmds = 0, timeout_ms = 30000;
	struct sh_session *s;
	char err[1024];
	int rv = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return (0);
		} else if (strcmp(a, "--version") == 0) {
			printf("ternsh %s\n", TERN_VERSION);
			return (0);
		} else if (strcmp(a, "--rundir") == 0 && i + 1 < argc) {
			rundir = argv[++i];
		} else if (strcmp(a, "--timeout") == 0 && i + 1 < argc) {
			char *end;

			timeout_ms = (unsigned)strtoul(argv[++i], &end, 10);
			if (*end != '\0' || timeout_ms == 0) {
				fprintf(stderr,
				    "ternsh: invalid timeout '%s'\n", argv[i]);
				return (2);
			}
		} else if (strcmp(a, "-c") == 0 && i + 1 < argc) {
			if (ncmds == sizeof(cmds) / sizeof(cmds[0])) {
				fprintf(stderr,
				    "ternsh: too many -c commands\n");
				return (2);
			}
			cmds[ncmds++] = argv[++i];
		} else {
			fprintf(stderr,
			    "ternsh: unexpected argument '%s'\n"
			    "Try 'ternsh --help'.\n",
			    a);
			return (2);
		}
	}

	if ((s = sh_session_new(rundir, timeout_ms, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "ternsh: %s\n", err);
		return (1);
	}
	if (ncmds > 0) {
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
