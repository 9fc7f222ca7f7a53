/* man/mangen.c: tern-mangen TEMPLATE: copies a manual page template
 * (the templates in man/) to standard output with each line that is one of @SCHEMA@,
 * @COMMANDS_OPER@, @COMMANDS_CONF@, @PIPES@ or @PIPES_CONFIG@ replaced by
 * what mgmt's tables say (mgmt/mgmt_man.c), and @DAEMON_OPTIONS@ by the
 * options every daemon takes (libcommon/lc_daemon.c's). Any other @WORD@
 * line is an error; the Makefile substitutes the paths (@SBINDIR@ ...)
 * afterwards. */
#include <stdio.h>
#include <string.h>

#include "mgmt/mgmt.h"

/* lc_daemon_usage()'s options, which every tern daemon takes */
static void
daemon_options(FILE *f, bool unused)
{
	(void)unused;
	fputs(".TP\n\\fB\\-\\-rundir\\fP \\fIDIR\\fP\n"
	      "The runtime directory: the IPC sockets, rtrmgr's state and the "
	      "logs (default \\fB$TERN_RUNDIR\\fP, else "
	      "\\fI@RUNSTATEDIR@/tern\\fP).\n"
	      ".TP\n\\fB\\-\\-config\\fP \\fIFILE\\fP\n"
	      "The configuration file.\n"
	      ".TP\n\\fB\\-\\-log\\-level\\fP \\fILEVEL\\fP\n"
	      "\\fBerr\\fP, \\fBwarning\\fP, \\fBnotice\\fP, "
	      "\\fBinfo\\fP or \\fBdebug\\fP (default \\fBinfo\\fP).\n"
	      ".TP\n\\fB\\-\\-syslog\\fP\n"
	      "Log to syslog instead of standard error.\n"
	      ".TP\n\\fB\\-\\-generation\\fP \\fIN\\fP\n"
	      "The generation number tern\\-rtrmgr gives each start of a "
	      "component.\n"
	      ".TP\n\\fB\\-\\-help\\fP\n"
	      "Show the options and exit.\n"
	      ".TP\n\\fB\\-\\-version\\fP\n"
	      "Show the version and exit.\n",
	    f);
}

static const struct {
	const char *line;
	void (*fn)(FILE *, bool);
	bool arg;
} parts[] = {
    {"@COMMANDS_OPER@", mgmt_man_commands, false},
    {"@COMMANDS_CONF@", mgmt_man_commands, true},
    {"@PIPES@", mgmt_man_pipes, false},
    {"@PIPES_CONFIG@", mgmt_man_pipes, true},
    {"@DAEMON_OPTIONS@", daemon_options, false},
};

int
main(int argc, char **argv)
{
	char line[4096];
	unsigned lineno = 0;
	FILE *in;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: tern-mangen TEMPLATE >PAGE\n");
		return (2);
	}
	if ((in = fopen(argv[1], "r")) == NULL) {
		perror(argv[1]);
		return (1);
	}
	while (fgets(line, sizeof(line), in) != NULL) {
		size_t len = strlen(line);
		bool done = false;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len < 3 || line[0] != '@' || line[len - 1] != '@') {
			printf("%s\n", line);
			continue;
		}
		if (strcmp(line, "@SCHEMA@") == 0) {
			mgmt_man_schema(stdout);
			done = true;
		}
		for (size_t i = 0;
		     !done && i < sizeof(parts) / sizeof(parts[0]); i++)
			if (strcmp(line, parts[i].line) == 0) {
				parts[i].fn(stdout, parts[i].arg);
				done = true;
			}
		if (!done) {
			fprintf(stderr,
			    "%s:%u: unknown part '%s': expected @SCHEMA@, "
			    "@COMMANDS_OPER@, @COMMANDS_CONF@, @PIPES@, "
			    "@PIPES_CONFIG@ or @DAEMON_OPTIONS@\n",
			    argv[1], lineno, line);
			fclose(in);
			return (1);
		}
	}
	fclose(in);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("tern-mangen: stdout");
		return (1);
	}
	return (0);
}
