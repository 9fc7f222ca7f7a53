/* rtrmgr/main.c: tern-rtrmgr, the tern router manager: starts, watches and
 * restarts the tern components. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "rtm.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define RTM_CONFIG_DEFAULT TERN_CONF_DIR "/tern-rtrmgr.conf"

static struct rtm_config *cfg;
static struct rtm_ipc *ri;

static const struct lc_opt opts[] = {
    LC_OPT_ROW_FLAG("--foreground", NULL,
	"stay in the foreground (the default and only mode)"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info info = {
    .name = "tern-rtrmgr",
    .summary = "The tern router manager: starts, watches and restarts the tern "
	       "components.",
    .opts = opts,
    .usage_extra = "  -c FILE            the boot config (same as --config; "
		   "default " RTM_CONFIG_DEFAULT ")\n",
    .status = "supervises the components of its boot config and serves\n"
	      "RUNDIR/rtrmgr.sock (list, start, stop, restart, events); see "
	      "docs/rtrmgr.md.",
};

/* The boot config, before anything is made: an error starts nothing. */
static int
rtm_check(const struct lc_daemon_opts *o)
{
	struct lc_err err;

	if ((cfg = rtm_config_load(o->config ? o->config : RTM_CONFIG_DEFAULT,
		 &err)) == NULL) {
		lc_log_err("%s (nothing started)", err.msg);
		return (1);
	}
	/* A hang-up must not kill the supervisor (children reset it). */
	signal(SIGHUP, SIG_IGN);
	return (0);
}

static void *
rtm_boot(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	/* Given on the command line, these override the config (rtm_new reads
	 * $TERN_RUNDIR itself, after --rundir and before the config). */
	struct rtm_opts ro = {
	    .rundir = o->rundir_set ? o->rundir : NULL,
	    .log_level = o->log_level_set ? lc_log_level_name(o->log_level) :
					    NULL,
	};
	struct rtm *rtm;
	int rv;

	if ((rtm = rtm_new(loop, cfg, &ro)) == NULL) {
		lc_log_errno(LC_LOG_ERR, "cannot set up");
		return (NULL);
	}
	/* rundir and lock, then the IPC front end, then adoption and boot */
	if ((rv = rtm_open(rtm)) == 0 &&
	    (ri = rtm_ipc_new(rtm, loop)) == NULL) {
		lc_log_errno(LC_LOG_ERR, "cannot serve %s/rtrmgr.sock",
		    rtm_rundir(rtm));
		rv = -1;
	}
	if (rv != 0 || rtm_start(rtm) != 0) {
		rtm_ipc_free(ri);
		rtm_free(rtm);
		return (NULL);
	}
	return (rtm);
}

static void
on_down(void *arg)
{
	ev_break(arg, EVBREAK_ALL);
}

static void
rtm_halt(void *rtm, struct ev_loop *loop)
{
	rtm_shutdown(rtm, on_down, loop);
	while (!rtm_is_down(rtm)) /* a second signal does not cut it short */
		ev_run(loop, 0);
	rtm_ipc_free(ri);
	rtm_free(rtm);
}

int
main(int argc, char **argv)
{
	static const struct lc_daemon_ops ops = {rtm_check, rtm_boot, rtm_halt};
	char *args[argc + 1];

	/* -c FILE is the short form of --config FILE. */
	for (int i = 0; i < argc; i++)
		args[i] = strcmp(argv[i], "-c") == 0 ? "--config" : argv[i];
	args[argc] = NULL;
	return (lc_daemon_main(argc, args, &info, &ops));
}
