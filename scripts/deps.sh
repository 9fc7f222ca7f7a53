#!/usr/bin/env bash
# Installs the Debian packages tern needs when any is missing; silent when all
# are present. Run by `make deps` (and so by check and run) for building and
# testing; `--bench` adds what only the benchmarks' peers need (make
# deps-bench, run by bench, bench-NAME and bench-compare); `--deb` what only
# make deb and make check-deb need (docs/packaging.md). Other arguments
# are more package names.
# Usage: deps.sh [--bench] [--deb] [PACKAGE...]
set -euo pipefail

PKGS=(
	build-essential pkg-config
	libnanomsg-dev libprotobuf-c-dev protobuf-c-compiler libev-dev
	libcmocka-dev libedit-dev libjson-c-dev libcap-ng-dev zlib1g-dev
	clang libclang-rt-14-dev clang-format
	libxdp-dev libbpf-dev libmnl-dev libmicrohttpd-dev libsystemd-dev
	iproute2 iputils-ping traceroute ethtool procps psmisc tmux valgrind
	gnuplot-nox python3
	iperf3 bird2 frr prometheus
	groff-base man-db logrotate
)
# Packages whose maintainer scripts enable and start a system service that
# tern's tests never want (the tests start their own copies, in namespaces,
# with their own config, socket and pid files): bird2 enables and starts
# bird.service, which would run BIRD with /etc/bird/bird.conf in the root
# namespace for good; frr enables and starts frr.service (watchfrr with
# zebra and the daemons /etc/frr/daemons lists), bench-bgp's peer;
# prometheus enables prometheus.service (test_metrics.sh runs its own, on
# its own port and data directory, to scrape tern-mgmt's endpoint).
# PACKAGE:UNIT, disabled after that package's install (iperf3 asks through
# debconf whether to run a daemon, and the noninteractive answer is its
# default, no).
NO_SERVICES=(bird2:bird.service frr:frr.service prometheus:prometheus.service)
# bench-fib's peers (DPDK rte_fib and rte_lpm, about 95 MB with what it pulls
# in); bench-fib builds without them (tests/bench/module.mk)
BENCH_PKGS=(libdpdk-dev)
# make deb: dpkg-buildpackage and debhelper, lintian; make check-deb:
# debootstrap for its Debian 12 root, systemd-nspawn to boot it
DEB_PKGS=(debhelper dpkg-dev fakeroot lintian debootstrap systemd-container)

for a in "$@"; do
	case $a in
	--bench) PKGS+=("${BENCH_PKGS[@]}") ;;
	--deb) PKGS+=("${DEB_PKGS[@]}") ;;
	-*)
		echo "usage: deps.sh [--bench] [--deb] [PACKAGE...]" >&2
		exit 2
		;;
	*) PKGS+=("$a") ;;
	esac
done

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $st == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "deps: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing packages and not root; run as root or install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# No service starts during the install: invoke-rc.d and deb-systemd-invoke
# ask /usr/sbin/policy-rc.d, and 101 means "not allowed". Ours is put there
# only when there is none (a container image may have its own) and removed
# afterwards, also when the install fails.
policy=/usr/sbin/policy-rc.d
own_policy=
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\n# tern scripts/deps.sh: no service starts during its install\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	own_policy=1
fi
trap '[[ -n $own_policy ]] && rm -f "$policy"; rm -f /tmp/tern-deps.$$' EXIT
# apt-cache needs fresh lists on a new machine; one update is enough.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/tern-deps.$$ 2>&1; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# policy-rc.d kept them from starting, not from being enabled (the next boot
# would start them): disabled, and stopped in case something did start one.
# Without systemd running, `systemctl disable` still removes the unit's
# links; an error there is not fatal (no such unit, no systemctl).
if command -v systemctl >/dev/null 2>&1; then
	for pu in "${NO_SERVICES[@]}"; do
		[[ " ${missing[*]} " == *" ${pu%%:*} "* ]] || continue
		u=${pu#*:}
		if [[ -d /run/systemd/system ]]; then
			systemctl disable --now "$u" >/dev/null 2>&1 || true
		else
			systemctl disable "$u" >/dev/null 2>&1 || true
		fi
	done
fi
