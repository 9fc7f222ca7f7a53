/* tests/unit/mgmt/test_wire.c: every schema row with a wire column reaches
 * its field of the component's message (through a real pack and unpack),
 * a row added to the table alone does too, and rows that name no usable
 * field are refused at start-up with the row's path. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "mgmt/mgmt_conf.h"
#include "mgmt/mgmt_int.h"

static int
setup(void **st)
{
	struct lc_err err;

	(void)st;
	if (mgmt_wire_init(mgmt_schema, &err) != 0)
		fail_msg("%s", err.msg);
	return (0);
}

/* The nearest unit above sid, or list entry with a message of its own (a
 * bgp neighbour). */
static enum mgmt_sid
unit_of(unsigned sid)
{
	int s = (int)sid;

	while (s > 0 && !(mgmt_schema[s].flags & MGMT_SF_UNIT) &&
	    mgmt_wire_desc((enum mgmt_sid)s) == NULL)
		s = mgmt_schema[s].parent;
	assert_true(s > 0);
	return ((enum mgmt_sid)s);
}

/* A key any list of this type takes. */
static const char *
key_of(const struct mgmt_schema_node *s)
{
	switch (s->type) {
	case MGMT_T_IFNAME:
		return ("t0");
	case MGMT_T_PREFIX4:
	case MGMT_T_PREFIX46:
		return ("10.0.0.0/8");
	case MGMT_T_IP4:
		return ("198.18.0.9");
	default:
		fail_msg("no test key for list %s", s->name);
	}
	return (NULL);
}

/* A value of leaf s other than its default, and its number on the wire */
static const char *
value_of(const struct mgmt_schema_node *s, char *buf, uint32_t *wire)
{
	unsigned n = 0;

	switch (s->type) {
	case MGMT_T_NONE: /* a flag */
		*wire = 1;
		return (NULL);
	case MGMT_T_UINT:
		*wire = s->max;
		if (s->dflt != NULL && strtoul(s->dflt, NULL, 10) == s->max)
			*wire = s->min;
		snprintf(buf, 16, "%u", *wire);
		return (buf);
	case MGMT_T_ENUM:
		while (s->enums[n + 1] != NULL)
			n++;
		if (s->dflt != NULL && strcmp(s->dflt, s->enums[n]) == 0)
			n = 0;
		*wire = n;
		return (s->enums[n]);
	default:
		fail_msg("no test value for %s", s->name);
	}
	return (NULL);
}

/* "set" words for leaf sid: its path from the root, keys and value;
 * *nunit: how many of them name its unit. */
static unsigned
set_words(unsigned sid, const char **w, char *vbuf, uint32_t *wire,
    unsigned *nunit)
{
	unsigned up[16], n = 0, k = 0;
	const char *v;

	for (int s = (int)sid; s > 0; s = mgmt_schema[s].parent)
		up[n++] = (unsigned)s;
	while (n > 0) {
		const struct mgmt_schema_node *s = &mgmt_schema[up[--n]];

		if (s->name != NULL)
			w[k++] = s->name;
		if (s->kind == MGMT_SK_LIST)
			w[k++] = key_of(s);
		if (s == &mgmt_schema[unit_of(sid)])
			*nunit = k;
	}
	if ((v = value_of(&mgmt_schema[sid], vbuf, wire)) != NULL)
		w[k++] = v;
	return (k);
}

static int
first_cb(const struct mgmt_node *n, void *arg)
{
	*(const struct mgmt_node **)arg = n;
	return (1);
}

/* msg (of the unit's type) filled from conf, packed and unpacked. */
static ProtobufCMessage *
fill_wire(const struct mgmt_conf *conf, enum mgmt_sid unit)
{
	const ProtobufCMessageDescriptor *d = mgmt_wire_desc(unit);
	ProtobufCMessage *m, *back;
	uint8_t buf[4096];
	size_t len;

	assert_non_null(d);
	m = calloc(1, d->sizeof_message);
	protobuf_c_message_init(d, m);
	if (mgmt_schema[unit].kind == MGMT_SK_LIST) {
		const struct mgmt_node *n = NULL;

		mgmt_conf_foreach(conf, unit, first_cb, &n);
		mgmt_wire_fill(unit, n, m);
	} else {
		mgmt_wire_fill_conf(conf, unit, m);
	}
	len = protobuf_c_message_pack(m, buf);
	free(m);
	back = protobuf_c_message_unpack(d, NULL, len, buf);
	assert_non_null(back);
	return (back);
}

