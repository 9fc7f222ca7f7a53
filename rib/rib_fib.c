/* rib/rib_fib.c: FIB download: the export queue, batches with sequence numbers, acks, water marks, re-push and resync. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_err.h"
#include "rib_int.h"

/*
 * Per prefix rib keeps three fib-group ids: want (selection's result), sent
 * (last emitted) and acked (what fwd confirmed). A prefix whose want changes
 * is queued once (RIB_DF_QUEUED); rib_fib_flush() turns queued prefixes with
 * want != sent into deltas, so changes made while the queue waits (fwd slow,
 * at the high water mark) are merged. Each emitted delta is recorded with the
 * group it set until the ack of its batch moves it into acked.
 */

#define RIB_QUEUE_KEEP 65536 /* queue capacity kept when it empties */

void
rib_fib_enqueue(struct rib *rib, uint32_t di)
{
	struct rib_dest *d = rib_dest(rib, di);

	if (d->flags & RIB_DF_QUEUED)
		return;
	/* A dest not queued would never reach the FIB: no way to go on. */
	if (rib_vec_push(&rib->queue, di) != 0)
		lc_oom("rib FIB queue");
	d->flags |= RIB_DF_QUEUED;
}

void
rib_fib_set_cb(struct rib *rib, rib_fib_fn fn, void *arg)
{
	rib->cb = fn;
	rib->cbarg = arg;
}

static int
rib_fe_push(struct rib *rib, uint32_t di, uint32_t fg)
{
	if (rib->fe_n == rib->fe_cap) {
		if (rib->fe_head > 0) {
			memmove(rib->fe, rib->fe + rib->fe_head,
			    (rib->fe_n - rib->fe_head) * sizeof(*rib->fe));
			rib->fe_n -= rib->fe_head;
			rib->fe_head = 0;
		}
		if (rib->fe_n == rib->fe_cap) {
			size_t nc = rib->fe_cap ? rib->fe_cap * 2 : 1024;
			struct rib_fentry *nf = realloc(rib->fe,
			    nc * sizeof(*nf));

			if (nf == NULL)
				return (-ENOMEM);
			rib->fe = nf;
			rib->fe_cap = nc;
		}
	}
	rib->fe[rib->fe_n].dest = di;
	rib->fe[rib->fe_n].fg = fg;
	rib->fe_n++;
	return (0);
}

static int
rib_fb_push(struct rib *rib, uint64_t seq, uint32_t n)
{
	if (rib->fb_n == rib->fb_cap) {
		if (rib->fb_head > 0) {
			memmove(rib->fb, rib->fb + rib->fb_head,
			    (rib->fb_n - rib->fb_head) * sizeof(*rib->fb));
			rib->fb_n -= rib->fb_head;
			rib->fb_head = 0;
		}
		if (rib->fb_n == rib->fb_cap) {
			uint32_t nc = rib->fb_cap ? rib->fb_cap * 2 : 64;
			struct rib_fbatch *nb = realloc(rib->fb,
			    nc * sizeof(*nb));

			if (nb == NULL)
				return (-ENOMEM);
			rib->fb = nb;
			rib->fb_cap = nc;
		}
	}
	rib->fb[rib->fb_n].seq = seq;
	rib->fb[rib->fb_n].n = n;
	rib->fb_n++;
	return (0);
}

static void
rib_fib_delta_fill(const struct rib *rib, const struct rib_dest *d, uint32_t fg,
    struct rib_fib_delta *o)
{
	memset(o, 0, sizeof(*o));
	o->pfx = rib_dest_pfx(d);
	if (d->flags & RIB_DF_V6) {
		o->family = AF_INET6;
		o->pfx6 = rib_dest_pfx6(rib, d);
	}
	o->type = RIB_RT_UNICAST;
	if (fg == RIB_FG_BLACKHOLE)
		o->type = RIB_RT_BLACKHOLE;
	else if (fg == RIB_FG_REJECT)
		o->type = RIB_RT_REJECT;
	else if (fg != RIB_FG_NONE) {
		const struct rib_fibgrp *g = rib_fg(rib, fg);

		o->n_nh = g->n;
		o->nh = g->hop;
	}
}

