#!/bin/sh
# The shared cache's state through the runs (analyzer/base/cacheprobe.h):
# every counted run carries a probe reading, and a process streaming
# through the cache on the other CPU (a 128 MiB buffer) makes the
# runs read contended, which the JSON counts, the text report says, and a
# trace file keeps.
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/run-diamond/prog
# A calibration whose only figure that matters here is the machine's
# fastest hot reading, taken from a short run of this machine.
"$LDPROF" run -n 5 -w 0 --fixed-runs 0 --json "$prog" >"$TMP/calm.json" 2>"$TMP/calm.err"
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
grep -v "^line_ns \|^priced_line_ns " "$LDPROF_CALIBRATION" >"$TMP/hot-calibration"
printf 'line_ns %s %s 0\n' "$hot" "$hot" >>"$TMP/hot-calibration"
# ...whose fit's runs read the cache calm (as fast as hot): the state its
# price of a cold line holds for.
printf 'priced_line_ns %s\n' "$hot" >>"$TMP/hot-calibration"

# A streamer reads and writes a 128 MiB buffer a line at a time and says
# when its first pass is done (faulting the buffer in takes half a second
# where a page fault costs 15 us, longer than the runs). It shares the
# CPU the runs are pinned to, so that it streams through the caches while
# the probe idles: on the other CPU it did not always reach the cache the
# runs read (dd streaming 128 MiB there, which this test used, left the
# probe's buffer cached in 7 of 9 tries on a machine whose two vCPUs the
# host may place under different L3s).
cat >"$TMP/stream.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	size_t n = (size_t)128 << 20;
	volatile char *b = malloc(n);

	if (!b)
		return 1;
	for (int pass = 0;; pass++) {
		for (size_t i = 0; i < n; i += 64)
			b[i]++;
		if (!pass && (puts("streaming") < 0 || fflush(stdout)))
			return 1;
	}
}
EOF
cc -O2 -o "$TMP/stream" "$TMP/stream.c"
taskset -c 0 nice -n 19 "$TMP/stream" >"$TMP/streaming" &
streamer=$!
trap 'kill $streamer 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
	[ -s "$TMP/streaming" ] && break
	sleep 0.1
done
check "the streamer streams" test -s "$TMP/streaming"
LDPROF_CALIBRATION=$TMP/hot-calibration taskset -c 0 "$LDPROF" record -n 10 -w 0 --fixed-runs 0 -o "$TMP/busy.ldprof" "$prog" \
	>/dev/null 2>"$TMP/record.err"
check "record under the streaming load exits 0" test $? -eq 0
kill $streamer 2>/dev/null
wait $streamer 2>/dev/null
LDPROF_CALIBRATION=$TMP/hot-calibration "$LDPROF" report --json "$TMP/busy.ldprof" >"$TMP/busy.json"
busy=$(json_eval "$TMP/busy.json" "d['shared_cache']['contended_runs']")
check "the streaming load makes runs read contended ($busy of 10; fastest hot $hot ns)" \
	test "${busy:-0}" -ge 5
diag "$(json_eval "$TMP/busy.json" "d['shared_cache']")"
LDPROF_CALIBRATION=$TMP/hot-calibration "$LDPROF" report "$TMP/busy.ldprof" >"$TMP/busy.txt"
check "the text report says so" grep -q "the shared cache was contended in $busy of 10 runs" "$TMP/busy.txt"
# A cold line is priced in the runs' state: the calibration's price plus
# what the probe read a line slower in the runs the residual is held to
# (all of them, unless the calm ones are enough) than in the fit's runs.
expect_eq "the cold line's price follows the runs' reading" true "$(json_eval "$TMP/busy.json" \
	"(lambda m, c: m['cold_line_calibrated_us'] is not None and m['priced_line_ns'] > 0 and \
	 m['coef_us']['cold_lines'] > m['cold_line_calibrated_us'] and \
	 (m['measured_runs'] != 'all' or abs(m['coef_us']['cold_lines'] - max(m['coef_us']['warm_lines'], \
	  m['cold_line_calibrated_us'] + (c['line_ns'] - m['priced_line_ns']) / 1000)) < 1e-6))( \
	 d['reloc_model'], d['shared_cache'])")"
check "the text report gives both prices" grep -q "a cold line priced at .* ns in the runs' state" "$TMP/busy.txt"
check "a calm calibration earns no note about itself" sh -c "! grep -q 'the calibration ran with the shared cache contended' '$TMP/busy.txt'"
expect_eq "a calm calibration's residual is held to the calm runs, or all of them" true \
	"$(json_eval "$TMP/busy.json" "d['reloc_model']['measured_runs'] == ('uncontended' if 0 < $busy <= 5 else 'all')")"

# A calibration made while the cache was contended says so in every report.
grep -v "^line_ns " "$TMP/hot-calibration" >"$TMP/contended-calibration"
printf 'line_ns 120 %s 100\n' "$hot" >>"$TMP/contended-calibration"
LDPROF_CALIBRATION=$TMP/contended-calibration "$LDPROF" record -n 3 -w 0 --fixed-runs 0 -o "$TMP/note.ldprof" \
	"$prog" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/note.ldprof" >"$TMP/note.json"
expect_eq "a calibration made contended is noted, from the trace file too" true \
	"$(json_eval "$TMP/note.json" \
	"any('the calibration ran with the shared cache contended in 100% of its runs' in n for n in d['notes'])")"
done_testing
