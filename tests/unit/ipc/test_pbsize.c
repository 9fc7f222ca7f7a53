/* tests/unit/ipc/test_pbsize.c: ipc_pb_bound() is never below the packed size: random messages of every request and reply type of every service (widest values, empty and long strings, repeated fields, nested messages, unknown fields), packed into exactly the bound with a guard behind it; and a record packed this way goes out with its exact length. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"

static struct lc_arena *ar;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng);
}

/* A value that is sometimes 0, sometimes the widest encoding (negative int32, max uint64). */
static uint64_t
rnd_val(void)
{
	switch (rnd() % 4) {
	case 0:
		return (0);
	case 1:
		return (~0ull);
	case 2:
		return (rnd() % 200);
	default:
		return (rnd());
	}
}

static void fill(ProtobufCMessage *m, const ProtobufCMessageDescriptor *d,
    int depth);

static size_t
elem_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_SINT64:
		return (8);
	case PROTOBUF_C_TYPE_BOOL:
		return (sizeof(protobuf_c_boolean));
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return (sizeof(void *));
	case PROTOBUF_C_TYPE_BYTES:
		return (sizeof(ProtobufCBinaryData));
	default:
		return (4);
	}
}

/* rep: an element of a repeated field (never NULL: protobuf-c does not take NULL elements). */
static void
fill_one(const ProtobufCFieldDescriptor *f, void *p, int depth, bool rep)
{
	uint64_t v = rnd_val();

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING: {
		size_t n = rnd() % 3 == 0 ? 0 : rnd() % 300;
		char *s = lc_arena_alloc(ar, n + 1);

		memset(s, 'x', n);
		s[n] = '\0';
		*(char **)p = !rep && rnd() % 8 == 0 ? NULL : s;
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *b = p;

		b->len = rnd() % 3 == 0 ? 0 : rnd() % 300;
		b->data = lc_arena_calloc(ar, b->len + 1);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessageDescriptor *d = f->descriptor;
		ProtobufCMessage *m = NULL;

		if (rep || (depth < 4 && rnd() % 4 != 0)) {
			m = lc_arena_alloc(ar, d->sizeof_message);
			fill(m, d, depth + 1);
		}
		*(ProtobufCMessage **)p = m;
		break;
	}
	case PROTOBUF_C_TYPE_BOOL:
		*(protobuf_c_boolean *)p = (protobuf_c_boolean)(v & 1);
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumDescriptor *e = f->descriptor;

		*(int32_t *)p = e->n_values > 0 ?
		    e->values[rnd() % e->n_values].value :
		    0;
		break;
	}
	default:
		if (elem_size(f->type) == 8)
			memcpy(p, &v, 8);
		else {
			uint32_t w = (uint32_t)v;

			memcpy(p, &w, 4);
		}
	}
}

static void
fill(ProtobufCMessage *m, const ProtobufCMessageDescriptor *d, int depth)
{
	unsigned i;
	size_t n, k;

	protobuf_c_message_init(d, m);
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		char *member = (char *)m + f->offset;

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			char *arr;

			n = rnd() % 4 == 0 ||
				(depth >= 3 &&
				    f->type == PROTOBUF_C_TYPE_MESSAGE) ?
			    0 :
			    rnd() % (depth == 0 ? 200 : 8);
			arr = lc_arena_calloc(ar, (n + 1) * elem_size(f->type));
			for (k = 0; k < n; k++)
				fill_one(f, arr + k * elem_size(f->type), depth,
				    true);
			*(size_t *)((char *)m + f->quantifier_offset) = n;
			*(void **)member = arr;
		} else {
			if (f->label == PROTOBUF_C_LABEL_OPTIONAL &&
			    f->quantifier_offset != 0)
				*(protobuf_c_boolean *)((char *)m +
				    f->quantifier_offset) = 1;
			fill_one(f, member, depth, false);
		}
	}
	if (rnd() % 4 == 0) {
		/* unknown fields, as a decoder keeps them */
		m->n_unknown_fields = 1 + rnd() % 3;
		m->unknown_fields = lc_arena_calloc(ar,
		    m->n_unknown_fields * sizeof(*m->unknown_fields));
		for (k = 0; k < m->n_unknown_fields; k++) {
			m->unknown_fields[k].tag = 1000 + (uint32_t)k;
			m->unknown_fields[k].wire_type =
			    PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
			m->unknown_fields[k].len = rnd() % 50;
			m->unknown_fields[k].data = lc_arena_calloc(ar,
			    m->unknown_fields[k].len + 1);
		}
	}
}

