#!/usr/bin/env python3
"""bench-reloc: the relocation cost model's residual on real programs.

    tools/bench-reloc.py [-n RUNS] [--ldprof PATH] [--goal PCT] [PROGRAM ARGS ;]...

For each program (by default a list of C and C++ programs from Debian's
main archive, those installed), `ldprof run --json` measures the relocate
phase and the calibrated model predicts it from the analyzer's replay of
ld.so. Prints measured, predicted and the residual (measured - predicted,
in % of the prediction) and exits 1 when a program misses the goal
(default 15%). Uses the calibration run and report use
($LDPROF_CALIBRATION, else $XDG_CACHE_HOME/ldprof/); says so when there
is none, as every residual would then be the reference machine's.
"""
import argparse
import json
import shutil
import subprocess
import sys

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


def measure(ldprof, runs, argv):
    r = subprocess.run([ldprof, "-n", str(runs), "--json", "--"] + argv,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                           "exit status %d" % r.returncode)
    d = json.loads(r.stdout)
    m = d.get("reloc_model")
    if not m:
        raise RuntimeError("no relocation model (the analyzer cannot replay it)")
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--runs", type=int, default=40)
    ap.add_argument("--ldprof", default="ldprof")
    ap.add_argument("--goal", type=float, default=15.0, help="the residual's bound, in %%")
    ap.add_argument("programs", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    progs = parse_programs(a.programs) if a.programs else PROGRAMS
    misses, rows = 0, 0
    print("%-4s %-28s %10s %10s %9s" % ("kind", "program", "measured", "predicted", "residual"))
    calibrated = None
    for kind, argv in progs:
        name = " ".join(argv)
        if not shutil.which(argv[0]):
            print("%-4s %-28s not installed" % (kind, name[:28]))
            continue
        try:
            m = measure(a.ldprof, a.runs, argv)
        except (RuntimeError, ValueError) as e:
            print("%-4s %-28s cannot measure: %s" % (kind, name[:28], e))
            misses += 1
            continue
        calibrated = m["calibrated"] if calibrated is None else calibrated and m["calibrated"]
        pct = 100.0 * m["residual_us"] / m["predicted_us"] if m["predicted_us"] else float("inf")
        miss = abs(pct) > a.goal
        misses += miss
        rows += 1
        print("%-4s %-28s %8.1f us %8.1f us %+8.1f%%%s" % (kind, name[:28], m["measured_us"],
              m["predicted_us"], pct, "  MISS" if miss else ""))
    if calibrated is False:
        print("note: uncalibrated (run `ldprof calibrate` first): the residuals use the "
              "reference machine's coefficients")
    print("%d of %d programs within +-%g%%" % (rows - misses if rows >= misses else 0, rows, a.goal))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
