/* ipc/ipc_route.c: the route codec's records and decoders: RouteBatch and FibBatch, message and packed forms, into one array of route records in apply order (the encoders are in ipc_route_enc.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc_int.h"
#include "ipc/ipc_route.h"
#include "libcommon/lc_buf.h"

#define P4 IPC_ROUTE_PACKED4
#define P6 IPC_ROUTE_PACKED6

/* ---- sets ------------------------------------------------------------------ */

int
ipc_route_grow(struct lc_arena *ar, void **p, size_t *cap, size_t need,
    size_t elem)
{
	size_t nc = *cap ? *cap : 64;
	void *np;

	if (ar == NULL)
		return (lc_array_grow(p, cap, need, elem));
	if (need <= *cap)
		return (0);
	while (nc < need)
		nc *= 2;
	if ((np = lc_arena_alloc(ar, nc * elem)) == NULL)
		return (-ENOMEM);
	if (*cap != 0)
		memcpy(np, *p, *cap * elem);
	*p = np;
	*cap = nc;
	return (0);
}

void
ipc_route_set_init(struct ipc_route_set *s)
{
	memset(s, 0, sizeof(*s));
}

void
ipc_route_set_init_arena(struct ipc_route_set *s, struct lc_arena *ar)
{
	memset(s, 0, sizeof(*s));
	s->ar = ar;
}

void
ipc_route_set_fini(struct ipc_route_set *s)
{
	if (s->ar == NULL) {
		free(s->rt);
		free(s->nh);
	}
	memset(s, 0, sizeof(*s));
}

void
ipc_route_set_clear(struct ipc_route_set *s)
{
	s->n = 0;
	s->nnh = 0;
	if (s->ar != NULL) {
		/* the arena may have been reset since: take new storage */
		s->rt = NULL;
		s->nh = NULL;
		s->cap = s->capnh = 0;
	}
}

int
ipc_route_set_reserve(struct ipc_route_set *s, size_t n, size_t nnh)
{
	if (ipc_route_grow(s->ar, (void **)&s->rt, &s->cap, s->n + n + 1,
		sizeof(*s->rt)) != 0 ||
	    ipc_route_grow(s->ar, (void **)&s->nh, &s->capnh, s->nnh + nnh + 1,
		sizeof(*s->nh)) != 0)
		return (-ENOMEM);
	return (0);
}

struct ipc_route *
ipc_route_set_add(struct ipc_route_set *s, unsigned n_nh)
{
	struct ipc_route *r;

	if (ipc_route_set_reserve(s, 1, n_nh) != 0)
		return (NULL);
	r = &s->rt[s->n++];
	memset(r, 0, sizeof(*r));
	r->family = AF_INET;
	r->nh = (uint32_t)s->nnh;
	r->n_nh = (uint16_t)n_nh;
	memset(&s->nh[s->nnh], 0, n_nh * sizeof(*s->nh));
	for (unsigned i = 0; i < n_nh; i++)
		s->nh[s->nnh + i].family = AF_INET;
	s->nnh += n_nh;
	return (r);
}

/* An address of a packed record (rec bytes): a constant-size copy per
 * family, so no memcpy call in the per-route loops. */
static inline void
addr_get(union ipc_addr *a, const uint8_t *p, size_t rec)
{
	if (rec == P4)
		memcpy(&a->v4, p, 4);
	else
		memcpy(&a->v6, p, 16);
}

/* ---- checks shared by the decoders ----------------------------------------- */

static inline bool
host_bits4(uint32_t a, unsigned len)
{
	return ((ntohl(a) & ~lc_prefix4_mask(len)) != 0);
}

static bool
host_bits6(const struct lc_ip6 *a, unsigned len)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = len >= 8 * (i + 1) ? 8 :
		    len > 8 * i			   ? len - 8 * i :
						     0;

		if ((a->b[i] & (uint8_t) ~(0xff00u >> keep)) != 0)
			return (true);
	}
	return (false);
}

