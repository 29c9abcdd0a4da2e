#!/bin/sh
# ldprof -f on a tree that uses every route (fixtures/follow-tree/tree): a
# fork without exec, posix_spawn, an exec chain A -> B -> C, a double-forked
# grandchild that execs 200 ms after its parent exited, a static child, an
# `env -i` child, a vfork + exec and system(). Each is in the tree with the right kind (the shim's
# records joined to every dynamic exec that kept its environment), the orphan is
# reaped by ldprof, and the workload's stdout, stderr and status are what
# a plain run gives. The per-CPU fallback sees the same tree.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree
"$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/tree" "$F" >"$TMP/j" 2>"$TMP/e"
check "ldprof run -f runs the tree" test $? -eq 0

q() { json_eval "$TMP/j" "(lambda t: $1)(d['per_run'][0]['tree'])"; }
# The processes as "pid:ppid:execs:paths" helpers, in Python.
expect_eq "the top exits 7, seen as the program's status" "7 7" \
	"$(q "'%s %s' % (t['processes'][0]['exit_status'], d['per_run'][0]['exit_status'])")"
expect_eq "10 processes: top, fork, spawn, chain, double fork, grandchild, static, env, vfork, system" 10 \
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
	"chain-a:shim chain-b:shim chain-c:shim env:shim leaf.static:static leaf:no_shim leaf:shim leaf:shim leaf:shim leaf:shim sh:shim tree:shim" \
	"$(q "' '.join(sorted('%s:%s' % (e['comm'], e['kind']) for e in t['execs']))")"
expect_eq "each shim exec has its records; the others none" true \
	"$(q "all((e['records'] > 0) == (e['kind'] == 'shim') for e in t['execs'])")"
expect_eq "system(): sh -c, then the leaf it execs, in one process" "sh leaf" \
	"$(q "(lambda p: ' '.join(e['comm'] for e in t['execs'] if e['pid'] == p))([e['pid'] for e in t['execs'] if e['comm'] == 'sh'][0])")"
expect_eq "argv as each exec got it" "spawned vforked system late" \
	"$(q "' '.join(e['argv'][1] for e in sorted(t['execs'], key=lambda e: e['start_us']) if e['comm'] == 'leaf' and e['argv'])")"
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

# The fallback: one inherited event per CPU, each with its own ring.
LDPROF_FOLLOW_PER_CPU=1 "$LDPROF" run -f --json -n 1 -w 0 --no-overhead "$F/tree" "$F" >"$TMP/j3" 2>"$TMP/e3"
check "the per-CPU fallback runs" test $? -eq 0
expect_eq "the per-CPU fallback sees the same tree" \
	"$(q "sorted((e['comm'], e['kind']) for e in t['execs'])")" \
	"$(json_eval "$TMP/j3" "sorted((e['comm'], e['kind']) for e in d['per_run'][0]['tree']['execs'])")"
done_testing
