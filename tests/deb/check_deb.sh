#!/usr/bin/env bash
# tests/deb/check_deb.sh: make check-deb (docs/packaging.md). The package
# make deb built, on a fresh Debian 12 root: debootstrap (minbase, with
# systemd and man-db) from the Debian archive into a temporary directory,
# the package's dependencies downloaded there, then the root booted with
# systemd-nspawn --boot (systemd is its PID 1, in a network namespace of
# this test's) and, inside it, without the network:
#   apt install ./tern_*.deb: the tern user and group, /var/lib/tern and its
#   store with their modes, the boot config in /etc/tern as a conffile, the
#   unit enabled and not started, man pages, docs, logrotate, completion;
#   systemctl start tern: every component up as the unit runs it, a config
#   given to tern-fwd's two veths, ping of the router and through it;
#   apt install --reinstall (an upgrade): the router restarted, forwarding;
#   a reboot: the router started by the enabled unit, forwarding again;
#   apt remove: the unit stopped and no tern process left; state kept;
#   apt purge: /var/lib/tern and /etc/tern gone, the user kept.
# Everything is removed afterwards, also on failure; every step is bounded.
# Usage: check_deb.sh DIR (where make deb left tern_*.deb)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
debdir=${1:?usage: check_deb.sh DIR}
mirror=${TERN_DEB_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
t0=$SECONDS

deb=$(ls -1 "$debdir"/tern_*.deb 2>/dev/null | tail -n 1)
if [[ -z $deb ]]; then
	echo "check-deb: no tern_*.deb in $debdir (make deb)" >&2
	exit 1
fi
if [[ $(id -u) != 0 ]]; then
	echo "check-deb: needs root (debootstrap, systemd-nspawn, namespaces)" >&2
	exit 1
fi
for t in debootstrap systemd-nspawn nsenter ip ping; do
	command -v "$t" >/dev/null || {
		echo "check-deb: $t missing (scripts/deps.sh --deb)" >&2
		exit 1
	}
done

# Names carry this shell's PID (copies can run side by side); namespaces
# tdb*, addresses from 198.19.202.0/24: client .0/25, server .128/25.
id=$$
machine=tdb-$id
ns_r=tdbr$id ns_c=tdbc$id ns_s=tdbs$id
rtr_c=198.19.202.1 client=198.19.202.2
rtr_s=198.19.202.129 server=198.19.202.130
work=$(mktemp -d /var/tmp/tern-check-deb.XXXXXX)
rootfs=$work/root
nspawn=
init=

step() { echo "--- $* ($((SECONDS - t0)) s)"; }

# the container's init, once nspawn has started it
container_init() {
	local p
	for p in $(pgrep -P "$nspawn" 2>/dev/null); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == systemd ]] && echo "$p" && return 0
	done
	return 1
}
# CMD... run in the booted container: its namespaces, root and cgroup
cx() {
	timeout --kill-after=5 "${CX_TIMEOUT:-120}" nsenter -t "$init" -a -r -w \
	    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
	    DEBIAN_FRONTEND=noninteractive TERM=dumb "$@"
}
cxq() { cx "$@" >/dev/null 2>&1; }
# pids of tern's binaries in the container (its pid namespace: other
# trees' terns are not ours; the exe links of its processes name the
# container's paths, /usr/sbin/tern-fwd, as the host sees no bind mount)
tern_pids() {
	local p e ns
	ns=$(readlink "/proc/$init/ns/pid") || return 0
	for p in /proc/[0-9]*; do
		[[ $(readlink "$p/ns/pid" 2>/dev/null) == "$ns" ]] || continue
		e=$(readlink "$p/exe" 2>/dev/null) || continue
		e=${e% (deleted)}
		[[ $e == /usr/sbin/tern-* || $e == /usr/bin/ternsh ]] && echo "${p#/proc/}"
	done
}
no_tern_process() { [[ -z $(tern_pids) ]]; }
man_has() { cx man -P cat "$1" 2>/dev/null | grep -q -- "$2"; } # PAGE REGEX
pingq() { local ns=$1; shift; ip netns exec "$ns" ping -q "$@" >/dev/null 2>&1; }
unit_is() { [[ $(cx systemctl is-active tern 2>&1) == "$1" ]]; }

