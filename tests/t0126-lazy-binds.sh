#!/bin/sh
# Lazy binding after startup, counted in the run (preload/lazy.c): each
# library's lazy_binds equals what ld.so itself reports, LD_DEBUG=bindings
# after the last "relocation processing" (ld.so's own relocation last, whose
# bindings are not lazy): the PLT slots the program bound at first call.
. "$(dirname "$0")/lib.sh"

# "name=count ..." of each library's lazy_binds, from ldprof, and from ld.so.
ours() {
	"$LDPROF" -n 5 --no-overhead --json "$@" >"$TMP/j"
	json_eval "$TMP/j" "' '.join(sorted('%s=%d' % (l['path'].rsplit('/', 1)[-1], l['lazy_binds']) for l in d['libraries'] if l.get('lazy_binds')))"
}
oracle() {
	LD_DEBUG=reloc,bindings "$@" 2>"$TMP/debug" >/dev/null
	awk '
		/relocation processing:/ { split($0, f, "relocation processing: "); last = f[2]
			sub(/ .*/, "", last); split("", c); next }
		/binding file/ { split($0, f, "binding file "); from = f[2]; sub(/ \[.*/, "", from)
			if (from != last) c[from]++ }
		END { for (k in c) { b = k; sub(/.*\//, "", b); print b "=" c[k] } }' "$TMP/debug" |
		sort | xargs
}

o=$(oracle "$TOP/samples/sh.dynamic" "$TOP/samples/foo")
expect_eq "the sample shell: lazy_binds per library equal LD_DEBUG's bindings after startup" \
	"$o" "$(ours "$TOP/samples/sh.dynamic" "$TOP/samples/foo")"
# Libraries with a single PLT slot each (liba, libb), from which alone the
# unbound value must be read.
expect_eq "the diamond: the same" "$(oracle "$FIXTURES/run-diamond/prog")" \
	"$(ours "$FIXTURES/run-diamond/prog")"
check "the sample shell binds some lazily (the test can see a difference: $o)" test -n "$o"
# A program that calls exit() through its lazy PLT slot, which the shim
# hooks: ld.so still binds it at the call, as without ldprof, and the
# count has it (the shim had looked exit up itself, and missed one).
expect_eq "a lazy exit() call: its binding counted as LD_DEBUG sees it" \
	"$(oracle "$FIXTURES/run-output/prog")" "$(ours "$FIXTURES/run-output/prog")"

# A plugin dlopened lazily binds clock_gettime in its constructor, before
# the open's LA_ACT_CONSISTENT: noted at its la_objopen, it is counted. A
# plugin closed again before the exit is not read then (its map is freed).
plugin="[l.get('lazy_binds') for l in d['libraries'] if l['path'].endswith('/libplugin.so')][0]"
"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-dlopen/prog" lazy >"$TMP/j"
expect_eq "a plugin dlopened lazily: its constructor's one binding counted" 1 "$(json_eval "$TMP/j" "$plugin")"
"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-dlopen/prog" close >"$TMP/j"
check "a plugin closed before the exit: every run valid" test "$(json_get "$TMP/j" '["valid_runs"]')" = 5
expect_eq "...and it is not counted" 0 "$(json_eval "$TMP/j" "$plugin")"
done_testing
