#!/usr/bin/env python3
"""bench-reloc: the relocation cost model's residual on real programs.

    tools/bench-reloc.py [-n RUNS] [--ldprof PATH] [--goal PCT] [--recalibrate] [--objects]
                         [--rounds] [--sessions K] [PROGRAM ARGS ;]...

For each program (by default a list of C and C++ programs from Debian's
main archive, those installed), `ldprof run --json` measures the relocate
phase and the calibrated model predicts it from the analyzer's replay of
ld.so. Prints measured, predicted and the residual (measured - predicted,
in % of the prediction) and exits 1 when a program misses the goal
(default 15%). Each program is measured in --blocks blocks (default 3) of
RUNS / blocks runs, every program's first block before any second one,
and its figure is the median of its blocks: the machine's state moves a
large program's relocate phase by tens of percent within an hour. A
block's figure is that of the runs the shared cache was not contended in
(the report's `reloc_model.measured_us`); a block whose figure holds
contended runs (too few were not) is left out when another's does not, and
the last column counts the contended runs (docs/model.md, "The shared cache"). Uses
the calibration run and report use ($LDPROF_CALIBRATION, else
$XDG_CACHE_HOME/ldprof/); says so when there is none, as every residual
would then be the reference machine's.

--cold-cache has ldprof empty the CPU caches before each run: a first
start, which a calibration made the same way (ldprof calibrate
--cold-cache) prices; back to back, a small program's tables stay cached.

--recalibrate runs `ldprof calibrate` again after the runs (in the same
cache state) and sets each residual against that calibration too, from
the same runs (the counts of the report's reloc_model_counts priced
again): on a shared machine a calibration made minutes after another
moved a program's prediction by up to 10.7% (docs/model.md, "What one
reading is worth"), so a residual is only as good as the two agree.

--sessions K measures in K sessions instead, each a fresh calibration
followed at once by a block of RUNS / K runs of every program, and sets
each block against the calibration of its own session: a ratio taken side
by side, as the machine's relocation moves by a fifth within minutes and
the calibration with it (docs/model.md, "Calibrations minutes apart").
A program's figure is the median of its K residuals, the column beside it
their range; the residual then holds the model's own error and what a
session's few minutes add, not the drift of the whole bench.

--rounds measures the programs in a calibration's own rounds instead
(`ldprof calibrate --dry-run --check`, its RUNS runs of each): interleaved
with its synthetic programs and left out of the fit, so that the program
and the fit see one state of the machine; neither the drift between a
calibration and a later run nor the cache state of runs back to back is
in the residual (docs/model.md, "In the calibration's own rounds").

--objects checks the model's split, object by object, against an oracle
that is not ldprof's: uprobes (perf probe) on ld.so's _dl_relocate_object,
entry and return, over the program's runs. Each object's measured time is
the median of its calls; the table sets it beside the model's own figure
for that object (reloc_model_us) and the share of the measured phase the
report gives it (reloc_us, "split"), and in the last column ("share") its
share of the objects both measured by uprobe against its share of them by
the split: the probed runs are other runs than the profiled ones, and the
machine's state moves either as a whole. Needs perf and the right to add uprobes
(root), and prints what the probes add to an object: the relocate phase
with them against without, over the objects.
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

# (kind, argv): programs linked with libstdc++ and plain C ones. Each is
# measured only when installed (tools/install-deps BENCH installs them).
PROGRAMS = [
    ("C++", ["cmake", "--version"]),
    ("C++", ["ctest", "--version"]),
    ("C++", ["ninja", "--version"]),
    ("C++", ["cppcheck", "--version"]),
    ("C++", ["groff", "--version"]),
    ("C++", ["uconv", "--version"]),
    ("C++", ["apt-cache", "--version"]),
    ("C++", ["gdb", "--version"]),
    ("C++", ["clang-14", "--version"]),
    ("C", ["git", "--version"]),
    ("C", ["python3", "-c", "pass"]),
    ("C", ["bash", "-c", "exit"]),
    ("C", ["perl", "-e", "1"]),
    ("C", ["curl", "--version"]),
    ("C", ["ssh", "-V"]),
]


def parse_programs(words):
    """PROGRAM ARGS ; PROGRAM ARGS ; ... (kind "-": not classified)."""
    progs, cur = [], []
    for w in words + [";"]:
        if w == ";":
            if cur:
                progs.append(("-", cur))
            cur = []
        else:
            cur.append(w)
    return progs


# --cold-cache: ldprof empties the CPU caches before each run (a first start).
RUN_OPTIONS = []


def run_ldprof(ldprof, runs, argv, calibration=None):
    """`ldprof run --json` of the program, parsed; raises with ldprof's last word."""
    env = dict(os.environ, LDPROF_CALIBRATION=calibration) if calibration else None
    r = subprocess.run([ldprof, "-n", str(runs), "--fixed-runs", "0"] + RUN_OPTIONS + ["--json", "--"] + argv,
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                           "exit status %d" % r.returncode)
    return json.loads(r.stdout)


