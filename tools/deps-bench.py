#!/usr/bin/env python3
"""Side by side: `ldprof deps --bindings` over every dynamic ELF program in a
directory, as text, as JSON (compact, as a pipe or file gets it) and as
pretty JSON, against `ldd -r` on each of them: wall time, peak RSS, output
size, and the ratios issue 11 sets goals for (JSON within 2x of the text's
time; JSON at least 10x faster than ldd -r). Exit status 1 when one of
those goals is missed.

ldd -r makes ld.so load and relocate a program without running it; ldprof
computes the same bindings (and more) from the files. ldprof runs once over
all the programs, as it is meant to; ldd runs once per program, as it must.
The ldprof variants run in turn, round after round, with a slice of the
ldd -r runs between rounds, so that the machine's noise falls on each
alike; their output goes to /dev/null, as ldd's does.

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


def output_of(cmd):
    """Bytes of cmd's output, and the relocation lines of a text --bindings
    listing among them, counted as they stream by."""
    size = lines = 0
    tail = b"\n"
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        while True:
            chunk = p.stdout.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            lines += chunk.count(b"\n\t") + (tail == b"\n" and chunk[:1] == b"\t")
            tail = chunk[-1:]
    return size, lines


# The outputs timed side by side, round after round: the text listing, the
# JSON document as a pipe or file gets it (compact) and as a terminal does.
VARIANTS = [("text", "deps --bindings", []),
            ("json", "deps --bindings --json", ["--json"]),
            ("pretty", "deps --bindings --json --pretty", ["--json", "--pretty"])]


def ldd_all(progs):
    """One ldd -r per program, timed alone (maxrss's fork would add to it)."""
    t0 = time.monotonic()
    for p in progs:
        subprocess.run(["ldd", "-r", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


# Other outputs over the same programs, text against JSON: the whole
# document of each command, not only the bindings.
OTHERS = [("deps (tree)", ["deps"]), ("deps --list", ["deps", "--list"]),
          ("audit", ["audit", "--jobs", "2"])]


def others(maxrss, ldprof, progs, directory, rounds):
    """(label, median text time, median JSON time) per OTHERS entry, in turns."""
    out = []
    for label, argv in OTHERS:
        files = [directory] if argv[0] == "audit" else progs
        t = {"text": [], "json": []}
        for _ in range(rounds):
            for fmt, opts in (("text", []), ("json", ["--json"])):
                t[fmt].append(timed(maxrss, [ldprof] + argv + opts + files)[0])
        out.append((label, statistics.median(t["text"]), statistics.median(t["json"])))
    return out


def verdict(ok, goal, missed):
    """The goal's word for the table; a goal not met is added to missed."""
    if not ok:
        missed.append(goal)
    return "goal met" if ok else "goal MISSED"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ldprof", default=os.path.join(os.path.dirname(__file__), "..", "ldprof"))
    ap.add_argument("--dir", default="/usr/bin")
    ap.add_argument("--maxrss", help="the deps-maxrss helper (tools/deps-maxrss.c), built")
    ap.add_argument("--repeat", type=int, default=5, help="rounds of ldprof runs (median)")
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

    times = {name: [] for name, _, _ in VARIANTS}
    rss = {name: 0.0 for name, _, _ in VARIANTS}
    # ldd -r runs over every program once, a slice after each round, so
    # that a change in the machine's load falls on both sides alike.
    ldd_time = 0.0
    for k in range(args.repeat):
        ldd_time += ldd_all(progs[k::args.repeat])
        for name, _, opts in VARIANTS:
            t, rc, peak = timed(args.maxrss, [args.ldprof, "deps", "--bindings"] + opts + progs)
            if rc not in (0, 1, 2):
                sys.exit("ldprof deps %s failed (%d)" % (" ".join(opts), rc))
            times[name].append(t)
            rss[name] = max(rss[name], peak)
    size = {}
    for name, _, opts in VARIANTS:
        size[name], lines = output_of([args.ldprof, "deps", "--bindings"] + opts + progs)
        if name == "text":
            nbind = lines
    other = others(args.maxrss, args.ldprof, progs, args.dir, args.repeat)
    ldd_rss = sorted(timed(args.maxrss, ["ldd", "-r", p])[2] for p in progs[::10])

    med = {name: statistics.median(t) for name, t in times.items()}
    print("deps bench: %d dynamic ELF programs in %s, %d bindings computed by ldprof"
          % (len(progs), args.dir, nbind))
    print("  %-38s %9s %10s %10s" % ("", "wall", "peak RSS", "output"))
    for name, label, _ in VARIANTS:
        print("  %-38s %7.2f s %6.1f MiB %6.0f MiB  (median of %d, range %.2f-%.2f s)"
              % ("ldprof " + label, med[name], rss[name], size[name] / 1048576.0, args.repeat,
                 min(times[name]), max(times[name])))
    print("  %-38s %7.2f s %6.1f MiB %10s  (one per program, a slice after each round;"
          " RSS: median, largest %.1f)"
          % ("ldd -r", ldd_time, statistics.median(ldd_rss), "", ldd_rss[-1]))
    json_text = med["json"] / med["text"]
    ldd_json = ldd_time / med["json"]
    missed = []
    print("  ratio: JSON takes %.2fx the text's time (goal: at most 2x): %s"
          % (json_text, verdict(json_text <= 2, "JSON at most 2x the text's time", missed)))
    print("  ratio: --json is %.1fx faster than ldd -r (goal: at least 10x): %s"
          % (ldd_json, verdict(ldd_json >= 10, "--json at least 10x faster than ldd -r", missed)))
    print("  ratio: --json --pretty takes %.2fx the text's time, %.1fx faster than ldd -r"
          % (med["pretty"] / med["text"], ldd_time / med["pretty"]))
    print("  ratio: text is %.1fx faster than ldd -r" % (ldd_time / med["text"]))
    print("  the other outputs, text and --json (median of %d each, in turns):" % args.repeat)
    for label, text, js in other:
        print("    %-20s text %6.2f s  json %6.2f s  ratio %.2fx (goal: at most 2x): %s"
              % (label, text, js, js / text,
                 verdict(js <= 2 * text, label + " JSON at most 2x the text's time", missed)))
    if missed:
        print("  goals missed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
