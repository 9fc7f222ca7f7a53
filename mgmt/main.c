/* mgmt/main.c: tern-mgmt, the configuration manager and the shell's front door. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "mgmt/mgmt.h"

static const char *const value_opts[] = {"--store", NULL};
static const struct lc_daemon_info info = {
    .value_opts = value_opts,
    .name = "tern-mgmt",
    .summary =
	"The tern configuration manager: candidate and running config,\n"
	"commit, commit confirmed, rollback, and the front door for ternsh.",
    .usage_extra =
	"  --store DIR        commit history; the newest is the running config\n"
	"                     (default /var/lib/tern/config)\n"
	"  (--config FILE is loaded as the first commit when DIR is empty)\n",
    .status =
	"works: sessions, commit transactions to tern-fwd and tern-rib,\n"
	"commit confirmed, rollback, storage, and show commands forwarded to\n"
	"the components that answer them.",
};

int
main(int argc, char **argv)
{
	struct lc_daemon_opts opts;
	struct mgmt_opts mo = {0};
	struct ev_loop *loop;
	struct mgmt *m;
	int rv;

	if ((rv = lc_daemon_parse(argc, argv, &info, &opts)) != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv > 0 ? 0 : 2);
	}
	lc_log_init(info.name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	mo.store_dir = "/var/lib/tern/config";
	for (int i = 1; i < opts.rest_argc; i++) {
		if (strncmp(opts.rest_argv[i], "--store=", 8) == 0) {
			mo.store_dir = opts.rest_argv[i] + 8;
		} else {
			fprintf(stderr,
			    "tern-mgmt: unknown option '%s'\n"
			    "Try 'tern-mgmt --help'.\n",
			    opts.rest_argv[i]);
			lc_daemon_opts_fini(&opts);
			return (2);
		}
	}
	mo.rundir = opts.rundir;
	mo.boot_config = opts.config;
	mo.generation = opts.generation;

	if ((loop = lc_loop_new()) == NULL ||
	    lc_loop_signals(loop, NULL, NULL) != 0) {
		lc_log_err("cannot create the event loop");
		return (1);
	}
	if ((m = mgmt_new(loop, &mo)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	lc_log_notice("running in %s, config store %s", opts.rundir,
	    mo.store_dir);
	ev_run(loop, 0);
	lc_log_notice("shutting down");
	mgmt_free(m);
	lc_loop_free(loop);
	lc_daemon_opts_fini(&opts);
	return (0);
}
