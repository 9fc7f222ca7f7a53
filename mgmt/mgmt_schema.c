/* mgmt/mgmt_schema.c: the configuration schema as one table, and the value
 * checks and completion driven by it. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libcommon/lc_inet6.h"
#include "mgmt/mgmt_conf_int.h"

static const char *const backend_words[] = {"af_packet", "af_xdp", "auto",
    NULL};
/* in the order of their index, the node's kbin */
static const char *const host_path_words[] = {"enable", "disable", NULL};
static const char *const loglevel_words[] = {"err", "warning", "notice", "info",
    "debug", NULL};

/* RFC 1997's and later well-known communities, as their values */
static const struct {
	const char *name;
	uint32_t v;
} comm_names[] = {
    {"no-export", 0xffffff01u},		  /* RFC 1997 */
    {"no-advertise", 0xffffff02u},	  /* RFC 1997 */
    {"no-export-subconfed", 0xffffff03u}, /* RFC 1997 */
    {"no-peer", 0xffffff04u},		  /* RFC 3765 */
    {"blackhole", 0xffff029au},		  /* RFC 7999: 65535:666 */
    {"graceful-shutdown", 0xffff0000u},	  /* RFC 8326: 65535:0 */
};
static const char comm_names_text[] = "no-export, no-advertise, "
				      "no-export-subconfed, no-peer, "
				      "blackhole, graceful-shutdown";

#define C     MGMT_SK_CONTAINER
#define L     MGMT_SK_LEAF
#define LL    MGMT_SK_LEAFLIST
#define F     MGMT_SK_FLAG
#define LIST  MGMT_SK_LIST
#define RIB   MGMT_COMP_RIB
#define FWD   MGMT_COMP_FWD
#define MGMT  MGMT_COMP_MGMT
#define BGP   MGMT_COMP_BGP
#define WD    MGMT_SF_WIRE_DFLT
#define AS    MGMT_SF_ASDOT
#define ASMAX 4294967295u
#define NAT   MGMT_SF_NATURAL
#define POL   MGMT_S_POLICY
/* a policy's or a definition's name */
#define PNAME MGMT_T_IFNAME, 1, 63, NULL

/*
 * The schema. Everything that completes, helps, validates, prints or diffs a
 * config reads this table; adding a knob is adding a row (and an enum
 * mgmt_sid entry, in the same place: siblings print in table order). The
 * last column names the field of the component's message that carries the
 * leaf (mgmt_wire.c sets it from the row; WD: sent as its default when not
 * configured, else sent unset); docs/config.md, "Adding a config leaf".
 */
