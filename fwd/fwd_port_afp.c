/* fwd/fwd_port_afp.c: AF_PACKET port backend with TPACKET_V2 mmap RX and TX
 * rings (one sendto per TX batch). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "fwd_pkt.h"
#include "fwd_port.h"

#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif
#ifndef PACKET_LOSS
#define PACKET_LOSS 14
#endif
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define AFP_FRAME_SIZE 4096 /* holds a 2048-byte frame plus headers */
#define AFP_BLOCK_SIZE (1u << 16)
/*
 * RX ring frames by default: 4096 (16 MiB). With 1024 one TCP stream
 * through the router overflowed it (bench-tcp, 1 stream, offloads off: 7,314
 * drops and 6,736 retransmits in 2 x 4 s; with 4096: 1 and 158, 16384 no
 * better; the goodput, CPU-bound, the same). TX: 1024 (4 MiB), a burst's
 * room many times over.
 */
#define AFP_RX_FRAMES 4096
#define AFP_TX_FRAMES 1024
/* TX data offset in a TPACKET_V2 frame (no PACKET_TX_HAS_OFF). */
#define AFP_TX_DATA TPACKET_ALIGN(sizeof(struct tpacket2_hdr))

struct port_afp {
	struct fwd_port port;
	int fd;
	uint8_t *map;
	size_t map_len;
	unsigned nframes;    /* in the RX ring */
	unsigned tx_nframes; /* in the TX ring */
	uint8_t *rx_ring, *tx_ring;
	unsigned rx_head, tx_head;
	uint8_t *held;	      /* rx slot handed out, not released */
	struct fwd_pkt *desc; /* one per rx slot */
	uint64_t tx_bad;      /* frames the kernel refused */
	/*
	 * PACKET_STATISTICS tp_drops so far (they reset on read): the
	 * control thread's
	 */
	uint64_t kdrops;
};

#define PA(p) ((struct port_afp *)(void *)(p))

static struct tpacket2_hdr *
afp_frame(uint8_t *ring, unsigned i)
{
	return (
	    (struct tpacket2_hdr *)(void *)(ring + (size_t)i * AFP_FRAME_SIZE));
}

static unsigned
afp_rx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_afp *a = PA(p);
	unsigned i = 0;

	while (i < n) {
		unsigned s = a->rx_head;
		struct tpacket2_hdr *h = afp_frame(a->rx_ring, s);
		uint32_t st;
		struct fwd_pkt *d;

		if (a->held[s])
			break; /* ring full of packets still in use */
		st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(st & TP_STATUS_USER))
			break;
		a->rx_head = (s + 1) & (a->nframes - 1);
		if (__builtin_expect((st & TP_STATUS_VLAN_VALID) ||
			    h->tp_len > h->tp_snaplen ||
			    h->tp_snaplen > FWD_FRAME_MAX,
			0)) {
			/* TP_STATUS_LOSING is not a count: it stays on every
			 * frame until PACKET_STATISTICS is read; the drops
			 * are counted from there (afp_kernel_drops) */
			if (st & TP_STATUS_VLAN_VALID)
				/* the tag was stripped into tp_vlan_tci: do
				 * not forward the frame as untagged */
				p->stats.rx_vlan++;
			else
				/* over FWD_FRAME_MAX (the ring's frames hold
				 * no more): a GSO/GRO super-frame, from a
				 * local sender's TSO/GSO on a veth; never
				 * forwarded cut short */
				p->stats.rx_oversize++;
			__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
			    __ATOMIC_RELEASE);
			continue;
		}
		d = &a->desc[s];
		d->data = (uint8_t *)h + h->tp_mac;
		d->len = (uint16_t)h->tp_snaplen;
		if (__builtin_expect(st & TP_STATUS_CSUMNOTREADY, 0)) {
			/* a local sender's tx checksum offload: the L4
			 * checksum is ours to fill in (as its device would),
			 * or the receiver drops the frame */
			p->stats.rx_csum_partial++;
			(void)fwd_l4_csum_fill(d->data, d->len);
		}
		a->held[s] = 1;
		p->stats.rx_pkts++;
		p->stats.rx_bytes += d->len;
		pkts[i++] = d;
	}
	return (i);
}

