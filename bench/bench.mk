# make bench: benchmarks that print side-by-side ratios from one run (the
# machines are shared and noisy, so absolute times mean little). Each
# fragment bench/*.mk adds its targets to BENCHES.

BENCHES :=
# run.mk first: it defines what the others name in their prerequisites
# (ABEXEC, the shim's paths), which make expands as it reads each rule.
include bench/run.mk
include $(filter-out bench/bench.mk bench/run.mk,$(wildcard bench/*.mk))

bench: all $(BENCHES)
