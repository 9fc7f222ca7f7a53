/* libcommon/lc_loop.c: libev loop creation, the per-turn clock refresh, stop
 * signals and ordered pre-block hooks. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lc_loop.h"
#include "lc_time.h"

/*
 * Per-loop state. Found through a small process-wide list (a process has a
 * handful of loops, looked up only when hooks or signals are set up), so
 * ev_userdata() stays free for the owner.
 */
struct lc_loop {
	struct ev_loop *loop;
	struct lc_loop *list_next;
	ev_check chk;	 /* EV_MAXPRI: refreshes the clock first */
	ev_prepare prep; /* runs the hooks in order */
	ev_signal sigint, sigterm;
	bool signals;
	void (*on_stop)(void *);
	void *stop_arg;
	struct lc_loop_hook *head, *tail;
	struct lc_loop_hook *iter_next; /* dispatch cursor, fixed up by stop */
};

static pthread_mutex_t lc_loops_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct lc_loop *lc_loops;

static struct lc_loop *
lc_loop_state(struct ev_loop *loop)
{
	struct lc_loop *st;

	pthread_mutex_lock(&lc_loops_mtx);
	for (st = lc_loops; st != NULL && st->loop != loop; st = st->list_next)
		;
	pthread_mutex_unlock(&lc_loops_mtx);
	return (st);
}

static void
lc_loop_check_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	lc_now_update();
}

static void
lc_loop_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct lc_loop *st = w->data;
	struct lc_loop_hook *h;

	(void)loop;
	(void)revents;
	for (h = st->head; h != NULL; h = st->iter_next) {
		st->iter_next = h->next;
		h->fn(h->arg);
	}
	st->iter_next = NULL;
}

static void
lc_loop_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct lc_loop *st = w->data;

	(void)revents;
	if (st->on_stop != NULL)
		st->on_stop(st->stop_arg);
	ev_break(loop, EVBREAK_ALL);
}

struct ev_loop *
lc_loop_new(void)
{
	struct ev_loop *loop;
	struct lc_loop *st;

	if ((st = calloc(1, sizeof(*st))) == NULL) {
		errno = ENOMEM;
		return (NULL);
	}
	if ((loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK)) == NULL) {
		free(st);
		errno = EINVAL;
		return (NULL);
	}
	st->loop = loop;
	pthread_mutex_lock(&lc_loops_mtx);
	st->list_next = lc_loops;
	lc_loops = st;
	pthread_mutex_unlock(&lc_loops_mtx);

	ev_check_init(&st->chk, lc_loop_check_cb);
	ev_set_priority(&st->chk, EV_MAXPRI);
	st->chk.data = st;
	ev_check_start(loop, &st->chk);
	ev_unref(loop);

	/* Lowest priority: the hooks run after the owner's own prepare
	 * watchers. */
	ev_prepare_init(&st->prep, lc_loop_prepare_cb);
	ev_set_priority(&st->prep, EV_MINPRI);
	st->prep.data = st;
	ev_prepare_start(loop, &st->prep);
	ev_unref(loop);

	lc_now_update();
	return (loop);
}

void
lc_loop_free(struct ev_loop *loop)
{
	struct lc_loop *st;

	if (loop == NULL)
		return;
	if ((st = lc_loop_state(loop)) != NULL) {
		pthread_mutex_lock(&lc_loops_mtx);
		for (struct lc_loop **pp = &lc_loops; *pp != NULL;
		     pp = &(*pp)->list_next) {
			if (*pp == st) {
				*pp = st->list_next;
				break;
			}
		}
		pthread_mutex_unlock(&lc_loops_mtx);
		if (st->signals) {
			ev_ref(loop);
			ev_signal_stop(loop, &st->sigint);
			ev_ref(loop);
			ev_signal_stop(loop, &st->sigterm);
		}
		ev_ref(loop);
		ev_check_stop(loop, &st->chk);
		ev_ref(loop);
		ev_prepare_stop(loop, &st->prep);
		/* Hooks still registered belong to their owners: just detach
		 * them. */
		for (struct lc_loop_hook *h = st->head, *n; h != NULL; h = n) {
			n = h->next;
			h->next = h->prev = NULL;
			h->loop = NULL;
		}
		free(st);
	}
	ev_loop_destroy(loop);
}

int
lc_loop_signals(struct ev_loop *loop, void (*on_stop)(void *), void *arg)
{
	struct lc_loop *st;
	struct sigaction sa;

	if (loop == NULL || (st = lc_loop_state(loop)) == NULL)
		return (-EINVAL);
	st->on_stop = on_stop;
	st->stop_arg = arg;
	if (st->signals)
		return (0);

	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	(void)sigaction(SIGPIPE, &sa, NULL);

	ev_signal_init(&st->sigint, lc_loop_signal_cb, SIGINT);
	st->sigint.data = st;
	ev_signal_start(loop, &st->sigint);
	ev_unref(loop);
	ev_signal_init(&st->sigterm, lc_loop_signal_cb, SIGTERM);
	st->sigterm.data = st;
	ev_signal_start(loop, &st->sigterm);
	ev_unref(loop);
	st->signals = true;
	return (0);
}

/* Fallback for loops not made by lc_loop_new(): one ev_prepare per hook. */
static void
lc_loop_hook_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct lc_loop_hook *h = w->data;

	(void)loop;
	(void)revents;
	h->fn(h->arg);
}

void
lc_loop_hook_start(struct ev_loop *loop, struct lc_loop_hook *h,
    void (*fn)(void *), void *arg)
{
	struct lc_loop *st;

	if (h->loop != NULL)
		lc_loop_hook_stop(h->loop, h);
	h->fn = fn;
	h->arg = arg;
	h->loop = loop;
	h->next = h->prev = NULL;
	if ((st = lc_loop_state(loop)) == NULL) {
		ev_prepare_init(&h->w, lc_loop_hook_cb);
		h->w.data = h;
		ev_prepare_start(loop, &h->w);
		ev_unref(loop);
		return;
	}
	h->prev = st->tail;
	if (st->tail != NULL)
		st->tail->next = h;
	else
		st->head = h;
	st->tail = h;
}

void
lc_loop_hook_stop(struct ev_loop *loop, struct lc_loop_hook *h)
{
	struct lc_loop *st;

	if (h->loop == NULL)
		return;
	if (loop == NULL)
		loop = h->loop;
	if ((st = lc_loop_state(loop)) == NULL) {
		ev_ref(loop);
		ev_prepare_stop(loop, &h->w);
		h->loop = NULL;
		return;
	}
	if (st->iter_next == h)
		st->iter_next = h->next;
	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		st->head = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	else
		st->tail = h->prev;
	h->next = h->prev = NULL;
	h->loop = NULL;
}
