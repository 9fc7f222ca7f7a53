/* mgmt/shell/main.c: ternsh, the tern operator shell (talks only to tern-mgmt). */
#include <stdio.h>
#include <string.h>

#include "libcommon/lc_daemon.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: ternsh [--rundir DIR] [-c COMMAND]\n"
	    "The tern operator shell: configuration and operational commands,\n"
	    "served by tern-mgmt.\n\n"
	    "status: skeleton only: this build parses its options and exits; the\n"
	    "shell is not implemented yet (see docs/architecture.md).\n");
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return (0);
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("ternsh %s\n", TERN_VERSION);
			return (0);
		}
	}
	fprintf(stderr, "ternsh: not implemented yet: this is a skeleton (see --help)\n");
	return (1);
}
