/* tests/unit/ipc/test_route.c: the route codec: RouteBatch and FibBatch records round trip through the wire in message and packed form (IPv4 bytes as the daemons wrote them before the codec, IPv6 beside them), every malformed entry is refused with its index, and arena sets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "ipc/ipc_route.h"
#include "libcommon/lc_arena.h"

static uint32_t
ip(const char *s)
{
	struct lc_ip4 a;

	assert_int_equal(lc_ip4_parse(s, &a), 0);
	return (a.s_addr);
}

static struct lc_ip6
ip6(const char *s)
{
	struct lc_ip6 a;

	assert_int_equal(lc_ip6_parse(s, &a), 0);
	return (a);
}

/* An IPv4 route of n next hops gw[i] on ifindex ifx + i. */
static struct ipc_route *
add4(struct ipc_route_set *s, uint8_t op, const char *pfx, unsigned len,
    unsigned n, const char *const *gw, uint32_t ifx)
{
	struct ipc_route *r = ipc_route_set_add(s, n);

	assert_non_null(r);
	r->op = op;
	r->pfx.v4.s_addr = ip(pfx);
	r->len = (uint8_t)len;
	for (unsigned i = 0; i < n; i++) {
		s->nh[r->nh + i].addr.v4.s_addr = ip(gw[i]);
		s->nh[r->nh + i].ifindex = ifx ? ifx + i : 0;
	}
	return (r);
}

static struct ipc_route *
add6(struct ipc_route_set *s, uint8_t op, const char *pfx, unsigned len,
    const char *gw, uint32_t ifx)
{
	struct ipc_route *r = ipc_route_set_add(s, gw != NULL);

	assert_non_null(r);
	r->op = op;
	r->family = AF_INET6;
	r->pfx.v6 = ip6(pfx);
	r->len = (uint8_t)len;
	if (gw != NULL) {
		s->nh[r->nh].family = AF_INET6;
		s->nh[r->nh].addr.v6 = ip6(gw);
		s->nh[r->nh].ifindex = ifx;
	}
	return (r);
}

static void
assert_nh_equal(const struct ipc_route_nh *a, const struct ipc_route_nh *b)
{
	const char *na = a->ifname ? a->ifname : "",
		   *nb = b->ifname ? b->ifname : "";

	assert_int_equal(a->family, b->family);
	assert_memory_equal(&a->addr, &b->addr, sizeof(a->addr));
	assert_int_equal(a->ifindex, b->ifindex);
	assert_string_equal(na, nb);
}

/* Record i of a is record j of b (next hops compared by value). */
static void
assert_route_equal(const struct ipc_route_set *a, size_t i,
    const struct ipc_route_set *b, size_t j)
{
	const struct ipc_route *x = &a->rt[i], *y = &b->rt[j];

	assert_int_equal(x->family, y->family);
	assert_memory_equal(&x->pfx, &y->pfx, sizeof(x->pfx));
	assert_int_equal(x->len, y->len);
	assert_int_equal(x->op, y->op);
	assert_int_equal(x->kind, y->kind);
	assert_int_equal(x->distance, y->distance);
	assert_int_equal(x->metric, y->metric);
	assert_int_equal(x->tag, y->tag);
	assert_int_equal(x->n_nh, y->n_nh);
	if (x->op == IPC_ROUTE_DEL)
		return;
	for (unsigned k = 0; k < x->n_nh; k++)
		assert_nh_equal(&a->nh[x->nh + k], &b->nh[y->nh + k]);
}

/* Through the wire: packed and unpacked again (free_unpacked frees it). */
static void *
wire(const void *msg)
{
	const ProtobufCMessage *m = msg;
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(n + 1);
	ProtobufCMessage *u;

	assert_non_null(buf);
	assert_int_equal(protobuf_c_message_pack(m, buf), n);
	u = protobuf_c_message_unpack(m->descriptor, NULL, n, buf);
	assert_non_null(u);
	free(buf);
	return (u);
}

static const char *const gws[] = {"198.18.1.2", "198.18.1.3", "198.18.2.2"};

