# debian.mk: the Debian package (docs/packaging.md), included by the Makefile.
#   make deb        build/deb/tern_VERSION_ARCH.deb (dpkg-buildpackage -b
#                   in a copy of the tree under build/deb/src), then lintian
#   make check-deb  make deb, then install the package in a throwaway
#                   Debian 12 root and run the router there (tests/deb/)
# Both install what they need first (scripts/deps.sh --deb).
.PHONY: deb check-deb deps-deb deb-build

# What make install installs, for debian/rules' dh_auto_build (make all
# would also build the unit tests, benchmarks, fuzzers and test tools).
deb-build: $(ALL_BINS) $(GEN_ETC) $(MAN_PAGES)

deps-deb:
	@./scripts/deps.sh --deb

deb: deps-deb
	@./scripts/deb-build.sh build/deb

check-deb: deb
	@./tests/deb/check_deb.sh build/deb
