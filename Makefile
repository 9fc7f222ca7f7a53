# tern: one non-recursive Makefile. Conventions (what is built from which
# files) are in docs/DEVELOPING.md; each top-level directory may add a
# module.mk with extra flags. Outputs go to build/.

.DEFAULT_GOAL := all
SHELL := /bin/bash

# ---- flags -----------------------------------------------------------------
# Our flags come first and the user's CFLAGS are appended, so CFLAGS=-g never
# drops -O2 (an early NFD benchmark was void because it did).
CC       ?= cc
CLANG    ?= clang
BASE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation \
	-fno-strict-aliasing -D_GNU_SOURCE -I. -Ibuild/gen
TERN_CFLAGS := -O2 -g $(BASE_CFLAGS)
ALL_CFLAGS   = $(TERN_CFLAGS) $(CFLAGS)
SAN_CFLAGS   = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all $(BASE_CFLAGS) $(CFLAGS)
SAN_LDFLAGS  = -fsanitize=address,undefined
FUZZ_CFLAGS  = -O1 -g -fno-omit-frame-pointer -Wno-unknown-warning-option \
	-fsanitize=fuzzer-no-link,address,undefined $(BASE_CFLAGS) -DTERN_FUZZ
FUZZ_LDFLAGS = -fsanitize=fuzzer,address,undefined
BASE_LDLIBS := -lpthread -lm
PROTOC_C    ?= protoc-c

# ---- installation directories ---------------------------------------------------
# GNU's names in upper case (docs/install.md): make install PREFIX=/usr
# SYSCONFDIR=/etc DESTDIR=debian/tern. The binaries' compiled-in paths
# (build/gen/tern_paths.h), the unit and the boot config (build/etc/) and the
# manual pages (build/man/) are made from these, so give the same ones to the
# build and to the install (a change rebuilds what holds a path).
PREFIX         ?= /usr/local
DESTDIR        ?=
EXEC_PREFIX    ?= $(PREFIX)
SBINDIR        ?= $(EXEC_PREFIX)/sbin
BINDIR         ?= $(EXEC_PREFIX)/bin
DATADIR        ?= $(PREFIX)/share
DOCDIR         ?= $(DATADIR)/doc/tern
MANDIR         ?= $(DATADIR)/man
# /usr: Debian's places (/etc; the unit directory of bookworm's systemd.pc,
# pkg-config --variable=systemdsystemunitdir systemd)
ifeq ($(PREFIX),/usr)
SYSCONFDIR     ?= /etc
SYSTEMDUNITDIR ?= /lib/systemd/system
else
SYSCONFDIR     ?= $(PREFIX)/etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
endif
# The system's state and runtime directories whatever the prefix (not GNU's
# $(PREFIX)/var and $(LOCALSTATEDIR)/run: the runtime directory belongs on
# the tmpfs emptied at boot; the defaults tern had before).
LOCALSTATEDIR  ?= /var
RUNSTATEDIR    ?= /run
BASHCOMPDIR    ?= $(DATADIR)/bash-completion/completions
LOGROTATEDIR   ?= $(SYSCONFDIR)/logrotate.d
INSTALL_VARS := PREFIX EXEC_PREFIX SBINDIR BINDIR DATADIR DOCDIR MANDIR \
	SYSCONFDIR SYSTEMDUNITDIR LOCALSTATEDIR RUNSTATEDIR BASHCOMPDIR LOGROTATEDIR
