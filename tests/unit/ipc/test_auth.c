/* tests/unit/ipc/test_auth.c: who may use a server's sockets (issue 24): the
 * sockets' owner, groups and modes (struct ipc_access, the environment),
 * component-only methods refused to another uid (as root: a child that
 * became 65534) with a message, a counter and a log line, the audit log of
 * IPC_M_AUDIT calls, and a client refused by the socket's permissions that
 * fails at once with IPC_DENIED and the reason, never sending the call. */
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
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

#define OTHER 65534 /* the uid and gid a root test's child becomes */

static char base[128], rundir[160];
static struct ev_loop *loop;
static pid_t child;
static unsigned batches, queries, shutdowns;
static char logged[8][512];
static unsigned nlogged;

static void
log_hook(enum lc_log_level lvl, const char *line, void *arg)
{
	(void)lvl;
	(void)arg;
	if (nlogged < 8)
		snprintf(logged[nlogged++], sizeof(logged[0]), "%s", line);
}

static bool
was_logged(const char *what)
{
	for (unsigned i = 0; i < nlogged; i++)
		if (strstr(logged[i], what) != NULL)
			return (true);
	return (false);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/tern-ipc-auth.%d.%ld", (int)getpid(),
	    (long)lc_time_mono_ns());
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	assert_int_equal(mkdir(base, 0755), 0);
	batches = queries = shutdowns = nlogged = 0;
	unsetenv("TERN_OPERATOR_GROUP");
	unsetenv("TERN_ADMIN_GROUP");
	lc_log_set_hook(log_hook, NULL);
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
	lc_log_set_hook(NULL, NULL);
	unsetenv("TERN_OPERATOR_GROUP");
	unsetenv("TERN_ADMIN_GROUP");
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
	return (0);
}

static void
h_batch(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Rib__RouteBatchAck ack = RIB__ROUTE_BATCH_ACK__INIT;

	(void)m;
	(void)arg;
	batches++;
	(void)ipc_reply(req, IPC_OK, &ack.base);
}

static void
h_query(struct ipc_req *req, const ProtobufCMessage *m, void *arg)
{
	Rib__QueryReply rep = RIB__QUERY_REPLY__INIT;

	(void)m;
	(void)arg;
	queries++;
	(void)ipc_reply(req, IPC_OK, &rep.base);
}

static void
on_shutdown(struct ipc_server *s, const char *reason, void *arg)
{
	(void)s;
	(void)reason;
	(void)arg;
	shutdowns++;
}

/* A rib server (ROUTE_BATCH component-only, QUERY not) with access a. */
static struct ipc_server *
server(const struct ipc_service_desc *svc, const struct ipc_access *a)
{
	struct ipc_opts o = {.rundir = rundir, .component = "rib", .access = a};
	struct ipc_server_cbs cbs = {.on_shutdown = on_shutdown};
	struct ipc_server *s = ipc_server_new(loop, svc, &o);

	assert_non_null(s);
	if (svc == &ipc_svc_rib) {
		assert_int_equal(ipc_server_handle(s, RIB__METHOD__ROUTE_BATCH,
				     h_batch, NULL),
		    0);
		assert_int_equal(ipc_server_handle(s, RIB__METHOD__QUERY,
				     h_query, NULL),
		    0);
	}
	ipc_server_set_cbs(s, &cbs);
	return (s);
}

static void
mode_is(const char *path, unsigned mode, gid_t gid)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	if ((sb.st_mode & 0777) != mode)
		fail_msg("%s: mode %o, expected %o", path, sb.st_mode & 0777,
		    mode);
	if (gid != IPC_ID_NONE)
		assert_int_equal(sb.st_gid, gid);
}

/* ---- the socket files -------------------------------------------------------- */

/* No access given, nothing in the environment: both sockets owner-only
 * (they were 0660, open to the process's group, before issue 24). */
static void
test_default_owner_only(void **state)
{
	struct ipc_server *s = server(&ipc_svc_mgmt, NULL);

	(void)state;
	mode_is(ipc_server_path(s, false), 0600, IPC_ID_NONE);
	mode_is(ipc_server_path(s, true), 0600, IPC_ID_NONE);
	ipc_server_free(s);
}

