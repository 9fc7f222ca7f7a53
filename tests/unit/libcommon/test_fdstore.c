/* tests/unit/libcommon/test_fdstore.c: the fd store's records (every form
 * and every refusal), their transport with and without an fd, and the
 * component's client against a store played by the test. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_fdstore.h"

static int
parse(const char *m, enum lc_fdstore_op *op, char *name, unsigned *n,
    struct lc_err *err)
{
	return (lc_fdstore_parse(m, strlen(m), op, name, n, err));
}

static void
test_parse_ok(void **state)
{
	char name[LC_FDSTORE_NAME_MAX];
	enum lc_fdstore_op op;
	struct lc_err err;
	unsigned n;

	(void)state;
	assert_int_equal(parse("put fib.tbl24", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_PUT);
	assert_string_equal(name, "fib.tbl24");
	assert_int_equal(parse("del A-b_9", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_DEL);
	assert_string_equal(name, "A-b_9");
	assert_int_equal(parse("clear", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_CLEAR);
	assert_int_equal(parse("fd x", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_FD);
	assert_int_equal(parse("end 64", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_END);
	assert_int_equal(n, 64);
	assert_int_equal(parse("end 0", &op, name, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse("ok", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_OK);
	assert_int_equal(parse("err full\x01", &op, name, &n, &err), 0);
	assert_int_equal(op, LC_FDS_ERR);
	assert_string_equal(name, "full?"); /* printable only */
	/* a name of 63 characters is the longest */
	{
		char m[80];

		memset(m, 'n', sizeof(m));
		memcpy(m, "put ", 4);
		m[4 + 63] = '\0';
		assert_int_equal(parse(m, &op, name, &n, &err), 0);
		assert_int_equal(strlen(name), 63);
		m[4 + 63] = 'n';
		m[4 + 64] = '\0';
		assert_int_equal(parse(m, &op, name, &n, &err), -EINVAL);
		assert_string_equal(err.msg, "name longer than 63 characters");
	}
}

static void
test_parse_refused(void **state)
{
	static const struct {
		const char *m, *why;
	} bad[] = {
	    {"", "unknown record ''"},
	    {"bogus x", "unknown record 'bogus'"},
	    {"PUT a", "unknown record 'PUT'"},
	    {"put", "put without a name"},
	    {"put ", "no name"},
	    {"put a b", "bad name (only A-Z a-z 0-9 . _ -)"},
	    {"put a/b", "bad name (only A-Z a-z 0-9 . _ -)"},
	    {"del", "del without a name"},
	    {"clear x", "clear takes nothing after it"},
	    {"ok x", "ok takes nothing after it"},
	    {"end", "end without a count"},
	    {"end ", "end without a count"},
	    {"end 1x", "end with a bad count"},
	    {"end 65", "end count 65 over 64"},
	    {"end 1000", "end with a bad count"},
	};
	char name[LC_FDSTORE_NAME_MAX];
	enum lc_fdstore_op op;
	struct lc_err err;
	unsigned n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].m, &op, name, &n, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].why);
		assert_string_equal(name, "");
	}
	{
		char m[200];

		memset(m, 'a', sizeof(m));
		assert_int_equal(lc_fdstore_parse(m, sizeof(m), &op, name, &n,
				     &err),
		    -EINVAL);
		assert_string_equal(err.msg,
		    "record of 200 bytes (at most 128)");
	}
	assert_false(lc_fdstore_name_ok(""));
	assert_true(lc_fdstore_name_ok("a.b-c_D9"));
}

/* The same file on both ends: st_ino and st_dev. */
static bool
same_file(int a, int b)
{
	struct stat sa, sb;

	return (fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	    sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev);
}

