/* ipc/ipc_conn.c: one Unix stream connection: batched frames out, framed and validated input, back-pressure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ipc_int.h"
#include "libcommon/lc_time.h"

#define IPC_READ_CHUNK IPC_RX_KEEP /* bytes asked per read() */
#define IPC_READ_TURN  (4u << 20)  /* bytes read per turn before yielding */
#define IPC_DIRECT_MIN \
	(64u << 10) /* raw payloads this big skip the copy when idle */
/*
 * SO_SNDBUF/SO_RCVBUF asked for; 0 keeps the kernel's default (~208 KiB).
 * 4 MiB was used until 2026-11-30: fewer wake-ups, but 4-8 MiB in flight
 * means the receiver copies data long evicted from cache, and our client and
 * server each spent 1.5-2x the raw peer's CPU per MiB in the kernel copies
 * (docs/ipc.md).
 */
#define IPC_SOCKBUF 0
#define IPC_DIRECT_WAIT_NS \
	(10u * 1000000u) /* budget of a direct write's waits */
#define IPC_PACK_MAX \
	(4u << 20) /* largest bound packed into without exact sizing */

static void conn_read_cb(struct ev_loop *, ev_io *, int);
static void conn_write_cb(struct ev_loop *, ev_io *, int);

void
ipc_conn_init(struct ipc_conn *c, struct ev_loop *loop,
    const struct ipc_conn_ops *ops, void *owner, struct ipc_stats *st,
    const struct ipc_opts *o, uint64_t generation)
{
	memset(c, 0, sizeof(*c));
	c->tp = &ipc_transport_unix;
	c->fd = -1;
	c->loop = loop;
	c->ops = ops;
	c->owner = owner;
	c->st = st;
	c->frame_max = o->frame_max;
	c->peer_frame_max = o->frame_max;
	c->batch_max = o->batch_max;
	c->hwm = o->hwm;
	c->work_max = o->work_max;
	c->budget = NULL;
	ipc_txq_init(&c->tx, generation);
	lc_buf_init(&c->rx);
	ev_io_init(&c->rio, conn_read_cb, -1, EV_READ);
	ev_io_init(&c->wio, conn_write_cb, -1, EV_WRITE);
	c->rio.data = c;
	c->wio.data = c;
}

void
ipc_conn_attach(struct ipc_conn *c, int fd)
{
	if (IPC_SOCKBUF > 0)
		c->tp->tune(fd, IPC_SOCKBUF);
	c->fd = fd;
	c->down = false;
	c->wr_dead = false;
	c->discard = 0;
	c->rx_since = 0;
	c->rx_last = lc_now_ns();
	lc_buf_reset(&c->rx);
	ev_io_set(&c->rio, fd, EV_READ);
	ev_io_set(&c->wio, fd, EV_WRITE);
	ev_io_start(c->loop, &c->rio);
}

/* ---- receive limits: the socket's budget, the frame's start ------------- */

/*
 * Charges a frame of n bytes that has not arrived whole to the socket's
 * budget, once. Small frames are free: they fit in the buffer every
 * connection has. false when the budget is spent (the frame is refused).
 */
static inline bool
conn_charge(struct ipc_conn *c, size_t n)
{
	struct ipc_rxbudget *b = c->budget;

	if (b == NULL || n <= IPC_RX_FREE || c->rx_charged != 0)
		return (true);
	if (b->used + n > b->max)
		return (false);
	b->used += n;
	c->rx_charged = n;
	return (true);
}

/* The frame being received is done (handled, skipped or the conn gone). */
static inline void
conn_frame_done(struct ipc_conn *c)
{
	if (c->rx_charged != 0) {
		c->budget->used -= c->rx_charged;
		c->rx_charged = 0;
	}
	c->rx_since = 0;
}

bool
ipc_conn_rx_release_idle(struct ipc_conn *c, uint64_t now, uint64_t idle_ns)
{
	if (c->rx.cap <= IPC_RX_KEEP || lc_buf_avail(&c->rx) > 0 ||
	    c->discard > 0 || now - c->rx_last < idle_ns)
		return (false);
	lc_buf_fini(&c->rx);
	return (true);
}

