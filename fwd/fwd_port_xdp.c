/* fwd/fwd_port_xdp.c: AF_XDP port backend. A UMEM shared by the ports of a
 * worker, so forwarding moves descriptors; fill and completion rings topped
 * up in batches; need_wakeup; zero-copy asked for, copy mode as fallback. */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "libcommon/lc_embed.h"
#include "fwd_pkt.h"
#include "fwd_port_xdp.h"
#include "bpf/xdp_port.h"

_Static_assert(XP_PORTS == FWD_PORT_MAX, "xp_dev keys are port ids");

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9 /* Linux 6.17: descriptors per sendto */
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

#define XDP_FRAME_SHIFT XP_FRAME_SHIFT /* one size for both programs */
#define XDP_FRAME_SIZE	(1u << XDP_FRAME_SHIFT)
#define XDP_QUEUES_MAX	XP_XSK_QUEUES /* XSKMAP entries: queues per interface */
#define XDP_REFILL_MIN	32 /* top the fill ring up by at least this */
/* sending with BPF_PROG_RUN (XP_*: fwd/bpf/xdp_port.h) */
/* a queue this long goes in a run at once; a shorter one, when it is
 * sent, through the TX ring */
#define XP_RUN_MIN 64

struct port_xdp;

struct fwd_xdp_umem {
	uint8_t *area;
	size_t len;
	unsigned nframes;
	unsigned nfree;
	uint64_t *free;		/* stack of free frame addresses */
	struct fwd_pkt *desc;	/* one per frame */
	int reg_fd;		/* a bound socket on it (a port's); -1: none */
	struct port_xdp *ports; /* on it, linked by next */
	unsigned nports;	/* atomic: how many, for the fill shares */
	bool zerocopy; /* its mode: the sockets sharing it inherit it */
	unsigned refs;
	/* BPF_PROG_RUN sending: the memory is an array map's (map_fd), at
	 * xp_umems[run_id] */
	int map_fd, run_id;
	/* frames a freed port gave back from another thread, taken into
	 * free by the owner's next fill */
	pthread_mutex_t ret_mu;
	unsigned nret; /* atomic */
	uint64_t *ret;
};

/* The redirect program of one interface, shared by its ports. */
struct xdp_prog {
	int ifindex;
	int prog_fd, map_fd;
	int mc_fd; /* holds the device's ALLMULTI (fwd_port_allmulti); -1 */
	struct bpf_object
	    *obj; /* xdp_port.bpf.c's, sending with BPF_PROG_RUN */
	unsigned refs;
	uint32_t attach_flags;
};

static pthread_mutex_t prog_mu = PTHREAD_MUTEX_INITIALIZER;
static struct xdp_prog progs[FWD_PORT_MAX];

struct port_xdp {
	struct fwd_port port;
	int fd;
	struct fwd_xdp_umem *umem;
	struct xdp_prog *prog;
	unsigned queue;
	bool zerocopy, in_map;
	/* a virtual device (veth, tun): a local sender's frames may come
	 * with the L4 checksum left to the device (fwd_l4_csum_fill_partial) */
	bool csum_fill;
	bool busy, busy_tried; /* SO_BUSY_POLL set: rx polls with recvfrom */
	void *map[4];	       /* rx, tx, fill, comp mmaps */
	size_t map_len[4];
	struct xsk_ring_cons rx, comp;
	struct xsk_ring_prod tx, fill;
	unsigned fill_target; /* frames kept in the fill ring */
	uint64_t tx_moved, tx_copied, wakeups;
	struct port_xdp *next; /* on the UMEM */
	/* BPF_PROG_RUN sending: the send queue (xp_queues[run_slot]), its
	 * length, the run's input (metadata and template frame) */
	struct xp_queue *runq;
	int run_slot;
	unsigned run_n;
	bool run_off;	 /* the device refused a run's frames: TX ring only */
	uint64_t cookie; /* the device's namespace (SO_NETNS_COOKIE) */
	uint32_t ref_slot;
	uint64_t ref_seen, full_seen;
	uint64_t runs, run_errors, run_ringed, run_refused, run_dropped;
	uint64_t run_resent; /* of a refused run, sent again by the TX ring */
	uint8_t run_in[8 + XP_TMPL];
};

#define PX(p) ((struct port_xdp *)(void *)(p))

/* ---- sending with BPF_PROG_RUN (fwd_port_xdp_tx_run; docs/fwd.md) ---- */

/* fwd/bpf/xdp_port.bpf.c, built by fwd/module.mk (empty without clang) */
#ifdef FWD_XDP_OBJ
LC_EMBED(fwd_xdp_obj, FWD_XDP_OBJ);
#endif

/* Process-wide, set before the first port (prog_mu for the rest). */
static struct {
	bool on;
	int queues_fd, umems_fd, dev_fd, refused_fd;
	struct xp_queue *queues;	     /* the mmap-ed xp_queues */
	volatile struct xp_refused *refused; /* and xp_refused */
	struct bpf_object *watch;	     /* the tracepoint program's */
	struct bpf_link *watch_link[2];
	uint8_t slot_used[XP_SLOTS];
	uint8_t umem_used[XP_UMEMS];
} xr = {.queues_fd = -1, .umems_fd = -1, .dev_fd = -1, .refused_fd = -1};

/* ---- UMEM ---- */

/* BPF_PROG_RUN sending: the UMEM's memory is an array map's, one element
 * per frame, registered in xp_umems so that the program reads the frames
 * tern-fwd queues. MAP_FAILED and errno on failure. */
static uint8_t *
umem_run_area(struct fwd_xdp_umem *u)
{
	LIBBPF_OPTS(bpf_map_create_opts, o,
	    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	uint8_t *a;
	int id = -1, e;

	u->map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tern_umem",
	    sizeof(uint32_t), XDP_FRAME_SIZE, u->nframes, &o);
	if (u->map_fd < 0)
		return (MAP_FAILED);
	a = mmap(NULL, u->len, PROT_READ | PROT_WRITE, MAP_SHARED, u->map_fd,
	    0);
	if (a == MAP_FAILED)
		return (MAP_FAILED);
	pthread_mutex_lock(&prog_mu);
	for (int i = 0; i < XP_UMEMS && id < 0; i++)
		if (!xr.umem_used[i])
			id = i;
	if (id >= 0 &&
	    bpf_map_update_elem(xr.umems_fd, &id, &u->map_fd, 0) == 0) {
		xr.umem_used[id] = 1;
		u->run_id = id;
	}
	e = id < 0 ? ENOSPC : errno;
	pthread_mutex_unlock(&prog_mu);
	if (u->run_id < 0) {
		munmap(a, u->len);
		errno = e;
		return (MAP_FAILED);
	}
	return (a);
}

