/* fwd/fwd_port_mem.c: in-memory port backend for tests and benchmarks (inject,
 * replay, capture). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_port.h"

#define MEM_HEADROOM 2 /* puts the IPv4 header on a 4-byte boundary */
#define MEM_BUFSZ    (FWD_FRAME_MAX + 64)

struct port_mem {
	struct fwd_port port;
	unsigned nbufs;
	uint8_t *bufs;	      /* nbufs * MEM_BUFSZ */
	struct fwd_pkt *desc; /* one per buffer */
	uint32_t *freel;      /* free buffer stack */
	unsigned nfree;
	uint32_t *rxq; /* injected, not yet received (FIFO) */
	unsigned rxq_head, rxq_n;
	/* replay */
	const uint8_t *const *rp_frames;
	const uint16_t *rp_lens;
	unsigned rp_n, rp_next;
	/* capture */
	unsigned cap_max, cap_head, cap_n;
	uint8_t *cap; /* cap_max * FWD_FRAME_MAX */
	uint16_t *cap_len;
};

#define PM(p) ((struct port_mem *)(void *)(p))

static uint8_t *
mem_buf(struct port_mem *m, uint32_t i)
{
	return (m->bufs + (size_t)i * MEM_BUFSZ + MEM_HEADROOM);
}

static unsigned
mem_rx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_mem *m = PM(p);
	unsigned i;

	for (i = 0; i < n; i++) {
		struct fwd_pkt *d;
		uint32_t b;

		if (m->rxq_n > 0) {
			b = m->rxq[m->rxq_head];
			m->rxq_head = (m->rxq_head + 1) % m->nbufs;
			m->rxq_n--;
			d = &m->desc[b];
		} else if (m->rp_n > 0 && m->nfree > 0) {
			b = m->freel[--m->nfree];
			d = &m->desc[b];
			d->len = m->rp_lens[m->rp_next];
			memcpy(d->data, m->rp_frames[m->rp_next], d->len);
			if (++m->rp_next == m->rp_n)
				m->rp_next = 0;
		} else
			break;
		p->stats.rx_pkts++;
		p->stats.rx_bytes += d->len;
		pkts[i] = d;
	}
	return (i);
}

static void
mem_release(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_mem *m = PM(p);

	for (unsigned i = 0; i < n; i++)
		m->freel[m->nfree++] = pkts[i]->slot;
}

/* A copying backend: keeps a copy when capturing, releases at once. */
static unsigned
mem_tx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_mem *m = PM(p);

	for (unsigned i = 0; i < n; i++) {
		p->stats.tx_pkts++;
		p->stats.tx_bytes += pkts[i]->len;
		if (m->cap_max > 0) {
			unsigned at;

			if (m->cap_n == m->cap_max) { /* overwrite oldest */
				m->cap_head = (m->cap_head + 1) % m->cap_max;
				m->cap_n--;
			}
			at = (m->cap_head + m->cap_n) % m->cap_max;
			memcpy(m->cap + (size_t)at * FWD_FRAME_MAX,
			    pkts[i]->data, pkts[i]->len);
			m->cap_len[at] = pkts[i]->len;
			m->cap_n++;
		}
	}
	fwd_pkt_release(pkts, n);
	return (n);
}

static void
mem_free(struct fwd_port *p)
{
	struct port_mem *m = PM(p);

	free(m->bufs);
	free(m->desc);
	free(m->freel);
	free(m->rxq);
	free(m->cap);
	free(m->cap_len);
	free(m);
}

static const struct fwd_port_ops mem_ops = {
    .rx = mem_rx,
    .tx = mem_tx,
    .release = mem_release,
    .poll_tx = NULL,
    .free = mem_free,
};

struct fwd_port *
fwd_port_mem_new(const struct fwd_port_mem_conf *c)
{
	struct port_mem *m;
	unsigned nb;

	if (c == NULL || c->id >= FWD_PORT_MAX) {
		errno = EINVAL;
		return (NULL);
	}
	nb = c->nbufs ? c->nbufs : 256;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return (NULL);
	m->port.ops = &mem_ops;
	m->port.id = c->id;
	m->port.mtu = c->mtu ? c->mtu : 1500;
	m->port.dev_mtu = m->port.mtu;
	memcpy(m->port.mac, c->mac, 6);
	m->port.ifindex = 0;
	memcpy(m->port.name, "mem", 4);
	m->nbufs = nb;
	m->bufs = aligned_alloc(64, (size_t)nb * MEM_BUFSZ);
	m->desc = calloc(nb, sizeof(*m->desc));
	m->freel = calloc(nb, sizeof(*m->freel));
	m->rxq = calloc(nb, sizeof(*m->rxq));
	m->cap_max = c->capture;
	if (m->cap_max > 0) {
		m->cap = malloc((size_t)m->cap_max * FWD_FRAME_MAX);
		m->cap_len = calloc(m->cap_max, sizeof(*m->cap_len));
	}
	if (m->bufs == NULL || m->desc == NULL || m->freel == NULL ||
	    m->rxq == NULL ||
	    (m->cap_max > 0 && (m->cap == NULL || m->cap_len == NULL))) {
		mem_free(&m->port);
		errno = ENOMEM;
		return (NULL);
	}
	for (unsigned i = 0; i < nb; i++) {
		m->desc[i].data = mem_buf(m, i);
		m->desc[i].slot = i;
		m->desc[i].port = c->id;
		m->desc[i].owner = &m->port;
		m->freel[nb - 1 - i] = i;
	}
	m->nfree = nb;
	return (&m->port);
}

int
fwd_port_mem_inject(struct fwd_port *p, const void *frame, unsigned len)
{
	struct port_mem *m = PM(p);
	uint32_t b;

	if (len == 0 || len > FWD_FRAME_MAX)
		return (-EMSGSIZE);
	if (m->nfree == 0)
		return (-ENOBUFS);
	b = m->freel[--m->nfree];
	memcpy(m->desc[b].data, frame, len);
	m->desc[b].len = (uint16_t)len;
	m->rxq[(m->rxq_head + m->rxq_n) % m->nbufs] = b;
	m->rxq_n++;
	return (0);
}

void
fwd_port_mem_replay(struct fwd_port *p, const uint8_t *const *frames,
    const uint16_t *lens, unsigned n)
{
	struct port_mem *m = PM(p);

	m->rp_frames = frames;
	m->rp_lens = lens;
	m->rp_n = n;
	m->rp_next = 0;
}

int
fwd_port_mem_take(struct fwd_port *p, void *buf, unsigned room)
{
	struct port_mem *m = PM(p);
	unsigned len;

	if (m->cap_n == 0)
		return (-ENOENT);
	len = m->cap_len[m->cap_head];
	memcpy(buf, m->cap + (size_t)m->cap_head * FWD_FRAME_MAX,
	    len < room ? len : room);
	m->cap_head = (m->cap_head + 1) % m->cap_max;
	m->cap_n--;
	return ((int)len);
}

unsigned
fwd_port_mem_pending(const struct fwd_port *p)
{
	return (((const struct port_mem *)(const void *)p)->cap_n);
}

unsigned
fwd_port_mem_inuse(const struct fwd_port *p)
{
	const struct port_mem *m = (const struct port_mem *)(const void *)p;

	return (m->nbufs - m->nfree - 0);
}
