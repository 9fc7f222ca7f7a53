/* tests/unit/fwd/test_worker_cpus.c: tern-fwd's --cpus lists (parse, check
 * against the allowed set), workers pinned to them, and the idle back-off
 * of a real worker thread (it sleeps, and spends little CPU, when idle). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "fwd/fwd_d.h"

static void
parse_ok(const char *s, const uint16_t *want, unsigned nwant)
{
	uint16_t cpus[FWD_D_WORKERS_MAX];
	struct lc_err err;
	unsigned n = 99;

	lc_err_clear(&err);
	assert_int_equal(fwd_cpus_parse(s, cpus, FWD_D_WORKERS_MAX, &n, &err),
	    0);
	assert_int_equal(n, nwant);
	for (unsigned i = 0; i < nwant; i++)
		assert_int_equal(cpus[i], want[i]);
	assert_string_equal(err.msg, "");
}

static void
test_parse_good(void **st)
{
	(void)st;
	parse_ok("0", (const uint16_t[]){0}, 1);
	parse_ok("1,3", (const uint16_t[]){1, 3}, 2);
	parse_ok("0-2,5", (const uint16_t[]){0, 1, 2, 5}, 4);
	parse_ok("7,2-3", (const uint16_t[]){7, 2, 3}, 3);
	parse_ok("4-4", (const uint16_t[]){4}, 1);
	parse_ok("1023", (const uint16_t[]){1023}, 1);
	parse_ok("0-15",
	    (const uint16_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		15},
	    16);
}

/* A bad list: the error and its message; *n and cpus unchanged. */
static void
parse_bad(const char *s, unsigned max, int rv, const char *msg)
{
	uint16_t cpus[4] = {77, 77, 77, 77};
	struct lc_err err;
	unsigned n = 99;

	lc_err_clear(&err);
	assert_int_equal(fwd_cpus_parse(s, cpus, max, &n, &err), rv);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", s ? s : "(null)",
		    err.msg, msg);
	assert_int_equal(n, 99);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(cpus[i], 77);
}

static void
test_parse_bad(void **st)
{
	(void)st;
	parse_bad(NULL, 4, -EINVAL, "empty CPU list");
	parse_bad("", 4, -EINVAL, "empty CPU list");
	parse_bad("x", 4, -EINVAL, "expected N or N-M at 'x'");
	parse_bad("1,", 4, -EINVAL, "expected N or N-M at ''");
	parse_bad(",1", 4, -EINVAL, "expected N or N-M at ',1'");
	parse_bad("1,,2", 4, -EINVAL, "expected N or N-M at ',2'");
	parse_bad("1-", 4, -EINVAL, "expected N or N-M at '1-'");
	parse_bad("-1", 4, -EINVAL, "expected N or N-M at '-1'");
	parse_bad("+1", 4, -EINVAL, "expected N or N-M");
	parse_bad("1 ", 4, -EINVAL, "expected N or N-M at '1 '");
	parse_bad(" 1", 4, -EINVAL, "expected N or N-M");
	parse_bad("1-2-3", 4, -EINVAL, "expected N or N-M at '1-2-3'");
	parse_bad("0x1", 4, -EINVAL, "expected N or N-M");
	parse_bad("3-1", 4, -EINVAL, "range 3-1 goes down");
	parse_bad("1,1", 4, -EINVAL, "CPU 1 twice");
	parse_bad("0-2,2", 4, -EINVAL, "CPU 2 twice");
	parse_bad("1024", 4, -EINVAL, "CPU number at '1024' is 1024 or more");
	parse_bad("0-99999999999999999999", 4, -EINVAL, "1024 or more");
	parse_bad("0-4", 4, -E2BIG, "more than 4 CPUs");
	parse_bad("0,1,2,3,4", 4, -E2BIG, "more than 4 CPUs");
}

static void
test_check(void **st)
{
	uint16_t cpu = (uint16_t)sched_getcpu(), far = CPU_SETSIZE - 1;
	struct lc_err err;
	cpu_set_t cs;

	(void)st;
	lc_err_clear(&err);
	assert_int_equal(fwd_cpus_check(&cpu, 1, &err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof(cs), &cs), 0);
	if (CPU_ISSET(far, &cs))
		skip(); /* a machine with 1024 CPUs */
	assert_int_equal(fwd_cpus_check((const uint16_t[]){cpu, far}, 2, &err),
	    -EINVAL);
	assert_non_null(
	    strstr(err.msg, "CPU 1023 is not in this process's allowed set"));
}

/* The allowed CPUs, at most max. */
static unsigned
allowed(uint16_t *cpus, unsigned max)
{
	cpu_set_t cs;
	unsigned n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(cs), &cs), 0);
	for (unsigned c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &cs))
			cpus[n++] = (uint16_t)c;
	return (n);
}

