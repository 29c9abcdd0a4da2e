# make bench: `ldprof deps --bindings` over every dynamic ELF program in
# /usr/bin as text, JSON and pretty JSON, against `ldd -r` on each, side by
# side, with issue 11's goals checked (JSON within 2x of text, at least 10x
# faster than ldd -r), and the other outputs' text against JSON
# (tools/deps-bench.py).
# make oracle: ldprof deps against ld.so itself on every dynamic ELF program
# in /usr/bin; prints the agreement rate (tools/oracle-deps.py).
DEPS_BENCH_DIR ?= /usr/bin

.PHONY: deps-bench oracle
BENCHES += deps-bench

$(B)/deps-maxrss: tools/deps-maxrss.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $<

deps-bench: $(LDPROF) $(B)/deps-maxrss
	python3 tools/deps-bench.py --ldprof $(CURDIR)/$(LDPROF) --maxrss $(CURDIR)/$(B)/deps-maxrss \
		--dir $(DEPS_BENCH_DIR) || $(call bench_goal,deps-bench)

oracle: $(LDPROF)
	python3 tools/deps-bench.py --list-only --dir $(DEPS_BENCH_DIR) >$(B)/oracle-programs
	python3 tools/oracle-deps.py --ldprof $(CURDIR)/$(LDPROF) --quiet --summary \
		$$(cat $(B)/oracle-programs)
