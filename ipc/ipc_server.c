/* ipc/ipc_server.c: a service's listening sockets, connected peers, dispatch through bounds-checked handler tables, batched replies and events. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc_int.h"
#include "libcommon/lc_daemon.h"
#include "libcommon/lc_time.h"

static bool peer_on_frame(struct ipc_conn *, const struct ipc_frame_hdr *,
    const uint8_t *);
static void peer_on_bad(struct ipc_conn *, int, const char *);
static void peer_on_down(struct ipc_conn *, int);

static const struct ipc_conn_ops peer_ops = {
    .on_frame = peer_on_frame,
    .on_bad = peer_on_bad,
    .on_down = peer_on_down,
    .on_drain = NULL,
};

static void
opts_fill(struct ipc_opts *o, const struct ipc_opts *in)
{
	if (in != NULL)
		*o = *in;
	else
		memset(o, 0, sizeof(*o));
	if (o->frame_max == 0)
		o->frame_max = IPC_FRAME_MAX_DEFAULT;
	if (o->frame_max < IPC_FRAME_MIN_MAX)
		o->frame_max = IPC_FRAME_MIN_MAX;
	if (o->batch_max == 0)
		o->batch_max = IPC_BATCH_MAX_DEFAULT;
	if (o->batch_max > o->frame_max)
		o->batch_max = o->frame_max;
	if (o->hwm == 0)
		o->hwm = IPC_HWM_DEFAULT;
	if (o->hwm < o->frame_max)
		o->hwm =
		    o->frame_max; /* one frame of the biggest size must fit */
	if (o->timeout_ms == 0)
		o->timeout_ms = IPC_TIMEOUT_DEFAULT_MS;
	if (o->reconnect_ms == 0)
		o->reconnect_ms = 100;
	if (o->work_max == 0)
		o->work_max = 4096;
	if (o->generation == 0)
		o->generation = ipc_generation_new();
	if (o->component == NULL)
		o->component = ipc_default_component();
}

/* Shared with ipc_client.c. */
void ipc_opts_fill(struct ipc_opts *o, const struct ipc_opts *in);
void
ipc_opts_fill(struct ipc_opts *o, const struct ipc_opts *in)
{
	opts_fill(o, in);
}

/* ---- peers ---------------------------------------------------------------- */

static void
peer_unref(struct ipc_peer *p)
{
	if (--p->refs > 0)
		return;
	ipc_conn_fini(&p->c);
	free(p);
}

static void
peer_close(struct ipc_peer *p)
{
	struct ipc_server *s = p->srv;

	if (p->closed)
		return;
	p->closed = true;
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		s->peers = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	ipc_limits_peer_gone(p);
	ipc_conn_detach(&p->c);
	if (p->hello && s->cbs.on_peer_gone != NULL)
		s->cbs.on_peer_gone(s, p, s->cbs.arg);
	peer_unref(p);
}

static void
peer_on_down(struct ipc_conn *c, int err)
{
	(void)err;
	/* Closed at the end of the turn (the hook): we may be inside its read callback. */
	((struct ipc_peer *)c->owner)->c.down = true;
}

static void
peer_on_bad(struct ipc_conn *c, int status, const char *what)
{
	(void)ipc_conn_put(c, 0, 0, IPC_K_REP, 0, status, NULL, what,
	    strlen(what));
}

/* Accepting, with the caps that come first, is in ipc_limit.c. */
static void
accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	ipc_limits_accept(w->data);
}

struct ipc_peer *
ipc_server_peer_add(struct ipc_listener *l, int fd, const struct ipc_cred *cred)
{
	struct ipc_server *s = l->srv;
	struct ipc_peer *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (NULL);
	p->srv = s;
	p->ro = l->ro;
	p->refs = 1;
	p->has_cred = cred != NULL;
	if (cred != NULL)
		p->cred = *cred;
	p->lst = l;
	p->uid_slot = -1;
	p->accepted_ns = lc_now_ns();
	ipc_conn_init(&p->c, s->loop, &peer_ops, p, &s->st, &s->o,
	    s->generation);
	p->c.frame_max = l->frame_max;
	p->c.budget = &l->budget;
	ipc_conn_attach(&p->c, fd);
	p->next = s->peers;
	if (s->peers != NULL)
		s->peers->prev = p;
	s->peers = p;
	s->st.connects++;
	return (p);
}

