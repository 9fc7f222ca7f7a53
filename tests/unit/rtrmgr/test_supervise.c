/* tests/unit/rtrmgr/test_supervise.c: the supervisor with real child processes
 * (shell scripts): boot order, crash and backoff, crash loop, hang,
 * stop/start/restart, grace, reverse shutdown, generations, lock, re-adoption.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "rtrmgr/rtm_int.h"

#define MAXEV 512

struct evrec {
	char name[RTM_NAME_MAX];
	enum rtm_state st;
	pid_t pid;
	uint64_t gen;
	int exit;
	uint64_t t_ns;
	uint64_t backoff_ms; /* as rtm_comp_get_info says, at the event */
};

struct h {
	char dir[64];
	char rundir[96];
	struct ev_loop *loop;
	struct rtm *rtm;
	struct evrec ev[MAXEV];
	unsigned nev;
	bool down;
};

static const char *const scripts[][2] = {
    /* runs, touches its heartbeat, records argv and its SIGTERM */
    /* (the args file appears once the trap is set) */
    {"ok.sh",
	"#!/bin/sh\n"
	"trap 'echo \"$TERN_COMPONENT\" >> \"$TERN_RUNDIR/../order\"; "
	"exit 0' TERM\n"
	"echo \"$@\" > \"$TERN_RUNDIR/../$TERN_COMPONENT.args\"\n"
	"while :; do touch \"$TERN_RUNDIR/$TERN_COMPONENT.alive\"; sleep "
	"0.02; done\n"},
    {"fail.sh", "#!/bin/sh\nexit 3\n"},
    /* up for a while, then fails */
    {"late.sh", "#!/bin/sh\nsleep 0.25\nexit 4\n"},
    /* alive for a while, then hangs (still running, no heartbeat) */
    {"hang.sh",
	"#!/bin/sh\n"
	"for i in 1 2 3; do touch "
	"\"$TERN_RUNDIR/$TERN_COMPONENT.alive\"; sleep 0.05; done\n"
	"exec sleep 30\n"},
    /* never says it is alive */
    {"never.sh", "#!/bin/sh\nexec sleep 30\n"},
    /* ignores SIGTERM (the ignore survives exec) */
    {"noterm.sh",
	"#!/bin/sh\ntrap '' TERM\n"
	"echo > \"$TERN_RUNDIR/../$TERN_COMPONENT.args\"\nexec sleep 30\n"},
};

static void
on_event(const struct rtm_event *e, void *arg)
{
	struct h *h = arg;
	struct evrec *r;

	if (h->nev == MAXEV)
		return;
	r = &h->ev[h->nev++];
	snprintf(r->name, sizeof(r->name), "%s", e->name);
	r->st = e->state;
	r->pid = e->pid;
	r->gen = e->generation;
	r->exit = e->exit;
	r->t_ns = lc_time_mono_ns();
	if (h->rtm != NULL) {
		struct rtm_comp_info ci;

		rtm_comp_get_info(rtm_comp_find(h->rtm, e->name), &ci);
		r->backoff_ms = ci.backoff_ms;
	}
}

static void
h_setup(struct h *h)
{
	char path[160];

	memset(h, 0, sizeof(*h));
	snprintf(h->dir, sizeof(h->dir), "/tmp/rtmtest.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	chmod(h->dir, 0755);
	snprintf(h->rundir, sizeof(h->rundir), "%s/run", h->dir);
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", h->dir, scripts[i][0]);
		assert_non_null(f = fopen(path, "w"));
		fputs(scripts[i][1], f);
		fclose(f);
		chmod(path, 0755);
	}
	assert_non_null(h->loop = lc_loop_new());
}

