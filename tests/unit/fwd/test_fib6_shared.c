/* tests/unit/fwd/test_fib6_shared.c: the IPv6 FIB in a shared memory
 * segment (FWD_FIB6_F_SHARED, issue 26): adopted from its fd after its
 * maker is gone, it looks up as a private FIB6 of the same routes and goes
 * on taking updates; another shape is refused; a writer killed at random
 * leaves it refused (mid-update) or consistent. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fwd/fwd_fib6.h"
#include "libcommon/lc_err.h"

#define MAX_NH 4096
#define MAX_G  (1u << 16) /* 64 MiB of groups reserved */

static uint64_t rng = 88172645463325252ULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((uint32_t)(rng >> 16));
}

static struct fwd_fib6_conf
conf(unsigned flags)
{
	struct fwd_fib6_conf c = {.max_nh = MAX_NH,
	    .max_tbl8 = MAX_G,
	    .flags = flags};

	return (c);
}

static struct fwd_fib6 *
fib_make(unsigned flags)
{
	struct fwd_fib6_conf c = conf(flags);
	struct fwd_fib6 *f = fwd_fib6_new(&c);

	assert_non_null(f);
	return (f);
}

/* A route of a realistic length under 2001:2::/32: /32../64 mostly, some
 * /128 and /20. */
static void
rnd_route(uint8_t p[16], unsigned *len, unsigned *nh)
{
	static const unsigned lens[] = {20, 32, 36, 40, 44, 48, 48, 48, 56, 64,
	    64, 128};
	unsigned l = lens[rnd() % (sizeof(lens) / sizeof(lens[0]))];

	memset(p, 0, 16);
	p[0] = 0x20;
	p[1] = 0x01;
	p[2] = 0;
	p[3] = 2;
	for (unsigned i = 4; i < 16; i++)
		p[i] = (uint8_t)rnd();
	p[4] &= 0x0f; /* keep them clustered: shared groups */
	for (unsigned b = l; b < 128; b++)
		p[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
	*len = l;
	*nh = rnd() % (MAX_NH - 1);
}

static int
copy_cb(const uint8_t p[16], unsigned len, unsigned nh, void *arg)
{
	return (fwd_fib6_add(arg, p, len, nh));
}

static int
bound_cb(const uint8_t p[16], unsigned len, unsigned nh, void *arg)
{
	const struct fwd_fib6 **two = arg;
	uint8_t last[16];

	(void)nh;
	memcpy(last, p, 16);
	for (unsigned b = len; b < 128; b++)
		last[b / 8] |= (uint8_t)(0x80u >> (b % 8));
	if (fwd_fib6_lookup(two[0], p) != fwd_fib6_lookup(two[1], p) ||
	    fwd_fib6_lookup(two[0], last) != fwd_fib6_lookup(two[1], last))
		return (-1);
	return (0);
}

static void
same(const struct fwd_fib6 *a, const struct fwd_fib6 *b, unsigned n)
{
	const struct fwd_fib6 *two[2] = {a, b};
	uint8_t d[16];
	unsigned len, nh;

	assert_int_equal(fwd_fib6_count(a), fwd_fib6_count(b));
	assert_int_equal(fwd_fib6_walk(a, bound_cb, two), 0);
	for (unsigned i = 0; i < n; i++) {
		rnd_route(d, &len, &nh);
		for (unsigned k = 6; k < 16; k++)
			d[k] = (uint8_t)rnd();
		if (fwd_fib6_lookup(a, d) != fwd_fib6_lookup(b, d))
			fail_msg("lookup %u differs", i);
	}
}

static void
churn(struct fwd_fib6 *a, struct fwd_fib6 *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t p[16];
		unsigned len, nh;

		rnd_route(p, &len, &nh);
		if (rnd() % 4 == 0) {
			int ra = fwd_fib6_del(a, p, len);

			assert_int_equal(ra, fwd_fib6_del(b, p, len));
		} else {
			int ra = fwd_fib6_add(a, p, len, nh);

			assert_int_equal(ra, fwd_fib6_add(b, p, len, nh));
		}
	}
}

