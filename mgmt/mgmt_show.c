/* mgmt/mgmt_show.c: operational commands that other components answer (show route, interfaces, fib, neighbors, processes; restart), rendered as text or JSON. */
#include "mgmt_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_inet6.h"
#include "libcommon/lc_time.h"

#define SHOW_TIMEOUT_MS 5000
#define SHOW_LIMIT	10000 /* routes shown by one command */
#define SHOW_END_MAX	384   /* a component's last exit, as text */

static int show_ask(const struct mgmt_op *, enum mgmt_peer, unsigned method,
    const ProtobufCMessage *req, mgmt_render_fn *render, const char *asked,
    struct lc_err *err);

/* One query in flight: who asked and how to print the answer. */
struct show_wait {
	struct mgmt_op op;
	enum mgmt_peer peer;
	mgmt_render_fn *render;
	char asked[64]; /* the word asked about (a prefix), or "" */
	/* what the renderer found: a table's shape (header and count lines)
	 * for the shell's filters; an answer that is an error */
	unsigned table_header, table_footer;
	int code;
	char err[256];
	/* the family filter of the command: 0 both, 4 or 6 */
	unsigned family;
	/* show fib of both families: the IPv4 answer is rendered (phase 0),
	 * then fib6 is asked and rendered after it (phase 1) into the same
	 * text and JSON; totals add up */
	unsigned phase;
	bool two;
	Fwd__FibQuery fib6;
	uint32_t total0;
	bool more0;
	uint8_t fib6_pfx[16];
	struct lc_buf acc;
	json_object *jacc;
};

/*
 * The query whose answer is being rendered: show_reply sets it around the
 * render call (one at a time, in mgmt's loop), so that a renderer can name
 * what was asked or make the answer an error without another argument.
 */
static struct show_wait *rendering;

/* The renderer's answer is an error (say what was not found). */
static void render_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
render_fail(int code, const char *fmt, ...)
{
	va_list ap;

	if (rendering == NULL)
		return;
	rendering->code = code;
	va_start(ap, fmt);
	vsnprintf(rendering->err, sizeof(rendering->err), fmt, ap);
	va_end(ap);
}

/* The text is a table of one header line and one count line. */
static void
render_table(void)
{
	if (rendering != NULL) {
		rendering->table_header = 1;
		rendering->table_footer = 1;
	}
}

static const char *
ip4(uint32_t nbo)
{
	struct lc_ip4 a = {nbo};

	return (lc_ip4_ntoa(a));
}

static const char *
pfx4(uint32_t nbo, unsigned len)
{
	struct lc_prefix4 p = {{nbo}, (uint8_t)len};

	return (lc_prefix4_ntoa(&p));
}

static const char *
ip6b(const ProtobufCBinaryData *b)
{
	struct lc_ip6 a = {{0}};

	if (b->len == 16)
		memcpy(a.b, b->data, 16);
	return (lc_ip6_ntoa(&a));
}

static const char *
pfx6b(const ProtobufCBinaryData *b, unsigned len)
{
	struct lc_prefix6 p = {.len = (uint8_t)len};

	if (b->len == 16)
		memcpy(p.addr.b, b->data, 16);
	return (lc_prefix6_ntoa(&p));
}

/* The family filter word (inet, ipv4: 4; inet6, ipv6: 6), else 0 */
static unsigned
family_word(const char *w)
{
	if (strcmp(w, "inet") == 0 || strcmp(w, "ipv4") == 0)
		return (4);
	if (strcmp(w, "inet6") == 0 || strcmp(w, "ipv6") == 0)
		return (6);
	return (0);
}

/* The family filter among w[0..*nw) (one, anywhere), taken out of the
 * words (into kept, *nw updated): 0, 4 or 6; -1 when given twice (kept[0]
 * the second) */
static int
family_take(const char *const *w, unsigned *nw, const char **kept)
{
	unsigned n = 0, f = 0;

	for (unsigned i = 0; i < *nw; i++) {
		unsigned x = family_word(w[i]);

		if (x == 0)
			kept[n++] = w[i];
		else if (f != 0) {
			kept[0] = w[i];
			*nw = 1;
			return (-1);
		} else
			f = x;
	}
	*nw = n;
	return ((int)f);
}

/* An IPv6 address or prefix given to a show command (it has a ':'):
 * parsed into a (16 bytes), set as *prefix6 with *len, or as *lookup6 with
 * *len 0 (*pfx says which); 0, or -EINVAL with err saying why, naming cmd */
static int
show_arg6(const char *cmd, const char *v, uint8_t *a, uint32_t *len, bool *pfx,
    ProtobufCBinaryData *prefix6, ProtobufCBinaryData *lookup6,
    struct lc_err *err)
{
	struct lc_prefix6 p;
	struct lc_ip6 ip;
	struct lc_err e;

	*pfx = strchr(v, '/') != NULL;
	if (*pfx ? lc_inet6_prefix_parse(v, 0, &p, NULL, &e) :
		   lc_inet6_parse(v, 0, &ip, NULL, &e)) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s: %.64s: %s", cmd,
		    v, e.msg);
		return (-EINVAL);
	}
	memcpy(a, *pfx ? p.addr.b : ip.b, 16);
	*len = *pfx ? p.len : 0;
	*(*pfx ? prefix6 : lookup6) = (ProtobufCBinaryData){16, a};
	return (0);
}

static void
show_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct show_wait *w = arg;
	struct mgmt_session *s;
	struct lc_buf out;
	json_object *jo = NULL;
	struct lc_err err = {0};
	int code = MGMT_OK;

	lc_buf_init(&out);
	if (w->two) { /* the phases share one text and one JSON object */
		lc_buf_fini(&out);
		out = w->acc;
		jo = w->jacc;
	}
	if (status == IPC_OK && msg != NULL) {
		if (w->op.json && jo == NULL)
			jo = json_object_new_object();
		rendering = w;
		w->render(w->op.m, &out, jo, msg);
		rendering = NULL;
		if (w->two && w->phase == 0 && w->code == MGMT_OK) {
			struct ipc_client *cl = mgmt_peer_client(w->op.m,
			    w->peer);

			w->acc = out;
			w->jacc = jo;
			w->phase = 1;
			if (cl != NULL &&
			    ipc_call(cl, FWD__METHOD__QUERY_FIB, &w->fib6.base,
				show_reply, w, SHOW_TIMEOUT_MS) == 0)
				return;
			status = IPC_UNAVAILABLE;
			msg = NULL;
		}
	}
	if (status == IPC_OK && msg != NULL) {
		if (w->code != MGMT_OK) {
			code = w->code;
			lc_err_set(&err, -ENOENT, LC_ERR_NOINDEX, "%s", w->err);
			lc_buf_reset(&out);
		} else if (jo != NULL) {
			lc_buf_printf(&out, "%s",
			    json_object_to_json_string_ext(jo,
				JSON_C_TO_STRING_PLAIN));
		}
		if (jo != NULL)
			json_object_put(jo);
	} else {
		code = status == IPC_DENIED ? MGMT_E_DENIED :
					      MGMT_E_UNAVAILABLE;
		lc_err_set(&err, ierr->code != 0 ? ierr->code : -EIO,
		    LC_ERR_NOINDEX, "%s: %s%s%s", mgmt_peer_name(w->peer),
		    ipc_status_str(status), ierr->msg[0] ? ": " : "",
		    ierr->msg);
		lc_buf_reset(&out); /* a first phase's text */
		if (jo != NULL)
			json_object_put(jo);
	}
	lc_buf_append(&out, "", 1);
	if ((s = mgmt_session_find(w->op.m, w->op.sid)) != NULL &&
	    code == MGMT_OK && !w->op.json) {
		s->table_header = w->table_header;
		s->table_footer = w->table_footer;
	}
	w->op.later(w->op.arg, w->op.m, s, code, (char *)lc_buf_head(&out),
	    &err);
	lc_buf_fini(&out);
	free(w);
}

int
mgmt_show_ask(const struct mgmt_op *op, enum mgmt_peer peer, unsigned method,
    const ProtobufCMessage *req, mgmt_render_fn *render, struct lc_err *err)
{
	return (show_ask(op, peer, method, req, render, "", err));
}

static int show_ask2(const struct mgmt_op *op, enum mgmt_peer peer,
    unsigned method, const ProtobufCMessage *req, mgmt_render_fn *render,
    const char *asked, unsigned family, const Fwd__FibQuery *fib6,
    struct lc_err *err);

static int
show_ask(const struct mgmt_op *op, enum mgmt_peer peer, unsigned method,
    const ProtobufCMessage *req, mgmt_render_fn *render, const char *asked,
    struct lc_err *err)
{
	return (show_ask2(op, peer, method, req, render, asked, 0, NULL, err));
}

/* show_ask with the command's family filter; fib6 (not NULL): a second
 * query (QUERY_FIB of the IPv6 FIB) rendered after the first's answer */
static int
show_ask2(const struct mgmt_op *op, enum mgmt_peer peer, unsigned method,
    const ProtobufCMessage *req, mgmt_render_fn *render, const char *asked,
    unsigned family, const Fwd__FibQuery *fib6, struct lc_err *err)
{
	struct ipc_client *cl = mgmt_peer_client(op->m, peer);
	struct show_wait *w;
	int rv;

	if (cl == NULL || !ipc_client_connected(cl)) {
		lc_err_set(err, -ENOTCONN, LC_ERR_NOINDEX,
		    "%s is not running (no connection to its "
		    "socket)",
		    mgmt_peer_name(peer));
		return (MGMT_E_UNAVAILABLE);
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (MGMT_E_INTERNAL);
	}
	w->op = *op;
	w->peer = peer;
	w->render = render;
	snprintf(w->asked, sizeof(w->asked), "%s", asked);
	w->family = family;
	if (fib6 != NULL) {
		w->two = true;
		w->fib6 = *fib6;
		if (fib6->prefix6.len == 16) {
			memcpy(w->fib6_pfx, fib6->prefix6.data, 16);
			w->fib6.prefix6.data = w->fib6_pfx;
		}
		lc_buf_init(&w->acc);
	}
	if ((rv = ipc_call(cl, method, req, show_reply, w, SHOW_TIMEOUT_MS)) !=
	    0) {
		free(w);
		lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "%s: cannot send the query: %s", mgmt_peer_name(peer),
		    strerror(-rv));
		return (MGMT_E_UNAVAILABLE);
	}
	return (MGMT_PENDING);
}

