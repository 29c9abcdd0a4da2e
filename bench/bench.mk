# make bench: benchmarks that print side-by-side ratios from one run (the
# machines are shared and noisy, so absolute times mean little). Each
# fragment bench/*.mk adds its targets to BENCHES.

BENCHES :=

# $(call bench_goal,NAME): what a goal bench runs when its tool exits
# non-zero (a goal missed, or the bench could not run): records NAME for
# make bench's summary, then fails.
bench_goal = { [ -z "$(BENCH_MISSED)" ] || echo $(1) >> "$(BENCH_MISSED)"; exit 1; }

# run.mk first: it defines what the others name in their prerequisites
# (ABEXEC, the shim's paths), which make expands as it reads each rule.
include bench/run.mk
include $(filter-out bench/bench.mk bench/run.mk,$(wildcard bench/*.mk))

# A bench that holds a goal (bench-verdict, bench-reloc) exits non-zero
# when the goal is missed, so that `make bench-verdict` alone says so. make
# bench runs every bench all the same (-k: one missed goal must not hide
# the other benches' tables), then names the goals missed and exits 1.
bench: all
	@rm -f $(B)/bench/missed
	@mkdir -p $(B)/bench
	@st=0; $(MAKE) --no-print-directory -k $(BENCHES) \
		BENCH_MISSED=$(CURDIR)/$(B)/bench/missed || st=$$?; \
	if [ -s $(B)/bench/missed ]; then \
		echo "make bench: goals missed: $$(tr '\n' ' ' < $(B)/bench/missed)"; exit 1; \
	elif [ $$st -ne 0 ]; then \
		echo "make bench: a bench failed (above)"; exit 1; \
	fi; echo "make bench: every goal held"