/* take back the last k deltas (the callback refused the batch) */
static void
rib_fib_takeback(struct rib *rib, unsigned k)
{
	for (unsigned j = 0; j < k; j++) {
		struct rib_fentry *e = &rib->fe[rib->fe_n - k + j];
		struct rib_dest *d = rib_dest(rib, e->dest);

		rib_fg_unref(rib, d->sent); /* the sent reference */
		rib_fg_unref(rib, e->fg);   /* the entry's */
		d->sent = rib->oscratch[j]; /* keeps its reference */
		d->inflight--;
		rib_fib_enqueue(rib, e->dest);
	}
	rib->fe_n -= k;
}

long
rib_fib_flush(struct rib *rib)
{
	struct rib_vec *q = &rib->queue;
	long total = 0;

	if (rib->cb == NULL || rib->syncing)
		return (0);
	while (!rib_vec_empty(q) && !rib->blocked) {
		size_t room = rib->conf.fib_high_water - rib->inflight;
		unsigned max = rib->conf.fib_batch_max, k = 0;
		uint64_t seq;
		int rv;

		if (room < max)
			max = (unsigned)room;
		while (q->head < q->n && k < max) {
			uint32_t di = q->v[q->head];
			struct rib_dest *d = rib_dest(rib, di);

			if ((d->flags & RIB_DF_V6) && !rib->fib_v6) {
				/* held back: rib_fib_set_v6() queues it */
				q->head++;
				d->flags &= ~RIB_DF_QUEUED;
				rib_dest_gc(rib, di);
				continue;
			}
			if (d->want != d->sent && d->inflight == UINT16_MAX)
				break; /* wait for acks */
			if (d->want != d->sent &&
			    rib_fe_push(rib, di, d->want) != 0)
				break; /* ENOMEM: try again next flush */
			q->head++;
			d->flags &= ~RIB_DF_QUEUED;
			if (d->want == d->sent) {
				rib_dest_gc(rib, di);
				continue;
			}
			rib_fg_ref(rib, d->want); /* the entry's */
			rib_fib_delta_fill(rib, d, d->want, &rib->dscratch[k]);
			rib->dscratch[k].op = d->sent == RIB_FG_NONE ?
			    RIB_FIB_ADD :
			    d->want == RIB_FG_NONE ? RIB_FIB_DELETE :
						     RIB_FIB_REPLACE;
			rib->oscratch[k] = d->sent;
			rib_fg_ref(rib, d->want); /* sent's */
			d->sent = d->want;
			d->inflight++;
			k++;
		}
		if (q->head == q->n) {
			q->head = q->n = 0;
			if (q->cap > RIB_QUEUE_KEEP) {
				/* a full-table load is over: give back its
				 * 4 bytes per prefix */
				rib_vec_fini(q);
			}
		}
		if (k == 0)
			break;
		seq = rib->seq_sent + 1;
		if ((rv = rib_fb_push(rib, seq, k)) == 0 &&
		    (rv = rib->cb(rib->cbarg, seq, rib->dscratch, k)) != 0)
			rib->fb_n--;
		if (rv != 0) {
			rib_fib_takeback(rib, k);
			return (rv);
		}
		for (unsigned j = 0; j < k; j++)
			rib_fg_unref(rib, rib->oscratch[j]);
		rib->seq_sent = seq;
		rib->inflight += k;
		rib->batches++;
		rib->deltas += k;
		total += k;
		if (rib->inflight >= rib->conf.fib_high_water)
			rib->blocked = true;
	}
	return (total);
}

static void
rib_dest_set_acked(struct rib *rib, struct rib_dest *d, uint32_t fg)
{
	if (d->acked == RIB_FG_NONE && fg != RIB_FG_NONE)
		rib->n_acked++;
	else if (d->acked != RIB_FG_NONE && fg == RIB_FG_NONE)
		rib->n_acked--;
	rib_fg_unref(rib, d->acked);
	d->acked = fg; /* takes the caller's reference */
}

