#!/bin/sh
# The profiled program's output, exit status, signals, errno and fds are
# its own: the same with ldprof as without.
. "$(dirname "$0")/lib.sh"

out=$FIXTURES/run-output/prog
"$out" a1 b2 >"$TMP/direct.out" 2>"$TMP/direct.err" </dev/null
direct=$?
"$LDPROF" -n 1 -w 0 --no-overhead --show-output "$out" a1 b2 >"$TMP/ldprof.out" 2>"$TMP/ldprof.err"
check "ldprof itself exits 0" test $? -eq 0
expect_same "stdout is the program's, then the report" "$TMP/direct.out" \
	"$(head -n 1 "$TMP/ldprof.out" >"$TMP/first"; echo "$TMP/first")"
expect_same "stderr is the program's" "$TMP/direct.err" "$TMP/ldprof.err"
expect_eq "the program exits 3 directly" 3 "$direct"
"$LDPROF" -n 5 -w 0 --no-overhead "$out" >"$TMP/report" 2>&1
check "the report says exit status 3" grep -q "exit status 3 in every run" "$TMP/report"
check "without --show-output the program's output is hidden" sh -c "! grep -q 'to stdout' '$TMP/report'"
"$LDPROF" -n 3 -w 0 --json "$out" >"$TMP/j"
expect_eq "JSON exit_status" 3 "$(json_get "$TMP/j" '["exit_status"]')"

# A program that dies of SIGSEGV: reported per run, no hang.
"$LDPROF" -n 5 -w 0 --no-overhead --timeout 20 --json "$FIXTURES/run-segv/prog" >"$TMP/j" 2>"$TMP/e"
check "SIGSEGV: ldprof exits 0" test $? -eq 0
expect_eq "SIGSEGV: reported as the signal" SIGSEGV \
	"$(json_eval "$TMP/j" "d['outcomes'][0]['signal']")"
expect_eq "SIGSEGV: in every run" 5 "$(json_eval "$TMP/j" "d['outcomes'][0]['runs']")"
expect_eq "SIGSEGV: exit_status is null" null "$(json_get "$TMP/j" '["exit_status"]')"
expect_eq "SIGSEGV: each run says so" '["SIGSEGV"]' \
	"$(json_eval "$TMP/j" "sorted(set(r['signal'] for r in d['per_run']))")"
"$LDPROF" -n 2 -w 0 --no-overhead "$FIXTURES/run-segv/prog" >"$TMP/t"
check "SIGSEGV: text says killed by SIGSEGV" grep -q "killed by SIGSEGV in every run" "$TMP/t"

# A program that closes all its fds still yields a full record.
"$LDPROF" -n 5 -w 0 --no-overhead --json "$FIXTURES/run-closefds/prog" >"$TMP/j"
expect_eq "closed fds: every run has the shim's data" 5 "$(json_get "$TMP/j" '["valid_runs"]')"
expect_eq "closed fds: main and exit measured" True \
	"$(json_eval "$TMP/j" "all(p['median_us'] for p in d['phases'])" | sed 's/true/True/')"

# errno, signal state and fds as without ldprof (the shim closed its fd).
chk=$FIXTURES/run-checks/prog
"$chk" >"$TMP/direct" </dev/null
"$LDPROF" -n 1 -w 0 --show-output --no-overhead "$chk" >"$TMP/ours"
head -n 4 "$TMP/ours" >"$TMP/ours4"
expect_same "errno, signals and fds unchanged" "$TMP/direct" "$TMP/ours4"
check "errno survives the constructor trampolines" grep -q "errno in constructor: 4242, in main: 4242" "$TMP/ours4"
"$LDPROF" -n 1 -w 0 --show-output --no-overhead --preload "$chk" >"$TMP/ours"
head -n 4 "$TMP/ours" >"$TMP/ours4"
expect_same "the same with --preload" "$TMP/direct" "$TMP/ours4"
# The executable's RELRO is read-only again before it runs, as without
# ldprof: the shim has ld.so leave it writable for the hooks, then
# protects it itself (preload/hooks.c). cat's mappings, as it sees them.
perms() { awk '$6 ~ /\/cat$/ { print $2 }' "$1" | xargs; }
cat /proc/self/maps >"$TMP/maps0"
"$LDPROF" -n 1 -w 0 --no-overhead --show-output cat /proc/self/maps >"$TMP/maps1"
"$LDPROF" -n 1 -w 0 --no-overhead --show-output --preload cat /proc/self/maps >"$TMP/maps2"
check "cat has a read-only RELRO page to lose ($(perms "$TMP/maps0"))" \
	test "$(perms "$TMP/maps0" | wc -w)" -ge 4
expect_eq "the executable's pages protected as without ldprof" "$(perms "$TMP/maps0")" "$(perms "$TMP/maps1")"
expect_eq "the same with --preload" "$(perms "$TMP/maps0")" "$(perms "$TMP/maps2")"
# A program ld.so cannot start (its library is gone): said plainly.
cp "$FIXTURES/model-base/with-rel" "$TMP/nolib"
"$LDPROF" -n 3 -w 0 --no-overhead "$TMP/nolib" >"$TMP/t" 2>&1
check "a missing library: exit status 127 reported" grep -q "exit status 127 in every run" "$TMP/t"
check "and the note says ld.so never finished" grep -q "ld.so never finished loading in 3 of 3 runs" "$TMP/t"
done_testing
