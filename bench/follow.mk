# Benchmarks for `ldprof -f` (tools/bench-follow.py):
# - its overhead on the 2003 harness (100 iterations, 203 execs a run)
#   against plain runs of it, interleaved; the issue's goal is 5%;
# - the loader's share of a build: make -j2 building the sample shell
#   (samples/sh.dynamic) from clean, in a directory of its own under
#   $(B) whose sources are the samples' (make -B: every target remade in
#   every run, so that each run is a build from clean).

BENCH_FOLLOW_ROUNDS ?= 30
BENCH_FOLLOW_MAKE_RUNS ?= 10
BENCH_FOLLOW_MAKE_DIR := $(B)/bench-follow-make

.PHONY: bench-follow bench-follow-overhead bench-follow-make bench-follow-shim
bench-follow: bench-follow-shim bench-follow-overhead bench-follow-make

# The shim's own share of it, per exec: the same audit module recording
# into a run buffer and into -f's buffer (reopened by path, chunks), side
# by side with plain execs (no perf events: those are the tree's cost).
bench-follow-shim: $(ABEXEC) $(SHIM_LIBS) $(SAMPLES)
	@echo "== the shim per exec, run buffer against -f's: samples/sh.dynamic samples/foo"
	@$(ABEXEC) -n $(BENCH_RUNS) 'plain|-|$(SH_CMD)' \
		'ldprof shim|LD_AUDIT=$(AUDIT_ABS) LDPROF_SHM=auto|$(SH_CMD)' \
		'ldprof shim, -f buffer|LD_AUDIT=$(AUDIT_ABS) LDPROF_SHM=follow|$(SH_CMD)'
	@echo

# The floor: a shim directory whose audit module does nothing
# (bench/min-audit.c, read-only), so that -f's perf events and an audit
# module's mere presence in every exec are measured without our recording.
FOLLOW_FLOOR_DIR := $(B)/bench/follow-floor
$(FOLLOW_FLOOR_DIR)/ldprof-audit.so: $(MIN_AUDIT_RO) $(SHIM_PRELOAD)
	@mkdir -p $(@D)
	cp $(MIN_AUDIT_RO) $@
	cp $(SHIM_PRELOAD) $(@D)/ldprof-preload.so

bench-follow-overhead: $(LDPROF) $(SHIM_LIBS) $(SAMPLES) $(FOLLOW_FLOOR_DIR)/ldprof-audit.so
	@echo "== ldprof -f overhead: samples/harness.sh ./sh.dynamic 100"
	@cd samples && python3 ../tools/bench-follow.py overhead --floor $(CURDIR)/$(FOLLOW_FLOOR_DIR) \
		$(CURDIR)/$(LDPROF) $(BENCH_FOLLOW_ROUNDS) ./harness.sh ./sh.dynamic 100
	@echo

bench-follow-make: $(LDPROF) $(SHIM_LIBS)
	@echo "== ldprof -f: the loader's share of make -j2 building samples/sh.dynamic from clean"
	@rm -rf $(BENCH_FOLLOW_MAKE_DIR) && mkdir -p $(BENCH_FOLLOW_MAKE_DIR)/samples
	@ln -s $(CURDIR)/samples/sh $(CURDIR)/samples/samples.mk $(BENCH_FOLLOW_MAKE_DIR)/samples/
	@python3 tools/bench-follow.py share $(CURDIR)/$(LDPROF) $(BENCH_FOLLOW_MAKE_RUNS) \
		make -s -B -j2 -C $(BENCH_FOLLOW_MAKE_DIR) -f samples/samples.mk B=build \
		CC='$(CC)' PKG_CONFIG='$(PKG_CONFIG)' CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)' \
		BASE_CFLAGS='$(BASE_CFLAGS)' samples/sh.dynamic
	@echo

BENCHES += bench-follow
