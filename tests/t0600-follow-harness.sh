#!/bin/sh
# ldprof -f on the 2003 harness (samples/harness.sh ./sh.dynamic 20): every
# run's tree holds exactly 21 execs of sh.dynamic and 21 of expr (the loop's
# -le included), as many as strace -f counts execve calls, and no lost event.
. "$(dirname "$0")/lib.sh"

cd "$TOP/samples" || exit 1
"$LDPROF" run -f --format json -n 3 ./harness.sh ./sh.dynamic 20 >"$TMP/j" 2>"$TMP/e"
check "ldprof run -f runs the harness" test $? -eq 0
expect_eq "3 counted runs" 3 "$(json_get "$TMP/j" '["runs"]')"
# Per run: "sh.dynamic expr other lost" from the run's tree.
json_eval "$TMP/j" "'\\n'.join('%d %d %d %d' % (
    sum(1 for e in r['tree']['execs'] if (e['path'] or '').endswith('/samples/sh.dynamic')),
    sum(1 for e in r['tree']['execs'] if e['comm'] == 'expr'),
    sum(1 for e in r['tree']['execs'] if not (e['path'] or '').endswith(('/samples/sh.dynamic', '/expr'))),
    r['tree']['lost_events']) for r in d['per_run'])" >"$TMP/counts"
expect_eq "every run: 21 sh.dynamic, 21 expr, the harness, nothing lost" \
	"21 21 1 0
21 21 1 0
21 21 1 0" "$(cat "$TMP/counts")"
expect_eq "every exec has its binary's path" 0 \
	"$(json_eval "$TMP/j" "sum(1 for r in d['per_run'] for e in r['tree']['execs'] if not e['path'])")"
expect_eq "every process but the top has a parent in the tree" 42 \
	"$(json_eval "$TMP/j" "sum(1 for p in d['per_run'][0]['tree']['processes'] if p['parent'] is not None)")"
expect_eq "the top is /bin/sh running the script, with the shim" "dash shim" \
	"$(json_eval "$TMP/j" "(lambda e: e['path'].rsplit('/', 1)[1] + ' ' + e['kind'])(d['per_run'][0]['tree']['execs'][0])")"
expect_eq "the workload's CPU is measured" true \
	"$(json_eval "$TMP/j" "all(r['tree']['cpu_user_us'] + r['tree']['cpu_sys_us'] > 0 for r in d['per_run'])")"

if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=execve -o "$TMP/st" ./harness.sh ./sh.dynamic 20 >/dev/null 2>&1
	dyn=$(grep -c 'execve("./sh.dynamic".* = 0$' "$TMP/st")
	ex=$(grep -c 'execve("[^"]*/expr".* = 0$' "$TMP/st")
	all=$(grep -c 'execve(.* = 0$' "$TMP/st")
	expect_eq "strace counts the same execs of sh.dynamic" "$dyn" 21
	expect_eq "strace counts the same execs of expr" "$ex" 21
	expect_eq "strace counts as many execs in all as the tree" "$all" \
		"$(json_eval "$TMP/j" "len(d['per_run'][0]['tree']['execs'])")"
else
	skip "strace is not installed: no oracle"
fi
done_testing