static void
umem_run_drop(struct fwd_xdp_umem *u)
{
	if (u->run_id >= 0) {
		pthread_mutex_lock(&prog_mu);
		(void)bpf_map_delete_elem(xr.umems_fd, &u->run_id);
		xr.umem_used[u->run_id] = 0;
		pthread_mutex_unlock(&prog_mu);
		u->run_id = -1;
	}
	if (u->map_fd >= 0)
		close(u->map_fd);
	u->map_fd = -1;
}

struct fwd_xdp_umem *
fwd_xdp_umem_new(unsigned nframes)
{
	struct fwd_xdp_umem *u;

	if (nframes == 0)
		nframes = 4096;
	if (nframes < 64 || nframes > (1u << 20)) {
		errno = EINVAL;
		return (NULL);
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return (NULL);
	u->reg_fd = -1;
	u->map_fd = u->run_id = -1;
	u->refs = 1;
	u->nframes = nframes;
	u->len = (size_t)nframes * XDP_FRAME_SIZE;
	if (xr.on)
		u->area = umem_run_area(u);
	else
		u->area = mmap(NULL, u->len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	u->free = calloc(nframes, sizeof(*u->free));
	u->ret = calloc(nframes, sizeof(*u->ret));
	pthread_mutex_init(&u->ret_mu, NULL);
	u->desc = calloc(nframes, sizeof(*u->desc));
	if (u->area == MAP_FAILED || u->free == NULL || u->desc == NULL ||
	    u->ret == NULL) {
		int e = errno ? errno : ENOMEM;

		if (u->area != MAP_FAILED)
			munmap(u->area, u->len);
		umem_run_drop(u);
		free(u->free);
		free(u->ret);
		free(u->desc);
		free(u);
		errno = e;
		return (NULL);
	}
	for (unsigned i = 0; i < nframes; i++) {
		u->free[i] = (uint64_t)(nframes - 1 - i) << XDP_FRAME_SHIFT;
		u->desc[i].slot = i;
	}
	u->nfree = nframes;
	return (u);
}

void
fwd_xdp_umem_put(struct fwd_xdp_umem *u)
{
	if (u == NULL || --u->refs > 0)
		return;
	munmap(u->area, u->len);
	umem_run_drop(u);
	free(u->free);
	free(u->ret);
	free(u->desc);
	pthread_mutex_destroy(&u->ret_mu);
	free(u);
}

unsigned
fwd_xdp_umem_free_frames(const struct fwd_xdp_umem *u)
{
	return (u != NULL ?
		u->nfree + __atomic_load_n(&u->nret, __ATOMIC_ACQUIRE) :
		0);
}

/* The owner's thread: take back what freed ports returned. */
static void
umem_take_returned(struct fwd_xdp_umem *u)
{
	pthread_mutex_lock(&u->ret_mu);
	memcpy(u->free + u->nfree, u->ret, u->nret * sizeof(*u->ret));
	u->nfree += u->nret;
	__atomic_store_n(&u->nret, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&u->ret_mu);
}

static inline void
umem_free_addr(struct fwd_xdp_umem *u, uint64_t addr)
{
	u->free[u->nfree++] = addr & ~(uint64_t)(XDP_FRAME_SIZE - 1);
}

/* ---- the redirect program: XSKMAP[rx_queue_index], else XDP_PASS ---- */

static int
prog_load(int map_fd)
{
	struct bpf_insn insn[] = {
	    /* r2 = ctx->rx_queue_index */
	    {.code = BPF_LDX | BPF_W | BPF_MEM,
		.dst_reg = BPF_REG_2,
		.src_reg = BPF_REG_1,
		.off = offsetof(struct xdp_md, rx_queue_index)},
	    /* r1 = the XSKMAP */
	    {.code = BPF_LD | BPF_DW | BPF_IMM,
		.dst_reg = BPF_REG_1,
		.src_reg = BPF_PSEUDO_MAP_FD,
		.imm = map_fd},
	    {.code = 0},
	    /* r3 = XDP_PASS: the action when the queue has no socket */
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K,
		.dst_reg = BPF_REG_3,
		.imm = XDP_PASS},
	    {.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map},
	    {.code = BPF_JMP | BPF_EXIT},
	};

	return (bpf_prog_load(BPF_PROG_TYPE_XDP, "tern_xsk", "GPL", insn,
	    sizeof(insn) / sizeof(insn[0]), NULL));
}

#ifdef FWD_XDP_OBJ
/* The embedded object, opened with the process's maps (xr) in place of its
 * own but xsks, with its XDP program (watch false) or its tracepoint
 * programs (true) to load. NULL and errno on failure. */
static struct bpf_object *
xp_open_obj(bool watch)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "tern_xdp_port");
	const char *names[] = {"xp_queues", "xp_umems", "xp_dev", "xp_refused"};
	int fds[] = {xr.queues_fd, xr.umems_fd, xr.dev_fd, xr.refused_fd};
	struct bpf_object *o;
	struct bpf_program *prog;
	struct bpf_map *m;

	o = bpf_object__open_mem(fwd_xdp_obj,
	    (size_t)(fwd_xdp_obj_end - fwd_xdp_obj), &oo);
	if (o == NULL)
		return (NULL);
	for (unsigned i = 0; i < 4; i++)
		if ((m = bpf_object__find_map_by_name(o, names[i])) == NULL ||
		    bpf_map__reuse_fd(m, fds[i]) != 0)
			goto fail;
	bpf_object__for_each_program(prog, o)
	{
		bool tp = bpf_program__type(prog) == BPF_PROG_TYPE_TRACING;

		if (bpf_program__set_autoload(prog, tp == watch) != 0)
			goto fail;
	}
	return (o);
fail:
	bpf_object__close(o);
	errno = EINVAL;
	return (NULL);
}
#endif

/* BPF_PROG_RUN sending: the embedded program (receiving and sending), its
 * xsks map its own, the other maps the process's (xr). 0 or -errno. */
static int
prog_load_run(struct xdp_prog *g)
{
#ifndef FWD_XDP_OBJ
	(void)g;
	return (-EOPNOTSUPP);
#else
	struct bpf_program *prog;
	struct bpf_map *m;

	if ((g->obj = xp_open_obj(false)) == NULL)
		return (-errno);
	if (bpf_object__load(g->obj) != 0)
		return (-errno);
	if ((prog = bpf_object__find_program_by_name(g->obj,
		 "tern_xdp_port")) == NULL ||
	    (m = bpf_object__find_map_by_name(g->obj, "xsks")) == NULL)
		return (-EINVAL);
	g->prog_fd = bpf_program__fd(prog);
	g->map_fd = bpf_map__fd(m);
	return (0);
#endif
}