/* Config: the global part, then components "name:script[:extra]". */
static struct rtm_config *
h_cfg(struct h *h, const char *global, const char *const *comps)
{
	char text[4096], *p = text;
	struct lc_err err;
	struct rtm_config *cfg;

	p += sprintf(p, "%s\n", global);
	for (; *comps != NULL; comps++) {
		char name[32], script[32], extra[256] = "";

		assert_true(sscanf(*comps, "%31[^:]:%31[^:]:%255[^\n]", name,
				script, extra) >= 2);
		p += sprintf(p,
		    "component %s { binary %s%s%s; privileges root; %s }\n",
		    name, script[0] == '/' ? "" : h->dir,
		    script[0] == '/' ? "" : "/", script, extra);
	}
	cfg = rtm_config_parse("test.conf", text, strlen(text), &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	return (cfg);
}

static struct rtm *
h_rtm(struct h *h, const char *global, const char *const *comps)
{
	struct rtm_config *cfg = h_cfg(h, global, comps);
	struct rtm *rtm;

	assert_non_null(rtm = rtm_new(h->loop, cfg,
			    &(struct rtm_opts){.rundir = h->rundir}));
	rtm_set_event_cb(rtm, on_event, h);
	return (rtm);
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
}

typedef bool pred_fn(struct h *, const void *);

/* Runs the loop until pred holds or timeout_ms passes. */
static bool
run_until(struct h *h, pred_fn *pred, const void *arg, unsigned timeout_ms)
{
	uint64_t end = lc_time_mono_ns() + timeout_ms * LC_NS_PER_MSEC;
	ev_timer tick;
	bool ok;

	ev_timer_init(&tick, tick_cb, 0.01, 0.01);
	ev_timer_start(h->loop, &tick);
	while (!(ok = pred(h, arg)) && lc_time_mono_ns() < end)
		ev_run(h->loop, EVRUN_ONCE);
	ev_timer_stop(h->loop, &tick);
	return (ok);
}

static bool
never(struct h *h, const void *arg)
{
	return (false);
}

static void
run_for(struct h *h, unsigned ms)
{
	run_until(h, never, NULL, ms);
}

struct want {
	const char *name;
	enum rtm_state st;
	uint64_t gen; /* at least */
};

static bool
in_state(struct h *h, const void *arg)
{
	const struct want *w = arg;
	struct rtm_comp_info ci;

	rtm_comp_get_info(rtm_comp_find(h->rtm, w->name), &ci);
	return (ci.state == w->st && ci.generation >= w->gen);
}

static void
wait_state(struct h *h, const char *name, enum rtm_state st, uint64_t gen,
    unsigned timeout_ms)
{
	struct want w = {name, st, gen};
	struct rtm_comp_info ci;

	if (!run_until(h, in_state, &w, timeout_ms)) {
		rtm_comp_get_info(rtm_comp_find(h->rtm, name), &ci);
		fail_msg("%s: want %s gen>=%" PRIu64 ", is %s gen %" PRIu64
			 " (%s)",
		    name, rtm_state_name(st), gen, rtm_state_name(ci.state),
		    ci.generation, ci.last_error);
	}
}

static bool
seen_event(struct h *h, const void *arg)
{
	const struct want *w = arg;

	for (unsigned i = 0; i < h->nev; i++)
		if (strcmp(h->ev[i].name, w->name) == 0 &&
		    h->ev[i].st == w->st && h->ev[i].gen >= w->gen)
			return (true);
	return (false);
}

/* For passing states: waits until the event was seen. */
static void
wait_event(struct h *h, const char *name, enum rtm_state st, uint64_t gen,
    unsigned timeout_ms)
{
	struct want w = {name, st, gen};

	if (!run_until(h, seen_event, &w, timeout_ms))
		fail_msg("%s: no %s event for gen>=%" PRIu64, name,
		    rtm_state_name(st), gen);
}

static bool
file_exists(struct h *h, const void *arg)
{
	return (access(arg, F_OK) == 0);
}

/* Waits for DIR/NAME.args: the script has set its SIGTERM trap. */
static void
wait_ready(struct h *h, const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s.args", h->dir, name);
	if (!run_until(h, file_exists, path, 3000))
		fail_msg("%s never wrote %s", name, path);
	unlink(path);
}

static void
info(struct h *h, const char *name, struct rtm_comp_info *ci)
{
	rtm_comp_get_info(rtm_comp_find(h->rtm, name), ci);
}

static void
down_cb(void *arg)
{
	((struct h *)arg)->down = true;
}

static bool
is_down(struct h *h, const void *arg)
{
	return (h->down);
}

static void
h_shutdown(struct h *h)
{
	h->down = false;
	rtm_shutdown(h->rtm, down_cb, h);
	assert_true(run_until(h, is_down, NULL, 3000));
	assert_true(rtm_is_down(h->rtm));
	rtm_free(h->rtm);
	h->rtm = NULL;
}

static void
h_teardown(struct h *h)
{
	char cmd[128];

	if (h->rtm != NULL)
		h_shutdown(h);
	lc_loop_free(h->loop);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", h->dir);
	assert_int_equal(system(cmd), 0);
}

static bool
alive(pid_t pid)
{
	return (rtm_proc_starttime(pid) != 0);
}

static void
read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static int
setup(void **state)
{
	struct h *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	h_setup(h);
	*state = h;
	return (0);
}

static int
teardown(void **state)
{
	struct h *h = *state;

	h_teardown(h);
	free(h);
	return (0);
}

/* ---- tests
 * ------------------------------------------------------------------------- */

static const char FAST[] =
    "backoff-initial 20ms; backoff-max 200ms; stop-grace 1s;\n"
    "failure-limit 10; failure-window 60s;";

static void
test_boot_order_args_and_shutdown(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "rib:ok.sh",
	    "fwd:ok.sh", NULL};
	char path[160], buf[512], want[256];
	struct rtm_comp_info ci;
	pid_t pids[3];
	struct h *hp = *state;

	/* with file health: each waits for the previous to be running */
	hp->rtm = h_rtm(hp,
	    "health-check file; health-interval 50ms; "
	    "health-timeout 40ms;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "fwd", RTM_RUNNING, 1, 3000);
	/* starts in order, each after the previous became RUNNING */
	{
		const char *order[] = {"mgmt", "rib", "fwd"};
		unsigned k = 0;

		for (unsigned i = 0; i < hp->nev && k < 3; i++) {
			if (hp->ev[i].st != RTM_STARTING)
				continue;
			assert_string_equal(hp->ev[i].name, order[k]);
			if (k > 0) {
				/* the previous one's RUNNING came before */
				bool seen = false;

				for (unsigned j = 0; j < i; j++)
					seen |= hp->ev[j].st == RTM_RUNNING &&
					    strcmp(hp->ev[j].name,
						order[k - 1]) == 0;
				assert_true(seen);
			}
			k++;
		}
		assert_int_equal(k, 3);
	}
	/* argv: configured args, then the standard options */
	snprintf(path, sizeof(path), "%s/rib.args", hp->dir);
	read_file(path, buf, sizeof(buf));
	snprintf(want, sizeof(want),
	    "--rundir %s --generation 1 --log-level info\n", hp->rundir);
	assert_string_equal(buf, want);
	/* rundir mode, log file */
	{
		struct stat sb;

		assert_int_equal(stat(hp->rundir, &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0750);
		snprintf(path, sizeof(path), "%s/mgmt.log", hp->rundir);
		assert_int_equal(stat(path, &sb), 0);
	}
	for (int i = 0; i < 3; i++) {
		struct rtm_comp *c = rtm_comp_at(hp->rtm, (unsigned)i);

		rtm_comp_get_info(c, &ci);
		assert_int_equal(ci.state, RTM_RUNNING);
		assert_int_equal(ci.generation, 1);
		assert_true(ci.pid > 0 && alive(ci.pid));
		pids[i] = ci.pid;
	}
	/* reverse-order shutdown: fwd, rib, mgmt, each after the previous ended
	 */
	hp->nev = 0;
	h_shutdown(hp);
	{
		const char *seq[][2] = {{"fwd", "stopping"}, {"fwd", "stopped"},
		    {"rib", "stopping"}, {"rib", "stopped"},
		    {"mgmt", "stopping"}, {"mgmt", "stopped"}};

		assert_int_equal(hp->nev, 6);
		for (int i = 0; i < 6; i++) {
			assert_string_equal(hp->ev[i].name, seq[i][0]);
			assert_string_equal(rtm_state_name(hp->ev[i].st),
			    seq[i][1]);
		}
	}
	snprintf(path, sizeof(path), "%s/order", hp->dir);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "fwd\nrib\nmgmt\n");
	for (int i = 0; i < 3; i++)
		assert_false(alive(pids[i]));
}

static void
test_crash_backoff_grows(void **state)
{
	static const char *const comps[] = {"rib:fail.sh", NULL};
	uint64_t t_exit[8] = {0}, t_start[8] = {0};
	struct rtm_comp_info ci;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp,
	    "backoff-initial 40ms; backoff-max 2s; "
	    "failure-limit 10; failure-window 60s;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_event(hp, "rib", RTM_STARTING, 5, 5000);
	for (unsigned i = 0; i < hp->nev; i++) {
		if (hp->ev[i].gen >= 8)
			continue;
		if (hp->ev[i].st == RTM_STARTING)
			t_start[hp->ev[i].gen] = hp->ev[i].t_ns;
		if (hp->ev[i].st == RTM_BACKOFF) {
			t_exit[hp->ev[i].gen] = hp->ev[i].t_ns;
			assert_int_equal(hp->ev[i].exit, 3);
		}
	}
	/* delays 40, 80, 160, 320 ms between an exit and the next start */
	for (unsigned g = 1; g <= 4; g++) {
		uint64_t want = 40u << (g - 1);
		uint64_t got = (t_start[g + 1] - t_exit[g]) / LC_NS_PER_MSEC;

		assert_true(t_exit[g] != 0 && t_start[g + 1] != 0);
		if (got + 15 < want || got > want + 150)
			fail_msg("restart %u: delay %" PRIu64
				 " ms, want %" PRIu64,
			    g, got, want);
	}
	info(hp, "rib", &ci);
	assert_int_equal(ci.restarts, 4);
	assert_string_equal(ci.last_error, "");
	/* the instance before says how it ended, after the restart too */
	assert_true(ci.end_ms != 0);
	assert_int_equal(ci.end_exit, 3);
	assert_int_equal(ci.end_generation, ci.generation - 1);
	assert_string_equal(ci.end_reason, "exited with status 3");
}

/* A component that stayed up stable-time starts over at backoff-initial. */
static void
test_stable_resets_backoff(void **state)
{
	static const char *const comps[] = {"rib:late.sh", NULL};
	struct h *hp = *state;
	unsigned n = 0;

	hp->rtm = h_rtm(hp,
	    "backoff-initial 30ms; backoff-max 2s; stable-time 200ms; "
	    "failure-limit 10; failure-window 60s;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_event(hp, "rib", RTM_BACKOFF, 3, 3000);
	for (unsigned i = 0; i < hp->nev; i++) {
		if (hp->ev[i].st != RTM_BACKOFF)
			continue;
		/* up 250 ms > 200 ms each time: never doubles */
		assert_int_equal(hp->ev[i].backoff_ms, 30);
		assert_int_equal(hp->ev[i].exit, 4);
		n++;
	}
	assert_true(n >= 3);
}

/* The exit of a child is seen at once (pidfd), not at the next poll. */
static void
test_exit_noticed_at_once(void **state)
{
	static const char *const comps[] = {"rib:ok.sh", NULL};
	struct h *hp = *state;
	struct rtm_comp_info ci;
	uint64_t t0, worst = 0, sum = 0;

	hp->rtm = h_rtm(hp,
	    "backoff-initial 10ms; stable-time 1ms; failure-limit 64;", comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	for (unsigned k = 1; k <= 5; k++) {
		wait_state(hp, "rib", RTM_RUNNING, k, 2000);
		info(hp, "rib", &ci);
		hp->nev = 0;
		t0 = lc_time_mono_ns();
		kill(ci.pid, SIGKILL);
		wait_event(hp, "rib", RTM_BACKOFF, k, 2000);
		for (unsigned i = 0; i < hp->nev; i++)
			if (hp->ev[i].st == RTM_BACKOFF) {
				uint64_t d = hp->ev[i].t_ns - t0;

				sum += d;
				worst = d > worst ? d : worst;
				assert_int_equal(hp->ev[i].exit, -SIGKILL);
			}
	}
	print_message("kill -9 -> noticed: mean %" PRIu64 " us, worst %" PRIu64
		      " us (5 kills)\n",
	    sum / 5 / 1000, worst / 1000);
	assert_true(worst < 50 * LC_NS_PER_MSEC);
}

static void
test_crash_loop_failed(void **state)
{
	static const char *const comps[] = {"fwd:fail.sh", "rib:ok.sh", NULL};
	struct rtm_comp_info ci;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp,
	    "backoff-initial 10ms; backoff-max 50ms; "
	    "failure-limit 3; failure-window 5s;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "fwd", RTM_FAILED, 3, 3000);
	/* a broken fwd does not hold back the boot of the others */
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
	run_for(hp, 200);
	info(hp, "fwd", &ci);
	assert_int_equal(ci.state, RTM_FAILED);
	assert_int_equal(ci.generation, 3); /* not restarted again */
	assert_int_equal(ci.pid, 0);
	assert_int_equal(ci.last_exit, 3);
	assert_non_null(strstr(ci.last_error, "3 failures in 5000 ms"));
	assert_non_null(strstr(ci.last_error, "exited with status 3"));
	/* stop of a failed one: already; start: forgiven and tried again */
	assert_int_equal(rtm_comp_stop(hp->rtm, "fwd"), -EALREADY);
	assert_int_equal(rtm_comp_start(hp->rtm, "fwd"), 0);
	wait_state(hp, "fwd", RTM_FAILED, 6, 3000);
}

static void
test_hang_killed_and_restarted(void **state)
{
	static const char *const comps[] = {"rib:hang.sh", NULL};
	struct rtm_comp_info ci;
	pid_t pid1;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp,
	    "health-check file; health-interval 60ms; "
	    "health-timeout 30ms; health-failures 2; backoff-initial 20ms;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
	info(hp, "rib", &ci);
	pid1 = ci.pid;
	/* it stops touching after ~150 ms: 2 failed checks -> SIGKILL */
	wait_state(hp, "rib", RTM_BACKOFF, 1, 2000);
	info(hp, "rib", &ci);
	assert_int_equal(ci.last_exit, -SIGKILL);
	assert_non_null(strstr(ci.last_error, "hung: 2 health checks failed"));
	assert_false(alive(pid1));
	wait_state(hp, "rib", RTM_RUNNING, 2, 2000);
	info(hp, "rib", &ci);
	assert_true(ci.pid != pid1);
	assert_int_equal(ci.restarts, 1);
	/* running again: its last_exit and last_error are the new
	 * instance's, the end of the hung one is kept beside them */
	assert_int_equal(ci.end_exit, -SIGKILL);
	assert_int_equal(ci.end_generation, 1);
	assert_non_null(strstr(ci.end_reason, "hung: 2 health checks failed"));
	assert_non_null(strstr(ci.end_reason, "killed by signal 9"));
}

static void
test_start_timeout(void **state)
{
	static const char *const comps[] = {"mgmt:never.sh", "rib:ok.sh", NULL};
	struct rtm_comp_info ci;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp,
	    "health-check file; health-interval 50ms; "
	    "health-timeout 20ms; start-timeout 250ms; backoff-initial 1s;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	/* rib waits for mgmt to leave STARTING */
	run_for(hp, 150);
	info(hp, "rib", &ci);
	assert_int_equal(ci.state, RTM_STOPPED);
	assert_int_equal(ci.generation, 0);
	wait_state(hp, "mgmt", RTM_BACKOFF, 1, 2000);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.last_exit, -SIGKILL);
	assert_string_equal(ci.last_error, "hung: not ready after 250 ms");
	/* now the boot goes on */
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
}

static void
test_stop_start_restart(void **state)
{
	static const char *const comps[] = {"rib:ok.sh", NULL};
	struct rtm_comp_info ci;
	pid_t pid;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
	info(hp, "rib", &ci);
	pid = ci.pid;
	assert_int_equal(rtm_comp_start(hp->rtm, "rib"), -EALREADY);
	assert_int_equal(rtm_comp_start(hp->rtm, "nope"), -ENOENT);
	assert_int_equal(rtm_comp_stop(hp->rtm, "nope"), -ENOENT);
	assert_int_equal(rtm_comp_restart(hp->rtm, "nope"), -ENOENT);

	wait_ready(hp, "rib");
	assert_int_equal(rtm_comp_stop(hp->rtm, "rib"), 0);
	assert_int_equal(rtm_comp_restart(hp->rtm, "rib"), -EBUSY);
	wait_state(hp, "rib", RTM_STOPPED, 1, 2000);
	assert_false(alive(pid));
	run_for(hp, 100); /* a stopped component stays stopped */
	info(hp, "rib", &ci);
	assert_int_equal(ci.state, RTM_STOPPED);
	assert_int_equal(ci.last_exit, 0);
	assert_int_equal(ci.restarts, 0);
	assert_int_equal(rtm_comp_stop(hp->rtm, "rib"), -EALREADY);

	assert_int_equal(rtm_comp_start(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_RUNNING, 2, 2000);
	info(hp, "rib", &ci);
	assert_true(ci.pid != pid && alive(ci.pid));
	pid = ci.pid;

	hp->nev = 0;
	assert_int_equal(rtm_comp_restart(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_RUNNING, 3, 2000);
	info(hp, "rib", &ci);
	assert_true(ci.pid != pid && alive(ci.pid));
	assert_false(alive(pid));
	assert_int_equal(ci.restarts, 0); /* asked for: not a failure */
	/* events: stopping(2) starting(3) running(3), prev_generation known */
	assert_true(hp->nev >= 3);
	assert_int_equal(hp->ev[0].st, RTM_STOPPING);
	assert_int_equal(hp->ev[0].gen, 2);
	assert_int_equal(hp->ev[1].st, RTM_STARTING);
	assert_int_equal(hp->ev[1].gen, 3);
	assert_int_equal(hp->ev[2].st, RTM_RUNNING);
	/* restart of a stopped one starts it */
	assert_int_equal(rtm_comp_stop(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_STOPPED, 3, 2000);
	assert_int_equal(rtm_comp_restart(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_RUNNING, 4, 2000);
}

static void
test_grace_then_sigkill(void **state)
{
	static const char *const comps[] = {"fwd:noterm.sh:stop-grace 200ms;",
	    NULL};
	struct rtm_comp_info ci;
	uint64_t t0, ms;
	pid_t pid;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "fwd", RTM_RUNNING, 1, 2000);
	wait_ready(hp, "fwd"); /* the script has set its trap */
	info(hp, "fwd", &ci);
	pid = ci.pid;
	t0 = lc_time_mono_ns();
	assert_int_equal(rtm_comp_stop(hp->rtm, "fwd"), 0);
	wait_state(hp, "fwd", RTM_STOPPED, 1, 2000);
	ms = (lc_time_mono_ns() - t0) / LC_NS_PER_MSEC;
	assert_true(ms >= 190 && ms < 1000);
	info(hp, "fwd", &ci);
	assert_int_equal(ci.last_exit, -SIGKILL);
	assert_false(alive(pid));
}

static void
test_generation_persists_and_lock(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", NULL};
	struct rtm_comp_info ci;
	struct rtm *other;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "mgmt", RTM_RUNNING, 1, 2000);
	assert_int_equal(rtm_comp_restart(hp->rtm, "mgmt"), 0);
	wait_state(hp, "mgmt", RTM_RUNNING, 2, 2000);
	/* a second supervisor on the same rundir is refused */
	other = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(other), -EBUSY);
	rtm_free(other);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.state, RTM_RUNNING); /* untouched */
	h_shutdown(hp);
	/* the next supervisor continues the numbering */
	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "mgmt", RTM_RUNNING, 3, 2000);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.generation, 3);
	assert_false(ci.adopted);
}

