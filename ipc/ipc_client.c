/* ipc/ipc_client.c: a connection to one service: pipelined async calls with deadlines, hello and generation tracking, events, reconnect. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc_int.h"
#include "libcommon/lc_time.h"

void ipc_opts_fill(struct ipc_opts *o, const struct ipc_opts *in);

#define CALL_RAW 0x1 /* cb gets the raw payload (ipc_call_wait) */

struct ipc_call {
	uint32_t id;
	uint8_t flags;
	uint64_t deadline;
	const ProtobufCMessageDescriptor *rep;
	ipc_reply_fn *cb;
	void *arg;
	struct ipc_call *prev, *next; /* deadline order */
};

enum cstate { C_DOWN, C_UP };

struct ipc_client {
	struct ipc_conn c;
	struct ev_loop *loop;
	const struct ipc_service_desc *svc;
	struct ipc_opts o;
	char component[IPC_NAME_MAX];
	char path[108];
	bool ro;
	enum cstate state;
	bool hello_done, have_gen;
	/* the last connect() was refused for permissions: calls fail at once */
	bool denied;
	uint64_t peer_gen;
	uint64_t ev_seq; /* last event seq seen on this connection */
	uint32_t next_id;
	struct ipc_call **tab;
	uint32_t tabmask;
	unsigned inflight;
	struct ipc_call *dl_head, *dl_tail;
	ev_timer timer; /* earliest deadline */
	ev_timer retry; /* reconnect */
	struct lc_pool pool;
	struct lc_arena *arena;
	ProtobufCAllocator alloc;
	struct lc_loop_hook hook;
	struct ipc_client_cbs cbs;
	struct ipc_stats st;
};

static bool cl_on_frame(struct ipc_conn *, const struct ipc_frame_hdr *,
    const uint8_t *);
static void cl_on_bad(struct ipc_conn *, int, const char *);
static void cl_on_down(struct ipc_conn *, int);
static void cl_on_drain(struct ipc_conn *);
static void cl_connect(struct ipc_client *);

static const struct ipc_conn_ops client_ops = {
    .on_frame = cl_on_frame,
    .on_bad = cl_on_bad,
    .on_down = cl_on_down,
    .on_drain = cl_on_drain,
};

/* ---- call table and deadlines ------------------------------------------------ */

static int
tab_grow(struct ipc_client *cl)
{
	uint32_t n = (cl->tabmask + 1) * 2, i;
	struct ipc_call **t, *c;

	if ((t = calloc(n, sizeof(*t))) == NULL)
		return (-ENOMEM);
	for (i = 0; i <= cl->tabmask; i++) {
		if ((c = cl->tab[i]) != NULL)
			t[c->id & (n - 1)] = c;
	}
	free(cl->tab);
	cl->tab = t;
	cl->tabmask = n - 1;
	return (0);
}

static void
timer_arm(struct ipc_client *cl)
{
	uint64_t now = lc_now_ns();
	double d;

	if (cl->dl_head == NULL) {
		ev_timer_stop(cl->loop, &cl->timer);
		return;
	}
	d = cl->dl_head->deadline > now ?
	    (double)(cl->dl_head->deadline - now) / 1e9 :
	    0.0;
	ev_timer_stop(cl->loop, &cl->timer);
	ev_timer_set(&cl->timer, d + 0.0005, 0.0);
	ev_timer_start(cl->loop, &cl->timer);
}

static void
dl_insert(struct ipc_client *cl, struct ipc_call *c)
{
	struct ipc_call *p = cl->dl_tail;

	/* Usually the latest deadline: O(1) from the tail. */
	while (p != NULL && p->deadline > c->deadline)
		p = p->prev;
	c->prev = p;
	c->next = p != NULL ? p->next : cl->dl_head;
	if (c->next != NULL)
		c->next->prev = c;
	else
		cl->dl_tail = c;
	if (p != NULL)
		p->next = c;
	else
		cl->dl_head = c;
	if (cl->dl_head == c)
		timer_arm(cl);
}

static void
call_unlink(struct ipc_client *cl, struct ipc_call *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		cl->dl_head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		cl->dl_tail = c->prev;
	cl->tab[c->id & cl->tabmask] = NULL;
	cl->inflight--;
}

