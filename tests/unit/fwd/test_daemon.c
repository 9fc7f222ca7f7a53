/* tests/unit/fwd/test_daemon.c: the tern-fwd daemon object in-process over
 * in-memory ports, driven through its IPC service like mgmt and rib drive
 * it: interfaces, FIB batches, resync, queries, events, drops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "fwd/fwd_d.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static struct ev_loop *loop;
static struct fwd_d *D;
static struct ipc_client *cl;
static struct lc_arena *ar;
static char rundir[64];

static struct fwd_port *
port_new(void *arg, const char *name, uint16_t id, int w)
{
	struct fwd_port_mem_conf mc = {.id = id,
	    .mac = {0x02, 0x74, 0xaa, 0, 0, (uint8_t)id},
	    .capture = 256};
	(void)arg;
	(void)name;
	(void)w;
	return (fwd_port_mem_new(&mc));
}

static const uint8_t host1_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x02};
static const uint8_t host2_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x02, 0x02};
static const uint8_t gw3_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x02, 0x03};

static int
setup(void **st)
{
	struct fwd_d_conf c = {0};
	struct ipc_opts o = {0};

	(void)st;
	lc_log_init("test_daemon", LC_LOG_WARNING, LC_LOG_STDERR);
	snprintf(rundir, sizeof(rundir), "/tmp/tern-fwdd-XXXXXX");
	assert_non_null(mkdtemp(rundir));
	loop = lc_loop_new();
	assert_non_null(loop);
	c.rundir = rundir;
	c.generation = 7;
	c.workers = 0;
	c.allow_mem = true;
	c.port_new = port_new;
	D = fwd_d_new(loop, &c);
	assert_non_null(D);
	o.rundir = rundir;
	o.component = "test";
	cl = ipc_client_new(loop, &ipc_svc_fwd, &o, false);
	assert_non_null(cl);
	ar = lc_arena_new(0);
	return (0);
}

static int
teardown(void **st)
{
	char cmd[128];

	(void)st;
	ipc_client_free(cl);
	fwd_d_free(D);
	lc_loop_free(loop);
	lc_arena_free(ar);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	(void)!system(cmd);
	return (0);
}

/* ---- IPC helpers ---- */

static ProtobufCMessage *
call(unsigned method, const ProtobufCMessage *msg)
{
	ProtobufCMessage *rep = NULL;
	struct lc_err err;
	int st = ipc_call_wait(cl, method, msg, 3000, ar, &rep, &err);

	if (st != IPC_OK)
		fail_msg("call %u: %s: %s", method, ipc_status_str(st),
		    err.msg);
	return (rep);
}

struct ifspec {
	const char *name;
	const char *backend;
	bool enabled, deleted;
	unsigned mtu;
	const char *addr[4];   /* "a.b.c.d/len" */
	const char *neigh[4];  /* static: "a.b.c.d aa:bb:cc:dd:ee:ff" */
	unsigned neigh_maclen; /* 0: 6 */
	unsigned nneigh_extra; /* that many more, 198.18.2.100 + i */
	/* IPv6 (fwd_d_nd.c) */
	const char *addr6[2]; /* "2001:2:0:1::1/64" */
	const char *ll6;      /* configured link-local */
	const char *neigh6;   /* static: "2001:2:0:2::7 aa:bb:cc:dd:ee:ff" */
	bool ra;	      /* router advertisements on */
	unsigned ra_mtu;
	bool ipv6_off;
};

/* Settings sent with the next if_config (one commit's both parts) */
static Fwd__FwdConfig *if_settings;

/* IF_CONFIG; returns the ack (ok, error). */
static Fwd__IfConfigAck *
if_config(const struct ifspec *s, unsigned n, bool replace_all, bool dry)
{
	Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__IfConfig ic[8], *icp[8];
	Fwd__IfAddr ia[8][4], *iap[8][4];
	static Fwd__StaticNeighbour sn[8][81], *snp[8][81];
	static uint8_t mac[8][81][6];
	static Fwd__IfAddr6 ia6[8][2], *ia6p[8][2];
	static Fwd__RaConfig ra[8];
	static struct lc_ip6 a6[8][4];

	assert_true(n <= 8);
	for (unsigned i = 0; i < n; i++) {
		fwd__if_config__init(&ic[i]);
		ic[i].name = (char *)s[i].name;
		ic[i].backend = (char *)(s[i].backend ? s[i].backend : "mem");
		ic[i].enabled = !s[i].deleted && s[i].enabled;
		ic[i].deleted = s[i].deleted;
		ic[i].mtu = s[i].mtu;
		ic[i].addrs = iap[i];
		for (unsigned k = 0; k < 4 && s[i].addr[k]; k++) {
			char buf[32], *sl;
			struct in_addr a;

			snprintf(buf, sizeof(buf), "%s", s[i].addr[k]);
			sl = strchr(buf, '/');
			*sl = '\0';
			assert_int_equal(inet_pton(AF_INET, buf, &a), 1);
			fwd__if_addr__init(&ia[i][k]);
			ia[i][k].addr = a.s_addr;
			ia[i][k].len = (uint32_t)atoi(sl + 1);
			iap[i][k] = &ia[i][k];
			ic[i].n_addrs = k + 1;
		}
		ic[i].neighbours = snp[i];
		for (unsigned k = 0; k < 4 + s[i].nneigh_extra; k++) {
			char buf[20];
			unsigned m[6];
			struct in_addr a;

			if (k < 4 && s[i].neigh[k] == NULL)
				continue;
			fwd__static_neighbour__init(&sn[i][k]);
			if (k < 4) {
				assert_int_equal(sscanf(s[i].neigh[k],
						     "%19s %x:%x:%x:%x:%x:%x",
						     buf, &m[0], &m[1], &m[2],
						     &m[3], &m[4], &m[5]),
				    7);
				assert_int_equal(inet_pton(AF_INET, buf, &a),
				    1);
			} else {
				a.s_addr = htonl(TF_IP(2, 100) + k);
				m[0] = 2;
				for (unsigned j = 1; j < 6; j++)
					m[j] = k;
			}
			for (unsigned j = 0; j < 6; j++)
				mac[i][k][j] = (uint8_t)m[j];
			sn[i][k].addr = a.s_addr;
			sn[i][k].mac.data = mac[i][k];
			sn[i][k].mac.len = s[i].neigh_maclen ?
			    s[i].neigh_maclen :
			    6;
			snp[i][ic[i].n_neighbours++] = &sn[i][k];
		}
		ic[i].addrs6 = ia6p[i];
		for (unsigned k = 0; k < 2 && s[i].addr6[k]; k++) {
			struct lc_prefix6 p6;
			struct lc_err e;

			assert_int_equal(lc_inet6_prefix_parse(s[i].addr6[k],
					     LC_INET6_F_HOST, &p6, &a6[i][k],
					     &e),
			    0);
			fwd__if_addr6__init(&ia6[i][k]);
			ia6[i][k].addr.data = a6[i][k].b;
			ia6[i][k].addr.len = 16;
			ia6[i][k].len = p6.len;
			ia6p[i][k] = &ia6[i][k];
			ic[i].n_addrs6 = k + 1;
		}
		if (s[i].ll6 != NULL) {
			struct lc_err e;

			assert_int_equal(lc_inet6_parse(s[i].ll6, 0, &a6[i][2],
					     NULL, &e),
			    0);
			ic[i].link_local.data = a6[i][2].b;
			ic[i].link_local.len = 16;
		}
		if (s[i].neigh6 != NULL) {
			char buf[48];
			unsigned m[6];
			struct lc_err e;
			unsigned k = 80;

			assert_int_equal(sscanf(s[i].neigh6,
					     "%47s %x:%x:%x:%x:%x:%x", buf,
					     &m[0], &m[1], &m[2], &m[3], &m[4],
					     &m[5]),
			    7);
			assert_int_equal(lc_inet6_parse(buf, 0, &a6[i][3], NULL,
					     &e),
			    0);
			fwd__static_neighbour__init(&sn[i][k]);
			for (unsigned j = 0; j < 6; j++)
				mac[i][k][j] = (uint8_t)m[j];
			sn[i][k].addr6.data = a6[i][3].b;
			sn[i][k].addr6.len = 16;
			sn[i][k].mac.data = mac[i][k];
			sn[i][k].mac.len = 6;
			snp[i][ic[i].n_neighbours++] = &sn[i][k];
		}
		if (s[i].ra) {
			fwd__ra_config__init(&ra[i]);
			ra[i].enabled = true;
			ra[i].mtu = s[i].ra_mtu;
			ic[i].ra = &ra[i];
		}
		ic[i].ipv6_disabled = s[i].ipv6_off;
		icp[i] = &ic[i];
	}
	b.txn = 99;
	b.interfaces = icp;
	b.n_interfaces = n;
	b.replace_all = replace_all;
	b.dry_run = dry;
	b.settings = if_settings;
	if_settings = NULL;
	return ((Fwd__IfConfigAck *)call(FWD__METHOD__IF_CONFIG, &b.base));
}

/* The standard two interfaces: m0 198.18.1.1/24, m1 198.18.2.1/24. */
static const struct ifspec two[] = {
    {.name = "m0", .enabled = true, .addr = {"198.18.1.1/24"}},
    {.name = "m1", .enabled = true, .addr = {"198.18.2.1/24"}},
};

static void
config_two(void)
{
	Fwd__IfConfigAck *a = if_config(two, 2, true, false);

	assert_true(a->ok);
	assert_int_equal(a->txn, 99);
}

static uint32_t
ifindex_of(const char *name)
{
	struct fwd_iface *f = fwd_d_if_find(D, name);

	assert_non_null(f);
	return (f->ifindex);
}

struct rt {
	uint32_t pfx; /* host order */
	unsigned len;
	unsigned n;
	uint32_t gw[4]; /* host order */
	uint32_t ifx[4];
};

static Fwd__FibAck *
fib_batch(uint64_t seq, const struct rt *add, unsigned na, const struct rt *del,
    unsigned nd)
{
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute *r = calloc(na + 1, sizeof(*r)),
		      **rp = calloc(na + 1, sizeof(*rp));
	Lifecycle__Prefix *p = calloc(nd + 1, sizeof(*p)),
			  **pp = calloc(nd + 1, sizeof(*pp));
	uint32_t(*gw)[4] = calloc(na + 1, sizeof(*gw));
	Fwd__FibAck *ack;

	for (unsigned i = 0; i < na; i++) {
		fwd__fib_route__init(&r[i]);
		r[i].prefix = htonl(add[i].pfx);
		r[i].len = add[i].len;
		for (unsigned k = 0; k < add[i].n; k++)
			gw[i][k] = htonl(add[i].gw[k]);
		r[i].nh_addr = gw[i];
		r[i].n_nh_addr = add[i].n;
		r[i].nh_ifindex = (uint32_t *)add[i].ifx;
		r[i].n_nh_ifindex = add[i].n;
		rp[i] = &r[i];
	}
	for (unsigned i = 0; i < nd; i++) {
		lifecycle__prefix__init(&p[i]);
		p[i].prefix = htonl(del[i].pfx);
		p[i].len = del[i].len;
		pp[i] = &p[i];
	}
	b.seq = seq;
	b.add = rp;
	b.n_add = na;
	b.del = pp;
	b.n_del = nd;
	ack = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
	free(r);
	free(rp);
	free(p);
	free(pp);
	free(gw);
	assert_int_equal(ack->seq, seq);
	return (ack);
}

