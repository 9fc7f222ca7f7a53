#!/usr/bin/env bash
# `make run` / `make stop`: the demo router. Builds a topology of three
# network namespaces (client -- router -- server, tests/lib/netns.sh,
# addresses from 198.18.0.0/15), starts tern-rtrmgr inside the router
# namespace with a demo config that routes between the hosts, prints how to
# ping across, and opens ternsh when run from a terminal.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-start}
SUFFIX=demo
RUNDIR=/run/tern-demo
STATE=/var/lib/tern-demo
BIN=$top/build/bin
# shellcheck source=../tests/lib/netns.sh
. "$top/tests/lib/netns.sh"
netns_init "$SUFFIX"

die() { echo "make run: $*" >&2; exit 1; }

stop() {
	local pid
	if [[ -f $STATE/rtrmgr.pid ]]; then
		pid=$(cat "$STATE/rtrmgr.pid")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid"
			for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	# components left behind by a crashed rtrmgr
	pkill -f -- "--rundir $RUNDIR" 2>/dev/null
	netns_cleanup
	rm -rf "$RUNDIR"
	echo "tern demo stopped: namespaces $NS_CLIENT $NS_ROUTER $NS_SERVER removed"
}

start() {
	[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces)"
	for b in tern-rtrmgr tern-mgmt tern-rib tern-fwd ternsh; do
		[[ -x $BIN/$b ]] || die "$BIN/$b is missing: run make first"
	done
	if ip netns list | grep -q "^$NS_ROUTER\b"; then
		echo "a demo is already running; stopping it first"
		stop >/dev/null
	fi
	netns_topo_create || { netns_cleanup; die "could not create the topology"; }
	rm -rf "$RUNDIR"	# rtrmgr creates it with the right owner
	mkdir -p "$STATE/config"
	chown -R nobody:nogroup "$STATE"
	cat >"$STATE/boot.conf" <<CONF
/* tern demo: two hosts on two subnets, routed by tern */
system { host-name demo; }
interfaces {
	client { device $NETNS_RTR_C_IF; address $NETNS_RTR_C_IP/24; }
	server { device $NETNS_RTR_S_IF; address $NETNS_RTR_S_IP/24; }
}
protocols { static { route 198.19.0.0/16 { next-hop $NETNS_SERVER_IP; } } }
CONF
	chmod 644 "$STATE/boot.conf"
	cat >"$STATE/rtrmgr.conf" <<CONF
rundir $RUNDIR;
user nobody;
log-level info;
output file;
health-check ipc;
component mgmt { binary $BIN/tern-mgmt; args "--store=$STATE/config" "--config=$STATE/boot.conf"; privileges user; }
component rib { binary $BIN/tern-rib; privileges user; }
component fwd { binary $BIN/tern-fwd; privileges user; capabilities net_raw net_admin; }
CONF
	nsx "$NS_ROUTER" setsid "$BIN/tern-rtrmgr" -c "$STATE/rtrmgr.conf" \
	    --rundir "$RUNDIR" </dev/null >"$STATE/rtrmgr.out" 2>&1 &
	echo $! >"$STATE/rtrmgr.pid"
	for _ in $(seq 1 100); do
		TERN_RUNDIR=$RUNDIR timeout 2 "$BIN/ternsh" -c "show version" \
		    >/dev/null 2>&1 && break
		sleep 0.1
	done
	TERN_RUNDIR=$RUNDIR timeout 5 "$BIN/ternsh" -c "show processes" ||
	    { tail -20 "$STATE/rtrmgr.out"; die "the router did not come up (logs in $RUNDIR and $STATE)"; }
	cat <<TXT

tern demo is running in namespace $NS_ROUTER (logs and sockets in $RUNDIR).
  client $NETNS_CLIENT_IP  <->  tern  <->  server $NETNS_SERVER_IP
Try:
  ip netns exec $NS_CLIENT ping $NETNS_SERVER_IP      # through tern-fwd
  ip netns exec $NS_CLIENT ping $NETNS_RTR_C_IP      # the router itself
  TERN_RUNDIR=$RUNDIR $BIN/ternsh       # the shell: show interfaces, configure, ...
  make stop                                          # tear it all down
TXT
	if [[ -t 0 && -t 1 && -z ${CI:-} ]]; then
		echo; echo "Opening ternsh (exit to leave it; the router keeps running)."
		TERN_RUNDIR=$RUNDIR "$BIN/ternsh"
	fi
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
