# tests/bench/module.mk: per-benchmark flags (bench_<name>_CFLAGS/_LDLIBS).
# bench-fib runs DPDK's rte_fib and rte_lpm in the same process as fwd's FIB
# when pkg-config finds libdpdk at make time (BF_DPDK); without it, or with
# make DPDK=no, it reports ours alone. DPDK=yes insists. libdpdk-dev is
# installed by the benchmark targets only (deps-bench), not by all or check.
DPDK ?= auto
PKG_CONFIG ?= pkg-config
ifeq ($(DPDK),no)
HAVE_DPDK := no
else
HAVE_DPDK := $(shell $(PKG_CONFIG) --exists libdpdk 2>/dev/null && echo yes || echo no)
endif
ifeq ($(DPDK)$(HAVE_DPDK),yesno)
$(error DPDK=yes but $(PKG_CONFIG) finds no libdpdk (make deps-bench installs libdpdk-dev))
endif
ifeq ($(HAVE_DPDK),yes)
bench_fib_CFLAGS := -DBF_DPDK $(shell $(PKG_CONFIG) --cflags libdpdk 2>/dev/null)
bench_fib_LDLIBS := $(shell $(PKG_CONFIG) --libs libdpdk 2>/dev/null)
endif
# The object is rebuilt when the choice changes (the flags stamp of the
# Makefile covers the common flags only).
BF_DPDK_STAMP := build/.bench-fib-dpdk
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p build; echo '$(HAVE_DPDK)' | cmp -s - $(BF_DPDK_STAMP) || \
	echo '$(HAVE_DPDK)' > $(BF_DPDK_STAMP))
endif
build/obj/tests/bench/bench_fib.o: $(BF_DPDK_STAMP)
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
$(BF_BPF_OBJS): build/obj/tests/bench/%.bpf.o: tests/bench/%.bpf.c $(BPF_STAMP)
	$(BPF_RECIPE)
build/obj/tests/bench/bench_forward.o: $(BF_BPF_OBJS)
# bench-hostpath: tern-fwd's host path against the kernel (shell steps in
# tests/bench/lib_hostpath.sh); its server-side sink is a two-instruction
# tc program loaded with libbpf.
bench_hostpath_LDLIBS := -lbpf
# bench-bgp's BGP speaker (tests/bench/bgp_feeder.c, not bench_*.c: a tool
# the bench runs in a namespace, next to its own binary). The libraries are
# named here because this file is read before the Makefile's helpers are
# defined; bench-bgp needs it built (order only: no relink when it changes).
BGP_FEEDER_LIBS := build/lib/libtern-terntest.a build/lib/libtern-bgp.a \
	build/lib/libtern-ipc.a build/lib/libtern-common.a
build/bin/bgp-feeder: build/obj/tests/bench/bgp_feeder.o $(BGP_FEEDER_LIBS)
	@mkdir -p $(@D)
	$(E) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -Wl,--start-group $(BGP_FEEDER_LIBS) -Wl,--end-group $(call ldlibs_of,bgp ipc common) $(BASE_LDLIBS)
all: build/bin/bgp-feeder
build/bin/bench-bgp: | build/bin/bgp-feeder
