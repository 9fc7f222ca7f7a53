/* rtrmgr/main.c: tern-rtrmgr, the tern router manager: starts, watches and
 * restarts the tern components. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "rtm.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define RTM_CONFIG_DEFAULT TERN_CONF_DIR "/tern-rtrmgr.conf"

static struct rtm_config *cfg;
static struct rtm_ipc *ri;
static struct rtm_notify *sdn;
static const char *cfg_path; /* re-read on SIGHUP */
static ev_signal hup;
static bool check_only;

static const struct lc_opt opts[] = {
    LC_OPT_ROW_FLAG("--foreground", NULL,
	"stay in the foreground (the default and only mode)"),
    LC_OPT_ROW_FLAG("--check", &check_only,
	"parse and check the boot config (-c FILE), print OK or the\n"
	"error and exit 0 or 1; starts nothing"),
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
	      "RUNDIR/rtrmgr.sock (list, start, stop, restart, events);\n"
	      "SIGHUP re-reads the boot config; under systemd Type=notify\n"
	      "(READY, STATUS, RELOADING, STOPPING, WATCHDOG); see "
	      "docs/rtrmgr.md.",
};

/* --check: the boot config as a start or a reload would take it. */
static int
rtm_check_only(const struct lc_daemon_opts *o)
{
	const char *env = getenv("TERN_RUNDIR");
	struct lc_err err;
	unsigned n;

	if (o->rundir_set)
		env = o->rundir;
	else if (env != NULL && *env == '\0')
		env = NULL;
	if ((cfg = rtm_config_load(cfg_path, &err)) == NULL ||
	    rtm_config_check(cfg, env, &err) != 0) {
		fprintf(stderr, "tern-rtrmgr: %s\n", err.msg);
		rtm_config_free(cfg);
		return (1);
	}
	n = rtm_config_ncomps(cfg);
	rtm_config_free(cfg);
	printf("%s: OK (%u component%s)\n", cfg_path, n, n == 1 ? "" : "s");
	fflush(stdout);
	exit(0); /* lc_daemon_main would go on to start the router */
}

/* The boot config, before anything is made: an error starts nothing. */
static int
rtm_check(const struct lc_daemon_opts *o)
{
	struct lc_err err;

	cfg_path = o->config ? o->config : RTM_CONFIG_DEFAULT;
	if (check_only)
		return (rtm_check_only(o));
	if ((cfg = rtm_config_load(cfg_path, &err)) == NULL) {
		lc_log_err("%s (nothing started)", err.msg);
		return (1);
	}
	/* A hang-up must not kill the supervisor (children reset it);
	 * once the loop runs, it means reload. */
	signal(SIGHUP, SIG_IGN);
	return (0);
}

/* SIGHUP (systemctl reload): the boot config again, all or nothing. */
static void
hup_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct rtm *rtm = w->data;
	struct rtm_config *ncfg;
	struct lc_err err;

	if (rtm_overall(rtm, NULL, 0) == RTM_OV_STOPPING) {
		lc_log_notice("SIGHUP ignored: shutting down");
		return; /* no RELOADING=1 while systemd waits for the stop */
	}
	lc_log_notice("SIGHUP: reloading %s", cfg_path);
	rtm_notify_reloading(sdn, cfg_path);
	if ((ncfg = rtm_config_load(cfg_path, &err)) != NULL)
		(void)rtm_reload(rtm, ncfg, &err);
	if (err.code != 0)
		lc_log_err("reload refused, nothing changed: %s", err.msg);
	rtm_notify_reloaded(sdn, &err);
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
	/* before the boot, so that its first STATUS= says what it waits for */
	if (rv == 0 && (sdn = rtm_notify_new(rtm, loop)) == NULL &&
	    errno != 0) {
		lc_log_errno(LC_LOG_ERR, "systemd notification");
		rv = -1;
	}
	if (rv != 0 || rtm_start(rtm) != 0) {
		rtm_notify_free(sdn);
		rtm_ipc_free(ri);
		rtm_free(rtm);
		return (NULL);
	}
	ev_signal_init(&hup, hup_cb, SIGHUP);
	hup.data = rtm;
	ev_signal_start(loop, &hup);
	ev_unref(loop);
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
	rtm_shutdown(rtm, on_down, loop); /* STOPPING=1 */
	while (!rtm_is_down(rtm)) /* a second signal does not cut it short */
		ev_run(loop, 0);
	ev_ref(loop);
	ev_signal_stop(loop, &hup);
	rtm_notify_free(sdn);
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
