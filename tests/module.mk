# tests/module.mk: what the test tree adds to the build. Unit tests
# (tests/unit/<mod>/test_*.c), fuzzers (tests/fuzz/fuzz_*.c), benchmarks
# (tests/bench/bench_*.c, flags in tests/bench/module.mk), test tools
# (tests/integration/*.c) and tests/lib/*.c (libtern-terntest.a) are found by
# the top-level Makefile's conventions. Unit tests link cmocka.
TERNTEST_LDLIBS :=
# bench-ipc runs raw nanomsg as one of its peers
bench_ipc_LDLIBS := -lnanomsg
