/* fwd/fwd_host.c: the host path (docs/hostpath.md): a persistent TAP per
 * attached port that mirrors it in the kernel (MAC, MTU, carrier, IPv4
 * addresses, over netlink), frames for the router's sockets written up to
 * it, what the kernel sends on it sent out the port, and a tc ingress drop
 * on the port device so that the kernel sees the port's frames only
 * through the TAP. Control thread only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_tun.h>
#include <linux/pkt_cls.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "libcommon/lc_log.h"
#include "fwd_d_int.h"
#include "fwd_host_gro.h"
#include "fwd_nl.h"

/* frames read from one TAP per callback: the loop's other watchers get
 * their turn in between (the watcher is level-triggered) */
#define HOST_RX_BUDGET FWD_OUT_MAX
/* our tc filter on the ports' clsact ingress hook ("tn") */
#define HOST_TC_HANDLE 0x746e
#define HOST_TC_PRIO   1

void
fwd_host_name(const char *port, uint32_t ifindex, char out[IFNAMSIZ])
{
	if (strlen(port) + 2 < IFNAMSIZ)
		snprintf(out, IFNAMSIZ, "h-%s", port);
	else
		snprintf(out, IFNAMSIZ, "h%u", ifindex);
}

/* ---- TAP devices ---- */

/* Open (create, or attach to a persistent one) the TAP name. 0 with *fd,
 * or -errno: -EBUSY when a process holds it, -EINVAL when name is a
 * device of another kind. */
static int
tap_open(const char *name, int *fd)
{
	struct ifreq ifr;
	int s, e;

	if ((s = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0)
		return (-errno);
	memset(&ifr, 0, sizeof(ifr));
	/* each frame after a virtio-net header: GSO up (fwd_host_gro.h);
	 * no offloads down (the kernel segments and checksums for us) */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(s, TUNSETIFF, &ifr) != 0 ||
	    ioctl(s, TUNSETVNETHDRSZ, &(int){FWD_GRO_VNET_LEN}) != 0 ||
	    ioctl(s, TUNSETOFFLOAD, 0UL) != 0) {
		e = errno;
		close(s);
		return (-e);
	}
	*fd = s;
	return (0);
}

/* Close fd, the TAP going with it (persist off) or staying. */
static void
tap_close(int fd, bool remove)
{
	if (remove)
		(void)ioctl(fd, TUNSETPERSIST, 0);
	close(fd);
}

/* Write v to the sysctl file path; quiet when it does not exist. */
static void
tap_sysctl(const char *path, const char *v)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return; /* e.g. no IPv6 in this kernel or namespace */
	if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		lc_log_warn("%s", path);
	close(fd);
}

/*
 * No IPv6 on the TAP until tern routes IPv6 (the kernel would send router
 * solicitations and MLD reports fwd cannot carry yet); ARP requests from
 * the address of the target's subnet (arp_announce 2), as a router asks,
 * not from whatever address the packet that needs it came from.
 */
static void
tap_sysctls(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
	    name);
	tap_sysctl(path, "1");
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/arp_announce",
	    name);
	tap_sysctl(path, "2");
}

/* ---- the ports' tc drop ---- */

static int
tc_prog_load(void)
{
	/* r0 = TC_ACT_SHOT; exit */
	struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = TC_ACT_SHOT},
	    {.code = BPF_JMP | BPF_EXIT},
	};

	return (bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "tern_port_drop", "GPL",
	    insns, 2, NULL));
}

/* Our drop filter on ifindex's ingress, on or off. 0 or -errno. */
static int
tc_drop(struct fwd_d *d, uint32_t ifindex, bool on)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
	    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = HOST_TC_HANDLE,
	    .priority = HOST_TC_PRIO);
	int rv;

	if (!on) {
		rv = bpf_tc_detach(&hook, &o);
		return (rv == -ENOENT || rv == -ENODEV ? 0 : rv);
	}
	if (d->host_prog < 0)
		return (-ENOTSUP);
	{
		/* an existing clsact qdisc (ours, kept from before) is
		 * fine: libbpf would print the kernel's complaint */
		libbpf_print_fn_t pr = libbpf_set_print(NULL);

		rv = bpf_tc_hook_create(&hook);
		(void)libbpf_set_print(pr);
	}
	if (rv != 0 && rv != -EEXIST)
		return (rv);
	o.prog_fd = d->host_prog;
	o.flags = BPF_TC_F_REPLACE;
	return (bpf_tc_attach(&hook, &o));
}

/* ---- leftovers of an earlier tern-fwd ---- */

static int
left_cb(const struct fwd_nl_link *l, void *arg)
{
	struct fwd_d *d = arg;

	if (strcmp(l->kind, "tun") == 0 &&
	    strncmp(l->alias, FWD_HOST_ALIAS, strlen(FWD_HOST_ALIAS)) == 0 &&
	    d->nleft < FWD_PORT_MAX)
		snprintf(d->left[d->nleft++], IFNAMSIZ, "%s", l->name);
	return (0);
}

static void
left_forget(struct fwd_d *d, const char *name)
{
	for (unsigned i = 0; i < d->nleft; i++)
		if (strcmp(d->left[i], name) == 0) {
			memcpy(d->left[i], d->left[--d->nleft], IFNAMSIZ);
			return;
		}
}

void
fwd_host_sweep(struct fwd_d *d)
{
	if (d->host_swept)
		return;
	d->host_swept = true;
	for (unsigned i = 0; i < d->nleft; i++) {
		int fd, rv;

		/* held by a process (another tern-fwd in this namespace):
		 * not ours to remove */
		if ((rv = tap_open(d->left[i], &fd)) != 0) {
			if (rv != -ENODEV)
				lc_log_notice("host interface %s, left by an "
					      "earlier tern-fwd: kept (%s)",
				    d->left[i], strerror(-rv));
			continue;
		}
		tap_close(fd, true);
		lc_log_notice("host interface %s, left by an earlier tern-fwd "
			      "and no longer configured: removed",
		    d->left[i]);
	}
	d->nleft = 0;
}

/* ---- life cycle ---- */

int
fwd_host_init(struct fwd_d *d)
{
	int rv;

	d->host_prog = -1;
	if ((d->hout = calloc(1, sizeof(*d->hout))) == NULL ||
	    (d->gro = calloc(1, sizeof(*d->gro))) == NULL) {
		free(d->hout);
		d->hout = NULL;
		return (-ENOMEM);
	}
	d->slow.host_up = fwd_host_up;
	d->slow.host_arg = d;
	if ((d->nl = fwd_nl_new()) == NULL) {
		lc_log_warn("host path: netlink");
		return (0); /* forwarding works without it */
	}
	if ((d->host_prog = tc_prog_load()) < 0) {
		lc_log_warnx("host path: cannot load the ports' tc drop (%s): "
			     "the kernel will see the ports' frames too",
		    strerror(-d->host_prog));
		d->host_prog = -1;
	}
	if ((rv = fwd_nl_link_walk(d->nl, left_cb, d)) != 0)
		lc_log_warnx("host path: listing links: %s", strerror(-rv));
	for (unsigned i = 0; i < d->nleft; i++)
		lc_log_info("host interface %s left by an earlier tern-fwd: "
			    "adopted when its port is configured again",
		    d->left[i]);
	return (0);
}

void
fwd_host_fini(struct fwd_d *d)
{
	for (unsigned i = 0; i < FWD_PORT_MAX; i++)
		if (d->ifs[i].host.open)
			fwd_host_detach(d, &d->ifs[i]);
	if (d->host_prog >= 0)
		close(d->host_prog);
	d->host_prog = -1;
	fwd_nl_free(d->nl);
	d->nl = NULL;
	free(d->hout);
	d->hout = NULL;
	free(d->gro);
	d->gro = NULL;
}

/* ---- down: what the kernel sends on a TAP goes out its port ---- */

static void
on_host_rx(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fwd_iface *f = w->data;
	struct fwd_host_if *h = &f->host;
	struct fwd_d *d = h->d;
	struct fwd_out *o = d->hout;
	uint16_t id = (uint16_t)(f - d->ifs);
	uint64_t bytes[HOST_RX_BUDGET];
	bool port_ok = f->attached && f->link_up && d->ctl_ports[id] != NULL;
	unsigned sent, n;

	(void)loop;
	(void)revents;
	o->n = 0;
	for (unsigned i = 0; i < HOST_RX_BUDGET; i++) {
		uint8_t *b = fwd_out_push(o, id, FWD_FRAME_MAX);
		struct virtio_net_hdr v;
		struct iovec iov[2] = {{&v, sizeof(v)}, {b, FWD_FRAME_MAX}};
		ssize_t r;
		uint16_t type;

		if (b == NULL)
			break;
		if ((r = readv(h->fd, iov, 2)) <= 0) {
			fwd_out_pop(o); /* EAGAIN: all read */
			break;
		}
		/* with no offloads the kernel hands us whole frames with
		 * their checksums done: a header asking for more is bad */
		r -= (ssize_t)sizeof(v);
		if (r < FWD_ETH_HLEN || r > (ssize_t)f->mtu + FWD_ETH_HLEN ||
		    v.gso_type != VIRTIO_NET_HDR_GSO_NONE ||
		    (v.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
			h->st.down_bad++;
			fwd_out_pop(o);
			continue;
		}
		type = fwd_ld16(b + FWD_ETH_TYPE);
		if (type != htons(FWD_ETH_P_IPV4) &&
		    type != htons(FWD_ETH_P_ARP)) {
			h->st.down_not_ip++;
			fwd_out_pop(o);
			continue;
		}
		if (!port_ok) {
			h->st.down_port_down++;
			fwd_out_pop(o);
			continue;
		}
		o->pkt[o->n - 1].len = (uint16_t)r;
		bytes[o->n - 1] = (uint64_t)r;
	}
	if ((n = o->n) == 0)
		return;
	sent = fwd_out_send(o, d->ctl_ports, FWD_PORT_MAX);
	h->st.down_pkts += sent;
	h->st.down_tx_full += n - sent;
	for (unsigned i = 0; i < sent; i++)
		h->st.down_bytes += bytes[i];
}

/* ---- up: frames for the router's sockets ---- */

/* Write one frame (vnet header first) that stands for segs frames of
 * bytes bytes up h, counted. 0 or -errno. */
static int
host_write(struct fwd_host_if *h, const struct iovec *iov, int niov, size_t len,
    unsigned segs, unsigned bytes)
{
	ssize_t r;

	if ((r = writev(h->fd, iov, niov)) == (ssize_t)len) {
		h->st.up_pkts += segs;
		h->st.up_bytes += bytes;
		if (segs > 1) {
			h->st.up_coalesced += segs;
			h->st.up_gso++;
		}
		return (0);
	}
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		h->st.up_full += segs;
		return (-EAGAIN);
	}
	h->st.up_error += segs;
	return (r < 0 ? -errno : -EIO);
}

void
fwd_host_flush(struct fwd_d *d)
{
	struct fwd_gro *g = d->gro;
	struct fwd_host_if *h;
	unsigned segs, bytes, n;
	uint16_t port;

	if (g == NULL || g->len == 0)
		return;
	port = g->port;
	segs = g->segs;
	bytes = g->bytes;
	n = fwd_gro_finish(g);
	h = &d->ifs[port].host;
	if (h->open)
		(void)host_write(h, &(struct iovec){g->buf, n}, 1, n, segs,
		    bytes);
}

/* Up: TCP segments are held to be merged with those that follow in this
 * drain (fwd_host_gro.h; the drain's end sends them, fwd_host_flush);
 * anything else is written as it comes, after what is held. */
int
fwd_host_up(void *arg, uint16_t port, const uint8_t *frame, unsigned len)
{
	struct fwd_d *d = arg;
	struct fwd_host_if *h;
	struct virtio_net_hdr v = {0};
	struct iovec iov[2] = {{&v, sizeof(v)}, {(void *)frame, len}};

	if (port >= FWD_D_IF_MAX || !(h = &d->ifs[port].host)->open)
		return (-ENOENT);
	if (fwd_gro_offer(d->gro, port, frame, len))
		return (0);
	fwd_host_flush(d);
	if (fwd_gro_offer(d->gro, port, frame, len))
		return (0);
	return (host_write(h, iov, 2, sizeof(v) + len, 1, len));
}

/* ---- interfaces ---- */

static int
host_mirror(struct fwd_d *d, struct fwd_iface *f)
{
	struct fwd_host_if *h = &f->host;
	int rv, on = f->link_up ? 1 : 0;

	if ((rv = fwd_nl_addr_sync(d->nl, h->ifindex, f->addr, f->plen,
		 f->naddr, NULL, NULL)) != 0)
		lc_log_warnx("%s: host interface %s: addresses: %s", f->name,
		    h->name, strerror(-rv));
	if (ioctl(h->fd, TUNSETCARRIER, &on) != 0)
		lc_log_warn("%s: host interface %s: carrier", f->name, h->name);
	return (rv);
}

