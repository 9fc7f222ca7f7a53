/* fwd/fwd_nl.c: rtnetlink requests for the host path (fwd_nl.h), built and
 * parsed with libmnl. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "fwd_nl.h"

#define NL_ADDR_MAX 64
/* a dump answer: the kernel sends up to a page (or 32 KiB) per read */
#define NL_RBUF (64 << 10)

struct fwd_nl {
	struct mnl_socket *s;
	unsigned portid, seq;
	char sbuf[8192]; /* one request: a header and a few attributes */
	char rbuf[NL_RBUF];
};

struct fwd_nl *
fwd_nl_new(void)
{
	struct fwd_nl *n;
	int e;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return (NULL);
	if ((n->s = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL)
		goto fail;
	if (mnl_socket_bind(n->s, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	n->portid = mnl_socket_get_portid(n->s);
	return (n);
fail:
	e = errno;
	fwd_nl_free(n);
	errno = e;
	return (NULL);
}

void
fwd_nl_free(struct fwd_nl *n)
{
	if (n == NULL)
		return;
	if (n->s != NULL)
		mnl_socket_close(n->s);
	free(n);
}

static struct nlmsghdr *
nl_msg(struct fwd_nl *n, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(n->sbuf);

	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = ++n->seq;
	return (h);
}

/*
 * Send h and read the answer until the kernel's ACK or the end of the dump,
 * cb (may be NULL) called for every data message. 0 or -errno (an error
 * the kernel answered, or of the socket).
 */
static int
nl_talk(struct fwd_nl *n, struct nlmsghdr *h, mnl_cb_t cb, void *arg)
{
	unsigned seq = h->nlmsg_seq;
	ssize_t r;
	int rv;

	if (mnl_socket_sendto(n->s, h, h->nlmsg_len) < 0)
		return (-errno);
	for (;;) {
		if ((r = mnl_socket_recvfrom(n->s, n->rbuf, sizeof(n->rbuf))) <
		    0)
			return (errno == EINTR ? -EINTR : -errno);
		if ((rv = mnl_cb_run(n->rbuf, (size_t)r, seq, n->portid, cb,
			 arg)) < 0)
			return (errno != 0 ? -errno : -EPROTO);
		if (rv == MNL_CB_STOP)
			return (0);
	}
}

int
fwd_nl_link_set(struct fwd_nl *n, uint32_t ifindex, const uint8_t *mac,
    unsigned mtu, const char *alias, bool up)
{
	struct nlmsghdr *h = nl_msg(n, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(h, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = up ? IFF_UP : 0;
	if (mac != NULL)
		mnl_attr_put(h, IFLA_ADDRESS, 6, mac);
	if (mtu != 0)
		mnl_attr_put_u32(h, IFLA_MTU, mtu);
	if (alias != NULL)
		mnl_attr_put_strz(h, IFLA_IFALIAS, alias);
	return (nl_talk(n, h, NULL, NULL));
}

int
fwd_nl_link_del(struct fwd_nl *n, uint32_t ifindex)
{
	struct nlmsghdr *h = nl_msg(n, RTM_DELLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(h, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return (nl_talk(n, h, NULL, NULL));
}

/* ---- link dump ---- */

struct link_walk {
	int (*cb)(const struct fwd_nl_link *, void *);
	void *arg;
	int rv;
};

struct link_attrs {
	const struct nlattr *tb[IFLA_MAX + 1];
	const char *kind;
};

static int
link_info_attr(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		la->kind = mnl_attr_get_str(a);
	return (MNL_CB_OK);
}

static int
link_attr(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;
	uint16_t t = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFLA_MAX) < 0)
		return (MNL_CB_OK); /* newer than our headers */
	if ((t == IFLA_IFNAME || t == IFLA_IFALIAS) &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return (MNL_CB_OK);
	if (t == IFLA_LINKINFO)
		(void)mnl_attr_parse_nested(a, link_info_attr, la);
	la->tb[t] = a;
	return (MNL_CB_OK);
}

static int
link_msg(const struct nlmsghdr *h, void *data)
{
	struct link_walk *w = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(h);
	struct link_attrs la = {.kind = ""};
	struct fwd_nl_link l = {0};

	if (w->rv != 0)
		return (MNL_CB_OK); /* stopped: read the rest of the dump */
	(void)mnl_attr_parse(h, sizeof(*ifi), link_attr, &la);
	if (la.tb[IFLA_IFNAME] == NULL)
		return (MNL_CB_OK);
	l.ifindex = (uint32_t)ifi->ifi_index;
	l.name = mnl_attr_get_str(la.tb[IFLA_IFNAME]);
	l.alias = la.tb[IFLA_IFALIAS] ? mnl_attr_get_str(la.tb[IFLA_IFALIAS]) :
					"";
	l.kind = la.kind;
	w->rv = w->cb(&l, w->arg);
	return (MNL_CB_OK);
}

int
fwd_nl_link_walk(struct fwd_nl *n,
    int (*cb)(const struct fwd_nl_link *, void *), void *arg)
{
	struct nlmsghdr *h = nl_msg(n, RTM_GETLINK, NLM_F_DUMP);
	struct rtgenmsg *g = mnl_nlmsg_put_extra_header(h, sizeof(*g));
	struct link_walk w = {cb, arg, 0};
	int rv;

	g->rtgen_family = AF_UNSPEC;
	if ((rv = nl_talk(n, h, link_msg, &w)) != 0)
		return (rv);
	return (w.rv);
}

/* ---- addresses ---- */

struct addr_set {
	uint32_t ifindex;
	unsigned n;
	uint32_t addr[NL_ADDR_MAX];
	uint8_t plen[NL_ADDR_MAX];
	bool over;
};

static int
addr_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, IFA_MAX) < 0)
		return (MNL_CB_OK);
	if (mnl_attr_get_type(a) == IFA_LOCAL &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		tb[IFA_LOCAL] = a;
	return (MNL_CB_OK);
}

static int
addr_msg(const struct nlmsghdr *h, void *data)
{
	struct addr_set *s = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(h);
	const struct nlattr *tb[IFA_MAX + 1] = {0};

	if (ifa->ifa_family != AF_INET || ifa->ifa_index != s->ifindex)
		return (MNL_CB_OK);
	(void)mnl_attr_parse(h, sizeof(*ifa), addr_attr, tb);
	if (tb[IFA_LOCAL] == NULL)
		return (MNL_CB_OK);
	if (s->n == NL_ADDR_MAX) {
		s->over = true;
		return (MNL_CB_OK);
	}
	s->addr[s->n] = ntohl(mnl_attr_get_u32(tb[IFA_LOCAL]));
	s->plen[s->n] = ifa->ifa_prefixlen;
	s->n++;
	return (MNL_CB_OK);
}

static int
addr_req(struct fwd_nl *n, uint16_t type, uint32_t ifindex, uint32_t a,
    uint8_t plen)
{
	struct nlmsghdr *h = nl_msg(n, type,
	    NLM_F_ACK |
		(type == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_REPLACE : 0));
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(h, sizeof(*ifa));
	uint32_t na = htonl(a);

	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put_u32(h, IFA_LOCAL, na);
	mnl_attr_put_u32(h, IFA_ADDRESS, na);
	if (type == RTM_NEWADDR && plen <= 30) {
		uint32_t m = plen == 0 ? 0 : 0xffffffffu << (32 - plen);

		mnl_attr_put_u32(h, IFA_BROADCAST, htonl(a | ~m));
	}
	return (nl_talk(n, h, NULL, NULL));
}

static bool
addr_in(const uint32_t *addr, const uint8_t *plen, unsigned n, uint32_t a,
    uint8_t l)
{
	for (unsigned i = 0; i < n; i++)
		if (addr[i] == a && plen[i] == l)
			return (true);
	return (false);
}

int
fwd_nl_addr_sync(struct fwd_nl *n, uint32_t ifindex, const uint32_t *addr,
    const uint8_t *plen, unsigned cnt, unsigned *added, unsigned *deleted)
{
	struct addr_set *s;
	struct nlmsghdr *h;
	struct ifaddrmsg *ifa;
	int rv, first = 0;

	if (added != NULL)
		*added = 0;
	if (deleted != NULL)
		*deleted = 0;
	if (cnt > NL_ADDR_MAX)
		return (-E2BIG);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (-ENOMEM);
	s->ifindex = ifindex;
	h = nl_msg(n, RTM_GETADDR, NLM_F_DUMP);
	ifa = mnl_nlmsg_put_extra_header(h, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	if ((rv = nl_talk(n, h, addr_msg, s)) != 0) {
		free(s);
		return (rv);
	}
	for (unsigned i = 0; i < s->n; i++) {
		if (addr_in(addr, plen, cnt, s->addr[i], s->plen[i]))
			continue;
		rv = addr_req(n, RTM_DELADDR, ifindex, s->addr[i], s->plen[i]);
		if (rv == 0 && deleted != NULL)
			(*deleted)++;
		else if (rv != 0 && rv != -EADDRNOTAVAIL && first == 0)
			first = rv;
	}
	for (unsigned i = 0; i < cnt; i++) {
		if (addr_in(s->addr, s->plen, s->n, addr[i], plen[i]))
			continue;
		rv = addr_req(n, RTM_NEWADDR, ifindex, addr[i], plen[i]);
		if (rv == 0 && added != NULL)
			(*added)++;
		else if (rv != 0 && first == 0)
			first = rv;
	}
	/* more than we could list: sync again to get at the rest */
	if (s->over && first == 0)
		first = -EAGAIN;
	free(s);
	return (first);
}
