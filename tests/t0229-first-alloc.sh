#!/bin/sh
# The first allocation: a static glibc start initializes malloc whatever
# the program does (its getrandom and brk), a dynamic one at the program's
# first allocation. The minimal pair allocates once, so the fixed cost is a
# program's that allocates; the census reads, at the program's exit,
# whether its first process grew a heap ([heap] in its maps), and the
# verdict subtracts the calibration's malloc_us from one that never did.
# The oracle: strace, whose brk calls with an address (not brk(NULL)) are
# the heap growing.
. "$(dirname "$0")/lib.sh"

export LDPROF_CALIBRATION="$TMP/absent"

# Whether strace sees the program's brk grow the heap: True or False.
brk_grows() {
	strace -qq -e trace=brk -o "$TMP/brk" "$@" >/dev/null 2>&1
	if grep -q 'brk(0x' "$TMP/brk"; then echo True; else echo False; fi
}

base=$FIXTURES/model-base/base
"$LDPROF" -n 3 --no-overhead --json "$base" >"$TMP/base.json" 2>"$TMP/e"
check "a program that never allocates: runs" test $? -eq 0
expect_eq "it had no heap, and the saving is malloc_us less" "False True" \
	"$(json_eval "$TMP/base.json" "(lambda v: str(v['image_heap']) + ' ' + str(v['malloc_us'] > 0 and abs(v['parts_us']['no_allocation'] + v['malloc_us']) < 1e-6))(d['verdict'])")"

sh_prog=$TOP/samples/sh.dynamic
"$LDPROF" -n 3 --no-overhead --json "$sh_prog" "$TOP/samples/foo" >"$TMP/sh.json"
expect_eq "the sample shell allocates: a heap, nothing subtracted" "True 0" \
	"$(json_eval "$TMP/sh.json" "'%s %g' % (d['verdict']['image_heap'], d['verdict']['parts_us']['no_allocation'])")"
expect_eq "the saving adds its parts" true \
	"$(json_eval "$TMP/base.json" "abs(sum(d['verdict']['parts_us'].values()) - d['verdict']['static_link_saved_us']) < 0.01")"

if command -v strace >/dev/null 2>&1; then
	expect_eq "strace: base's brk never grows" False "$(brk_grows "$base")"
	expect_eq "strace: the sample shell's does" True "$(brk_grows "$sh_prog" "$TOP/samples/foo")"
else
	skip "strace is not installed (tools/install-deps)"
	skip "strace is not installed (tools/install-deps)"
fi

# A first process that executes another program: its exit is not the image's.
"$LDPROF" -n 3 --no-overhead --json /bin/sh -c 'exec /bin/true' >"$TMP/ex.json"
expect_eq "exec: not seen, nothing subtracted" "None 0" \
	"$(json_eval "$TMP/ex.json" "'%s %g' % (d['verdict']['image_heap'], d['verdict']['parts_us']['no_allocation'])")"

# The text names it in the verdict's parts.
"$LDPROF" -n 3 --no-overhead "$base" >"$TMP/t"
check "text: the first allocation it never makes" grep -q "less a first allocation it never makes [0-9]" "$TMP/t"

# record and report: it travels with the trace.
"$LDPROF" record -n 3 -o "$TMP/b.trace" "$base" >/dev/null 2>&1
check "record" test $? -eq 0
"$LDPROF" report --json "$TMP/b.trace" >"$TMP/r.json"
expect_eq "report: the same heap, the same part" \
	"False $(json_eval "$TMP/base.json" "'%g' % d['verdict']['parts_us']['no_allocation']")" \
	"$(json_eval "$TMP/r.json" "'%s %g' % (d['verdict']['image_heap'], d['verdict']['parts_us']['no_allocation'])")"
done_testing
