#!/bin/sh
# Signals and the caller's state: Ctrl-C stops ldprof promptly with a report
# even when the program ignores SIGINT, the run it cut short is not counted,
# a second Ctrl-C ends ldprof at once; a caller that ignores SIGCHLD, blocks
# or ignores signals, or sets a low open-file limit changes nothing for the
# program; a program that fails only under LD_AUDIT is said to.
. "$(dirname "$0")/lib.sh"

SIG=$FIXTURES/run-signals
CHK=$FIXTURES/run-checks/prog

# running PID: the process has not exited (a zombie has).
running() {
	[ -r "/proc/$1/stat" ] && ! sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'
}

# wait_for_lines FILE N: until FILE has N lines, at most 20 s.
wait_for_lines() {
	i=0
	while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# gone_within PID SECONDS: wait until PID exited; kill it if it has not by
# then (so that a hang fails instead of hanging) and fail.
gone_within() {
	i=0
	while running "$1" && [ $i -lt $(($2 * 20)) ]; do
		sleep 0.05
		i=$((i + 1))
	done
	if running "$1"; then
		kill -KILL "$1" 2>/dev/null
		return 1
	fi
}

# all_gone LOG: every pid the sleeper logged has exited (within 2 s).
all_gone() {
	for p in $(cat "$1"); do
		gone_within "$p" 2 || return 1
	done
}

# start_slow NAME CALLER_FLAGS MODE [SLOW [RUNS]]: `sleeper LOG 6 MODE SLOW`
# under ldprof -n RUNS (20), in the background: 3 profiled and 3 plain runs of 20 ms, then runs
# of SLOW s (30). Sets $pid once the 7th (a slow one) is running. The caller
# resets SIGINT to its default: a shell's background job ignores it.
start_slow() {
	log=$TMP/$1.log
	"$SIG/caller" -d INT $2 "$LDPROF" -n "${5:-20}" -w 0 --timeout 60 --json \
		"$SIG/sleeper" "$log" 6 "$3" "${4:-30}" >"$TMP/$1.json" 2>"$TMP/$1.err" &
	pid=$!
	wait_for_lines "$log" 7
	sleep 0.5
}

# 1. Ctrl-C on a program that ignores SIGINT: ldprof ends within the grace
# (about 1 s), not at the 60 s timeout, and reports the completed runs.
start_slow ignore "" ignore
kill -INT "$pid"
check "Ctrl-C, the program ignores SIGINT: ldprof ends within 5 s" gone_within "$pid" 5
wait "$pid"
expect_eq "  and exits 0 with its report" 0 "$?"
expect_eq "  the report says interrupted" true "$(json_eval "$TMP/ignore.json" "d['interrupted']")"
expect_eq "  the report covers the 3 runs completed" 3 "$(json_get "$TMP/ignore.json" '["runs"]')"
check "  the run's process group was killed" all_gone "$log"

# 2. Ctrl-C from a terminal reaches ldprof's whole process group; a program
# that dies of it was cut short: not a counted run. (Slow runs of 3 s: the
# old ldprof, which ran one more, ended too, and counted the one cut short.)
start_slow group -g default 3
kill -s INT -- "-$pid"
check "SIGINT to the group: ldprof ends within 5 s" gone_within "$pid" 5
wait "$pid"
expect_eq "  the 3 completed runs are counted, not the one cut short" 3 \
	"$(json_get "$TMP/group.json" '["runs"]')"
expect_eq "  no run was killed by SIGINT" '["exit status 0"]' \
	"$(json_eval "$TMP/group.json" "[o['description'] for o in d['outcomes']]")"
expect_eq "  every counted run is one of 20 ms (19-300 ms), none of the 500 ms cut short" True \
	"$(json_eval "$TMP/group.json" "str(all(19e3 < r['total_us'] < 300e3 for r in d['per_run']))")"
expect_eq "  no phase's CI goes below zero" True \
	"$(json_eval "$TMP/group.json" "str(all(p['median_us_ci95'][0] >= 0 for p in d['phases']))")"

# 3. A second Ctrl-C ends ldprof at once: it dies of SIGINT, without waiting
# for the grace or printing a report, and takes the run's group with it.
start_slow twice "" ignore
kill -INT "$pid"
sleep 0.1
kill -INT "$pid"
check "a second Ctrl-C: ldprof ends within 5 s" gone_within "$pid" 5
wait "$pid"
expect_eq "  it dies of SIGINT (status 130)" 130 "$?"
check "  no report" test ! -s "$TMP/twice.json"
check "  the run's process group was killed" all_gone "$log"

# 3d. Ctrl-Z (SIGTSTP to ldprof) stops the run with ldprof, and SIGCONT
# continues both; the run suspended (here for 1.3 s or more of a 3 s run) is
# not counted. The stop is awaited for up to 2 s, so that a loaded machine,
# where ldprof may wait for a core, still sees it while the run lasts.
# ldprof leads a process group of its own here (caller -g), whose parent is
# this shell: the kernel discards stop signals in an orphaned process group,
# which is what the suite's own group is when its parent has gone (a
# background job whose shell exited), and Ctrl-Z cannot stop anything there.
stopped_within() {
	i=0
	while ! grep -q '^State:.*stopped' "/proc/$1/status" 2>/dev/null && [ $i -lt $(($2 * 20)) ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -q '^State:.*stopped' "/proc/$1/status" 2>/dev/null
}
start_slow tstp -g default 3 4
kill -TSTP "$pid"
p7=$(sed -n 7p "$log")
if stopped_within "$p7" 2; then
	ok "Ctrl-Z: the run stops with ldprof"
else
	not_ok "Ctrl-Z: the run stops with ldprof"
	# What was stopped instead, for the log.
	for p in "$pid" $(cat "$log"); do
		printf "# %s: %s\n" "$p" "$(grep -E "^(State|SigIgn|SigBlk|SigCgt)" "/proc/$p/status" 2>/dev/null | tr "\n" " ")"
	done
	sed 's/^/# /' "$TMP/tstp.err"
fi
sleep 1.3
kill -CONT "$pid"
check "  SIGCONT: ldprof goes on and ends" gone_within "$pid" 15
wait "$pid"
expect_eq "  4 runs counted" 4 "$(json_get "$TMP/tstp.json" '["runs"]')"
expect_eq "  none of them the suspended one (all under 4.1 s)" True \
	"$(json_eval "$TMP/tstp.json" "str(all(r['total_us'] < 4.1e6 for r in d['per_run']))")"

# 3b. One SIGINT handling for every command: Ctrl-C while `audit --measure`
# runs a program stops that program and the audit, which reports.
mkdir "$TMP/aud"
for i in 1 2 3; do cp "$SIG/sleeper" "$TMP/aud/s$i"; done
"$SIG/caller" -d INT "$LDPROF" audit --measure --args "$TMP/aud.log 0 ignore" --runs 2 \
	--timeout 60 "$TMP/aud" >"$TMP/aud.out" 2>"$TMP/aud.err" &
pid=$!
wait_for_lines "$TMP/aud.log" 1
sleep 0.5
kill -INT "$pid"
check "Ctrl-C during audit --measure: ldprof ends within 5 s" gone_within "$pid" 5
wait "$pid"
check "  the audit says it was interrupted" grep -q '^interrupted' "$TMP/aud.out"
expect_eq "  and ran no other program" 1 "$(wc -l <"$TMP/aud.log")"
check "  the program's group was killed" all_gone "$TMP/aud.log"

# 3c. Each run is a process group of its own, a background job for the
# terminal: a program that uses the terminal is stopped by SIGTTOU. ldprof
# in the foreground gives it the terminal, as fg would (the stopped run is
# not counted). script(1) provides the terminal.
if command -v script >/dev/null 2>&1 && timeout 10 script -qec true /dev/null >/dev/null 2>&1; then
	timeout 20 script -qec "'$LDPROF' -n 3 -w 0 --timeout 10 --json -o '$TMP/tty.json' \
		'$SIG/ttyuser'" /dev/null >"$TMP/tty.out" 2>&1
	check "a program that uses the terminal: ldprof ends without a timeout" test $? -eq 0
	sed 's/^/# /' "$TMP/tty.out"
	expect_eq "  its 3 runs are counted" 3 "$(json_get "$TMP/tty.json" '["runs"]')"
	expect_eq "  and exit 0" '["exit status 0"]' \
		"$(json_eval "$TMP/tty.json" "[o['description'] for o in d['outcomes']]")"
else
	skip "no script(1), or no pseudo-terminal, to give ldprof a terminal"
fi

# 4. A caller that ignores SIGCHLD (daemons, some Python and Node parents).
"$SIG/caller" -i CHLD "$LDPROF" -n 2 -w 0 --json "$CHK" >"$TMP/chld.json" 2>"$TMP/chld.err"
check "SIGCHLD ignored by the caller: ldprof exits 0" test $? -eq 0
sed 's/^/# /' "$TMP/chld.err"
expect_eq "  and reports its 2 runs" 2 "$(json_get "$TMP/chld.json" '["runs"]' 2>/dev/null)"

# 5. The program gets the caller's dispositions and mask, as exec gives them.
# run-checks prints its blocked and its ignored signals (lines 2 and 3).
same_state() {
	"$SIG/caller" "$@" "$CHK" </dev/null | sed -n 2,3p >"$TMP/plain.state"
	"$SIG/caller" "$@" "$LDPROF" -n 1 -w 0 --no-overhead --show-output "$CHK" |
		sed -n 2,3p >"$TMP/ldprof.state"
	expect_same "signal state with caller $*" "$TMP/plain.state" "$TMP/ldprof.state"
}
same_state -b USR1 -b INT -i TERM -i HUP -i USR2
same_state -i INT -i QUIT -b TERM
same_state -i CHLD -b CHLD -i PIPE
check "  (the state is not empty, so the comparison means something)" grep -q ' 13' "$TMP/plain.state"

# 6. A low open-file limit: the record buffer's fd goes below it.
"$SIG/caller" -n 256 "$LDPROF" -n 2 -w 0 --json "$CHK" >"$TMP/nofile.json" 2>"$TMP/nofile.err"
check "ulimit -n 256: ldprof exits 0" test $? -eq 0
sed 's/^/# /' "$TMP/nofile.err"
expect_eq "  with the shim's data in both runs" 2 "$(json_get "$TMP/nofile.json" '["valid_runs"]' 2>/dev/null)"
"$SIG/caller" -n 256 "$CHK" </dev/null | sed -n 4p >"$TMP/plain.fds"
"$SIG/caller" -n 256 "$LDPROF" -n 1 -w 0 --no-overhead --show-output "$CHK" | sed -n 4p >"$TMP/ldprof.fds"
expect_same "  the program's fds are its own" "$TMP/plain.fds" "$TMP/ldprof.fds"
"$SIG/caller" -n 5 "$LDPROF" -n 2 -w 0 "$CHK" >/dev/null 2>"$TMP/tiny.err"
check "ulimit -n 5: ldprof fails" test $? -ne 0
check "  saying which limit and how to raise it" grep -q '^ldprof: .*open-file limit of 5.*ulimit -n' "$TMP/tiny.err"

# 7. A program that fails only under LD_AUDIT: said so, with what it printed.
"$LDPROF" -n 3 -w 0 "$SIG/auditfail" >"$TMP/af.txt" 2>&1
check "fails only profiled: said so" grep -q \
	'the profiled runs fail but the plain runs do not (exit status 5 under ldprof, exit status 0 without it)' "$TMP/af.txt"
check "  quoting the line only the profiled run printed" grep -q \
	'it said: "auditfail: cannot run under LD_AUDIT"' "$TMP/af.txt"
check "  without the missing-library hint" sh -c "! grep -q 'missing library' '$TMP/af.txt'"

# libc.so.6 run as a program: ld.so asserts under any LD_AUDIT.
libc=$(ldd "$CHK" | awk '$1 == "libc.so.6" { print $3 }')
if [ -x "$libc" ] && "$libc" >/dev/null 2>&1 && ! LD_AUDIT=/nonexistent "$libc" >/dev/null 2>&1; then
	"$LDPROF" -n 3 -w 0 "$libc" >"$TMP/libc.txt" 2>&1
	check "libc.so.6: the profiled runs fail, the plain ones do not" grep -q \
		'the profiled runs fail but the plain runs do not' "$TMP/libc.txt"
	check "  naming ld.so's message" grep -q 'it said: ".*ld\.so' "$TMP/libc.txt"
	check "  without the missing-library hint" sh -c "! grep -q 'missing library' '$TMP/libc.txt'"
else
	skip "libc.so.6 runs under LD_AUDIT on this glibc"
fi
done_testing