/* What a reply callback gets when the call succeeded. */
static const struct lc_err call_ok = {.index = LC_ERR_NOINDEX};

/*
 * A failed call's callback, with the error filled in. Out of line: its
 * struct lc_err (528 bytes) inlined into every call_done made the frame of
 * on_reply too big for GCC to inline it into cl_on_frame, and clearing one
 * per reply cost the success path too (bench-ipc batched: ~20 instructions
 * a call).
 */
static __attribute__((noinline)) void
call_fail(struct ipc_client *cl, ipc_reply_fn *cb, void *arg, int status,
    const char *err, const ProtobufCMessage *msg)
{
	struct lc_err e;

	cl->st.errors++;
	(void)lc_err_set(&e, ipc_status_errno(status), LC_ERR_NOINDEX, "%s",
	    err != NULL ? err : "");
	cb(arg, status, &e, msg);
}

/* Completes c (already unlinked) and returns it to the pool. */
static void
call_done(struct ipc_client *cl, struct ipc_call *c, int status,
    const char *err, const ProtobufCMessage *msg)
{
	ipc_reply_fn *cb = c->cb;
	void *arg = c->arg;

	lc_pool_put(&cl->pool, c);
	if (status != IPC_OK) {
		call_fail(cl, cb, arg, status, err, msg);
		return;
	}
	cb(arg, status, &call_ok, msg);
}

static void
fail_all(struct ipc_client *cl, int status, const char *why)
{
	struct ipc_call *c;

	while ((c = cl->dl_head) != NULL) {
		call_unlink(cl, c);
		call_done(cl, c, status, why, NULL);
	}
	ev_timer_stop(cl->loop, &cl->timer);
}

static void
timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ipc_client *cl = w->data;
	struct ipc_call *c;
	uint64_t now;

	(void)loop;
	(void)revents;
	lc_now_update();
	now = lc_now_ns();
	while ((c = cl->dl_head) != NULL && c->deadline <= now) {
		call_unlink(cl, c);
		cl->st.timeouts++;
		call_done(cl, c, IPC_TIMEOUT, "no reply before the deadline",
		    NULL);
	}
	timer_arm(cl);
}

/* ---- sending ------------------------------------------------------------------ */

static int
call_queue(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    const void *raw, size_t rawlen, ipc_reply_fn *cb, void *arg,
    uint32_t timeout_ms, uint8_t flags)
{
	const struct ipc_method_desc *m;
	unsigned service = (method & IPC_LC_BIT) ? 0 : cl->svc->id;
	struct ipc_call *c;
	uint32_t id;
	int rv;

	method &= ~IPC_LC_BIT;
	m = ipc_method_lookup(cl->svc, service, method);
	if (m == NULL || (m->flags & IPC_M_EVENT) || cb == NULL ||
	    (msg != NULL && msg->descriptor != m->req))
		return (-EINVAL);
	id = cl->next_id++;
	if (id == 0)
		id = cl->next_id++;
	if (cl->tab[id & cl->tabmask] != NULL && (rv = tab_grow(cl)) != 0)
		return (rv);
	while (cl->tab[id & cl->tabmask] != NULL)
		if ((rv = tab_grow(cl)) != 0)
			return (rv);
	rv = ipc_conn_put(&cl->c, id, (uint8_t)service, IPC_K_REQ,
	    (uint16_t)method, IPC_OK, msg, raw, rawlen);
	if (rv != 0) {
		cl->next_id--;
		return (rv);
	}
	if ((c = lc_pool_get(&cl->pool)) == NULL)
		return (
		    -ENOMEM); /* the record left already: its reply is dropped */
	c->id = id;
	c->flags = flags;
	c->rep = m->rep;
	c->cb = cb;
	c->arg = arg;
	c->deadline = lc_now_ns() +
	    (uint64_t)(timeout_ms != 0 ? timeout_ms : cl->o.timeout_ms) *
		1000000ULL;
	cl->tab[id & cl->tabmask] = c;
	cl->inflight++;
	dl_insert(cl, c);
	cl->st.calls_out++;
	if (cl->denied && cl->state == C_DOWN) {
		/* Not from inside ipc_call(): the next loop turn tries again
		 * and, still refused, fails it with the reason. */
		ev_timer_stop(cl->loop, &cl->retry);
		ev_timer_set(&cl->retry, 0.0, 0.0);
		ev_timer_start(cl->loop, &cl->retry);
	}
	return (0);
}

