/* ipc/ipc_route_enc.c: the route codec's encoders: one array of route records into a RouteBatch (clients) or a FibBatch (rib), message or packed form. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc_int.h"
#include "ipc/ipc_route.h"

#define P4   IPC_ROUTE_PACKED4
#define P6   IPC_ROUTE_PACKED6
#define NONE 0xffffffffu /* a next hop not in the packed table yet */

static int
grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return (ipc_route_grow(NULL, p, cap, need, elem));
}

/* An address into a packed record (rec bytes), a constant-size copy per
 * family. */
static inline void
addr_put(uint8_t *p, const union ipc_addr *a, size_t rec)
{
	if (rec == P4)
		memcpy(p, &a->v4, 4);
	else
		memcpy(p, &a->v6, 16);
}

/* ---- set -> batches ---------------------------------------------------------- */

void
ipc_route_enc_init(struct ipc_route_enc *e)
{
	memset(e, 0, sizeof(*e));
}

void
ipc_route_enc_fini(struct ipc_route_enc *e)
{
	free(e->buf);
	free(e->pk);
	free(e->map);
	memset(e, 0, sizeof(*e));
}

/* Bump allocation in enc->buf, sized by the caller beforehand. */
static void *
take(uint8_t **p, size_t n)
{
	void *r = *p;

	*p += (n + 7) & ~(size_t)7;
	return (r);
}

/* The packed fields under construction: per family a next-hop table and
 * add and delete records. */
struct pk {
	uint8_t *t[2], *add[2], *del[2];
	size_t nt[2], cap[2], na[2], nd[2];
};

#define FAM(f) ((f) == AF_INET ? 0 : 1)

static const size_t pk_rec[2] = {P4, P6};

/* What a set holds, counted in one pass: next hops of adds, adds and
 * deletes per family; whether the ops are in RouteBatch order. */
struct count {
	size_t nh[2], na[2], nd[2];
	bool sorted, bad;
};

static void
count(const struct ipc_route_set *s, struct count *c)
{
	uint8_t last = IPC_ROUTE_ADD;

	memset(c, 0, sizeof(*c));
	c->sorted = true;
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];
		unsigned f = FAM(r->family);

		c->sorted &= r->op >= last;
		last = r->op;
		c->bad |= r->op > IPC_ROUTE_DEL;
		if (r->op == IPC_ROUTE_DEL) {
			c->nd[f]++;
		} else {
			c->na[f]++;
			c->nh[f] += r->n_nh;
		}
	}
}

/*
 * Sizes the packed regions for the set's adds and deletes. A set whose
 * next hops are all IPv4 and fit one table goes as it is (each record's
 * first next hop its index in the set, as clients and rib wrote them);
 * others get their runs copied as records use them (pk_run).
 */
static int
pk_init(struct ipc_route_enc *e, const struct ipc_route_set *s,
    const struct count *c, struct pk *pk)
{
	size_t nh[2] = {c->nh[0], c->nh[1]}, need = 0;
	bool as_is = s->nnh <= IPC_ROUTE_PACKED_NH_MAX;
	uint8_t *p;

	for (size_t i = 0; as_is && i < s->nnh; i++)
		as_is = s->nh[i].family == AF_INET;
	if (as_is)
		nh[0] = s->nnh;
	for (unsigned f = 0; f < 2; f++) {
		pk->cap[f] = nh[f] < IPC_ROUTE_PACKED_NH_MAX ?
		    nh[f] :
		    IPC_ROUTE_PACKED_NH_MAX;
		need += (pk->cap[f] + c->na[f] + c->nd[f]) * pk_rec[f];
	}
	if (grow((void **)&e->pk, &e->cappk, need + 1, 1) != 0 ||
	    grow((void **)&e->map, &e->capmap, s->nnh + 1, sizeof(*e->map)) !=
		0)
		return (-ENOMEM);
	if (!as_is)
		memset(e->map, 0xff, s->nnh * sizeof(*e->map));
	p = e->pk;
	for (unsigned f = 0; f < 2; f++) {
		pk->t[f] = p;
		p += pk->cap[f] * pk_rec[f];
		pk->add[f] = p;
		p += c->na[f] * pk_rec[f];
		pk->del[f] = p;
		p += c->nd[f] * pk_rec[f];
		pk->nt[f] = pk->na[f] = pk->nd[f] = 0;
	}
	for (size_t i = 0; as_is && i < s->nnh; i++) {
		uint32_t x = htonl(s->nh[i].ifindex);

		memcpy(pk->t[0] + i * P4, &s->nh[i].addr.v4, 4);
		memcpy(pk->t[0] + i * P4 + 4, &x, 4);
		e->map[i] = (uint32_t)i;
	}
	if (as_is)
		pk->nt[0] = s->nnh;
	return (0);
}