const struct mgmt_schema_node mgmt_schema[MGMT_S__COUNT] = {
    [MGMT_S_ROOT] = {"", -1, C, MGMT_T_NONE, 0, 0, NULL, "Configuration root",
	NULL, MGMT_COMP_ALL, 0, NULL, NULL},

    [MGMT_S_INTERFACES] = {"interfaces", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0,
	NULL, "Interfaces of the forwarding plane", NULL, FWD, 0, NULL, NULL},
    [MGMT_S_IFACE] = {NULL, MGMT_S_INTERFACES, LIST, MGMT_T_IFNAME, 1, 15, NULL,
	"Tern interface name", NULL, FWD, MGMT_SF_UNIT, "<name>", NULL},
    [MGMT_S_IFACE_DEVICE] = {"device", MGMT_S_IFACE, L, MGMT_T_IFNAME, 1, 15,
	NULL, "Linux interface to attach (default: the tern name)", NULL, FWD,
	0, "<ifname>", NULL},
    [MGMT_S_IFACE_ADDRESS] = {"address", MGMT_S_IFACE, LL, MGMT_T_ADDR4, 0, 0,
	NULL, "IPv4 address with prefix length (repeatable)", NULL, FWD, 0,
	"<a.b.c.d/len>", NULL},
    /* IPv6 (docs/ipv6.md): mgmt_push.c encodes these in IfConfig.addrs6,
     * link_local, ra and ipv6_disabled (no wire column) */
    [MGMT_S_IFACE_INET6] = {"inet6", MGMT_S_IFACE, C, MGMT_T_NONE, 0, 0, NULL,
	"IPv6 on this interface", NULL, FWD, 0, NULL, NULL},
    [MGMT_S_IFACE_INET6_ADDRESS] = {"address", MGMT_S_IFACE_INET6, LL,
	MGMT_T_ADDR6, 0, 0, NULL,
	"IPv6 global address with prefix length (repeatable)", NULL, FWD, 0,
	"<x:x::x/len>", NULL},
    [MGMT_S_IFACE_INET6_DISABLE] = {"disable", MGMT_S_IFACE_INET6, F,
	MGMT_T_NONE, 0, 0, NULL, "No IPv6 on this interface, no link-local",
	NULL, FWD, 0, NULL, NULL},
    [MGMT_S_IFACE_LINKLOCAL] = {"link-local", MGMT_S_IFACE, L, MGMT_T_IP6, 0, 0,
	NULL, "IPv6 link-local address (default: from the MAC, EUI-64)", NULL,
	FWD, 0, "<fe80::x>", NULL},
    [MGMT_S_IFACE_RA] = {"router-advertisement", MGMT_S_IFACE, C, MGMT_T_NONE,
	0, 0, NULL, "Send IPv6 Router Advertisements (RFC 4861) on this link",
	NULL, FWD, 0, NULL, NULL},
    [MGMT_S_IFACE_RA_PREFIX] = {"prefix", MGMT_S_IFACE_RA, LL, MGMT_T_PREFIX6,
	0, 0, NULL,
	"Prefix advertised for autoconfiguration (default: the interface's "
	"/64s)",
	NULL, FWD, 0, "<x:x::/len>", NULL},
    [MGMT_S_IFACE_RA_MTU] = {"mtu", MGMT_S_IFACE_RA, L, MGMT_T_UINT, 1280, 9216,
	NULL, "MTU option advertised (default: none)", NULL, FWD, 0,
	"<1280..9216>", NULL},
    [MGMT_S_IFACE_RA_LIFETIME] = {"lifetime", MGMT_S_IFACE_RA, L, MGMT_T_UINT,
	1, 9000, NULL,
	"Router lifetime, seconds (not below max-interval, RFC 4861 6.2.1)",
	"1800", FWD, 0, "<1..9000>", NULL},
    [MGMT_S_IFACE_RA_INTERVAL] = {"max-interval", MGMT_S_IFACE_RA, L,
	MGMT_T_UINT, 4, 1800, NULL,
	"Longest time between unsolicited advertisements, seconds", "600", FWD,
	0, "<4..1800>", NULL},
    /* not sent when unset (IfConfig.mtu 0): fwd takes the device's */
    [MGMT_S_IFACE_MTU] = {"mtu", MGMT_S_IFACE, L, MGMT_T_UINT, 68, 9216, NULL,
	"IP MTU in bytes (default: the device's; not above it)", NULL, FWD, 0,
	"<68..9216>", "mtu"},
    [MGMT_S_IFACE_DISABLE] = {"disable", MGMT_S_IFACE, F, MGMT_T_NONE, 0, 0,
	NULL, "Administratively down", NULL, FWD, 0, NULL, NULL},
    [MGMT_S_IFACE_BACKEND] = {"port-backend", MGMT_S_IFACE, L, MGMT_T_ENUM, 0,
	0, backend_words,
	"Packet I/O for this interface (default: fwd port-backend)", NULL, FWD,
	0, NULL, NULL},
    /* no wire column: IfConfig.host_path is a proto enum whose values are
     * the index + 1 (0 is DEFAULT); mgmt_push.c sends ENABLE or DISABLE */
    [MGMT_S_IFACE_HOST_PATH] = {"host-path", MGMT_S_IFACE, L, MGMT_T_ENUM, 0, 0,
	host_path_words,
	"Mirror the port in a kernel interface for the router's own sockets",
	"enable", FWD, 0, NULL, NULL},
    [MGMT_S_IFACE_ARP] = {"arp", MGMT_S_IFACE, LIST, MGMT_T_IP4, 0, 0, NULL,
	"Static ARP entry: neighbour address on this interface's subnet", NULL,
	FWD, 0, "<a.b.c.d>", NULL},
    [MGMT_S_IFACE_ARP_MAC] = {"mac", MGMT_S_IFACE_ARP, L, MGMT_T_MAC, 0, 0,
	NULL, "Link-layer address of the neighbour (unicast)", NULL, FWD, 0,
	"<xx:xx:xx:xx:xx:xx>", NULL},
    [MGMT_S_IFACE_NDP] = {"ndp", MGMT_S_IFACE, LIST, MGMT_T_IP6, 0, 0, NULL,
	"Static IPv6 neighbour: address on this interface's link", NULL, FWD, 0,
	"<x:x::x>", NULL},
    [MGMT_S_IFACE_NDP_MAC] = {"mac", MGMT_S_IFACE_NDP, L, MGMT_T_MAC, 0, 0,
	NULL, "Link-layer address of the neighbour (unicast)", NULL, FWD, 0,
	"<xx:xx:xx:xx:xx:xx>", NULL},

    [MGMT_S_PROTOCOLS] = {"protocols", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0, NULL,
	"Routing protocols", NULL, RIB, 0, NULL, NULL},
    [MGMT_S_STATIC] = {"static", MGMT_S_PROTOCOLS, C, MGMT_T_NONE, 0, 0, NULL,
	"Static routes", NULL, RIB, 0, NULL, NULL},
    [MGMT_S_ROUTE] = {"route", MGMT_S_STATIC, LIST, MGMT_T_PREFIX46, 0, 0, NULL,
	"Static route to a destination prefix (IPv4 or IPv6)", NULL, RIB,
	MGMT_SF_UNIT, "<a.b.c.d/len|x:x::/len>", NULL},
    [MGMT_S_ROUTE_NH] = {"next-hop", MGMT_S_ROUTE, LL, MGMT_T_IP46, 0, 0, NULL,
	"Next-hop address of the route's family (repeatable: ECMP)", NULL, RIB,
	0, "<a.b.c.d|x:x::x>", NULL},
    [MGMT_S_ROUTE_IFACE] = {"interface", MGMT_S_ROUTE, L, MGMT_T_IFNAME, 1, 15,
	NULL,
	"Outgoing interface (a configured tern interface; with an IPv6 "
	"link-local next hop, its link)",
	NULL, RIB, 0, "<name>", NULL},
    [MGMT_S_ROUTE_DISTANCE] = {"distance", MGMT_S_ROUTE, L, MGMT_T_UINT, 1, 255,
	NULL,
	"Administrative distance (default: rib distance "
	"static)",
	NULL, RIB, 0, "<1..255>", "distance"},
    [MGMT_S_ROUTE_BLACKHOLE] = {"blackhole", MGMT_S_ROUTE, F, MGMT_T_NONE, 0, 0,
	NULL, "Silently drop matching packets", NULL, RIB, 0, NULL, NULL},
    [MGMT_S_ROUTE_REJECT] = {"reject", MGMT_S_ROUTE, F, MGMT_T_NONE, 0, 0, NULL,
	"Drop matching packets with ICMP unreachable", NULL, RIB, 0, NULL,
	NULL},

    /* tern-bgp's block, sent whole (bgp.BgpConfig, SET_CONFIG); each
     * neighbour is a bgp.Neighbor of it. Numbers not configured go as 0,
     * tern-bgp's default (bgp.proto), hence no range holds 0 */
    [MGMT_S_BGP] = {"bgp", MGMT_S_PROTOCOLS, C, MGMT_T_NONE, 0, 0, NULL,
	"BGP-4 (tern-bgp)", NULL, BGP, MGMT_SF_UNIT, NULL, NULL},
    [MGMT_S_BGP_LOCAL_AS] = {"local-as", MGMT_S_BGP, L, MGMT_T_UINT, 1, ASMAX,
	NULL, "Autonomous system of this router (asplain or asdot)", NULL, BGP,
	AS, "<1..4294967295>", "local_as"},
    [MGMT_S_BGP_ROUTER_ID] = {"router-id", MGMT_S_BGP, L, MGMT_T_IP4, 0, 0,
	NULL, "BGP identifier (default: the highest interface address)", NULL,
	BGP, 0, "<a.b.c.d>", NULL},
    [MGMT_S_BGP_GR_TIME] = {"graceful-restart-time", MGMT_S_BGP, L, MGMT_T_UINT,
	1, 4095, NULL,
	"Restart time announced for graceful restart (RFC 4724), seconds",
	"120", BGP, 0, "<1..4095>", "graceful_restart_time"},
    [MGMT_S_BGP_MULTIPATH] = {"multipath", MGMT_S_BGP, L, MGMT_T_UINT, 1, 64,
	NULL,
	"Equal paths installed together (ECMP; rib's ecmp-width caps it); 1: "
	"the best path only",
	"1", BGP, 0, "<1..64>", "multipath"},
    [MGMT_S_BGP_NBR] = {"neighbor", MGMT_S_BGP, LIST, MGMT_T_IP4, 0, 0, NULL,
	"BGP neighbour (peer address)", NULL, BGP, 0, "<a.b.c.d>", NULL},
    [MGMT_S_BGP_NBR_REMOTE_AS] = {"remote-as", MGMT_S_BGP_NBR, L, MGMT_T_UINT,
	1, ASMAX, NULL, "Autonomous system of the neighbour (required)", NULL,
	BGP, AS, "<1..4294967295>", "remote_as"},
    [MGMT_S_BGP_NBR_DESCR] = {"description", MGMT_S_BGP_NBR, L, MGMT_T_STRING,
	1, 63, NULL, "Text shown with the neighbour", NULL, BGP, 0, "<text>",
	NULL},
    [MGMT_S_BGP_NBR_PASSIVE] = {"passive", MGMT_S_BGP_NBR, F, MGMT_T_NONE, 0, 0,
	NULL, "Never connect: only accept the neighbour's connection", NULL,
	BGP, 0, NULL, "passive"},
    [MGMT_S_BGP_NBR_HOLD] = {"hold-time", MGMT_S_BGP_NBR, L, MGMT_T_UINT, 3,
	65535, NULL, "Hold time proposed in OPEN, seconds", "90", BGP, 0,
	"<3..65535>", "hold_time"},
    [MGMT_S_BGP_NBR_RETRY] = {"connect-retry", MGMT_S_BGP_NBR, L, MGMT_T_UINT,
	1, 65535, NULL, "Connect retry time, seconds", "30", BGP, 0,
	"<1..65535>", "connect_retry"},
    [MGMT_S_BGP_NBR_MULTIHOP] = {"multihop", MGMT_S_BGP_NBR, L, MGMT_T_UINT, 2,
	255, NULL,
	"eBGP multihop: the session's TTL (the neighbour need not be on a "
	"connected subnet)",
	NULL, BGP, 0, "<2..255>", "multihop_ttl"},
    [MGMT_S_BGP_NBR_LOCAL_ADDR] = {"local-address", MGMT_S_BGP_NBR, L,
	MGMT_T_IP4, 0, 0, NULL,
	"Source address of the session (one of the router's)", NULL, BGP, 0,
	"<a.b.c.d>", NULL},
    [MGMT_S_BGP_NBR_AUTH] = {"authentication-key", MGMT_S_BGP_NBR, L,
	MGMT_T_STRING, 1, 63, NULL, "TCP MD5 signature key (RFC 2385)", NULL,
	BGP, 0, "<text>", NULL},
    [MGMT_S_BGP_NBR_NH_SELF] = {"next-hop-self", MGMT_S_BGP_NBR, F, MGMT_T_NONE,
	0, 0, NULL, "Advertise routes with this router as next hop", NULL, BGP,
	0, NULL, "next_hop_self"},
    [MGMT_S_BGP_NBR_GR] = {"graceful-restart", MGMT_S_BGP_NBR, F, MGMT_T_NONE,
	0, 0, NULL, "Negotiate graceful restart (RFC 4724)", NULL, BGP, 0, NULL,
	"graceful_restart"},
    [MGMT_S_BGP_NBR_IMPORT] = {"import", MGMT_S_BGP_NBR, L, MGMT_T_IFNAME, 1,
	63, NULL,
	"Import policy (none: an eBGP neighbour's routes are refused, RFC 8212)",
	NULL, BGP, 0, "<policy>", NULL},
    [MGMT_S_BGP_NBR_EXPORT] = {"export", MGMT_S_BGP_NBR, L, MGMT_T_IFNAME, 1,
	63, NULL,
	"Export policy (none: nothing is advertised to an eBGP neighbour, RFC "
	"8212)",
	NULL, BGP, 0, "<policy>", NULL},
    [MGMT_S_BGP_NBR_SHUTDOWN] = {"shutdown", MGMT_S_BGP_NBR, F, MGMT_T_NONE, 0,
	0, NULL, "Administratively down: configured, no session", NULL, BGP, 0,
	NULL, "shutdown"},
    [MGMT_S_BGP_NBR_LOCAL_AS] = {"local-as", MGMT_S_BGP_NBR, L, MGMT_T_UINT, 1,
	ASMAX, NULL, "Our AS towards this neighbour (default: bgp local-as)",
	NULL, BGP, AS, "<1..4294967295>", "local_as"},
    [MGMT_S_BGP_NBR_LOCAL_ADDR6] = {"local-address6", MGMT_S_BGP_NBR, L,
	MGMT_T_STRING, 2, 45, NULL,
	"IPv6 next hop of the IPv6 routes sent to this neighbour (a global "
	"address of the router; needed over an IPv4 session)",
	NULL, BGP, 0, "<x:x::x>", NULL},
    [MGMT_S_BGP_NBR_FAMILY] = {"family", MGMT_S_BGP_NBR, C, MGMT_T_NONE, 0, 0,
	NULL, "Address families of the session (RFC 4760; none: inet unicast)",
	NULL, BGP, 0, NULL, NULL},
    [MGMT_S_BGP_NBR_FAM_INET] = {"inet", MGMT_S_BGP_NBR_FAMILY, C, MGMT_T_NONE,
	0, 0, NULL, "IPv4", NULL, BGP, 0, NULL, NULL},
    [MGMT_S_BGP_NBR_FAM_INET_UNI] = {"unicast", MGMT_S_BGP_NBR_FAM_INET, F,
	MGMT_T_NONE, 0, 0, NULL, "IPv4 unicast (AFI 1, SAFI 1)", NULL, BGP, 0,
	NULL, NULL},
    [MGMT_S_BGP_NBR_FAM_INET6] = {"inet6", MGMT_S_BGP_NBR_FAMILY, C,
	MGMT_T_NONE, 0, 0, NULL, "IPv6", NULL, BGP, 0, NULL, NULL},
    [MGMT_S_BGP_NBR_FAM_INET6_UNI] = {"unicast", MGMT_S_BGP_NBR_FAM_INET6, F,
	MGMT_T_NONE, 0, 0, NULL, "IPv6 unicast (AFI 2, SAFI 1)", NULL, BGP, 0,
	NULL, NULL},

    /* tern-bgp's routing policy, sent whole with protocols bgp in
     * bgp.BgpConfig.policy (mgmt_policy.c encodes it: lists and names,
     * no wire column). Junos' shape; docs/config.md "Routing policy" */
    [MGMT_S_POLICY] = {"policy-options", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0,
	NULL, "Routing policy: prefix lists, AS paths, communities, policies",
	NULL, BGP, MGMT_SF_UNIT, NULL, NULL},
    [MGMT_S_POL_PL] = {"prefix-list", POL, LIST, PNAME,
	"Named list of prefixes, each with its length range", NULL, BGP, 0,
	"<name>", NULL},
    [MGMT_S_POL_PL_ENT] = {NULL, MGMT_S_POL_PL, LIST, MGMT_T_PREFIX4, 0, 0,
	NULL, "Prefix: routes under it (exactly it without ge or le)", NULL,
	BGP, 0, "<a.b.c.d/len>", NULL},
    [MGMT_S_POL_PL_GE] = {"ge", MGMT_S_POL_PL_ENT, L, MGMT_T_UINT, 1, 32, NULL,
	"Shortest route length that matches (up to /32 without le)", NULL, BGP,
	0, "<1..32>", NULL},
    [MGMT_S_POL_PL_LE] = {"le", MGMT_S_POL_PL_ENT, L, MGMT_T_UINT, 1, 32, NULL,
	"Longest route length that matches", NULL, BGP, 0, "<1..32>", NULL},
    [MGMT_S_POL_ASP] = {"as-path", POL, LIST, PNAME,
	"Named AS path regular expression", NULL, BGP, 0, "<name>", NULL},
    [MGMT_S_POL_ASP_RE] = {NULL, MGMT_S_POL_ASP, L, MGMT_T_STRING, 1, 63, NULL,
	"POSIX extended regex over the path as \"65001 65002 {65003,65004}\"",
	NULL, BGP, 0, "<regex>", NULL},
    [MGMT_S_POL_COMM] = {"community", POL, LIST, PNAME,
	"Named community list (a route matches when it has every member)", NULL,
	BGP, 0, "<name>", NULL},
    [MGMT_S_POL_COMM_MEMBERS] = {"members", MGMT_S_POL_COMM, LL,
	MGMT_T_COMMUNITY, 0, 0, NULL,
	"Community: high:low, large global:local1:local2, '*' for any field, "
	"or no-export, no-advertise, no-export-subconfed, no-peer, "
	"blackhole, graceful-shutdown",
	NULL, BGP, 0, "<community>", NULL},
    [MGMT_S_POL_PS] = {"policy-statement", POL, LIST, PNAME,
	"Routing policy: terms in order, then a default action", NULL, BGP, 0,
	"<name>", NULL},
    [MGMT_S_POL_TERM] = {"term", MGMT_S_POL_PS, LIST, PNAME,
	"Term; terms run in name order, numbers compared as numbers", NULL, BGP,
	NAT, "<name>", NULL},
    [MGMT_S_POL_FROM] = {"from", MGMT_S_POL_TERM, C, MGMT_T_NONE, 0, 0, NULL,
	"Conditions: all kinds given must match, one value of each", NULL, BGP,
	0, NULL, NULL},
    [MGMT_S_POL_FROM_PL] = {"prefix-list", MGMT_S_POL_FROM, LL, PNAME,
	"The route's prefix is in this prefix list (repeatable: any)", NULL,
	BGP, 0, "<name>", NULL},
    [MGMT_S_POL_FROM_ASP] = {"as-path", MGMT_S_POL_FROM, LL, PNAME,
	"The route's AS path matches this as-path (repeatable: any)", NULL, BGP,
	0, "<name>", NULL},
    [MGMT_S_POL_FROM_COMM] = {"community", MGMT_S_POL_FROM, LL, PNAME,
	"The route has every member of this community (repeatable: any)", NULL,
	BGP, 0, "<name>", NULL},
    [MGMT_S_POL_FROM_NBR] = {"neighbor", MGMT_S_POL_FROM, LL, MGMT_T_IP4, 0, 0,
	NULL, "The route was learned from this neighbour (repeatable: any)",
	NULL, BGP, 0, "<a.b.c.d>", NULL},
    [MGMT_S_POL_THEN] = {"then", MGMT_S_POL_TERM, C, MGMT_T_NONE, 0, 0, NULL,
	"Actions on a matching route; without accept or reject the next term "
	"runs",
	NULL, BGP, 0, NULL, NULL},
    [MGMT_S_POL_THEN_LP] = {"local-preference", MGMT_S_POL_THEN, L, MGMT_T_UINT,
	0, ASMAX, NULL, "Set LOCAL_PREF", NULL, BGP, 0, "<0..4294967295>",
	NULL},
    [MGMT_S_POL_THEN_MED] = {"metric", MGMT_S_POL_THEN, L, MGMT_T_UINT, 0,
	ASMAX, NULL, "Set MULTI_EXIT_DISC", NULL, BGP, 0, "<0..4294967295>",
	NULL},
    [MGMT_S_POL_THEN_COMM] = {"community", MGMT_S_POL_THEN, C, MGMT_T_NONE, 0,
	0, NULL, "Change the route's communities (set, delete, then add)", NULL,
	BGP, 0, NULL, NULL},
    [MGMT_S_POL_THEN_COMM_SET] = {"set", MGMT_S_POL_THEN_COMM, L, PNAME,
	"Replace every community with this community's members", NULL, BGP, 0,
	"<name>", NULL},
    [MGMT_S_POL_THEN_COMM_DEL] = {"delete", MGMT_S_POL_THEN_COMM, LL, PNAME,
	"Remove the communities any member of this community matches", NULL,
	BGP, 0, "<name>", NULL},
    [MGMT_S_POL_THEN_COMM_ADD] = {"add", MGMT_S_POL_THEN_COMM, LL, PNAME,
	"Add this community's members", NULL, BGP, 0, "<name>", NULL},
    [MGMT_S_POL_THEN_PREPEND] = {"as-path-prepend", MGMT_S_POL_THEN, L,
	MGMT_T_UINT, 1, 32, NULL,
	"Prepend an AS this many times (import: the neighbour's, export: ours)",
	NULL, BGP, 0, "<1..32>", NULL},
    [MGMT_S_POL_THEN_ACCEPT] = {"accept", MGMT_S_POL_THEN, F, MGMT_T_NONE, 0, 0,
	NULL, "Accept the route: no further term runs", NULL, BGP, 0, NULL,
	NULL},
    [MGMT_S_POL_THEN_REJECT] = {"reject", MGMT_S_POL_THEN, F, MGMT_T_NONE, 0, 0,
	NULL, "Reject the route: no further term runs", NULL, BGP, 0, NULL,
	NULL},
    [MGMT_S_POL_PS_THEN] = {"then", MGMT_S_POL_PS, C, MGMT_T_NONE, 0, 0, NULL,
	"What happens when no term decided (default: reject)", NULL, BGP, 0,
	NULL, NULL},
    [MGMT_S_POL_PS_ACCEPT] = {"accept", MGMT_S_POL_PS_THEN, F, MGMT_T_NONE, 0,
	0, NULL, "Accept the route", NULL, BGP, 0, NULL, NULL},
    [MGMT_S_POL_PS_REJECT] = {"reject", MGMT_S_POL_PS_THEN, F, MGMT_T_NONE, 0,
	0, NULL, "Reject the route", NULL, BGP, 0, NULL, NULL},

    [MGMT_S_RIB] = {"rib", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0, NULL,
	"Routing information base settings", NULL, RIB, MGMT_SF_UNIT, NULL,
	NULL},
    [MGMT_S_RIB_ECMP] = {"ecmp-width", MGMT_S_RIB, L, MGMT_T_UINT, 1, 64, NULL,
	"Maximum equal-cost paths per prefix", "8", RIB, WD, "<1..64>",
	"ecmp_width"},
    [MGMT_S_RIB_DISTANCE] = {"distance", MGMT_S_RIB, C, MGMT_T_NONE, 0, 0, NULL,
	"Administrative distance per route source", NULL, RIB, 0, NULL, NULL},
    [MGMT_S_RIB_DIST_CONNECTED] = {"connected", MGMT_S_RIB_DISTANCE, L,
	MGMT_T_UINT, 0, 255, NULL, "Distance of connected routes", "0", RIB, WD,
	"<0..255>", "distance_connected"},
    [MGMT_S_RIB_DIST_STATIC] = {"static", MGMT_S_RIB_DISTANCE, L, MGMT_T_UINT,
	1, 255, NULL, "Distance of static routes", "1", RIB, WD, "<1..255>",
	"distance_static"},

    [MGMT_S_FWD] = {"fwd", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0, NULL,
	"Forwarding plane settings", NULL, FWD, MGMT_SF_UNIT, NULL, NULL},
    [MGMT_S_FWD_WORKERS] = {"workers", MGMT_S_FWD, L, MGMT_T_UINT, 1, 16, NULL,
	"Forwarding threads (default: tern-fwd --workers)", "1", FWD, 0,
	"<1..16>", "workers"},
    [MGMT_S_FWD_BACKEND] = {"port-backend", MGMT_S_FWD, L, MGMT_T_ENUM, 0, 0,
	backend_words, "Default packet I/O for interfaces", "auto", FWD, 0,
	NULL, NULL},
    [MGMT_S_FWD_ICMP_RATE] = {"icmp-rate-limit", MGMT_S_FWD, L, MGMT_T_UINT, 0,
	1000000, NULL, "ICMP errors sent per second (0: none)", "100", FWD, 0,
	"<0..1000000>", "icmp_rate_limit"},

    [MGMT_S_SYSTEM] = {"system", MGMT_S_ROOT, C, MGMT_T_NONE, 0, 0, NULL,
	"System settings", NULL, MGMT_COMP_ALL, MGMT_SF_UNIT, NULL, NULL},
    [MGMT_S_SYS_HOSTNAME] = {"host-name", MGMT_S_SYSTEM, L, MGMT_T_STRING, 1,
	63, NULL, "Name of this router (prompt, logs)", "tern", MGMT, 0,
	"<text>", NULL},
    [MGMT_S_SYS_LOGLEVEL] = {"log-level", MGMT_S_SYSTEM, L, MGMT_T_ENUM, 0, 0,
	loglevel_words, "Log level of every component", "notice", MGMT_COMP_ALL,
	0, NULL, NULL},
    [MGMT_S_SYS_METRICS] = {"metrics", MGMT_S_SYSTEM, C, MGMT_T_NONE, 0, 0,
	NULL, "Prometheus metrics over HTTP, served by tern-mgmt", NULL, MGMT,
	0, NULL, NULL},
    [MGMT_S_SYS_METRICS_LISTEN] = {"listen", MGMT_S_SYS_METRICS, L, MGMT_T_IP4,
	0, 0, NULL, "Address the endpoint listens on", "127.0.0.1", MGMT, 0,
	NULL, NULL},
    [MGMT_S_SYS_METRICS_PORT] = {"port", MGMT_S_SYS_METRICS, L, MGMT_T_UINT, 1,
	65535, NULL, "TCP port of the endpoint (GET /metrics)", "9324", MGMT, 0,
	"<1..65535>", NULL},
};