int
rib_fib_ack(struct rib *rib, uint64_t seq)
{
	if (seq > rib->seq_sent)
		return (-ERANGE);
	if (seq <= rib->seq_acked)
		return (0);
	while (rib->fb_head < rib->fb_n && rib->fb[rib->fb_head].seq <= seq) {
		struct rib_fbatch *b = &rib->fb[rib->fb_head++];

		for (uint32_t j = 0; j < b->n; j++) {
			struct rib_fentry *e = &rib->fe[rib->fe_head++];
			struct rib_dest *d = rib_dest(rib, e->dest);

			rib_dest_set_acked(rib, d, e->fg);
			d->inflight--;
			rib_dest_gc(rib, e->dest);
		}
		rib->inflight -= b->n;
	}
	if (rib->fb_head == rib->fb_n)
		rib->fb_head = rib->fb_n = 0;
	if (rib->fe_head == rib->fe_n) {
		rib->fe_head = rib->fe_n = 0;
		if (rib->fe_cap > RIB_QUEUE_KEEP) {
			/* a full-table load is over: give back its window */
			free(rib->fe);
			rib->fe = NULL;
			rib->fe_cap = 0;
		}
	}
	rib->seq_acked = seq;
	if (rib->blocked && rib->inflight <= rib->conf.fib_low_water)
		rib->blocked = false;
	return (0);
}

/* forget in flight and what fwd holds; requeue=true: queue every wanted */
static long
rib_fib_reset(struct rib *rib, bool requeue)
{
	long n = 0;

	for (size_t i = rib->fe_head; i < rib->fe_n; i++) {
		rib_dest(rib, rib->fe[i].dest)->inflight--;
		rib_fg_unref(rib, rib->fe[i].fg);
	}
	rib->fe_head = rib->fe_n = 0;
	rib->fb_head = rib->fb_n = 0;
	rib->inflight = 0;
	rib->blocked = false;
	rib->seq_acked = rib->seq_sent; /* late acks of the old fwd: no-ops */
	for (uint32_t di = rib_ipool_next(&rib->dests, 0); di != RIB_NIL;
	     di = rib_ipool_next(&rib->dests, di)) {
		struct rib_dest *d = rib_dest(rib, di);

		rib_fg_unref(rib, d->sent);
		d->sent = RIB_FG_NONE;
		rib_dest_set_acked(rib, d, RIB_FG_NONE);
		if (requeue && d->want != RIB_FG_NONE) {
			rib_fib_enqueue(rib, di);
			n++;
		} else
			rib_dest_gc(rib, di);
	}
	return (n);
}

void
rib_fib_set_v6(struct rib *rib, bool on)
{
	if (on == rib->fib_v6)
		return;
	rib->fib_v6 = on;
	if (!on)
		return; /* fwd's state is reset by the new session anyway */
	for (uint32_t di = rib_ipool_next(&rib->dests, 0); di != RIB_NIL;
	     di = rib_ipool_next(&rib->dests, di)) {
		const struct rib_dest *d = rib_dest(rib, di);

		if ((d->flags & RIB_DF_V6) && d->want != d->sent)
			rib_fib_enqueue(rib, di);
	}
}

long
rib_fib_repush(struct rib *rib)
{
	return (rib_fib_reset(rib, true));
}

int
rib_fib_sync_begin(struct rib *rib)
{
	rib_fib_reset(rib, false);
	rib->syncing = true;
	return (0);
}

int
rib_fib_sync_load(struct rib *rib, const struct rib_fib_delta *e, size_t n,
    struct lc_err *err)
{
	struct rib_nexthop h[RIB_NH_MAX];
	size_t n6 = 0;
	int rv;

