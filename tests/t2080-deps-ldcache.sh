#!/bin/sh
# /etc/ld.so.cache as ld.so reads it: a cache written by ldconfig -C with a
# library in a directory and in its glibc-hwcaps subdirectory; ld.so takes
# the entry of the best subdirectory this CPU supports.
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
LDCONFIG=/sbin/ldconfig
[ -x "$LDCONFIG" ] || LDCONFIG=$(command -v ldconfig)
mkdir -p "$TMP/lib/glibc-hwcaps/x86-64-v2" "$TMP/lib/glibc-hwcaps/x86-64-v3"
cp "$FIX/deps-tokens/hw/libhw.so" "$TMP/lib/"
cp "$FIX/deps-tokens/hw/glibc-hwcaps/x86-64-v2/libhw.so" "$TMP/lib/glibc-hwcaps/x86-64-v2/"
cp "$FIX/deps-tokens/hw/glibc-hwcaps/x86-64-v3/libhw.so" "$TMP/lib/glibc-hwcaps/x86-64-v3/"
echo "$TMP/lib" >"$TMP/ld.so.conf"
if [ -z "$LDCONFIG" ] || ! "$LDCONFIG" -X -C "$TMP/ld.so.cache" -f "$TMP/ld.so.conf" 2>"$TMP/e"; then
	skip "ldconfig cannot write a cache here: $(cat "$TMP/e")"
	done_testing
	exit
fi
"$LDCONFIG" -p -C "$TMP/ld.so.cache" >"$TMP/p"
check "ldconfig wrote glibc-hwcaps entries" grep -q 'libhw.so (libc6,x86-64, hwcap: "x86-64-v2")' "$TMP/p"

"$LDPROF" deps --json --ld-so-cache "$TMP/ld.so.cache" "$FIX/deps-tokens/cache/prog-hw-cache" >"$TMP/j"
expect_eq "found through the cache" ld.so.cache \
	"$(json_eval "$TMP/j" '[o["found"]["via"] for o in d["files"][0]["objects"] if o["name"] == "libhw.so"][0]')"
best=$(json_eval "$TMP/j" '([n for n in d["loader"]["glibc_hwcaps"] if n in ("x86-64-v3", "x86-64-v2")] + [""])[0]')
if [ -n "$best" ]; then
	want=$TMP/lib/glibc-hwcaps/$best/libhw.so
else
	want=$TMP/lib/libhw.so
fi
expect_eq "the best glibc-hwcaps entry this CPU can use (${best:-none})" "$want" \
	"$(json_eval "$TMP/j" '[o["path"] for o in d["files"][0]["objects"] if o["name"] == "libhw.so"][0]')"
expect_eq "system libraries still come from this cache" ld.so.cache \
	"$(json_eval "$TMP/j" '[o["found"]["via"] for o in d["files"][0]["objects"] if o["name"] == "libc.so.6"][0]')"

# A cache without the library: ld.so moves on to the default directories.
"$LDPROF" deps --json "$FIX/deps-tokens/cache/prog-hw-cache" >"$TMP/j2"
expect_eq "the system cache does not know libhw.so" true \
	"$(json_eval "$TMP/j2" '[o["missing"] for o in d["files"][0]["objects"] if o["name"] == "libhw.so"][0]')"

# A damaged cache is ignored, as ld.so ignores it.
head -c 100 "$TMP/ld.so.cache" >"$TMP/short.cache"
"$LDPROF" deps --json --ld-so-cache "$TMP/short.cache" "$FIX/deps-weak/prog" >"$TMP/j3"
expect_eq "a truncated cache is ignored" default \
	"$(json_eval "$TMP/j3" '[o["found"]["via"] for o in d["files"][0]["objects"] if o["name"] == "libc.so.6"][0]')"
done_testing