int
mgmt_show_bad_args(struct lc_err *err, const char *cmd, const char *expected,
    const char *got)
{
	lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
	    "%s: unexpected '%s' (expected %s)", cmd, got, expected);
	return (MGMT_E_SYNTAX);
}

/* ---- show route ------------------------------------------------------------------ */

static const char *
source_name(const Rib__RouteEntry *e)
{
	if (e->source_name != NULL && e->source_name[0] != '\0')
		return (e->source_name);
	switch (e->source) {
	case RIB__SOURCE__CONNECTED:
		return ("connected");
	case RIB__SOURCE__STATIC:
		return ("static");
	case RIB__SOURCE__KERNEL:
		return ("kernel");
	default:
		return ("protocol");
	}
}

/* A rib route's prefix and next hop k as text (either family) */
static const char *
route_pfx(const Rib__Route *rt)
{
	return (rt->prefix6.len == 16 ? pfx6b(&rt->prefix6, rt->len) :
					pfx4(rt->prefix, rt->len));
}

static size_t
route_nnh(const Rib__Route *rt)
{
	return (rt->prefix6.len == 16 ? rt->n_nh_addr6 : rt->n_nh_addr);
}

static const char *
route_nh(const Rib__Route *rt, size_t k)
{
	return (rt->prefix6.len == 16 ? ip6b(&rt->nh_addr6[k]) :
					ip4(rt->nh_addr[k]));
}

static void
render_routes(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Rib__QueryReply *r = (const Rib__QueryReply *)msg;
	json_object *arr = jo != NULL ? json_object_new_array() : NULL;

	if (jo == NULL) {
		lc_buf_printf(out, "%-19s %-10s %-9s %-16s %-7s %s\n", "Prefix",
		    "Source", "Dist/Met", "Next hop", "Ifindex", "State");
		render_table();
	}
	for (size_t i = 0; i < r->n_routes; i++) {
		const Rib__RouteEntry *e = r->routes[i];
		const Rib__Route *rt = e->route;
		const char *state = e->best ? "best" :
		    e->active		    ? "active" :
		    e->loop		    ? "loop" :
					      "inactive";
		size_t nnh;

		if (rt == NULL)
			continue;
		nnh = route_nnh(rt);
		if (jo != NULL) {
			json_object *o = json_object_new_object(), *nhs;

			json_object_object_add(o, "prefix",
			    json_object_new_string(route_pfx(rt)));
			json_object_object_add(o, "family",
			    json_object_new_string(
				rt->prefix6.len == 16 ? "inet6" : "inet"));
			json_object_object_add(o, "source",
			    json_object_new_string(source_name(e)));
			json_object_object_add(o, "distance",
			    json_object_new_int((int)rt->distance));
			json_object_object_add(o, "metric",
			    json_object_new_int64(rt->metric));
			nhs = json_object_new_array();
			for (size_t k = 0; k < nnh; k++) {
				json_object *nh = json_object_new_object();

				json_object_object_add(nh, "address",
				    json_object_new_string(route_nh(rt, k)));
				if (k < rt->n_nh_ifindex)
					json_object_object_add(nh, "ifindex",
					    json_object_new_int(
						(int)rt->nh_ifindex[k]));
				json_object_array_add(nhs, nh);
			}
			json_object_object_add(o, "next_hops", nhs);
			/* after recursive resolution: the gateways used */
			nhs = json_object_new_array();
			for (size_t k = 0;
			     k < e->n_resolved_addr6 || k < e->n_resolved_addr;
			     k++) {
				json_object *nh = json_object_new_object();

				json_object_object_add(nh, "address",
				    json_object_new_string(
					k < e->n_resolved_addr6 ?
					    ip6b(&e->resolved_addr6[k]) :
					    ip4(e->resolved_addr[k])));
				if (k < e->n_resolved_ifindex)
					json_object_object_add(nh, "ifindex",
					    json_object_new_int(
						(int)e->resolved_ifindex[k]));
				json_object_array_add(nhs, nh);
			}
			json_object_object_add(o, "resolved", nhs);
			json_object_object_add(o, "best",
			    json_object_new_boolean(e->best));
			json_object_object_add(o, "active",
			    json_object_new_boolean(e->active));
			json_object_object_add(o, "stale",
			    json_object_new_boolean(e->stale));
			json_object_array_add(arr, o);
			continue;
		}
		for (size_t k = 0; k == 0 || k < nnh; k++) {
			/* one buffer each: the ifindex was once printed into
			 * dm while dm was still an argument (issue 23) */
			char dm[24], ifx[12];

			snprintf(dm, sizeof(dm), "%u/%u", rt->distance,
			    rt->metric);
			lc_buf_printf(out, "%-19s %-10s %-9s %-16s %-7s %s%s\n",
			    k == 0 ? route_pfx(rt) : "",
			    k == 0 ? source_name(e) : "", k == 0 ? dm : "",
			    k < nnh ? route_nh(rt, k) :
				rt->type == RIB__ROUTE_TYPE__BLACKHOLE ?
				      "blackhole" :
				rt->type == RIB__ROUTE_TYPE__REJECT ? "reject" :
								      "-",
			    k < rt->n_nh_ifindex && rt->nh_ifindex[k] != 0 ?
				(snprintf(ifx, sizeof(ifx), "%u",
				     rt->nh_ifindex[k]),
				    ifx) :
				"-",
			    k == 0 ? state : "",
			    k == 0 && e->stale ? " stale" : "");
		}
	}
	if (jo != NULL) {
		json_object_object_add(jo, "routes", arr);
		json_object_object_add(jo, "total",
		    json_object_new_int64(r->total));
		json_object_object_add(jo, "more",
		    json_object_new_boolean(r->more));
	} else {
		lc_buf_printf(out, "%u route%s%s\n", r->total,
		    r->total == 1 ? "" : "s",
		    r->more ? " (more not shown)" : "");
	}
}

int
mgmt_show_route(const struct mgmt_op *op, const char *const *w_, unsigned nw,
    struct lc_err *err)
{
	Rib__Query q = RIB__QUERY__INIT;
	struct lc_prefix4 p;
	struct lc_ip4 a;
	unsigned i = 0;
	const char *w[32];
	uint8_t a6[16];
	int fam = 0;

	q.limit = SHOW_LIMIT;
	if (nw > 32)
		return (mgmt_show_bad_args(err, "show route", "fewer words",
		    w_[32]));
	if ((fam = family_take(w_, &nw, w)) < 0)
		return (mgmt_show_bad_args(err, "show route",
		    "one family: inet (ipv4) or inet6 (ipv6)", w[0]));
	/* both families unless one is asked; a prefix or an address says
	 * its own */
	q.family = (uint32_t)fam;
	if (nw == 1 && strcmp(w[0], "summary") == 0)
		return (mgmt_show_route_summary(op, err));
	if (i < nw && strchr(w[i], ':') != NULL) {
		bool pfx;

		if (show_arg6("show route", w[i], a6, &q.len, &pfx, &q.prefix6,
			&q.lookup6, err) != 0)
			return (MGMT_E_SYNTAX);
		if (fam == 4)
			return (mgmt_show_bad_args(err, "show route",
			    "an IPv4 prefix or address with inet", w[i]));
		q.exact = pfx;
		q.family = 6;
		i++;
	} else if (i < nw && lc_prefix4_parse(w[i], &p) == 0) {
		q.prefix = p.addr.s_addr;
		q.len = p.len;
		q.exact = true;
		q.family = 4;
		i++;
	} else if (i < nw && lc_ip4_parse(w[i], &a) == 0) {
		q.lookup = a.s_addr;
		q.family = 4;
		i++;
	}
	if (fam == 6 && q.family == 4)
		return (mgmt_show_bad_args(err, "show route",
		    "an IPv6 prefix or address with inet6", w[0]));
	for (; i < nw; i++) {
		if (strcmp(w[i], "longer") == 0 && q.exact) {
			q.exact = false;
			q.longer = true;
		} else if (strcmp(w[i], "active") == 0) {
			q.active_only = true;
		} else if (strcmp(w[i], "source") == 0 && i + 1 < nw) {
			const char *s = w[++i];

			if (strcmp(s, "connected") == 0)
				q.source = RIB__SOURCE__CONNECTED;
			else if (strcmp(s, "static") == 0)
				q.source = RIB__SOURCE__STATIC;
			else {
				q.source = RIB__SOURCE__PROTOCOL;
				q.source_name = (char *)s;
			}
		} else {
			return (mgmt_show_bad_args(err, "show route",
			    "a.b.c.d/len or x:x::/len "
			    "[longer], an address, active, source NAME, inet, "
			    "inet6 or summary",
			    w[i]));
		}
	}
	return (show_ask2(op, MGMT_PEER_RIB, RIB__METHOD__QUERY, &q.base,
	    render_routes, "", (unsigned)fam, NULL, err));
}

/* ---- show interfaces ------------------------------------------------------------- */

/* An interface's link: "absent" when its device is not there. */
static const char *
link_str(const Fwd__Interface *f)
{
	if (f->absent)
		return ("absent");
	return (f->link == FWD__LINK_STATE__LINK_UP   ? "up" :
		f->link == FWD__LINK_STATE__LINK_DOWN ? "down" :
							"unknown");
}

/* Interfaces by tern name (the config's) and by device (fwd's). */
struct if_map {
	const char *key; /* what is looked for */
	bool by_dev;	 /* key is a device: find the name */
	char *out;
	size_t n;
};

static int
if_map_cb(const struct mgmt_node *node, void *arg)
{
	struct if_map *im = arg;
	struct mgmt_iface_conf c;

	if (mgmt_conf_iface_get(node, &c) != 0 ||
	    strcmp(im->by_dev ? c.device : c.name, im->key) != 0)
		return (0);
	snprintf(im->out, im->n, "%s", im->by_dev ? c.name : c.device);
	return (1);
}

/* The configured interface on device dev, or dev when none is. */
static const char *
if_name_of(const struct mgmt *m, const char *dev, char *buf, size_t n)
{
	struct if_map im = {dev, true, buf, n};

	if (m == NULL || dev == NULL || dev[0] == '\0' ||
	    mgmt_conf_foreach(m->running, MGMT_S_IFACE, if_map_cb, &im) == 0)
		snprintf(buf, n, "%s", dev != NULL ? dev : "");
	return (buf);
}