static void
test_transport(void **state)
{
	char buf[LC_FDSTORE_MSG_MAX + 1];
	int sv[2], mfd, fd;
	bool extra;
	ssize_t n;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	mfd = memfd_create("t", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	assert_int_equal(lc_fdstore_send(sv[0], "put m", mfd), 0);
	assert_int_equal(lc_fdstore_send(sv[0], "clear", -1), 0);
	n = lc_fdstore_recv(sv[1], buf, sizeof(buf), &fd, &extra);
	assert_int_equal(n, 5);
	assert_memory_equal(buf, "put m", 5);
	assert_false(extra);
	assert_true(fd >= 0 && fd != mfd && same_file(fd, mfd));
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	n = lc_fdstore_recv(sv[1], buf, sizeof(buf), &fd, &extra);
	assert_int_equal(n, 5);
	assert_int_equal(fd, -1);
	/* too long to send; the peer gone: EOF */
	{
		char m[200];

		memset(m, 'a', sizeof(m) - 1);
		m[sizeof(m) - 1] = '\0';
		assert_int_equal(lc_fdstore_send(sv[0], m, -1), -EMSGSIZE);
		assert_int_equal(lc_fdstore_send(sv[0], "", -1), -EMSGSIZE);
	}
	close(sv[0]);
	assert_int_equal(lc_fdstore_recv(sv[1], buf, sizeof(buf), &fd, &extra),
	    0);
	close(sv[1]);
	close(mfd);
}

/* Plays the store: hands two fds, then answers ok, err, and a bad record. */
static void
store_child(int s, int f1, int f2)
{
	char buf[LC_FDSTORE_MSG_MAX + 1];
	bool extra;
	int fd;

	if (lc_fdstore_send(s, "fd one", f1) != 0 ||
	    lc_fdstore_send(s, "fd two", f2) != 0 ||
	    lc_fdstore_send(s, "end 2", -1) != 0)
		_exit(1);
	/* put -> ok (and the fd it carried must be the memfd) */
	if (lc_fdstore_recv(s, buf, sizeof(buf), &fd, &extra) != 9 ||
	    memcmp(buf, "put three", 9) != 0 || fd < 0 || extra)
		_exit(2);
	close(fd);
	lc_fdstore_send(s, "ok", -1);
	/* del -> err */
	if (lc_fdstore_recv(s, buf, sizeof(buf), &fd, &extra) != 7 ||
	    memcmp(buf, "del one", 7) != 0 || fd >= 0)
		_exit(3);
	lc_fdstore_send(s, "err no one", -1);
	/* clear -> nonsense */
	if (lc_fdstore_recv(s, buf, sizeof(buf), &fd, &extra) != 5)
		_exit(4);
	lc_fdstore_send(s, "end 3", -1);
	_exit(0);
}

static void
test_client(void **state)
{
	struct lc_fdstore s;
	struct lc_err err;
	int sv[2], f1, f2, st, fd;
	char env[32];
	pid_t pid;

	(void)state;
	/* not run with a store */
	unsetenv(LC_FDSTORE_ENV);
	assert_int_equal(lc_fdstore_open(&s, 100, &err), -ENOENT);
	assert_int_equal(s.sock, -1);
	assert_int_equal(lc_fdstore_put(&s, "a", 0, &err), -ENOTCONN);
	setenv(LC_FDSTORE_ENV, "0", 1); /* stdin: not the store's */
	assert_int_equal(lc_fdstore_open(&s, 100, &err), -ENOTSOCK);
	setenv(LC_FDSTORE_ENV, "x3", 1);
	assert_int_equal(lc_fdstore_open(&s, 100, &err), -EINVAL);
	assert_string_equal(err.msg, "TERN_STATE_FD=x3: not an fd");

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	f1 = memfd_create("one", 0);
	f2 = memfd_create("two", 0);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		store_child(sv[1], f1, f2);
	}
	close(sv[1]);
	snprintf(env, sizeof(env), "%d", sv[0]);
	setenv(LC_FDSTORE_ENV, env, 1);
	assert_int_equal(lc_fdstore_open(&s, 2000, &err), 0);
	assert_int_equal(s.n, 2);
	fd = lc_fdstore_take(&s, "two");
	assert_true(fd >= 0 && same_file(fd, f2));
	assert_int_equal(lc_fdstore_take(&s, "two"), -ENOENT);
	assert_int_equal(lc_fdstore_take(&s, "three"), -ENOENT);
	assert_int_equal(lc_fdstore_put(&s, "three", fd, &err), 0);
	assert_int_equal(lc_fdstore_del(&s, "one", &err), -EREMOTEIO);
	assert_string_equal(err.msg, "the store refused: no one");
	assert_int_equal(lc_fdstore_clear(&s, &err), -EPROTO);
	assert_int_equal(lc_fdstore_put(&s, "bad/name", fd, &err), -EINVAL);
	close(fd);
	lc_fdstore_close(&s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(f1);
	close(f2);
	unsetenv(LC_FDSTORE_ENV);
}

/* A store that says more fds than it sent, or nothing at all. */
static void
test_client_refuses(void **state)
{
	struct lc_fdstore s;
	struct lc_err err;
	int sv[2];
	char env[32];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	snprintf(env, sizeof(env), "%d", sv[0]);
	setenv(LC_FDSTORE_ENV, env, 1);
	lc_fdstore_send(sv[1], "end 1", -1);
	assert_int_equal(lc_fdstore_open(&s, 500, &err), -EPROTO);
	assert_string_equal(err.msg, "the store said 1 fds, sent 0");
	lc_fdstore_send(sv[1], "fd x", -1); /* an fd record without one */
	assert_int_equal(lc_fdstore_open(&s, 500, &err), -EPROTO);
	assert_int_equal(lc_fdstore_open(&s, 100, &err), -ETIMEDOUT);
	assert_string_equal(err.msg,
	    "the store sent no end of its fds: Connection timed out");
	close(sv[1]);
	assert_int_equal(lc_fdstore_open(&s, 100, &err), -ECONNRESET);
	close(sv[0]);
	unsetenv(LC_FDSTORE_ENV);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ok),
	    cmocka_unit_test(test_parse_refused),
	    cmocka_unit_test(test_transport),
	    cmocka_unit_test(test_client),
	    cmocka_unit_test(test_client_refuses),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
