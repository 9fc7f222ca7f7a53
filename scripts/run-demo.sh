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

# shellcheck source=../tests/lib/router.sh
. "$top/tests/lib/router.sh"
router_init "$RUNDIR" "$STATE" "$BIN"

die() { echo "make run: $*" >&2; exit 1; }

stop() {
	router_stop
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
	mkdir -p "$STATE"
	router_boot_config >"$STATE/boot.conf"
	router_start || { tail -20 "$STATE/rtrmgr.out"; die "the router did not come up (logs in $RUNDIR and $STATE)"; }
	router_wait_running 20 || echo "warning: not every component is running yet (logs in $RUNDIR)"
	rsh "show processes"
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