static void
prog_drop(struct xdp_prog *g)
{
	if (g->mc_fd > 0)
		close(g->mc_fd);
	if (g->ifindex != 0 && g->attach_flags != 0)
		(void)bpf_xdp_detach(g->ifindex, g->attach_flags, NULL);
	if (g->obj != NULL)
		bpf_object__close(g->obj); /* its program and maps */
	else {
		if (g->prog_fd >= 0)
			close(g->prog_fd);
		if (g->map_fd >= 0)
			close(g->map_fd);
	}
	memset(g, 0, sizeof(*g));
}

/* The program of ifindex, loaded and attached on first use. */
static int
prog_get(int ifindex, bool generic, struct xdp_prog **out)
{
	struct xdp_prog *g = NULL;
	int rv = 0;

	pthread_mutex_lock(&prog_mu);
	for (unsigned i = 0; i < FWD_PORT_MAX; i++)
		if (progs[i].refs > 0 && progs[i].ifindex == ifindex) {
			g = &progs[i];
			g->refs++;
			goto out;
		}
	for (unsigned i = 0; i < FWD_PORT_MAX && g == NULL; i++)
		if (progs[i].refs == 0)
			g = &progs[i];
	if (g == NULL) {
		rv = -ENOSPC;
		goto out;
	}
	memset(g, 0, sizeof(*g));
	g->prog_fd = g->map_fd = g->mc_fd = -1;
	if (xr.on) {
		if ((rv = prog_load_run(g)) != 0)
			goto fail;
	} else {
		g->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "tern_xsks",
		    sizeof(int), sizeof(int), XDP_QUEUES_MAX, NULL);
		if (g->map_fd < 0) {
			rv = g->map_fd;
			goto fail;
		}
		if ((g->prog_fd = prog_load(g->map_fd)) < 0) {
			rv = g->prog_fd;
			goto fail;
		}
	}
	/* Native mode first (veth has it), generic when the driver has no
	 * XDP. Replaces a program left by an earlier run. */
	rv = -EOPNOTSUPP;
	if (!generic)
		rv = bpf_xdp_attach(ifindex, g->prog_fd, XDP_FLAGS_DRV_MODE,
		    NULL);
	if (rv == 0)
		g->attach_flags = XDP_FLAGS_DRV_MODE;
	else if ((rv = bpf_xdp_attach(ifindex, g->prog_fd, XDP_FLAGS_SKB_MODE,
		      NULL)) == 0)
		g->attach_flags = XDP_FLAGS_SKB_MODE;
	else
		goto fail;
	g->ifindex = ifindex;
	g->refs = 1;
	/* IPv6 multicast (ND) past the device's filter: the program passes
	 * every frame to the sockets; not fatal when refused */
	g->mc_fd = fwd_port_allmulti(-1, ifindex);
	goto out;
fail:
	prog_drop(g);
	g = NULL;
out:
	pthread_mutex_unlock(&prog_mu);
	*out = g;
	return (rv);
}

static void
prog_put(struct xdp_prog *g)
{
	pthread_mutex_lock(&prog_mu);
	if (--g->refs == 0)
		prog_drop(g);
	pthread_mutex_unlock(&prog_mu);
}

/* ---- rings ---- */

static void
fill_topup(struct port_xdp *x)
{
	struct fwd_xdp_umem *u = x->umem;
	uint32_t have = x->fill.size - xsk_prod_nb_free(&x->fill, x->fill.size);
	uint32_t want, idx, target = x->fill_target;
	unsigned np;

	if (__builtin_expect(__atomic_load_n(&u->nret, __ATOMIC_RELAXED), 0))
		umem_take_returned(u);
	/* every port on the UMEM gets its share of the fill frames: with
	 * 2048-entry rings two ports' targets would take them all, and a
	 * third port would never receive */
	np = __atomic_load_n(&u->nports, __ATOMIC_RELAXED);
	if (np > 1 && target > (u->nframes - u->nframes / 16) / np)
		target = (u->nframes - u->nframes / 16) / np;
	if (have >= target)
		return;
	want = target - have;
	if (want < XDP_REFILL_MIN && have > 0)
		return; /* wait for a batch */
	/* keep a reserve for frames copied in by tx */
	if (want + u->nframes / 16 > u->nfree)
		want = u->nfree > u->nframes / 16 ? u->nfree - u->nframes / 16 :
						    0;
	if (want == 0 || xsk_ring_prod__reserve(&x->fill, want, &idx) != want)
		return;
	for (uint32_t i = 0; i < want; i++)
		*xsk_ring_prod__fill_addr(&x->fill,
		    idx + i) = u->free[--u->nfree];
	xsk_ring_prod__submit(&x->fill, want);
}

static void
comp_reap(struct port_xdp *x)
{
	uint32_t idx, n = xsk_ring_cons__peek(&x->comp, x->comp.size, &idx);

	for (uint32_t i = 0; i < n; i++)
		umem_free_addr(x->umem,
		    *xsk_ring_cons__comp_addr(&x->comp, idx + i));
	if (n > 0)
		xsk_ring_cons__release(&x->comp, n);
}

static void
xdp_kick(struct port_xdp *x)
{
	/*
	 * EAGAIN/ENOBUFS leave descriptors queued: poll_tx asks again. In copy
	 * mode EBUSY is a frame the device dropped (its descriptor completed,
	 * not sent: NET_XMIT_DROP); another error is the device's (down,
	 * gone), its descriptors stay queued.
	 */
	if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS &&
	    errno != EINTR) {
		if (errno == EBUSY && !x->zerocopy)
			x->port.stats.tx_refused++;
		else
			x->port.stats.tx_errors++;
	}
	x->wakeups++;
}

static unsigned
xdp_rx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_xdp *x = PX(p);
	struct fwd_xdp_umem *u = x->umem;
	uint32_t idx, got;

	uint32_t kept = 0;

	got = xsk_ring_cons__peek(&x->rx, n, &idx);
	for (uint32_t i = 0; i < got; i++) {
		const struct xdp_desc *r = xsk_ring_cons__rx_desc(&x->rx,
		    idx + i);
		struct fwd_pkt *d = &u->desc[r->addr >> XDP_FRAME_SHIFT];

		d->data = u->area + r->addr;
		if (__builtin_expect(r->len > FWD_FRAME_MAX, 0)) {
			/* never forwarded cut short (a jumbo frame on a
			 * device whose MTU is over what fwd handles) */
			p->stats.rx_oversize++;
			umem_free_addr(u, r->addr);
			continue;
		}
		d->len = (uint16_t)r->len;
		d->port = p->id;
		d->owner = p;
		if (x->csum_fill &&
		    __builtin_expect(fwd_l4_csum_fill_partial(d->data, d->len),
			0))
			p->stats.rx_csum_partial++;
		p->stats.rx_bytes += d->len;
		pkts[kept++] = d;
	}
	if (got > 0) {
		xsk_ring_cons__release(&x->rx, got);
		p->stats.rx_pkts += kept;
	}
	fill_topup(x);
	/*
	 * Empty: busy-polling, recvfrom runs the device's NAPI (its XDP
	 * program, the copy into our frames) in this thread; zero-copy, it
	 * wakes the driver when it asks. In copy mode without busy-polling
	 * it would do nothing (the kernel fills the rx ring from the XDP
	 * redirect, need_wakeup flag or not): no system call.
	 */
	if (got == 0 &&
	    (x->busy ||
		(x->zerocopy && xsk_ring_prod__needs_wakeup(&x->fill)))) {
		(void)recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		x->wakeups++;
	}
	return (kept);
}

