/* mgmt/mgmt_wire.c: the leaves a commit sends, set in their component's
 * message from the schema table's wire column through protobuf-c's field
 * descriptors (found and checked once, at start-up). */
#include "mgmt_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ipc_field.h"
#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "mgmt/mgmt_conf_int.h"

/* The message each unit of change travels in to its component; and a list
 * entry inside a unit that is a message of its own (a bgp neighbour in
 * BgpConfig.neighbors): its leaves go there, not in the unit's. */
static const struct wire_msg {
	enum mgmt_sid unit;
	unsigned comp;
	const ProtobufCMessageDescriptor *desc;
} wire_msgs[] = {
    {MGMT_S_IFACE, MGMT_COMP_FWD, &fwd__if_config__descriptor},
    {MGMT_S_FWD, MGMT_COMP_FWD, &fwd__fwd_config__descriptor},
    {MGMT_S_ROUTE, MGMT_COMP_RIB, &rib__route__descriptor},
    {MGMT_S_RIB, MGMT_COMP_RIB, &rib__rib_config__descriptor},
    {MGMT_S_BGP, MGMT_COMP_BGP, &bgp__bgp_config__descriptor},
    {MGMT_S_BGP_NBR, MGMT_COMP_BGP, &bgp__neighbor__descriptor},
};
#define WIRE_NMSG (sizeof(wire_msgs) / sizeof(wire_msgs[0]))

#define WIRE_DEPTH 4 /* schema levels from below a unit down to a leaf */

/* A leaf of the schema bound to its field. */
struct wire_leaf {
	struct ipc_field f;
	uint16_t path[WIRE_DEPTH]; /* sids from below the unit to the leaf */
	uint8_t depth;
	bool flag;	/* a flag: true when present */
	bool send_dflt; /* MGMT_SF_WIRE_DFLT */
	uint64_t dflt;	/* the default, as the node's kbin would hold it */
};

/* Per message of wire_msgs, its leaves in schema order. */
static struct {
	bool ready;
	unsigned n[WIRE_NMSG];
	struct wire_leaf leaf[WIRE_NMSG][MGMT_S__COUNT];
} wire;

static int
msg_of(enum mgmt_sid unit)
{
	for (unsigned i = 0; i < WIRE_NMSG; i++)
		if (wire_msgs[i].unit == unit)
			return ((int)i);
	return (-1);
}

/* "rib distance connected": the row's words, for messages. */
static const char *
row_path(const struct mgmt_schema_node *tab, unsigned sid, char *buf, size_t sz)
{
	unsigned up[16], n = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (int s = (int)sid; s > 0 && n < 16; s = tab[s].parent)
		up[n++] = (unsigned)s;
	while (n > 0 && off < sz) {
		const struct mgmt_schema_node *r = &tab[up[--n]];

		off += (size_t)snprintf(buf + off, sz - off, "%s%s",
		    off ? " " : "", r->name ? r->name : r->tname);
	}
	return (buf);
}

/* The unit above sid (the nearest MGMT_SF_UNIT, or a list entry with a
 * message of its own), the path below it; -1 when there is none, or a list
 * between them (its entries are many, the field one). */
static int
row_unit(const struct mgmt_schema_node *tab, unsigned sid, struct wire_leaf *l)
{
	unsigned up[WIRE_DEPTH + 1], n = 0;
	int s = (int)sid;

	for (; s > 0 && !(tab[s].flags & MGMT_SF_UNIT) && msg_of(s) < 0;
	     s = tab[s].parent) {
		if (n == WIRE_DEPTH || tab[s].kind == MGMT_SK_LIST)
			return (-1);
		up[n++] = (unsigned)s;
	}
	if (s <= 0)
		return (-1);
	l->depth = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		l->path[i] = (uint16_t)up[n - 1 - i];
	return (s);
}

/* fd can carry the values of row r, and tell unset from 0 where needed. */
static int
field_check(const struct mgmt_schema_node *r, const struct ipc_field *f,
    const char **why)
{
	bool flag = r->kind == MGMT_SK_FLAG;

	*why = NULL;
	if (r->kind != MGMT_SK_LEAF && !flag)
		*why = "only a leaf or a flag is sent as one field";
	else if (flag && f->type != IPC_FIELD_BOOL)
		*why = "a flag needs a bool field";
	else if (!flag && (r->type != MGMT_T_UINT && r->type != MGMT_T_ENUM))
		*why = "only numbers, enums (their index) and flags are sent";
	else if (!flag && f->type != IPC_FIELD_UINT32)
		*why = "a number or an enum needs a uint32 field";
	else if (!f->single)
		*why = "the field is repeated, required or in a oneof";
	else if (!f->presence && !flag && !(r->flags & MGMT_SF_WIRE_DFLT) &&
	    (r->min == 0 || r->type == MGMT_T_ENUM))
		/* a plain proto3 field is not sent when 0 */
		*why = "0 is a value and the field has no presence (make it "
		       "optional, in a proto2 file, or send the default)";
	else if ((r->flags & MGMT_SF_WIRE_DFLT) && r->dflt == NULL)
		*why = "sent as its default when unset, but it has none";
	return (*why == NULL ? 0 : -EINVAL);
}

