/*
 * mgmt/mgmt_metrics.c: the Prometheus endpoint (`system metrics`). An HTTP
 * server of libmicrohttpd on tern-mgmt's own loop (its epoll fd watched by
 * libev, no thread of its own); a GET of /metrics suspends the connection,
 * asks each component over IPC what it counts (the same queries `show`
 * makes), and answers once every reply is in (or its deadline passed) in
 * the Prometheus text format (version 0.0.4). docs/operations.md, "Metrics".
 */
#include "mgmt_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

/* a component that does not answer in this long is left out of the scrape
 * (tern_metrics_source_up 0), not waited for: Prometheus's own scrape
 * timeout is 10 s by default */
#define METRICS_CALL_MS	       2000
#define METRICS_CONN_MAX       16
#define METRICS_CONN_TIMEOUT_S 10

/* What is asked, one call each. */
enum ask {
	A_IFS,
	A_DROPS,
	A_FIB,
	A_SOURCES,
	A_FIBST,
	A_BGP,
	A_COMPS,
	A_ST_FWD, /* lifecycle STATUS of each: its IPC counters */
	A_ST_RIB,
	A_ST_BGP,
	A_ST_RTRMGR,
	A__COUNT
};

static const char *const ask_comp[A__COUNT] = {"fwd", "fwd", "fwd", "rib",
    "rib", "bgp", "rtrmgr", "fwd", "rib", "bgp", "rtrmgr"};

/* lifecycle STATUS counters, in the order ipc_server.c sends them */
#define ST_N 8
static const char *const st_names[ST_N] = {"calls_in", "replies_out",
    "events_out", "frames_in", "frames_out", "drops", "errors", "peers"};

struct scrape;

struct mgmt_metrics {
	struct mgmt *m;
	struct MHD_Daemon *mhd;
	ev_io io;
	ev_timer tm;
	uint32_t addr; /* network order */
	unsigned port;
	struct scrape *live; /* scrapes waiting for replies */
	uint64_t scrapes, not_found;
	double last_s; /* the last scrape's duration */
};

struct scrape {
	struct mgmt_metrics *mm; /* NULL: the server went away */
	struct MHD_Connection *conn;
	struct scrape *next;
	unsigned refs; /* the connection's, and one per call in flight */
	bool done;     /* every answer in: out is the page */
	uint64_t t0;
	struct lc_buf sec[A__COUNT]; /* each answer, rendered */
	bool ok[A__COUNT];
	/* lifecycle counters, kept: one family spans every component */
	bool st_ok[4];
	uint64_t st[4][ST_N];
	struct lc_buf out;
};

struct call {
	struct scrape *s;
	enum ask a;
};

/* ---- the text format ---- */

/* A label value with \, " and newline escaped (descriptions are free
 * text). */
static void
esc(struct lc_buf *b, const char *v)
{
	for (; v != NULL && *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			(void)lc_buf_printf(b, "\\%c", *v);
		else if (*v == '\n')
			(void)lc_buf_printf(b, "\\n");
		else
			(void)lc_buf_append(b, v, 1);
	}
}

static void
fam(struct lc_buf *b, const char *name, const char *type, const char *help)
{
	(void)lc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
	    type);
}

/* name{k1="v1",...} value: labels as pairs of strings, NULL-ended. */
static void
sample(struct lc_buf *b, const char *name, uint64_t v, ...)
{
	va_list ap;
	const char *k;
	bool first = true;

	(void)lc_buf_printf(b, "%s", name);
	va_start(ap, v);
	while ((k = va_arg(ap, const char *)) != NULL) {
		const char *val = va_arg(ap, const char *);

		(void)lc_buf_printf(b, "%s%s=\"", first ? "{" : ",", k);
		esc(b, val);
		(void)lc_buf_printf(b, "\"");
		first = false;
	}
	va_end(ap);
	(void)lc_buf_printf(b, "%s %llu\n", first ? "" : "}",
	    (unsigned long long)v);
}