/* A group from struct ipc_access: 0660 with it; as root, another owner. */
static void
test_access_groups(void **state)
{
	gid_t g = geteuid() == 0 ? OTHER : getegid();
	struct ipc_access a = {.owner = geteuid() == 0 ? OTHER : IPC_ID_NONE,
	    .ro_group = g,
	    .rw_group = IPC_ID_NONE,
	    .comp_uid = IPC_ID_NONE};
	struct ipc_server *s = server(&ipc_svc_rib, &a);
	struct stat sb;

	(void)state;
	mode_is(ipc_server_path(s, true), 0660, g);
	mode_is(ipc_server_path(s, false), 0600, IPC_ID_NONE);
	if (geteuid() == 0) {
		assert_int_equal(stat(ipc_server_path(s, false), &sb), 0);
		assert_int_equal(sb.st_uid, OTHER);
	}
	ipc_server_free(s);
}

/* $TERN_OPERATOR_GROUP for every -ro socket, $TERN_ADMIN_GROUP for the
 * front service's (mgmt's) read-write one only; a name that is no group
 * refuses to start. */
static void
test_env_groups(void **state)
{
	gid_t g = geteuid() == 0 ? OTHER : getegid();
	struct ipc_access a;
	struct ipc_server *s;
	char num[32];

	(void)state;
	snprintf(num, sizeof(num), "%u", (unsigned)g);
	setenv("TERN_OPERATOR_GROUP", num, 1);
	setenv("TERN_ADMIN_GROUP", num, 1);
	assert_int_equal(ipc_access_from_env(&ipc_svc_rib, &a), 0);
	assert_int_equal(a.ro_group, g);
	assert_int_equal(a.rw_group, IPC_ID_NONE);
	assert_int_equal(a.owner, IPC_ID_NONE);
	assert_int_equal(a.comp_uid, IPC_ID_NONE);
	s = server(&ipc_svc_rib, NULL);
	mode_is(ipc_server_path(s, true), 0660, g);
	mode_is(ipc_server_path(s, false), 0600, IPC_ID_NONE);
	ipc_server_free(s);
	s = server(&ipc_svc_mgmt, NULL);
	mode_is(ipc_server_path(s, true), 0660, g);
	mode_is(ipc_server_path(s, false), 0660, g);
	ipc_server_free(s);
	/* a group by name */
	{
		struct group *gr = getgrgid(g);

		if (gr != NULL) {
			setenv("TERN_ADMIN_GROUP", gr->gr_name, 1);
			assert_int_equal(ipc_access_from_env(&ipc_svc_mgmt, &a),
			    0);
			assert_int_equal(a.rw_group, g);
		}
	}
	setenv("TERN_ADMIN_GROUP", "no-such-group-tern-test", 1);
	assert_int_equal(ipc_access_from_env(&ipc_svc_mgmt, &a), -EINVAL);
	errno = 0;
	{
		struct ipc_opts o = {.rundir = rundir, .component = "mgmt"};

		assert_null(ipc_server_new(loop, &ipc_svc_mgmt, &o));
		assert_int_equal(errno, EINVAL);
	}
}

/* ---- calls from another user (root only: a child that became OTHER) ----- */

struct ask {
	unsigned method;
	bool raw; /* random bytes as the payload */
	int want;
	const char *want_msg; /* in the error text; NULL: not checked */
	unsigned max_ms;      /* answered within; 0: not checked */
};

struct raw_res {
	bool done;
	int status;
	struct lc_err *err;
};

static void
raw_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct raw_res *r = arg;

	(void)msg;
	r->done = true;
	r->status = status;
	*r->err = *err;
}

/*
 * In a child (as OTHER when root, else as us): the calls of asks[], one
 * client each, exiting 0 when all got what they want; the parent serves
 * meanwhile. Returns the child's exit status. A pipe lets the parent run
 * `between(i)` before call i (to change a socket's mode).
 */