/* A record's prefix: the length and host bits (the messages rib always gave). */
static int
pfx_bad(const struct ipc_route *r, size_t k, struct lc_err *err)
{
	char pb[LC_IP6_STRLEN];

	if (r->family == AF_INET) {
		if (r->len > 32)
			return (lc_err_set(err, -EINVAL, (long)k,
			    "entry %zu: prefix length %u is over 32", k,
			    r->len));
		if (host_bits4(r->pfx.v4.s_addr, r->len))
			return (lc_err_set(err, -EINVAL, (long)k,
			    "entry %zu: prefix %s/%u has host bits set", k,
			    lc_ip4_str(&r->pfx.v4, pb), r->len));
		return (0);
	}
	if (r->len > 128)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: prefix length %u is over 128", k, r->len));
	if (host_bits6(&r->pfx.v6, r->len))
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: prefix %s/%u has host bits set", k,
		    lc_ip6_str(&r->pfx.v6, pb), r->len));
	return (0);
}

/* The common case without a call: an IPv4 prefix with no host bits. */
static inline int
pfx_check(const struct ipc_route *r, size_t k, struct lc_err *err)
{
	if (r->family == AF_INET && r->len <= 32 &&
	    !host_bits4(r->pfx.v4.s_addr, r->len))
		return (0);
	return (pfx_bad(r, k, err));
}

/* The prefix fields of a message: IPv4, or IPv6 in prefix6. */
static int
msg_pfx(struct ipc_route *r, uint32_t prefix, uint32_t len,
    const ProtobufCBinaryData *p6, size_t k, struct lc_err *err)
{
	r->family = AF_INET;
	if (p6->len != 0) {
		if (p6->len != 16 || prefix != 0)
			return (lc_err_set(err, -EINVAL, (long)k,
			    "entry %zu: prefix6 of %zu bytes (16, with prefix "
			    "0)",
			    k, p6->len));
		r->family = AF_INET6;
		memcpy(r->pfx.v6.b, p6->data, 16);
	} else {
		r->pfx.v4.s_addr = prefix;
	}
	if (len > 255)
		len = 255; /* over any family's limit all the same */
	r->len = (uint8_t)len;
	return (0);
}

/* The next-hop arrays of a message route, parallel (an empty one is absent
 * in rib.Route; fwd.FibRoute wants address and ifindex): appended to the
 * set's table. */
struct nh_arrays {
	size_t n_addr, n_addr6, n_ifindex, n_ifname;
	const uint32_t *addr, *ifindex;
	const ProtobufCBinaryData *addr6;
	char *const *ifname;
};

static int
msg_nh(struct ipc_route_set *s, struct ipc_route *r, const struct nh_arrays *a,
    bool strict, size_t k, struct lc_err *err)
{
	size_t n = a->n_addr > a->n_addr6 ? a->n_addr : a->n_addr6;

	if (a->n_ifindex > n)
		n = a->n_ifindex;
	if (a->n_ifname > n)
		n = a->n_ifname;
	if (a->n_addr != 0 && a->n_addr6 != 0)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: nh_addr and nh_addr6 together (a route's next "
		    "hops are of one family)",
		    k));
	if ((a->n_addr != 0 && a->n_addr != n) ||
	    (a->n_addr6 != 0 && a->n_addr6 != n) ||
	    ((a->n_ifindex != 0 || strict) && a->n_ifindex != n) ||
	    (a->n_ifname != 0 && a->n_ifname != n) ||
	    (strict && n != 0 && a->n_addr + a->n_addr6 == 0))
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: nh_addr, nh_ifindex and nh_ifname must be "
		    "parallel arrays",
		    k));
	if (n > UINT16_MAX)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: %zu next hops", k, n));
	r->nh = (uint32_t)s->nnh;
	r->n_nh = (uint16_t)n;
	for (size_t i = 0; i < n; i++) {
		struct ipc_route_nh *h = &s->nh[s->nnh++];

		memset(h, 0, sizeof(*h));
		h->family = a->n_addr6 != 0 ? AF_INET6 :
		    a->n_addr != 0	    ? AF_INET :
					      r->family;
		if (a->n_addr6 != 0) {
			if (a->addr6[i].len != 16)
				return (lc_err_set(err, -EINVAL, (long)k,
				    "entry %zu: nh_addr6 %zu of %zu bytes (16)",
				    k, i, a->addr6[i].len));
			memcpy(h->addr.v6.b, a->addr6[i].data, 16);
		} else if (a->n_addr != 0) {
			h->addr.v4.s_addr = a->addr[i];
		}
		if (a->n_ifindex != 0)
			h->ifindex = a->ifindex[i];
		if (a->n_ifname != 0)
			h->ifname = a->ifname[i];
	}
	return (0);
}

