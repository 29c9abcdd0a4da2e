#!/bin/sh
# The -f HTML page in a real browser (headless Chromium): the median run's
# tree drawn as a timeline, one row per process of that run, one shaded
# startup per recorded exec, one table row per binary and per library, the
# three costliest binaries in a sentence each, all from the same saved
# trace as the JSON they are checked against.
. "$(dirname "$0")/lib.sh"

need_browser

(cd "$TOP/samples" && "$LDPROF" record -f -n 3 -o "$TMP/h.ldprof" ./harness.sh ./sh.dynamic 5 >/dev/null 2>&1)
check "record -f the harness" test $? -eq 0
"$LDPROF" report --format json -o "$TMP/j" "$TMP/h.ldprof"
"$LDPROF" report --format html -o "$TMP/page.html" "$TMP/h.ldprof"
check "the page" test -s "$TMP/page.html"
headless --dump-dom "file://$TMP/page.html" >"$TMP/dom.html"
check "$LDPROF_BROWSER rendered the page" test -s "$TMP/dom.html"

# Counted in the DOM the browser built, against the JSON of the same trace.
python3 - "$TMP/dom.html" "$TMP/j" >"$TMP/counts" <<'PY'
import json, sys
from html.parser import HTMLParser

class Count(HTMLParser):
    def __init__(self):
        super().__init__()
        self.n = {"proc": 0, "startup": 0, "rows": {}}
        self.section = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "section":
            self.section = a.get("id")
        if tag == "g" and "proc" in cls:
            self.n["proc"] += 1
        if tag == "rect" and "startup" in cls:
            self.n["startup"] += 1
        if tag == "tr" and self.section:
            self.n["rows"][self.section] = self.n["rows"].get(self.section, 0) + 1
        if tag == "li" and self.section == "binaries":
            self.n["verdicts"] = self.n.get("verdicts", 0) + 1

c = Count()
c.feed(open(sys.argv[1]).read())
d = json.load(open(sys.argv[2]))
run = [r for r in d["per_run"] if r["run"] == d["median_run"]][0]["tree"]
print(c.n["proc"], len(run["processes"]))
print(c.n["startup"], sum(1 for e in run["execs"] if e["startup_us"] is not None))
print(c.n["rows"].get("binaries", 0) - 1, len(d["binaries"]))
print(c.n["rows"].get("libraries", 0) - 1, len(d["libraries"]))
print(c.n.get("verdicts", 0), min(3, sum(1 for b in d["binaries"] if b["dynamic"] and b["execs_analyzed"])))
PY
{
	read -r drawn procs
	read -r shaded recorded
	read -r binrows bins
	read -r librows libs
	read -r said costliest
} <"$TMP/counts"
expect_eq "one timeline row per process of the median run" "$procs" "$drawn"
expect_eq "one shaded startup per recorded exec" "$recorded" "$shaded"
expect_eq "one table row per binary" "$bins" "$binrows"
expect_eq "one table row per library" "$libs" "$librows"
expect_eq "the costliest dynamic binaries said in a sentence each" "$costliest" "$said"
done_testing
