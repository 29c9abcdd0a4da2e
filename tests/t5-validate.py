#!/usr/bin/env python3
"""Structure checks of ldprof's --format outputs, for tests/t50*.sh.

    t5-validate.py chrome FILE.json REPORT.json [--all-runs]
    t5-validate.py csv FILE.csv REPORT.json
    t5-validate.py hyperfine FILE.json REPORT.json
    t5-validate.py folded FILE.folded CHROME.json
    t5-validate.py html FILE.html REPORT.json
    t5-validate.py dom DUMPED.html REPORT.json   (after the page's script ran)

Prints one line per failed check and exits 1 if any failed.
"""
import csv
import json
import re
import sys
from html.parser import HTMLParser

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def ns(x):
    """Microseconds as printed (3 decimals) to whole nanoseconds."""
    return round(float(x) * 1000)


def shown_libraries(report):
    return [lib for lib in report["libraries"] if lib["role"] not in ("loader", "vdso")]


def nesting_ok(events):
    """X events on one thread nest: each is inside the enclosing open one."""
    spans = sorted((ns(e["ts"]), -ns(e["dur"]), e["name"]) for e in events)
    stack = []
    for start, negdur, name in spans:
        end = start - negdur
        while stack and stack[-1][1] <= start and not (stack[-1][1] == start == end):
            stack.pop()
        if stack and end > stack[-1][1]:
            failures.append("%s [%d, %d] sticks out of %s" % (name, start, end, stack[-1][2]))
            return False
        stack.append((start, end, name))
    return True


def chrome(path, report, all_runs):
    doc = json.load(open(path))
    events = doc["traceEvents"]
    check(doc.get("displayTimeUnit") in ("ns", "ms"), "displayTimeUnit")
    meta = [e for e in events if e["ph"] == "M"]
    xs = [e for e in events if e["ph"] == "X"]
    check(any(e["name"] == "process_name" and e["args"]["name"] for e in meta), "process_name")
    threads = {e["tid"] for e in meta if e["name"] == "thread_name"}
    check(threads == {e["tid"] for e in xs}, "every thread with slices is named")
    for e in xs:
        for k in ("name", "cat", "ph", "ts", "dur", "pid", "tid", "args"):
            check(k in e, "X event has %s: %s" % (k, e.get("name")))
        check(float(e["dur"]) >= 0 and float(e["ts"]) >= 0, "non-negative ts/dur")
    expected = report["valid_runs"] if all_runs else 1
    check(len(threads) == expected, "%d threads, expected %d" % (len(threads), expected))
    if not all_runs and xs:
        run = [e for e in xs if e["cat"] == "run"][0]
        totals = sorted(r["total_us"] for r in report["per_run"])
        med = report["total_us"]["median"]
        nearest = min(totals, key=lambda t: abs(t - med))
        check(abs(ns(run["dur"]) / 1000 - nearest) < 0.002, "the median run is shown")
    for tid in threads:
        mine = [e for e in xs if e["tid"] == tid]
        nesting_ok(mine)
        check_thread(mine, report)


def inside(e, p):
    return ns(p["ts"]) <= ns(e["ts"]) and ns(e["ts"]) + ns(e["dur"]) <= ns(p["ts"]) + ns(p["dur"])


def check_thread(xs, report):
    runs = [e for e in xs if e["cat"] == "run"]
    phases = {e["name"]: e for e in xs if e["cat"] == "phase"}
    check(len(runs) == 1, "one run slice per thread")
    check(list(phases) == ["exec", "load", "relocate", "init", "main", "exit"], "six phases")
    if not runs or len(phases) != 6:
        return
    total = ns(runs[0]["dur"])
    check(sum(ns(p["dur"]) for p in phases.values()) == total, "phases add up to the run")
    # Microseconds: the run slice lasts exactly one run's total_us (ns would be 1000x off).
    totals = [r["total_us"] for r in report["per_run"]]
    check(any(abs(total / 1000 - t) < 0.002 for t in totals),
          "run slice of %.3f us is no run's total" % (total / 1000))
    where = {"load": "load", "reloc": "relocate", "init": "init", "fini": "exit"}
    for e in xs:  # (no dlopen in the fixtures: every constructor runs in init)
        if e["cat"] in where:
            check(inside(e, phases[where[e["cat"]]]), "%s inside %s" % (e["name"], where[e["cat"]]))
    libs = {lib["path"] for lib in shown_libraries(report)}
    check({e["args"]["path"] for e in xs if e["cat"] == "init"} <= libs, "init slices name libraries")
    check(any(e["cat"] == "reloc" and e["args"].get("relocations", 0) > 0 for e in xs),
          "relocation counts in args")
    check(all(e["name"].endswith(" load") for e in xs if e["cat"] == "load"), "load names")


