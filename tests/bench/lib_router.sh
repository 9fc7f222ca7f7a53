#!/usr/bin/env bash
# tests/bench/lib_router.sh: shell steps of bench-config and bench-restart:
# the netns topology of tests/lib/netns.sh, the whole router under
# tern-rtrmgr (logging at notice, rtrmgr's default health checks and backoff,
# failure-limit raised for repeated kills, the boot config written by the
# benchmark),
# and a namespace of its own for the BIRD peer.
#
#   lib_router.sh topo    SUFFIX              client/router/server namespaces
#   lib_router.sh start   SUFFIX DIR BIN      rtrmgr with DIR/state/boot.conf;
#                                             returns when mgmt answers
#                                             ($LIB_ROUTER_RTRMGR_EXTRA: more
#                                             rtrmgr.conf settings;
#                                             $LIB_ROUTER_COMPONENTS: more
#                                             components, after fwd)
#   lib_router.sh stop    SUFFIX DIR BIN      SIGTERM rtrmgr, then what is left
#   lib_router.sh cleanup SUFFIX DIR BIN      stop, delete all namespaces
#   lib_router.sh bird-ns SUFFIX              namespace tern-b-SUFFIX with
#                                             198.18.2.1/24 on a veth (BIRD peer)
#   lib_router.sh srv-addrs SUFFIX A...       A/32 on the server's lo (the
#                                             bench's UDP destinations) and
#                                             198.18.2.3-254 on its eth0
# Exit 0 on success.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/netns.sh"
. "$root/tests/lib/router.sh"

cmd=${1:-}
suffix=${2:-}
[[ -n $cmd && -n $suffix ]] || { echo "usage: $0 CMD SUFFIX ..." >&2; exit 2; }
netns_init "$suffix"
NS_BIRD=tern-b-$suffix

init_router() {
	local dir=$1 bin=$2
	router_init "$dir/run" "$dir/state" "$bin"
}

start_router() {
	rm -rf "$ROUTER_RUNDIR"
	mkdir -p "$ROUTER_STATE/config"
	chmod 755 "$ROUTER_STATE" "$(dirname "$ROUTER_STATE")"
	chmod 644 "$ROUTER_STATE/boot.conf"
	chown -R "$ROUTER_USER:$ROUTER_GROUP" "$ROUTER_STATE/config"
	cat >"$ROUTER_STATE/rtrmgr.conf" <<CONF
rundir $ROUTER_RUNDIR;
user $ROUTER_USER;
log-level notice;
output file;
health-check ipc;
failure-limit 64;
failure-window 60s;
${LIB_ROUTER_RTRMGR_EXTRA:-}
component mgmt { binary $ROUTER_BIN/tern-mgmt; args "--store=$ROUTER_STATE/config" "--config=$ROUTER_STATE/boot.conf"; privileges user; }
component rib { binary $ROUTER_BIN/tern-rib; privileges user; }
component fwd { binary $ROUTER_BIN/tern-fwd; privileges user; capabilities net_raw net_admin; }
${LIB_ROUTER_COMPONENTS:-}
CONF
	nsx "$NS_ROUTER" setsid "$ROUTER_BIN/tern-rtrmgr" -c "$ROUTER_STATE/rtrmgr.conf" \
	    --rundir "$ROUTER_RUNDIR" </dev/null >"$ROUTER_STATE/rtrmgr.out" 2>&1 &
	echo "$!" >"$ROUTER_STATE/rtrmgr.pid"
	# mgmt parses a 1M-route boot config before it answers
	for _ in $(seq 1 600); do
		[[ -S $ROUTER_RUNDIR/mgmt.sock ]] && rsh "show version" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "lib_router: mgmt did not answer in 30 s" >&2
	tail -20 "$ROUTER_STATE/rtrmgr.out" >&2
	return 1
}

case $cmd in
topo)
	netns_topo_create || { netns_cleanup; exit 1; }
	;;
start)
	init_router "$3" "$4"
	start_router
	;;
stop)
	init_router "$3" "$4"
	router_stop
	;;
cleanup)
	if [[ $# -ge 4 ]]; then
		init_router "$3" "$4"
		router_stop
	fi
	netns_cleanup
	ip netns del "$NS_BIRD" 2>/dev/null
	true
	;;
bird-ns)
	ip netns del "$NS_BIRD" 2>/dev/null
	ip netns add "$NS_BIRD" || exit 1
	nsx "$NS_BIRD" ip link set lo up
	# a veth pair (no dummy driver on every kernel) carries the subnet
	nsx "$NS_BIRD" ip link add nh0 type veth peer name nh1 || exit 1
	nsx "$NS_BIRD" ip addr add 198.18.2.1/24 dev nh0
	nsx "$NS_BIRD" ip link set nh1 up
	nsx "$NS_BIRD" ip link set nh0 up
	;;
srv-addrs)
	# the bench's UDP destinations on lo, and every next hop of the
	# standard set's mapping (198.18.2.2-254) on eth0, so all resolve
	shift 2
	{
		for a in "$@"; do echo "addr add $a/32 dev lo"; done
		for i in $(seq 3 254); do echo "addr add 198.18.2.$i/24 dev $NETNS_HOST_IF"; done
	} | ip -n "$NS_SERVER" -batch - || exit 1
	;;
*)
	echo "lib_router: unknown command $cmd" >&2
	exit 2
	;;
esac
