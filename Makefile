# SPDX-License-Identifier: GPL-2.0-only
# pmustress: plain make; dependencies through pkg-config.
#
#   make                      native build in the tree
#   make cross-arm64          aarch64 build in build/aarch64/ (same rules,
#                             CROSS_COMPILE=aarch64-linux-gnu-, multiarch
#                             pkg-config), for the emulated-arm64 matrix
#   make O=DIR CROSS_COMPILE=PREFIX   any other out-of-tree or cross build
#   make check SANITIZE=address,undefined
#                             the suite on a sanitized build (clang) in
#                             build/clang-address-undefined/ (any
#                             -fsanitize= list; CC=, O=DIR as you like)
#   make fuzz                 libFuzzer harnesses (clang) in build/fuzz/, each
#                             run FUZZ_RUNS times over its seed corpus;
#                             scripts/fuzz runs them for longer

VERSION    := 0.1.0
PKGS       := hwloc libtracefs libtraceevent json-c
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
comma      := ,
# A sanitized build is made with clang unless CC says otherwise (clang's
# runtime logs every report, UBSan's too, to ASAN_OPTIONS' log_path: see
# check) and never shares objects with another build: its own folder.
ifneq ($(SANITIZE),)
ifeq ($(origin CC),default)
CC         := clang
endif
O          ?= build/$(notdir $(CC))-$(subst $(comma),-,$(SANITIZE))
endif
O          ?= .

ifneq ($(CROSS_COMPILE),)
CC         := $(CROSS_COMPILE)gcc
AR         := $(CROSS_COMPILE)ar
MULTIARCH  := $(shell $(CC) -dumpmachine 2>/dev/null)
# The target's .pc files (Debian multiarch), never the build machine's.
export PKG_CONFIG_LIBDIR := /usr/lib/$(MULTIARCH)/pkgconfig:/usr/share/pkgconfig
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

CFLAGS   ?= -O2 -g
# What the code needs is kept apart from CFLAGS, so `make CFLAGS=-O0` does
# not drop the language level, the warnings or -pthread.
PMS_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread
DEFS     := -DPMS_VERSION=\"$(VERSION)\" $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm -pthread

# -fno-sanitize-recover: UBSan stops at the first error with a non-zero
# status, so that a finding fails the test that met it instead of scrolling
# by in its output.  PMS_CFLAGS reaches every compile and every link.
# Leaks that are the libraries', not ours, are suppressed by the name of
# the function that makes them: libtracefs 1.6's
# tracefs_tracing_dir_is_mounted() returns a strdup()ed path as a const
# char * that the caller is not to free.  The libraries have no frame
# pointers: only the slow unwinder gets from their allocations to that name.
ifneq ($(SANITIZE),)
PMS_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
LSAN_SUPP  := tracefs_tracing_dir_is_mounted
SAN_LOGS   := $(abspath $(O))/sanitizer-logs
export ASAN_OPTIONS ?= detect_leaks=1:fast_unwind_on_malloc=0:log_path=$(SAN_LOGS)/asan
export LSAN_OPTIONS ?= suppressions=$(abspath $(O))/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOGS)/ubsan
endif

# The dependency direction is one way, cmd -> scenarios -> lib, and the
# include paths enforce it: lib/ sees only itself; a scenario sees lib/, the
# registry header and its own folder (by "name.h" next to it), never another
# scenario; cmd/ sees all.  `make check-layout` checks the rest.
LIB_INC   := -Ilib
SCEN_INC  := -Ilib -Iscenarios
CMD_INC   := -Ilib -Iscenarios -Icmd