static void
test_adopt_after_supervisor_loss(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "rib:ok.sh", NULL};
	struct rtm_comp_info ci;
	pid_t pm, pr;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
	info(hp, "mgmt", &ci);
	pm = ci.pid;
	info(hp, "rib", &ci);
	pr = ci.pid;
	/* the supervisor goes away without stopping anything */
	rtm_free(hp->rtm);
	assert_true(alive(pm) && alive(pr));
	hp->rtm = h_rtm(hp, FAST, comps);
	hp->nev = 0;
	assert_int_equal(rtm_start(hp->rtm), 0);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.state, RTM_RUNNING);
	assert_int_equal(ci.pid, pm);
	assert_int_equal(ci.generation, 1);
	assert_true(ci.adopted);
	info(hp, "rib", &ci);
	assert_int_equal(ci.pid, pr);
	assert_true(ci.adopted);
	/* nothing was started */
	for (unsigned i = 0; i < hp->nev; i++)
		assert_int_not_equal(hp->ev[i].st, RTM_STARTING);
	/* a crash of an adopted one is still noticed and restarted */
	kill(pr, SIGKILL);
	wait_state(hp, "rib", RTM_RUNNING, 2, 2000);
	info(hp, "rib", &ci);
	assert_true(ci.pid != pr);
	assert_int_equal(ci.last_exit, RTM_EXIT_NONE);
	assert_int_equal(ci.restarts, 1);
	assert_false(ci.adopted);
	/* and adopted ones are stopped in order on shutdown */
	h_shutdown(hp);
	assert_false(alive(pm));
}

