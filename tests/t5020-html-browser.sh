#!/bin/sh
# The HTML report in a real browser (headless Chromium): after the page's
# script ran, the timeline has one bar per library and #sort=total sorted the
# table; a 1280x800 screenshot is saved to build/tests/out/timeline.png
# (UPDATE_GOLDEN=1 copies it to docs/timeline.png, the README's picture).
. "$(dirname "$0")/lib.sh"

need_browser

# From the top directory, so the page names the command as the README does.
(cd "$TOP" && "$LDPROF" record -n 31 -o "$TMP/sh.ldprof" samples/sh.dynamic samples/foo 2>/dev/null)
check "record the sample shell" test $? -eq 0
"$LDPROF" report --json "$TMP/sh.ldprof" >"$TMP/report.json"
"$LDPROF" report --format html -o "$TMP/page.html" "$TMP/sh.ldprof"
check "the page" test -s "$TMP/page.html"

headless --dump-dom "file://$TMP/page.html#sort=total" >"$TMP/dom.html"
check "$LDPROF_BROWSER rendered the page" test -s "$TMP/dom.html"
if python3 "$TOP/tests/t5-validate.py" dom "$TMP/dom.html" "$TMP/report.json" >"$TMP/why" 2>&1; then
	ok "in the DOM: one timeline bar per library, the table sorted by the script"
else
	not_ok "in the DOM: one timeline bar per library, the table sorted by the script"
	sed 's/^/# /' "$TMP/why"
fi

out=$TOP/build/tests/out
mkdir -p "$out"
rm -f "$out/timeline.png"
headless --screenshot="$out/timeline.png" --window-size=1280,800 "file://$TMP/page.html" >/dev/null
expect_eq "a 1280x800 PNG screenshot ($out/timeline.png)" "1280x800" \
	"$(python3 -c 'import struct,sys
d=open(sys.argv[1],"rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' \
		"$out/timeline.png" 2>&1)"
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$out/timeline.png" "$TOP/docs/timeline.png"
	diag "updated docs/timeline.png"
fi
done_testing