void
ipc_server_peer_drop(struct ipc_peer *p)
{
	if (!p->c.down)
		(void)ipc_conn_flush(&p->c);
	peer_close(p);
}

/* Before the loop blocks: one write per peer for everything this turn produced. */
static void
server_flush_hook(void *arg)
{
	struct ipc_server *s = arg;
	struct ipc_peer *p, *next;
	bool watch = false;

	for (p = s->peers; p != NULL; p = next) {
		next = p->next;
		if (!p->c.down)
			(void)ipc_conn_flush(&p->c);
		if (p->c.down)
			peer_close(p);
		else if (!watch)
			watch = ipc_limits_watch(p);
	}
	ipc_limits_turn(s, watch);
}

/* ---- replies ---------------------------------------------------------------- */

static int
peer_reply(struct ipc_peer *p, uint32_t id, uint8_t service, uint16_t method,
    int status, const ProtobufCMessage *msg, const void *raw, size_t rawlen)
{
	int rv;

	if (p->closed || p->c.down)
		return (-ENOTCONN);
	rv = ipc_conn_put(&p->c, id, service, IPC_K_REP, method, status, msg,
	    raw, rawlen);
	if (rv == -EMSGSIZE) {
		static const char m[] = "reply over the caller's frame_max";
		rv = ipc_conn_put(&p->c, id, service, IPC_K_REP, method,
		    IPC_TOO_BIG, NULL, m, sizeof(m) - 1);
		return (rv == 0 ? -EMSGSIZE : rv);
	}
	if (rv == -ENOBUFS) {
		/* Over hwm: the caller still hears back; the error record may exceed it. */
		static const char m[] = "server queue to this peer is full";
		size_t save = p->c.hwm;

		p->c.hwm = SIZE_MAX > UINT32_MAX ? UINT32_MAX : p->c.hwm;
		(void)ipc_conn_put(&p->c, id, service, IPC_K_REP, method,
		    IPC_NO_SPACE, NULL, m, sizeof(m) - 1);
		p->c.hwm = (uint32_t)save;
		return (-ENOBUFS);
	}
	if (rv == 0)
		p->srv->st.replies_out++;
	return (rv);
}

static void
req_release(struct ipc_req *r)
{
	struct ipc_peer *p = r->peer;

	lc_pool_put(&p->srv->reqs, r);
	peer_unref(p);
}

int
ipc_reply(struct ipc_req *r, int status, const ProtobufCMessage *msg)
{
	int rv;

	if (status != IPC_OK)
		msg = NULL;
	rv = peer_reply(r->peer, r->id, r->service, r->method, status, msg,
	    NULL, 0);
	if (status != IPC_OK)
		r->peer->srv->st.errors++;
	req_release(r);
	return (rv);
}

int
ipc_reply_error(struct ipc_req *r, int status, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, rv;

	if (status == IPC_OK)
		status = IPC_ERROR;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	rv = peer_reply(r->peer, r->id, r->service, r->method, status, NULL,
	    buf, (size_t)n);
	r->peer->srv->st.errors++;
	req_release(r);
	return (rv);
}

int
ipc_reply_err(struct ipc_req *r, int status, const struct lc_err *err)
{
	return (ipc_reply_error(r, status, "%s", err != NULL ? err->msg : ""));
}

struct ipc_peer *
ipc_req_peer(const struct ipc_req *r)
{
	return (r->peer);
}

void
ipc_req_subscribe(struct ipc_req *r)
{
	r->peer->subscribed = true;
}

