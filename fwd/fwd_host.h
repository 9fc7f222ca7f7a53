/* fwd/fwd_host.h: the host path's per-interface state (docs/hostpath.md):
 * a TAP in the kernel that mirrors a port, for the router's own sockets.
 * The functions are the control thread's, in fwd_d_int.h. */
#ifndef FWD_HOST_H
#define FWD_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>
#include <net/if.h>

/* fwd.proto HostPathCounters, less the two sums. */
struct fwd_host_stats {
	uint64_t up_pkts, up_bytes, down_pkts, down_bytes;
	uint64_t up_full;	 /* the TAP's queue was full (EAGAIN) */
	uint64_t up_error;	 /* write failed otherwise */
	uint64_t up_coalesced;	 /* of up_pkts: sent merged (fwd_host_gro.h) */
	uint64_t up_gso;	 /* the merged writes */
	uint64_t down_port_down; /* the port is down or not attached */
	uint64_t down_not_ip;  /* neither IPv4 nor ARP (IPv6 until it lands) */
	uint64_t down_bad;     /* shorter than Ethernet or over the MTU */
	uint64_t down_tx_full; /* the port's send ring was full */
};

struct fwd_d;

struct fwd_host_if {
	bool open; /* fd, ifindex, name and io are valid */
	int fd;	   /* the TAP, non-blocking */
	uint32_t ifindex;
	char name[IFNAMSIZ];
	ev_io io; /* down: readable */
	struct fwd_d *d;
	struct fwd_host_stats st;
};

/* The host interface's name for port (name, ifindex): "h-" + the port's
 * name when it fits IFNAMSIZ, else "h" + the ifindex. */
void fwd_host_name(const char *port, uint32_t ifindex, char out[IFNAMSIZ]);

/* The alias (IFLA_IFALIAS) tern-fwd gives its host interfaces; a TAP with
 * it that no process holds is a leftover of an earlier tern-fwd. */
#define FWD_HOST_ALIAS "tern-fwd host path of "

#endif /* FWD_HOST_H */
