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

#define RTM_CONFIG_DEFAULT "/etc/tern/tern-rtrmgr.conf"

static const struct lc_daemon_info info = {
    .name = "tern-rtrmgr",
    .summary = "The tern router manager: starts, watches and restarts the tern "
	       "components.",
    .usage_extra = "  -c FILE            the boot config (same as --config; "
		   "default " RTM_CONFIG_DEFAULT ")\n"
		   "  --foreground       stay in the foreground (the default "
		   "and only mode)\n",
    .status = "supervises the components of its boot config and serves\n"
	      "RUNDIR/rtrmgr.sock (list, start, stop, restart, events); see "
	      "docs/rtrmgr.md.",
};

static void
on_down(void *arg)
{
	ev_break(arg, EVBREAK_ALL);
}

int
main(int argc, char **argv)
{
	char *args[argc + 1];
	struct lc_daemon_opts opts;
	struct rtm_cfgerr err;
	struct rtm_config *cfg;
	struct rtm_opts ro = {NULL, NULL};
	struct ev_loop *loop;
	struct rtm_ipc *ri = NULL;
	struct rtm *rtm;
	int rv, i;

	/* -c FILE is the short form of --config FILE. */
	for (i = 0; i < argc; i++)
		args[i] = strcmp(argv[i], "-c") == 0 ? "--config" : argv[i];
	args[argc] = NULL;
	if ((rv = lc_daemon_parse(argc, args, &info, &opts)) != 0)
		return (rv > 0 ? 0 : 2);
	for (i = 1; i < opts.rest_argc; i++)
		if (strcmp(opts.rest_argv[i], "--foreground") != 0) {
			fprintf(stderr,
			    "%s: unknown option '%s'\nTry '%s --help'.\n",
			    info.name, opts.rest_argv[i], info.name);
			return (2);
		}
	/* Given on the command line, these override the config (rtm_new reads
	 * $TERN_RUNDIR itself, after --rundir and before the config). */
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--rundir", 8) == 0)
			ro.rundir = opts.rundir;
		if (strncmp(argv[i], "--log-level", 11) == 0)
			ro.log_level = lc_log_level_name(opts.log_level);
	}
	lc_log_init(info.name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	if ((cfg = rtm_config_load(opts.config ? opts.config :
						 RTM_CONFIG_DEFAULT,
		 &err)) == NULL) {
		lc_log_err("%s (nothing started)", err.msg);
		return (1);
	}
	/* A hang-up must not kill the supervisor (children reset it). */
	signal(SIGHUP, SIG_IGN);
	if ((loop = lc_loop_new()) == NULL ||
	    lc_loop_signals(loop, NULL, NULL) != 0 ||
	    (rtm = rtm_new(loop, cfg, &ro)) == NULL) {
		lc_log_errno(LC_LOG_ERR, "cannot set up");
		return (1);
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
		lc_loop_free(loop);
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	ev_run(loop, 0); /* until SIGTERM or SIGINT */
	rtm_shutdown(rtm, on_down, loop);
	while (!rtm_is_down(rtm)) /* a second signal does not cut it short */
		ev_run(loop, 0);
	rtm_ipc_free(ri);
	rtm_free(rtm);
	lc_loop_free(loop);
	lc_daemon_opts_fini(&opts);
	return (0);
}
