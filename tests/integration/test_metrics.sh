#!/usr/bin/env bash
# tests/integration/test_metrics.sh: tern-mgmt's Prometheus endpoint
# (`system metrics`) on a whole router (tests/lib/router.sh): the page is in
# the text format promtool accepts, carries what the components count
# (interfaces, drops, FIB, rib sources, components, IPC, commits) and
# follows the traffic; other paths and methods are refused; a real
# Prometheus (Debian's, its own data directory and port, in the router
# namespace) scrapes it every second and its queries see tern's figures; a
# commit moves the endpoint and deleting the block stops it. Prints the cost
# of a scrape (CPU of mgmt, fwd, rib and bgp per scrape, and its latency).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
hase() { grep -qE -- "$2" <<<"$1"; }

if [[ $(id -u) != 0 ]] || ! command -v prometheus >/dev/null ||
	! command -v promtool >/dev/null || ! command -v curl >/dev/null; then
	echo "test_metrics: needs root, prometheus, promtool and curl: skipped"
	echo "metrics: 0 passed, 0 failed"
	exit 0
fi

tmp=$(mktemp -d /tmp/tern-metrics.XXXXXX)
chmod 755 "$tmp" # the components run as nobody
prom_pid=
# shellcheck source=../lib/netns.sh
source "$root/tests/lib/netns.sh"
# shellcheck source=../lib/router.sh
source "$root/tests/lib/router.sh"
netns_init "mx$$"
router_init "$tmp/run" "$tmp/state" "$bin"
cleanup() {
	[[ -n $prom_pid ]] && kill -9 "$prom_pid" 2>/dev/null
	router_stop
	wait 2>/dev/null
	netns_cleanup
	[[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

port=19324 pport=19090
get() { nsx "$NS_ROUTER" timeout 10 curl -s "$@"; }
page() { get "http://127.0.0.1:$port/metrics"; }
metric() { awk -v m="$1" '$1 == m { print $2 }' <<<"$2"; }

timeout 30 bash -c "source '$root/tests/lib/netns.sh'; netns_init mx$$; netns_topo_create" ||
	{ echo "cannot create the namespaces"; echo "metrics: 0 passed, 1 failed"; exit 1; }
mkdir -p "$tmp/state"
{ router_boot_config; echo "system { metrics { listen 127.0.0.1; port $port; } }"; } >"$tmp/state/boot.conf"
check "router up" router_start
check "every component running" router_wait_running 30

p=$(page)
check "GET /metrics answers" hase "$p" "^# TYPE tern_fib_routes gauge"
ct=$(get -o /dev/null -w '%{content_type} %{http_code}' "http://127.0.0.1:$port/metrics")
check "200, text format 0.0.4 ($ct)" hase "$ct" "^text/plain; version=0.0.4; charset=utf-8 200$"
printf '%s\n' "$p" >"$tmp/page.txt"
lint=$(promtool check metrics <"$tmp/page.txt" 2>&1); rc=$?
check "promtool check metrics accepts it (rc $rc)" test "$rc" = 0
[[ $rc != 0 ]] && echo "$lint" | head -20
check "interfaces by config name and device" hase "$p" '^tern_interface_up\{interface="client",device="rc0"\} 1$'
check "FIB size" hase "$p" '^tern_fib_routes [1-9][0-9]*$'
check "rib: the static route by source" hase "$p" '^tern_rib_routes\{source="static"\} 1$'
check "components by rtrmgr" hase "$p" '^tern_component_up\{component="fwd"\} 1$'
check "IPC counters of every component" hase "$p" '^tern_ipc_calls_in_total\{component="rib"\} [0-9]+$'
check "drops by reason" hase "$p" '^tern_fwd_drops_total\{reason="no_route"\} [0-9]+$'
check "BGP (not configured): no neighbour, paths 0" hase "$p" '^tern_bgp_paths 0$'
check "every source answered" bash -c "! grep -q '^tern_metrics_source_up.* 0$' '$tmp/page.txt'"

# traffic moves the counters
rx0=$(metric 'tern_interface_rx_packets_total{interface="client",device="rc0"}' "$p")
timeout 10 ip netns exec "$NS_CLIENT" ping -c 20 -i 0.01 -q "$NETNS_SERVER_IP" >/dev/null 2>&1
p=$(page)
rx1=$(metric 'tern_interface_rx_packets_total{interface="client",device="rc0"}' "$p")
check "20 pings: client rx_packets $rx0 -> $rx1 (+>= 20)" test $((rx1 - rx0)) -ge 20

# commits count
c0=$(metric tern_commits_total "$p")
out=$(rsh configure "set system host-name mx" commit 2>&1)
check "a commit" has "$out" "commit complete"
c1=$(metric tern_commits_total "$(page)")
check "tern_commits_total $c0 -> $c1" test "$c1" = $((c0 + 1))

# bad requests
code=$(get -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
check "GET / -> 404 ($code)" test "$code" = 404
code=$(get -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$port/metrics")
check "POST -> 405 ($code)" test "$code" = 405
code=$(get -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$port/metrics")
check "HEAD -> 200 ($code)" test "$code" = 200
check "mgmt still serves after them" hase "$(page)" "^tern_fib_routes "

# a real Prometheus scrapes it
cat >"$tmp/prom.yml" <<YML
global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - job_name: tern
    static_configs: [ { targets: ['127.0.0.1:$port'] } ]
YML
ip netns exec "$NS_ROUTER" prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
prom_pid=$!
q() { get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
up_ok() { hase "$(q 'up{job="tern"}')" '"value":\[[0-9.]+,"1"\]'; }
check "Prometheus scrapes tern: up == 1" wait_until 30 up_ok
sleep 3
r=$(q 'tern_fib_routes')
fib=$(metric tern_fib_routes "$(page)")
check "Prometheus has tern_fib_routes = $fib" hase "$r" "\"value\":\[[0-9.]+,\"$fib\"\]"
r=$(q 'count(tern_interface_rx_packets_total)')
check "Prometheus has both interfaces' counters" hase "$r" '"value":\[[0-9.]+,"2"\]'
r=$(q 'scrape_samples_scraped{job="tern"}')
check "a scrape's samples: $(grep -oE '"[0-9]+"\]' <<<"$r" | tr -d '"]')" hase "$r" '"value":\[[0-9.]+,"[1-9][0-9]+"\]'
kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null; prom_pid=

# the cost of a scrape: 1000 in a row on one connection (curl, keep-alive),
# CPU of each component (utime + stime) over them, and mgmt's own time to
# gather a page (tern_metrics_scrape_duration_seconds)
cpu() { local s; s=$(cat "/proc/$1/stat") && s=${s##*) } && awk '{ print $12 + $13 }' <<<"$s"; }
tk=$(getconf CLK_TCK)
declare -A pid c0
for c in mgmt fwd rib bgp; do pid[$c]=$(router_pid "$c"); c0[$c]=$(cpu "${pid[$c]}"); done
urls=(); for _ in $(seq 1 1000); do urls+=("http://127.0.0.1:$port/metrics"); done
t0=$(date +%s%N)
get -o /dev/null "${urls[@]}"
t1=$(date +%s%N)
line="1000 scrapes in $(( (t1 - t0) / 1000000 )) ms: $(( (t1 - t0) / 1000000 )) us each, curl's side included;"
for c in mgmt fwd rib bgp; do
	d=$(( $(cpu "${pid[$c]}") - ${c0[$c]} ))
	line+=" $c $(awk -v d="$d" -v t="$tk" 'BEGIN { printf "%.3f", d / t * 1000 / 1000 }') ms"
done
line+=" CPU per scrape; mgmt gathers a page in $(metric tern_metrics_scrape_duration_seconds "$(page)") s"
echo "     ($line)"
check "scraping cost measured" true

# the endpoint follows the config
out=$(rsh configure "set system metrics port $((port + 1))" commit 2>&1)
check "commit: port $((port + 1))" has "$out" "commit complete"
check "served on the new port" hase "$(get "http://127.0.0.1:$((port + 1))/metrics")" "^tern_fib_routes "
check "not on the old one" bash -c "! ip netns exec '$NS_ROUTER' curl -s -m 2 http://127.0.0.1:$port/metrics"
out=$(rsh configure "delete system metrics" commit 2>&1)
check "commit: metrics deleted" has "$out" "commit complete"
check "endpoint stopped" bash -c "! ip netns exec '$NS_ROUTER' curl -s -m 2 http://127.0.0.1:$((port + 1))/metrics"
out=$(rsh configure "set system metrics port 99999" commit 2>&1)
check "port 99999 refused" hase "$out" "65535"

check_summary metrics