static int
in_child(const struct ipc_service_desc *svc, bool ro, const struct ask *asks,
    unsigned n, void (*between)(unsigned))
{
	int go[2], ready[2], st = -1;
	uint64_t end;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	if ((child = fork()) == 0) {
		struct ipc_opts o = {.rundir = rundir,
		    .component = "rib",
		    .reconnect_ms = 10};
		struct ev_loop *l;
		struct lc_arena *ar;

		close(go[1]);
		close(ready[0]);
		lc_log_set_hook(NULL, NULL);
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) != 0 ||
			setresgid(OTHER, OTHER, OTHER) != 0 ||
			setresuid(OTHER, OTHER, OTHER) != 0))
			_exit(100);
		if ((l = lc_loop_new()) == NULL ||
		    (ar = lc_arena_new(0)) == NULL)
			_exit(101);
		for (unsigned i = 0; i < n; i++) {
			struct ipc_client *c;
			ProtobufCMessage *rep;
			struct lc_err err;
			uint64_t t0;
			unsigned ms;
			char b;
			int s;

			/* the parent did between(i) */
			if (write(ready[1], "r", 1) != 1 ||
			    read(go[0], &b, 1) != 1)
				_exit(102);
			if ((c = ipc_client_new(l, svc, &o, ro)) == NULL)
				_exit(103);
			t0 = lc_time_mono_ns();
			if (asks[i].raw) {
				/* random bytes, as in the issue */
				struct raw_res rr = {.err = &err};
				uint8_t junk[64];

				for (unsigned k = 0; k < sizeof(junk); k++)
					junk[k] = (uint8_t)(k * 37 + 11);
				if (ipc_call_raw(c, asks[i].method, junk,
					sizeof(junk), raw_cb, &rr, 30000) != 0)
					_exit(104);
				while (!rr.done)
					ev_run(l, EVRUN_ONCE);
				s = rr.status;
			} else {
				s = ipc_call_wait(c, asks[i].method, NULL,
				    30000, ar, &rep, &err);
			}
			ms = (unsigned)((lc_time_mono_ns() - t0) / 1000000);
			ipc_client_free(c);
			lc_arena_reset(ar);
			if (s != asks[i].want) {
				fprintf(stderr, "call %u: %s, wanted %s: %s\n",
				    i, ipc_status_str(s),
				    ipc_status_str(asks[i].want), err.msg);
				_exit(10 + (int)i);
			}
			if (asks[i].want_msg != NULL &&
			    strstr(err.msg, asks[i].want_msg) == NULL) {
				fprintf(stderr, "call %u: '%s' not in '%s'\n",
				    i, asks[i].want_msg, err.msg);
				_exit(30 + (int)i);
			}
			if (asks[i].max_ms != 0 && ms > asks[i].max_ms) {
				fprintf(stderr, "call %u: %u ms\n", i, ms);
				_exit(50 + (int)i);
			}
		}
		_exit(0);
	}
	assert_true(child > 0);
	close(go[0]);
	close(ready[1]);
	end = lc_time_mono_ns() + 20 * LC_NS_PER_SEC;
	for (unsigned i = 0; i < n && lc_time_mono_ns() < end;) {
		struct timeval tv = {0, 1000};
		fd_set rf;
		char b;

		ev_run(loop, EVRUN_NOWAIT);
		FD_ZERO(&rf);
		FD_SET(ready[0], &rf);
		if (select(ready[0] + 1, &rf, NULL, NULL, &tv) == 1) {
			if (read(ready[0], &b, 1) != 1)
				break; /* the child is gone */
			if (between != NULL)
				between(i);
			assert_int_equal(write(go[1], "g", 1), 1);
			i++;
		}
	}
	while (lc_time_mono_ns() < end) {
		pid_t w = waitpid(child, &st, WNOHANG);

		if (w == child) {
			child = 0;
			break;
		}
		ev_run(loop, EVRUN_NOWAIT);
		usleep(500);
	}
	close(go[1]);
	close(ready[0]);
	if (child != 0)
		fail_msg("the child's calls did not end within 20 s");
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* Lets OTHER (or anyone) reach the sockets: the method check alone decides. */
static void
open_to_all(struct ipc_server *s)
{
	assert_int_equal(chmod(base, 0755), 0);
	assert_int_equal(chmod(rundir, 0755), 0);
	assert_int_equal(chmod(ipc_server_path(s, false), 0666), 0);
	assert_int_equal(chmod(ipc_server_path(s, true), 0666), 0);
}