#undef C
#undef L
#undef LL
#undef F
#undef LIST
#undef RIB
#undef FWD
#undef MGMT
#undef BGP
#undef WD
#undef AS
#undef ASMAX
#undef NAT
#undef POL
#undef PNAME

unsigned
mgmt_schema_comp(enum mgmt_sid sid)
{
	return (sid < MGMT_S__COUNT ? mgmt_schema[sid].comp : 0);
}

/* Decimal without printf (the parser formats millions of these). */
static char *
put_u(char *p, uint32_t v)
{
	char t[10];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = t[--n];
	return (p);
}

static char *
put_ip(char *p, uint32_t a)
{
	p = put_u(p, a >> 24);
	*p++ = '.';
	p = put_u(p, (a >> 16) & 255);
	*p++ = '.';
	p = put_u(p, (a >> 8) & 255);
	*p++ = '.';
	return (put_u(p, a & 255));
}

static void
put_ip_len(char *p, uint32_t a, unsigned len)
{
	p = put_ip(p, a);
	*p++ = '/';
	*put_u(p, len) = '\0';
}

int
mgmt_schema_child(unsigned parent, const char *word)
{
	for (unsigned i = parent + 1; i < MGMT_S__COUNT; i++)
		if (mgmt_schema[i].parent == (int)parent &&
		    mgmt_schema[i].name != NULL &&
		    strcmp(mgmt_schema[i].name, word) == 0)
			return ((int)i);
	return (-1);
}

