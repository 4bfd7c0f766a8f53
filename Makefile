# SPDX-License-Identifier: GPL-2.0-only
# pmustress: plain make; dependencies through pkg-config.

VERSION    := 0.1.0
PKGS       := hwloc libtracefs libtraceevent json-c
CC         ?= cc
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread
CPPFLAGS += -Ilib -Iscenarios -DPMS_VERSION=\"$(VERSION)\" $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm -pthread

LIB_SRC   := $(wildcard lib/*.c)
LIB_OBJ   := $(LIB_SRC:.c=.o)
SCEN_SRC  := $(wildcard scenarios/*.c)
SCEN_OBJ  := $(SCEN_SRC:.c=.o)
CMD_SRC   := $(wildcard cmd/*.c)
CMD_OBJ   := $(CMD_SRC:.c=.o)
UNIT_SRC  := $(wildcard tests/unit/test-*.c)
UNIT_BIN  := $(UNIT_SRC:.c=)
HELP_SRC  := $(wildcard tests/helpers/*.c)
HELP_BIN  := $(HELP_SRC:.c=)

all: check-deps pmustress

check-deps:
	@$(PKG_CONFIG) --exists $(PKGS) || { \
		echo "pmustress: missing build dependencies: $$(for p in $(PKGS); do \
			$(PKG_CONFIG) --exists $$p || printf '%s ' $$p; done)(run scripts/setup-deps)" >&2; \
		exit 1; }

lib/libpmustress.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

pmustress: $(CMD_OBJ) $(SCEN_OBJ) lib/libpmustress.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(SCEN_OBJ) lib/libpmustress.a $(LDLIBS)

tests/unit/test-%: tests/unit/test-%.c lib/libpmustress.a tests/tap.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< lib/libpmustress.a $(LDLIBS)

tests/helpers/%: tests/helpers/%.c lib/libpmustress.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(SCEN_OBJ) lib/libpmustress.a $(LDLIBS)

tests/bench/pms-bench: tests/bench/pms-bench.c lib/libpmustress.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< lib/libpmustress.a $(LDLIBS)

# Figures, not pass/fail: the movers and the recorder against bare loops.
.PHONY: bench
bench: pmustress tests/bench/pms-bench
	scripts/bench

$(LIB_OBJ) $(SCEN_OBJ) $(CMD_OBJ): $(wildcard lib/*.h scenarios/*.h cmd/*.h)

unit: $(UNIT_BIN)

# The whole suite: unit tests (no PMU, no root) then integration tests on
# this machine's kernel.  prove prints the summary CI reads.
check: all $(UNIT_BIN) $(HELP_BIN) $(SCEN_OBJ)
	prove -v --timer $(UNIT_BIN) tests/integration/*.t

check-unit: all $(UNIT_BIN) $(HELP_BIN)
	prove -v $(UNIT_BIN)

install: pmustress
	install -D -m 755 pmustress $(DESTDIR)$(PREFIX)/bin/pmustress
	install -D -m 644 pmustress.1 $(DESTDIR)$(PREFIX)/share/man/man1/pmustress.1

clean:
	rm -f pmustress lib/libpmustress.a $(LIB_OBJ) $(SCEN_OBJ) $(CMD_OBJ) $(UNIT_BIN) $(HELP_BIN) tests/bench/pms-bench

.PHONY: all check-deps unit check check-unit install clean