static Fwd__FibAck *
resync(unsigned method, uint64_t seq)
{
	Fwd__Resync r = FWD__RESYNC__INIT;

	r.seq = seq;
	return ((Fwd__FibAck *)call(method, &r.base));
}

static Fwd__FibList *
fib_query(uint32_t pfx, unsigned len, bool exact, bool lookup)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;

	q.prefix = htonl(pfx);
	q.len = len;
	q.exact = exact;
	q.use_lookup = lookup;
	q.lookup = htonl(pfx);
	return ((Fwd__FibList *)call(FWD__METHOD__QUERY_FIB, &q.base));
}

static Fwd__FibList *
fib_page_query(uint32_t offset, uint32_t limit)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;

	q.offset = offset;
	q.limit = limit;
	return ((Fwd__FibList *)call(FWD__METHOD__QUERY_FIB, &q.base));
}

static Fwd__InterfaceList *
if_query(void)
{
	Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;

	q.counters = true;
	return (
	    (Fwd__InterfaceList *)call(FWD__METHOD__QUERY_INTERFACES, &q.base));
}

static uint64_t
drops(const char *reason)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	Fwd__DropList *l = (Fwd__DropList *)call(FWD__METHOD__QUERY_DROPS,
	    &e.base);

	for (size_t i = 0; i < l->n_drops; i++)
		if (strcmp(l->drops[i]->reason, reason) == 0)
			return (l->drops[i]->count);
	fail_msg("no drop reason %s", reason);
	return (0);
}

/* ---- frames ---- */

/* worker 0's port of an interface (rx/forwarded), the control thread's
 * (slow path output) */
static struct fwd_port *
wport(const char *name)
{
	struct fwd_port *p = fwd_d_port(D, name, 0);

	assert_non_null(p);
	return (p);
}

static struct fwd_port *
tport(const char *name)
{
	struct fwd_iface *f = fwd_d_if_find(D, name);

	assert_non_null(f);
	assert_non_null(f->txport);
	return (f->txport);
}

static void
flush_port(struct fwd_port *p)
{
	uint8_t buf[FWD_FRAME_MAX];

	while (fwd_port_mem_take(p, buf, sizeof(buf)) >= 0)
		;
}

static void
flush_all(void)
{
	for (unsigned i = 0; i < FWD_D_IF_MAX; i++)
		if (D->ifs[i].attached) {
			flush_port(D->ifs[i].wport[0]);
			flush_port(D->ifs[i].txport);
		}
}

/* Inject an IPv4 frame from a host on `in` to dst; run the daemon. */
static void
send_ip(const char *in, const uint8_t *smac, uint32_t src, uint32_t dst,
    uint8_t ttl, uint8_t proto)
{
	uint8_t f[128];
	struct fwd_port *p = wport(in);
	unsigned len = tf_ipv4(f, p->mac, smac, src, dst, ttl, proto, 32, 0);

	assert_int_equal(fwd_port_mem_inject(p, f, len), 0);
	fwd_d_poll(D);
}

/* An ARP reply from ip/mac on `in` to the router's address there. */
static void
send_arp_reply(const char *in, const uint8_t *mac, uint32_t ip, uint32_t to)
{
	uint8_t f[64];
	struct fwd_port *p = wport(in);
	unsigned len = tf_arp(f, 2, p->mac, mac, mac, ip, p->mac, to);

	assert_int_equal(fwd_port_mem_inject(p, f, len), 0);
	fwd_d_poll(D);
}

/* Take one frame from port p: its length, 0 when none. */
static int
take(struct fwd_port *p, uint8_t *buf)
{
	int n;

	/* what IPv6 Neighbour Discovery sends on its own when a port comes
	 * up (DAD probes of the derived link-local: ICMPv6 135 with hop
	 * limit 255) is not what these tests look at */
	do
		n = fwd_port_mem_take(p, buf, FWD_FRAME_MAX);
	while (n >= 62 && fwd_ld16(buf + 12) == htons(0x86dd) &&
	    buf[20] == 58 && buf[21] == 255 && buf[54] >= 133 &&
	    buf[54] <= 137);
	return (n < 0 ? 0 : n);
}

static uint32_t
frame_dst(const uint8_t *f)
{
	return (ntohl(fwd_ld32(f + FWD_ETH_HLEN + FWD_IP_DST)));
}

/* ---- tests ---- */

static void
test_interfaces(void **st)
{
	Fwd__InterfaceList *l;
	Fwd__FibList *fl;
	uint8_t f[FWD_FRAME_MAX];
	int n;

	(void)st;
	config_two();
	l = if_query();
	assert_int_equal(l->n_interfaces, 2);
	for (size_t i = 0; i < 2; i++) {
		Fwd__Interface *x = l->interfaces[i];

		assert_string_equal(x->name, i == 0 ? "m0" : "m1");
		assert_int_equal(x->link, FWD__LINK_STATE__LINK_UP);
		assert_true(x->enabled);
		assert_int_equal(x->ifindex, FWD_D_MEM_IFINDEX + i);
		assert_int_equal(x->n_addrs, 1);
		assert_int_equal(ntohl(x->addrs[0]->addr), TF_IP(i + 1, 1));
		assert_int_equal(x->addrs[0]->len, 24);
		assert_int_equal(x->mac.len, 6);
		assert_int_equal(x->mtu, 1500);
		assert_string_equal(x->backend, "mem");
		assert_non_null(x->counters);
	}
	/* connected routes, pointing at the interface */
	fl = fib_query(TF_IP(2, 0), 24, true, false);
	assert_int_equal(fl->n_routes, 1);
	assert_int_equal(fl->routes[0]->n_nh_addr, 1);
	assert_int_equal(fl->routes[0]->nh_addr[0], 0);
	assert_int_equal(fl->routes[0]->nh_ifindex[0], ifindex_of("m1"));
	fl = fib_query(TF_IP(1, 77), 0, false, true);
	assert_int_equal(fl->n_routes, 1);
	assert_int_equal(ntohl(fl->routes[0]->prefix), TF_IP(1, 0));
	assert_int_equal(fl->routes[0]->len, 24);
	/* a gratuitous ARP went out of each */
	n = take(tport("m0"), f);
	assert_int_equal(n, 42);
	assert_int_equal(fwd_ld16(f + 12), htons(0x0806));
	assert_int_equal(ntohl(fwd_ld32(f + 28)), TF_IP(1, 1));
	/* the router answers pings on its address */
	send_ip("m0", host1_mac, TF_IP(1, 2), TF_IP(1, 1), 64, 1);
	flush_port(tport("m0"));
	{
		uint8_t ping[128];
		struct fwd_port *p = wport("m0");
		unsigned len = tf_ipv4(ping, p->mac, host1_mac, TF_IP(1, 2),
		    TF_IP(1, 1), 64, 1, 32, 0);
		uint8_t *icmp = ping + FWD_ETH_HLEN + FWD_IPV4_HLEN;

		icmp[0] = 8;
		icmp[1] = 0;
		fwd_st16(icmp + 2, 0);
		fwd_st16(icmp + 2, fwd_cksum(icmp, 32));
		assert_int_equal(fwd_port_mem_inject(p, ping, len), 0);
		fwd_d_poll(D);
		n = take(tport("m0"), f);
		assert_int_equal(n, len);
		assert_memory_equal(f, host1_mac, 6);
		assert_int_equal(f[FWD_ETH_HLEN + FWD_IPV4_HLEN], 0);
		assert_int_equal(frame_dst(f), TF_IP(1, 2));
	}
	assert_true(drops("local") >= 2);
}

static void
test_if_refused(void **st)
{
	static const struct ifspec badbk[] = {
	    {.name = "m2", .backend = "dpdk", .enabled = true}};
	static const struct ifspec netaddr[] = {
	    {.name = "m2", .enabled = true, .addr = {"198.18.3.0/24"}}};
	static const struct ifspec overlap[] = {{.name = "m0",
						    .enabled = true,
						    .addr = {"198.18.1.1/24"}},
	    {.name = "m2", .enabled = true, .addr = {"198.18.1.9/16"}}};
	static const struct ifspec mtu[] = {
	    {.name = "m2", .enabled = true, .mtu = 20}};
	static const struct ifspec nodev[] = {
	    {.name = "nosuchdev9", .backend = "afpacket", .enabled = true}};
	static const struct ifspec dup[] = {{.name = "m2", .enabled = true},
	    {.name = "m2", .enabled = true}};
	/* a good item and a bad one: all or nothing */
	static const struct ifspec mixed[] = {{.name = "m2",
						  .enabled = true,
						  .addr = {"198.18.3.1/24"}},
	    {.name = "m0", .enabled = true, .addr = {"127.0.0.1/8"}}};
	static const struct {
		const struct ifspec *s;
		unsigned n;
		const char *want;
	} bad[] = {
	    {badbk, 1, "unknown port backend 'dpdk'"},
	    {netaddr, 1, "not a usable host address"},
	    {overlap, 2, "overlaps"},
	    {mtu, 1, "mtu 20"},
	    {nodev, 1, "no such network device"},
	    {dup, 2, "listed twice"},
	    {mixed, 2, "127.0.0.1"},
	};
	size_t routes;
	struct fwd_port *p0;

	(void)st;
	config_two();
	routes = fwd_fib_count(D->fib);
	p0 = wport("m0");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		Fwd__IfConfigAck *a;

		for (int rep = 0; rep < 2; rep++) {
			/* a full set with a missing device is taken (the
			 * device absent: test_if_absent) */
			if (rep == 1 && bad[i].s == nodev)
				continue;
			a = if_config(bad[i].s, bad[i].n, rep == 1, false);
			assert_false(a->ok);
			if (strstr(a->error, bad[i].want) == NULL)
				fail_msg("case %zu: '%s' lacks '%s'", i,
				    a->error, bad[i].want);
		}
		/* nothing changed */
		assert_int_equal(if_query()->n_interfaces, 2);
		assert_null(fwd_d_if_find(D, "m2"));
		assert_ptr_equal(wport("m0"), p0);
		assert_int_equal(fwd_fib_count(D->fib), routes);
		assert_true(fwd_local_has(&D->local, TF_IP(1, 1)));
	}
}

