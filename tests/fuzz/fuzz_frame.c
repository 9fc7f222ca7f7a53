/* tests/fuzz/fuzz_frame.c: libFuzzer harness for the IPC frame decoder: header and record validation, then each record's payload unpacked with its method's protobuf descriptor into an arena. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/ipc_int.h"
#include "libcommon/lc_arena.h"

static struct lc_arena *arena;
static ProtobufCAllocator alloc;

static void
on_rec(const struct ipc_rec *r, void *arg)
{
	const struct ipc_service_desc *svcs[] = {&ipc_svc_rtrmgr, &ipc_svc_mgmt,
	    &ipc_svc_rib, &ipc_svc_fwd};
	const struct ipc_method_desc *m = NULL;
	ProtobufCMessage *msg;
	unsigned i;

	(void)arg;
	for (i = 0; i < 4 && m == NULL; i++)
		m = ipc_method_lookup(svcs[i], r->service, r->method);
	if (m == NULL)
		return;
	msg = protobuf_c_message_unpack(r->kind == IPC_K_REP ? m->rep : m->req,
	    &alloc, r->len, r->payload);
	if (msg != NULL) {
		/* a decoded message packs again to at most the input size */
		size_t n = protobuf_c_message_get_packed_size(msg);

		if (n > r->len + 64)
			__builtin_trap();
	}
	lc_arena_reset(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (arena == NULL) {
		arena = lc_arena_new(0);
		ipc_arena_allocator(&alloc, arena);
	}
	(void)ipc_frame_parse_all(data, size, 1u << 20, on_rec, NULL);
	/* Also behind a valid header (count from the first byte), so the record checks get most of the work. */
	if (size >= 1 && size < (1u << 16)) {
		static uint8_t buf[IPC_FRAME_HDR + (1u << 16)];
		uint32_t magic = IPC_MAGIC, count = data[0],
			 length = (uint32_t)size - 1;
		uint16_t hl = IPC_FRAME_HDR;

		memset(buf, 0, IPC_FRAME_HDR);
		memcpy(buf, &magic, 4);
		buf[4] = IPC_FRAME_VERSION;
		memcpy(buf + 6, &hl, 2);
		memcpy(buf + 8, &count, 4);
		memcpy(buf + 12, &length, 4);
		memcpy(buf + IPC_FRAME_HDR, data + 1, size - 1);
		(void)ipc_frame_parse_all(buf, IPC_FRAME_HDR + size - 1,
		    1u << 20, on_rec, NULL);
	}
	return (0);
}