int
ipc_call(struct ipc_client *cl, unsigned method, const ProtobufCMessage *msg,
    ipc_reply_fn *cb, void *arg, uint32_t timeout_ms)
{
	return (call_queue(cl, method, msg, NULL, 0, cb, arg, timeout_ms, 0));
}

int
ipc_call_raw(struct ipc_client *cl, unsigned method, const void *payload,
    size_t len, ipc_reply_fn *cb, void *arg, uint32_t timeout_ms)
{
	return (
	    call_queue(cl, method, NULL, payload, len, cb, arg, timeout_ms, 0));
}

int
ipc_client_flush(struct ipc_client *cl)
{
	if (cl->state != C_UP)
		return (0);
	return (ipc_conn_flush(&cl->c));
}

static void
client_hook(void *arg)
{
	struct ipc_client *cl = arg;

	if (cl->state == C_UP)
		(void)ipc_conn_flush(&cl->c);
}

/* ---- hello ---------------------------------------------------------------------- */

static void
hello_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct ipc_client *cl = arg;
	const Lifecycle__Hello *h = (const Lifecycle__Hello *)msg;
	uint64_t old = cl->peer_gen;

	if (status != IPC_OK || h == NULL) {
		if (status == IPC_VERSION) {
			/* Nothing will work: fail what is queued with the reason. */
			fail_all(cl, IPC_VERSION, err->msg);
		}
		return;
	}
	if (h->max_frame >= IPC_FRAME_MIN_MAX)
		cl->c.peer_frame_max = h->max_frame < cl->o.frame_max ?
		    h->max_frame :
		    cl->o.frame_max;
	cl->hello_done = true;
	cl->peer_gen = h->generation;
	if (cl->have_gen && old != h->generation) {
		cl->st.restarts++;
		if (cl->cbs.on_peer_restart != NULL)
			cl->cbs.on_peer_restart(cl, old, h->generation,
			    cl->cbs.arg);
	}
	cl->have_gen = true;
	if (cl->cbs.on_connect != NULL)
		cl->cbs.on_connect(cl, h->generation, cl->cbs.arg);
}

/*
 * The hello must be the first frame on a new connection, ahead of calls
 * queued while down: it is written alone, straight away (a new socket
 * always has room for it).
 */
static int
send_hello(struct ipc_client *cl)
{
	Lifecycle__Hello h = LIFECYCLE__HELLO__INIT;
	struct ipc_txq *q = &cl->c.tx;
	struct lc_buf saved = q->b, old_w;
	bool open = q->open;
	size_t rel = q->frame_rel;
	uint32_t cnt = q->frame_count;
	int rv;

	h.component = cl->component;
	h.generation = cl->o.generation;
	h.protocol_version = IPC_PROTOCOL_VERSION;
	h.max_frame = cl->o.frame_max;
	h.service = (char *)cl->svc->name;
	h.pid = (uint32_t)getpid();
	/* Build it alone in b, move it to w (written first), put the queued calls back in b. */
	lc_buf_init(&q->b);
	q->open = false;
	rv = call_queue(cl, IPC_LC(LIFECYCLE__METHOD__HELLO), &h.base, NULL, 0,
	    hello_cb, cl, 0, 0);
	ipc_txq_close(q);
	cl->st.frames_out++;
	old_w = q->w;
	q->w = q->b;
	q->b = saved;
	q->open = open;
	q->frame_rel = rel;
	q->frame_count = cnt;
	lc_buf_fini(&old_w);
	return (rv);
}

/* ---- connection --------------------------------------------------------------------- */

static void
retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	cl_connect(w->data);
}

/*
 * connect() was refused for permissions. Waiting cannot help (until
 * someone changes them), so the calls queued fail now with the reason, not
 * at their deadline with TIMEOUT (30 s for ternsh, issue 24). Every byte
 * queued goes (those of calls that timed out meanwhile too), so a later
 * connect never sends what was reported as failed.
 */
