/* tests/unit/libcommon/test_seg.c: shared memory segments: made, written,
 * adopted through another fd with the contents intact; every refusal of
 * adopt (another kind, version, layout, an unsealed or short or foreign
 * file, a bad checksum, an update in progress) with its message; a child
 * killed mid-update leaves a segment that is refused; huge pages by
 * collapse. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_seg.h"

#define KIND 0x54455354u /* "TEST" */

static const struct lc_seg_spec spec[] = {
    {"table", 3u << 20, true},
    {"meta", 100, false},
};

static void
test_create_adopt(void **state)
{
	struct lc_seg a, b;
	struct lc_err err;
	uint32_t *t;
	int fd;

	(void)state;
	assert_int_equal(lc_seg_create(&a, "t", KIND, 1, spec, 2, &err), 0);
	t = lc_seg_region(&a, 0);
	assert_true(((uintptr_t)t & ((2u << 20) - 1)) == 0); /* 2 MiB aligned */
	for (unsigned i = 0; i < (3u << 20) / 4; i++)
		assert_int_equal(t[i], 0); /* zeroed */
	lc_seg_begin(&a);
	for (unsigned i = 0; i < (3u << 20) / 4; i++)
		t[i] = i * 2654435761u;
	strcpy(lc_seg_region(&a, 1), "meta!");
	lc_seg_end(&a);
	assert_int_equal(lc_seg_updates(&a), 1);
	fd = dup(lc_seg_fd(&a));
	lc_seg_close(&a); /* the writer is gone; fd keeps the memfd */
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 1, spec, 2, &err), 0);
	close(fd); /* the segment has its own */
	t = lc_seg_region(&b, 0);
	for (unsigned i = 0; i < (3u << 20) / 4; i++)
		if (t[i] != i * 2654435761u)
			fail_msg("entry %u lost", i);
	assert_string_equal(lc_seg_region(&b, 1), "meta!");
	assert_int_equal(lc_seg_updates(&b), 1);
	lc_seg_close(&b);
}

