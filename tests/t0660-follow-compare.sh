#!/bin/sh
# compare -f of the harness with the static shell (A) and the dynamic one
# (B): after the ratio, each side's loader and the per-binary and
# per-library tables, side by side: the 21 execs of each shell per run on
# their own side, the dynamic shell's libraries on B's only, libc on both.
# diff of two -f traces the same, before and after; the JSON of compare -f
# each side's workload.
. "$(dirname "$0")/lib.sh"

cd "$TOP/samples" || exit 1
"$LDPROF" compare -f -n 3 --color=never './harness.sh ./sh.static 20' './harness.sh ./sh.dynamic 20' \
	>"$TMP/out" 2>"$TMP/err"
check "compare -f runs both workloads" test $? -eq 0
check "the ratio of the plain runs" grep -q '^  B/A  [0-9.]*x  95% CI' "$TMP/out"
check "each side's loader per run" grep -q '^  the loader (exec + load + relocate)  *[0-9.]* [mµu]*s  *[0-9.]* [mµu]*s  *[+-]' "$TMP/out"
expect_eq "sh.dynamic: B's only, 21 execs per run" "- - 21.0" \
	"$(awk '$1 == "sh.dynamic" { print $2, $3, $4 }' "$TMP/out")"
expect_eq "sh.static: A's only, 21 static execs, no startup" "21.0 - - - -" \
	"$(awk '$1 == "sh.static" { print $2, $3, $4, $5, $6 }' "$TMP/out")"
expect_eq "expr runs 21 times per run on both sides" "21.0 21.0" \
	"$(awk '$1 ~ /\/expr$/ { print $2, $5 }' "$TMP/out")"
expect_eq "libedit is B's only" "- -" "$(awk '$1 == "libedit.so.2" { print $2, $3 }' "$TMP/out")"
expect_eq "libc on both sides: A's execs are the harness and expr, B's every exec" "22.0 43.0" \
	"$(awk '$1 == "libc.so.6" { print $2, $5 }' "$TMP/out")"
# A row whose A side is empty: B-A is B itself.
expect_eq "B-A of a B-only row is B" "$(awk '$1 == "libedit.so.2" { print "+" $5 " " $6 }' "$TMP/out")" \
	"$(awk '$1 == "libedit.so.2" { print $7 " " $8 }' "$TMP/out")"
check "the static shell's execs are said" grep -q 'note (A): .* static binary' "$TMP/out"

# diff of two -f traces: the same tables, before and after.
"$LDPROF" record -f -n 3 -o "$TMP/a.ldprof" ./harness.sh ./sh.static 5 2>"$TMP/err" &&
	"$LDPROF" record -f -n 3 -o "$TMP/b.ldprof" ./harness.sh ./sh.dynamic 5 2>"$TMP/err"
check "record -f both harnesses" test $? -eq 0
"$LDPROF" diff "$TMP/a.ldprof" "$TMP/b.ldprof" >"$TMP/diff" 2>"$TMP/err"
check "diff of two -f traces" test $? -eq 0
expect_eq "diff: sh.dynamic after only, 6 execs per run" "- - 6.0" \
	"$(awk '$1 == "sh.dynamic" { print $2, $3, $4 }' "$TMP/diff")"
expect_eq "diff: libedit after only" "- -" "$(awk '$1 == "libedit.so.2" { print $2, $3 }' "$TMP/diff")"
check "diff: the loader before and after" grep -q '^  the loader (exec + load + relocate)  *[0-9.]* [mµu]*s  *[0-9.]* [mµu]*s' "$TMP/diff"

"$LDPROF" compare -f -n 2 --format json -o "$TMP/j" './harness.sh ./sh.static 3' './harness.sh ./sh.dynamic 3' 2>"$TMP/err"
check "compare -f --format json" test $? -eq 0
expect_eq "each side's whole workload in the JSON: 4 execs of its shell per run" "sh.static 4 sh.dynamic 4" \
	"$(json_eval "$TMP/j" "' '.join('%s %d' % (b['path'].rsplit('/', 1)[1], b['execs_per_run']) for k in ('workload_a', 'workload_b') for b in d[k]['binaries'] if '/sh.' in b['path'])")"
done_testing
