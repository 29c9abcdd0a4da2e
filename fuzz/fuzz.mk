# libFuzzer targets (fuzz/fuzz-*.c), each with a seed corpus that make
# builds from real files:
#   fuzz-deps       the ELF parser and the binding simulation (`ldprof deps`);
#                   seeds: the deps fixtures and tools/deps-mkbad.py's mutants
#   fuzz-tracefile  a trace file through report's entry (saved_trace_open)
#                   and the text, JSON, folded, chrome and HTML renderers;
#                   seeds: traces recorded from the run fixtures (one with
#                   --sample's samples), whole, cut short, and as their
#                   sections in the clear (fuzz/seed-tracefile.c)
#   fuzz-records    the shim's shared-memory record buffer through its
#                   decoder and the run analysis, follow mode's per process
#                   too; seeds: buffers the real shim filled, two in follow
#                   mode (fuzz/seed-records.c)
#   fuzz-archive    a static archive through the replay of a static link
#                   (model/static-archives.h), seeded with the fixtures' libinl.a;
#   fuzz-calibration  a calibration file through model_read, and what reads
#                   written back and read again; seeds: a calibration of
#                   the reference machine (fuzz/seed-calibration), whole,
#                   cut short, without its fit or part of it, from before
#                   libc and deep probes were counted, with a NaN
# fuzz/regressions/TARGET/ holds what the fuzzers found (each fixed), as
# seeds too. `make fuzz` fuzzes each for FUZZ_SECONDS; `make check` runs each corpus and
# fuzzes briefly (t2090, t5090). The analyzer is compiled once more for
# them, with coverage and AddressSanitizer/UBSan, under $(B)/fuzz/obj.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 300
FUZZ_DIR := $(B)/fuzz
FUZZ_TARGETS := deps tracefile records calibration archive
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz-%)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 $(FUZZ_SAN) -Ianalyzer -Ipreload/include \
	      -DLDPROF_PKGLIBDIR='"$(PKGLIBDIR)"' \
	      $(shell $(PKG_CONFIG) --cflags $(ANALYZER_PKGS))
# Whether FUZZ_CC links a libFuzzer target (clang with libclang-rt).
HAVE_FUZZ_CC := $(shell echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) \
		  { (void)d; (void)n; return 0; }' | $(FUZZ_CC) -fsanitize=fuzzer -x c \
		  -o /dev/null - >/dev/null 2>&1 && echo yes)

# Every layer below the commands, instrumented.
FUZZ_LIB_SRCS := $(filter-out analyzer/cmd/%,$(ANALYZER_LIB_SRCS))
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:analyzer/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB := $(FUZZ_DIR)/libldprof-fuzz.a

$(FUZZ_DIR)/obj/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
$(FUZZ_BINS): $(FUZZ_DIR)/fuzz-%: fuzz/fuzz-%.c $(FUZZ_LIB) fuzz/fuzz.mk
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(ANALYZER_LIBS)

# --- seeds for fuzz-deps: the deps fixtures and malformed ELF files ---------
DEPS_SEEDS = $(filter $(DFX)/deps-%,$(FIXTURES)) $(DL_LIBS:%=$(DL)/lib%.so) $(DV)/libver.so
$(FUZZ_DIR)/corpus-deps/.seeded: $(DEPS_SEEDS) tools/deps-mkbad.py
	rm -rf $(@D) $(FUZZ_DIR)/bad
	mkdir -p $(@D)
	for f in $(DEPS_SEEDS); do cp "$$f" "$(@D)/$$(echo "$${f#$(DFX)/}" | tr / _)"; done
	python3 tools/deps-mkbad.py $(FUZZ_DIR)/bad $(DL)/libgnu.so $(DL)/libsysv.so $(DV)/prog-default
	for f in $(FUZZ_DIR)/bad/*; do cp "$$f" "$(@D)/bad_$${f##*/}"; done
	touch $@