static void
test_operator_stop_survives_supervisor_loss(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "rib:ok.sh", NULL};
	struct rtm_comp_info ci;
	struct h *hp = *state;
	pid_t pm;

	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_RUNNING, 1, 2000);
	assert_int_equal(rtm_comp_stop(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_STOPPED, 1, 2000);
	info(hp, "mgmt", &ci);
	pm = ci.pid;
	rtm_free(hp->rtm); /* rtrmgr dies */
	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	run_for(hp, 100);
	info(hp, "rib", &ci);
	assert_int_equal(ci.state,
	    RTM_STOPPED); /* still as the operator left it */
	assert_int_equal(ci.generation, 1);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.pid, pm);
	assert_true(ci.adopted);
	assert_int_equal(rtm_comp_start(hp->rtm, "rib"), 0);
	wait_state(hp, "rib", RTM_RUNNING, 2, 2000);
	/* after an orderly shutdown everything starts again */
	h_shutdown(hp);
	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_RUNNING, 3, 2000);
	wait_state(hp, "mgmt", RTM_RUNNING, 2, 2000);
}

static void
test_adopt_refuses_other_process(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", NULL};
	struct rtm_state_rec rec;
	struct rtm_comp_info ci;
	pid_t imp;
	struct h *hp = *state;

	/* a state file naming a live process that is not mgmt */
	assert_int_equal(rtm_rundir_prepare(hp->rundir, (uid_t)-1, (gid_t)-1,
			     0750),
	    0);
	if ((imp = fork()) == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	usleep(20000);
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.name, sizeof(rec.name), "mgmt");
	rec.generation = 7;
	rec.pid = imp;
	rec.starttime = rtm_proc_starttime(imp);
	snprintf(rec.binary, sizeof(rec.binary), "%s/ok.sh", hp->dir);
	assert_int_equal(rtm_state_write(hp->rundir, &rec, 1), 0);
	hp->rtm = h_rtm(hp, FAST, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "mgmt", RTM_RUNNING, 8, 2000);
	info(hp, "mgmt", &ci);
	assert_true(ci.pid != imp);
	assert_false(ci.adopted);
	assert_int_equal(ci.generation, 8); /* numbering continues */
	assert_true(alive(imp));	    /* left alone */
	kill(imp, SIGKILL);
	waitpid(imp, NULL, 0);
}