	if (!rib->syncing)
		return (lc_err_set(err, -EINVAL, -1, "not resyncing"));
	if (n > RIB_BATCH_MAX)
		return (lc_err_set(err, -E2BIG, -1, "%zu entries > %d", n,
		    RIB_BATCH_MAX));
	for (size_t i = 0; i < n; i++) {
		uint32_t a = ntohl(e[i].pfx.addr.s_addr);

		if (e[i].family == AF_INET6) {
			struct lc_ip6 m = rib_ip6_mask(&e[i].pfx6.addr,
			    e[i].pfx6.len, false);

			if (e[i].pfx6.len > 128 ||
			    memcmp(&m, &e[i].pfx6.addr, sizeof(m)) != 0)
				return (lc_err_set(err, -EINVAL, (long)i,
				    "entry %zu: invalid prefix %s", i,
				    lc_prefix6_ntoa(&e[i].pfx6)));
			n6++;
		} else if (e[i].pfx.len > 32 ||
		    (a & ~lc_prefix4_mask(e[i].pfx.len)))
			return (lc_err_set(err, -EINVAL, (long)i,
			    "entry %zu: invalid prefix %s/%u", i,
			    lc_ip4_ntoa(e[i].pfx.addr), e[i].pfx.len));
		if (e[i].type > RIB_RT_REJECT ||
		    (e[i].type == RIB_RT_UNICAST &&
			(e[i].n_nh == 0 || e[i].n_nh > RIB_NH_MAX ||
			    e[i].nh == NULL)) ||
		    (e[i].type != RIB_RT_UNICAST && e[i].n_nh != 0))
			return (lc_err_set(err, -EINVAL, (long)i,
			    "entry %zu: bad type or next hops", i));
		for (unsigned j = 0; j < e[i].n_nh; j++)
			if (e[i].nh[j].ifindex == 0 ||
			    e[i].nh[j].ifindex > RIB_IFINDEX_MAX)
				return (lc_err_set(err, -EINVAL, (long)i,
				    "entry %zu: FIB next hop without interface",
				    i));
	}
	if ((rv = rib_table_reserve(rib, n)) != 0 ||
	    (n6 > 0 && (rv = rib_table_reserve6(rib, n6)) != 0))
		return (lc_err_set(err, rv, -1, "out of memory"));
	for (size_t i = 0; i < n; i++) {
		uint32_t di = e[i].family == AF_INET6 ?
		    rib_dest6_get(rib, &e[i].pfx6.addr, e[i].pfx6.len) :
		    rib_dest_get(rib, ntohl(e[i].pfx.addr.s_addr),
			e[i].pfx.len);
		struct rib_dest *d = rib_dest(rib, di);
		uint32_t fg;

		if (e[i].n_nh > 0)
			memcpy(h, e[i].nh, e[i].n_nh * sizeof(*h));
		/* exactly what fwd holds, even wider than our ECMP width */
		fg = rib_fg_intern(rib, e[i].type, h, e[i].n_nh, RIB_NH_MAX);
		if (fg == RIB_FG_NONE && e[i].type == RIB_RT_UNICAST) {
			rib_dest_gc(rib, di);
			return (
			    lc_err_set(err, -ENOMEM, (long)i, "out of memory"));
		}
		rib_fg_unref(rib, d->sent);
		d->sent = fg;
		rib_fg_ref(rib, fg);
		rib_dest_set_acked(rib, d, fg);
	}
	return (0);
}

long
rib_fib_sync_end(struct rib *rib)
{
	long n = 0;

	rib->syncing = false;
	for (uint32_t di = rib_ipool_next(&rib->dests, 0); di != RIB_NIL;
	     di = rib_ipool_next(&rib->dests, di)) {
		struct rib_dest *d = rib_dest(rib, di);

		if (d->want != d->sent) {
			rib_fib_enqueue(rib, di);
			n++;
		} else
			rib_dest_gc(rib, di);
	}
	return (n);
}

void
rib_fib_stats(const struct rib *rib, struct rib_fib_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->seq_sent = rib->seq_sent;
	s->seq_acked = rib->seq_acked;
	s->inflight = rib->inflight;
	s->queued = rib->queue.n - rib->queue.head;
	s->blocked = rib->blocked;
	s->syncing = rib->syncing;
	s->want = rib->n_want;
	s->acked = rib->n_acked;
	s->batches = rib->batches;
	s->deltas = rib->deltas;
	s->want6 = rib->n_want6;
	if (!rib->fib_v6)
		s->v6_held = rib->n_want6;
}

long
rib_fib_walk(const struct rib *rib, enum rib_fib_view view, rib_fib_entry_fn fn,
    void *arg)
{
	struct rib_fib_delta e;
	long n = 0;
	int rv;

	for (uint32_t di = rib_ipool_next(&rib->dests, 0); di != RIB_NIL;
	     di = rib_ipool_next(&rib->dests, di)) {
		const struct rib_dest *d = rib_dest(rib, di);
		uint32_t fg = view == RIB_FIB_ACKED ? d->acked : d->want;

		if (fg == RIB_FG_NONE)
			continue;
		rib_fib_delta_fill(rib, d, fg, &e);
		e.op = RIB_FIB_ADD;
		n++;
		if ((rv = fn(arg, &e)) != 0)
			return (rv);
	}
	return (n);
}

void
rib_fib_fini(struct rib *rib)
{
	free(rib->fe);
	free(rib->fb);
	rib->fe = NULL;
	rib->fb = NULL;
}
