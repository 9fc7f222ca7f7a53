# rtrmgr/module.mk: tern-rtrmgr and its unit tests drop privileges with libcap-ng (Debian libcap-ng-dev).
RTRMGR_LDLIBS := -lcap-ng
# tern-rtrmgr under systemd (Type=notify: READY, STATUS, RELOADING,
# STOPPING, WATCHDOG; rtm_notify.c) with libsystemd (Debian libsystemd-dev).
RTRMGR_LDLIBS += $(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)
# test_config parses the shipped boot config, made from etc/tern-rtrmgr.conf.in
build/tests/unit/rtrmgr/test_config build/san/tests/unit/rtrmgr/test_config: \
	build/etc/tern-rtrmgr.conf