static void
test_exec_failure(void **state)
{
	static const char *const comps[] = {"rib:/nonexistent/tern-rib", NULL};
	struct rtm_comp_info ci;
	struct h *hp = *state;

	hp->rtm = h_rtm(hp,
	    "backoff-initial 10ms; failure-limit 2; "
	    "failure-window 10s;",
	    comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "rib", RTM_FAILED, 2, 2000);
	info(hp, "rib", &ci);
	assert_non_null(strstr(ci.last_error,
	    "exec /nonexistent/tern-rib: No such file or directory"));
	assert_int_equal(ci.last_exit, 127);
}

/* A checker like the IPC one will be: answers later, from the loop. */
struct lazy {
	struct rtm_comp *c;
	uint64_t token;
	unsigned calls;
	unsigned answer_first; /* answer ok this many times, then never */
	ev_timer t;
};

static void
lazy_answer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct lazy *lz = w->data;

	rtm_health_done(lz->c, lz->token, true);
	rtm_health_done(lz->c, lz->token, false); /* repeated: ignored */
}

static struct ev_loop *lazy_loop;

static void
lazy_check2(struct rtm_comp *c, uint64_t token, void *arg)
{
	struct lazy *lz = arg;

	lz->calls++;
	if (lz->calls > lz->answer_first)
		return;
	lz->c = c;
	lz->token = token;
	ev_timer_set(&lz->t, 0.005, 0.);
	ev_timer_start(lazy_loop, &lz->t);
}

