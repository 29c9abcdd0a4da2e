# Shared helpers for the shell tests (POSIX sh; checked with shellcheck and
# dash). Each test script sources this, calls check/ok/not_ok, and ends with
# done_testing. Output is TAP.
# shellcheck shell=sh

TOP=$(cd "$(dirname "$0")/.." && pwd)
LDPROF=${LDPROF:-$TOP/ldprof}
# Used by the scripts that source this file.
# shellcheck disable=SC2034
FIXTURES=${LDPROF_FIXTURES:-$TOP/build/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ldprof-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Fixed locale: golden files use UTF-8 units, JSON the C decimal point.
LC_ALL=C.UTF-8
NO_COLOR=1
export LC_ALL NO_COLOR
unset LD_AUDIT LD_PRELOAD LDPROF_SHM
# The shipped model defaults unless a test calibrates: the same on every machine.
LDPROF_CALIBRATION=$TMP/no-calibration
export LDPROF_CALIBRATION

test_count=0
fail_count=0

ok() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $1"
}

not_ok() {
	test_count=$((test_count + 1))
	fail_count=$((fail_count + 1))
	echo "not ok $test_count - $1"
}

skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count - # SKIP $1"
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# Print a diagnostic line (TAP comment).
diag() {
	echo "# $*"
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected: $2"
		diag "actual:   $3"
	fi
}

# expect_same DESCRIPTION EXPECTED_FILE ACTUAL_FILE: identical files.
expect_same() {
	if diff -u "$2" "$3" >"$TMP/diff" 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/# /' "$TMP/diff"
	fi
}

# expect_golden DESCRIPTION GOLDEN_FILE ACTUAL_FILE: expect_same against a
# golden file in tests/; UPDATE_GOLDEN=1 rewrites GOLDEN_FILE first. Only
# for goldens: any other comparison would pass by copying.
expect_golden() {
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$3" "$2"
	fi
	expect_same "$@"
}

# near VALUE EXPECTED TOLERANCE: VALUE within EXPECTED * (1 +- TOLERANCE).
near() {
	awk -v v="$1" -v e="$2" -v t="$3" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(v != "" && d <= e * t) }'
}

# within DESCRIPTION VALUE EXPECTED TOLERANCE_FRACTION
within() {
	if near "$2" "$3" "$4"; then
		ok "$1 ($2, expected $3 +-$(awk -v t="$4" 'BEGIN { print t * 100 }')%)"
	else
		not_ok "$1"
		diag "value $2, expected $3 within $4"
	fi
}

# spins DESCRIPTION VALUE_US EXPECTED_US [LOW_US]: a fixture's timed spin,
# measured: VALUE_US its median, LOW_US the low end of the median's 95% CI.
# It lasts EXPECTED_US by the clock; what ldprof times around it adds its
# code's first page faults and the crt code's (12 to 19 us each on the
# machines of 2026-12-05, 2.8 before, when these checks held 5%): from 5%
# below (the median) to 5% plus 150 us above (the low end, when given).
# Twice the spin, or another wait charged to it, is in every run and moves
# the low end as much as the median; a preemption that outlasts the spin's
# end is in some runs only: with a two-core busy loop the median's CI
# reached 2322 us for a 2 ms spin and 4037-4495 us for a 1 ms one (t0100),
# medians 2105 and 1053, while the low ends stayed within 50 us.
spins() {
	if awk -v v="$2" -v e="$3" -v l="${4-$2}" 'BEGIN { exit !(v != "" && l != "" && v >= 0.95 * e && l <= 1.05 * e + 150) }'; then
		ok "$1 ($2${4+, CI from $4}, expected $3 us, -5% to +5% and 150 us)"
	else
		not_ok "$1"
		diag "value $2${4+ (CI from $4)}, expected $3 us: the median from 5% below, ${4+the low end of the CI }to 5% and 150 us above"
	fi
}

# json_get FILE EXPR: evaluate a jq-like path with python3's json module.
json_get() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval("d"+sys.argv[2])
print("null" if v is None else (json.dumps(v) if isinstance(v,(list,dict,bool)) else v))' "$1" "$2"
}

done_testing() {
	echo "1..$test_count"
	[ "$fail_count" -eq 0 ]
}

# json_eval FILE PYTHON_EXPRESSION: the expression's value, with the parsed
# document bound to d (true/false printed in lower case).
json_eval() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval(sys.argv[2])
print(json.dumps(v) if isinstance(v,(bool,list,dict)) or v is None else v)' "$1" "$2"
}

