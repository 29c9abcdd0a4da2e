#!/bin/sh
# A library's own crt code (_init and _fini) against the kernel's page
# faults: the verdict counts it as a cost a static build sheds (its crt
# code is the executable's alone), and the kernel says what it costs.
# perf records every page fault of 12 runs with its address; a fault at a
# library's DT_INIT or DT_FINI is its crt code's instruction fetch
# (tests/crt-faults.py). Held:
#  - _init faults in every run, as the verdict counts it (90% of runs:
#    on a busy machine a fault is now and then taken twice or not seen);
#  - the ELF layout's count (elfobj.c: _fini in another fault-around
#    window than _init's) is what the kernel takes, to a quarter of a fault
#    per library, where the program's main does not map _fini's window
#    itself (the sample shell, the C++ fixture, zsh); where it might (curl
#    runs code of its libraries), the layout's count is an upper bound;
#  - where _fini faults in 90% of the runs and the destructors are the
#    crt's alone, the measured fini, which the verdict then takes, holds
#    at least half a fault.
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null 2>&1 ||
	! perf record -q -o "$TMP/probe" -e page-faults:u -c 1 -d true >/dev/null 2>&1; then
	skip "perf cannot record page faults here"
	done_testing
	exit 0
fi
M=$FIXTURES/model-base

# rows NAME PROGRAM ARGS...: the oracle's rows beside ldprof's, in $TMP/NAME.
# Three runs first: on a fresh machine (CI) the libraries' pages are still
# being read in at the first runs, and fault-around skips a page under
# I/O, so a _fini in _init's window faulted in 4 of 12 runs there.
rows() {
	name=$1
	shift
	for _ in 1 2 3; do "$@" >/dev/null 2>&1; done
	perf record -q -o "$TMP/$name.data" -e page-faults:u -c 1 -d -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do "$@"; done' \
		sh "$@" >/dev/null 2>&1
	"$LDPROF" -n 12 --json "$@" >"$TMP/$name.json" 2>"$TMP/$name.err"
	python3 "$TOP/tests/crt-faults.py" "$TMP/$name.data" "$1" "$TMP/$name.json" >"$TMP/$name"
	check "$name: the oracle and ldprof give rows ($(wc -l <"$TMP/$name") libraries)" \
		test -s "$TMP/$name"
}

# Columns: path, crt_faults, faults at DT_INIT, at DT_FINI per run,
# init and fini functions, measured fini (us), the fault cost (us).
held() {
	awk "$2" "$TMP/$1" >"$TMP/$1.bad"
	expect_eq "$1: $3" "" "$(cat "$TMP/$1.bad")"
}

# shellcheck disable=SC2016 # the conditions are awk's, in single quotes
for p in "sh|$TOP/samples/sh.dynamic $TOP/samples/foo" "cxx|$M/dyn-cxx" \
	"zsh|/bin/zsh -c exit" "curl|/usr/bin/curl --version"; do
	name=${p%%|*}
	cmd=${p#*|}
	if [ ! -x "${cmd%% *}" ]; then
		skip "$name: ${cmd%% *} is not installed"
		continue
	fi
	# shellcheck disable=SC2086 # the command's words
	rows "$name" $cmd
	held "$name" '$3 < 0.9' "_init faults in every run, as counted"
	if [ "$name" = curl ]; then
		held "$name" '$2 < $3 + $4 - 0.25' "the layout's count bounds the faults from above"
	else
		held "$name" '$2 > $3 + $4 + 0.25 || $2 < $3 + $4 - 0.25' \
			"the layout's count is the faults taken"
	fi
	# A quarter of the run's fault cost: on a busy machine (faults of 28.6
	# us) libsasl2's faulting _fini measured 14.2 us, a read fault in
	# cached text being cheaper than the fault the run prices; a fault
	# missed is the 1 us of a _fini that takes none.
	held "$name" '$4 >= 0.9 && $6 <= 2 && $7 < $8 / 4' \
		"a _fini that faults shows in the measured fini"
done
done_testing
