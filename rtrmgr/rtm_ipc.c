/* rtrmgr/rtm_ipc.c: the IPC front end of the supervisor: the rtrmgr service
 * (list, status, start/stop/restart, subscribe, register), component events,
 * and the lifecycle STATUS health checker. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_log.h"
#include "rtm_int.h"

#define HC_SLOTS 4 /* health calls that may be in flight per component */

struct hc_slot {
	struct rtm_ipc_peer *peer;
	uint64_t token;
};

/* Our client of one component's socket, for health checks: one per
 * component handle (a reload may reuse a handle for another name). */
struct rtm_ipc_peer {
	struct rtm_ipc *ri;
	struct rtm_comp *c;
	char name[RTM_NAME_MAX];      /* the client's: outlives a reload */
	bool closing;		      /* its calls are being cancelled */
	struct ipc_service_desc desc; /* kept: the client points into it */
	struct ipc_client *cl;
	struct hc_slot slots[HC_SLOTS];
};

struct rtm_ipc {
	struct rtm *rtm;
	struct ev_loop *loop;
	struct ipc_server *srv;
	struct rtm_ipc_peer peers[2 * RTM_COMP_MAX]; /* rtm's slots */
};

/* ---- rtrmgr service
 * ---------------------------------------------------------- */

static void
comp_pb(struct rtm_comp *c, Rtrmgr__Component *pb)
{
	struct rtm_comp_info ci;

	rtm_comp_get_info(c, &ci);
	rtrmgr__component__init(pb);
	pb->name = (char *)ci.name;
	pb->state = (Rtrmgr__State)ci.state;
	pb->pid = (uint32_t)ci.pid;
	pb->generation = ci.generation;
	pb->restarts = ci.restarts;
	pb->last_exit = (ci.last_exit == RTM_EXIT_NONE ||
			    ci.last_exit == RTM_EXIT_UNKNOWN) ?
	    0 :
	    ci.last_exit;
	pb->uptime_ms = ci.uptime_ms;
	pb->backoff_ms = ci.backoff_ms;
	pb->last_error = (char *)ci.last_error;
	if (ci.end_ms != 0) {
		pb->end_exit = ci.end_exit == RTM_EXIT_UNKNOWN ? 0 :
								 ci.end_exit;
		pb->end_ms = ci.end_ms;
		pb->end_generation = ci.end_generation;
		pb->end_reason = (char *)ci.end_reason;
	}
}

static void
reply_list(struct rtm_ipc *ri, struct ipc_req *req)
{
	Rtrmgr__ComponentList list = RTRMGR__COMPONENT_LIST__INIT;
	Rtrmgr__Component comps[RTM_COMP_MAX], *cp[RTM_COMP_MAX];
	unsigned n = rtm_comp_count(ri->rtm);

	for (unsigned i = 0; i < n; i++) {
		comp_pb(rtm_comp_at(ri->rtm, i), &comps[i]);
		cp[i] = &comps[i];
	}
	list.n_components = n;
	list.components = cp;
	(void)ipc_reply(req, IPC_OK, &list.base);
}

static void
h_list(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	reply_list(arg, req);
}

static void
h_subscribe(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	ipc_req_subscribe(req);
	reply_list(arg, req);
}

static void
reply_comp(struct ipc_req *req, struct rtm_comp *c)
{
	Rtrmgr__Component pb;

	comp_pb(c, &pb);
	(void)ipc_reply(req, IPC_OK, &pb.base);
}

static void
h_status(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Rtrmgr__ComponentRequest *r = (const void *)msg;
	struct rtm_ipc *ri = arg;
	struct rtm_comp *c = rtm_comp_find(ri->rtm, r->name);

	if (c == NULL) {
		(void)ipc_reply_error(req, IPC_ERROR, "no component '%s'",
		    r->name);
		return;
	}
	reply_comp(req, c);
}

/* START, STOP, RESTART: the same shape. */
static void
h_action(struct ipc_req *req, const ProtobufCMessage *msg, struct rtm_ipc *ri,
    int (*fn)(struct rtm *, const char *), const char *verb)
{
	const Rtrmgr__ComponentRequest *r = (const void *)msg;
	struct rtm_comp *c;
	int rv = fn(ri->rtm, r->name);

	switch (rv) {
	case 0:
		reply_comp(req, rtm_comp_find(ri->rtm, r->name));
		return;
	case -ENOENT:
		(void)ipc_reply_error(req, IPC_ERROR, "no component '%s'",
		    r->name);
		return;
	case -ESHUTDOWN:
		(void)ipc_reply_error(req, IPC_UNAVAILABLE,
		    "tern-rtrmgr is shutting down");
		return;
	default:
		c = rtm_comp_find(ri->rtm, r->name);
		(void)ipc_reply_error(req, IPC_ERROR, "cannot %s %s: it is %s",
		    verb, r->name,
		    c ? rtm_state_name(rtm_comp_state(c)) : strerror(-rv));
		return;
	}
}

