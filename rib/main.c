/* rib/main.c: tern-rib, the tern routing information base: route sources,
 * best path, FIB download. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "rib_d.h"

static struct rib_d_opts ro;
static struct rib_conf conf;

/* A time in ms where rib_d takes 0 for its default: a given 0 is 1 ms. */
static int
opt_ms(const char *v, void *dst, struct lc_err *err)
{
	unsigned *ms = dst;
	int rv;

	if ((rv = lc_opt_uint(v, 0, ~0u, ms, err)) == 0 && *ms == 0)
		*ms = 1;
	return (rv);
}

static const struct lc_opt opts[] = {
    LC_OPT_ROW_FN("--hold-ms", "N", &ro.hold_ms, opt_ms,
	"after a start, wait up to N ms for mgmt's static\n"
	"resync before pushing the FIB (default 3000)"),
    LC_OPT_ROW_FN("--grace-ms", "N", &ro.grace_ms, opt_ms,
	"grace of protocol sources that do not ask (30000)"),
    LC_OPT_ROW_UINT("--ecmp", "N", &conf.ecmp_width, 1, RIB_NH_MAX,
	"widest ECMP set, 1..64 (default 8)"),
    LC_OPT_ROW_UINT("--fib-batch", "N", &conf.fib_batch_max, 0, ~0u,
	"routes per FIB batch to tern-fwd (1024)"),
    LC_OPT_ROW_UINT("--fib-window", "N", &conf.fib_high_water, 0, ~0u,
	"FIB routes in flight, unacked (262144)"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info info = {
    .name = "tern-rib",
    .summary =
	"The tern routing information base: route sources, best path, FIB download.",
    .opts = opts,
    .status =
	"serves rib.sock (route batches, resync, show route queries,\n"
	"FIB status, sources), downloads the FIB to tern-fwd with acks and\n"
	"resync, and learns connected routes from tern-fwd's interfaces.",
};

static void *
rib_start(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	struct rib_d *d;

	/* resume sending when acks bring the window down to a quarter */
	conf.fib_low_water = conf.fib_high_water / 4;
	ro.rundir = o->rundir;
	ro.generation = o->generation;
	ro.conf = &conf;
	if ((d = rib_d_new(loop, &ro)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		return (NULL);
	}
	lc_log_notice("running in %s", o->rundir);
	return (d);
}

static void
rib_stop(void *d, struct ev_loop *loop)
{
	(void)loop;
	rib_d_free(d);
}

int
main(int argc, char **argv)
{
	static const struct lc_daemon_ops ops = {NULL, rib_start, rib_stop};

	rib_conf_default(&conf);
	return (lc_daemon_main(argc, argv, &info, &ops));
}