static void
test_if_dry_run_and_replace(void **st)
{
	static const struct ifspec add2[] = {
	    {.name = "m2", .enabled = true, .addr = {"198.18.3.1/24"}}};
	static const struct ifspec only0[] = {
	    {.name = "m0", .enabled = true, .addr = {"198.18.1.1/24"}}};
	static const struct ifspec m0_disabled[] = {
	    {.name = "m0", .enabled = false, .addr = {"198.18.1.1/24"}}};
	struct fwd_port *p0, *p1;
	uint64_t batches;
	unsigned g0;

	(void)st;
	config_two();
	p0 = wport("m0");
	p1 = wport("m1");
	g0 = (unsigned)fwd_d_if_find(D, "m0")->glean;
	/* dry run: validated, nothing changed */
	assert_true(if_config(add2, 1, false, true)->ok);
	assert_null(fwd_d_if_find(D, "m2"));
	assert_false(
	    if_config((const struct ifspec[]){{.name = "m2", .backend = "xdp"}},
		1, false, true)
		->ok);
	/* replace_all with the same set: the same ports, nothing redone */
	batches = D->st.if_batches;
	flush_all();
	assert_true(if_config(two, 2, true, false)->ok);
	assert_int_equal(D->st.if_batches, batches + 1);
	assert_ptr_equal(wport("m0"), p0);
	assert_ptr_equal(wport("m1"), p1);
	assert_int_equal(fwd_d_if_find(D, "m0")->glean, (int)g0);
	assert_int_equal(fwd_port_mem_pending(tport("m0")), 0); /* no GARP */
	/* incremental add keeps the others */
	assert_true(if_config(add2, 1, false, false)->ok);
	assert_ptr_equal(wport("m0"), p0);
	assert_non_null(fwd_d_if_find(D, "m2"));
	assert_int_equal(fwd_fib_count(D->fib), 3);
	/* replace_all with only m0: m1 and m2 go, with their routes */
	assert_true(if_config(only0, 1, true, false)->ok);
	assert_ptr_equal(wport("m0"), p0);
	assert_null(fwd_d_if_find(D, "m1"));
	assert_null(fwd_d_if_find(D, "m2"));
	assert_int_equal(fwd_fib_count(D->fib), 1);
	assert_false(fwd_local_has(&D->local, TF_IP(2, 1)));
	/* disabled: kept in the config, detached, route and address gone */
	assert_true(if_config(m0_disabled, 1, false, false)->ok);
	assert_non_null(fwd_d_if_find(D, "m0"));
	assert_false(fwd_d_if_find(D, "m0")->attached);
	assert_int_equal(fwd_fib_count(D->fib), 0);
	assert_false(fwd_local_has(&D->local, TF_IP(1, 1)));
	assert_int_equal(if_query()->interfaces[0]->link,
	    FWD__LINK_STATE__LINK_DOWN);
	/* deleted */
	assert_true(
	    if_config((const struct ifspec[]){{.name = "m0", .deleted = true}},
		1, false, false)
		->ok);
	assert_int_equal(if_query()->n_interfaces, 0);
}

static void
test_address_change(void **st)
{
	static const struct ifspec moved[] = {
	    {.name = "m0", .enabled = true, .addr = {"198.18.1.1/24"}},
	    {.name = "m1",
		.enabled = true,
		.mtu = 1000,
		.addr = {"198.18.4.1/24", "198.18.5.1/25"}},
	};
	struct fwd_port *p1;
	unsigned nh;

	(void)st;
	config_two();
	p1 = wport("m1");
	assert_true(if_config(moved, 2, true, false)->ok);
	/* same ports (same backend, still enabled): changed in place */
	assert_ptr_equal(wport("m1"), p1);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(2, 0), 24, &nh), -ENOENT);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(4, 0), 24, &nh), 0);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(5, 0), 25, &nh), 0);
	assert_false(fwd_local_has(&D->local, TF_IP(2, 1)));
	assert_true(fwd_local_has(&D->local, TF_IP(5, 1)));
	assert_int_equal(D->adj->port[1].mtu, 1000);
}

/*
 * show fib lists the FIB in prefix order (address, then length), a page at
 * a time (issue 23: the listing was in the hash table's order).
 */
static void
test_fib_sorted(void **st)
{
	struct rt add[66];
	Fwd__FibList *fl;
	uint64_t keys[80];
	unsigned n = 0, total;

	(void)st;
	config_two();
	/* /24s in a scrambled order, a /16 over them and /25s inside */
	for (unsigned i = 0; i < 64; i++)
		add[n++] = (struct rt){0xc6130000u | ((i * 37) % 64) << 8, 24,
		    1, {TF_IP(2, 3)}, {ifindex_of("m1")}};
	add[n++] = (struct rt){0xc6130580u, 25, 1, {TF_IP(2, 3)},
	    {ifindex_of("m1")}};
	add[n++] = (struct rt){0xc6130000u, 16, 1, {TF_IP(2, 3)},
	    {ifindex_of("m1")}};
	assert_int_equal(fib_batch(1, add, n, NULL, 0)->applied, n);
	fl = fib_page_query(0, 0);
	total = fl->total;
	assert_true(total >= n);
	assert_int_equal(fl->n_routes, total);
	assert_false(fl->more);
	for (size_t i = 0; i < fl->n_routes; i++) {
		keys[i] = (uint64_t)ntohl(fl->routes[i]->prefix) << 32 |
		    fl->routes[i]->len;
		if (i > 0)
			assert_true(keys[i - 1] < keys[i]);
	}
	/* 198.19.0.0/16 right before 198.19.0.0/24; the /25 after its /24 */
	for (size_t i = 0; i + 1 < fl->n_routes; i++) {
		if (keys[i] == ((uint64_t)0xc6130000u << 32 | 16))
			assert_true(
			    keys[i + 1] == ((uint64_t)0xc6130000u << 32 | 24));
		if (keys[i] == ((uint64_t)0xc6130500u << 32 | 24))
			assert_true(
			    keys[i + 1] == ((uint64_t)0xc6130580u << 32 | 25));
	}
	/* a page: the same order from its offset, more after it */
	fl = fib_page_query(5, 10);
	assert_int_equal(fl->n_routes, 10);
	assert_true(fl->more);
	for (size_t i = 0; i < 10; i++)
		assert_true(((uint64_t)ntohl(fl->routes[i]->prefix) << 32 |
				fl->routes[i]->len) == keys[5 + i]);
	fl = fib_page_query(total - 3, 10);
	assert_int_equal(fl->n_routes, 3);
	assert_false(fl->more);
}

static void
test_fib_batch(void **st)
{
	struct rt add[200];
	Fwd__FibAck *a;
	Fwd__FibList *fl;
	uint32_t m1;
	unsigned nh0, nh;
	uint8_t f[FWD_FRAME_MAX];
	int n;

	(void)st;
	config_two();
	m1 = ifindex_of("m1");
	/* 200 routes through one gateway: one adjacency */
	for (unsigned i = 0; i < 200; i++)
		add[i] = (struct rt){(0xc6130000u | i << 8), 24, 1,
		    {TF_IP(2, 3)}, {m1}};
	a = fib_batch(1, add, 200, NULL, 0);
	assert_int_equal(a->applied, 200);
	assert_int_equal(a->failed, 0);
	assert_int_equal(a->routes, 202);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 24, &nh0), 0);
	for (unsigned i = 1; i < 200; i++) {
		assert_int_equal(fwd_fib_get(D->fib, add[i].pfx, 24, &nh), 0);
		assert_int_equal(nh, nh0);
	}
	assert_int_equal(D->rec[nh0].routes, 200);
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_RESOLVE);
	/* resolution was started: an ARP request for the gateway */
	n = take(tport("m1"), f);
	while (n == 42 && ntohl(fwd_ld32(f + 38)) != TF_IP(2, 3))
		n = take(tport("m1"), f);
	assert_int_equal(n, 42);
	assert_memory_equal(f, tf_bcast, 6);
	/* the reply resolves it: one write for the 200 routes */
	send_arp_reply("m1", gw3_mac, TF_IP(2, 3), TF_IP(2, 1));
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_FORWARD);
	flush_all();
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6130505u, 64, 17);
	n = take(wport("m1"), f);
	assert_int_equal(n, 14 + 20 + 32);
	assert_memory_equal(f, gw3_mac, 6);
	assert_memory_equal(f + 6, wport("m1")->mac, 6);
	assert_int_equal(f[FWD_ETH_HLEN + FWD_IP_TTL], 63);
	assert_int_equal(frame_dst(f), 0xc6130505u);
	/* query: the route as rib sent it */
	fl = fib_query(0xc6130500u, 24, true, false);
	assert_int_equal(fl->n_routes, 1);
	assert_int_equal(ntohl(fl->routes[0]->nh_addr[0]), TF_IP(2, 3));
	assert_int_equal(fl->routes[0]->nh_ifindex[0], m1);
	/* bad routes fail alone, by index; deletes of absent routes are fine */
	{
		struct rt bad[4] = {
		    {0xc6130001u, 24, 1, {TF_IP(2, 3)}, {m1}}, /* host bits */
		    {0xc6140000u, 33, 1, {TF_IP(2, 3)}, {m1}}, /* len */
		    {0xc6140000u, 16, 1, {0}, {0}},	       /* no nh */
		    {0xc6150000u, 16, 1, {TF_IP(2, 3)}, {m1}}, /* good */
		};
		struct rt del[2] = {{.pfx = 0xc6160000u, .len = 16},
		    {.pfx = 0xc6130000u, .len = 40}};

		a = fib_batch(2, bad, 4, del, 2);
		assert_int_equal(a->applied, 2);
		assert_int_equal(a->failed, 4);
		assert_int_equal(a->n_failed_index, 4);
		assert_int_equal(a->failed_index[0], 0);
		assert_int_equal(a->failed_index[1], 1);
		assert_int_equal(a->failed_index[2], 2);
		assert_int_equal(a->failed_index[3], 5);
		/* 200 + 2 connected + 1 + the gateway's host route */
		assert_int_equal(a->routes, 204);
	}
	/* delete all 201 routes via the gateway: the adjacency goes after a
	 * grace period */
	{
		struct rt del[201];

		for (unsigned i = 0; i < 200; i++)
			del[i] = add[i];
		del[200] = (struct rt){.pfx = 0xc6150000u, .len = 16};
		a = fib_batch(3, NULL, 0, del, 201);
		assert_int_equal(a->applied, 201);
		assert_int_equal(a->routes, 3);
	}
	assert_true(D->rec[nh0].dying);
	fwd_d_tick(D, fwd_d_now_ms(D));
	assert_int_equal(D->rec[nh0].kind, FWD_REC_NONE);
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_UNSET);
	/* no route now */
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6130505u, 64, 17);
	assert_true(drops("no_route") >= 1);
}

