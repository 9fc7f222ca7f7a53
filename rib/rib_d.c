/* rib/rib_d.c: the tern-rib daemon's life cycle: the rib core, rib.sock (rib_in.c), the fwd session (rib_fwd.c), the start hold for statics and the loop hook. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"

#include "rib_d_int.h"

void
rib_d_set_state(struct rib_d *d)
{
	const char *s;

	if (!d->static_synced && !d->hold_over)
		s = "resyncing";
	else if (d->fs == RIB_D_FWD_DOWN || d->fs == RIB_D_FWD_UP)
		s = "running";
	else
		s = "resyncing";
	if (s != d->state) {
		d->state = s;
		ipc_server_set_state(d->srv, s);
	}
}

static void
hold_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rib_d *d = w->data;

	(void)revents;
	if (d->static_peer != NULL && !d->static_synced &&
	    d->hold_extended < RIB_D_HOLD_EXTEND_MAX) {
		/* mgmt is re-pushing statics (a big config takes a while):
		 * give it another hold while it is connected */
		if (d->hold_extended++ == 0)
			lc_log_notice("static resync from mgmt still going: "
				      "holding the FIB push");
		ev_timer_set(&d->hold, d->hold_ms / 1000.0, 0.0);
		ev_timer_start(loop, &d->hold);
		return;
	}
	d->hold_over = true;
	rib_d_set_state(d);
	if (!d->static_synced)
		lc_log_notice("no static resync from mgmt in %u ms: going on "
			      "without it",
		    d->hold_ms);
}

/* Once per loop turn, before blocking. */
static void
rd_hook(void *arg)
{
	rib_d_fwd_turn(arg);
	rib_d_nht_turn(arg);
}

struct rib_d *
rib_d_new(struct ev_loop *loop, const struct rib_d_opts *o)
{
	static const struct rib_d_opts zero;
	struct ipc_opts io;
	struct rib_d *d;
	int e;

	if (o == NULL)
		o = &zero;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return (NULL);
	d->loop = loop;
	d->hold_ms = o->hold_ms ? o->hold_ms : RIB_D_HOLD_DEFAULT_MS;
	d->grace_ms = o->grace_ms ? o->grace_ms : RIB_D_GRACE_DEFAULT_MS;
	if ((d->rib = rib_new(o->conf)) == NULL ||
	    (d->arena = lc_arena_new(64 << 10)) == NULL)
		goto fail;
	/* our hook runs before the IPC flush hooks registered after it */
	lc_loop_hook_start(loop, &d->hook, rd_hook, d);

	memset(&io, 0, sizeof(io));
	io.rundir = o->rundir;
	io.component = "rib";
	io.generation = o->generation;
	io.reconnect_ms = o->reconnect_ms ? o->reconnect_ms : 20;
	if ((d->srv = ipc_server_new(loop, &ipc_svc_rib, &io)) == NULL)
		goto fail;
	d->state = "resyncing";
	ipc_server_set_state(d->srv, d->state);
	rib_d_in_init(d);
	io.generation = ipc_server_generation(d->srv); /* fwd sees it */
	if ((e = rib_d_fwd_init(d, &io)) != 0) {
		errno = -e;
		goto fail;
	}
	ev_timer_init(&d->hold, hold_cb, d->hold_ms / 1000.0, 0.0);
	d->hold.data = d;
	ev_timer_start(loop, &d->hold);
	return (d);
fail:
	e = errno ? errno : ENOMEM;
	rib_d_free(d);
	errno = e;
	return (NULL);
}

void
rib_d_free(struct rib_d *d)
{
	if (d == NULL)
		return;
	lc_loop_hook_stop(d->loop, &d->hook);
	ev_timer_stop(d->loop, &d->hold);
	rib_d_nht_fini(d);
	rib_d_in_fini(d);
	rib_d_fwd_fini(d);
	ipc_server_free(d->srv);
	rib_free(d->rib);
	lc_arena_free(d->arena);
	free(d->upd);
	free(d->nh);
	free(d);
}

struct rib *
rib_d_rib(struct rib_d *d)
{
	return (d->rib);
}

enum rib_d_fwd_state
rib_d_fwd_state(const struct rib_d *d)
{
	return (d->fs);
}

const char *
rib_d_state(const struct rib_d *d)
{
	return (d->state);
}
