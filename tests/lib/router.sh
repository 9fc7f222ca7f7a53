# tests/lib/router.sh: start and stop a whole tern router (tern-rtrmgr with
# mgmt, rib, fwd and bgp) in the router namespace of tests/lib/netns.sh. Used by
# `make run` and the integration tests.
#
#   router_init RUNDIR STATEDIR BINDIR   where sockets, config and binaries are
#   router_boot_config > FILE            a config routing client <-> server
#   router_start [EXTRA_RTRMGR_CONF]     writes rtrmgr.conf, starts rtrmgr in
#                                        $NS_ROUTER, waits for mgmt (0/1)
#   router_stop                          SIGTERM to rtrmgr, then what is left
#   rsh CMD...                           ternsh -c CMD -c ... on this router
#   router_pid NAME                      pid of component NAME (from show processes)
# Needs netns_init (tests/lib/netns.sh) first.

router_init() {
	ROUTER_RUNDIR=$1
	ROUTER_STATE=$2
	ROUTER_BIN=$3
	ROUTER_USER=${ROUTER_USER:-nobody}
	ROUTER_GROUP=$(id -gn "$ROUTER_USER" 2>/dev/null || echo nogroup)
}

router_boot_config() {
	cat <<CONF
/* two hosts on two subnets, routed by tern */
system { host-name tern-test; }
interfaces {
	client { device $NETNS_RTR_C_IF; address $NETNS_RTR_C_IP/24; }
	server { device $NETNS_RTR_S_IF; address $NETNS_RTR_S_IP/24; }
}
protocols { static { route 198.19.0.0/16 { next-hop $NETNS_SERVER_IP; } } }
CONF
}

rsh() {
	local a=()
	for c in "$@"; do a+=(-c "$c"); done
	TERN_RUNDIR=$ROUTER_RUNDIR timeout 20 "$ROUTER_BIN/ternsh" "${a[@]}"
}

router_pid() {
	rsh "show processes" 2>/dev/null | awk -v n="$1" '$1 == n { print $2 }'
}

router_start() {
	local extra=${1:-}
	rm -rf "$ROUTER_RUNDIR"	# rtrmgr creates it with the right owner
	# mgmt's store: its user's and group's only (a config may hold
	# secrets), as etc/tern.service.in says to make /var/lib/tern/config
	install -d -m 0750 "$ROUTER_STATE/config"
	[[ -f $ROUTER_STATE/boot.conf ]] || router_boot_config >"$ROUTER_STATE/boot.conf"
	chmod 644 "$ROUTER_STATE/boot.conf"
	chown -R "$ROUTER_USER:$ROUTER_GROUP" "$ROUTER_STATE/config"
	chmod 755 "$ROUTER_STATE"
	cat >"$ROUTER_STATE/rtrmgr.conf" <<CONF
rundir $ROUTER_RUNDIR;
user $ROUTER_USER;
log-level info;
output file;
health-check ipc;
$extra
component mgmt { binary $ROUTER_BIN/tern-mgmt; args "--store=$ROUTER_STATE/config" "--config=$ROUTER_STATE/boot.conf"; privileges user; capabilities net_raw; }
component rib { binary $ROUTER_BIN/tern-rib; privileges user; }
component fwd { binary $ROUTER_BIN/tern-fwd; privileges user; capabilities net_raw net_admin bpf ipc_lock perfmon; }
component bgp { binary $ROUTER_BIN/tern-bgp; privileges user; capabilities net_bind_service; }
CONF
	nsx "$NS_ROUTER" setsid "$ROUTER_BIN/tern-rtrmgr" -c "$ROUTER_STATE/rtrmgr.conf" \
	    --rundir "$ROUTER_RUNDIR" </dev/null >"$ROUTER_STATE/rtrmgr.out" 2>&1 &
	ROUTER_RTRMGR_PID=$!
	echo "$ROUTER_RTRMGR_PID" >"$ROUTER_STATE/rtrmgr.pid"
	for _ in $(seq 1 100); do
		rsh "show version" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

router_stop() {
	local pid
	[[ -f $ROUTER_STATE/rtrmgr.pid ]] || return 0
	pid=$(cat "$ROUTER_STATE/rtrmgr.pid")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	# components left behind by a crashed rtrmgr
	pkill -KILL -f -- "--rundir $ROUTER_RUNDIR" 2>/dev/null
	rm -f "$ROUTER_STATE/rtrmgr.pid"
	return 0
}

# Waits up to $1 seconds until mgmt, rib, fwd and bgp are all running (0/1).
router_wait_running() {
	local end=$((SECONDS + ${1:-20}))
	while ((SECONDS < end)); do
		[[ $(rsh "show processes" 2>/dev/null | awk '$3 == "running"' | wc -l) -ge 4 ]] && return 0
		sleep 0.2
	done
	return 1
}