static void
cl_denied(struct ipc_client *cl)
{
	char why[512];

	cl->denied = true;
	cl->st.denied++;
	ipc_conn_detach(&cl->c);
	if (cl->dl_head == NULL)
		return;
	ipc_access_explain(cl->path, why, sizeof(why));
	fail_all(cl, IPC_DENIED, why);
}

static void
cl_connect(struct ipc_client *cl)
{
	int fd;

	if ((fd = cl->c.tp->connect(cl->path)) >= 0) {
		cl->denied = false;
		ipc_conn_attach(&cl->c, fd);
		cl->state = C_UP;
		cl->ev_seq = 0;
		cl->st.connects++;
		if (send_hello(cl) == 0 && ipc_conn_flush(&cl->c) == 0)
			return;
		return; /* a failed write reported on_down already */
	}
	if (fd == -EACCES || fd == -EPERM)
		cl_denied(cl);
	else
		cl->denied = false;
	ev_timer_stop(cl->loop, &cl->retry);
	ev_timer_set(&cl->retry, cl->o.reconnect_ms / 1000.0, 0.0);
	ev_timer_start(cl->loop, &cl->retry);
}

static void
cl_on_down(struct ipc_conn *c, int err)
{
	struct ipc_client *cl = c->owner;

	(void)err;
	cl->state = C_DOWN;
	cl->hello_done = false;
	/* Bytes queued for the dead socket cannot go to a new one mid-frame. */
	ipc_conn_detach(&cl->c);
	fail_all(cl, IPC_PEER_RESTARTED, "connection to the server lost");
	ev_timer_stop(cl->loop, &cl->retry);
	ev_timer_set(&cl->retry, cl->o.reconnect_ms / 1000.0, 0.0);
	ev_timer_start(cl->loop, &cl->retry);
}

static void
cl_on_drain(struct ipc_conn *c)
{
	struct ipc_client *cl = c->owner;

	if (cl->cbs.on_writable != NULL)
		cl->cbs.on_writable(cl, cl->cbs.arg);
}

static void
cl_on_bad(struct ipc_conn *c, int status, const char *what)
{
	(void)c;
	(void)status;
	(void)what;
	/* A server sending garbage: the connection is dropped by the caller (EBADMSG) or the frame skipped. */
}

/* ---- receiving -------------------------------------------------------------------------- */

static void
on_reply(struct ipc_client *cl, const struct ipc_rec *r)
{
	struct ipc_call *c;
	ProtobufCMessage *msg = NULL;
	char err[256];
	size_t n;

	if (r->id == 0) {
		/* The server refused a whole frame: say so to every call it may have held. */
		n = r->len < sizeof(err) - 1 ? r->len : sizeof(err) - 1;
		memcpy(err, r->payload, n);
		err[n] = '\0';
		cl->st.drops++;
		fail_all(cl,
		    r->status > 0 && r->status < IPC_STATUS__COUNT ? r->status :
								     IPC_ERROR,
		    err);
		return;
	}
	c = cl->tab[r->id & cl->tabmask];
	if (c == NULL || c->id != r->id) {
		cl->st.drops++; /* late reply of a timed-out call */
		return;
	}
	call_unlink(cl, c);
	cl->st.replies_in++;
	if (r->status != IPC_OK) {
		n = r->len < sizeof(err) - 1 ? r->len : sizeof(err) - 1;
		memcpy(err, r->payload, n);
		err[n] = '\0';
		call_done(cl, c,
		    r->status >= 0 && r->status < IPC_STATUS__COUNT ?
			r->status :
			IPC_ERROR,
		    err, NULL);
		return;
	}
	if (c->flags & CALL_RAW) {
		/* ipc_call_wait: hand the bytes over, it decodes into its own arena. */
		struct {
			const uint8_t *p;
			size_t len;
		} raw = {r->payload, r->len};

		call_done(cl, c, IPC_OK, NULL, (const ProtobufCMessage *)&raw);
		return;
	}
	if (c->rep != NULL) {
		msg = protobuf_c_message_unpack(c->rep, &cl->alloc, r->len,
		    r->payload);
		if (msg == NULL) {
			call_done(cl, c, IPC_BAD_REQUEST,
			    "reply payload does not decode", NULL);
			return;
		}
	}
	call_done(cl, c, IPC_OK, NULL, msg);
}

