/* fwd/fwd_link.c: link events by rtnetlink (fwd_link.h). The socket is
 * non-blocking and read to EAGAIN on each wake-up; what the events mean for
 * an interface is fwd_if.c's (fwd_if_link_event). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "libcommon/lc_log.h"
#include "fwd_d.h"
#include "fwd_d_int.h"
#include "fwd_link.h"

/* one read: the kernel sends a message per event, up to a page each; a
 * burst (a hundred devices created at once) takes several reads */
#define LINK_RBUF (64 << 10)
/* the socket's receive buffer: bursts of events wait here while the loop
 * is busy (a commit of 1M routes); past it the kernel drops and says so
 * (ENOBUFS), and every interface is checked again */
#define LINK_RCVBUF (4 << 20)

struct parse_ctx {
	struct fwd_link_ev *ev;
	bool bad;
};

static int
attr_cb(const struct nlattr *a, void *arg)
{
	struct parse_ctx *c = arg;
	struct fwd_link_ev *ev = c->ev;

	switch (mnl_attr_get_type(a)) {
	case IFLA_IFNAME:
		/* a name ends within its attribute, and fits a device's */
		if (mnl_attr_get_payload_len(a) == 0 ||
		    memchr(mnl_attr_get_payload(a), '\0',
			mnl_attr_get_payload_len(a)) == NULL ||
		    strlen(mnl_attr_get_str(a)) >= IFNAMSIZ) {
			c->bad = true;
			return (MNL_CB_ERROR);
		}
		ev->name = mnl_attr_get_str(a);
		break;
	case IFLA_MTU:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) {
			c->bad = true;
			return (MNL_CB_ERROR);
		}
		ev->mtu = mnl_attr_get_u32(a);
		break;
	case IFLA_ADDRESS:
		if (mnl_attr_get_payload_len(a) == 6)
			ev->mac = mnl_attr_get_payload(a);
		break;
	default:
		break;
	}
	return (MNL_CB_OK);
}

/* h's attributes after its fixed header of hl bytes fill it exactly
 * (mnl_attr_parse stops quietly at one that runs past the end). */
static bool
attrs_whole(const struct nlmsghdr *h, size_t hl)
{
	const char *p = (const char *)mnl_nlmsg_get_payload_offset(h, hl);
	const char *end = (const char *)mnl_nlmsg_get_payload_tail(h);

	while (end - p >= (ptrdiff_t)sizeof(struct nlattr)) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < sizeof(*a) || a->nla_len > end - p)
			return (false);
		p += MNL_ALIGN(a->nla_len);
	}
	return (p >= end);
}

int
fwd_link_parse(const void *buf, size_t n,
    void (*cb)(const struct fwd_link_ev *, void *), void *arg)
{
	const struct nlmsghdr *h = buf;
	int len = n > (size_t)INT32_MAX ? INT32_MAX : (int)n;

	for (; mnl_nlmsg_ok(h, len); h = mnl_nlmsg_next(h, &len)) {
		const struct ifinfomsg *ifi;
		struct fwd_link_ev ev;
		struct parse_ctx c = {.ev = &ev};

		if (h->nlmsg_type != RTM_NEWLINK &&
		    h->nlmsg_type != RTM_DELLINK)
			continue;
		if (h->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
			return (-EBADMSG);
		ifi = mnl_nlmsg_get_payload(h);
		memset(&ev, 0, sizeof(ev));
		ev.del = h->nlmsg_type == RTM_DELLINK;
		ev.ifindex = ifi->ifi_index > 0 ? (uint32_t)ifi->ifi_index : 0;
		ev.flags = ifi->ifi_flags;
		if (!attrs_whole(h, sizeof(*ifi)) ||
		    mnl_attr_parse(h, sizeof(*ifi), attr_cb, &c) < 0 || c.bad)
			return (-EBADMSG);
		if (ev.ifindex == 0)
			continue;
		cb(&ev, arg);
	}
	/* a tail shorter than a header, or a header longer than the rest */
	return (len > 0 ? -EBADMSG : 0);
}

static void
on_ev(const struct fwd_link_ev *ev, void *arg)
{
	struct fwd_d *d = arg;

	d->st.link_events++;
	fwd_if_link_event(d, ev);
}

static void
on_link(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fwd_d *d = w->data;

	(void)loop;
	(void)revents;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(d->link_nl, d->link_buf,
		    LINK_RBUF);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				/* the kernel dropped events: whatever they
				 * said, the devices say again */
				d->st.link_overruns++;
				lc_log_warnx("link events: the kernel dropped "
					     "some (receive buffer full): "
					     "checking every interface");
				fwd_if_link_check(d);
				continue;
			}
			if (errno != EAGAIN)
				lc_log_warn("link events");
			break;
		}
		if (fwd_link_parse(d->link_buf, (size_t)n, on_ev, d) != 0)
			lc_log_warnx("link events: a message did not parse "
				     "(%zd bytes): ignored",
			    n);
	}
}

int
fwd_link_init(struct fwd_d *d)
{
	int sz = LINK_RCVBUF, e;

	if ((d->link_buf = malloc(LINK_RBUF)) == NULL)
		return (-ENOMEM);
	if ((d->link_nl = mnl_socket_open2(NETLINK_ROUTE,
		 SOCK_NONBLOCK | SOCK_CLOEXEC)) == NULL)
		goto fail;
	/* FORCE needs CAP_NET_ADMIN, which tern-fwd has; the plain one is
	 * capped by net.core.rmem_max */
	if (setsockopt(mnl_socket_get_fd(d->link_nl), SOL_SOCKET,
		SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(mnl_socket_get_fd(d->link_nl), SOL_SOCKET,
		    SO_RCVBUF, &sz, sizeof(sz));
	if (mnl_socket_bind(d->link_nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) != 0)
		goto fail;
	ev_io_init(&d->link_io, on_link, mnl_socket_get_fd(d->link_nl),
	    EV_READ);
	d->link_io.data = d;
	ev_io_start(d->loop, &d->link_io);
	return (0);
fail:
	e = errno;
	fwd_link_fini(d);
	return (-e);
}

void
fwd_link_fini(struct fwd_d *d)
{
	if (d->link_nl != NULL) {
		ev_io_stop(d->loop, &d->link_io);
		mnl_socket_close(d->link_nl);
		d->link_nl = NULL;
	}
	free(d->link_buf);
	d->link_buf = NULL;
}
