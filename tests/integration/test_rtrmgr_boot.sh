#!/usr/bin/env bash
# tests/integration/test_rtrmgr_boot.sh: tern-rtrmgr start-up as a process:
# a bad config names file:line:column and starts nothing; a missing user is
# refused; a component that crashes at start-up backs off and is marked
# failed while the others run; usage errors.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}/tern-rtrmgr
. "$root/tests/lib/check.sh"

tmp=$(mktemp -d /tmp/rtm-boot.XXXXXX)
chmod 755 "$tmp"
run=$tmp/run
rtm=
cleanup() {
	local p
	[[ -n $rtm ]] && kill -9 "$rtm" 2>/dev/null
	if [[ -f $run/rtrmgr.state ]]; then
		for p in $(awk '$1 == "comp" && $4 > 0 { print $4 }' "$run/rtrmgr.state"); do
			kill -9 "$p" 2>/dev/null
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done; }

printf '#!/bin/sh\nwhile :; do sleep 0.05; done\n' >"$tmp/up.sh"
printf '#!/bin/sh\necho "crashing on purpose"\nexit 2\n' >"$tmp/crash.sh"
chmod 755 "$tmp/up.sh" "$tmp/crash.sh"

# 1. a config error: file:line:column, exit 1, nothing created or started
cat >"$tmp/bad.conf" <<EOF
backoff-initial 50ms;
component mgmt { binary $tmp/up.sh; privileges root; }
component rib {
	binary $tmp/up.sh;
	privileges superuser;
}
EOF
timeout 10 "$bin" -c "$tmp/bad.conf" --rundir "$run" 2>"$tmp/err"
rc=$?
check "bad config: exit 1 (got $rc)" test $rc = 1
check "bad config: names file:line:column" \
    grep -q "$tmp/bad.conf:5:13: 'superuser': expected user or root (nothing started)" "$tmp/err"
check "bad config: rundir not created" test ! -e "$run"
check "bad config: nothing started" test -z "$(pgrep -f "$tmp/up.sh")"

# 2. a missing file
timeout 10 "$bin" -c "$tmp/none.conf" --rundir "$run" 2>"$tmp/err"
rc=$?
check "missing config: exit 1 with the reason" \
    test $rc = 1 -a -n "$(grep "none.conf: No such file or directory" "$tmp/err")"

# 3. the unprivileged user does not exist (root only)
if [[ $(id -u) == 0 ]]; then
	cat >"$tmp/user.conf" <<EOF
user tern-missing-$$;
component mgmt { binary $tmp/up.sh; }
EOF
	timeout 10 "$bin" -c "$tmp/user.conf" --rundir "$run" 2>"$tmp/err"
	rc=$?
	check "missing user: exit 1 (got $rc)" test $rc = 1
	check "missing user: says so and how to fix it" \
	    grep -q "user 'tern-missing-$$' (for unprivileged components) does not exist: create it" "$tmp/err"
	check "missing user: nothing started" test -z "$(pgrep -f "$tmp/up.sh")"
else
	echo "skip missing user: needs root"
fi

# 4. usage
timeout 10 "$bin" --bogus 2>"$tmp/err"
check "unknown option: exit 2" test $? = 2
check "--help mentions -c" bash -c "'$bin' --help | grep -q -- '-c FILE'"

# 5. crash at start-up: backoff, then failed; the others keep running
cat >"$tmp/crash.conf" <<EOF
backoff-initial 20ms;
backoff-max 100ms;
failure-limit 4;
failure-window 10s;
stop-grace 1s;
component mgmt { binary $tmp/up.sh; privileges root; }
component rib { binary $tmp/crash.sh; privileges root; }
component fwd { binary $tmp/up.sh; privileges root; }
EOF
timeout --kill-after=5 30 "$bin" -c "$tmp/crash.conf" --rundir "$run" 2>"$tmp/log" &
rtm=$!
failed() { grep -q "rib: 4 failures in 10000 ms; last: exited with status 2: marked failed" "$tmp/log" 2>/dev/null; }
check "crash loop: rib marked failed" wait_for 5 failed
check "crash loop: backoff grew 20, 40, 80 ms" \
    test "$(grep -o 'rib: restart [0-9]* in [0-9]* ms' "$tmp/log" | awk '{print $5}' | tr '\n' ' ')" = "20 40 80 "
check "crash loop: generation 4, no pid" \
    test "$(awk '$2 == "rib" { print $3, $4 }' "$run/rtrmgr.state")" = "4 0"
sleep 0.3
check "crash loop: not restarted after failed" \
    test "$(grep -c 'rib: started' "$tmp/log")" = 4
check "crash loop: its output is in RUNDIR/rib.log" \
    test "$(grep -c 'crashing on purpose' "$run/rib.log")" = 4
up() { [[ $(awk '$1 == "comp" && $2 != "rib" && $4 > 0' "$run/rtrmgr.state" | wc -l) == 2 ]]; }
check "crash loop: mgmt and fwd running" up
kill -TERM "$rtm"
wait "$rtm"
rc=$?
rtm=
check "crash loop: SIGTERM exits 0 (got $rc)" test $rc = 0

check_summary rtrmgr-boot