int
mgmt_schema_anon(unsigned parent)
{
	for (unsigned i = parent + 1; i < MGMT_S__COUNT; i++)
		if (mgmt_schema[i].parent == (int)parent &&
		    mgmt_schema[i].name == NULL)
			return ((int)i);
	return (-1);
}

void
mgmt_schema_expected(unsigned parent, char *buf, size_t sz)
{
	size_t off = 0;
	int k = 0;

	buf[0] = '\0';
	for (unsigned i = parent + 1; i < MGMT_S__COUNT && off < sz; i++) {
		const struct mgmt_schema_node *s = &mgmt_schema[i];

		if (s->parent != (int)parent)
			continue;
		off += (size_t)snprintf(buf + off, sz - off, "%s%s",
		    k++ ? ", " : "", s->name ? s->name : s->tname);
	}
	if (k == 0)
		snprintf(buf, sz, "nothing more");
}

static const char *
type_expect(const struct mgmt_schema_node *s, char *buf, size_t sz)
{
	size_t off = 0;

	switch (s->type) {
	case MGMT_T_UINT:
		if (s->flags & MGMT_SF_ASDOT)
			snprintf(buf, sz,
			    "an AS number in %u..%u (or asdot 0.1..65535.65535)",
			    s->min, s->max);
		else
			snprintf(buf, sz, "a number in %u..%u", s->min, s->max);
		break;
	case MGMT_T_IP4:
		snprintf(buf, sz, "an IPv4 address a.b.c.d");
		break;
	case MGMT_T_PREFIX4:
		snprintf(buf, sz,
		    "an IPv4 prefix a.b.c.d/len without host bits");
		break;
	case MGMT_T_ADDR4:
		snprintf(buf, sz, "an IPv4 address with length a.b.c.d/len");
		break;
	case MGMT_T_IP6:
		snprintf(buf, sz, "an IPv6 address x:x::x");
		break;
	case MGMT_T_PREFIX6:
		snprintf(buf, sz, "an IPv6 prefix x:x::/len without host bits");
		break;
	case MGMT_T_ADDR6:
		snprintf(buf, sz, "an IPv6 address with length x:x::x/len");
		break;
	case MGMT_T_IP46:
		snprintf(buf, sz,
		    "an IPv4 address a.b.c.d or an IPv6 address x:x::x");
		break;
	case MGMT_T_PREFIX46:
		snprintf(buf, sz,
		    "an IPv4 prefix a.b.c.d/len or an IPv6 prefix x:x::/len "
		    "without host bits");
		break;
	case MGMT_T_IFNAME:
		snprintf(buf, sz,
		    "a name of 1..%u letters, digits, '-', '_', "
		    "'.' starting with a letter or digit",
		    s->max);
		break;
	case MGMT_T_STRING:
		snprintf(buf, sz, "text of %u..%u characters", s->min, s->max);
		break;
	case MGMT_T_MAC:
		snprintf(buf, sz,
		    "a MAC address xx:xx:xx:xx:xx:xx (six pairs of hex "
		    "digits)");
		break;
	case MGMT_T_COMMUNITY:
		snprintf(buf, sz,
		    "a community high:low (0..65535 each), a large community "
		    "global:local1:local2, '*' for any field, or a name: %s",
		    comm_names_text);
		break;
	case MGMT_T_ENUM:
		off = (size_t)snprintf(buf, sz, "one of");
		for (int i = 0; s->enums[i] && off < sz; i++)
			off += (size_t)snprintf(buf + off, sz - off, "%s %s",
			    i ? "," : "", s->enums[i]);
		break;
	default:
		snprintf(buf, sz, "no value");
	}
	return (buf);
}

