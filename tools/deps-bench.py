#!/usr/bin/env python3
"""Side by side: `ldprof deps --bindings` over every dynamic ELF program in a
directory against `ldd -r` on each of them, with wall time and peak RSS.

ldd -r makes ld.so load and relocate a program without running it; ldprof
computes the same bindings (and more) from the files. ldprof runs once over
all the programs, as it is meant to; ldd runs once per program, as it must.

usage: deps-bench.py [--ldprof PATH] --maxrss PATH [--dir /usr/bin] [--repeat N]
       deps-bench.py --list-only [--dir /usr/bin]
(--list-only prints the programs, for `make oracle`.)
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from elfimage import ELFError, ELFFile


def is_dynamic_elf(path):
    """A 64-bit ELF file with a PT_INTERP: what ld.so starts (ldd's question)."""
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            return elf.elfclass == 64 and any(s["p_type"] == "PT_INTERP" for s in elf.iter_segments())
    except (OSError, ELFError):
        return False


def programs(directory):
    out = []
    for name in sorted(os.listdir(directory)):
        p = os.path.join(directory, name)
        if os.path.isfile(p) and os.access(p, os.R_OK) and is_dynamic_elf(p):
            out.append(p)
    return out


def timed(maxrss, cmd):
    """Wall time, exit status and peak RSS (MiB) of cmd, run under maxrss."""
    t = time.monotonic()
    r = subprocess.run([maxrss] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    rss = [int(l.split()[1]) for l in r.stderr.splitlines() if l.startswith("maxrss ")]
    return time.monotonic() - t, r.returncode, rss[-1] / 1024.0 if rss else float("nan")


def count_bindings(cmd):
    """Relocation lines of `ldprof deps --bindings`, counted as they stream by."""
    n = 0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        for line in p.stdout:
            n += line.startswith(b"\t")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ldprof", default=os.path.join(os.path.dirname(__file__), "..", "ldprof"))
    ap.add_argument("--dir", default="/usr/bin")
    ap.add_argument("--maxrss", help="the deps-maxrss helper (tools/deps-maxrss.c), built")
    ap.add_argument("--repeat", type=int, default=3, help="ldprof runs (median)")
    ap.add_argument("--list-only", action="store_true", help="print the programs and stop")
    args = ap.parse_args()
    progs = programs(args.dir)
    if not progs:
        sys.exit("no dynamic ELF programs in " + args.dir)
    if args.list_only:
        print("\n".join(progs))
        return 0
    if not args.maxrss:
        sys.exit("--maxrss is needed (make bench builds it)")

    times, ours_rss = [], []
    for _ in range(args.repeat):
        t, rc, rss = timed(args.maxrss, [args.ldprof, "deps", "--bindings"] + progs)
        if rc not in (0, 1, 2):
            sys.exit("ldprof deps failed (%d)" % rc)
        times.append(t)
        ours_rss.append(rss)
    ldprof_rss = max(ours_rss)
    nbind = count_bindings([args.ldprof, "deps", "--bindings"] + progs)

    # One ldd per program, timed alone; peak RSS from a second pass over
    # every tenth program under maxrss (whose fork would add to the time).
    t0 = time.monotonic()
    for p in progs:
        subprocess.run(["ldd", "-r", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ldd_time = time.monotonic() - t0
    rss = sorted(timed(args.maxrss, ["ldd", "-r", p])[2] for p in progs[::10])

    ours = statistics.median(times)
    print("deps bench: %d dynamic ELF programs in %s, %d bindings computed by ldprof"
          % (len(progs), args.dir, nbind))
    print("  %-26s %10s %14s" % ("", "wall", "peak RSS"))
    print("  %-26s %8.2f s %11.1f MiB  (median of %d; one process for all)"
          % ("ldprof deps --bindings", ours, ldprof_rss, args.repeat))
    print("  %-26s %8.2f s %11.1f MiB  (per ldd: median; largest %.1f MiB)"
          % ("ldd -r", ldd_time, statistics.median(rss), rss[-1]))
    print("  ratio: ldprof is %.1fx faster than ldd -r" % (ldd_time / ours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