const char *
ipc_peer_component(const struct ipc_peer *p)
{
	return (p->component);
}

uint64_t
ipc_peer_generation(const struct ipc_peer *p)
{
	return (p->generation);
}

bool
ipc_peer_read_only(const struct ipc_peer *p)
{
	return (p->ro);
}

int
ipc_peer_cred(const struct ipc_peer *p, struct ipc_cred *c)
{
	if (!p->has_cred) {
		memset(c, 0, sizeof(*c));
		return (-ENOENT);
	}
	*c = p->cred;
	return (0);
}

/* ---- events ----------------------------------------------------------------- */

int
ipc_peer_send_event(struct ipc_peer *p, unsigned method,
    const ProtobufCMessage *msg)
{
	const struct ipc_service_desc *svc = p->srv->svc;
	int rv;

	if (method == 0 || method >= svc->n_methods ||
	    !(svc->methods[method].flags & IPC_M_EVENT) ||
	    (msg != NULL && msg->descriptor != svc->methods[method].req))
		return (-EINVAL);
	if (p->closed || p->c.down)
		return (-ENOTCONN);
	/* The number is used even when the event cannot be queued: the gap tells the subscriber. */
	p->ev_seq++;
	rv = ipc_conn_put(&p->c, (uint32_t)p->ev_seq, (uint8_t)svc->id,
	    IPC_K_EVENT, (uint16_t)method, IPC_OK, msg, NULL, 0);
	if (rv == 0)
		p->srv->st.events_out++;
	else
		p->srv->st.drops++;
	return (rv);
}

int
ipc_server_publish(struct ipc_server *s, unsigned method,
    const ProtobufCMessage *msg)
{
	struct ipc_peer *p;
	int n = 0, rv;

	for (p = s->peers; p != NULL; p = p->next) {
		if (!p->subscribed)
			continue;
		rv = ipc_peer_send_event(p, method, msg);
		if (rv == -EINVAL)
			return (rv);
		if (rv == 0)
			n++;
	}
	return (n);
}

/* ---- dispatch --------------------------------------------------------------- */

static bool
known_restarted(struct ipc_server *s, const char *name, uint64_t gen)
{
	unsigned i;

	for (i = 0; i < s->n_known; i++) {
		if (strcmp(s->known[i].component, name) == 0) {
			bool r = s->known[i].generation != gen;

			s->known[i].generation = gen;
			return (r);
		}
	}
	if (s->n_known < IPC_KNOWN_MAX) {
		snprintf(s->known[s->n_known].component, IPC_NAME_MAX, "%s",
		    name);
		s->known[s->n_known++].generation = gen;
	}
	return (false);
}

static void
lc_hello(struct ipc_peer *p, const struct ipc_rec *r, const Lifecycle__Hello *h)
{
	struct ipc_server *s = p->srv;
	Lifecycle__Hello me = LIFECYCLE__HELLO__INIT;
	bool restarted;

	if (h->protocol_version != IPC_PROTOCOL_VERSION) {
		char m[128];
		int n = snprintf(m, sizeof(m),
		    "protocol version %u, server speaks %u",
		    h->protocol_version, IPC_PROTOCOL_VERSION);

		p->bad_version = true;
		(void)peer_reply(p, r->id, 0, r->method, IPC_VERSION, NULL, m,
		    (size_t)n);
		return;
	}
	snprintf(p->component, sizeof(p->component), "%s",
	    h->component != NULL ? h->component : "");
	p->generation = h->generation;
	if (h->max_frame >= IPC_FRAME_MIN_MAX)
		p->c.peer_frame_max = h->max_frame < s->o.frame_max ?
		    h->max_frame :
		    s->o.frame_max;
	me.component = s->component;
	me.generation = s->generation;
	me.protocol_version = IPC_PROTOCOL_VERSION;
	me.max_frame = p->c.frame_max; /* smaller on the read-only socket */
	me.service = (char *)s->svc->name;
	me.pid = (uint32_t)getpid();
	me.read_only = p->ro;
	(void)peer_reply(p, r->id, 0, r->method, IPC_OK, &me.base, NULL, 0);
	restarted = known_restarted(s, p->component, p->generation);
	if (restarted)
		s->st.restarts++;
	p->hello = true;
	if (s->cbs.on_peer != NULL)
		s->cbs.on_peer(s, p, restarted, s->cbs.arg);
}

