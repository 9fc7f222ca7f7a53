/* ipc/ipc_frame.c: the frame format: validation of untrusted input and the outgoing frame builder. */
#include <errno.h>
#include <string.h>

#include "ipc_int.h"

int
ipc_frame_hdr_parse(const uint8_t *p, size_t avail, uint32_t frame_max,
    struct ipc_frame_hdr *h)
{
	if (avail < IPC_FRAME_HDR)
		return (-EAGAIN);
	memcpy(&h->magic, p, 4);
	h->version = p[4];
	h->flags = p[5];
	memcpy(&h->hdr_len, p + 6, 2);
	memcpy(&h->count, p + 8, 4);
	memcpy(&h->length, p + 12, 4);
	memcpy(&h->generation, p + 16, 8);
	if (h->magic != IPC_MAGIC || h->hdr_len != IPC_FRAME_HDR)
		return (-EBADMSG);
	if (h->version != IPC_FRAME_VERSION)
		return (-EPROTONOSUPPORT);
	if ((uint64_t)h->length + IPC_FRAME_HDR > frame_max)
		return (-EMSGSIZE);
	return (0);
}

int
ipc_frame_body_check(const struct ipc_frame_hdr *h, const uint8_t *body)
{
	size_t off = 0;
	uint32_t i, len;

	if (h->flags != 0)
		return (-EBADMSG);
	/* Every record needs at least its header: bounds count before the loop. */
	if ((uint64_t)h->count * IPC_REC_HDR > h->length)
		return (-EBADMSG);
	for (i = 0; i < h->count; i++) {
		if (h->length - off < IPC_REC_HDR)
			return (-EBADMSG);
		if (body[off + 5] >= IPC_K__COUNT)
			return (-EBADMSG);
		memcpy(&len, body + off + 12, 4);
		off += IPC_REC_HDR;
		if (len > h->length - off)
			return (-EBADMSG);
		off += len;
	}
	return (off == h->length ? 0 : -EBADMSG);
}

void
ipc_frame_rec_read(const uint8_t *body, size_t *off, struct ipc_rec *r)
{
	const uint8_t *p = body + *off;

	memcpy(&r->id, p, 4);
	r->service = p[4];
	r->kind = p[5];
	memcpy(&r->method, p + 6, 2);
	memcpy(&r->status, p + 8, 4);
	memcpy(&r->len, p + 12, 4);
	r->payload = p + IPC_REC_HDR;
	*off += IPC_REC_HDR + r->len;
}

int
ipc_frame_parse_all(const uint8_t *p, size_t len, uint32_t frame_max,
    void (*fn)(const struct ipc_rec *, void *), void *arg)
{
	struct ipc_frame_hdr h;
	struct ipc_rec r;
	size_t pos = 0, off;
	int frames = 0, rv;
	uint32_t i;

	while (pos < len) {
		rv = ipc_frame_hdr_parse(p + pos, len - pos, frame_max, &h);
		if (rv == -EAGAIN)
			return (-EBADMSG); /* truncated header */
		if (rv != 0)
			return (rv);
		if (h.length > len - pos - IPC_FRAME_HDR)
			return (-EBADMSG); /* truncated body */
		pos += IPC_FRAME_HDR;
		if ((rv = ipc_frame_body_check(&h, p + pos)) != 0)
			return (rv);
		off = 0;
		for (i = 0; i < h.count; i++) {
			ipc_frame_rec_read(p + pos, &off, &r);
			if (fn != NULL)
				fn(&r, arg);
		}
		pos += h.length;
		frames++;
	}
	return (frames);
}

/* ---- outgoing frames ------------------------------------------------------ */

void
ipc_txq_init(struct ipc_txq *q, uint64_t generation)
{
	memset(q, 0, sizeof(*q));
	lc_buf_init(&q->b);
	lc_buf_init(&q->w);
	q->generation = generation;
}

void
ipc_txq_fini(struct ipc_txq *q)
{
	lc_buf_fini(&q->b);
	lc_buf_fini(&q->w);
	q->open = false;
}

void
ipc_txq_reset(struct ipc_txq *q)
{
	lc_buf_reset(&q->b);
	lc_buf_reset(&q->w);
	q->open = false;
	q->frame_count = 0;
	q->frame_rel = 0;
}

size_t
ipc_txq_open_size(const struct ipc_txq *q)
{
	return (q->open ? lc_buf_avail(&q->b) - q->frame_rel : 0);
}

void
ipc_txq_close(struct ipc_txq *q)
{
	uint8_t *h;
	uint32_t length;

	if (!q->open)
		return;
	q->open = false;
	if (q->frame_count == 0) {
		q->b.len -= IPC_FRAME_HDR;
		return;
	}
	h = lc_buf_head(&q->b) + q->frame_rel;
	length = (uint32_t)(lc_buf_avail(&q->b) - q->frame_rel - IPC_FRAME_HDR);
	memcpy(h + 8, &q->frame_count, 4);
	memcpy(h + 12, &length, 4);
}

void
ipc_frame_hdr_write(uint8_t *p, uint32_t count, uint32_t length, uint64_t gen)
{
	uint32_t magic = IPC_MAGIC;
	uint16_t hl = IPC_FRAME_HDR;

	memcpy(p, &magic, 4);
	p[4] = IPC_FRAME_VERSION;
	p[5] = 0;
	memcpy(p + 6, &hl, 2);
	memcpy(p + 8, &count, 4);
	memcpy(p + 12, &length, 4);
	memcpy(p + 16, &gen, 8);
}

void
ipc_rec_hdr_write(uint8_t *p, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, uint32_t len)
{
	memcpy(p, &id, 4);
	p[4] = service;
	p[5] = kind;
	memcpy(p + 6, &method, 2);
	memcpy(p + 8, &status, 4);
	memcpy(p + 12, &len, 4);
}

uint8_t *
ipc_txq_rec(struct ipc_txq *q, uint32_t id, uint8_t service, uint8_t kind,
    uint16_t method, int32_t status, uint32_t plen)
{
	size_t need = IPC_REC_HDR + (size_t)plen;
	uint8_t *p;

	if (!q->open)
		need += IPC_FRAME_HDR;
	if ((p = lc_buf_tail(&q->b, need)) == NULL)
		return (NULL);
	if (!q->open) {
		q->frame_rel = lc_buf_avail(&q->b);
		q->frame_count = 0;
		q->open = true;
		ipc_frame_hdr_write(p, 0, 0, q->generation);
		p += IPC_FRAME_HDR;
	}
	ipc_rec_hdr_write(p, id, service, kind, method, status, plen);
	lc_buf_commit(&q->b, need);
	q->frame_count++;
	return (p + IPC_REC_HDR);
}

void
ipc_txq_trim(struct ipc_txq *q, uint8_t *p, uint32_t plen, uint32_t unused)
{
	uint32_t len = plen - unused;

	memcpy(p - IPC_REC_HDR + 12, &len, 4);
	q->b.len -= unused;
}
