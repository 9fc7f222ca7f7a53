/* tests/fuzz/fuzz_route.c: libFuzzer harness for the route codec's decoders: the first byte picks RouteBatch or FibBatch, the rest is the message; what decodes keeps its next hops inside the table and round trips through both encoders. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "ipc/ipc_route.h"
#include "libcommon/lc_arena.h"

static struct lc_arena *arena;
static ProtobufCAllocator alloc;
static struct ipc_route_set set, back;
static struct ipc_route_enc enc;
static uint8_t buf[1u << 20];

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

/* Every record is well formed: lengths in range, next hops in the table. */
static void
check_set(const struct ipc_route_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ipc_route *r = &s->rt[i];

		CHECK(r->family == AF_INET || r->family == AF_INET6);
		if (r->op == IPC_ROUTE_BAD)
			continue;
		CHECK(r->op <= IPC_ROUTE_DEL);
		CHECK(r->len <= (r->family == AF_INET ? 32 : 128));
		CHECK(r->kind <= IPC_ROUTE_REJECT || r->op == IPC_ROUTE_DEL);
		CHECK((size_t)r->nh + r->n_nh <= s->nnh);
	}
}

/* The good records of s again through the wire in one form: they decode
 * to as many records. */
static void
round_trip(const struct ipc_route_set *s, bool fib, bool packed)
{
	ProtobufCMessage *m;
	size_t n;
	struct lc_err err;

	if (fib) {
		Fwd__FibBatch b = FWD__FIB_BATCH__INIT;

		if (ipc_route_fib_encode(&enc, &b, s, packed) != 0)
			return; /* a next-hop set of mixed families */
		n = fwd__fib_batch__get_packed_size(&b);
		if (n > sizeof(buf))
			return;
		fwd__fib_batch__pack(&b, buf);
		m = (ProtobufCMessage *)fwd__fib_batch__unpack(&alloc, n, buf);
		CHECK(m != NULL);
		CHECK(
		    ipc_route_fib_decode(&back, (Fwd__FibBatch *)m, &err) == 0);
	} else {
		Rib__RouteBatch b = RIB__ROUTE_BATCH__INIT;

		if (ipc_route_batch_encode(&enc, &b, s, packed) != 0)
			return;
		n = rib__route_batch__get_packed_size(&b);
		if (n > sizeof(buf))
			return;
		rib__route_batch__pack(&b, buf);
		m = (ProtobufCMessage *)rib__route_batch__unpack(&alloc, n,
		    buf);
		CHECK(m != NULL);
		CHECK(ipc_route_batch_decode(&back, (Rib__RouteBatch *)m,
			  1u << 20, &err) == 0);
	}
	CHECK(back.n == s->n);
	check_set(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lc_err err;
	ProtobufCMessage *m;
	bool fib;

	if (arena == NULL) {
		arena = lc_arena_new(0);
		ipc_arena_allocator(&alloc, arena);
		ipc_route_set_init(&set);
		ipc_route_set_init(&back);
		ipc_route_enc_init(&enc);
	}
	if (size < 1)
		return (0);
	fib = data[0] & 1;
	if (fib)
		m = (ProtobufCMessage *)fwd__fib_batch__unpack(&alloc, size - 1,
		    data + 1);
	else
		m = (ProtobufCMessage *)rib__route_batch__unpack(&alloc,
		    size - 1, data + 1);
	if (m != NULL &&
	    (fib ? ipc_route_fib_decode(&set, (Fwd__FibBatch *)m, &err) :
		   ipc_route_batch_decode(&set, (Rib__RouteBatch *)m, 1u << 16,
		       &err)) == 0) {
		check_set(&set);
		if (fib) { /* the refused entries do not go out again */
			size_t w = 0;

			for (size_t i = 0; i < set.n; i++)
				if (set.rt[i].op != IPC_ROUTE_BAD)
					set.rt[w++] = set.rt[i];
			set.n = w;
		}
		round_trip(&set, fib, false);
		round_trip(&set, fib, true);
	}
	lc_arena_reset(arena);
	return (0);
}