static void
test_ecmp_blackhole(void **st)
{
	uint32_t m0, m1;
	uint8_t f[FWD_FRAME_MAX];
	unsigned per[2] = {0, 0}, nh;
	struct rt r[2];

	(void)st;
	config_two();
	m0 = ifindex_of("m0");
	m1 = ifindex_of("m1");
	/* ECMP over a gateway on each side (ifindex 0: found by subnet) */
	r[0] = (struct rt){0xc6130000u, 16, 2, {TF_IP(1, 5), TF_IP(2, 3)},
	    {0, m1}};
	r[1] = (struct rt){0xc6140000u, 16, 0, {0}, {0}}; /* blackhole */
	assert_int_equal(fib_batch(1, r, 2, NULL, 0)->applied, 2);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 16, &nh), 0);
	assert_int_equal(D->rec[nh].kind, FWD_REC_GROUP);
	assert_int_equal(D->rec[nh].nm, 2);
	{
		Fwd__FibList *fl = fib_query(0xc6130000u, 16, true, false);

		assert_int_equal(fl->routes[0]->n_nh_addr, 2);
		assert_true(fl->routes[0]->nh_ifindex[0] == m0 ||
		    fl->routes[0]->nh_ifindex[1] == m0);
	}
	send_arp_reply("m1", gw3_mac, TF_IP(2, 3), TF_IP(2, 1));
	send_arp_reply("m0", host2_mac, TF_IP(1, 5), TF_IP(1, 1));
	flush_all();
	for (unsigned i = 0; i < 64; i++)
		send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6130000u | i * 977, 64,
		    17);
	while (take(wport("m0"), f) > 0)
		per[0]++;
	while (take(wport("m1"), f) > 0)
		per[1]++;
	assert_int_equal(per[0] + per[1], 64);
	assert_true(per[0] > 8 && per[1] > 8);
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6140101u, 64, 17);
	assert_int_equal(drops("blackhole"), 1);
	/* the same group for another prefix is the same adjacency */
	r[1] = (struct rt){0xc6150000u, 16, 2, {TF_IP(2, 3), TF_IP(1, 5)},
	    {m1, m0}};
	assert_int_equal(fib_batch(2, &r[1], 1, NULL, 0)->applied, 1);
	{
		unsigned nh2;

		assert_int_equal(fwd_fib_get(D->fib, 0xc6150000u, 16, &nh2), 0);
		/* m0 given explicitly vs found by subnet: distinct next
		 * hops, so a distinct group; same members otherwise */
		assert_int_equal(D->rec[nh2].kind, FWD_REC_GROUP);
	}
}

static void
test_resync(void **st)
{
	uint32_t m1;
	struct rt a[3];
	Fwd__FibAck *k;
	unsigned nh, nhb;

	(void)st;
	config_two();
	m1 = ifindex_of("m1");
	a[0] = (struct rt){0xc6130000u, 24, 1, {TF_IP(2, 3)}, {m1}};
	a[1] = (struct rt){0xc6130100u, 24, 1, {TF_IP(2, 4)}, {m1}};
	/* rib's copy of a connected route */
	a[2] = (struct rt){TF_IP(2, 0), 24, 1, {0}, {m1}};
	assert_int_equal(fib_batch(1, a, 3, NULL, 0)->applied, 3);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130100u, 24, &nhb), 0);
	/* a neighbour learned on a connected subnet: its host route */
	send_arp_reply("m0", host1_mac, TF_IP(1, 2), TF_IP(1, 1));
	send_ip("m1", host2_mac, TF_IP(2, 2), TF_IP(1, 2), 64, 17);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(1, 2), 32, &nh), 0);
	assert_int_equal(fwd_fib_count(D->fib), 5);

	k = resync(FWD__METHOD__RESYNC_BEGIN, 10);
	assert_int_equal(k->seq, 10);
	assert_int_equal(k->routes, 5);
	{
		Lifecycle__Status *s = (Lifecycle__Status *)
		    call(IPC_LC(LIFECYCLE__METHOD__STATUS), NULL);

		assert_string_equal(s->state, "resyncing");
		assert_int_equal(s->generation, 7);
	}
	/* forwarding goes on meanwhile */
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130100u, 24, &nh), 0);
	assert_int_equal(fib_batch(11, a, 1, NULL, 0)->applied, 1);
	k = resync(FWD__METHOD__RESYNC_END, 12);
	assert_int_equal(k->seq, 12);
	/* swept: the route not re-sent; rib's copy of the connected route
	 * is the same as fwd's own (kept), and so is ARP's host route */
	assert_int_equal(k->swept, 1);
	assert_int_equal(k->routes, 4);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 24, &nh), 0);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130100u, 24, &nh), -ENOENT);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(2, 0), 24, &nh), 0);
	assert_int_equal(nh, (unsigned)fwd_d_if_find(D, "m1")->glean);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(1, 0), 24, &nh), 0);
	assert_int_equal(fwd_fib_get(D->fib, TF_IP(1, 2), 32, &nh), 0);
	/* the swept route's next hop is released (refcounts recounted) */
	assert_true(D->rec[nhb].dying);
	fwd_d_tick(D, fwd_d_now_ms(D));
	assert_int_equal(D->rec[nhb].kind, FWD_REC_NONE);
	assert_int_equal(D->rec[fwd_d_if_find(D, "m1")->glean].routes, 1);
	assert_string_equal(((Lifecycle__Status *)
				    call(IPC_LC(LIFECYCLE__METHOD__STATUS),
					NULL))
				->state,
	    "running");
	/* END without BEGIN sweeps nothing */
	assert_int_equal(resync(FWD__METHOD__RESYNC_END, 13)->swept, 0);
	assert_int_equal(fwd_fib_count(D->fib), 4);
}

static void
test_neighbours_drops(void **st)
{
	Fwd__NeighbourQuery q = FWD__NEIGHBOUR_QUERY__INIT;
	Fwd__NeighbourList *l;
	uint64_t ttl, cksum;

	(void)st;
	config_two();
	send_arp_reply("m1", gw3_mac, TF_IP(2, 3), TF_IP(2, 1));
	l = (Fwd__NeighbourList *)call(FWD__METHOD__QUERY_NEIGHBOURS, &q.base);
	assert_int_equal(l->n_neighbours, 1);
	assert_int_equal(ntohl(l->neighbours[0]->addr), TF_IP(2, 3));
	assert_int_equal(l->neighbours[0]->state,
	    FWD__NEIGHBOUR_STATE__REACHABLE);
	assert_memory_equal(l->neighbours[0]->mac.data, gw3_mac, 6);
	assert_int_equal(l->neighbours[0]->ifindex, ifindex_of("m1"));
	/* just confirmed: a young entry (age counts up from the reply),
	 * probed again in about arp reachable time (30 s) */
	assert_true(l->neighbours[0]->age_ms < 5000);
	assert_true(l->neighbours[0]->next_probe_ms > 25000);
	q.ifindex = ifindex_of("m0");
	l = (Fwd__NeighbourList *)call(FWD__METHOD__QUERY_NEIGHBOURS, &q.base);
	assert_int_equal(l->n_neighbours, 0);
	/* drops by reason */
	ttl = drops("ttl_expired");
	cksum = drops("ip_cksum");
	send_ip("m0", host1_mac, TF_IP(1, 2), TF_IP(2, 3), 1, 17);
	{
		uint8_t f[128];
		struct fwd_port *p = wport("m0");
		unsigned len = tf_ipv4(f, p->mac, host1_mac, TF_IP(1, 2),
		    TF_IP(2, 3), 64, 17, 32, 0);

		f[FWD_ETH_HLEN + FWD_IP_TTL] ^= 0x10; /* checksum now bad */
		assert_int_equal(fwd_port_mem_inject(p, f, len), 0);
		fwd_d_poll(D);
	}
	assert_int_equal(drops("ttl_expired"), ttl + 1);
	assert_int_equal(drops("ip_cksum"), cksum + 1);
	{
		Fwd__InterfaceList *il = if_query();

		assert_true(il->interfaces[0]->counters->rx_packets >= 2);
	}
}

/* The neighbours fwd reports, and one of them by address (NULL: absent). */
static Fwd__Neighbour *
neigh_query(uint32_t ip, size_t *n)
{
	Fwd__NeighbourQuery q = FWD__NEIGHBOUR_QUERY__INIT;
	Fwd__NeighbourList *l = (Fwd__NeighbourList *)
	    call(FWD__METHOD__QUERY_NEIGHBOURS, &q.base);

	if (n != NULL)
		*n = l->n_neighbours;
	for (size_t i = 0; i < l->n_neighbours; i++)
		if (ntohl(l->neighbours[i]->addr) == ip)
			return (l->neighbours[i]);
	return (NULL);
}

/* An ARP request for ip among the frames port p sent? (takes them all) */
static bool
sent_arp_for(struct fwd_port *p, uint32_t ip)
{
	uint8_t f[FWD_FRAME_MAX];
	bool seen = false;
	int n;

	while ((n = take(p, f)) > 0)
		if (n == 42 && f[12] == 0x08 && f[13] == 0x06 &&
		    ntohl(fwd_ld32(f + 38)) == ip)
			seen = true;
	return (seen);
}

/* A packet from host1 on m0 to dst: the frame m1 forwards (0: none). */
static int
forward_to(uint32_t dst, uint8_t *f)
{
	flush_all();
	send_ip("m0", host1_mac, TF_IP(1, 2), dst, 64, 17);
	return (take(wport("m1"), f));
}

/*
 * Static neighbours (config, IfConfig.neighbours): installed on attach
 * with a host route, so traffic goes out at once without ARP; ARP does not
 * replace them; a new MAC, removal, detach and re-attach follow the
 * config; every bad entry refuses the whole batch and changes nothing.
 */
/* A full set naming a device that is not there (tern-mgmt's, after a
 * restart, with a device gone): the others are configured, that one kept
 * absent (no ifindex, not attached); a change to it is taken while it is
 * absent; a new interface on no device is still refused. */
static void
test_if_absent(void **st)
{
	static const struct ifspec set[] = {
	    {.name = "m0", .enabled = true, .addr = {"198.18.1.1/24"}},
	    {.name = "nosuchdev9",
		.backend = "afpacket",
		.enabled = true,
		.addr = {"198.18.9.1/24"}},
	};
	static const struct ifspec change[] = {{.name = "nosuchdev9",
	    .backend = "afpacket",
	    .enabled = true,
	    .addr = {"198.18.9.1/24", "198.18.10.1/24"}}};
	static const struct ifspec other[] = {
	    {.name = "nosuchdev8", .backend = "afpacket", .enabled = true}};
	struct fwd_iface *f;
	Fwd__InterfaceList *l;
	Fwd__IfConfigAck *a;
	bool seen = false;

	(void)st;
	a = if_config(set, 2, true, false);
	assert_true(a->ok);
	assert_non_null(f = fwd_d_if_find(D, "nosuchdev9"));
	assert_true(f->absent);
	assert_false(f->attached);
	assert_int_equal(f->ifindex, 0);
	assert_true(fwd_d_if_find(D, "m0")->attached);
	assert_true(fwd_local_has(&D->local, TF_IP(1, 1)));
	assert_false(fwd_local_has(&D->local, TF_IP(9, 1)));
	l = if_query();
	for (size_t i = 0; i < l->n_interfaces; i++)
		if (strcmp(l->interfaces[i]->name, "nosuchdev9") == 0) {
			assert_true(l->interfaces[i]->absent);
			assert_int_equal(l->interfaces[i]->ifindex, 0);
			seen = true;
		}
	assert_true(seen);
	a = if_config(change, 1, false, false);
	assert_true(a->ok);
	assert_int_equal(f->naddr, 2);
	assert_true(f->absent);
	a = if_config(other, 1, false, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "no such network device"));
	assert_null(fwd_d_if_find(D, "nosuchdev8"));
}