def csv_check(path, report):
    rows = list(csv.reader(open(path, newline="")))
    header = "run,mode,exit_status,signal,kind,name,role,us,load_us,reloc_us,init_us,fini_us"
    check(",".join(rows[0]) == header, "CSV header: %s" % rows[0])
    body = rows[1:]
    check(all(len(r) == 12 for r in body), "12 columns in every row")
    nobj = len(report["libraries"])
    runs, plain = report["runs"], report["plain_runs"]
    want = runs * (1 + 6 + nobj) + plain
    check(len(body) == want, "%d rows, expected %d" % (len(body), want))
    kinds = {r[4] for r in body}
    check(kinds == {"total", "phase", "object"}, "kinds %s" % kinds)
    tot = sorted(float(r[7]) for r in body if r[4] == "total" and r[1] == "profiled")
    check(len(tot) == runs, "a total row per profiled run")
    med = tot[len(tot) // 2] if len(tot) % 2 else (tot[len(tot) // 2 - 1] + tot[len(tot) // 2]) / 2
    check(abs(med - report["total_us"]["median"]) < 0.01, "median of the CSV totals")


def hyperfine(path, report):
    doc = json.load(open(path))
    res = doc["results"]
    check(len(res) == (2 if report["plain_runs"] else 1), "results")
    keys = {"command", "mean", "stddev", "median", "user", "system", "min", "max", "times",
            "exit_codes"}
    for r in res:
        check(keys <= set(r), "hyperfine keys: missing %s" % (keys - set(r)))
    r = res[0]
    check(len(r["times"]) == report["runs"] == len(r["exit_codes"]), "times per run")
    check(abs(r["median"] * 1e6 - report["total_us"]["median"]) < 0.01, "median in seconds")
    check(r["min"] <= r["median"] <= r["max"], "min <= median <= max")
    check(all(c == report["exit_status"] for c in r["exit_codes"]), "exit codes")


def folded(path, chrome_path):
    lines = open(path).read().splitlines()
    pat = re.compile(r"^[^;\n]+(;[^;\n]+)* [0-9]+$")
    check(lines and all(pat.match(x) for x in lines), "folded line syntax")
    total = sum(int(x.rsplit(" ", 1)[1]) for x in lines)
    doc = json.load(open(chrome_path))
    run = [e for e in doc["traceEvents"] if e.get("cat") == "run"][0]
    check(abs(total - float(run["dur"])) <= 1, "counts sum to the run: %d vs %s" % (total, run["dur"]))
    check(any(";relocate;" in x for x in lines), "a relocate frame with libraries")


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bars = 0
        self.rows = []
        self.in_libs = False
        self.in_body = False
        self.scripts_src = 0
        self.links = 0
        self.urls = []
        self.libs_attrs = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g" and "bar" in a.get("class", "").split():
            self.bars += 1
        if tag == "table" and a.get("id") == "libs":
            self.in_libs = True
            self.libs_attrs = a
        if self.in_libs and tag == "tbody":
            self.in_body = True
        if self.in_body and tag == "tr":
            self.rows.append([])
        if self.in_body and tag == "td":
            self.rows[-1].append(a.get("data-v"))
        if tag == "script" and "src" in a:
            self.scripts_src += 1
        if tag == "link":
            self.links += 1
        for k in ("src", "href"):
            if k in a:
                self.urls.append(a[k])

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_libs = self.in_body = False


def html(path, report, dom=False):
    text = open(path).read()
    p = Page()
    p.feed(text)
    check(p.scripts_src == 0 and p.links == 0, "no external scripts or stylesheets")
    check(not p.urls, "no src/href at all: %s" % p.urls[:3])
    check(not re.search(r"url\(|@import|https?://", text), "no network reference")
    libs = shown_libraries(report)
    check(p.bars == len(libs), "%d timeline bars, %d libraries" % (p.bars, len(libs)))
    check(len(p.rows) == len(libs), "%d table rows, %d libraries" % (len(p.rows), len(libs)))
    if dom:
        check(p.libs_attrs.get("data-sorted") == "total-desc", "the script sorted by #sort=total")
        totals = [float(r[6]) for r in p.rows if r[6]]
        check(totals == sorted(totals, reverse=True), "rows by total, descending: %s" % totals)


def main():
    kind, path, ref = sys.argv[1:4]
    if kind == "folded":
        folded(path, ref)
    else:
        report = json.load(open(ref))
        {"chrome": lambda: chrome(path, report, "--all-runs" in sys.argv),
         "csv": lambda: csv_check(path, report),
         "hyperfine": lambda: hyperfine(path, report),
         "html": lambda: html(path, report),
         "dom": lambda: html(path, report, dom=True)}[kind]()
    for f in failures:
        print(f)
    sys.exit(1 if failures else 0)


main()