/* A packed next-hop table into the set's: 8 or 20-byte records. */
static void
packed_nh(struct ipc_route_set *s, const ProtobufCBinaryData *t, size_t rec)
{
	size_t n = t->len / rec;
	const uint8_t *p = t->data;

	for (size_t i = 0; i < n; i++, p += rec) {
		struct ipc_route_nh *h = &s->nh[s->nnh++];
		uint32_t x;

		memset(h, 0, sizeof(*h));
		h->family = rec == P4 ? AF_INET : AF_INET6;
		addr_get(&h->addr, p, rec);
		memcpy(&x, p + rec - 4, 4);
		h->ifindex = ntohl(x);
	}
}

/* A packed record's prefix and length (family from its size). */
static inline void
packed_pfx(struct ipc_route *r, const uint8_t *p, size_t rec)
{
	memset(&r->pfx, 0, sizeof(r->pfx));
	addr_get(&r->pfx, p, rec);
	r->len = p[rec - 4];
	r->family = rec == P4 ? AF_INET : AF_INET6;
	r->nh = 0;
	r->n_nh = 0;
	r->metric = 0;
	r->tag = 0;
	r->kind = IPC_ROUTE_UNICAST;
	r->distance = 0;
}

static int
tables_check(const ProtobufCBinaryData *t4, const ProtobufCBinaryData *t6,
    struct lc_err *err)
{
	if (t4->len % P4 != 0 || t4->len / P4 > IPC_ROUTE_PACKED_NH_MAX)
		return (lc_err_set(err, -EINVAL, -1,
		    "packed_nh: %zu bytes is not a table of at most %u 8-byte "
		    "next hops",
		    t4->len, IPC_ROUTE_PACKED_NH_MAX));
	if (t6->len % P6 != 0 || t6->len / P6 > IPC_ROUTE_PACKED_NH_MAX)
		return (lc_err_set(err, -EINVAL, -1,
		    "packed6_nh: %zu bytes is not a table of at most %u "
		    "20-byte next hops",
		    t6->len, IPC_ROUTE_PACKED_NH_MAX));
	return (0);
}

static int
records_check(const ProtobufCBinaryData *a4, const ProtobufCBinaryData *d4,
    const ProtobufCBinaryData *a6, const ProtobufCBinaryData *d6,
    struct lc_err *err)
{
	if (a4->len % P4 != 0 || d4->len % P4 != 0)
		return (lc_err_set(err, -EINVAL, -1,
		    "packed_add/packed_del of %zu/%zu bytes: not 8-byte records",
		    a4->len, d4->len));
	if (a6->len % P6 != 0 || d6->len % P6 != 0)
		return (lc_err_set(err, -EINVAL, -1,
		    "packed6_add/packed6_del of %zu/%zu bytes: not 20-byte "
		    "records",
		    a6->len, d6->len));
	return (0);
}

/* Message deletes (lifecycle.Prefix) as records. strict: the first bad one
 * fails the whole (RouteBatch); else it becomes IPC_ROUTE_BAD (FibBatch). */
static void fib_bad(struct ipc_route *, struct lc_err *, const struct lc_err *);

