/* ipc/ipc_field.h: a message's scalar fields found by name and set, for
 * encoders driven by a table (mgmt's schema): protobuf-c's reflection stays
 * inside ipc/. */
#ifndef IPC_FIELD_H
#define IPC_FIELD_H

#include <stdbool.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

enum ipc_field_type {
	IPC_FIELD_UINT32,
	IPC_FIELD_BOOL,
	IPC_FIELD_OTHER, /* any other scalar or a message: not settable */
};

/* One field of a message type, as ipc_field_find() found it. */
struct ipc_field {
	const ProtobufCFieldDescriptor *fd;
	enum ipc_field_type type;
	bool presence; /* an optional field of a proto2 file: has_X */
	bool single;   /* neither repeated, required nor in a oneof */
};

/*
 * Finds field name of message type desc. 0; -ENOENT when it has none.
 * The caller decides from type, presence and single whether the field
 * can carry what it wants to send.
 */
int ipc_field_find(const ProtobufCMessageDescriptor *desc, const char *name,
    struct ipc_field *f);

/* Sets a UINT32 or BOOL field of msg (of f's message type) to v, with its
 * presence. Other types are left alone. */
void ipc_field_set(ProtobufCMessage *msg, const struct ipc_field *f,
    uint64_t v);

/* true when f and g are the same field of the same message type. */
static inline bool
ipc_field_same(const struct ipc_field *f, const struct ipc_field *g)
{
	return (f->fd == g->fd);
}

#endif /* IPC_FIELD_H */
