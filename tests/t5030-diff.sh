#!/bin/sh
# ldprof diff on two builds of one program, the second with one more library
# (libextra.so, a 3 ms constructor): the library is listed as added, the
# init phase and the total grew significantly, and --fail-above turns that
# into exit 1 for CI; 2 for bad input.
. "$(dirname "$0")/lib.sh"

fix=$FIXTURES/trace-extra-lib
"$LDPROF" record -n 25 -o "$TMP/before.ldprof" "$fix/before/prog" 2>/dev/null
check "record before" test $? -eq 0
"$LDPROF" record -n 25 -o "$TMP/after.ldprof" "$fix/after/prog" 2>/dev/null
check "record after" test $? -eq 0

"$LDPROF" diff "$TMP/before.ldprof" "$TMP/after.ldprof" >"$TMP/text" 2>"$TMP/e"
expect_eq "no --fail-above: exit 0" 0 $?
check "libextra.so is listed as added" grep -q "^  libextra.so .* added$" "$TMP/text"

# The layout, with numbers and significance marks normalised (tests/golden/diff-extra-lib.txt).
sed -E -e "s|$TMP|TMP|g" -e "s|$FIXTURES|FIXTURES|g" -e 's/[-+]?[0-9]+(\.[0-9]+)?/N/g' \
	-e 's/ \*( |$)/\1/' -e 's/ +/ /g' -e 's/ $//' "$TMP/text" >"$TMP/norm"
expect_golden "diff text (tests/golden/diff-extra-lib.txt)" "$TOP/tests/golden/diff-extra-lib.txt" \
	"$TMP/norm"

"$LDPROF" diff --json "$TMP/before.ldprof" "$TMP/after.ldprof" >"$TMP/j"
expect_eq "schema" ldprof-diff/1 "$(json_get "$TMP/j" '["schema"]')"
expect_eq "libextra.so: added, with its time after" "added True" \
	"$(json_eval "$TMP/j" "' '.join(str(x) for x in [(l['status'], l['after_us'] > 2900) for l in d['libraries'] if l['name'] == 'libextra.so'][0])")"
expect_eq "liba.so is in both" both \
	"$(json_eval "$TMP/j" "[l['status'] for l in d['libraries'] if l['name'] == 'liba.so'][0]")"
init=$(json_eval "$TMP/j" "[p['change_us'] for p in d['phases'] if p['name'] == 'init'][0]")
# The constructor's 3 ms (libextra.so's own time is checked above). The
# two traces are recorded one after the other, and a busy machine lengthens
# "before"'s init to 330-450 us where it is 40 quiet (a make check's: 3040
# us), so above 2 ms: a constructor lost gives about 0, a sign error -3 ms.
check "the init phase grew by the 3 ms constructor ($init us)" \
	awk -v v="$init" 'BEGIN { exit !(v > 2000 && v < 9000) }'
expect_eq "significantly" true \
	"$(json_eval "$TMP/j" "[p['significant'] for p in d['phases'] if p['name'] == 'init'][0]")"
expect_eq "the total grew significantly" true "$(json_get "$TMP/j" '["total"]["significant"]')"
expect_eq "the change is after minus before" true \
	"$(json_eval "$TMP/j" "abs(d['total']['change_us'] - (d['total']['after_us'] - d['total']['before_us'])) < 1e-3")"
expect_eq "its CI holds it" true \
	"$(json_eval "$TMP/j" "d['total']['change_us_ci95'][0] <= d['total']['change_us'] <= d['total']['change_us_ci95'][1]")"

# The CI gate.
"$LDPROF" diff --fail-above 5% "$TMP/before.ldprof" "$TMP/after.ldprof" >"$TMP/gate" 2>&1
expect_eq "--fail-above 5%: a regression, exit 1" 1 $?
check "says so" grep -q "REGRESSION: the median total grew" "$TMP/gate"
"$LDPROF" diff --fail-above 500ms "$TMP/before.ldprof" "$TMP/after.ldprof" >/dev/null 2>&1
expect_eq "--fail-above 500ms: below it, exit 0" 0 $?
"$LDPROF" diff --fail-above 5% "$TMP/after.ldprof" "$TMP/before.ldprof" >"$TMP/back" 2>&1
expect_eq "the other way round is an improvement: exit 0" 0 $?
check "and libextra.so was removed" grep -q "^  libextra.so .* removed$" "$TMP/back"
"$LDPROF" diff --fail-above 1% --json -o "$TMP/same.json" "$TMP/before.ldprof" "$TMP/before.ldprof"
expect_eq "a trace against itself: exit 0" 0 $?
expect_eq "nothing significant in it" false \
	"$(json_eval "$TMP/same.json" "d['total']['significant'] or any(p['significant'] for p in d['phases']) or any(l['significant'] for l in d['libraries'])")"

# Bad usage and bad input: exit 2.
bad() { # DESCRIPTION PATTERN ARGS...
	desc=$1 pattern=$2
	shift 2
	"$LDPROF" diff "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "$pattern" "$TMP/err"; then ok "$desc"; else
		not_ok "$desc"
		diag "exit $st: $(cat "$TMP/err")"
	fi
}
bad "one file" "two trace files wanted" "$TMP/before.ldprof"
bad "a missing file" "^ldprof: $TMP/nope: No such file" "$TMP/before.ldprof" "$TMP/nope"
printf 'not a trace\n' >"$TMP/junk"
bad "not a trace" "^ldprof: $TMP/junk: not an ldprof trace" "$TMP/junk" "$TMP/before.ldprof"
bad "a bad threshold" "fail-above wants" --fail-above lots "$TMP/before.ldprof" "$TMP/after.ldprof"
bad "a negative threshold" "fail-above wants" --fail-above -5% "$TMP/before.ldprof" "$TMP/after.ldprof"
bad "a format diff does not speak" "format wants text or json" --format csv \
	"$TMP/before.ldprof" "$TMP/after.ldprof"
if [ -w /dev/full ]; then
	"$LDPROF" diff --fail-above 5% "$TMP/before.ldprof" "$TMP/after.ldprof" >/dev/full 2>"$TMP/e"
	expect_eq "a write error is 2, not a regression" 2 $?
fi
done_testing
