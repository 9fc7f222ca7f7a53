/* rib/main.c: tern-rib, the tern routing information base: route sources, best path, FIB download. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "rib_d.h"

static const char *const value_opts[] = {"--hold-ms", "--grace-ms", "--ecmp",
    "--fib-batch", "--fib-window", NULL};
static const struct lc_daemon_info info = {
    .value_opts = value_opts,
    .name = "tern-rib",
    .summary =
	"The tern routing information base: route sources, best path, FIB download.",
    .usage_extra =
	"  --hold-ms=N        after a start, wait up to N ms for mgmt's static\n"
	"                     resync before pushing the FIB (default 3000)\n"
	"  --grace-ms=N       grace of protocol sources that do not ask (30000)\n"
	"  --ecmp=N           widest ECMP set, 1..64 (default 8)\n"
	"  --fib-batch=N      routes per FIB batch to tern-fwd (1024)\n"
	"  --fib-window=N     FIB routes in flight, unacked (262144)\n",
    .status =
	"serves rib.sock (route batches, resync, show route queries,\n"
	"FIB status, sources), downloads the FIB to tern-fwd with acks and\n"
	"resync, and learns connected routes from tern-fwd's interfaces.",
};

int
main(int argc, char **argv)
{
	struct lc_daemon_opts opts;
	struct rib_d_opts ro = {0};
	struct rib_conf conf;
	struct ev_loop *loop;
	struct rib_d *d;
	unsigned v;
	int rv;

	if ((rv = lc_daemon_parse(argc, argv, &info, &opts)) != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv > 0 ? 0 : 2);
	}
	lc_log_init(info.name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	rib_conf_default(&conf);
	for (int i = 1; i < opts.rest_argc; i++) {
		const char *a = opts.rest_argv[i];
		int r;

		if ((r = lc_daemon_opt_uint(a, "--hold-ms", ~0u, &v)) == 1) {
			ro.hold_ms = v ? v : 1;
		} else if (r == 0 &&
		    (r = lc_daemon_opt_uint(a, "--grace-ms", ~0u, &v)) == 1) {
			ro.grace_ms = v ? v : 1;
		} else if (r == 0 &&
		    (r = lc_daemon_opt_uint(a, "--ecmp", RIB_NH_MAX, &v)) ==
			1) {
			conf.ecmp_width = v;
		} else if (r == 0 &&
		    (r = lc_daemon_opt_uint(a, "--fib-batch", ~0u, &v)) == 1) {
			conf.fib_batch_max = v;
		} else if (r == 0 &&
		    (r = lc_daemon_opt_uint(a, "--fib-window", ~0u, &v)) == 1) {
			conf.fib_high_water = v;
			conf.fib_low_water = v / 4;
		}
		if (r != 1) {
			fprintf(stderr,
			    "tern-rib: bad option '%s'\n"
			    "Try 'tern-rib --help'.\n",
			    a);
			lc_daemon_opts_fini(&opts);
			return (2);
		}
	}
	ro.rundir = opts.rundir;
	ro.generation = opts.generation;
	ro.conf = &conf;
	if ((loop = lc_loop_new()) == NULL ||
	    lc_loop_signals(loop, NULL, NULL) != 0) {
		lc_log_err("cannot create the event loop");
		return (1);
	}
	if ((d = rib_d_new(loop, &ro)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	lc_log_notice("running in %s", opts.rundir);
	ev_run(loop, 0);
	lc_log_notice("shutting down");
	rib_d_free(d);
	lc_loop_free(loop);
	lc_daemon_opts_fini(&opts);
	return (0);
}
