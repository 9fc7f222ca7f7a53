/* tests/unit/mgmt/test_cli.c: the command line's rough edges (issue 23): completion from live data with placeholders as help only, unique prefixes, misplaced pipes, the answers for what does not exist, tables for the shell's filters; against test servers playing tern-fwd, tern-rib and tern-rtrmgr. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_int.h"

static struct ipc_server *sfwd, *srib, *srtm;
static struct ev_loop *loop;
static char tmpdir[64], rundir[128], store[128];
static unsigned if_queries, rtm_lists;

/* ---- the fakes ---------------------------------------------------------------- */

static void
h_if_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	Fwd__IfConfigAck a = FWD__IF_CONFIG_ACK__INIT;

	(void)arg;
	a.txn = ((const Fwd__IfConfigBatch *)msg)->txn;
	a.ok = true;
	a.error = (char *)"";
	ipc_reply(req, IPC_OK, &a.base);
}

static void
h_set_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	Fwd__IfConfigAck a = FWD__IF_CONFIG_ACK__INIT;

	(void)arg;
	a.txn = ((const Fwd__FwdConfig *)msg)->txn;
	a.ok = true;
	a.error = (char *)"";
	ipc_reply(req, IPC_OK, &a.base);
}

/* rc0, the device of eth0 */
static void
h_query_interfaces(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Fwd__InterfaceQuery *q = (const Fwd__InterfaceQuery *)msg;
	Fwd__InterfaceList l = FWD__INTERFACE_LIST__INIT;
	Fwd__Interface f = FWD__INTERFACE__INIT, *v = &f;

	(void)arg;
	if_queries++;
	f.name = "rc0";
	f.ifindex = 3;
	f.link = FWD__LINK_STATE__LINK_UP;
	f.enabled = true;
	f.mtu = 1500;
	f.backend = "afpacket";
	if (q->name[0] == '\0' || strcmp(q->name, "rc0") == 0) {
		l.interfaces = &v;
		l.n_interfaces = 1;
	}
	ipc_reply(req, IPC_OK, &l.base);
}

/* 198.18.1.0/24 (attached) and 198.19.0.0/16 via 198.18.1.2, of 2 */
static void
h_query_fib(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Fwd__FibQuery *q = (const Fwd__FibQuery *)msg;
	static uint32_t ifx = 3, attached = 0, gw = 0x020112c6;
	Fwd__FibList l = FWD__FIB_LIST__INIT;
	Fwd__FibRoute r[2] = {FWD__FIB_ROUTE__INIT, FWD__FIB_ROUTE__INIT};
	Fwd__FibRoute *v[2];

	(void)arg;
	r[0].prefix = htonl(0xc6120100);
	r[0].len = 24;
	r[0].n_nh_addr = r[0].n_nh_ifindex = 1;
	r[0].nh_addr = &attached;
	r[0].nh_ifindex = &ifx;
	r[1].prefix = htonl(0xc6130000);
	r[1].len = 16;
	r[1].n_nh_addr = r[1].n_nh_ifindex = 1;
	r[1].nh_addr = &gw;
	r[1].nh_ifindex = &ifx;
	l.total = 2;
	l.routes = v;
	for (unsigned i = 0; i < 2; i++)
		if ((!q->exact && !q->use_lookup) ||
		    (q->exact && q->prefix == r[i].prefix &&
			q->len == r[i].len))
			v[l.n_routes++] = &r[i];
	ipc_reply(req, IPC_OK, &l.base);
}

static void
h_route_batch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Rib__RouteBatch *b = (const Rib__RouteBatch *)msg;
	Rib__RouteBatchAck a = RIB__ROUTE_BATCH_ACK__INIT;

	(void)arg;
	a.seq = b->seq;
	a.accepted = (uint32_t)ipc_route_batch_count(b);
	ipc_reply(req, IPC_OK, &a.base);
}

static void
h_resync(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	Rib__RouteBatchAck a = RIB__ROUTE_BATCH_ACK__INIT;

	(void)msg;
	(void)arg;
	ipc_reply(req, IPC_OK, &a.base);
}

/* two routes; the second with two next hops (an ECMP route takes two
 * lines, the second starting with blanks) */
