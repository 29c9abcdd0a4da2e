# make check: unit tests, then the shell tests (tests/t*.sh) over fixtures.

UNIT_SRCS := $(wildcard tests/unit/*_test.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)

$(B)/tests/unit/%: tests/unit/%.c $(ANALYZER_LIB) tests/unit/unit.h
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -o $@ $< $(ANALYZER_LIB) $(ANALYZER_LIBS)

include tests/fixtures/fixtures.mk

check-unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t; done

# One calibration of the cost model for the tests that need this machine's
# figures (t0210, t0220); each calibrates by itself when run alone.
TEST_CALIBRATION := $(B)/tests/calibration-v2
$(TEST_CALIBRATION): $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@mkdir -p $(@D)
	./$(LDPROF) calibrate -n 20 -o $@ > $(B)/tests/calibration.log 2>&1 || \
		{ cat $(B)/tests/calibration.log; exit 1; }

# The layers call only downward and no two files call each other in a cycle
# (tools/check-layers reads the objects with nm). CHECK_LAYERS_DIRS: more
# object folders checked for cycles only (the shim's). CHECK_LAYERS_KNOWN: calls from one file to another that
# other branches are removing; empty it once they are merged.
CHECK_LAYERS_DIRS  := $(B)/preload
CHECK_LAYERS_KNOWN :=
check-layers: $(ANALYZER_LIB_OBJS) $(B)/analyzer/main.o $(SHIM_AUDIT_OBJS) $(SHIM_SYMBIND_OBJS) \
	      $(SHIM_PRELOAD_OBJS)
	tools/check-layers $(B) $(addprefix --allow ,$(CHECK_LAYERS_KNOWN)) $(CHECK_LAYERS_DIRS)

check-shell: all $(FIXTURES) $(TEST_CALIBRATION)
	LDPROF=$(CURDIR)/$(LDPROF) LDPROF_FIXTURES=$(CURDIR)/$(B)/fixtures LDPROF_BUILD=$(CURDIR)/$(B) \
		LDPROF_TEST_CALIBRATION=$(CURDIR)/$(TEST_CALIBRATION) \
		LDPROF_TEST_CALIBRATION_LOG=$(CURDIR)/$(B)/tests/calibration.log \
		LDPROF_MAKE_ARGS="ASAN=$(ASAN)" tests/run-tests.sh

check: check-unit check-layers check-shell
