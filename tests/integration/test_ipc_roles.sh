#!/usr/bin/env bash
# tests/integration/test_ipc_roles.sh: issue 24 points 2, 3 and 7 on the
# real router (tern-rtrmgr as root, mgmt, rib and fwd as nobody, in a
# network namespace of their own), each role played by the user daemon
# with other groups (setpriv):
# - the components' group (nogroup) gets nothing: mgmt.sock, rtrmgr.sock
#   and fwd.sock refuse it (once group-writable: commit, restart, stop and
#   a FIB marked stale by a random RESYNC_BEGIN);
# - an operator (operator-group) gets the -ro sockets only: show works,
#   configure and restart are refused;
# - an admin (admin-group) gets mgmt.sock: configure, commit and restart
#   through mgmt, which logs who; never rtrmgr.sock or the components'
#   sockets; lifecycle SHUTDOWN on mgmt.sock is refused as component-only;
# - component-only methods are refused to a non-component even through a
#   socket it can open (fwd.sock made 0666), counted and logged;
# - without access, ternsh and any IPC client say "permission denied" at
#   once, with the socket and the group it needs, not a TIMEOUT after 30 s;
# - with neither group configured every socket is owner-only.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
tools=${TERN_TOOLS:-$root/build/tests/tools}
. "$root/tests/lib/check.sh"

opg=operator # operator-group, admin-group: groups that exist on Debian
adg=voice
if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null ||
    ! command -v unshare >/dev/null || ! id daemon >/dev/null 2>&1 ||
    ! id nobody >/dev/null 2>&1 || ! getent group $opg >/dev/null ||
    ! getent group $adg >/dev/null || ! getent group nogroup >/dev/null; then
	echo "skip: needs root, setpriv, unshare, the users daemon and nobody, the groups $opg, $adg and nogroup"
	check_summary ipc-roles
	exit 0
fi
opgid=$(getent group $opg | cut -d: -f3)
adgid=$(getent group $adg | cut -d: -f3)

