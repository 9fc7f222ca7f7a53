/* tests/fuzz/fuzz_fdstore.c: libFuzzer harness: arbitrary bytes as a record
 * of the fd store's channel (what tern-rtrmgr reads from a component and a
 * component from it). Never a crash; a refusal has a message and no name;
 * an accepted record with a name has a valid one, and its text form parses
 * back to the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_fdstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[LC_FDSTORE_NAME_MAX], name2[LC_FDSTORE_NAME_MAX];
	char again[LC_FDSTORE_MSG_MAX + 8];
	enum lc_fdstore_op op, op2;
	struct lc_err err;
	unsigned n, n2;

	if (lc_fdstore_parse((const char *)data, size, &op, name, &n, &err) !=
	    0) {
		if (err.msg[0] == '\0' || name[0] != '\0')
			abort();
		return (0);
	}
	switch (op) {
	case LC_FDS_PUT:
	case LC_FDS_DEL:
	case LC_FDS_FD:
		if (!lc_fdstore_name_ok(name))
			abort();
		snprintf(again, sizeof(again), "%s %s",
		    op == LC_FDS_PUT	 ? "put" :
			op == LC_FDS_DEL ? "del" :
					   "fd",
		    name);
		break;
	case LC_FDS_END:
		if (n > LC_FDSTORE_MAX)
			abort();
		snprintf(again, sizeof(again), "end %u", n);
		break;
	default:
		return (0);
	}
	if (lc_fdstore_parse(again, strlen(again), &op2, name2, &n2, &err) !=
		0 ||
	    op2 != op || strcmp(name, name2) != 0 || n != n2)
		abort();
	return (0);
}