static void
lc_status(struct ipc_peer *p, const struct ipc_rec *r)
{
	struct ipc_server *s = p->srv;
	Lifecycle__Status st = LIFECYCLE__STATUS__INIT;
	Lifecycle__Counter c[9], *cp[9];
	static const char *const names[9] = {"calls_in", "replies_out",
	    "events_out", "frames_in", "frames_out", "drops", "errors", "peers",
	    "denied"};
	uint64_t v[9];
	struct ipc_peer *q;
	unsigned i, npeers = 0;

	for (q = s->peers; q != NULL; q = q->next)
		npeers++;
	v[0] = s->st.calls_in;
	v[1] = s->st.replies_out;
	v[2] = s->st.events_out;
	v[3] = s->st.frames_in;
	v[4] = s->st.frames_out;
	v[5] = s->st.drops;
	v[6] = s->st.errors;
	v[7] = npeers;
	v[8] = s->st.denied;
	for (i = 0; i < 9; i++) {
		lifecycle__counter__init(&c[i]);
		c[i].name = (char *)names[i];
		c[i].value = v[i];
		cp[i] = &c[i];
	}
	st.component = s->component;
	st.generation = s->generation;
	st.pid = (uint32_t)getpid();
	st.uptime_ms = (lc_time_mono_ns() - s->start_ns) / 1000000;
	st.version = (char *)TERN_VERSION; /* this process's, not the disk's */
	st.state = s->state;
	st.n_counters = 9;
	st.counters = cp;
	ipc_limits_status(s, &st);
	(void)peer_reply(p, r->id, 0, r->method, IPC_OK, &st.base, NULL, 0);
}