static void
test_health_plugin(void **state)
{
	static const char *const comps[] = {"rib:never.sh", NULL};
	struct rtm_comp_info ci;
	struct lazy lz;
	struct h *hp = *state;

	memset(&lz, 0, sizeof(lz));
	lz.answer_first = 3;
	ev_timer_init(&lz.t, lazy_answer, 0., 0.);
	lz.t.data = &lz;
	lazy_loop = hp->loop;
	hp->rtm = h_rtm(hp,
	    "health-check ipc; health-interval 40ms; "
	    "health-timeout 20ms; health-failures 2; backoff-initial 1s;",
	    comps);
	rtm_set_health(hp->rtm, lazy_check2, &lz);
	assert_int_equal(rtm_start(hp->rtm), 0);
	info(hp, "rib", &ci);
	assert_int_equal(ci.state, RTM_STARTING);
	wait_state(hp, "rib", RTM_RUNNING, 1, 1000);
	/* after 3 answers it goes silent: 2 timeouts -> killed */
	wait_state(hp, "rib", RTM_BACKOFF, 1, 2000);
	info(hp, "rib", &ci);
	assert_int_equal(ci.last_exit, -SIGKILL);
	assert_non_null(strstr(ci.last_error, "got no answer in 20 ms"));
	assert_true(lz.calls >= 5);
	/* a late answer with an old token changes nothing */
	rtm_health_done(rtm_comp_find(hp->rtm, "rib"), lz.token, true);
	info(hp, "rib", &ci);
	assert_int_equal(ci.state, RTM_BACKOFF);
	ev_timer_stop(hp->loop, &lz.t);
}

