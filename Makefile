# SPDX-License-Identifier: GPL-2.0-only
# pmustress: plain make; dependencies through pkg-config.
#
#   make                      native build in the tree
#   make cross-arm64          aarch64 build in build/aarch64/ (same rules,
#                             CROSS_COMPILE=aarch64-linux-gnu-, multiarch
#                             pkg-config), for the emulated-arm64 matrix
#   make O=DIR CROSS_COMPILE=PREFIX   any other out-of-tree or cross build

VERSION    := 0.1.0
PKGS       := hwloc libtracefs libtraceevent json-c
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
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
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread
CPPFLAGS += -Ilib -Iscenarios -DPMS_VERSION=\"$(VERSION)\" $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm -pthread

LIB_SRC   := $(wildcard lib/*.c)
SCEN_SRC  := $(wildcard scenarios/*.c)
CMD_SRC   := $(wildcard cmd/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(O)/%.o)
SCEN_OBJ  := $(SCEN_SRC:%.c=$(O)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(O)/%.o)
LIBA      := $(O)/lib/libpmustress.a
BIN       := $(O)/pmustress
UNIT_SRC  := $(wildcard tests/unit/test-*.c)
UNIT_BIN  := $(UNIT_SRC:.c=)
HEADERS   := $(wildcard lib/*.h scenarios/*.h cmd/*.h)

all: check-deps $(BIN)

check-deps:
	@$(PKG_CONFIG) --exists $(PKGS) || { \
		echo "pmustress: missing build dependencies: $$(for p in $(PKGS); do \
			$(PKG_CONFIG) --exists $$p || printf '%s ' $$p; done)(run scripts/setup-deps)" >&2; \
		exit 1; }

$(O)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BIN): $(CMD_OBJ) $(SCEN_OBJ) $(LIBA)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(SCEN_OBJ) $(LIBA) $(LDLIBS)

tests/unit/test-%: tests/unit/test-%.c $(LIBA) tests/tap.h tests/json-path.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

tests/bench/pms-bench: tests/bench/pms-bench.c $(LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

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
check: all $(UNIT_BIN)
	prove -v --timer $(UNIT_BIN) tests/integration/*.t

check-unit: all $(UNIT_BIN)
	prove -v $(UNIT_BIN)

install: $(BIN)
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pmustress
	install -D -m 644 pmustress.1 $(DESTDIR)$(PREFIX)/share/man/man1/pmustress.1

clean:
	rm -f pmustress lib/libpmustress.a $(LIB_SRC:.c=.o) $(SCEN_SRC:.c=.o) $(CMD_SRC:.c=.o)
	rm -f $(UNIT_BIN) tests/bench/pms-bench pms-guest-init
	rm -rf build

.PHONY: all check-deps unit check check-unit install clean cross-arm64
