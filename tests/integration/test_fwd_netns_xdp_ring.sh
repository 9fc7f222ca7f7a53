#!/usr/bin/env bash
# tests/integration/test_fwd_netns_xdp_ring.sh: test_fwd_netns.sh again on
# fwd's AF_XDP backend sending through the sockets' TX rings only (tern-fwd
# --xdp-tx=ring).
FWD_BACKEND=af_xdp FWD_XDP_TX=ring exec bash "$(dirname "$0")/test_fwd_netns.sh" "$@"
