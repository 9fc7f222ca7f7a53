#!/usr/bin/env bash
# tests/integration/test_hostpath_xdp.sh: test_hostpath.sh again with the
# router's ports on fwd's AF_XDP backend (port-backend af_xdp).
FWD_BACKEND=af_xdp exec bash "$(dirname "$0")/test_hostpath.sh" "$@"