# Each one absolute, one word of [A-Za-z0-9/._+-] (they go into C strings,
# sed replacements and the unit): anything else is refused before anything
# is made.
$(foreach v,$(INSTALL_VARS),$(if $(filter 1,$(words $($(v)))),,$(error $(v)='$($(v))': must be one absolute path without blanks)))
$(foreach v,$(INSTALL_VARS),$(if $(filter /%,$($(v))),,$(error $(v)='$($(v))': must be an absolute path)))
INSTALL_BAD := $(shell printf '%s' '$(subst ','\'',$(foreach v,$(INSTALL_VARS),$($(v))))' | tr -d 'A-Za-z0-9/._+ -')
$(if $(INSTALL_BAD),$(error installation directories: characters '$(INSTALL_BAD)' not allowed (only A-Z a-z 0-9 / . _ + -)))
$(if $(filter-out 0 1,$(words $(DESTDIR))),$(error DESTDIR='$(DESTDIR)': must be one path without blanks))
TERN_CONF_DIR  := $(SYSCONFDIR)/tern
TERN_STATE_DIR := $(LOCALSTATEDIR)/lib/tern
TERN_RUN_DIR   := $(RUNSTATEDIR)/tern

# The made files are remade when a directory changes (build/.paths); the
# compiled-in paths (build/gen/tern_paths.h) rebuild only the few files that
# include it (rtrmgr's boot config, mgmt's store, the runtime directory).
# Made here, before any wildcard reads build/ (make caches directories).
PATHS_STAMP := build/.paths
PATHS_LIST  := $(foreach v,$(INSTALL_VARS),$(v)=$($(v)))
PATHS_H := build/gen/tern_paths.h
PATHS_HEAD := /* $(PATHS_H): made by the Makefile from its installation directories; do not edit */
PATHS_TEXT := $(PATHS_HEAD)\n\#define TERN_CONF_DIR "$(TERN_CONF_DIR)"\n\#define TERN_STATE_DIR "$(TERN_STATE_DIR)"\n\#define TERN_RUN_DIR "$(TERN_RUN_DIR)"\n
# BPF objects (BPF_RECIPE) are embedded in binaries: their BTF names the
# sources relative to the tree, not where it was built; rebuilt when these
# flags change (build/.bpfflags).
BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -Wall -Werror -fdebug-prefix-map=$(CURDIR)=.
BPF_STAMP  := build/.bpfflags
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p build/gen; echo '$(PATHS_LIST)' | cmp -s - $(PATHS_STAMP) || \
	echo '$(PATHS_LIST)' > $(PATHS_STAMP); \
	printf '$(PATHS_TEXT)' | cmp -s - $(PATHS_H) || printf '$(PATHS_TEXT)' > $(PATHS_H); \
	echo '$(CLANG) $(BPF_CFLAGS)' | cmp -s - $(BPF_STAMP) || echo '$(CLANG) $(BPF_CFLAGS)' > $(BPF_STAMP))
endif
NPROC   := $(shell nproc 2>/dev/null || echo 2)

ifeq ($(V),1)
Q :=
E := @true
else
Q := @
E := @printf '  %-8s %s\n'
endif

# ---- sources by convention ---------------------------------------------------
PROTO_SRCS := $(wildcard ipc/proto/*.proto)
PROTO_C    := $(patsubst %.proto,build/gen/%.pb-c.c,$(PROTO_SRCS))
PROTO_H    := $(PROTO_C:.c=.h)

SRCS_common   := $(wildcard libcommon/*.c)
SRCS_ipc      := $(wildcard ipc/*.c) $(PROTO_C)
SRCS_fwd      := $(filter-out fwd/main.c,$(wildcard fwd/*.c))
SRCS_rib      := $(filter-out rib/main.c,$(wildcard rib/*.c))
SRCS_bgp      := $(filter-out bgp/main.c,$(wildcard bgp/*.c))
SRCS_mgmt     := $(filter-out mgmt/main.c,$(wildcard mgmt/*.c))
SRCS_shell    := $(filter-out mgmt/shell/main.c,$(wildcard mgmt/shell/*.c))
SRCS_rtrmgr   := $(filter-out rtrmgr/main.c,$(wildcard rtrmgr/*.c))
SRCS_bgp      := $(filter-out bgp/main.c,$(wildcard bgp/*.c))
SRCS_terntest := $(wildcard tests/lib/*.c)
LIBNAMES := common ipc fwd rib bgp mgmt shell rtrmgr terntest

# Which libraries a component (and its unit tests) link, in link order.
LIBS_libcommon := common
LIBS_common    := common
LIBS_ipc       := ipc common
LIBS_fwd       := fwd ipc common
LIBS_rib       := rib ipc common
LIBS_mgmt      := mgmt ipc common
LIBS_shell     := shell mgmt ipc common
LIBS_rtrmgr    := rtrmgr ipc common
LIBS_bgp       := bgp ipc common
LIBS_all       := terntest fwd rib bgp shell mgmt rtrmgr ipc common

# binary name -> module whose main.c it is
BINS := tern-fwd:fwd tern-rib:rib tern-mgmt:mgmt ternsh:shell tern-rtrmgr:rtrmgr \
	tern-bgp:bgp
MAINDIR_fwd := fwd
MAINDIR_rib := rib
MAINDIR_mgmt := mgmt
MAINDIR_shell := mgmt/shell
MAINDIR_rtrmgr := rtrmgr
MAINDIR_bgp := bgp

UNIT_SRCS  := $(sort $(wildcard tests/unit/*/test_*.c))
BENCH_SRCS := $(sort $(wildcard tests/bench/bench_*.c))
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
INTEG_TESTS := $(sort $(wildcard tests/integration/test_*.sh))

