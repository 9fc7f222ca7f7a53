/* tests/unit/bgp/test_attr.c: path attributes: one test per RFC 7606 case (named after its section), RFC 6793 AS4 merge and encoding, the canonical encoding, AS path helpers, and the intern table (1M lookups of a few thousand sets, timed, no malloc per lookup; -Wl,--wrap=malloc). */
#include <time.h>

#include "bgp_test.h"

/* ---- RFC 7606 section 3: general rules ------------------------------------------ */

static void
test_7606_3c_flags(void **state)
{
	uint8_t v[8] = {0, 0, 0xfd, 0xea, 198, 18, 0, 1};
	uint8_t mp[] = {0, 1, 1, 4, 198, 18, 1, 2, 0};

	(void)state;
	/* a well-known attribute marked optional: its own outcome, withdraw */
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_LOCAL_PREF, v, 4),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.n_reach, 0);
	assert_int_equal(t_u.n_unreach, 1);
	assert_int_equal(t_u.a.why_type, BGP_ATTR_LOCAL_PREF);
	/* AGGREGATOR's is discard (7.7) */
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_AGGREGATOR, v, 8),
	    BGP_OUT_DISCARD);
	assert_int_equal(t_u.n_reach, 1);
	assert_false(t_u.a.present & BGP_ABIT(BGP_ATTR_AGGREGATOR));
	/* MP_REACH_NLRI's is reset (7.11), with the attribute as data */
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_MP_REACH, mp,
			     sizeof(mp)),
	    BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_FLAGS);
	assert_int_equal(t_err.len, 3 + sizeof(mp));
	assert_int_equal(bgp_err_data(&t_err)[1], BGP_ATTR_MP_REACH);
	/* Partial on a well-known attribute and Extended Length on a short
	 * one are not errors */
	assert_int_equal(upd_parse_with(&C4,
			     WK | BGP_ATTR_F_PARTIAL | BGP_ATTR_F_EXTLEN,
			     BGP_ATTR_LOCAL_PREF, v, 4),
	    BGP_OUT_OK);
	assert_int_equal(t_u.a.local_pref, 0xfdea);
}

static void
test_7606_3d_missing_mandatory(void **state)
{
	uint8_t at[64], origin = 0;
	static const uint8_t path[] = {2, 1, 0, 0, 0xfd, 0xea};
	static const uint8_t mp[] = {0, 2, 1, 16, 0x20, 0x01, 0, 2, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 1, 0, 48, 0x20, 0x01, 0, 2, 0, 1};
	size_t o;

	(void)state;
	o = attr(at, 0, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	/* no NEXT_HOP with an NLRI field */
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_non_null(strstr(t_u.a.why, "NEXT_HOP"));
	assert_int_equal(t_u.n_unreach, 1);
	/* with MP_REACH_NLRI alone NEXT_HOP is not needed (RFC 4760 3) */
	o = attr(at, o, OPT, BGP_ATTR_MP_REACH, mp, sizeof(mp));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_OK);
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(t_u.reach[0].af, BGP_AF_IPV6);
	assert_int_equal(t_u.reach[0].nh_len, 16);
	/* no ORIGIN */
	o = attr(at, 0, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	o = attr(at, o, OPT, BGP_ATTR_MP_REACH, mp, sizeof(mp));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.a.why_type, BGP_ATTR_ORIGIN);
	assert_int_equal(t_u.n_reach, 0);
	assert_int_equal(t_u.unreach[0].af, BGP_AF_IPV6);
	/* no attributes at all with an NLRI field */
	assert_int_equal(upd_parse(&C4, NULL, 0, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	/* attributes without any prefix: nothing to judge */
	o = attr(at, 0, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_OK);
}

static void
test_7606_3g_duplicates(void **state)
{
	uint8_t at[128];
	static const uint8_t c1[] = {0xfd, 0xea, 0, 1},
			     c2[] = {0xfd, 0xea, 0, 2};
	static const uint8_t mpu[] = {0, 1, 1};
	size_t o;

	(void)state;
	o = std_attrs(at, true);
	o = attr(at, o, OPTT, BGP_ATTR_COMMUNITIES, c1, 4);
	o = attr(at, o, OPTT, BGP_ATTR_COMMUNITIES, c2, 4);
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_DISCARD);
	assert_memory_equal(t_u.a.comm, c1, 4); /* the first is kept */
	assert_int_equal(t_u.n_reach, 1);
	/* an MP attribute twice resets */
	o = attr(at, 0, OPT, BGP_ATTR_MP_UNREACH, mpu, 3);
	o = attr(at, o, OPT, BGP_ATTR_MP_UNREACH, mpu, 3);
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_ATTRLIST);
}

static void
test_7606_3j_strongest(void **state)
{
	uint8_t at[128], bad_origin = 7;
	size_t o;

	(void)state;
	/* discard (ATOMIC_AGGREGATE with a length) and withdraw (ORIGIN):
	 * withdraw, with its reason */
	o = attr(at, 0, WK, BGP_ATTR_ATOMIC_AGGREGATE, "x", 1);
	o += std_attrs(at + o, true);
	at[4 + 3] = bad_origin; /* ORIGIN's value, after ATOMIC_AGGREGATE */
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.a.why_type, BGP_ATTR_ORIGIN);
}

