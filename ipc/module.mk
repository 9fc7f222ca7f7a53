# ipc/module.mk: libtern-ipc link needs and per-test flags.
# (the library itself: ipc/*.c + generated ipc/proto/*.pb-c.c, by convention)
IPC_LDLIBS := -lprotobuf-c -lev
# the steady-state allocation test counts malloc/calloc/realloc of our code
test_ipc_alloc_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
# the limits test counts accept4 calls and makes them fail
test_ipc_limits_LDFLAGS := -Wl,--wrap=accept4
