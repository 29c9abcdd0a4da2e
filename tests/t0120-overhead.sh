#!/bin/sh
# The report states the shim's own cost, measured against interleaved
# plain runs, and the page faults it adds; --no-overhead skips it.
. "$(dirname "$0")/lib.sh"

"$LDPROF" -n 40 "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/t" 2>&1
check "the text states the overhead" \
	grep -Eq '^  shim overhead: [-+][0-9.]+ (µs|ms) \([-+][0-9.]+%\), [-+][0-9]+ page faults per run, against 40 plain runs$' "$TMP/t"
"$LDPROF" -n 40 --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j"
o=$(json_get "$TMP/j" '["overhead_us"]')
t=$(json_get "$TMP/j" '["plain_total_us"]["median"]')
# The shim costs something, and far less than the program.
check "overhead is plausible ($o us of $t us)" awk -v o="$o" -v t="$t" 'BEGIN { exit !(o > -0.05 * t && o < 0.5 * t) }'
"$LDPROF" -n 3 --no-overhead --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j"
expect_eq "--no-overhead: no plain runs" 0 "$(json_get "$TMP/j" '["plain_runs"]')"
expect_eq "--no-overhead: no figure" null "$(json_get "$TMP/j" '["overhead_us"]')"
done_testing