/* Whether an interface is configured with this name (or device). */
static bool
if_known(const struct mgmt *m, const char *key, bool by_dev)
{
	char buf[MGMT_NAME_MAX + 8];
	struct if_map im = {key, by_dev, buf, sizeof(buf)};

	return (m != NULL &&
	    mgmt_conf_foreach(m->running, MGMT_S_IFACE, if_map_cb, &im) != 0);
}

const char *
mgmt_show_if_name(const struct mgmt *m, const char *dev, char *buf, size_t n)
{
	return (if_name_of(m, dev, buf, n));
}

/* The device of configured interface name, or name when it is none. */
static const char *
if_device_of(const struct mgmt *m, const char *name, char *buf, size_t n)
{
	struct if_map im = {name, false, buf, n};

	if (m == NULL ||
	    mgmt_conf_foreach(m->running, MGMT_S_IFACE, if_map_cb, &im) == 0)
		snprintf(buf, n, "%s", name);
	return (buf);
}

/* The host path's counters by name: JSON keys, and the text's drop
 * reasons (those not zero) */
#define HC(f) offsetof(Fwd__HostPathCounters, f)
static const struct {
	const char *name;
	size_t off;
	bool drop; /* a reason, counted in up_dropped or down_dropped */
} host_ctrs[] = {
    {"up_packets", HC(up_packets), false},
    {"up_bytes", HC(up_bytes), false},
    {"down_packets", HC(down_packets), false},
    {"down_bytes", HC(down_bytes), false},
    {"up_dropped", HC(up_dropped), false},
    {"down_dropped", HC(down_dropped), false},
    {"up_full", HC(up_full), true},
    {"up_error", HC(up_error), true},
    {"down_port_down", HC(down_port_down), true},
    {"down_not_ip", HC(down_not_ip), true},
    {"down_bad", HC(down_bad), true},
    {"down_tx_full", HC(down_tx_full), true},
};
#undef HC
#define HOST_NCTRS (sizeof(host_ctrs) / sizeof(host_ctrs[0]))

static uint64_t
host_ctr(const Fwd__HostPathCounters *h, unsigned i)
{
	return (*(const uint64_t *)((const char *)h + host_ctrs[i].off));
}

/* "host_path": {"enabled", "ifname", and with counters every counter} */
static json_object *
host_path_json(const Fwd__Interface *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "enabled",
	    json_object_new_boolean(f->host_path));
	json_object_object_add(o, "ifname",
	    json_object_new_string(
		f->host_ifname != NULL ? f->host_ifname : ""));
	for (unsigned i = 0; f->host != NULL && i < HOST_NCTRS; i++)
		json_object_object_add(o, host_ctrs[i].name,
		    json_object_new_int64((int64_t)host_ctr(f->host, i)));
	return (o);
}

/*
 * "  host path: enabled, host interface h-rc0" (or disabled), then, when fwd
 * sent counters, one line of "  host path: up 12 packets (1534 bytes), down
 * 10 packets (980 bytes), dropped up 1 down 0 (up_full 1)": the reasons
 * that are not zero, by their counters' names
 */
static void
host_path_text(struct lc_buf *out, const Fwd__Interface *f)
{
	const Fwd__HostPathCounters *h = f->host;
	const char *sep = " (";

	if (!f->host_path)
		lc_buf_printf(out, "  host path: disabled\n");
	else if (f->host_ifname != NULL && f->host_ifname[0] != '\0')
		lc_buf_printf(out, "  host path: enabled, host interface %s\n",
		    f->host_ifname);
	else
		lc_buf_printf(out, "  host path: enabled, no host interface\n");
	if (h == NULL)
		return;
	lc_buf_printf(out,
	    "  host path: up %llu packets (%llu bytes), down %llu packets "
	    "(%llu bytes), dropped up %llu down %llu",
	    (unsigned long long)h->up_packets, (unsigned long long)h->up_bytes,
	    (unsigned long long)h->down_packets,
	    (unsigned long long)h->down_bytes,
	    (unsigned long long)h->up_dropped,
	    (unsigned long long)h->down_dropped);
	for (unsigned i = 0; i < HOST_NCTRS; i++) {
		if (!host_ctrs[i].drop || host_ctr(h, i) == 0)
			continue;
		lc_buf_printf(out, "%s%s %llu", sep, host_ctrs[i].name,
		    (unsigned long long)host_ctr(h, i));
		sep = ", ";
	}
	lc_buf_printf(out, "%s\n", sep[0] == ',' ? ")" : "");
}

static uint64_t
since(uint64_t now, uint64_t then)
{
	return (now > then ? now - then : 0);
}

/*
 * The interface as show interfaces shows it: after a clear interfaces
 * statistics, its counters since then (fwd keeps the baseline and the
 * raw, monotonic counters); else f itself.
 */
static const Fwd__Interface *
since_clear(const Fwd__Interface *f, Fwd__Interface *x, Fwd__IfCounters *c,
    Fwd__HostPathCounters *h)
{
	const Fwd__IfCounters *r = f->counters, *b = f->baseline;

	if (r == NULL || b == NULL)
		return (f);
	*x = *f;
	*c = *r;
	c->rx_packets = since(r->rx_packets, b->rx_packets);
	c->rx_bytes = since(r->rx_bytes, b->rx_bytes);
	c->tx_packets = since(r->tx_packets, b->tx_packets);
	c->tx_bytes = since(r->tx_bytes, b->tx_bytes);
	c->rx_drops = since(r->rx_drops, b->rx_drops);
	c->tx_drops = since(r->tx_drops, b->tx_drops);
	c->rx_ring_full = since(r->rx_ring_full, b->rx_ring_full);
	x->counters = c;
	if (f->host != NULL && f->host_baseline != NULL) {
		*h = *f->host;
		for (unsigned i = 0; i < HOST_NCTRS; i++)
			*(uint64_t *)((char *)h +
			    host_ctrs[i].off) = since(host_ctr(f->host, i),
			    host_ctr(f->host_baseline, i));
		x->host = h;
	}
	return (x);
}

/* An interface's IPv6 addresses of one kind (n of them) as a JSON array */
static json_object *
addrs6_json(Fwd__IfAddr6 *const *v, size_t n)
{
	json_object *as = json_object_new_array();

	for (size_t k = 0; k < n; k++)
		json_object_array_add(as,
		    json_object_new_string(pfx6b(&v[k]->addr, v[k]->len)));
	return (as);
}

/* The IPv6 state of f in JSON (o) and as text lines */
static void
if_json6(json_object *o, const Fwd__Interface *f)
{
	unsigned fam = rendering != NULL ? rendering->family : 0;

	if (fam == 4)
		return;
	json_object_object_add(o, "addresses6",
	    addrs6_json(f->addrs6, f->n_addrs6));
	json_object_object_add(o, "addresses6_tentative",
	    addrs6_json(f->addrs6_tentative, f->n_addrs6_tentative));
	json_object_object_add(o, "addresses6_duplicate",
	    addrs6_json(f->addrs6_duplicate, f->n_addrs6_duplicate));
	json_object_object_add(o, "link_local",
	    f->link_local.len == 16 ?
		json_object_new_string(ip6b(&f->link_local)) :
		NULL);
	json_object_object_add(o, "router_advertisements",
	    json_object_new_boolean(f->ra_enabled));
}

static void
if_text6(struct lc_buf *out, const Fwd__Interface *f)
{
	if (f->link_local.len == 16)
		lc_buf_printf(out, "  link-local %s\n", ip6b(&f->link_local));
	for (size_t k = 0; k < f->n_addrs6; k++)
		lc_buf_printf(out, "  inet6 address %s\n",
		    pfx6b(&f->addrs6[k]->addr, f->addrs6[k]->len));
	for (size_t k = 0; k < f->n_addrs6_tentative; k++)
		lc_buf_printf(out, "  inet6 address %s tentative (DAD)\n",
		    pfx6b(&f->addrs6_tentative[k]->addr,
			f->addrs6_tentative[k]->len));
	for (size_t k = 0; k < f->n_addrs6_duplicate; k++)
		lc_buf_printf(out,
		    "  inet6 address %s duplicate (DAD failed: in use by "
		    "another node, not used)\n",
		    pfx6b(&f->addrs6_duplicate[k]->addr,
			f->addrs6_duplicate[k]->len));
	if (f->ra_enabled)
		lc_buf_printf(out, "  router advertisements sent\n");
}