static void
dispatch(struct ipc_peer *p, const struct ipc_rec *r)
{
	struct ipc_server *s = p->srv;
	const struct ipc_method_desc *m;
	const struct ipc_handler *h = NULL;
	ProtobufCMessage *msg;
	struct ipc_req *req;
	static const char unk[] = "unknown method";

	if (r->kind != IPC_K_REQ) {
		s->st.drops++;
		return;
	}
	s->st.calls_in++;
	m = ipc_method_lookup(s->svc, r->service, r->method);
	if (m == NULL || (m->flags & IPC_M_EVENT)) {
		s->st.drops++;
		(void)peer_reply(p, r->id, r->service, r->method,
		    IPC_UNKNOWN_METHOD, NULL, unk, sizeof(unk) - 1);
		return;
	}
	if (p->bad_version &&
	    !(r->service == 0 && r->method == LIFECYCLE__METHOD__HELLO)) {
		static const char v[] = "protocol version mismatch (see hello)";

		(void)peer_reply(p, r->id, r->service, r->method, IPC_VERSION,
		    NULL, v, sizeof(v) - 1);
		return;
	}
	if (m->flags & (IPC_M_ADMIN | IPC_M_COMPONENT)) {
		char d[256];

		if (ipc_auth_check(s, p, m, d, sizeof(d)) != IPC_OK) {
			(void)peer_reply(p, r->id, r->service, r->method,
			    IPC_DENIED, NULL, d, strlen(d));
			return;
		}
	}
	if (r->service == 0 && r->method == LIFECYCLE__METHOD__ECHO) {
		/* Echo without decoding: the payload goes back as it came. */
		(void)peer_reply(p, r->id, 0, r->method, IPC_OK, NULL,
		    r->payload, r->len);
		return;
	}
	if (r->service == 0 &&
	    (r->method == LIFECYCLE__METHOD__PING ||
		r->method == LIFECYCLE__METHOD__SINK)) {
		(void)peer_reply(p, r->id, 0, r->method, IPC_OK, NULL, NULL, 0);
		return;
	}
	if (r->service != 0) {
		h = &s->handlers[r->method];
		if (h->fn == NULL) {
			static const char nh[] = "method not served here";

			(void)peer_reply(p, r->id, r->service, r->method,
			    IPC_UNKNOWN_METHOD, NULL, nh, sizeof(nh) - 1);
			return;
		}
	}
	msg = protobuf_c_message_unpack(m->req, &s->alloc, r->len, r->payload);
	if (msg == NULL) {
		static const char bad[] = "request payload does not decode";

		s->st.drops++;
		(void)peer_reply(p, r->id, r->service, r->method,
		    IPC_BAD_REQUEST, NULL, bad, sizeof(bad) - 1);
		return;
	}
	if (m->flags & IPC_M_AUDIT)
		ipc_auth_audit(s, p, m, msg);
	if (r->service == 0) {
		switch (r->method) {
		case LIFECYCLE__METHOD__HELLO:
			lc_hello(p, r, (const Lifecycle__Hello *)msg);
			return;
		case LIFECYCLE__METHOD__STATUS:
			lc_status(p, r);
			return;
		case LIFECYCLE__METHOD__SHUTDOWN:
			if (s->cbs.on_shutdown == NULL) {
				static const char u[] = "no shutdown handler";

				(void)peer_reply(p, r->id, 0, r->method,
				    IPC_UNAVAILABLE, NULL, u, sizeof(u) - 1);
				return;
			}
			(void)peer_reply(p, r->id, 0, r->method, IPC_OK, NULL,
			    NULL, 0);
			s->cbs.on_shutdown(s,
			    ((const Lifecycle__ShutdownRequest *)msg)->reason,
			    s->cbs.arg);
			return;
		}
		return;
	}
	if ((req = lc_pool_get(&s->reqs)) == NULL) {
		static const char nm[] = "server out of memory";

		(void)peer_reply(p, r->id, r->service, r->method, IPC_NO_SPACE,
		    NULL, nm, sizeof(nm) - 1);
		return;
	}
	req->peer = p;
	req->id = r->id;
	req->method = r->method;
	req->service = r->service;
	p->refs++;
	h->fn(req, msg, h->arg);
}

static bool
peer_on_frame(struct ipc_conn *c, const struct ipc_frame_hdr *h,
    const uint8_t *body)
{
	struct ipc_peer *p = c->owner;
	struct ipc_server *s = p->srv;
	struct ipc_rec r;
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < h->count; i++) {
		ipc_frame_rec_read(body, &off, &r);
		dispatch(p, &r);
		/* Requests live until their handler returns: one arena per record keeps it small. */
		ipc_arena_recycle(&s->arena, &s->alloc);
		if (p->closed)
			break;
		if (r.len >= IPC_FLUSH_REC && !p->c.down)
			(void)ipc_conn_flush(&p->c);
	}
	return (!p->closed);
}

/* ---- server ------------------------------------------------------------------- */

static int
listen_on(struct ipc_server *s, struct ipc_listener *l, const char *rundir,
    bool ro)
{
	int fd, rv;

	l->srv = s;
	l->ro = ro;
	l->fd = -1;
	if ((rv = ipc_sock_path(l->path, sizeof(l->path), rundir, s->svc->name,
		 ro)) != 0)
		return (rv);
	/* Owner-only until ipc_auth_socket gives it its group. */
	if ((fd = ipc_transport_unix.listen(l->path, 0600)) < 0)
		return (fd);
	l->fd = fd;
	if ((rv = ipc_auth_socket(l->path, &s->acc, ro)) != 0)
		return (rv);
	ev_io_init(&l->w, accept_cb, fd, EV_READ);
	l->w.data = l;
	ev_io_start(s->loop, &l->w);
	return (0);
}

