#!/usr/bin/env python3
"""Checks of the workload report (ldprof -f) for t0650: the JSON's figures
against its own per-exec data, the Chrome trace's tracks and nesting, the
CSV's rows. Prints why on failure and exits 1."""
import csv
import json
import statistics
import sys


def strict(path):
    def no_constant(c):
        raise ValueError("not JSON: " + c)
    with open(path) as f:
        return json.load(f, parse_constant=no_constant)


def fail(why):
    print(why)
    sys.exit(1)


def near(a, b, what, tol=1e-6):
    if abs(a - b) > tol * max(1.0, abs(b)):
        fail("%s: %r, expected %r" % (what, a, b))


def runs_execs(d):
    return [r["tree"]["execs"] for r in d["per_run"]]


def figures(path):
    """Every summary figure recomputed from the per-run and per-exec data."""
    d = strict(path)
    w = d["workload"]
    if d["schema"] != "ldprof-workload/1":
        fail("schema " + d["schema"])
    near(w["wall_us"]["median"], statistics.median(r["total_us"] for r in d["per_run"]),
         "wall median")
    near(w["execs"]["median"], statistics.median(len(e) for e in runs_execs(d)), "execs")
    near(w["processes"]["median"],
         statistics.median(len(r["tree"]["processes"]) for r in d["per_run"]), "processes")
    loader = [sum(e["loader_us"] or 0 for e in ex) for ex in runs_execs(d)]
    near(w["loader"]["us"]["median"], statistics.median(loader), "loader per run")
    shares = [l / r["total_us"] for l, r in zip(loader, d["per_run"])]
    near(w["loader"]["share_of_wall"]["median"], statistics.median(shares), "loader share")
    cpu = [r["tree"]["cpu_user_us"] + r["tree"]["cpu_sys_us"] for r in d["per_run"]]
    near(w["cpu_us"]["median"], statistics.median(cpu), "cpu")
    nruns = len(d["per_run"])
    for b in d["binaries"]:
        mine = [e for ex in runs_execs(d) for e in ex if e["path"] == b["path"]]
        if len(mine) != b["execs"]:
            fail("%s: %d execs listed, %d in the tree" % (b["path"], b["execs"], len(mine)))
        near(b["execs_per_run"], len(mine) / nruns, b["path"] + " execs per run")
        st = [e["startup_us"] for e in mine if e["startup_us"] is not None]
        if st:
            near(b["startup_us_per_run"], sum(st) / nruns, b["path"] + " startup per run")
    if sum(b["execs"] for b in d["binaries"]) != sum(len(e) for e in runs_execs(d)):
        fail("the binaries do not add up to every exec")
    for ex in runs_execs(d):
        for e in ex:
            if e["kind"] != "shim" and not e["reason"]:
                fail("an exec without records and without a reason: %r" % e)
            if (e["phases_us"] is None) != (e["loader_us"] is None):
                fail("phases and loader disagree: %r" % e)
            ph = e["phases_us"]
            if ph and all(v is not None for v in ph.values()):
                near(sum(ph.values()), e["wall_us"], "an exec's phases against its wall time", 1e-6)
                near(ph["exec"] + ph["load"] + ph["relocate"], e["loader_us"], "loader", 1e-6)
                near(e["loader_us"] + ph["init"], e["startup_us"], "startup", 1e-6)
    last = None
    for lib in d["libraries"]:
        if last is not None and lib["total_us_per_run"] > last + 1e-9:
            fail("libraries not costliest first")
        last = lib["total_us_per_run"]
    print("ok")


def chrome(path, nproc):
    """One track per process of the median run, named, every slice nested in its track."""
    d = strict(path)
    ev = d["traceEvents"]
    named = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name" and e["pid"]}
    if len(named) != int(nproc):
        fail("%d process tracks, %s processes" % (len(named), nproc))
    sort = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_sort_index"}
    if sort != named:
        fail("not every track has a process_sort_index")
    by_pid = {}
    for e in ev:
        if e["ph"] == "X":
            if e["pid"] not in named:
                fail("a slice on an unnamed track: %r" % e)
            by_pid.setdefault(e["pid"], []).append(e)
    for pid, xs in by_pid.items():
        xs.sort(key=lambda e: (e["ts"], -e["dur"]))
        if xs[0]["cat"] != "process":
            fail("track %d does not start with its process: %r" % (pid, xs[0]))
        stack = []  # the ends of the enclosing slices
        for e in xs:
            end = e["ts"] + e["dur"]
            while stack and stack[-1] <= e["ts"] + 1e-3:
                stack.pop()
            if not stack and e is not xs[0]:
                fail("track %d: %r outside its process" % (pid, e))
            if stack and end > stack[-1] + 1e-3:
                fail("track %d: %r sticks out of its parent by %.3f us" % (pid, e, end - stack[-1]))
            stack.append(end)
    print("ok")


def csv_rows(path, jpath):
    d = strict(jpath)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    n = sum(len(e) for e in runs_execs(d))
    if len(rows) - 1 != n:
        fail("%d rows, %d execs" % (len(rows) - 1, n))
    if any(len(r) != len(head) for r in rows):
        fail("ragged rows")
    print("ok")


if __name__ == "__main__":
    {"figures": figures, "chrome": chrome, "csv": csv_rows}[sys.argv[1]](*sys.argv[2:])
