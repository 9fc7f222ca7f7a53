/* tests/unit/ipc/test_cred.c: ipc_peer_cred(), the kernel's word on who a
 * server's peer is (SO_PEERCRED at accept), for this process and, as root,
 * for a child that became another user before it connected. */
#include <errno.h>
#include <grp.h>
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

#include "ipc/ipc.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

static char base[128], rundir[160];
static struct ev_loop *loop;
static pid_t child;

/* what the handler saw of its caller */
static struct {
	unsigned calls;
	int rv;
	struct ipc_cred cred;
	char claimed[64];
} seen;

static int
setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/tern-ipc-cred.%d.%ld", (int)getpid(),
	    (long)lc_time_mono_ns());
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	assert_int_equal(mkdir(base, 0755), 0);
	memset(&seen, 0, sizeof(seen));
	loop = lc_loop_new();
	return (loop == NULL);
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		(void)waitpid(child, NULL, 0);
		child = 0;
	}
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
	return (0);
}

static void
h_open(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Mgmt__SessionOpen *o = (const Mgmt__SessionOpen *)msg;
	Mgmt__Reply r = MGMT__REPLY__INIT;

	(void)arg;
	seen.calls++;
	seen.rv = ipc_peer_cred(ipc_req_peer(req), &seen.cred);
	snprintf(seen.claimed, sizeof(seen.claimed), "%s",
	    o->user != NULL ? o->user : "");
	r.text = (char *)"";
	r.error = (char *)"";
	r.prompt = (char *)"";
	(void)ipc_reply(req, IPC_OK, &r.base);
}

static struct ipc_server *
server(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "mgmt"};
	struct ipc_server *s = ipc_server_new(loop, &ipc_svc_mgmt, &o);

	assert_non_null(s);
	assert_int_equal(ipc_server_handle(s, MGMT__METHOD__SESSION_OPEN,
			     h_open, NULL),
	    0);
	return (s);
}

static void
run_until_seen(unsigned calls)
{
	uint64_t end = lc_time_mono_ns() + 5000000000ull;

	while (seen.calls < calls && lc_time_mono_ns() < end) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(500);
	}
	assert_int_equal(seen.calls, calls);
}

/* SESSION_OPEN from a new client on loop l, claiming to be user: the status */
static int
call_open(struct ev_loop *l, const char *user)
{
	struct ipc_opts o = {.rundir = rundir, .component = "ternsh"};
	struct ipc_client *c = ipc_client_new(l, &ipc_svc_mgmt, &o, false);
	struct lc_arena *a = lc_arena_new(0);
	Mgmt__SessionOpen req = MGMT__SESSION_OPEN__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st;

	req.user = (char *)user;
	st = ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &req.base, 3000, a,
	    &rep, &err);
	ipc_client_free(c);
	lc_arena_free(a);
	return (st);
}

/* A client in this process: the credentials are ours, whatever it claims. */
static void
test_own_cred(void **state)
{
	struct ipc_server *s = server();
	struct ipc_opts o = {.rundir = rundir, .component = "ternsh"};
	struct ipc_client *c = ipc_client_new(loop, &ipc_svc_mgmt, &o, false);
	struct lc_arena *a = lc_arena_new(0);
	Mgmt__SessionOpen req = MGMT__SESSION_OPEN__INIT;
	ProtobufCMessage *rep = NULL;
	struct lc_err err;

	(void)state;
	req.user = (char *)"somebody-else";
	assert_int_equal(ipc_call_wait(c, MGMT__METHOD__SESSION_OPEN, &req.base,
			     3000, a, &rep, &err),
	    IPC_OK);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.rv, 0);
	assert_int_equal(seen.cred.pid, getpid());
	assert_int_equal(seen.cred.uid, geteuid());
	assert_int_equal(seen.cred.gid, getegid());
	assert_string_equal(seen.claimed, "somebody-else");
	ipc_client_free(c);
	lc_arena_free(a);
	ipc_server_free(s);
}

/* As root: a child that became uid/gid 65534 before it connected is seen as
 * 65534 with its own pid, though it says it is root. */
static void
test_other_user(void **state)
{
	struct ipc_server *s;
	int st;

	(void)state;
	if (geteuid() != 0) {
		print_message("skip: not root, no other user to become\n");
		return;
	}
	s = server();
	/* let the other user reach the socket */
	assert_int_equal(chmod(rundir, 0755), 0);
	assert_int_equal(chmod(ipc_server_path(s, false), 0666), 0);
	if ((child = fork()) == 0) {
		struct ev_loop *l;

		if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(10);
		if ((l = lc_loop_new()) == NULL)
			_exit(11);
		_exit(call_open(l, "root") == IPC_OK ? 0 : 12);
	}
	assert_true(child > 0);
	run_until_seen(1);
	assert_int_equal(seen.rv, 0);
	assert_int_equal(seen.cred.uid, 65534);
	assert_int_equal(seen.cred.gid, 65534);
	assert_int_equal(seen.cred.pid, child);
	assert_string_equal(seen.claimed, "root");
	/* its reply goes out at the end of the loop turn */
	{
		uint64_t end = lc_time_mono_ns() + 5000000000ull;
		pid_t w = 0;

		while ((w = waitpid(child, &st, WNOHANG)) == 0 &&
		    lc_time_mono_ns() < end) {
			ev_run(loop, EVRUN_NOWAIT);
			usleep(500);
		}
		assert_int_equal(w, child);
	}
	child = 0;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	ipc_server_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_own_cred, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_user, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