/* Strict unsigned decimal: no sign, no leading zeros, no overflow. */
static int
parse_uint(const char *v, uint32_t *out)
{
	uint64_t x = 0;
	size_t n = strlen(v);

	if (n == 0 || n > 10 || (n > 1 && v[0] == '0'))
		return (-EINVAL);
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return (-EINVAL);
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > UINT32_MAX)
		return (-EINVAL);
	*out = (uint32_t)x;
	return (0);
}

/* asdot "H.L" (RFC 5396), each half 0..65535: H * 65536 + L */
static int
parse_asdot(const char *v, uint32_t *out)
{
	const char *dot = strchr(v, '.');
	char hi[8];
	uint32_t h, l;

	if (dot == NULL || dot - v > 5)
		return (-EINVAL);
	memcpy(hi, v, (size_t)(dot - v));
	hi[dot - v] = '\0';
	if (parse_uint(hi, &h) != 0 || parse_uint(dot + 1, &l) != 0 ||
	    h > 65535 || l > 65535)
		return (-EINVAL);
	*out = h << 16 | l;
	return (0);
}

const char *
mgmt_comm_name(uint32_t v)
{
	for (size_t i = 0; i < sizeof(comm_names) / sizeof(comm_names[0]); i++)
		if (comm_names[i].v == v)
			return (comm_names[i].name);
	return (NULL);
}