static double
thread_cpu_ms(pthread_t t)
{
	struct timespec ts;
	clockid_t cid;

	assert_int_equal(pthread_getcpuclockid(t, &cid), 0);
	assert_int_equal(clock_gettime(cid, &ts), 0);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

/*
 * Real workers of a real daemon: worker k runs on the k-th CPU of the list
 * (the list given in reverse order, so that pinning in order would show),
 * and idle, each sleeps in poll() after spin_us instead of spinning: over
 * 300 ms it sleeps many times and spends a fraction of the time on CPU.
 * Without cpus, the workers keep the process's whole set.
 */
static void
test_pinned_workers(void **st)
{
	uint16_t cpus[2];
	unsigned n = allowed(cpus, 2);
	char rundir[64];
	struct fwd_d_conf c;
	struct ev_loop *loop;
	struct fwd_d *d;
	double cpu0[2];
	uint64_t sleeps0[2];

	(void)st;
	snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdcpu-XXXXXX");
	assert_non_null(mkdtemp(rundir));
	loop = lc_loop_new();
	assert_non_null(loop);
	for (int pinned = 1; pinned >= 0; pinned--) {
		memset(&c, 0, sizeof(c));
		c.rundir = rundir;
		c.workers = n;
		c.spin_us = 50;
		if (pinned) {
			c.ncpus = n;
			for (unsigned k = 0; k < n; k++)
				c.cpus[k] = cpus[n - 1 - k];
		}
		d = fwd_d_new(loop, &c);
		assert_non_null(d);
		assert_int_equal(d->nworkers, n);
		for (unsigned k = 0; k < n; k++) {
			cpu_set_t cs;

			assert_true(d->w[k]->started);
			assert_int_equal(pthread_getaffinity_np(d->w[k]->thr,
					     sizeof(cs), &cs),
			    0);
			if (pinned) {
				assert_int_equal(CPU_COUNT(&cs), 1);
				assert_true(CPU_ISSET(cpus[n - 1 - k], &cs));
			} else
				assert_int_equal(CPU_COUNT(&cs), (int)n);
			cpu0[k] = thread_cpu_ms(d->w[k]->thr);
			sleeps0[k] = __atomic_load_n(&d->w[k]->sleeps,
			    __ATOMIC_RELAXED);
		}
		usleep(300000);
		for (unsigned k = 0; k < n; k++) {
			double ms = thread_cpu_ms(d->w[k]->thr) - cpu0[k];
			uint64_t sl = __atomic_load_n(&d->w[k]->sleeps,
					  __ATOMIC_RELAXED) -
			    sleeps0[k];

			fprintf(stderr,
			    "worker %u (%s): idle 300 ms: %llu sleeps, "
			    "%.1f ms CPU\n",
			    k, pinned ? "pinned" : "not pinned",
			    (unsigned long long)sl, ms);
			/* poll() times out every 1 ms: about 300 sleeps when
			 * idle; a worker that spun would do none */
			assert_true(sl >= 50);
			assert_true(ms < 150);
		}
		fwd_d_free(d);
	}
	lc_loop_free(loop);
	rmdir(rundir);
}

/*
 * A real-time worker that never sleeps (spin for ever, SCHED_FIFO) on the
 * CPU of the control thread (same priority): it yields once a millisecond,
 * so the control thread still runs. In a child, which the parent kills if
 * it hangs (before the yield, it hung: the worker kept the CPU for good).
 */
static void
test_rt_worker_yields(void **st)
{
	uint16_t cpu;
	pid_t pid;
	int status = -1;

	(void)st;
	assert_int_equal(allowed(&cpu, 1), 1);
	if ((pid = fork()) == 0) {
		struct sched_param sp = {.sched_priority = 10};
		char rundir[64];
		struct fwd_d_conf c;
		struct ev_loop *loop;
		struct fwd_d *d;
		cpu_set_t cs;
		int worst = 0;

		CPU_ZERO(&cs);
		CPU_SET(cpu, &cs);
		if (sched_setaffinity(0, sizeof(cs), &cs) != 0 ||
		    sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
			_exit(77); /* not allowed here */
		snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdrt-XXXXXX");
		if (mkdtemp(rundir) == NULL || (loop = lc_loop_new()) == NULL)
			_exit(2);
		memset(&c, 0, sizeof(c));
		c.rundir = rundir;
		c.workers = 1;
		c.spin_us = 1000000000u; /* never sleeps */
		c.ncpus = 1;
		c.cpus[0] = cpu;
		if ((d = fwd_d_new(loop, &c)) == NULL)
			_exit(3);
		/* the control thread sleeps 2 ms, 50 times: it must come
		 * back each time, within a few ms */
		for (int i = 0; i < 50; i++) {
			struct timespec a, b;
			int ms;

			clock_gettime(CLOCK_MONOTONIC, &a);
			usleep(2000);
			clock_gettime(CLOCK_MONOTONIC, &b);
			ms = (int)((b.tv_sec - a.tv_sec) * 1000 +
			    (b.tv_nsec - a.tv_nsec) / 1000000);
			if (ms > worst)
				worst = ms;
		}
		fprintf(stderr,
		    "control thread beside a spinning SCHED_FIFO "
		    "worker: 50 sleeps of 2 ms, longest %d ms\n",
		    worst);
		fwd_d_free(d);
		lc_loop_free(loop);
		rmdir(rundir);
		_exit(worst < 100 ? 0 : 1);
	}
	assert_true(pid > 0);
	for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(50000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("the control thread got no CPU for 5 s (worker hogs)");
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A CPU list that pthread refuses (not in the allowed set, bypassing
 * main's check): the daemon does not start. */
static void
test_pin_refused(void **st)
{
	char rundir[64];
	struct fwd_d_conf c;
	struct ev_loop *loop;
	cpu_set_t cs;

	(void)st;
	assert_int_equal(sched_getaffinity(0, sizeof(cs), &cs), 0);
	if (CPU_ISSET(CPU_SETSIZE - 1, &cs))
		skip();
	snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdcpu-XXXXXX");
	assert_non_null(mkdtemp(rundir));
	loop = lc_loop_new();
	memset(&c, 0, sizeof(c));
	c.rundir = rundir;
	c.workers = 1;
	c.ncpus = 1;
	c.cpus[0] = CPU_SETSIZE - 1;
	assert_null(fwd_d_new(loop, &c));
	lc_loop_free(loop);
	rmdir(rundir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_good),
	    cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_pinned_workers),
	    cmocka_unit_test(test_pin_refused),
	    cmocka_unit_test(test_rt_worker_yields),
	};

	lc_log_init("test_worker_cpus", LC_LOG_ERR, LC_LOG_STDERR);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