/* ---- rendering each answer ---- */

static void
r_ifs(struct mgmt *m, struct lc_buf *b, const Fwd__InterfaceList *l)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} ctr[] = {
#define C(f, h) {"tern_interface_" #f "_total", h, offsetof(Fwd__IfCounters, f)}
	    C(rx_packets, "Frames received on the port"),
	    C(rx_bytes, "Bytes received on the port"),
	    C(tx_packets, "Frames sent on the port"),
	    C(tx_bytes, "Bytes sent on the port"),
	    C(rx_drops, "Frames lost before tern-fwd saw them"),
	    C(tx_drops, "Frames the port could not send"),
	    C(rx_ring_full, "Of rx_drops: tern-fwd's receive ring was full"),
	    C(rx_oversize,
		"Of rx_drops: frames over 2048 bytes (a sender's "
		"TSO/GSO super-frames through a veth)"),
	    C(rx_csum_filled,
		"Frames whose L4 checksum a local sender left "
		"to the device, filled in by tern-fwd"),
#undef C
	};
	char nm[MGMT_NAME_MAX + 8];

	fam(b, "tern_interface_up", "gauge",
	    "1 when the interface's link is up (0: down, disabled or absent)");
	for (size_t i = 0; i < l->n_interfaces; i++) {
		const Fwd__Interface *f = l->interfaces[i];

		sample(b, "tern_interface_up",
		    f->link == FWD__LINK_STATE__LINK_UP && !f->absent,
		    "interface", mgmt_show_if_name(m, f->name, nm, sizeof(nm)),
		    "device", f->name, NULL);
	}
	fam(b, "tern_interface_present", "gauge",
	    "1 when the interface's device exists (0: absent, waiting for it)");
	for (size_t i = 0; i < l->n_interfaces; i++) {
		const Fwd__Interface *f = l->interfaces[i];

		sample(b, "tern_interface_present", !f->absent, "interface",
		    mgmt_show_if_name(m, f->name, nm, sizeof(nm)), "device",
		    f->name, NULL);
	}
	fam(b, "tern_interface_mtu_bytes", "gauge",
	    "IP MTU the interface forwards with");
	for (size_t i = 0; i < l->n_interfaces; i++) {
		const Fwd__Interface *f = l->interfaces[i];

		sample(b, "tern_interface_mtu_bytes", f->mtu, "interface",
		    mgmt_show_if_name(m, f->name, nm, sizeof(nm)), "device",
		    f->name, NULL);
	}
	/* raw counters (monotonic: clear interfaces statistics is a
	 * baseline `show` subtracts, never a reset of these) */
	for (size_t c = 0; c < sizeof(ctr) / sizeof(ctr[0]); c++) {
		fam(b, ctr[c].name, "counter", ctr[c].help);
		for (size_t i = 0; i < l->n_interfaces; i++) {
			const Fwd__Interface *f = l->interfaces[i];
			uint64_t v = 0;

			if (f->counters != NULL)
				memcpy(&v,
				    (const char *)f->counters + ctr[c].off,
				    sizeof(v));
			sample(b, ctr[c].name, v, "interface",
			    mgmt_show_if_name(m, f->name, nm, sizeof(nm)),
			    "device", f->name, NULL);
		}
	}
}

static void
r_drops(struct lc_buf *b, const Fwd__DropList *l)
{
	char ifx[16];

	fam(b, "tern_fwd_drops_total", "counter",
	    "Frames tern-fwd dropped, by reason (docs/fwd.md)");
	for (size_t i = 0; i < l->n_drops; i++) {
		const Fwd__DropCounter *d = l->drops[i];

		if (d->ifindex == 0) {
			sample(b, "tern_fwd_drops_total", d->count, "reason",
			    d->reason, NULL);
		} else {
			snprintf(ifx, sizeof(ifx), "%u", d->ifindex);
			sample(b, "tern_fwd_drops_total", d->count, "reason",
			    d->reason, "ifindex", ifx, NULL);
		}
	}
}