static void
test_7606_4_attr_overrun(void **state)
{
	uint8_t at[64];
	static const uint8_t mpu[] = {0, 1, 1, 24, 198, 18, 20};
	size_t o = std_attrs(at, true);

	(void)state;
	/* the last attribute claims more than there is: treat-as-withdraw of
	 * the NLRI field, located by the Total Path Attribute Length */
	at[o++] = OPTT;
	at[o++] = BGP_ATTR_COMMUNITIES;
	at[o++] = 40;
	at[o++] = 1;
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_true(t_u.a.broken);
	assert_int_equal(t_u.n_unreach, 1);
	assert_memory_equal(t_u.unreach[0].p, NLRI1, sizeof(NLRI1));
	/* fewer than 3 octets left: the same */
	o = std_attrs(at, true);
	at[o++] = OPTT;
	at[o++] = BGP_ATTR_COMMUNITIES;
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	/* an MP attribute seen before the break: its prefixes are known */
	o = attr(at, 0, OPT, BGP_ATTR_MP_UNREACH, mpu, sizeof(mpu));
	at[o++] = OPTT;
	at[o++] = BGP_ATTR_COMMUNITIES;
	at[o++] = 9;
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_WITHDRAW);
	/* nothing known before the break: whatever it hid cannot be
	 * withdrawn, so the session resets */
	o = 0;
	at[o++] = OPT;
	at[o++] = BGP_ATTR_MP_REACH;
	at[o++] = 200;
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_ATTRLIST);
}

static void
test_7606_4_lengths(void **state)
{
	uint8_t m[64];
	size_t len = upd_make(m, NULL, 0, NULL, 0, NULL, 0);

	(void)state;
	/* Withdrawn Routes Length and Total Path Attribute Length past the
	 * message: Malformed Attribute List (RFC 4271 6.3) */
	bgp_put16(m + 19, 1);
	assert_int_equal(bgp_update_parse(m, len, &C4, t_scratch, &t_u, &t_err),
	    -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_ATTRLIST);
	bgp_put16(m + 19, 0);
	bgp_put16(m + 21, 1);
	assert_int_equal(bgp_update_parse(m, len, &C4, t_scratch, &t_u, &t_err),
	    -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_ATTRLIST);
}

/* ---- RFC 7606 section 5: NLRI ----------------------------------------------------------- */

static void
test_7606_5_3_nlri_syntax(void **state)
{
	uint8_t at[64], m[64];
	static const uint8_t long33[] = {33, 1, 2, 3, 4, 5};
	static const uint8_t cut[] = {24, 198, 18};
	static const uint8_t mpbad[] = {0, 1, 1, 4, 198, 18, 1, 2, 0, 40, 1};
	size_t o = std_attrs(at, true), len;

	(void)state;
	assert_int_equal(upd_parse(&C4, at, o, long33, sizeof(long33)),
	    BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_NETWORK);
	assert_int_equal(upd_parse(&C4, at, o, cut, sizeof(cut)),
	    BGP_OUT_RESET);
	/* the Withdrawn Routes field too */
	len = upd_make(m, cut, sizeof(cut), NULL, 0, NULL, 0);
	assert_int_equal(bgp_update_parse(m, len, &C4, t_scratch, &t_u, &t_err),
	    -EBADMSG);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_NETWORK);
	/* and the prefixes of MP_REACH_NLRI */
	o = attr(at, o, OPT, BGP_ATTR_MP_REACH, mpbad, sizeof(mpbad));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_RESET);
}

static void
test_4724_2_eor(void **state)
{
	uint8_t m[64], t;
	int len;

	(void)state;
	for (int af = 0; af < BGP_AF_COUNT; af++) {
		len = bgp_eor_encode(m, sizeof(m), (enum bgp_af)af);
		assert_int_equal(len, af == BGP_AF_IPV4 ? 23 : 29);
		assert_int_equal(bgp_msg_check_hdr(m, (size_t)len, &t, &t_err),
		    len);
		assert_int_equal(bgp_update_parse(m, (size_t)len, &C4,
				     t_scratch, &t_u, &t_err),
		    0);
		assert_int_equal(t_u.eor, af);
		assert_int_equal(t_u.n_reach + t_u.n_unreach, 0);
	}
	/* an UPDATE that withdraws is no End-of-RIB */
	len = (int)upd_make(m, NLRI1, sizeof(NLRI1), NULL, 0, NULL, 0);
	assert_int_equal(bgp_update_parse(m, (size_t)len, &C4, t_scratch, &t_u,
			     &t_err),
	    0);
	assert_int_equal(t_u.eor, -1);
	assert_int_equal(bgp_eor_encode(m, 22, BGP_AF_IPV4), -ENOSPC);
}

/* ---- RFC 7606 section 7: each attribute -------------------------------------------------- */

static void
test_7606_7_1_origin(void **state)
{
	uint8_t at[64];
	size_t o = std_attrs(at, true);

	(void)state;
	at[3] = 3; /* value 3 */
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.a.why_type, BGP_ATTR_ORIGIN);
	at[3] = 0;
	at[2] = 2; /* length 2: AS_PATH's flags become ORIGIN's second octet */
	memmove(at + 5, at + 4, o - 4);
	o++;
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.a.why_type, BGP_ATTR_ORIGIN);
}

/* The standard attributes with AS_PATH replaced by path[0..n). */
static enum bgp_outcome
with_path(const struct bgp_codec *c, const uint8_t *path, size_t n)
{
	uint8_t at[BGP_MAX_LEN], origin = 0;
	static const uint8_t nh[] = {198, 18, 1, 2};
	size_t o;

	o = attr(at, 0, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, path, n);
	o = attr(at, o, WK, BGP_ATTR_NEXT_HOP, nh, 4);
	return (upd_parse(c, at, o, NLRI1, sizeof(NLRI1)));
}

