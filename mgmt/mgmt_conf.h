/* mgmt/mgmt_conf.h: tern's configuration core: schema, config trees, parser,
 * printer, diff, validation and storage. */
#ifndef MGMT_CONF_H
#define MGMT_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcommon/lc_addr.h"
#include "libcommon/lc_buf.h"
#include "libcommon/lc_err.h"

/*
 * Model (docs/config.md has the long form):
 * - The schema is one table, mgmt_schema[], indexed by enum mgmt_sid.
 * - A config is a tree of nodes; trees are persistent (copy on write,
 *   reference counted), so mgmt_conf_dup() is O(1) and a candidate starts as a
 *   snapshot of running. set/delete copy only the path they touch, and
 *   mgmt_conf_diff()/mgmt_conf_compare() skip every subtree the two trees
 *   still share: the diff of one changed route among 1M is O(log n).
 * - Every function that can fail on input fills a struct lc_err with a
 *   message naming file:line:column (files) or the path element (set/delete)
 *   and what was expected, and changes nothing.
 * - Not thread-safe: reference counts are plain integers; use a tree (and
 *   its snapshots and change sets) from one thread.
 * - Allocation failure aborts the process (a config daemon cannot continue
 *   with half a tree); no function here returns -ENOMEM.
 */

/* ---- schema ----------------------------------------------------------------
 */

/* Components a node belongs to: a commit sends a change to each bit set. */
#define MGMT_COMP_MGMT 0x1u
#define MGMT_COMP_RIB  0x2u
#define MGMT_COMP_FWD  0x4u
#define MGMT_COMP_BGP  0x8u /* tern-bgp: the protocols bgp block */
#define MGMT_COMP_ALL \
	(MGMT_COMP_MGMT | MGMT_COMP_RIB | MGMT_COMP_FWD | MGMT_COMP_BGP)

enum mgmt_skind {
	MGMT_SK_CONTAINER, /* keyword { ... } */
	MGMT_SK_LIST, /* keyword KEY { ... } (or KEY { ... } if name NULL) */
	MGMT_SK_LEAF, /* keyword VALUE; one value */
	MGMT_SK_LEAFLIST, /* keyword VALUE; repeated, a set of values */
	MGMT_SK_FLAG,	  /* keyword; no value */
};

enum mgmt_stype {
	MGMT_T_NONE,
	MGMT_T_UINT,	/* decimal in [min, max] */
	MGMT_T_IP4,	/* a.b.c.d */
	MGMT_T_PREFIX4, /* a.b.c.d/len, no host bits */
	MGMT_T_ADDR4,	/* a.b.c.d/len, an interface address */
	MGMT_T_IFNAME,	/* [A-Za-z0-9_.-], 1..15 chars, starts alnum */
	MGMT_T_STRING,	/* any text up to max chars (quoted when needed) */
	MGMT_T_ENUM,	/* one of enums[] */
	MGMT_T_MAC,	/* xx:xx:xx:xx:xx:xx, unicast, not zero; kbin 48 bits */
	MGMT_T_COMMUNITY, /* BGP community: mgmt_comm_parse() */
	/* IPv6 (lc_inet6: strict, printed RFC 5952). kbin: bit 63 set and the
	 * address's top 63 bits (IPv4 values keep theirs, below 2^40); keys
	 * with equal kbin compare by the whole address, then the length
	 * (mgmt_key_cmp) */
	MGMT_T_IP6,	 /* an IPv6 address */
	MGMT_T_PREFIX6,	 /* addr/len, no host bits */
	MGMT_T_ADDR6,	 /* addr/len, an interface address (host bits) */
	MGMT_T_IP46,	 /* an IPv4 or an IPv6 address (a next hop) */
	MGMT_T_PREFIX46, /* an IPv4 or an IPv6 prefix (a static route) */
};

/* Schema flags. */
#define MGMT_SF_UNIT   0x1u /* a unit of change: diffs report it whole */
#define MGMT_SF_HIDDEN 0x2u /* not offered by completion */
/* wire leaf not configured: its default is sent (without the flag it is
 * sent unset and the component goes back to its own start-up value) */
#define MGMT_SF_WIRE_DFLT 0x4u
/* an AS number (UINT): asdot "H.L" (RFC 5396) is taken too, printed as
 * asplain */
#define MGMT_SF_ASDOT 0x8u
/* list keys in natural order: a number in a name compares as a number
 * (t2 before t10), for policy terms, whose order is their evaluation
 * order */
#define MGMT_SF_NATURAL 0x10u