void
ipc_conn_detach(struct ipc_conn *c)
{
	ev_io_stop(c->loop, &c->rio);
	ev_io_stop(c->loop, &c->wio);
	if (c->fd >= 0)
		c->tp->close(c->fd);
	c->fd = -1;
	ipc_txq_reset(&c->tx);
	lc_buf_reset(&c->rx);
	c->discard = 0;
	conn_frame_done(c);
}

void
ipc_conn_fini(struct ipc_conn *c)
{
	ipc_conn_detach(c);
	ipc_txq_fini(&c->tx);
	lc_buf_fini(&c->rx);
}

static void
conn_down(struct ipc_conn *c, int err)
{
	ev_io_stop(c->loop, &c->rio);
	ev_io_stop(c->loop, &c->wio);
	if (c->down)
		return;
	c->down = true;
	c->ops->on_down(c, err);
}

/*
 * A write failed. When the peer hung up (EPIPE, ECONNRESET), what it sent
 * before is still to be read, such as a server's refusal with its reason
 * (ipc_limit.c): writing stops and the read side, which comes to the end
 * of the stream in this turn, reports the connection down.
 */
static void
conn_write_failed(struct ipc_conn *c, int err)
{
	if ((err == EPIPE || err == ECONNRESET) && c->fd >= 0) {
		c->wr_dead = true;
		ev_io_stop(c->loop, &c->wio);
		ev_feed_event(c->loop, &c->rio, EV_READ);
		return;
	}
	conn_down(c, err);
}

static void
conn_check_drain(struct ipc_conn *c)
{
	if (c->want_drain && ipc_conn_queued(c) <= c->hwm / 2) {
		c->want_drain = false;
		if (c->ops->on_drain != NULL)
			c->ops->on_drain(c);
	}
}

/* Writes closed frames until EAGAIN. 0 or -errno (reported down). */
static int
conn_write(struct ipc_conn *c)
{
	struct ipc_txq *q = &c->tx;
	struct iovec iov[2];
	size_t wn, bn, n;
	ssize_t w;
	int cnt;

	if (c->down)
		return (-ENOTCONN);
	if (c->fd < 0)
		return (0);
	if (c->wr_dead)
		return (-EPIPE); /* reported down when the read side ends */
	for (;;) {
		/* Swap instead of copying when w drained and b holds only closed frames. */
		if (lc_buf_avail(&q->w) == 0 && !q->open &&
		    lc_buf_avail(&q->b) > 0) {
			struct lc_buf t = q->w;

			q->w = q->b;
			q->b = t;
			lc_buf_reset(&q->b);
		}
		wn = lc_buf_avail(&q->w);
		bn = ipc_txq_ready_b(q);
		if (wn + bn == 0)
			break;
		cnt = 0;
		if (wn > 0) {
			iov[cnt].iov_base = lc_buf_head(&q->w);
			iov[cnt++].iov_len = wn;
		}
		if (bn > 0) {
			iov[cnt].iov_base = lc_buf_head(&q->b);
			iov[cnt++].iov_len = bn;
		}
		w = c->tp->writev(c->fd, iov, cnt);
		if (w < 0) {
			if (w == -EINTR)
				continue;
			if (w == -EAGAIN || w == -EWOULDBLOCK)
				break;
			conn_write_failed(c, (int)-w);
			return ((int)w);
		}
		c->st->bytes_out += (uint64_t)w;
		n = (size_t)w < wn ? (size_t)w : wn;
		lc_buf_consume(&q->w, n);
		if (lc_buf_avail(&q->w) == 0)
			lc_buf_reset(&q->w);
		n = (size_t)w - n;
		if (n > 0) {
			lc_buf_consume(&q->b, n);
			if (q->open)
				q->frame_rel -= n;
		}
		if ((size_t)w < wn + bn)
			break; /* the socket is full */
	}
	if (ipc_txq_ready(q) > 0) {
		if (!ev_is_active(&c->wio))
			ev_io_start(c->loop, &c->wio);
	} else if (ev_is_active(&c->wio))
		ev_io_stop(c->loop, &c->wio);
	return (0);
}