static void
test_static_neighbours(void **st)
{
	static const uint8_t mac7[6] = {0x02, 0x5e, 0, 0, 0x02, 0x07};
	static const uint8_t mac7b[6] = {0x02, 0x5e, 0, 0, 0x02, 0x77};
	static const uint8_t other[6] = {0x02, 0x99, 0x99, 0x99, 0x99, 0x99};
	struct ifspec c[2] = {
	    {.name = "m0", .enabled = true, .addr = {"198.18.1.1/24"}},
	    {.name = "m1",
		.enabled = true,
		.addr = {"198.18.2.1/24"},
		.neigh = {"198.18.2.7 02:5e:00:00:02:07",
		    "198.18.2.8 02:5e:00:00:02:08"}},
	};
	static const struct {
		const char *neigh;
		unsigned maclen, extra;
		const char *want;
	} bad[] = {
	    {"198.18.2.9 02:00:00:00:00:09", 5, 0, "a MAC of 5 bytes"},
	    {"198.18.2.9 01:00:5e:00:00:09", 0, 0,
		"01:00:5e:00:00:09 is not a unicast MAC"},
	    {"198.18.2.9 ff:ff:ff:ff:ff:ff", 0, 0, "not a unicast MAC"},
	    {"198.18.2.9 00:00:00:00:00:00", 0, 0, "not a unicast MAC"},
	    {"198.18.3.9 02:00:00:00:00:09", 0, 0,
		"198.18.3.9 is on none of the interface's subnets"},
	    {"198.18.2.1 02:00:00:00:00:09", 0, 0,
		"198.18.2.1 is an address of the interface"},
	    {"198.18.2.0 02:00:00:00:00:09", 0, 0,
		"network or broadcast address of 198.18.2.0/24"},
	    {"198.18.2.255 02:00:00:00:00:09", 0, 0,
		"network or broadcast address"},
	    {"198.18.2.7 02:00:00:00:00:09", 0, 0, "198.18.2.7 given twice"},
	    {NULL, 0, 65, "more than 64 static neighbours"},
	};
	uint8_t f[FWD_FRAME_MAX];
	Fwd__Neighbour *n;
	size_t cnt;

	(void)st;
	assert_true(if_config(c, 2, true, false)->ok);
	n = neigh_query(TF_IP(2, 7), &cnt);
	assert_non_null(n);
	assert_int_equal(cnt, 2);
	assert_int_equal(n->state, FWD__NEIGHBOUR_STATE__STATIC);
	assert_int_equal(n->ifindex, ifindex_of("m1"));
	assert_string_equal(n->ifname, "m1");
	assert_int_equal(n->mac.len, 6);
	assert_memory_equal(n->mac.data, mac7, 6);
	/* forwarded at once, to the configured MAC, without an ARP request */
	assert_int_equal(forward_to(TF_IP(2, 7), f), 14 + 20 + 32);
	assert_memory_equal(f, mac7, 6);
	assert_int_equal(f[FWD_ETH_HLEN + FWD_IP_TTL], 63);
	assert_false(sent_arp_for(tport("m1"), TF_IP(2, 7)));
	assert_false(sent_arp_for(wport("m1"), TF_IP(2, 7)));
	/* an ARP reply with another MAC does not replace it */
	send_arp_reply("m1", other, TF_IP(2, 7), TF_IP(2, 1));
	assert_memory_equal(neigh_query(TF_IP(2, 7), NULL)->mac.data, mac7, 6);
	assert_int_equal(forward_to(TF_IP(2, 7), f), 14 + 20 + 32);
	assert_memory_equal(f, mac7, 6);
	/* timers never age it */
	fwd_d_tick(D, fwd_d_now_ms(D) + 3600 * 1000);
	assert_int_equal(neigh_query(TF_IP(2, 7), NULL)->state,
	    FWD__NEIGHBOUR_STATE__STATIC);

	/* bad entries: the batch is refused, nothing changes */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ifspec b[2] = {c[0], c[1]};
		Fwd__IfConfigAck *a;

		b[1].neigh[1] = bad[i].neigh;
		b[1].neigh_maclen = bad[i].maclen;
		b[1].nneigh_extra = bad[i].extra;
		a = if_config(b, 2, true, false);
		assert_false(a->ok);
		if (strstr(a->error, bad[i].want) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, a->error,
			    bad[i].want);
		assert_false(if_config(b, 2, true, true)->ok); /* dry run */
		n = neigh_query(TF_IP(2, 8), &cnt);
		assert_int_equal(cnt, 2);
		assert_non_null(n);
		assert_int_equal(n->state, FWD__NEIGHBOUR_STATE__STATIC);
	}
	/* a dry run of a good change changes nothing either */
	c[1].neigh[0] = "198.18.2.7 02:5e:00:00:02:77";
	assert_true(if_config(c, 2, true, true)->ok);
	assert_memory_equal(neigh_query(TF_IP(2, 7), NULL)->mac.data, mac7, 6);
	/* a new MAC: the next packet goes to it */
	assert_true(if_config(c, 2, true, false)->ok);
	assert_memory_equal(neigh_query(TF_IP(2, 7), NULL)->mac.data, mac7b, 6);
	assert_int_equal(forward_to(TF_IP(2, 7), f), 14 + 20 + 32);
	assert_memory_equal(f, mac7b, 6);
	/* 64 entries on one interface are fine */
	c[1].nneigh_extra = 62;
	assert_true(if_config(c, 2, true, false)->ok);
	(void)neigh_query(0, &cnt);
	assert_int_equal(cnt, 64);
	c[1].nneigh_extra = 0;
	/* removed from the config: gone; traffic to it resolves by ARP */
	c[1].neigh[0] = NULL;
	assert_true(if_config(c, 2, true, false)->ok);
	assert_null(neigh_query(TF_IP(2, 7), &cnt));
	assert_int_equal(cnt, 1);
	flush_all();
	assert_int_equal(forward_to(TF_IP(2, 7), f), 0);
	assert_true(sent_arp_for(tport("m1"), TF_IP(2, 7)));
	/* a learned entry becomes static when config names it */
	send_arp_reply("m1", other, TF_IP(2, 7), TF_IP(2, 1));
	assert_int_equal(neigh_query(TF_IP(2, 7), NULL)->state,
	    FWD__NEIGHBOUR_STATE__REACHABLE);
	c[1].neigh[0] = "198.18.2.7 02:5e:00:00:02:07";
	assert_true(if_config(c, 2, true, false)->ok);
	n = neigh_query(TF_IP(2, 7), NULL);
	assert_int_equal(n->state, FWD__NEIGHBOUR_STATE__STATIC);
	assert_memory_equal(n->mac.data, mac7, 6);
	/* disabled (detached): gone with the port; enabled: back */
	c[1].enabled = false;
	assert_true(if_config(c, 2, true, false)->ok);
	(void)neigh_query(0, &cnt);
	assert_int_equal(cnt, 0);
	c[1].enabled = true;
	assert_true(if_config(c, 2, true, false)->ok);
	n = neigh_query(TF_IP(2, 7), &cnt);
	assert_int_equal(cnt, 2);
	assert_non_null(n);
	assert_int_equal(n->state, FWD__NEIGHBOUR_STATE__STATIC);
	assert_int_equal(forward_to(TF_IP(2, 7), f), 14 + 20 + 32);
	assert_memory_equal(f, mac7, 6);
	/* the interface deleted: its entries go; its port id, reused by a
	 * new interface, starts with none */
	assert_true(if_config(c, 1, true, false)->ok);
	(void)neigh_query(0, &cnt);
	assert_int_equal(cnt, 0);
	{
		struct ifspec m2 = {.name = "m2",
		    .enabled = true,
		    .addr = {"198.18.2.1/24"}};

		assert_true(if_config(&m2, 1, false, false)->ok);
		(void)neigh_query(0, &cnt);
		assert_int_equal(cnt, 0);
	}
}

static int
count_cb(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	uint32_t *cnt = arg;

	(void)pfx;
	(void)len;
	if (nh < D->adj->size)
		cnt[nh]++;
	return (0);
}

/* Every record's route count equals the FIB routes pointing at it. */
static void
check_refcounts(void)
{
	uint32_t *cnt = calloc(D->adj->size, sizeof(*cnt));

	(void)fwd_fib_walk(D->fib, count_cb, cnt);
	for (unsigned i = 0; i < D->adj->size; i++) {
		const struct fwd_rec *r = &D->rec[i];

		if (r->kind == FWD_REC_NONE)
			continue;
		if (r->routes != cnt[i])
			fail_msg("adjacency %u (kind %u): %u routes counted, "
				 "%u in the FIB",
			    i, r->kind, r->routes, cnt[i]);
		if (!r->dying)
			assert_true(r->routes + r->hold > 0);
	}
	free(cnt);
}

/* Random batches (some routes invalid, interfaces coming and going): the
 * counts stay exact, and with every route gone every next hop is freed. */
static void
test_refcount_random(void **st)
{
	static const struct ifspec with2[] = {{.name = "m0",
						  .enabled = true,
						  .addr = {"198.18.1.1/24"}},
	    {.name = "m1", .enabled = true, .addr = {"198.18.2.1/24"}},
	    {.name = "m2", .enabled = true, .addr = {"198.18.3.1/24"}}};
	struct rt add[32], del[32];
	uint32_t live[512][2];
	unsigned nlive = 0;

	(void)st;
	config_two();
	srandom(7);
	for (int round = 0; round < 300; round++) {
		unsigned na = 0, nd = 0;

		for (unsigned i = 0; i < 32; i++) {
			if (nlive > 0 && random() % 3 == 0) {
				unsigned k = (unsigned)random() % nlive;

				del[nd++] = (struct rt){.pfx = live[k][0],
				    .len = live[k][1]};
				live[k][0] = live[nlive - 1][0];
				live[k][1] = live[--nlive][1];
				continue;
			}
			{
				unsigned len = 16 + (unsigned)(random() % 17);
				uint32_t a = 0xc6130000u |
				    (uint32_t)(random() & 0xffff);
				struct rt *r = &add[na++];

				r->pfx = a & (0xffffffffu << (32 - len));
				r->len = len;
				r->n = (unsigned)(random() % 4);
				for (unsigned k = 0; k < r->n; k++) {
					unsigned side = 1 +
					    (unsigned)(random() % 3);

					r->gw[k] = random() % 5 == 0 ?
					    0 :
					    TF_IP(side, 10 + random() % 6);
					r->ifx[k] = random() % 2 ?
					    FWD_D_MEM_IFINDEX + side - 1 :
					    0;
				}
				if (random() % 10 == 0)
					r->pfx |= 1; /* host bits: fails */
				if (nlive < 512)
					live[nlive][0] = r->pfx,
					live[nlive++][1] = len;
			}
		}
		(void)fib_batch((uint64_t)round, add, na, del, nd);
		if (round % 50 == 25)
			assert_true(if_config(with2, 3, true, false)->ok);
		if (round % 50 == 49)
			assert_true(if_config(two, 2, true, false)->ok);
		if (round % 100 == 60) {
			resync(FWD__METHOD__RESYNC_BEGIN, 1);
			resync(FWD__METHOD__RESYNC_END, 2);
			nlive = 0; /* all swept */
		}
		if (round % 7 == 0)
			fwd_d_tick(D, fwd_d_now_ms(D));
		check_refcounts();
	}
	/* delete everything rib-like that is left */
	resync(FWD__METHOD__RESYNC_BEGIN, 3);
	resync(FWD__METHOD__RESYNC_END, 4);
	fwd_d_tick(D, fwd_d_now_ms(D));
	check_refcounts();
	for (unsigned i = 0; i < D->adj->size; i++) {
		const struct fwd_rec *r = &D->rec[i];

		if (r->kind == FWD_REC_NONE || r->kind == FWD_REC_DROP)
			continue;
		/* only the interfaces' own glean adjacencies are left */
		if (r->kind != FWD_REC_NH || r->gw != 0 || r->hold != 1)
			fail_msg("adjacency %u left: kind %u gw %08x hold %u "
				 "routes %u",
			    i, r->kind, r->gw, r->hold, r->routes);
	}
}