static void
h_query_routes(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	static uint32_t ifx[2] = {3, 3}, gw[2] = {0x020112c6, 0x030112c6};
	Rib__QueryReply r = RIB__QUERY_REPLY__INIT;
	Rib__RouteEntry e[2] = {RIB__ROUTE_ENTRY__INIT, RIB__ROUTE_ENTRY__INIT};
	Rib__RouteEntry *v[2] = {&e[0], &e[1]};
	Rib__Route rt[2] = {RIB__ROUTE__INIT, RIB__ROUTE__INIT};

	(void)msg;
	(void)arg;
	rt[0].prefix = htonl(0xc6120100);
	rt[0].len = 24;
	rt[0].n_nh_ifindex = 1;
	rt[0].nh_ifindex = ifx;
	e[0].source = RIB__SOURCE__CONNECTED;
	rt[1].prefix = htonl(0xc6130000);
	rt[1].len = 16;
	rt[1].distance = 1;
	rt[1].n_nh_addr = rt[1].n_nh_ifindex = 2;
	rt[1].nh_addr = gw;
	rt[1].nh_ifindex = ifx;
	e[1].source = RIB__SOURCE__STATIC;
	for (unsigned i = 0; i < 2; i++) {
		e[i].route = &rt[i];
		e[i].best = e[i].active = true;
	}
	r.routes = v;
	r.n_routes = 2;
	r.total = 2;
	ipc_reply(req, IPC_OK, &r.base);
}

/* rtrmgr's components */
static void
h_list(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	static char *names[] = {"mgmt", "rib", "fwd", "bgp"};
	Rtrmgr__ComponentList l = RTRMGR__COMPONENT_LIST__INIT;
	Rtrmgr__Component c[4], *v[4];

	(void)msg;
	(void)arg;
	rtm_lists++;
	for (unsigned i = 0; i < 4; i++) {
		rtrmgr__component__init(&c[i]);
		c[i].name = names[i];
		c[i].state = RTRMGR__STATE__RUNNING;
		v[i] = &c[i];
	}
	l.components = v;
	l.n_components = 4;
	ipc_reply(req, IPC_OK, &l.base);
}

static void
start_fakes(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "fake"};

	assert_non_null(sfwd = ipc_server_new(loop, &ipc_svc_fwd, &o));
	ipc_server_handle(sfwd, FWD__METHOD__IF_CONFIG, h_if_config, NULL);
	ipc_server_handle(sfwd, FWD__METHOD__SET_CONFIG, h_set_config, NULL);
	ipc_server_handle(sfwd, FWD__METHOD__QUERY_INTERFACES,
	    h_query_interfaces, NULL);
	ipc_server_handle(sfwd, FWD__METHOD__QUERY_FIB, h_query_fib, NULL);
	assert_non_null(srib = ipc_server_new(loop, &ipc_svc_rib, &o));
	ipc_server_handle(srib, RIB__METHOD__ROUTE_BATCH, h_route_batch, NULL);
	ipc_server_handle(srib, RIB__METHOD__RESYNC_BEGIN, h_resync, NULL);
	ipc_server_handle(srib, RIB__METHOD__RESYNC_END, h_resync, NULL);
	ipc_server_handle(srib, RIB__METHOD__SET_CONFIG, h_resync, NULL);
	ipc_server_handle(srib, RIB__METHOD__QUERY, h_query_routes, NULL);
	assert_non_null(srtm = ipc_server_new(loop, &ipc_svc_rtrmgr, &o));
	ipc_server_handle(srtm, RTRMGR__METHOD__LIST, h_list, NULL);
}

/* ---- driving mgmt ------------------------------------------------------------- */

static bool
run_until_connected(struct mgmt *m)
{
	uint64_t end = lc_time_mono_ns() + 5ull * 1000000000ull;

	while (lc_time_mono_ns() < end) {
		if (ipc_client_connected(mgmt_peer_client(m, MGMT_PEER_FWD)) &&
		    ipc_client_connected(mgmt_peer_client(m, MGMT_PEER_RIB)) &&
		    m->ncomps == 4)
			return (true);
		ev_run(loop, EVRUN_NOWAIT);
		usleep(200);
	}
	return (false);
}

struct answer {
	bool done;
	int code;
	char text[2048], err[512];
};

