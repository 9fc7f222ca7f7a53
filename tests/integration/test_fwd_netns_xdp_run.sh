#!/usr/bin/env bash
# tests/integration/test_fwd_netns_xdp_run.sh: test_fwd_netns.sh again on
# fwd's AF_XDP backend sending with BPF_PROG_RUN (tern-fwd --xdp-tx=run; the
# hosts' eth0 take XDP frames).
FWD_BACKEND=af_xdp FWD_XDP_TX=run exec bash "$(dirname "$0")/test_fwd_netns.sh" "$@"
