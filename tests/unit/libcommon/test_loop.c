/* tests/unit/libcommon/test_loop.c: real libev loops: hooks before blocking and
 * in order, cached clock per turn, stop signals. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

static void
fail_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)revents;
	*(bool *)w->data = true;
	ev_break(loop, EVBREAK_ALL);
}

/* A safety timer so a broken loop fails the test instead of hanging it. */
static void
guard_start(struct ev_loop *loop, ev_timer *w, bool *flag)
{
	*flag = false;
	ev_timer_init(w, fail_timeout_cb, 2.0, 0.);
	w->data = flag;
	ev_timer_start(loop, w);
}

static void
test_new_free_unref(void **state)
{
	struct ev_loop *loop = lc_loop_new();
	uint64_t t0 = lc_time_mono_ns();

	(void)state;
	assert_non_null(loop);
	/* lc's own watchers do not keep the loop alive */
	ev_run(loop, 0);
	assert_true(lc_time_mono_ns() - t0 < LC_NS_PER_SEC);
	assert_null(ev_userdata(loop)); /* left to the owner */
	lc_loop_free(loop);
	lc_loop_free(NULL);
}

/* Batching as IPC does it: a callback queues, the hook flushes before the loop
 * blocks. */
struct flush {
	int fds[2];
	int queued;
	int hook_runs;
	int flushed;
	int received;
	ev_io rd;
	ev_timer tm;
};

static void
flush_hook(void *arg)
{
	struct flush *f = arg;

	f->hook_runs++;
	if (f->queued > 0) {
		assert_int_equal(write(f->fds[1], "x", 1), 1);
		f->queued = 0;
		f->flushed++;
	}
}

static void
flush_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct flush *f = w->data;

	(void)loop;
	(void)revents;
	f->queued = 1; /* nothing is written here: only the hook writes */
}

static void
flush_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct flush *f = w->data;
	char c;

	(void)revents;
	assert_int_equal(read(f->fds[0], &c, 1), 1);
	f->received++;
	ev_break(loop, EVBREAK_ALL);
}

static void
test_hook_before_block(void **state)
{
	struct ev_loop *loop = lc_loop_new();
	struct lc_loop_hook hook = {0};
	struct flush f = {0};
	ev_timer guard;
	bool timed_out;

	(void)state;
	assert_int_equal(pipe(f.fds), 0);
	lc_loop_hook_start(loop, &hook, flush_hook, &f);

	/* one non-blocking turn runs the hook once */
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(f.hook_runs, 1);

	ev_io_init(&f.rd, flush_read_cb, f.fds[0], EV_READ);
	f.rd.data = &f;
	ev_io_start(loop, &f.rd);
	ev_timer_init(&f.tm, flush_timer_cb, 0.01, 0.);
	f.tm.data = &f;
	ev_timer_start(loop, &f.tm);
	guard_start(loop, &guard, &timed_out);
	ev_run(loop, 0);
	/* had the hook not run before blocking, the read would never fire */
	assert_false(timed_out);
	assert_int_equal(f.flushed, 1);
	assert_int_equal(f.received, 1);

	lc_loop_hook_stop(loop, &hook);
	lc_loop_hook_stop(loop, &hook); /* twice is fine */
	f.hook_runs = 0;
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(f.hook_runs, 0);

	ev_timer_stop(loop, &guard);
	ev_io_stop(loop, &f.rd);
	close(f.fds[0]);
	close(f.fds[1]);
	lc_loop_free(loop);
}

struct order {
	char log[32];
	int n;
	struct lc_loop_hook h[4];
};

static struct order ord;

static void
order_hook(void *arg)
{
	int id = (int)(intptr_t)arg;

	ord.log[ord.n++] = (char)('A' + id);
	if (id == 0 && ord.n == 1)
		lc_loop_hook_stop(NULL, &ord.h[1]); /* A stops B (next) once */
	if (id == 2)
		lc_loop_hook_stop(NULL, &ord.h[2]); /* C stops itself */
}

static void
test_hook_order(void **state)
{
	struct ev_loop *loop = lc_loop_new();

	(void)state;
	memset(&ord, 0, sizeof(ord));
	/* registration order, not libev's LIFO order */
	for (int i = 0; i < 4; i++)
		lc_loop_hook_start(loop, &ord.h[i], order_hook,
		    (void *)(intptr_t)i);
	ev_run(loop, EVRUN_NOWAIT);
	assert_string_equal(ord.log,
	    "ACD"); /* B stopped by A in the same pass */
	ev_run(loop, EVRUN_NOWAIT);
	assert_string_equal(ord.log, "ACDAD");
	/* restarting moves a hook to the end */
	lc_loop_hook_start(loop, &ord.h[0], order_hook, (void *)(intptr_t)0);
	lc_loop_hook_start(loop, &ord.h[1], order_hook, (void *)(intptr_t)1);
	ev_run(loop, EVRUN_NOWAIT);
	assert_string_equal(ord.log, "ACDADDAB");
	for (int i = 0; i < 4; i++)
		lc_loop_hook_stop(loop, &ord.h[i]);
	lc_loop_free(loop);
}

/* On a plain libev loop the hooks still run before blocking. */
static void
count_hook(void *arg)
{
	(*(int *)arg)++;
}

static void
test_hook_foreign_loop(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct lc_loop_hook h1 = {0}, h2 = {0};
	int n1 = 0, n2 = 0;

	(void)state;
	lc_loop_hook_start(loop, &h1, count_hook, &n1);
	lc_loop_hook_start(loop, &h2, count_hook, &n2);
	ev_run(loop, 0); /* unref'd: one turn, then returns */
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(n1, 2);
	assert_int_equal(n2, 2);
	lc_loop_hook_stop(loop, &h1);
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(n1, 2);
	assert_int_equal(n2, 3);
	lc_loop_hook_stop(loop, &h2);
	assert_int_equal(lc_loop_signals(loop, NULL, NULL), -EINVAL);
	ev_loop_destroy(loop);
}

