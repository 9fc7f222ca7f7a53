#!/usr/bin/env bash
# tests/integration/test_rtrmgr_notify.sh: tern-rtrmgr under systemd's
# notification protocol without systemd as PID 1: the real router (mgmt,
# rib, fwd, bgp) in a network namespace of its own, NOTIFY_SOCKET a Unix
# datagram socket this test listens on (python3), WATCHDOG_USEC and
# WATCHDOG_PID set. READY=1 only once every component answers (rib is
# started 1 s late by a wrapper), STATUS= says what it waits for, WATCHDOG=1
# every half interval that stops while rtrmgr is SIGSTOPped and resumes
# after SIGCONT, SIGHUP: RELOADING=1 then READY=1 and the change applied
# (a component added, then removed), a broken file refused with its error
# and nothing changed, --check's exit codes, STOPPING=1 on SIGTERM; and
# etc/tern.service passes systemd-analyze verify.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) -ne 0 ]]; then
	echo "skip: needs root for a network namespace"
	echo "rtrmgr-notify: 0 passed, 0 failed"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "skip: needs python3 for the notification socket"
	echo "rtrmgr-notify: 0 passed, 0 failed"
	exit 0
fi

ns=tsd-r-$$
tmp=$(mktemp -d /tmp/tsd-notify.XXXXXX)
chmod 755 "$tmp"	# the components run as nobody
run=$tmp/run
user=nobody
mkdir -m 0750 "$tmp/store"
chown "$user:$(id -gn $user)" "$tmp/store"
rtm= lis=
cleanup() {
	local p
	[[ -n $rtm ]] && kill -CONT "$rtm" 2>/dev/null && kill -9 "$rtm" 2>/dev/null
	# the components of the state file, and every one seen before (one
	# that a failed adoption left behind is no longer in it)
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	for p in $(cut -d= -f2 "$tmp/seen" 2>/dev/null | sort -u); do
		grep -qz -- "--rundir" "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p" 2>/dev/null
	done
	[[ -n $lis ]] && kill "$lis" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$ns" || { echo "cannot create namespace $ns"; exit 1; }
ip -n "$ns" link set lo up

# The notification socket: every datagram as one line "TIME MSG" (newlines
# as |); at the first READY=1, `show processes` at once, before anything
# else is read.
cat >"$tmp/listen.py" <<'EOF'
import os, socket, subprocess, sys, time
path, log, probe = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
out = open(log, "a", buffering=1)
ready = False
while True:
    m = s.recv(4096).decode(errors="replace")
    out.write("%.3f %s\n" % (time.time(), m.replace("\n", "|")))
    if not ready and "READY=1" in m.split("\n"):
        ready = True
        r = subprocess.run(probe, shell=True, capture_output=True, text=True)
        with open(log + ".ready", "w") as f:
            f.write(r.stdout + r.stderr)
EOF
notes=$tmp/notify.log
: >"$notes"
python3 "$tmp/listen.py" "$tmp/notify.sock" "$notes" \
    "TERN_RUNDIR=$run timeout 10 $bindir/ternsh -c 'show processes'" &
lis=$!
wait_until 5 test -S "$tmp/notify.sock" || { echo "listener did not start"; exit 1; }

# rib comes up a second late: READY=1 must wait for it (argv[0] stays the
# configured binary, so that a new rtrmgr adopts it)
cat >"$tmp/slow-rib.sh" <<EOF
#!/bin/bash
sleep 1
exec -a "\$0" $bindir/tern-rib "\$@"
EOF
printf '#!/bin/sh\nexec sleep 600\n' >"$tmp/probe.sh"
chmod 755 "$tmp/slow-rib.sh" "$tmp/probe.sh"
echo 'system { host-name tsd; }' >"$tmp/boot.conf"
chmod 644 "$tmp/boot.conf"
conf() { # EXTRA: the boot config of this router, EXTRA at its end
	cat <<EOF
user $user;
log-level info;
output file;
health-check ipc;
health-interval 200ms;
health-timeout 150ms;
backoff-initial 50ms;
stop-grace 3s;
component mgmt { binary $bindir/tern-mgmt; args "--store=$tmp/store" "--config=$tmp/boot.conf"; privileges user; capabilities net_raw; }
component rib { binary $tmp/slow-rib.sh; privileges user; }
component fwd { binary $bindir/tern-fwd; privileges user; capabilities net_raw net_admin bpf ipc_lock perfmon; }
component bgp { binary $bindir/tern-bgp; privileges user; capabilities net_bind_service; }
${1:-}
EOF
}
cfg=$tmp/rtrmgr.conf
conf >"$cfg"

# ---- --check: exit codes, nothing started ------------------------------
out=$("$bindir/tern-rtrmgr" --check -c "$cfg" --rundir "$tmp/never" 2>&1); rc=$?
check "--check of a good file: exit 0 (got $rc), OK, nothing started (no rundir made)" \
    test "$rc" = 0 -a "$out" = "$cfg: OK (4 components)" -a ! -e "$tmp/never"
conf "bogus-key 1;" >"$tmp/bad.conf"
out=$("$bindir/tern-rtrmgr" --check -c "$tmp/bad.conf" 2>&1); rc=$?
check "--check of a syntax error: exit 1 (got $rc)" test "$rc" = 1
check "--check says FILE:LINE:COLUMN and what" has "$out" "^tern-rtrmgr: $tmp/bad.conf:13:1: unknown setting 'bogus-key'$"
conf "component probe { binary $tmp/nothere.sh; health off; }" >"$tmp/nobin.conf"
out=$("$bindir/tern-rtrmgr" --check -c "$tmp/nobin.conf" 2>&1); rc=$?
check "--check of a missing binary: exit 1 (got $rc), said" \
    test "$rc" = 1 -a "$out" = "tern-rtrmgr: $tmp/nobin.conf:13: component probe: binary $tmp/nothere.sh: No such file or directory"
out=$("$bindir/tern-rtrmgr" --check -c "$tmp/absent.conf" 2>&1); rc=$?
check "--check of a missing file: exit 1 (got $rc)" test "$rc" = 1 -a "$out" = "tern-rtrmgr: $tmp/absent.conf: No such file or directory"

# ---- start under "systemd" ------------------------------------------------
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=400000 \
    ip netns exec "$ns" sh -c 'export WATCHDOG_PID=$$; exec "$0" "$@"' \
    "$bindir/tern-rtrmgr" -c "$cfg" --rundir "$run" 2>>"$tmp/log" &
rtm=$!
n_of() { grep -c -- "$1" "$notes"; }
# at least N READY=1 received
readies() { [[ $(grep -Ec '(^[0-9.]+ |\|)READY=1(\||$)' "$notes") -ge $1 ]]; }
# in TEXT, the first line matching A comes before the first matching B
before() { local a b; a=$(grep -nE -- "$2" <<<"$1" | head -1 | cut -d: -f1)
	b=$(grep -nE -- "$3" <<<"$1" | head -1 | cut -d: -f1); [[ -n $a && -n $b && $a -lt $b ]]; }
check "READY=1 within 20 s" wait_until 20 readies 1
grep -qz "^WATCHDOG_PID=$rtm$" "/proc/$rtm/environ" || echo "note: WATCHDOG_PID is not rtrmgr's pid $rtm"
wait_until 5 test -s "$notes.ready"
at_ready=$(cat "$notes.ready" 2>/dev/null)
nrun=$(awk '$3 == "running"' <<<"$at_ready" | wc -l)
check "at READY=1 all four components answer ('show processes': $nrun running)" test "$nrun" = 4
before=$(sed -n '0,/READY=1/p' "$notes")
check "STATUS= said it waited for rib before READY=1" has "$before" "STATUS=Waiting for rib (starting, pid [0-9]*, generation 1)"
# rtrmgr logs "bgp: running" when bgp (the last) first answers, then says READY
ready_t=$(grep -m1 -E '(^[0-9.]+ |\|)READY=1(\||$)' "$notes" | cut -d' ' -f1)
bgp_t=$(date -d "$(grep -m1 'bgp: running (pid' "$tmp/log" | cut -d' ' -f1)" +%s.%N 2>/dev/null)
check "READY=1 ($ready_t) not before the last component answered ($bgp_t)" \
    python3 -c "import sys; sys.exit(not (float('$bgp_t' or 0) > 0 and float('$ready_t') >= float('$bgp_t') - 0.005))"
check "READY=1 with STATUS= 'Running: 4 of 4 components up'" has "$before" "READY=1|STATUS=Running: 4 of 4 components up$"
mgmt=$(awk '$1 == "comp" && $2 == "mgmt" { print $4 }' "$run/rtrmgr.state")
check "components do not inherit NOTIFY_SOCKET or WATCHDOG_*" \
    bash -c "! tr '\0' '\n' </proc/$mgmt/environ | grep -q '^NOTIFY_SOCKET=\|^WATCHDOG_'"
# (adopted ones are init's children: gone may mean a zombie)
pids() { awk '$1 == "comp" && $4 > 0 { print $2 "=" $4 }' "$run/rtrmgr.state" | sort |
	tee -a "$tmp/seen" | tr '\n' ' '; }
pids0=$(pids)

# ---- watchdog: every 200 ms; none while stopped, again after ------------
w0=$(n_of WATCHDOG=1); sleep 2; w1=$(n_of WATCHDOG=1)
check "WATCHDOG=1 every half of WATCHDOG_USEC (400 ms): $((w1 - w0)) in 2 s" test $((w1 - w0)) -ge 7 -a $((w1 - w0)) -le 12
kill -STOP "$rtm"; sleep 0.5	# what was on its way has been read
w2=$(n_of WATCHDOG=1); sleep 1.5; w3=$(n_of WATCHDOG=1)
check "SIGSTOP: no WATCHDOG=1 in 1.5 s (got $((w3 - w2)); $w2 before)" test "$w3" = "$w2" -a "$w2" -gt 0
kill -CONT "$rtm"; sleep 1
w4=$(n_of WATCHDOG=1)
check "SIGCONT: WATCHDOG=1 again ($((w4 - w3)) in 1 s)" test $((w4 - w3)) -ge 3

# ---- kill -9 of rtrmgr: the next one adopts, READY=1 once they answer -----
start_rtm() {
	NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=400000 \
	    ip netns exec "$ns" sh -c 'export WATCHDOG_PID=$$; exec "$0" "$@"' \
	    "$bindir/tern-rtrmgr" -c "$cfg" --rundir "$run" 2>>"$tmp/log" &
	rtm=$!
}
kill -9 "$rtm"; wait "$rtm" 2>/dev/null
m=$(wc -l <"$notes")
start_rtm
check "restarted rtrmgr: READY=1 again" wait_until 10 readies 2
after=$(tail -n +$((m + 1)) "$notes")
adopted() { [[ $(pids) == "$pids0" ]] && grep -q 'bgp: adopted pid' "$tmp/log" &&
	before "$after" "STATUS=Waiting for mgmt to answer its health check" '(^[0-9.]+ |\|)READY=1'; }
check "  ... after waiting for the adopted ones (same pids) to answer" adopted

# ---- reload: a component added, then a broken file, then removed ----------
mark() { wc -l <"$notes"; }
since() { tail -n +$(($1 + 1)) "$notes"; }
conf "component probe { binary $tmp/probe.sh; health off; }" >"$cfg"
m=$(mark)
kill -HUP "$rtm"
check "SIGHUP (probe added): READY=1 again" wait_until 10 readies 3
after=$(since "$m")
check "RELOADING=1 (with MONOTONIC_USEC) first, then READY=1" \
    before "$after" 'RELOADING=1\|MONOTONIC_USEC=[0-9]+' '(^[0-9.]+ |\|)READY=1'
procs() { TERN_RUNDIR=$run timeout 10 "$bindir/ternsh" -c "show processes" 2>&1; }
check "the added component runs" test "$(procs | awk '$1 == "probe" { print $3 }')" = running
check "rtrmgr's log: reloaded, 1 added" grep -q "reloaded $cfg: 5 components (1 added, 0 removed)" "$tmp/log"
pids1=$(pids)
check "probe recorded, the four others kept their pids" \
    bash -c "grep -q 'probe=[0-9]' <<<'$pids1' && [[ '$(sed 's/probe=[0-9]* //' <<<"$pids1")' == '$pids0' ]]"

conf "component probe { binary $tmp/probe.sh; health off; }
bogus-key 1;" >"$cfg"
m=$(mark)
kill -HUP "$rtm"
check "SIGHUP (broken file): still READY=1" wait_until 10 readies 4
after=$(since "$m")
check "broken file: RELOADING=1 then READY=1 saying it was refused" \
    before "$after" 'RELOADING=1' "READY=1\\|STATUS=Reload refused, running as before: $cfg:14:1: unknown setting 'bogus-key'"
check "broken file: the error in rtrmgr's log" grep -q "reload refused, nothing changed: $cfg:14:1: unknown setting 'bogus-key'" "$tmp/log"
check "broken file: nothing changed (same five pids)" test "$(pids)" = "$pids1" -a "$(wc -w <<<"$pids1")" = 5
conf "component probe { binary $tmp/probe.sh; health off; }
component late { binary $tmp/nothere.sh; }" >"$cfg"
kill -HUP "$rtm"
check "SIGHUP (missing binary): refused, said" wait_until 10 grep -q "reload refused, nothing changed: $cfg:14: component late: binary $tmp/nothere.sh: No such file or directory" "$tmp/log"
check "missing binary: nothing changed (same five pids)" test "$(pids)" = "$pids1" -a "$(wc -w <<<"$pids1")" = 5

conf >"$cfg"
probe=$(awk '$1 == "comp" && $2 == "probe" { print $4 }' "$run/rtrmgr.state")
kill -HUP "$rtm"
check "SIGHUP (probe removed): READY=1 again" wait_until 10 readies 6
check "the removed component was stopped (pid ${probe:-none})" bash -c "[[ -n '$probe' ]] && ! kill -0 '$probe' 2>/dev/null"
check "and dropped: not listed, not in the state file, logged" \
    bash -c "! grep -q '^probe ' <<<'$(procs)' && ! grep -q 'probe' '$run/rtrmgr.state' && grep -q 'probe: stopped and removed' '$tmp/log'"
check "the four others still run with their pids, probe's gone" test "$(pids)" = "$pids0" -a "$pids1" != "$pids0"

# ---- SIGTERM: STOPPING=1, orderly ------------------------------------------
m=$(mark)
kill -TERM "$rtm"; wait "$rtm"; rc=$?; rtm=
after=$(since "$m")
check "SIGTERM: STOPPING=1 sent, rtrmgr exits 0 (got $rc), components gone" \
    bash -c "grep -q 'STOPPING=1|STATUS=Stopping: waiting for bgp' <<<'$after' && [[ $rc == 0 ]] && ! grep -qv ') Z ' /proc/$mgmt/stat 2>/dev/null"
check "SIGTERM: the last STATUS= says all stopped" has "$(tail -1 "$notes")" "STATUS=Stopping: all components stopped$"

# ---- the unit -------------------------------------------------------------
# the unit as make fills in etc/tern.service.in (default directories),
# with the binaries of this test and without its man: pages
unit=$tmp/tern.service
sed -e "s#@SBINDIR@#$bindir#g; s#@SYSCONFDIR@#/etc#g; s#@RUNSTATEDIR@#/run#g" \
    -e "s#@LOCALSTATEDIR@#/var#g; s#@DOCDIR@#/usr/share/doc/tern#g; s#@SYSTEMDUNITDIR@#/lib/systemd/system#g" \
    -e '/^Documentation=/d' "$root/etc/tern.service.in" >"$unit"
check "unit: every @NAME@ of etc/tern.service.in filled in here" bash -c "! grep -n '@[A-Z_]*@' '$unit'"
check "unit: Type=notify, NotifyAccess=main, WatchdogSec=" \
    bash -c "grep -qx Type=notify $unit && grep -qx NotifyAccess=main $unit && grep -q '^WatchdogSec=[0-9]' $unit"
check "unit: ProtectSystem=strict, rundir and store writable, ProtectHome, PrivateTmp" \
    bash -c "grep -qx ProtectSystem=strict $unit && grep -q '^ReadWritePaths=-*/run/tern$' $unit && grep -q '^ReadWritePaths=-*/var/lib/tern$' $unit && grep -qx ProtectHome=yes $unit && grep -qx PrivateTmp=yes $unit"
check "unit: ExecReload= checks the file before kill -HUP \$MAINPID" \
    bash -c "grep '^ExecReload=' $unit | head -1 | grep -q -- '--check -c' && grep '^ExecReload=' $unit | tail -1 | grep -q 'kill -HUP \$MAINPID'"
check "unit: ExecStartPre= --check, KillMode=process, NoNewPrivileges" \
    bash -c "grep -q '^ExecStartPre=.*--check' $unit && grep -qx KillMode=process $unit && grep -qx NoNewPrivileges=yes $unit"
bset=$(grep '^CapabilityBoundingSet=' "$unit" | cut -d= -f2- | tr ' ' '\n' | tr A-Z a-z | sed 's/^cap_//')
missing=
for c in $(sed -n 's/^[[:space:]]*capabilities \(.*\);/\1/p' "$root/etc/tern-rtrmgr.conf.in") setuid setgid setpcap kill; do
	grep -qx "$c" <<<"$bset" || missing+=" $c"
done
check "unit: CapabilityBoundingSet= holds every component's capabilities and rtrmgr's own (missing:${missing:- none})" test -z "$missing"
if command -v systemd-analyze >/dev/null; then
	out=$(timeout 30 systemd-analyze verify "$unit" 2>&1); rc=$?
	check "systemd-analyze verify etc/tern.service: clean (rc $rc${out:+: $out}), as Type=notify" \
	    test "$rc" = 0 -a -z "$out" -a "$(grep -c '^Type=notify$' "$tmp/tern.service")" = 1
fi

# ---- the unit's capabilities and no_new_privs are enough -------------------
# rtrmgr as root under the unit's CapabilityBoundingSet= and
# NoNewPrivileges= (setpriv does what systemd does for them): a fresh
# rundir, a rundir the component user owns (a restart), kill -9 and
# re-adoption, SIGTERM stopping components of another uid.
if command -v setpriv >/dev/null; then
	caps=$(grep '^CapabilityBoundingSet=' "$unit" | cut -d= -f2- | tr ' ' '\n' |
	    tr A-Z a-z | sed -n 's/^cap_/+/p' | paste -sd,)
	rm -rf "$run"
	# a component slow to stop (1 s after SIGTERM), stopped first
	printf '#!/bin/bash\ntrap "sleep 1; exit 0" TERM\nwhile :; do sleep 0.1; done\n' >"$tmp/linger.sh"
	chmod 755 "$tmp/linger.sh"
	conf "component linger { binary $tmp/linger.sh; health off; }" >"$cfg"
	start_sandboxed() {
		NOTIFY_SOCKET=$tmp/notify.sock ip netns exec "$ns" \
		    setpriv --nnp --bounding-set=-all,$caps \
		    "$bindir/tern-rtrmgr" -c "$cfg" --rundir "$run" 2>>"$tmp/log.sb" &
		rtm=$!
	}
	up() { m=$(wc -l <"$notes"); start_sandboxed; wait_until 20 readies $(($1)); }
	nr=$(grep -Ec '(^[0-9.]+ |\|)READY=1(\||$)' "$notes")
	check "sandboxed (bounding set ${caps//+/}, nnp): fresh rundir, READY=1" up $((nr + 1))
	bnd=$(awk '/^CapBnd/ { print $2 }' /proc/$rtm/status)
	fwdp=$(awk '$1 == "comp" && $2 == "fwd" { print $4 }' "$run/rtrmgr.state")
	mgmtp=$(awk '$1 == "comp" && $2 == "mgmt" { print $4 }' "$run/rtrmgr.state")
	cap_of() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$2/status" 2>/dev/null; }
	check "  ... rtrmgr's bounding set is the unit's ($bnd, no_new_privs), fwd has its five ($(cap_of CapEff "$fwdp")), mgmt's bounding set is net_raw ($(cap_of CapBnd "$mgmtp"))" \
	    bash -c "[[ '$bnd' == 000000c0000075eb && '$(cap_of CapEff "$fwdp")' == 000000c000007000 && '$(cap_of CapBnd "$mgmtp")' == 0000000000002000 ]] && grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$rtm/status"
	m=$(wc -l <"$notes")
	kill -TERM "$rtm"; sleep 0.3; kill -HUP "$rtm"; wait "$rtm"; rc=$?; rtm=
	check "  ... SIGTERM: exits 0 (got $rc), the components (uid $user) stopped" \
	    bash -c "[[ $rc == 0 ]] && ! kill -0 $fwdp 2>/dev/null"
	after=$(tail -n +$((m + 1)) "$notes")
	check "  ... a SIGHUP while stopping is ignored: no RELOADING=1 after STOPPING=1" \
	    bash -c "grep -q 'STOPPING=1' <<<'$after' && ! grep -q RELOADING <<<'$after' && grep -q 'SIGHUP ignored: shutting down' '$tmp/log.sb'"
	check "sandboxed: the rundir the component user owns (a restart), READY=1" up $((nr + 2))
	p1=$(pids)
	kill -9 "$rtm"; wait "$rtm" 2>/dev/null
	check "sandboxed: kill -9, the next one is READY=1" up $((nr + 3))
	check "  ... having adopted all five, same pids" \
	    test "$(grep -c 'adopted pid' "$tmp/log.sb")" = 5 -a "$(pids)" = "$p1"
	kill -TERM "$rtm"; wait "$rtm"; rc=$?
	fwdp=$(sed -n 's/.*fwd=\([0-9]*\).*/\1/p' <<<"$p1")
	check "  ... SIGTERM: exits 0 (got $rc), the adopted fwd ($fwdp) stopped" \
	    bash -c "[[ $rc == 0 && -n '$fwdp' ]] && ! grep -qv ') Z ' /proc/$fwdp/stat 2>/dev/null"
	rtm=
	((fail > 0)) && cat "$tmp/log.sb"
fi

((fail > 0)) && { echo "--- notifications"; cat "$notes"; echo "--- rtrmgr"; cat "$tmp/log"; }
check_summary rtrmgr-notify