/* Is field fd set in m, and to what (0 if not). */
static bool
field_get(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd,
    uint32_t *v)
{
	const char *p = (const char *)m;

	*v = fd->type == PROTOBUF_C_TYPE_BOOL ?
	    (uint32_t) * (const protobuf_c_boolean *)(p + fd->offset) :
	    *(const uint32_t *)(p + fd->offset);
	if (fd->label == PROTOBUF_C_LABEL_OPTIONAL)
		return (
		    *(const protobuf_c_boolean *)(p + fd->quantifier_offset));
	return (*v != 0);
}

/*
 * Every row of the real table with a wire column: set to a value other
 * than its default, the leaf arrives in its field; not configured, the
 * field arrives unset, or as the default with MGMT_SF_WIRE_DFLT. No list
 * of leaves here: a row added to the table is checked as it is.
 */
static void
test_every_row_reaches_its_field(void **st)
{
	unsigned rows = 0;

	(void)st;
	for (unsigned sid = 1; sid < MGMT_S__COUNT; sid++) {
		const struct mgmt_schema_node *s = &mgmt_schema[sid];
		enum mgmt_sid unit;
		const ProtobufCFieldDescriptor *fd;
		struct mgmt_conf *c;
		struct lc_err err;
		ProtobufCMessage *m;
		const char *w[16];
		char vbuf[16];
		uint32_t want, got;
		unsigned nw, nunit = 0;

		if (s->wire == NULL)
			continue;
		rows++;
		unit = unit_of(sid);
		fd = protobuf_c_message_descriptor_get_field_by_name(
		    mgmt_wire_desc(unit), s->wire);
		assert_non_null(fd);
		nw = set_words(sid, w, vbuf, &want, &nunit);
		c = mgmt_conf_new();
		if (mgmt_conf_set(c, w, nw, &err) != 0)
			fail_msg("set %s: %s", s->name, err.msg);
		m = fill_wire(c, unit);
		if (!field_get(m, fd, &got) || got != want)
			fail_msg("%s: field %s is %u, set %u", s->name, s->wire,
			    got, want);
		protobuf_c_message_free_unpacked(m, NULL);
		/* the leaf not configured (its unit there, for a list) */
		if (mgmt_conf_delete(c, w,
			s->kind == MGMT_SK_FLAG ? nw : nw - 1, &err) != 0)
			fail_msg("delete %s: %s", s->name, err.msg);
		if (mgmt_schema[unit].kind == MGMT_SK_LIST &&
		    mgmt_conf_set(c, w, nunit, &err) != 0)
			fail_msg("set %s's unit: %s", s->name, err.msg);
		m = fill_wire(c, unit);
		if (s->flags & MGMT_SF_WIRE_DFLT) {
			assert_true(field_get(m, fd, &got));
			assert_int_equal(got, strtoul(s->dflt, NULL, 10));
		} else if (field_get(m, fd, &got)) {
			fail_msg("%s: field %s set (%u) when not configured",
			    s->name, s->wire, got);
		}
		protobuf_c_message_free_unpacked(m, NULL);
		mgmt_conf_free(c);
	}
	/* today's: mtu, route distance, ecmp-width, 2 distances, workers,
	 * icmp-rate-limit */
	assert_true(rows >= 7);
}

/*
 * A row given a wire column in a copy of the table, and nothing else:
 * `disable` as IfConfig.deleted (a bool) arrives with no encoder code.
 */
