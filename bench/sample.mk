# make bench-sample: what `ldprof run --sample` costs the runs it samples
# (a sampled run against a plain one), and that the timed runs show no
# difference with sampling on or off (tools/bench-sample.py).

BENCH_SAMPLE_ROUNDS ?= 6
BENCH_SAMPLE_RUNS ?= 200

.PHONY: bench-sample
bench-sample: $(LDPROF) $(SHIM_LIBS) $(SAMPLES)
	@echo "== ldprof run --sample: samples/sh.dynamic samples/foo"
	@python3 tools/bench-sample.py $(CURDIR)/$(LDPROF) $(BENCH_SAMPLE_ROUNDS) $(BENCH_SAMPLE_RUNS) \
		$(CURDIR)/samples/sh.dynamic $(CURDIR)/samples/foo
	@echo

BENCHES += bench-sample