/*
 * The packed table index of r's next hops: a run written before is used
 * again (the records of one fib group share one run), else it is appended.
 * false when its next hops are not all of r's family or the table is full:
 * then r goes as a message route. Inlined into the per-record loops, as
 * pk_put is (GCC left it out of line once pk_put grew).
 */
static inline __attribute__((always_inline)) bool
pk_run(struct ipc_route_enc *e, const struct ipc_route_set *s, struct pk *pk,
    const struct ipc_route *r, unsigned *first)
{
	const struct ipc_route_nh *h = &s->nh[r->nh];
	unsigned f = FAM(r->family), j;
	uint32_t *map = e->map + r->nh, at = map[0];
	size_t rec = pk_rec[f];

	*first = 0;
	if (r->n_nh == 0)
		return (true);
	/* one next hop already in the table: most records (no loops) */
	if (r->n_nh == 1 && at != NONE && h->family == r->family) {
		*first = at;
		return (true);
	}
	for (j = 0; j < r->n_nh; j++)
		if (h[j].family != r->family)
			return (false);
	for (j = 1; at != NONE && j < r->n_nh && map[j] == at + j; j++)
		;
	if (at != NONE && j == r->n_nh) {
		*first = at;
		return (true);
	}
	if (pk->nt[f] + r->n_nh > pk->cap[f])
		return (false);
	*first = (unsigned)pk->nt[f];
	for (j = 0; j < r->n_nh; j++) {
		uint8_t *t = pk->t[f] + pk->nt[f] * rec;
		uint32_t x = htonl(h[j].ifindex);

		addr_put(t, &h[j].addr, rec);
		memcpy(t + rec - 4, &x, 4);
		map[j] = (uint32_t)pk->nt[f]++;
	}
	return (true);
}

/* A packed record of family index f (rec bytes): prefix, length, flags (or
 * count), first next hop. Inlined with f and rec constant. */
static inline __attribute__((always_inline)) void
pk_put_rec(struct pk *pk, unsigned f, size_t rec, const struct ipc_route *r,
    bool del, unsigned flags, unsigned first)
{
	uint8_t *p = del ? pk->del[f] + pk->nd[f]++ * rec :
			   pk->add[f] + pk->na[f]++ * rec;

	addr_put(p, &r->pfx, rec);
	p[rec - 4] = r->len;
	p[rec - 3] = (uint8_t)flags;
	p[rec - 2] = (uint8_t)(first >> 8);
	p[rec - 1] = (uint8_t)first;
}

static inline void
pk_put(struct pk *pk, const struct ipc_route *r, bool del, unsigned flags,
    unsigned first)
{
	if (r->family == AF_INET)
		pk_put_rec(pk, 0, P4, r, del, flags, first);
	else
		pk_put_rec(pk, 1, P6, r, del, flags, first);
}

/* The packed fields: IPv4 table, adds, deletes, then the same for IPv6. */
static void
pk_fields(const struct pk *pk, ProtobufCBinaryData *const f[6])
{
	for (unsigned k = 0; k < 2; k++) {
		f[3 * k]->data = pk->t[k];
		f[3 * k]->len = pk->na[k] ? pk->nt[k] * pk_rec[k] : 0;
		f[3 * k + 1]->data = pk->add[k];
		f[3 * k + 1]->len = pk->na[k] * pk_rec[k];
		f[3 * k + 2]->data = pk->del[k];
		f[3 * k + 2]->len = pk->nd[k] * pk_rec[k];
	}
}

/* The next-hop arrays of a message route (all of one family). */
struct nh_out {
	size_t *n_addr, *n_addr6, *n_ifindex, *n_ifname;
	uint32_t **addr, **ifindex;
	ProtobufCBinaryData **addr6;
	char ***ifname; /* NULL: FibRoute, which always has nh_ifindex */
};