static void
r_fib(struct lc_buf *b, const Fwd__FibList *l)
{
	fam(b, "tern_fib_routes", "gauge", "Routes in tern-fwd's FIB");
	sample(b, "tern_fib_routes", l->total, NULL);
}

static void
r_sources(struct lc_buf *b, const Rib__SourceList *l)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} g[] = {
#define G(f, n, h) {"tern_rib_" n, h, offsetof(Rib__SourceInfo, f)}
	    G(routes, "routes", "Routes in tern-rib, by source"),
	    G(active, "routes_active", "Of them, selected for the FIB"),
	    G(inactive, "routes_inactive", "Of them, next hop unresolvable"),
	    G(stale, "routes_stale", "Of them, stale (the source restarting)"),
#undef G
	};

	for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		fam(b, g[k].name, "gauge", g[k].help);
		for (size_t i = 0; i < l->n_sources; i++) {
			uint32_t v;

			memcpy(&v, (const char *)l->sources[i] + g[k].off,
			    sizeof(v));
			sample(b, g[k].name, v, "source",
			    l->sources[i]->source_name, NULL);
		}
	}
	fam(b, "tern_rib_source_connected", "gauge",
	    "1 when the source's owner is connected to tern-rib");
	for (size_t i = 0; i < l->n_sources; i++)
		sample(b, "tern_rib_source_connected", l->sources[i]->connected,
		    "source", l->sources[i]->source_name, NULL);
}

static void
r_fibst(struct lc_buf *b, const Rib__FibStatus *f)
{
	fam(b, "tern_rib_fib_routes", "gauge",
	    "Routes tern-rib has sent to tern-fwd's FIB");
	sample(b, "tern_rib_fib_routes", f->routes, NULL);
	fam(b, "tern_rib_fib_pending", "gauge",
	    "FIB changes queued in tern-rib, not sent yet");
	sample(b, "tern_rib_fib_pending", f->pending, NULL);
	fam(b, "tern_rib_fib_inflight", "gauge",
	    "FIB changes sent to tern-fwd, not acknowledged yet");
	sample(b, "tern_rib_fib_inflight", f->inflight, NULL);
	fam(b, "tern_rib_fib_batches_total", "counter",
	    "FIB batches tern-rib sent to tern-fwd");
	sample(b, "tern_rib_fib_batches_total", f->batches, NULL);
}

