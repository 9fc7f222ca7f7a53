# fwd/module.mk: tern-fwd's AF_XDP backend (fwd_port_xdp.c) links libxdp and
# libbpf (Debian libxdp-dev, libbpf-dev); its redirect program is built at run
# time from a few instructions, so no clang -target bpf step is needed.
FWD_LDLIBS += -lxdp -lbpf
