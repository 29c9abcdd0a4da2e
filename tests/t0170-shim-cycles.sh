#!/bin/sh
# preload/check-shim-cycles, which the build runs on the audit module's
# objects: it passes on them, and fails, naming the loop, on two objects
# that call each other (as audit.c and ctor.c did through the shim's state).
. "$(dirname "$0")/lib.sh"

script=$TOP/preload/check-shim-cycles
objs=
for dir in "$(dirname "$LDPROF")/build/preload" "$(dirname "$LDPROF")/preload"; do
	[ -f "$dir/record.o" ] && objs=$(ls "$dir"/audit.o "$dir"/ctor.o "$dir"/hooks.o "$dir"/stubs.o \
		"$dir"/trampoline.o "$dir"/record.o "$dir"/shim-elfsym.o) && break
done
if [ -n "$objs" ]; then
	# shellcheck disable=SC2086 # one word per object
	check "the audit module's files call only downward" "$script" $objs
else
	skip "the shim's objects are not next to $LDPROF"
fi

printf 'void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n' >"$TMP/a.c"
printf 'void a(void);\nvoid b(void);\nvoid b(void) { a(); }\n' >"$TMP/b.c"
printf 'void c(void);\nvoid c(void) { }\n' >"$TMP/c.c"
for f in a b c; do cc -c -o "$TMP/$f.o" "$TMP/$f.c"; done
"$script" "$TMP/a.o" "$TMP/b.o" "$TMP/c.o" 2>"$TMP/err"
check "a loop between two files fails" test $? -ne 0
check "and names it" grep -q '^    a b$' "$TMP/err"
check "a file that calls nothing passes" "$script" "$TMP/c.o" "$TMP/a.o"
done_testing