tmp=$(mktemp -d /tmp/tern-roles.XXXXXX)
chmod 0755 "$tmp"
run=$tmp/run
mkdir "$tmp/store"
chown nobody:nogroup "$tmp/store"
rtm=
kill_all() {
	local p
	[[ -n $rtm ]] && kill -9 "$rtm" 2>/dev/null
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rtm=
}
cleanup() {
	kill_all
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

conf() { # [GLOBAL LINES]
	cat <<EOF
user nobody;
$1
output file;
health-check ipc;
health-interval 200ms;
health-timeout 150ms;
component mgmt { binary $bin/tern-mgmt; args "--store=$tmp/store"; }
component rib { binary $bin/tern-rib; }
component fwd { binary $bin/tern-fwd; capabilities net_raw net_admin; }
EOF
}
rsh() { TERN_RUNDIR=$run timeout 20 "$bin/ternsh" "$@" 2>&1; }
running() { [[ $(rsh -c "show processes" | awk '$3 == "running"' | wc -l) -ge 3 ]]; }
start() { # CONF
	conf "$1" >"$tmp/rtrmgr.conf"
	unshare --net "$bin/tern-rtrmgr" -c "$tmp/rtrmgr.conf" --rundir "$run" \
	    </dev/null 2>>"$tmp/rtrmgr.log" &
	rtm=$!
	wait_until 20 running
}
stop() {
	kill -TERM "$rtm" 2>/dev/null
	timeout 20 tail --pid="$rtm" -f /dev/null
	kill_all
}
st_pid() { awk -v n="$1" '$1 == "comp" && $2 == n { print $4 }' "$run/rtrmgr.state"; }
perms() { stat -c '%a %U %G' "$1"; }
# the user daemon, in GROUPS (comma separated, "" for none): as GROUPS CMD...
as() {
	local g=$1
	shift
	if [[ -n $g ]]; then g=--groups=$g; else g=--clear-groups; fi
	(cd / && exec timeout 40 setpriv --reuid=daemon --regid=daemon "$g" \
	    env TERN_RUNDIR="$run" "$@") 2>&1
}
dsh() { local g=$1; shift; as "$g" "$bin/ternsh" "$@"; }
call() { local g=$1; shift; as "$g" "$tools/ipccall" "$run" "$@"; }
ms() { sed -n 's/.*(\([0-9]*\) ms)$/\1/p' <<<"$1"; }
hasnt() { ! grep -q -- "$2" <<<"$1"; }
quick() { # SECONDS CMD...: CMD done within SECONDS
	local t0=$SECONDS
	"$@" >/dev/null
	((SECONDS - t0 <= $1))
}

check "rtrmgr starts mgmt, rib and fwd with both groups configured" \
    start "operator-group $opg; admin-group $adg;"
mgmt=$(st_pid mgmt) rib=$(st_pid rib) fwd=$(st_pid fwd)

# ---- point 2: the files --------------------------------------------------
check "rundir 0751: reachable by name, not listable" test "$(perms "$run")" = "751 nobody nogroup"
check "mgmt.sock: the admin group's" test "$(perms "$run/mgmt.sock")" = "660 nobody $adg"
check "mgmt-ro.sock: the operator group's" test "$(perms "$run/mgmt-ro.sock")" = "660 nobody $opg"
for c in rib fwd; do
	check "$c.sock: owner-only (components)" test "$(perms "$run/$c.sock")" = "600 nobody nogroup"
	check "$c-ro.sock: the operator group's" test "$(perms "$run/$c-ro.sock")" = "660 nobody $opg"
done
check "rtrmgr.sock: owner-only, owned by the components' user" test "$(perms "$run/rtrmgr.sock")" = "600 nobody root"
check "rtrmgr-ro.sock: the operator group's" test "$(perms "$run/rtrmgr-ro.sock")" = "660 nobody $opg"
groups_of() { awk '/^Groups:/ { $1 = ""; print }' "/proc/$1/status" | xargs; }
check "mgmt has the operator and admin groups, nothing else" \
    test "$(groups_of "$mgmt" | tr ' ' '\n' | sort -n | xargs)" = "$(printf '%s\n' $opgid $adgid | sort -n | xargs)"
check "rib has the operator group only" test "$(groups_of "$rib")" = "$opgid"

# ---- the components' group: nothing -----------------------------------
out=$(dsh nogroup -c "show version"); rc=$?
check "components' group: ternsh refused (exit $rc)" test $rc = 1
check "  ... permission denied, naming the socket and its group" \
    has "$out" "mgmt-ro.sock: permission denied: for the members of group $opg"
check "  ... and the admin socket's group" has "$out" "mgmt.sock: permission denied: for the members of group $adg"
check "  ... at once (point 7)" quick 3 dsh nogroup -c "show version"
out=$(call nogroup rtrmgr restart rib)
check "components' group: rtrmgr.sock refused (restart)" has "$out" "^DENIED: .*rtrmgr.sock: permission denied: only its owner nobody and root may use it"
check "  ... in $(ms "$out") ms" test "$(ms "$out")" -lt 1000
out=$(call nogroup rtrmgr shutdown)
check "components' group: no SHUTDOWN of the router" has "$out" "^DENIED"
resyncs() { grep -c 'resync begins' "$run/fwd.log"; }
r0=$(resyncs)
out=$(call nogroup fwd resync-begin --random 64)
check "components' group: fwd.sock refused (a random RESYNC_BEGIN)" has "$out" "^DENIED: .*fwd.sock: permission denied: only its owner"
check "rib not restarted, fwd's FIB not marked stale" \
    test "$(st_pid rib)" = "$rib" -a "$(resyncs)" = "$r0"

# ---- operator: the -ro sockets only --------------------------------------
out=$(dsh $opg -c "show version"); rc=$?
check "operator: show version works" test $rc = 0
out=$(dsh $opg -c "show processes"); rc=$?
check "operator: show processes works" has "$out" "^rib .*running"
out=$(dsh $opg -c configure)
check "operator: configure refused (read-only)" has "$out" "read-only"
out=$(dsh $opg -c "restart rib")
check "operator: restart refused (read-only)" has "$out" "read-only"
check "  ... rib untouched" test "$(st_pid rib)" = "$rib"
out=$(call $opg rib-ro status)
check "operator: rib-ro.sock STATUS" has "$out" "^OK component rib"
out=$(call $opg rtrmgr-ro list)
check "operator: rtrmgr-ro.sock LIST" has "$out" "^OK"
out=$(call $opg rtrmgr-ro restart rib)
check "operator: restart on rtrmgr-ro.sock refused (admin method)" has "$out" "^DENIED: restart is an admin method: refused on the read-only socket"
out=$(call $opg rtrmgr restart rib)
check "operator: rtrmgr.sock refused" has "$out" "^DENIED: .*rtrmgr.sock: permission denied"
out=$(call $opg mgmt status)
check "operator: mgmt.sock refused (the admins')" has "$out" "^DENIED: .*mgmt.sock: permission denied: for the members of group $adg"

# ---- admin: mgmt.sock, nothing else ------------------------------------------
out=$(dsh $adg -c configure -c "set system host-name roles-$$" -c commit -c exit); rc=$?
check "admin: configure and commit (exit $rc)" test $rc = 0
check "  ... running" has "$(rsh -c 'show configuration')" "host-name roles-$$"
check "  ... the commit history names the admin" has "$(rsh -c 'show system commit')" "by daemon via ternsh"
out=$(dsh $adg -c "restart rib"); rc=$?
check "admin: restart rib through mgmt (exit $rc)" test $rc = 0
newrib() { [[ -n $(st_pid rib) && $(st_pid rib) != "$rib" ]] && running; }
check "  ... rib restarted" wait_until 10 newrib
check "  ... rtrmgr logs the call with mgmt's uid and pid (point 3)" \
    grep -q "rtrmgr: restart from uid 65534 pid $mgmt (mgmt) on $run/rtrmgr.sock: name=\"rib\"" "$tmp/rtrmgr.log"
check "  ... mgmt logs the person: user, uid and pid" \
    grep -q "session [0-9]* (daemon, uid 1, pid [0-9]*): restart rib" "$run/mgmt.log"
check "  ... and the commit" grep -q "session [0-9]* (daemon, uid 1, pid [0-9]*): commit" "$run/mgmt.log"
out=$(call $adg rtrmgr restart fwd)
check "admin: rtrmgr.sock refused (only through mgmt)" has "$out" "^DENIED: .*rtrmgr.sock: permission denied"
out=$(call $adg fwd resync-begin --random 64)
check "admin: fwd.sock refused" has "$out" "^DENIED: .*fwd.sock: permission denied"
out=$(call $adg mgmt shutdown)
check "admin: lifecycle SHUTDOWN on mgmt.sock refused as component-only" \
    has "$out" "^DENIED: mgmt: shutdown is for tern's components only (they run as uid 65534): refused to uid 1 pid [0-9]* (says it is 'ipccall')"
sleep 0.3
check "  ... mgmt still running, same pid" test "$(st_pid mgmt)" = "$mgmt" -a -d "/proc/$mgmt"
out=$(TERN_RUNDIR=$run "$tools/ipccall" "$run" mgmt-ro status)
check "  ... counted in mgmt's STATUS (denied=1)" has "$out" " denied=1"
check "  ... logged with the uid and pid" grep -q "shutdown is for tern's components only .*refused to uid 1 pid" "$run/mgmt.log"

# ---- point 3: component-only methods, whatever the socket's mode ---------------------
chmod 0666 "$run/fwd.sock"
r0=$(resyncs)
out=$(call "" fwd resync-begin --random 64)
check "fwd.sock opened to all: a random RESYNC_BEGIN from uid 1 refused" \
    has "$out" "^DENIED: fwd: resync-begin is for tern's components only (they run as uid 65534): refused to uid 1"
out=$(call "" fwd fib-batch --random 300)
check "  ... and a FIB batch" has "$out" "^DENIED: fwd: fib-batch is for tern's components only"
out=$(call "" fwd if-config)
check "  ... and interface config" has "$out" "^DENIED: fwd: if-config is for tern's components only"
out=$(call "" fwd query-interfaces)
check "  ... while a query is served on it" has "$out" "^OK"
out=$(TERN_RUNDIR=$run "$tools/ipccall" "$run" fwd-ro status)
check "  ... fwd still running, not resyncing; denied=3" has "$out" "state running .* denied=3"
check "  ... and no 'resync begins' in its log" test "$(resyncs)" = "$r0"
check "  ... logged with the peer's uid and pid" grep -q "resync-begin is for tern's components only .*refused to uid 1 pid" "$run/fwd.log"
chmod 0600 "$run/fwd.sock"

# ---- point 7: no access at all -------------------------------------------------------
t0=$SECONDS
out=$(dsh "" -c "show version"); rc=$?
dt=$((SECONDS - t0))
check "no group: ternsh exits 1 in ${dt}s (not a 30 s TIMEOUT)" test $rc = 1 -a $dt -le 3
check "  ... says permission denied, the socket and the group" \
    has "$out" "cannot reach tern-mgmt: $run/mgmt-ro.sock: permission denied: for the members of group $opg"
check "  ... not TIMEOUT" hasnt "$out" "TIMEOUT"
out=$(call "" rib-ro query --timeout 30000)
check "no group: an IPC client (rib-ro.sock) fails at once with DENIED" has "$out" "^DENIED: .*rib-ro.sock: permission denied: for the members of group $opg"
check "  ... in $(ms "$out") ms" test "$(ms "$out")" -lt 1000

check "root still does everything" has "$(rsh -c 'show processes')" "^fwd .*running"
check "health checks never failed" test -z "$(grep -i 'health check' "$tmp/rtrmgr.log")"
stop

# ---- neither group: every socket owner-only ----------------------------------------
check "rtrmgr starts without operator-group and admin-group" start ""
check "rundir 0750" test "$(perms "$run")" = "750 nobody nogroup"
bad=
for s in mgmt mgmt-ro rib rib-ro fwd fwd-ro rtrmgr rtrmgr-ro; do
	[[ $(stat -c %a "$run/$s.sock") == 600 ]] || bad+=" $s"
done
check "every socket 0600${bad:+ (not:$bad)}" test -z "$bad"
out=$(dsh nogroup -c "show version"); rc=$?
check "the components' group: ternsh refused at once (the issue's commit and restart)" \
    test $rc = 1 -a -n "$(grep "mgmt-ro.sock: permission denied: only its owner nobody and root may use it" <<<"$out")"
out=$(call nogroup mgmt execute)
check "  ... and mgmt.sock" has "$out" "^DENIED: .*mgmt.sock: permission denied: only its owner nobody"
stop

((fail > 0)) && { echo "--- rtrmgr.log"; tail -30 "$tmp/rtrmgr.log"; echo "--- mgmt.log"; tail -30 "$run/mgmt.log"; }
check_summary ipc-roles