/* Binds row sid of tab to its field into wire; -EINVAL and err if it
 * cannot be. */
static int
row_bind(const struct mgmt_schema_node *tab, unsigned sid, struct lc_err *err)
{
	const struct mgmt_schema_node *r = &tab[sid];
	const struct wire_msg *wm;
	const char *why = NULL;
	struct wire_leaf l = {0};
	char path[128], canon[64];
	int unit, mi;

	row_path(tab, sid, path, sizeof(path));
	if ((unit = row_unit(tab, sid, &l)) < 0 || (mi = msg_of(unit)) < 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "schema row %s: wire field '%s' but no unit with a "
		    "message right above it",
		    path, r->wire);
		return (-EINVAL);
	}
	wm = &wire_msgs[mi];
	if ((r->comp & wm->comp) == 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "schema row %s: not sent to the component of %s", path,
		    wm->desc->name);
		return (-EINVAL);
	}
	if (ipc_field_find(wm->desc, r->wire, &l.f) != 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "schema row %s: %s has no field '%s'", path, wm->desc->name,
		    r->wire);
		return (-EINVAL);
	}
	if (field_check(r, &l.f, &why) != 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "schema row %s: field %s of %s: %s", path, r->wire,
		    wm->desc->name, why);
		return (-EINVAL);
	}
	for (unsigned i = 0; i < wire.n[mi]; i++)
		if (ipc_field_same(&wire.leaf[mi][i].f, &l.f)) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "schema row %s: field %s of %s carries another "
			    "leaf already",
			    path, r->wire, wm->desc->name);
			return (-EINVAL);
		}
	l.flag = r->kind == MGMT_SK_FLAG;
	l.send_dflt = (r->flags & MGMT_SF_WIRE_DFLT) != 0;
	if (l.send_dflt &&
	    mgmt_value_parse(sid, r->dflt, canon, &l.dflt, err) != 0)
		return (-EINVAL);
	wire.leaf[mi][wire.n[mi]++] = l;
	return (0);
}

int
mgmt_wire_init(const struct mgmt_schema_node *tab, struct lc_err *err)
{
	memset(&wire, 0, sizeof(wire));
	for (unsigned sid = 1; sid < MGMT_S__COUNT; sid++)
		if (tab[sid].wire != NULL && row_bind(tab, sid, err) != 0) {
			memset(&wire, 0, sizeof(wire));
			return (-EINVAL);
		}
	wire.ready = true;
	return (0);
}

const ProtobufCMessageDescriptor *
mgmt_wire_desc(enum mgmt_sid unit)
{
	int mi = msg_of(unit);

	return (mi < 0 ? NULL : wire_msgs[mi].desc);
}

void
mgmt_wire_fill(enum mgmt_sid unit, const struct mgmt_node *n,
    ProtobufCMessage *msg)
{
	int mi = msg_of(unit);

	/* mgmt_push_init binds the table: a message filled before it, or of
	 * another type, would go out without its leaves */
	if (!wire.ready || mi < 0 || msg->descriptor != wire_msgs[mi].desc)
		abort();
	for (unsigned i = 0; i < wire.n[mi]; i++) {
		const struct wire_leaf *l = &wire.leaf[mi][i];
		const struct mgmt_node *v = n;

		for (unsigned d = 0; d < l->depth && v != NULL; d++)
			v = mgmt_node_find_sid(v, l->path[d]);
		if (v != NULL)
			ipc_field_set(msg, &l->f, l->flag ? 1 : v->kbin);
		else if (l->send_dflt)
			ipc_field_set(msg, &l->f, l->dflt);
	}
}

void
mgmt_wire_fill_conf(const struct mgmt_conf *conf, enum mgmt_sid unit,
    ProtobufCMessage *msg)
{
	const struct mgmt_node *n = conf->root;
	unsigned up[WIRE_DEPTH], k = 0;

	/* a unit that is a container: at most one, found from the root */
	for (int s = (int)unit; s > 0 && k < WIRE_DEPTH;
	     s = mgmt_schema[s].parent)
		up[k++] = (unsigned)s;
	while (k > 0 && n != NULL)
		n = mgmt_node_find_sid(n, up[--k]);
	mgmt_wire_fill(unit, n, msg);
}
