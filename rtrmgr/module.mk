# rtrmgr/module.mk: tern-rtrmgr and its unit tests drop privileges with libcap-ng (Debian libcap-ng-dev).
RTRMGR_LDLIBS := -lcap-ng
