/* fwd/fwd_port.c: backend-independent port helpers and the slow path's output
 * frames. */
#include <errno.h>
#include <stddef.h>

#include "fwd_port.h"

void
fwd_port_free(struct fwd_port *p)
{
	if (p != NULL)
		p->ops->free(p);
}

uint8_t *
fwd_out_push(struct fwd_out *o, uint16_t port, unsigned len)
{
	struct fwd_pkt *p;

	if (o->n >= FWD_OUT_MAX || len == 0 || len > FWD_FRAME_MAX) {
		o->overflow++;
		return (NULL);
	}
	p = &o->pkt[o->n];
	p->data = o->buf[o->n];
	p->len = (uint16_t)len;
	p->port = port;
	p->slot = o->n;
	p->owner = NULL;
	o->n++;
	return (p->data);
}

void
fwd_out_pop(struct fwd_out *o)
{
	if (o->n > 0)
		o->n--;
}

unsigned
fwd_out_send(struct fwd_out *o, struct fwd_port *const *ports, unsigned nports)
{
	struct fwd_pkt *v[FWD_OUT_MAX];
	unsigned i = 0, sent = 0;

	while (i < o->n) {
		uint16_t port = o->pkt[i].port;
		unsigned j = i, k = 0;

		while (j < o->n && o->pkt[j].port == port) {
			v[k++] = &o->pkt[j];
			j++;
		}
		if (port < nports && ports[port] != NULL) {
			sent += fwd_port_tx(ports[port], v, k);
			fwd_port_poll_tx(ports[port]);
		}
		i = j;
	}
	o->n = 0;
	return (sent);
}
