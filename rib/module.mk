# rib/module.mk: tern-rib needs nothing beyond libtern-ipc and libtern-common
# (rib/*.c but main.c -> libtern-rib.a, by convention; docs/DEVELOPING.md).
RIB_LDLIBS :=
