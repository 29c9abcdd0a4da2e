#!/bin/sh
# The text report, with times, counts and bars normalised, against a golden
# file: labels, rows, their order and units are stable.
. "$(dirname "$0")/lib.sh"

normalise() {
	# The shared cache's state comes and goes with the machine's other tenants.
	sed -E -e '/the shared cache (was )?contended in/d' -e '/the scheduler preempted/d' \
		-e 's/ in the runs the shared cache was (not contended|contended, as in the calibration)//' \
		-e "s|$FIXTURES|FIXTURES|g" -e 's/[-+]?[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/N (µs|ms|s)([] ,;)]|$)/N T\2/g' \
		-e 's/(▏|▎|▍|▌|▋|▊|▉|█)+//g' -e 's/ +/ /g' -e 's/ $//' |
		# Recommendations are ranked by saving, which varies: compare them as a set.
		awk '/recommendations,/ { print; rec = 1; next }
			rec && /^ N T / { print | "sort"; next }
			{ if (rec) { close("sort"); rec = 0 } print }'
}

# Ten runs: the golden text holds the verdict's judgement (t5000).
"$LDPROF" -n 10 -w 1 "$FIXTURES/run-diamond/prog" >"$TMP/raw" 2>&1
check "runs" test $? -eq 0
normalise <"$TMP/raw" >"$TMP/text"
expect_golden "text report (tests/golden/run-diamond.txt)" "$TOP/tests/golden/run-diamond.txt" \
	"$TMP/text"

"$LDPROF" -n 3 -w 0 --color=always --no-overhead "$FIXTURES/run-diamond/prog" >"$TMP/color"
check "--color=always colours" grep -q "$(printf '\033')\[1m" "$TMP/color"
# NO_COLOR empty counts as unset: only the missing terminal keeps colour off.
NO_COLOR='' "$LDPROF" -n 3 -w 0 --no-overhead "$FIXTURES/run-diamond/prog" >"$TMP/nocolor"
check "no colour when not a terminal" sh -c "! grep -q '$(printf '\033')' '$TMP/nocolor'"
LC_ALL=C "$LDPROF" -n 3 -w 0 --no-overhead "$FIXTURES/run-diamond/prog" >"$TMP/ascii"
check "ASCII units without UTF-8" grep -q ' us' "$TMP/ascii"
check "ASCII bars without UTF-8" sh -c "! grep -q 'µ' '$TMP/ascii'"
done_testing
