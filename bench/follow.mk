# Benchmarks for `ldprof -f`: its overhead on the 2003 harness (100
# iterations, 203 execs a run) against plain runs of it, interleaved
# (tools/bench-follow.py). The issue's goal is 5%.

BENCH_FOLLOW_ROUNDS ?= 30

.PHONY: bench-follow
bench-follow: $(LDPROF) $(SHIM_LIBS) $(SAMPLES)
	@echo "== ldprof -f overhead: samples/harness.sh ./sh.dynamic 100"
	@cd samples && python3 ../tools/bench-follow.py $(CURDIR)/$(LDPROF) $(BENCH_FOLLOW_ROUNDS) \
		./harness.sh ./sh.dynamic 100
	@echo

BENCHES += bench-follow