/* Two timers due in the same turn see the same lc_now_ns(); later turns see
 * later values. */
struct clk {
	ev_timer a, b, rep;
	uint64_t ta, tb, thook;
	uint64_t turns[6];
	int nturns;
	int hook_in_turn;
	struct lc_loop_hook hook;
};

static void
clk_a_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct clk *c = w->data;

	(void)loop;
	(void)revents;
	c->ta = lc_now_ns();
	usleep(3000); /* real time moves on, the cached clock does not */
	assert_int_equal(lc_now_ns(), c->ta);
	c->hook_in_turn = 1;
}

static void
clk_b_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct clk *c = w->data;

	(void)loop;
	(void)revents;
	c->tb = lc_now_ns();
}

static void
clk_hook(void *arg)
{
	struct clk *c = arg;

	if (c->hook_in_turn) {
		c->thook = lc_now_ns();
		c->hook_in_turn = 0;
	}
}

static void
clk_rep_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct clk *c = w->data;

	(void)revents;
	c->turns[c->nturns++] = lc_now_ns();
	assert_true(lc_now_ns() <= lc_time_mono_ns());
	if (c->nturns == 6)
		ev_break(loop, EVBREAK_ALL);
}

static void
test_now_per_turn(void **state)
{
	struct ev_loop *loop = lc_loop_new();
	struct clk c = {0};
	ev_timer guard;
	bool timed_out;
	uint64_t before = lc_time_mono_ns();

	(void)state;
	lc_loop_hook_start(loop, &c.hook, clk_hook, &c);
	ev_timer_init(&c.a, clk_a_cb, 0.005, 0.);
	ev_timer_init(&c.b, clk_b_cb, 0.005, 0.);
	c.a.data = c.b.data = &c;
	ev_timer_start(loop, &c.a);
	ev_timer_start(loop, &c.b);
	guard_start(loop, &guard, &timed_out);
	ev_run(loop, EVRUN_ONCE);
	while (c.ta == 0 || c.tb == 0)
		ev_run(loop, EVRUN_ONCE);
	assert_int_equal(c.ta, c.tb);
	/*
	 * EVRUN_ONCE returns after the callbacks; the prepare (and so the
	 * hook) that ends this turn runs at the start of the next ev_run,
	 * before it blocks and before the clock is refreshed.
	 */
	ev_run(loop, EVRUN_NOWAIT);
	assert_int_equal(c.thook, c.ta);
	assert_true(
	    c.ta >= before + 5 * LC_NS_PER_MSEC); /* refreshed on wake-up */

	ev_timer_init(&c.rep, clk_rep_cb, 0.002, 0.002);
	c.rep.data = &c;
	ev_timer_start(loop, &c.rep);
	ev_run(loop, 0);
	assert_false(timed_out);
	assert_int_equal(c.nturns, 6);
	assert_true(c.turns[0] > c.ta);
	/*
	 * Each turn read the clock anew: strictly later than the last one.
	 * (Not "a period later": libev fires a late repeating timer again at
	 * once, so on a loaded machine two turns can come within microseconds.)
	 */
	for (int i = 1; i < 6; i++)
		assert_true(c.turns[i] > c.turns[i - 1]);

	ev_timer_stop(loop, &c.rep);
	ev_timer_stop(loop, &guard);
	lc_loop_hook_stop(loop, &c.hook);
	lc_loop_free(loop);
}

/* raise() from inside the loop stops it and calls on_stop. */
struct sig {
	ev_timer raiser;
	int signo;
	int stops;
};

static void
raiser_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sig *s = w->data;

	(void)loop;
	(void)revents;
	assert_int_equal(raise(s->signo), 0);
}

static void
on_stop(void *arg)
{
	((struct sig *)arg)->stops++;
}

static void
run_signal(int signo)
{
	struct ev_loop *loop = lc_loop_new();
	struct sig s = {.signo = signo};
	ev_timer guard;
	bool timed_out;
	struct sigaction sa;

	assert_int_equal(lc_loop_signals(loop, on_stop, &s), 0);
	assert_int_equal(lc_loop_signals(loop, on_stop, &s),
	    0); /* idempotent */
	ev_timer_init(&s.raiser, raiser_cb, 0.005, 0.);
	s.raiser.data = &s;
	ev_timer_start(loop, &s.raiser);
	guard_start(loop, &guard, &timed_out);
	ev_run(loop, 0);
	assert_false(timed_out); /* stopped by the signal, not the guard */
	assert_int_equal(s.stops, 1);

	/* SIGPIPE is ignored: a write to a closed pipe returns EPIPE */
	assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_IGN);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	errno = 0;
	assert_int_equal(write(fds[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(fds[1]);

	ev_timer_stop(loop, &guard);
	lc_loop_free(loop);
}

static void
test_sigterm_stops(void **state)
{
	(void)state;
	run_signal(SIGTERM);
}

static void
test_sigint_stops(void **state)
{
	(void)state;
	run_signal(SIGINT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_free_unref),
	    cmocka_unit_test(test_hook_before_block),
	    cmocka_unit_test(test_hook_order),
	    cmocka_unit_test(test_hook_foreign_loop),
	    cmocka_unit_test(test_now_per_turn),
	    cmocka_unit_test(test_sigterm_stops),
	    cmocka_unit_test(test_sigint_stops),
	};

	alarm(20); /* a hung loop kills the test instead of the suite */
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