# use_calibration: point LDPROF_CALIBRATION at this machine's calibration,
# the one make check made, or a quick one made here when run alone;
# LDPROF_CALIBRATION_LOG at what calibrate printed making it.
use_calibration() {
	LDPROF_CALIBRATION=${LDPROF_TEST_CALIBRATION:-}
	LDPROF_CALIBRATION_LOG=${LDPROF_TEST_CALIBRATION_LOG:-}
	if [ -z "$LDPROF_CALIBRATION" ] || [ ! -s "$LDPROF_CALIBRATION" ] ||
		[ ! -s "$LDPROF_CALIBRATION_LOG" ]; then
		LDPROF_CALIBRATION=$TMP/calibration
		LDPROF_CALIBRATION_LOG=$TMP/calibration.log
		"$LDPROF" calibrate --quick -n 20 -o "$LDPROF_CALIBRATION" >"$LDPROF_CALIBRATION_LOG" 2>&1
	fi
	export LDPROF_CALIBRATION
}

# fresh_calibration: a calibration of the machine as it is now, made once
# per test (calibrate --quick, about 15 s), for the last measurement of a
# miss: make check's calibration is minutes old by then, and on a shared
# machine its figures drift (the fixed cost 104.5 us at one calibration
# and 134.7 an hour later, a first unwind's sort 0.0126 and 0.0210 us per
# n log n, the C++ library's split in t0210 28% short of its phase).
fresh_calibration() {
	if [ -z "${fresh:-}" ]; then
		fresh=$TMP/fresh-calibration
		"$LDPROF" calibrate --quick -n 20 -o "$fresh" >"$TMP/fresh.log" 2>&1 ||
			fresh=$LDPROF_CALIBRATION
		diag "a fresh calibration for the last measurement: $fresh"
	fi
	LDPROF_CALIBRATION=$fresh
	export LDPROF_CALIBRATION
}

# slow_cc_kill [-SIG] COMMAND...: run ldprof COMMAND in the background with
# $CC a wrapper that writes where cc first starts (the build's directory)
# to $TMP/cc-started and then takes a second, send ldprof alone a SIGINT
# (or SIG) once it has, and return its exit status: a signal that reaches
# ldprof while cc builds (system() used to ignore it there).
slow_cc_kill() {
	slow_sig=INT
	case $1 in -[A-Z]*) slow_sig=${1#-} && shift ;; esac
	printf '#!/bin/sh\n[ -e "%s/cc-started" ] || pwd >"%s/cc-started"\nsleep 1\nexec cc "$@"\n' \
		"$TMP" "$TMP" >"$TMP/slow-cc"
	chmod +x "$TMP/slow-cc"
	rm -f "$TMP/cc-started"
	CC=$TMP/slow-cc "$LDPROF" "$@" &
	slow_pid=$!
	for _ in $(seq 100); do
		test -e "$TMP/cc-started" && break
		sleep 0.1
	done
	kill -$slow_sig $slow_pid
	wait $slow_pid
}

# settle_dir DIR: every file in DIR written back and dropped from the page
# cache, so that its next run reads it from disk in single pages, as the
# calibration's programs and the installed libraries are: a library GNU ld
# just wrote sits mostly in 64 KiB folios, and relocating it ran 5 to 8%
# faster (docs/model.md, "The page cache's folios").
settle_dir() {
	"$TOP/tools/settle" "$1"/*
}

# need_uprobes GROUP SPEC...: perf, root, and each SPEC (perf probe's
# NAME=FUNCTION or NAME=FUNCTION%return) placed on ld.so in GROUP, which
# the test's exit removes (a probe left behind would slow every later
# process's relocation); without them the whole test is one skip.
need_uprobes() {
	group=$1
	shift
	reason=""
	if ! command -v perf >/dev/null 2>&1; then
		reason="perf is not installed"
	elif [ "$(id -u)" != 0 ]; then
		reason="uprobes need root"
	else
		ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
		trap 'perf probe -q -d "$group:*" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
		for spec in "$@"; do
			perf probe -q -x "$ldso" --add "$group:$spec" >/dev/null 2>>"$TMP/probe.err" && continue
			reason="perf probe cannot add a uprobe here: $(head -1 "$TMP/probe.err")"
			break
		done
	fi
	if [ -n "$reason" ]; then
		skip "$reason"
		done_testing
		exit 0
	fi
}

# need_browser: LDPROF_BROWSER as given, else the first Chromium on PATH;
# with none the whole test is one skip.
need_browser() {
	for b in chromium chromium-browser google-chrome google-chrome-stable; do
		[ -n "${LDPROF_BROWSER:-}" ] && break
		command -v "$b" >/dev/null 2>&1 && LDPROF_BROWSER=$b
	done
	if [ -z "${LDPROF_BROWSER:-}" ]; then
		skip "no headless browser: install Debian's chromium package (tools/install-deps) or set LDPROF_BROWSER"
		done_testing
		exit 0
	fi
}

# headless ARGS...: the browser headless as root: no sandbox, no GPU,
# nothing from the network, a fresh profile; its log in $TMP/browser.log.
headless() {
	timeout 60 "$LDPROF_BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$TMP/profile" "$@" 2>>"$TMP/browser.log"
}