static void
test_refusals(void **state)
{
	struct lc_seg_spec other[2] = {spec[0], spec[1]};
	struct lc_seg a, b;
	struct lc_err err;
	int fd, plain;

	(void)state;
	assert_int_equal(lc_seg_create(&a, "t", KIND, 3, spec, 2, &err), 0);
	fd = lc_seg_fd(&a);
	assert_int_equal(lc_seg_adopt(&b, fd, KIND + 1, 3, spec, 2, &err),
	    -EPROTO);
	assert_string_equal(err.msg,
	    "a segment of another kind (54455354, not 54455355)");
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 4, spec, 2, &err), -EPROTO);
	assert_string_equal(err.msg, "layout version 3, this binary's is 4");
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, spec, 1, &err), -EPROTO);
	assert_string_equal(err.msg,
	    "another layout (2 regions, 8388608 bytes; expected 1, 6291456)");
	other[1].len = 101;
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, other, 2, &err),
	    -EPROTO);
	assert_string_equal(err.msg,
	    "another layout: region 1 is meta of 100 bytes, expected meta of "
	    "101");
	other[1].len = 100;
	other[1].name = "metb";
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, other, 2, &err),
	    -EPROTO);
	/* an update in progress */
	lc_seg_begin(&a);
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, spec, 2, &err), -EAGAIN);
	assert_string_equal(err.msg,
	    "an update was in progress when its writer ended");
	lc_seg_end(&a);
	assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, spec, 2, &err), 0);
	lc_seg_close(&b);
	/* a bad checksum: one byte of the header changed */
	{
		char c;

		assert_int_equal(pread(fd, &c, 1, 40), 1);
		c ^= 1;
		assert_int_equal(pwrite(fd, &c, 1, 40), 1);
		assert_int_equal(lc_seg_adopt(&b, fd, KIND, 3, spec, 2, &err),
		    -EPROTO);
		assert_string_equal(err.msg,
		    "not a segment (bad magic, header version or checksum)");
	}
	lc_seg_close(&a);
	/* not sealed; a pipe; short */
	plain = memfd_create("plain", MFD_CLOEXEC);
	assert_int_equal(ftruncate(plain, 8u << 20), 0);
	assert_int_equal(lc_seg_adopt(&b, plain, KIND, 3, spec, 2, &err),
	    -EPROTO);
	assert_string_equal(err.msg, "not a sealed memfd");
	close(plain);
	plain = memfd_create("short", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_int_equal(ftruncate(plain, 100), 0);
	assert_int_equal(fcntl(plain, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
	    0);
	assert_int_equal(lc_seg_adopt(&b, plain, KIND, 3, spec, 2, &err),
	    -EPROTO);
	assert_string_equal(err.msg, "shorter than a header");
	close(plain);
	{
		int p[2];

		assert_int_equal(pipe(p), 0);
		assert_int_equal(lc_seg_adopt(&b, p[0], KIND, 3, spec, 2, &err),
		    -EPROTO);
		close(p[0]);
		close(p[1]);
	}
	/* bad layouts */
	assert_int_equal(lc_seg_create(&a, "t", KIND, 1, spec, 0, &err),
	    -EINVAL);
	other[0].len = 0;
	assert_int_equal(lc_seg_create(&a, "t", KIND, 1, other, 2, &err),
	    -EINVAL);
}

/* A child writes in updates until killed: whatever it left is either an
 * update in progress (refused) or a whole one (every entry of the table
 * equal to the update count it says). Even rounds: updates back to back
 * (killed inside one, nearly always); odd rounds: one update, then work
 * outside any (killed there: adopted whole). */
static void
test_killed_writer(void **state)
{
	unsigned refused = 0, adopted = 0;

	(void)state;
	for (unsigned round = 0; round < 12; round++) {
		struct lc_seg a, b;
		struct lc_err err;
		pid_t pid;
		int fd, st;

		assert_int_equal(lc_seg_create(&a, "t", KIND, 1, spec, 2, &err),
		    0);
		if ((pid = fork()) == 0) {
			uint32_t *t = lc_seg_region(&a, 0);

			for (uint32_t u = 1;; u++) {
				lc_seg_begin(&a);
				for (unsigned i = 0; i < (3u << 20) / 4; i++)
					t[i] = u;
				lc_seg_end(&a);
				while (round & 1)
					; /* outside any update */
			}
		}
		fd = dup(lc_seg_fd(&a));
		usleep(20000 + round * 7000);
		for (unsigned w = 0; w < 5000 && lc_seg_updates(&a) == 0; w++)
			usleep(1000);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		lc_seg_close(&a);
		if (lc_seg_adopt(&b, fd, KIND, 1, spec, 2, &err) == -EAGAIN) {
			assert_true((round & 1) == 0);
			refused++;
		} else {
			const uint32_t *t = lc_seg_region(&b, 0);
			uint32_t u = (uint32_t)lc_seg_updates(&b);

			assert_true(u >= 1);
			for (unsigned i = 0; i < (3u << 20) / 4; i++)
				if (t[i] != u)
					fail_msg("entry %u is %u, update %u", i,
					    t[i], u);
			adopted++;
			lc_seg_close(&b);
		}
		close(fd);
	}
	print_message("killed writer: %u refused, %u adopted whole\n", refused,
	    adopted);
	assert_true(refused > 0);
	assert_true(adopted >= 6);
}

static void
test_collapse(void **state)
{
	struct lc_seg a;
	struct lc_err err;
	int rv;

	(void)state;
	assert_int_equal(lc_seg_create(&a, "t", KIND, 1, spec, 2, &err), 0);
	memset(lc_seg_region(&a, 0), 1, 3u << 20);
	rv = lc_seg_collapse(&a, 0);
	print_message("MADV_COLLAPSE: %s\n", rv == 0 ? "ok" : strerror(-rv));
	assert_true(rv == 0 || rv == -EINVAL || rv == -EAGAIN || rv == -ENOMEM);
	assert_int_equal(lc_seg_collapse(&a, 5), -EINVAL);
	lc_seg_close(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_adopt),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_killed_writer),
	    cmocka_unit_test(test_collapse),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
