/* tests/unit/mgmt/test_show6.c: tern-mgmt's IPv6 push and show commands
 * (issue 22) against test servers playing tern-fwd and tern-rib over real
 * IPC sockets: IfConfig addrs6/link_local/ra/neighbours addr6, IPv6 static
 * routes in RouteBatch (the resync's messages and a commit's part), and
 * show route / fib / neighbors / interfaces with both families, a family
 * filter, text and JSON, from encoded replies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/ipc_route.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_int.h"

static struct ev_loop *loop;
static char tmpdir[64], rundir[128], store[128];

/* what the fakes saw */
static struct {
	struct ipc_server *fwd, *rib;
	unsigned if_batches, rt_batches;
	char ifc[1024];	   /* the last IfConfig (not deleted), as text */
	char routes[2048]; /* IPv6 adds and dels seen by rib, as text */
	unsigned fib_calls, fib_ipv6, neigh_family, rib_family;
	char fib_asked[64], rib_asked[64];
	bool old_fwd; /* QUERY_FIB answers IPv4 whatever is asked */
} f;

static const char *
a6(const ProtobufCBinaryData *b)
{
	struct lc_ip6 a = {{0}};

	if (b->len == 16)
		memcpy(a.b, b->data, 16);
	return (lc_ip6_ntoa(&a));
}

static void cat(char *buf, size_t sz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
cat(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(buf);

	va_start(ap, fmt);
	vsnprintf(buf + n, sz - n, fmt, ap);
	va_end(ap);
}

static void
h_if_config(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Fwd__IfConfigBatch *b = (const Fwd__IfConfigBatch *)msg;
	Fwd__IfConfigAck a = FWD__IF_CONFIG_ACK__INIT;

	(void)arg;
	f.if_batches++;
	for (size_t i = 0; i < b->n_interfaces && !b->dry_run; i++) {
		const Fwd__IfConfig *c = b->interfaces[i];

		if (c->deleted)
			continue;
		f.ifc[0] = '\0';
		cat(f.ifc, sizeof(f.ifc), "%s", c->name);
		for (size_t k = 0; k < c->n_addrs6; k++)
			cat(f.ifc, sizeof(f.ifc), " addr6 %s/%u",
			    a6(&c->addrs6[k]->addr), c->addrs6[k]->len);
		if (c->link_local.len > 0)
			cat(f.ifc, sizeof(f.ifc), " ll %s", a6(&c->link_local));
		if (c->ra != NULL) {
			cat(f.ifc, sizeof(f.ifc),
			    " ra %d mtu %u life %u int %u", c->ra->enabled,
			    c->ra->mtu, c->ra->router_lifetime_s,
			    c->ra->interval_max_s);
			for (size_t k = 0; k < c->ra->n_prefixes; k++)
				cat(f.ifc, sizeof(f.ifc), " pfx %s/%u A%d L%d",
				    a6(&c->ra->prefixes[k]->prefix),
				    c->ra->prefixes[k]->len,
				    c->ra->prefixes[k]->autonomous,
				    c->ra->prefixes[k]->on_link);
		}
		for (size_t k = 0; k < c->n_neighbours; k++)
			if (c->neighbours[k]->addr6.len == 16)
				cat(f.ifc, sizeof(f.ifc), " nd %s %02x",
				    a6(&c->neighbours[k]->addr6),
				    c->neighbours[k]->mac.data[5]);
			else
				cat(f.ifc, sizeof(f.ifc), " arp %08x",
				    ntohl(c->neighbours[k]->addr));
		if (c->ipv6_disabled)
			cat(f.ifc, sizeof(f.ifc), " no-ipv6");
	}
	a.txn = b->txn;
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

static uint8_t v6a[16], v6b[16], v6c[16], v6d[16], v6e[16];

static void
addr6(uint8_t *b, const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, b), 1);
}