static void
h_start(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	h_action(req, msg, arg, rtm_comp_start, "start");
}

static void
h_stop(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	h_action(req, msg, arg, rtm_comp_stop, "stop");
}

static void
h_restart(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	h_action(req, msg, arg, rtm_comp_restart, "restart");
}

static void
h_register(struct ipc_req *req, const ProtobufCMessage *msg, void *arg)
{
	const Rtrmgr__RegisterRequest *r = (const void *)msg;
	struct rtm_ipc *ri = arg;
	int rv;

	rv = rtm_comp_ready(ri->rtm, r->name, (pid_t)r->pid, r->generation);
	if (rv == -ENOENT)
		(void)ipc_reply_error(req, IPC_ERROR, "no component '%s'",
		    r->name);
	else if (rv != 0)
		(void)ipc_reply_error(req, IPC_ERROR,
		    "%s: pid %u generation "
		    "%llu is not the current instance",
		    r->name, r->pid, (unsigned long long)r->generation);
	else
		reply_comp(req, rtm_comp_find(ri->rtm, r->name));
}

static void
on_event(const struct rtm_event *e, void *arg)
{
	struct rtm_ipc *ri = arg;
	Rtrmgr__ComponentEvent ev = RTRMGR__COMPONENT_EVENT__INIT;

	ev.name = (char *)e->name;
	ev.state = (Rtrmgr__State)e->state;
	ev.generation = e->generation;
	ev.previous_generation = e->prev_generation;
	ev.pid = (uint32_t)e->pid;
	ev.exit = (e->exit == RTM_EXIT_NONE || e->exit == RTM_EXIT_UNKNOWN) ?
	    0 :
	    e->exit;
	if (ri->srv != NULL)
		(void)ipc_server_publish(ri->srv,
		    RTRMGR__METHOD__EVENT_COMPONENT, &ev.base);
}

static void
down_cb(void *arg)
{
	ev_break(arg, EVBREAK_ALL);
}

static void
on_shutdown(struct ipc_server *s, const char *reason, void *arg)
{
	struct rtm_ipc *ri = arg;

	lc_log_notice("shutdown requested over IPC (%s)", reason ? reason : "");
	rtm_shutdown(ri->rtm, down_cb, ri->loop);
}

/* ---- health: lifecycle STATUS
 * ---------------------------------------------------- */

static void
hc_reply(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct hc_slot *s = arg;
	struct rtm_comp *c = s->peer->c;
	const Lifecycle__Status *st = (const void *)msg;
	bool ok = false;

	if (s->peer->closing)
		return; /* for a component that is no longer this one */
	if (status == IPC_OK && st != NULL) {
		/* The answer must come from the instance we started. */
		ok = st->pid == (uint32_t)rtm_comp_pid(c);
		if (!ok)
			lc_log_debug("%s: STATUS from pid %u, expected %d",
			    rtm_comp_name(c), st->pid, (int)rtm_comp_pid(c));
	} else {
		lc_log_debug("%s: STATUS: %s %s", rtm_comp_name(c),
		    ipc_status_str(status), err->msg);
	}
	rtm_health_done(c, s->token, ok);
}

static const struct ipc_service_desc *
svc_of(const char *name)
{
	if (strcmp(name, "mgmt") == 0)
		return (&ipc_svc_mgmt);
	if (strcmp(name, "rib") == 0)
		return (&ipc_svc_rib);
	if (strcmp(name, "fwd") == 0)
		return (&ipc_svc_fwd);
	if (strcmp(name, "bgp") == 0)
		return (&ipc_svc_bgp);
	return (NULL);
}