static void
render_interfaces(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Fwd__InterfaceList *l = (const Fwd__InterfaceList *)msg;
	json_object *arr = jo != NULL ? json_object_new_array() : NULL;
	unsigned fam = rendering != NULL ? rendering->family : 0;

	for (size_t i = 0; i < l->n_interfaces; i++) {
		Fwd__Interface fx;
		Fwd__IfCounters cx;
		Fwd__HostPathCounters hx;
		const Fwd__Interface *f = since_clear(l->interfaces[i], &fx,
		    &cx, &hx);
		char mac[18] = "-", nm[MGMT_NAME_MAX + 8];

		if_name_of(m, f->name, nm, sizeof(nm));

		if (f->mac.len == 6)
			snprintf(mac, sizeof(mac),
			    "%02x:%02x:%02x:%02x:%02x:%02x", f->mac.data[0],
			    f->mac.data[1], f->mac.data[2], f->mac.data[3],
			    f->mac.data[4], f->mac.data[5]);
		if (jo != NULL) {
			json_object *o = json_object_new_object(), *as;

			json_object_object_add(o, "name",
			    json_object_new_string(nm));
			json_object_object_add(o, "device",
			    json_object_new_string(f->name));
			json_object_object_add(o, "ifindex",
			    json_object_new_int((int)f->ifindex));
			json_object_object_add(o, "link",
			    json_object_new_string(link_str(f)));
			json_object_object_add(o, "enabled",
			    json_object_new_boolean(f->enabled));
			json_object_object_add(o, "mtu",
			    json_object_new_int((int)f->mtu));
			json_object_object_add(o, "mac",
			    json_object_new_string(mac));
			json_object_object_add(o, "backend",
			    json_object_new_string(
				f->backend != NULL ? f->backend : ""));
			as = json_object_new_array();
			for (size_t k = 0; fam != 6 && k < f->n_addrs; k++)
				json_object_array_add(as,
				    json_object_new_string(
					pfx4(f->addrs[k]->addr,
					    f->addrs[k]->len)));
			json_object_object_add(o, "addresses", as);
			if_json6(o, f);
			if (f->counters != NULL) {
				json_object *c = json_object_new_object();

				json_object_object_add(c, "rx_packets",
				    json_object_new_int64(
					(int64_t)f->counters->rx_packets));
				json_object_object_add(c, "tx_packets",
				    json_object_new_int64(
					(int64_t)f->counters->tx_packets));
				json_object_object_add(c, "rx_bytes",
				    json_object_new_int64(
					(int64_t)f->counters->rx_bytes));
				json_object_object_add(c, "tx_bytes",
				    json_object_new_int64(
					(int64_t)f->counters->tx_bytes));
				json_object_object_add(c, "rx_drops",
				    json_object_new_int64(
					(int64_t)f->counters->rx_drops));
				json_object_object_add(c, "tx_drops",
				    json_object_new_int64(
					(int64_t)f->counters->tx_drops));
				json_object_object_add(c, "rx_ring_full",
				    json_object_new_int64(
					(int64_t)f->counters->rx_ring_full));
				json_object_object_add(o, "counters", c);
				json_object_object_add(o,
				    "statistics_cleared_ago_ms",
				    f->baseline != NULL ?
					json_object_new_int64(
					    (int64_t)f->cleared_ago_ms) :
					NULL);
			}
			json_object_object_add(o, "host_path",
			    host_path_json(f));
			json_object_array_add(arr, o);
			continue;
		}
		if (strcmp(nm, f->name) != 0)
			lc_buf_printf(out, "%s (device %s, ifindex %u): ", nm,
			    f->name, f->ifindex);
		else
			lc_buf_printf(out, "%s (ifindex %u): ", nm, f->ifindex);
		lc_buf_printf(out,
		    "link %s, %s, mtu %u, mac %s, "
		    "backend %s\n",
		    link_str(f), f->enabled ? "enabled" : "disabled", f->mtu,
		    mac,
		    f->backend != NULL && f->backend[0] ? f->backend : "-");
		for (size_t k = 0; fam != 6 && k < f->n_addrs; k++)
			lc_buf_printf(out, "  address %s\n",
			    pfx4(f->addrs[k]->addr, f->addrs[k]->len));
		if (fam != 4)
			if_text6(out, f);
		if (f->counters != NULL)
			lc_buf_printf(out,
			    "  rx %llu packets %llu bytes %llu drops "
			    "(%llu ring full); tx %llu packets %llu bytes %llu "
			    "drops\n",
			    (unsigned long long)f->counters->rx_packets,
			    (unsigned long long)f->counters->rx_bytes,
			    (unsigned long long)f->counters->rx_drops,
			    (unsigned long long)f->counters->rx_ring_full,
			    (unsigned long long)f->counters->tx_packets,
			    (unsigned long long)f->counters->tx_bytes,
			    (unsigned long long)f->counters->tx_drops);
		if (f->counters != NULL && f->baseline != NULL)
			lc_buf_printf(out,
			    "  statistics last cleared %llu s ago\n",
			    (unsigned long long)(f->cleared_ago_ms / 1000));
		host_path_text(out, f);
	}
	if (l->n_interfaces == 0 && rendering != NULL &&
	    rendering->asked[0] != '\0') {
		json_object_put(arr);
		render_fail(MGMT_E_NOT_FOUND,
		    "show interfaces %s: tern-fwd has no interface %s (not "
		    "applied yet?)",
		    rendering->asked, rendering->asked);
	} else if (jo != NULL)
		json_object_object_add(jo, "interfaces", arr);
	else if (l->n_interfaces == 0)
		lc_buf_printf(out, "no interfaces\n");
}

/* Configured interfaces' names, ", "-separated, into buf. */
struct if_names {
	char *buf;
	size_t n;
};

static int
if_names_cb(const struct mgmt_node *node, void *arg)
{
	struct if_names *in = arg;
	struct mgmt_iface_conf c;
	size_t len = strlen(in->buf);

	if (mgmt_conf_iface_get(node, &c) == 0 && len + 1 < in->n)
		snprintf(in->buf + len, in->n - len, "%s%s", len ? ", " : "",
		    c.name);
	return (0);
}

int
mgmt_show_interfaces(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	Fwd__InterfaceQuery q = FWD__INTERFACE_QUERY__INIT;
	char dev[MGMT_NAME_MAX];

	char names[256] = "";
	struct if_names in = {names, sizeof(names)};
	const char *w_[4];
	int fam = 0;

	if (nw > 4 || (fam = family_take(w, &nw, w_)) < 0)
		return (mgmt_show_bad_args(err, "show interfaces",
		    "at most a name and a family (inet or inet6)",
		    nw > 4 ? w[4] : w_[0]));
	w = w_;
	if (nw > 1)
		return (mgmt_show_bad_args(err, "show interfaces",
		    "at most a name and a family (inet or inet6)", w[1]));
	/* the tern name or the device: fwd knows the device; fwd has only
	 * configured interfaces, so another name is not asked about */
	if (nw == 1 && !if_known(op->m, w[0], false) &&
	    !if_known(op->m, w[0], true)) {
		(void)mgmt_conf_foreach(op->m->running, MGMT_S_IFACE,
		    if_names_cb, &in);
		lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "show interfaces: no interface %s (%s%s)", w[0],
		    names[0] != '\0' ? "configured: " :
				       "no interface is configured",
		    names);
		return (MGMT_E_NOT_FOUND);
	}
	q.name = (char *)(nw == 1 ?
		if_device_of(op->m, w[0], dev, sizeof(dev)) :
		"");
	q.counters = true;
	return (show_ask2(op, MGMT_PEER_FWD, FWD__METHOD__QUERY_INTERFACES,
	    &q.base, render_interfaces, nw == 1 ? w[0] : "", (unsigned)fam,
	    NULL, err));
}

/* ---- show fib ----------------------------------------------------------------------- */

static size_t
fib_nnh(const Fwd__FibRoute *r)
{
	return (r->prefix6.len == 16 ? r->n_nh_addr6 : r->n_nh_addr);
}

/* next hop k of r as text: its address, "attached" when 0 */
static const char *
fib_nh(const Fwd__FibRoute *r, size_t k)
{
	static const uint8_t zero[16];

	if (r->prefix6.len == 16)
		return (r->nh_addr6[k].len == 16 &&
			    memcmp(r->nh_addr6[k].data, zero, 16) != 0 ?
			ip6b(&r->nh_addr6[k]) :
			"attached");
	return (r->nh_addr[k] ? ip4(r->nh_addr[k]) : "attached");
}

static const char *
fib_pfx(const Fwd__FibRoute *r)
{
	return (r->prefix6.len == 16 ? pfx6b(&r->prefix6, r->len) :
				       pfx4(r->prefix, r->len));
}

/* "unicast", or what a route without next hop does */
static const char *
fib_kind(const Fwd__FibRoute *r)
{
	if (fib_nnh(r) > 0)
		return ("unicast");
	return (
	    r->kind == FWD__ROUTE_KIND__ROUTE_REJECT ? "reject" : "blackhole");
}

static void
render_fib(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Fwd__FibList *l = (const Fwd__FibList *)msg;
	const char *asked = rendering != NULL ? rendering->asked : "";
	/* both families: the IPv4 answer first (phase 0), the IPv6 one
	 * appended to its text and JSON (phase 1) */
	bool two = rendering != NULL && rendering->two;
	bool first = !two || rendering->phase == 0, last = !two || !first;
	/* IPv6 asked: a fwd that does not know FibQuery.ipv6 answers from
	 * its IPv4 FIB; that answer is not shown (nor counted) */
	bool want6 = (two && !first) || strchr(asked, ':') != NULL ||
	    (rendering != NULL && rendering->family == 6);
	size_t nkept = 0;
	uint32_t total;
	bool more = l->more || (two && last && rendering->more0), old = false;
	json_object *arr = NULL;

	(void)m;
	for (size_t i = 0; i < l->n_routes; i++)
		if ((l->routes[i]->prefix6.len == 16) == want6)
			nkept++;
		else
			old = true;
	total = old ? (uint32_t)nkept : l->total;
	more = more && !old;
	if (two && last)
		total += rendering->total0;
	/* one prefix or address asked: its route, or an error that names
	 * it (not an empty table counting the whole FIB) */
	if (asked[0] != '\0' && nkept == 0) {
		render_fail(MGMT_E_NOT_FOUND,
		    "show fib %s: %s in the FIB (%u route%s)", asked,
		    strchr(asked, '/') != NULL ? "no such route" :
						 "no route to this address",
		    total, total == 1 ? "" : "s");
		return;
	}
	if (jo != NULL &&
	    (first || !json_object_object_get_ex(jo, "routes", &arr))) {
		arr = json_object_new_array();
		json_object_object_add(jo, "routes", arr);
	}
	if (jo == NULL && first)
		lc_buf_printf(out, "%-19s %-16s %s\n", "Prefix", "Next hop",
		    "Ifindex");
	for (size_t i = 0; i < l->n_routes; i++) {
		const Fwd__FibRoute *r = l->routes[i];
		size_t nnh = fib_nnh(r);

		if ((r->prefix6.len == 16) != want6)
			continue;
		if (jo != NULL) {
			json_object *o = json_object_new_object(), *nhs;

			json_object_object_add(o, "prefix",
			    json_object_new_string(fib_pfx(r)));
			nhs = json_object_new_array();
			for (size_t k = 0; k < nnh; k++) {
				json_object *nh = json_object_new_object();

				json_object_object_add(nh, "address",
				    json_object_new_string(
					r->prefix6.len == 16 ?
					    ip6b(&r->nh_addr6[k]) :
					    ip4(r->nh_addr[k])));
				if (k < r->n_nh_ifindex)
					json_object_object_add(nh, "ifindex",
					    json_object_new_int(
						(int)r->nh_ifindex[k]));
				json_object_array_add(nhs, nh);
			}
			json_object_object_add(o, "next_hops", nhs);
			json_object_object_add(o, "type",
			    json_object_new_string(fib_kind(r)));
			json_object_array_add(arr, o);
			continue;
		}
		for (size_t k = 0; k == 0 || k < nnh; k++)
			lc_buf_printf(out, "%-19s %-16s %u\n",
			    k == 0 ? fib_pfx(r) : "",
			    k < nnh ? fib_nh(r, k) : fib_kind(r),
			    k < r->n_nh_ifindex ? r->nh_ifindex[k] : 0);
	}
	if (!last) {
		rendering->total0 = total;
		rendering->more0 = more;
		return;
	}
	if (jo != NULL) {
		json_object_object_add(jo, "total",
		    json_object_new_int64(total));
	} else if (asked[0] == '\0') {
		lc_buf_printf(out, "%u route%s in the FIB%s\n", total,
		    total == 1 ? "" : "s", more ? " (more not shown)" : "");
		render_table();
	}
}