static void
test_7606_7_2_as_path(void **state)
{
	static const uint8_t ok[] = {2, 1, 0, 0, 0xfd, 0xea, 1, 2, 0, 0, 0, 1,
	    0, 0, 0, 2};
	static const uint8_t zero_len[] = {2, 0};
	static const uint8_t overrun[] = {2, 2, 0, 0, 0xfd, 0xea};
	static const uint8_t underrun[] = {2, 1, 0, 0, 0xfd, 0xea, 2};
	static const uint8_t bad_type[] = {5, 1, 0, 0, 0xfd, 0xea};
	static const uint8_t as0[] = {2, 2, 0, 0, 0xfd, 0xea, 0, 0, 0, 0};
	static const uint8_t confed[] = {3, 1, 0, 0, 0, 9, 2, 1, 0, 0, 0xfd,
	    0xea};
	static const uint8_t other_first[] = {2, 1, 0, 0, 0xfd, 0xeb};

	(void)state;
	assert_int_equal(with_path(&CE, ok, sizeof(ok)), BGP_OUT_OK);
	assert_int_equal(bgp_aspath_count(t_u.a.aspath, t_u.a.aspath_len), 2);
	assert_int_equal(with_path(&C4, zero_len, sizeof(zero_len)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(with_path(&C4, overrun, sizeof(overrun)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(with_path(&C4, underrun, sizeof(underrun)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(with_path(&C4, bad_type, sizeof(bad_type)),
	    BGP_OUT_WITHDRAW);
	/* RFC 7607 */
	assert_int_equal(with_path(&C4, as0, sizeof(as0)), BGP_OUT_WITHDRAW);
	/* confederation segments: fine from iBGP, not from eBGP */
	assert_int_equal(with_path(&C4, confed, sizeof(confed)), BGP_OUT_OK);
	assert_int_equal(with_path(&CE, confed, sizeof(confed)),
	    BGP_OUT_WITHDRAW);
	/* the leftmost AS must be the eBGP peer's (RFC 4271 6.3) */
	assert_int_equal(with_path(&CE, other_first, sizeof(other_first)),
	    BGP_OUT_WITHDRAW);
	assert_non_null(strstr(t_u.a.why, "leftmost"));
	assert_int_equal(with_path(&CE, NULL, 0), BGP_OUT_WITHDRAW);
	assert_int_equal(with_path(&C4, NULL, 0), BGP_OUT_OK); /* iBGP */
}

static void
test_7606_7_3_next_hop(void **state)
{
	uint8_t at[64], origin = 0;
	static const uint8_t path[] = {2, 1, 0, 0, 0xfd, 0xea};
	static const uint8_t lo[] = {127, 0, 0, 1}, five[] = {198, 18, 1, 2, 0};
	static const uint8_t mp[] = {0, 1, 1, 4, 198, 18, 1, 9, 0, 24, 198, 18,
	    30};
	size_t o, base;

	(void)state;
	base = attr(at, 0, WK, BGP_ATTR_ORIGIN, &origin, 1);
	base = attr(at, base, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	o = attr(at, base, WK, BGP_ATTR_NEXT_HOP, five, 5);
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	assert_non_null(strstr(t_u.a.why, "NEXT_HOP length"));
	o = attr(at, base, WK, BGP_ATTR_NEXT_HOP, lo, 4);
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_WITHDRAW);
	/* a bad NEXT_HOP beside MP_REACH_NLRI and no NLRI field: ignored, the
	 * MP next hop is the route's */
	o = attr(at, o, OPT, BGP_ATTR_MP_REACH, mp, sizeof(mp));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_OK);
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(t_u.a.nexthop.s_addr,
	    lc_ip4_from_host(0xc6120109).s_addr);
	assert_true(t_u.a.present & BGP_ABIT(BGP_ATTR_NEXT_HOP));
}

static void
test_7606_7_4_med(void **state)
{
	static const uint8_t v[] = {0, 0, 1, 0};

	(void)state;
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MED, v, 3),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MED, v, 4),
	    BGP_OUT_OK);
	assert_int_equal(t_u.a.med, 256);
}

static void
test_7606_7_5_local_pref(void **state)
{
	static const uint8_t v[] = {0, 0, 0, 200};

	(void)state;
	/* from an external peer: discarded, whatever its shape */
	assert_int_equal(upd_parse_with(&CE, WK, BGP_ATTR_LOCAL_PREF, v, 4),
	    BGP_OUT_DISCARD);
	assert_false(t_u.a.present & BGP_ABIT(BGP_ATTR_LOCAL_PREF));
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(upd_parse_with(&CE, WK, BGP_ATTR_LOCAL_PREF, v, 2),
	    BGP_OUT_DISCARD);
	assert_int_equal(upd_parse_with(&C4, WK, BGP_ATTR_LOCAL_PREF, v, 2),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(upd_parse_with(&C4, WK, BGP_ATTR_LOCAL_PREF, v, 4),
	    BGP_OUT_OK);
	assert_int_equal(t_u.a.local_pref, 200);
}

static void
test_7606_7_6_atomic_aggregate(void **state)
{
	(void)state;
	assert_int_equal(upd_parse_with(&C4, WK, BGP_ATTR_ATOMIC_AGGREGATE, "x",
			     1),
	    BGP_OUT_DISCARD);
	assert_false(t_u.a.present & BGP_ABIT(BGP_ATTR_ATOMIC_AGGREGATE));
	assert_int_equal(upd_parse_with(&C4, WK, BGP_ATTR_ATOMIC_AGGREGATE,
			     NULL, 0),
	    BGP_OUT_OK);
	assert_true(t_u.a.present & BGP_ABIT(BGP_ATTR_ATOMIC_AGGREGATE));
}

static void
test_7606_7_7_aggregator(void **state)
{
	static const uint8_t v8[] = {0, 1, 0x11, 0x70, 198, 18, 0, 1};
	static const uint8_t v6[] = {0xfd, 0xea, 198, 18, 0, 1};
	static const uint8_t as0[] = {0, 0, 0, 0, 198, 18, 0, 1};

	(void)state;
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_AGGREGATOR, v8, 8),
	    BGP_OUT_OK);
	assert_int_equal(t_u.a.agg_as, 70000);
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_AGGREGATOR, v6, 6),
	    BGP_OUT_DISCARD);
	assert_int_equal(t_u.n_reach, 1);
	assert_int_equal(upd_parse_with(&C2, OPTT, BGP_ATTR_AGGREGATOR, v8, 8),
	    BGP_OUT_DISCARD);
	assert_int_equal(upd_parse_with(&C2, OPTT, BGP_ATTR_AGGREGATOR, v6, 6),
	    BGP_OUT_OK);
	assert_int_equal(t_u.a.agg_as, 65002);
	/* RFC 7607 */
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_AGGREGATOR, as0, 8),
	    BGP_OUT_DISCARD);
}

