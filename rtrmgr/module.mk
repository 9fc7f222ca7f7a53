# rtrmgr/module.mk: tern-rtrmgr and its unit tests drop privileges with libcap-ng (Debian libcap-ng-dev).
RTRMGR_LDLIBS := -lcap-ng
# tern-rtrmgr under systemd (Type=notify: READY, STATUS, RELOADING,
# STOPPING, WATCHDOG; rtm_notify.c) with libsystemd (Debian libsystemd-dev).
RTRMGR_LDLIBS += $(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)