/* The read-only socket answers queries and refuses changes. */
static void
test_read_only(void **st)
{
	struct ipc_opts o = {0};
	struct ipc_client *ro;
	Fwd__IfConfigBatch b = FWD__IF_CONFIG_BATCH__INIT;
	Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
	ProtobufCMessage *rep;
	struct lc_err err;

	(void)st;
	config_two();
	o.rundir = rundir;
	o.component = "ternsh";
	ro = ipc_client_new(loop, &ipc_svc_fwd, &o, true);
	assert_non_null(ro);
	assert_int_equal(ipc_call_wait(ro, FWD__METHOD__QUERY_INTERFACES,
			     &q.base, 3000, ar, &rep, &err),
	    IPC_OK);
	assert_int_equal(((Fwd__InterfaceList *)rep)->n_interfaces, 2);
	b.replace_all = true; /* would remove both */
	assert_int_equal(ipc_call_wait(ro, FWD__METHOD__IF_CONFIG, &b.base,
			     3000, ar, &rep, &err),
	    IPC_DENIED);
	assert_int_equal(if_query()->n_interfaces, 2);
	ipc_client_free(ro);
}

/* rib may push routes before mgmt pushes the interfaces (fwd restarted):
 * they are accepted, drop as adj_down, and work once the interface comes. */
static void
test_route_before_interface(void **st)
{
	static const struct ifspec add2[] = {
	    {.name = "m2", .enabled = true, .addr = {"198.18.3.1/24"}}};
	static const struct ifspec del2[] = {{.name = "m2", .deleted = true}};
	/* m2 will be port 2: ifindex FWD_D_MEM_IFINDEX + 2 */
	struct rt r[2] = {
	    {0xc6130000u, 16, 1, {TF_IP(3, 7)}, {FWD_D_MEM_IFINDEX + 2}},
	    {0xc6140000u, 16, 1, {TF_IP(3, 8)}, {0}}, /* found by subnet */
	};
	unsigned nh0, nh1;
	uint8_t f[FWD_FRAME_MAX];

	(void)st;
	config_two();
	assert_int_equal(fib_batch(1, r, 2, NULL, 0)->applied, 2);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 16, &nh0), 0);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6140000u, 16, &nh1), 0);
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_DOWN);
	assert_int_equal(D->adj->ent[nh1].action, FWD_ADJ_A_DOWN);
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6130101u, 64, 17);
	assert_int_equal(drops("adj_down"), 1);
	assert_true(if_config(add2, 1, false, false)->ok);
	assert_int_equal(fwd_d_if_find(D, "m2")->ifindex,
	    FWD_D_MEM_IFINDEX + 2);
	assert_int_equal(D->adj->ent[nh0].port, 2);
	assert_int_equal(D->adj->ent[nh1].port, 2);
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_RESOLVE);
	send_arp_reply("m2", gw3_mac, TF_IP(3, 7), TF_IP(3, 1));
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_FORWARD);
	flush_all();
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6130101u, 64, 17);
	assert_int_equal(take(wport("m2"), f), 14 + 20 + 32);
	assert_memory_equal(f, gw3_mac, 6);
	/* the interface goes: the routes stay, their next hops go down */
	assert_true(if_config(del2, 1, false, false)->ok);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 16, &nh0), 0);
	assert_int_equal(D->adj->ent[nh0].action, FWD_ADJ_A_DOWN);
	assert_int_equal(D->adj->ent[nh0].port, FWD_D_PORT_DEAD);
}

/* A larger table through IPC in batches, then a resync that re-sends
 * half of it: the other half is swept and the next hops stay four. */
static void
test_fib_bulk(void **st)
{
	enum { N = 60000, B = 10000 }; /* /32s in 198.19.0.0/16 */
	struct rt *r = calloc(N, sizeof(*r));
	uint32_t m1;
	uint64_t t0, t1;
	Fwd__FibAck *a;
	unsigned nrec = 0;

	(void)st;
	config_two();
	m1 = ifindex_of("m1");
	for (unsigned i = 0; i < N; i++)
		r[i] = (struct rt){0xc6130000u + i, 32, 1,
		    {TF_IP(2, 10 + i % 4)}, {m1}};
	t0 = fwd_d_now_ms(D);
	for (unsigned i = 0; i < N; i += B)
		assert_int_equal(fib_batch(i, r + i, B, NULL, 0)->applied, B);
	t1 = fwd_d_now_ms(D);
	fprintf(stderr, "fib bulk: %u routes over IPC in %lu ms\n", N,
	    (unsigned long)(t1 - t0));
	assert_int_equal(fwd_fib_count(D->fib), N + 2);
	assert_true(D->dp_flags & FWD_DP_F_BURST_LOOKUP);
	assert_true(D->w[0]->dp.conf.flags & FWD_DP_F_BURST_LOOKUP);
	for (unsigned i = 0; i < D->adj->size; i++)
		if (D->rec[i].kind == FWD_REC_NH && D->rec[i].gw != 0)
			nrec++;
	assert_int_equal(nrec, 4);
	resync(FWD__METHOD__RESYNC_BEGIN, 100);
	for (unsigned i = 0; i < N / 2; i += B / 2)
		assert_int_equal(fib_batch(200 + i, r + i, B / 2, NULL, 0)
				     ->applied,
		    B / 2);
	a = resync(FWD__METHOD__RESYNC_END, 300);
	assert_int_equal(a->swept, N / 2);
	assert_int_equal(a->routes, N / 2 + 2);
	for (unsigned i = 0, nh; i < 4; i++) {
		assert_int_equal(fwd_fib_get(D->fib, r[i].pfx, 32, &nh), 0);
		assert_int_equal(D->rec[nh].routes, N / 2 / 4);
	}
	free(r);
}

/* ---- the packed FibBatch (fwd.proto packed_nh/packed_add/packed_del) ---- */

static void
pk_nh(uint8_t *r, uint32_t gw, uint32_t ifx)
{
	uint32_t a = htonl(gw), x = htonl(ifx);

	memcpy(r, &a, 4);
	memcpy(r + 4, &x, 4);
}

static void
pk_rec(uint8_t *r, uint32_t pfx, unsigned len, unsigned cnt, unsigned first)
{
	uint32_t a = htonl(pfx);

	memcpy(r, &a, 4);
	r[4] = (uint8_t)len;
	r[5] = (uint8_t)cnt;
	r[6] = (uint8_t)(first >> 8);
	r[7] = (uint8_t)first;
}

static Fwd__FibAck *
fib_packed(uint64_t seq, const uint8_t *nh, size_t nh_bytes, const uint8_t *add,
    size_t add_bytes, const uint8_t *del, size_t del_bytes,
    const struct rt *madd, unsigned nmadd)
{
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute r[4], *rp[4];
	uint32_t gw[4][4];
	Fwd__FibAck *ack;

	assert_true(nmadd <= 4);
	for (unsigned i = 0; i < nmadd; i++) {
		fwd__fib_route__init(&r[i]);
		r[i].prefix = htonl(madd[i].pfx);
		r[i].len = madd[i].len;
		for (unsigned k = 0; k < madd[i].n; k++)
			gw[i][k] = htonl(madd[i].gw[k]);
		r[i].nh_addr = gw[i];
		r[i].n_nh_addr = r[i].n_nh_ifindex = madd[i].n;
		r[i].nh_ifindex = (uint32_t *)madd[i].ifx;
		rp[i] = &r[i];
	}
	b.seq = seq;
	b.add = rp;
	b.n_add = nmadd;
	b.packed_nh.data = (uint8_t *)nh;
	b.packed_nh.len = nh_bytes;
	b.packed_add.data = (uint8_t *)add;
	b.packed_add.len = add_bytes;
	b.packed_del.data = (uint8_t *)del;
	b.packed_del.len = del_bytes;
	ack = (Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base);
	assert_int_equal(ack->seq, seq);
	assert_true(ack->packed_ok);
	return (ack);
}

/* Packed records apply as the same routes sent as messages would: the same
 * adjacencies, ECMP groups, blackholes, per-record failures by index (message
 * adds first), deletes; a malformed batch changes nothing. */
static void
test_fib_packed(void **st)
{
	uint8_t nh[3 * 8], add[7 * 8], del[2 * 8];
	struct rt m = {0xc6170000u, 16, 1, {TF_IP(2, 3)}, {0}};
	uint32_t m1;
	unsigned a0, a1, nh1, nh2;
	size_t n0;
	Fwd__FibAck *a;

	(void)st;
	config_two();
	m1 = ifindex_of("m1");
	m.ifx[0] = m1;
	/* rib learns that this fwd takes packed batches from RESYNC_BEGIN */
	assert_true(resync(FWD__METHOD__RESYNC_BEGIN, 5)->packed_ok);
	assert_true(resync(FWD__METHOD__RESYNC_END, 6)->packed_ok);
	pk_nh(nh, TF_IP(2, 3), m1);
	pk_nh(nh + 8, TF_IP(1, 5), 0); /* ifindex 0: by subnet */
	pk_nh(nh + 16, TF_IP(2, 4), m1);
	pk_rec(add, 0xc6130000u, 24, 1, 0);
	pk_rec(add + 8, 0xc6130100u, 24, 1, 0);
	pk_rec(add + 16, 0xc6140000u, 16, 2, 1); /* ECMP: nh 1, 2 */
	pk_rec(add + 24, 0xc6150000u, 16, 0, 0); /* blackhole */
	pk_rec(add + 32, 0xc6160001u, 24, 1, 0); /* host bits: fails */
	pk_rec(add + 40, 0xc6160000u, 33, 1, 0); /* length: fails */
	pk_rec(add + 48, 0xc6160000u, 24, 2, 2); /* beyond the table */
	n0 = fwd_fib_count(D->fib);
	a = fib_packed(1, nh, sizeof(nh), add, sizeof(add), NULL, 0, &m, 1);
	assert_int_equal(a->applied, 5);
	assert_int_equal(a->failed, 3);
	assert_int_equal(a->n_failed_index, 3);
	assert_int_equal(a->failed_index[0], 5); /* 1 message + 4 */
	assert_int_equal(a->failed_index[1], 6);
	assert_int_equal(a->failed_index[2], 7);
	assert_int_equal(fwd_fib_count(D->fib), n0 + 5);
	/* packed and message routes through 198.18.2.3 share one adjacency */
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130000u, 24, &a0), 0);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130100u, 24, &a1), 0);
	assert_int_equal(a0, a1);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6170000u, 16, &a1), 0);
	assert_int_equal(a0, a1);
	assert_int_equal(D->rec[a0].kind, FWD_REC_NH);
	assert_int_equal(D->rec[a0].gw, TF_IP(2, 3));
	assert_int_equal(D->rec[a0].routes, 3);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6140000u, 16, &nh2), 0);
	assert_int_equal(D->rec[nh2].kind, FWD_REC_GROUP);
	assert_int_equal(D->rec[nh2].nm, 2);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6150000u, 16, &nh1), 0);
	assert_int_equal(nh1, (unsigned)D->drop_adj);
	{
		Fwd__FibList *fl = fib_query(0xc6140000u, 16, true, false);

		assert_int_equal(fl->n_routes, 1);
		assert_int_equal(fl->routes[0]->n_nh_addr, 2);
	}
	check_refcounts();
	/* packed deletes (one absent: fine), and a message delete */
	pk_rec(del, 0xc6130000u, 24, 0, 0);
	pk_rec(del + 8, 0xc6180000u, 16, 0, 0);
	a = fib_packed(2, NULL, 0, NULL, 0, del, sizeof(del), NULL, 0);
	assert_int_equal(a->applied, 2);
	assert_int_equal(a->failed, 0);
	assert_int_not_equal(fwd_fib_get(D->fib, 0xc6130000u, 24, &nh1), 0);
	assert_int_equal(D->rec[a0].routes, 2);
	check_refcounts();
	/* malformed: not 8-byte records; nothing applied */
	n0 = fwd_fib_count(D->fib);
	pk_rec(add, 0xc6190000u, 24, 1, 0);
	a = fib_packed(3, nh, sizeof(nh), add, 12, del, 8, &m, 1);
	assert_int_equal(a->applied, 0);
	assert_int_equal(a->failed, 1 + 1 + 1);
	a = fib_packed(4, nh, 20, add, 8, NULL, 0, NULL, 0);
	assert_int_equal(a->applied, 0);
	assert_int_equal(a->failed, 1);
	assert_int_equal(fwd_fib_count(D->fib), n0);
	assert_int_not_equal(fwd_fib_get(D->fib, 0xc6190000u, 24, &nh1), 0);
	assert_int_equal(fwd_fib_get(D->fib, 0xc6130100u, 24, &nh1), 0);
	check_refcounts();
}