static void
xdp_release(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct fwd_xdp_umem *u = PX(p)->umem;

	for (unsigned i = 0; i < n; i++)
		umem_free_addr(u, (uint64_t)pkts[i]->slot << XDP_FRAME_SHIFT);
}

static const struct fwd_port_ops xdp_ops;

/*
 * BPF_PROG_RUN sending: one run of the port's program over the queue (the
 * program copies each frame out of the UMEM and redirects it; the kernel
 * flushes the redirects per run), then the frames are free again; what the
 * egress device refused is read after (run_check).
 */
/* A short queue through the socket's TX ring (one sendto): below
 * XP_RUN_MIN a run's fixed cost (the kernel sets up and tears down a page
 * pool per run, about 15 us here) weighs more than the sendto's socket
 * buffers, and latency suffers. The frames come back on the completion ring. false: the ring
 * is too full, send with a run. */
static bool
run_ring(struct port_xdp *x)
{
	struct xp_queue *q = x->runq;
	uint32_t idx;

	comp_reap(x);
	if (xsk_prod_nb_free(&x->tx, x->run_n) < x->run_n ||
	    xsk_ring_prod__reserve(&x->tx, x->run_n, &idx) != x->run_n)
		return (false);
	for (unsigned i = 0; i < x->run_n; i++) {
		struct xdp_desc *t = xsk_ring_prod__tx_desc(&x->tx, idx + i);

		t->addr = q->d[i].off;
		t->len = q->d[i].len;
		t->options = 0;
	}
	xsk_ring_prod__submit(&x->tx, x->run_n);
	xdp_kick(x);
	x->run_ringed += x->run_n;
	x->run_n = 0;
	x->port.tx_held = false;
	return (true);
}

/* The port's device's slot of xp_refused, NULL while the slot counts for
 * another device (or none yet). */
static inline volatile struct xp_refused *
run_refused(const struct port_xdp *x)
{
	volatile struct xp_refused *r = &xr.refused[x->ref_slot];

	return (r->cookie == x->cookie && r->ifindex == (__u32)x->port.ifindex ?
		r :
		NULL);
}

/* After a run: frames the device dropped (the flush happened in the run,
 * the tracepoint program counted them). Refused with an error: the device
 * does not take XDP frames, the port sends through its TX ring from now
 * on; the count refused in this run is returned (run_send sends them again
 * by the ring). Dropped because the device's queue was full: counted as
 * the port's drops. Read from memory shared with the program: no system
 * call. */
static uint64_t
run_check(struct port_xdp *x)
{
	volatile struct xp_refused *r = run_refused(x);
	uint64_t refused, full, k = 0;

	if (r == NULL)
		return (0);
	refused = r->refused;
	full = r->full;
	if (full != x->full_seen) {
		/* a slot taken over restarts at 0 */
		uint64_t k = full > x->full_seen ? full - x->full_seen : full;

		x->run_dropped += k;
		x->port.stats.tx_refused += k;
		x->full_seen = full;
	}
	if (refused != x->ref_seen) {
		k = refused > x->ref_seen ? refused - x->ref_seen : refused;
		x->run_refused += k;
		x->ref_seen = refused;
		x->run_off = true;
	}
	return (k);
}

static void
run_send(struct port_xdp *x)
{
	struct fwd_xdp_umem *u = x->umem;
	struct xp_queue *q = x->runq;
	struct xdp_md md = {.data = 8, .data_end = 8 + XP_TMPL};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = x->run_in,
	    .data_size_in = sizeof(x->run_in), .ctx_in = &md,
	    .ctx_size_in = sizeof(md), .repeat = x->run_n,
	    .batch_size = x->run_n, .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	unsigned n = x->run_n;
	uint64_t refused;

	if (n == 0 || (n < XP_RUN_MIN && run_ring(x)))
		return;
	q->next = 0;
	q->umem = (uint32_t)u->run_id;
	x->runs++;
	if (bpf_prog_test_run_opts(x->prog->prog_fd, &o) != 0) {
		/* nothing went: the system call failed (counted) */
		x->run_errors += n;
		refused = n;
	} else {
		refused = run_check(x);
	}
	/*
	 * A device refuses a run whole (it takes no XDP frames: veth with no
	 * NAPI on its peer), and the frames are still ours here: they go
	 * again through the TX ring, counted run_resent, not lost. Part of a
	 * run cannot be told apart from what went: dropped, counted.
	 */
	if (refused >= n && run_ring(x)) {
		x->run_resent += n;
		x->run_ringed -= n; /* run_ring counted them as short */
		return;
	}
	x->port.stats.tx_refused += refused;
	for (unsigned i = 0; i < n; i++)
		umem_free_addr(u, q->d[i].off);
	x->run_n = 0;
	x->port.tx_held = false;
}

/* The UMEM address tx sends k from: k's own frame when k is a frame of this
 * UMEM (the descriptor moves), else a free frame k is copied into (k is
 * added to copied, released here every FWD_BURST and by the caller after).
 * UINT64_MAX: no free frame. */
static inline uint64_t
tx_addr(struct port_xdp *x, struct fwd_pkt *k, struct fwd_pkt **copied,
    unsigned *ncopied)
{
	struct fwd_xdp_umem *u = x->umem;
	uint64_t a;

	if (k->owner != NULL && k->owner->ops == &xdp_ops &&
	    PX(k->owner)->umem == u) {
		x->tx_moved++;
		return ((uint64_t)(k->data - u->area));
	}
	if (u->nfree == 0)
		return (UINT64_MAX);
	a = u->free[--u->nfree];
	memcpy(u->area + a, k->data, k->len);
	copied[(*ncopied)++] = k;
	if (*ncopied == FWD_BURST) {
		fwd_pkt_release(copied, *ncopied);
		*ncopied = 0;
	}
	x->tx_copied++;
	return (a);
}

/* Queue for the next run: descriptors of the UMEM's frames (a frame from
 * elsewhere is copied into a free one first). A long queue goes at once,
 * a shorter one when the worker's turn was light (fwd_worker_poll). */