static void
later(void *arg, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const struct lc_err *err)
{
	struct answer *a = arg;

	(void)m;
	(void)s;
	a->done = true;
	a->code = code;
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(a->err, sizeof(a->err), "%s", err->msg);
}

static int
run(struct mgmt *m, struct mgmt_session *s, const char *line, struct answer *a)
{
	struct lc_buf out;
	struct lc_err err;
	uint64_t end = lc_time_mono_ns() + 5ull * 1000000000ull;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec(m, s, line, false, &out, &err, later, a);
	if (code == MGMT_PENDING) {
		while (!a->done && lc_time_mono_ns() < end) {
			ev_run(loop, EVRUN_NOWAIT);
			usleep(200);
		}
		assert_true(a->done);
		code = a->code;
	} else {
		snprintf(a->err, sizeof(a->err), "%s", err.msg);
		snprintf(a->text, sizeof(a->text), "%s",
		    out.len ? (char *)lc_buf_head(&out) : "");
	}
	lc_buf_fini(&out);
	return (code);
}

/* The candidates of line, joined by blanks; a placeholder in braces. */
static const char *
complete(struct mgmt *m, struct mgmt_session *s, const char *line)
{
	static char buf[2048];
	struct mgmt_cand c[64];
	int n = mgmt_cmd_complete(m, s, line, strlen(line), c, 64);

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "%s%s%s%s", i ? " " : "", c[i].hint ? "{" : "", c[i].word,
		    c[i].hint ? "}" : "");
	return (buf);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tern-cli.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(rundir, sizeof(rundir), "%s/run", tmpdir);
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	assert_non_null(loop = lc_loop_new());
	lc_log_init("test_cli", LC_LOG_WARNING, LC_LOG_STDERR);
	if_queries = rtm_lists = 0;
	start_fakes();
	return (0);
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	ipc_server_free(sfwd);
	ipc_server_free(srib);
	ipc_server_free(srtm);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
	return (0);
}