struct mgmt_schema_node {
	const char *name; /* keyword; NULL: anonymous list (key only) */
	int parent;	  /* index in mgmt_schema[], -1 for the root */
	enum mgmt_skind kind;
	enum mgmt_stype type;	  /* of the value (leaf) or key (list) */
	uint32_t min, max;	  /* UINT range; STRING/IFNAME length */
	const char *const *enums; /* ENUM: NULL-terminated words */
	const char *help;
	const char *dflt;  /* default value as text, NULL if none */
	unsigned comp;	   /* MGMT_COMP_* */
	unsigned flags;	   /* MGMT_SF_* */
	const char *tname; /* value placeholder for help: "<a.b.c.d/len>" */
	/* the field of its unit's message that carries this leaf to the
	 * component (mgmt_wire.c: fwd.FwdConfig, fwd.IfConfig,
	 * rib.RibConfig, rib.Route), NULL if the leaf is not sent as is */
	const char *wire;
};

/* Indices into mgmt_schema[]; order == print order among siblings. */
enum mgmt_sid {
	MGMT_S_ROOT,
	MGMT_S_INTERFACES,
	MGMT_S_IFACE, /* interfaces NAME */
	MGMT_S_IFACE_DEVICE,
	MGMT_S_IFACE_ADDRESS,
	MGMT_S_IFACE_INET6, /* interfaces NAME inet6 { address; disable; } */
	MGMT_S_IFACE_INET6_ADDRESS,
	MGMT_S_IFACE_INET6_DISABLE,
	MGMT_S_IFACE_LINKLOCAL,
	MGMT_S_IFACE_RA, /* interfaces NAME router-advertisement { } */
	MGMT_S_IFACE_RA_PREFIX,
	MGMT_S_IFACE_RA_MTU,
	MGMT_S_IFACE_RA_LIFETIME,
	MGMT_S_IFACE_RA_INTERVAL,
	MGMT_S_IFACE_MTU,
	MGMT_S_IFACE_DISABLE,
	MGMT_S_IFACE_BACKEND,
	MGMT_S_IFACE_HOST_PATH,
	MGMT_S_IFACE_ARP, /* interfaces NAME arp A.B.C.D */
	MGMT_S_IFACE_ARP_MAC,
	MGMT_S_IFACE_NDP, /* interfaces NAME ndp X:X::X: a static neighbour */
	MGMT_S_IFACE_NDP_MAC,
	MGMT_S_PROTOCOLS,
	MGMT_S_STATIC,
	MGMT_S_ROUTE, /* protocols static route PREFIX */
	MGMT_S_ROUTE_NH,
	MGMT_S_ROUTE_IFACE,
	MGMT_S_ROUTE_DISTANCE,
	MGMT_S_ROUTE_BLACKHOLE,
	MGMT_S_ROUTE_REJECT,
	MGMT_S_BGP, /* protocols bgp (unit) */
	MGMT_S_BGP_LOCAL_AS,
	MGMT_S_BGP_ROUTER_ID,
	MGMT_S_BGP_GR_TIME,
	MGMT_S_BGP_MULTIPATH,
	MGMT_S_BGP_NBR, /* protocols bgp neighbor A.B.C.D */
	MGMT_S_BGP_NBR_REMOTE_AS,
	MGMT_S_BGP_NBR_DESCR,
	MGMT_S_BGP_NBR_PASSIVE,
	MGMT_S_BGP_NBR_HOLD,
	MGMT_S_BGP_NBR_RETRY,
	MGMT_S_BGP_NBR_MULTIHOP,
	MGMT_S_BGP_NBR_LOCAL_ADDR,
	MGMT_S_BGP_NBR_AUTH,
	MGMT_S_BGP_NBR_NH_SELF,
	MGMT_S_BGP_NBR_GR,
	MGMT_S_BGP_NBR_IMPORT,
	MGMT_S_BGP_NBR_EXPORT,
	MGMT_S_BGP_NBR_SHUTDOWN,
	MGMT_S_BGP_NBR_LOCAL_AS,
	MGMT_S_BGP_NBR_LOCAL_ADDR6, /* our IPv6 next hop (next-hop self) */
	MGMT_S_BGP_NBR_FAMILY,	    /* family { inet { unicast; } inet6 ... } */
	MGMT_S_BGP_NBR_FAM_INET,
	MGMT_S_BGP_NBR_FAM_INET_UNI,
	MGMT_S_BGP_NBR_FAM_INET6,
	MGMT_S_BGP_NBR_FAM_INET6_UNI,
	MGMT_S_POLICY,	   /* policy-options (unit): tern-bgp's policies */
	MGMT_S_POL_PL,	   /* prefix-list NAME */
	MGMT_S_POL_PL_ENT, /* prefix-list NAME A.B.C.D/LEN */
	MGMT_S_POL_PL_GE,
	MGMT_S_POL_PL_LE,
	MGMT_S_POL_ASP,	   /* as-path NAME */
	MGMT_S_POL_ASP_RE, /* as-path NAME "REGEX" (an anonymous leaf) */
	MGMT_S_POL_COMM,   /* community NAME */
	MGMT_S_POL_COMM_MEMBERS,
	MGMT_S_POL_PS,	 /* policy-statement NAME */
	MGMT_S_POL_TERM, /* policy-statement NAME term NAME */
	MGMT_S_POL_FROM,
	MGMT_S_POL_FROM_PL,
	MGMT_S_POL_FROM_ASP,
	MGMT_S_POL_FROM_COMM,
	MGMT_S_POL_FROM_NBR,
	MGMT_S_POL_THEN,
	MGMT_S_POL_THEN_LP,
	MGMT_S_POL_THEN_MED,
	MGMT_S_POL_THEN_COMM,
	MGMT_S_POL_THEN_COMM_SET,
	MGMT_S_POL_THEN_COMM_DEL,
	MGMT_S_POL_THEN_COMM_ADD,
	MGMT_S_POL_THEN_PREPEND,
	MGMT_S_POL_THEN_ACCEPT,
	MGMT_S_POL_THEN_REJECT,
	MGMT_S_POL_PS_THEN, /* the policy's default action */
	MGMT_S_POL_PS_ACCEPT,
	MGMT_S_POL_PS_REJECT,
	MGMT_S_RIB,
	MGMT_S_RIB_ECMP,
	MGMT_S_RIB_DISTANCE,
	MGMT_S_RIB_DIST_CONNECTED,
	MGMT_S_RIB_DIST_STATIC,
	MGMT_S_FWD,
	MGMT_S_FWD_WORKERS,
	MGMT_S_FWD_BACKEND,
	MGMT_S_FWD_ICMP_RATE,
	MGMT_S_SYSTEM,
	MGMT_S_SYS_HOSTNAME,
	MGMT_S_SYS_LOGLEVEL,
	MGMT_S_SYS_METRICS, /* system metrics: the Prometheus endpoint */
	MGMT_S_SYS_METRICS_LISTEN,
	MGMT_S_SYS_METRICS_PORT,
	MGMT_S__COUNT
};

