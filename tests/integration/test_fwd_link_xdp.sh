#!/usr/bin/env bash
# tests/integration/test_fwd_link_xdp.sh: test_fwd_link.sh with the router's
# interfaces on fwd's AF_XDP backend (port-backend af_xdp).
FWD_BACKEND=af_xdp exec bash "$(dirname "$0")/test_fwd_link.sh" "$@"
