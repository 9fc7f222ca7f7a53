/* tests/unit/rtrmgr/test_ipc.c: the supervisor behind its real IPC front end:
 * STATUS health checks against real IPC children (this binary in --child mode),
 * REGISTER, LIST/START/STOP/RESTART, events, read-only socket, SHUTDOWN. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "rtrmgr/rtm_int.h"

static char self[PATH_MAX];

/* ---- the child: a component that serves its socket
 * ------------------------------------ */

static void
hang_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	sleep(30); /* the loop stops answering */
}

static int
child_main(int argc, char **argv)
{
	const char *mode = argv[2], *name = getenv("TERN_COMPONENT");
	const char *rundir = getenv("TERN_RUNDIR");
	uint64_t gen = strtoull(getenv("TERN_GENERATION"), NULL, 10);
	const struct ipc_service_desc *svc = strcmp(name, "mgmt") == 0 ?
	    &ipc_svc_mgmt :
	    strcmp(name, "fwd") == 0 ? &ipc_svc_fwd :
				       &ipc_svc_rib;
	struct ipc_opts o = {.rundir = rundir,
	    .component = name,
	    .generation = gen};
	struct ev_loop *loop = lc_loop_new();
	struct ipc_server *s;
	struct ipc_client *cl = NULL;
	ev_timer hang;

	lc_log_init(name, LC_LOG_WARNING, LC_LOG_STDERR);
	lc_loop_signals(loop, NULL, NULL);
	if ((s = ipc_server_new(loop, svc, &o)) == NULL)
		return (1);
	if (strcmp(mode, "register") == 0) {
		Rtrmgr__RegisterRequest r = RTRMGR__REGISTER_REQUEST__INIT;

		cl = ipc_client_new(loop, &ipc_svc_rtrmgr, &o, false);
		r.name = (char *)name;
		r.generation = gen;
		r.pid = (uint32_t)getpid();
		ipc_call(cl, RTRMGR__METHOD__REGISTER, &r.base, NULL, NULL, 0);
	}
	if (strcmp(mode, "hang") == 0) {
		ev_timer_init(&hang, hang_cb, 0.3, 0.);
		ev_timer_start(loop, &hang);
	}
	ev_run(loop, 0);
	ipc_client_free(cl);
	ipc_server_free(s);
	lc_loop_free(loop);
	return (0);
}

/* ---- the supervisor side
 * ----------------------------------------------------------------- */

struct evrec {
	char name[RTM_NAME_MAX];
	int state;
	uint64_t gen, prev;
};

struct h {
	char dir[64];
	char rundir[96];
	struct ev_loop *loop;
	struct rtm *rtm;
	struct rtm_ipc *ri;
	struct ipc_client *cl, *ro;
	struct lc_arena *arena;
	struct evrec ev[256];
	unsigned nev;
};

static void
on_event(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    void *arg)
{
	const Rtrmgr__ComponentEvent *e = (const void *)msg;
	struct h *h = arg;

	if (method != RTRMGR__METHOD__EVENT_COMPONENT || h->nev == 256)
		return;
	snprintf(h->ev[h->nev].name, RTM_NAME_MAX, "%s", e->name);
	h->ev[h->nev].state = e->state;
	h->ev[h->nev].gen = e->generation;
	h->ev[h->nev].prev = e->previous_generation;
	h->nev++;
}