extern const struct mgmt_schema_node mgmt_schema[MGMT_S__COUNT];

/* One completion candidate. word is what to insert ("route", "af_xdp", or an
 * existing key such as "eth0"); a placeholder for free input (is_value) is
 * shown as "<a.b.c.d/len>" and must not be inserted. */
struct mgmt_compl {
	char word[64];
	const char *help;
	bool is_value;
	bool is_leaf;	  /* completing this ends a set path */
	const char *dflt; /* default value for `?` help, NULL if none */
};

struct mgmt_conf;

/*
 * Completion and `?` help for a set/delete/show path. words[0..nwords-1] are
 * the complete words typed so far (after the command), partial the word being
 * typed ("" for `?` after a space). With conf non-NULL, existing list keys
 * and leaf-list values are offered too (at most max in all).
 * Returns the number of candidates written to out (0..max), or -EINVAL when
 * words do not form a valid path (err says which word and what was expected).
 */
int mgmt_schema_complete(const struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, const char *partial, struct mgmt_compl *out, unsigned max,
    struct lc_err *err);

/* Checks one value against a leaf or list-key schema node. 0 or -EINVAL (err
 * says what was expected). canon (optional, >= 64 bytes) gets the canonical
 * form. */
int mgmt_schema_check_value(enum mgmt_sid sid, const char *value, char *canon,
    struct lc_err *err);

/* Component mask to send a change of this unit to. */
unsigned mgmt_schema_comp(enum mgmt_sid sid);

/* ---- config trees
 * ------------------------------------------------------------- */

/* A node of a tree: read-only to callers, valid while a tree or a change set
 * that holds it is alive. */
struct mgmt_node;

/* New empty config. NULL only if the process is out of memory (it aborts). */
struct mgmt_conf *mgmt_conf_new(void);
/* O(1) snapshot: shares every node with conf; later changes to either copy
 * only the nodes they touch. */
struct mgmt_conf *mgmt_conf_dup(const struct mgmt_conf *conf);
void mgmt_conf_free(struct mgmt_conf *conf);
/* Makes dst hold the same tree as src (O(1), shares nodes). */
void mgmt_conf_assign(struct mgmt_conf *dst, const struct mgmt_conf *src);

