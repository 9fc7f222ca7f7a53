/* tests/unit/fwd/test_fib_shared.c: a FIB in a shared memory segment
 * (FWD_FIB_F_SHARED, issue 26): adopted from its fd by a new FIB object
 * after the first is gone, it looks up exactly as a private FIB of the same
 * routes, and goes on taking updates (its groups' free list rebuilt); a
 * FIB of another shape is refused with its reason; a writer killed at a
 * random point leaves a FIB that is refused (mid-update) or consistent. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fwd/fwd_fib.h"
#include "libcommon/lc_err.h"

#define MAX_NH 4096

static uint64_t rng = 88172645463325252ULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((uint32_t)(rng >> 16));
}

static struct fwd_fib *
fib_make(unsigned flags)
{
	struct fwd_fib_conf c = {.max_nh = MAX_NH, .flags = flags};
	struct fwd_fib *f = fwd_fib_new(&c);

	assert_non_null(f);
	return (f);
}

/* A random route: lengths 8..32, more of them /24 and longer. */
static void
rnd_route(uint32_t *pfx, unsigned *len, unsigned *nh)
{
	unsigned l = 8 + rnd() % 25;

	if (rnd() % 3 == 0)
		l = 24 + rnd() % 9;
	*len = l;
	*pfx = rnd() & (l == 0 ? 0 : ~(uint32_t)0 << (32 - l));
	*nh = rnd() % (MAX_NH - 1);
	if (*nh == FWD_FIB_NH_NONE)
		(*nh)++;
}

static int
copy_cb(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	return (fwd_fib_add(arg, pfx, len, nh));
}

static int
bound_cb(uint32_t pfx, unsigned len, unsigned nh, void *arg)
{
	const struct fwd_fib **two = arg;
	uint32_t last = pfx | (len == 32 ? 0 : ~(uint32_t)0 >> len);

	(void)nh;
	if (fwd_fib_lookup(two[0], pfx) != fwd_fib_lookup(two[1], pfx) ||
	    fwd_fib_lookup(two[0], last) != fwd_fib_lookup(two[1], last))
		return (-1);
	return (0);
}

/* a and b route every address alike: each route's first and last address
 * and n random ones; and hold the same routes. */
static void
same(const struct fwd_fib *a, const struct fwd_fib *b, unsigned n)
{
	const struct fwd_fib *two[2] = {a, b};

	assert_int_equal(fwd_fib_count(a), fwd_fib_count(b));
	assert_int_equal(fwd_fib_walk(a, bound_cb, two), 0);
	for (unsigned i = 0; i < n; i++) {
		uint32_t d = rnd() ^ (rnd() << 16);

		if (fwd_fib_lookup(a, d) != fwd_fib_lookup(b, d))
			fail_msg("%08x: %u vs %u", d, fwd_fib_lookup(a, d),
			    fwd_fib_lookup(b, d));
	}
}

/* The same random updates on both. */
static void
churn(struct fwd_fib *a, struct fwd_fib *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t pfx;
		unsigned len, nh;

		rnd_route(&pfx, &len, &nh);
		if (rnd() % 4 == 0) {
			int ra = fwd_fib_del(a, pfx, len);

			assert_int_equal(ra, fwd_fib_del(b, pfx, len));
		} else {
			int ra = fwd_fib_add(a, pfx, len, nh);

			/* both out of groups at the same add, if ever */
			assert_int_equal(ra, fwd_fib_add(b, pfx, len, nh));
		}
	}
}