static void
rtm_ipc_health(struct rtm_comp *c, uint64_t token, void *arg)
{
	struct rtm_ipc *ri = arg;
	struct rtm_ipc_peer *p = NULL;
	struct hc_slot *s;
	int rv;

	for (unsigned i = 0; i < 2 * RTM_COMP_MAX && p == NULL; i++)
		if (ri->peers[i].c == c)
			p = &ri->peers[i];
	for (unsigned i = 0; i < 2 * RTM_COMP_MAX && p == NULL; i++)
		if (ri->peers[i].c == NULL)
			p = &ri->peers[i];
	if (p == NULL)
		return; /* no answer: counts as a timeout */
	if (p->c != c || strcmp(p->name, rtm_comp_name(c)) != 0) {
		p->closing = true;
		ipc_client_free(p->cl);
		p->cl = NULL;
		p->closing = false;
		p->ri = ri;
		p->c = c;
		snprintf(p->name, sizeof(p->name), "%s", rtm_comp_name(c));
	}
	if (p->cl == NULL) {
		const struct ipc_service_desc *svc = svc_of(rtm_comp_name(c));
		struct ipc_opts o;

		/* Another component: its socket RUNDIR/NAME.sock answers
		 * the lifecycle service like every tern socket. */
		p->desc = svc ? *svc : ipc_svc_lifecycle;
		p->desc.name = p->name;
		memset(&o, 0, sizeof(o));
		o.rundir = rtm_rundir(ri->rtm);
		o.component = "rtrmgr";
		o.timeout_ms = rtm_config_of(ri->rtm)->health_timeout_ms;
		if ((p->cl = ipc_client_new(ri->loop, &p->desc, &o, true)) ==
		    NULL) {
			lc_log_warn("%s: IPC client", rtm_comp_name(c));
			return;
		}
	}
	s = &p->slots[token % HC_SLOTS];
	s->peer = p;
	s->token = token;
	rv = ipc_call(p->cl, IPC_LC(LIFECYCLE__METHOD__STATUS), NULL, hc_reply,
	    s, rtm_config_of(ri->rtm)->health_timeout_ms);
	if (rv != 0)
		rtm_health_done(c, token, false);
}

/* ---- life
 * ------------------------------------------------------------------------ */

struct rtm_ipc *
rtm_ipc_new(struct rtm *rtm, struct ev_loop *loop)
{
	static const struct {
		unsigned method;
		ipc_handler_fn *fn;
	} handlers[] = {
	    {RTRMGR__METHOD__LIST, h_list},
	    {RTRMGR__METHOD__COMPONENT_STATUS, h_status},
	    {RTRMGR__METHOD__RESTART, h_restart},
	    {RTRMGR__METHOD__STOP, h_stop},
	    {RTRMGR__METHOD__START, h_start},
	    {RTRMGR__METHOD__SUBSCRIBE, h_subscribe},
	    {RTRMGR__METHOD__REGISTER, h_register},
	};
	struct ipc_server_cbs cbs;
	struct rtm_ipc *ri;
	struct ipc_opts o;
	struct ipc_access acc;
	int e;

	if ((ri = calloc(1, sizeof(*ri))) == NULL)
		return (NULL);
	ri->rtm = rtm;
	ri->loop = loop;
	memset(&o, 0, sizeof(o));
	o.rundir = rtm_rundir(rtm);
	o.component = "rtrmgr";
	/*
	 * rtrmgr.sock (start, stop, restart, shutdown) is the components':
	 * owned by their user, 0600, so that mgmt forwards ternsh's `restart
	 * X` and no one else but root gets there; its methods are served only
	 * to that uid (and root) whatever the file's mode. rtrmgr-ro.sock is
	 * the operators'.
	 */
	acc.owner = rtm_comp_uid(rtm);
	acc.comp_uid = rtm_comp_uid(rtm);
	acc.ro_group = rtm_operator_gid(rtm);
	acc.rw_group = IPC_ID_NONE;
	o.access = &acc;
	if ((ri->srv = ipc_server_new(loop, &ipc_svc_rtrmgr, &o)) == NULL) {
		e = errno;
		free(ri);
		errno = e;
		return (NULL);
	}
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		(void)ipc_server_handle(ri->srv, handlers[i].method,
		    handlers[i].fn, ri);
	memset(&cbs, 0, sizeof(cbs));
	cbs.on_shutdown = on_shutdown;
	cbs.arg = ri;
	ipc_server_set_cbs(ri->srv, &cbs);
	rtm_set_event_cb(rtm, on_event, ri);
	if (rtm_config_of(rtm)->health_kind == RTM_HEALTH_IPC)
		rtm_set_health(rtm, rtm_ipc_health, ri);
	ipc_server_set_state(ri->srv, "running");
	return (ri);
}

void
rtm_ipc_free(struct rtm_ipc *ri)
{
	if (ri == NULL)
		return;
	rtm_set_event_cb(ri->rtm, NULL, NULL);
	if (rtm_config_of(ri->rtm)->health_kind == RTM_HEALTH_IPC)
		rtm_set_health(ri->rtm, NULL, NULL);
	for (unsigned i = 0; i < 2 * RTM_COMP_MAX; i++)
		ipc_client_free(ri->peers[i].cl);
	ipc_server_free(ri->srv);
	free(ri);
}
