#!/usr/bin/env bash
# tests/integration/test_commit_history.sh: issue 23 points 5 and 9 through
# the real shell. tern-mgmt runs as nobody in / (as under tern-rtrmgr) and
# ternsh as another user (daemon), so who commits and who owns a saved file
# can be told apart:
# - commit history: each commit records who (the connection's credentials),
#   when, via what (ternsh, its terminal), its comment and lines changed;
#   `show system commit` lists them (and `| json`), across a restart of mgmt
#   and with a commit written before the history existed ("unknown");
#   `show | compare rollback N`, `compare rollback N [rollback M]` and
#   `rollback N` work; kill -9 during commits leaves a store that loads;
# - save and load: ternsh reads and writes the user's file, as the user,
#   relative to its directory (a directory only the user may enter, `save
#   mycfg`, ~/), atomic and with the user's umask; clear errors (missing
#   file, permission denied, a directory, a binary, a bad config, over the
#   size limit) that change nothing; a config bigger than one part (4 MiB)
#   goes both ways.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TERN_BIN:-$root/build/bin}
. "$root/tests/lib/check.sh"

if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null ||
    ! id daemon >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
	echo "skip: needs root, setpriv and the users daemon and nobody"
	check_summary commit-history
	exit 0
fi
tmp=$(mktemp -d /tmp/tern-hist.XXXXXX)
chmod 0755 "$tmp"
export TERN_RUNDIR=$tmp/run
store=$tmp/store
home=$tmp/home # daemon's: nobody else may enter it
mkdir -p "$store" "$TERN_RUNDIR" "$home/sub" "$tmp/rootonly"
# as tern-rtrmgr makes them: the components' user's, 0750
chown nobody:nogroup "$store" "$TERN_RUNDIR"
chmod 0750 "$TERN_RUNDIR"
chown -R daemon:daemon "$home"
chmod 0700 "$home"
mgmt_pid=
sock=$tmp/tmux.sock
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null
	[[ -n $mgmt_pid ]] && kill -9 "$mgmt_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# tern-mgmt as nobody, in /, as tern-rtrmgr starts it; its admin socket
# for the group nogroup, as rtrmgr's `admin-group nogroup;` would give it
# (sockets are owner-only otherwise: docs/ipc.md, "Roles")
start_mgmt() {
	(cd / && TERN_ADMIN_GROUP=nogroup exec setpriv --reuid=nobody \
	    --regid=nogroup --clear-groups \
	    "$bin/tern-mgmt" --store="$store" --rundir="$TERN_RUNDIR" \
	    --log-level debug) >>"$tmp/mgmt.log" 2>&1 &
	mgmt_pid=$!
	local end=$((SECONDS + 10))
	until [[ -S $TERN_RUNDIR/mgmt.sock ]] &&
	    timeout 2 "$bin/ternsh" -c 'show version' >/dev/null 2>&1; do
		((SECONDS < end)) || { echo "tern-mgmt did not start"; tail "$tmp/mgmt.log"; return 1; }
		sleep 0.05
	done
}
stop_mgmt() { [[ -n $mgmt_pid ]] && kill "$mgmt_pid" 2>/dev/null && wait "$mgmt_pid" 2>/dev/null; mgmt_pid=; }
# ternsh as daemon (in group nogroup for the admin socket), umask 027, in
# DIR: dsh DIR ARGS...
dsh() {
	local dir=$1
	shift
	(cd "$dir" && umask 027 && exec timeout 60 setpriv --reuid=daemon \
	    --regid=daemon --groups=nogroup env HOME="$home" \
	    TERN_RUNDIR="$TERN_RUNDIR" "$bin/ternsh" "$@") 2>&1
}

# a commit stored before commit history existed: no metadata line
printf 'system {\n    host-name seeded;\n}\n' >"$store/commit.1"
chown nobody:nogroup "$store/commit.1"
start_mgmt || exit 1
hasnt() { ! grep -q -- "$2" <<<"$1"; }

# ---- point 5: commit history ----
out=$(dsh "$home" -c configure -c "set system host-name h1" \
    -c 'commit comment "first change: host name"' -c exit); rc=$?
