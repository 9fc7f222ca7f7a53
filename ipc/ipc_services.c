/* ipc/ipc_services.c: the method tables of every service (payload types and admin/event flags), indexed by method id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipc/proto/bgp.pb-c.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "ipc_int.h"
#include "libcommon/lc_time.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define M(id, n, rq, rp, fl) \
	[id] = {n, &rq##__descriptor, &rp##__descriptor, fl}

static const struct ipc_method_desc lc_methods[] = {
    M(LIFECYCLE__METHOD__HELLO, "hello", lifecycle__hello, lifecycle__hello, 0),
    M(LIFECYCLE__METHOD__STATUS, "status", lifecycle__empty, lifecycle__status,
	0),
    M(LIFECYCLE__METHOD__SHUTDOWN, "shutdown", lifecycle__shutdown_request,
	lifecycle__empty, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(LIFECYCLE__METHOD__PING, "ping", lifecycle__empty, lifecycle__empty, 0),
    M(LIFECYCLE__METHOD__ECHO, "echo", lifecycle__blob, lifecycle__blob, 0),
    M(LIFECYCLE__METHOD__SINK, "sink", lifecycle__blob, lifecycle__empty, 0),
};

/*
 * Flags: IPC_M_ADMIN (not on the read-only socket), IPC_M_COMPONENT (only
 * from tern's components: every admin method of rtrmgr, rib, fwd and bgp,
 * and lifecycle SHUTDOWN; people reach them through mgmt, which checks its
 * sessions), IPC_M_AUDIT (logged with the caller: what a person asks for
 * through mgmt, never the bulk of routes and FIB batches).
 */
