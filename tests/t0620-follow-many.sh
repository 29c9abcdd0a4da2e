#!/bin/sh
# ldprof -f keeps up with a workload that starts 5,000 processes one after
# the other: with a static leaf every fork, exec and exit is in the tree and
# no task event is lost; with a dynamic one every exec also has its own
# records in the shim's buffer, none lost. 200 started at once lose none. Then the same through a
# one-page ring (LDPROF_FOLLOW_RING_KB=4), drained while the run goes on,
# and a record buffer too small for the workload (LDPROF_FOLLOW_BUFFER_KB).
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
"$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/spawn" 5000 "$F/leaf.static" >"$TMP/j" 2>"$TMP/e"
check "ldprof run -f runs 5,000 execs" test $? -eq 0
expect_eq "5,001 processes, 5,001 execs, no event lost" "5001 5001 0" \
	"$(json_eval "$TMP/j" "(lambda t: '%d %d %d' % (len(t['processes']), len(t['execs']), t['lost_events']))(d['per_run'][0]['tree'])")"
expect_eq "5,000 static execs" 5000 \
	"$(json_eval "$TMP/j" "sum(1 for e in d['per_run'][0]['tree']['execs'] if e['kind'] == 'static')")"

# The same 5,000 with a dynamic leaf: each carries the shim and claims its
# chunks of the one buffer.
"$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/spawn" 5000 "$F/leaf" >"$TMP/jd" 2>"$TMP/ed"
check "ldprof run -f runs 5,000 dynamic execs" test $? -eq 0
expect_eq "5,000 dynamic execs recorded by the shim, each with records, none lost" "5000 0 0" \
	"$(json_eval "$TMP/jd" "(lambda t: '%d %d %d' % (sum(1 for e in t['execs'] if e['kind'] == 'shim' and e['records'] > 0 and e['path'].endswith('/leaf')), t['lost_execs'], t['lost_events']))(d['per_run'][0]['tree'])")"

# 200 processes at once, on every CPU, three runs: each run's tree has
# them all with their exits. One inherited per-task event redirected into
# one ring (what ldprof did before) lost some in about half the runs here.
"$LDPROF" run -f --json -n 3 -w 0 --no-overhead \
	sh -c 'for i in $(seq 100); do /bin/true & /bin/true & done; wait' >"$TMP/jp" 2>"$TMP/ep"
check "ldprof run -f runs 200 processes at once" test $? -eq 0
expect_eq "200 at once: each run has all 202 processes, every exit, none lost" \
	"202:True:0 202:True:0 202:True:0" \
	"$(json_eval "$TMP/jp" "' '.join('%d:%s:%d' % (len(t['processes']), all(p['exit_us'] is not None for p in t['processes']), t['lost_events']) for t in (r['tree'] for r in d['per_run']))")"

LDPROF_FOLLOW_RING_KB=4 "$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/spawn" 1000 "$F/leaf.static" \
	>"$TMP/j2" 2>"$TMP/e2"
check "a one-page ring still works" test $? -eq 0
expect_eq "a one-page ring: 1,001 processes with their exits, or the loss counted" true \
	"$(json_eval "$TMP/j2" "(lambda t: (len(t['processes']) == 1001 and all(p['exit_us'] for p in t['processes'])) or t['lost_events'] > 0)(d['per_run'][0]['tree'])")"

# A record buffer too small for the harness's 43 execs: the loss is counted
# (lost_execs, and as many execs of kind "lost"), the tree stays whole, and
# the text report is still printed.
cd "$TOP/samples" || exit 1
LDPROF_FOLLOW_BUFFER_KB=16 "$LDPROF" run -f --json -n 1 -w 0 --no-overhead ./harness.sh ./sh.dynamic 20 \
	>"$TMP/j3" 2>"$TMP/e3"
check "a tiny record buffer: the run still succeeds" test $? -eq 0
expect_eq "the tiny buffer's loss is counted, the tree is whole" "43 True True 0" \
	"$(json_eval "$TMP/j3" "(lambda t: '%d %s %s %d' % (len(t['execs']), t['lost_execs'] > 0, sum(1 for e in t['execs'] if e['kind'] == 'lost') == t['lost_execs'], t['lost_events']))(d['per_run'][0]['tree'])")"
expect_eq "the tiny buffer: the execs it held have their records" true \
	"$(json_eval "$TMP/j3" "(lambda t: all(e['records'] > 0 for e in t['execs'] if e['kind'] == 'shim') and any(e['kind'] == 'shim' for e in t['execs']))(d['per_run'][0]['tree'])")"
LDPROF_FOLLOW_BUFFER_KB=16 "$LDPROF" run -f -n 1 -w 0 --no-overhead ./harness.sh ./sh.dynamic 20 >"$TMP/t3" 2>&1
lost=$(json_eval "$TMP/j3" "d['per_run'][0]['tree']['lost_execs']")
check "a tiny record buffer: the text report names the $lost execs not recorded" \
	grep -Eq "(^|[^0-9])$lost execs? not recorded" "$TMP/t3"
done_testing
