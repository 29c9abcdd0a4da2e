#!/bin/sh
# The loader's view of this machine, checked against ld.so itself: the
# glibc-hwcaps subdirectories and platform `ld.so --help` reports, and for a
# library that is not found, the exact paths ld.so tries (LD_DEBUG=libs).
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
LDSO=/lib64/ld-linux-x86-64.so.2
if ! "$LDSO" --version 2>/dev/null | grep -q "version 2\.36"; then
	skip "ld.so is not glibc 2.36: it is not the oracle ldprof models"
	done_testing
	exit
fi

"$LDPROF" deps --json "$FIX/deps-search/prog-runpath" >"$TMP/j"
"$LDSO" --help >"$TMP/help"

# "  x86-64-v3 (supported, searched)" under the glibc-hwcaps heading.
sed -n '/^Subdirectories of glibc-hwcaps/,/^$/s/^  \([^ ]*\) (supported, searched)$/\1/p' \
	"$TMP/help" >"$TMP/theirs"
json_eval "$TMP/j" '"\n".join(d["loader"]["glibc_hwcaps"])' | sed '/^$/d' >"$TMP/ours"
expect_same "glibc-hwcaps subdirectories as ld.so --help lists them" "$TMP/theirs" "$TMP/ours"

expect_eq "the platform (\$PLATFORM) is ld.so's" \
	"$(sed -n 's/^  \([^ ]*\) (AT_PLATFORM; supported, searched)$/\1/p' "$TMP/help")" \
	"$(json_eval "$TMP/j" 'd["loader"]["platform"]')"
avx=$(grep -c '^  avx512_1 (supported, searched)$' "$TMP/help")
expect_eq "the legacy avx512_1 subdirectory is searched when ld.so says so" "$avx" \
	"$(json_eval "$TMP/j" 'int(any("avx512_1" in s for s in d["loader"]["subdirectories"]))')"

# tried_ldso PROGRAM NAME: the "trying file=" lines of ld.so's search for NAME.
tried_ldso() {
	LD_TRACE_LOADED_OBJECTS=1 LD_DEBUG=libs "$LDSO" "$(realpath "$1")" 2>&1 >/dev/null |
		awk -v want="$2" '
			/find library=/ { on = index($0, "find library=" want " ") > 0; next }
			on && /trying file=/ { sub(/.*trying file=/, ""); print; next }
			on && /search (path|cache)=/ { next }
			on { on = 0 }'
}
for case in deps-search/prog-runpath:libb.so deps-search/prog-nodeflib:libc.so.6 \
	deps-search/prog-rpath-blocked:libb.so deps-missing/prog-needmissing:libgone.so; do
	prog=$FIX/${case%%:*}
	lib=${case#*:}
	tried_ldso "$prog" "$lib" >"$TMP/theirs"
	"$LDPROF" deps --json "$prog" >"$TMP/j2"
	json_eval "$TMP/j2" '"\n".join(t["path"] for o in d["files"][0]["objects"] if o["name"] == "'"$lib"'" and o["missing"] for t in o["tried"])' >"$TMP/ours"
	check "ld.so really searched for $lib" test -s "$TMP/theirs"
	expect_same "the paths tried for $lib (${case%%:*}) are ld.so's" "$TMP/theirs" "$TMP/ours"
done

# The default cache is /etc/ld.so.cache; without one, the default
# directories find libc instead.
"$LDPROF" deps --json --ld-so-cache /nonexistent "$FIX/deps-weak/prog" >"$TMP/j3"
expect_eq "no ld.so.cache: libc from the default directories" default \
	"$(json_eval "$TMP/j3" '[o["found"]["via"] for o in d["files"][0]["objects"] if o["name"] == "libc.so.6"][0]')"
expect_eq "and the document says there is no cache" null \
	"$(json_eval "$TMP/j3" 'd["loader"]["ld_so_cache"]')"
done_testing
