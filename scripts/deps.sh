#!/usr/bin/env bash
# Installs the Debian packages tern needs when any is missing; silent when all
# are present. Run by `make deps` (and so by check and run) for building and
# testing; `--bench` adds what only the benchmarks' peers need (make
# deps-bench, run by bench, bench-NAME and bench-compare). Other arguments
# are more package names.
# Usage: deps.sh [--bench] [PACKAGE...]
set -euo pipefail

PKGS=(
	build-essential pkg-config
	libnanomsg-dev libprotobuf-c-dev protobuf-c-compiler libev-dev
	libcmocka-dev libedit-dev libjson-c-dev libcap-ng-dev zlib1g-dev
	clang libclang-rt-14-dev clang-format
	libxdp-dev libbpf-dev libmnl-dev
	iproute2 iputils-ping traceroute ethtool procps psmisc tmux valgrind
	gnuplot-nox python3
)
# bench-fib's peers (DPDK rte_fib and rte_lpm, about 95 MB with what it pulls
# in); bench-fib builds without them (tests/bench/module.mk)
BENCH_PKGS=(libdpdk-dev)

for a in "$@"; do
	case $a in
	--bench) PKGS+=("${BENCH_PKGS[@]}") ;;
	-*)
		echo "usage: deps.sh [--bench] [PACKAGE...]" >&2
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
# apt-cache needs fresh lists on a new machine; one update is enough.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/tern-deps.$$ 2>&1; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
rm -f /tmp/tern-deps.$$