static void
r_bgp(struct lc_buf *b, const Bgp__NeighborList *l)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} c[] = {
#define N(f, t, h) {"tern_bgp_" #f, t, h, offsetof(Bgp__NeighborState, f)}
	    N(prefixes_received, "gauge", "Prefixes the neighbour announced"),
	    N(prefixes_accepted, "gauge", "Of them, accepted by import policy"),
	    N(prefixes_advertised, "gauge", "Prefixes sent to the neighbour"),
#undef N
#define N(f, h) \
	{"tern_bgp_" #f "_total", "counter", h, offsetof(Bgp__NeighborState, f)}
	    N(msgs_in, "BGP messages received"),
	    N(msgs_out, "BGP messages sent"),
	    N(updates_in, "UPDATE messages received"),
	    N(updates_out, "UPDATE messages sent"),
#undef N
	};
	char a[INET_ADDRSTRLEN], as[16];

	fam(b, "tern_bgp_session_established", "gauge",
	    "1 when the session is Established");
	for (size_t i = 0; i < l->n_neighbors; i++) {
		const Bgp__NeighborState *n = l->neighbors[i];
		struct in_addr ia = {n->address};

		inet_ntop(AF_INET, &ia, a, sizeof(a));
		snprintf(as, sizeof(as), "%u", n->remote_as);
		sample(b, "tern_bgp_session_established",
		    n->state == BGP__STATE__ESTABLISHED, "neighbor", a,
		    "peer_as", as, NULL);
	}
	fam(b, "tern_bgp_session_state", "gauge",
	    "FSM state: 0 Idle, 1 Connect, 2 Active, 3 OpenSent, 4 "
	    "OpenConfirm, 5 Established");
	for (size_t i = 0; i < l->n_neighbors; i++) {
		const Bgp__NeighborState *n = l->neighbors[i];
		struct in_addr ia = {n->address};

		inet_ntop(AF_INET, &ia, a, sizeof(a));
		snprintf(as, sizeof(as), "%u", n->remote_as);
		sample(b, "tern_bgp_session_state", (uint64_t)n->state,
		    "neighbor", a, "peer_as", as, NULL);
	}
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		fam(b, c[k].name, c[k].type, c[k].help);
		for (size_t i = 0; i < l->n_neighbors; i++) {
			const Bgp__NeighborState *n = l->neighbors[i];
			struct in_addr ia = {n->address};
			uint64_t v;

			memcpy(&v, (const char *)n + c[k].off, sizeof(v));
			inet_ntop(AF_INET, &ia, a, sizeof(a));
			snprintf(as, sizeof(as), "%u", n->remote_as);
			sample(b, c[k].name, v, "neighbor", a, "peer_as", as,
			    NULL);
		}
	}
	fam(b, "tern_bgp_paths", "gauge", "Paths in the Adj-RIBs-In");
	sample(b, "tern_bgp_paths", l->paths, NULL);
	fam(b, "tern_bgp_best", "gauge",
	    "Prefixes with a best path (sent to tern-rib)");
	sample(b, "tern_bgp_best", l->best, NULL);
}

static void
r_comps(struct lc_buf *b, const Rtrmgr__ComponentList *l)
{
	fam(b, "tern_component_up", "gauge",
	    "1 when tern-rtrmgr has the component running");
	for (size_t i = 0; i < l->n_components; i++)
		sample(b, "tern_component_up",
		    l->components[i]->state == RTRMGR__STATE__RUNNING,
		    "component", l->components[i]->name, NULL);
	fam(b, "tern_component_restarts_total", "counter",
	    "Times tern-rtrmgr started the component again");
	for (size_t i = 0; i < l->n_components; i++)
		sample(b, "tern_component_restarts_total",
		    l->components[i]->restarts, "component",
		    l->components[i]->name, NULL);
	fam(b, "tern_component_uptime_seconds", "gauge",
	    "Seconds since the component's current instance started");
	for (size_t i = 0; i < l->n_components; i++)
		sample(b, "tern_component_uptime_seconds",
		    l->components[i]->uptime_ms / 1000, "component",
		    l->components[i]->name, NULL);
}

