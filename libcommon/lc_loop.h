/* libcommon/lc_loop.h: libev glue: loop creation with a per-turn cached clock,
 * stop signals, pre-block hooks. */
#ifndef LC_LOOP_H
#define LC_LOOP_H

#include <ev.h>

/*
 * ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK) plus an internal check/prepare
 * pair (unref'd: they do not keep ev_run alive) that refreshes lc_now_ns()
 * when the loop wakes up, before any other callback of the turn.
 * ev_userdata() stays free for the owner.
 * Returns NULL with errno set (ENOMEM, or EINVAL if libev has no backend).
 */
struct ev_loop *lc_loop_new(void);
/* Stops lc's watchers and destroys the loop. The owner stops its own watchers
 * first. NULL is a no-op. */
void lc_loop_free(struct ev_loop *);

/*
 * SIGINT and SIGTERM stop the loop (ev_break(EVBREAK_ALL)) after calling
 * on_stop(arg) if on_stop is set; SIGPIPE is ignored. The signal watchers
 * are unref'd (they do not keep ev_run alive on their own). libev allows a
 * signal in one loop only: call this for the main loop.
 * Returns 0; -EINVAL if the loop was not made by lc_loop_new().
 * Calling it again replaces on_stop/arg.
 */
int lc_loop_signals(struct ev_loop *, void (*on_stop)(void *), void *arg);

/*
 * Hooks run just before the loop blocks (from an ev_prepare), in
 * registration order: IPC uses this to flush batched calls. Embed the
 * struct in its owner and stop it before freeing the owner. A hook may stop
 * itself or other hooks from its callback. Fields are private.
 * On a loop not made by lc_loop_new() the hook still runs before blocking,
 * but the order among hooks is libev's.
 */
struct lc_loop_hook {
	ev_prepare w;
	void (*fn)(void *);
	void *arg;
	struct lc_loop_hook *next, *prev;
	struct ev_loop *loop; /* non-NULL while started */
};
/* Starting an already started hook restarts it with the new fn/arg at the end
 * of the order. */
void lc_loop_hook_start(struct ev_loop *, struct lc_loop_hook *,
    void (*fn)(void *), void *arg);
/* Stopping a stopped (or zeroed) hook is a no-op. loop may be NULL (the
 * hook remembers its loop). */
void lc_loop_hook_stop(struct ev_loop *, struct lc_loop_hook *);

#endif /* LC_LOOP_H */
