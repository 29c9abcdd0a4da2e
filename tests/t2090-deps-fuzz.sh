#!/bin/sh
# The libFuzzer target fuzz/fuzz-deps.c (parser and binding simulation, with
# AddressSanitizer and UBSan; fuzz/fuzz.mk) runs over its seed corpus, from the
# fixtures and the malformed files, then fuzzes for LDPROF_FUZZ_SECONDS
# (default 20): no crash, leak, timeout or excessive memory.
. "$(dirname "$0")/lib.sh"

FUZZ=$FIXTURES/../fuzz
BIN=$FUZZ/fuzz-deps
SECONDS_=${LDPROF_FUZZ_SECONDS:-20}
if [ ! -x "$BIN" ]; then
	skip "no fuzz target (clang with libclang-rt is needed to build it)"
	done_testing
	exit
fi
check "the seed corpus was built" test -f "$FUZZ/corpus-deps/.seeded"
check "the corpus holds the fixtures and the malformed files" \
	test "$(find "$FUZZ/corpus-deps" -type f -name 'deps-*' | wc -l)" -gt 20 -a \
	"$(find "$FUZZ/corpus-deps" -type f -name 'bad_*' | wc -l)" -gt 20

cd "$TMP" || exit 1
if "$BIN" -runs=0 -timeout=10 -rss_limit_mb=2048 "$FUZZ/corpus-deps" >"$TMP/run" 2>&1; then
	ok "every corpus input runs clean ($(sed -n 's/.*Done \([0-9]*\) runs.*/\1/p' "$TMP/run") runs)"
else
	not_ok "every corpus input runs clean"
	grep -E "ERROR|SUMMARY|==[0-9]+==" "$TMP/run" | head -20 | sed 's/^/# /'
fi

# New inputs go to a scratch copy, not to the build's corpus.
mkdir "$TMP/corpus"
cp "$FUZZ"/corpus-deps/* "$TMP/corpus/"
if "$BIN" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	"$TMP/corpus" >"$TMP/fuzz" 2>&1; then
	ok "fuzzing for ${SECONDS_}s finds nothing ($(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/fuzz") inputs)"
else
	not_ok "fuzzing for ${SECONDS_}s finds nothing"
	grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$TMP/fuzz" | head -20 | sed 's/^/# /'
fi
done_testing