static unsigned
xdp_tx_run(struct port_xdp *x, struct fwd_pkt **pkts, unsigned n)
{
	struct fwd_port *p = &x->port;
	struct xp_queue *q = x->runq;
	unsigned i, j, want = n, ncopied = 0, fmax = fwd_port_frame_max(p);
	struct fwd_pkt *copied[FWD_BURST];

	comp_reap(x); /* what run_ring sent */
	if (n > XP_QUEUE_MAX - x->run_n)
		run_send(x);
	if (n > XP_QUEUE_MAX - x->run_n)
		n = XP_QUEUE_MAX - x->run_n;
	for (i = 0, j = 0; i < n; i++) {
		struct fwd_pkt *k = pkts[i];
		struct xp_desc *d = &q->d[x->run_n + j];
		uint64_t a;

		if (__builtin_expect(k->len > fmax, 0)) {
			/* the device would drop it: taken, dropped, counted */
			p->stats.tx_mtu++;
			fwd_pkt_release(&k, 1);
			continue;
		}
		if ((a = tx_addr(x, k, copied, &ncopied)) == UINT64_MAX)
			break;
		d->off = (uint32_t)a;
		d->len = k->len;
		d->port = p->id;
		p->stats.tx_bytes += k->len;
		j++;
	}
	x->run_n += j;
	p->stats.tx_pkts += j;
	p->tx_held = x->run_n > 0;
	if (ncopied > 0)
		fwd_pkt_release(copied, ncopied);
	p->stats.tx_full += want - i;
	if (x->run_n >= XP_RUN_MIN)
		run_send(x);
	return (i);
}

static unsigned
xdp_tx(struct fwd_port *p, struct fwd_pkt **pkts, unsigned n)
{
	struct port_xdp *x = PX(p);
	uint32_t idx, room;
	unsigned i, j, want = n, ncopied = 0, fmax = fwd_port_frame_max(p);
	struct fwd_pkt *copied[FWD_BURST];

	if (x->runq != NULL && !x->run_off)
		return (xdp_tx_run(x, pkts, n));
	comp_reap(x);
	if ((room = xsk_prod_nb_free(&x->tx, n)) < n)
		n = room;
	if (n == 0 || xsk_ring_prod__reserve(&x->tx, n, &idx) != n) {
		p->stats.tx_full += want;
		return (0);
	}
	for (i = 0, j = 0; i < n; i++) {
		struct fwd_pkt *k = pkts[i];
		struct xdp_desc *t = xsk_ring_prod__tx_desc(&x->tx, idx + j);

		if (__builtin_expect(k->len > fmax, 0)) {
			/* the device would drop it: taken, dropped, counted */
			p->stats.tx_mtu++;
			fwd_pkt_release(&k, 1);
			continue;
		}
		/* ours: the descriptor moves, the frame comes back on the
		 * completion ring */
		if ((t->addr = tx_addr(x, k, copied, &ncopied)) == UINT64_MAX)
			break;
		t->len = k->len;
		t->options = 0;
		p->stats.tx_bytes += k->len;
		j++;
	}
	if (j < n) {
		/* out of frames, or some dropped: give the unused
		 * reservations back */
		x->tx.cached_prod -= n - j;
	}
	if (j > 0) {
		xsk_ring_prod__submit(&x->tx, j);
		p->stats.tx_pkts += j;
		/* copy mode sends only from sendto; zero-copy when asked */
		if (!x->zerocopy || xsk_ring_prod__needs_wakeup(&x->tx))
			xdp_kick(x);
	}
	if (ncopied > 0)
		fwd_pkt_release(copied, ncopied);
	p->stats.tx_full += want - i;
	return (i);
}

static void
xdp_poll_tx(struct fwd_port *p)
{
	struct port_xdp *x = PX(p);

	if (x->runq != NULL && !x->run_off) {
		run_send(x);
		comp_reap(x); /* what earlier short queues sent */
		fill_topup(x);
		return;
	}
	comp_reap(x);
	/* descriptors the kernel has not taken yet (copy mode sends at most
	 * a budget per sendto) */
	if (*x->tx.consumer != *x->tx.producer)
		xdp_kick(x);
	fill_topup(x);
}

static void
xdp_close(struct port_xdp *x)
{
	for (unsigned i = 0; i < 4; i++)
		if (x->map[i] != NULL && x->map[i] != MAP_FAILED)
			munmap(x->map[i], x->map_len[i]);
	memset(x->map, 0, sizeof(x->map));
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

/*
 * Copy mode, out of the XSKMAP: the kernel no longer fills the rx ring
 * (after the redirects in flight, hence the pause) and sends only on
 * sendto, so the frames in the fill ring, the unread rx ring, the unsent tx
 * ring and the completion ring go back to the UMEM, through its return list
 * (the worker that owns it may be running). Zero-copy: the driver holds
 * fill frames until the socket is gone; those stay lost.
 */
static void
xdp_reclaim(struct port_xdp *x)
{
	struct fwd_xdp_umem *u = x->umem;
	uint32_t a, b;

	if (x->zerocopy || x->map[0] == NULL || x->map[3] == NULL)
		return;
	usleep(2000);
	pthread_mutex_lock(&u->ret_mu);
	/* queued for a run that will not come */
	for (unsigned i = 0; x->runq != NULL && i < x->run_n; i++)
		u->ret[u->nret++] = x->runq->d[i].off &
		    ~(uint64_t)(XDP_FRAME_SIZE - 1);
	if (x->runq != NULL)
		x->run_n = 0;
	a = __atomic_load_n(x->fill.consumer, __ATOMIC_ACQUIRE);
	for (b = *x->fill.producer; a != b; a++)
		u->ret[u->nret++] = *xsk_ring_prod__fill_addr(&x->fill, a) &
		    ~(uint64_t)(XDP_FRAME_SIZE - 1);
	a = *x->rx.consumer;
	for (b = __atomic_load_n(x->rx.producer, __ATOMIC_ACQUIRE); a != b; a++)
		u->ret[u->nret++] = xsk_ring_cons__rx_desc(&x->rx, a)->addr &
		    ~(uint64_t)(XDP_FRAME_SIZE - 1);
	a = __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE);
	for (b = *x->tx.producer; a != b; a++)
		u->ret[u->nret++] = xsk_ring_prod__tx_desc(&x->tx, a)->addr &
		    ~(uint64_t)(XDP_FRAME_SIZE - 1);
	a = *x->comp.consumer;
	for (b = __atomic_load_n(x->comp.producer, __ATOMIC_ACQUIRE); a != b;
	     a++)
		u->ret[u->nret++] = *xsk_ring_cons__comp_addr(&x->comp, a) &
		    ~(uint64_t)(XDP_FRAME_SIZE - 1);
	pthread_mutex_unlock(&u->ret_mu);
}

