/* fwd/main.c: tern-fwd, the tern forwarding plane: ports, FIB, ARP, ICMP and
 * the packet fast path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_daemon.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "fwd_d.h"
#include "fwd_port_xdp.h"

static const char *const value_opts[] = {"--workers", "--max-nh", "--spin-us",
    "--cpus", "--busy-poll-us", "--xdp-tx", "--arp-reachable-ms", NULL};
static const struct lc_daemon_info info = {
    .value_opts = value_opts,
    .name = "tern-fwd",
    .summary = "The tern forwarding plane: ports, FIB, ARP, ICMP and the "
	       "packet fast path.",
    .usage_extra =
	"  --workers=N        forwarding threads (default 1, at most 16)\n"
	"  --max-nh=N         next-hop/adjacency space (default 8192)\n"
	"  --spin-us=N        busy-poll this long when idle before sleeping\n"
	"                     (default 50)\n"
	"  --cpus=LIST        pin worker k to the k-th CPU of LIST (e.g. 1 or\n"
	"                     2-3,6; default: no pinning)\n"
	"  --busy-poll-us=N   SO_BUSY_POLL N, SO_PREFER_BUSY_POLL and\n"
	"                     SO_BUSY_POLL_BUDGET on AF_XDP sockets: idle workers\n"
	"                     run the device's NAPI themselves (default 0: off)\n"
	"  --xdp-tx=MODE      how AF_XDP copy-mode ports send: run (batches of\n"
	"                     64 frames with BPF_PROG_RUN, XDP redirects; a\n"
	"                     device that refuses XDP frames gets the TX ring from\n"
	"                     then on), ring (the socket's TX ring), auto (run\n"
	"                     when this kernel has what it needs, else ring;\n"
	"                     the default)\n"
	"  --arp-reachable-ms=N  a resolved neighbour is used this long without\n"
	"                     confirmation, then probed (unicast, 3 times, 1 s\n"
	"                     apart) and forgotten if silent (100..3600000,\n"
	"                     default 30000)\n",
    .status =
	"forwards IPv4 over AF_PACKET (TPACKET_V2) or AF_XDP ports: interfaces\n"
	"from tern-mgmt and FIB batches from tern-rib over IPC, ARP, ICMP,\n"
	"queries.",
};

int
main(int argc, char **argv)
{
	struct lc_daemon_opts opts;
	struct fwd_d_conf fc = {.workers = 1};
	struct ev_loop *loop;
	struct fwd_d *d;
	const char *xdp_tx = "auto";
	char err[160];
	int rv;

	if ((rv = lc_daemon_parse(argc, argv, &info, &opts)) != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv > 0 ? 0 : 2);
	}
	lc_log_init(info.name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	for (int i = 1; i < opts.rest_argc; i++) {
		const char *a = opts.rest_argv[i];

		if (strncmp(a, "--xdp-tx=", 9) == 0) {
			if (strcmp(a + 9, "run") == 0 ||
			    strcmp(a + 9, "ring") == 0 ||
			    strcmp(a + 9, "auto") == 0) {
				xdp_tx = a + 9;
				continue;
			}
			fprintf(stderr,
			    "tern-fwd: --xdp-tx: '%s' is not run, ring or "
			    "auto\n",
			    a + 9);
			lc_daemon_opts_fini(&opts);
			return (2);
		}
		if (strncmp(a, "--cpus=", 7) == 0) {
			rv = fwd_cpus_parse(a + 7, fc.cpus, FWD_D_WORKERS_MAX,
			    &fc.ncpus, err, sizeof(err));
			if (rv == 0)
				rv = fwd_cpus_check(fc.cpus, fc.ncpus, err,
				    sizeof(err));
			if (rv != 0) {
				fprintf(stderr, "tern-fwd: --cpus: %s\n", err);
				lc_daemon_opts_fini(&opts);
				return (2);
			}
			continue;
		}
		/* each returns 0 when a is not its option */
		rv = lc_daemon_opt_uint(a, "--workers", 1000000, &fc.workers);
		if (rv == 0)
			rv = lc_daemon_opt_uint(a, "--max-nh", 1000000,
			    &fc.max_nh);
		if (rv == 0)
			rv = lc_daemon_opt_uint(a, "--spin-us", 1000000,
			    &fc.spin_us);
		if (rv == 0)
			rv = lc_daemon_opt_uint(a, "--busy-poll-us", 1000000,
			    &fc.busy_poll_us);
		if (rv == 0)
			rv = lc_daemon_opt_uint(a, "--arp-reachable-ms",
			    3600000, &fc.arp_reachable_ms);
		if (rv <= 0 ||
		    (fc.workers < 1 || fc.workers > FWD_D_WORKERS_MAX) ||
		    (fc.arp_reachable_ms != 0 && fc.arp_reachable_ms < 100)) {
			fprintf(stderr,
			    "tern-fwd: bad option '%s'\n"
			    "Try 'tern-fwd --help'.\n",
			    a);
			lc_daemon_opts_fini(&opts);
			return (2);
		}
	}
	if (fc.ncpus > 0 && fc.ncpus < fc.workers) {
		fprintf(stderr,
		    "tern-fwd: --cpus lists %u CPU%s for %u workers: one "
		    "per worker\n",
		    fc.ncpus, fc.ncpus == 1 ? "" : "s", fc.workers);
		lc_daemon_opts_fini(&opts);
		return (2);
	}
	/* process-wide, before the first port */
	if (strcmp(xdp_tx, "ring") != 0 && (rv = fwd_port_xdp_tx_run()) != 0) {
		const char *why = rv == -EOPNOTSUPP ?
		    "built without clang (no BPF object)" :
		    strerror(-rv);

		if (strcmp(xdp_tx, "run") == 0) {
			fprintf(stderr, "tern-fwd: --xdp-tx=run: %s\n", why);
			lc_daemon_opts_fini(&opts);
			return (2);
		}
		lc_log_notice("AF_XDP sends through the TX ring: BPF_PROG_RUN "
			      "sending unavailable (%s)",
		    why);
	}
	fc.rundir = opts.rundir;
	fc.generation = opts.generation;
	if ((loop = lc_loop_new()) == NULL ||
	    lc_loop_signals(loop, NULL, NULL) != 0) {
		lc_log_err("cannot create the event loop");
		return (1);
	}
	if ((d = fwd_d_new(loop, &fc)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	lc_log_notice("running in %s with %u worker%s%s%s%s", opts.rundir,
	    fc.workers, fc.workers == 1 ? "" : "s",
	    fc.ncpus > 0 ? ", pinned" : "",
	    fc.busy_poll_us > 0 ? ", busy-polling AF_XDP" : "",
	    fwd_port_xdp_tx_running() ? ", AF_XDP sending with BPF_PROG_RUN" :
					"");
	ev_run(loop, 0);
	lc_log_notice("shutting down");
	fwd_d_free(d);
	lc_loop_free(loop);
	lc_daemon_opts_fini(&opts);
	return (0);
}
