/* rtrmgr/main.c: tern-rtrmgr, the tern router manager: starts, watches and restarts the tern components. */
#include <stdlib.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"

static const struct lc_daemon_info info = {
	.name = "tern-rtrmgr",
	.summary = "The tern router manager: starts, watches and restarts the tern components.",
	.status = "skeleton only: this build parses its options and exits; the\n"
	    "component itself is not implemented yet (see docs/architecture.md).",
};

int
main(int argc, char **argv)
{
	struct lc_daemon_opts opts;
	int rv;

	rv = lc_daemon_parse(argc, argv, &info, &opts);
	if (rv != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv > 0 ? 0 : 2);
	}
	lc_log_init(info.name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	lc_log_err("not implemented yet: this is a skeleton (see --help)");
	lc_daemon_opts_fini(&opts);
	return (1);
}