check "commit comment: accepted" test $rc = 0
out=$(dsh "$home" -c configure -c "set rib ecmp-width 4" \
    -c 'commit confirmed 5 comment "try ecmp 4"' -c commit -c exit); rc=$?
check "commit confirmed N comment: accepted" has "$out" "rolled back in 5 minutes"
out=$(dsh "$home" -c "show system commit")
echo "$out" | sed 's/^/    | /'
check "show system commit: newest, by the credentials' user via ternsh" \
    has "$out" "^0   20[0-9-]* [0-9:]* UTC by daemon via ternsh, +0 -0 lines$"
check "  ... the commit confirmed with its minutes and comment" \
    has "$out" "^1   20.* UTC by daemon via ternsh, commit confirmed 5 min, +3 -0 lines$"
check "  ... its comment on the next line" has "$out" "^    try ecmp 4$"
check "  ... the first comment" has "$out" "^    first change: host name$"
check "  ... the old commit without metadata: unknown" \
    has "$out" "^3   unknown time by unknown"
check "  ... the count" has "$out" "^4 commits kept (rollback 0..3)$"
check "  ... nobody else's name" hasnt "$out" "by \(root\|nobody\)"
out=$(dsh "$home" -c "show system commit | json")
check "show system commit | json: valid, every field" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
c = d["commits"]
assert d["count"] == 4 and len(c) == 4, d
assert c[1]["user"] == "daemon" and c[1]["uid"] == 1, c[1]
assert c[1]["via"] == "ternsh" and c[1]["comment"] == "try ecmp 4", c[1]
assert c[1]["confirm_minutes"] == 5 and c[1]["lines_added"] == 3, c[1]
assert c[1]["pid"] > 0 and c[1]["time"].endswith(" UTC"), c[1]
assert c[3]["known"] is False and c[3]["user"] == "unknown", c[3]
' <<<"$out"
out=$(dsh "$home" -c configure -c 'commit comment "a	tab"'); rc=$?
check "a comment with a control character: refused" has "$out" "control characters are not allowed"
out=$(dsh "$home" -c configure -c "commit comment"); rc=$?
check "commit comment without text: refused" has "$out" "expected the text"
check "  ... nothing committed" has "$(dsh "$home" -c 'show system commit')" "^4 commits kept"

# compare against the history
out=$(dsh "$home" -c configure -c "set rib ecmp-width 8" -c "show | compare rollback 3" -c "exit discard"); rc=$?
check "show | compare rollback N: works (was refused)" test $rc = 0
check "  ... candidate against rollback 3 (the seeded host name)" has "$out" "^-    host-name seeded;$"
check "  ... with the candidate's lines" has "$out" "^+        ecmp-width 8;$"
check "  ... no misleading refusal" hasnt "$out" "after '|'"
out=$(dsh "$home" -c configure -c "show | compare rollback 9")
check "show | compare rollback past the history: says what is kept" has "$out" "rollback 9: no such commit ([0-9]* stored: 0..[0-9]*)"
out=$(dsh "$home" -c "show configuration | compare rollback 2"); rc=$?
check "operational: show configuration | compare rollback N" has "$out" "^+        ecmp-width 4;$"
out=$(dsh "$home" -c "compare rollback 3 rollback 2"); rc=$?
check "compare rollback N rollback M: N's lines -, M's +" has "$out" "^-    host-name seeded;$"
check "  ... and M's" has "$out" "^+    host-name h1;$"
out=$(dsh "$home" -c configure -c "compare rollback 2" -c exit); rc=$?
check "compare rollback N in configuration mode too (against 0)" has "$out" "^+        ecmp-width 4;$"
out=$(dsh "$home" -c configure -c "rollback 3" -c 'commit comment "back to seeded"' -c exit); rc=$?
check "rollback N and commit" test $rc = 0
check "  ... running is rollback 3's" has "$(dsh "$home" -c 'show configuration')" "host-name seeded;"
hist=$(dsh "$home" -c "show system commit")
check "  ... recorded with its comment" has "$hist" "^    back to seeded$"

