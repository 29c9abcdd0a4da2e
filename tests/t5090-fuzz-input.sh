#!/bin/sh
# The libFuzzer targets for what ldprof reads from others (fuzz/fuzz.mk,
# with AddressSanitizer and UBSan): trace files through report's entry and
# renderers (fuzz-tracefile), the shim's record buffer through its
# decoder and the run analysis (fuzz-records), calibration files
# through model_read and back (fuzz-calibration), and static archives
# through the replay of a static link (fuzz-archive). Each runs over its seed
# corpus (real traces and buffers, and every input a fuzzer once crashed
# on, in fuzz/regressions/), then fuzzes for LDPROF_FUZZ_SECONDS (default
# 8): no crash, leak, timeout or excessive memory.
. "$(dirname "$0")/lib.sh"

FUZZ=$FIXTURES/../fuzz
SECONDS_=${LDPROF_FUZZ_SECONDS:-8}
cd "$TMP" || exit 1
for target in tracefile records calibration archive; do
	bin=$FUZZ/fuzz-$target corpus=$FUZZ/corpus-$target
	if [ ! -x "$bin" ]; then
		skip "fuzz-$target: no fuzz target (clang with libclang-rt is needed to build it)"
		continue
	fi
	check "fuzz-$target: the seed corpus holds real inputs and the regressions" \
		test -f "$corpus/.seeded" -a "$(find "$corpus" -type f ! -name .seeded | wc -l)" -gt 5
	if "$bin" -runs=0 -timeout=10 -rss_limit_mb=2048 "$corpus" >"$TMP/run" 2>&1; then
		ok "fuzz-$target: every corpus input runs clean"
	else
		not_ok "fuzz-$target: every corpus input runs clean"
		grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==" "$TMP/run" | head -20 | sed 's/^/# /'
	fi
	# New inputs go to a scratch copy, not to the build's corpus.
	rm -rf "$TMP/corpus" && mkdir "$TMP/corpus" && cp "$corpus"/* "$TMP/corpus/"
	# As fuzz/fuzz.mk runs it: small traces, whose reports are quick.
	max_len=-max_len=0
	[ "$target" = tracefile ] && max_len=-max_len=4096
	if "$bin" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"$max_len" "$TMP/corpus" >"$TMP/fuzz" 2>&1; then
		ok "fuzz-$target: fuzzing for ${SECONDS_}s finds nothing ($(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/fuzz") inputs)"
	else
		not_ok "fuzz-$target: fuzzing for ${SECONDS_}s finds nothing"
		grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==|Test unit written" "$TMP/fuzz" | head -20 | sed 's/^/# /'
	fi
done
done_testing