/* A list attribute: withdraw unless a non-zero multiple of item. */
static void
check_list(uint8_t flags, uint8_t type, size_t item)
{
	uint8_t v[64] = {0};

	assert_int_equal(upd_parse_with(&C4, flags, type, v, 0),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(upd_parse_with(&C4, flags, type, v, item + 1),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.a.why_type, type);
	assert_int_equal(upd_parse_with(&C4, flags, type, v, 2 * item),
	    BGP_OUT_OK);
	assert_true(t_u.a.present & BGP_ABIT(type));
}

static void
test_7606_7_8_communities(void **state)
{
	(void)state;
	check_list(OPTT, BGP_ATTR_COMMUNITIES, 4);
	assert_int_equal(t_u.a.comm_len, 8);
}

static void
test_7606_7_9_originator_id(void **state)
{
	static const uint8_t v[] = {198, 18, 0, 7};

	(void)state;
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_ORIGINATOR_ID, v, 3),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_ORIGINATOR_ID, v, 4),
	    BGP_OUT_OK);
	assert_memory_equal(&t_u.a.originator.s_addr, v, 4);
}

static void
test_7606_7_10_cluster_list(void **state)
{
	(void)state;
	check_list(OPT, BGP_ATTR_CLUSTER_LIST, 4);
}

static void
test_7606_7_11_mp_reach(void **state)
{
	static const uint8_t nh5[] = {0, 1, 1, 5, 198, 18, 1, 2, 3, 0};
	static const uint8_t v6nh4[] = {0, 2, 1, 4, 198, 18, 1, 2, 0};
	static const uint8_t unknown_af[] = {0, 25, 70, 4, 1, 2, 3, 4, 0, 9};
	static const uint8_t mcast[] = {0, 1, 1, 4, 224, 0, 0, 1, 0, 24, 198,
	    18, 31};
	struct bgp_codec v4only = C4;

	(void)state;
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_REACH, nh5, 4),
	    BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_OPTATTR);
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_REACH, nh5,
			     sizeof(nh5)),
	    BGP_OUT_RESET);
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_REACH, v6nh4,
			     sizeof(v6nh4)),
	    BGP_OUT_RESET);
	/* an AFI/SAFI the session does not have is ignored (RFC 4760 7) */
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_REACH, unknown_af,
			     sizeof(unknown_af)),
	    BGP_OUT_OK);
	v4only.afs = BGP_AF_BIT(BGP_AF_IPV4);
	assert_int_equal(upd_parse_with(&v4only, OPT, BGP_ATTR_MP_REACH, v6nh4,
			     sizeof(v6nh4)),
	    BGP_OUT_OK);
	assert_int_equal(t_u.n_reach, 1); /* the NLRI field only */
	/* a next hop that is no host address: withdraw */
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_REACH, mcast,
			     sizeof(mcast)),
	    BGP_OUT_WITHDRAW);
	assert_int_equal(t_u.n_unreach, 2);
}

static void
test_7606_7_12_mp_unreach(void **state)
{
	static const uint8_t v[] = {0, 1, 1, 16, 198, 18};

	(void)state;
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_UNREACH, v, 2),
	    BGP_OUT_RESET);
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_UNREACH, v, 5),
	    BGP_OUT_RESET); /* 16 bits announced, 8 there */
	assert_int_equal(upd_parse_with(&C4, OPT, BGP_ATTR_MP_UNREACH, v, 6),
	    BGP_OUT_OK);
	assert_int_equal(t_u.n_unreach, 1);
	assert_int_equal(t_u.unreach[0].len, 3);
}

static void
test_7606_7_14_ext_communities(void **state)
{
	(void)state;
	check_list(OPTT, BGP_ATTR_EXT_COMMUNITIES, 8);
}

static void
test_8092_6_large_community(void **state)
{
	(void)state;
	check_list(OPTT, BGP_ATTR_LARGE_COMMUNITY, 12);
	assert_int_equal(t_u.a.large_len, 24);
}

static void
test_4271_unknown_attributes(void **state)
{
	static const uint8_t v[] = {1, 2, 3};
	uint8_t canon[BGP_ATTR_CANON_MAX];
	int n;

	(void)state;
	/* unknown well-known: reset with the attribute as data */
	assert_int_equal(upd_parse_with(&C4, WK, 99, v, 3), BGP_OUT_RESET);
	assert_int_equal(t_err.subcode, BGP_ERR_UPD_WELLKNOWN);
	assert_int_equal(t_err.len, 6);
	assert_int_equal(bgp_err_data(&t_err)[1], 99);
	/* unknown optional non-transitive: quietly dropped */
	assert_int_equal(upd_parse_with(&C4, OPT, 99, v, 3), BGP_OUT_OK);
	n = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, canon, sizeof(canon));
	assert_int_equal(n, 4 + 13 + 7);
	/* unknown optional transitive: kept, passed on with Partial */
	assert_int_equal(upd_parse_with(&C4, OPTT, 99, v, 3), BGP_OUT_OK);
	assert_true(t_u.a.unknown[1] & (1ull << (99 - 64)));
	n = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, canon, sizeof(canon));
	assert_int_equal(n, 4 + 13 + 7 + 6);
	assert_int_equal(canon[24], OPTT | BGP_ATTR_F_PARTIAL);
	assert_int_equal(canon[25], 99);
	assert_memory_equal(canon + 27, v, 3);
}

