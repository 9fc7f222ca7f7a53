/* tests/unit/libcommon/test_buf.c: byte buffer append/consume/compaction,
 * tail+commit, printf, and failure leaving it unchanged. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libcommon/lc_buf.h"

static void
test_append_consume(void **state)
{
	struct lc_buf b;
	uint8_t chunk[1000], out[1000];
	size_t total = 0, got = 0;

	(void)state;
	lc_buf_init(&b);
	assert_int_equal(lc_buf_avail(&b), 0);
	assert_null(lc_buf_head(&b));
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (uint8_t)(i * 31);
	/* stream 100 KiB through, reading in other-sized pieces */
	for (int r = 0; r < 100; r++) {
		assert_int_equal(lc_buf_append(&b, chunk, sizeof(chunk)), 0);
		total += sizeof(chunk);
		while (lc_buf_avail(&b) >= 333) {
			memcpy(out, lc_buf_head(&b), 333);
			for (size_t i = 0; i < 333; i++)
				assert_int_equal(out[i],
				    (uint8_t)(((got + i) % 1000) * 31));
			lc_buf_consume(&b, 333);
			got += 333;
		}
	}
	assert_int_equal(lc_buf_avail(&b), total - got);
	/* the consumed prefix is compacted: memory stays bounded */
	assert_true(b.cap <= 4096);
	lc_buf_consume(&b, SIZE_MAX); /* more than available: drops all */
	assert_int_equal(lc_buf_avail(&b), 0);
	assert_int_equal(b.off, 0);
	assert_int_equal(b.len, 0);
	lc_buf_fini(&b);
	assert_null(b.data);
	assert_int_equal(b.cap, 0);
}

static void
test_tail_commit(void **state)
{
	struct lc_buf b = {0}; /* zeroed is a valid empty buffer */
	uint8_t *p;

	(void)state;
	assert_int_equal(lc_buf_append(&b, "ab", 2), 0);
	p = lc_buf_tail(&b, 5000);
	assert_non_null(p);
	assert_true(b.cap - b.len >= 5000);
	memset(p, 'x', 3);
	lc_buf_commit(&b, 3);
	assert_int_equal(lc_buf_avail(&b), 5);
	assert_memory_equal(lc_buf_head(&b), "abxxx", 5);
	/* commit never goes past the capacity */
	lc_buf_commit(&b, SIZE_MAX);
	assert_int_equal(b.len, b.cap);
	lc_buf_reset(&b);
	assert_int_equal(lc_buf_avail(&b), 0);
	assert_true(b.cap >= 5003); /* memory kept */
	assert_non_null(lc_buf_tail(&b, 0));
	lc_buf_fini(&b);
	assert_non_null(lc_buf_tail(&b, 0));
	lc_buf_fini(&b);
}

static void
test_reserve_compacts(void **state)
{
	struct lc_buf b;
	uint8_t *data;
	size_t cap;

	(void)state;
	lc_buf_init(&b);
	assert_int_equal(lc_buf_reserve(&b, 100), 0);
	cap = b.cap;
	data = b.data;
	memset(lc_buf_tail(&b, cap), 'z', cap);
	lc_buf_commit(&b, cap);
	lc_buf_consume(&b, cap - 10);
	/* room comes from compaction, not from growth */
	assert_int_equal(lc_buf_reserve(&b, cap - 10), 0);
	assert_int_equal(b.cap, cap);
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.off, 0);
	assert_int_equal(lc_buf_avail(&b), 10);
	assert_int_equal(b.data[9], 'z');
	lc_buf_fini(&b);
}

static void
test_printf(void **state)
{
	struct lc_buf b;
	char big[600];

	(void)state;
	lc_buf_init(&b);
	assert_int_equal(lc_buf_printf(&b, "%s/%u", "198.18.0.0", 15u), 0);
	assert_int_equal(lc_buf_avail(&b), 13);
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(lc_buf_printf(&b, " %s|", big), 0); /* grows */
	assert_int_equal(lc_buf_avail(&b), 13 + 1 + 599 + 1);
	assert_memory_equal(lc_buf_head(&b), "198.18.0.0/15 qq", 16);
	assert_int_equal(lc_buf_head(&b)[lc_buf_avail(&b) - 1], '|');
	lc_buf_fini(&b);
}

static void
test_enomem_unchanged(void **state)
{
	struct lc_buf b;

	(void)state;
	lc_buf_init(&b);
	assert_int_equal(lc_buf_append(&b, "hello", 5), 0);
	lc_buf_consume(&b, 1);
	assert_int_equal(lc_buf_reserve(&b, SIZE_MAX), -ENOMEM);
	assert_int_equal(lc_buf_reserve(&b, SIZE_MAX - 2), -ENOMEM);
	errno = 0;
	assert_null(lc_buf_tail(&b, SIZE_MAX));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(lc_buf_avail(&b), 4);
	assert_memory_equal(lc_buf_head(&b), "ello", 4);
	assert_int_equal(lc_buf_append(&b, "", 0), 0);
	lc_buf_fini(&b);
}

static void
test_array_grow(void **state)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(lc_array_grow((void **)&v, &cap, 1, sizeof(*v)), 0);
	assert_int_equal(cap, 64);
	v[0] = 7;
	assert_int_equal(lc_array_grow((void **)&v, &cap, 64, sizeof(*v)), 0);
	assert_int_equal(cap, 64); /* room already */
	assert_int_equal(lc_array_grow((void **)&v, &cap, 300, sizeof(*v)), 0);
	assert_int_equal(cap, 512);
	assert_int_equal(v[0], 7); /* contents kept */
	v[299] = 1;
	/* a size whose bytes overflow: refused, array and capacity unchanged */
	assert_int_equal(lc_array_grow((void **)&v, &cap, SIZE_MAX / 2,
			     sizeof(*v)),
	    -ENOMEM);
	assert_int_equal(cap, 512);
	assert_int_equal(v[0], 7);
	free(v);
}

/* Whole lines or nothing, '\n' added, the string always terminated. */
static void
test_str_addline(void **state)
{
	char b[16] = "";

	(void)state;
	assert_int_equal(lc_str_addline(b, sizeof(b), "one %d", 1), 0);
	assert_string_equal(b, "one 1\n");
	assert_int_equal(lc_str_addline(b, sizeof(b), "%s", "two"), 0);
	assert_string_equal(b, "one 1\ntwo\n");
	/* 6 bytes left: "abcdef\n" and its NUL need 8 */
	assert_int_equal(lc_str_addline(b, sizeof(b), "abcdef"), -ENOSPC);
	assert_string_equal(b, "one 1\ntwo\n");
	assert_int_equal(lc_str_addline(b, sizeof(b), "abcd"), 0);
	assert_string_equal(b, "one 1\ntwo\nabcd\n");
	/* full: not even an empty line */
	assert_int_equal(lc_str_addline(b, sizeof(b), "%s", ""), -ENOSPC);
	assert_string_equal(b, "one 1\ntwo\nabcd\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_append_consume),
	    cmocka_unit_test(test_tail_commit),
	    cmocka_unit_test(test_reserve_compacts),
	    cmocka_unit_test(test_printf),
	    cmocka_unit_test(test_enomem_unchanged),
	    cmocka_unit_test(test_array_grow),
	    cmocka_unit_test(test_str_addline),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