int
mgmt_comm_parse(const char *s, struct mgmt_comm *c)
{
	char buf[64], *f[4], *save = NULL;
	unsigned n = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(comm_names) / sizeof(comm_names[0]); i++)
		if (strcmp(s, comm_names[i].name) == 0) {
			c->v[0] = comm_names[i].v >> 16;
			c->v[1] = comm_names[i].v & 0xffff;
			return (0);
		}
	if (s[0] == '\0' || strlen(s) >= sizeof(buf) || s[0] == ':' ||
	    strstr(s, "::") != NULL || s[strlen(s) - 1] == ':')
		return (-EINVAL);
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ":", &save); t != NULL && n < 4;
	     t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	if (n != 2 && n != 3)
		return (-EINVAL);
	c->large = n == 3;
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(f[i], "*") == 0)
			c->wild |= 1u << i;
		else if (parse_uint(f[i], &c->v[i]) != 0 ||
		    (!c->large && c->v[i] > 0xffff))
			return (-EINVAL);
	}
	return (0);
}

/* c is a hex digit */
static uint64_t
hex_val(char c)
{
	return ((uint64_t)(isdigit((unsigned char)c) ?
		c - '0' :
		tolower((unsigned char)c) - 'a' + 10));
}

/* xx:xx:xx:xx:xx:xx, exactly two hex digits per octet, either case. */
static int
parse_mac(const char *v, uint64_t *out)
{
	uint64_t x = 0;

	if (strlen(v) != 17)
		return (-EINVAL);
	for (unsigned i = 0; i < 6; i++) {
		const char *p = v + 3 * i;

		if (!isxdigit((unsigned char)p[0]) ||
		    !isxdigit((unsigned char)p[1]) || (i < 5 && p[2] != ':'))
			return (-EINVAL);
		x = (x << 8) | hex_val(p[0]) << 4 | hex_val(p[1]);
	}
	*out = x;
	return (0);
}

static bool
ifname_ok(const char *v, unsigned max)
{
	size_t n = strlen(v);

	if (n == 0 || n > max || !isalnum((unsigned char)v[0]))
		return (false);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '-' &&
		    v[i] != '_' && v[i] != '.')
			return (false);
	return (true);
}

/* An IPv6 value's kbin: bit 63 (above every IPv4 value's) and the top 63
 * bits of the address; equal ones compare by mgmt_value_cmp6 */
static uint64_t
kbin6(const struct lc_ip6 *a)
{
	uint64_t hi = 0;

	for (unsigned i = 0; i < 8; i++)
		hi = hi << 8 | a->b[i];
	return (1ull << 63 | hi >> 1);
}

bool
mgmt_type_is6(unsigned sid)
{
	switch (mgmt_schema[sid].type) {
	case MGMT_T_IP6:
	case MGMT_T_PREFIX6:
	case MGMT_T_ADDR6:
	case MGMT_T_IP46:
	case MGMT_T_PREFIX46:
		return (true);
	default:
		return (false);
	}
}

/* The canonical IPv6 text s as its address (the host part of an
 * address/len) and its length (128 for an address alone). */
static int
value6(const char *s, struct lc_ip6 *a, unsigned *len)
{
	struct lc_prefix6 p;
	struct lc_err e;

	if (strchr(s, '/') == NULL) {
		*len = 128;
		return (lc_inet6_parse(s, 0, a, NULL, &e));
	}
	if (lc_inet6_prefix_parse(s, LC_INET6_F_HOST, &p, a, &e) != 0)
		return (-EINVAL);
	*len = p.len;
	return (0);
}

int
mgmt_value_cmp6(const char *a, const char *b)
{
	struct lc_ip6 x, y;
	unsigned lx, ly;
	int c;

	if (value6(a, &x, &lx) != 0 || value6(b, &y, &ly) != 0)
		return (0); /* not canonical IPv6 text: strcmp decides */
	if ((c = memcmp(x.b, y.b, 16)) != 0)
		return (c < 0 ? -1 : 1);
	return (lx < ly ? -1 : lx > ly);
}

/* An IPv6 value of sid (text with a ':'), as mgmt_value_parse. */
static int
value_parse6(const struct mgmt_schema_node *s, const char *what, const char *v,
    char *canon, uint64_t *kbin, struct lc_err *err)
{
	struct lc_prefix6 p;
	struct lc_ip6 a;
	struct lc_err e6;
	int rv;

	switch (s->type) {
	case MGMT_T_IP6:
	case MGMT_T_IP46:
		if ((rv = lc_inet6_parse(v, 0, &a, NULL, &e6)) != 0)
			break;
		*kbin = kbin6(&a);
		lc_inet6_fmt(&a, canon);
		return (0);
	case MGMT_T_PREFIX6:
	case MGMT_T_PREFIX46:
		if ((rv = lc_inet6_prefix_parse(v, 0, &p, NULL, &e6)) != 0)
			break;
		*kbin = kbin6(&p.addr);
		lc_inet6_prefix_str(&p, canon);
		return (0);
	case MGMT_T_ADDR6:
		if ((rv = lc_inet6_prefix_parse(v, LC_INET6_F_HOST, &p, &a,
			 &e6)) != 0)
			break;
		*kbin = kbin6(&a);
		p.addr = a;
		lc_inet6_prefix_str(&p, canon);
		return (0);
	default:
		return (-EINVAL);
	}
	lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "invalid %s '%.64s': %s", what,
	    v, e6.msg);
	return (-EINVAL);
}

int
mgmt_value_parse(unsigned sid, const char *v, char *canon, uint64_t *kbin,
    struct lc_err *err)
{
	const struct mgmt_schema_node *s = &mgmt_schema[sid];
	/* the anonymous nodes: an interface, a prefix list's entry, an
	 * as-path's regex */
	const char *what = s->name   ? s->name :
	    sid == MGMT_S_POL_PL_ENT ? "prefix" :
	    sid == MGMT_S_POL_ASP_RE ? "regex" :
				       "interface name";
	char exp[256];
	uint32_t u;

