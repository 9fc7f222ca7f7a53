/* tests/unit/libcommon/test_log.c: log levels, line format on stderr, errno
 * suffix, truncation and rate limiting. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

#define CAP_MAX 64

static struct {
	unsigned n;
	enum lc_log_level level[CAP_MAX];
	char line[CAP_MAX][LC_LOG_LINE_MAX];
} cap;

static void
cap_hook(enum lc_log_level level, const char *line, void *arg)
{
	(void)arg;
	if (cap.n < CAP_MAX) {
		cap.level[cap.n] = level;
		snprintf(cap.line[cap.n], sizeof(cap.line[0]), "%s", line);
	}
	cap.n++;
}

static int
setup(void **state)
{
	(void)state;
	memset(&cap, 0, sizeof(cap));
	lc_log_init("/usr/sbin/tern-test", LC_LOG_INFO, LC_LOG_STDERR);
	lc_log_set_hook(cap_hook, NULL);
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	lc_log_set_hook(NULL, NULL);
	return (0);
}

static void
test_level_parse(void **state)
{
	static const char *const names[] = {"err", "warning", "notice", "info",
	    "debug"};
	enum lc_log_level l;

	(void)state;
	for (int i = 0; i < 5; i++) {
		l = LC_LOG_ERR;
		assert_int_equal(lc_log_level_parse(names[i], &l), 0);
		assert_int_equal(l, i);
		assert_string_equal(lc_log_level_name(l), names[i]);
	}
	assert_int_equal(lc_log_level_parse("warn", &l), 0);
	assert_int_equal(l, LC_LOG_WARNING);
	assert_int_equal(lc_log_level_parse("DEBUG", &l), 0);
	assert_int_equal(l, LC_LOG_DEBUG);
	l = LC_LOG_NOTICE;
	assert_int_equal(lc_log_level_parse("", &l), -EINVAL);
	assert_int_equal(lc_log_level_parse("debugx", &l), -EINVAL);
	assert_int_equal(lc_log_level_parse(" info", &l), -EINVAL);
	assert_int_equal(lc_log_level_parse("3", &l), -EINVAL);
	assert_int_equal(lc_log_level_parse(NULL, &l), -EINVAL);
	assert_int_equal(l, LC_LOG_NOTICE); /* unchanged */
	assert_string_equal(lc_log_level_name((enum lc_log_level)42),
	    "unknown");
}

static void
test_format_and_filter(void **state)
{
	char want[128];
	int evaluated = 0;

	(void)state;
	lc_log_warnx("peer %s down after %d s", "198.18.0.2", 42);
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.level[0], LC_LOG_WARNING);
	snprintf(want, sizeof(want),
	    "tern-test[%ld]: warning: peer 198.18.0.2 down after 42 s",
	    (long)getpid());
	assert_string_equal(cap.line[0], want);

	/* below the threshold: nothing emitted, arguments not evaluated */
	lc_log_debug("x %d", ++evaluated);
	assert_int_equal(cap.n, 1);
	assert_int_equal(evaluated, 0);
	lc_log(LC_LOG_DEBUG, "direct");
	assert_int_equal(cap.n, 1);

	lc_log_set_level(LC_LOG_DEBUG);
	assert_int_equal(lc_log_get_level(), LC_LOG_DEBUG);
	lc_log_debug("x %d", ++evaluated);
	assert_int_equal(evaluated, 1);
	assert_int_equal(cap.n, 2);
	assert_non_null(strstr(cap.line[1], ": debug: x 1"));

	lc_log_set_level(LC_LOG_ERR);
	lc_log_notice("n");
	lc_log_info("i");
	lc_log_warnx("w");
	assert_int_equal(cap.n, 2);
	lc_log_err("e");
	assert_int_equal(cap.n, 3);
	assert_non_null(strstr(cap.line[2], ": err: e"));
}