/* Parses config text (the whole of text[0..len)) into a new tree. fname names
 * the source in messages and locations. Syntax, type, range and duplicate
 * errors: -EINVAL with "fname:line:col: ..." in err, *out untouched.
 * Does not run whole-tree validation (references): see mgmt_conf_validate. */
int mgmt_conf_parse(const char *text, size_t len, const char *fname,
    struct mgmt_conf **out, struct lc_err *err);
/* mgmt_conf_parse of a file, then mgmt_conf_validate. -errno of open/read
 * (err says so) or -EINVAL. */
int mgmt_conf_load_file(const char *path, struct mgmt_conf **out,
    struct lc_err *err);

enum mgmt_load_mode { MGMT_LOAD_MERGE, MGMT_LOAD_REPLACE };
/* `load merge|replace FILE` into a candidate: parses the file (syntax, type,
 * range, duplicates); on success merges it into conf (leaves override, lists
 * and leaf-lists union) or replaces conf. On error conf is unchanged. */
int mgmt_conf_load(struct mgmt_conf *conf, const char *path,
    enum mgmt_load_mode mode, struct lc_err *err);
/* The same with the file's text (ternsh reads the user's file and sends
 * it; tern-mgmt opens no user's path), name naming it in messages; a gzip
 * text is inflated. Over MGMT_LOAD_MAX bytes: -EFBIG. */
#define MGMT_LOAD_MAX (256u << 20)
/* tern-mgmt's own files (the boot config, the commits of its store): at
 * most this on disk and inflated; each is opened so that nothing blocks
 * (lc_open_regular: a FIFO, a device or a directory is refused). */
#define MGMT_FILE_MAX ((uint64_t)2 << 30)
int mgmt_conf_load_text(struct mgmt_conf *conf, const char *name,
    const void *text, size_t len, enum mgmt_load_mode mode, struct lc_err *err);
/* Merge src into dst (as load merge). */
void mgmt_conf_merge(struct mgmt_conf *dst, const struct mgmt_conf *src);

/* Prints conf (or, with words, the subtree at that path) in brace syntax,
 * appending to out. Output parses back to an equal tree.
 * 0, or -ENOENT when the path is not configured (err says which element),
 * -EINVAL when it is not a valid path. */
int mgmt_conf_print(const struct mgmt_conf *conf, struct lc_buf *out);
/*
 * mgmt_conf_print's text written to fd as it is made, head (headlen bytes,
 * may be 0) first, through a buffer of MGMT_PRINT_SPILL bytes: a config of
 * 1M routes (50 MB of text) never sits whole in memory (the store child
 * writes each commit so). 0 or -errno of the first failed write.
 */
#define MGMT_PRINT_SPILL (256u << 10)
int mgmt_conf_print_fd(const struct mgmt_conf *conf, int fd, const void *head,
    size_t headlen);
int mgmt_conf_show(const struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, struct lc_buf *out, struct lc_err *err);
/* Prints conf as JSON (for `show configuration | json`): containers and list
 * entries are objects, a list is an object keyed by its keys, a repeatable
 * leaf an array, a flag true, numbers as numbers, the rest as strings:
 * {"interfaces":{"eth0":{"device":"veth0","address":["198.18.0.1/24"]}}} */
int mgmt_conf_print_json(const struct mgmt_conf *conf, struct lc_buf *out);
/* Prints conf as `set` commands, one per line (for `show | display set`). */
int mgmt_conf_print_set(const struct mgmt_conf *conf, struct lc_buf *out);

/* `set WORDS...`: the path ends with a leaf and its value, a flag, a
 * leaf-list value, or a list key. Creates what is missing; replaces a leaf's
 * value. 0, or -EINVAL (err: "set protocols static route 10.0.0.0/8
 * distance 300: 300 out of range, expected 1..255"); conf unchanged on error.
 */
int mgmt_conf_set(struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, struct lc_err *err);
/* `delete WORDS...`: removes the node at the path (with a leaf-list value:
 * that value; without: all values). Empty containers above are removed too.
 * 0, -ENOENT (not configured), -EINVAL (bad path); unchanged on error. */
int mgmt_conf_delete(struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, struct lc_err *err);

/* Splits a command line into words (whitespace separated, "quoted" words,
 * backslash escapes inside quotes), writing into buf (bufsz bytes) and
 * pointers into words. Returns the number of words, or -EINVAL (unterminated
 * quote), -E2BIG (too many words or too long). */
int mgmt_conf_split(const char *line, char *buf, size_t bufsz,
    const char **words, unsigned maxwords);

