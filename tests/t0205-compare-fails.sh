#!/bin/sh
# compare says in its text, as run does, when a side does not end with exit
# status 0: a side killed by SIGSEGV in every run is named, and a side
# that succeeds is not.
. "$(dirname "$0")/lib.sh"

SEGV=$FIXTURES/run-segv/prog OK=$FIXTURES/run-diamond/prog
"$LDPROF" compare -n 5 -w 1 --color never "$SEGV" "$OK" -- >"$TMP/ab" 2>"$TMP/err"
expect_eq "compare of a crashing side still reports: exit 0" 0 $?
check "A: killed by SIGSEGV in every run" grep -qx "  A: killed by SIGSEGV in every run" "$TMP/ab"
check "B, which succeeds, gets no such line" test "$(grep -c '^  B: ' "$TMP/ab")" -eq 0
"$LDPROF" compare -n 5 -w 1 --color never "$OK" "$SEGV" -- >"$TMP/ba" 2>/dev/null
check "the same for B" grep -qx "  B: killed by SIGSEGV in every run" "$TMP/ba"
"$LDPROF" compare -n 5 -w 1 --json "$SEGV" "$OK" -- >"$TMP/json" 2>/dev/null
expect_eq "the JSON agrees" "SIGSEGV 5" "$(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["a"]["outcomes"]
print(o[0]["signal"], o[0]["runs"]) if len(o) == 1 else print(o)' "$TMP/json")"
"$LDPROF" compare -n 5 -w 1 --color never "$OK" "$OK" -- >"$TMP/aa" 2>/dev/null
check "two clean sides: no outcome line" test "$(grep -c '^  [AB]: ' "$TMP/aa")" -eq 0
done_testing
