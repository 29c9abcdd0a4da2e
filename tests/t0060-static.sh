#!/bin/sh
# A static program is detected: whole-process figures, and a plain
# statement that there is no loader work to attribute.
. "$(dirname "$0")/lib.sh"

st=$TOP/samples/sh.static
"$LDPROF" -n 10 -w 1 --json "$st" "$TOP/samples/foo" >"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
expect_eq "static is true" true "$(json_get "$TMP/j" '["static"]')"
expect_eq "no phases" 0 "$(json_eval "$TMP/j" "len(d['phases'])")"
expect_eq "10 runs" 10 "$(json_get "$TMP/j" '["runs"]')"
expect_eq "no overhead figure (no shim)" null "$(json_get "$TMP/j" '["overhead_us"]')"
check "a total is measured" test "$(json_eval "$TMP/j" "d['total_us']['median'] > 0")" = true
check "the note says why" grep -q "no dynamic loader work to attribute" "$TMP/j"
"$LDPROF" -n 5 "$st" "$TOP/samples/foo" >"$TMP/t"
check "text: static executable named" grep -q "static executable, 5 runs" "$TMP/t"
check "text: the note" grep -q "there is no dynamic loader work to attribute" "$TMP/t"
check "text: whole-process figures" grep -q "page faults" "$TMP/t"
check "text: no phase table" sh -c "! grep -q '^  relocate' '$TMP/t'"
done_testing