static int
msg_dels(struct ipc_route_set *s, Lifecycle__Prefix *const *del, size_t n,
    bool strict, struct lc_err *err)
{
	struct lc_err e;

	for (size_t i = 0; i < n; i++) {
		size_t k = s->n++;
		struct ipc_route *r = &s->rt[k];

		memset(r, 0, sizeof(*r));
		r->op = IPC_ROUTE_DEL;
		if (msg_pfx(r, del[i]->prefix, del[i]->len, &del[i]->prefix6, k,
			&e) == 0 &&
		    pfx_check(r, k, &e) == 0)
			continue;
		if (strict) {
			*err = e;
			return (e.code);
		}
		fib_bad(r, err, &e);
	}
	return (0);
}

/* ---- RouteBatch -> set ------------------------------------------------------- */

size_t
ipc_route_batch_count(const Rib__RouteBatch *b)
{
	return (b->n_add + b->n_replace + b->n_del + b->packed_add.len / P4 +
	    b->packed_del.len / P4 + b->packed6_add.len / P6 +
	    b->packed6_del.len / P6);
}

static int
batch_route(struct ipc_route_set *s, const Rib__Route *m, uint8_t op,
    struct lc_err *err)
{
	size_t k = s->n++;
	struct ipc_route *r = &s->rt[k];
	struct nh_arrays a = {m->n_nh_addr, m->n_nh_addr6, m->n_nh_ifindex,
	    m->n_nh_ifname, m->nh_addr, m->nh_ifindex, m->nh_addr6,
	    m->nh_ifname};
	int rv;

	memset(r, 0, sizeof(*r));
	r->op = op;
	if ((rv = msg_pfx(r, m->prefix, m->len, &m->prefix6, k, err)) != 0 ||
	    (rv = msg_nh(s, r, &a, false, k, err)) != 0)
		return (rv);
	if (r->n_nh > IPC_ROUTE_NH_MAX)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: %u next hops (at most %u)", k, r->n_nh,
		    IPC_ROUTE_NH_MAX));
	if (m->type > RIB__ROUTE_TYPE__REJECT)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: unknown route type %d", k, (int)m->type));
	if (r->family == AF_INET && m->len > 32)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: prefix length %u is over 32", k, m->len));
	if (m->distance > 255)
		return (lc_err_set(err, -EINVAL, (long)k,
		    "entry %zu: distance %u is over 255", k, m->distance));
	r->kind = (uint8_t)m->type;
	r->distance = (uint8_t)m->distance;
	r->metric = m->metric;
	r->tag = m->tag;
	return (pfx_check(r, k, err));
}

/* Packed RouteBatch records: flags bits 0-5 the next-hop count, 6-7 the
 * RouteType; next hops at base + first in the set's table (of nnh). Inlined
 * at each call, so rec is a constant there (one out-of-line copy for both
 * sizes cost rib 16 instructions a route). */
static inline __attribute__((always_inline)) int
batch_packed(struct ipc_route_set *s, const ProtobufCBinaryData *t, size_t rec,
    uint8_t op, uint32_t base, size_t nnh, struct lc_err *err)
{
	size_t n = t->len / rec;
	const uint8_t *p = t->data;

	for (size_t i = 0; i < n; i++, p += rec) {
		size_t k = s->n++;
		struct ipc_route *r = &s->rt[k];
		const uint8_t *q = p + rec - 4;
		unsigned cnt = q[1] & 0x3f, first = (unsigned)q[2] << 8 | q[3];

		packed_pfx(r, p, rec);
		r->op = op;
		if (op != IPC_ROUTE_DEL) {
			if (first + cnt > nnh)
				return (lc_err_set(err, -EINVAL, (long)k,
				    "entry %zu: next hops %u..%u are beyond "
				    "the %zu of %s",
				    k, first, first + cnt, nnh,
				    rec == P4 ? "packed_nh" : "packed6_nh"));
			r->kind = q[1] >> 6;
			r->nh = base + first;
			r->n_nh = (uint16_t)cnt;
			if (r->kind > IPC_ROUTE_REJECT)
				return (lc_err_set(err, -EINVAL, (long)k,
				    "entry %zu: unknown route type %d", k,
				    r->kind));
		}
		if (pfx_check(r, k, err) != 0)
			return (err->code);
	}
	return (0);
}