/* mgmt's own: its commits, sessions and connections to the others. */
static void
r_mgmt(struct scrape *s, struct lc_buf *b)
{
	static const enum mgmt_peer peers[] = {MGMT_PEER_FWD, MGMT_PEER_RIB,
	    MGMT_PEER_BGP, MGMT_PEER_RTRMGR};
	struct mgmt *m = s->mm->m;
	struct mgmt_session *ss;
	uint64_t nsess = 0;
	struct ipc_stats st;

	LIST_FOREACH(ss, &m->sessions, link)
	nsess++;
	fam(b, "tern_commits_total", "counter",
	    "Commits that went through since tern-mgmt started");
	sample(b, "tern_commits_total", m->st_commits, NULL);
	fam(b, "tern_commits_failed_total", "counter",
	    "Commits refused or failed since tern-mgmt started");
	sample(b, "tern_commits_failed_total", m->st_commits_failed, NULL);
	fam(b, "tern_commit_confirm_pending", "gauge",
	    "1 while a commit confirmed waits for its confirmation");
	sample(b, "tern_commit_confirm_pending", m->confirm_pending, NULL);
	fam(b, "tern_mgmt_sessions", "gauge", "Shell sessions open");
	sample(b, "tern_mgmt_sessions", nsess, NULL);
	fam(b, "tern_ipc_client_inflight", "gauge",
	    "Calls tern-mgmt sent to the component, not answered yet");
	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		struct ipc_client *cl = mgmt_peer_client(m, peers[i]);

		if (cl != NULL)
			sample(b, "tern_ipc_client_inflight",
			    ipc_client_inflight(cl), "from", "mgmt", "to",
			    mgmt_peer_name(peers[i]), NULL);
	}
	fam(b, "tern_ipc_client_timeouts_total", "counter",
	    "Calls tern-mgmt gave up waiting for");
	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		struct ipc_client *cl = mgmt_peer_client(m, peers[i]);

		if (cl == NULL)
			continue;
		ipc_client_stats(cl, &st);
		sample(b, "tern_ipc_client_timeouts_total", st.timeouts, "from",
		    "mgmt", "to", mgmt_peer_name(peers[i]), NULL);
	}
	fam(b, "tern_ipc_client_reconnects_total", "counter",
	    "Times the component's connection came up again");
	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		struct ipc_client *cl = mgmt_peer_client(m, peers[i]);

		if (cl == NULL)
			continue;
		ipc_client_stats(cl, &st);
		sample(b, "tern_ipc_client_reconnects_total", st.connects,
		    "from", "mgmt", "to", mgmt_peer_name(peers[i]), NULL);
	}
}

/* Every component's IPC server counters (lifecycle STATUS), mgmt's too. */
static void
r_ipc(struct scrape *s, struct lc_buf *b)
{
	static const char *const comp[4] = {"fwd", "rib", "bgp", "rtrmgr"};
	struct ipc_stats st;
	uint64_t mine[ST_N];
	bool have = mgmt_server_stats(s->mm->m, &st) == 0;
	char name[64];

	mine[0] = st.calls_in;
	mine[1] = st.replies_out;
	mine[2] = st.events_out;
	mine[3] = st.frames_in;
	mine[4] = st.frames_out;
	mine[5] = st.drops;
	mine[6] = st.errors;
	mine[7] = 0; /* not in ipc_stats: left out below */
	for (unsigned k = 0; k < ST_N; k++) {
		bool gauge = k == 7;

		snprintf(name, sizeof(name), "tern_ipc_%s%s", st_names[k],
		    gauge ? "" : "_total");
		fam(b, name, gauge ? "gauge" : "counter",
		    gauge ? "Connections to the component's IPC sockets" :
			    "The component's IPC server counter (docs/ipc.md)");
		if (have && !gauge)
			sample(b, name, mine[k], "component", "mgmt", NULL);
		for (unsigned c = 0; c < 4; c++)
			if (s->st_ok[c])
				sample(b, name, s->st[c][k], "component",
				    comp[c], NULL);
	}
}

/* ---- a scrape ---- */

static void scrape_unref(struct scrape *);

static void
page(struct scrape *s)
{
	struct mgmt_metrics *mm = s->mm;
	struct lc_buf *b = &s->out;
	double dt = (double)(lc_time_mono_ns() - s->t0) / 1e9;

	for (unsigned a = 0; a < A__COUNT; a++)
		if (s->ok[a])
			(void)lc_buf_append(b, s->sec[a].data, s->sec[a].len);
	r_ipc(s, b);
	r_mgmt(s, b);
	fam(b, "tern_metrics_source_up", "gauge",
	    "1 when the component answered this scrape's question");
	for (unsigned a = 0; a < A__COUNT; a++) {
		static const char *const what[A__COUNT] = {"interfaces",
		    "drops", "fib", "sources", "fib_status", "neighbors",
		    "components", "status", "status", "status", "status"};

		sample(b, "tern_metrics_source_up", s->ok[a], "component",
		    ask_comp[a], "query", what[a], NULL);
	}
	mm->scrapes++;
	mm->last_s = dt;
	fam(b, "tern_metrics_scrapes_total", "counter",
	    "Scrapes of this endpoint since tern-mgmt started");
	sample(b, "tern_metrics_scrapes_total", mm->scrapes, NULL);
	(void)lc_buf_printf(b,
	    "# HELP tern_metrics_scrape_duration_seconds Time to gather "
	    "this page\n# TYPE tern_metrics_scrape_duration_seconds "
	    "gauge\ntern_metrics_scrape_duration_seconds %.6f\n",
	    dt);
	s->done = true;
}

