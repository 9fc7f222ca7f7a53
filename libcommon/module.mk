# libcommon/module.mk: libtern-common (every libcommon/*.c) needs libev and pthreads at link time.
LIBCOMMON_LDLIBS := -lev -lpthread