static size_t
batch_msg_nh(Rib__Route *const *v, size_t n)
{
	size_t nh = 0;

	for (size_t i = 0; i < n; i++)
		nh += v[i]->n_nh_addr + v[i]->n_nh_addr6 + v[i]->n_nh_ifindex +
		    v[i]->n_nh_ifname;
	return (nh);
}

int
ipc_route_batch_decode(struct ipc_route_set *s, const Rib__RouteBatch *b,
    size_t max, struct lc_err *err)
{
	size_t n = ipc_route_batch_count(b), n4 = b->packed_nh.len / P4,
	       n6 = b->packed6_nh.len / P6;
	int rv;

	ipc_route_set_clear(s);
	memset(err, 0, sizeof(*err));
	if ((rv = records_check(&b->packed_add, &b->packed_del, &b->packed6_add,
		 &b->packed6_del, err)) != 0)
		return (rv);
	if (n > max)
		return (lc_err_set(err, -E2BIG, -1,
		    "batch of %zu routes is over the limit of %zu", n, max));
	if ((rv = tables_check(&b->packed_nh, &b->packed6_nh, err)) != 0)
		return (rv);
	if (ipc_route_set_reserve(s, n,
		n4 + n6 + batch_msg_nh(b->add, b->n_add) +
		    batch_msg_nh(b->replace, b->n_replace)) != 0)
		return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
	/* the packed tables first, then each message route's next hops */
	packed_nh(s, &b->packed_nh, P4);
	packed_nh(s, &b->packed6_nh, P6);
	for (size_t i = 0; i < b->n_add; i++)
		if ((rv = batch_route(s, b->add[i], IPC_ROUTE_ADD, err)) != 0)
			return (rv);
	if ((rv = batch_packed(s, &b->packed_add, P4, IPC_ROUTE_ADD, 0, n4,
		 err)) != 0 ||
	    (rv = batch_packed(s, &b->packed6_add, P6, IPC_ROUTE_ADD,
		 (uint32_t)n4, n6, err)) != 0)
		return (rv);
	for (size_t i = 0; i < b->n_replace; i++)
		if ((rv = batch_route(s, b->replace[i], IPC_ROUTE_REPLACE,
			 err)) != 0)
			return (rv);
	if ((rv = msg_dels(s, b->del, b->n_del, true, err)) != 0 ||
	    (rv = batch_packed(s, &b->packed_del, P4, IPC_ROUTE_DEL, 0, 0,
		 err)) != 0 ||
	    (rv = batch_packed(s, &b->packed6_del, P6, IPC_ROUTE_DEL, 0, 0,
		 err)) != 0)
		return (rv);
	return (0);
}

/* ---- FibBatch -> set --------------------------------------------------------- */

size_t
ipc_route_fib_count(const Fwd__FibBatch *b)
{
	return (b->n_add + b->n_del + b->packed_add.len / P4 +
	    b->packed_del.len / P4 + b->packed6_add.len / P6 +
	    b->packed6_del.len / P6);
}

/* A bad entry: refused alone, the first one described. */
static void
fib_bad(struct ipc_route *r, struct lc_err *err, const struct lc_err *e)
{
	r->op = IPC_ROUTE_BAD;
	if (err->code == 0)
		*err = *e;
}