static void
call_done(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct call *c = arg;
	struct scrape *s = c->s;
	enum ask a = c->a;

	(void)err;
	free(c);
	if (s->mm != NULL && status == IPC_OK && msg != NULL) {
		struct mgmt *m = s->mm->m;
		struct lc_buf *b = &s->sec[a];

		s->ok[a] = true;
		switch (a) {
		case A_IFS:
			r_ifs(m, b, (const Fwd__InterfaceList *)msg);
			break;
		case A_DROPS:
			r_drops(b, (const Fwd__DropList *)msg);
			break;
		case A_FIB:
			r_fib(b, (const Fwd__FibList *)msg);
			break;
		case A_SOURCES:
			r_sources(b, (const Rib__SourceList *)msg);
			break;
		case A_FIBST:
			r_fibst(b, (const Rib__FibStatus *)msg);
			break;
		case A_BGP:
			r_bgp(b, (const Bgp__NeighborList *)msg);
			break;
		case A_COMPS:
			r_comps(b, (const Rtrmgr__ComponentList *)msg);
			break;
		default: {
			const Lifecycle__Status *st =
			    (const Lifecycle__Status *)msg;
			unsigned ci = (unsigned)(a - A_ST_FWD);

			s->st_ok[ci] = true;
			for (size_t k = 0; k < st->n_counters; k++)
				for (unsigned j = 0; j < ST_N; j++)
					if (st->counters[k]->name != NULL &&
					    strcmp(st->counters[k]->name,
						st_names[j]) == 0)
						s->st[ci][j] =
						    st->counters[k]->value;
			break;
		}
		}
	}
	scrape_unref(s);
}

static void
ask(struct scrape *s, enum ask a, enum mgmt_peer p, unsigned method,
    const ProtobufCMessage *req)
{
	struct ipc_client *cl = mgmt_peer_client(s->mm->m, p);
	struct call *c;

	if (cl == NULL || !ipc_client_connected(cl) ||
	    (c = calloc(1, sizeof(*c))) == NULL)
		return;
	c->s = s;
	c->a = a;
	s->refs++;
	if (ipc_call(cl, method, req, call_done, c, METRICS_CALL_MS) != 0) {
		s->refs--;
		free(c);
	}
}

/* MHD_run soon, from the loop: never from inside one of MHD's callbacks
 * (an answer can come while on_request is still asking). */
static void
kick(struct mgmt_metrics *mm)
{
	ev_timer_stop(mm->m->loop, &mm->tm);
	ev_timer_set(&mm->tm, 0., 0.);
	ev_timer_start(mm->m->loop, &mm->tm);
}

static void
scrape_free(struct scrape *s)
{
	for (unsigned a = 0; a < A__COUNT; a++)
		lc_buf_fini(&s->sec[a]);
	lc_buf_fini(&s->out);
	free(s);
}

/* One reference less; the last call's answer makes the page and wakes the
 * connection; the last reference frees. */
