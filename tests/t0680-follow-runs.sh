#!/bin/sh
# How many runs -f makes by default: a workload runs long, so at least 3
# (not 20) and one warmup round (a profiled and a plain run), stopping at
# +-2% or after about 10 s; -n still says exactly how many.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
# 100 static execs take tens of ms a run: past a 50 ms budget at once, so
# the adaptive stop comes at the minimum number of runs.
"$LDPROF" run -f --json --max-time 0.05 "$F/spawn" 100 "$F/leaf.static" >"$TMP/j" 2>"$TMP/e"
check "ldprof run -f, adaptive" test $? -eq 0
expect_eq "-f: one warmup round (a followed and a plain run)" 2 "$(json_get "$TMP/j" '["warmup_runs"]')"
expect_eq "-f: at least 3 runs" 3 "$(json_get "$TMP/j" '["runs"]')"
"$LDPROF" run --json --max-time 0.05 "$F/spawn" 100 "$F/leaf.static" >"$TMP/j2" 2>"$TMP/e2"
expect_eq "without -f: 3 warmup rounds" 6 "$(json_get "$TMP/j2" '["warmup_runs"]')"
expect_eq "without -f: at least 20 runs" 20 "$(json_get "$TMP/j2" '["runs"]')"
"$LDPROF" run -f --json -n 4 -w 2 "$F/leaf" >"$TMP/j3" 2>"$TMP/e3"
expect_eq "-n and -w override -f's defaults" "4 4" \
	"$(json_eval "$TMP/j3" "'%d %d' % (d['runs'], d['warmup_runs'])")"
start=$(date +%s)
"$LDPROF" run -f --json "$F/spawn" 20 "$F/leaf" >"$TMP/j4" 2>"$TMP/e4"
end=$(date +%s)
check "-f's adaptive stop comes within about 10 s" test $((end - start)) -le 14
check "... after at least 3 runs" \
	awk -v n="$(json_get "$TMP/j4" '["runs"]')" 'BEGIN { exit !(n >= 3) }'
done_testing
