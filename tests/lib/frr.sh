# tests/lib/frr.sh: FRR 8.4 instances for the BGP interop tests
# (test_bgp_frr.sh, test_bgp_ipv6.sh). Each instance WHO has its own
# directory $tmp/frr-WHO (config written by the test: zebra.conf,
# bgpd.conf) for pid files, zebra's socket and the vty sockets; its
# daemons run as user frr. The caller sets tmp, frr_dir, py, and the array
# pids (what it kills at exit) and the map bgpd (WHO -> bgpd's pid).
#   start_frr WHO NS    zebra, then bgpd, in namespace NS
#   vt WHO CMD...       vtysh commands on WHO's bgpd
#   fnbr WHO PEER EXPR  EXPR of WHO's neighbour PEER (n) in its JSON
#   jget EXPR           a value from the JSON on stdin (j), printed as JSON
#                       for booleans and containers; nothing and 1 when it
#                       is not there
start_frr() { # WHO NS
	local d=$tmp/frr-$1
	ip netns exec "$2" "$frr_dir/zebra" -f "$d/zebra.conf" -i "$d/zebra.pid" \
	    -z "$d/zserv.api" --vty_socket "$d" -P 0 >>"$d/out" 2>&1 &
	pids+=($!)
	wait_until 10 test -S "$d/zserv.api" || return 1
	ip netns exec "$2" "$frr_dir/bgpd" -f "$d/bgpd.conf" -i "$d/bgpd.pid" \
	    -z "$d/zserv.api" --vty_socket "$d" -P 0 -p 179 >>"$d/out" 2>&1 &
	pids+=($!)
	bgpd[$1]=$!
}
vt() { # WHO CMD...
	local a=() c
	for c in "${@:2}"; do a+=(-c "$c"); done
	timeout 10 vtysh --vty_socket "$tmp/frr-$1" -d bgpd "${a[@]}" 2>/dev/null
}
jget() {
	"$py" -c 'import json, sys
try:
    j = json.load(sys.stdin)
    v = eval(sys.argv[1])
except Exception:
    sys.exit(1)
print(json.dumps(v) if isinstance(v, (bool, dict, list)) or v is None else v)' "$1"
}
fnbr() { # WHO PEER EXPR
	vt "$1" "show bgp neighbors $2 json" | jget "(lambda n: $3)(j['$2'])"
}
