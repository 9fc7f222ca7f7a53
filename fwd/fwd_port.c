/* fwd/fwd_port.c: backend-independent port helpers and the slow path's output
 * frames. */
#include <errno.h>
#include <stddef.h>

#include <unistd.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

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

int
fwd_port_allmulti(int fd, int ifindex)
{
	struct packet_mreq mr = {.mr_ifindex = ifindex,
	    .mr_type = PACKET_MR_ALLMULTI};
	int own = fd < 0, rv;

	if (own && (fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) <
	    0) {
		rv = -errno;
		if (own)
			close(fd);
		return (rv);
	}
	return (fd);
}