static void
on_event(struct ipc_client *cl, const struct ipc_rec *r)
{
	const struct ipc_method_desc *m;
	ProtobufCMessage *msg;
	uint32_t expect = (uint32_t)cl->ev_seq + 1;

	cl->st.events_in++;
	if (r->id != expect && cl->cbs.on_resync != NULL)
		cl->cbs.on_resync(cl, (uint32_t)(r->id - expect), cl->cbs.arg);
	cl->ev_seq = r->id;
	m = ipc_method_lookup(cl->svc, r->service, r->method);
	if (m == NULL || !(m->flags & IPC_M_EVENT)) {
		cl->st.drops++;
		return;
	}
	msg = protobuf_c_message_unpack(m->req, &cl->alloc, r->len, r->payload);
	if (msg == NULL) {
		cl->st.drops++;
		return;
	}
	if (cl->cbs.on_event != NULL)
		cl->cbs.on_event(cl, r->method, msg, cl->cbs.arg);
}

static bool
cl_on_frame(struct ipc_conn *c, const struct ipc_frame_hdr *h,
    const uint8_t *body)
{
	struct ipc_client *cl = c->owner;
	struct ipc_rec r;
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < h->count && cl->state == C_UP; i++) {
		ipc_frame_rec_read(body, &off, &r);
		if (r.kind == IPC_K_REP)
			on_reply(cl, &r);
		else if (r.kind == IPC_K_EVENT)
			on_event(cl, &r);
		else
			cl->st.drops++;
		ipc_arena_recycle(&cl->arena, &cl->alloc);
	}
	if (cl->dl_head != NULL && !ev_is_active(&cl->timer))
		timer_arm(cl);
	return (cl->state == C_UP);
}

/* ---- lifecycle of the client ------------------------------------------------------------------ */