static void
afp_release(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_afp *a = PA(p);

	for (unsigned i = 0; i < n; i++) {
		unsigned s = pkts[i]->slot;

		a->held[s] = 0;
		__atomic_store_n(&afp_frame(a->rx_ring, s)->tp_status,
		    TP_STATUS_KERNEL, __ATOMIC_RELEASE);
	}
}

static void
afp_kick(struct port_afp *a)
{
	/*
	 * EAGAIN leaves frames queued: the next kick sends them. Any other
	 * error is the device's (down, gone, it dropped the frame at the
	 * ring's head: ENOBUFS); the kernel keeps that frame queued too, to
	 * be sent again. A frame it cannot send at all (over the device's
	 * MTU) it skips (PACKET_LOSS) instead of stopping the ring on it:
	 * afp_tx drops those itself, counted, so they are not seen here.
	 */
	if (sendto(a->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		a->port.stats.tx_errors++;
}

static unsigned
afp_tx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_afp *a = PA(p);
	unsigned i, fmax = fwd_port_frame_max(p), queued = 0;

	for (i = 0; i < n; i++) {
		struct tpacket2_hdr *h = afp_frame(a->tx_ring, a->tx_head);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

		if (__builtin_expect(pkts[i]->len > fmax, 0)) {
			/* the kernel would refuse it (EMSGSIZE): taken and
			 * dropped here, counted */
			p->stats.tx_mtu++;
			continue;
		}
		if (st == TP_STATUS_WRONG_FORMAT) {
			/* (not with PACKET_LOSS, which skips such frames) */
			a->tx_bad++;
			p->stats.tx_refused++;
			st = TP_STATUS_AVAILABLE;
		}
		if (st != TP_STATUS_AVAILABLE)
			break; /* kernel still sending: ring full */
		memcpy((uint8_t *)h + AFP_TX_DATA, pkts[i]->data, pkts[i]->len);
		h->tp_len = pkts[i]->len;
		h->tp_snaplen = pkts[i]->len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
		    __ATOMIC_RELEASE);
		a->tx_head = (a->tx_head + 1) & (a->tx_nframes - 1);
		p->stats.tx_pkts++;
		p->stats.tx_bytes += pkts[i]->len;
		queued++;
	}
	if (queued > 0)
		afp_kick(a);
	if (i > 0)
		fwd_pkt_release(pkts, i);
	if (i < n)
		p->stats.tx_full += n - i;
	return (i);
}

static void
afp_poll_tx(struct fwd_port *p)
{
	struct port_afp *a = PA(p);
	unsigned prev = (a->tx_head - 1) & (a->tx_nframes - 1);
	uint32_t st = __atomic_load_n(&afp_frame(a->tx_ring, prev)->tp_status,
	    __ATOMIC_ACQUIRE);

	/* Frames left from an EAGAIN: ask again. */
	if (st == TP_STATUS_SEND_REQUEST)
		afp_kick(a);
}

static void
afp_free(struct fwd_port *p)
{
	struct port_afp *a = PA(p);

	if (a->map != NULL && a->map != MAP_FAILED)
		munmap(a->map, a->map_len);
	if (a->fd >= 0)
		close(a->fd);
	free(a->held);
	free(a->desc);
	free(a);
}

/* tp_drops: frames the kernel could not put in the receive ring (full, or
 * no memory for the copy); reading resets them, so they are summed here. */
static void
afp_kernel_drops(struct fwd_port *p, uint64_t *all, uint64_t *ring_full)
{
	struct port_afp *a = PA(p);
	struct tpacket_stats st;
	socklen_t l = sizeof(st);

	if (getsockopt(a->fd, SOL_PACKET, PACKET_STATISTICS, &st, &l) == 0)
		a->kdrops += st.tp_drops;
	*all = a->kdrops;
	*ring_full = a->kdrops;
}

