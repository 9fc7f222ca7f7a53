# tests/bench/module.mk: per-benchmark flags (bench_<name>_CFLAGS/_LDLIBS).
# bench-fib runs DPDK's rte_fib and rte_lpm in the same process as fwd's FIB.
bench_fib_CFLAGS := $(shell pkg-config --cflags libdpdk 2>/dev/null)
bench_fib_LDLIBS := $(shell pkg-config --libs libdpdk 2>/dev/null)
# bench-forward: tern-fwd against the kernel on veth in namespaces (no extra
# libraries; shell steps in tests/bench/lib_forward.sh).
bench_forward_CFLAGS :=