struct ipc_client *
ipc_client_new(struct ev_loop *loop, const struct ipc_service_desc *svc,
    const struct ipc_opts *opts, bool read_only)
{
	struct ipc_client *cl;
	int rv;

	if (loop == NULL || svc == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	if ((cl = calloc(1, sizeof(*cl))) == NULL)
		return (NULL);
	ipc_opts_fill(&cl->o, opts);
	cl->loop = loop;
	cl->svc = svc;
	cl->ro = read_only;
	cl->next_id = 1;
	snprintf(cl->component, sizeof(cl->component), "%s", cl->o.component);
	if ((rv = ipc_sock_path(cl->path, sizeof(cl->path),
		 ipc_rundir(cl->o.rundir), svc->name, read_only)) != 0) {
		free(cl);
		errno = -rv;
		return (NULL);
	}
	cl->o.rundir = NULL;
	cl->tabmask = 1023;
	if ((cl->tab = calloc(cl->tabmask + 1, sizeof(*cl->tab))) == NULL ||
	    (cl->arena = lc_arena_new(0)) == NULL ||
	    lc_pool_init(&cl->pool, sizeof(struct ipc_call), 1024) != 0) {
		free(cl->tab);
		lc_arena_free(cl->arena);
		free(cl);
		errno = ENOMEM;
		return (NULL);
	}
	ipc_arena_allocator(&cl->alloc, cl->arena);
	ipc_conn_init(&cl->c, loop, &client_ops, cl, &cl->st, &cl->o,
	    cl->o.generation);
	/* Before hello we do not know the server's limit: assume the default. */
	if (cl->c.peer_frame_max > IPC_FRAME_MAX_DEFAULT)
		cl->c.peer_frame_max = IPC_FRAME_MAX_DEFAULT;
	ev_timer_init(&cl->timer, timer_cb, 0.0, 0.0);
	cl->timer.data = cl;
	ev_timer_init(&cl->retry, retry_cb, 0.0, 0.0);
	cl->retry.data = cl;
	lc_loop_hook_start(loop, &cl->hook, client_hook, cl);
	cl_connect(cl);
	return (cl);
}

void
ipc_client_free(struct ipc_client *cl)
{
	if (cl == NULL)
		return;
	lc_loop_hook_stop(cl->loop, &cl->hook);
	ev_timer_stop(cl->loop, &cl->retry);
	cl->state = C_DOWN;
	fail_all(cl, IPC_CANCELLED, "client closed");
	ipc_conn_fini(&cl->c);
	lc_pool_fini(&cl->pool);
	lc_arena_free(cl->arena);
	free(cl->tab);
	free(cl);
}

void
ipc_client_set_cbs(struct ipc_client *cl, const struct ipc_client_cbs *cbs)
{
	cl->cbs = *cbs;
}

bool
ipc_client_connected(const struct ipc_client *cl)
{
	return (cl->state == C_UP && cl->hello_done);
}

uint64_t
ipc_client_peer_generation(const struct ipc_client *cl)
{
	return (cl->peer_gen);
}

unsigned
ipc_client_inflight(const struct ipc_client *cl)
{
	return (cl->inflight);
}

void
ipc_client_stats(const struct ipc_client *cl, struct ipc_stats *st)
{
	*st = cl->st;
}

/* ---- blocking helper ---------------------------------------------------------------- */

struct waiter {
	bool done;
	int status;
	const ProtobufCMessageDescriptor *rep;
	struct lc_arena *arena;
	ProtobufCMessage *msg;
	struct lc_err *err;
};

static void
wait_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct waiter *w = arg;
	ProtobufCAllocator a;
	const struct {
		const uint8_t *p;
		size_t len;
	} *raw = (const void *)msg;

	w->done = true;
	w->status = status;
	if (status == IPC_OK && raw != NULL && w->rep != NULL &&
	    w->arena != NULL) {
		ipc_arena_allocator(&a, w->arena);
		w->msg = protobuf_c_message_unpack(w->rep, &a, raw->len,
		    raw->p);
		if (w->msg == NULL) {
			w->status = IPC_BAD_REQUEST;
			(void)lc_err_set(w->err, ipc_status_errno(w->status),
			    LC_ERR_NOINDEX, "reply payload does not decode");
			return;
		}
	}
	if (w->err != NULL)
		*w->err = *err;
}

int
ipc_call_wait(struct ipc_client *cl, unsigned method,
    const ProtobufCMessage *msg, uint32_t timeout_ms, struct lc_arena *arena,
    ProtobufCMessage **reply, struct lc_err *err)
{
	const struct ipc_method_desc *m;
	struct waiter w;
	int rv;

	memset(&w, 0, sizeof(w));
	/*
	 * We are called from outside the loop, maybe after the caller
	 * blocked for minutes (ternsh in its line editor): both cached
	 * clocks, lc_now_ns() and libev's ev_now(), still hold the time of
	 * the last loop turn. A deadline counted from there was already past
	 * after an idle spell longer than the timeout, and the call was
	 * failed with IPC_TIMEOUT although the server carried it out (issue
	 * 23). Count it from now.
	 */
	lc_now_update();
	ev_now_update(cl->loop);
	m = ipc_method_lookup(cl->svc, (method & IPC_LC_BIT) ? 0 : cl->svc->id,
	    method & ~IPC_LC_BIT);
	w.rep = m != NULL ? m->rep : NULL;
	w.arena = arena;
	w.err = err;
	lc_err_clear(err);
	if (reply != NULL)
		*reply = NULL;
	rv = call_queue(cl, method, msg, NULL, 0, wait_cb, &w, timeout_ms,
	    CALL_RAW);
	if (rv != 0) {
		(void)lc_err_set(err, rv, LC_ERR_NOINDEX, "%s", strerror(-rv));
		return (rv == -EMSGSIZE ? IPC_TOO_BIG :
			rv == -ENOBUFS	? IPC_NO_SPACE :
					  IPC_ERROR);
	}
	(void)ipc_client_flush(cl);
	while (!w.done)
		ev_run(cl->loop, EVRUN_ONCE);
	if (reply != NULL)
		*reply = w.msg;
	return (w.status);
}