static void
xdp_free(struct fwd_port *p)
{
	struct port_xdp *x = PX(p);

	if (x->in_map) {
		struct fwd_xdp_umem *u = x->umem;
		struct port_xdp **pp = &u->ports;

		(void)bpf_map_delete_elem(x->prog->map_fd, &x->queue);
		xdp_reclaim(x);
		while (*pp != x)
			pp = &(*pp)->next;
		*pp = x->next;
		__atomic_sub_fetch(&u->nports, 1, __ATOMIC_RELAXED);
		/* the sockets left keep the kernel's UMEM: the next port
		 * shares it through one of them; none left, it registers
		 * the memory again */
		if (u->reg_fd == x->fd)
			u->reg_fd = u->ports != NULL ? u->ports->fd : -1;
	}
	/* frames held by the caller come back through release, which only
	 * needs the UMEM (a shared one lives as long as its worker) */
	xdp_close(x);
	if (x->runq != NULL) {
		pthread_mutex_lock(&prog_mu);
		xr.slot_used[x->run_slot] = 0;
		pthread_mutex_unlock(&prog_mu);
	}
	if (x->prog != NULL)
		prog_put(x->prog);
	fwd_xdp_umem_put(x->umem);
	free(x);
}

/* XDP_STATISTICS (cumulative): rx_dropped (no fill frame, frame too big)
 * and rx_ring_full, both frames the XDP program redirected to us that the
 * socket could not take. */
static void
xdp_kernel_drops(struct fwd_port *p, uint64_t *all, uint64_t *ring_full)
{
	const struct port_xdp *x = (const struct port_xdp *)(const void *)p;
	struct xdp_statistics st;
	socklen_t l = sizeof(st);

	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &l) != 0)
		return;
	*all = st.rx_dropped + st.rx_ring_full;
	*ring_full = st.rx_ring_full;
}

static const struct fwd_port_ops xdp_ops = {
    .rx = xdp_rx,
    .tx = xdp_tx,
    .release = xdp_release,
    .poll_tx = xdp_poll_tx,
    .free = xdp_free,
    .kernel_drops = xdp_kernel_drops,
    .fd = fwd_port_xdp_fd,
    .busy_poll = fwd_port_xdp_busy_poll,
};

static int
setint(int fd, int opt, unsigned v)
{
	return (setsockopt(fd, SOL_XDP, opt, &v, sizeof(v)) < 0 ? -errno : 0);
}

static int
ring_map(struct port_xdp *x, unsigned k, const struct xdp_ring_offset *o,
    off_t pgoff, size_t esz, unsigned size, void *ring)
{
	struct xsk_ring_prod *r = ring; /* same layout as xsk_ring_cons */
	uint8_t *m;

	x->map_len[k] = o->desc + (size_t)size * esz;
	m = mmap(NULL, x->map_len[k], PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, x->fd, pgoff);
	if (m == MAP_FAILED) {
		x->map[k] = NULL;
		return (-errno);
	}
	x->map[k] = m;
	r->mask = size - 1;
	r->size = size;
	r->producer = (uint32_t *)(void *)(m + o->producer);
	r->consumer = (uint32_t *)(void *)(m + o->consumer);
	r->flags = (uint32_t *)(void *)(m + o->flags);
	r->ring = m + o->desc;
	r->cached_prod = *r->producer;
	r->cached_cons = *r->consumer;
	return (0);
}

/* One socket: rings, bind with bind_flags. 0 or -errno. */
static int
xdp_open(struct port_xdp *x, unsigned ring, uint16_t bind_flags)
{
	struct fwd_xdp_umem *u = x->umem;
	struct xdp_mmap_offsets off;
	struct sockaddr_xdp sxdp;
	socklen_t ol = sizeof(off);
	int rv;

	if ((x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	if (u->reg_fd < 0) {
		struct xdp_umem_reg mr;

		memset(&mr, 0, sizeof(mr));
		mr.addr = (uint64_t)(uintptr_t)u->area;
		mr.len = u->len;
		mr.chunk_size = XDP_FRAME_SIZE;
		if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) <
		    0)
			return (-errno);
	}
	if ((rv = setint(x->fd, XDP_UMEM_FILL_RING, 2 * ring)) != 0 ||
	    (rv = setint(x->fd, XDP_UMEM_COMPLETION_RING, 2 * ring)) != 0 ||
	    (rv = setint(x->fd, XDP_RX_RING, ring)) != 0 ||
	    (rv = setint(x->fd, XDP_TX_RING, ring)) != 0)
		return (rv);
	/* copy mode: up to a whole tx ring per sendto instead of 32 (Linux
	 * 6.17; older kernels refuse, and send 32 at a time) */
	(void)setint(x->fd, XDP_MAX_TX_SKB_BUDGET, ring);
	if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol) < 0)
		return (-errno);
	if ((rv = ring_map(x, 0, &off.rx, XDP_PGOFF_RX_RING,
		 sizeof(struct xdp_desc), ring, &x->rx)) != 0 ||
	    (rv = ring_map(x, 1, &off.tx, XDP_PGOFF_TX_RING,
		 sizeof(struct xdp_desc), ring, &x->tx)) != 0 ||
	    (rv = ring_map(x, 2, &off.fr, XDP_UMEM_PGOFF_FILL_RING,
		 sizeof(uint64_t), 2 * ring, &x->fill)) != 0 ||
	    (rv = ring_map(x, 3, &off.cr, XDP_UMEM_PGOFF_COMPLETION_RING,
		 sizeof(uint64_t), 2 * ring, &x->comp)) != 0)
		return (rv);
	/* producer rings: cached_cons runs one ring ahead (see xsk.h) */
	x->tx.cached_cons += ring;
	x->fill.cached_cons += 2 * ring;
	memset(&sxdp, 0, sizeof(sxdp));
	sxdp.sxdp_family = AF_XDP;
	sxdp.sxdp_ifindex = (uint32_t)x->port.ifindex;
	sxdp.sxdp_queue_id = x->queue;
	sxdp.sxdp_flags = bind_flags;
	if (u->reg_fd >= 0) {
		/* no mode flags allowed: the UMEM's owner decided */
		sxdp.sxdp_flags = XDP_SHARED_UMEM;
		sxdp.sxdp_shared_umem_fd = (uint32_t)u->reg_fd;
	}
	/* EBUSY: the queue's previous socket is still being released (the
	 * kernel frees its buffer pool from a work queue): wait a little */
	for (unsigned i = 0;; i++) {
		if (bind(x->fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) == 0)
			return (0);
		if (errno != EBUSY || i >= 200)
			return (-errno);
		usleep(5000);
	}
}