static int
enc_nh(uint8_t **p, const struct ipc_route_set *s, const struct ipc_route *r,
    const struct nh_out *o)
{
	const struct ipc_route_nh *h = &s->nh[r->nh];
	size_t n = r->n_nh;
	bool ifx = o->ifname == NULL, names = false;

	if (n == 0)
		return (0);
	for (size_t j = 0; j < n; j++) {
		if (h[j].family != h[0].family)
			return (-EINVAL);
		ifx |= h[j].ifindex != 0;
		names |= h[j].ifname != NULL && h[j].ifname[0] != '\0';
	}
	if (h[0].family == AF_INET) {
		*o->addr = take(p, n * sizeof(uint32_t));
		*o->n_addr = n;
		for (size_t j = 0; j < n; j++)
			(*o->addr)[j] = h[j].addr.v4.s_addr;
	} else {
		*o->addr6 = take(p, n * sizeof(ProtobufCBinaryData));
		*o->n_addr6 = n;
		for (size_t j = 0; j < n; j++) {
			(*o->addr6)[j].data = (uint8_t *)h[j].addr.v6.b;
			(*o->addr6)[j].len = 16;
		}
	}
	if (ifx) {
		*o->ifindex = take(p, n * sizeof(uint32_t));
		*o->n_ifindex = n;
		for (size_t j = 0; j < n; j++)
			(*o->ifindex)[j] = h[j].ifindex;
	}
	if (names && o->ifname != NULL) {
		*o->ifname = take(p, n * sizeof(char *));
		*o->n_ifname = n;
		for (size_t j = 0; j < n; j++)
			(*o->ifname)[j] = (char *)(h[j].ifname ? h[j].ifname :
								 "");
	}
	return (0);
}

static void
enc_pfx(const struct ipc_route *r, uint32_t *prefix, ProtobufCBinaryData *p6)
{
	if (r->family == AF_INET) {
		*prefix = r->pfx.v4.s_addr;
	} else {
		p6->data = (uint8_t *)r->pfx.v6.b;
		p6->len = 16;
	}
}

/* A delete: a packed record, or a lifecycle.Prefix in del. */
static void
enc_del(uint8_t **p, struct pk *pk, const struct ipc_route *r,
    Lifecycle__Prefix **del, size_t *n_del)
{
	Lifecycle__Prefix *d;

	if (pk != NULL) {
		pk_put(pk, r, true, 0, 0);
		return;
	}
	d = take(p, sizeof(*d));
	lifecycle__prefix__init(d);
	enc_pfx(r, &d->prefix, &d->prefix6);
	d->len = r->len;
	del[(*n_del)++] = d;
}

/* enc->buf for the set's message routes: structures, pointer arrays,
 * next-hop arrays (sized as if all went as messages). */
static uint8_t *
enc_buf(struct ipc_route_enc *e, const struct ipc_route_set *s,
    const struct count *c, size_t rsize)
{
	size_t need = s->n *
		(rsize + sizeof(Lifecycle__Prefix) + 3 * sizeof(void *) + 64) +
	    (c->nh[0] + c->nh[1]) * 40 + 64;

	if (grow(&e->buf, &e->cap, need, 1) != 0)
		return (NULL);
	return (e->buf);
}