int
mgmt_show_fib(const struct mgmt_op *op, const char *const *w_, unsigned nw,
    struct lc_err *err)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT, q6 = FWD__FIB_QUERY__INIT;
	struct lc_prefix4 p;
	struct lc_ip4 a;
	const char *w[4];
	uint8_t a6[16];
	int fam = 0;

	q.limit = SHOW_LIMIT;
	if (nw > 4 || (fam = family_take(w_, &nw, w)) < 0 || nw > 1)
		return (mgmt_show_bad_args(err, "show fib",
		    "at most a.b.c.d/len, a.b.c.d, x:x::/len or x:x::x, and "
		    "inet or inet6",
		    nw > 4	? w_[4] :
			fam < 0 ? w[0] :
				  w[1]));
	if (nw == 1) {
		if (strchr(w[0], ':') != NULL) {
			bool pfx;

			if (show_arg6("show fib", w[0], a6, &q.len, &pfx,
				&q.prefix6, &q.lookup6, err) != 0)
				return (MGMT_E_SYNTAX);
			q.ipv6 = true;
			q.exact = pfx;
			q.use_lookup = !pfx;
		} else if (lc_prefix4_parse(w[0], &p) == 0) {
			q.prefix = p.addr.s_addr;
			q.len = p.len;
			q.exact = true;
		} else if (lc_ip4_parse(w[0], &a) == 0) {
			q.lookup = a.s_addr;
			q.use_lookup = true;
		} else {
			return (mgmt_show_bad_args(err, "show fib",
			    "a.b.c.d/len, a.b.c.d, x:x::/len or x:x::x", w[0]));
		}
		if ((fam == 4 && q.ipv6) || (fam == 6 && !q.ipv6))
			return (mgmt_show_bad_args(err, "show fib",
			    fam == 4 ? "an IPv4 prefix or address with inet" :
				       "an IPv6 prefix or address with inet6",
			    w[0]));
	} else if (fam == 6)
		q.ipv6 = true;
	/* the whole FIB of both families: IPv4, then IPv6 */
	q6.limit = SHOW_LIMIT;
	q6.ipv6 = true;
	return (show_ask2(op, MGMT_PEER_FWD, FWD__METHOD__QUERY_FIB, &q.base,
	    render_fib, nw == 1 ? w[0] : "", (unsigned)fam,
	    nw == 0 && fam == 0 ? &q6 : NULL, err));
}

/* ---- show neighbors ---------------------------------------------------------------- */

static const char *
neigh_state(Fwd__NeighbourState s)
{
	switch (s) {
	case FWD__NEIGHBOUR_STATE__INCOMPLETE:
		return ("incomplete");
	case FWD__NEIGHBOUR_STATE__REACHABLE:
		return ("reachable");
	case FWD__NEIGHBOUR_STATE__STALE:
		return ("stale");
	case FWD__NEIGHBOUR_STATE__FAILED:
		return ("failed");
	case FWD__NEIGHBOUR_STATE__STATIC:
		return ("static");
	case FWD__NEIGHBOUR_STATE__DELAY:
		return ("delay");
	case FWD__NEIGHBOUR_STATE__PROBE:
		return ("probe");
	default:
		return ("none");
	}
}

static void
render_neighbors(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Fwd__NeighbourList *l = (const Fwd__NeighbourList *)msg;
	json_object *arr = jo != NULL ? json_object_new_array() : NULL;
	unsigned fam = rendering != NULL ? rendering->family : 0;

	if (jo == NULL)
		lc_buf_printf(out, "%-16s %-17s %-15s %-10s %8s %s\n",
		    "Address", "MAC", "Interface", "State", "Age ms", "Queued");
	for (size_t i = 0; i < l->n_neighbours; i++) {
		const Fwd__Neighbour *n = l->neighbours[i];
		char mac[18] = "-", ifn[24];

		/* the family asked only (a fwd that does not know the
		 * query's family answers IPv4 alone) */
		if ((fam == 4 && n->addr6.len == 16) ||
		    (fam == 6 && n->addr6.len != 16))
			continue;
		if (n->mac.len == 6)
			snprintf(mac, sizeof(mac),
			    "%02x:%02x:%02x:%02x:%02x:%02x", n->mac.data[0],
			    n->mac.data[1], n->mac.data[2], n->mac.data[3],
			    n->mac.data[4], n->mac.data[5]);
		if (jo != NULL) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "address",
			    json_object_new_string(n->addr6.len == 16 ?
				    ip6b(&n->addr6) :
				    ip4(n->addr)));
			json_object_object_add(o, "family",
			    json_object_new_string(
				n->addr6.len == 16 ? "inet6" : "inet"));
			if (n->addr6.len == 16)
				json_object_object_add(o, "router",
				    json_object_new_boolean(n->router));
			json_object_object_add(o, "mac",
			    json_object_new_string(mac));
			json_object_object_add(o, "interface",
			    json_object_new_string(
				if_name_of(m, n->ifname, ifn, sizeof(ifn))));
			json_object_object_add(o, "device",
			    json_object_new_string(n->ifname));
			json_object_object_add(o, "ifindex",
			    json_object_new_int((int)n->ifindex));
			json_object_object_add(o, "state",
			    json_object_new_string(neigh_state(n->state)));
			json_object_object_add(o, "age_ms",
			    json_object_new_int64(n->age_ms));
			json_object_object_add(o, "queued",
			    json_object_new_int((int)n->queued));
			json_object_array_add(arr, o);
			continue;
		}
		if (n->ifname[0] != '\0')
			if_name_of(m, n->ifname, ifn, sizeof(ifn));
		else
			snprintf(ifn, sizeof(ifn), "ifindex %u", n->ifindex);
		lc_buf_printf(out, "%-16s %-17s %-15s %-10s %8u %u%s\n",
		    n->addr6.len == 16 ? ip6b(&n->addr6) : ip4(n->addr), mac,
		    ifn, neigh_state(n->state), n->age_ms, n->queued,
		    n->addr6.len == 16 && n->router ? " router" : "");
	}
	if (jo != NULL)
		json_object_object_add(jo, "neighbors", arr);
}

int
mgmt_show_neighbors(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_err *err)
{
	Fwd__NeighbourQuery q = FWD__NEIGHBOUR_QUERY__INIT;
	const char *kept[4];
	int fam = 0;

	if (nw > 4 || (fam = family_take(w, &nw, kept)) < 0 || nw > 0)
		return (mgmt_show_bad_args(err, "show neighbors",
		    "at most inet or inet6", nw > 4 ? w[4] : kept[0]));
	/* NeighbourQuery.family: 46 both (ARP and ND), 4 or 6 */
	q.family = fam == 0 ? 46 : (uint32_t)fam;
	return (show_ask2(op, MGMT_PEER_FWD, FWD__METHOD__QUERY_NEIGHBOURS,
	    &q.base, render_neighbors, "", (unsigned)fam, NULL, err));
}

/* ---- show processes, restart -------------------------------------------------------- */

const char *
mgmt_show_proc_state(int s)
{
	switch (s) {
	case RTRMGR__STATE__STOPPED:
		return ("stopped");
	case RTRMGR__STATE__STARTING:
		return ("starting");
	case RTRMGR__STATE__RUNNING:
		return ("running");
	case RTRMGR__STATE__STOPPING:
		return ("stopping");
	case RTRMGR__STATE__BACKOFF:
		return ("backoff");
	case RTRMGR__STATE__FAILED:
		return ("failed");
	default:
		return ("unknown");
	}
}

/* ms since the component's last instance ended (rtrmgr's realtime). */
static uint64_t
end_ago_ms(const Rtrmgr__Component *c)
{
	uint64_t now = lc_time_real_ns() / LC_NS_PER_MSEC;

	return (now > c->end_ms ? now - c->end_ms : 0);
}

/*
 * The "Last exit" column: the current instance's error (hung, failed,
 * cannot start), else how the last instance ended, which rtrmgr keeps
 * across the restart (a kill -9 once left this empty: issue 23).
 */
static const char *
end_text(const Rtrmgr__Component *c, char *buf, size_t len)
{
	if (c->last_error != NULL && c->last_error[0] != '\0')
		return (c->last_error);
	if (c->end_ms == 0)
		return ("");
	snprintf(buf, len, "generation %llu %s, %llu s ago",
	    (unsigned long long)c->end_generation,
	    c->end_reason != NULL ? c->end_reason : "ended",
	    (unsigned long long)(end_ago_ms(c) / 1000));
	return (buf);
}

static json_object *
end_json(const Rtrmgr__Component *c)
{
	json_object *o;

	if (c->end_ms == 0)
		return (NULL);
	o = json_object_new_object();
	json_object_object_add(o, "generation",
	    json_object_new_int64((int64_t)c->end_generation));
	json_object_object_add(o, "exit", json_object_new_int(c->end_exit));
	json_object_object_add(o, "signal",
	    json_object_new_int(c->end_exit < 0 ? -c->end_exit : 0));
	json_object_object_add(o, "reason",
	    json_object_new_string(c->end_reason != NULL ? c->end_reason : ""));
	json_object_object_add(o, "at_ms",
	    json_object_new_int64((int64_t)c->end_ms));
	json_object_object_add(o, "ago_ms",
	    json_object_new_int64((int64_t)end_ago_ms(c)));
	return (o);
}