static int
setup(void **state)
{
	struct h *h = calloc(1, sizeof(*h));
	struct ipc_client_cbs cbs = {.on_event = on_event};
	struct ipc_opts o = {.component = "test"};
	struct lc_err err;
	struct rtm_config *cfg;
	char text[1024];

	assert_non_null(h);
	snprintf(h->dir, sizeof(h->dir), "/tmp/rtmipc.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	snprintf(h->rundir, sizeof(h->rundir), "%s/run", h->dir);
	snprintf(text, sizeof(text),
	    "health-check ipc; health-interval 100ms; health-timeout 80ms;\n"
	    "health-failures 2; start-timeout 3s; backoff-initial 50ms;\n"
	    "stop-grace 1s;\n"
	    "component mgmt { binary %s; args --child register; privileges "
	    "root; }\n"
	    "component rib { binary %s; args --child serve; privileges root; "
	    "}\n",
	    self, self);
	assert_non_null(
	    cfg = rtm_config_parse("ipc.conf", text, strlen(text), &err));
	assert_non_null(h->loop = lc_loop_new());
	assert_non_null(h->rtm = rtm_new(h->loop, cfg,
			    &(struct rtm_opts){.rundir = h->rundir}));
	assert_int_equal(rtm_open(h->rtm), 0);
	assert_non_null(h->ri = rtm_ipc_new(h->rtm, h->loop));
	assert_int_equal(rtm_start(h->rtm), 0);
	o.rundir = h->rundir;
	assert_non_null(
	    h->cl = ipc_client_new(h->loop, &ipc_svc_rtrmgr, &o, false));
	cbs.arg = h;
	ipc_client_set_cbs(h->cl, &cbs);
	assert_non_null(
	    h->ro = ipc_client_new(h->loop, &ipc_svc_rtrmgr, &o, true));
	assert_non_null(h->arena = lc_arena_new(0));
	*state = h;
	return (0);
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
}

static bool
wait_state(struct h *h, const char *name, enum rtm_state st, uint64_t gen,
    unsigned ms)
{
	uint64_t end = lc_time_mono_ns() + ms * LC_NS_PER_MSEC;
	struct rtm_comp_info ci;
	ev_timer t;

	ev_timer_init(&t, tick_cb, 0.01, 0.01);
	ev_timer_start(h->loop, &t);
	for (;;) {
		rtm_comp_get_info(rtm_comp_find(h->rtm, name), &ci);
		if ((ci.state == st && ci.generation >= gen) ||
		    lc_time_mono_ns() > end)
			break;
		ev_run(h->loop, EVRUN_ONCE);
	}
	ev_timer_stop(h->loop, &t);
	return (ci.state == st && ci.generation >= gen);
}

static int
teardown(void **state)
{
	struct h *h = *state;
	char cmd[128];

	ipc_client_free(h->cl);
	ipc_client_free(h->ro);
	if (!rtm_is_down(h->rtm)) {
		rtm_shutdown(h->rtm, NULL, NULL);
		for (uint64_t end = lc_time_mono_ns() + 3 * LC_NS_PER_SEC;
		     !rtm_is_down(h->rtm) && lc_time_mono_ns() < end;)
			ev_run(h->loop, EVRUN_ONCE);
	}
	rtm_ipc_free(h->ri);
	rtm_free(h->rtm);
	lc_loop_free(h->loop);
	lc_arena_free(h->arena);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", h->dir);
	if (system(cmd) != 0)
		return (-1);
	free(h);
	return (0);
}

/* A call on the rtrmgr service; returns the status, *rep decoded. */
static int
call(struct h *h, struct ipc_client *cl, unsigned method, const char *name,
    ProtobufCMessage **rep, char *err, size_t errlen)
{
	Rtrmgr__ComponentRequest r = RTRMGR__COMPONENT_REQUEST__INIT;
	struct lc_err e;
	int st;

	r.name = (char *)name;
	st = ipc_call_wait(cl, method, name ? &r.base : NULL, 2000, h->arena,
	    rep, &e);
	snprintf(err, errlen, "%s", e.msg);
	return (st);
}

static void
test_status_health_and_register(void **state)
{
	struct h *h = *state;
	struct rtm_comp_info ci;

	/* mgmt says REGISTER; rib is found alive by lifecycle STATUS */
	assert_true(wait_state(h, "mgmt", RTM_RUNNING, 1, 3000));
	assert_true(wait_state(h, "rib", RTM_RUNNING, 1, 3000));
	/* and it stays running: checks keep succeeding */
	wait_state(h, "rib", RTM_BACKOFF, 1, 500);
	rtm_comp_get_info(rtm_comp_find(h->rtm, "rib"), &ci);
	assert_int_equal(ci.state, RTM_RUNNING);
	assert_int_equal(ci.restarts, 0);
	rtm_comp_get_info(rtm_comp_find(h->rtm, "mgmt"), &ci);
	assert_int_equal(ci.restarts, 0);
}

static void
test_list_restart_events(void **state)
{
	struct h *h = *state;
	ProtobufCMessage *rep;
	Rtrmgr__ComponentList *l;
	Rtrmgr__Component *c;
	char err[256];
	pid_t old;

	assert_true(wait_state(h, "rib", RTM_RUNNING, 1, 3000));
	/* SUBSCRIBE answers the list and then sends events */
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__SUBSCRIBE, NULL, &rep,
			     err, sizeof(err)),
	    IPC_OK);
	l = (Rtrmgr__ComponentList *)rep;
	assert_int_equal(l->n_components, 2);
	assert_string_equal(l->components[0]->name, "mgmt");
	assert_string_equal(l->components[1]->name, "rib");
	assert_int_equal(l->components[1]->state, RTRMGR__STATE__RUNNING);
	old = (pid_t)l->components[1]->pid;
	assert_true(old > 0);
	lc_arena_reset(h->arena);

	/* RESTART rib, as ternsh's `restart rib` through mgmt will */
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__RESTART, "rib", &rep,
			     err, sizeof(err)),
	    IPC_OK);
	c = (Rtrmgr__Component *)rep;
	assert_string_equal(c->name, "rib");
	assert_int_equal(c->state, RTRMGR__STATE__STOPPING);
	lc_arena_reset(h->arena);
	assert_true(wait_state(h, "rib", RTM_RUNNING, 2, 3000));
	assert_int_equal(call(h, h->ro, RTRMGR__METHOD__COMPONENT_STATUS, "rib",
			     &rep, err, sizeof(err)),
	    IPC_OK);
	c = (Rtrmgr__Component *)rep;
	assert_int_equal(c->generation, 2);
	assert_true((pid_t)c->pid != old && c->pid > 0);
	assert_int_equal(c->restarts, 0);
	lc_arena_reset(h->arena);
	/* the events: stopping(1), stopped? no: starting(2, prev 1), running(2)
	 */
	{
		bool stopping = false, starting = false, running = false;

		for (unsigned i = 0; i < h->nev; i++) {
			if (strcmp(h->ev[i].name, "rib") != 0)
				continue;
			stopping |= h->ev[i].state == RTRMGR__STATE__STOPPING &&
			    h->ev[i].gen == 1;
			starting |= h->ev[i].state == RTRMGR__STATE__STARTING &&
			    h->ev[i].gen == 2 && h->ev[i].prev == 1;
			running |= h->ev[i].state == RTRMGR__STATE__RUNNING &&
			    h->ev[i].gen == 2 && h->ev[i].prev == 1;
		}
		assert_true(stopping && starting && running);
	}

	/* errors: unknown name, a state error, and admin on the ro socket */
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__STOP, "nope", &rep, err,
			     sizeof(err)),
	    IPC_ERROR);
	assert_string_equal(err, "no component 'nope'");
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__START, "rib", &rep, err,
			     sizeof(err)),
	    IPC_ERROR);
	assert_string_equal(err, "cannot start rib: it is running");
	assert_int_equal(call(h, h->ro, RTRMGR__METHOD__STOP, "rib", &rep, err,
			     sizeof(err)),
	    IPC_DENIED);
	assert_int_equal(call(h, h->ro, RTRMGR__METHOD__LIST, NULL, &rep, err,
			     sizeof(err)),
	    IPC_OK);
	lc_arena_reset(h->arena);

	/* STOP, then START */
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__STOP, "mgmt", &rep, err,
			     sizeof(err)),
	    IPC_OK);
	assert_true(wait_state(h, "mgmt", RTM_STOPPED, 1, 3000));
	assert_int_equal(call(h, h->cl, RTRMGR__METHOD__START, "mgmt", &rep,
			     err, sizeof(err)),
	    IPC_OK);
	assert_true(wait_state(h, "mgmt", RTM_RUNNING, 2, 3000));
	lc_arena_reset(h->arena);
}