struct ipc_server *
ipc_server_new(struct ev_loop *loop, const struct ipc_service_desc *svc,
    const struct ipc_opts *opts)
{
	struct ipc_server *s;
	const char *rundir;
	int rv;

	if (loop == NULL || svc == NULL || svc->id == 0) {
		errno = EINVAL;
		return (NULL);
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	opts_fill(&s->o, opts);
	ipc_limits_opts(&s->o);
	s->loop = loop;
	s->svc = svc;
	s->generation = s->o.generation;
	s->start_ns = lc_time_mono_ns();
	snprintf(s->component, sizeof(s->component), "%s", s->o.component);
	snprintf(s->state, sizeof(s->state), "running");
	s->l[0].fd = s->l[1].fd = -1;
	ipc_limits_init(s);
	rundir = ipc_rundir(s->o.rundir);
	s->o.rundir = NULL; /* not kept: the caller's string */
	if (s->o.access != NULL)
		s->acc = *s->o.access;
	else if ((rv = ipc_access_from_env(svc, &s->acc)) != 0)
		goto fail;
	s->o.access = NULL; /* copied */
	if ((s->handlers = calloc(svc->n_methods, sizeof(*s->handlers))) ==
		NULL ||
	    (s->arena = lc_arena_new(0)) == NULL ||
	    lc_pool_init(&s->reqs, sizeof(struct ipc_req), 256) != 0) {
		rv = -ENOMEM;
		goto fail;
	}
	ipc_arena_allocator(&s->alloc, s->arena);
	if (mkdir(rundir, 0750) != 0 && errno != EEXIST) {
		rv = -errno;
		goto fail;
	}
	if ((rv = listen_on(s, &s->l[0], rundir, false)) != 0 ||
	    (rv = listen_on(s, &s->l[1], rundir, true)) != 0)
		goto fail;
	lc_loop_hook_start(loop, &s->hook, server_flush_hook, s);
	return (s);
fail:
	ipc_server_free(s);
	errno = -rv;
	return (NULL);
}

void
ipc_server_free(struct ipc_server *s)
{
	int i;

	if (s == NULL)
		return;
	lc_loop_hook_stop(s->loop, &s->hook);
	while (s->peers != NULL) {
		s->peers->hello = false; /* no on_peer_gone while freeing */
		peer_close(s->peers);
	}
	ipc_limits_fini(s);
	for (i = 0; i < 2; i++) {
		if (s->l[i].fd < 0)
			continue;
		ev_io_stop(s->loop, &s->l[i].w);
		close(s->l[i].fd);
		(void)unlink(s->l[i].path);
	}
	/* Reqs still out hold their peer; the pool goes now: do not reply after free. */
	lc_pool_fini(&s->reqs);
	lc_arena_free(s->arena);
	free(s->handlers);
	free(s);
}

int
ipc_server_handle(struct ipc_server *s, unsigned method, ipc_handler_fn *fn,
    void *arg)
{
	if (method == 0 || method >= s->svc->n_methods ||
	    s->svc->methods[method].name == NULL ||
	    (s->svc->methods[method].flags & IPC_M_EVENT))
		return (-EINVAL);
	s->handlers[method].fn = fn;
	s->handlers[method].arg = arg;
	return (0);
}

void
ipc_server_set_cbs(struct ipc_server *s, const struct ipc_server_cbs *cbs)
{
	s->cbs = *cbs;
}

void
ipc_server_set_state(struct ipc_server *s, const char *state)
{
	snprintf(s->state, sizeof(s->state), "%s", state);
}

void
ipc_server_stats(const struct ipc_server *s, struct ipc_stats *st)
{
	*st = s->st;
}

uint64_t
ipc_server_generation(const struct ipc_server *s)
{
	return (s->generation);
}

const char *
ipc_server_path(const struct ipc_server *s, bool ro)
{
	return (s->l[ro ? 1 : 0].path);
}
