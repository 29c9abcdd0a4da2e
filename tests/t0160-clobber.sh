#!/bin/sh
# A program that overwrites its record buffer (a stray memset) gets its
# runs' data dropped and counted, never garbage: no raw errno, no phase
# longer than the run. (The old launcher said "cannot execute: Unknown
# error -1515870811", or showed no phases and no reason.)
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/run-clobber/prog
for from in 0 128; do
	what=$([ "$from" = 0 ] && echo "header and records" || echo "records only")
	"$LDPROF" -n 4 --no-overhead "$prog" "$from" >"$TMP/out" 2>"$TMP/err"
	check "$what: runs" test $? -eq 0
	check "$what: says so" grep -q '4 runs had corrupt shim data' "$TMP/out"
	check "$what: no raw errno" sh -c '! grep -q "Unknown error" "$1" "$2"' sh "$TMP/out" "$TMP/err"
	"$LDPROF" -n 4 --no-overhead --json "$prog" "$from" >"$TMP/j" 2>"$TMP/err"
	expect_eq "$what: no valid run" 0 "$(json_get "$TMP/j" '["valid_runs"]')"
	total=$(json_get "$TMP/j" "['total_us']['median']")
	check "$what: the total is a real run's ($total us < 1 s)" \
		awk -v t="$total" 'BEGIN { exit !(t > 0 && t < 1e6) }'
	expect_eq "$what: no phase is reported from the garbage" "[]" \
		"$(json_eval "$TMP/j" "[p['name'] for p in d['phases'] if p['median_us'] is not None and p['runs']]")"
done
# The verdict survives a trace file: record, then report.
"$LDPROF" record -n 4 --no-overhead -o "$TMP/t.ldprof" "$prog" 0 >"$TMP/out" 2>"$TMP/err"
check "record: runs" test $? -eq 0
"$LDPROF" report "$TMP/t.ldprof" >"$TMP/out" 2>"$TMP/err"
check "report of the recorded trace says so too" grep -q '4 runs had corrupt shim data' "$TMP/out"
done_testing
