# The relocation cost model on real programs: the residual of the relocate
# phase (measured - predicted) for C and C++ programs from Debian's main
# archive (tools/bench-reloc.py; tools/install-deps BENCH installs them),
# in 5 sessions, each a fresh calibration and then a block of every
# program set against it: the machine moves relocation and the calibration
# by a fifth within minutes, so the bench takes its ratios side by side.
# A program's figure is the median of its sessions. Fails when one misses
# the goal of 15%.

BENCH_RELOC_SESSIONS ?= 5

.PHONY: bench-reloc
bench-reloc: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@echo "== the relocation model's residual on real programs (each session calibrated at its start)"
	@tools/bench-reloc.py --sessions $(BENCH_RELOC_SESSIONS) -n $$(( 13 * $(BENCH_RELOC_SESSIONS) )) \
		--ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc)
	@echo

BENCHES += bench-reloc

# Programs that compute without moving memory: a main that spins on the
# clock for 0 to 6 ms, linked against the libraries of ssh, uconv and
# apt-cache and against a synthetic pair (tools/bench-own-work.py). The
# model prices their lines by the pages their run faults in, not by its CPU
# time (docs/model.md, "Faults, not CPU time"). A calibration made first
# (BENCH_CALIBRATION=FILE uses that one); fails when one misses 15%.
BENCH_OWN_WORK_CALIBRATION = $(or $(BENCH_CALIBRATION),$(CURDIR)/$(B)/bench/calibration-own-work)

.PHONY: bench-own-work
bench-own-work: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@echo "== the relocation model on programs whose main spins without moving memory"
	@mkdir -p $(B)/bench
	@[ -n "$(BENCH_CALIBRATION)" ] || ./$(LDPROF) calibrate -o $(BENCH_OWN_WORK_CALIBRATION) \
		> $(B)/bench/calibration-own-work.log 2>&1 || \
		{ cat $(B)/bench/calibration-own-work.log; exit 1; }
	@LDPROF_CALIBRATION=$(BENCH_OWN_WORK_CALIBRATION) tools/bench-own-work.py \
		--ldprof ./$(LDPROF) || $(call bench_goal,bench-own-work)
	@echo

BENCHES += bench-own-work

# One calibration, then each program in 3 blocks against it, and a second
# calibration after the runs that shows how far the machine moved the model
# meanwhile (the "after" column): the form of bench-reloc before the sessions.
BENCH_RELOC_CALIBRATION := $(B)/bench/calibration-reloc

.PHONY: bench-reloc-once
bench-reloc-once: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@mkdir -p $(B)/bench
	@echo "== the relocation model's residual on real programs (one calibration, made here)"
	@./$(LDPROF) calibrate -o $(BENCH_RELOC_CALIBRATION) > $(B)/bench/calibration-reloc.log 2>&1 || \
		{ cat $(B)/bench/calibration-reloc.log; exit 1; }
	@grep '^r2 ' $(BENCH_RELOC_CALIBRATION) | sed 's/^/   calibration /'
	@LDPROF_CALIBRATION=$(CURDIR)/$(BENCH_RELOC_CALIBRATION) tools/bench-reloc.py --recalibrate \
		--ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc-once)
	@echo

# The same in the first-start state: the calibration and the runs with the
# CPU caches emptied before each run (--cold-cache, docs/model.md, "The
# cache state").
BENCH_RELOC_COLD_CALIBRATION := $(B)/bench/calibration-reloc-cold

.PHONY: bench-reloc-cold
bench-reloc-cold: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@mkdir -p $(B)/bench
	@echo "== the relocation model's residual on real programs, the caches emptied before each run"
	@./$(LDPROF) calibrate --cold-cache -o $(BENCH_RELOC_COLD_CALIBRATION) \
		> $(B)/bench/calibration-reloc-cold.log 2>&1 || \
		{ cat $(B)/bench/calibration-reloc-cold.log; exit 1; }
	@grep '^r2 ' $(BENCH_RELOC_COLD_CALIBRATION) | sed 's/^/   calibration /'
	@LDPROF_CALIBRATION=$(CURDIR)/$(BENCH_RELOC_COLD_CALIBRATION) tools/bench-reloc.py --cold-cache \
		--recalibrate --ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc-cold)
	@echo

BENCHES += bench-reloc-cold

# The same programs measured in a calibration's own rounds (calibrate
# --check): the model's residual with the machine in one state for it and
# the fit, and the cache state the calibration prices (docs/model.md, "In
# the calibration's own rounds").
.PHONY: bench-reloc-rounds
bench-reloc-rounds: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@echo "== the relocation model's residual on real programs, in the calibration's own rounds"
	@tools/bench-reloc.py --rounds --ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc-rounds)
	@echo

BENCHES += bench-reloc-rounds

# The split, object by object, against uprobes on ld.so's _dl_relocate_object
# (perf probe; needs root, says "skipped" without it).
.PHONY: bench-reloc-objects
bench-reloc-objects: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@mkdir -p $(B)/bench
	@echo "== the relocation model's split, object by object, against uprobes"
	@./$(LDPROF) calibrate -o $(B)/bench/calibration-reloc-objects \
		> $(B)/bench/calibration-reloc-objects.log 2>&1 || \
		{ cat $(B)/bench/calibration-reloc-objects.log; exit 1; }
	@LDPROF_CALIBRATION=$(CURDIR)/$(B)/bench/calibration-reloc-objects tools/bench-reloc.py --objects \
		--ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc-objects)
	@echo

BENCHES += bench-reloc-objects

# The counts against callgrind's instructions, object by object
# (tools/reloc-instructions.py: an instruction cost per count fitted on the
# calibration's synthetic programs; goal: every object within 15%).
.PHONY: bench-reloc-instructions
bench-reloc-instructions: $(LDPROF) $(SHIM_LIBS) tools/gen-reloc-lib
	@echo "== the relocation model's counts against callgrind's instructions, object by object"
	@tools/reloc-instructions.py --ldprof ./$(LDPROF) || $(call bench_goal,bench-reloc-instructions)
	@echo

BENCHES += bench-reloc-instructions