static int
ifinfo(const char *ifname, int *ifindex, uint8_t *mac, unsigned *mtu,
    bool *virt)
{
	struct ifreq ifr;
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	int fd, rv = 0;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		rv = -errno;
	else {
		*ifindex = ifr.ifr_ifindex;
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
			rv = -errno;
		else {
			memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
			if (ioctl(fd, SIOCGIFMTU, &ifr) < 0)
				rv = -errno;
			else
				*mtu = (unsigned)ifr.ifr_mtu;
		}
	}
	/* veth and tun/tap: devices whose frames can come from a local
	 * sender as it left them, L4 checksum included (CHECKSUM_PARTIAL);
	 * a NIC's come off the wire */
	ifr.ifr_data = (void *)&di;
	*virt = rv == 0 && ioctl(fd, SIOCETHTOOL, &ifr) == 0 &&
	    (strcmp(di.driver, "veth") == 0 || strcmp(di.driver, "tun") == 0);
	close(fd);
	return (rv);
}

/* BPF_PROG_RUN sending: a send queue for the port, and the port's device
 * in xp_dev under its id. 0 or -errno. */
static int
run_open(struct port_xdp *x)
{
	uint32_t id = x->port.id, ifx = (uint32_t)x->port.ifindex;
	uint32_t meta[2] = {XP_MAGIC, 0};
	int slot = -1, rv = 0;

	pthread_mutex_lock(&prog_mu);
	for (int i = 0; i < XP_SLOTS && slot < 0; i++)
		if (!xr.slot_used[i])
			slot = i;
	if (slot < 0)
		rv = -ENOSPC;
	else if (bpf_map_update_elem(xr.dev_fd, &id, &ifx, 0) != 0)
		rv = -errno;
	else
		xr.slot_used[slot] = 1;
	pthread_mutex_unlock(&prog_mu);
	if (rv != 0)
		return (rv);
	x->run_slot = slot;
	{
		socklen_t l = sizeof(x->cookie);

		if (getsockopt(x->fd, SOL_SOCKET, SO_NETNS_COOKIE, &x->cookie,
			&l) != 0) {
			rv = -errno;
			pthread_mutex_lock(&prog_mu);
			xr.slot_used[slot] = 0;
			pthread_mutex_unlock(&prog_mu);
			return (rv);
		}
	}
	x->ref_slot = xp_slot(x->cookie, ifx);
	/* drops counted before this port are not its */
	{
		volatile struct xp_refused *r = run_refused(x);

		if (r != NULL) {
			x->ref_seen = r->refused;
			x->full_seen = r->full;
		}
	}
	x->runq = &xr.queues[slot];
	meta[1] = (uint32_t)slot;
	memset(x->run_in, 0, sizeof(x->run_in));
	memcpy(x->run_in, meta, sizeof(meta));
	return (0);
}

struct fwd_port *
fwd_port_xdp_new(const struct fwd_port_xdp_conf *c)
{
	struct port_xdp *x;
	unsigned ring, mtu = 1500;
	int rv, fd;

	if (c == NULL || c->ifname == NULL || c->id >= FWD_PORT_MAX ||
	    strlen(c->ifname) >= IFNAMSIZ || c->queue >= XDP_QUEUES_MAX) {
		errno = EINVAL;
		return (NULL);
	}
	ring = c->ring ? c->ring : 1024;
	if ((ring & (ring - 1)) != 0 || ring < 64 || ring > 16384) {
		errno = EINVAL;
		return (NULL);
	}
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return (NULL);
	x->fd = -1;
	x->port.ops = &xdp_ops;
	x->port.id = c->id;
	x->queue = c->queue;
	strncpy(x->port.name, c->ifname, sizeof(x->port.name) - 1);
	if (c->umem != NULL) {
		x->umem = c->umem;
		x->umem->refs++;
	} else if ((x->umem = fwd_xdp_umem_new(4 * ring)) == NULL) {
		rv = -errno;
		goto fail;
	}
	if ((rv = ifinfo(c->ifname, &x->port.ifindex, x->port.mac, &mtu,
		 &x->csum_fill)) != 0)
		goto fail;
	x->port.mtu = (uint16_t)(c->mtu ?
		c->mtu :
		(mtu > FWD_FRAME_MAX - 18 ? FWD_FRAME_MAX - 18 : mtu));
	x->port.dev_mtu = (uint16_t)(mtu > 0xffff ? 0xffff : mtu);
	if ((rv = prog_get(x->port.ifindex, (c->flags & FWD_XDP_GENERIC) != 0,
		 &x->prog)) != 0)
		goto fail;
	rv = -EOPNOTSUPP;
	if (x->umem->reg_fd >= 0) {
		/* shares a UMEM: its mode is the UMEM owner's */
		if ((rv = xdp_open(x, ring, 0)) != 0)
			goto fail;
		x->zerocopy = x->umem->zerocopy;
	} else if (!(c->flags & FWD_XDP_COPY) &&
	    x->prog->attach_flags == XDP_FLAGS_DRV_MODE) {
		rv = xdp_open(x, ring, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP);
		x->zerocopy = rv == 0;
	}
	if (rv != 0) {
		/* no zero-copy here (veth: EOPNOTSUPP): a fresh socket in
		 * copy mode */
		xdp_close(x);
		if ((rv = xdp_open(x, ring, XDP_COPY | XDP_USE_NEED_WAKEUP)) !=
		    0)
			goto fail;
	}
	fd = x->fd;
	if (bpf_map_update_elem(x->prog->map_fd, &x->queue, &fd, 0) != 0) {
		rv = -errno;
		goto fail;
	}
	x->in_map = true;
	if (xr.on && !x->zerocopy && x->umem->run_id >= 0 &&
	    (rv = run_open(x)) != 0)
		goto fail;
	x->next = x->umem->ports;
	x->umem->ports = x;
	__atomic_add_fetch(&x->umem->nports, 1, __ATOMIC_RELAXED);
	if (x->umem->reg_fd < 0) {
		x->umem->reg_fd = x->fd;
		x->umem->zerocopy = x->zerocopy;
	}
	/* a share of the UMEM in the fill ring, the rest for tx and held */
	x->fill_target = 2 * ring;
	if (x->fill_target > x->umem->nframes / 2)
		x->fill_target = x->umem->nframes / 2;
	/* a shared UMEM belongs to its worker's thread: the first rx fills */
	if (c->umem == NULL)
		fill_topup(x);
	return (&x->port);
fail:
	xdp_free(&x->port);
	errno = -rv;
	return (NULL);
}

const char *
fwd_port_xdp_mode(const struct fwd_port *p)
{
	const struct port_xdp *x = (const struct port_xdp *)(const void *)p;

	if (p == NULL || p->ops != &xdp_ops)
		return (NULL);
	if (x->prog->attach_flags == XDP_FLAGS_SKB_MODE)
		return (x->runq != NULL && !x->run_off ? "xdp-generic/run" :
							 "xdp-generic");
	if (x->zerocopy)
		return ("xdp-zerocopy");
	if (x->runq != NULL && x->run_off)
		return ("xdp-copy (run refused)");
	return (x->runq != NULL ? "xdp-copy/run" : "xdp-copy");
}