/* ---- RFC 6793: 2-octet sessions ----------------------------------------------------------- */

/* A 2-octet UPDATE with AS_PATH p2, and AS4_PATH p4 and AGGREGATOR (2
 * octets) / AS4_AGGREGATOR when given. */
static enum bgp_outcome
as4_parse(const uint8_t *p2, size_t n2, const uint8_t *p4, size_t n4,
    const uint8_t *agg, const uint8_t *agg4)
{
	uint8_t at[BGP_MAX_LEN], origin = 0;
	static const uint8_t nh[] = {198, 18, 1, 2};
	size_t o;

	o = attr(at, 0, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, p2, n2);
	o = attr(at, o, WK, BGP_ATTR_NEXT_HOP, nh, 4);
	if (agg != NULL)
		o = attr(at, o, OPTT, BGP_ATTR_AGGREGATOR, agg, 6);
	if (p4 != NULL)
		o = attr(at, o, OPTT, BGP_ATTR_AS4_PATH, p4, n4);
	if (agg4 != NULL)
		o = attr(at, o, OPTT, BGP_ATTR_AS4_AGGREGATOR, agg4, 8);
	return (upd_parse(&C2, at, o, NLRI1, sizeof(NLRI1)));
}

static void
check_path(const char *want)
{
	char s[256];

	bgp_aspath_str(t_u.a.aspath, t_u.a.aspath_len, s, sizeof(s));
	assert_string_equal(s, want);
}

static void
test_6793_4_2_3_merge(void **state)
{
	/* 65001 TRANS TRANS 65009 as received; AS4_PATH 70000 70001 65009 */
	static const uint8_t p2[] = {2, 4, 0xfd, 0xe9, 0x5b, 0xa0, 0x5b, 0xa0,
	    0xfd, 0xf1};
	static const uint8_t p4[] = {2, 3, 0, 1, 0x11, 0x70, 0, 1, 0x11, 0x71,
	    0, 0, 0xfd, 0xf1};
	static const uint8_t p4long[] = {2, 5, 0, 1, 0x11, 0x70, 0, 1, 0x11,
	    0x71, 0, 0, 0xfd, 0xf1, 0, 0, 0, 1, 0, 0, 0, 2};
	static const uint8_t p4confed[] = {3, 1, 0, 1, 0x11, 0x70};
	static const uint8_t agg_trans[] = {0x5b, 0xa0, 198, 18, 0, 1};
	static const uint8_t agg_old[] = {0xfd, 0xe9, 198, 18, 0, 1};
	static const uint8_t agg4[] = {0, 1, 0x11, 0x72, 198, 18, 0, 2};
	/* a set in front counts one */
	static const uint8_t p2set[] = {1, 2, 0, 1, 0, 2, 2, 1, 0x5b, 0xa0};
	static const uint8_t p4set[] = {2, 1, 0, 1, 0x11, 0x70};

	(void)state;
	assert_int_equal(as4_parse(p2, sizeof(p2), NULL, 0, NULL, NULL),
	    BGP_OUT_OK);
	check_path("65001 23456 23456 65009");
	assert_int_equal(as4_parse(p2, sizeof(p2), p4, sizeof(p4), NULL, NULL),
	    BGP_OUT_OK);
	check_path("65001 70000 70001 65009");
	assert_int_equal(t_u.a.aspath[1], 4); /* one merged sequence */
	/* AS4_PATH longer than AS_PATH: ignored */
	assert_int_equal(as4_parse(p2, sizeof(p2), p4long, sizeof(p4long), NULL,
			     NULL),
	    BGP_OUT_DISCARD);
	check_path("65001 23456 23456 65009");
	/* an old speaker aggregated last: AS4_* ignored */
	assert_int_equal(as4_parse(p2, sizeof(p2), p4, sizeof(p4), agg_old,
			     agg4),
	    BGP_OUT_OK);
	check_path("65001 23456 23456 65009");
	assert_int_equal(t_u.a.agg_as, 65001);
	/* AGGREGATOR AS_TRANS: AS4_AGGREGATOR is the aggregator */
	assert_int_equal(as4_parse(p2, sizeof(p2), p4, sizeof(p4), agg_trans,
			     agg4),
	    BGP_OUT_OK);
	check_path("65001 70000 70001 65009");
	assert_int_equal(t_u.a.agg_as, 70002);
	assert_int_equal(ntohl(t_u.a.agg_id.s_addr), 0xc6120002);
	/* malformed AS4_PATH (confederation segment): discarded (RFC 6793 6) */
	assert_int_equal(as4_parse(p2, sizeof(p2), p4confed, sizeof(p4confed),
			     NULL, NULL),
	    BGP_OUT_DISCARD);
	check_path("65001 23456 23456 65009");
	assert_int_equal(as4_parse(p2set, sizeof(p2set), p4set, sizeof(p4set),
			     NULL, NULL),
	    BGP_OUT_OK);
	check_path("{1,2} 70000");
	/* on a 4-octet session AS4_PATH means nothing */
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_AS4_PATH, p4,
			     sizeof(p4)),
	    BGP_OUT_DISCARD);
	check_path("65002 65003");
}