static struct mgmt *
boot(void)
{
	static char path[256];
	struct mgmt_opts o = {.rundir = rundir,
	    .store_dir = store,
	    .boot_config = path};
	struct mgmt *m;
	FILE *f;

	snprintf(path, sizeof(path), "%s/boot.conf", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	fputs("interfaces {\n"
	      "    eth0 { device rc0; address 198.18.1.1/24; }\n"
	      "    lo1 { device lo1; address 198.18.9.1/24; }\n"
	      "}\n"
	      "protocols { static {\n"
	      "    route 198.19.0.0/16 next-hop 198.18.1.2;\n"
	      "    route 198.20.0.0/16 blackhole;\n"
	      "} }\n",
	    f);
	fclose(f);
	assert_non_null(m = mgmt_new(loop, &o));
	assert_true(run_until_connected(m));
	return (m);
}

/* ---- tests -------------------------------------------------------------------- */

/*
 * Values complete from live data, and a command's placeholder is help, not
 * a word to insert (issue 23: `show interfaces <Tab>` inserted "[NAME]",
 * `restart <Tab>` "COMPONENT", `... interface <Tab>` "<name>").
 */
static void
test_complete_live(void **state)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;

	(void)state;
	m = boot();
	s = mgmt_session_open(m, "tester", false);
	/* the configured interfaces, the placeholder as a hint */
	assert_string_equal(complete(m, s, "show interfaces "),
	    "eth0 lo1 {[NAME] [inet | inet6]}");
	assert_string_equal(complete(m, s, "show interfaces e"), "eth0");
	assert_string_equal(complete(m, s, "show interfaces x"), "");
	/* tern-rtrmgr's components (listed when it connected) */
	assert_string_equal(complete(m, s, "restart "),
	    "mgmt rib fwd bgp {COMPONENT}");
	assert_string_equal(complete(m, s, "stop r"), "rib");
	assert_string_equal(complete(m, s, "start b"), "bgp");
	/* the configured prefixes: subnets and static routes */
	assert_string_equal(complete(m, s, "show fib "),
	    "198.18.1.0/24 198.18.9.0/24 198.19.0.0/16 198.20.0.0/16 "
	    "{[PREFIX | ADDRESS] [inet | inet6]}");
	assert_string_equal(complete(m, s, "show fib 198.19"), "198.19.0.0/16");
	assert_string_equal(complete(m, s, "show route 198.2"),
	    "198.20.0.0/16");
	assert_string_equal(complete(m, s, "show route s"), "summary source");
	assert_string_equal(complete(m, s, "show route 198.19.0.0/16 "),
	    "longer active source");
	assert_string_equal(complete(m, s, "show route source "),
	    "connected static bgp");
	/* a placeholder alone where nothing is known */
	assert_string_equal(complete(m, s, "show route summary "), "");
	/* configuration paths: the keys there are, the placeholder as a
	 * hint; a reference (a route's interface) from the candidate */
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_string_equal(complete(m, s, "set interfaces "),
	    "eth0 lo1 {<name>}");
	assert_string_equal(complete(m, s,
				"set protocols static route 198.21.0.0/16 "
				"interface "),
	    "eth0 lo1 {<name>}");
	assert_string_equal(complete(m, s,
				"set protocols static route 198.21.0.0/16 "
				"interface l"),
	    "lo1 {<name>}");
	assert_int_equal(run(m, s, "set interfaces eth2 device rc2", &a),
	    MGMT_OK);
	assert_string_equal(complete(m, s,
				"set protocols static route 198.21.0.0/16 "
				"interface "),
	    "eth0 eth2 lo1 {<name>}");
	assert_string_equal(complete(m, s, "set rib ecmp-width "), "{<1..64>}");
	/* run: the operational command's values */
	assert_string_equal(complete(m, s, "run restart f"), "fwd");
	assert_int_equal(run(m, s, "exit discard", &a), MGMT_OK);
	/* each completion of a component asked rtrmgr again, for the next
	 * time */
	for (unsigned i = 0; i < 100 && rtm_lists < 2; i++) {
		ev_run(loop, EVRUN_NOWAIT);
		usleep(1000);
	}
	assert_true(rtm_lists >= 2);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* Unique prefixes of command words, ambiguous ones named (issue 23). */
static void
test_prefixes(void **state)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;

	(void)state;
	m = boot();
	s = mgmt_session_open(m, "tester", false);
	assert_int_equal(run(m, s, "sh ver", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "tern "));
	assert_int_equal(run(m, s, "sh ro", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "198.19.0.0/16"));
	assert_int_equal(run(m, s, "sh f 198.19.0.0/16", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "198.19.0.0/16"));
	assert_int_equal(run(m, s, "sh i", &a), MGMT_E_UNKNOWN_COMMAND);
	assert_string_equal(a.err,
	    "ambiguous command 'show i': 'i' may be interfaces, ipc");
	assert_int_equal(run(m, s, "s version", &a), MGMT_E_UNKNOWN_COMMAND);
	assert_string_equal(a.err,
	    "ambiguous command 's': 's' may be show, stop, start");
	assert_int_equal(run(m, s, "sh nothing", &a), MGMT_E_UNKNOWN_COMMAND);
	assert_non_null(strstr(a.err, "after 'show' expected one of"));
	/* the arguments are not commands: no prefix there */
	assert_int_equal(run(m, s, "sh ro summ", &a), MGMT_E_SYNTAX);
	/* completion after prefixes */
	assert_string_equal(complete(m, s, "sh int "),
	    "eth0 lo1 {[NAME] [inet | inet6]}");
	assert_string_equal(complete(m, s, "sh b r"), "route");
	/* configuration mode: after show a word is a path first */
	assert_int_equal(run(m, s, "con", &a), MGMT_OK);
	assert_int_equal(run(m, s, "sh prot", &a), MGMT_E_INVALID);
	assert_int_equal(run(m, s, "sh protocols", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "198.19.0.0/16"));
	assert_int_equal(run(m, s, "ru sh ro", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "Prefix"));
	assert_int_equal(run(m, s, "ex", &a), MGMT_OK);
	assert_false(s->configure);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/*
 * What is not there is said so, by name; a pipe of show configuration on
 * another command is refused; completion after a '|' offers the stages
 * (issue 23).
 */
static void
test_not_found_and_pipes(void **state)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	unsigned q;

	(void)state;
	m = boot();
	s = mgmt_session_open(m, "tester", false);
	/* an interface that is not configured: fwd is not asked */
	q = if_queries;
	assert_int_equal(run(m, s, "show interfaces eth9", &a),
	    MGMT_E_NOT_FOUND);
	assert_int_equal(if_queries, q);
	assert_string_equal(a.err,
	    "show interfaces: no interface eth9 (configured: eth0, lo1)");
	assert_int_equal(run(m, s, "show interfaces eth0", &a), MGMT_OK);
	assert_non_null(strstr(a.text, "eth0 (device rc0, ifindex 3)"));
	/* configured, but fwd does not have it */
	assert_int_equal(run(m, s, "show interfaces lo1", &a),
	    MGMT_E_NOT_FOUND);
	assert_string_equal(a.err,
	    "show interfaces lo1: tern-fwd has no interface lo1 (not applied "
	    "yet?)");
	/* a prefix the FIB does not have: no header, no count */
	assert_int_equal(run(m, s, "show fib 198.51.100.0/24", &a),
	    MGMT_E_NOT_FOUND);
	assert_string_equal(a.err,
	    "show fib 198.51.100.0/24: no such route in the FIB (2 routes)");
	assert_string_equal(a.text, "");
	assert_int_equal(run(m, s, "show fib 198.51.100.1", &a),
	    MGMT_E_NOT_FOUND);
	assert_string_equal(a.err,
	    "show fib 198.51.100.1: no route to this address in the FIB (2 "
	    "routes)");
	/* one that is there: its route, no count of the whole FIB */
	assert_int_equal(run(m, s, "show fib 198.19.0.0/16", &a), MGMT_OK);
	assert_string_equal(a.text,
	    "Prefix              Next hop         Ifindex\n"
	    "198.19.0.0/16       198.18.1.2       3\n");
	/* | display set belongs to show configuration */
	assert_int_equal(run(m, s, "show route | display set", &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "'| display set' is for show configuration (and show in "
	    "configuration mode); other commands take | match, except, count, "
	    "json or no-more");
	assert_int_equal(run(m, s, "show configuration | display set", &a),
	    MGMT_OK);
	assert_non_null(strstr(a.text, "set protocols static route"));
	/* through run: the command run runs is checked */
	assert_int_equal(run(m, s, "configure", &a), MGMT_OK);
	assert_int_equal(run(m, s, "run show configuration | display set", &a),
	    MGMT_OK);
	assert_non_null(strstr(a.text, "set protocols static route"));
	assert_int_equal(run(m, s, "run show route | display set", &a),
	    MGMT_E_SYNTAX);
	assert_int_equal(run(m, s, "exit", &a), MGMT_OK);
	/* after '|': the stages, not the command's arguments */
	assert_string_equal(complete(m, s, "show route | "),
	    "match except count json no-more");
	assert_string_equal(complete(m, s, "show configuration | "),
	    "match except count json no-more compare display");
	assert_string_equal(complete(m, s, "show configuration | display "),
	    "set");
	assert_string_equal(complete(m, s, "show route | match "), "{REGEX}");
	assert_string_equal(complete(m, s, "show route | match x | c"),
	    "count");
	assert_string_equal(complete(m, s, "show route | count | "),
	    "match except count json no-more");
	mgmt_session_close(m, s);
	mgmt_free(m);
}

/* A listing says it is a table (header and count lines) for the shell's
 * filters; other answers do not. */
static void
test_tables(void **state)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;

	(void)state;
	m = boot();
	s = mgmt_session_open(m, "tester", false);
	assert_int_equal(run(m, s, "show route", &a), MGMT_OK);
	assert_int_equal(s->table_header, 1);
	assert_int_equal(s->table_footer, 1);
	assert_non_null(strstr(a.text, "\n2 routes\n"));
	assert_int_equal(run(m, s, "show version", &a), MGMT_OK);
	assert_int_equal(s->table_header, 0);
	assert_int_equal(s->table_footer, 0);
	assert_int_equal(run(m, s, "show fib", &a), MGMT_OK);
	assert_int_equal(s->table_header, 1);
	assert_int_equal(s->table_footer, 1);
	assert_non_null(strstr(a.text, "\n2 routes in the FIB\n"));
	/* one prefix: no count line, no table */
	assert_int_equal(run(m, s, "show fib 198.19.0.0/16", &a), MGMT_OK);
	assert_int_equal(s->table_footer, 0);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_complete_live, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_prefixes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_found_and_pipes, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