# the history survives mgmt
stop_mgmt
start_mgmt || exit 1
check "after a restart of mgmt the history is the same" test "$(dsh "$home" -c 'show system commit')" = "$hist"

# the terminal is the commit's "from" (a real pty, tmux)
if command -v tmux >/dev/null; then
	tmux -S "$sock" new-session -d -s t -x 150 -y 30 \
	    "env TERN_RUNDIR=$TERN_RUNDIR HOME=$tmp TERNSH_HISTORY=$tmp/hist $bin/ternsh"
	for l in configure "set system host-name on-a-tty" 'commit comment "from a tty"' exit; do
		tmux -S "$sock" send-keys -t t "$l" Enter
		sleep 0.3
	done
	tmux -S "$sock" send-keys -t t exit Enter
	sleep 0.3
	out=$("$bin/ternsh" -c "show system commit" 2>&1)
	check "a commit from a terminal says which" has "$out" "^0   20.* by root via ternsh (pts/[0-9]*), +1 -1 lines$"
	tmux -S "$sock" kill-server 2>/dev/null
else
	echo "skip the terminal check: no tmux"
fi

# kill -9 during commits with comments: every stored commit loads and
# lists
for i in 1 2 3 4 5; do
	dsh "$home" -c configure -c "set system host-name k$i" -c "commit comment \"kill $i\"" -c exit >/dev/null &
	sleep 0.0$((RANDOM % 9 + 1))
	kill -9 "$mgmt_pid" 2>/dev/null; wait "$mgmt_pid" 2>/dev/null; mgmt_pid=
	wait
	start_mgmt || { nok "mgmt restarts after kill -9 number $i"; break; }
done
out=$(dsh "$home" -c "show system commit"); rc=$?
check "after 5 kills during commits the history lists" test $rc = 0
check "  ... its lines all well formed" bash -c "! grep -v '^\(    .*\|[0-9]* *20[0-9-]* [0-9:]* UTC by .*\|[0-9]* *unknown time by unknown.*\|[0-9]* commits kept.*\)$'" <<<"$out"
n=$(echo "$out" | sed -n 's/^\([0-9]*\) commits kept.*/\1/p')
ok_all=1
for ((r = 0; r < n; r++)); do
	dsh "$home" -c configure -c "show | compare rollback $r" -c "exit discard" >/dev/null || ok_all=0
done
check "  ... and every one of the $n loads" test $ok_all = 1

# ---- point 9: save and load as the user, relative to its directory ----
running=$(dsh "$home" -c "show configuration")
out=$(dsh "$home" -c configure -c "save mycfg" -c exit); rc=$?
check "save mycfg (relative) in a directory only the user may enter" test $rc = 0
check "  ... says so" has "$out" "^wrote mycfg$"
check "  ... the file is there" test -f "$home/mycfg"
check "  ... and holds the candidate" test "$(cat "$home/mycfg")" = "$running"
check "  ... owned by the user, not nobody" test "$(stat -c %U:%G "$home/mycfg")" = daemon:daemon
check "  ... mode from the umask (027)" test "$(stat -c %a "$home/mycfg")" = 640
check "  ... no temp file left" test -z "$(ls "$home" | grep tmp)"
out=$(dsh "$home/sub" -c configure -c "save ../again.conf" -c "save ~/home.conf" -c "save x.conf" -c exit); rc=$?
check "save ../FILE, ~/FILE and FILE from a subdirectory" test $rc = 0
check "  ... relative to the shell's directory" test -f "$home/again.conf" -a -f "$home/sub/x.conf"
check "  ... ~ is \$HOME" test -f "$home/home.conf"
out=$(dsh "$home" -c configure -c "save $tmp/rootonly/x.conf"); rc=$?
check "save where the user may not write: refused" test $rc = 1
check "  ... permission denied, named" has "$out" "error: save $tmp/rootonly/x.conf: Permission denied"
check "  ... nothing written" test -z "$(ls "$tmp/rootonly")"
out=$(dsh "$home" -c configure -c "save sub"); rc=$?
check "save onto a directory: refused" has "$out" "error: save sub: is a directory"