static void
test_shutdown_over_ipc(void **state)
{
	struct h *h = *state;
	ProtobufCMessage *rep;
	Lifecycle__ShutdownRequest r = LIFECYCLE__SHUTDOWN_REQUEST__INIT;
	struct lc_err err;
	pid_t pm, pr;

	assert_true(wait_state(h, "rib", RTM_RUNNING, 1, 3000));
	assert_true(wait_state(h, "mgmt", RTM_RUNNING, 1, 3000));
	pm = rtm_comp_pid(rtm_comp_find(h->rtm, "mgmt"));
	pr = rtm_comp_pid(rtm_comp_find(h->rtm, "rib"));
	r.reason = "test";
	assert_int_equal(ipc_call_wait(h->cl,
			     IPC_LC(LIFECYCLE__METHOD__SHUTDOWN), &r.base, 2000,
			     h->arena, &rep, &err),
	    IPC_OK);
	for (uint64_t end = lc_time_mono_ns() + 3 * LC_NS_PER_SEC;
	     !rtm_is_down(h->rtm) && lc_time_mono_ns() < end;)
		ev_run(h->loop, EVRUN_ONCE);
	assert_true(rtm_is_down(h->rtm));
	assert_int_equal(rtm_proc_starttime(pm), 0);
	assert_int_equal(rtm_proc_starttime(pr), 0);
}