static const struct fwd_port_ops afp_ops = {
    .rx = afp_rx,
    .tx = afp_tx,
    .release = afp_release,
    .poll_tx = afp_poll_tx,
    .free = afp_free,
    .kernel_drops = afp_kernel_drops,
    .fd = fwd_port_afp_fd,
};

static int
afp_ifinfo(const char *ifname, int *ifindex, uint8_t *mac, unsigned *mtu)
{
	struct ifreq ifr;
	int fd, rv = 0;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		rv = -errno;
		goto out;
	}
	*ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		rv = -errno;
		goto out;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
		rv = -errno;
		goto out;
	}
	*mtu = (unsigned)ifr.ifr_mtu;
out:
	close(fd);
	return (rv);
}

static int
afp_setint(int fd, int opt, int v)
{
	return (
	    setsockopt(fd, SOL_PACKET, opt, &v, sizeof(v)) < 0 ? -errno : 0);
}

struct fwd_port *
fwd_port_afp_new(const struct fwd_port_afp_conf *c)
{
	struct port_afp *a;
	struct tpacket_req req;
	struct sockaddr_ll sll;
	unsigned mtu = 1500, nf, tnf;
	size_t rx_len;
	int rv, tx_only;

	if (c == NULL || c->ifname == NULL || c->id >= FWD_PORT_MAX ||
	    strlen(c->ifname) >= IFNAMSIZ) {
		errno = EINVAL;
		return (NULL);
	}
	nf = c->ring_frames ? c->ring_frames : AFP_RX_FRAMES;
	if ((nf & (nf - 1)) != 0 || nf < AFP_BLOCK_SIZE / AFP_FRAME_SIZE) {
		errno = EINVAL;
		return (NULL);
	}
	tx_only = (c->flags & FWD_AFP_TX_ONLY) != 0;
	/* the TX ring: a burst's room is enough (what it holds is sent at
	 * once); a send-only socket receives nothing: the smallest RX ring */
	tnf = nf < AFP_TX_FRAMES ? nf : AFP_TX_FRAMES;
	if (tx_only)
		nf = AFP_BLOCK_SIZE / AFP_FRAME_SIZE;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return (NULL);
	a->fd = -1;
	a->port.ops = &afp_ops;
	a->port.id = c->id;
	strncpy(a->port.name, c->ifname, sizeof(a->port.name) - 1);
	a->nframes = nf;
	a->tx_nframes = tnf;
	a->held = calloc(nf, 1);
	a->desc = calloc(nf, sizeof(*a->desc));
	if (a->held == NULL || a->desc == NULL) {
		rv = -ENOMEM;
		goto fail;
	}
	if ((rv = afp_ifinfo(c->ifname, &a->port.ifindex, a->port.mac, &mtu)) !=
	    0)
		goto fail;
	a->port.mtu = (uint16_t)(c->mtu ?
		c->mtu :
		(mtu > FWD_FRAME_MAX - 18 ? FWD_FRAME_MAX - 18 : mtu));
	a->port.dev_mtu = (uint16_t)(mtu > 0xffff ? 0xffff : mtu);
	/*
	 * Protocol 0 receives nothing: a send-only socket for the slow path.
	 * A receiving socket also starts with protocol 0 and gets ETH_P_ALL
	 * from bind() only: created with ETH_P_ALL it would queue frames of
	 * every interface until bound (and the rebinding costs the kernel an
	 * RCU grace period, tens of ms).
	 */
	a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->fd < 0) {
		rv = -errno;
		goto fail;
	}
	if ((rv = afp_setint(a->fd, PACKET_VERSION, TPACKET_V2)) != 0 ||
	    (rv = afp_setint(a->fd, PACKET_QDISC_BYPASS, 1)) != 0)
		goto fail;
	/* a TX frame the kernel cannot send is skipped, not left at the
	 * ring's head where it stops every later one (before the rings) */
	if ((rv = afp_setint(a->fd, PACKET_LOSS, 1)) != 0)
		goto fail;
	/* Do not see our own transmissions (kernel >= 4.20). */
	if (!tx_only && (rv = afp_setint(a->fd, PACKET_IGNORE_OUTGOING, 1)))
		goto fail;
	memset(&req, 0, sizeof(req));
	req.tp_block_size = AFP_BLOCK_SIZE;
	req.tp_frame_size = AFP_FRAME_SIZE;
	req.tp_frame_nr = nf;
	req.tp_block_nr = nf / (AFP_BLOCK_SIZE / AFP_FRAME_SIZE);
	rx_len = (size_t)req.tp_block_size * req.tp_block_nr;
	if (setsockopt(a->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) <
	    0) {
		rv = -errno;
		goto fail;
	}
	req.tp_frame_nr = tnf;
	req.tp_block_nr = tnf / (AFP_BLOCK_SIZE / AFP_FRAME_SIZE);
	if (setsockopt(a->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) <
	    0) {
		rv = -errno;
		goto fail;
	}
	a->map_len = rx_len + (size_t)req.tp_block_size * req.tp_block_nr;
	a->map = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, a->fd, 0);
	if (a->map == MAP_FAILED) {
		rv = -errno;
		goto fail;
	}
	a->rx_ring = a->map;
	a->tx_ring = a->map + rx_len;
	for (unsigned i = 0; i < nf; i++) {
		a->desc[i].slot = i;
		a->desc[i].port = c->id;
		a->desc[i].owner = &a->port;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = tx_only ? 0 : htons(ETH_P_ALL);
	sll.sll_ifindex = a->port.ifindex;
	if (bind(a->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		rv = -errno;
		goto fail;
	}
	/* IPv6 multicast (ND) past the device's filter; refused (no
	 * CAP_NET_RAW on the membership, a device without the flag): the
	 * unicast side works anyway */
	if (!tx_only)
		(void)fwd_port_allmulti(a->fd, a->port.ifindex);
	if (!tx_only && c->fanout_group > 0 &&
	    (rv = afp_setint(a->fd, PACKET_FANOUT,
		 (c->fanout_group & 0xffff) | (PACKET_FANOUT_HASH << 16))) != 0)
		goto fail;
	return (&a->port);
fail:
	afp_free(&a->port);
	errno = -rv;
	return (NULL);
}

int
fwd_port_afp_fd(const struct fwd_port *p)
{
	if (p == NULL || p->ops != &afp_ops)
		return (-1);
	return (((const struct port_afp *)(const void *)p)->fd);
}

int
fwd_port_afp_offloads_off(const char *ifname)
{
	static const struct {
		uint32_t get, set;
	} feat[] = {
	    {ETHTOOL_GGRO, ETHTOOL_SGRO},
	    {ETHTOOL_GGSO, ETHTOOL_SGSO},
	    {ETHTOOL_GTSO, ETHTOOL_STSO},
	    {ETHTOOL_GTXCSUM, ETHTOOL_STXCSUM},
	    {ETHTOOL_GRXCSUM, ETHTOOL_SRXCSUM},
	};
	struct ifreq ifr;
	struct ethtool_value ev;
	int fd, rv = 0;

	if (ifname == NULL || strlen(ifname) >= IFNAMSIZ)
		return (-EINVAL);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	for (unsigned i = 0; i < sizeof(feat) / sizeof(feat[0]); i++) {
		memset(&ifr, 0, sizeof(ifr));
		strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
		ifr.ifr_data = (void *)&ev;
		ev.cmd = feat[i].get;
		ev.data = 0;
		if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
			if (errno == EOPNOTSUPP)
				continue; /* no such feature: off */
			rv = -errno;
			break;
		}
		if (ev.data == 0)
			continue;
		ev.cmd = feat[i].set;
		ev.data = 0;
		if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 && rv == 0)
			rv = -errno;
	}
	close(fd);
	return (rv);
}