SCENARIOS := $(patsubst scenarios/%/,%,$(sort $(dir $(wildcard scenarios/*/*.c))))
scen_src   = $(filter-out scenarios/$(1)/test-%.c,$(wildcard scenarios/$(1)/*.c))
scen_lib   = $(O)/scenarios/$(1)/scenario.a

LIB_SRC   := $(wildcard lib/*.c)
CMD_SRC   := $(wildcard cmd/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(O)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(O)/%.o)
REG_OBJ   := $(O)/scenarios/registry.o
SCEN_LIBS := $(foreach s,$(SCENARIOS),$(call scen_lib,$(s)))
LIBA      := $(O)/lib/libpmustress.a
BIN       := $(O)/pmustress
# Unit tests: the spine's in tests/unit, each scenario's in its folder.
# Test binaries live with the build they test (in the tree for O=.).
OUT        := $(if $(filter .,$(O)),,$(O)/)
LIB_TESTS  := $(patsubst %.c,$(OUT)%,$(wildcard tests/unit/test-*.c))
SCEN_TESTS := $(patsubst %.c,$(OUT)%,$(wildcard scenarios/*/test-*.c))
UNIT_BIN   := $(LIB_TESTS) $(SCEN_TESTS)
INTEG      := $(wildcard tests/integration/*.t) $(wildcard scenarios/*/*.t)
# The emulated-arm64 boots run the aarch64 cross build, not this one: a
# sanitized suite leaves them to the plain one.
ifneq ($(SANITIZE),)
INTEG      := $(filter-out tests/integration/arm64-qemu.t,$(INTEG))
endif
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN   := $(FUZZ_SRC:%.c=$(OUT)%)
HEADERS    := $(wildcard lib/*.h scenarios/*.h scenarios/*/*.h cmd/*.h)
TEST_HDRS  := tests/tap.h tests/json-path.h tests/signal-stream.h

all: check-deps $(BIN)

check-deps:
	@$(PKG_CONFIG) --exists $(PKGS) || { \
		echo "pmustress: missing build dependencies: $$(for p in $(PKGS); do \
			$(PKG_CONFIG) --exists $$p || printf '%s ' $$p; done)(run scripts/setup-deps)" >&2; \
		exit 1; }

$(O)/lib/%.o: lib/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_INC) $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/scenarios/%.o: scenarios/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(SCEN_INC) $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/cmd/%.o: cmd/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CMD_INC) $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) -c -o $@ $<

# Rebuilt whole: `ar r` into an old archive would keep members of files that
# have since moved or gone, and they would clash at link time.
$(LIBA): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# One archive per scenario: the binary takes them all, a scenario's unit
# tests take only their own.
define scenario_rules
$(call scen_lib,$(1)): $(patsubst %.c,$(O)/%.o,$(call scen_src,$(1)))
	rm -f $$@
	$$(AR) rcs $$@ $$^

$(OUT)scenarios/$(1)/test-%: scenarios/$(1)/test-%.c $(call scen_lib,$(1)) $(LIBA) $(TEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $(SCEN_INC) -Itests $$(DEFS) $$(CPPFLAGS) $$(PMS_CFLAGS) $$(CFLAGS) $$(LDFLAGS) \
		-o $$@ $$< $(call scen_lib,$(1)) $$(LIBA) $$(LDLIBS)
endef
$(foreach s,$(SCENARIOS),$(eval $(call scenario_rules,$(s))))

$(BIN): $(CMD_OBJ) $(REG_OBJ) $(SCEN_LIBS) $(LIBA)
	$(CC) $(PMS_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(REG_OBJ) \
		$(SCEN_LIBS) $(LIBA) $(LDLIBS)

$(OUT)tests/unit/test-%: tests/unit/test-%.c $(LIBA) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_INC) -Itests $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< $(LIBA) $(LDLIBS)

tests/bench/pms-bench: tests/bench/pms-bench.c $(LIBA)
	$(CC) $(LIB_INC) -Itests $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< $(LIBA) $(LDLIBS)

# The emulated-arm64 guest's /init: static, libc only.
$(O)/pms-guest-init: scripts/guest-init.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -O2 -static -o $@ $<

.PHONY: bench
bench: $(BIN) tests/bench/pms-bench
	scripts/bench

cross-arm64:
	$(MAKE) O=build/aarch64 CROSS_COMPILE=aarch64-linux-gnu- build/aarch64/pmustress \
		build/aarch64/pms-guest-init

unit: $(UNIT_BIN)

# The whole suite: unit tests (no PMU, no root) then integration tests on
# this machine's kernel (and on an emulated arm64 kernel: tests/integration/
# arm64-qemu.t).  prove prints the summary CI reads.
#
# A sanitizer's report goes to a file in $(SAN_LOGS), not to stderr: a test
# that keeps a run's output to itself would otherwise hide it.  Any report
# fails the suite and is printed after prove's summary.
ifeq ($(SANITIZE),)
check: all $(UNIT_BIN) check-layout
	PMS=$(BIN) prove -v --timer $(UNIT_BIN) $(INTEG)
else
check: all $(UNIT_BIN) check-layout $(O)/lsan.supp
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	PMS=$(BIN) prove -v --timer $(UNIT_BIN) $(INTEG); rc=$$?; \
	for f in $(SAN_LOGS)/*; do \
		[ -f "$$f" ] || continue; echo "== sanitizer report $$f"; cat "$$f"; rc=1; \
	done; exit $$rc
endif

$(O)/lsan.supp: Makefile
	@mkdir -p $(dir $@)
	printf 'leak:%s\n' $(LSAN_SUPP) > $@

# The one-way dependency, checked: lib/ includes nothing of scenarios/ or
# cmd/, a scenario nothing of another scenario's folder.
check-layout:
	@scripts/check-layout

check-unit: all $(UNIT_BIN)
	prove -v $(UNIT_BIN)

# Fuzzing: the library and the scenarios built again with clang, coverage
# instrumentation and ASan+UBSan in their own folder; one harness per
# parser of outside input (tests/fuzz/fuzz-*.c), each with a seed corpus in
# tests/fuzz/corpus/NAME/.  `make fuzz` is the short run CI does (a fixed
# number of inputs each, corpus not grown); scripts/fuzz is the long one.
FUZZ_CC   ?= clang
FUZZ_O    ?= build/fuzz
FUZZ_RUNS ?= 20000

$(OUT)tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h $(SCEN_LIBS) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CMD_INC) -Itests/fuzz -DFUZZ_TOP=\"$(CURDIR)\" $(DEFS) $(CPPFLAGS) $(PMS_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-fsanitize=fuzzer -o $@ $< $(SCEN_LIBS) $(LIBA) $(LDLIBS)

fuzzers: $(FUZZ_BIN)

fuzz-build:
	$(MAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) SANITIZE=fuzzer-no-link,address,undefined fuzzers

fuzz: fuzz-build
	FUZZ_O=$(FUZZ_O) scripts/fuzz --no-build --runs $(FUZZ_RUNS)

install: $(BIN)
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pmustress
	install -D -m 644 pmustress.1 $(DESTDIR)$(PREFIX)/share/man/man1/pmustress.1
	install -d $(DESTDIR)$(PREFIX)/share/pmustress/suites
	install -m 644 scripts/suites/* $(DESTDIR)$(PREFIX)/share/pmustress/suites/

clean:
	rm -f pmustress lib/libpmustress.a lib/*.o cmd/*.o scenarios/*.o scenarios/*/*.o \
		scenarios/*/scenario.a
	rm -f $(UNIT_BIN) tests/bench/pms-bench pms-guest-init
	rm -rf build

.PHONY: all check-deps unit check check-unit check-layout install clean cross-arm64 \
	fuzz fuzz-build fuzzers