static void
test_errno_suffix(void **state)
{
	(void)state;
	errno = ENOENT;
	lc_log_warn("open %s", "/nonexistent");
	assert_int_equal(errno, ENOENT); /* preserved */
	assert_int_equal(cap.n, 1);
	assert_non_null(strstr(cap.line[0],
	    ": warning: open /nonexistent: No such file or directory"));
	errno = EAGAIN;
	lc_log_notice("plain");
	assert_int_equal(errno, EAGAIN);
	assert_null(strstr(cap.line[1], "Resource"));
}

static void
test_truncation(void **state)
{
	char big[3 * LC_LOG_LINE_MAX];
	size_t n;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	lc_log_notice("%s", big);
	assert_int_equal(cap.n, 1);
	n = strlen(cap.line[0]);
	assert_true(n < LC_LOG_LINE_MAX);
	assert_true(n > LC_LOG_LINE_MAX / 2);
	assert_string_equal(cap.line[0] + n - 3, "...");
}

/* The real stderr path: one line with a timestamp, progname, pid and newline.
 */
static void
test_stderr_line(void **state)
{
	char path[] = "/tmp/test_log.XXXXXX", buf[512], want[128];
	int fd, saved, lines = 0;
	ssize_t n;

	(void)state;
	lc_log_set_hook(NULL, NULL);
	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	lc_log_notice("hello %u", 7u);
	lc_log_info("second");
	lc_log_debug("filtered");
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	/* "YYYY-MM-DDTHH:MM:SS.mmmZ tern-test[pid]: notice: hello 7\n" */
	assert_true(n > 25);
	assert_int_equal(buf[4], '-');
	assert_int_equal(buf[10], 'T');
	assert_int_equal(buf[23], 'Z');
	assert_int_equal(buf[24], ' ');
	snprintf(want, sizeof(want), "tern-test[%ld]: notice: hello 7\n",
	    (long)getpid());
	assert_memory_equal(buf + 25, want, strlen(want));
	assert_non_null(strstr(buf, ": info: second\n"));
	assert_null(strstr(buf, "filtered"));
	/* exactly two lines, each written whole */
	assert_int_equal(buf[n - 1], '\n');
	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, 2);
}

/* With both destinations, the stderr copy is still written (syslog may not
 * exist here). */
static void
test_both_destinations(void **state)
{
	char path[] = "/tmp/test_log.XXXXXX", buf[512];
	int fd, saved;
	ssize_t n;

	(void)state;
	lc_log_set_hook(NULL, NULL);
	lc_log_init("tern-both", LC_LOG_NOTICE, LC_LOG_STDERR | LC_LOG_SYSLOG);
	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	lc_log_notice("to both %d", 1);
	lc_log_info("filtered at notice");
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, " tern-both["));
	assert_non_null(strstr(buf, "]: notice: to both 1\n"));
	assert_null(strstr(buf, "filtered"));
	assert_int_equal(lc_log_get_level(), LC_LOG_NOTICE);
	/* back to stderr only (closes syslog) */
	lc_log_init(NULL, LC_LOG_INFO, 0);
	assert_int_equal(lc_log_get_level(), LC_LOG_INFO);
}

/* The window logic with a controlled clock. */
static void
test_ratelimit_check(void **state)
{
	struct lc_log_ratelimit rl = {0};
	uint64_t t0 = 5 * LC_NS_PER_SEC;
	unsigned ok = 0;

	(void)state;
	for (int i = 0; i < 10; i++)
		ok += lc_log_ratelimit_check(&rl, t0 + (uint64_t)i, 2, 3,
		    LC_LOG_WARNING);
	assert_int_equal(ok, 3);
	assert_int_equal(cap.n, 0); /* nothing reported yet */
	/* still inside the 2 s window */
	assert_false(lc_log_ratelimit_check(&rl, t0 + 2 * LC_NS_PER_SEC - 1, 2,
	    3, LC_LOG_WARNING));
	assert_int_equal(cap.n, 0);
	/* the window reopens: the 8 drops are reported once, then allowed */
	assert_true(lc_log_ratelimit_check(&rl, t0 + 2 * LC_NS_PER_SEC, 2, 3,
	    LC_LOG_WARNING));
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.level[0], LC_LOG_WARNING);
	assert_non_null(
	    strstr(cap.line[0], ": warning: 8 messages suppressed"));
	assert_true(lc_log_ratelimit_check(&rl, t0 + 2 * LC_NS_PER_SEC + 1, 2,
	    3, LC_LOG_WARNING));
	/* a quiet window reports nothing */
	assert_true(lc_log_ratelimit_check(&rl, t0 + 10 * LC_NS_PER_SEC, 2, 3,
	    LC_LOG_WARNING));
	assert_int_equal(cap.n, 1);
}