int
fwd_host_attach(struct fwd_d *d, struct fwd_iface *f)
{
	struct fwd_host_if *h = &f->host;
	char alias[64];
	bool had;
	int fd, rv;

	if (h->open || !f->host_conf || !f->attached ||
	    f->backend == FWD_D_BK_MEM)
		return (0);
	if (d->nl == NULL) {
		lc_log_warnx("%s: no host path (no netlink socket)", f->name);
		return (-ENOTSUP);
	}
	memset(h, 0, sizeof(*h));
	fwd_host_name(f->name, f->ifindex, h->name);
	had = if_nametoindex(h->name) != 0;
	if ((rv = tap_open(h->name, &fd)) != 0) {
		lc_log_warnx("%s: host interface %s: %s%s", f->name, h->name,
		    strerror(-rv),
		    rv == -EBUSY      ? " (held by another process)" :
			rv == -EINVAL ? " (a device of another kind)" :
					"");
		return (rv);
	}
	if (ioctl(fd, TUNSETPERSIST, 1) != 0 ||
	    (h->ifindex = if_nametoindex(h->name)) == 0) {
		rv = -errno;
		lc_log_warn("%s: host interface %s", f->name, h->name);
		tap_close(fd, !had);
		return (rv);
	}
	tap_sysctls(h->name);
	snprintf(alias, sizeof(alias), "%s%s", FWD_HOST_ALIAS, f->name);
	if ((rv = fwd_nl_link_set(d->nl, h->ifindex, f->mac, f->mtu, alias,
		 true)) != 0) {
		lc_log_warnx("%s: host interface %s: %s", f->name, h->name,
		    strerror(-rv));
		tap_close(fd, true);
		return (rv);
	}
	h->fd = fd;
	h->d = d;
	h->open = true;
	(void)host_mirror(d, f);
	if ((rv = tc_drop(d, f->ifindex, true)) != 0)
		lc_log_warnx("%s: tc ingress drop: %s: the kernel sees the "
			     "port's frames too",
		    f->name, strerror(-rv));
	ev_io_init(&h->io, on_host_rx, fd, EV_READ);
	h->io.data = f;
	ev_io_start(d->loop, &h->io);
	left_forget(d, h->name);
	lc_log_info("%s: host interface %s (ifindex %u) %s", f->name, h->name,
	    h->ifindex, had ? "adopted" : "created");
	return (0);
}

int
fwd_host_unhook(struct fwd_d *d, struct fwd_iface *f)
{
	struct fwd_host_if *h = &f->host;
	int rv;

	if (!h->open)
		return (-1);
	fwd_host_flush(d); /* what it holds for this TAP, before it goes */
	ev_io_stop(d->loop, &h->io);
	if (f->backend != FWD_D_BK_MEM &&
	    (rv = tc_drop(d, f->ifindex, false)) != 0)
		lc_log_warnx("%s: tc ingress drop: removing: %s", f->name,
		    strerror(-rv));
	(void)ioctl(h->fd, TUNSETPERSIST, 0);
	h->open = false;
	lc_log_info("%s: host interface %s removed", f->name, h->name);
	return (h->fd);
}

void
fwd_host_detach(struct fwd_d *d, struct fwd_iface *f)
{
	int fd = fwd_host_unhook(d, f);

	if (fd >= 0)
		close(fd);
}

void
fwd_host_sync(struct fwd_d *d, struct fwd_iface *f)
{
	int rv;

	if (!f->host_conf || !f->attached) {
		fwd_host_detach(d, f);
		return;
	}
	if (!f->host.open) {
		(void)fwd_host_attach(d, f);
		return;
	}
	if ((rv = fwd_nl_link_set(d->nl, f->host.ifindex, NULL, f->mtu, NULL,
		 true)) != 0)
		lc_log_warnx("%s: host interface %s: mtu %u: %s", f->name,
		    f->host.name, f->mtu, strerror(-rv));
	(void)host_mirror(d, f);
}

void
fwd_host_carrier(struct fwd_d *d, struct fwd_iface *f)
{
	int on = f->link_up ? 1 : 0;

	(void)d;
	if (f->host.open && ioctl(f->host.fd, TUNSETCARRIER, &on) != 0)
		lc_log_warn("%s: host interface %s: carrier", f->name,
		    f->host.name);
}
