# ldprof: a dynamic-linker startup profiler.
#
#   make                  build ldprof, the shim and the samples
#   make check            build everything and run the whole test suite
#   make check ASAN=1     the same with AddressSanitizer/UBSan (not the shim)
#   make bench            benchmarks, printed as side-by-side ratios
#   make fuzz             each libFuzzer target for FUZZ_SECONDS (fuzz/fuzz.mk)
#   make install PREFIX=/usr/local DESTDIR=
#
# Each part lives in its own fragment (analyzer/, preload/, samples/, tests/, fuzz/)
# so that work on one does not collide with another.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
PKGLIBDIR  ?= $(LIBDIR)/ldprof
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS     ?= -O2 -g
WERROR     ?= -Werror
WARN        = -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -MMD -MP

# The sanitizer build instruments the analyzer and the test programs, never
# the shim: the audit module is freestanding and must not pull in a runtime.
ifeq ($(ASAN),1)
SAN_FLAGS   = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

# Sanitizer objects must not mix with normal ones.
ifeq ($(ASAN),1)
B := build-asan
else
B := build
endif

.PHONY: all check check-unit check-layers check-shell bench install uninstall clean format deps-check
all:

include preload/preload.mk
include analyzer/analyzer.mk
include samples/samples.mk
include tests/tests.mk
include fuzz/fuzz.mk
include bench/bench.mk

all: $(LDPROF) $(SHIM_LIBS) $(SAMPLES)

# Fail early and clearly when a build dependency is missing; the README's
# first command runs tools/install-deps in that case.
deps-check:
	@tools/install-deps --check

install: $(LDPROF) $(SHIM_LIBS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(LDPROF) $(DESTDIR)$(BINDIR)/ldprof
	install -m 644 $(SHIM_LIBS) $(DESTDIR)$(PKGLIBDIR)/
	install -m 755 tools/gen-reloc-lib $(DESTDIR)$(PKGLIBDIR)/
	install -m 644 docs/ldprof.1 $(DESTDIR)$(MANDIR)/man1/ldprof.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ldprof $(DESTDIR)$(MANDIR)/man1/ldprof.1
	rm -rf $(DESTDIR)$(PKGLIBDIR)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan ldprof $(SAMPLES)

# Compiler dependency files only: make bench unpacks a Debian package under
# $(B)/bench, whose directories (conf-hooks.d, ...) must not be read as makefiles.
-include $(shell find $(B) -path $(B)/bench/busybox-dyn -prune -o -name '*.d' -type f -print 2>/dev/null)