int
ipc_route_batch_encode(struct ipc_route_enc *e, Rib__RouteBatch *b,
    const struct ipc_route_set *s, bool packed)
{
	struct count c;
	struct pk pk;
	uint8_t *p;
	int rv;

	count(s, &c);
	if (!c.sorted || c.bad)
		return (-EINVAL);
	if ((p = enc_buf(e, s, &c, sizeof(Rib__Route))) == NULL ||
	    (packed && pk_init(e, s, &c, &pk) != 0))
		return (-ENOMEM);
	b->add = take(&p, s->n * sizeof(*b->add));
	b->replace = take(&p, s->n * sizeof(*b->replace));
	b->del = take(&p, s->n * sizeof(*b->del));
	b->n_add = b->n_replace = b->n_del = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];
		const struct ipc_route_nh *h = &s->nh[r->nh];
		Rib__Route *m;
		unsigned first;
		bool plain = r->distance == 0 && r->metric == 0 &&
		    r->tag == 0 && r->n_nh <= 0x3f;

		if (r->op == IPC_ROUTE_DEL) {
			enc_del(&p, packed ? &pk : NULL, r, b->del, &b->n_del);
			continue;
		}
		for (unsigned j = 0; plain && j < r->n_nh; j++)
			plain = h[j].ifname == NULL || h[j].ifname[0] == '\0';
		if (packed && plain && r->op == IPC_ROUTE_ADD &&
		    pk_run(e, s, &pk, r, &first)) {
			pk_put(&pk, r, false, r->n_nh | (r->kind & 3u) << 6,
			    first);
			continue;
		}
		m = take(&p, sizeof(*m));
		rib__route__init(m);
		enc_pfx(r, &m->prefix, &m->prefix6);
		m->len = r->len;
		m->type = (Rib__RouteType)r->kind;
		m->distance = r->distance;
		m->metric = r->metric;
		m->tag = r->tag;
		if ((rv = enc_nh(&p, s, r,
			 &(struct nh_out){&m->n_nh_addr, &m->n_nh_addr6,
			     &m->n_nh_ifindex, &m->n_nh_ifname, &m->nh_addr,
			     &m->nh_ifindex, &m->nh_addr6, &m->nh_ifname})) !=
		    0)
			return (rv);
		if (r->op == IPC_ROUTE_ADD)
			b->add[b->n_add++] = m;
		else
			b->replace[b->n_replace++] = m;
	}
	if (packed)
		pk_fields(&pk,
		    (ProtobufCBinaryData *const[6]){&b->packed_nh,
			&b->packed_add, &b->packed_del, &b->packed6_nh,
			&b->packed6_add, &b->packed6_del});
	return (0);
}

int
ipc_route_fib_encode(struct ipc_route_enc *e, Fwd__FibBatch *b,
    const struct ipc_route_set *s, bool packed)
{
	struct count c;
	struct pk pk;
	uint8_t *p;
	int rv;

	count(s, &c);
	if (c.bad)
		return (-EINVAL);
	if ((p = enc_buf(e, s, &c, sizeof(Fwd__FibRoute))) == NULL ||
	    (packed && pk_init(e, s, &c, &pk) != 0))
		return (-ENOMEM);
	b->add = take(&p, s->n * sizeof(*b->add));
	b->del = take(&p, s->n * sizeof(*b->del));
	b->n_add = b->n_del = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];
		/* with no next hop the kind says what the route does */
		unsigned kind = r->n_nh != 0	? r->kind :
		    r->kind == IPC_ROUTE_REJECT ? IPC_ROUTE_REJECT :
						  IPC_ROUTE_BLACKHOLE;
		Fwd__FibRoute *m;
		unsigned first;

		if (r->op == IPC_ROUTE_DEL) {
			enc_del(&p, packed ? &pk : NULL, r, b->del, &b->n_del);
			continue;
		}
		if (packed && r->n_nh == 0) {
			pk_put(&pk, r, false, 0, kind);
			continue;
		}
		if (packed && kind == IPC_ROUTE_UNICAST && r->n_nh <= 0xff &&
		    pk_run(e, s, &pk, r, &first)) {
			pk_put(&pk, r, false, r->n_nh, first);
			continue;
		}
		m = take(&p, sizeof(*m));
		fwd__fib_route__init(m);
		enc_pfx(r, &m->prefix, &m->prefix6);
		m->len = r->len;
		m->kind = (Fwd__RouteKind)kind;
		if ((rv = enc_nh(&p, s, r,
			 &(struct nh_out){&m->n_nh_addr, &m->n_nh_addr6,
			     &m->n_nh_ifindex, NULL, &m->nh_addr,
			     &m->nh_ifindex, &m->nh_addr6, NULL})) != 0)
			return (rv);
		b->add[b->n_add++] = m;
	}
	if (packed)
		pk_fields(&pk,
		    (ProtobufCBinaryData *const[6]){&b->packed_nh,
			&b->packed_add, &b->packed_del, &b->packed6_nh,
			&b->packed6_add, &b->packed6_del});
	return (0);
}
