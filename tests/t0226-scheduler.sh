#!/bin/sh
# The scheduler's preemptions through the runs (analyzer/model/sched-state.h):
# a program that computes for about 30 ms on a CPU that a busy loop shares
# cannot finish without the scheduler giving the loop its turn, so every one
# of its runs is preempted: the JSON counts them (wait4's ru_nivcsw), per run
# too, the text report says so under the total, the verdict says what a
# machine this busy does to it, and a trace file keeps the counts.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/compute.c" <<'EOC'
int main(void)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < 60000000UL; i++)
		x += i;
	return 0;
}
EOC
cc -O1 -o "$TMP/compute" "$TMP/compute.c"
check "the computing program builds" test -x "$TMP/compute"

taskset -c 0 sh -c 'while :; do :; done' &
loop=$!
trap 'kill $loop 2>/dev/null; rm -rf "$TMP"' EXIT
use_calibration
taskset -c 0 "$LDPROF" record -n 3 -w 0 --fixed-runs 0 -o "$TMP/busy.ldprof" "$TMP/compute" \
	>/dev/null 2>"$TMP/record.err"
check "record beside a busy loop on the same CPU exits 0" test $? -eq 0
kill $loop 2>/dev/null
wait $loop 2>/dev/null
"$LDPROF" report --json "$TMP/busy.ldprof" >"$TMP/busy.json"
diag "$(json_eval "$TMP/busy.json" "d['scheduler']")"
expect_eq "every counted run, profiled and plain, has a count" 6 \
	"$(json_eval "$TMP/busy.json" "d['scheduler']['runs']")"
expect_eq "every run was preempted" 6 "$(json_eval "$TMP/busy.json" "d['scheduler']['preempted_runs']")"
expect_eq "and each says how often" true \
	"$(json_eval "$TMP/busy.json" "all(r['preemptions'] >= 1 for r in d['per_run'])")"
expect_eq "the preempted runs' total is given, the others' is not" true \
	"$(json_eval "$TMP/busy.json" \
	"d['scheduler']['total_preempted_us'] > 0 and d['scheduler']['total_other_us'] is None")"
expect_eq "the verdict says what the preemptions do to it" true \
	"$(json_eval "$TMP/busy.json" "any('the scheduler preempted 6 of 6 runs' in n for n in d['notes'])")"
"$LDPROF" report "$TMP/busy.ldprof" >"$TMP/busy.txt"
check "the text report says so under the total" \
	grep -q "^  the scheduler preempted 6 of 6 runs for another task$" "$TMP/busy.txt"

# Run as it comes: the share and the verdict's note agree.
"$LDPROF" run -n 5 -w 0 --fixed-runs 0 --json "$FIXTURES/run-diamond/prog" >"$TMP/calm.json"
expect_eq "a note iff at least half the runs were preempted" true \
	"$(json_eval "$TMP/calm.json" "(d['scheduler']['preempted_pct'] >= 50) == any('the scheduler preempted' in n for n in d['notes'])")"
# per_run[] holds the 5 profiled runs; the plain ones are counted as well.
expect_eq "the count holds the per-run ones and the plain runs'" true \
	"$(json_eval "$TMP/calm.json" "d['scheduler']['runs'] == 10 and 0 <= d['scheduler']['preempted_runs'] - sum(r['preemptions'] > 0 for r in d['per_run']) <= 5")"
done_testing
