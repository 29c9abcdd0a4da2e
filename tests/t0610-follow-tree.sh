#!/bin/sh
# ldprof -f on a tree that uses every route (fixtures/follow-tree/tree): a
# fork without exec, posix_spawn, an exec chain A -> B -> C, a double-forked
# grandchild that execs 200 ms after its parent exited, a static child, an
# `env -i` child, a vfork + exec and system(). Each is in the tree with the right kind (the shim's
# records joined to every dynamic exec that kept its environment), the orphan is
# reaped by ldprof, and the workload's stdout, stderr and status are what
# a plain run gives.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
"$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/tree" "$F" >"$TMP/j" 2>"$TMP/e"
check "ldprof run -f runs the tree" test $? -eq 0

q() { json_eval "$TMP/j" "(lambda t: $1)(d['per_run'][0]['tree'])"; }
# The processes as "pid:ppid:execs:paths" helpers, in Python.
expect_eq "the top exits 7, seen as the program's status" "7 7" \
	"$(q "'%s %s' % (t['processes'][0]['exit_status'], d['per_run'][0]['exit_status'])")"
expect_eq "11 processes: top, fork, spawn, chain, double fork, grandchild, static, env, killed, vfork, system" 11 \
	"$(q "len(t['processes'])")"
expect_eq "no event lost" 0 "$(q "t['lost_events']")"
expect_eq "two forks never executed (the plain fork, the grandchild's parent)" 2 \
	"$(q "sum(1 for p in t['processes'] if p['execs'] == 0)")"
expect_eq "posix_spawn's child: leaf, a dynamic exec under the top" "leaf true" \
	"$(q "[(e['comm'], e['kind'] in ('shim', 'no_shim')) for e in t['execs'] if e['ppid'] == t['processes'][0]['pid'] and e['comm'] == 'leaf' and sum(1 for x in t['execs'] if x['pid'] == e['pid']) == 1][0][0] + ' true'")"
expect_eq "the exec chain: three images in one process, in order" "chain-a chain-b chain-c" \
	"$(q "' '.join(e['path'].rsplit('/', 1)[1] for e in t['execs'] if e['comm'].startswith('chain'))")"
expect_eq "the chain's images share one pid" 1 \
	"$(q "len(set(e['pid'] for e in t['execs'] if e['comm'].startswith('chain')))")"
expect_eq "the chain's images follow each other" true \
	"$(q "(lambda c: all(c[i]['end_us'] == c[i + 1]['start_us'] for i in range(2)))([e for e in t['execs'] if e['comm'].startswith('chain')])")"
expect_eq "the static child is reported static" "leaf.static static" \
	"$(q "' '.join('%s %s' % (e['comm'], e['kind']) for e in t['execs'] if e['path'].endswith('leaf.static'))")"
expect_eq "env -i: env, then leaf without the shim (its environment is gone)" "env leaf no_shim" \
	"$(q "(lambda p: ' '.join([e['comm'] for e in t['execs'] if e['pid'] == p]) + ' ' + [e['kind'] for e in t['execs'] if e['pid'] == p][-1])([e['pid'] for e in t['execs'] if e['comm'] == 'env'][0])")"
# The shim's records, joined by (pid, time): every dynamic image but env -i's leaf.
expect_eq "the shim recorded every dynamic exec that kept its environment" \
	"chain-a:shim chain-b:shim chain-c:shim env:shim leaf.static:static leaf:no_shim leaf:shim leaf:shim leaf:shim leaf:shim leaf:shim sh:shim tree:shim" \
	"$(q "' '.join(sorted('%s:%s' % (e['comm'], e['kind']) for e in t['execs']))")"
expect_eq "each shim exec has its records; the others none" true \
	"$(q "all((e['records'] > 0) == (e['kind'] == 'shim') for e in t['execs'])")"
expect_eq "system(): sh -c, then the leaf it execs, in one process" "sh leaf" \
	"$(q "(lambda p: ' '.join(e['comm'] for e in t['execs'] if e['pid'] == p))([e['pid'] for e in t['execs'] if e['comm'] == 'sh'][0])")"
# Sorted: the children start in this order, but their execs may not come in
# it on a busy machine.
expect_eq "argv as each exec got it" "killed late spawned system vforked" \
	"$(q "' '.join(sorted(e['argv'][1] for e in t['execs'] if e['comm'] == 'leaf' and e['argv']))")"
# Forks without exec: each in the tree with what the shim saw of it (its exit
# call, in its parent's image), its wall time and its exit status.
expect_eq "the forks without exec: the shim saw each exit (3, then 0), from the fork to its end" \
	"3:shim:1:True 0:shim:1:True" \
	"$(q "' '.join('%s:%s:%s:%s' % (p['exit_status'], p['exit_status_from'], p['fork_records'], abs(p['fork_phases_us']['main'] + p['fork_phases_us']['exit'] - (p['exit_us'] - p['fork_us'])) < 0.01 and p['fork_phases_us']['main'] > 0 and p['fork_phases_us']['exit'] >= 0) for p in t['processes'] if not p['execs'])")"
expect_eq "the forks' CPU, from the shim" true \
	"$(q "all(p['user_us'] is not None and p['user_us'] + p['sys_us'] >= 0 for p in t['processes'] if not p['execs'])")"
