/* tests/fuzz/fuzz_inet6.c: libFuzzer harness: arbitrary text through
 * lc_inet6's address and prefix parsers. Never a crash; what parses prints
 * in canonical form, which parses back to the same address and prints the
 * same again; glibc's inet_pton accepts all we accept, with the same bytes;
 * a refusal has a message and writes nothing. And 16 raw bytes print and
 * parse back. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "libcommon/lc_inet6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX 96 /* longer text only adds more of the same */

static void
fz_addr_roundtrip(const struct lc_ip6 *a)
{
	char t[LC_IP6_STRLEN], t2[LC_IP6_STRLEN];
	struct lc_ip6 b;
	uint8_t g[16];
	size_t n = lc_inet6_fmt(a, t);

	if (n != strlen(t) || n >= LC_IP6_STRLEN)
		abort();
	if (lc_inet6_parse(t, 0, &b, NULL, NULL) != 0 ||
	    memcmp(a, &b, sizeof(b)) != 0)
		abort();
	if (strcmp(lc_inet6_str(&b, t2), t) != 0)
		abort();
	if (inet_pton(AF_INET6, t, g) != 1 || memcmp(g, a->b, 16) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct lc_ip6 sent = {{0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	    0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab}};
	char s[FZ_MAX + 1], zone[LC_INET6_ZONE_MAX + 1];
	unsigned flags;
	struct lc_ip6 a = sent, h = sent;
	struct lc_prefix6 p, q;
	struct lc_err e;
	int rv;

	if (size < 1)
		return (0);
	flags = data[0] & 7u;
	if (size >= 17) {
		memcpy(a.b, data + 1, 16);
		fz_addr_roundtrip(&a);
		a = sent;
	}
	size = size - 1 > FZ_MAX ? FZ_MAX : size - 1;
	memcpy(s, data + 1, size);
	s[size] = '\0';

	lc_err_clear(&e);
	strcpy(zone, "z");
	rv = lc_inet6_parse(s, flags, &a, zone, &e);
	if (rv == 0) {
		char *pct = strchr(s, '%');
		uint8_t g[16];

		if (e.msg[0] != '\0' || strlen(zone) > LC_INET6_ZONE_MAX ||
		    (pct == NULL) != (zone[0] == '\0'))
			abort();
		if (pct != NULL)
			*pct = '\0'; /* glibc would want a real interface */
		if (inet_pton(AF_INET6, s, g) != 1 || memcmp(g, a.b, 16) != 0)
			abort();
		fz_addr_roundtrip(&a);
		if (pct != NULL)
			*pct = '%';
	} else if (rv != -EINVAL || e.code != -EINVAL || e.msg[0] == '\0' ||
	    memcmp(&a, &sent, sizeof(a)) != 0 || strcmp(zone, "z") != 0)
		abort();

	memset(&p, 0xab, sizeof(p));
	lc_err_clear(&e);
	rv = lc_inet6_prefix_parse(s, flags, &p, &h, &e);
	if (rv == 0) {
		char t[LC_PREFIX6_STRLEN];
		struct lc_prefix6 m = p;

		if (p.len > 128)
			abort();
		/* the host bits are clear, and the printed form parses back
		 * strictly to the same prefix */
		for (unsigned i = p.len; i < 128; i++)
			if (p.addr.b[i / 8] & (0x80 >> (i % 8)))
				abort();
		if (!(flags & LC_INET6_F_HOST) &&
		    memcmp(&h, &p.addr, sizeof(h)) != 0)
			abort();
		lc_inet6_prefix_str(&m, t);
		if (lc_inet6_prefix_parse(t, 0, &q, NULL, NULL) != 0 ||
		    q.len != p.len || memcmp(&q.addr, &p.addr, 16) != 0)
			abort();
		fz_addr_roundtrip(&h);
	} else {
		struct lc_prefix6 z;

		memset(&z, 0xab, sizeof(z));
		if (rv != -EINVAL || e.msg[0] == '\0' ||
		    memcmp(&p, &z, sizeof(p)) != 0 ||
		    memcmp(&h, &sent, sizeof(h)) != 0)
			abort();
	}
	return (0);
}
