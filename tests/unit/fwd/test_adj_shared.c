/* tests/unit/fwd/test_adj_shared.c: an adjacency table in a shared memory
 * segment (issue 26): adopted from its fd after its maker is gone, every
 * entry the fast path reads is as it was (FORWARD ones still FORWARD with
 * their header), the control maps too (the next index allocated, groups,
 * IPv6 gateways), and it goes on; another shape is refused; a writer
 * killed at random leaves it refused (mid-change) or usable. */
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

#include "fwd/fwd_adj.h"
#include "libcommon/lc_err.h"

#define SIZE 4096
#define NGRP 64

static const uint8_t pmac[6] = {2, 0x75, 0, 0, 0, 1};

static void
fill(struct fwd_adj_tbl *t, unsigned n)
{
	uint8_t mac[6] = {2, 0x75, 1, 0, 0, 0};
	uint8_t gw6[16] = {0x20, 0x01, 0, 2};
	uint16_t mem[3];

	assert_int_equal(fwd_adj_port_set(t, 0, pmac, 1500, true), 0);
	assert_int_equal(fwd_adj_port_set(t, 1, pmac, 1400, true), 0);
	for (unsigned i = 0; i < n; i++) {
		int idx = fwd_adj_alloc(t);

		assert_true(idx >= 0);
		mac[5] = (uint8_t)i;
		switch (i % 5) {
		case 0:
			assert_int_equal(fwd_adj_set_nh(t, (unsigned)idx, 0,
					     0xc6120000u + i, mac),
			    0);
			break;
		case 1:
			assert_int_equal(fwd_adj_set_glean(t, (unsigned)idx, 1),
			    0);
			break;
		case 2:
			gw6[15] = (uint8_t)i;
			assert_int_equal(fwd_adj_set_nh6(t, (unsigned)idx, 1,
					     gw6, mac),
			    0);
			break;
		case 3:
			assert_int_equal(fwd_adj_set_reject(t, (unsigned)idx),
			    0);
			break;
		default:
			assert_int_equal(fwd_adj_set_nh(t, (unsigned)idx, 1,
					     0xc6130000u + i, NULL),
			    0); /* unresolved */
			break;
		}
	}
	mem[0] = 0;
	mem[1] = 5;
	mem[2] = 10;
	{
		int g = fwd_adj_alloc(t);

		assert_true(g >= 0);
		assert_int_equal(fwd_adj_set_group(t, (unsigned)g, mem, 3), 0);
	}
	fwd_adj_release(t, 7); /* a hole below the others */
}

static void
test_adopt(void **state)
{
	struct fwd_adj_tbl *t = fwd_adj_tbl_new_shared(SIZE, NGRP), *a;
	struct fwd_adj *copy;
	struct lc_err err;
	int fd, idx;

	(void)state;
	assert_non_null(t);
	{
		struct fwd_adj_tbl *pv = fwd_adj_tbl_new(4, 1);

		assert_int_equal(fwd_adj_tbl_seg_fd(pv), -1);
		fwd_adj_tbl_free(pv);
	}
	fill(t, 1000);
	copy = malloc(SIZE * sizeof(*copy));
	memcpy(copy, t->ent, SIZE * sizeof(*copy));
	fd = dup(fwd_adj_tbl_seg_fd(t));
	fwd_adj_tbl_free(t); /* its maker is gone */
	a = fwd_adj_tbl_adopt(SIZE, NGRP, fd, &err);
	if (a == NULL)
		fail_msg("adopt: %s", err.msg);
	close(fd);
	assert_memory_equal(a->ent, copy, SIZE * sizeof(*copy));
	assert_int_equal(a->ent[0].action, FWD_ADJ_A_FORWARD);
	assert_int_equal(a->v6[2], 1);
	assert_int_equal(a->gw6[2][15], 2);
	/* the hole is the next index given */
	idx = fwd_adj_alloc(a);
	assert_int_equal(idx, 7);
	/* it goes on: a port set again republishes its entries */
	assert_int_equal(fwd_adj_port_set(a, 0, pmac, 1500, true), 0);
	assert_int_equal(a->ent[0].action, FWD_ADJ_A_FORWARD);
	fwd_adj_port_del(a, 1);
	assert_int_equal(a->ent[1].action, FWD_ADJ_A_DOWN);
	{
		uint8_t mac[6] = {2, 0x75, 9, 9, 9, 9};

		assert_true(fwd_adj_neigh_set(a, 0, 0xc6120000u, mac) >= 1);
		assert_memory_equal(a->ent[0].eth, mac, 6);
	}
	fwd_adj_tbl_free(a);
	free(copy);
}

static void
test_refused(void **state)
{
	struct fwd_adj_tbl *t = fwd_adj_tbl_new_shared(SIZE, NGRP);
	struct lc_err err;

	(void)state;
	assert_null(
	    fwd_adj_tbl_adopt(SIZE, NGRP * 2, fwd_adj_tbl_seg_fd(t), &err));
	assert_int_equal(err.code, -EPROTO);
	assert_null(fwd_adj_tbl_adopt(SIZE, NGRP, 0, &err));
	assert_int_equal(err.code, -EPROTO);
	assert_null(fwd_adj_tbl_adopt(SIZE, NGRP, -1, &err));
	fwd_adj_tbl_free(t);
}

static void
test_killed_writer(void **state)
{
	unsigned refused = 0, adopted = 0;

	(void)state;
	for (unsigned round = 0; round < 12; round++) {
		struct fwd_adj_tbl *t = fwd_adj_tbl_new_shared(SIZE, NGRP), *a;
		struct lc_err err;
		pid_t pid;
		int fd, st;

		assert_int_equal(fwd_adj_port_set(t, 0, pmac, 1500, true), 0);
		if ((pid = fork()) == 0) {
			uint8_t mac[6] = {2, 0x75, 1, 0, 0, 0};

			for (unsigned k = 1;; k++) {
				int idx = fwd_adj_alloc(t);

				if (idx < 0) {
					for (unsigned i = 0; i < SIZE; i++)
						fwd_adj_release(t, i);
					continue;
				}
				mac[5] = (uint8_t)k;
				(void)fwd_adj_set_nh(t, (unsigned)idx, 0,
				    0xc6120000u + k, mac);
				(void)fwd_adj_port_set(t, 0, pmac, 1500, true);
				if (k % 16 == 0)
					usleep(500);
			}
		}
		fd = dup(fwd_adj_tbl_seg_fd(t));
		usleep(20000 + round * 5000);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		fwd_adj_tbl_free(t);
		a = fwd_adj_tbl_adopt(SIZE, NGRP, fd, &err);
		close(fd);
		if (a == NULL) {
			assert_int_equal(err.code, -EAGAIN);
			refused++;
			continue;
		}
		adopted++;
		/* whole: every FORWARD entry is a resolved NH on port 0 */
		for (unsigned i = 0; i < SIZE; i++)
			if (a->ent[i].action == FWD_ADJ_A_FORWARD)
				assert_true(a->ent[i].kind == FWD_ADJ_K_NH &&
				    a->ent[i].resolved && a->ent[i].port == 0 &&
				    a->used[i]);
		assert_true(fwd_adj_alloc(a) >= 0 || a->low_free == SIZE);
		fwd_adj_tbl_free(a);
	}
	print_message("killed writer: %u refused mid-change, %u adopted\n",
	    refused, adopted);
	assert_true(adopted > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adopt),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_killed_writer),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