static void
render_component(struct lc_buf *out, json_object *jo,
    const Rtrmgr__Component *c, json_object *arr)
{
	char end[SHOW_END_MAX];

	if (jo != NULL) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "component",
		    json_object_new_string(c->name));
		json_object_object_add(o, "pid",
		    json_object_new_int((int)c->pid));
		json_object_object_add(o, "state",
		    json_object_new_string(mgmt_show_proc_state(c->state)));
		json_object_object_add(o, "uptime_ms",
		    json_object_new_int64((int64_t)c->uptime_ms));
		json_object_object_add(o, "restarts",
		    json_object_new_int((int)c->restarts));
		json_object_object_add(o, "generation",
		    json_object_new_int64((int64_t)c->generation));
		/* the exit of the last instance that ended, not the running
		 * one's 0 */
		json_object_object_add(o, "last_exit",
		    json_object_new_int(
			c->end_ms != 0 ? c->end_exit : c->last_exit));
		json_object_object_add(o, "last_error",
		    json_object_new_string(
			c->last_error != NULL ? c->last_error : ""));
		json_object_object_add(o, "last_end", end_json(c));
		json_object_array_add(arr, o);
		return;
	}
	lc_buf_printf(out, "%-9s %7u %-9s %10.1f %8u %20llu %s\n", c->name,
	    c->pid, mgmt_show_proc_state(c->state),
	    (double)c->uptime_ms / 1000.0, c->restarts,
	    (unsigned long long)c->generation, end_text(c, end, sizeof(end)));
}

static void
render_processes(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Rtrmgr__ComponentList *l = (const Rtrmgr__ComponentList *)msg;
	json_object *arr = jo != NULL ? json_object_new_array() : NULL;

	if (jo == NULL)
		lc_buf_printf(out, "%-9s %7s %-9s %10s %8s %20s %s\n",
		    "Component", "PID", "State", "Uptime s", "Restarts",
		    "Generation", "Last exit");
	for (size_t i = 0; i < l->n_components; i++)
		render_component(out, jo, l->components[i], arr);
	if (jo != NULL)
		json_object_object_add(jo, "processes", arr);
}

int
mgmt_show_processes(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_err *err)
{
	static const ProtobufCMessageDescriptor *d =
	    &lifecycle__empty__descriptor;
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;

	(void)d;
	if (nw > 0)
		return (
		    mgmt_show_bad_args(err, "show processes", "nothing", w[0]));
	return (mgmt_show_ask(op, MGMT_PEER_RTRMGR, RTRMGR__METHOD__LIST,
	    &e.base, render_processes, err));
}

static void
render_control(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Rtrmgr__Component *c = (const Rtrmgr__Component *)msg;

	if (jo != NULL) {
		json_object *arr = json_object_new_array();

		render_component(out, jo, c, arr);
		json_object_object_add(jo, "component", arr);
		return;
	}
	lc_buf_printf(out, "%s: %s, pid %u, generation %llu\n", c->name,
	    mgmt_show_proc_state(c->state), c->pid,
	    (unsigned long long)c->generation);
}

/* restart, stop or start one component through tern-rtrmgr */
int
mgmt_control(const struct mgmt_op *op, const char *verb, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	Rtrmgr__ComponentRequest q = RTRMGR__COMPONENT_REQUEST__INIT;
	unsigned method;

	if (nw != 1) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: expected one component (fwd, rib or "
		    "mgmt)",
		    verb);
		return (MGMT_E_SYNTAX);
	}
	method = strcmp(verb, "stop") == 0 ? RTRMGR__METHOD__STOP :
	    strcmp(verb, "start") == 0	   ? RTRMGR__METHOD__START :
					     RTRMGR__METHOD__RESTART;
	q.name = (char *)w[0];
	return (mgmt_show_ask(op, MGMT_PEER_RTRMGR, method, &q.base,
	    render_control, err));
}

/* ---- show route summary --------------------------------------------------------- */

static void
render_summary(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Rib__SourceList *l = (const Rib__SourceList *)msg;
	json_object *arr = jo != NULL ? json_object_new_array() : NULL;
	unsigned long long total = 0, active = 0;

	if (jo == NULL)
		lc_buf_printf(out, "%-12s %9s %9s %9s %9s %8s %s\n", "Source",
		    "Routes", "Active", "Inactive", "Stale", "Distance",
		    "Peer");
	for (size_t i = 0; i < l->n_sources; i++) {
		const Rib__SourceInfo *s = l->sources[i];
		const char *name = s->source_name != NULL && s->source_name[0] ?
		    s->source_name :
		    s->source == RIB__SOURCE__CONNECTED ? "connected" :
		    s->source == RIB__SOURCE__STATIC	? "static" :
							  "protocol";

		total += s->routes;
		active += s->active;
		if (jo != NULL) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "source",
			    json_object_new_string(name));
			json_object_object_add(o, "routes",
			    json_object_new_int64(s->routes));
			json_object_object_add(o, "active",
			    json_object_new_int64(s->active));
			json_object_object_add(o, "inactive",
			    json_object_new_int64(s->inactive));
			json_object_object_add(o, "stale",
			    json_object_new_int64(s->stale));
			json_object_object_add(o, "distance",
			    json_object_new_int((int)s->distance));
			json_object_object_add(o, "connected",
			    json_object_new_boolean(s->connected));
			json_object_array_add(arr, o);
			continue;
		}
		lc_buf_printf(out, "%-12s %9u %9u %9u %9u %8u %s\n", name,
		    s->routes, s->active, s->inactive, s->stale, s->distance,
		    s->connected ? "connected" : "-");
	}
	if (jo != NULL) {
		json_object_object_add(jo, "sources", arr);
		json_object_object_add(jo, "routes",
		    json_object_new_int64((int64_t)total));
		json_object_object_add(jo, "active",
		    json_object_new_int64((int64_t)active));
	} else {
		lc_buf_printf(out, "%llu routes, %llu active\n", total, active);
	}
}

int
mgmt_show_route_summary(const struct mgmt_op *op, struct lc_err *err)
{
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;

	return (mgmt_show_ask(op, MGMT_PEER_RIB, RIB__METHOD__SOURCES, &e.base,
	    render_summary, err));
}

/* ---- show ipc ------------------------------------------------------------------------ */

/* mgmt's own connections now, then each component's STATUS counters. */
struct ipc_wait {
	struct mgmt_op op;
	unsigned pending;
	struct lc_buf text;
	json_object *jo;
};

static void
stats_out(struct ipc_wait *w, const char *conn, const struct ipc_stats *st,
    bool connected)
{
	if (w->jo != NULL) {
		json_object *o = json_object_new_object();

#define J(f) \
	json_object_object_add(o, #f, json_object_new_int64((int64_t)st->f))
		json_object_object_add(o, "connection",
		    json_object_new_string(conn));
		json_object_object_add(o, "connected",
		    json_object_new_boolean(connected));
		J(calls_out);
		J(calls_in);
		J(replies_out);
		J(replies_in);
		J(events_out);
		J(events_in);
		J(frames_out);
		J(frames_in);
		J(bytes_out);
		J(bytes_in);
		J(drops);
		J(timeouts);
		J(errors);
		J(connects);
		J(restarts);
		J(nobufs);
		J(shed_conn_max);
		J(shed_uid_max);
		J(shed_no_fd);
		J(accept_errors);
		J(accept_pauses);
		J(hello_timeouts);
		J(frame_timeouts);
		J(rx_budget_refused);
#undef J
		json_object_array_add(json_object_object_get(w->jo, "mgmt"), o);
		return;
	}
	lc_buf_printf(&w->text,
	    "  %-16s %-4s calls %llu/%llu replies %llu/%llu "
	    "events %llu/%llu frames %llu/%llu bytes %llu/%llu drops %llu "
	    "timeouts %llu errors %llu restarts %llu\n",
	    conn, connected ? "up" : "down", (unsigned long long)st->calls_out,
	    (unsigned long long)st->calls_in,
	    (unsigned long long)st->replies_out,
	    (unsigned long long)st->replies_in,
	    (unsigned long long)st->events_out,
	    (unsigned long long)st->events_in,
	    (unsigned long long)st->frames_out,
	    (unsigned long long)st->frames_in,
	    (unsigned long long)st->bytes_out, (unsigned long long)st->bytes_in,
	    (unsigned long long)st->drops, (unsigned long long)st->timeouts,
	    (unsigned long long)st->errors, (unsigned long long)st->restarts);
	/* a server's limits (docs/ipc.md, "Limits"); a client has none */
	if (strcmp(conn, "server") == 0)
		lc_buf_printf(&w->text,
		    "  %-16s refused: conn_max %llu uid_max %llu no_fd %llu; "
		    "accept errors %llu pauses %llu; closed: hello_timeouts "
		    "%llu frame_timeouts %llu; rx_budget_refused %llu\n",
		    "server limits", (unsigned long long)st->shed_conn_max,
		    (unsigned long long)st->shed_uid_max,
		    (unsigned long long)st->shed_no_fd,
		    (unsigned long long)st->accept_errors,
		    (unsigned long long)st->accept_pauses,
		    (unsigned long long)st->hello_timeouts,
		    (unsigned long long)st->frame_timeouts,
		    (unsigned long long)st->rx_budget_refused);
}

static void
ipc_wait_done(struct ipc_wait *w)
{
	struct lc_err none = {0};

	if (--w->pending > 0)
		return;
	if (w->jo != NULL) {
		lc_buf_printf(&w->text, "%s",
		    json_object_to_json_string_ext(w->jo,
			JSON_C_TO_STRING_PLAIN));
		json_object_put(w->jo);
	}
	lc_buf_append(&w->text, "", 1);
	w->op.later(w->op.arg, w->op.m, mgmt_session_find(w->op.m, w->op.sid),
	    MGMT_OK, (char *)lc_buf_head(&w->text), &none);
	lc_buf_fini(&w->text);
	free(w);
}

struct ipc_status_call {
	struct ipc_wait *w;
	enum mgmt_peer peer;
};

static void
status_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct ipc_status_call *c = arg;
	struct ipc_wait *w = c->w;
	const Lifecycle__Status *st = (const Lifecycle__Status *)msg;
	const char *name = mgmt_peer_name(c->peer);

	if (w->jo != NULL) {
		json_object *o = json_object_new_object();

		if (status == IPC_OK && st != NULL)
			for (size_t i = 0; i < st->n_counters; i++)
				json_object_object_add(o, st->counters[i]->name,
				    json_object_new_int64(
					(int64_t)st->counters[i]->value));
		else
			json_object_object_add(o, "error",
			    json_object_new_string(ipc_status_str(status)));
		json_object_object_add(json_object_object_get(w->jo,
					   "components"),
		    name, o);
	} else if (status == IPC_OK && st != NULL) {
		lc_buf_printf(&w->text, "%s (generation %llu, %s):", name,
		    (unsigned long long)st->generation,
		    st->state != NULL && st->state[0] ? st->state : "-");
		for (size_t i = 0; i < st->n_counters; i++)
			lc_buf_printf(&w->text, " %s %llu",
			    st->counters[i]->name,
			    (unsigned long long)st->counters[i]->value);
		lc_buf_printf(&w->text, "\n");
	} else {
		lc_buf_printf(&w->text, "%s: %s %s\n", name,
		    ipc_status_str(status), ierr->msg);
	}
	free(c);
	ipc_wait_done(w);
}

