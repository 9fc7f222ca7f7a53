# tests/bench/module.mk: per-benchmark flags (bench_<name>_CFLAGS/_LDLIBS).
# bench-fib runs DPDK's rte_fib and rte_lpm in the same process as fwd's FIB.
bench_fib_CFLAGS := $(shell pkg-config --cflags libdpdk 2>/dev/null)
bench_fib_LDLIBS := $(shell pkg-config --libs libdpdk 2>/dev/null)
# bench-forward: tern-fwd against the kernel on veth in namespaces (shell
# steps in tests/bench/lib_forward.sh). Its XDP traffic generator
# (tests/bench/forward_gen.bpf.c) and its hosts' tc sink
# (tests/bench/forward_sink.bpf.c; not bench_*.c, so no bench of their own)
# are BPF objects built with clang -target bpf and embedded in the binary
# (.incbin in bench_forward.c, which therefore depends on them); the bench
# loads them with libbpf. Without clang the objects are empty and the bench
# falls back to its AF_PACKET generator and rings, saying so.
BF_BPF_OBJS := build/obj/tests/bench/forward_gen.bpf.o \
	build/obj/tests/bench/forward_sink.bpf.o
bench_forward_CFLAGS := \
	-DBF_GEN_OBJ='"build/obj/tests/bench/forward_gen.bpf.o"' \
	-DBF_SINK_OBJ='"build/obj/tests/bench/forward_sink.bpf.o"'
bench_forward_LDLIBS := -lbpf
# -mcpu=v3 (BPF_RECIPE): the sink's atomic fetch-or needs BPF_FETCH
$(BF_BPF_OBJS): build/obj/tests/bench/%.bpf.o: tests/bench/%.bpf.c
	$(BPF_RECIPE)
build/obj/tests/bench/bench_forward.o: $(BF_BPF_OBJS)
