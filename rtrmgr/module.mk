# rtrmgr/module.mk: tern-rtrmgr and its unit tests drop privileges with libcap-ng (Debian libcap-ng-dev).
RTRMGR_LDLIBS := -lcap-ng
# test_config parses the shipped boot config, made from etc/tern-rtrmgr.conf.in
build/tests/unit/rtrmgr/test_config build/san/tests/unit/rtrmgr/test_config: \
	build/etc/tern-rtrmgr.conf