/* true if both trees hold the same configuration (O(changes) when they share
 * nodes). */
bool mgmt_conf_equal(const struct mgmt_conf *a, const struct mgmt_conf *b);
/* Number of entries of list (MGMT_S_IFACE, MGMT_S_ROUTE or MGMT_S_BGP_NBR);
 * O(n). */
size_t mgmt_conf_count(const struct mgmt_conf *conf, enum mgmt_sid list);

/* Whole-tree validation: constraints between leaves (a route has a next hop,
 * an interface, blackhole or reject, not both kinds; a static ARP entry has
 * a mac and a unicast address on one of its interface's subnets, none of
 * the interface's own), references (a route's interface must be
 * configured), duplicates (two interfaces on one device, one address on two
 * interfaces), limits (addresses, ARP entries, next hops).
 * 0 or -EINVAL with the first error (with file:line:col when the node came
 * from a file, else its path). */
int mgmt_conf_validate(const struct mgmt_conf *conf, struct lc_err *err);

/* ---- diff
 * ----------------------------------------------------------------------- */

enum mgmt_change_op { MGMT_CHG_ADD, MGMT_CHG_DEL, MGMT_CHG_MOD };

/* A unit of change: an interface, a static route, or the bgp (protocols bgp),
 * rib, fwd or system block as a whole. old/new are the unit's nodes in each tree (old NULL for
 * ADD, new NULL for DEL); decode them with the mgmt_conf_*_get functions. */
struct mgmt_change {
	enum mgmt_change_op op;
	enum mgmt_sid unit; /* IFACE, ROUTE, BGP, RIB, FWD, SYSTEM */
	unsigned comp;	    /* MGMT_COMP_* to send it to */
	const struct mgmt_node *old, *new;
};

/* A change set; holds references on the nodes, so it stays valid whatever
 * happens to the trees afterwards. */
struct mgmt_changes {
	struct mgmt_change *v;
	size_t n, cap;
	unsigned comp; /* union of v[i].comp */
	bool iface_deleted;
};

/* Diff old -> new into per-unit changes (appended to out, which must be
 * zeroed or fini'd before first use). Ordered: interfaces, routes, rib, fwd,
 * system, each sorted by key. O(changes * log n) when the trees share nodes. */
void mgmt_conf_diff(const struct mgmt_conf *old, const struct mgmt_conf *new,
    struct mgmt_changes *out);
void mgmt_changes_fini(struct mgmt_changes *);
/* Turns a change set into the one that undoes it (old and new swapped, ADD
 * and DEL exchanged), in place: what to send a component that accepted its
 * part of a commit another component refused. */
void mgmt_changes_invert(struct mgmt_changes *);
/* Validates only what changes touch (plus, when an interface is deleted,
 * every route's reference): the commit path. Same errors as
 * mgmt_conf_validate. new is the tree the changes lead to. */
int mgmt_conf_validate_changes(const struct mgmt_conf *new,
    const struct mgmt_changes *chg, struct lc_err *err);

/* Text of a unit's path for messages: "interfaces eth0",
 * "protocols static route 10.0.0.0/8", "rib". Returns buf. */
const char *mgmt_change_path(const struct mgmt_change *c, char *buf,
    size_t bufsz);

/*
 * Per-session candidates ("configure private"): cand was made from base (a
 * running config since replaced by running). Rebase re-applies cand's
 * changes (diff base -> cand, per unit) on top of running, so another
 * session's commit is not reverted. A unit changed both by cand and since
 * base (differently) is a conflict: -EBUSY, err names the unit, cand
 * unchanged. O(changes * log n).
 */
int mgmt_conf_rebase(struct mgmt_conf *cand, const struct mgmt_conf *base,
    const struct mgmt_conf *running, struct lc_err *err);

/* `show | compare`: appends the difference old -> new in Junos form:
 *   [edit protocols static]
 *   +    route 10.0.0.0/8 next-hop 198.18.0.2;
 *   -    route 10.1.0.0/16 next-hop 198.18.0.2;
 * Nothing is appended when equal. */
int mgmt_conf_compare(const struct mgmt_conf *old, const struct mgmt_conf *new,
    struct lc_buf *out);

/* ---- typed views
 * ----------------------------------------------------------------- */

#define MGMT_NAME_MAX	  16 /* interface names, with NUL */
#define MGMT_HOSTNAME_MAX 64
#define MGMT_MAX_ADDRS	  16 /* addresses per interface */
#define MGMT_MAX_NH	  64 /* next hops per static route */
#define MGMT_MAX_ARP	  64 /* static ARP entries per interface */