static void
test_adopt_whole(void **state)
{
	struct fwd_fib *sh = fib_make(FWD_FIB_F_SHARED), *ref = fib_make(0),
		       *ad;
	struct fwd_fib_conf c = {.max_nh = MAX_NH, .flags = FWD_FIB_F_SHARED};
	struct lc_err err;
	int fd;

	(void)state;
	churn(sh, ref, 60000);
	assert_int_equal(fwd_fib_pin(sh, 0xc6120001, 7), 0);
	assert_int_equal(fwd_fib_pin(ref, 0xc6120001, 7), 0);
	same(sh, ref, 200000);
	fd = dup(fwd_fib_seg_fd(sh));
	assert_true(fd >= 0);
	fwd_fib_free(sh); /* the process that made it is gone */
	ad = fwd_fib_adopt(&c, fd, &err);
	if (ad == NULL)
		fail_msg("adopt: %s", err.msg);
	close(fd);
	same(ad, ref, 500000);
	assert_int_equal(fwd_fib_tbl8_used(ad), fwd_fib_tbl8_used(ref));
	assert_int_equal(fwd_fib_pin_get(ad, 0xc6120001, NULL), 0);
	/* it goes on: the groups freed and made again come from the rebuilt
	 * free list */
	churn(ad, ref, 100000);
	same(ad, ref, 200000);
	assert_int_equal(fwd_fib_tbl8_used(ad), fwd_fib_tbl8_used(ref));
	fwd_fib_mark_stale(ad);
	fwd_fib_mark_stale(ref);
	churn(ad, ref, 1000);
	assert_int_equal(fwd_fib_sweep_stale(ad), fwd_fib_sweep_stale(ref));
	same(ad, ref, 100000);
	fwd_fib_clear(ad);
	fwd_fib_clear(ref);
	same(ad, ref, 10000);
	fwd_fib_free(ad);
	fwd_fib_free(ref);
}

static void
test_refused(void **state)
{
	struct fwd_fib *sh = fib_make(FWD_FIB_F_SHARED), *pv = fib_make(0);
	struct fwd_fib_conf c = {.max_nh = 1024, .flags = FWD_FIB_F_SHARED};
	struct lc_err err;

	(void)state;
	assert_int_equal(fwd_fib_seg_fd(pv), -1);
	assert_null(fwd_fib_adopt(&c, fwd_fib_seg_fd(sh), &err));
	assert_int_equal(err.code, -EPROTO);
	assert_string_equal(err.msg,
	    "a FIB of another shape (max_nh 4096, flags 0x8, 61439 groups; "
	    "this one 1024, 0x8, 64511)");
	c.max_nh = MAX_NH;
	c.flags = 0;
	assert_null(fwd_fib_adopt(&c, fwd_fib_seg_fd(sh), &err));
	assert_int_equal(err.code, -EINVAL);
	c.flags = FWD_FIB_F_SHARED;
	assert_null(fwd_fib_adopt(&c, 0, &err)); /* stdin */
	assert_int_equal(err.code, -EPROTO);
	fwd_fib_free(sh);
	fwd_fib_free(pv);
}

/* A child updates until killed at a random point: the FIB it leaves is
 * refused (killed inside an update) or routes exactly as a private FIB of
 * the routes it holds. */
static void
test_killed_writer(void **state)
{
	struct fwd_fib_conf c = {.max_nh = MAX_NH, .flags = FWD_FIB_F_SHARED};
	unsigned refused = 0, adopted = 0;

	(void)state;
	for (unsigned round = 0; round < 16; round++) {
		struct fwd_fib *sh = fib_make(FWD_FIB_F_SHARED), *ad, *ref;
		struct lc_err err;
		pid_t pid;
		int fd, st;

		if ((pid = fork()) == 0) {
			rng += round + 1;
			/* bursts of updates, then a pause: killed in one of
			 * them or between */
			for (unsigned k = 1;; k++) {
				uint32_t pfx;
				unsigned len, nh;

				if (k % 64 == 0)
					usleep(1000);
				rnd_route(&pfx, &len, &nh);
				if (rnd() % 4 == 0)
					(void)fwd_fib_del(sh, pfx, len);
				else
					(void)fwd_fib_add(sh, pfx, len, nh);
			}
		}
		fd = dup(fwd_fib_seg_fd(sh));
		usleep(30000 + (rnd() % 50000));
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		fwd_fib_free(sh);
		ad = fwd_fib_adopt(&c, fd, &err);
		close(fd);
		if (ad == NULL) {
			assert_int_equal(err.code, -EAGAIN);
			refused++;
			continue;
		}
		adopted++;
		ref = fib_make(0);
		assert_int_equal(fwd_fib_walk(ad, copy_cb, ref), 0);
		same(ad, ref, 200000);
		churn(ad, ref, 20000);
		same(ad, ref, 50000);
		fwd_fib_free(ad);
		fwd_fib_free(ref);
	}
	print_message("killed writer: %u refused mid-update, %u adopted "
		      "consistent\n",
	    refused, adopted);
	assert_int_equal(refused + adopted, 16);
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
