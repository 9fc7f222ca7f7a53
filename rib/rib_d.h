/* rib/rib_d.h: the tern-rib daemon object: the rib core served over IPC (rib.sock), FIB download to tern-fwd, interface state from tern-fwd. */
#ifndef RIB_D_H
#define RIB_D_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "rib/rib.h"

#define RIB_D_HOLD_DEFAULT_MS  3000  /* wait for statics after a start */
#define RIB_D_HOLD_EXTEND_MAX  20    /* more holds while mgmt's resync runs */
#define RIB_D_GRACE_DEFAULT_MS 30000 /* a protocol source that does not say */
#define RIB_D_QUERY_LIMIT      1000  /* routes per QUERY reply by default */
#define RIB_D_QUERY_LIMIT_MAX  100000
#define RIB_D_FIB_TIMEOUT_MS   10000 /* per FIB_BATCH call */

struct rib_d_opts {
	const char *rundir;  /* NULL: $TERN_RUNDIR, else /run/tern */
	uint64_t generation; /* 0: a new one (clock and pid) */
	uint32_t hold_ms;    /* 0: RIB_D_HOLD_DEFAULT_MS */
	uint32_t grace_ms;   /* 0: RIB_D_GRACE_DEFAULT_MS */
	uint32_t
	    reconnect_ms; /* to fwd; 0: 20 ms (a failed connect is cheap) */
	const struct rib_conf *conf; /* NULL: defaults */
};

struct rib_d;

/*
 * Builds the rib, serves RUNDIR/rib.sock (and rib-ro.sock) in loop and
 * connects to RUNDIR/fwd.sock in the background (fwd may be absent).
 * lifecycle SHUTDOWN breaks the loop. NULL with errno (EADDRINUSE when a
 * live tern-rib owns the socket, ENOMEM, EINVAL).
 */
struct rib_d *rib_d_new(struct ev_loop *loop, const struct rib_d_opts *);
/* Closes sockets, cancels timers, frees the rib. NULL is a no-op. */
void rib_d_free(struct rib_d *);

/* The core (tests and show); do not change it behind the daemon's back. */
struct rib *rib_d_rib(struct rib_d *);

/* fwd session state, for tests and FIB_STATUS. */
enum rib_d_fwd_state {
	RIB_D_FWD_DOWN = 0, /* not connected */
	RIB_D_FWD_SYNC,	    /* RESYNC_BEGIN sent; learning interfaces/statics */
	RIB_D_FWD_PUSH,	    /* full FIB going out */
	RIB_D_FWD_END,	    /* RESYNC_END sent */
	RIB_D_FWD_UP,	    /* in sync; changes flow as they come */
};
enum rib_d_fwd_state rib_d_fwd_state(const struct rib_d *);
/* The state shown in lifecycle STATUS: "resyncing" or "running". */
const char *rib_d_state(const struct rib_d *);

#endif /* RIB_D_H */