/* ---- events ---- */

static unsigned nev;
static char ev_name[16];
static bool ev_deleted;
static uint32_t ev_ifindex, ev_addr;
static int ev_link;

static void
on_event(struct ipc_client *c, unsigned method, const ProtobufCMessage *msg,
    void *arg)
{
	const Fwd__InterfaceEvent *e = (const Fwd__InterfaceEvent *)msg;

	(void)c;
	(void)arg;
	if (method != FWD__METHOD__EVENT_INTERFACE)
		return;
	nev++;
	snprintf(ev_name, sizeof(ev_name), "%s", e->iface->name);
	ev_deleted = e->deleted;
	ev_ifindex = e->iface->ifindex;
	ev_link = e->iface->link;
	ev_addr = e->iface->n_addrs ? ntohl(e->iface->addrs[0]->addr) : 0;
}

static void
wait_events(unsigned want)
{
	for (int i = 0; i < 200 && nev < want; i++)
		ev_run(loop, EVRUN_ONCE);
	assert_int_equal(nev, want);
}

static void
test_events(void **st)
{
	struct ipc_opts o = {0};
	struct ipc_client_cbs cbs = {.on_event = on_event};
	struct ipc_client *sub;
	Fwd__Subscribe s = FWD__SUBSCRIBE__INIT;
	Fwd__InterfaceList *l;
	ProtobufCMessage *rep;
	struct lc_err err;
	static const struct ifspec add2[] = {
	    {.name = "m2", .enabled = true, .addr = {"198.18.3.1/24"}}};
	static const struct ifspec del2[] = {{.name = "m2", .deleted = true}};

	(void)st;
	config_two();
	o.rundir = rundir;
	o.component = "rib";
	sub = ipc_client_new(loop, &ipc_svc_fwd, &o, false);
	ipc_client_set_cbs(sub, &cbs);
	s.interfaces = true;
	assert_int_equal(ipc_call_wait(sub, FWD__METHOD__SUBSCRIBE, &s.base,
			     3000, ar, &rep, &err),
	    IPC_OK);
	l = (Fwd__InterfaceList *)rep;
	assert_int_equal(l->n_interfaces, 2);
	nev = 0;
	assert_true(if_config(add2, 1, false, false)->ok);
	wait_events(1);
	assert_string_equal(ev_name, "m2");
	assert_false(ev_deleted);
	assert_int_equal(ev_ifindex, ifindex_of("m2"));
	assert_int_equal(ev_link, FWD__LINK_STATE__LINK_UP);
	assert_int_equal(ev_addr, TF_IP(3, 1));
	/* unchanged: no event */
	assert_true(if_config(add2, 1, false, false)->ok);
	assert_true(if_config(del2, 1, false, false)->ok);
	wait_events(2);
	assert_string_equal(ev_name, "m2");
	assert_true(ev_deleted);
	assert_int_equal(ev_link, FWD__LINK_STATE__LINK_DOWN);
	ipc_client_free(sub);
}

#define UNSET (-1) /* a setting not sent: back to the start value */

/* FwdConfig: each value or UNSET */
static Fwd__IfConfigAck *
set_config(long workers, long icmp, bool dry)
{
	Fwd__FwdConfig c = FWD__FWD_CONFIG__INIT;

	c.txn = 5;
	c.has_workers = workers != UNSET;
	c.workers = workers != UNSET ? (uint32_t)workers : 0;
	c.has_icmp_rate_limit = icmp != UNSET;
	c.icmp_rate_limit = icmp != UNSET ? (uint32_t)icmp : 0;
	c.dry_run = dry;
	return ((Fwd__IfConfigAck *)call(FWD__METHOD__SET_CONFIG, &c.base));
}

/* One route of the given kind (message encoding), n next hops from r */
static Fwd__FibAck *
fib_kind(uint64_t seq, uint32_t pfx, unsigned len, Fwd__RouteKind kind,
    unsigned n)
{
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute r = FWD__FIB_ROUTE__INIT, *rp = &r;
	uint32_t gw = htonl(TF_IP(2, 3)), ifx = 0;

	r.prefix = htonl(pfx);
	r.len = len;
	r.kind = kind;
	r.nh_addr = &gw;
	r.nh_ifindex = &ifx;
	r.n_nh_addr = r.n_nh_ifindex = n;
	b.seq = seq;
	b.add = &rp;
	b.n_add = 1;
	return ((Fwd__FibAck *)call(FWD__METHOD__FIB_BATCH, &b.base));
}

/* The ICMP error the router sent back out of `in`: type << 8 | code, or
 * -1 when nothing came. */
static int
icmp_back(const char *in)
{
	uint8_t f[FWD_FRAME_MAX];
	int n;

	while ((n = take(tport(in), f)) > 0) {
		const uint8_t *ip = f + FWD_ETH_HLEN;

		if (n < FWD_ETH_HLEN + FWD_IPV4_HLEN + 8 || ip[9] != 1)
			continue;
		return (ip[FWD_IPV4_HLEN] << 8 | ip[FWD_IPV4_HLEN + 1]);
	}
	return (-1);
}

/* Reject routes: the packet is dropped with ICMP host unreachable (a
 * blackhole stays silent), in both encodings, and a query says which. */
static void
test_reject(void **st)
{
	uint8_t add[2 * 8];
	Fwd__FibList *fl;
	Fwd__FibAck *a;

	(void)st;
	config_two();
	assert_int_equal(fib_kind(1, 0xc6140000u, 16,
			     FWD__ROUTE_KIND__ROUTE_REJECT, 0)
			     ->applied,
	    1);
	assert_int_equal(fib_kind(2, 0xc6150000u, 16,
			     FWD__ROUTE_KIND__ROUTE_BLACKHOLE, 0)
			     ->applied,
	    1);
	flush_all();
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6140101u, 64, 17);
	assert_int_equal(drops("reject"), 1);
	assert_int_equal(icmp_back("m0"), 3 << 8 | 1);
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6150101u, 64, 17);
	assert_int_equal(drops("blackhole"), 1);
	assert_int_equal(icmp_back("m0"), -1);
	fl = fib_query(0xc6140000u, 16, true, false);
	assert_int_equal(fl->n_routes, 1);
	assert_int_equal(fl->routes[0]->kind, FWD__ROUTE_KIND__ROUTE_REJECT);
	assert_int_equal(fl->routes[0]->n_nh_addr, 0);
	fl = fib_query(0xc6150000u, 16, true, false);
	assert_int_equal(fl->routes[0]->kind, FWD__ROUTE_KIND__ROUTE_BLACKHOLE);
	/* a reject with next hops is refused and changes nothing */
	a = fib_kind(3, 0xc6160000u, 16, FWD__ROUTE_KIND__ROUTE_REJECT, 1);
	assert_int_equal(a->failed, 1);
	a = fib_kind(4, 0xc6160000u, 16, FWD__ROUTE_KIND__ROUTE_BLACKHOLE, 1);
	assert_int_equal(a->failed, 1);
	a = fib_kind(5, 0xc6160000u, 16, (Fwd__RouteKind)7, 0);
	assert_int_equal(a->failed, 1);
	assert_int_equal(fib_query(0xc6160000u, 16, true, false)->n_routes, 0);
	/* packed: count 0, the next-hop field holds the kind; 3 is bad */
	assert_true(resync(FWD__METHOD__RESYNC_BEGIN, 5)->packed_ok);
	assert_true(resync(FWD__METHOD__RESYNC_END, 6)->packed_ok);
	pk_rec(add, 0xc6150000u, 16, 0, 2); /* blackhole -> reject */
	pk_rec(add + 8, 0xc6170000u, 16, 0, 3);
	a = fib_packed(7, NULL, 0, add, sizeof(add), NULL, 0, NULL, 0);
	assert_int_equal(a->applied, 1);
	assert_int_equal(a->failed, 1);
	assert_int_equal(fib_query(0xc6150000u, 16, true, false)
			     ->routes[0]
			     ->kind,
	    FWD__ROUTE_KIND__ROUTE_REJECT);
	assert_int_equal(fib_query(0xc6170000u, 16, true, false)->n_routes, 0);
	flush_all();
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6150101u, 64, 17);
	assert_int_equal(icmp_back("m0"), 3 << 8 | 1);
}

/* icmp-rate-limit at run time: 0 sends none, unset goes back to the start
 * value; workers cannot change without worker threads; bad values are
 * refused and change nothing. */