static void
spam(unsigned n, int *evaluated)
{
	for (unsigned i = 0; i < n; i++)
		LC_LOG_RATELIMIT(LC_LOG_NOTICE, 1, 5, "flood %u %d", i,
		    ++*evaluated);
}

/* The macro with the real clock: per call site state, formatting only when
 * emitted. */
static void
test_ratelimit_macro(void **state)
{
	int evaluated = 0, dbg = 0;

	(void)state;
	spam(100, &evaluated);
	assert_int_equal(cap.n, 5);
	assert_int_equal(evaluated, 5); /* suppressed lines are not formatted */
	assert_non_null(strstr(cap.line[0], ": notice: flood 0 1"));
	assert_non_null(strstr(cap.line[4], ": notice: flood 4 5"));

	/* a filtered level touches nothing */
	for (int i = 0; i < 10; i++)
		LC_LOG_RATELIMIT(LC_LOG_DEBUG, 1, 1, "dbg %d", ++dbg);
	assert_int_equal(dbg, 0);
	assert_int_equal(cap.n, 5);

	usleep(1050 * 1000);
	spam(3, &evaluated);
	assert_int_equal(cap.n, 5 + 1 + 3);
	assert_non_null(
	    strstr(cap.line[5], ": notice: 95 messages suppressed"));
	assert_non_null(strstr(cap.line[6], "flood 0 6"));
}

static atomic_uint mt_lines;

static void
mt_hook(enum lc_log_level level, const char *line, void *arg)
{
	(void)level;
	(void)line;
	(void)arg;
	atomic_fetch_add(&mt_lines, 1);
}

static void
mt_site(void)
{
	LC_LOG_RATELIMIT(LC_LOG_WARNING, 3600, 10, "shared site");
}

static void *
mt_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		mt_site();
	return (NULL);
}

/* Threads sharing one call site: exactly `burst` lines get through. */
static void
test_ratelimit_threads(void **state)
{
	pthread_t t[4];

	(void)state;
	atomic_store(&mt_lines, 0);
	lc_log_set_hook(mt_hook, NULL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, mt_thread, NULL),
		    0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(atomic_load(&mt_lines), 10);
}

/* ---- the journal (stderr is systemd's journal stream) ---- */

/* Runs fn in a child with stderr on a pipe named by JOURNAL_STREAM; what it
 * wrote on stderr into out (NUL-ended). The child's exit status. */
static int
in_child_on_stream(void (*fn)(void), char *out, size_t n)
{
	int p[2], st = -1;
	ssize_t k, got = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		struct stat sb;
		char e[64];

		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		fstat(STDERR_FILENO, &sb);
		snprintf(e, sizeof(e), "%llu:%llu",
		    (unsigned long long)sb.st_dev,
		    (unsigned long long)sb.st_ino);
		setenv("JOURNAL_STREAM", e, 1);
		lc_log_set_hook(NULL, NULL);
		fn();
		_exit(0);
	}
	close(p[1]);
	while (got < (ssize_t)n - 1 &&
	    (k = read(p[0], out + got, n - 1 - (size_t)got)) > 0)
		got += k;
	out[got] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return (st);
}