static void
test_adopt_whole(void **state)
{
	struct fwd_fib6 *sh = fib_make(FWD_FIB6_F_SHARED), *ref = fib_make(0),
			*ad;
	struct fwd_fib6_conf c = conf(FWD_FIB6_F_SHARED);
	struct lc_err err;
	int fd;

	(void)state;
	churn(sh, ref, 40000);
	same(sh, ref, 100000);
	fd = dup(fwd_fib6_seg_fd(sh));
	fwd_fib6_free(sh);
	ad = fwd_fib6_adopt(&c, fd, &err);
	if (ad == NULL)
		fail_msg("adopt: %s", err.msg);
	close(fd);
	same(ad, ref, 200000);
	churn(ad, ref, 60000); /* groups freed and made from the rebuilt list */
	same(ad, ref, 100000);
	fwd_fib6_mark_stale(ad);
	fwd_fib6_mark_stale(ref);
	churn(ad, ref, 1000);
	assert_int_equal(fwd_fib6_sweep_stale(ad), fwd_fib6_sweep_stale(ref));
	same(ad, ref, 50000);
	fwd_fib6_clear(ad);
	fwd_fib6_clear(ref);
	same(ad, ref, 1000);
	fwd_fib6_free(ad);
	fwd_fib6_free(ref);
}

static void
test_refused(void **state)
{
	struct fwd_fib6 *sh = fib_make(FWD_FIB6_F_SHARED), *pv = fib_make(0);
	struct fwd_fib6_conf c = conf(FWD_FIB6_F_SHARED);
	struct lc_err err;

	(void)state;
	assert_int_equal(fwd_fib6_seg_fd(pv), -1);
	c.max_nh = 1024;
	assert_null(fwd_fib6_adopt(&c, fwd_fib6_seg_fd(sh), &err));
	assert_int_equal(err.code, -EPROTO);
	assert_string_equal(err.msg,
	    "an IPv6 FIB of another shape (max_nh 4096, flags 0x2, 65536 "
	    "groups; this one 1024, 0x2, 65536)");
	c = conf(FWD_FIB6_F_SHARED);
	c.max_tbl8 = MAX_G * 2; /* another layout: the segment says so */
	assert_null(fwd_fib6_adopt(&c, fwd_fib6_seg_fd(sh), &err));
	assert_int_equal(err.code, -EPROTO);
	c = conf(0);
	assert_null(fwd_fib6_adopt(&c, fwd_fib6_seg_fd(sh), &err));
	assert_int_equal(err.code, -EINVAL);
	fwd_fib6_free(sh);
	fwd_fib6_free(pv);
}

static void
test_killed_writer(void **state)
{
	struct fwd_fib6_conf c = conf(FWD_FIB6_F_SHARED);
	unsigned refused = 0, adopted = 0;

	(void)state;
	for (unsigned round = 0; round < 12; round++) {
		struct fwd_fib6 *sh = fib_make(FWD_FIB6_F_SHARED), *ad, *ref;
		struct lc_err err;
		pid_t pid;
		int fd, st;

		if ((pid = fork()) == 0) {
			rng += round + 1;
			for (unsigned k = 1;; k++) {
				uint8_t p[16];
				unsigned len, nh;

				if (k % 64 == 0)
					usleep(1000);
				rnd_route(p, &len, &nh);
				if (rnd() % 4 == 0)
					(void)fwd_fib6_del(sh, p, len);
				else
					(void)fwd_fib6_add(sh, p, len, nh);
			}
		}
		fd = dup(fwd_fib6_seg_fd(sh));
		usleep(30000 + (rnd() % 50000));
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		fwd_fib6_free(sh);
		ad = fwd_fib6_adopt(&c, fd, &err);
		close(fd);
		if (ad == NULL) {
			assert_int_equal(err.code, -EAGAIN);
			refused++;
			continue;
		}
		adopted++;
		ref = fib_make(0);
		assert_int_equal(fwd_fib6_walk(ad, copy_cb, ref), 0);
		same(ad, ref, 50000);
		churn(ad, ref, 5000);
		same(ad, ref, 20000);
		fwd_fib6_free(ad);
		fwd_fib6_free(ref);
	}
	print_message("killed writer: %u refused mid-update, %u adopted "
		      "consistent\n",
	    refused, adopted);
	assert_true(adopted > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adopt_whole),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_killed_writer),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