static void
test_ready_call(void **state)
{
	static const char *const comps[] = {"mgmt:never.sh", NULL};
	struct rtm_comp_info ci;
	struct h *hp = *state;

	/* ipc health with no checker: the REGISTER call makes it RUNNING */
	hp->rtm = h_rtm(hp, "health-check ipc;", comps);
	rtm_set_health(hp->rtm, lazy_check2, &(struct lazy){.answer_first = 0});
	assert_int_equal(rtm_start(hp->rtm), 0);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.state, RTM_STARTING);
	assert_int_equal(rtm_comp_ready(hp->rtm, "nope", ci.pid, 1), -ENOENT);
	assert_int_equal(rtm_comp_ready(hp->rtm, "mgmt", ci.pid, 2), -ESTALE);
	assert_int_equal(rtm_comp_ready(hp->rtm, "mgmt", ci.pid + 1, 1),
	    -ESTALE);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.state, RTM_STARTING);
	assert_int_equal(rtm_comp_ready(hp->rtm, "mgmt", ci.pid, 1), 0);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.state, RTM_RUNNING);
	rtm_set_health(hp->rtm, NULL, NULL);
}

static bool
overall_up(struct h *h, const void *arg)
{
	return (rtm_overall(h->rtm, NULL, 0) == RTM_OV_UP);
}

/* rtm_overall: what READY=1 waits for. */
static void
test_overall_waits_for_answers(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "rib:never.sh", NULL};
	struct h *hp = *state;
	char buf[256];

	hp->rtm = h_rtm(hp,
	    "health-check file; health-interval 50ms; health-timeout 40ms; "
	    "start-timeout 300ms; backoff-initial 20ms; failure-limit 2; "
	    "failure-window 60s;",
	    comps);
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)),
	    RTM_OV_STARTING);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "mgmt", RTM_RUNNING, 1, 3000);
	wait_state(hp, "rib", RTM_STARTING, 1, 3000);
	/* mgmt answers, rib never does: not up, and it says who */
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)),
	    RTM_OV_STARTING);
	assert_non_null(strstr(buf, "Waiting for rib (starting, pid"));
	assert_non_null(strstr(buf, "(1 of 2 up)"));
	/* start-timeout twice: rib is given up on, no longer waited for */
	wait_state(hp, "rib", RTM_FAILED, 2, 3000);
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)), RTM_OV_UP);
	assert_string_equal(buf, "Running: 1 of 2 components up; rib failed");
	h_shutdown(hp);
}

/* SIGHUP's work: rib removed (stopped), fwd added (started), mgmt kept
 * (same pid), new settings in force; a bad config changes nothing. */
