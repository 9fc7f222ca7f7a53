/* ipc/ipc_field.c: scalar fields by name (protobuf-c field descriptors). */
#include <errno.h>

#include "ipc_field.h"

int
ipc_field_find(const ProtobufCMessageDescriptor *desc, const char *name,
    struct ipc_field *f)
{
	const ProtobufCFieldDescriptor *fd =
	    protobuf_c_message_descriptor_get_field_by_name(desc, name);

	if (fd == NULL)
		return (-ENOENT);
	f->fd = fd;
	f->type = fd->type == PROTOBUF_C_TYPE_UINT32 ? IPC_FIELD_UINT32 :
	    fd->type == PROTOBUF_C_TYPE_BOOL	     ? IPC_FIELD_BOOL :
						       IPC_FIELD_OTHER;
	f->presence = fd->label == PROTOBUF_C_LABEL_OPTIONAL &&
	    !(fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF);
	f->single = (fd->label == PROTOBUF_C_LABEL_NONE ||
			fd->label == PROTOBUF_C_LABEL_OPTIONAL) &&
	    !(fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF);
	return (0);
}

void
ipc_field_set(ProtobufCMessage *msg, const struct ipc_field *f, uint64_t v)
{
	char *m = (char *)msg;

	if (f->type == IPC_FIELD_OTHER || !f->single)
		return;
	if (f->presence)
		*(protobuf_c_boolean *)(m + f->fd->quantifier_offset) = 1;
	if (f->type == IPC_FIELD_BOOL)
		*(protobuf_c_boolean *)(m + f->fd->offset) = v != 0;
	else
		*(uint32_t *)(m + f->fd->offset) = (uint32_t)v;
}