/* QUERY_FIB: IPv6 2001:2:1::/48 via 2001:2:0:300::2 and the attached
 * 2001:2:0:300::/64 (ipv6), else 198.19.63.0/24 attached */
static void
h_query_fib(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Fwd__FibQuery *q = (const Fwd__FibQuery *)msg;
	Fwd__FibList l = FWD__FIB_LIST__INIT;
	Fwd__FibRoute r[2] = {FWD__FIB_ROUTE__INIT, FWD__FIB_ROUTE__INIT};
	Fwd__FibRoute *v[2] = {&r[0], &r[1]};
	ProtobufCBinaryData nh[2] = {{16, v6b}, {16, v6d}};
	static uint32_t ifx[2] = {3, 3}, nh4;

	(void)arg;
	f.fib_calls++;
	f.fib_ipv6 += q->ipv6;
	snprintf(f.fib_asked, sizeof(f.fib_asked), "%s/%u%s",
	    q->prefix6.len == 16     ? a6(&q->prefix6) :
		q->lookup6.len == 16 ? a6(&q->lookup6) :
				       "-",
	    q->len, q->use_lookup ? " lookup" : "");
	l.routes = v;
	if (q->ipv6 && !f.old_fwd) {
		addr6(v6a, "2001:2:1::");
		addr6(v6b, "2001:2:0:300::2");
		addr6(v6c, "2001:2:0:300::");
		memset(v6d, 0, 16);
		r[0].prefix6 = (ProtobufCBinaryData){16, v6a};
		r[0].len = 48;
		r[0].n_nh_addr6 = r[0].n_nh_ifindex = 1;
		r[0].nh_addr6 = &nh[0];
		r[0].nh_ifindex = &ifx[0];
		r[1].prefix6 = (ProtobufCBinaryData){16, v6c};
		r[1].len = 64;
		r[1].n_nh_addr6 = r[1].n_nh_ifindex = 1;
		r[1].nh_addr6 = &nh[1];
		r[1].nh_ifindex = &ifx[1];
		l.n_routes = l.total = 2;
	} else {
		nh4 = 0;
		r[0].prefix = htonl(0xc6133f00);
		r[0].len = 24;
		r[0].n_nh_addr = r[0].n_nh_ifindex = 1;
		r[0].nh_addr = &nh4;
		r[0].nh_ifindex = &ifx[0];
		l.n_routes = l.total = 1;
	}
	ipc_reply(req, IPC_OK, &l.base);
}

/* QUERY_NEIGHBOURS: an ARP entry and an IPv6 router */
static void
h_query_neighbours(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	static uint8_t m1[6] = {2, 0, 0, 0, 0, 1}, m2[6] = {2, 0, 0, 0, 0, 2};
	Fwd__NeighbourList l = FWD__NEIGHBOUR_LIST__INIT;
	Fwd__Neighbour n1 = FWD__NEIGHBOUR__INIT, n2 = FWD__NEIGHBOUR__INIT;
	Fwd__Neighbour *v[2] = {&n1, &n2};

	(void)arg;
	f.neigh_family = ((const Fwd__NeighbourQuery *)msg)->family;
	n1.addr = htonl(0xc6133f02);
	n1.mac = (ProtobufCBinaryData){6, m1};
	n1.ifindex = 3;
	n1.ifname = "veth1";
	n1.state = FWD__NEIGHBOUR_STATE__REACHABLE;
	addr6(v6e, "fe80::2");
	n2.addr6 = (ProtobufCBinaryData){16, v6e};
	n2.mac = (ProtobufCBinaryData){6, m2};
	n2.ifindex = 3;
	n2.ifname = "veth1";
	n2.state = FWD__NEIGHBOUR_STATE__DELAY;
	n2.router = true;
	n2.age_ms = 20;
	l.neighbours = v;
	l.n_neighbours = 2;
	ipc_reply(req, IPC_OK, &l.base);
}