/* Issue 24 point 3: a route batch (and lifecycle SHUTDOWN) from a peer that
 * is not a component is refused with a message naming the method and the
 * peer, counted and logged; the handler never runs; queries are served. */
static void
test_component_only(void **state)
{
	struct ipc_server *s;
	struct ipc_stats st;
	const struct ask asks[] = {
	    {RIB__METHOD__ROUTE_BATCH, false, IPC_DENIED,
		"rib: route-batch is for tern's components only", 0},
	    {RIB__METHOD__RESYNC_BEGIN, true, IPC_DENIED,
		"resync-begin is for tern's components only", 0},
	    {IPC_LC(LIFECYCLE__METHOD__SHUTDOWN), false, IPC_DENIED,
		"shutdown is for tern's components only", 0},
	    {RIB__METHOD__QUERY, false, IPC_OK, NULL, 0},
	};
	char want[128];

	(void)state;
	if (geteuid() != 0) {
		print_message("skip: not root, no other user to become\n");
		return;
	}
	s = server(&ipc_svc_rib, NULL);
	open_to_all(s);
	assert_int_equal(in_child(&ipc_svc_rib, false, asks, 4, NULL), 0);
	assert_int_equal(batches, 0);
	assert_int_equal(shutdowns, 0);
	assert_int_equal(queries, 1);
	ipc_server_stats(s, &st);
	assert_int_equal(st.denied, 3);
	snprintf(want, sizeof(want),
	    "rib: route-batch is for tern's components only (they run as uid "
	    "0): refused to uid %d pid",
	    OTHER);
	assert_true(was_logged(want));
	assert_true(was_logged("(says it is 'rib')"));
	ipc_server_free(s);
}

/* The same peer is served once its uid is the component uid (rtrmgr's
 * server: it runs as root, its components as the component user). */
static void
test_component_uid(void **state)
{
	struct ipc_access a = {IPC_ID_NONE, IPC_ID_NONE, IPC_ID_NONE, OTHER};
	struct ipc_server *s;
	const struct ask asks[] = {
	    {RIB__METHOD__ROUTE_BATCH, false, IPC_OK, NULL, 0},
	    {IPC_LC(LIFECYCLE__METHOD__SHUTDOWN), false, IPC_OK, NULL, 0},
	};

	(void)state;
	if (geteuid() != 0) {
		print_message("skip: not root, no other user to become\n");
		return;
	}
	s = server(&ipc_svc_rib, &a);
	open_to_all(s);
	assert_int_equal(in_child(&ipc_svc_rib, false, asks, 2, NULL), 0);
	assert_int_equal(batches, 1);
	assert_int_equal(shutdowns, 1);
	ipc_server_free(s);
}

/* Our own process is a component (the same uid as the server). */
static void
test_component_self(void **state)
{
	struct ipc_server *s = server(&ipc_svc_rib, NULL);
	struct ipc_opts o = {.rundir = rundir, .component = "bgp"};
	struct ipc_client *c = ipc_client_new(loop, &ipc_svc_rib, &o, false);
	struct lc_arena *ar = lc_arena_new(0);
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	ProtobufCMessage *rep;
	struct ipc_stats st;
	struct lc_err err;

	(void)state;
	assert_int_equal(ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH, &b.base,
			     3000, ar, &rep, &err),
	    IPC_OK);
	assert_int_equal(batches, 1);
	ipc_server_stats(s, &st);
	assert_int_equal(st.denied, 0);
	ipc_client_free(c);
	lc_arena_free(ar);
	ipc_server_free(s);
}

/* IPC_M_AUDIT calls are logged with the caller's uid, pid, component and
 * the request's fields. */
