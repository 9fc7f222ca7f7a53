/* tests/fuzz/fuzz_bootconf.c: libFuzzer harness for tern-rtrmgr's boot config parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtrmgr/rtm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lc_err err;
	struct rtm_config *c;

	memset(&err, 0, sizeof(err));
	c = rtm_config_parse("fuzz.conf", (const char *)data, size, &err);
	if (c == NULL && err.msg[0] == '\0')
		abort(); /* every refusal says why */
	rtm_config_free(c);
	return (0);
}
