/* mgmt/main.c: tern-mgmt, the configuration manager and the shell's front
 * door. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "mgmt/mgmt.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

static struct mgmt_opts mo = {.store_dir = TERN_STATE_DIR "/config"};

static const struct lc_opt opts[] = {
    LC_OPT_ROW_STRING("--store", "DIR", &mo.store_dir,
	"commit history; the newest is the running config\n"
	"(default " TERN_STATE_DIR "/config)"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info info = {
    .name = "tern-mgmt",
    .summary =
	"The tern configuration manager: candidate and running config,\n"
	"commit, commit confirmed, rollback, and the front door for ternsh.",
    .opts = opts,
    .usage_extra =
	"  (--config FILE is loaded as the first commit when DIR is empty)\n",
    .status =
	"works: sessions, commit transactions to tern-fwd and tern-rib,\n"
	"commit confirmed, rollback, storage, and show commands forwarded to\n"
	"the components that answer them.",
};

static void *
mgmt_start(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	struct mgmt *m;

	mo.rundir = o->rundir;
	mo.boot_config = o->config;
	mo.generation = o->generation;
	if ((m = mgmt_new(loop, &mo)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		return (NULL);
	}
	lc_log_notice("running in %s, config store %s", o->rundir,
	    mo.store_dir);
	return (m);
}

static void
mgmt_stop(void *m, struct ev_loop *loop)
{
	(void)loop;
	mgmt_free(m);
}

int
main(int argc, char **argv)
{
	static const struct lc_daemon_ops ops = {NULL, mgmt_start, mgmt_stop};

	return (lc_daemon_main(argc, argv, &info, &ops));
}