static void
test_audit(void **state)
{
	struct ipc_server *s = server(&ipc_svc_rib, NULL);
	struct ipc_opts o = {.rundir = rundir, .component = "mgmt"};
	struct ipc_client *c = ipc_client_new(loop, &ipc_svc_rib, &o, false);
	struct lc_arena *ar = lc_arena_new(0);
	Lifecycle__ShutdownRequest r = LIFECYCLE__SHUTDOWN_REQUEST__INIT;
	ProtobufCMessage *rep;
	struct lc_err err;
	char want[256];

	(void)state;
	r.reason = (char *)"tests \"end\"";
	r.grace_ms = 250;
	assert_int_equal(ipc_call_wait(c, IPC_LC(LIFECYCLE__METHOD__SHUTDOWN),
			     &r.base, 3000, ar, &rep, &err),
	    IPC_OK);
	assert_int_equal(shutdowns, 1);
	snprintf(want, sizeof(want),
	    "notice: rib: shutdown from uid %u pid %d (mgmt) on %s: "
	    "reason=\"tests ?end?\" grace_ms=250",
	    (unsigned)geteuid(), (int)getpid(), ipc_server_path(s, false));
	if (!was_logged(want))
		fail_msg("not logged: %s (first line: %s)", want, logged[0]);
	/* a route batch is not audited: the bulk of routes is not logged */
	nlogged = 0;
	{
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;

		assert_int_equal(ipc_call_wait(c, RIB__METHOD__ROUTE_BATCH,
				     &b.base, 3000, ar, &rep, &err),
		    IPC_OK);
	}
	assert_int_equal(nlogged, 0);
	ipc_client_free(c);
	lc_arena_free(ar);
	ipc_server_free(s);
}

/* ---- a client refused by the socket's mode (point 7) --------------------- */

static struct ipc_server *denied_srv;

static void
deny_then_allow(unsigned i)
{
	/* call 0 and 1: no permission; call 2: allowed */
	assert_int_equal(chmod(ipc_server_path(denied_srv, true),
			     i < 2 ? 0000 : 0666),
	    0);
}

/*
 * connect() refused (EACCES): the call fails at once with IPC_DENIED and
 * the socket's path and mode in the message, not after its 30 s deadline
 * with TIMEOUT; it is never sent, not even once the socket opens (the
 * server's handler runs for the third call only). As root in a child that
 * became OTHER (root passes any mode), else in a child of our own uid.
 */
static void
test_client_denied(void **state)
{
	char msg[300];
	const struct ask asks[] = {
	    {RIB__METHOD__QUERY, false, IPC_DENIED, msg, 1000},
	    {RIB__METHOD__QUERY, false, IPC_DENIED, "permission denied", 1000},
	    {RIB__METHOD__QUERY, false, IPC_OK, NULL, 0},
	};

	(void)state;
	denied_srv = server(&ipc_svc_rib, NULL);
	assert_int_equal(chmod(base, 0755), 0);
	assert_int_equal(chmod(rundir, 0755), 0);
	snprintf(msg, sizeof(msg), "%s: permission denied: only its owner ",
	    ipc_server_path(denied_srv, true));
	assert_int_equal(in_child(&ipc_svc_rib, true, asks, 3, deny_then_allow),
	    0);
	assert_int_equal(queries, 1);
	ipc_server_free(denied_srv);
}

/* The explanation names the group a group socket needs, or the directory
 * that may not be entered (root enters any: only the first as root). */
static void
test_explain(void **state)
{
	struct ipc_server *s = server(&ipc_svc_rib, NULL);
	char buf[512], want[256];
	struct group *gr = getgrgid(getegid());

	(void)state;
	assert_int_equal(chmod(ipc_server_path(s, true), 0660), 0);
	ipc_access_explain(ipc_server_path(s, true), buf, sizeof(buf));
	snprintf(want, sizeof(want),
	    "%s: permission denied: for the members of group %s (srw-rw---- ",
	    ipc_server_path(s, true), gr != NULL ? gr->gr_name : "?");
	if (strstr(buf, want) == NULL)
		fail_msg("'%s' not in '%s'", want, buf);
	if (geteuid() != 0) {
		assert_int_equal(chmod(rundir, 0600), 0);
		ipc_access_explain(ipc_server_path(s, true), buf, sizeof(buf));
		snprintf(want, sizeof(want), "may not enter %s (drw-------",
		    rundir);
		if (strstr(buf, want) == NULL)
			fail_msg("'%s' not in '%s'", want, buf);
		assert_int_equal(chmod(rundir, 0750), 0);
	}
	ipc_server_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_default_owner_only, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_access_groups, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_env_groups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_component_only, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_component_uid, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_component_self, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_denied, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_explain, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