/* Message form: every field of a record, names, ECMP, replace, delete. */
static void
test_batch_message(void **st)
{
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT, *u;
	struct ipc_route *r;

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init(&d);
	ipc_route_enc_init(&e);
	r = add4(&s, IPC_ROUTE_ADD, "203.0.113.0", 24, 2, gws, 0);
	r->distance = 20;
	r->metric = 7;
	r->tag = 99;
	r = add4(&s, IPC_ROUTE_ADD, "203.0.114.0", 24, 1, gws, 0);
	s.nh[r->nh].addr.v4.s_addr = 0;
	s.nh[r->nh].ifname = "eth1";
	r = add4(&s, IPC_ROUTE_ADD, "203.0.115.0", 24, 0, NULL, 0);
	r->kind = IPC_ROUTE_REJECT;
	add4(&s, IPC_ROUTE_REPLACE, "198.51.100.0", 22, 3, gws, 4);
	add4(&s, IPC_ROUTE_DEL, "192.0.2.0", 24, 0, NULL, 0);
	assert_int_equal(ipc_route_batch_encode(&e, &b, &s, false), 0);
	assert_int_equal(b.n_add, 3);
	assert_int_equal(b.n_replace, 1);
	assert_int_equal(b.n_del, 1);
	assert_int_equal(b.packed_add.len + b.packed_del.len, 0);
	/* the IPv4 fields as clients always wrote them */
	assert_int_equal(b.add[0]->prefix, ip("203.0.113.0"));
	assert_int_equal(b.add[0]->n_nh_addr, 2);
	assert_int_equal(b.add[0]->n_nh_ifindex, 0);
	assert_int_equal(b.add[0]->n_nh_ifname, 0);
	assert_int_equal(b.add[0]->prefix6.len, 0);
	assert_int_equal(b.add[1]->n_nh_ifname, 1);
	assert_string_equal(b.add[1]->nh_ifname[0], "eth1");
	assert_int_equal(b.replace[0]->n_nh_ifindex, 3);
	assert_int_equal(b.add[2]->type, RIB__ROUTE_TYPE__REJECT);
	u = wire(&b);
	assert_int_equal(ipc_route_batch_count(u), 5);
	assert_int_equal(ipc_route_batch_decode(&d, u, 100, &err), 0);
	assert_int_equal(d.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_route_equal(&s, i, &d, i);
	rib__route_batch__free_unpacked(u, NULL);
	ipc_route_set_fini(&s);
	ipc_route_set_fini(&d);
	ipc_route_enc_fini(&e);
}

/* Packed form: the 8-byte records of rib.proto, runs shared by routes stay
 * shared, adds the packed form cannot carry go as messages (first). */
static void
test_batch_packed(void **st)
{
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT, *u;
	struct ipc_route *r;
	uint32_t a = ip("203.0.114.0");
	uint8_t want[8];

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init(&d);
	ipc_route_enc_init(&e);
	r = add4(&s, IPC_ROUTE_ADD, "203.0.113.0", 24, 2, gws, 0);
	r = ipc_route_set_add(&s, 0); /* the same run as the first */
	r->pfx.v4.s_addr = a;
	r->len = 24;
	r->nh = s.rt[0].nh;
	r->n_nh = 2;
	r = add4(&s, IPC_ROUTE_ADD, "203.0.115.0", 24, 0, NULL, 0);
	r->kind = IPC_ROUTE_BLACKHOLE;
	r = add4(&s, IPC_ROUTE_ADD, "203.0.116.0", 24, 1, gws + 2, 3);
	r->metric = 5; /* not in a packed record: a message */
	add4(&s, IPC_ROUTE_DEL, "192.0.2.0", 24, 0, NULL, 0);
	assert_int_equal(ipc_route_batch_encode(&e, &b, &s, true), 0);
	assert_int_equal(b.n_add, 1);
	assert_int_equal(b.n_del, 0);
	/* the set's table as it is (the message route's next hop too), one
	 * run for the two routes that share it */
	assert_int_equal(b.packed_nh.len, 3 * 8);
	assert_int_equal(b.packed_add.len, 3 * 8);
	assert_int_equal(b.packed_del.len, 8);
	assert_int_equal(b.packed6_add.len + b.packed6_nh.len, 0);
	/* rib.proto's record: prefix, length, flags (count | type << 6), first */
	memcpy(want, &a, 4);
	want[4] = 24;
	want[5] = 2;
	want[6] = 0;
	want[7] = 0;
	assert_memory_equal(b.packed_add.data + 8, want, 8);
	assert_int_equal(b.packed_add.data[16 + 5], 1 << 6);
	u = wire(&b);
	assert_int_equal(ipc_route_batch_decode(&d, u, 100, &err), 0);
	assert_int_equal(d.n, 5);
	assert_route_equal(&s, 3, &d, 0); /* the message add first */
	assert_route_equal(&s, 0, &d, 1);
	assert_route_equal(&s, 1, &d, 2);
	assert_route_equal(&s, 2, &d, 3);
	assert_route_equal(&s, 4, &d, 4);
	assert_int_equal(d.rt[1].nh, d.rt[2].nh);
	rib__route_batch__free_unpacked(u, NULL);
	/* out of order: refused */
	add4(&s, IPC_ROUTE_ADD, "203.0.117.0", 24, 1, gws, 0);
	assert_int_equal(ipc_route_batch_encode(&e, &b, &s, true), -EINVAL);
	ipc_route_set_fini(&s);
	ipc_route_set_fini(&d);
	ipc_route_enc_fini(&e);
}

/* ---- malformed RouteBatches ---- */

static uint8_t rec_nh[3 * 8];

static void
prec(uint8_t *p, const char *pfx, unsigned len, unsigned flags, unsigned first)
{
	uint32_t a = ip(pfx);

	memcpy(p, &a, 4);
	p[4] = (uint8_t)len;
	p[5] = (uint8_t)flags;
	p[6] = (uint8_t)(first >> 8);
	p[7] = (uint8_t)first;
}

static void
assert_refused(const Rib__RouteBatch *b, int code, long index, const char *msg)
{
	struct ipc_route_set s;
	struct lc_err err;

	ipc_route_set_init(&s);
	assert_int_equal(ipc_route_batch_decode(&s, b, 1000, &err), code);
	assert_int_equal(err.code, code);
	assert_int_equal(err.index, index);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s' lacks '%s'", err.msg, msg);
	ipc_route_set_fini(&s);
}

static void
test_batch_bad(void **st)
{
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;
	Rib__Route good = RIB__ROUTE__INIT, bad, *rv[2] = {&good, &bad};
	Lifecycle__Prefix del = LIFECYCLE__PREFIX__INIT, *dp = &del;
	uint32_t gw[IPC_ROUTE_NH_MAX + 1], ifx[2] = {1, 2};
	uint8_t rec[2 * 8], drec[8], six[5] = {0}, a6[16] = {0x20, 0x01, 0x02};
	ProtobufCBinaryData b6[1] = {{3, six}};

	(void)st;
	for (unsigned i = 0; i <= IPC_ROUTE_NH_MAX; i++)
		gw[i] = ip("198.18.1.2");
	good.prefix = ip("203.0.113.0");
	good.len = 24;
	good.n_nh_addr = 1;
	good.nh_addr = gw;
	b.add = rv;
	b.n_add = 2;
#define BAD(field, value, code, msg)              \
	do {                                      \
		bad = good;                       \
		bad.field = value;                \
		assert_refused(&b, code, 1, msg); \
	} while (0)
	BAD(len, 33, -EINVAL, "prefix length 33 is over 32");
	BAD(prefix, ip("203.0.113.1"), -EINVAL, "has host bits set");
	BAD(type, 5, -EINVAL, "unknown route type 5");
	BAD(distance, 256, -EINVAL, "distance 256 is over 255");
	BAD(n_nh_addr, IPC_ROUTE_NH_MAX + 1, -EINVAL, "65 next hops (at most");
	bad = good;
	bad.n_nh_ifindex = 2;
	bad.nh_ifindex = ifx;
	assert_refused(&b, -EINVAL, 1, "must be parallel arrays");
	BAD(prefix6.len, 5, -EINVAL, "prefix6 of 5 bytes");
	bad = good;
	bad.prefix = 0;
	bad.prefix6.len = 16;
	bad.prefix6.data = a6;
	bad.len = 129;
	assert_refused(&b, -EINVAL, 1, "prefix length 129 is over 128");
	bad.len = 20; /* 2001:200::/20 has bits beyond its length */
	assert_refused(&b, -EINVAL, 1, "has host bits set");
	bad.len = 24;
	bad.n_nh_addr6 = 1;
	bad.nh_addr6 = b6;
	assert_refused(&b, -EINVAL, 1, "nh_addr and nh_addr6");
	bad.n_nh_addr = 0;
	assert_refused(&b, -EINVAL, 1, "nh_addr6 0 of 3 bytes");
#undef BAD
	/* deletes: after the adds */
	b.n_add = 1;
	b.del = &dp;
	b.n_del = 1;
	del.prefix = ip("203.0.113.0");
	del.len = 33;
	assert_refused(&b, -EINVAL, 1, "over 32");
	del.len = 16;
	assert_refused(&b, -EINVAL, 1, "host bits");
	del.len = 24;
	/* packed: after the message adds */
	b.n_del = 0;
	memset(rec_nh, 0, sizeof(rec_nh));
	b.packed_nh.data = rec_nh;
	b.packed_nh.len = sizeof(rec_nh);
	b.packed_add.data = rec;
	b.packed_add.len = sizeof(rec);
	prec(rec, "203.0.121.0", 24, 1, 0);
	prec(rec + 8, "203.0.120.0", 24, 2, 2);
	assert_refused(&b, -EINVAL, 2, "next hops 2..4 are beyond the 3");
	prec(rec + 8, "203.0.120.0", 33, 1, 0);
	assert_refused(&b, -EINVAL, 2, "over 32");
	prec(rec + 8, "203.0.120.1", 24, 1, 0);
	assert_refused(&b, -EINVAL, 2, "host bits");
	prec(rec + 8, "203.0.120.0", 24, 3 << 6, 0);
	assert_refused(&b, -EINVAL, 2, "unknown route type 3");
	prec(rec + 8, "203.0.120.0", 24, 1, 0);
	b.packed_del.data = drec;
	b.packed_del.len = 8;
	prec(drec, "203.0.121.0", 33, 0, 0); /* after 1 + 2 adds */
	assert_refused(&b, -EINVAL, 3, "over 32");
	b.del = &dp; /* message deletes before packed ones */
	b.n_del = 1;
	assert_refused(&b, -EINVAL, 4, "over 32");
	b.n_del = 0;
	b.packed_del.len = 0;
	/* the whole batch: index -1 */
	b.packed_add.len = 12;
	assert_refused(&b, -EINVAL, -1, "8-byte records");
	b.packed_add.len = 16;
	b.packed6_del.data = rec;
	b.packed6_del.len = 10;
	assert_refused(&b, -EINVAL, -1, "20-byte records");
	b.packed6_del.len = 0;
	b.packed_nh.len = 12;
	assert_refused(&b, -EINVAL, -1, "packed_nh");
	b.packed_nh.len = 24;
	b.packed6_nh.data = rec;
	b.packed6_nh.len = 16;
	assert_refused(&b, -EINVAL, -1, "packed6_nh");
	b.packed6_nh.len = 0;
	{
		struct ipc_route_set s;
		struct lc_err err;

		ipc_route_set_init(&s);
		assert_int_equal(ipc_route_batch_decode(&s, &b, 2, &err),
		    -E2BIG);
		assert_int_equal(err.index, -1);
		assert_non_null(strstr(err.msg, "over the limit of 2"));
		assert_int_equal(ipc_route_batch_decode(&s, &b, 3, &err), 0);
		assert_int_equal(s.n, 3);
		ipc_route_set_fini(&s);
	}
}

/* ---- FibBatch ---- */

/* Message form as rib wrote it before the codec, and back. */
static void
test_fib_message(void **st)
{
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT, *u;
	struct ipc_route *r;

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init(&d);
	ipc_route_enc_init(&e);
	add4(&s, IPC_ROUTE_ADD, "203.0.113.0", 24, 2, gws, 1);
	r = add4(&s, IPC_ROUTE_DEL, "192.0.2.0", 24, 0, NULL, 0);
	r = add4(&s, IPC_ROUTE_REPLACE, "203.0.115.0", 24, 0, NULL, 0);
	r->kind = IPC_ROUTE_REJECT;
	add4(&s, IPC_ROUTE_ADD, "203.0.116.0", 24, 0, NULL, 0); /* blackhole */
	assert_int_equal(ipc_route_fib_encode(&e, &b, &s, false), 0);
	assert_int_equal(b.n_add, 3);
	assert_int_equal(b.n_del, 1);
	assert_int_equal(b.add[0]->n_nh_addr, 2);
	assert_int_equal(b.add[0]->n_nh_ifindex, 2);
	assert_int_equal(b.add[0]->nh_ifindex[1], 2);
	assert_int_equal(b.add[0]->kind, FWD__ROUTE_KIND__ROUTE_UNICAST);
	assert_int_equal(b.add[1]->kind, FWD__ROUTE_KIND__ROUTE_REJECT);
	assert_int_equal(b.add[2]->kind, FWD__ROUTE_KIND__ROUTE_BLACKHOLE);
	u = wire(&b);
	assert_int_equal(ipc_route_fib_count(u), 4);
	assert_int_equal(ipc_route_fib_decode(&d, u, &err), 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(d.n, 4);
	assert_route_equal(&s, 0, &d, 0);
	/* fwd's add is add or replace; a route with no next hop has a kind */
	assert_int_equal(d.rt[1].op, IPC_ROUTE_ADD);
	assert_int_equal(d.rt[1].kind, IPC_ROUTE_REJECT);
	assert_int_equal(d.rt[2].kind, IPC_ROUTE_BLACKHOLE);
	assert_route_equal(&s, 1, &d, 3);
	fwd__fib_batch__free_unpacked(u, NULL);
	ipc_route_set_fini(&s);
	ipc_route_set_fini(&d);
	ipc_route_enc_fini(&e);
}

/* Packed: fwd.proto's records, shared runs, the kind in the next-hop field,
 * and a run that does not fit the 65,536-entry table goes as a message. */
static void
test_fib_packed(void **st)
{
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT, *u;
	struct ipc_route *r;
	uint8_t want[3 * 8] = {0};
	uint32_t a, x = htonl(1);

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init(&d);
	ipc_route_enc_init(&e);
	add4(&s, IPC_ROUTE_ADD, "203.0.113.0", 24, 1, gws, 1);
	r = ipc_route_set_add(&s, 0);
	r->pfx.v4.s_addr = ip("203.0.114.0");
	r->len = 24;
	r->nh = s.rt[0].nh;
	r->n_nh = 1;
	r = add4(&s, IPC_ROUTE_ADD, "203.0.115.0", 24, 0, NULL, 0);
	r->kind = IPC_ROUTE_REJECT;
	add4(&s, IPC_ROUTE_DEL, "192.0.2.0", 24, 0, NULL, 0);
	assert_int_equal(ipc_route_fib_encode(&e, &b, &s, true), 0);
	assert_int_equal(b.n_add + b.n_del, 0);
	assert_int_equal(b.packed_nh.len, 8);
	assert_int_equal(b.packed_add.len, 3 * 8);
	assert_int_equal(b.packed_del.len, 8);
	a = ip("198.18.1.2");
	assert_memory_equal(b.packed_nh.data, &a, 4);
	assert_memory_equal(b.packed_nh.data + 4, &x, 4);
	a = ip("203.0.113.0");
	memcpy(want, &a, 4);
	want[4] = 24;
	want[5] = 1;
	a = ip("203.0.114.0");
	memcpy(want + 8, &a, 4);
	want[12] = 24;
	want[13] = 1;
	a = ip("203.0.115.0");
	memcpy(want + 16, &a, 4);
	want[20] = 24;
	want[23] = FWD__ROUTE_KIND__ROUTE_REJECT; /* count 0: the kind */
	assert_memory_equal(b.packed_add.data, want, sizeof(want));
	u = wire(&b);
	assert_int_equal(ipc_route_fib_decode(&d, u, &err), 0);
	assert_int_equal(d.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_route_equal(&s, i, &d, i);
	assert_int_equal(d.rt[0].nh, d.rt[1].nh);
	fwd__fib_batch__free_unpacked(u, NULL);

	/* 65,537 distinct next hops: the last route's run does not fit */
	ipc_route_set_clear(&s);
	for (unsigned i = 0; i <= IPC_ROUTE_PACKED_NH_MAX; i++) {
		r = ipc_route_set_add(&s, 1);
		assert_non_null(r);
		r->pfx.v4.s_addr = htonl(0xc6000000u + (i << 8));
		r->len = 24;
		s.nh[r->nh].addr.v4.s_addr = htonl(0xc6120001u + i);
	}
	assert_int_equal(ipc_route_fib_encode(&e, &b, &s, true), 0);
	assert_int_equal(b.n_add, 1);
	assert_int_equal(b.packed_nh.len, 8 * IPC_ROUTE_PACKED_NH_MAX);
	assert_int_equal(b.packed_add.len, 8 * IPC_ROUTE_PACKED_NH_MAX);
	u = wire(&b);
	assert_int_equal(ipc_route_fib_decode(&d, u, &err), 0);
	assert_int_equal(d.n, s.n);
	assert_route_equal(&s, s.n - 1, &d, 0);
	assert_route_equal(&s, 0, &d, 1);
	assert_route_equal(&s, s.n - 2, &d, s.n - 1);
	fwd__fib_batch__free_unpacked(u, NULL);
	ipc_route_set_fini(&s);
	ipc_route_set_fini(&d);
	ipc_route_enc_fini(&e);
}

/* A bad FibBatch entry fails alone (fwd fails its index); a malformed
 * packed field refuses the batch. */
static void
test_fib_bad(void **st)
{
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;
	Fwd__FibRoute m[4], *mp[4];
	uint32_t gw = ip("198.18.1.2"), ifx = 0;
	uint8_t nh[8] = {0}, add[5 * 8];
	struct ipc_route_set s;
	struct lc_err err;
	static const unsigned bad[] = {1, 2, 3, 5, 6, 7, 8};

	(void)st;
	for (unsigned i = 0; i < 4; i++) {
		fwd__fib_route__init(&m[i]);
		m[i].prefix = ip("203.0.113.0");
		m[i].len = 24;
		m[i].n_nh_addr = m[i].n_nh_ifindex = 1;
		m[i].nh_addr = &gw;
		m[i].nh_ifindex = &ifx;
		mp[i] = &m[i];
	}
	m[1].n_nh_ifindex = 0;			      /* not parallel */
	m[2].kind = FWD__ROUTE_KIND__ROUTE_BLACKHOLE; /* with a next hop */
	m[3].n_nh_addr = m[3].n_nh_ifindex = 0;
	m[3].kind = (Fwd__RouteKind)7;
	memcpy(nh, &gw, 4);
	prec(add, "203.0.114.0", 24, 1, 0);
	prec(add + 8, "203.0.114.0", 24, 1, 1);	 /* beyond the table */
	prec(add + 16, "203.0.114.0", 24, 0, 3); /* kind 3 */
	prec(add + 24, "203.0.114.1", 24, 1, 0); /* host bits */
	prec(add + 32, "203.0.114.0", 33, 1, 0); /* length */
	b.add = mp;
	b.n_add = 4;
	b.packed_nh.data = nh;
	b.packed_nh.len = 8;
	b.packed_add.data = add;
	b.packed_add.len = sizeof(add);
	ipc_route_set_init(&s);
	assert_int_equal(ipc_route_fib_decode(&s, &b, &err), 0);
	assert_int_equal(s.n, 9);
	assert_int_equal(err.index, 1); /* the first bad one */
	assert_int_equal(err.code, -EINVAL);
	for (size_t i = 0, k = 0; i < s.n; i++) {
		bool isbad = k < sizeof(bad) / sizeof(bad[0]) && bad[k] == i;

		assert_int_equal(s.rt[i].op == IPC_ROUTE_BAD, isbad);
		k += isbad;
	}
	b.packed_add.len = 12;
	assert_int_equal(ipc_route_fib_decode(&s, &b, &err), -EINVAL);
	assert_int_equal(err.index, -1);
	assert_int_equal(s.n, 0);
	assert_int_equal(ipc_route_fib_count(&b), 4 + 1);
	b.packed_add.len = 8;
	b.packed_nh.len = 8 * (IPC_ROUTE_PACKED_NH_MAX + 1);
	assert_int_equal(ipc_route_fib_decode(&s, &b, &err), -EINVAL);
	ipc_route_set_fini(&s);
}

/* IPv6 beside IPv4: messages (prefix6, nh_addr6, an IPv4 route over an
 * IPv6 next hop) and 20-byte packed records, in both batches. */
static void
test_ipv6(void **st)
{
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	struct ipc_route *r;

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init(&d);
	ipc_route_enc_init(&e);
	add6(&s, IPC_ROUTE_ADD, "2001:2::", 48, "2001:2:0:1::2", 3);
	add6(&s, IPC_ROUTE_ADD, "2001:2:1::", 64, "fe80::1", 0);
	r = add6(&s, IPC_ROUTE_ADD, "2001:2:2::", 64, NULL, 0);
	r->kind = IPC_ROUTE_BLACKHOLE;
	r = add4(&s, IPC_ROUTE_ADD, "203.0.113.0", 24, 1, gws, 0);
	s.nh[r->nh].family = AF_INET6; /* RFC 8950 style */
	s.nh[r->nh].addr.v6 = ip6("2001:2:0:1::2");
	add4(&s, IPC_ROUTE_ADD, "203.0.114.0", 24, 1, gws, 0);
	add6(&s, IPC_ROUTE_DEL, "2001:2:3::", 64, NULL, 0);
	add4(&s, IPC_ROUTE_DEL, "192.0.2.0", 24, 0, NULL, 0);
	for (int packed = 0; packed < 2; packed++) {
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT, *u;
		Fwd__FibBatch f = FWD__FIB_BATCH__INIT, *v;
		/* decode order when packed: the IPv4 route over IPv6 (a
		 * message), packed IPv4, packed IPv6; deletes the same */
		static const size_t order[2][7] = {{0, 1, 2, 3, 4, 5, 6},
		    {3, 4, 0, 1, 2, 6, 5}};

		assert_int_equal(ipc_route_batch_encode(&e, &b, &s, packed), 0);
		if (packed) {
			assert_int_equal(b.n_add, 1);
			assert_int_equal(b.packed6_nh.len, 2 * 20);
			assert_int_equal(b.packed6_add.len, 3 * 20);
			assert_int_equal(b.packed6_del.len, 20);
		}
		u = wire(&b);
		assert_int_equal(ipc_route_batch_decode(&d, u, 100, &err), 0);
		assert_int_equal(d.n, s.n);
		for (size_t i = 0; i < s.n; i++)
			assert_route_equal(&s, order[packed][i], &d, i);
		rib__route_batch__free_unpacked(u, NULL);

		assert_int_equal(ipc_route_fib_encode(&e, &f, &s, packed), 0);
		v = wire(&f);
		assert_int_equal(ipc_route_fib_decode(&d, v, &err), 0);
		assert_int_equal(err.code, 0);
		assert_int_equal(d.n, s.n);
		for (size_t i = 0; i < s.n; i++)
			assert_route_equal(&s, order[packed][i], &d, i);
		fwd__fib_batch__free_unpacked(v, NULL);
	}
	ipc_route_set_fini(&s);
	ipc_route_set_fini(&d);
	ipc_route_enc_fini(&e);
}

/* An arena set takes its arrays from the arena at each decode, so a reset
 * between batches is safe. */
static void
test_arena_set(void **st)
{
	struct lc_arena *ar = lc_arena_new(0);
	struct ipc_route_set s, d;
	struct ipc_route_enc e;
	struct lc_err err;
	Fwd__FibBatch b = FWD__FIB_BATCH__INIT;

	(void)st;
	ipc_route_set_init(&s);
	ipc_route_set_init_arena(&d, ar);
	ipc_route_enc_init(&e);
	for (unsigned i = 0; i < 300; i++) {
		struct ipc_route *r = ipc_route_set_add(&s, 1);

		r->pfx.v4.s_addr = htonl(0xc6000000u + (i << 8));
		r->len = 24;
		s.nh[r->nh].addr.v4.s_addr = ip(gws[i % 3]);
	}
	assert_int_equal(ipc_route_fib_encode(&e, &b, &s, true), 0);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(ipc_route_fib_decode(&d, &b, &err), 0);
		assert_int_equal(d.n, 300);
		assert_route_equal(&s, 299, &d, 299);
		lc_arena_reset(ar);
	}
	ipc_route_set_fini(&d);
	ipc_route_set_fini(&s);
	ipc_route_enc_fini(&e);
	lc_arena_free(ar);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batch_message),
	    cmocka_unit_test(test_batch_packed),
	    cmocka_unit_test(test_batch_bad),
	    cmocka_unit_test(test_fib_message),
	    cmocka_unit_test(test_fib_packed),
	    cmocka_unit_test(test_fib_bad),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_arena_set),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