static void
test_6793_4_2_2_encode(void **state)
{
	static const uint8_t p4[] = {2, 3, 0, 1, 0x11, 0x70, 0, 0, 0xfd, 0xe9,
	    0, 1, 0x11, 0x71};
	static const uint8_t agg[] = {0, 1, 0x11, 0x72, 198, 18, 0, 2};
	uint8_t at[256], wire[256], c1[BGP_ATTR_CANON_MAX],
	    c2[BGP_ATTR_CANON_MAX];
	size_t o;
	int n, k1, k2;

	(void)state;
	o = attr(at, 0, WK, BGP_ATTR_ORIGIN, "", 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, p4, sizeof(p4));
	o = attr(at, o, WK, BGP_ATTR_NEXT_HOP, "\xc6\x12\x01\x02", 4);
	o = attr(at, o, OPTT, BGP_ATTR_AGGREGATOR, agg, 8);
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_OK);
	k1 = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, c1, sizeof(c1));
	n = bgp_attr_encode(&t_u.a, &C2, BGP_AF_IPV4, wire, sizeof(wire));
	assert_true(n > 0);
	/* AS_PATH 23456 65001 23456, AGGREGATOR 23456, then AS4_PATH and
	 * AS4_AGGREGATOR with the real ASes */
	assert_int_equal(wire[5], BGP_ATTR_AS_PATH);
	assert_int_equal(wire[6], 8);
	assert_int_equal(bgp_get16(wire + 9), BGP_AS_TRANS);
	assert_int_equal(bgp_get16(wire + 11), 65001);
	assert_int_equal(bgp_get16(wire + 13), BGP_AS_TRANS);
	assert_int_equal(upd_parse(&C2, wire, (size_t)n, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_OK);
	check_path("70000 65001 70001");
	assert_int_equal(t_u.a.agg_as, 70002);
	k2 = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, c2, sizeof(c2));
	assert_int_equal(k1, k2);
	assert_memory_equal(c1, c2, (size_t)k1);
	/* no 4-octet AS: no AS4_PATH */
	assert_int_equal(upd_parse_with(&C4, OPTT, BGP_ATTR_COMMUNITIES, "abcd",
			     4),
	    BGP_OUT_OK);
	n = bgp_attr_encode(&t_u.a, &C2, BGP_AF_IPV4, wire, sizeof(wire));
	assert_int_equal(n, 4 + 3 + 6 + 7 + 7);
}

/* ---- the canonical encoding --------------------------------------------------------------- */

static void
test_canon_sorted_normalised(void **state)
{
	uint8_t at[256], c1[BGP_ATTR_CANON_MAX], c2[BGP_ATTR_CANON_MAX],
	    origin = 2;
	static const uint8_t comm[] = {0xfd, 0xea, 0, 1};
	static const uint8_t path[] = {2, 1, 0, 0, 0xfd, 0xea};
	static const uint8_t nh[] = {198, 18, 1, 2}, med[] = {0, 0, 0, 5};
	struct bgp_attrs a;
	size_t o;
	int n, m;

	(void)state;
	/* out of order, Extended Length on short ones, Partial on a
	 * well-known one */
	o = attr(at, 0, OPTT | BGP_ATTR_F_EXTLEN, BGP_ATTR_COMMUNITIES, comm,
	    4);
	o = attr(at, o, OPT, BGP_ATTR_MED, med, 4);
	o = attr(at, o, WK | BGP_ATTR_F_PARTIAL, BGP_ATTR_NEXT_HOP, nh, 4);
	o = attr(at, o, WK | BGP_ATTR_F_EXTLEN, BGP_ATTR_AS_PATH, path,
	    sizeof(path));
	o = attr(at, o, WK, BGP_ATTR_ORIGIN, &origin, 1);
	assert_int_equal(upd_parse(&C4, at, o, NLRI1, sizeof(NLRI1)),
	    BGP_OUT_OK);
	n = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, c1, sizeof(c1));
	assert_int_equal(n, 4 + 9 + 7 + 7 + 7);
	assert_int_equal(c1[0], WK);
	assert_int_equal(c1[1], BGP_ATTR_ORIGIN);
	assert_int_equal(c1[4], WK);
	assert_int_equal(c1[5], BGP_ATTR_AS_PATH);
	assert_int_equal(c1[13], WK);
	assert_int_equal(c1[14], BGP_ATTR_NEXT_HOP);
	assert_int_equal(c1[20], OPT);
	assert_int_equal(c1[21], BGP_ATTR_MED);
	assert_int_equal(c1[27], OPTT);
	assert_int_equal(c1[28], BGP_ATTR_COMMUNITIES);
	/* it parses back to itself */
	assert_int_equal(bgp_attr_parse(c1, (size_t)n, &C4, NULL, &a, &t_err),
	    BGP_OUT_OK);
	m = bgp_attr_canon(&a, BGP_AF_IPV4, c2, sizeof(c2));
	assert_int_equal(m, n);
	assert_memory_equal(c1, c2, (size_t)n);
	assert_int_equal(bgp_attr_canon(&a, BGP_AF_IPV4, c2, 10), -ENOSPC);
	/* a long attribute gets Extended Length */
	{
		uint8_t big[400] = {0};

		assert_int_equal(upd_parse_with(&C4, OPTT | BGP_ATTR_F_EXTLEN,
				     BGP_ATTR_COMMUNITIES, big, sizeof(big)),
		    BGP_OUT_OK);
		n = bgp_attr_canon(&t_u.a, BGP_AF_IPV4, c1, sizeof(c1));
		assert_int_equal(c1[24], OPTT | BGP_ATTR_F_EXTLEN);
		assert_int_equal(bgp_get16(c1 + 26), 400);
	}
}