int
mgmt_show_ipc(const struct mgmt_op *op, const char *const *w_, unsigned nw,
    struct lc_err *err)
{
	static const enum mgmt_peer peers[] = {MGMT_PEER_FWD, MGMT_PEER_RIB,
	    MGMT_PEER_RTRMGR};
	struct ipc_wait *w;
	struct ipc_stats st;

	if (nw > 0)
		return (mgmt_show_bad_args(err, "show ipc", "nothing", w_[0]));
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (MGMT_E_INTERNAL);
	}
	w->op = *op;
	w->pending = 1; /* ours, released at the end */
	lc_buf_init(&w->text);
	if (op->json) {
		w->jo = json_object_new_object();
		json_object_object_add(w->jo, "mgmt", json_object_new_array());
		json_object_object_add(w->jo, "components",
		    json_object_new_object());
	} else {
		lc_buf_printf(&w->text, "tern-mgmt connections (out/in):\n");
	}
	if (mgmt_server_stats(op->m, &st) == 0)
		stats_out(w, "server", &st, true);
	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		struct ipc_client *cl = mgmt_peer_client(op->m, peers[i]);
		struct ipc_status_call *c;
		char conn[32];

		if (cl == NULL)
			continue;
		ipc_client_stats(cl, &st);
		snprintf(conn, sizeof(conn), "to %s", mgmt_peer_name(peers[i]));
		stats_out(w, conn, &st, ipc_client_connected(cl));
		if (!ipc_client_connected(cl) ||
		    (c = calloc(1, sizeof(*c))) == NULL)
			continue;
		c->w = w;
		c->peer = peers[i];
		if (ipc_call(cl, IPC_LC(LIFECYCLE__METHOD__STATUS), NULL,
			status_reply, c, SHOW_TIMEOUT_MS) == 0)
			w->pending++;
		else
			free(c);
	}
	ipc_wait_done(w); /* answers now if nobody else is asked */
	return (MGMT_PENDING);
}

/* ---- show bgp, clear bgp ----------------------------------------------------------- */

static const char *
bgp_state(Bgp__State st)
{
	switch (st) {
	case BGP__STATE__IDLE:
		return ("Idle");
	case BGP__STATE__CONNECT:
		return ("Connect");
	case BGP__STATE__ACTIVE:
		return ("Active");
	case BGP__STATE__OPEN_SENT:
		return ("OpenSent");
	case BGP__STATE__OPEN_CONFIRM:
		return ("OpenConfirm");
	case BGP__STATE__ESTABLISHED:
		return ("Established");
	default:
		return ("unknown");
	}
}

/* Time in a state: "01:02:03", or "3d04h05m" from a day on. */
static const char *
bgp_dur(uint64_t ms, char *buf, size_t n)
{
	uint64_t t = ms / 1000;

	if (t >= 86400)
		snprintf(buf, n, "%llud%02lluh%02llum",
		    (unsigned long long)(t / 86400),
		    (unsigned long long)(t % 86400 / 3600),
		    (unsigned long long)(t % 3600 / 60));
	else
		snprintf(buf, n, "%02llu:%02llu:%02llu",
		    (unsigned long long)(t / 3600),
		    (unsigned long long)(t % 3600 / 60),
		    (unsigned long long)(t % 60));
	return (buf);
}

static const char *
str_or(const char *s, const char *dflt)
{
	return (s != NULL && s[0] != '\0' ? s : dflt);
}

/* Every field of a neighbour's state, for | json. */
static json_object *
bgp_nbr_json(const Bgp__NeighborState *n)
{
	json_object *o = json_object_new_object(), *caps;

#define JS(k, v) json_object_object_add(o, k, json_object_new_string(v))
#define JI(k, v) \
	json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	JS("address", ip4(n->address));
	JI("remote_as", n->remote_as);
	JS("state", bgp_state(n->state));
	JI("state_ms", n->state_ms);
	JS("description", str_or(n->description, ""));
	JS("remote_id", ip4(n->remote_id));
	JI("hold_time", n->hold_time);
	JI("keepalive", n->keepalive);
	caps = json_object_new_array();
	for (size_t i = 0; i < n->n_capabilities; i++)
		json_object_array_add(caps,
		    json_object_new_string(n->capabilities[i]));
	json_object_object_add(o, "capabilities", caps);
	JI("msgs_in", n->msgs_in);
	JI("msgs_out", n->msgs_out);
	JI("updates_in", n->updates_in);
	JI("updates_out", n->updates_out);
	JI("prefixes_received", n->prefixes_received);
	JI("prefixes_accepted", n->prefixes_accepted);
	JI("prefixes_advertised", n->prefixes_advertised);
	JI("families", n->families);
	JI("families_negotiated", n->families_negotiated);
	JI("prefixes6_received", n->prefixes6_received);
	JI("prefixes6_accepted", n->prefixes6_accepted);
	JI("prefixes6_advertised", n->prefixes6_advertised);
	JS("last_error", str_or(n->last_error, ""));
	JI("flaps", n->flaps);
	json_object_object_add(o, "passive",
	    json_object_new_boolean(n->passive));
	JS("local_address", ip4(n->local_address));
	JI("local_port", n->local_port);
	JI("remote_port", n->remote_port);
	JS("policy_note", str_or(n->policy_note, ""));
	JI("peer_restart_time", n->peer_restart_time);
	json_object_object_add(o, "peer_forwarding",
	    json_object_new_boolean(n->peer_forwarding));
	JS("gr_help",
	    n->gr_help == BGP__GR_HELP__GR_WAITING	  ? "waiting" :
		n->gr_help == BGP__GR_HELP__GR_END_OF_RIB ? "end-of-rib" :
							    "none");
	JI("stale_paths", n->stale_paths);
	JI("gr_timer_ms", n->gr_timer_ms);
	JI("restarts_helped", n->restarts_helped);
#undef JS
#undef JI
	return (o);
}

/* {"local_as", "router_id", "paths", "best", "neighbors": [...]} */
static void
bgp_list_json(json_object *jo, const Bgp__NeighborList *l)
{
	json_object *arr = json_object_new_array();

	json_object_object_add(jo, "local_as",
	    json_object_new_int64(l->local_as));
	json_object_object_add(jo, "router_id",
	    json_object_new_string(ip4(l->router_id)));
	json_object_object_add(jo, "paths",
	    json_object_new_int64((int64_t)l->paths));
	json_object_object_add(jo, "best",
	    json_object_new_int64((int64_t)l->best));
	json_object_object_add(jo, "paths6",
	    json_object_new_int64((int64_t)l->paths6));
	json_object_object_add(jo, "best6",
	    json_object_new_int64((int64_t)l->best6));
	for (size_t i = 0; i < l->n_neighbors; i++)
		json_object_array_add(arr, bgp_nbr_json(l->neighbors[i]));
	json_object_object_add(jo, "neighbors", arr);
}

/*
 * BGP router id 198.18.0.1, local AS 65001: 12 paths, 10 prefixes best
 * Neighbor         AS          State        Up/Down   MsgIn  MsgOut Rcvd/Accepted/Advertised
 * 198.18.1.2       65002       Established  00:01:05     12      10 3/3/0
 * then each neighbour's policy note (RFC 8212) and last error
 */
static void
render_bgp_summary(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Bgp__NeighborList *l = (const Bgp__NeighborList *)msg;
	char up[24];

	(void)m;
	if (jo != NULL) {
		bgp_list_json(jo, l);
		return;
	}
	lc_buf_printf(out,
	    "BGP router id %s, local AS %u: %llu paths, %llu prefixes with a "
	    "best path\n",
	    ip4(l->router_id), l->local_as, (unsigned long long)l->paths,
	    (unsigned long long)l->best);
	if (l->paths6 > 0 || l->best6 > 0)
		lc_buf_printf(out,
		    "IPv6 unicast: %llu paths, %llu prefixes with a best "
		    "path\n",
		    (unsigned long long)l->paths6,
		    (unsigned long long)l->best6);
	if (l->n_neighbors == 0) {
		lc_buf_printf(out, "no neighbors\n");
		return;
	}
	lc_buf_printf(out, "%-16s %-11s %-12s %-9s %7s %7s %s\n", "Neighbor",
	    "AS", "State", "Up/Down", "MsgIn", "MsgOut",
	    "Rcvd/Accepted/Advertised");
	for (size_t i = 0; i < l->n_neighbors; i++) {
		const Bgp__NeighborState *n = l->neighbors[i];

		lc_buf_printf(out,
		    "%-16s %-11u %-12s %-9s %7llu %7llu %llu/%llu/%llu\n",
		    ip4(n->address), n->remote_as, bgp_state(n->state),
		    bgp_dur(n->state_ms, up, sizeof(up)),
		    (unsigned long long)n->msgs_in,
		    (unsigned long long)n->msgs_out,
		    (unsigned long long)n->prefixes_received,
		    (unsigned long long)n->prefixes_accepted,
		    (unsigned long long)n->prefixes_advertised);
		/* the IPv6 unicast counts on a line of their own, as Junos
		 * prints inet6.0 under the neighbour */
		if (n->families & 2)
			lc_buf_printf(out, "  inet6.0: %llu/%llu/%llu%s\n",
			    (unsigned long long)n->prefixes6_received,
			    (unsigned long long)n->prefixes6_accepted,
			    (unsigned long long)n->prefixes6_advertised,
			    n->state == BGP__STATE__ESTABLISHED &&
				    !(n->families_negotiated & 2) ?
				" (not negotiated: the neighbour has no IPv6 "
				"unicast)" :
				"");
	}
	for (size_t i = 0; i < l->n_neighbors; i++) {
		const Bgp__NeighborState *n = l->neighbors[i];

		if (n->policy_note != NULL && n->policy_note[0] != '\0')
			lc_buf_printf(out, "%s: %s\n", ip4(n->address),
			    n->policy_note);
		if (n->last_error != NULL && n->last_error[0] != '\0')
			lc_buf_printf(out, "%s: last error: %s\n",
			    ip4(n->address), n->last_error);
	}
}