/* QUERY_INTERFACES: veth1 with an IPv4 address, one IPv6 address in use,
 * one tentative, one duplicate, its link-local, RAs on */
static void
h_query_interfaces(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	static uint8_t b[4][16];
	static Fwd__IfAddr ia = FWD__IF_ADDR__INIT, *iap = &ia;
	static Fwd__IfAddr6 x[3], *xp[3];
	Fwd__InterfaceList l = FWD__INTERFACE_LIST__INIT;
	Fwd__Interface i = FWD__INTERFACE__INIT, *ip = &i;

	(void)msg;
	(void)arg;
	addr6(b[0], "2001:2:0:300::1");
	addr6(b[1], "2001:2:0:301::1");
	addr6(b[2], "2001:2:0:302::1");
	addr6(b[3], "fe80::1");
	for (unsigned k = 0; k < 3; k++) {
		fwd__if_addr6__init(&x[k]);
		x[k].addr = (ProtobufCBinaryData){16, b[k]};
		x[k].len = 64;
		xp[k] = &x[k];
	}
	ia.addr = htonl(0xc6133f01);
	ia.len = 24;
	i.name = "veth1";
	i.ifindex = 3;
	i.link = FWD__LINK_STATE__LINK_UP;
	i.enabled = true;
	i.mtu = 1500;
	i.backend = "afpacket";
	i.n_addrs = 1;
	i.addrs = &iap;
	i.n_addrs6 = i.n_addrs6_tentative = i.n_addrs6_duplicate = 1;
	i.addrs6 = &xp[0];
	i.addrs6_tentative = &xp[1];
	i.addrs6_duplicate = &xp[2];
	i.link_local = (ProtobufCBinaryData){16, b[3]};
	i.ra_enabled = true;
	l.interfaces = &ip;
	l.n_interfaces = 1;
	ipc_reply(req, IPC_OK, &l.base);
}