static void
fib_route(struct ipc_route_set *s, const Fwd__FibRoute *m, struct lc_err *err)
{
	size_t k = s->n++;
	struct ipc_route *r = &s->rt[k];
	struct nh_arrays a = {m->n_nh_addr, m->n_nh_addr6, m->n_nh_ifindex, 0,
	    m->nh_addr, m->nh_ifindex, m->nh_addr6, NULL};
	struct lc_err e;

	memset(r, 0, sizeof(*r));
	r->op = IPC_ROUTE_ADD;
	if (msg_pfx(r, m->prefix, m->len, &m->prefix6, k, &e) != 0 ||
	    msg_nh(s, r, &a, true, k, &e) != 0 || pfx_check(r, k, &e) != 0) {
		fib_bad(r, err, &e);
		return;
	}
	if ((unsigned)m->kind > IPC_ROUTE_REJECT ||
	    (r->n_nh != 0 && m->kind != FWD__ROUTE_KIND__ROUTE_UNICAST)) {
		lc_err_set(&e, -EINVAL, (long)k,
		    "entry %zu: kind %d with %u next hops", k, (int)m->kind,
		    r->n_nh);
		fib_bad(r, err, &e);
		return;
	}
	r->kind = (uint8_t)m->kind;
}

/* Packed FibBatch records: the count is the whole flags byte; with none,
 * the next-hop field holds the RouteKind. */
static void
fib_packed(struct ipc_route_set *s, const ProtobufCBinaryData *t, size_t rec,
    uint8_t op, uint32_t base, size_t nnh, struct lc_err *err)
{
	size_t n = t->len / rec;
	const uint8_t *p = t->data;
	struct lc_err e;

	for (size_t i = 0; i < n; i++, p += rec) {
		size_t k = s->n++;
		struct ipc_route *r = &s->rt[k];
		const uint8_t *q = p + rec - 4;
		unsigned cnt = q[1], first = (unsigned)q[2] << 8 | q[3];

		packed_pfx(r, p, rec);
		r->op = op;
		if (pfx_check(r, k, &e) != 0) {
			fib_bad(r, err, &e);
			continue;
		}
		if (op == IPC_ROUTE_DEL)
			continue;
		if (cnt == 0 && first <= IPC_ROUTE_REJECT) {
			r->kind = (uint8_t)first;
		} else if (cnt == 0 || first + cnt > nnh) {
			lc_err_set(&e, -EINVAL, (long)k,
			    "entry %zu: next hops %u..%u (kind) beyond the %zu "
			    "of the table",
			    k, first, first + cnt, nnh);
			fib_bad(r, err, &e);
		} else {
			r->nh = base + first;
			r->n_nh = (uint16_t)cnt;
		}
	}
}

int
ipc_route_fib_decode(struct ipc_route_set *s, const Fwd__FibBatch *b,
    struct lc_err *err)
{
	size_t n = ipc_route_fib_count(b), n4 = b->packed_nh.len / P4,
	       n6 = b->packed6_nh.len / P6, nh = n4 + n6;
	int rv;

	ipc_route_set_clear(s);
	memset(err, 0, sizeof(*err));
	if ((rv = records_check(&b->packed_add, &b->packed_del, &b->packed6_add,
		 &b->packed6_del, err)) != 0 ||
	    (rv = tables_check(&b->packed_nh, &b->packed6_nh, err)) != 0)
		return (rv);
	for (size_t i = 0; i < b->n_add; i++)
		nh += b->add[i]->n_nh_addr + b->add[i]->n_nh_addr6 +
		    b->add[i]->n_nh_ifindex;
	if (ipc_route_set_reserve(s, n, nh) != 0)
		return (lc_err_set(err, -ENOMEM, -1, "out of memory"));
	packed_nh(s, &b->packed_nh, P4);
	packed_nh(s, &b->packed6_nh, P6);
	for (size_t i = 0; i < b->n_add; i++)
		fib_route(s, b->add[i], err);
	fib_packed(s, &b->packed_add, P4, IPC_ROUTE_ADD, 0, n4, err);
	fib_packed(s, &b->packed6_add, P6, IPC_ROUTE_ADD, (uint32_t)n4, n6,
	    err);
	(void)msg_dels(s, b->del, b->n_del, false, err);
	fib_packed(s, &b->packed_del, P4, IPC_ROUTE_DEL, 0, 0, err);
	fib_packed(s, &b->packed6_del, P6, IPC_ROUTE_DEL, 0, 0, err);
	return (0);
}
