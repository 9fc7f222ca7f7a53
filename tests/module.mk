# tests/module.mk: what the test tree adds to the build. Unit tests
# (tests/unit/<mod>/test_*.c), fuzzers (tests/fuzz/fuzz_*.c), benchmarks
# (tests/bench/bench_*.c, flags in tests/bench/module.mk), test tools
# (tests/integration/*.c) and tests/lib/*.c (libtern-terntest.a) are found by
# the top-level Makefile's conventions. Unit tests link cmocka.
TERNTEST_LDLIBS :=
# bench-ipc runs raw nanomsg as one of its peers
bench_ipc_LDLIBS := -lnanomsg
# the bgp message layer's tests count allocations (no malloc per message)
test_bgp_attr_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
test_bgp_msg_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
test_bgp_rib_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
test_bgp_rib6_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
# the policy test counts them too (no malloc per evaluation)
test_bgp_bgp_policy_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc
