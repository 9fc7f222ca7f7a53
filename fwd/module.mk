# fwd/module.mk: tern-fwd's AF_XDP backend (fwd_port_xdp.c) links libxdp and
# libbpf (Debian libxdp-dev, libbpf-dev). Its programs for sending with
# BPF_PROG_RUN (--xdp-tx=auto|run; fwd/bpf/xdp_port.bpf.c) are built with
# clang -target bpf (BPF_RECIPE) and embedded (.incbin in fwd_port_xdp.c,
# which therefore depends on it, in every variant); without clang the object
# is empty: auto sends through the sockets' TX rings with the redirect
# program built at run time from a few instructions, run is refused.
FWD_LDLIBS += -lxdp -lbpf
# the host path (fwd_nl.c): rtnetlink with libmnl (Debian libmnl-dev)
FWD_LDLIBS += -lmnl
FWD_XDP_OBJ := build/obj/fwd/bpf/xdp_port.bpf.o
$(FWD_XDP_OBJ): fwd/bpf/xdp_port.bpf.c fwd/bpf/xdp_port.h $(BPF_STAMP)
	$(BPF_RECIPE)
build/obj/fwd/fwd_port_xdp.o build/san/obj/fwd/fwd_port_xdp.o \
build/fuzz/obj/fwd/fwd_port_xdp.o: $(FWD_XDP_OBJ)
build/obj/fwd/fwd_port_xdp.o build/san/obj/fwd/fwd_port_xdp.o \
build/fuzz/obj/fwd/fwd_port_xdp.o: \
	EXTRA_CFLAGS += -DFWD_XDP_OBJ='"$(FWD_XDP_OBJ)"'