/* A component whose loop stops answering STATUS is killed and restarted. */
static void
test_hung_loop(void **state)
{
	struct lc_err err;
	struct rtm_config *cfg;
	struct rtm_comp_info ci;
	struct ev_loop *loop;
	struct rtm *rtm;
	struct rtm_ipc *ri;
	char dir[] = "/tmp/rtmipch.XXXXXX", rundir[64], text[512], cmd[64];
	uint64_t end;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(rundir, sizeof(rundir), "%s/run", dir);
	snprintf(text, sizeof(text),
	    "health-check ipc; health-interval 100ms; health-timeout 50ms;\n"
	    "health-failures 2; backoff-initial 50ms;\n"
	    "component rib { binary %s; args --child hang; privileges root; "
	    "}\n",
	    self);
	assert_non_null(
	    cfg = rtm_config_parse("h.conf", text, strlen(text), &err));
	assert_non_null(loop = lc_loop_new());
	assert_non_null(
	    rtm = rtm_new(loop, cfg, &(struct rtm_opts){.rundir = rundir}));
	assert_int_equal(rtm_open(rtm), 0);
	assert_non_null(ri = rtm_ipc_new(rtm, loop));
	assert_int_equal(rtm_start(rtm), 0);
	/* running, then hung at 300 ms, 2 unanswered checks, SIGKILL, gen 2 */
	end = lc_time_mono_ns() + 4 * LC_NS_PER_SEC;
	do {
		ev_run(loop, EVRUN_ONCE);
		rtm_comp_get_info(rtm_comp_find(rtm, "rib"), &ci);
	} while (!(ci.generation >= 2 && ci.state == RTM_RUNNING) &&
	    lc_time_mono_ns() < end);
	assert_int_equal(ci.generation, 2);
	assert_int_equal(ci.state, RTM_RUNNING);
	assert_int_equal(ci.restarts, 1);
	rtm_shutdown(rtm, NULL, NULL);
	end = lc_time_mono_ns() + 3 * LC_NS_PER_SEC;
	while (!rtm_is_down(rtm) && lc_time_mono_ns() < end)
		ev_run(loop, EVRUN_ONCE);
	assert_true(rtm_is_down(rtm));
	rtm_ipc_free(ri);
	rtm_free(rtm);
	lc_loop_free(loop);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_status_health_and_register,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_restart_events, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_shutdown_over_ipc, setup,
		teardown),
	    cmocka_unit_test(test_hung_loop),
	};
	ssize_t n;

	if (argc > 2 && strcmp(argv[1], "--child") == 0)
		return (child_main(argc, argv));
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return (1);
	self[n] = '\0';
	/* libtern-ipc writes with write(2): a peer that just died would kill
	 * us with SIGPIPE (tern-rtrmgr ignores it through lc_loop_signals). */
	signal(SIGPIPE, SIG_IGN);
	lc_log_init("test_ipc", LC_LOG_WARNING, LC_LOG_STDERR);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