enum mgmt_port_backend {
	MGMT_BACKEND_DEFAULT = -1, /* interface: use fwd port-backend */
	MGMT_BACKEND_AF_PACKET = 0,
	MGMT_BACKEND_AF_XDP = 1,
	MGMT_BACKEND_AUTO =
	    2, /* fwd picks: AF_XDP where it can, else AF_PACKET */
};

struct mgmt_iface_conf {
	char name[MGMT_NAME_MAX];   /* tern name */
	char device[MGMT_NAME_MAX]; /* Linux name (default: name) */
	unsigned naddr;
	struct lc_prefix4 addr[MGMT_MAX_ADDRS]; /* subnet */
	struct lc_ip4 host[MGMT_MAX_ADDRS];	/* our address in it */
	unsigned mtu; /* 0: not configured (fwd takes the device's) */
	bool disable;
	enum mgmt_port_backend backend;
	/* host-path enable (the default): fwd mirrors the port in a TAP of
	 * the kernel, for the router's own sockets (docs/hostpath.md) */
	bool host_path;
	/* static ARP entries in address order (the first MGMT_MAX_ARP;
	 * validation refuses more); arp_nomac[i]: the entry has no mac yet
	 * (validation refuses it, arp_mac[i] is zero) */
	unsigned narp;
	struct lc_ip4 arp_ip[MGMT_MAX_ARP];
	uint8_t arp_mac[MGMT_MAX_ARP][6];
	bool arp_nomac[MGMT_MAX_ARP];
	/* IPv6 (docs/ipv6.md): inet6 addresses (prefix6: the subnet, host6:
	 * ours in it), link-local (ll6_set: configured, else fwd derives it),
	 * inet6 disable, router advertisements (ra: the block is there; a
	 * number 0 is not configured, fwd's default), static neighbours */
	unsigned naddr6;
	struct lc_prefix6 addr6[MGMT_MAX_ADDRS];
	struct lc_ip6 host6[MGMT_MAX_ADDRS];
	bool ll6_set, inet6_disable;
	struct lc_ip6 ll6;
	bool ra;
	unsigned ra_nprefix, ra_mtu, ra_lifetime, ra_interval;
	bool ra_lifetime_set;
	struct lc_prefix6 ra_prefix[MGMT_MAX_ADDRS];
	unsigned nndp;
	struct lc_ip6 ndp_ip[MGMT_MAX_ARP];
	uint8_t ndp_mac[MGMT_MAX_ARP][6];
	bool ndp_nomac[MGMT_MAX_ARP];
};

struct mgmt_route_conf {
	int family; /* AF_INET: prefix, nh; AF_INET6: prefix6, nh6 */
	struct lc_prefix4 prefix; /* IPv6: zero */
	struct lc_prefix6 prefix6;
	unsigned nnh;
	/* a next hop of the other family (validation refuses it) is counted
	 * here, not in nnh */
	unsigned nnh_other;
	char ifname[MGMT_NAME_MAX]; /* "" if none */
	unsigned distance;	    /* 0: not set, rib's static distance */
	bool blackhole, reject;
	/* the next hops, sorted (only [0, nnh) is set: the decoder does not
	 * clear the rest, 1 KiB a route) */
	struct lc_ip4 nh[MGMT_MAX_NH];
	struct lc_ip6 nh6[MGMT_MAX_NH];
};

struct mgmt_rib_conf {
	unsigned ecmp_width;
	unsigned distance_connected, distance_static;
};

struct mgmt_fwd_conf {
	unsigned workers;
	enum mgmt_port_backend backend;
	unsigned icmp_rate_limit; /* ICMP errors/s, 0 = none sent */
	/* given in the config (else tern-fwd keeps what it was started with) */
	bool workers_set, icmp_set;
};

struct mgmt_system_conf {
	char host_name[MGMT_HOSTNAME_MAX];
	int log_level; /* enum lc_log_level */
	/* system metrics (mgmt_metrics.c): served when the block is there */
	bool metrics;
	uint32_t metrics_addr; /* network order */
	unsigned metrics_port;
};

/* with the NUL; a config value is at most 63 characters (the parser's and
 * set's canonical buffers), under TCP_MD5SIG_MAXKEYLEN (80) for the key */
#define MGMT_BGP_DESCR_MAX  64
#define MGMT_BGP_KEY_MAX    64
#define MGMT_BGP_POLICY_MAX 64

/* protocols bgp (mgmt_conf_bgp.c): 0 in a number or an address is "not
 * configured" (tern-bgp's default applies, bgp.proto) */
struct mgmt_bgp_conf {
	bool present; /* the block is configured: BGP runs */
	uint32_t local_as;
	struct lc_ip4 router_id;
	unsigned gr_time; /* graceful-restart-time, seconds */
};