static void
h_route_batch(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Rib__RouteBatch *b = (const Rib__RouteBatch *)msg;
	Rib__RouteBatchAck a = RIB__ROUTE_BATCH_ACK__INIT;
	struct ipc_route_set set;
	struct lc_err err;

	(void)arg;
	f.rt_batches++;
	ipc_route_set_init(&set);
	assert_int_equal(ipc_route_batch_decode(&set, b, 1u << 20, &err), 0);
	for (size_t i = 0; i < set.n; i++) {
		const struct ipc_route *r = &set.rt[i];
		struct lc_prefix6 p = {r->pfx.v6, r->len};

		if (r->family != AF_INET6)
			continue;
		cat(f.routes, sizeof(f.routes), "%s %s",
		    r->op == IPC_ROUTE_DEL ? "del" : "add",
		    lc_prefix6_ntoa(&p));
		for (unsigned k = 0; k < r->n_nh; k++) {
			const struct ipc_route_nh *h = &set.nh[r->nh + k];

			cat(f.routes, sizeof(f.routes), " %s%s%s",
			    lc_ip6_ntoa(&h->addr.v6),
			    h->ifname && h->ifname[0] ? "%" : "",
			    h->ifname ? h->ifname : "");
		}
		if (r->kind == IPC_ROUTE_REJECT)
			cat(f.routes, sizeof(f.routes), " reject");
		cat(f.routes, sizeof(f.routes), "; ");
	}
	a.seq = b->seq;
	a.accepted = (uint32_t)set.n;
	ipc_route_set_fini(&set);
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

/* rib's QUERY: the IPv6 static route 2001:2:1::/48 via 2001:2:0:300::2
 * and an IPv4 one (family 0 or 4 only) */
static void
h_query(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Rib__Query *q = (const Rib__Query *)msg;
	static uint8_t p[16], nh[16];
	static uint32_t ifx = 3, gw;
	ProtobufCBinaryData nhb = {16, nh};
	Rib__QueryReply r = RIB__QUERY_REPLY__INIT;
	Rib__RouteEntry e[2] = {RIB__ROUTE_ENTRY__INIT, RIB__ROUTE_ENTRY__INIT};
	Rib__RouteEntry *v[2] = {&e[0], &e[1]};
	Rib__Route rt[2] = {RIB__ROUTE__INIT, RIB__ROUTE__INIT};
	unsigned n = 0;

	(void)arg;
	f.rib_family = q->family;
	snprintf(f.rib_asked, sizeof(f.rib_asked), "%s/%u%s%s",
	    q->prefix6.len == 16     ? a6(&q->prefix6) :
		q->lookup6.len == 16 ? a6(&q->lookup6) :
				       "-",
	    q->len, q->exact ? " exact" : "", q->longer ? " longer" : "");
	addr6(p, "2001:2:1::");
	addr6(nh, "2001:2:0:300::2");
	gw = htonl(0xc6133f02);
	if (q->family != 6) {
		rt[n].prefix = htonl(0xc6133f80);
		rt[n].len = 25;
		rt[n].distance = 1;
		rt[n].n_nh_addr = rt[n].n_nh_ifindex = 1;
		rt[n].nh_addr = &gw;
		rt[n].nh_ifindex = &ifx;
		e[n].route = &rt[n];
		e[n].source = RIB__SOURCE__STATIC;
		e[n].best = e[n].active = true;
		n++;
	}
	if (q->family != 4) {
		rt[n].prefix6 = (ProtobufCBinaryData){16, p};
		rt[n].len = 48;
		rt[n].distance = 1;
		rt[n].n_nh_addr6 = rt[n].n_nh_ifindex = 1;
		rt[n].nh_addr6 = &nhb;
		rt[n].nh_ifindex = &ifx;
		e[n].n_resolved_addr6 = e[n].n_resolved_ifindex = 1;
		e[n].resolved_addr6 = &nhb;
		e[n].resolved_ifindex = &ifx;
		e[n].route = &rt[n];
		e[n].source = RIB__SOURCE__STATIC;
		e[n].best = e[n].active = true;
		n++;
	}
	r.routes = v;
	r.n_routes = r.total = n;
	ipc_reply(req, IPC_OK, &r.base);
}

static void
start_fakes(void)
{
	struct ipc_opts o = {.rundir = rundir, .component = "fake"};

	f.fwd = ipc_server_new(loop, &ipc_svc_fwd, &o);
	assert_non_null(f.fwd);
	ipc_server_handle(f.fwd, FWD__METHOD__IF_CONFIG, h_if_config, NULL);
	ipc_server_handle(f.fwd, FWD__METHOD__SET_CONFIG, h_set_config, NULL);
	ipc_server_handle(f.fwd, FWD__METHOD__QUERY_FIB, h_query_fib, NULL);
	ipc_server_handle(f.fwd, FWD__METHOD__QUERY_NEIGHBOURS,
	    h_query_neighbours, NULL);
	ipc_server_handle(f.fwd, FWD__METHOD__QUERY_INTERFACES,
	    h_query_interfaces, NULL);
	f.rib = ipc_server_new(loop, &ipc_svc_rib, &o);
	assert_non_null(f.rib);
	ipc_server_handle(f.rib, RIB__METHOD__ROUTE_BATCH, h_route_batch, NULL);
	ipc_server_handle(f.rib, RIB__METHOD__RESYNC_BEGIN, h_resync, NULL);
	ipc_server_handle(f.rib, RIB__METHOD__RESYNC_END, h_resync, NULL);
	ipc_server_handle(f.rib, RIB__METHOD__SET_CONFIG, h_resync, NULL);
	ipc_server_handle(f.rib, RIB__METHOD__QUERY, h_query, NULL);
}

static bool
run_until(const unsigned *counter, unsigned want)
{
	uint64_t end = lc_time_mono_ns() + 5ull * 1000000000ull;

	while (lc_time_mono_ns() < end) {
		if (*counter >= want)
			return (true);
		ev_run(loop, EVRUN_NOWAIT);
		usleep(200);
	}
	return (false);
}

struct answer {
	unsigned done;
	int code;
	char text[4096], err[512];
};

static void
later(void *arg, struct mgmt *m, struct mgmt_session *s, int code,
    const char *text, const struct lc_err *err)
{
	struct answer *a = arg;

	(void)m;
	(void)s;
	a->done = 1;
	a->code = code;
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(a->err, sizeof(a->err), "%s", err->msg);
}

static int
exec(struct mgmt *m, struct mgmt_session *s, const char *line, bool json,
    struct answer *a)
{
	struct lc_buf out;
	struct lc_err err;
	int code;

	memset(a, 0, sizeof(*a));
	lc_buf_init(&out);
	code = mgmt_cmd_exec(m, s, line, json, &out, &err, later, a);
	if (code == MGMT_PENDING) {
		assert_true(run_until(&a->done, 1));
		code = a->code;
	} else {
		snprintf(a->err, sizeof(a->err), "%s", err.msg);
		snprintf(a->text, sizeof(a->text), "%s",
		    out.len ? (char *)lc_buf_head(&out) : "");
	}
	lc_buf_fini(&out);
	return (code);
}

#define OK(line)                                                    \
	do {                                                        \
		if (exec(m, s, line, false, &a) != MGMT_OK)         \
			fail_msg("%s: %d %s", line, a.code, a.err); \
	} while (0)
#define OKJ(line)                                                   \
	do {                                                        \
		if (exec(m, s, line, true, &a) != MGMT_OK)          \
			fail_msg("%s: %d %s", line, a.code, a.err); \
	} while (0)

static int
setup(void **st)
{
	(void)st;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tern-show6.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(rundir, sizeof(rundir), "%s/run", tmpdir);
	snprintf(store, sizeof(store), "%s/store", tmpdir);
	memset(&f, 0, sizeof(f));
	loop = lc_loop_new();
	assert_non_null(loop);
	lc_log_init("test_show6", LC_LOG_WARNING, LC_LOG_STDERR);
	return (0);
}

static int
teardown(void **st)
{
	char cmd[256];

	(void)st;
	ipc_server_free(f.fwd);
	ipc_server_free(f.rib);
	lc_loop_free(loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
	return (0);
}

static struct mgmt *
mgmt_boot(const char *text)
{
	static char boot[256];
	struct mgmt_opts o = {.rundir = rundir,
	    .store_dir = store,
	    .boot_config = boot};
	struct mgmt *m;
	FILE *fp;

	snprintf(boot, sizeof(boot), "%s/boot.conf", tmpdir);
	assert_non_null(fp = fopen(boot, "w"));
	fputs(text, fp);
	fclose(fp);
	m = mgmt_new(loop, &o);
	assert_non_null(m);
	return (m);
}

#define BOOT                                                                   \
	"interfaces veth1 { address 198.19.63.1/24; inet6 address "            \
	"2001:2:0:300::1/64; link-local fe80::1; router-advertisement { "      \
	"prefix 2001:2:0:300::/64; prefix 2001:2:0:3ff::/96; mtu 1400; "       \
	"lifetime 1800; } arp 198.19.63.2 mac 02:00:00:00:00:03; ndp fe80::2 " \
	"mac 02:00:00:00:00:02; }\n"                                           \
	"protocols static { route 2001:2:1::/48 next-hop 2001:2:0:300::2; "    \
	"route 2001:2:2::/48 { next-hop fe80::2; interface veth1; } }\n"

/* The boot config's and a commit's IPv6 parts reach fwd and rib as the
 * proto says. */
static void
test_push6(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;

	(void)st;
	start_fakes();
	m = mgmt_boot(BOOT);
	assert_true(run_until(&f.if_batches, 1));
	assert_true(run_until(&f.rt_batches, 1));
	assert_string_equal(f.ifc,
	    "veth1 addr6 2001:2:0:300::1/64 ll fe80::1 ra 1 mtu 1400 life "
	    "1800 int 0 pfx 2001:2:0:300::/64 A1 L1 pfx 2001:2:0:3ff::/96 A0 "
	    "L1 arp c6133f02 nd fe80::2 02");
	/* the resync's messages: device names for a link-local next hop */
	assert_string_equal(f.routes,
	    "add 2001:2:1::/48 2001:2:0:300::2; add 2001:2:2::/48 "
	    "fe80::2%veth1; ");
	s = mgmt_session_open(m, "tester", false);
	f.routes[0] = '\0';
	OK("configure");
	OK("set protocols static route 2001:2:3::/48 reject");
	OK("delete protocols static route 2001:2:1::/48");
	OK("set interfaces veth1 inet6 address 2001:2:0:301::1/64");
	OK("delete interfaces veth1 router-advertisement");
	OK("commit");
	/* a commit's part: packed where it can be, then the delete */
	assert_string_equal(f.routes,
	    "add 2001:2:3::/48 reject; del 2001:2:1::/48; ");
	assert_string_equal(f.ifc,
	    "veth1 addr6 2001:2:0:300::1/64 addr6 2001:2:0:301::1/64 ll "
	    "fe80::1 arp c6133f02 nd fe80::2 02");
	/* a refused line changes nothing and sends nothing */
	unsigned b0 = f.rt_batches;
	OK("set protocols static route 2001:2:4::/48 next-hop fe80::9");
	assert_int_equal(exec(m, s, "commit", false, &a), MGMT_E_COMMIT_FAILED);
	assert_string_equal(a.err,
	    "commit failed: static route 2001:2:4::/48: next-hop fe80::9 is "
	    "link-local: it needs its interface (next-hop fe80::9 interface "
	    "NAME)");
	assert_int_equal(f.rt_batches, b0);
	mgmt_session_close(m, s);
	mgmt_free(m);
}

static json_object *
jget(json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t != NULL && o != NULL;
	     t = strtok_r(NULL, ".", &save))
		if (t[0] >= '0' && t[0] <= '9')
			o = json_object_array_get_idx(o, (size_t)atoi(t));
		else if (!json_object_object_get_ex(o, t, &o))
			o = NULL;
	return (o);
}

static const char *
jstr(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return (v != NULL ? json_object_get_string(v) : "(none)");
}

static void
test_show6(void **st)
{
	struct mgmt_session *s;
	struct mgmt *m;
	struct answer a;
	json_object *jo;

	(void)st;
	start_fakes();
	m = mgmt_boot(BOOT);
	assert_true(run_until(&f.rt_batches, 1));
	s = mgmt_session_open(m, "tester", true);

	/* show route: both families by default, a filter, an IPv6 prefix */
	OK("show route");
	assert_int_equal(f.rib_family, 0);
	assert_string_equal(a.text,
	    "Prefix              Source     Dist/Met  Next hop         Ifindex "
	    "State\n"
	    "198.19.63.128/25    static     1/0       198.19.63.2      3       "
	    "best\n"
	    "2001:2:1::/48       static     1/0       2001:2:0:300::2  3       "
	    "best\n"
	    "2 routes\n");
	OK("show route inet6");
	assert_int_equal(f.rib_family, 6);
	assert_null(strstr(a.text, "198.19"));
	OK("show route ipv4");
	assert_int_equal(f.rib_family, 4);
	assert_null(strstr(a.text, "2001:"));
	OK("show route 2001:2:1:0::/48 longer");
	assert_string_equal(f.rib_asked, "2001:2:1::/48 longer");
	assert_int_equal(f.rib_family, 6);
	OK("show route 2001:2:1::9");
	assert_string_equal(f.rib_asked, "2001:2:1::9/0");
	OKJ("show route inet6");
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_string_equal(jstr(jo, "routes.0.prefix"), "2001:2:1::/48");
	assert_string_equal(jstr(jo, "routes.0.family"), "inet6");
	assert_string_equal(jstr(jo, "routes.0.next_hops.0.address"),
	    "2001:2:0:300::2");
	assert_string_equal(jstr(jo, "routes.0.resolved.0.address"),
	    "2001:2:0:300::2");
	assert_int_equal(json_object_get_int(
			     jget(jo, "routes.0.resolved.0.ifindex")),
	    3);
	json_object_put(jo);
	assert_int_equal(exec(m, s, "show route 2001:2::1::/48", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show route: 2001:2::1::/48: more than one ::");
	assert_int_equal(exec(m, s, "show route 2001:2:1::1/48", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show route: 2001:2:1::1/48: host bits set: did you mean "
	    "2001:2:1::/48?");
	assert_int_equal(exec(m, s, "show route inet 2001:2:1::/48", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show route: unexpected '2001:2:1::/48' (expected an IPv4 prefix "
	    "or address with inet)");
	assert_int_equal(exec(m, s, "show route inet inet6", false, &a),
	    MGMT_E_SYNTAX);

	/* show fib: IPv4, then the IPv6 FIB asked with ipv6 */
	OK("show fib");
	assert_int_equal(f.fib_calls, 2);
	assert_int_equal(f.fib_ipv6, 1);
	assert_string_equal(a.text,
	    "Prefix              Next hop         Ifindex\n"
	    "198.19.63.0/24      attached         3\n"
	    "2001:2:1::/48       2001:2:0:300::2  3\n"
	    "2001:2:0:300::/64   attached         3\n"
	    "3 routes in the FIB\n");
	OKJ("show fib");
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_int_equal(json_object_array_length(jget(jo, "routes")), 3);
	assert_string_equal(jstr(jo, "routes.1.prefix"), "2001:2:1::/48");
	assert_int_equal(json_object_get_int(jget(jo, "total")), 3);
	json_object_put(jo);
	f.fib_calls = 0;
	OK("show fib inet6");
	assert_int_equal(f.fib_calls, 1);
	assert_null(strstr(a.text, "198.19"));
	assert_non_null(strstr(a.text, "2 routes in the FIB"));
	OK("show fib 2001:2:1::5");
	assert_string_equal(f.fib_asked, "2001:2:1::5/0 lookup");
	OK("show fib 2001:2:1::/48");
	assert_string_equal(f.fib_asked, "2001:2:1::/48");
	OK("show fib inet");
	assert_null(strstr(a.text, "2001:"));
	/* a fwd that does not know FibQuery.ipv6 answers from its IPv4 FIB:
	 * not shown as IPv6 */
	f.old_fwd = true;
	OK("show fib");
	assert_string_equal(a.text,
	    "Prefix              Next hop         Ifindex\n"
	    "198.19.63.0/24      attached         3\n"
	    "1 route in the FIB\n");
	assert_int_equal(exec(m, s, "show fib 2001:2:1::5", false, &a),
	    MGMT_E_NOT_FOUND);
	f.old_fwd = false;

	/* show neighbors: family 46, or the one asked */
	OK("show neighbors");
	assert_int_equal(f.neigh_family, 46);
	assert_non_null(strstr(a.text,
	    "fe80::2          02:00:00:00:00:02 veth1           delay      "
	    "      20 0 router\n"));
	assert_non_null(strstr(a.text, "198.19.63.2 "));
	OK("show neighbors inet6");
	assert_int_equal(f.neigh_family, 6);
	assert_null(strstr(a.text, "198.19.63.2"));
	OKJ("show neighbors");
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_string_equal(jstr(jo, "neighbors.1.address"), "fe80::2");
	assert_string_equal(jstr(jo, "neighbors.1.family"), "inet6");
	assert_string_equal(jstr(jo, "neighbors.1.state"), "delay");
	assert_true(json_object_get_boolean(jget(jo, "neighbors.1.router")));
	json_object_put(jo);
	assert_int_equal(exec(m, s, "show neighbors x", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show neighbors: unexpected 'x' (expected at most inet or inet6)");
	/* a second family word: named */
	assert_int_equal(exec(m, s, "show neighbors inet inet6", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show neighbors: unexpected 'inet6' (expected at most inet or "
	    "inet6)");
	assert_int_equal(exec(m, s, "show fib ipv6 inet", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show fib: unexpected 'inet' (expected at most a.b.c.d/len, "
	    "a.b.c.d, x:x::/len or x:x::x, and inet or inet6)");
	assert_int_equal(exec(m, s, "show fib 2001:2::/48 198.19.63.0/24",
			     false, &a),
	    MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "unexpected '198.19.63.0/24'"));
	assert_int_equal(exec(m, s, "show interfaces inet6 inet", false, &a),
	    MGMT_E_SYNTAX);
	assert_non_null(strstr(a.err, "unexpected 'inet'"));
	assert_int_equal(exec(m, s, "show route inet6 veth1 inet", false, &a),
	    MGMT_E_SYNTAX);
	assert_string_equal(a.err,
	    "show route: unexpected 'inet' (expected one family: inet (ipv4) "
	    "or inet6 (ipv6))");

	/* show interfaces: the IPv6 lines, a filter, JSON */
	OK("show interfaces veth1");
	assert_non_null(strstr(a.text,
	    "  address 198.19.63.1/24\n"
	    "  link-local fe80::1\n"
	    "  inet6 address 2001:2:0:300::1/64\n"
	    "  inet6 address 2001:2:0:301::1/64 tentative (DAD)\n"
	    "  inet6 address 2001:2:0:302::1/64 duplicate (DAD failed: in use "
	    "by another node, not used)\n"
	    "  router advertisements sent\n"));
	OK("show interfaces inet");
	assert_null(strstr(a.text, "inet6"));
	OK("show interfaces veth1 inet6");
	assert_null(strstr(a.text, "198.19.63.1"));
	assert_non_null(strstr(a.text, "link-local fe80::1"));
	OKJ("show interfaces");
	assert_non_null(jo = json_tokener_parse(a.text));
	assert_string_equal(jstr(jo, "interfaces.0.addresses6.0"),
	    "2001:2:0:300::1/64");
	assert_string_equal(jstr(jo, "interfaces.0.addresses6_duplicate.0"),
	    "2001:2:0:302::1/64");
	assert_string_equal(jstr(jo, "interfaces.0.link_local"), "fe80::1");
	assert_true(json_object_get_boolean(
	    jget(jo, "interfaces.0.router_advertisements")));
	json_object_put(jo);

	/* completion: the family words, once; IPv6 prefixes of the config,
	 * and longer after one */
	{
		struct mgmt_cand c[32];
		static const char *const lines[][2] = {
		    {"show route i", "inet inet6"},
		    {"show neighbors inet", "inet inet6"},
		    {"show fib inet6 i", ""},
		    {"show route 2001:2:",
			"2001:2:0:300::/64 2001:2:1::/48 "
			"2001:2:2::/48"},
		    {"show route 2001:2:1::/48 l", "longer"},
		};

		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			char got[256] = "";
			int n = mgmt_cmd_complete(m, s, lines[i][0],
			    strlen(lines[i][0]), c, 32);

			for (int k = 0; k < n; k++)
				if (!c[k].hint)
					cat(got, sizeof(got), "%s%s",
					    got[0] ? " " : "", c[k].word);
			if (strcmp(got, lines[i][1]) != 0)
				fail_msg("complete '%s': '%s', want '%s'",
				    lines[i][0], got, lines[i][1]);
		}
	}
	mgmt_session_close(m, s);
	mgmt_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_push6, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_show6, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