# Exit statuses of children their parent reaped: what the last image asked
# for (the shim's exit call or main's return), unknown where the shim was
# not in it or a signal ended it; ldprof's own reaps stay exact.
st() { q "' '.join('%s:%s' % (p['exit_status'], p['exit_status_from']) for p in t['processes'] if any(e['pid'] == p['pid'] and $1 for e in t['execs']))"; }
expect_eq "the exec chain's status: chain-c's 5, from the shim" "5:shim" "$(st "e['comm'] == 'chain-c'")"
expect_eq "the vforked leaf's status: 4, from the shim" "4:shim" "$(st "e['argv'] and e['argv'][1:] == ['vforked', '4']")"
expect_eq "the leaf killed by SIGTERM: unknown, not 0" "None:None" "$(st "e['argv'] and e['argv'][1:] == ['killed']")"
expect_eq "the static child's and env -i's statuses: unknown" "None:None None:None" \
	"$(st "e['kind'] in ('static', 'no_shim')")"
expect_eq "the top's status: reaped by ldprof" "7:ldprof" "$(q "'%s:%s' % (t['processes'][0]['exit_status'], t['processes'][0]['exit_status_from'])")"
expect_eq "the workload counts the statuses by source" "2 6 3" \
	"$(json_eval "$TMP/j" "(lambda s: '%d %d %d' % (s['ldprof'], s['shim'], s['unknown']))(d['workload']['exit_status_from'])")"
"$LDPROF" run -f -n 1 -w 0 --no-overhead "$F/tree" "$F" >"$TMP/text" 2>&1
check "the text tree shows the forks with their statuses" \
	grep -q "(fork of .*/tree) .* 2  \[no exec, .* each, exit 3, exit 0\]" "$TMP/text"

# The grandchild: an orphan, reaped by ldprof with its status, exec'd >= 200 ms after its parent exited.
expect_eq "exactly one orphan, reaped with status 0" "1 0" \
	"$(q "'%d %s' % (sum(1 for p in t['processes'] if p['orphan']), [p['exit_status'] for p in t['processes'] if p['orphan']][0])")"
gap=$(q "(lambda g: [e['start_us'] for e in t['execs'] if e['pid'] == g['pid']][0] - t['processes'][g['parent']]['exit_us'])([p for p in t['processes'] if p['orphan']][0])")
check "the orphan execs 200 ms after its parent exits ($gap us)" \
	awk -v g="$gap" 'BEGIN { exit !(g >= 195000 && g < 2000000) }'
check "the run lasts until the orphan is reaped" \
	awk -v t="$(json_get "$TMP/j" '["per_run"][0]["total_us"]')" 'BEGIN { exit !(t >= 200000) }'

# One clock: perf's times, mapped to TSC ticks, fall inside the launcher's own
# window (from its execve timestamp to the last reap) and in causal order.
expect_eq "every fork, exec and exit inside the run, after its parent's fork, in order" true \
	"$(q "(lambda total: all(0 <= p['fork_us'] <= p['exit_us'] <= total and (p['parent'] is None or t['processes'][p['parent']]['fork_us'] <= p['fork_us']) for p in t['processes']) and all(t['processes'][[i for i, p in enumerate(t['processes']) if p['pid'] == e['pid']][-1]]['fork_us'] <= e['start_us'] <= e['end_us'] <= total for e in t['execs']))(d['per_run'][0]['total_us'])")"

# The workload's output and status, as without ldprof.
"$F/tree" "$F" >"$TMP/plain.out" 2>"$TMP/plain.err"
plain=$?
"$LDPROF" run -f --show-output -n 1 -w 0 --no-overhead --json -o "$TMP/j2" "$F/tree" "$F" \
	>"$TMP/f.out" 2>"$TMP/f.err"
check "ldprof run -f --show-output runs" test $? -eq 0
expect_same "stdout unchanged" "$TMP/plain.out" "$TMP/f.out"
expect_same "stderr unchanged" "$TMP/plain.err" "$TMP/f.err"
expect_eq "exit status unchanged" "$plain" "$(json_get "$TMP/j2" '["per_run"][0]["exit_status"]')"

# A process in another PID namespace: the shim sees that namespace's pids,
# so its exec's records match no task record: counted and noted. (Were its
# namespace pid also a pid of the tree alive then, they would be joined to
# that process: docs/design.md.)
if unshare -Urpf /bin/true 2>/dev/null; then
	"$LDPROF" run -f -n 1 -w 0 --no-overhead --json -o "$TMP/jn" unshare -Urpf "$F/leaf" 2>"$TMP/en"
	expect_eq "another PID namespace: unmatched, not lost, not joined" "1 0 no_shim" \
		"$(json_eval "$TMP/jn" "(lambda t: '%d %d %s' % (t['unmatched_execs'], t['lost_events'], [e['kind'] for e in t['execs'] if e['comm'] == 'leaf'][0]))(d['per_run'][0]['tree'])")"
	"$LDPROF" run -f -n 1 -w 0 --no-overhead unshare -Urpf "$F/leaf" >"$TMP/tn" 2>&1
	check "another PID namespace: the text report says so" grep -q "1 exec the shim recorded matched no process" "$TMP/tn"
else
	skip "another PID namespace: unshare -Urpf is refused here"
	skip "another PID namespace: the text report"
fi
done_testing