/* protocols bgp neighbor A.B.C.D */
struct mgmt_bgp_nbr_conf {
	struct lc_ip4 addr;
	uint32_t remote_as, local_as;
	char description[MGMT_BGP_DESCR_MAX];
	bool passive, next_hop_self, graceful_restart, shutdown;
	unsigned hold_time, connect_retry, multihop; /* multihop: the TTL */
	struct lc_ip4 local_address;
	char auth_key[MGMT_BGP_KEY_MAX];
	char import[MGMT_BGP_POLICY_MAX], export[MGMT_BGP_POLICY_MAX];
	/* address families (bgp.proto Neighbor.families: bit 0 IPv4, bit 1
	 * IPv6 unicast); 0: no family block, IPv4 unicast */
	unsigned families;
	char local_address6[48]; /* as written; "" = none */
};

/*
 * A BGP community as the config writes it: standard "high:low" (0..65535
 * each, RFC 1997), large "global:local1:local2" (0..4294967295 each, RFC
 * 8092), "*" for a field that matches anything, or a well-known name
 * (no-export, no-advertise, no-export-subconfed, no-peer, blackhole,
 * graceful-shutdown), which is a standard community's value. 0 or -EINVAL.
 */
struct mgmt_comm {
	bool large;
	uint32_t v[3]; /* standard: v[0] high, v[1] low */
	unsigned wild; /* bit i: v[i] is "*" */
};
int mgmt_comm_parse(const char *s, struct mgmt_comm *c);
/* The well-known name of a standard community (high << 16 | low), or NULL
 * (show bgp route prints the names mgmt_comm_parse() reads). */
const char *mgmt_comm_name(uint32_t v);

/* Decoders of a unit node (from a change or an iteration); defaults applied.
 * 0 or -EINVAL if node is not of that unit. */
int mgmt_conf_iface_get(const struct mgmt_node *n, struct mgmt_iface_conf *);
int mgmt_conf_route_get(const struct mgmt_node *n, struct mgmt_route_conf *);
/* Whole-config settings (defaults when absent). */
void mgmt_conf_rib_get(const struct mgmt_conf *, struct mgmt_rib_conf *);
void mgmt_conf_fwd_get(const struct mgmt_conf *, struct mgmt_fwd_conf *);
/* The same from a fwd unit node (a change's old or new; NULL: defaults) */
void mgmt_conf_fwd_node_get(const struct mgmt_node *, struct mgmt_fwd_conf *);
void mgmt_conf_system_get(const struct mgmt_conf *, struct mgmt_system_conf *);
/* The bgp block of conf (present false and zeros when absent), and one of
 * its neighbours (a MGMT_S_BGP_NBR node: 0, else -EINVAL). */
void mgmt_conf_bgp_get(const struct mgmt_conf *, struct mgmt_bgp_conf *);
int mgmt_conf_bgp_nbr_get(const struct mgmt_node *n,
    struct mgmt_bgp_nbr_conf *);
/* Node accessors: schema id and key/value text. */
enum mgmt_sid mgmt_node_sid(const struct mgmt_node *);
const char *mgmt_node_value(const struct mgmt_node *);

/* Calls fn for each interface / static route / bgp neighbour entry, in key
 * order (for a full resync of rib or fwd). Stops at and returns the first non-zero from fn. */
int mgmt_conf_foreach(const struct mgmt_conf *conf, enum mgmt_sid list,
    int (*fn)(const struct mgmt_node *, void *), void *arg);

/* ---- storage
 * ---------------------------------------------------------------------- */

#define MGMT_STORE_KEEP 50 /* commits kept: rollback 0..49 */
/* The store is tern-mgmt's and its group's (the components' user's), never
 * everyone's: a config may hold secrets. The directory is made with this
 * mode when it is missing, every file written with the other (both less
 * the umask). */
#define MGMT_STORE_DIR_MODE  0750
#define MGMT_STORE_FILE_MODE 0640

/* Writes data to path atomically: temp file in the same directory, write,
 * fsync, rename, fsync of the directory. 0 or -errno; on error path is
 * untouched and the temp file removed. */
int mgmt_store_write_atomic(const char *path, const void *data, size_t len);
/* The same, the content written by wr(fd, arg) (0 or -errno). */
int mgmt_store_write_atomic_fn(const char *path, int (*wr)(int fd, void *arg),
    void *arg);
/* Prints conf and writes it atomically to path (`save FILE`). */
int mgmt_conf_save(const struct mgmt_conf *conf, const char *path);