static void
scrape_unref(struct scrape *s)
{
	struct mgmt_metrics *mm = s->mm;

	if (--s->refs == 1 && !s->done && mm != NULL) {
		struct scrape **pp;

		page(s);
		for (pp = &mm->live; *pp != NULL; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		MHD_resume_connection(s->conn);
		kick(mm);
		return;
	}
	if (s->refs == 0)
		scrape_free(s);
}

static void
scrape_start(struct scrape *s)
{
	Fwd__InterfaceQuery iq = FWD__INTERFACE_QUERY__INIT;
	Fwd__FibQuery fq = FWD__FIB_QUERY__INIT;
	Bgp__NeighborQuery nq = BGP__NEIGHBOR_QUERY__INIT;
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	static const enum mgmt_peer stp[4] = {MGMT_PEER_FWD, MGMT_PEER_RIB,
	    MGMT_PEER_BGP, MGMT_PEER_RTRMGR};

	iq.counters = true;
	fq.exact = true; /* 0.0.0.0/0: the count comes with any answer */
	s->refs++;	 /* held while asking: answers at once cannot end it */
	ask(s, A_IFS, MGMT_PEER_FWD, FWD__METHOD__QUERY_INTERFACES, &iq.base);
	ask(s, A_DROPS, MGMT_PEER_FWD, FWD__METHOD__QUERY_DROPS, &e.base);
	ask(s, A_FIB, MGMT_PEER_FWD, FWD__METHOD__QUERY_FIB, &fq.base);
	ask(s, A_SOURCES, MGMT_PEER_RIB, RIB__METHOD__SOURCES, &e.base);
	ask(s, A_FIBST, MGMT_PEER_RIB, RIB__METHOD__FIB_STATUS, &e.base);
	ask(s, A_BGP, MGMT_PEER_BGP, BGP__METHOD__QUERY_NEIGHBORS, &nq.base);
	ask(s, A_COMPS, MGMT_PEER_RTRMGR, RTRMGR__METHOD__LIST, &e.base);
	for (unsigned i = 0; i < 4; i++)
		ask(s, (enum ask)(A_ST_FWD + i), stp[i],
		    IPC_LC(LIFECYCLE__METHOD__STATUS), NULL);
	scrape_unref(s);
}

/* ---- HTTP ---- */

static enum MHD_Result
respond(struct MHD_Connection *conn, unsigned code, const char *type,
    const void *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len,
	    (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rv;

	if (r == NULL)
		return (MHD_NO);
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rv = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return (rv);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **ctx)
{
	struct mgmt_metrics *mm = cls;
	struct scrape *s = *ctx;
	static const char text[] = "text/plain; charset=utf-8";
	static const char fmt[] = "text/plain; version=0.0.4; charset=utf-8";

	(void)version;
	(void)upload;
	if (s == NULL) {
		/* the headers are in: the body (none) and the answer come at
		 * the next calls */
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
			return (respond(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text,
			    "GET only\n", 9));
		if (strcmp(url, "/metrics") != 0) {
			mm->not_found++;
			return (respond(conn, MHD_HTTP_NOT_FOUND, text,
			    "not found: the metrics are at /metrics\n", 40));
		}
		if ((s = calloc(1, sizeof(*s))) == NULL)
			return (MHD_NO);
		s->mm = mm;
		s->conn = conn;
		s->refs = 1; /* the connection's, until it completes */
		s->t0 = lc_time_mono_ns();
		lc_buf_init(&s->out);
		for (unsigned a = 0; a < A__COUNT; a++)
			lc_buf_init(&s->sec[a]);
		*ctx = s;
		return (MHD_YES);
	}
	if (*upload_size != 0) {
		*upload_size = 0; /* a body on a GET: ignored */
		return (MHD_YES);
	}
	if (s->done)
		return (
		    respond(conn, MHD_HTTP_OK, fmt, s->out.data, s->out.len));
	/* ask, and wait for the answers with the connection suspended */
	s->next = mm->live;
	mm->live = s;
	MHD_suspend_connection(conn);
	scrape_start(s);
	return (MHD_YES);
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **ctx,
    enum MHD_RequestTerminationCode why)
{
	struct scrape *s = *ctx;

	(void)cls;
	(void)conn;
	(void)why;
	if (s == NULL)
		return;
	*ctx = NULL;
	scrape_unref(s);
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char b[256];

	(void)cls;
	vsnprintf(b, sizeof(b), fmt, ap);
	b[strcspn(b, "\n")] = '\0';
	lc_log_info("metrics: %s", b);
}

/* MHD's work, and its next timeout on the libev timer. */
static void
run_mhd(struct mgmt_metrics *mm)
{
	MHD_UNSIGNED_LONG_LONG to;

	if (mm->mhd == NULL)
		return;
	(void)MHD_run(mm->mhd);
	ev_timer_stop(mm->m->loop, &mm->tm);
	if (MHD_get_timeout(mm->mhd, &to) == MHD_YES) {
		ev_timer_set(&mm->tm, (double)to / 1000.0, 0.);
		ev_timer_start(mm->m->loop, &mm->tm);
	}
}

static void
on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	run_mhd(w->data);
}

static void
on_tm(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	run_mhd(w->data);
}

static void
metrics_stop(struct mgmt_metrics *mm)
{
	struct scrape *s;

	if (mm->mhd == NULL)
		return;
	/* scrapes still waiting: their answers find no server (mm NULL)
	 * and free them; MHD wants its connections resumed before it stops */
	while ((s = mm->live) != NULL) {
		mm->live = s->next;
		s->mm = NULL;
		MHD_resume_connection(s->conn);
	}
	ev_io_stop(mm->m->loop, &mm->io);
	ev_timer_stop(mm->m->loop, &mm->tm);
	MHD_stop_daemon(mm->mhd);
	mm->mhd = NULL;
	lc_log_info("metrics: stopped");
}

static int
metrics_start(struct mgmt_metrics *mm, struct lc_err *err)
{
	struct sockaddr_in sin;
	const union MHD_DaemonInfo *di;
	char a[INET_ADDRSTRLEN];

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)mm->port);
	sin.sin_addr.s_addr = mm->addr;
	inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a));
	mm->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
		MHD_USE_ERROR_LOG,
	    (uint16_t)mm->port, NULL, NULL, on_request, mm,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONN_MAX,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_CONN_TIMEOUT_S,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, mm,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, mm, MHD_OPTION_END);
	if (mm->mhd == NULL ||
	    (di = MHD_get_daemon_info(mm->mhd, MHD_DAEMON_INFO_EPOLL_FD)) ==
		NULL) {
		int e = errno;

		if (mm->mhd != NULL)
			MHD_stop_daemon(mm->mhd);
		mm->mhd = NULL;
		return (lc_err_set(err, e ? -e : -EIO, LC_ERR_NOINDEX,
		    "metrics: cannot listen on %s port %u: %s", a, mm->port,
		    strerror(e ? e : EIO)));
	}
	ev_io_init(&mm->io, on_io, di->epoll_fd, EV_READ);
	mm->io.data = mm;
	ev_io_start(mm->m->loop, &mm->io);
	ev_timer_init(&mm->tm, on_tm, 1., 0.);
	mm->tm.data = mm;
	lc_log_notice("metrics: serving http://%s:%u/metrics", a, mm->port);
	return (0);
}

int
mgmt_metrics_apply(struct mgmt *m, uint32_t addr, unsigned port,
    struct lc_err *err)
{
	struct mgmt_metrics *mm = m->metrics;

	if (mm != NULL && mm->mhd != NULL && mm->addr == addr &&
	    mm->port == port)
		return (0); /* as it is */
	if (mm != NULL)
		metrics_stop(mm);
	if (port == 0) {
		free(mm);
		m->metrics = NULL;
		return (0);
	}
	if (mm == NULL) {
		if ((mm = calloc(1, sizeof(*mm))) == NULL)
			return (lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX,
			    "out of memory"));
		mm->m = m;
		m->metrics = mm;
	}
	mm->addr = addr;
	mm->port = port;
	return (metrics_start(mm, err));
}

void
mgmt_metrics_free(struct mgmt *m)
{
	if (m->metrics == NULL)
		return;
	metrics_stop(m->metrics);
	free(m->metrics);
	m->metrics = NULL;
}
