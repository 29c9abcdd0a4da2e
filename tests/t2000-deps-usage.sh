#!/bin/sh
# ldprof deps: help, option errors and exit statuses.
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
"$LDPROF" deps -h >"$TMP/h" 2>&1
expect_eq "deps -h exits 0" 0 $?
check "deps -h shows the usage" grep -q "^usage: ldprof deps \[OPTIONS\] FILE" "$TMP/h"
for opt in --list --bindings --unused --missing --json --library-path --preload --bind-now --jobs; do
	check "usage documents $opt" grep -q -- "$opt" "$TMP/h"
done

"$LDPROF" deps >/dev/null 2>"$TMP/e"
expect_eq "no FILE: exit 2" 2 $?
check "no FILE is explained" grep -q "no FILE given" "$TMP/e"

"$LDPROF" deps --frobnicate /bin/true >/dev/null 2>"$TMP/e"
expect_eq "unknown option: exit 2" 2 $?
check "unknown option is named" grep -q "unknown option '--frobnicate'" "$TMP/e"

"$LDPROF" deps --list --bindings /bin/true >/dev/null 2>"$TMP/e"
expect_eq "two modes: exit 2" 2 $?
check "two modes are explained" grep -q "choose one of" "$TMP/e"

"$LDPROF" deps --preload >/dev/null 2>"$TMP/e"
expect_eq "--preload without a value: exit 2" 2 $?
check "missing value is explained" grep -q "needs a value" "$TMP/e"

"$LDPROF" deps --jobs 0 /bin/true >/dev/null 2>"$TMP/e"
expect_eq "--jobs 0: exit 2" 2 $?
check "bad --jobs is explained" grep -q -- "--jobs wants a number" "$TMP/e"

# Several FILEs on several threads: the same output, in FILE order.
"$LDPROF" deps --jobs 1 --list "$FIX"/deps-*/prog* >"$TMP/one" 2>&1
"$LDPROF" deps --jobs 4 --list "$FIX"/deps-*/prog* >"$TMP/four" 2>&1
check "--jobs 4 gives what --jobs 1 gives" cmp -s "$TMP/one" "$TMP/four"

"$LDPROF" deps "$TMP/nope" >"$TMP/o" 2>"$TMP/e"
expect_eq "missing FILE: exit 2" 2 $?
check "missing FILE: ldprof: FILE: why" grep -q "^ldprof: $TMP/nope: No such file or directory" "$TMP/e"

# Every FILE is analysed even when one is bad; the status says so.
"$LDPROF" deps --list "$TMP/nope" "$FIX/deps-weak/prog" >"$TMP/o" 2>"$TMP/e"
expect_eq "a bad FILE among good ones: exit 2" 2 $?
check "the good FILE is still listed" grep -q "libweak1.so" "$TMP/o"

"$LDPROF" deps --missing "$FIX/deps-weak/prog" >"$TMP/o" 2>&1
expect_eq "--missing with nothing missing: exit 0" 0 $?
check "--missing with nothing missing prints nothing" test ! -s "$TMP/o"
"$LDPROF" deps --missing "$FIX/deps-search/prog-runpath" >"$TMP/o" 2>&1
expect_eq "--missing with a missing library: exit 1" 1 $?
"$LDPROF" deps "$FIX/deps-search/prog-runpath" >"$TMP/o" 2>&1
expect_eq "the tree exits 0 even when something is missing" 0 $?

# A statically linked program is not an error: ld.so has nothing to do.
if [ -x "$TOP/samples/sh.static" ]; then
	"$LDPROF" deps --list "$TOP/samples/sh.static" >"$TMP/o" 2>&1
	expect_eq "a static program: exit 0" 0 $?
	check "a static program is said to be static" grep -q "statically linked" "$TMP/o"
else
	skip "samples/sh.static is not built"
	skip "samples/sh.static is not built"
fi

# The text listing names the same flags as the JSON (one table for both).
"$LDPROF" deps --bindings /bin/true >"$TMP/bt"
"$LDPROF" deps --json --bindings /bin/true >"$TMP/bj"
expect_eq "text and JSON list the same binding flags" \
	"$(json_eval "$TMP/bj" "' '.join(sorted(set(f for b in d['files'][0]['bindings'] for f in b['flags'])))")" \
	"$(awk '/^\t/ { print $NF }' "$TMP/bt" | cut -d, -f2- -s | tr ',' '\n' | sort -u | paste -sd' ')"

# Every object stays parsed for the whole run, but not open: 60 libraries
# (and what they need) under a limit of 24 descriptors.
libs=$(for f in /usr/lib/x86_64-linux-gnu/lib*.so.*; do
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "177ELF" ] && echo "$f"
done | head -n 60)
(
	# shellcheck disable=SC3045 # dash, bash and busybox sh all have -n
	ulimit -n 24
	# shellcheck disable=SC2086 # one path per word
	"$LDPROF" deps --list --jobs 2 $libs >"$TMP/many" 2>"$TMP/many.err"
)
expect_eq "60 libraries under ulimit -n 24: exit 0" 0 $?
check "no descriptor ran out" test ! -s "$TMP/many.err"
expect_eq "each library is listed" 60 "$(grep -c '^/' "$TMP/many")"

if [ -w /dev/full ]; then
	"$LDPROF" deps --bindings "$FIX/deps-weak/prog" >/dev/full 2>"$TMP/e"
	expect_eq "write error: exit 1" 1 $?
	check "write error is reported" grep -q "write error" "$TMP/e"
fi
done_testing
