#!/usr/bin/env bash
# `make run` / `make stop`. Until tern-rtrmgr can start the router (issue 7),
# this builds and says plainly which parts exist; it starts nothing.
set -u
cmd=${1:-start}
case $cmd in
start)
	echo "tern ${TERN_VERSION:-0.1.0}: built in build/bin:"
	for b in tern-rtrmgr tern-mgmt tern-rib tern-fwd ternsh; do
		if [[ -x build/bin/$b ]]; then
			status=$(build/bin/$b --help | sed -n 's/^status: //p')
			printf '  %-12s %s\n' "$b" "${status:-ready}"
		else
			printf '  %-12s not built\n' "$b"
		fi
	done
	echo
	echo "The demo topology (two host namespaces routed through tern) needs"
	echo "tern-rtrmgr, which is not implemented yet, so nothing was started."
	echo "What exists and is tested: 'make check'. Design: docs/architecture.md."
	;;
stop)
	echo "nothing to stop: make run starts nothing yet"
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
