/* ipc/ipc_route.h: the route codec: RouteBatch (rib.proto) and FibBatch (fwd.proto), message and packed forms, to and from one array of plain route records. */
#ifndef IPC_ROUTE_H
#define IPC_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h> /* AF_INET, AF_INET6 */

#include "ipc/proto/fwd.pb-c.h"
#include "libcommon/lc_err.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_arena.h"

/*
 * A batch decodes into one array of records in its apply order (docs/ipc.md,
 * "Route batches"):
 *   RouteBatch: add, packed_add, packed6_add, replace, del, packed_del,
 *               packed6_del
 *   FibBatch:   add, packed_add, packed6_add, del, packed_del, packed6_del
 * so a record's index is RouteError.index / FibAck.failed_index. Next hops
 * live in one table per set: a record names its run nh[r->nh .. r->nh +
 * r->n_nh), and the records of one packed run share it (rib interns such a
 * group once). Sets are reused: decoding a batch only grows their arrays
 * (no allocation per route once they are big enough).
 */
#define IPC_ROUTE_NH_MAX	64    /* next hops of a RouteBatch route */
#define IPC_ROUTE_PACKED_NH_MAX 65536 /* records of a packed next-hop table */
#define IPC_ROUTE_PACKED4	8     /* bytes of an IPv4 packed record */
#define IPC_ROUTE_PACKED6	20    /* bytes of an IPv6 packed record */

enum ipc_route_op {
	IPC_ROUTE_ADD = 0, /* add, or replace what the source has there */
	IPC_ROUTE_REPLACE, /* RouteBatch only: the route must exist */
	IPC_ROUTE_DEL,
	IPC_ROUTE_BAD, /* FibBatch decode: a refused entry (fwd fails it) */
};

/* rib.RouteType and fwd.RouteKind (the same values). */
enum ipc_route_kind {
	IPC_ROUTE_UNICAST = 0,
	IPC_ROUTE_BLACKHOLE,
	IPC_ROUTE_REJECT,
};

union ipc_addr {
	struct lc_ip4 v4; /* family AF_INET: the rest is zero */
	struct lc_ip6 v6;
};

struct ipc_route_nh {
	union ipc_addr addr; /* 0: attached on the interface */
	uint32_t ifindex;    /* 0: by name, or resolved recursively */
	uint8_t family;	     /* AF_INET or AF_INET6 */
	/* RouteBatch only (static routes from mgmt): NULL or "" = none; points
	 * into the decoded message, or the caller's string when encoding */
	const char *ifname;
};

struct ipc_route {
	union ipc_addr pfx; /* network order, host bits zero */
	uint32_t nh;	    /* first next hop in the set's table */
	uint32_t metric;    /* RouteBatch message routes only */
	uint32_t tag;	    /* RouteBatch message routes only */
	uint16_t n_nh;
	uint8_t len;	  /* 0..32 or 0..128 */
	uint8_t family;	  /* AF_INET or AF_INET6 */
	uint8_t op;	  /* enum ipc_route_op */
	uint8_t kind;	  /* enum ipc_route_kind */
	uint8_t distance; /* 0: the source's (RouteBatch message routes) */
};

/* Records and their next-hop table; the caller owns the set (_init/_fini). */
struct ipc_route_set {
	struct ipc_route *rt;
	size_t n, cap;
	struct ipc_route_nh *nh;
	size_t nnh, capnh;
	/* NULL: malloc'd arrays kept between batches (_fini frees them); else
	 * each decode takes them from this arena, which frees them on reset */
	struct lc_arena *ar;
};

/* Encoder storage (the protobuf structures and packed bytes of one batch),
 * reused between batches. */
struct ipc_route_enc {
	void *buf;
	size_t cap;
	uint8_t *pk;
	size_t cappk;
	uint32_t *map; /* set next hop -> packed table index */
	size_t capmap;
};

void ipc_route_set_init(struct ipc_route_set *);
void ipc_route_set_init_arena(struct ipc_route_set *, struct lc_arena *);
void ipc_route_set_fini(struct ipc_route_set *);
/* Empties the set (keeps malloc'd storage). */
void ipc_route_set_clear(struct ipc_route_set *);
/* Room for n more records and nnh more next hops: 0 or -ENOMEM. */
int ipc_route_set_reserve(struct ipc_route_set *, size_t n, size_t nnh);
/* Appends a zeroed IPv4 add with n_nh zeroed next hops of family AF_INET
 * (r->nh is their index); NULL when out of memory. The pointer is valid
 * until the set grows again. */
struct ipc_route *ipc_route_set_add(struct ipc_route_set *, unsigned n_nh);

/* Entries of a batch in apply order (partial packed records not counted). */
size_t ipc_route_batch_count(const Rib__RouteBatch *);
size_t ipc_route_fib_count(const Fwd__FibBatch *);

/*
 * RouteBatch -> set (emptied first), in apply order; all or nothing, as rib
 * applies a batch. Checks the packed fields' sizes (index -1), the count
 * against max (-E2BIG, index -1), then each entry: prefix length, host bits,
 * parallel next-hop arrays, at most IPC_ROUTE_NH_MAX next hops, packed next
 * hops inside their table, route type, distance 0..255. Returns 0, -EINVAL,
 * -E2BIG or -ENOMEM with *err filled. ifname pointers point into b.
 */
int ipc_route_batch_decode(struct ipc_route_set *, const Rib__RouteBatch *b,
    size_t max, struct lc_err *err);
/*
 * FibBatch -> set, in apply order. A malformed packed field refuses the
 * batch (-EINVAL, index -1, the set empty); a bad entry (length, host bits,
 * next hops not parallel or beyond the table, a kind that is not one, a
 * blackhole with next hops) becomes an IPC_ROUTE_BAD record and the first
 * such is described in *err (index >= 0; code 0 when there is none).
 * 0, -EINVAL, -ENOMEM.
 */
int ipc_route_fib_decode(struct ipc_route_set *, const Fwd__FibBatch *b,
    struct lc_err *err);

void ipc_route_enc_init(struct ipc_route_enc *);
void ipc_route_enc_fini(struct ipc_route_enc *);
/*
 * set -> the route fields of b (the caller sets source, seq, ...). packed:
 * adds with no distance, metric, tag or interface name, next hops of the
 * prefix's family and at most 63 of them go as packed records, deletes too;
 * the rest as messages (which decode first: message adds, packed adds,
 * replaces, message deletes, packed deletes). The records must be ordered
 * adds, replaces, deletes (-EINVAL otherwise, and for IPC_ROUTE_BAD).
 * b points into enc and the set until the next encode. 0, -EINVAL, -ENOMEM.
 */
int ipc_route_batch_encode(struct ipc_route_enc *, Rib__RouteBatch *b,
    const struct ipc_route_set *, bool packed);
/*
 * set -> the route fields of b (the caller sets seq). Adds and replaces go
 * in add (ops as fwd applies them: add or replace), deletes in del; packed
 * (the peer said packed_ok): as packed records but adds whose next hops do
 * not fit a packed table, which go as message routes. Runs shared by
 * records stay shared in the packed table. b points into enc and the set
 * until the next encode. 0, -EINVAL (an IPC_ROUTE_BAD record), -ENOMEM.
 */
int ipc_route_fib_encode(struct ipc_route_enc *, Fwd__FibBatch *b,
    const struct ipc_route_set *, bool packed);

#endif /* IPC_ROUTE_H */