static void
test_reload(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "rib:ok.sh", NULL};
	static const char *const comps2[] = {"mgmt:ok.sh", "fwd:ok.sh", NULL};
	static const char *const bad[] = {"mgmt:ok.sh", "fwd:nothere.sh", NULL};
	static const char GLOBAL[] = "health-check file; health-interval 50ms; "
				     "health-timeout 40ms; stop-grace 1s;";
	struct rtm_comp_info ci;
	struct lc_err err;
	struct h *hp = *state;
	pid_t mgmt, rib;
	char buf[256];

	hp->rtm = h_rtm(hp, GLOBAL, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	assert_true(run_until(hp, overall_up, NULL, 3000));
	wait_ready(hp, "rib");
	info(hp, "mgmt", &ci);
	mgmt = ci.pid;
	info(hp, "rib", &ci);
	rib = ci.pid;

	/* refused: a binary that is not there; nothing changes */
	assert_int_equal(rtm_reload(hp->rtm, h_cfg(hp, GLOBAL, bad), &err),
	    -ENOENT);
	assert_non_null(strstr(err.msg, "component fwd: binary"));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	assert_int_equal(rtm_comp_count(hp->rtm), 2);
	assert_null(rtm_comp_find(hp->rtm, "fwd"));
	info(hp, "rib", &ci);
	assert_int_equal(ci.pid, rib);
	assert_int_equal(ci.state, RTM_RUNNING);

	hp->nev = 0;
	assert_int_equal(rtm_reload(hp->rtm,
			     h_cfg(hp,
				 "health-check file; health-interval 60ms; "
				 "health-timeout 40ms; stop-grace 1s; "
				 "backoff-initial 30ms;",
				 comps2),
			     &err),
	    0);
	/* rib is stopping (SIGTERM), fwd not up yet: not ready */
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)),
	    RTM_OV_STARTING);
	assert_true(run_until(hp, overall_up, NULL, 3000));
	assert_false(alive(rib));
	assert_null(rtm_comp_find(hp->rtm, "rib"));
	assert_int_equal(rtm_comp_count(hp->rtm), 2);
	assert_string_equal(rtm_comp_name(rtm_comp_at(hp->rtm, 1)), "fwd");
	info(hp, "fwd", &ci);
	assert_int_equal(ci.state, RTM_RUNNING);
	assert_int_equal(ci.generation, 1);
	info(hp, "mgmt", &ci);
	assert_int_equal(ci.pid, mgmt);
	assert_int_equal(ci.generation, 1);
	assert_int_equal(rtm_config_of(hp->rtm)->backoff_initial_ms, 30);
	/* rib's stop went through the events like any stop */
	{
		bool stopped = false;

		for (unsigned i = 0; i < hp->nev; i++)
			stopped |= strcmp(hp->ev[i].name, "rib") == 0 &&
			    hp->ev[i].st == RTM_STOPPED;
		assert_true(stopped);
	}
	/* a crash of the added one is handled with the new backoff */
	info(hp, "fwd", &ci);
	kill(ci.pid, SIGKILL);
	wait_state(hp, "fwd", RTM_RUNNING, 2, 3000);
	h_shutdown(hp);
}

static bool
dropped(struct h *h, const void *arg)
{
	return (rtm_comp_find(h->rtm, arg) == NULL);
}

/* A removed component that ignores SIGTERM: listed as stopping until the
 * grace's SIGKILL; another reload meanwhile is refused, then accepted. */
static void
test_reload_while_removed_stops(void **state)
{
	static const char *const comps[] = {"mgmt:ok.sh", "hold:noterm.sh",
	    NULL};
	static const char *const comps2[] = {"mgmt:ok.sh", NULL};
	static const char GLOBAL[] = "stop-grace 500ms;";
	struct rtm_comp_info ci;
	struct lc_err err;
	struct h *hp = *state;
	char buf[256];

	hp->rtm = h_rtm(hp, GLOBAL, comps);
	assert_int_equal(rtm_start(hp->rtm), 0);
	wait_state(hp, "hold", RTM_RUNNING, 1, 3000);
	wait_ready(hp, "hold");
	assert_int_equal(rtm_reload(hp->rtm, h_cfg(hp, GLOBAL, comps2), &err),
	    0);
	info(hp, "hold", &ci);
	assert_int_equal(ci.state, RTM_STOPPING);
	assert_int_equal(rtm_comp_count(hp->rtm), 2); /* still listed */
	assert_int_equal(rtm_comp_stop(hp->rtm, "hold"), -ENOENT);
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)),
	    RTM_OV_STARTING);
	assert_non_null(strstr(buf, "hold to stop (removed from the config)"));
	assert_int_equal(rtm_reload(hp->rtm, h_cfg(hp, GLOBAL, comps), &err),
	    -EBUSY);
	assert_non_null(strstr(err.msg, "still stopping hold"));
	assert_true(run_until(hp, dropped, "hold", 3000));
	assert_int_equal(rtm_comp_count(hp->rtm), 1);
	assert_int_equal(rtm_overall(hp->rtm, buf, sizeof(buf)), RTM_OV_UP);
	/* and back: a new instance, the next reload accepted */
	assert_int_equal(rtm_reload(hp->rtm, h_cfg(hp, GLOBAL, comps), &err),
	    0);
	wait_state(hp, "hold", RTM_RUNNING, 1, 3000);
	wait_ready(hp, "hold");
	h_shutdown(hp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_boot_order_args_and_shutdown,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash_backoff_grows, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_stable_resets_backoff, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_exit_noticed_at_once, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_crash_loop_failed, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_hang_killed_and_restarted,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start_timeout, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_stop_start_restart, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_grace_then_sigkill, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_generation_persists_and_lock,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_adopt_after_supervisor_loss,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_operator_stop_survives_supervisor_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_adopt_refuses_other_process,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_health_plugin, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_ready_call, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_overall_waits_for_answers,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reload_while_removed_stops,
		setup, teardown),
	};

	lc_log_init("test_supervise", LC_LOG_WARNING, LC_LOG_STDERR);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
