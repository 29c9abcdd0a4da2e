#!/bin/sh
# The command table: help lists every command, -h works on each, and
# usage errors exit 2 with a message naming the problem.
. "$(dirname "$0")/lib.sh"

"$LDPROF" help >"$TMP/help" 2>&1
check "ldprof help exits 0" test $? -eq 0
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$TMP/help")
check "ldprof help lists commands" test -n "$cmds"
for c in $cmds; do
	"$LDPROF" "$c" -h >"$TMP/h" 2>&1
	st=$?
	check "ldprof $c -h exits 0" test $st -eq 0
	check "ldprof $c -h prints usage" grep -q "^usage: ldprof" "$TMP/h"
	"$LDPROF" help "$c" >"$TMP/h2" 2>&1
	check "ldprof help $c matches $c -h" cmp -s "$TMP/h" "$TMP/h2"
done
for c in run deps help version; do
	check "help lists $c" grep -q "^  $c " "$TMP/help"
done

# Every option that takes a value, read from each command's usage (which the
# option table writes): given without one, it says the value is missing, by
# the name it was given, and exits 2. An unknown option is told apart.
nvalued=0
for c in $cmds; do
	"$LDPROF" help "$c" >"$TMP/h"
	# "  -n, --runs N   ...", "      --timeout SEC ...": the option names.
	sed -n 's/^  \(-[a-zA-Z], \)\{0,1\} *\(--[a-z-]*\) [A-Z][A-Z]*\( .*\)\{0,1\}$/\1\2/p' \
		"$TMP/h" >"$TMP/valued"
	while read -r first second; do
		for opt in ${first%,} $second; do
			nvalued=$((nvalued + 1))
			"$LDPROF" "$c" "$opt" >/dev/null 2>"$TMP/e"
			expect_eq "$c $opt without a value: exit 2" 2 $?
			check "$c $opt without a value: says so" \
				grep -q "^ldprof $c: option '$opt' needs a value" "$TMP/e"
		done
	done <"$TMP/valued"
	"$LDPROF" "$c" --no-such-option >/dev/null 2>"$TMP/e"
	check "$c: an unknown option is not a missing value" \
		grep -q "^ldprof $c: unknown option '--no-such-option'" "$TMP/e"
done
check "options with values were found ($nvalued)" test "$nvalued" -ge 50
"$LDPROF" -n >/dev/null 2>"$TMP/e"
check "ldprof -n (run by default) says the value is missing" \
	grep -q "option '-n' needs a value" "$TMP/e"

# deps: -j is --jobs, as in audit; --json is --format json; -o writes a file.
"$LDPROF" deps -j 2 --list /bin/true >"$TMP/j2" 2>&1
expect_eq "deps -j 2: exit 0" 0 $?
"$LDPROF" deps --list /bin/true >"$TMP/j0" 2>&1
check "deps -j 2 lists what deps lists" cmp -s "$TMP/j0" "$TMP/j2"
"$LDPROF" deps --json /bin/true >"$TMP/dj1"
"$LDPROF" deps --format json -o "$TMP/dj2" /bin/true >"$TMP/dj2.out"
check "deps --format json -o FILE writes what --json prints" cmp -s "$TMP/dj1" "$TMP/dj2"
check "deps -o FILE prints nothing" test ! -s "$TMP/dj2.out"
"$LDPROF" deps --format text /bin/true >"$TMP/dt1"
"$LDPROF" deps /bin/true >"$TMP/dt2"
check "deps --format text is the default" cmp -s "$TMP/dt1" "$TMP/dt2"
"$LDPROF" deps --format csv /bin/true >/dev/null 2>"$TMP/e"
expect_eq "deps --format csv: exit 2" 2 $?
check "deps --format csv: says what it takes" grep -q -- "--format wants text or json" "$TMP/e"

"$LDPROF" --version >"$TMP/v"
check "--version prints the version" grep -q '^ldprof [0-9]' "$TMP/v"

"$LDPROF" >/dev/null 2>"$TMP/e"
expect_eq "no arguments: exit 2" 2 $?

"$LDPROF" --bogus-option /bin/true >/dev/null 2>"$TMP/e"
expect_eq "unknown option: exit 2" 2 $?
check "unknown option is named" grep -q "unknown option '--bogus-option'" "$TMP/e"

"$LDPROF" run -n abc /bin/true >/dev/null 2>"$TMP/e"
expect_eq "bad --runs: exit 2" 2 $?
check "bad --runs is explained" grep -q -- "--runs wants a number" "$TMP/e"

"$LDPROF" run >/dev/null 2>"$TMP/e"
expect_eq "run without a program: exit 2" 2 $?
check "missing program is explained" grep -q "no program given" "$TMP/e"

"$LDPROF" help nosuch >/dev/null 2>"$TMP/e"
expect_eq "help for an unknown command: exit 2" 2 $?

# "run" is the default command, and -- ends ldprof's options.
"$LDPROF" -n 1 -w 0 --no-overhead --json /bin/true >"$TMP/j"
check "default command is run" grep -q '"schema": "ldprof-run/1"' "$TMP/j"
"$LDPROF" run -n 1 -w 0 --no-overhead --json -- /bin/true >"$TMP/j"
check "run -- PROGRAM" grep -q '"program": "/bin/true"' "$TMP/j"

# Write errors on stdout are reported, as git does.
if [ -w /dev/full ]; then
	"$LDPROF" help >/dev/full 2>"$TMP/e"
	expect_eq "write error: exit 1" 1 $?
	check "write error is reported" grep -q "write error" "$TMP/e"
fi
done_testing