int
fwd_port_xdp_busy_poll(struct fwd_port *p, unsigned us, unsigned budget)
{
	struct port_xdp *x = PX(p);
	int one = 1, v, rv = 0;

	if (p == NULL || p->ops != &xdp_ops || us == 0 || us > INT32_MAX ||
	    budget == 0 || budget > UINT16_MAX)
		return (-EINVAL);
	if (x->busy_tried)
		return (0);
	x->busy_tried = true;
	v = (int)us;
	if (setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) < 0)
		return (-errno);
	x->busy = true;
	if (setsockopt(x->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
		sizeof(one)) < 0)
		rv = -errno;
	v = (int)budget;
	if (setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &v, sizeof(v)) <
		0 &&
	    rv == 0)
		rv = -errno;
	return (rv);
}

int
fwd_port_xdp_fd(const struct fwd_port *p)
{
	if (p == NULL || p->ops != &xdp_ops)
		return (-1);
	return (((const struct port_xdp *)(const void *)p)->fd);
}

int
fwd_port_xdp_stats(const struct fwd_port *p, struct fwd_port_xdp_stats *s)
{
	const struct port_xdp *x = (const struct port_xdp *)(const void *)p;
	struct xdp_statistics st;
	socklen_t l = sizeof(st);

	if (p == NULL || p->ops != &xdp_ops || s == NULL)
		return (-EINVAL);
	memset(s, 0, sizeof(*s));
	s->tx_moved = x->tx_moved;
	s->tx_copied = x->tx_copied;
	s->wakeups = x->wakeups;
	s->runs = x->runs;
	s->run_errors = x->run_errors;
	s->run_ringed = x->run_ringed;
	s->run_refused = x->run_refused;
	s->run_resent = x->run_resent;
	s->run_dropped = x->run_dropped;
	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &l) < 0)
		return (-errno);
	s->rx_dropped = st.rx_dropped;
	s->rx_ring_full = st.rx_ring_full;
	s->fill_empty = st.rx_fill_ring_empty_descs;
	s->tx_invalid = st.tx_invalid_descs;
	return (0);
}

int
fwd_port_xdp_queues(const char *ifname)
{
	struct ethtool_channels ch;
	struct ifreq ifr;
	int fd, rv;

	if (ifname == NULL || strlen(ifname) >= IFNAMSIZ)
		return (-EINVAL);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	memset(&ifr, 0, sizeof(ifr));
	memset(&ch, 0, sizeof(ch));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ch.cmd = ETHTOOL_GCHANNELS;
	ifr.ifr_data = (void *)&ch;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		rv = -errno;
	else
		rv = (int)(ch.rx_count + ch.combined_count);
	close(fd);
	return (rv);
}

int
fwd_port_xdp_tx_run(void)
{
#ifndef FWD_XDP_OBJ
	return (-EOPNOTSUPP);
#else
	LIBBPF_OPTS(bpf_map_create_opts, io,
	    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, oo);
	LIBBPF_OPTS(bpf_map_create_opts, qo, .map_flags = BPF_F_MMAPABLE);
	size_t qlen = (size_t)XP_SLOTS * sizeof(struct xp_queue);
	int inner = -1, rv = 0;

	if (fwd_xdp_obj_end - fwd_xdp_obj == 0)
		return (-EOPNOTSUPP); /* built without clang */
	pthread_mutex_lock(&prog_mu);
	if (xr.on)
		goto out;
	for (unsigned i = 0; i < FWD_PORT_MAX; i++)
		if (progs[i].refs > 0) {
			rv = -EBUSY; /* before the first port only */
			goto out;
		}
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tern_umem0",
	    sizeof(uint32_t), XDP_FRAME_SIZE, 64, &io);
	oo.inner_map_fd = inner;
	if (inner < 0 ||
	    (xr.umems_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS,
		 "tern_xp_umems", sizeof(uint32_t), sizeof(uint32_t), XP_UMEMS,
		 &oo)) < 0 ||
	    (xr.queues_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tern_xp_queues",
		 sizeof(uint32_t), sizeof(struct xp_queue), XP_SLOTS, &qo)) <
		0 ||
	    (xr.dev_fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP, "tern_xp_dev",
		 sizeof(uint32_t), sizeof(uint32_t), FWD_PORT_MAX, NULL)) < 0) {
		rv = -errno;
		goto fail;
	}
	xr.queues = mmap(NULL, qlen, PROT_READ | PROT_WRITE, MAP_SHARED,
	    xr.queues_fd, 0);
	if (xr.queues == MAP_FAILED) {
		rv = -errno;
		xr.queues = NULL;
		goto fail;
	}
	if ((xr.refused_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY,
		 "tern_xp_refused", sizeof(uint32_t), sizeof(struct xp_refused),
		 XP_IFX, &qo)) < 0 ||
	    (xr.refused = mmap(NULL, XP_IFX * sizeof(struct xp_refused),
		 PROT_READ | PROT_WRITE, MAP_SHARED, xr.refused_fd, 0)) ==
		MAP_FAILED) {
		rv = -errno;
		xr.refused = NULL;
		goto fail;
	}
	/* the watch over refused frames: without it a device that does not
	 * take XDP frames would lose every run unseen */
	if ((xr.watch = xp_open_obj(true)) == NULL ||
	    bpf_object__load(xr.watch) != 0) {
		rv = errno ? -errno : -EINVAL;
		goto fail;
	}
	for (unsigned i = 0; i < 2; i++)
		if ((xr.watch_link[i] = bpf_program__attach(
			 bpf_object__find_program_by_name(xr.watch,
			     i == 0 ? "tern_xp_watch" :
				      "tern_xp_watch_redirect"))) == NULL) {
			rv = errno ? -errno : -EINVAL;
			goto fail;
		}
	xr.on = true;
	goto out;
fail:
	for (unsigned i = 0; i < 2; i++) {
		if (xr.watch_link[i] != NULL)
			bpf_link__destroy(xr.watch_link[i]);
		xr.watch_link[i] = NULL;
	}
	if (xr.watch != NULL)
		bpf_object__close(xr.watch);
	xr.watch = NULL;
	if (xr.queues != NULL)
		munmap(xr.queues, qlen);
	xr.queues = NULL;
	if (xr.refused != NULL)
		munmap((void *)xr.refused, XP_IFX * sizeof(struct xp_refused));
	xr.refused = NULL;
	for (int *f = &xr.queues_fd; f <= &xr.refused_fd; f++)
		if (*f >= 0) {
			close(*f);
			*f = -1;
		}
out:
	if (inner >= 0)
		close(inner);
	pthread_mutex_unlock(&prog_mu);
	return (rv);
#endif
}

bool
fwd_port_xdp_tx_running(void)
{
	return (xr.on);
}