/* Commit history in dir: files commit.<seq> (seq increasing; older ones
 * commit.<seq>.gz, see mgmt_store_compress), the newest is the running
 * config; older than MGMT_STORE_KEEP are removed. Each file is
 * written with mgmt_store_write_atomic, so a crash leaves either the old or
 * the new newest file, never a broken one. */
int mgmt_store_commit(const char *dir, const struct mgmt_conf *conf);

#define MGMT_COMMENT_MAX 255 /* bytes of a commit comment */
/*
 * What a commit records besides the config (`show system commit`): the first
 * line of its file, a comment to the parser ("#tern-commit {JSON}"), so it
 * is written in the same atomic write as the config and an older tern reads
 * the file as it always did. A file without that line (written before it
 * existed) loads as ever; its metadata is unknown (known false).
 */
struct mgmt_commit_meta {
	bool known;	   /* read: the file had the line */
	unsigned long seq; /* read: its number (commit.<seq>) */
	int64_t time;	   /* seconds since the epoch; 0: unknown */
	long uid;	   /* of the committer (SO_PEERCRED); -1: unknown */
	long pid;	   /* of the committing process; 0: unknown */
	char user[64];	   /* uid's name, "unknown" when not known */
	char via[32];	   /* the client ("ternsh"), "boot" or "rollback" */
	char from[64];	   /* terminal "pts/3", boot file, "confirm expired" */
	char comment[MGMT_COMMENT_MAX + 1];
	unsigned confirm;    /* commit confirmed MINUTES; 0: a plain commit */
	long added, removed; /* lines of `show | compare`; -1: unknown */
	/* commit confirmed: when it rolls back unless a commit confirms it
	 * (wall clock, ms since the epoch; 0: not known, written by an older
	 * tern) and the commit it goes back to (its seq, set by
	 * mgmt_store_commit_meta: the newest before it; 0: the empty config) */
	int64_t confirm_deadline_ms;
	unsigned long confirm_to;
};
/* meta.added for a first commit (the boot config): every printed line is
 * added, counted as it is written (no compare of a 1M-route tree) */
#define MGMT_META_ADDED_ALL (-2L)
/* An unknown meta: user "unknown", uid -1, added and removed -1. */
void mgmt_commit_meta_init(struct mgmt_commit_meta *);
/* mgmt_store_commit with meta (NULL: none) as the file's first line. */
int mgmt_store_commit_meta(const char *dir, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta);
/* The meta of commit N (0 = newest): 0 (known false for a file without
 * one), -ENOENT when there is no such commit, -errno of reading it. */
int mgmt_store_meta(const char *dir, unsigned n, struct mgmt_commit_meta *out);
/* Counts the '+' and '-' lines of mgmt_conf_compare(old, new) into meta. */
void mgmt_commit_meta_summary(struct mgmt_commit_meta *meta,
    const struct mgmt_conf *old, const struct mgmt_conf *new);
/* Loads `rollback N` (0 = newest = running; 1 = the commit before...).
 * -ENOENT if there is no such commit (err says how many there are). */
int mgmt_store_rollback(const char *dir, unsigned n, struct mgmt_conf **out,
    struct lc_err *err);
/* Number of commits stored in dir (0..MGMT_STORE_KEEP). */
int mgmt_store_count(const char *dir);
/* The newest commit's seq into *seq (0: none). 0 or -errno. */
int mgmt_store_newest(const char *dir, unsigned long *seq);
/* Loads and validates commit <seq> (plain or .gz; seq 0: a new empty
 * config). 0, -ENOENT when it is no longer kept, or the errors of
 * mgmt_conf_load_file; err says which. */
int mgmt_store_load_seq(const char *dir, unsigned long seq,
    struct mgmt_conf **out, struct lc_err *err);
/* Takes from every commit file in dir the permissions beyond
 * MGMT_STORE_FILE_MODE (files written 0644 by an older tern): how many it
 * changed, or -errno. */
int mgmt_store_tighten(const char *dir);
/* Path of commit N (0 = newest) into buf. 0 or -ENOENT. */
int mgmt_store_path(const char *dir, unsigned n, char *buf, size_t bufsz);
/*
 * Every commit but the newest is kept gzip-compressed (commit.<seq>.gz, a
 * 1M-route config shrinks 8x): compresses the plain older ones, each
 * atomically (temp file, fsync, rename, fsync of the directory, then the
 * plain file is removed; a crash leaves the plain file, the .gz, or both,
 * and either loads). Returns how many it compressed, or -errno.
 */
int mgmt_store_compress(const char *dir);

#endif /* MGMT_CONF_H */
