#!/bin/sh
# The forks of the program's own image: counted in one run under ptrace
# after the timed ones (strace -f, the oracle, sees the same forks and
# vforks), priced in the verdict at the calibration's fork_us (with libc,
# and per more library), vforks not (they copy nothing), kept by record
# and report; the forks of what a child executed are not the program's.
. "$(dirname "$0")/lib.sh"

# Uncalibrated: the built-in prices (model/model-file.c), which the JSON gives.
export LDPROF_CALIBRATION="$TMP/absent"

# run-fork: one child exits, another executes run-ctor-dtor (which does not fork).
"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" \
	>"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
expect_eq "two forks of its image" 2 "$(json_get "$TMP/j" '["verdict"]["image_forks"]')"
# Its libraries besides libc: libdtor.so alone.
expect_eq "priced at 2 x (with libc + 1 library), the built-in price" "True False" \
	"$(json_eval "$TMP/j" "str(abs(d['verdict']['parts_us']['forks'] - 2 * sum(d['verdict']['fork_us'])) < 1e-6 and min(d['verdict']['fork_us']) > 0) + ' ' + str(d['verdict']['fork_price_now'])")"
expect_eq "the saving adds them" true \
	"$(json_eval "$TMP/j" "abs(sum(d['verdict']['parts_us'].values()) - d['verdict']['static_link_saved_us']) < 0.01")"
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=clone,clone3,fork,vfork -o "$TMP/st" \
		"$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" 2>/dev/null
	expect_eq "strace -f: as many clones" 2 "$(grep -c 'clone' "$TMP/st")"
	# dash: a subshell by fork, its simple commands by vfork; /bin/true forks nothing.
	cmd='(exit 0); /bin/true; /bin/true; exit 0'
	"$LDPROF" -n 3 --no-overhead --json /bin/sh -c "$cmd" >"$TMP/sh.json"
	strace -f -qq -e trace=clone,clone3,fork,vfork -o "$TMP/st" /bin/sh -c "$cmd"
	expect_eq "sh -c: the forks and vforks strace -f sees" \
		"$(grep -c 'clone(' "$TMP/st") $(grep -c 'vfork(' "$TMP/st")" \
		"$(json_eval "$TMP/sh.json" "'%d %d' % (d['verdict']['image_forks'], d['verdict']['image_vforks'])")"
	expect_eq "sh -c: vforks are not priced" true \
		"$(json_eval "$TMP/sh.json" "abs(d['verdict']['parts_us']['forks'] - d['verdict']['fork_us'][0] * d['verdict']['image_forks']) < 1e-6")"
else
	skip "strace is not installed (tools/install-deps)"
	skip "strace is not installed (tools/install-deps)"
	skip "strace is not installed (tools/install-deps)"
fi

# The text names them beside the other parts.
"$LDPROF" -n 3 --no-overhead "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" >"$TMP/t"
check "text: the forks in the verdict's parts" grep -q "their own _init and _fini .*, 2 forks of its image [0-9]" "$TMP/t"

# A program that does not fork: 0, and nothing in the parts.
"$LDPROF" -n 3 --no-overhead --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/n.json"
expect_eq "the sample shell with foo: no fork" "0 0 0" \
	"$(json_eval "$TMP/n.json" "'%d %d %d' % (d['verdict']['image_forks'], d['verdict']['image_vforks'], d['verdict']['parts_us']['forks'])")"

# Calibrated: the price measured now, after the runs (the fork programs built and run again).
LDPROF_CALIBRATION=$LDPROF_TEST_CALIBRATION "$LDPROF" -n 3 --no-overhead --json \
	"$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" >"$TMP/c.json" 2>"$TMP/c.err"
check "calibrated: runs" test $? -eq 0
expect_eq "calibrated: the price measured now, and the forks priced at it" "True True" \
	"$(json_eval "$TMP/c.json" "str(d['verdict']['fork_price_now']) + ' ' + str(min(d['verdict']['fork_us']) >= 0 and abs(d['verdict']['parts_us']['forks'] - 2 * (d['verdict']['fork_us'][0] + d['verdict']['fork_us'][1])) < 1e-6)")"

# record and report: the count and its prices travel with the trace.
"$LDPROF" record -n 3 -o "$TMP/f.trace" "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" \
	>/dev/null 2>&1
check "record" test $? -eq 0
"$LDPROF" report --json "$TMP/f.trace" >"$TMP/r.json"
expect_eq "report: the same forks, at the same price" "2 $(json_eval "$TMP/j" "'%g' % d['verdict']['parts_us']['forks']")" \
	"$(json_eval "$TMP/r.json" "'%d %g' % (d['verdict']['image_forks'], d['verdict']['parts_us']['forks'])")"

# Under a tracer the census cannot trace: a warning says why, the verdict leaves them out.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=none -o /dev/null "$LDPROF" -n 3 --no-overhead --json \
		"$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" >"$TMP/tr.json" 2>"$TMP/tr.err"
	check "traced: it still runs" test $? -eq 0
	check "traced: the warning" grep -q "its forks could not be counted (ptrace: .*is ldprof itself traced" "$TMP/tr.err"
	expect_eq "traced: not counted, not priced" "None 0" \
		"$(json_eval "$TMP/tr.json" "'%s %g' % (d['verdict']['image_forks'], d['verdict']['parts_us']['forks'])")"
else
	skip "strace is not installed (tools/install-deps)"
	skip "strace is not installed (tools/install-deps)"
	skip "strace is not installed (tools/install-deps)"
fi
done_testing