# The recipe of a BPF object embedded in a binary (fwd/module.mk,
# tests/bench/module.mk): clang -target bpf (-mcpu=v3 for atomic fetch
# operations), or an empty object when clang is missing (the binary says so
# at run time).
define BPF_RECIPE
@mkdir -p $(@D)
$(E) BPF $<
$(Q)if command -v $(CLANG) >/dev/null 2>&1; then \
	$(CLANG) $(BPF_CFLAGS) \
	    -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null) \
	    -c -o $@ $<; \
else \
	echo "  $(CLANG) not found: $(notdir $@) left empty"; \
	: >$@; \
fi
endef

# Per-module extra flags (X_LDLIBS, test_<mod>_<topic>_LDFLAGS,
# bench_<name>_CFLAGS/_LDLIBS) come from module.mk files.
-include $(sort $(wildcard */module.mk */*/module.mk))

# ---- generated protobuf code ---------------------------------------------------
build/gen/%.pb-c.c build/gen/%.pb-c.h: %.proto
	$(Q)mkdir -p build/gen
	$(E) PROTOC $<
	$(Q)$(PROTOC_C) -I. --c_out=build/gen $<

.SECONDARY: $(PROTO_C) $(PROTO_H)

# Objects depend on a stamp that changes when the flags do, so a build with
# other CFLAGS never mixes with objects made under the old ones.
FLAGS_STAMP := build/.cflags
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p build; echo '$(CC) $(ALL_CFLAGS) $(CLANG)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(CC) $(ALL_CFLAGS) $(CLANG)' > $(FLAGS_STAMP))
endif

# ---- variants: normal (build/), sanitizer (build/san/), fuzz (build/fuzz/) ----
# $(1) variant dir, $(2) compiler, $(3) cflags variable name
define VARIANT
$(1)/obj/%.o: %.c $(FLAGS_STAMP) | $(PROTO_H)
	@mkdir -p $$(@D)
	$$(E) CC $$<
	$$(Q)$(2) $$($(3)) $$(EXTRA_CFLAGS) -MMD -MP -c -o $$@ $$<

$(1)/obj/libcommon/lc_build.o: EXTRA_CFLAGS += -DLC_BUILD_CFLAGS='"$$(strip $$($(3)))"'

$(foreach l,$(LIBNAMES),$(call LIBRULE,$(1),$(l)))
endef

# $(1) variant dir, $(2) library short name
define LIBRULE
$(1)/lib/libtern-$(2).a: $(patsubst %.c,$(1)/obj/%.o,$(SRCS_$(2)))
	@mkdir -p $$(@D)
	$$(E) AR $$@
	$$(Q)rm -f $$@ && ar rcs $$@ $$^

endef

libs_of = $(foreach l,$(2),$(1)/lib/libtern-$(l).a)
ldlibs_of = $(foreach l,$(1),$($(call uc,$(l))_LDLIBS))
uc = $(shell echo $(1) | tr a-z A-Z)

$(eval $(call VARIANT,build,$(CC),ALL_CFLAGS))
$(eval $(call VARIANT,build/san,$(CC),SAN_CFLAGS))
$(eval $(call VARIANT,build/fuzz,$(CLANG),FUZZ_CFLAGS))

# ---- daemons and the shell -----------------------------------------------------
# $(1) binary, $(2) module
define BINRULE
build/bin/$(1): build/obj/$(MAINDIR_$(2))/main.o $(call libs_of,build,$(LIBS_$(2)))
	@mkdir -p $$(@D)
	$$(E) LD $$@
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< -Wl,--start-group $(call libs_of,build,$(LIBS_$(2))) -Wl,--end-group $$(call ldlibs_of,$(LIBS_$(2))) $$(BASE_LDLIBS)
ALL_BINS += build/bin/$(1)
endef
$(foreach b,$(BINS),$(eval $(call BINRULE,$(word 1,$(subst :, ,$(b))),$(word 2,$(subst :, ,$(b))))))

# ---- unit tests (normal and sanitizer) -------------------------------------------
# $(1) variant dir, $(2) test source, $(3) extra ldflags variable
define UNITRULE
$(1)/$(basename $(2)): $(1)/obj/$(basename $(2)).o $(call libs_of,$(1),terntest $(LIBS_$(word 3,$(subst /, ,$(2)))))
	@mkdir -p $$(@D)
	$$(E) LD $$@
	$$(Q)$$(CC) $$(LDFLAGS) $(3) -o $$@ $$< -Wl,--start-group $(call libs_of,$(1),terntest $(LIBS_$(word 3,$(subst /, ,$(2))))) -Wl,--end-group $$(test_$(word 3,$(subst /, ,$(2)))_$(patsubst test_%,%,$(notdir $(basename $(2))))_LDFLAGS) $$(call ldlibs_of,$(LIBS_$(word 3,$(subst /, ,$(2))))) $$(BASE_LDLIBS) -lcmocka
endef
$(foreach t,$(UNIT_SRCS),$(eval $(call UNITRULE,build,$(t),)))
$(foreach t,$(UNIT_SRCS),$(eval $(call UNITRULE,build/san,$(t),$$(SAN_LDFLAGS))))
UNIT_BINS     := $(patsubst %.c,build/%,$(UNIT_SRCS))
UNIT_SAN_BINS := $(patsubst %.c,build/san/%,$(UNIT_SRCS))

# ---- benchmarks -------------------------------------------------------------------
# $(1) bench name
define BENCHRULE
build/obj/tests/bench/bench_$(1).o: EXTRA_CFLAGS += $$(bench_$(1)_CFLAGS)
build/bin/bench-$(1): build/obj/tests/bench/bench_$(1).o $(call libs_of,build,$(LIBS_all))
	@mkdir -p $$(@D)
	$$(E) LD $$@
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< -Wl,--start-group $(call libs_of,build,$(LIBS_all)) -Wl,--end-group $$(bench_$(1)_LDLIBS) $$(call ldlibs_of,$(LIBS_all)) $$(BASE_LDLIBS)
.PHONY: bench-$(1)
bench-$(1): deps-bench
	$$(MAKE) --no-print-directory -j$(NPROC) build/bin/bench-$(1) $$(ALL_BINS)
	./build/bin/bench-$(1) $$(BENCH_ARGS)
endef
BENCH_NAMES := $(patsubst tests/bench/bench_%.c,%,$(BENCH_SRCS))
$(foreach b,$(BENCH_NAMES),$(eval $(call BENCHRULE,$(b))))
BENCH_BINS := $(patsubst %,build/bin/bench-%,$(BENCH_NAMES))

# ---- test tools: tests/integration/*.c, IPC clients the scripts drive -------------
define TOOLRULE
build/tests/tools/$(1): build/obj/tests/integration/$(1).o $(call libs_of,build,terntest ipc common)
	@mkdir -p $$(@D)
	$$(E) LD $$@
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< -Wl,--start-group $(call libs_of,build,terntest ipc common) -Wl,--end-group $$(call ldlibs_of,ipc common) $$(BASE_LDLIBS)
endef
TOOL_NAMES := $(patsubst tests/integration/%.c,%,$(wildcard tests/integration/*.c))
$(foreach t,$(TOOL_NAMES),$(eval $(call TOOLRULE,$(t))))
TOOL_BINS := $(patsubst %,build/tests/tools/%,$(TOOL_NAMES))

# ---- fuzzers ------------------------------------------------------------------------
define FUZZRULE
build/fuzz/fuzz-$(1): build/fuzz/obj/tests/fuzz/fuzz_$(1).o $(call libs_of,build/fuzz,$(LIBS_all))
	@mkdir -p $$(@D)
	$$(E) LD $$@
	$$(Q)$$(CLANG) $$(FUZZ_LDFLAGS) -o $$@ $$< -Wl,--start-group $(call libs_of,build/fuzz,$(LIBS_all)) -Wl,--end-group $$(call ldlibs_of,$(LIBS_all)) $$(BASE_LDLIBS)
endef
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))
$(foreach f,$(FUZZ_NAMES),$(eval $(call FUZZRULE,$(f))))
FUZZ_BINS := $(patsubst %,build/fuzz/fuzz-%,$(FUZZ_NAMES))
FUZZ_SECONDS ?= 8

# ---- generated files: the unit, the boot config, logrotate's file, the pages ----
# @NAME@ in etc/*.in and man/*.in is the installation directory NAME (or
# @VERSION@, @DATE@); a name left over is an error. They are remade when a
# directory changes (build/.paths).
TERN_VERSION := $(shell sed -n 's/^\#define TERN_VERSION[[:space:]]*"\(.*\)"/\1/p' libcommon/lc_daemon.h)
# the last commit's day (SOURCE_DATE_EPOCH when set: reproducible builds)
MAN_DATE := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%Y-%m-%d)
SUBST_SED := $(foreach v,$(INSTALL_VARS),-e 's|@$(v)@|$($(v))|g') \
	-e 's|@VERSION@|$(TERN_VERSION)|g' -e 's|@DATE@|$(MAN_DATE)|g'
# $(1): the command that writes the page or file on stdout
define SUBST_RECIPE
@mkdir -p $(@D)
$(E) GEN $@
$(Q)set -o pipefail; $(1) | sed $(SUBST_SED) >$@.tmp
$(Q)if grep -n '@[A-Z_]*@' $@.tmp >&2; then \
	echo "$<: unknown @NAME@ above (expected one of $(INSTALL_VARS) VERSION DATE)" >&2; \
	rm -f $@.tmp; exit 1; fi
$(Q)mv $@.tmp $@
endef
GEN_ETC := build/etc/tern.service build/etc/tern-rtrmgr.conf build/etc/tern.logrotate
build/etc/%: etc/%.in $(PATHS_STAMP)
	$(call SUBST_RECIPE,cat $<)

# tern-mangen fills in the parts the tables make (mgmt/mgmt_man.c); not
# installed.
build/bin/tern-mangen: build/obj/man/mangen.o $(call libs_of,build,$(LIBS_mgmt))
	@mkdir -p $(@D)
	$(E) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -Wl,--start-group $(call libs_of,build,$(LIBS_mgmt)) -Wl,--end-group $(call ldlibs_of,$(LIBS_mgmt)) $(BASE_LDLIBS)
MAN_PAGES := $(patsubst man/%.in,build/man/%,$(wildcard man/*.in))
build/man/%: man/%.in build/bin/tern-mangen $(PATHS_STAMP)
	$(call SUBST_RECIPE,build/bin/tern-mangen $<)

# ---- top-level targets ----------------------------------------------------------------
.PHONY: all deps deps-bench check check-build check-unit check-san check-fuzz \
	check-integration check-bench check-format format run stop bench \
	install uninstall clean fuzz bench-compare

all: $(ALL_BINS) $(UNIT_BINS) $(BENCH_BINS) $(TOOL_BINS) build/bin/tern-mangen $(GEN_ETC) $(MAN_PAGES)

deps:
	@./scripts/deps.sh

# The benchmarks' peers too (libdpdk-dev for bench-fib and bench-fib6), unless DPDK=no.
deps-bench:
	@./scripts/deps.sh $(if $(filter no,$(DPDK)),,--bench)

# check installs what is missing first, then builds in a fresh make so that
# pkg-config and the compilers are looked up after the install.
check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) check-build
	@$(MAKE) --no-print-directory check-format check-unit check-san check-fuzz check-integration check-bench
	@echo "make check: all stages passed"

check-build: all $(UNIT_SAN_BINS) $(FUZZ_BINS)

check-unit: $(UNIT_BINS)
	@./scripts/run-tests.sh unit $(UNIT_BINS)

check-san: $(UNIT_SAN_BINS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		./scripts/run-tests.sh unit-san $(UNIT_SAN_BINS)

check-fuzz: $(FUZZ_BINS)
	@./scripts/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

check-integration: $(ALL_BINS) $(TOOL_BINS)
	@./scripts/run-tests.sh integration $(INTEG_TESTS)

check-bench: $(BENCH_BINS)
	@./scripts/run-tests.sh bench-smoke $(BENCH_BINS)

# .clang-format (KNF): check-format fails on a file that drifts, format fixes it.
check-format:
	@./scripts/check-format.sh

format:
	@./scripts/check-format.sh --fix

fuzz: $(FUZZ_BINS)
	@./scripts/run-fuzz.sh 300 $(FUZZ_BINS)

test-libcommon: test-common
	@:
test-%:
	@$(MAKE) --no-print-directory -j$(NPROC) $(filter build/tests/unit/$(patsubst common,libcommon,$*)/%,$(UNIT_BINS))
	@./scripts/run-tests.sh unit-$* $(filter build/tests/unit/$(patsubst common,libcommon,$*)/%,$(UNIT_BINS))

bench: deps-bench
	@$(MAKE) --no-print-directory -j$(NPROC) $(BENCH_BINS) $(ALL_BINS)
	@./scripts/bench-all.sh $(BENCH_BINS)

# Two revisions' benchmarks run alternately, each built in a git worktree of
# its own under build/compare/ (scripts/bench-compare.py; docs/DEVELOPING.md).
#   make bench-compare A=REV [B=REV] [BENCH=ipc,fib,fastpath]
#       [BUILD=release|debug|release,debug] [BUILD_A=..] [BUILD_B=..]
#       [ROUNDS=3] [QUICK=1] [KEEP=1] [BENCH_ARGS='...'] [ARGS_<name>='...']
BENCH_COMPARE := ipc,fib,fastpath
bench-compare: deps-bench
	@./scripts/bench-compare.py run --a '$(A)' --b '$(or $(B),HEAD)' \
	    --bench '$(or $(BENCH),$(BENCH_COMPARE))' \
	    --build '$(or $(BUILD),release)' \
	    $(if $(BUILD_A),--build-a '$(BUILD_A)') \
	    $(if $(BUILD_B),--build-b '$(BUILD_B)') \
	    --rounds '$(or $(ROUNDS),3)' -j$(NPROC) \
	    $(if $(filter-out 0,$(QUICK)),--quick) \
	    $(if $(filter-out 0,$(KEEP)),--keep) \
	    $(if $(filter-out auto,$(DPDK)),--dpdk '$(DPDK)') \
	    $(if $(BENCH_ARGS),--bench-args '$(BENCH_ARGS)') \
	    $(foreach b,$(BENCH_NAMES),$(if $(ARGS_$(b)),--args '$(b)=$(ARGS_$(b))'))

run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@KEEP='$(KEEP)' ./scripts/run-demo.sh start

stop:
	@./scripts/run-demo.sh stop

# ---- install, uninstall (docs/install.md) ------------------------------------------
# What is installed, as SOURCE:DESTINATION (under $(DESTDIR)), mode by list.
# uninstall removes exactly these: the same list, so it needs the same
# directories as the install did.
INST_SBIN := $(foreach b,tern-rtrmgr tern-mgmt tern-rib tern-fwd tern-bgp,build/bin/$(b):$(SBINDIR)/$(b))
INST_BIN  := build/bin/ternsh:$(BINDIR)/ternsh
INST_DATA := build/etc/tern.service:$(SYSTEMDUNITDIR)/tern.service \
	etc/bash-completion/ternsh:$(BASHCOMPDIR)/ternsh \
	$(foreach d,README.md $(wildcard docs/*.md),$(d):$(DOCDIR)/$(notdir $(d))) \
	$(foreach m,$(MAN_PAGES),$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
# Configuration: installed when absent; when the installed one differs from
# the new one it is kept and the new one goes beside it as FILE.dist.
# uninstall removes a configuration file only if it is still the one
# shipped, and FILE.dist.
INST_CONF := build/etc/tern-rtrmgr.conf:$(TERN_CONF_DIR)/tern-rtrmgr.conf \
	build/etc/tern.logrotate:$(LOGROTATEDIR)/tern
# the directories that are tern's own (removed by uninstall when empty)
INST_OWN_DIRS := $(DOCDIR) $(TERN_CONF_DIR)
src_of = $(word 1,$(subst :, ,$(1)))
dst_of = $(DESTDIR)$(word 2,$(subst :, ,$(1)))

install: $(ALL_BINS) $(GEN_ETC) $(MAN_PAGES)
	$(Q)set -e; $(foreach f,$(INST_SBIN) $(INST_BIN),install -D -m 0755 $(call src_of,$(f)) $(call dst_of,$(f));) \
	$(foreach f,$(INST_DATA),install -D -m 0644 $(call src_of,$(f)) $(call dst_of,$(f));) \
	$(foreach f,$(INST_CONF),$(call INSTALL_CONF,$(call src_of,$(f)),$(call dst_of,$(f)));) \
	echo "installed tern in $(DESTDIR)$(PREFIX) (configuration in $(DESTDIR)$(SYSCONFDIR); docs/install.md)"

define INSTALL_CONF
if [ ! -e $(2) ]; then install -D -m 0644 $(1) $(2); \
elif cmp -s $(1) $(2); then :; \
else install -m 0644 $(1) $(2).dist; echo "  $(2): kept (not the one shipped); the new one is $(2).dist"; fi
endef

uninstall: $(GEN_ETC)
	$(Q)set -e; rm -f $(foreach f,$(INST_SBIN) $(INST_BIN) $(INST_DATA),$(call dst_of,$(f))); \
	$(foreach f,$(INST_CONF),$(call UNINSTALL_CONF,$(call src_of,$(f)),$(call dst_of,$(f)));) \
	for d in $(foreach d,$(INST_OWN_DIRS),$(DESTDIR)$(d)); do [ ! -d $$d ] || rmdir --ignore-fail-on-non-empty $$d; done; \
	echo "uninstalled tern from $(DESTDIR)$(PREFIX)"

define UNINSTALL_CONF
rm -f $(2).dist; \
if [ -e $(2) ] && cmp -s $(1) $(2); then rm -f $(2); \
elif [ -e $(2) ]; then echo "  $(2): kept (changed since it was installed)"; fi
endef

clean:
	rm -rf build

# (not those of bench-compare's worktrees under build/compare, nor those of
# make deb's copy under build/deb: other trees)
-include $(shell find build \( -path build/compare -o -path build/deb \) -prune -o -type f -name '*.d' -print 2>/dev/null)

# make deb, make check-deb (the Debian package; docs/packaging.md)
include debian.mk
