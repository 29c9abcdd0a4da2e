# make check: unit tests, then the shell tests (tests/t*.sh) over fixtures.

UNIT_SRCS := $(wildcard analyzer/*_test.c)
UNIT_BINS := $(UNIT_SRCS:analyzer/%.c=$(B)/tests/unit/%)

$(B)/tests/unit/%: analyzer/%.c $(ANALYZER_LIB) analyzer/unit.h
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -o $@ $< $(ANALYZER_LIB) $(ANALYZER_LIBS)

include tests/fixtures/fixtures.mk

check-unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t; done

check-shell: all $(FIXTURES)
	LDPROF=$(CURDIR)/$(LDPROF) LDPROF_FIXTURES=$(CURDIR)/$(B)/fixtures \
		LDPROF_MAKE_ARGS="ASAN=$(ASAN)" tests/run-tests.sh

check: check-unit check-shell