	*kbin = 0;
	/* IPv6 text always has a ':'; an IPv4 one never: the dual types take
	 * the IPv4 cases below without one */
	if (mgmt_type_is6(sid) && strchr(v, ':') != NULL)
		return (value_parse6(s, what, v, canon, kbin, err));
	switch (s->type) {
	case MGMT_T_IP6:
	case MGMT_T_PREFIX6:
	case MGMT_T_ADDR6:
		if (strchr(v, '.') != NULL) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "invalid %s '%.64s': an IPv4 address, expected %s",
			    what, v, type_expect(s, exp, sizeof(exp)));
			return (-EINVAL);
		}
		goto bad;
	case MGMT_T_UINT:
		if (parse_uint(v, &u) != 0 &&
		    (!(s->flags & MGMT_SF_ASDOT) || parse_asdot(v, &u) != 0))
			goto bad;
		if (u < s->min || u > s->max) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s %s out of range, expected %u..%u", what, v,
			    s->min, s->max);
			return (-EINVAL);
		}
		*kbin = u;
		*put_u(canon, u) = '\0';
		return (0);
	case MGMT_T_IP4:
	case MGMT_T_IP46: {
		struct lc_ip4 ip;

		if (lc_ip4_parse(v, &ip) != 0)
			goto bad;
		*kbin = lc_ip4_to_host(ip);
		*put_ip(canon, (uint32_t)*kbin) = '\0';
		return (0);
	}
	case MGMT_T_PREFIX4:
	case MGMT_T_PREFIX46: {
		struct lc_prefix4 p;
		struct lc_ip4 host;

		if (lc_prefix4_parse(v, &p) != 0) {
			if (lc_prefix4_parse_loose(v, &p, &host) == 0) {
				char pb[LC_PREFIX4_STRLEN];

				lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
				    "invalid %s '%s': host bits "
				    "set, expected %s",
				    what, v, lc_prefix4_str(&p, pb));
				return (-EINVAL);
			}
			goto bad;
		}
		*kbin = ((uint64_t)lc_ip4_to_host(p.addr) << 8) | p.len;
		put_ip_len(canon, lc_ip4_to_host(p.addr), p.len);
		return (0);
	}
	case MGMT_T_ADDR4: {
		struct lc_prefix4 p;
		struct lc_ip4 host;

		if (lc_prefix4_parse_loose(v, &p, &host) != 0 ||
		    strchr(v, '/') == NULL)
			goto bad;
		*kbin = ((uint64_t)lc_ip4_to_host(host) << 8) | p.len;
		put_ip_len(canon, lc_ip4_to_host(host), p.len);
		return (0);
	}
	case MGMT_T_IFNAME:
		if (!ifname_ok(v, s->max))
			goto bad;
		snprintf(canon, 64, "%s", v);
		return (0);
	case MGMT_T_STRING: {
		size_t n = strlen(v);

		if (n < s->min || n > s->max)
			goto bad;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
				goto bad;
		memcpy(canon, v, n + 1);
		return (0);
	}
	case MGMT_T_MAC: {
		uint64_t m;
		const char *why = NULL;

		if (parse_mac(v, &m) != 0)
			goto bad;
		/* a neighbour is one station: the I/G bit (group) is the low
		 * bit of the first octet, broadcast included */
		if (m == 0xffffffffffffull)
			why = "the broadcast address";
		else if ((m >> 40) & 1)
			why = "a group (multicast) address";
		else if (m == 0)
			why = "the all-zero address";
		if (why != NULL) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "invalid %s '%s': %s, expected a unicast MAC "
			    "address",
			    what, v, why);
			return (-EINVAL);
		}
		*kbin = m;
		snprintf(canon, 64, "%02x:%02x:%02x:%02x:%02x:%02x",
		    (unsigned)(m >> 40) & 0xff, (unsigned)(m >> 32) & 0xff,
		    (unsigned)(m >> 24) & 0xff, (unsigned)(m >> 16) & 0xff,
		    (unsigned)(m >> 8) & 0xff, (unsigned)m & 0xff);
		return (0);
	}
	case MGMT_T_COMMUNITY: {
		struct mgmt_comm cm;

		if (mgmt_comm_parse(v, &cm) != 0)
			goto bad;
		/* standard ones first, by value; the text breaks ties */
		*kbin = cm.large ?
		    1ull << 63 | (uint64_t)cm.v[0] << 8 | cm.wild :
		    (uint64_t)cm.wild << 32 | cm.v[0] << 16 | cm.v[1];
		snprintf(canon, 64, "%s", v);
		return (0);
	}
	case MGMT_T_ENUM:
		for (unsigned i = 0; s->enums[i]; i++)
			if (strcmp(s->enums[i], v) == 0) {
				*kbin = i;
				snprintf(canon, 64, "%s", v);
				return (0);
			}
		goto bad;
	default:
		break;
	}
bad:
	lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
	    "invalid %s '%.64s': expected %s", what, v,
	    type_expect(s, exp, sizeof(exp)));
	return (-EINVAL);
}

int
mgmt_schema_check_value(enum mgmt_sid sid, const char *value, char *canon,
    struct lc_err *err)
{
	char tmp[64];
	uint64_t kbin;

	if ((unsigned)sid >= MGMT_S__COUNT ||
	    mgmt_schema[sid].type == MGMT_T_NONE) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s takes no value",
		    (unsigned)sid < MGMT_S__COUNT && mgmt_schema[sid].name ?
			mgmt_schema[sid].name :
			"node");
		return (-EINVAL);
	}
	return (mgmt_value_parse(sid, value, canon ? canon : tmp, &kbin, err));
}

/* ---- completion
 * ----------------------------------------------------------------- */

struct compl_ctx {
	struct mgmt_compl *out;
	unsigned max, n;
	const char *partial;
	const struct mgmt_node *root; /* the config's, for references */
};

/*
 * Leaves whose value names an entry of a list (validation checks it): their
 * completion offers that list's keys, the configured interfaces after a
 * static route's `interface`, the policies after `import`.
 */
static const struct {
	uint16_t leaf, list;
} compl_refs[] = {
    {MGMT_S_ROUTE_IFACE, MGMT_S_IFACE},
    {MGMT_S_BGP_NBR_IMPORT, MGMT_S_POL_PS},
    {MGMT_S_BGP_NBR_EXPORT, MGMT_S_POL_PS},
    {MGMT_S_POL_FROM_PL, MGMT_S_POL_PL},
    {MGMT_S_POL_FROM_ASP, MGMT_S_POL_ASP},
    {MGMT_S_POL_FROM_COMM, MGMT_S_POL_COMM},
    {MGMT_S_POL_THEN_COMM_SET, MGMT_S_POL_COMM},
    {MGMT_S_POL_THEN_COMM_DEL, MGMT_S_POL_COMM},
    {MGMT_S_POL_THEN_COMM_ADD, MGMT_S_POL_COMM},
};

/* The node holding sid's entries or itself (containers up to the root),
 * NULL when absent. */
