#!/bin/sh
# The shared cache's state through the runs (analyzer/base/cacheprobe.h):
# every counted run carries a probe reading, and a process streaming
# through the cache on the other CPU (dd with a 128 MiB buffer) makes the
# runs read contended, which the JSON counts, the text report says, and a
# trace file keeps.
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/run-diamond/prog
# A calibration whose only figure that matters here is the machine's
# fastest hot reading, taken from a short run of this machine.
"$LDPROF" run -n 5 -w 0 --json "$prog" >"$TMP/calm.json" 2>"$TMP/calm.err"
check "a run with the probe exits 0" test $? -eq 0
expect_eq "every counted run is probed" 5 "$(json_eval "$TMP/calm.json" "d['shared_cache']['probed_runs']")"
check "the readings are positive" test "$(json_eval "$TMP/calm.json" \
	"d['shared_cache']['line_ns'] > 0 and d['shared_cache']['line_hot_ns'] > 0")" = true
check "the residual says which runs it holds the model to" test "$(json_eval "$TMP/calm.json" \
	"d['reloc_model']['measured_runs'] in ('all', 'uncontended')")" = true
# The fastest hot reading, this session's or the calibration's: a tenant
# sharing the core slowed every hot pass of a short session to 70 ns once
# (the calibration's: 11 ns), and three times that is no contention.
hot=$(json_eval "$TMP/calm.json" "d['shared_cache']['line_hot_ns']")
use_calibration
hot=$(awk -v h="$hot" '$1 == "line_ns" && $3 > 0 && $3 < h { h = $3 } END { print h }' "$LDPROF_CALIBRATION")
grep -v '^line_ns ' "$LDPROF_CALIBRATION" >"$TMP/calibration"
printf 'line_ns %s %s 0\n' "$hot" "$hot" >>"$TMP/calibration"

# dd streams 128 MiB through the cache per read of /dev/zero, on the other CPU.
dd if=/dev/zero of=/dev/null bs=128M count=100000 2>/dev/null &
dd=$!
trap 'kill $dd 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.2
LDPROF_CALIBRATION=$TMP/calibration "$LDPROF" record -n 10 -w 0 -o "$TMP/busy.ldprof" "$prog" \
	>/dev/null 2>"$TMP/record.err"
check "record under the streaming load exits 0" test $? -eq 0
kill $dd 2>/dev/null
wait $dd 2>/dev/null
LDPROF_CALIBRATION=$TMP/calibration "$LDPROF" report --json "$TMP/busy.ldprof" >"$TMP/busy.json"
busy=$(json_eval "$TMP/busy.json" "d['shared_cache']['contended_runs']")
check "the streaming load makes runs read contended ($busy of 10; fastest hot $hot ns)" \
	test "${busy:-0}" -ge 5
diag "$(json_eval "$TMP/busy.json" "d['shared_cache']")"
LDPROF_CALIBRATION=$TMP/calibration "$LDPROF" report "$TMP/busy.ldprof" >"$TMP/busy.txt"
check "the text report says so" grep -q "the shared cache was contended in $busy of 10 runs" "$TMP/busy.txt"
check "a calm calibration earns no note about itself" sh -c "! grep -q 'the calibration ran with the shared cache contended' '$TMP/busy.txt'"

# A calibration made while the cache was contended says so in every report.
grep -v '^line_ns ' "$TMP/calibration" >"$TMP/contended-calibration"
printf 'line_ns 120 %s 100\n' "$hot" >>"$TMP/contended-calibration"
LDPROF_CALIBRATION=$TMP/contended-calibration "$LDPROF" record -n 3 -w 0 -o "$TMP/note.ldprof" \
	"$prog" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/note.ldprof" >"$TMP/note.json"
expect_eq "a calibration made contended is noted, from the trace file too" true \
	"$(json_eval "$TMP/note.json" \
	"any('the calibration ran with the shared cache contended in 100% of its runs' in n for n in d['notes'])")"
done_testing