static void
test_canon_ipv6(void **state)
{
	uint8_t at[128], c1[BGP_ATTR_CANON_MAX], origin = 0;
	static const uint8_t path[] = {2, 1, 0, 0, 0xfd, 0xea};
	static const uint8_t mp[] = {0, 2, 1, 16, 0x20, 0x01, 0, 2, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 1, 0, 48, 0x20, 0x01, 0, 2, 0, 1};
	struct bgp_attrs a;
	size_t o;
	int n;

	(void)state;
	o = attr(at, 0, OPT, BGP_ATTR_MP_REACH, mp, sizeof(mp));
	o = attr(at, o, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, path, sizeof(path));
	assert_int_equal(upd_parse(&C4, at, o, NULL, 0), BGP_OUT_OK);
	n = bgp_attr_canon(&t_u.a, BGP_AF_IPV6, c1, sizeof(c1));
	/* ORIGIN, AS_PATH, then the next hop alone in MP_REACH_NLRI */
	assert_int_equal(n, 4 + 9 + 3 + 5 + 16);
	assert_int_equal(c1[14], BGP_ATTR_MP_REACH);
	assert_int_equal(c1[15], 21);
	assert_int_equal(bgp_attr_parse(c1, (size_t)n, &C4, NULL, &a, &t_err),
	    BGP_OUT_OK);
	assert_int_equal(a.mp_reach.af, BGP_AF_IPV6);
	assert_int_equal(a.mp_reach.len, 0);
	assert_memory_equal(a.mp_reach.nh, mp + 4, 16);
}

/* ---- AS path helpers ---------------------------------------------------------------------- */

static void
test_aspath_helpers(void **state)
{
	static const uint8_t p[] = {2, 2, 0, 0, 0xfd, 0xea, 0, 1, 0x11, 0x70, 1,
	    2, 0, 0, 0, 7, 0, 0, 0, 8, 3, 1, 0, 0, 0, 9};
	uint8_t out[2048];
	char s[128];
	int n;

	(void)state;
	assert_int_equal(bgp_aspath_count(p, sizeof(p)), 3);
	assert_int_equal(bgp_aspath_first(p, sizeof(p)), 65002);
	assert_int_equal(bgp_aspath_first(p + 10, sizeof(p) - 10), 0);
	assert_true(bgp_aspath_contains(p, sizeof(p), 70000));
	assert_true(bgp_aspath_contains(p, sizeof(p), 9));
	assert_false(bgp_aspath_contains(p, sizeof(p), 65003));
	assert_int_equal(bgp_aspath_str(p, sizeof(p), s, sizeof(s)),
	    (int)strlen("65002 70000 {7,8} (9)"));
	assert_string_equal(s, "65002 70000 {7,8} (9)");
	assert_int_equal(bgp_aspath_str(p, sizeof(p), s, 6), 21);
	assert_string_equal(s, "65002");
	n = bgp_aspath_prepend(p, sizeof(p), 65001, 2, out, sizeof(out));
	assert_int_equal(n, (int)sizeof(p) + 8);
	bgp_aspath_str(out, (size_t)n, s, sizeof(s));
	assert_string_equal(s, "65001 65001 65002 70000 {7,8} (9)");
	/* in front of a set: a new sequence */
	n = bgp_aspath_prepend(p + 10, sizeof(p) - 10, 1, 1, out, sizeof(out));
	bgp_aspath_str(out, (size_t)n, s, sizeof(s));
	assert_string_equal(s, "1 {7,8} (9)");
	/* onto nothing, more than a segment holds */
	n = bgp_aspath_prepend(NULL, 0, 1, 300, out, sizeof(out));
	assert_int_equal(n, 2 + 2 + 300 * 4);
	assert_int_equal(bgp_aspath_count(out, (size_t)n), 300);
	assert_int_equal(bgp_aspath_prepend(p, sizeof(p), 1, 300, out, 100),
	    -ENOSPC);
}

/* ---- the intern table --------------------------------------------------------------------- */

/* The canonical encoding of set i: AS paths of 2-8 ASes, communities, a
 * MED for some, from a few hundred next hops. */
static int
make_set(unsigned i, uint8_t *buf, size_t cap)
{
	uint8_t at[256], path[64], origin = (uint8_t)(i % 3), nh[4];
	uint8_t comm[8], med[4];
	unsigned len = 2 + i % 7;
	size_t o;
	struct bgp_attrs a;

	path[0] = BGP_AS_SEQUENCE;
	path[1] = (uint8_t)len;
	for (unsigned k = 0; k < len; k++)
		bgp_put32(path + 2 + 4 * k, 64512 + (i * 7 + k * 13) % 1000);
	bgp_put32(path + 2, 65002);
	bgp_put32(nh, 0xc6120000u | (i % 251 + 1));
	bgp_put32(comm, 65002u << 16 | i);
	bgp_put32(comm + 4, 65002u << 16 | 666);
	bgp_put32(med, i / 2);
	o = attr(at, 0, WK, BGP_ATTR_ORIGIN, &origin, 1);
	o = attr(at, o, WK, BGP_ATTR_AS_PATH, path, 2 + 4 * len);
	o = attr(at, o, WK, BGP_ATTR_NEXT_HOP, nh, 4);
	if (i % 2)
		o = attr(at, o, OPT, BGP_ATTR_MED, med, 4);
	o = attr(at, o, OPTT, BGP_ATTR_COMMUNITIES, comm, 8);
	if (bgp_attr_parse(at, o, &C4, NULL, &a, NULL) != BGP_OUT_OK)
		return (-1);
	return (bgp_attr_canon(&a, BGP_AF_IPV4, buf, cap));
}

