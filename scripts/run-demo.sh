#!/usr/bin/env bash
# `make run` / `make stop`: the demo router. Builds a topology of three
# network namespaces (client -- router -- server, tests/lib/netns.sh,
# addresses from 198.18.0.0/15), starts tern-rtrmgr inside the router
# namespace with a demo config that routes between the hosts, prints how to
# ping across, and opens ternsh when run from a terminal.
#
# Every `make run` boots the demo config: what was committed in the previous
# run is set aside (in $STATE/config.prev) so the demo starts as documented.
# `make run KEEP=1` (KEEP=1 in the environment) boots the last commit of the
# previous run instead. `make stop` keeps the commits for that.
# TERN_DEMO_SUFFIX, TERN_DEMO_RUNDIR, TERN_DEMO_STATE: other names, for a
# test that runs beside a demo (tests/integration/test_run_demo.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-start}
SUFFIX=${TERN_DEMO_SUFFIX:-demo}
RUNDIR=${TERN_DEMO_RUNDIR:-/run/tern-demo}
STATE=${TERN_DEMO_STATE:-/var/lib/tern-demo}
KEEP=${KEEP:-}
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
	[[ -n $(ls "$STATE/config" 2>/dev/null) ]] &&
	    echo "its commits stay in $STATE/config: 'make run' boots the demo config again, 'make run KEEP=1' the last commit"
	return 0
}

# The config the router boots: the demo's, unless KEEP=1 and the previous
# run committed one (mgmt boots its store's newest commit when there is one).
boot_choice() {
	if [[ $KEEP == 1 && -n $(ls "$STATE/config" 2>/dev/null) ]]; then
		echo "booting the last commit of the previous run (KEEP=1; in $STATE/config)"
		return
	fi
	if [[ -n $(ls "$STATE/config" 2>/dev/null) ]]; then
		rm -rf "$STATE/config.prev"
		mv "$STATE/config" "$STATE/config.prev"
		echo "booting the demo config (the previous run's commits are in $STATE/config.prev; 'make run KEEP=1' boots them)"
	else
		echo "booting the demo config"
	fi
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
	boot_choice
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
		# a command that failed in the shell was said there: leaving
		# it is not make run failing
		TERN_RUNDIR=$RUNDIR "$BIN/ternsh" || true
	fi
	return 0
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
