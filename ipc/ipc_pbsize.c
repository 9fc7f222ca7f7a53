/* ipc/ipc_pbsize.c: a cheap upper bound of a protobuf-c message's packed size, so a record is packed straight into the frame without a sizing pass. */
#include <stdint.h>
#include <string.h>

#include "ipc_int.h"

/*
 * protobuf_c_message_get_packed_size() walks the whole message, computing
 * the exact varint size of every value: for a batch of 1,000 routes it costs
 * about 40% of the pack itself. Packing needs only a size that is never
 * smaller than the result. The bound here is split per message type into
 *  - a constant, computed once per descriptor: every non-repeated scalar
 *    field counted at its widest (tag + 10 bytes for a varint, ...), present
 *    or not;
 *  - the fields that need the message: strings, bytes, sub-messages (any
 *    label) and repeated fields, visited per message (a count, a strlen, a
 *    recursion).
 * For rib.Route that leaves five fields of eleven to look at (the IPv6
 * fields prefix6 and nh_addr6 added two: ~70 instructions a route, even
 * when empty). The shapes live in a fixed per-thread table (no malloc); a
 * message type that does not fit gets SIZE_MAX and the caller falls back to
 * the exact size.
 */

#define SHAPES	   128	/* message types per thread */
#define VARS	   2048 /* variable fields over all types */
#define VARINT_MAX 10u
#define LEN_MAX	   10u /* a length prefix, at its widest */

struct shape {
	const ProtobufCMessageDescriptor *d;
	size_t fixed;
	uint16_t var0, nvar; /* field indices at vars[var0 ...] */
};

static __thread struct shape shapes[SHAPES];
static __thread uint16_t vars[VARS];
static __thread unsigned nvars;

static size_t
tag_size(uint32_t id)
{
	if (id < (1u << 4))
		return (1);
	if (id < (1u << 11))
		return (2);
	if (id < (1u << 18))
		return (3);
	if (id < (1u << 25))
		return (4);
	return (5);
}

/* Widest encoding of one scalar value (no tag); 0 for length-delimited types. */
static size_t
scalar_max(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return (4);
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return (8);
	case PROTOBUF_C_TYPE_BOOL:
		return (1);
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_UINT32:
		return (5);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return (0);
	default: /* int32 (negative: 10 bytes), int64, uint64, sint64, enum */
		return (VARINT_MAX);
	}
}

static bool
is_scalar(ProtobufCType t)
{
	return (t != PROTOBUF_C_TYPE_STRING && t != PROTOBUF_C_TYPE_BYTES &&
	    t != PROTOBUF_C_TYPE_MESSAGE);
}

static const struct shape *
shape_of(const ProtobufCMessageDescriptor *d)
{
	unsigned h = (unsigned)(((uintptr_t)d >> 4) * 2654435761u) % SHAPES, i,
		 k, nv = 0;
	struct shape *s;
	size_t fixed = 0;

	for (k = 0; k < SHAPES; k++) {
		s = &shapes[(h + k) % SHAPES];
		if (s->d == d)
			return (s);
		if (s->d == NULL)
			break;
	}
	if (k == SHAPES || d->n_fields > VARS - nvars)
		return (NULL);
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];

		if (f->label != PROTOBUF_C_LABEL_REPEATED && is_scalar(f->type))
			fixed += tag_size(f->id) + scalar_max(f->type);
		else
			vars[nvars + nv++] = (uint16_t)i;
	}
	s->fixed = fixed;
	s->var0 = (uint16_t)nvars;
	s->nvar = (uint16_t)nv;
	nvars += nv;
	s->d = d;
	return (s);
}

static size_t bound_msg(const ProtobufCMessage *m, const struct shape *s);

/* One length-delimited value (string, bytes, sub-message) of field f at member. */
static size_t
bound_one(const ProtobufCFieldDescriptor *f, const void *member,
    const struct shape *sub)
{
	size_t t = tag_size(f->id) + LEN_MAX, b;

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING: {
		const char *str = *(const char *const *)member;

		return (str != NULL ? t + strlen(str) : t);
	}
	case PROTOBUF_C_TYPE_BYTES:
		return (t + ((const ProtobufCBinaryData *)member)->len);
	default: {
		const ProtobufCMessage *m = *(
		    const ProtobufCMessage *const *)member;

		if (m == NULL)
			return (t);
		if (m->descriptor != f->descriptor)
			return (SIZE_MAX);
		b = bound_msg(m, sub);
		return (b == SIZE_MAX ? b : t + b);
	}
	}
}

static size_t
bound_msg(const ProtobufCMessage *m, const struct shape *s)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	size_t total = s->fixed, b, n, i, step;
	const struct shape *sub;
	unsigned v;

	for (v = 0; v < s->nvar; v++) {
		const ProtobufCFieldDescriptor *f =
		    &d->fields[vars[s->var0 + v]];
		const char *member = (const char *)m + f->offset;
		const char *qmember = (const char *)m + f->quantifier_offset;

		sub = NULL;
		if (f->type == PROTOBUF_C_TYPE_MESSAGE &&
		    (sub = shape_of(f->descriptor)) == NULL)
			return (SIZE_MAX);
		if (f->label != PROTOBUF_C_LABEL_REPEATED) {
			/* A oneof member is only looked at when it is the one set: the others share its storage. */
			if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
			    *(const uint32_t *)qmember != f->id)
				continue;
			b = bound_one(f, member, sub);
		} else {
			n = *(const size_t *)qmember;
			if (n == 0)
				continue;
			if (is_scalar(f->type)) {
				/* packed (tag, length, values) or not (tag per value) */
				b = n *
					(tag_size(f->id) +
					    scalar_max(f->type)) +
				    tag_size(f->id) + LEN_MAX;
			} else {
				const char *arr = *(const char *const *)member;

				step = f->type == PROTOBUF_C_TYPE_BYTES ?
				    sizeof(ProtobufCBinaryData) :
				    sizeof(void *);
				for (b = 0, i = 0; i < n; i++) {
					size_t e = bound_one(f, arr + i * step,
					    sub);

					if (e == SIZE_MAX)
						return (e);
					b += e;
				}
			}
		}
		if (b == SIZE_MAX)
			return (b);
		total += b;
	}
	for (i = 0; i < m->n_unknown_fields; i++)
		total += 5 + LEN_MAX + m->unknown_fields[i].len;
	return (total);
}

size_t
ipc_pb_bound(const ProtobufCMessage *m)
{
	const struct shape *s = shape_of(m->descriptor);

	return (s != NULL ? bound_msg(m, s) : SIZE_MAX);
}
