# make bench: benchmarks that print side-by-side ratios from one run (the
# machines are shared and noisy, so absolute times mean little). Each
# fragment bench/*.mk adds its targets to BENCHES.

BENCHES :=
include $(filter-out bench/bench.mk,$(wildcard bench/*.mk))

bench: all $(BENCHES)
