#!/bin/sh
# --sample's flame graph in a real browser (headless Chromium): the page
# of a sampled trace has the flame graph, self-contained, with the phases
# as its first level and ld.so's frames (_dl_start, dl_main,
# _dl_relocate_object); #flame=dl_main zooms into dl_main as a click does.
. "$(dirname "$0")/lib.sh"

need_browser

"$LDPROF" record --sample -n 30 -o "$TMP/sh.ldprof" "$TOP/samples/sh.dynamic" "$TOP/samples/foo" \
	2>"$TMP/e"
check "record --sample the sample shell" test $? -eq 0
if grep -q 'sampling: perf_event_open' "$TMP/e"; then
	skip "sampling refused: $(cat "$TMP/e")"
	done_testing
	exit 0
fi
"$LDPROF" report --format html -o "$TMP/page.html" "$TMP/sh.ldprof"
check "the page" test -s "$TMP/page.html"
check "the page fetches nothing" sh -c "! grep -qE '(src|href)=\"(https?:)?//' '$TMP/page.html'"
headless --dump-dom "file://$TMP/page.html#flame=dl_main" >"$TMP/dom.html"
check "$LDPROF_BROWSER rendered the page" test -s "$TMP/dom.html"
if python3 "$TOP/tests/t0720-sample-validate.py" "$TMP/dom.html" dl_main >"$TMP/why" 2>&1; then
	ok "in the DOM: the flame graph, phases first, ld.so's frames, zoomed into dl_main"
else
	not_ok "in the DOM: the flame graph, phases first, ld.so's frames, zoomed into dl_main"
	sed 's/^/# /' "$TMP/why"
fi
done_testing