static void
test_set_config(void **st)
{
	Fwd__IfConfigAck *a;

	(void)st;
	config_two();
	assert_int_equal(fib_kind(1, 0xc6140000u, 16,
			     FWD__ROUTE_KIND__ROUTE_REJECT, 0)
			     ->applied,
	    1);
	flush_all();
	a = set_config(UNSET, 0, false); /* icmp-rate-limit 0 */
	assert_true(a->ok);
	assert_int_equal(a->txn, 5);
	send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6140101u, 64, 17);
	assert_int_equal(icmp_back("m0"), -1);
	assert_int_equal(D->icmp.st.rate_limited, 1);
	/* 2 per second: a burst of 2, then limited */
	assert_true(set_config(UNSET, 2, false)->ok);
	for (unsigned i = 0; i < 5; i++)
		send_ip("m0", host1_mac, TF_IP(1, 2), 0xc6140101u, 64, 17);
	assert_int_equal(icmp_back("m0"), 3 << 8 | 1);
	assert_int_equal(icmp_back("m0"), 3 << 8 | 1);
	assert_int_equal(icmp_back("m0"), -1);
	/* unset: the start value (100/s, burst 50) */
	assert_true(set_config(UNSET, UNSET, false)->ok);
	assert_int_equal(D->icmp_rate_cur, 100);
	/* refused, nothing changed */
	a = set_config(UNSET, 1000001, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "icmp-rate-limit"));
	a = set_config(0, UNSET, false); /* workers 0 */
	assert_false(a->ok);
	a = set_config(3, 6, false); /* unthreaded test daemon */
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "worker threads"));
	assert_int_equal(D->icmp_rate_cur, 100);
	/* dry run: validated, not applied */
	assert_true(set_config(UNSET, 7, true)->ok);
	assert_int_equal(D->icmp_rate_cur, 100);
	assert_int_equal(D->nworkers, 1);
}

/* Settings inside an interface batch (a commit changing both): checked
 * together, applied together or not at all; a dry run applies neither. */
static void
test_settings_with_interfaces(void **st)
{
	Fwd__FwdConfig c = FWD__FWD_CONFIG__INIT;
	struct ifspec m0 = two[0];
	struct ifspec bad = two[1];
	Fwd__IfConfigAck *a;

	(void)st;
	config_two();
	m0.mtu = 1400;
	/* dry run: checked, nothing applied */
	c.has_icmp_rate_limit = true;
	c.icmp_rate_limit = 7;
	c.txn = 1234; /* ignored: the batch's */
	if_settings = &c;
	a = if_config(&m0, 1, false, true);
	assert_true(a->ok);
	assert_int_equal(a->txn, 99);
	assert_int_equal(D->icmp_rate_cur, 100);
	assert_int_equal(fwd_d_if_find(D, "m0")->mtu, 1500);
	/* both applied */
	if_settings = &c;
	assert_true(if_config(&m0, 1, false, false)->ok);
	assert_int_equal(D->icmp_rate_cur, 7);
	assert_int_equal(fwd_d_if_find(D, "m0")->mtu, 1400);
	/* a bad setting refuses the interfaces too */
	m0.mtu = 1300;
	c.icmp_rate_limit = 1000001;
	if_settings = &c;
	a = if_config(&m0, 1, false, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "icmp-rate-limit"));
	assert_int_equal(fwd_d_if_find(D, "m0")->mtu, 1400);
	/* workers 0, the same */
	c.has_icmp_rate_limit = false;
	c.has_workers = true;
	c.workers = 0;
	if_settings = &c;
	assert_false(if_config(&m0, 1, false, false)->ok);
	assert_int_equal(fwd_d_if_find(D, "m0")->mtu, 1400);
	/* a bad interface refuses the settings too */
	c.has_workers = false;
	c.has_icmp_rate_limit = true;
	c.icmp_rate_limit = 9;
	bad.backend = "nosuch";
	if_settings = &c;
	a = if_config(&bad, 1, false, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "nosuch"));
	assert_int_equal(D->icmp_rate_cur, 7);
	/* unset: the start values back, with the interface */
	c.has_icmp_rate_limit = false;
	if_settings = &c;
	assert_true(if_config(&m0, 1, false, false)->ok);
	assert_int_equal(D->icmp_rate_cur, 100);
	assert_int_equal(fwd_d_if_find(D, "m0")->mtu, 1300);
	assert_int_equal(D->nworkers, 1);
}

/* ---- IPv6 Neighbour Discovery (fwd_d_nd.c) ---- */

static const Fwd__Interface *
if_named(const Fwd__InterfaceList *l, const char *name)
{
	for (size_t i = 0; i < l->n_interfaces; i++)
		if (strcmp(l->interfaces[i]->name, name) == 0)
			return (l->interfaces[i]);
	fail_msg("no interface %s", name);
	return (NULL);
}

/* The IPv6 neighbours (family 6, 46 or 0) fwd reports. */
static size_t
neigh6_count(unsigned family, size_t *v4)
{
	Fwd__NeighbourQuery q = FWD__NEIGHBOUR_QUERY__INIT;
	Fwd__NeighbourList *l;
	size_t n6 = 0;

	q.family = family;
	l = (Fwd__NeighbourList *)call(FWD__METHOD__QUERY_NEIGHBOURS, &q.base);
	*v4 = 0;
	for (size_t i = 0; i < l->n_neighbours; i++) {
		if (l->neighbours[i]->addr6.len == 16)
			n6++;
		else
			(*v4)++;
	}
	return (n6);
}

/* A DAD probe (NS from ::) for target among the frames port p sent. */
static bool
sent_dad_for(struct fwd_port *p, const uint8_t *target)
{
	uint8_t f[FWD_FRAME_MAX];
	int n;
	bool seen = false;

	while ((n = fwd_port_mem_take(p, f, sizeof(f))) > 0)
		if (n >= 78 && fwd_ld16(f + 12) == htons(0x86dd) &&
		    f[54] == 135 && f[22] == 0 && f[23] == 0 &&
		    memcmp(f + 62, target, 16) == 0)
			seen = true;
	return (seen);
}

static void
test_ipv6_nd(void **st)
{
	static const struct ifspec v6[] = {
	    {.name = "m0",
		.enabled = true,
		.addr = {"198.18.1.1/24"},
		.addr6 = {"2001:2:0:1::1/64"}},
	    {.name = "m1",
		.enabled = true,
		.addr = {"198.18.2.1/24"},
		.addr6 = {"2001:2:0:2::1/64"},
		.ll6 = "fe80::1",
		.neigh = {"198.18.2.9 02:00:00:00:02:09"},
		.neigh6 = "2001:2:0:2::7 02:00:00:00:02:07",
		.ra = true,
		.ra_mtu = 1400},
	};
	static const struct ifspec bad_addr[] = {
	    {.name = "m0", .enabled = true, .addr6 = {"fe80::5/64"}}};
	static const struct ifspec bad_neigh[] = {{.name = "m0",
	    .enabled = true,
	    .addr6 = {"2001:2:0:1::1/64"},
	    .neigh6 = "2001:2:0:9::7 02:00:00:00:02:07"}};
	static const struct ifspec bad_ll[] = {
	    {.name = "m0", .enabled = true, .ll6 = "fe80:0:0:1::1"}};
	static const struct ifspec bad_ra[] = {
	    {.name = "m0", .enabled = true, .ra = true, .ra_mtu = 1000}};
	static const struct ifspec off[] = {
	    {.name = "m0", .enabled = true, .ipv6_off = true}};
	const Fwd__InterfaceList *il;
	const Fwd__Interface *x;
	Fwd__IfConfigAck *a;
	struct lc_ip6 g0, ll0;
	struct lc_err e;
	size_t v4;
	struct fwd_iface *f;

	(void)st;
	assert_int_equal(lc_inet6_parse("2001:2:0:1::1", 0, &g0, NULL, &e), 0);
	/* refused, with what is wrong */
	a = if_config(bad_addr, 1, true, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "fe80::5/64 is not a usable global"));
	a = if_config(bad_neigh, 1, true, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error,
	    "static neighbour 2001:2:0:9::7 is on none of the interface's "
	    "IPv6 prefixes"));
	a = if_config(bad_ll, 1, true, false);
	assert_false(a->ok);
	assert_non_null(
	    strstr(a->error, "m0: link-local address: 16 bytes in fe80::/64"));
	a = if_config(bad_ra, 1, true, false);
	assert_false(a->ok);
	assert_non_null(strstr(a->error, "m0: router advertisement"));
	/* taken: the addresses tentative, DAD probes sent */
	a = if_config(v6, 2, true, false);
	assert_true(a->ok);
	f = fwd_d_if_find(D, "m0");
	assert_non_null(f);
	fwd_nd_ll_from_mac(f->mac, ll0.b);
	assert_true(sent_dad_for(tport("m0"), g0.b));
	il = if_query();
	x = if_named(il, "m0");
	assert_int_equal(x->n_addrs6, 0);
	/* the (derived) link-local and the global, in ND's order */
	assert_int_equal(x->n_addrs6_tentative, 2);
	assert_memory_equal(x->addrs6_tentative[0]->addr.data, ll0.b, 16);
	assert_memory_equal(x->addrs6_tentative[1]->addr.data, g0.b, 16);
	assert_int_equal(x->addrs6_tentative[1]->len, 64);
	assert_int_equal(x->link_local.len, 0);
	assert_false(x->ra_enabled);
	assert_true(if_named(il, "m1")->ra_enabled);
	/* RetransTimer later: in use */
	usleep(1100 * 1000);
	fwd_d_tick(D, fwd_d_now_ms(D));
	il = if_query();
	x = if_named(il, "m0");
	assert_int_equal(x->n_addrs6, 1);
	assert_int_equal(x->n_addrs6_tentative, 0);
	assert_memory_equal(x->addrs6[0]->addr.data, g0.b, 16);
	assert_int_equal(x->link_local.len, 16);
	assert_memory_equal(x->link_local.data, ll0.b, 16);
	x = if_named(il, "m1");
	assert_int_equal(x->link_local.len, 16);
	assert_int_equal(x->link_local.data[15], 1); /* fe80::1 */
	assert_true(fwd_nd_is_ours(D->nd, g0.b));
	/* neighbours: family 0 and 4 IPv4 only, 6 IPv6, 46 both */
	assert_int_equal(neigh6_count(0, &v4), 0);
	assert_int_equal(v4, 1);
	assert_int_equal(neigh6_count(4, &v4), 0);
	assert_int_equal(v4, 1);
	assert_int_equal(neigh6_count(6, &v4), 1);
	assert_int_equal(v4, 0);
	assert_int_equal(neigh6_count(46, &v4), 1);
	assert_int_equal(v4, 1);
	/* the same again: unchanged, nothing sent */
	flush_all();
	a = if_config(v6, 2, true, false);
	assert_true(a->ok);
	assert_false(sent_dad_for(tport("m0"), g0.b));
	assert_true(fwd_nd_is_ours(D->nd, g0.b));
	/* IPv6 off on m0: no address, no link-local */
	a = if_config(off, 1, false, false);
	assert_true(a->ok);
	assert_false(fwd_nd_is_ours(D->nd, g0.b));
	x = if_named(if_query(), "m0");
	assert_int_equal(x->n_addrs6 + x->n_addrs6_tentative, 0);
	assert_int_equal(x->link_local.len, 0);
	/* m1 deleted: its static IPv6 neighbour with it */
	{
		static const struct ifspec del[] = {
		    {.name = "m1", .deleted = true}};

		a = if_config(del, 1, false, false);
		assert_true(a->ok);
		assert_int_equal(neigh6_count(6, &v4), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_interfaces, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6_nd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_if_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_if_absent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_static_neighbours, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_if_dry_run_and_replace, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_address_change, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_fib_batch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fib_sorted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ecmp_blackhole, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_set_config, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_settings_with_interfaces,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(test_neighbours_drops, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_route_before_interface, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_fib_bulk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fib_packed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refcount_random, setup,
		teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
