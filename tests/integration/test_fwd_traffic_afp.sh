#!/usr/bin/env bash
# tests/integration/test_fwd_traffic_afp.sh: test_fwd_traffic.sh again with
# the router's ports on fwd's AF_PACKET (TPACKET_V2) backend.
FWD_BACKEND=af_packet exec bash "$(dirname "$0")/test_fwd_traffic.sh" "$@"