static const struct ipc_method_desc rtrmgr_methods[] = {
    M(RTRMGR__METHOD__LIST, "list", lifecycle__empty, rtrmgr__component_list,
	0),
    M(RTRMGR__METHOD__COMPONENT_STATUS, "component-status",
	rtrmgr__component_request, rtrmgr__component, 0),
    M(RTRMGR__METHOD__RESTART, "restart", rtrmgr__component_request,
	rtrmgr__component, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(RTRMGR__METHOD__STOP, "stop", rtrmgr__component_request,
	rtrmgr__component, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(RTRMGR__METHOD__START, "start", rtrmgr__component_request,
	rtrmgr__component, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(RTRMGR__METHOD__SUBSCRIBE, "subscribe", lifecycle__empty,
	rtrmgr__component_list, 0),
    M(RTRMGR__METHOD__EVENT_COMPONENT, "component-event",
	rtrmgr__component_event, lifecycle__empty, IPC_M_EVENT),
    M(RTRMGR__METHOD__REGISTER, "register", rtrmgr__register_request,
	rtrmgr__component, IPC_M_ADMIN | IPC_M_COMPONENT),
};

/* EXECUTE/REQUEST are not flagged admin: mgmt itself refuses configuration lines from a read-only peer (ipc_peer_read_only). */
static const struct ipc_method_desc mgmt_methods[] = {
    M(MGMT__METHOD__EXECUTE, "execute", mgmt__execute_request, mgmt__reply, 0),
    M(MGMT__METHOD__REQUEST, "request", mgmt__request, mgmt__reply, 0),
    M(MGMT__METHOD__COMPLETE, "complete", mgmt__complete_request,
	mgmt__complete_reply, 0),
    M(MGMT__METHOD__SESSION_OPEN, "session-open", mgmt__session_open,
	mgmt__reply, 0),
    M(MGMT__METHOD__SESSION_CLOSE, "session-close", mgmt__session_request,
	mgmt__reply, 0),
    M(MGMT__METHOD__OUTPUT, "output", mgmt__output, lifecycle__empty,
	IPC_M_EVENT),
    M(MGMT__METHOD__INTERRUPT, "interrupt", mgmt__session_request, mgmt__reply,
	0),
};

static const struct ipc_method_desc rib_methods[] = {
    M(RIB__METHOD__ROUTE_BATCH, "route-batch", rib__route_batch,
	rib__route_batch_ack, IPC_M_ADMIN | IPC_M_COMPONENT),
    M(RIB__METHOD__RESYNC_BEGIN, "resync-begin", rib__resync,
	rib__route_batch_ack, IPC_M_ADMIN | IPC_M_COMPONENT),
    M(RIB__METHOD__RESYNC_END, "resync-end", rib__resync, rib__route_batch_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(RIB__METHOD__QUERY, "query", rib__query, rib__query_reply, 0),
    M(RIB__METHOD__FIB_STATUS, "fib-status", lifecycle__empty, rib__fib_status,
	0),
    M(RIB__METHOD__SOURCES, "sources", lifecycle__empty, rib__source_list, 0),
    M(RIB__METHOD__SET_CONFIG, "set-config", rib__rib_config,
	rib__route_batch_ack, IPC_M_ADMIN | IPC_M_COMPONENT),
    M(RIB__METHOD__NH_WATCH, "nh-watch", rib__nh_watch, rib__nh_states,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(RIB__METHOD__NH_CHANGED, "nh-changed", rib__nh_states, lifecycle__empty,
	IPC_M_EVENT),
};

static const struct ipc_method_desc bgp_methods[] = {
    M(BGP__METHOD__SET_CONFIG, "set-config", bgp__bgp_config, bgp__config_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(BGP__METHOD__QUERY_NEIGHBORS, "query-neighbors", bgp__neighbor_query,
	bgp__neighbor_list, 0),
    M(BGP__METHOD__CLEAR_NEIGHBOR, "clear-neighbor", bgp__clear_neighbor,
	bgp__config_ack, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(BGP__METHOD__QUERY_ROUTES, "query-routes", bgp__route_query,
	bgp__route_list, 0),
};

static const struct ipc_method_desc fwd_methods[] = {
    M(FWD__METHOD__IF_CONFIG, "if-config", fwd__if_config_batch,
	fwd__if_config_ack, IPC_M_ADMIN | IPC_M_COMPONENT),
    M(FWD__METHOD__FIB_BATCH, "fib-batch", fwd__fib_batch, fwd__fib_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(FWD__METHOD__RESYNC_BEGIN, "resync-begin", fwd__resync, fwd__fib_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(FWD__METHOD__RESYNC_END, "resync-end", fwd__resync, fwd__fib_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
    M(FWD__METHOD__QUERY_INTERFACES, "query-interfaces", fwd__interface_query,
	fwd__interface_list, 0),
    M(FWD__METHOD__QUERY_FIB, "query-fib", fwd__fib_query, fwd__fib_list, 0),
    M(FWD__METHOD__QUERY_NEIGHBOURS, "query-neighbours", fwd__neighbour_query,
	fwd__neighbour_list, 0),
    M(FWD__METHOD__QUERY_DROPS, "query-drops", lifecycle__empty, fwd__drop_list,
	0),
    M(FWD__METHOD__SUBSCRIBE, "subscribe", fwd__subscribe, fwd__interface_list,
	0),
    M(FWD__METHOD__EVENT_INTERFACE, "interface-event", fwd__interface_event,
	lifecycle__empty, IPC_M_EVENT),
    M(FWD__METHOD__EVENT_NEIGHBOUR, "neighbour-event", fwd__neighbour_event,
	lifecycle__empty, IPC_M_EVENT),
    M(FWD__METHOD__SET_CONFIG, "set-config", fwd__fwd_config,
	fwd__if_config_ack, IPC_M_ADMIN | IPC_M_COMPONENT),
    M(FWD__METHOD__CLEAR_COUNTERS, "clear-counters", fwd__clear_counters,
	fwd__clear_counters_ack, IPC_M_ADMIN | IPC_M_COMPONENT | IPC_M_AUDIT),
    M(FWD__METHOD__ORIGINATE, "originate", fwd__originate, fwd__originate_ack,
	IPC_M_ADMIN | IPC_M_COMPONENT),
};

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

const struct ipc_service_desc ipc_svc_lifecycle = {"lifecycle",
    LIFECYCLE__SERVICE__SERVICE_LIFECYCLE, N(lc_methods), lc_methods, 0};
const struct ipc_service_desc ipc_svc_rtrmgr = {"rtrmgr",
    LIFECYCLE__SERVICE__SERVICE_RTRMGR, N(rtrmgr_methods), rtrmgr_methods, 0};
const struct ipc_service_desc ipc_svc_mgmt = {"mgmt",
    LIFECYCLE__SERVICE__SERVICE_MGMT, N(mgmt_methods), mgmt_methods,
    IPC_SVC_FRONT};
const struct ipc_service_desc ipc_svc_rib = {"rib",
    LIFECYCLE__SERVICE__SERVICE_RIB, N(rib_methods), rib_methods, 0};
const struct ipc_service_desc ipc_svc_fwd = {"fwd",
    LIFECYCLE__SERVICE__SERVICE_FWD, N(fwd_methods), fwd_methods, 0};
const struct ipc_service_desc ipc_svc_bgp = {"bgp",
    LIFECYCLE__SERVICE__SERVICE_BGP, N(bgp_methods), bgp_methods, 0};

const struct ipc_method_desc *
ipc_method_lookup(const struct ipc_service_desc *svc, unsigned service,
    unsigned method)
{
	const struct ipc_method_desc *m;

	if (service == ipc_svc_lifecycle.id)
		svc = &ipc_svc_lifecycle;
	else if (svc == NULL || service != svc->id)
		return (NULL);
	if (method == 0 || method >= svc->n_methods)
		return (NULL);
	m = &svc->methods[method];
	return (m->name != NULL ? m : NULL);
}

static const char *const status_names[IPC_STATUS__COUNT] = {
    [IPC_OK] = "OK",
    [IPC_ERROR] = "ERROR",
    [IPC_TIMEOUT] = "TIMEOUT",
    [IPC_UNKNOWN_METHOD] = "UNKNOWN_METHOD",
    [IPC_BAD_REQUEST] = "BAD_REQUEST",
    [IPC_VERSION] = "VERSION",
    [IPC_PEER_RESTARTED] = "PEER_RESTARTED",
    [IPC_NO_SPACE] = "NO_SPACE",
    [IPC_DENIED] = "DENIED",
    [IPC_TOO_BIG] = "TOO_BIG",
    [IPC_CANCELLED] = "CANCELLED",
    [IPC_UNAVAILABLE] = "UNAVAILABLE",
};

const char *
ipc_status_str(int status)
{
	if (status < 0 || status >= IPC_STATUS__COUNT)
		return ("?");
	return (status_names[status]);
}

static const int status_errnos[IPC_STATUS__COUNT] = {
    [IPC_OK] = 0,
    [IPC_ERROR] = -EIO,
    [IPC_TIMEOUT] = -ETIMEDOUT,
    [IPC_UNKNOWN_METHOD] = -ENOSYS,
    [IPC_BAD_REQUEST] = -EBADMSG,
    [IPC_VERSION] = -EPROTO,
    [IPC_PEER_RESTARTED] = -ECONNRESET,
    [IPC_NO_SPACE] = -ENOBUFS,
    [IPC_DENIED] = -EPERM,
    [IPC_TOO_BIG] = -EMSGSIZE,
    [IPC_CANCELLED] = -ECANCELED,
    [IPC_UNAVAILABLE] = -EAGAIN,
};

int
ipc_status_errno(int status)
{
	if (status < 0 || status >= IPC_STATUS__COUNT)
		return (-EIO);
	return (status_errnos[status]);
}

static void *
arena_alloc(void *data, size_t size)
{
	return (lc_arena_alloc(data, size));
}

static void
arena_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr;
}

void
ipc_arena_allocator(ProtobufCAllocator *a, struct lc_arena *arena)
{
	a->alloc = arena_alloc;
	a->free = arena_free;
	a->allocator_data = arena;
}

void
ipc_arena_recycle(struct lc_arena **ap, ProtobufCAllocator *alloc)
{
	size_t held = lc_arena_size(*ap), first, want;
	struct lc_arena *n;

	lc_arena_reset(*ap);
	first = lc_arena_size(*ap);
	if (held <= first || first >= IPC_ARENA_MAX)
		return;
	for (want = first; want < held && want < IPC_ARENA_MAX; want *= 2)
		;
	/* No room for a bigger one: the old arena still works. */
	if ((n = lc_arena_new(want)) == NULL)
		return;
	lc_arena_free(*ap);
	*ap = n;
	ipc_arena_allocator(alloc, n);
}

const char *
ipc_rundir(const char *explicit_dir)
{
	const char *e;

	if (explicit_dir != NULL && explicit_dir[0] != '\0')
		return (explicit_dir);
	if ((e = getenv("TERN_RUNDIR")) != NULL && e[0] != '\0')
		return (e);
	return (TERN_RUN_DIR);
}

int
ipc_sock_path(char *buf, size_t len, const char *rundir, const char *name,
    bool ro)
{
	int n;

	n = snprintf(buf, len, "%s/%s%s.sock", rundir, name, ro ? "-ro" : "");
	if (n < 0 || (size_t)n >= len)
		return (-ENAMETOOLONG);
	return (0);
}

uint64_t
ipc_generation_new(void)
{
	uint64_t g = lc_time_real_ns() ^ ((uint64_t)getpid() << 48);

	return (g != 0 ? g : 1);
}

const char *
ipc_default_component(void)
{
	extern char *program_invocation_short_name;

	return (program_invocation_short_name);
}