/* Graceful restart, the helper's side (RFC 4724 4.2). */
static void
render_bgp_gr(struct lc_buf *out, const Bgp__NeighborState *n)
{
	unsigned long long st = (unsigned long long)n->stale_paths;
	unsigned left = (unsigned)((n->gr_timer_ms + 999) / 1000);

	if (n->gr_help == BGP__GR_HELP__GR_WAITING)
		lc_buf_printf(out,
		    "  graceful restart: helping: %llu stale path%s kept, "
		    "%u s left for it to come back\n",
		    st, st == 1 ? "" : "s", left);
	else if (n->gr_help == BGP__GR_HELP__GR_END_OF_RIB)
		lc_buf_printf(out,
		    "  graceful restart: helping: back, %llu stale path%s "
		    "until its End-of-RIB (%u s left)\n",
		    st, st == 1 ? "" : "s", left);
	else if (n->peer_restart_time > 0 || n->restarts_helped > 0)
		lc_buf_printf(out,
		    "  graceful restart: its restart time %u s, forwarding "
		    "state %s; %u restart%s helped\n",
		    n->peer_restart_time,
		    n->peer_forwarding ? "kept" : "not kept",
		    n->restarts_helped, n->restarts_helped == 1 ? "" : "s");
}

static void
render_bgp_neighbors(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Bgp__NeighborList *l = (const Bgp__NeighborList *)msg;
	char up[24];

	(void)m;
	if (jo != NULL) {
		bgp_list_json(jo, l);
		return;
	}
	if (l->n_neighbors == 0)
		lc_buf_printf(out, "no such BGP neighbor\n");
	for (size_t i = 0; i < l->n_neighbors; i++) {
		const Bgp__NeighborState *n = l->neighbors[i];

		lc_buf_printf(out, "%sNeighbor %s, remote AS %u", i ? "\n" : "",
		    ip4(n->address), n->remote_as);
		if (n->description != NULL && n->description[0] != '\0')
			lc_buf_printf(out, ", \"%s\"", n->description);
		lc_buf_printf(out, "\n  state %s for %s, %u flap%s%s\n",
		    bgp_state(n->state), bgp_dur(n->state_ms, up, sizeof(up)),
		    n->flaps, n->flaps == 1 ? "" : "s",
		    n->passive ? ", passive" : "");
		lc_buf_printf(out,
		    "  remote router id %s, hold time %u, "
		    "keepalive %u\n",
		    ip4(n->remote_id), n->hold_time, n->keepalive);
		lc_buf_printf(out, "  local %s port %u, remote port %u\n",
		    ip4(n->local_address), n->local_port, n->remote_port);
		lc_buf_printf(out, "  capabilities:");
		for (size_t k = 0; k < n->n_capabilities; k++)
			lc_buf_printf(out, " %s", n->capabilities[k]);
		lc_buf_printf(out, "%s\n", n->n_capabilities ? "" : " none");
		lc_buf_printf(out,
		    "  messages: in %llu (%llu updates), out %llu (%llu "
		    "updates)\n",
		    (unsigned long long)n->msgs_in,
		    (unsigned long long)n->updates_in,
		    (unsigned long long)n->msgs_out,
		    (unsigned long long)n->updates_out);
		lc_buf_printf(out,
		    "  prefixes: %llu received, %llu accepted, %llu "
		    "advertised\n",
		    (unsigned long long)n->prefixes_received,
		    (unsigned long long)n->prefixes_accepted,
		    (unsigned long long)n->prefixes_advertised);
		/* IPv6 unicast configured (IPv4 alone says nothing more) */
		if (n->families & 2) {
			lc_buf_printf(out,
			    "  families: %s%s, negotiated: %s%s%s\n",
			    n->families & 1 ? "inet unicast, " : "",
			    "inet6 unicast",
			    n->families_negotiated & 1 ? "inet unicast" : "",
			    (n->families_negotiated & 3) == 3 ? ", " : "",
			    n->families_negotiated & 2	    ? "inet6 unicast" :
				n->families_negotiated == 0 ? "none" :
							      "");
			lc_buf_printf(out,
			    "  IPv6 prefixes: %llu received, %llu accepted, "
			    "%llu advertised\n",
			    (unsigned long long)n->prefixes6_received,
			    (unsigned long long)n->prefixes6_accepted,
			    (unsigned long long)n->prefixes6_advertised);
		}
		lc_buf_printf(out, "  last error: %s\n",
		    str_or(n->last_error, "none"));
		if (n->policy_note != NULL && n->policy_note[0] != '\0')
			lc_buf_printf(out, "  policy: %s\n", n->policy_note);
		render_bgp_gr(out, n);
	}
}

int
mgmt_show_bgp_down(const struct mgmt_op *op, struct lc_err *err)
{
	struct mgmt_bgp_conf b;
	size_t n = mgmt_conf_count(op->m->running, MGMT_S_BGP_NBR);

	mgmt_conf_bgp_get(op->m->running, &b);
	if (!b.present)
		lc_err_set(err, -ENOTCONN, LC_ERR_NOINDEX,
		    "BGP is not running: no protocols bgp in the configuration "
		    "and no tern-bgp");
	else
		lc_err_set(err, -ENOTCONN, LC_ERR_NOINDEX,
		    "tern-bgp is not running: the %zu configured neighbor%s "
		    "ha%s no session until it starts",
		    n, n == 1 ? "" : "s", n == 1 ? "s" : "ve");
	return (MGMT_E_UNAVAILABLE);
}

bool
mgmt_show_bgp_up(const struct mgmt_op *op)
{
	struct ipc_client *cl = mgmt_peer_client(op->m, MGMT_PEER_BGP);

	return (cl != NULL && ipc_client_connected(cl));
}

int
mgmt_show_bgp_summary(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	Bgp__NeighborQuery q = BGP__NEIGHBOR_QUERY__INIT;

	if (nw > 0)
		return (mgmt_show_bad_args(err, "show bgp summary", "nothing",
		    w[0]));
	if (!mgmt_show_bgp_up(op))
		return (mgmt_show_bgp_down(op, err));
	return (mgmt_show_ask(op, MGMT_PEER_BGP, BGP__METHOD__QUERY_NEIGHBORS,
	    &q.base, render_bgp_summary, err));
}

int
mgmt_show_bgp_neighbor(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	Bgp__NeighborQuery q = BGP__NEIGHBOR_QUERY__INIT;
	struct lc_ip4 a;

	if (nw >= 1 && lc_ip4_parse(w[0], &a) != 0)
		return (mgmt_show_bad_args(err, "show bgp neighbor",
		    "at most a neighbor address a.b.c.d", w[0]));
	if (nw >= 2 &&
	    (strcmp(w[1], "received-routes") == 0 ||
		strcmp(w[1], "advertised-routes") == 0))
		return (mgmt_show_bgp_adj(op, a, w[1][0] == 'a', w + 2, nw - 2,
		    err));
	if (nw > 1)
		return (mgmt_show_bad_args(err, "show bgp neighbor",
		    "received-routes or advertised-routes after the address",
		    w[1]));
	if (nw == 1)
		q.address = a.s_addr;
	if (!mgmt_show_bgp_up(op))
		return (mgmt_show_bgp_down(op, err));
	return (mgmt_show_ask(op, MGMT_PEER_BGP, BGP__METHOD__QUERY_NEIGHBORS,
	    &q.base, render_bgp_neighbors, err));
}

/* clear bgp neighbor: tern-bgp's ConfigAck is the command's result */
struct clear_wait {
	struct mgmt_op op;
	struct lc_ip4 addr;
	bool soft;
};

static void
clear_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct clear_wait *cw = arg;
	const Bgp__ConfigAck *a = (const Bgp__ConfigAck *)msg;
	struct lc_err err = {0};
	char text[96] = "";
	int code = MGMT_OK;

	if (status != IPC_OK || a == NULL) {
		code = status == IPC_DENIED ? MGMT_E_DENIED :
					      MGMT_E_UNAVAILABLE;
		lc_err_set(&err, -EIO, LC_ERR_NOINDEX, "tern-bgp: %s%s%s",
		    ipc_status_str(status), ierr->msg[0] ? ": " : "",
		    ierr->msg);
	} else if (!a->ok) {
		code = MGMT_E_INVALID;
		lc_err_set(&err, -EINVAL, LC_ERR_NOINDEX,
		    "clear bgp neighbor %s: %s", lc_ip4_ntoa(cw->addr),
		    str_or(a->error, "refused"));
	} else {
		snprintf(text, sizeof(text), "neighbor %s: %s\n",
		    lc_ip4_ntoa(cw->addr),
		    cw->soft ?
			"soft reset (route refresh in, routes sent again)" :
			"session reset");
	}
	cw->op.later(cw->op.arg, cw->op.m,
	    mgmt_session_find(cw->op.m, cw->op.sid), code, text, &err);
	free(cw);
}

int
mgmt_clear_bgp_neighbor(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	Bgp__ClearNeighbor q = BGP__CLEAR_NEIGHBOR__INIT;
	struct clear_wait *cw;
	struct lc_ip4 a;
	int rv;

	if (nw < 1 || nw > 2 || lc_ip4_parse(w[0], &a) != 0 ||
	    (nw == 2 && strcmp(w[1], "soft") != 0)) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "clear bgp neighbor: expected a neighbor address a.b.c.d "
		    "and optionally soft");
		return (MGMT_E_SYNTAX);
	}
	q.address = a.s_addr;
	q.soft = nw == 2;
	if (!mgmt_show_bgp_up(op))
		return (mgmt_show_bgp_down(op, err));
	if ((cw = calloc(1, sizeof(*cw))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (MGMT_E_INTERNAL);
	}
	cw->op = *op;
	cw->addr = a;
	cw->soft = q.soft;
	if ((rv = ipc_call(mgmt_peer_client(op->m, MGMT_PEER_BGP),
		 BGP__METHOD__CLEAR_NEIGHBOR, &q.base, clear_reply, cw,
		 SHOW_TIMEOUT_MS)) != 0) {
		free(cw);
		lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "tern-bgp: cannot send the request: %s", strerror(-rv));
		return (MGMT_E_UNAVAILABLE);
	}
	return (MGMT_PENDING);
}
