#!/usr/bin/env python3
"""bench-own-work: the relocation model against programs whose main computes
without moving memory, for as long as asked.

    tools/bench-own-work.py [-n RUNS] [--ldprof PATH] [--goal PCT] [--spins LIST]

The cost model prices a program's lookups' lines warm or cold by what the
rest of its run moves through the caches between two of its relocations
(docs/model.md, "Faults, not CPU time"). A main that spins on the clock
moves nothing: its relocation costs the same whether it spins 0 or 6 ms,
and a model that took CPU time for traffic priced it all cold, 30% to 45%
too dear. Each program here is one small C file that spins for the
microseconds its argument gives, linked against the libraries of a real
program as that program loads them (ssh's, uconv's ICU, apt-cache's: the
ones installed), plus a synthetic pair from tools/gen-reloc-lib (4000
lookups of 160-byte names, shuffled). Each is run by `ldprof run --json`
at every spin time, in two passes (the second in reverse order), and its
residual (measured - predicted, in % of the prediction) is the median of
the two. Exits 1 when one misses the goal (default 15%), 2 on a usage or
build error. Uses the calibration run uses ($LDPROF_CALIBRATION, else
$XDG_CACHE_HOME/ldprof/).
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SPIN_C = r"""
#include <stdlib.h>
#include <time.h>
/* Spin on the clock for argv[1] us: CPU time, and no memory moved. */
int main(int argc, char **argv)
{
	long us = argc > 1 ? atol(argv[1]) : 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
	return 0;
}
"""

# (name, the program whose libraries the spinner loads, as it loads them).
REAL = [
    ("ssh-libs", "/usr/bin/ssh"),
    ("icu-libs", "/usr/bin/uconv"),
    ("apt-libs", "/usr/bin/apt-cache"),
]


def sh(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:3]), (r.stderr.strip() or "failed")[-300:]))
    return r.stdout


def libraries_of(program, cwd):
    """The libraries ld.so loads for program, by path, libc and ld.so left out."""
    out = sh(["ldd", program], cwd)
    libs = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) == 2 and parts[1].split():
            path = parts[1].split()[0]
            if path.startswith("/") and "/libc.so" not in path:
                libs.append(path)
    return libs


def build(tmp, top):
    """The spinners: [(name, path)], those whose libraries are installed."""
    cc = os.environ.get("CC", "cc")
    with open(os.path.join(tmp, "spin.c"), "w") as f:
        f.write(SPIN_C)
    progs = []
    gen = os.path.join(top, "tools", "gen-reloc-lib")
    with open(os.path.join(tmp, "prov.c"), "w") as f:
        f.write(sh([gen, "-e", "4000", "-l", "160", "-n", "prov"], tmp))
    with open(os.path.join(tmp, "user.c"), "w") as f:
        f.write(sh([gen, "-x", "4000", "-X", "prov", "-l", "160", "-S", "-n", "user"], tmp))
    sh([cc, "-O1", "-w", "-fPIC", "-shared", "-o", "libprov.so", "prov.c"], tmp)
    sh([cc, "-O1", "-w", "-fPIC", "-shared", "-o", "libuser.so", "user.c", "-L.", "-lprov"], tmp)
    sh([cc, "-O1", "-w", "-Wl,-z,now", "-o", "synthetic", "spin.c", "-L.", "-Wl,--no-as-needed",
        "-luser", "-lprov", "-Wl,-rpath," + tmp], tmp)
    progs.append(("synthetic", os.path.join(tmp, "synthetic")))
    for name, program in REAL:
        if not os.path.exists(program):
            print("note: %s is not installed: %s skipped" % (program, name), file=sys.stderr)
            continue
        sh([cc, "-O1", "-w", "-Wl,-z,now", "-o", name, "spin.c", "-Wl,--no-as-needed"] +
           libraries_of(program, tmp), tmp)
        progs.append((name, os.path.join(tmp, name)))
    # Files as read from disk, as the bench's other programs (tools/settle).
    subprocess.run([os.path.join(top, "tools", "settle"), tmp], capture_output=True)
    return progs


def bench_reloc(top):
    """bench-reloc's runner as a module: `ldprof run --json`, parsed."""
    spec = importlib.util.spec_from_file_location("bench_reloc",
                                                  os.path.join(top, "tools", "bench-reloc.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.RUN_OPTIONS.append("--no-overhead")
    return mod


def measure(br, ldprof, runs, path, spin):
    d = br.run_ldprof(ldprof, runs, [path, str(spin)])
    m, c = d.get("reloc_model"), d.get("shared_cache") or {}
    if not m:
        raise RuntimeError("no relocation model")
    m["contended"], m["probed"] = c.get("contended_runs") or 0, c.get("probed_runs") or 0
    return m


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=30)
    ap.add_argument("--ldprof", default=os.path.join(top, "ldprof"))
    ap.add_argument("--goal", type=float, default=15.0)
    ap.add_argument("--spins", default="0,1000,3000,6000", help="spin times in us")
    a = ap.parse_args()
    spins = [int(s) for s in a.spins.split(",")]
    br = bench_reloc(top)
    tmp = tempfile.mkdtemp(prefix="ldprof-own-work.")
    try:
        try:
            progs = build(tmp, top)
        except (RuntimeError, OSError) as e:
            print("bench-own-work: build: %s" % e, file=sys.stderr)
            return 2
        res = {}
        for p in range(2):
            for spin in (spins if p == 0 else spins[::-1]):
                for name, path in progs:
                    try:
                        res.setdefault((name, spin), []).append(measure(br, a.ldprof, a.runs, path, spin))
                    except RuntimeError as e:
                        print("bench-own-work: %s %d: %s" % (name, spin, e), file=sys.stderr)
                        return 2
        print("%-10s %8s %11s %11s %9s %7s %7s %7s %10s %s" % ("libraries", "spin us", "measured",
                                                            "predicted", "residual", "faults",
                                                            "warm", "kept", "contended", "passes"))
        missed = 0
        for name, _ in progs:
            for spin in spins:
                ms = res[(name, spin)]
                resid = [100 * (m["measured_us"] / m["predicted_us"] - 1) for m in ms]
                r = statistics.median(resid)
                miss = abs(r) > a.goal
                missed += miss
                f = ms[-1].get("own_faults")
                surv = ms[-1].get("lines_surviving")
                print("%-10s %8d %8.1f us %8.1f us %+8.1f%% %7s %7.2f %7s %10s [%s]%s" % (
                    name, spin, statistics.median(m["measured_us"] for m in ms),
                    statistics.median(m["predicted_us"] for m in ms), r,
                    "-" if f is None else "%d" % f, ms[-1].get("warm_share") or 0,
                    "-" if surv is None else "%.2f" % surv,
                    "%d/%d" % (sum(m["contended"] for m in ms), sum(m["probed"] for m in ms)),
                    ", ".join("%+.0f" % x for x in resid), "  MISS" if miss else ""))
        n = len(progs) * len(spins)
        print("%d of %d within +-%g%% (the median of two passes each)" % (n - missed, n, a.goal))
        return 1 if missed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
