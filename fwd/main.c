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

static struct fwd_d_conf fc = {.workers = 1};
static const char *xdp_tx = "auto";
static const char *const xdp_tx_modes[] = {"run", "ring", "auto", NULL};

/* --cpus=LIST: one CPU per worker, each online and ours to use. */
static int
opt_cpus(const char *v, void *dst, struct lc_err *err)
{
	struct fwd_d_conf *c = dst;
	int rv;

	if ((rv = fwd_cpus_parse(v, c->cpus, FWD_D_WORKERS_MAX, &c->ncpus,
		 err)) != 0)
		return (rv);
	return (fwd_cpus_check(c->cpus, c->ncpus, err));
}

/* --arp-reachable-ms=N: 100..3600000, or 0 for fwd_arp's default. */
static int
opt_reachable(const char *v, void *dst, struct lc_err *err)
{
	unsigned ms;

	if (lc_opt_uint(v, 0, 3600000, &ms, err) != 0 || (ms != 0 && ms < 100))
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "'%s' is not a number in 100..3600000", v));
	*(unsigned *)dst = ms;
	return (0);
}

/* --ring-frames: a power of two, 64..65536. */
static int
opt_ring(const char *v, void *dst, struct lc_err *err)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n < 64 || n > 65536 ||
	    (n & (n - 1)) != 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "--ring-frames %s: a power of two from 64 to 65536", v));
	*(unsigned *)dst = (unsigned)n;
	return (0);
}

static const struct lc_opt opts[] = {
    LC_OPT_ROW_UINT("--workers", "N", &fc.workers, 1, FWD_D_WORKERS_MAX,
	"forwarding threads (default 1, at most 16)"),
    LC_OPT_ROW_UINT("--max-nh", "N", &fc.max_nh, 0, 1000000,
	"next-hop/adjacency space (default 8192)"),
    LC_OPT_ROW_UINT("--spin-us", "N", &fc.spin_us, 0, 1000000,
	"busy-poll this long when idle before sleeping\n"
	"(default 50)"),
    LC_OPT_ROW_FN("--cpus", "LIST", &fc, opt_cpus,
	"pin worker k to the k-th CPU of LIST (e.g. 1 or\n"
	"2-3,6; default: no pinning)"),
    LC_OPT_ROW_UINT("--busy-poll-us", "N", &fc.busy_poll_us, 0, 1000000,
	"SO_BUSY_POLL N, SO_PREFER_BUSY_POLL and\n"
	"SO_BUSY_POLL_BUDGET on AF_XDP sockets: idle workers\n"
	"run the device's NAPI themselves (default 0: off)"),
    LC_OPT_ROW_CHOICE("--xdp-tx", "MODE", &xdp_tx, xdp_tx_modes,
	"how AF_XDP copy-mode ports send: run (batches of\n"
	"64 frames with BPF_PROG_RUN, XDP redirects; a\n"
	"device that refuses XDP frames gets the TX ring from\n"
	"then on), ring (the socket's TX ring), auto (run\n"
	"when this kernel has what it needs, else ring;\n"
	"the default)"),
    LC_OPT_ROW_FN("--arp-reachable-ms", "N", &fc.arp_reachable_ms,
	opt_reachable,
	"a resolved neighbour is used this long without\n"
	"confirmation, then probed (unicast, 3 times, 1 s\n"
	"apart) and forgotten if silent (100..3600000,\n"
	"default 30000)"),
    LC_OPT_ROW_FN("--ring-frames", "N", &fc.ring_frames, opt_ring,
	"frames in each AF_PACKET socket's RX ring (a power\n"
	"of two, default 4096; the TX ring has at most 1024)"),
    LC_OPT_ROW_END,
};

static const struct lc_daemon_info info = {
    .name = "tern-fwd",
    .summary = "The tern forwarding plane: ports, FIB, ARP, ICMP and the "
	       "packet fast path.",
    .opts = opts,
    .status =
	"forwards IPv4 over AF_PACKET (TPACKET_V2) or AF_XDP ports: interfaces\n"
	"from tern-mgmt and FIB batches from tern-rib over IPC, ARP, ICMP,\n"
	"queries.",
};

/* Options across each other, and the process-wide AF_XDP send mode. */
static int
fwd_check(const struct lc_daemon_opts *o)
{
	const char *why;
	int rv;

	(void)o;
	if (fc.ncpus > 0 && fc.ncpus < fc.workers) {
		fprintf(stderr,
		    "tern-fwd: --cpus lists %u CPU%s for %u workers: one "
		    "per worker\n",
		    fc.ncpus, fc.ncpus == 1 ? "" : "s", fc.workers);
		return (2);
	}
	/* before the first port */
	if (strcmp(xdp_tx, "ring") == 0 || (rv = fwd_port_xdp_tx_run()) == 0)
		return (0);
	why = rv == -EOPNOTSUPP ? "built without clang (no BPF object)" :
				  strerror(-rv);
	if (strcmp(xdp_tx, "run") == 0) {
		fprintf(stderr, "tern-fwd: --xdp-tx=run: %s\n", why);
		return (2);
	}
	lc_log_notice("AF_XDP sends through the TX ring: BPF_PROG_RUN "
		      "sending unavailable (%s)",
	    why);
	return (0);
}

static void *
fwd_start(struct ev_loop *loop, const struct lc_daemon_opts *o)
{
	struct fwd_d *d;

	fc.rundir = o->rundir;
	fc.generation = o->generation;
	if ((d = fwd_d_new(loop, &fc)) == NULL) {
		lc_log_err("cannot start: %s", strerror(errno));
		return (NULL);
	}
	lc_log_notice("running in %s with %u worker%s%s%s%s", o->rundir,
	    fc.workers, fc.workers == 1 ? "" : "s",
	    fc.ncpus > 0 ? ", pinned" : "",
	    fc.busy_poll_us > 0 ? ", busy-polling AF_XDP" : "",
	    fwd_port_xdp_tx_running() ? ", AF_XDP sending with BPF_PROG_RUN" :
					"");
	return (d);
}

static void
fwd_stop(void *d, struct ev_loop *loop)
{
	(void)loop;
	fwd_d_free(d);
}

int
main(int argc, char **argv)
{
	static const struct lc_daemon_ops ops = {fwd_check, fwd_start,
	    fwd_stop};

	return (lc_daemon_main(argc, argv, &info, &ops));
}
