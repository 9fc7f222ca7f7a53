# libcommon/module.mk: libtern-common (every libcommon/*.c) needs libev and pthreads at link time.
LIBCOMMON_LDLIBS := -lev -lpthread
# The Makefile looks up <LIB>_LDLIBS by the library's short name ("common").
COMMON_LDLIBS := $(LIBCOMMON_LDLIBS)
