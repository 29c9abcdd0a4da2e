#!/bin/sh
# tools/check-layers: the built analyzer passes, and an upward call or a
# cycle between files, added on purpose, makes it fail naming the call.
. "$(dirname "$0")/lib.sh"

BUILD=${LDPROF_BUILD:-$TOP/build}
CHECK=$TOP/tools/check-layers

# make_obj DIR/NAME 'C SOURCE': compile one tiny object of a fake layer.
make_obj() {
	mkdir -p "$TMP/fake/analyzer/$(dirname "$1")"
	printf '%s\n' "$2" >"$TMP/src.c"
	cc -c -o "$TMP/fake/analyzer/$1.o" "$TMP/src.c"
}

# shellcheck disable=SC2086 # LDPROF_MAKE_ARGS holds make arguments
make -C "$TOP" -s ${LDPROF_MAKE_ARGS:-} check-layers >"$TMP/real" 2>&1
check "make check-layers passes on the real build" test $? -eq 0
sed 's/^/# /' "$TMP/real"

# A clean fake: render calls base, as it should.
make_obj base/low 'int low_fn(void) { return 1; }'
make_obj render/high 'int low_fn(void); int high_fn(void) { return low_fn(); }'
"$CHECK" "$TMP/fake" >"$TMP/out" 2>&1
check "a downward call passes" test $? -eq 0

make_obj base/bad 'int high_fn(void); int bad_fn(void) { return high_fn(); }'
"$CHECK" "$TMP/fake" >"$TMP/out" 2>&1
expect_eq "an upward call: exit 1" 1 $?
check "the upward call is named" \
	grep -qx 'check-layers: upward call: base/bad.o -> render/high.o (high_fn)' "$TMP/out"
rm "$TMP/fake/analyzer/base/bad.o"

# Headers build no object: an upward include is found in the sources, read
# from the folder check-layers runs in (the top of the tree).
mkdir -p "$TMP/fake/analyzer/base/out" "$TMP/fake/analyzer/render"
printf '#include "render/high.h"\n' >"$TMP/fake/analyzer/base/out/bad.h"
printf '#include "base/low.h"\n' >"$TMP/fake/analyzer/render/ok.h"
(cd "$TMP/fake" && "$CHECK" . >"$TMP/out" 2>&1)
expect_eq "an upward include, in a layer's subfolder: exit 1" 1 $?
check "the include is named" \
	grep -qx 'check-layers: upward include: base/out/bad.h -> render/high.h' "$TMP/out"
check "a downward include is not" sh -c '! grep -q ok.h "$1"' sh "$TMP/out"
rm "$TMP/fake/analyzer/base/out/bad.h" "$TMP/fake/analyzer/render/ok.h"

make_obj model/ping 'int pong(void); int ping(void) { return pong(); }'
make_obj model/pong 'int ping(void); int pong(void) { return ping(); }'
"$CHECK" "$TMP/fake" >"$TMP/out" 2>&1
expect_eq "a cycle inside one layer: exit 1" 1 $?
check "the cycle is named" grep -q '^check-layers: cycle between model/ping.o, model/pong.o' "$TMP/out"
check "each call of the cycle is named" grep -qx '  model/ping.o -> model/pong.o (pong)' "$TMP/out"
"$CHECK" "$TMP/fake" --allow model/pong.o:model/ping.o >"$TMP/out" 2>&1
check "--allow drops a known call" test $? -eq 0
"$CHECK" "$TMP/fake" --allow model/pong.o:model/ping.o --allow base/low.o:model/ping.o >"$TMP/out" 2>&1
expect_eq "an --allow matching no call: exit 1" 1 $?
check "it is named" grep -q "allow base/low.o:model/ping.o matches no call" "$TMP/out"

# A folder given after the build one (like build/preload) is checked for
# cycles only: its files have no layers.
rm "$TMP/fake/analyzer/model/ping.o" "$TMP/fake/analyzer/model/pong.o"
mkdir -p "$TMP/shim"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$TMP/a.c"
printf 'int b(void) { return 0; }\n' >"$TMP/b.c"
cc -c -o "$TMP/shim/a.o" "$TMP/a.c" && cc -c -o "$TMP/shim/b.o" "$TMP/b.c"
"$CHECK" "$TMP/fake" "$TMP/shim" >"$TMP/out" 2>&1
check "an extra folder without a cycle passes" test $? -eq 0
printf 'int a(void);\nint b(void) { return a(); }\n' >"$TMP/b.c"
cc -c -o "$TMP/shim/b.o" "$TMP/b.c"
"$CHECK" "$TMP/fake" "$TMP/shim" >"$TMP/out" 2>&1
expect_eq "a cycle in an extra folder: exit 1" 1 $?
check "it is named" grep -q "^check-layers: cycle between .*shim/a.o, .*shim/b.o" "$TMP/out"

# The real objects plus one base/ object calling a renderer.
mkdir -p "$TMP/copy"
cp -R "$BUILD/analyzer" "$TMP/copy/"
"$CHECK" "$TMP/copy" >"$TMP/before" 2>&1
check "the real objects have no call from base/zz-upward" \
	sh -c '! grep -q zz-upward "$1"' sh "$TMP/before"
printf 'int render_csv(void);\nint zz_upward(void) { return render_csv(); }\n' >"$TMP/up.c"
cc -c -o "$TMP/copy/analyzer/base/zz-upward.o" "$TMP/up.c"
"$CHECK" "$TMP/copy" >"$TMP/after" 2>&1
expect_eq "an added upward call in the real build: exit 1" 1 $?
check "it is named" \
	grep -qx 'check-layers: upward call: base/zz-upward.o -> render/report-csv.c (render_csv)' "$TMP/after"

# An object whose source is gone (its .d names a file moved away) is not
# part of the build any more: skipped, with a warning.
rm "$TMP/copy/analyzer/base/zz-upward.o"
cc -c -o "$TMP/copy/analyzer/base/gone.o" "$TMP/up.c"
printf '%s: %s\n' "$TMP/copy/analyzer/base/gone.o" "$TMP/moved-away.c" >"$TMP/copy/analyzer/base/gone.d"
"$CHECK" "$TMP/copy" >"$TMP/stale" 2>&1
check "a stale object is skipped" sh -c '! grep -q "upward call: base/gone" "$1"' sh "$TMP/stale"
check "and named in a warning" grep -q "warning: .*base/gone.o: skipped, its source is gone" "$TMP/stale"

"$CHECK" >/dev/null 2>"$TMP/e"
expect_eq "no build folder: exit 2" 2 $?
"$CHECK" "$TMP/nonexistent" >/dev/null 2>"$TMP/e"
expect_eq "a missing build folder: exit 2" 2 $?
check "the missing folder is named" grep -q "nonexistent.*not a directory" "$TMP/e"

done_testing