static void
log_on_stream_no_journald(void)
{
	/* no journald here: a private /run without its socket */
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, NULL) != 0)
		_exit(77);
	lc_log_init("tern-jtest", LC_LOG_INFO, LC_LOG_STDERR);
	if (!lc_log_stderr_is_journal())
		_exit(3);
	lc_log_info("on the stream %d", 42);
	lc_log_err("and an error");
}

/* stderr on the journal stream, no journald socket: "<prio>" lines, no
 * timestamp (journald stamps them) */
static void
test_journal_stream_prefix(void **state)
{
	char out[1024];
	int st;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr,
		    "not root: skipped (needs a mount namespace)\n");
		return;
	}
	st = in_child_on_stream(log_on_stream_no_journald, out, sizeof(out));
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		fprintf(stderr, "no mount namespace: skipped\n");
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(out, "<6>tern-jtest["));
	assert_non_null(strstr(out, "]: info: on the stream 42\n"));
	assert_non_null(strstr(out, "<3>tern-jtest["));
	assert_non_null(strstr(out, "]: err: and an error\n"));
	/* no timestamp: every line starts with its priority */
	assert_int_equal(out[0], '<');
	assert_null(strstr(out, "Z tern-jtest"));
}

static int jsock = -1;

static void
log_on_stream_journald(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	/* a journald of our own: the socket sd_journal_send writes to, in a
	 * private /run */
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, NULL) != 0)
		_exit(77);
	if (mkdir("/run/systemd", 0755) != 0 ||
	    mkdir("/run/systemd/journal", 0755) != 0)
		_exit(4);
	snprintf(sa.sun_path, sizeof(sa.sun_path),
	    "/run/systemd/journal/socket");
	if ((jsock = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 ||
	    bind(jsock, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		_exit(5);
	lc_log_set_context("fwd", 7);
	lc_log_init("tern-fwd", LC_LOG_INFO, LC_LOG_STDERR);
	lc_log_notice("natively %s", "sent");
	{
		char d[2048];
		ssize_t k = recv(jsock, d, sizeof(d) - 1, MSG_DONTWAIT);

		if (k <= 0)
			_exit(6);
		d[k] = '\0';
		/* the native protocol: one FIELD=value per line */
		if (strstr(d, "MESSAGE=natively sent\n") == NULL ||
		    strstr(d, "PRIORITY=5\n") == NULL ||
		    strstr(d, "SYSLOG_IDENTIFIER=tern-fwd\n") == NULL ||
		    strstr(d, "TERN_COMPONENT=fwd\n") == NULL ||
		    strstr(d, "TERN_GENERATION=7\n") == NULL ||
		    strstr(d, "TERN_LEVEL=notice\n") == NULL)
			_exit(7);
	}
}

/* stderr on the journal stream, journald there: each line goes to it with
 * its fields, nothing on the stream */
static void
test_journal_native(void **state)
{
	char out[1024];
	int st;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr,
		    "not root: skipped (needs a mount namespace)\n");
		return;
	}
	st = in_child_on_stream(log_on_stream_journald, out, sizeof(out));
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		fprintf(stderr, "no mount namespace: skipped\n");
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_string_equal(out, ""); /* the stream got nothing */
}

/* stderr not the stream JOURNAL_STREAM names (a file of rtrmgr's `output
 * file`): lines as always, with their timestamp */
static void
test_journal_other_stream(void **state)
{
	(void)state;
	setenv("JOURNAL_STREAM", "1:2", 1);
	assert_false(lc_log_stderr_is_journal());
	setenv("JOURNAL_STREAM", "garbage", 1);
	assert_false(lc_log_stderr_is_journal());
	unsetenv("JOURNAL_STREAM");
	assert_false(lc_log_stderr_is_journal());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_level_parse, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_format_and_filter, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_errno_suffix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stderr_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_both_destinations, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_ratelimit_check, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_ratelimit_macro, setup,
		teardown),
	    cmocka_unit_test(test_journal_stream_prefix),
	    cmocka_unit_test(test_journal_native),
	    cmocka_unit_test(test_journal_other_stream),
	    cmocka_unit_test_setup_teardown(test_ratelimit_threads, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