# Powers the container off: 0 when it shut down by itself within 30 s.
poweroff() {
	local i rc=0
	[[ -n $nspawn ]] && kill -0 "$nspawn" 2>/dev/null || return 0
	# SIGTERM: nspawn asks the container's systemd to power off
	kill -TERM "$nspawn" 2>/dev/null
	for ((i = 0; i < 150; i++)); do
		kill -0 "$nspawn" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$nspawn" 2>/dev/null; then
		# the pid namespace ends with its init
		[[ -n $init ]] && kill -KILL "$init" 2>/dev/null
		kill -KILL "$nspawn" 2>/dev/null
		rc=1
	fi
	wait "$nspawn" 2>/dev/null
	nspawn= init=
	return $rc
}

cleanup() {
	poweroff
	ip netns del "$ns_c" 2>/dev/null
	ip netns del "$ns_s" 2>/dev/null
	ip netns del "$ns_r" 2>/dev/null
	# nspawn mounts only in its own namespace, debootstrap ran in one of
	# its own: nothing is mounted under the root; if anything is, it is
	# left with the files rather than removed through
	if findmnt -rn -o TARGET | grep -q "^$work"; then
		echo "check-deb: mounts left under $work: not removed" >&2
	else
		rm -rf --one-file-system "$work"
	fi
	rmdir "/run/systemd/nspawn/propagate/$machine" 2>/dev/null
	return 0
}
trap cleanup EXIT
trap 'exit 3' INT TERM

# ---- a fresh Debian 12 root -------------------------------------------------
# debootstrap keeps the .debs it fetched in build/deb/debootstrap-cache
# (TERN_DEB_CACHE): a second run downloads only what changed in the archive,
# and still unpacks and configures a whole new root
cache=${TERN_DEB_CACHE:-$root/build/deb/debootstrap-cache}
mkdir -p "$cache"
step "debootstrap $suite (minbase, systemd, man-db) from $mirror"
if ! timeout --kill-after=10 600 unshare -m --propagation private \
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,man-db \
    --cache-dir="$cache" \
    "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
	tail -n 20 "$work/debootstrap.log"
	nok "debootstrap $suite"
	check_summary check-deb
	exit 1
fi
ok "debootstrap $suite"
check "a fresh root: no tern user" bash -c "! grep -q '^tern:' '$rootfs/etc/passwd'"
check "a fresh root: no tern group" bash -c "! grep -q '^tern:' '$rootfs/etc/group'"

