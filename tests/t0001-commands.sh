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
