#!/bin/sh
# record -f keeps every run's tree in the trace file (a TREE section per
# run): report --json of the file gives the same trees as the recording,
# and compare -f runs both sides' workloads.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
"$LDPROF" record -f -n 2 -w 0 -o "$TMP/t.ldprof" "$F/tree" "$F" >"$TMP/o" 2>"$TMP/e"
check "record -f writes the trace" test $? -eq 0
"$LDPROF" report --json "$TMP/t.ldprof" >"$TMP/j" 2>"$TMP/e2"
check "report reads it" test $? -eq 0
expect_eq "every counted run has its tree back" "2 2" \
	"$(json_eval "$TMP/j" "'%d %d' % (len(d['per_run']), sum(1 for r in d['per_run'] if r.get('tree')))")"
expect_eq "the trees as recorded: 11 processes, 13 execs, the same kinds" \
	"11 13 env:shim leaf.static:static leaf:no_shim leaf:shim sh:shim" \
	"$(json_eval "$TMP/j" "(lambda t: '%d %d ' % (len(t['processes']), len(t['execs'])) + ' '.join(sorted(set('%s:%s' % (e['comm'], e['kind']) for e in t['execs'] if not e['comm'].startswith(('chain', 'tree'))))))(d['per_run'][1]['tree'])")"
expect_eq "the orphan and its status survive" "1 0" \
	"$(json_eval "$TMP/j" "(lambda t: '%d %s' % (sum(p['orphan'] for p in t['processes']), [p['exit_status'] for p in t['processes'] if p['orphan']][0]))(d['per_run'][0]['tree'])")"
expect_eq "the exit statuses and their sources survive, the forks' records too" \
	"0:ldprof 0:shim 0:shim 0:shim 3:shim 4:shim 5:shim 7:ldprof None:None None:None None:None forks 1 1" \
	"$(json_eval "$TMP/j" "(lambda t: ' '.join(sorted('%s:%s' % (p['exit_status'], p['exit_status_from']) for p in t['processes'])) + ' forks ' + ' '.join(str(p['fork_records']) for p in t['processes'] if not p['execs']))(d['per_run'][0]['tree'])")"
expect_eq "the shim's records per exec survive" true \
	"$(json_eval "$TMP/j" "all(e['records'] > 0 for r in d['per_run'] for e in r['tree']['execs'] if e['kind'] == 'shim')")"
"$LDPROF" record -n 1 -w 0 -o "$TMP/plain.ldprof" "$F/leaf" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/plain.ldprof" >"$TMP/j2" 2>/dev/null
expect_eq "without -f: no tree" 0 \
	"$(json_eval "$TMP/j2" "sum(1 for r in d['per_run'] if r.get('tree'))")"

"$LDPROF" compare -f --json -n 2 -w 0 "$F/spawn 20 $F/leaf.static" "$F/spawn 20 $F/leaf" \
	>"$TMP/c" 2>"$TMP/ce"
check "compare -f runs both workloads" test $? -eq 0
done_testing
