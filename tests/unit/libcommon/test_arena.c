/* tests/unit/libcommon/test_arena.c: arena alignment, chunk growth, large
 * blocks, reset, string helpers; pool reuse and growth. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "libcommon/lc_arena.h"

static void
test_alignment_and_growth(void **state)
{
	struct lc_arena *a = lc_arena_new(1024);
	uint8_t *prev = NULL;

	(void)state;
	assert_non_null(a);
	assert_int_equal(lc_arena_size(a), 1024);
	assert_int_equal(lc_arena_used(a), 0);
	for (size_t i = 0; i < 500; i++) {
		size_t n = 1 + (i * 7) % 61;
		uint8_t *p = lc_arena_alloc(a, n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % LC_ARENA_ALIGN, 0);
		memset(p, (int)(i & 0xff), n); /* ASan checks the bound */
		assert_true(p != prev);
		prev = p;
	}
	/* 500 small blocks do not fit 1 KiB: more chunks were added */
	assert_true(lc_arena_size(a) > 1024);
	assert_true(lc_arena_used(a) <= lc_arena_size(a));
	assert_true(lc_arena_used(a) >= 500 * 16);
	lc_arena_free(a);
}

static void
test_contents_survive(void **state)
{
	struct lc_arena *a = lc_arena_new(256);
	uint32_t *v[200];

	(void)state;
	for (uint32_t i = 0; i < 200; i++) {
		v[i] = lc_arena_alloc(a, sizeof(uint32_t) * 3);
		assert_non_null(v[i]);
		v[i][0] = v[i][1] = v[i][2] = i * 2654435761u;
	}
	for (uint32_t i = 0; i < 200; i++) {
		assert_int_equal(v[i][0], i * 2654435761u);
		assert_int_equal(v[i][2], i * 2654435761u);
	}
	lc_arena_free(a);
}

static void
test_large(void **state)
{
	struct lc_arena *a = lc_arena_new(4096);
	uint8_t *small1, *big, *small2;
	size_t before;

	(void)state;
	small1 = lc_arena_alloc(a, 100);
	before = lc_arena_size(a);
	big = lc_arena_alloc(a, 100000); /* bigger than the chunk */
	assert_non_null(big);
	assert_int_equal((uintptr_t)big % LC_ARENA_ALIGN, 0);
	memset(big, 0x5a, 100000);
	assert_true(lc_arena_size(a) >= before + 100000);
	/* the current chunk keeps serving small blocks right after small1 */
	small2 = lc_arena_alloc(a, 100);
	assert_ptr_equal(small2, small1 + 112);
	assert_int_equal(big[99999], 0x5a);
	/* exactly the chunk size fits one chunk */
	assert_non_null(lc_arena_alloc(a, 4096));
	lc_arena_free(a);
}

static void
test_reset(void **state)
{
	struct lc_arena *a = lc_arena_new(0);
	void *first, *again;

	(void)state;
	assert_int_equal(lc_arena_size(a), LC_ARENA_DEFAULT_CHUNK);
	first = lc_arena_alloc(a, 10);
	for (int i = 0; i < 100; i++)
		assert_non_null(lc_arena_alloc(a, 4000));
	assert_non_null(lc_arena_alloc(a, 1 << 20));
	assert_true(lc_arena_size(a) > 2 * LC_ARENA_DEFAULT_CHUNK);
	lc_arena_reset(a);
	assert_int_equal(lc_arena_used(a), 0);
	assert_int_equal(lc_arena_size(a), LC_ARENA_DEFAULT_CHUNK);
	again = lc_arena_alloc(a, 10);
	assert_ptr_equal(first, again); /* the first chunk is reused */
	lc_arena_reset(a);
	lc_arena_reset(a);
	assert_non_null(lc_arena_alloc(a, 1));
	lc_arena_free(a);
	lc_arena_free(NULL);
}

static void
test_strings(void **state)
{
	struct lc_arena *a = lc_arena_new(64);
	const char *src = "neighbor 198.18.0.2 remote-as 65001";
	char *s, *t, *u;
	uint8_t *m, *z;
	uint8_t bytes[40];

	(void)state;
	s = lc_arena_strdup(a, src);
	assert_non_null(s);
	assert_ptr_not_equal(s, src);
	assert_string_equal(s, src);
	t = lc_arena_strndup(a, src, 8);
	assert_string_equal(t, "neighbor");
	assert_string_equal(lc_arena_strndup(a, "ab", 100), "ab");
	assert_string_equal(lc_arena_strdup(a, ""), "");
	u = lc_arena_sprintf(a, "%s/%u", "198.18.0.0", 15u);
	assert_string_equal(u, "198.18.0.0/15");
	for (unsigned i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)i;
	m = lc_arena_memdup(a, bytes, sizeof(bytes));
	assert_memory_equal(m, bytes, sizeof(bytes));
	z = lc_arena_calloc(a, 300);
	for (unsigned i = 0; i < 300; i++)
		assert_int_equal(z[i], 0);
	/* earlier strings are intact after more chunks were added */
	assert_string_equal(s, src);
	errno = 0;
	assert_null(lc_arena_strdup(a, NULL));
	assert_int_equal(errno, EINVAL);
	lc_arena_free(a);
}

