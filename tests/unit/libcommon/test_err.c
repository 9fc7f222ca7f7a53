/* tests/unit/libcommon/test_err.c: the error carrier (set, prefix, clear,
 * truncation, NULL) and lc_oom's log line and abort. */
#include <errno.h>
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

#include "libcommon/lc_err.h"
#include "libcommon/lc_log.h"

static void
test_set_clear(void **state)
{
	struct lc_err e;

	(void)state;
	lc_err_clear(&e);
	assert_int_equal(e.code, 0);
	assert_int_equal(e.index, LC_ERR_NOINDEX);
	assert_string_equal(e.msg, "");
	assert_int_equal(lc_err_set(&e, -EINVAL, 7, "route %d: %s", 7, "bad"),
	    -EINVAL);
	assert_int_equal(e.code, -EINVAL);
	assert_int_equal(e.index, 7);
	assert_string_equal(e.msg, "route 7: bad");
	lc_err_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(e.msg, "");
	/* NULL: no carrier, the code still comes back */
	assert_int_equal(lc_err_set(NULL, -ENOENT, 1, "x"), -ENOENT);
	lc_err_clear(NULL);
	assert_int_equal(lc_err_prefix(NULL, "x"), 0);
}

static void
test_prefix(void **state)
{
	struct lc_err e;

	(void)state;
	lc_err_clear(&e);
	lc_err_set(&e, -ERANGE, 3, "metric 70000 out of range");
	assert_int_equal(lc_err_prefix(&e, "static %s", "198.18.0.0/24"),
	    -ERANGE);
	assert_string_equal(e.msg,
	    "static 198.18.0.0/24: metric 70000 out of range");
	assert_int_equal(e.index, 3);
	lc_err_clear(&e);
	lc_err_prefix(&e, "only context");
	assert_string_equal(e.msg, "only context");
}

static void
test_truncated(void **state)
{
	struct lc_err e;
	char big[2 * LC_ERR_MSG_MAX];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	lc_err_set(&e, -E2BIG, LC_ERR_NOINDEX, "%s", big);
	assert_int_equal(strlen(e.msg), LC_ERR_MSG_MAX - 1);
	lc_err_prefix(&e, "ctx");
	assert_int_equal(strlen(e.msg), LC_ERR_MSG_MAX - 1);
	assert_memory_equal(e.msg, "ctx: aaa", 8);
}

static void
test_oom(void **state)
{
	int fds[2], st;
	pid_t pid;
	char buf[LC_LOG_LINE_MAX] = "";
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the log line goes to stderr: the pipe */
		signal(SIGABRT, SIG_DFL);
		dup2(fds[1], 2);
		lc_oom("the FIB's hash");
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
	assert_non_null(strstr(buf, "err: out of memory: the FIB's hash"));
}

static void
test_x_alloc(void **state)
{
	char *s;
	int *v;

	(void)state;
	s = lc_xstrdup("tern", "test");
	assert_string_equal(s, "tern");
	v = lc_xcalloc(4, sizeof(*v), "test");
	assert_int_equal(v[3], 0);
	v = lc_xrealloc(v, 8 * sizeof(*v), "test");
	v[7] = 1;
	free(v);
	free(s);
	free(lc_xmalloc(0, "test"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_clear),
	    cmocka_unit_test(test_prefix),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_oom),
	    cmocka_unit_test(test_x_alloc),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