# --- seeds for fuzz-tracefile: short traces of the run fixtures -------------
FUZZ_TRACE_PROGS := $(RUNFIX)/run-diamond/prog $(RUNFIX)/run-dlopen/prog \
		    $(RUNFIX)/run-segv/prog $(TRACEFIX)/after/prog
$(FUZZ_DIR)/seed-tracefile: fuzz/seed-tracefile.c $(ANALYZER_LIB)
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -o $@ $< $(ANALYZER_LIB) $(ANALYZER_LIBS)
$(FUZZ_DIR)/corpus-tracefile/.seeded: $(LDPROF) $(SHIM_LIBS) $(FUZZ_TRACE_PROGS) fuzz/fuzz.mk \
				      $(SAMPLEFIX)/prog \
				      $(FUZZ_DIR)/seed-tracefile \
				      $(wildcard fuzz/regressions/tracefile/*)
	rm -rf $(@D)
	mkdir -p $(@D)
	cp fuzz/regressions/tracefile/* $(@D)/
	for p in $(FUZZ_TRACE_PROGS); do \
		n=$$(echo "$${p#$(B)/fixtures/}" | tr / _); \
		./$(LDPROF) record -n 2 -w 1 --no-overhead -o $(@D)/$$n.ldprof $$p \
			>/dev/null 2>&1 || exit 1; \
		head -c 600 $(@D)/$$n.ldprof >$(@D)/$$n-cut.ldprof; \
	done
	./$(LDPROF) record -n 70 -w 0 --no-overhead -o $(@D)/long.ldprof $(RUNFIX)/run-diamond/prog \
		>/dev/null 2>&1
	./$(LDPROF) record --sample -n 2 -w 0 --no-overhead -o $(@D)/sampled.ldprof \
		$(SAMPLEFIX)/prog >/dev/null 2>&1
	for f in $(@D)/*.ldprof; do \
		case $$f in *-cut.ldprof) ;; \
		*) $(FUZZ_DIR)/seed-tracefile $$f $${f%.ldprof}.sections || exit 1;; esac; \
	done
	touch $@

# --- seeds for fuzz-records: buffers the real shim filled -------------------
FUZZ_RECORD_PROGS := $(RUNFIX)/run-diamond/prog $(RUNFIX)/run-dlopen/prog \
		     $(RUNFIX)/run-ctor-dtor/prog $(RUNFIX)/run-segv/prog $(TRACEFIX)/after/prog
$(FUZZ_DIR)/seed-records: fuzz/seed-records.c $(ANALYZER_LIB)
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -o $@ $< $(ANALYZER_LIB) $(ANALYZER_LIBS)
$(FUZZ_DIR)/corpus-records/.seeded: $(FUZZ_DIR)/seed-records $(SHIM_LIBS) $(FUZZ_RECORD_PROGS) \
				    $(FOLLOWFIX)/tree $(RUNFIX)/run-fork/prog \
				    $(wildcard fuzz/regressions/records/*)
	rm -rf $(@D)
	mkdir -p $(@D)
	cp fuzz/regressions/records/* $(@D)/
	for p in $(FUZZ_RECORD_PROGS); do \
		$(FUZZ_DIR)/seed-records $(@D)/$$(echo "$${p#$(B)/fixtures/}" | tr / _) \
			$(SHIM_AUDIT) $(SHIM_PRELOAD) $$p >/dev/null || exit 1; \
	done
	rm -f $(@D)/../seed-follow.log
	$(FUZZ_DIR)/seed-records -f $(@D)/follow-tree $(SHIM_AUDIT) $(SHIM_PRELOAD) \
		$(FOLLOWFIX)/tree top $(@D)/../seed-follow.log >/dev/null
	$(FUZZ_DIR)/seed-records -f $(@D)/follow-fork $(SHIM_AUDIT) $(SHIM_PRELOAD) \
		$(RUNFIX)/run-fork/prog $(RUNFIX)/run-ctor-dtor/prog >/dev/null
	touch $@

# --- seeds for fuzz-calibration: a real calibration and its variants -------
CAL_SEED := fuzz/seed-calibration
$(FUZZ_DIR)/corpus-calibration/.seeded: $(CAL_SEED) $(wildcard fuzz/regressions/calibration/*)
	rm -rf $(@D)
	mkdir -p $(@D)
	for f in $(wildcard fuzz/regressions/calibration/*); do cp "$$f" $(@D)/; done
	cp $(CAL_SEED) $(@D)/whole
	head -c 300 $(CAL_SEED) >$(@D)/cut
	grep -v '^coef ' $(CAL_SEED) >$(@D)/no-fit
	grep -v '^coef cold_lines' $(CAL_SEED) >$(@D)/no-cold-lines
	grep -v '^coef \(libc\|deep_probes\) ' $(CAL_SEED) >$(@D)/older
	sed 's/^coef relative .*/coef relative nan/' $(CAL_SEED) >$(@D)/nan
	sed 's/^noise_pct .*/noise_pct nan/' $(CAL_SEED) >$(@D)/noise-unknown
	touch $@

# --- seeds for fuzz-archive: the fixtures' archives, whole and broken ------
ARCHIVE_SEEDS := $(MODELFIX)/libinl.a
$(FUZZ_DIR)/corpus-archive/.seeded: $(ARCHIVE_SEEDS) $(wildcard fuzz/regressions/archive/*)
	rm -rf $(@D)
	mkdir -p $(@D)
	for f in $(wildcard fuzz/regressions/archive/*); do cp "$$f" $(@D)/; done
	cp $(MODELFIX)/libinl.a $(@D)/libinl
	head -c 4000 $(MODELFIX)/libinl.a >$(@D)/libinl-cut
	cd $(@D) && rm -rf x && mkdir x && cd x && ar x ../libinl && \
		ar rcs ../one-member inl-a.o && ar rc ../no-index inl-b.o && \
		cp inl-b.o ../an-object && cd .. && rm -rf x
	printf '!<arch>\n' >$(@D)/empty
	touch $@

# A trace's report costs milliseconds under the sanitizers, more with each run
# it holds: inputs of 4 KiB (a few runs) keep fuzz-tracefile near 1000 a second.
FUZZ_ARGS_tracefile := -max_len=4096

FUZZ_CORPORA := $(FUZZ_DIR)/corpus-deps/.seeded $(FUZZ_DIR)/corpus-tracefile/.seeded \
		$(FUZZ_DIR)/corpus-records/.seeded $(FUZZ_DIR)/corpus-calibration/.seeded \
		$(FUZZ_DIR)/corpus-archive/.seeded

.PHONY: fuzz
ifeq ($(HAVE_FUZZ_CC),yes)
# This fragment comes after tests.mk, whose rules have already expanded
# $(FIXTURES): the tests' prerequisites are added here.
check-shell fixtures: $(FUZZ_BINS) $(FUZZ_CORPORA)
# New inputs go to a scratch copy of each corpus, not into the seeds.
define fuzz_run
	@echo "fuzz-$1: $(FUZZ_SECONDS) s"
	rm -rf $(FUZZ_DIR)/run-$1 && mkdir -p $(FUZZ_DIR)/run-$1
	cp $(FUZZ_DIR)/corpus-$1/* $(FUZZ_DIR)/run-$1/
	$(FUZZ_DIR)/fuzz-$1 -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		$(FUZZ_ARGS_$1) -artifact_prefix=$(FUZZ_DIR)/crash-$1- -print_final_stats=1 \
		$(FUZZ_DIR)/run-$1

endef
fuzz: $(FUZZ_BINS) $(FUZZ_CORPORA)
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_run,$t))
else
fuzz:
	@echo "make fuzz: $(FUZZ_CC) cannot build libFuzzer targets (install clang and libclang-rt-14-dev)"; false
endif