# load merge / replace of the user's own (0600) file
sed 's/host-name .*;/host-name loaded;/' "$home/mycfg" >"$home/edit.conf"
chown daemon:daemon "$home/edit.conf"; chmod 0600 "$home/edit.conf"
out=$(dsh "$home" -c configure -c "load merge edit.conf" -c "show | compare" -c "exit discard"); rc=$?
check "load merge FILE (relative, 0600, the user's)" has "$out" "^load complete$"
check "  ... the candidate has it" has "$out" "^+    host-name loaded;$"
out=$(dsh "$home/sub" -c configure -c "load replace ~/edit.conf" -c commit -c exit); rc=$?
check "load replace ~/FILE and commit" test $rc = 0
check "  ... running has it" has "$(dsh "$home" -c 'show configuration')" "host-name loaded;"
before=$(dsh "$home" -c "show configuration")
out=$(dsh "$home" -c configure -c "load merge nofile"); rc=$?
check "load of a missing file: exit 1" test $rc = 1
check "  ... says so, naming it" has "$out" "^error: load merge nofile: No such file or directory$"
out=$(dsh "$home" -c configure -c "load merge $tmp/rootonly"); rc=$?
check "load of a directory: refused" has "$out" "is a directory"
install -m 0600 /dev/null "$tmp/rootonly/secret.conf"
out=$(dsh "$home" -c configure -c "load merge $tmp/rootonly/secret.conf"); rc=$?
check "load of a file the user may not read: permission denied" has "$out" "Permission denied"
cp "$bin/ternsh" "$home/binary"; chown daemon "$home/binary"
out=$(dsh "$home" -c configure -c "load merge binary"); rc=$?
check "load of a binary: refused" has "$out" "error: load merge binary: not a text file (a NUL byte at offset [0-9]*); nothing changed"
printf 'system {\n    host-name x;\n    mtu 5;\n}\n' >"$home/bad.conf"; chown daemon "$home/bad.conf"
out=$(dsh "$home" -c configure -c "load merge bad.conf"); rc=$?
check "load of a bad config: file:line:col" has "$out" "error: bad.conf:3:5: unknown word 'mtu'"
truncate -s 300M "$home/huge.conf"; chown daemon "$home/huge.conf"
out=$(dsh "$home" -c configure -c "load merge huge.conf"); rc=$?
check "load of a huge file: refused before reading" has "$out" "error: load merge huge.conf: 300.0 MiB, over the 256 MiB a load takes; nothing changed"
rm -f "$home/huge.conf"
out=$(dsh "$home" -c configure -c "show | compare" -c exit); rc=$?
check "after the failed loads the candidate is running" test $rc = 0 -a -z "$(grep '^[+-]' <<<"$out")"
check "  ... and running is unchanged" test "$(dsh "$home" -c 'show configuration')" = "$before"
out=$("$bin/ternsh" -c configure -c "load merge" 2>&1)
check "load without a file: mgmt's syntax error" has "$out" "load: expected 'merge FILE' or 'replace FILE'"

# a config over one part (4 MiB): 100k routes both ways
{
	echo "interfaces { eth0 { device veth0; address 198.18.0.1/24; } }"
	echo "protocols { static {"
	for ((i = 0; i < 100000; i++)); do
		echo "route $((11 + i / 65536)).$(((i / 256) % 256)).$((i % 256)).0/24 next-hop 198.18.0.$((2 + i % 200));"
	done
	echo "} }"
} >"$home/big.conf"
chown daemon "$home/big.conf"
out=$(dsh "$home" -c configure -c "load replace big.conf" -c "save big1.conf" -c "exit discard"); rc=$?
check "a 100k-route load and save (in parts)" test $rc = 0
check "  ... the saved file is over a part" test "$(stat -c %s "$home/big1.conf")" -gt $((4 << 20))
check "  ... with every route" test "$(grep -c '^ *route ' "$home/big1.conf")" = 100000
out=$(dsh "$home" -c configure -c "load replace big1.conf" -c "save big2.conf" -c "exit discard"); rc=$?
check "  ... which loads back and saves byte-identically" cmp -s "$home/big1.conf" "$home/big2.conf"

stop_mgmt
check_summary commit-history