cp "$deb" "$rootfs/root/"
pkg=/root/${deb##*/}
# The dependencies from the archive now, with the host's network; the
# booted container has none (its namespace holds only the test's veths).
step "apt-get install --download-only $pkg (the dependencies)"
if ! timeout --kill-after=10 300 systemd-nspawn -q -D "$rootfs" --register=no \
    --keep-unit -M "$machine" --resolv-conf=copy-host -E DEBIAN_FRONTEND=noninteractive \
    -- apt-get install -y -q --download-only "$pkg" >"$work/download.log" 2>&1; then
	tail -n 20 "$work/download.log"
	nok "the dependencies downloaded"
	check_summary check-deb
	exit 1
fi
ok "the dependencies downloaded"

# ---- the network: client -- router (the container) -- server ---------------
if ! { ip netns add "$ns_r" && ip netns add "$ns_c" && ip netns add "$ns_s"; }; then
	nok "namespaces"
	check_summary check-deb
	exit 1
fi
ip -n "$ns_r" link add rc0 type veth peer name eth0 netns "$ns_c"
ip -n "$ns_r" link add rs0 type veth peer name eth0 netns "$ns_s"
ip netns exec "$ns_r" sysctl -qw net.ipv4.ip_forward=0
ip netns exec "$ns_r" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
for l in lo rc0 rs0; do ip -n "$ns_r" link set "$l" up; done
for ns in "$ns_c" "$ns_s"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	# frames with real checksums (tern-fwd forwards what it gets)
	ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
done
ip -n "$ns_c" addr add "$client/25" dev eth0
ip -n "$ns_c" route add default via "$rtr_c"
ip -n "$ns_s" addr add "$server/25" dev eth0
ip -n "$ns_s" route add default via "$rtr_s"

# ---- boot ---------------------------------------------------------------------
# systemd as the container's PID 1 in the router namespace; all
# capabilities, as a host's root has (tern-fwd's bpf, perfmon, ipc_lock).
booted() {
	state=$(CX_TIMEOUT=10 cx systemctl is-system-running --wait 2>/dev/null)
	has "$state" '^\(running\|degraded\)$'
}
# Boots the root (again); ends the test when it does not come up.
boot() {
	systemd-nspawn -q -b -D "$rootfs" --register=no --keep-unit -M "$machine" \
	    --network-namespace-path="/run/netns/$ns_r" --capability=all \
	    --console=read-only </dev/null >>"$work/boot.log" 2>&1 &
	nspawn=$!
	wait_until 30 container_init >/dev/null && init=$(container_init)
	if [[ -z $init ]]; then
		tail -n 20 "$work/boot.log"
		nok "the container boots"
		check_summary check-deb
		exit 1
	fi
	state=
	check "the container boots" wait_until 60 booted
	echo "     systemd: $state"
	check "systemd is its PID 1" has "$(cx cat /proc/1/comm)" '^systemd$'
}
step "systemd-nspawn --boot"
boot

# ---- apt install ------------------------------------------------------------------
# (apt-get's --no-download refuses a .deb file: the container has no
# network anyway, so what is not in apt's cache cannot be had)
step "apt install $pkg (no network)"
out=$(CX_TIMEOUT=300 cx apt-get install -y -q "$pkg" 2>&1)
check "apt install ./${deb##*/}" cxq dpkg-query -W tern
[[ $(cx dpkg-query -W -f='${Status}' tern 2>/dev/null) == "install ok installed" ]] ||
    tail -n 30 <<<"$out"
pw=$(cx getent passwd tern)
check "user tern made (system uid, no shell): $pw" \
    has "$pw" '^tern:x:[1-9][0-9]\{0,2\}:[0-9]*:.*:/usr/sbin/nologin$'
check "group tern made" cxq getent group tern
check "/var/lib/tern 0750 root:tern" \
    has "$(cx stat -c '%a %U:%G' /var/lib/tern)" '^750 root:tern$'
check "/var/lib/tern/config (mgmt's store) 0750 tern:tern" \
    has "$(cx stat -c '%a %U:%G' /var/lib/tern/config)" '^750 tern:tern$'
check "/run/tern 0750 tern:tern (for the unit's ReadWritePaths=)" \
    has "$(cx stat -c '%a %U:%G' /run/tern)" '^750 tern:tern$'
conffiles=$(cx dpkg-query -W -f='${Conffiles}' tern)
check "/etc/tern/tern-rtrmgr.conf is a conffile" has "$conffiles" '/etc/tern/tern-rtrmgr.conf '
# the boot config names the installed binaries (PREFIX=/usr)
bins=$(cx sed -n 's/^[[:space:]]*binary[[:space:]]\+\([^;]*\);.*/\1/p' /etc/tern/tern-rtrmgr.conf)
check "the boot config's binaries are installed: ${bins//$'\n'/ }" \
    bash -c '[[ -n $1 ]] && for b in $1; do test -x "$2$b" || exit 1; done' _ "$bins" "$rootfs"
check "the unit is enabled (multi-user.target.wants)" \
    test -L "$rootfs/etc/systemd/system/multi-user.target.wants/tern.service"
check "systemctl is-enabled tern: enabled" has "$(cx systemctl is-enabled tern 2>&1)" '^enabled$'
check "the unit is loaded" has "$(cx systemctl show -P LoadState tern 2>&1)" '^loaded$'
check "not started by the install: inactive" has "$(cx systemctl is-active tern 2>&1)" '^inactive$'
check "... and no tern process" no_tern_process
check "man tern.conf" man_has tern.conf 'tern-rtrmgr\|interfaces'
check "man ternsh" man_has ternsh 'ternsh'
check "man tern-fwd" man_has tern-fwd 'tern-fwd'

check "docs in /usr/share/doc/tern" test -f "$rootfs/usr/share/doc/tern/copyright" -a \
    -e "$rootfs/usr/share/doc/tern/README.md"
check "/etc/logrotate.d/tern" test -f "$rootfs/etc/logrotate.d/tern"
check "bash completion of ternsh" test -f "$rootfs/usr/share/bash-completion/completions/ternsh"

# ---- systemctl start tern ------------------------------------------------------------
step "systemctl start tern"
# udev makes /dev/net/tun 0666 on a Debian machine (50-udev-default.rules);
# no udev runs in a container, and nspawn's node is 0600: as udev would, so
# that tern-fwd (user tern) can open its host path's TAPs
cx chmod 0666 /dev/net/tun
check "systemctl start tern" cxq systemctl start tern
check "active" wait_until 20 unit_is active
if ! unit_is active; then
	cx systemctl status --no-pager tern 2>&1 | sed 's/^/     /'
	cx journalctl --no-pager -u tern -n 40 2>&1 | sed 's/^/     /'
fi
running() { [[ $(cx ternsh -c "show processes" 2>/dev/null | awk '$3 == "running"' | wc -l) -ge 4 ]]; }
check "mgmt, rib, fwd and bgp running" wait_until 30 running
procs=$(cx ternsh -c "show processes" 2>&1)
echo "$procs" | sed 's/^/     /'
main=$(cx systemctl show -P MainPID tern)
check "the unit's main process is tern-rtrmgr" has "$(cx cat "/proc/$main/comm" 2>&1)" '^tern-rtrmgr$'
check "5 tern processes seen in the container" test "$(tern_pids | wc -l)" = 5
fwdpid=$(awk '$1 == "fwd" { print $2 }' <<<"$procs")
check "tern-fwd runs as tern" has "$(cx stat -c %U "/proc/${fwdpid:-0}" 2>&1)" '^tern$'

cat >"$rootfs/root/router.conf" <<CONF
/* check-deb: two subnets routed by tern */
system { host-name tern-deb; }
interfaces {
	client { device rc0; address $rtr_c/25; }
	server { device rs0; address $rtr_s/25; }
}
CONF
out=$(cx ternsh -c configure -c "load merge /root/router.conf" -c commit 2>&1)
shows_rc0() { cx ternsh -c 'show interfaces' 2>/dev/null | grep -q rc0; }
check "load and commit the router's config" shows_rc0
grep -qi error <<<"$out" && echo "$out" | sed 's/^/     /'
up() { [[ $(cx ternsh -c "show interfaces" 2>/dev/null | grep -c -w up) -ge 2 ]]; }
check "both interfaces up" wait_until 20 up
cx ternsh -c "show interfaces" 2>&1 | sed 's/^/     /'
hostpath() { cx ternsh -c 'show interfaces' 2>/dev/null | grep -q 'host interface h-rc0'; }
check "the host path's TAP h-rc0 (tern-fwd opened /dev/net/tun)" wait_until 10 hostpath
check "ping the router ($rtr_c) from the client" wait_until 20 \
    pingq "$ns_c" -c 1 -W 1 "$rtr_c"
check "ping the server ($server) through tern" wait_until 20 \
    pingq "$ns_c" -c 1 -W 1 "$server"
check "5 more through it, none lost" pingq "$ns_c" -c 5 -i 0.2 -W 1 "$server"
check "the config is in mgmt's store" test -n "$(ls -A "$rootfs/var/lib/tern/config")"

# ---- an upgrade (the same package again): restarted, not left stopped -----
step "apt install --reinstall $pkg (as an upgrade)"
check "apt install --reinstall" cxq apt-get install -y -q --reinstall "$pkg"
main2=$(cx systemctl show -P MainPID tern)
check "running again after it (try-restart)" unit_is active
check "... a new tern-rtrmgr ($main -> $main2)" test "${main2:-0}" != 0 -a "$main2" != "$main"
check "mgmt, rib, fwd and bgp running again" wait_until 30 running
check "forwarding again, the config kept" wait_until 20 pingq "$ns_c" -c 1 -W 1 "$server"

# ---- a reboot: the enabled unit starts the router, with its stored config -
step "reboot"
check "the container powers off (the router stopped in time)" poweroff
boot
check "tern started at boot (enabled)" wait_until 30 unit_is active
check "mgmt, rib, fwd and bgp running after the boot" wait_until 30 running
check "forwarding after the boot (the stored config)" wait_until 20 \
    pingq "$ns_c" -c 1 -W 1 "$server"

# ---- apt remove, apt purge ---------------------------------------------------------------
step "apt remove tern"
check "apt remove tern" cxq apt-get remove -y -q tern
check "no tern process left" no_tern_process
tern_pids | while read -r p; do echo "     left: $p $(tr '\0' ' ' <"/proc/$p/cmdline")"; done
check "the unit is stopped (inactive)" unit_is inactive
check "removed: the binaries" test ! -e "$rootfs/usr/sbin/tern-rtrmgr"
check "kept: /etc/tern/tern-rtrmgr.conf" test -f "$rootfs/etc/tern/tern-rtrmgr.conf"
check "kept: the store" test -n "$(ls -A "$rootfs/var/lib/tern/config" 2>/dev/null)"

step "apt purge tern"
check "apt purge tern" cxq apt-get purge -y -q tern
check "purged: /var/lib/tern" test ! -e "$rootfs/var/lib/tern"
check "purged: /etc/tern" test ! -e "$rootfs/etc/tern"
check "purged: /run/tern" cxq test ! -e /run/tern
check "purged: the unit's enablement" \
    test ! -e "$rootfs/etc/systemd/system/multi-user.target.wants/tern.service"
check "dpkg knows tern no more" bash -c '! grep -q "^Package: tern$" "$1/var/lib/dpkg/status"' _ "$rootfs"
check "the tern user is kept (Debian: system users stay)" cxq getent passwd tern

step "done"
check_summary check-deb
