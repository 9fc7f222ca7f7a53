/* bgp/main.c: tern-bgp, the tern BGP-4 speaker: sessions with neighbours
 * over the kernel's TCP sockets (through tern-fwd's host path), configured
 * by tern-mgmt (docs/bgp.md). */
#include <errno.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "bgp_d.h"

static struct bgp_d_opts bo;

static const struct lc_opt opts[] = {
    LC_OPT_ROW_UINT("--port", "N", &bo.port, 1, 65535,
	"TCP port to listen on and connect to (default 179)"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info info = {
    .name = "tern-bgp",
    .summary = "The tern BGP-4 speaker.",
    .opts = opts,
    .status =
	"serves bgp.sock (the protocols bgp block from mgmt, neighbor\n"
	"queries, clear); runs each neighbor's session (RFC 4271 FSM: connect\n"
	"with back-off, accept, collision detection, OPEN with 4-octet AS,\n"
	"multiprotocol, route refresh and graceful restart capabilities, hold\n"
	"and keepalive timers, TCP MD5, TTL 1 or multihop). UPDATEs go into\n"
	"one table of every neighbour's paths; best paths go to tern-rib\n"
	"(source bgp, distance 170). Advertising is not done yet (issue 21).",
};

static void *
bgp_start(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	struct bgp_d *d;

	bo.rundir = o->rundir;
	bo.generation = o->generation;
	if ((d = bgp_d_new(loop, &bo)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		return (NULL);
	}
	lc_log_notice("running in %s", o->rundir);
	return (d);
}

static void
bgp_stop(void *d, struct ev_loop *loop)
{
	(void)loop;
	bgp_d_free(d);
}

int
main(int argc, char **argv)
{
	static const struct lc_daemon_ops ops = {NULL, bgp_start, bgp_stop};

	return (lc_daemon_main(argc, argv, &info, &ops));
}
