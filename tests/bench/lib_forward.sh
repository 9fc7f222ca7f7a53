#!/usr/bin/env bash
# tests/bench/lib_forward.sh: shell steps of bench-forward on the topology of
# tests/lib/netns.sh (made by lib_router.sh topo SUFFIX).
#
#   lib_forward.sh kernel on|off SUFFIX   the router namespace's kernel
#                                         forwards (peer) or not (tern-fwd)
# Exit 0 on success.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/netns.sh"

case ${1:-} in
kernel)
	[[ $# -eq 3 ]] || { echo "usage: $0 kernel on|off SUFFIX" >&2; exit 2; }
	netns_init "$3"
	netns_router_kernel "$2"
	;;
*)
	echo "usage: $0 kernel on|off SUFFIX" >&2
	exit 2
	;;
esac