static unsigned checked;

static void
check_desc(const ProtobufCMessageDescriptor *d)
{
	static uint8_t buf[4 << 20];
	ProtobufCMessage *m;
	size_t exact, bound, n;
	int round;

	if (d == NULL)
		return;
	for (round = 0; round < 40; round++) {
		lc_arena_reset(ar);
		m = lc_arena_alloc(ar, d->sizeof_message);
		fill(m, d, 0);
		exact = protobuf_c_message_get_packed_size(m);
		bound = ipc_pb_bound(m);
		assert_true(bound != SIZE_MAX);
		if (bound < exact)
			fail_msg("%s: bound %zu < packed %zu", d->name, bound,
			    exact);
		assert_true(bound + 64 <= sizeof(buf));
		/* packed into exactly the bound: the guard behind it stays */
		memset(buf + bound, 0xa5, 64);
		n = protobuf_c_message_pack(m, buf);
		assert_int_equal(n, exact);
		for (n = 0; n < 64; n++)
			assert_int_equal(buf[bound + n], 0xa5);
		checked++;
	}
}

static void
check_svc(const struct ipc_service_desc *s)
{
	unsigned i;

	for (i = 0; i < s->n_methods; i++) {
		if (s->methods[i].name == NULL)
			continue;
		check_desc(s->methods[i].req);
		check_desc(s->methods[i].rep);
	}
}

static void
test_bound_covers_every_message(void **state)
{
	(void)state;
	ar = lc_arena_new(0);
	check_svc(&ipc_svc_lifecycle);
	check_svc(&ipc_svc_rtrmgr);
	check_svc(&ipc_svc_mgmt);
	check_svc(&ipc_svc_rib);
	check_svc(&ipc_svc_fwd);
	assert_true(checked >= 40 * 20);
	lc_arena_free(ar);
}

/* Through the frame builder: the record carries the exact length, and the bytes decode. */
static void
test_record_exact_length(void **state)
{
	struct ipc_opts o = {.frame_max = 1 << 20};
	struct ipc_conn c;
	struct ipc_stats st;
	struct ipc_frame_hdr h;
	struct ipc_rec r;
	Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT, *back;
	Rib__Route rt[300], *rp[300];
	uint32_t nh = 0x010012c6, ifx = 7;
	size_t off;
	uint8_t *p;
	unsigned i;

	(void)state;
	memset(&st, 0, sizeof(st));
	o.batch_max = 1 << 20;
	o.hwm = 8 << 20;
	o.work_max = 4096;
	ipc_conn_init(&c, NULL, NULL, NULL, &st, &o, 1);
	for (i = 0; i < 300; i++) {
		rib__route__init(&rt[i]);
		rt[i].prefix = i << 8;
		rt[i].len = 24;
		rt[i].n_nh_addr = 1;
		rt[i].nh_addr = &nh;
		rt[i].n_nh_ifindex = 1;
		rt[i].nh_ifindex = &ifx;
		rp[i] = &rt[i];
	}
	b.n_add = 300;
	b.add = rp;
	b.seq = 42;
	for (i = 0; i < 3; i++)
		assert_int_equal(ipc_conn_put(&c, 10 + i, 2, IPC_K_REQ, 1, 0,
				     &b.base, NULL, 0),
		    0);
	ipc_txq_close(&c.tx);
	p = lc_buf_head(&c.tx.b);
	assert_int_equal(ipc_frame_hdr_parse(p, lc_buf_avail(&c.tx.b), 1 << 20,
			     &h),
	    0);
	assert_int_equal(h.count, 3);
	assert_int_equal(h.length + IPC_FRAME_HDR, lc_buf_avail(&c.tx.b));
	assert_int_equal(ipc_frame_body_check(&h, p + IPC_FRAME_HDR), 0);
	for (off = 0, i = 0; i < 3; i++) {
		ipc_frame_rec_read(p + IPC_FRAME_HDR, &off, &r);
		assert_int_equal(r.id, 10 + i);
		assert_int_equal(r.len, rib__route_batch__get_packed_size(&b));
		back = rib__route_batch__unpack(NULL, r.len, r.payload);
		assert_non_null(back);
		assert_int_equal(back->n_add, 300);
		assert_int_equal(back->seq, 42);
		rib__route_batch__free_unpacked(back, NULL);
	}
	ipc_txq_fini(&c.tx);
	lc_buf_fini(&c.rx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bound_covers_every_message),
	    cmocka_unit_test(test_record_exact_length),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