def measure(ldprof, runs, argv, calibration=None):
    """The report's reloc_model, with "calm": whether its measured_us is of
    runs in the shared cache's state the calibration priced (uncontended,
    or contended when more than half its figures were: all of the runs, or
    the ones the report kept), and "contended", "probed"."""
    d = run_ldprof(ldprof, runs, argv, calibration)
    m, c = d.get("reloc_model"), d.get("shared_cache") or {}
    if not m:
        raise RuntimeError("no relocation model (the analyzer cannot replay it)")
    m["counts"] = {}
    for lib in d.get("libraries", []):
        for k, v in (lib.get("reloc_model_counts") or {}).items():
            m["counts"][k] = m["counts"].get(k, 0) + v
    m["contended"], m["probed"] = c.get("contended_runs", 0), c.get("probed_runs", 0)
    # Above half, as model_priced_contended() (analyzer/trace/model-coefs.h).
    priced_contended = (m.get("contended_blocks_pct") or 0) > 50
    m["calm"] = m.get("measured_runs") in ("uncontended", "contended") or \
        (m["contended"] == m["probed"] if priced_contended else not m["contended"])
    return m


PROBE_GROUP = "ldprof_bench"
# struct link_map's l_name is its second word (<link.h>, public ABI).
PROBE_ENTRY = PROBE_GROUP + ":reloc=_dl_relocate_object name=+0(+8(%di)):string"
PROBE_RETURN = PROBE_GROUP + ":reloc=_dl_relocate_object%return"  # perf names it reloc__return


def interpreter(path):
    """The program's PT_INTERP, read with pyelftools (elfimage), as a real path."""
    from elfimage import ELFError, ELFFile  # only --objects needs pyelftools

    try:
        with open(path, "rb") as f:
            for seg in ELFFile(f).iter_segments():
                if seg["p_type"] == "PT_INTERP":
                    return os.path.realpath(seg.get_interp_name())
    except (OSError, ELFError) as e:
        raise RuntimeError("%s: not an ELF program (%s)" % (path, e))
    raise RuntimeError("%s: static (no PT_INTERP): ld.so relocates nothing" % path)


def last_line(text):
    return (text.strip().splitlines() or ["failed"])[-1]


def remove_probes():
    subprocess.run(["perf", "probe", "-q", "-d", PROBE_GROUP + ":*"], capture_output=True)