static void
test_intern_ref(void **state)
{
	struct bgp_intern *t = bgp_intern_new();
	struct bgp_intern_stats st;
	uint8_t c1[BGP_ATTR_CANON_MAX], c2[BGP_ATTR_CANON_MAX];
	struct bgp_aset *s1, *s2, *s3;
	struct bgp_attrs a;
	int n1 = make_set(1, c1, sizeof(c1)), n2 = make_set(2, c2, sizeof(c2));

	(void)state;
	assert_non_null(t);
	s1 = bgp_intern_get(t, c1, (size_t)n1);
	s2 = bgp_intern_get(t, c2, (size_t)n2);
	s3 = bgp_intern_get(t, c1, (size_t)n1);
	assert_ptr_equal(s1, s3);
	assert_ptr_not_equal(s1, s2);
	assert_int_equal(s1->refs, 2);
	/* the fields best path reads */
	assert_int_equal(s1->local_pref, 100);
	assert_int_equal(s1->flags, BGP_ASET_F_MED);
	assert_int_equal(s1->med, 0);
	assert_int_equal(s1->first_as, 65002);
	assert_int_equal(s1->aspath_count, 3);
	assert_int_equal(s1->origin, 1);
	assert_int_equal(ntohl(s1->nexthop.s_addr), 0xc6120002);
	assert_int_equal(bgp_aset_attrs(s2, &a), 0);
	assert_int_equal(a.comm_len, 8);
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 2);
	bgp_aset_unref(t, s3);
	bgp_aset_unref(t, bgp_aset_ref(s1));
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 2);
	bgp_aset_unref(t, s1);
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 1);
	/* what is not a canonical encoding is refused */
	c1[0] = 0;
	c1[1] = 1;
	errno = 0;
	assert_null(bgp_intern_get(t, c1, 3));
	assert_int_equal(errno, EINVAL);
	bgp_intern_free(t); /* with s2 still in it */
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

#define N_SETS	 4000
#define N_LOOKUP 1000000

static void
test_intern_1m(void **state)
{
	static uint8_t canon[N_SETS][128];
	static uint16_t clen[N_SETS];
	static struct bgp_aset *held[N_SETS];
	struct bgp_intern *t = bgp_intern_new();
	struct bgp_intern_stats st;
	unsigned long a0;
	double t0, t1;
	unsigned i;

	(void)state;
	for (i = 0; i < N_SETS; i++) {
		int n = make_set(i, canon[i], sizeof(canon[i]));

		assert_true(n > 0);
		clen[i] = (uint16_t)n;
	}
	t0 = now_s();
	for (i = 0; i < N_SETS; i++)
		held[i] = bgp_intern_get(t, canon[i], clen[i]);
	a0 = allocs;
	for (i = 0; i < N_LOOKUP; i++) {
		unsigned k = (i * 2654435761u) % N_SETS;

		if (bgp_intern_get(t, canon[k], clen[k]) != held[k])
			fail_msg("set %u interned twice", k);
	}
	t1 = now_s();
	/* no allocation for a set that is there */
	assert_int_equal(allocs - a0, 0);
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, N_SETS);
	printf("intern: %u sets, %u lookups in %.3f s (%.0f ns each), "
	       "%zu bytes (%.0f a set)\n",
	    N_SETS, N_SETS + N_LOOKUP, t1 - t0,
	    (t1 - t0) * 1e9 / (N_SETS + N_LOOKUP), st.bytes,
	    (double)st.bytes / N_SETS);
	/* every reference dropped: empty again */
	for (i = 0; i < N_LOOKUP; i++) {
		unsigned k = (i * 2654435761u) % N_SETS;

		bgp_aset_unref(t, held[k]);
	}
	for (i = 0; i < N_SETS; i++)
		bgp_aset_unref(t, held[i]);
	bgp_intern_stats(t, &st);
	assert_int_equal(st.sets, 0);
	bgp_intern_free(t);
}

static void
test_hash(void **state)
{
	uint8_t a[64] = {0}, b[64] = {0};

	(void)state;
	assert_true(bgp_hash(a, 16, 1) == bgp_hash(b, 16, 1));
	assert_true(bgp_hash(a, 16, 1) != bgp_hash(b, 17, 1));
	assert_true(bgp_hash(a, 16, 1) != bgp_hash(b, 16, 2));
	for (unsigned i = 0; i < 64; i++) {
		b[i] = 1;
		assert_true(bgp_hash(a, 64, 1) != bgp_hash(b, 64, 1));
		b[i] = 0;
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_7606_3c_flags),
	    cmocka_unit_test(test_7606_3d_missing_mandatory),
	    cmocka_unit_test(test_7606_3g_duplicates),
	    cmocka_unit_test(test_7606_3j_strongest),
	    cmocka_unit_test(test_7606_4_attr_overrun),
	    cmocka_unit_test(test_7606_4_lengths),
	    cmocka_unit_test(test_7606_5_3_nlri_syntax),
	    cmocka_unit_test(test_4724_2_eor),
	    cmocka_unit_test(test_7606_7_1_origin),
	    cmocka_unit_test(test_7606_7_2_as_path),
	    cmocka_unit_test(test_7606_7_3_next_hop),
	    cmocka_unit_test(test_7606_7_4_med),
	    cmocka_unit_test(test_7606_7_5_local_pref),
	    cmocka_unit_test(test_7606_7_6_atomic_aggregate),
	    cmocka_unit_test(test_7606_7_7_aggregator),
	    cmocka_unit_test(test_7606_7_8_communities),
	    cmocka_unit_test(test_7606_7_9_originator_id),
	    cmocka_unit_test(test_7606_7_10_cluster_list),
	    cmocka_unit_test(test_7606_7_11_mp_reach),
	    cmocka_unit_test(test_7606_7_12_mp_unreach),
	    cmocka_unit_test(test_7606_7_14_ext_communities),
	    cmocka_unit_test(test_8092_6_large_community),
	    cmocka_unit_test(test_4271_unknown_attributes),
	    cmocka_unit_test(test_6793_4_2_3_merge),
	    cmocka_unit_test(test_6793_4_2_2_encode),
	    cmocka_unit_test(test_canon_sorted_normalised),
	    cmocka_unit_test(test_canon_ipv6),
	    cmocka_unit_test(test_aspath_helpers),
	    cmocka_unit_test(test_intern_ref),
	    cmocka_unit_test(test_intern_1m),
	    cmocka_unit_test(test_hash),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