int
ipc_conn_flush(struct ipc_conn *c)
{
	int rv;

	if (c->tx.open) {
		if (c->tx.frame_count > 0)
			c->st->frames_out++;
		ipc_txq_close(&c->tx);
	}
	rv = conn_write(c);
	conn_check_drain(c);
	return (rv);
}

static void
conn_write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ipc_conn *c = w->data;

	(void)loop;
	(void)revents;
	if (conn_write(c) == 0)
		conn_check_drain(c);
}

int
ipc_conn_room(struct ipc_conn *c, size_t plen)
{
	size_t rec = IPC_REC_HDR + plen, open;

	if (rec + IPC_FRAME_HDR > c->peer_frame_max)
		return (-EMSGSIZE);
	if (ipc_conn_queued(c) + rec > c->hwm) {
		c->want_drain = true;
		c->st->nobufs++;
		return (-ENOBUFS);
	}
	open = ipc_txq_open_size(&c->tx);
	if (open > 0 &&
	    (open + rec > c->peer_frame_max || open + rec > c->batch_max))
		(void)ipc_conn_flush(c);
	return (0);
}

void
ipc_conn_appended(struct ipc_conn *c)
{
	if (ipc_txq_open_size(&c->tx) >= c->batch_max)
		(void)ipc_conn_flush(c);
}

/*
 * A large raw payload on an idle connection goes straight from the caller's
 * memory to the socket (writev of the headers and the payload), never
 * through the queue. While the reader keeps taking it, the socket is waited
 * for (at most IPC_DIRECT_WAIT_NS, 10 ms, in all) and written again
 * from the caller's memory; only what is left when the reader stalls is
 * copied into the queue. This is what a blocking writer does, bounded: with
 * the kernel's default socket buffer only ~200 KiB is in flight, so the
 * receiver copies data the sender wrote microseconds ago (cache-hot), and
 * nothing is copied in user space. 1 when done this way.
 */
static int
conn_put_direct(struct ipc_conn *c, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, const void *raw, size_t rawlen)
{
	uint8_t hdr[IPC_FRAME_HDR + IPC_REC_HDR];
	const uint8_t *pl = raw;
	struct iovec iov[2];
	size_t total = sizeof(hdr) + rawlen, done = 0, at;
	uint64_t now, give_up = 0;
	ssize_t w;
	int cnt;

	if (rawlen < IPC_DIRECT_MIN || c->fd < 0 || c->down || c->wr_dead ||
	    c->tx.open || ipc_conn_queued(c) > 0)
		return (0);
	ipc_frame_hdr_write(hdr, 1, (uint32_t)(IPC_REC_HDR + rawlen),
	    c->tx.generation);
	ipc_rec_hdr_write(hdr + IPC_FRAME_HDR, id, service, kind, method,
	    status, (uint32_t)rawlen);
	while (done < total) {
		cnt = 0;
		if (done < sizeof(hdr)) {
			iov[cnt].iov_base = hdr + done;
			iov[cnt++].iov_len = sizeof(hdr) - done;
			iov[cnt].iov_base = (void *)(uintptr_t)pl;
			iov[cnt++].iov_len = rawlen;
		} else {
			iov[cnt].iov_base = (void *)(uintptr_t)(pl +
			    (done - sizeof(hdr)));
			iov[cnt++].iov_len = total - done;
		}
		w = c->tp->writev(c->fd, iov, cnt);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w == -EINTR)
			continue;
		if (w != -EAGAIN && w != -EWOULDBLOCK) {
			c->st->bytes_out += done;
			conn_write_failed(c, (int)-w);
			return (1);
		}
		/* Full: wait for the reader, within the budget. */
		now = lc_time_mono_ns();
		if (give_up == 0)
			give_up = now + IPC_DIRECT_WAIT_NS;
		if (now >= give_up ||
		    c->tp->wait_writable(c->fd,
			(int)((give_up - now + 999999) / 1000000)) <= 0)
			break;
	}
	c->st->bytes_out += done;
	c->st->frames_out++;
	if (done < sizeof(hdr) &&
	    lc_buf_append(&c->tx.w, hdr + done, sizeof(hdr) - done) != 0)
		return (-ENOMEM);
	at = done > sizeof(hdr) ? done - sizeof(hdr) : 0;
	if (done < total && lc_buf_append(&c->tx.w, pl + at, rawlen - at) != 0)
		return (-ENOMEM);
	if (done < total && !ev_is_active(&c->wio))
		ev_io_start(c->loop, &c->wio);
	return (1);
}