def add_probes(ldso):
    """The two uprobes on ld.so; raises when perf refuses."""
    remove_probes()
    for spec in (PROBE_ENTRY, PROBE_RETURN):
        r = subprocess.run(["perf", "probe", "-q", "-x", ldso, "--add", spec],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("perf probe: " + last_line(r.stderr))


def probe_times(runs, argv):
    """Median _dl_relocate_object time (us) per object path, over the program's runs."""
    comm = os.path.basename(argv[0])[:15]
    loop = 'i=0; while [ $i -lt %d ]; do "$@" >/dev/null 2>&1; i=$((i+1)); done' % runs
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(["perf", "record", "-q", "-o", data, "-e", PROBE_GROUP + ":*", "--",
                              "sh", "-c", loop, "sh"] + argv, capture_output=True, text=True)
        if rec.returncode != 0:
            raise RuntimeError("perf record: " + last_line(rec.stderr))
        out = subprocess.run(["perf", "script", "--ns", "-i", data, "-F",
                              "comm,tid,time,event,trace"], capture_output=True, text=True).stdout
    return pair_calls(out, comm, argv[0])


def pair_calls(script, comm, exe):
    """Entry and return records, paired by thread (the function does not nest)."""
    open_call, times = {}, {}
    for line in script.splitlines():
        m = re.match(r"\s*(.*?)\s+(\d+)\s+([\d.]+):\s+" + PROBE_GROUP +
                     r":(reloc__return|reloc):(.*)", line)
        if not m or m.group(1) != comm:
            continue
        tid, t = m.group(2), float(m.group(3))
        if m.group(4) == "reloc":
            name = re.search(r'name="(.*)"', m.group(5))
            open_call[tid] = (name.group(1) if name else "", t)
        elif tid in open_call:
            name, t0 = open_call.pop(tid)
            path = os.path.realpath(name) if name else os.path.realpath(exe)
            times.setdefault(path, []).append((t - t0) * 1e6)
    return {p: statistics.median(v) for p, v in times.items()}


def model_objects(ldprof, runs, argv):
    """Each object's model figure and split (reloc_model_us, reloc_us) by real path, and the
    relocate phase's median and CI."""
    d = run_ldprof(ldprof, runs, argv)
    ph = next((p for p in d["phases"] if p["name"] == "relocate"), None)
    if ph is None:
        raise RuntimeError("ldprof measured no relocate phase")
    phase = (ph["median_us"], ph["median_us_ci95"][0], ph["median_us_ci95"][1])
    return {os.path.realpath(l["path"]): (l.get("reloc_model_us") or 0.0, l.get("reloc_us") or 0.0)
            for l in d["libraries"] if l.get("role") != "vdso"}, phase


def measure_objects(a, argv):
    """uprobe medians, the model's figures, and what the probes add to an object."""
    path = os.path.realpath(shutil.which(argv[0]))
    ldso = interpreter(path)
    model, plain = model_objects(a.ldprof, a.runs, argv)
    try:
        add_probes(ldso)
        meas = probe_times(a.runs, [path] + argv[1:])
        _, probed = model_objects(a.ldprof, a.runs, argv)
    finally:
        remove_probes()
    n = max(1, len(meas))
    return meas, model, ((probed[0] - plain[0]) / n, (probed[1] - plain[2]) / n,
                         (probed[2] - plain[1]) / n)


def log_summary(logs):
    """Geometric mean and RMS of log ratios."""
    if not logs:
        return "none"
    return "geometric mean %.2f, RMS of the log %.2f" % (
        math.exp(statistics.mean(logs)), math.sqrt(statistics.mean([x * x for x in logs])))


def objects_table(a, progs):
    """The per-object comparison; returns the exit status."""
    if not shutil.which("perf") or os.geteuid() != 0:
        print("skipped: --objects needs perf (tools/install-deps) and root, to add uprobes")
        return 0
    print("%-28s %-24s %9s %9s %6s %9s %6s %6s" % ("program", "object", "uprobe", "model", "ratio",
                                                   "split", "ratio", "share"))
    logs, split_logs, by_name = [], [], {}
    for _, argv in progs:
        name = " ".join([os.path.basename(argv[0])] + argv[1:])[:28]
        if not shutil.which(argv[0]):
            print("%-28s not installed" % name)
            continue
        try:
            meas, model, cost = measure_objects(a, argv)
        except RuntimeError as e:
            print("%-28s cannot measure: %s" % (name, e))
            return 1
        # Each object's share of the objects both measured, by uprobe against by the split:
        # the split divides a phase measured in other runs than the probed ones, which the
        # machine's state (and the probes' traps) move as a whole.
        both = [o for o, (_, sp) in model.items() if o in meas and sp > 0]
        sum_meas, sum_split = sum(meas[o] for o in both), sum(model[o][1] for o in both)
        for obj, (mus, split) in sorted(model.items(), key=lambda x: -x[1][0]):
            if obj not in meas or mus < a.min_us:
                continue
            share = ((meas[obj] / sum_meas) / (split / sum_split)
                     if split and sum_meas else float("nan"))
            ratio = meas[obj] / mus
            logs.append(math.log(ratio))
            if split:
                split_logs.append(math.log(meas[obj] / split))
            by_name.setdefault(os.path.basename(obj), []).append(
                (ratio, meas[obj] / split if split else ratio))
            print("%-28s %-24s %7.1f us %7.1f us %6.2f %7.1f us %6.2f %6.2f" %
                  (name, os.path.basename(obj)[:24], meas[obj], mus, ratio, split,
                   meas[obj] / split if split else float("nan"), share))
        print("%-28s (the probes add %.1f us [%.1f, %.1f] to an object's relocation)" %
              ((name,) + cost))
    if logs:
        print("%d objects of at least %g us; uprobe / model: %s; uprobe / split: %s" %
              (len(logs), a.min_us, log_summary(logs), log_summary(split_logs)))
        for obj, v in sorted(by_name.items(), key=lambda x: -len(x[1]))[:6]:
            if len(v) > 2:
                m, sp = [r for r, _ in v], [r for _, r in v]
                print("   %-24s in %2d programs: uprobe / model %.2f to %.2f, uprobe / split "
                      "%.2f to %.2f" % (obj, len(v), min(m), max(m), min(sp), max(sp)))
    return 0


def calibrate_to(a, path):
    """`ldprof calibrate -o path` in the runs' cache state; raises when it fails."""
    r = subprocess.run([a.ldprof, "calibrate"] + RUN_OPTIONS + ["-o", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ldprof calibrate failed: " + last_line(r.stderr))


def recalibrate(a):
    """A second calibration, made after the measurements: its intercept and
    prices ({count: us}), read from the file `ldprof calibrate -o` writes."""
    fd, path = tempfile.mkstemp(prefix="bench-reloc-cal.")
    os.close(fd)
    try:
        calibrate_to(a, path)
        coefs, intercept = {}, 0.0
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[0] == "coef":
                    coefs[w[1]] = float(w[2])
                elif len(w) == 2 and w[0] == "intercept_us":
                    intercept = float(w[1])
        return intercept, coefs
    finally:
        os.unlink(path)


def predict(cal, counts):
    intercept, coefs = cal
    return intercept + sum(coefs.get(k, 0.0) * v for k, v in counts.items())


def unmeasured_row(kind, key, errors, measured):
    """Print the row of a program that was not measured: 1 for one that could not be (a
    miss), 0 for one not installed; None when it was measured."""
    if key in errors:
        print("%-4s %-28s cannot measure: %s" % (kind, key[:28], errors[key]))
        return 1
    if key not in measured:
        print("%-4s %-28s not installed" % (kind, key[:28]))
        return 0
    return None


def residual_table(a, progs):
    """Measured against predicted for each program; returns the exit status.

    Each program is measured in blocks, every program's first block before
    any second one: the machine's memory moves large programs' figures by
    tens of percent within an hour (docs/model.md), and a median over
    blocks spread out in time holds where one reading does not. Within a
    block the runs follow one another, as in `ldprof run`."""
    found = [(kind, argv) for kind, argv in progs if shutil.which(argv[0])]
    blocks, model, errors = {}, {}, {}
    for _ in range(a.blocks):
        for kind, argv in found:
            key = " ".join(argv)
            if key in errors:
                continue
            try:
                m = measure(a.ldprof, max(5, a.runs // a.blocks), argv)
            except (RuntimeError, ValueError) as e:
                errors[key] = e
                continue
            model[key] = m
            blocks.setdefault(key, []).append(m)
    second = None
    if a.recalibrate and model:
        try:
            second = recalibrate(a)
        except RuntimeError as e:
            print("note: no \"after\" column: %s" % e)
    misses, rows, calibrated, both, moved = 0, 0, None, 0, []
    print("%-4s %-28s %10s %10s %9s  %-14s %s" % ("kind", "program", "measured", "predicted",
                                                "residual", "blocks", "contended runs") +
          ("  after" if second else ""))
    for kind, argv in progs:
        key = " ".join(argv)
        skipped = unmeasured_row(kind, key, errors, model)
        if skipped is not None:
            misses += skipped
            continue
        # The blocks whose figure is of runs in the calibration's state; all when none is.
        m, calm = model[key], [b for b in blocks[key] if b["calm"]]
        v = sorted(b["measured_us"] for b in (calm or blocks[key]))
        busy = "%d/%d%s" % (sum(b["contended"] for b in blocks[key]),
                            sum(b["probed"] for b in blocks[key]),
                            "" if calm else ", none in the calibration's state")
        calibrated = m["calibrated"] if calibrated is None else calibrated and m["calibrated"]
        measured = statistics.median(v)
        pct = 100.0 * (measured - m["predicted_us"]) / m["predicted_us"] if m["predicted_us"] \
            else float("inf")
        miss = abs(pct) > a.goal
        misses += miss
        rows += 1
        after = ""
        if second:
            p2 = predict(second, m["counts"])
            pct2 = 100.0 * (measured - p2) / p2 if p2 else float("inf")
            moved.append(100.0 * (p2 - m["predicted_us"]) / m["predicted_us"])
            both += not miss and abs(pct2) <= a.goal
            after = "  %+6.1f%%" % pct2
        print("%-4s %-28s %8.1f us %8.1f us %+8.1f%%  %-14s %s%s%s" %
              (kind, key[:28], measured, m["predicted_us"], pct, "[%.0f, %.0f]" % (v[0], v[-1]),
               busy, after, "  MISS" if miss else ""))
    if calibrated is False:
        print("note: uncalibrated (run `ldprof calibrate` first): the residuals use the "
              "reference machine's coefficients")
    print("%d of %d programs within +-%g%% (the median of %d blocks each)" %
          (rows - misses if rows >= misses else 0, rows, a.goal, a.blocks))
    if moved:
        print("a second calibration, made after the runs (\"after\": the same runs against "
              "it), moved the predictions by %+.1f%% to %+.1f%% (median %+.1f%%); %d of %d "
              "programs within +-%g%% against both" %
              (min(moved), max(moved), statistics.median(moved), both, rows, a.goal))
    return 1 if misses else 0


def sessions_table(a, progs):
    """Each program's residual against the calibration of its own session; returns the exit
    status. A session is a calibration, then a block of every program at once."""
    found = [(kind, argv) for kind, argv in progs if shutil.which(argv[0])]
    res, errors = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-reloc.") as tmp:
        for k in range(a.sessions):
            cal = os.path.join(tmp, "calibration-%d" % k)
            try:
                calibrate_to(a, cal)
            except RuntimeError as e:
                print(e)
                return 1
            for kind, argv in found:
                key = " ".join(argv)
                if key in errors:
                    continue
                try:
                    res.setdefault(key, []).append(
                        measure(a.ldprof, max(5, a.runs // a.sessions), argv, cal))
                except (RuntimeError, ValueError) as e:
                    errors[key] = e
    print("%-4s %-28s %10s %10s %9s  %-16s %s" % ("kind", "program", "measured", "predicted",
                                                "residual", "sessions", "contended runs"))
    misses, rows, pcts = 0, 0, []
    for kind, argv in progs:
        key = " ".join(argv)
        skipped = unmeasured_row(kind, key, errors, res)
        if skipped is not None:
            misses += skipped
            continue
        s = res[key]
        each = sorted(100.0 * (m["measured_us"] - m["predicted_us"]) / m["predicted_us"]
                      for m in s if m["predicted_us"])
        if not each:
            print("%-4s %-28s no prediction" % (kind, key[:28]))
            misses += 1
            continue
        pct = statistics.median(each)
        miss = abs(pct) > a.goal
        misses += miss
        rows += 1
        pcts.append(pct)
        print("%-4s %-28s %8.1f us %8.1f us %+8.1f%%  %-16s %d/%d%s" %
              (kind, key[:28], statistics.median(m["measured_us"] for m in s),
               statistics.median(m["predicted_us"] for m in s), pct,
               "[%+.0f, %+.0f]" % (each[0], each[-1]), sum(m["contended"] for m in s),
               sum(m["probed"] for m in s), "  MISS" if miss else ""))
    rms = math.sqrt(sum(x * x for x in pcts) / len(pcts)) if pcts else 0
    print("%d of %d programs within +-%g%% (the median of %d sessions each, every block against "
          "its own session's calibration; RMS %.1f%%)" %
          (rows - misses if rows >= misses else 0, rows, a.goal, a.sessions, rms))
    return 1 if misses else 0


def rounds_table(a, progs):
    """The programs as `calibrate --check` measures them; returns the exit status."""
    found = [(kind, argv) for kind, argv in progs if shutil.which(argv[0])]
    cmd = [a.ldprof, "calibrate", "--dry-run", "--json", "-n", str(a.runs)]
    if a.cold_cache:
        cmd.append("--cold-cache")
    for _, argv in found:
        cmd += ["--check", " ".join(shlex.quote(w) for w in argv)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        print("ldprof calibrate failed: %s" % last_line(p.stderr))
        return 1
    cal = json.loads(p.stdout)
    print("   calibration r2 %.6f, a fault %.1f us; %d programs fitted, %d checked beside them"
          % (cal["r2"], cal["fault_us"][0], cal["programs"], len(cal["checks"])))
    print("%-4s %-28s %10s %10s %9s" % ("kind", "program", "measured", "predicted", "residual"))
    misses = 0
    for (kind, argv), c in zip(found, cal["checks"]):
        miss = abs(c["residual_pct"]) > a.goal
        misses += miss
        print("%-4s %-28s %8.1f us %8.1f us %+8.1f%%%s" %
              (kind, " ".join(argv)[:28], c["measured_us"], c["model_us"], c["residual_pct"],
               "  MISS" if miss else ""))
    rms = math.sqrt(sum(c["residual_pct"] ** 2 for c in cal["checks"]) / len(cal["checks"])) \
        if cal["checks"] else 0
    print("%d of %d programs within +-%g%% in the calibration's own rounds (RMS %.1f%%)" %
          (len(found) - misses, len(found), a.goal, rms))
    return 1 if misses else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--runs", type=int, default=40)
    ap.add_argument("--ldprof", default="ldprof")
    ap.add_argument("--goal", type=float, default=15.0, help="the residual's bound, in %%")
    ap.add_argument("--blocks", type=int, default=3,
                    help="measure each program in this many blocks, spread over the run")
    ap.add_argument("--objects", action="store_true",
                    help="each object's model figure against uprobes on _dl_relocate_object")
    ap.add_argument("--min-us", type=float, default=20.0,
                    help="--objects: leave out objects the model gives less (default 20)")
    ap.add_argument("--cold-cache", action="store_true",
                    help="empty the CPU caches before each run (ldprof run --cold-cache)")
    ap.add_argument("--recalibrate", action="store_true",
                    help="calibrate again after the runs and give each residual against "
                    "that calibration too: how far the machine moved the model meanwhile")
    ap.add_argument("--sessions", type=int, default=0,
                    help="K sessions, each a fresh calibration and a block of every program "
                    "set against it")
    ap.add_argument("--rounds", action="store_true",
                    help="measure them in a calibration's own rounds (calibrate --check)")
    ap.add_argument("programs", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.cold_cache:
        RUN_OPTIONS.append("--cold-cache")
    progs = parse_programs(a.programs) if a.programs else PROGRAMS
    if a.objects:
        return objects_table(a, progs)
    if a.rounds:
        return rounds_table(a, progs)
    if a.sessions > 0:
        return sessions_table(a, progs)
    return residual_table(a, progs)


if __name__ == "__main__":
    sys.exit(main())