static void
test_row_added_alone(void **st)
{
	static struct mgmt_schema_node tab[MGMT_S__COUNT];
	const char *w[] = {"interfaces", "t0", "disable"};
	const char *wm[] = {"interfaces", "t0", "mtu", "1400"};
	struct mgmt_conf *c = mgmt_conf_new();
	struct lc_err err;
	Fwd__IfConfig *ic;

	(void)st;
	memcpy(tab, mgmt_schema, sizeof(tab));
	tab[MGMT_S_IFACE_DISABLE].wire = "deleted";
	if (mgmt_wire_init(tab, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(mgmt_conf_set(c, w, 3, &err), 0);
	/* an unset mtu is not sent (fwd takes the device's): set one */
	assert_int_equal(mgmt_conf_set(c, wm, 4, &err), 0);
	ic = (Fwd__IfConfig *)fill_wire(c, MGMT_S_IFACE);
	assert_true(ic->deleted);
	assert_int_equal(ic->mtu, 1400); /* the real rows still there */
	fwd__if_config__free_unpacked(ic, NULL);
	assert_int_equal(mgmt_conf_delete(c, w, 3, &err), 0);
	assert_int_equal(mgmt_conf_set(c, w, 2, &err), 0);
	ic = (Fwd__IfConfig *)fill_wire(c, MGMT_S_IFACE);
	assert_false(ic->deleted);
	fwd__if_config__free_unpacked(ic, NULL);
	/* in the real table, disable is the hand-encoded `enabled` */
	assert_int_equal(mgmt_wire_init(mgmt_schema, &err), 0);
	ic = (Fwd__IfConfig *)fill_wire(c, MGMT_S_IFACE);
	assert_false(ic->deleted);
	fwd__if_config__free_unpacked(ic, NULL);
	mgmt_conf_free(c);
}

/* One bad row in a copy of the table: init refuses it, naming it. */
static void
bad_row(enum mgmt_sid sid, const char *wire, unsigned flags_or,
    unsigned flags_and, const char *dflt, unsigned comp, unsigned min,
    const char *want)
{
	static struct mgmt_schema_node tab[MGMT_S__COUNT];
	struct lc_err err;

	memcpy(tab, mgmt_schema, sizeof(tab));
	tab[sid].wire = wire;
	tab[sid].flags = (tab[sid].flags | flags_or) & ~flags_and;
	if (dflt != NULL)
		tab[sid].dflt = strcmp(dflt, "-") == 0 ? NULL : dflt;
	if (comp != 0)
		tab[sid].comp = comp;
	if (min != (unsigned)-1)
		tab[sid].min = min;
	assert_int_equal(mgmt_wire_init(tab, &err), -EINVAL);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s' does not say '%s'", err.msg, want);
}

static void
test_bad_rows_refused(void **st)
{
	const unsigned no = (unsigned)-1;
	struct lc_err err;

	(void)st;
	bad_row(MGMT_S_FWD_WORKERS, "workerz", 0, 0, NULL, 0, no,
	    "schema row fwd workers: fwd.FwdConfig has no field 'workerz'");
	bad_row(MGMT_S_FWD_WORKERS, "txn", 0, 0, NULL, 0, no,
	    "fwd workers: field txn of fwd.FwdConfig: a number or an enum "
	    "needs a uint32 field");
	bad_row(MGMT_S_ROUTE_DISTANCE, "nh_ifindex", 0, 0, NULL, 0, no,
	    "is repeated, required or in a oneof");
	bad_row(MGMT_S_FWD_ICMP_RATE, "workers", 0, 0, NULL, 0, no,
	    "fwd icmp-rate-limit: field workers of fwd.FwdConfig carries "
	    "another leaf already");
	bad_row(MGMT_S_FWD_WORKERS, "workers", 0, 0, NULL, MGMT_COMP_RIB, no,
	    "not sent to the component of fwd.FwdConfig");
	bad_row(MGMT_S_SYS_HOSTNAME, "host_name", 0, 0, NULL, 0, no,
	    "system host-name: wire field 'host_name' but no unit with a "
	    "message right above it");
	/* an ARP entry's mac: one of many entries, not one field */
	bad_row(MGMT_S_IFACE_ARP_MAC, "mtu", 0, 0, NULL, 0, no,
	    "interfaces <name> arp mac: wire field 'mtu' but no unit");
	/* IfConfig.mtu is plain proto3: unset and 0 look the same */
	bad_row(MGMT_S_IFACE_MTU, "mtu", 0, MGMT_SF_WIRE_DFLT, NULL, 0, 0,
	    "0 is a value and the field has no presence");
	bad_row(MGMT_S_FWD_WORKERS, "workers", MGMT_SF_WIRE_DFLT, 0, "-", 0, no,
	    "sent as its default when unset, but it has none");
	bad_row(MGMT_S_IFACE_DEVICE, "name", 0, 0, NULL, 0, no,
	    "interfaces <name> device: field name of fwd.IfConfig: only "
	    "numbers");
	/* and the real table binds again */
	assert_int_equal(mgmt_wire_init(mgmt_schema, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_every_row_reaches_its_field, setup),
	    cmocka_unit_test_setup(test_row_added_alone, setup),
	    cmocka_unit_test_setup(test_bad_rows_refused, setup),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