/*
 * Packs msg straight into the open frame with room for an upper bound of
 * its size (ipc_pb_bound), then gives back what the pack did not use: no
 * sizing pass over the message. 1 when done this way; 0 when the bound is
 * unknown or too close to a limit (hwm, the peer's frame_max, IPC_PACK_MAX)
 * for the answer to be the same as with the exact size: the caller then
 * sizes exactly.
 */
static int
conn_put_bound(struct ipc_conn *c, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, const ProtobufCMessage *msg)
{
	size_t bound = ipc_pb_bound(msg), n;
	uint8_t *p;
	int rv;

	if (bound > IPC_PACK_MAX ||
	    bound + IPC_REC_HDR + IPC_FRAME_HDR > c->peer_frame_max ||
	    ipc_conn_queued(c) + IPC_REC_HDR + bound > c->hwm)
		return (0);
	if ((rv = ipc_conn_room(c, bound)) != 0)
		return (rv);
	p = ipc_txq_rec(&c->tx, id, service, kind, method, status,
	    (uint32_t)bound);
	if (p == NULL)
		return (-ENOMEM);
	n = protobuf_c_message_pack(msg, p);
	ipc_txq_trim(&c->tx, p, (uint32_t)bound, (uint32_t)(bound - n));
	ipc_conn_appended(c);
	return (1);
}

int
ipc_conn_put(struct ipc_conn *c, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, const ProtobufCMessage *msg,
    const void *raw, size_t rawlen)
{
	size_t plen;
	uint8_t *p;
	int rv;

	if (msg != NULL &&
	    (rv = conn_put_bound(c, id, service, kind, method, status, msg)) !=
		0)
		return (rv < 0 ? rv : 0);
	plen = msg != NULL ? protobuf_c_message_get_packed_size(msg) : rawlen;

	if (plen > UINT32_MAX - IPC_REC_HDR - IPC_FRAME_HDR)
		return (-EMSGSIZE);
	if ((rv = ipc_conn_room(c, plen)) != 0)
		return (rv);
	if (msg == NULL &&
	    (rv = conn_put_direct(c, id, service, kind, method, status, raw,
		 rawlen)) != 0)
		return (rv < 0 ? rv : 0);
	p = ipc_txq_rec(&c->tx, id, service, kind, method, status,
	    (uint32_t)plen);
	if (p == NULL)
		return (-ENOMEM);
	if (msg != NULL)
		(void)protobuf_c_message_pack(msg, p);
	else if (plen > 0)
		memcpy(p, raw, plen);
	ipc_conn_appended(c);
	return (0);
}

