#!/bin/sh
# Each run's tree: ldprof is the subreaper, so the CPU time of the
# processes the program left behind counts in the run (per_run tree_cpu_us)
# when they end within 2 ms of it; one that runs on is left running, not
# waited for and not killed. When the program's processes started others,
# the verdict multiplies its saving by the runs' stretch (total over the
# tree's CPU), its part in parts_us.machine_load; one that runs alone is
# not stretched. record and report keep the tree's CPU time.
. "$(dirname "$0")/lib.sh"

export LDPROF_CALIBRATION="$TMP/absent"
# dash's loop of 20000 steps: about 15 ms of CPU on these machines.
# shellcheck disable=SC2016 # dash expands it, in the program's shell
burn='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'

# An orphan that burns CPU while the program sleeps, and ends before it:
# reaped by ldprof, its time in the tree's.
"$LDPROF" -n 3 --no-overhead --json /bin/sh -c "( ($burn) & ); sleep 0.2" >"$TMP/o.json" 2>"$TMP/o.err"
check "an orphan: runs" test $? -eq 0
# The top's own CPU is a millisecond or two; the orphan's loop, ten times that.
expect_eq "an orphan's CPU time counts in every run's tree" true \
	"$(json_eval "$TMP/o.json" "all(r['tree_cpu_us'] is not None and r['tree_cpu_us'] > 5000 for r in d['per_run'])")"
expect_eq "...and the top's own is not that" true \
	"$(json_eval "$TMP/o.json" "all(r['cpu_us'] is None or r['cpu_us'] < 5000 for r in d['per_run'])")"

# A child that outlives the program by a second: left running, not counted.
: >"$TMP/pids"
start=$(date +%s%N)
"$LDPROF" -n 3 --no-overhead --json /bin/sh -c "sleep 1 & echo \$! >>'$TMP/pids'" >"$TMP/l.json" 2>"$TMP/l.err"
check "a child left running: runs" test $? -eq 0
took=$((($(date +%s%N) - start) / 1000000))
alive=0
while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=$((alive + 1)); done <"$TMP/pids"
expect_eq "...not killed: every one still runs after ldprof returned" "$(wc -l <"$TMP/pids" | tr -d ' ')" "$alive"
check "...not waited for: ldprof returned before the first ended (${took} ms)" test "$took" -lt 1000
expect_eq "...and no run counts a tree it could not finish" true \
	"$(json_eval "$TMP/l.json" "any(r['tree_cpu_us'] is None for r in d['per_run'])")"

# A program that forks: the saving is the other parts times the stretch.
"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" \
	>"$TMP/f.json" 2>"$TMP/f.err"
check "a program that forks: runs" test $? -eq 0
expect_eq "its stretch is applied, and measured over its runs" "True True" \
	"$(json_eval "$TMP/f.json" "(lambda s: str(s['applied']) + ' ' + str(s['runs'] >= 5 and s['ci95'][0] <= s['ratio'] <= s['ci95'][1]))(d['verdict']['stretch'])")"
expect_eq "machine_load is the other parts times (ratio - 1)" true \
	"$(json_eval "$TMP/f.json" "(lambda v: abs(v['parts_us']['machine_load'] - (sum(v['parts_us'].values()) - v['parts_us']['machine_load']) * (v['stretch']['ratio'] - 1)) < 1e-6 * max(1, abs(v['static_link_saved_us'])))(d['verdict'])")"
expect_eq "the saving adds the parts" true \
	"$(json_eval "$TMP/f.json" "abs(sum(d['verdict']['parts_us'].values()) - d['verdict']['static_link_saved_us']) < 0.01")"
"$LDPROF" -n 3 --no-overhead "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" >"$TMP/t"
check "text: the stretch beside the parts" \
	grep -q "wall time [0-9.]* times their CPU time \[[0-9.]*, [0-9.]*\], [0-9]* runs" "$TMP/t"

# A program that runs alone: measured, not applied.
"$LDPROF" -n 3 --no-overhead --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/n.json"
expect_eq "the sample shell: its tree's time in every run, the stretch not applied" "True False 0" \
	"$(json_eval "$TMP/n.json" "'%s %s %g' % (all(r['tree_cpu_us'] > 0 for r in d['per_run']), d['verdict']['stretch']['applied'], d['verdict']['parts_us']['machine_load'])")"

# record and report: the same stretch from the trace file.
"$LDPROF" record -n 3 --no-overhead -o "$TMP/f.trace" "$FIXTURES/run-fork/prog" \
	"$FIXTURES/run-ctor-dtor/prog" >/dev/null 2>&1
check "record" test $? -eq 0
"$LDPROF" report --json "$TMP/f.trace" >"$TMP/r.json"
expect_eq "report: every run's tree time read back, and the stretch from them" true \
	"$(json_eval "$TMP/r.json" "all(r['tree_cpu_us'] > 0 for r in d['per_run']) and d['verdict']['stretch']['runs'] == len(d['per_run'])")"
done_testing