static void
test_errors(void **state)
{
	struct lc_arena *a = lc_arena_new(64);
	void *p, *q;

	(void)state;
	errno = 0;
	assert_null(lc_arena_alloc(a, SIZE_MAX));
	assert_int_equal(errno, ENOMEM);
	assert_null(lc_arena_alloc(a, SIZE_MAX - 8));
	/* size 0 gives distinct valid pointers */
	p = lc_arena_alloc(a, 0);
	q = lc_arena_alloc(a, 0);
	assert_non_null(p);
	assert_non_null(q);
	assert_ptr_not_equal(p, q);
	lc_arena_free(a);
}

struct obj {
	uint64_t id;
	char name[40];
};

static void
test_pool_reuse(void **state)
{
	struct lc_pool pool;
	struct obj *o[100], *x;

	(void)state;
	assert_int_equal(lc_pool_init(&pool, sizeof(struct obj), 16), 0);
	assert_int_equal(lc_pool_inuse(&pool), 0);
	assert_int_equal(lc_pool_total(&pool), 0);
	for (int i = 0; i < 100; i++) {
		o[i] = lc_pool_get(&pool);
		assert_non_null(o[i]);
		assert_int_equal((uintptr_t)o[i] % LC_ARENA_ALIGN, 0);
		o[i]->id = (uint64_t)i;
		snprintf(o[i]->name, sizeof(o[i]->name), "obj%d", i);
	}
	assert_int_equal(lc_pool_inuse(&pool), 100);
	assert_int_equal(lc_pool_total(&pool), 112); /* 7 slabs of 16 */
	for (int i = 0; i < 100; i++) {
		for (int j = i + 1; j < 100; j++)
			assert_ptr_not_equal(o[i], o[j]);
		assert_int_equal(o[i]->id, (uint64_t)i);
	}
	/* a freed object is the next one handed out (LIFO) */
	lc_pool_put(&pool, o[42]);
	lc_pool_put(&pool, o[7]);
	assert_int_equal(lc_pool_inuse(&pool), 98);
	x = lc_pool_get(&pool);
	assert_ptr_equal(x, o[7]);
	x = lc_pool_get(&pool);
	assert_ptr_equal(x, o[42]);
	/* steady churn does not grow the pool */
	for (int r = 0; r < 1000; r++) {
		lc_pool_put(&pool, o[r % 100]);
		o[r % 100] = lc_pool_get(&pool);
	}
	assert_int_equal(lc_pool_total(&pool), 112);
	assert_int_equal(lc_pool_inuse(&pool), 100);
	lc_pool_put(&pool, NULL);
	assert_int_equal(lc_pool_inuse(&pool), 100);
	lc_pool_fini(&pool);
	assert_int_equal(lc_pool_total(&pool), 0);
}

static void
test_pool_small_and_bad(void **state)
{
	struct lc_pool pool;
	void *a, *b;

	(void)state;
	assert_int_equal(lc_pool_init(&pool, 0, 0), -EINVAL);
	assert_int_equal(lc_pool_init(&pool, SIZE_MAX, 0), -EINVAL);
	assert_int_equal(lc_pool_init(&pool, 1 << 20, SIZE_MAX / 2), -EINVAL);
	/* 1-byte objects still hold the free-list link */
	assert_int_equal(lc_pool_init(&pool, 1, 0), 0);
	a = lc_pool_get(&pool);
	b = lc_pool_get(&pool);
	assert_int_equal((uintptr_t)b - (uintptr_t)a, LC_ARENA_ALIGN);
	lc_pool_put(&pool, a);
	lc_pool_put(&pool, b);
	assert_ptr_equal(lc_pool_get(&pool), b);
	assert_ptr_equal(lc_pool_get(&pool), a);
	lc_pool_fini(&pool);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alignment_and_growth),
	    cmocka_unit_test(test_contents_survive),
	    cmocka_unit_test(test_large),
	    cmocka_unit_test(test_reset),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_pool_reuse),
	    cmocka_unit_test(test_pool_small_and_bad),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
