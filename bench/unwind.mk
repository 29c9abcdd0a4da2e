# make bench-unwind: samples unwound and symbolised per second by the stack
# layer (analyzer/stack), on real samples of the sample shell captured the
# way ldprof --sample takes them (bench/unwind-capture.c). The issue's goal:
# 100,000 samples in <= 2 s.

BENCH_UNWIND_SAMPLES ?= 100000
BENCH_UNWIND_CAPTURE ?= 20000
UNWIND_BENCH := $(B)/bench/unwind-bench

$(UNWIND_BENCH): bench/unwind-bench.c bench/unwind-capture.c bench/unwind-capture.h $(ANALYZER_LIB)
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -o $@ bench/unwind-bench.c bench/unwind-capture.c $(ANALYZER_LIB) \
		$(ANALYZER_LIBS)

.PHONY: bench-unwind
bench-unwind: $(UNWIND_BENCH) $(SAMPLES)
	@echo "== unwinding and symbolising: samples/sh.dynamic samples/foo"
	@$(UNWIND_BENCH) -n $(BENCH_UNWIND_SAMPLES) -c $(BENCH_UNWIND_CAPTURE) \
		$(CURDIR)/samples/sh.dynamic $(CURDIR)/samples/foo || $(call bench_goal,bench-unwind)
	@echo

BENCHES += bench-unwind
