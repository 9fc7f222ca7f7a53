/* tests/unit/fwd/test_dp6.c: IPv6 through the fast path over in-memory ports
 * with a real FIB6: IPv6 adjacencies, egress, MACs and type, hop limit, MTU,
 * and every drop counted by reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fwd/fwd_adj.h"
#include "fwd/fwd_pkt6.h"
#include "tests/unit/fwd/fwd_test_frames.h"

static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 0x10};
static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t gw1mac[6] = {0x02, 0, 0, 0, 1, 0xfe};
static const uint8_t gw2mac[6] = {0x02, 0, 0, 0, 2, 0xfe};

/* IPv6 adjacencies: their own gateway, type 0x86dd, and neighbour updates
 * that touch only the family and address they name. */
static void
test_adj6(void **st)
{
	struct fwd_adj_tbl *t = fwd_adj_tbl_new(64, 2);
	uint8_t gw[16], gw2[16];
	uint16_t m[2] = {1, 3};

	(void)st;
	assert_non_null(t);
	tf_ip6(gw, 1, 0xfe);
	tf_ip6(gw2, 2, 0xfe);
	assert_int_equal(fwd_adj_port_set(t, 0, mac0, 1500, true), 0);
	assert_int_equal(fwd_adj_port_set(t, 1, mac1, 1400, true), 0);
	assert_int_equal(fwd_adj_set_nh6(t, 1, 1, gw, NULL), 0);
	assert_int_equal(fwd_adj_set_nh(t, 2, 1, 0xfe, NULL), 0);
	assert_int_equal(fwd_adj_set_glean6(t, 3, 0), 0);
	assert_int_equal(fwd_adj_set_nh6(t, 4, 1, gw2, gw2mac), 0);
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[1].fmtu, 0);
	assert_int_equal(t->ent[1].eth[12], 0x86);
	assert_int_equal(t->ent[1].eth[13], 0xdd);
	assert_int_equal(t->ent[2].eth[12], 0x08);
	assert_int_equal(t->ent[3].eth[12], 0x86);
	assert_int_equal(t->ent[3].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[4].action, FWD_ADJ_A_FORWARD);
	assert_int_equal(t->ent[4].fmtu, 1400);
	assert_memory_equal(t->ent[4].eth, gw2mac, 6);
	assert_memory_equal(t->ent[4].eth + 6, mac1, 6);
	assert_true(fwd_adj_is_v6(t, 1) && !fwd_adj_is_v6(t, 2));
	assert_memory_equal(fwd_adj_gw6(t, 1), gw, 16);
	assert_null(fwd_adj_gw6(t, 3)); /* glean: no gateway */
	assert_null(fwd_adj_gw6(t, 2));
	/* an IPv4 neighbour never resolves an IPv6 adjacency, nor the other
	 * way round, nor another port's */
	assert_int_equal(fwd_adj_neigh_set(t, 1, 0, gw1mac), 0);
	assert_int_equal(fwd_adj_neigh_set6(t, 0, gw, gw1mac), 0);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw1mac), 1);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw1mac), 0); /* same */
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_FORWARD);
	assert_memory_equal(t->ent[1].eth, gw1mac, 6);
	assert_int_equal(t->ent[2].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(fwd_adj_neigh_set(t, 1, 0xfe, gw1mac), 1);
	assert_int_equal(t->ent[1].eth[12], 0x86); /* kept by the v4 update */
	/* an MTU change rebuilds v6 entries with their type */
	assert_int_equal(fwd_adj_port_set(t, 1, mac1, 1280, true), 0);
	assert_int_equal(t->ent[1].fmtu, 1280);
	assert_int_equal(t->ent[1].eth[13], 0xdd);
	assert_int_equal(t->ent[2].eth[13], 0x00);
	/* invalidated */
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, NULL), 1);
	assert_int_equal(t->ent[1].action, FWD_ADJ_A_RESOLVE);
	assert_int_equal(t->ent[1].fmtu, 0);
	/* an ECMP group of IPv6 members */
	assert_int_equal(fwd_adj_set_group(t, 5, m, 2), 0);
	/* reuse as IPv4 forgets the IPv6 gateway */
	assert_int_equal(fwd_adj_set_nh(t, 1, 1, 0xfe, gw1mac), 0);
	assert_false(fwd_adj_is_v6(t, 1));
	assert_int_equal(t->ent[1].eth[12], 0x08);
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw, gw2mac), 0);
	fwd_adj_release(t, 4);
	assert_false(fwd_adj_is_v6(t, 4));
	assert_int_equal(fwd_adj_neigh_set6(t, 1, gw2, gw1mac), 0);
	/* bad input */
	assert_int_equal(fwd_adj_set_nh6(t, 64, 1, gw, NULL), -EINVAL);
	assert_int_equal(fwd_adj_set_nh6(t, 6, FWD_PORT_MAX, gw, NULL),
	    -EINVAL);
	assert_int_equal(fwd_adj_set_nh6(t, 6, 1, NULL, NULL), -EINVAL);
	assert_int_equal(fwd_adj_set_glean6(t, FWD_FIB_B_ESC, 1), -EINVAL);
	assert_false(fwd_adj_is_v6(t, 6));
	assert_int_equal(fwd_adj_neigh_set6(t, 1, NULL, gw1mac), 0);
	fwd_adj_tbl_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_adj6),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
