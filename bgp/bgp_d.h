/* bgp/bgp_d.h: the tern-bgp daemon (docs/bgp.md). */
#ifndef BGP_D_H
#define BGP_D_H

#include <stdint.h>

#include <ev.h>

struct bgp_d;

struct bgp_d_opts {
	const char *rundir;  /* NULL: $TERN_RUNDIR or /run/tern */
	uint64_t generation; /* 0: a new one */
	unsigned port;	     /* TCP port to listen on and connect to; 0: 179 */
};

/* The daemon on loop: bgp.sock served, no session until mgmt's config
 * arrives. NULL with errno. */
struct bgp_d *bgp_d_new(struct ev_loop *loop, const struct bgp_d_opts *o);
/* Every session closed with a Cease NOTIFICATION, then freed. */
void bgp_d_free(struct bgp_d *);

#endif /* BGP_D_H */