/* Handles every whole frame in rx. false when the connection went down. */
static bool
conn_parse(struct ipc_conn *c)
{
	struct ipc_frame_hdr h;
	size_t avail;
	uint8_t *p;
	int rv;

	for (;;) {
		if (c->discard > 0) {
			avail = lc_buf_avail(&c->rx);
			if (avail > c->discard)
				avail = (size_t)c->discard;
			lc_buf_consume(&c->rx, avail);
			c->discard -= avail;
			if (c->discard > 0)
				return (true);
			conn_frame_done(c);
		}
		p = lc_buf_head(&c->rx);
		avail = lc_buf_avail(&c->rx);
		rv = ipc_frame_hdr_parse(p, avail, c->frame_max, &h);
		if (rv == -EAGAIN)
			return (true);
		if (rv == -EBADMSG) {
			/* The stream is out of step: refuse and hang up. */
			c->st->drops++;
			c->ops->on_bad(c, IPC_BAD_REQUEST, "bad frame header");
			(void)ipc_conn_flush(c);
			conn_down(c, EBADMSG);
			return (false);
		}
		if (rv == -EMSGSIZE || rv == -EPROTONOSUPPORT) {
			/* Refuse the frame with a reply, skip it, keep serving. */
			c->st->drops++;
			if (rv == -EMSGSIZE)
				c->ops->on_bad(c, IPC_TOO_BIG,
				    "frame over the receiver's frame_max");
			else
				c->ops->on_bad(c, IPC_VERSION,
				    "unsupported frame version");
			lc_buf_consume(&c->rx, IPC_FRAME_HDR);
			c->discard = h.length;
			continue;
		}
		if (avail - IPC_FRAME_HDR < h.length) {
			if (!conn_charge(c, IPC_FRAME_HDR + (size_t)h.length)) {
				/* Refused like one over frame_max: never buffered. */
				c->st->rx_budget_refused++;
				c->ops->on_bad(c, IPC_NO_SPACE,
				    "frame refused: the receive budget of this "
				    "socket is spent, retry later");
				lc_buf_consume(&c->rx, IPC_FRAME_HDR);
				c->discard = h.length;
				continue;
			}
			/* Make room for the whole frame so one read can finish it. */
			if (lc_buf_reserve(&c->rx,
				h.length + IPC_FRAME_HDR - avail) != 0) {
				conn_down(c, ENOMEM);
				return (false);
			}
			return (true);
		}
		c->st->frames_in++;
		if (ipc_frame_body_check(&h, p + IPC_FRAME_HDR) != 0) {
			c->st->drops++;
			c->ops->on_bad(c, IPC_BAD_REQUEST, "malformed records");
		} else if (!c->ops->on_frame(c, &h, p + IPC_FRAME_HDR))
			return (false);
		/* on_frame may have detached (rx reset): re-check. */
		if (c->fd < 0)
			return (false);
		lc_buf_consume(&c->rx, IPC_FRAME_HDR + h.length);
		conn_frame_done(c);
		/*
		 * Empty: start over at the front, so the next frame is read to
		 * offset 0 and growing it to its full size never moves the
		 * part already read.
		 */
		if (lc_buf_avail(&c->rx) == 0)
			lc_buf_reset(&c->rx);
	}
}

/*
 * How much to ask read() for: the rest of a large frame exactly (so the
 * buffer empties when it is handled and nothing is ever moved), else a chunk.
 */
static size_t
conn_read_want(const struct ipc_conn *c)
{
	size_t avail = lc_buf_avail(&c->rx), need;
	uint32_t length;

	if (c->discard == 0 && avail >= IPC_FRAME_HDR) {
		memcpy(&length, lc_buf_head(&c->rx) + 12, 4);
		need = (size_t)length + IPC_FRAME_HDR;
		if (need > avail && need - avail >= IPC_READ_CHUNK / 4 &&
		    length <= c->frame_max)
			return (need - avail);
	}
	/* No bigger than a chunk: a read past the end of a frame leaves a partial one to move. */
	if (c->rx.cap - c->rx.len >= IPC_READ_CHUNK / 4)
		return (c->rx.cap - c->rx.len < IPC_READ_CHUNK ?
			c->rx.cap - c->rx.len :
			IPC_READ_CHUNK);
	return (IPC_READ_CHUNK);
}

static void
conn_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ipc_conn *c = w->data;
	size_t want, total = 0;
	uint64_t now = lc_now_ns();
	ssize_t n;
	void *dst;

	(void)loop;
	(void)revents;
	while (total < IPC_READ_TURN) {
		want = conn_read_want(c);
		if ((dst = lc_buf_tail(&c->rx, want)) == NULL) {
			conn_down(c, ENOMEM);
			return;
		}
		n = c->tp->read(c->fd, dst, want);
		if (n == 0) {
			conn_down(c, EPIPE);
			return;
		}
		if (n < 0) {
			if (n == -EINTR)
				continue;
			if (n == -EAGAIN || n == -EWOULDBLOCK)
				break;
			conn_down(c, (int)-n);
			return;
		}
		lc_buf_commit(&c->rx, (size_t)n);
		c->st->bytes_in += (uint64_t)n;
		total += (size_t)n;
		if (!conn_parse(c))
			return;
		if ((size_t)n < want)
			break;
	}
	if (lc_buf_avail(&c->rx) == 0)
		lc_buf_reset(&c->rx);
	/* A frame left incomplete: its clock starts (the server times it). */
	if (c->rx_since == 0 && (lc_buf_avail(&c->rx) > 0 || c->discard > 0))
		c->rx_since = now;
	c->rx_last = now;
}
