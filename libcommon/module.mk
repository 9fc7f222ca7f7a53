# libcommon/module.mk: libtern-common (every libcommon/*.c) needs libev and pthreads at link time,
# and libsystemd (Debian libsystemd-dev) for lc_log's native journal lines (sd_journal_send).
LIBCOMMON_LDLIBS := -lev -lpthread -lsystemd
# The Makefile looks up <LIB>_LDLIBS by the library's short name ("common").
COMMON_LDLIBS := $(LIBCOMMON_LDLIBS)