static const struct mgmt_node *
compl_parent_node(const struct mgmt_node *root, unsigned sid)
{
	int p = mgmt_schema[sid].parent;

	if (root == NULL || p < 0)
		return (NULL);
	if (p == MGMT_S_ROOT)
		return (root);
	if (mgmt_schema[p].kind != MGMT_SK_CONTAINER)
		return (NULL); /* under a list entry: not a reference target */
	return (mgmt_node_find_sid(compl_parent_node(root, (unsigned)p),
	    (unsigned)p));
}

static bool
starts(const char *w, const char *p)
{
	return (strncmp(w, p, strlen(p)) == 0);
}

static void
compl_add(struct compl_ctx *c, const char *word, const char *help,
    bool is_value, bool is_leaf)
{
	if (c->n >= c->max)
		return;
	snprintf(c->out[c->n].word, sizeof(c->out[c->n].word), "%s", word);
	c->out[c->n].help = help;
	c->out[c->n].is_value = is_value;
	c->out[c->n].is_leaf = is_leaf;
	c->out[c->n].dflt = NULL;
	c->n++;
}

/* Existing entries of sid under node (keys or leaf-list values). */
static void
compl_existing(struct compl_ctx *c, const struct mgmt_node *node, unsigned sid,
    bool is_leaf)
{
	struct mgmt_iter it;
	const struct mgmt_node *k;

	if (node == NULL)
		return;
	mgmt_iter_init(&it, node);
	while ((k = mgmt_iter_next(&it)) != NULL && c->n < c->max) {
		if (k->sid != sid || !starts(k->value, c->partial))
			continue;
		compl_add(c, k->value, mgmt_schema[sid].help, false, is_leaf);
	}
}

/* The keys of list entries under parent, but those already offered. */
static void
compl_keys(struct compl_ctx *c, const struct mgmt_node *parent, unsigned list,
    bool is_leaf)
{
	struct mgmt_iter it;
	const struct mgmt_node *k;
	unsigned i;

	if (parent == NULL)
		return;
	mgmt_iter_init(&it, parent);
	while ((k = mgmt_iter_next(&it)) != NULL && c->n < c->max) {
		if (k->sid != list || !starts(k->value, c->partial))
			continue;
		for (i = 0; i < c->n && strcmp(c->out[i].word, k->value) != 0;
		     i++)
			;
		if (i == c->n)
			compl_add(c, k->value, mgmt_schema[list].help, false,
			    is_leaf);
	}
}

static void
compl_value(struct compl_ctx *c, const struct mgmt_node *node, unsigned sid)
{
	const struct mgmt_schema_node *s = &mgmt_schema[sid];
	bool leaf = s->kind != MGMT_SK_LIST;

	if (s->type == MGMT_T_ENUM) {
		for (unsigned i = 0; s->enums[i]; i++)
			if (starts(s->enums[i], c->partial))
				compl_add(c, s->enums[i], s->help, false, true);
		return;
	}
	if (s->kind == MGMT_SK_LEAF && node != NULL) {
		const struct mgmt_node *v = mgmt_node_find_sid(node, sid);

		if (v != NULL && starts(v->value, c->partial))
			compl_add(c, v->value, s->help, false, true);
	}
	if (s->kind == MGMT_SK_LEAFLIST || s->kind == MGMT_SK_LIST)
		compl_existing(c, node, sid, leaf);
	for (size_t i = 0; i < sizeof(compl_refs) / sizeof(compl_refs[0]); i++)
		if (compl_refs[i].leaf == sid)
			compl_keys(c,
			    compl_parent_node(c->root, compl_refs[i].list),
			    compl_refs[i].list, leaf);
	compl_add(c, s->tname ? s->tname : "<value>", s->help, true, leaf);
	if (c->n > 0 && c->out[c->n - 1].is_value)
		c->out[c->n - 1].dflt = s->dflt;
}

int
mgmt_schema_complete(const struct mgmt_conf *conf, const char *const *words,
    unsigned nwords, const char *partial, struct mgmt_compl *out, unsigned max,
    struct lc_err *err)
{
	const struct mgmt_node *node = conf ? conf->root : NULL;
	struct compl_ctx c = {out, max, 0, partial ? partial : "", node};
	unsigned cur = MGMT_S_ROOT, i = 0;
	char canon[64], exp[256];
	uint64_t kbin;

	while (i < nwords) {
		const char *w = words[i];
		int ch = mgmt_schema_child(cur, w);
		const struct mgmt_schema_node *s;
		struct mgmt_key k;

		if (ch < 0 && (ch = mgmt_schema_anon(cur)) < 0) {
			mgmt_schema_expected(cur, exp, sizeof(exp));
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "unknown word '%.64s': expected %s", w, exp);
			return (-EINVAL);
		}
		s = &mgmt_schema[ch];
		switch (s->kind) {
		case MGMT_SK_CONTAINER:
			node = node ? mgmt_node_find_sid(node, (unsigned)ch) :
				      NULL;
			cur = (unsigned)ch;
			i++;
			continue;
		case MGMT_SK_LIST:
			if (s->name != NULL && ++i == nwords) {
				compl_value(&c, node, (unsigned)ch);
				return ((int)c.n);
			}
			if (mgmt_value_parse((unsigned)ch, words[i], canon,
				&kbin, err) != 0)
				return (-EINVAL);
			k.sid = (uint16_t)ch;
			k.kbin = kbin;
			k.str = canon;
			node = node ? mgmt_node_find(node, &k) : NULL;
			cur = (unsigned)ch;
			i++;
			continue;
		case MGMT_SK_LEAF:
		case MGMT_SK_LEAFLIST:
			/* an anonymous leaf (as-path NAME REGEX): the word is
			 * its value */
			if (s->name != NULL && ++i == nwords) {
				compl_value(&c, node, (unsigned)ch);
				return ((int)c.n);
			}
			if (mgmt_value_parse((unsigned)ch, words[i], canon,
				&kbin, err) != 0)
				return (-EINVAL);
			if (++i < nwords)
				goto extra;
			return (0);
		case MGMT_SK_FLAG:
			if (++i < nwords)
				goto extra;
			return (0);
		}
	}
	for (unsigned ch = cur + 1; ch < MGMT_S__COUNT; ch++) {
		const struct mgmt_schema_node *s = &mgmt_schema[ch];

		if (s->parent != (int)cur || (s->flags & MGMT_SF_HIDDEN))
			continue;
		if (s->name == NULL) {
			compl_existing(&c, node, ch, false);
			if (c.partial[0] == '\0')
				compl_add(&c, s->tname, s->help, true, false);
		} else if (starts(s->name, c.partial)) {
			compl_add(&c, s->name, s->help, false,
			    s->kind == MGMT_SK_FLAG);
			if (c.n > 0 && c.n <= c.max &&
			    strcmp(c.out[c.n - 1].word, s->name) == 0)
				c.out[c.n - 1].dflt = s->dflt;
		}
	}
	return ((int)c.n);
extra:
	lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
	    "unexpected '%.64s' after '%.64s': expected end of "
	    "line",
	    words[i], words[i - 1]);
	return (-EINVAL);
}
