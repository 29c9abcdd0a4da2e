#!/usr/bin/env python3
"""bench-sample.py LDPROF ROUNDS RUNS PROGRAM [ARGS...]
What --sample costs, and that it leaves the timing alone. Each round, in a
random order, one `ldprof run -n RUNS --json` with --sample and one
without; each interleaves its own profiled and plain runs (and, with
--sample, its sampled runs after the timed ones), 1.5 s apart. Prints:
- the timed (profiled) runs' median total with sampling on and off, and
  the median of the paired differences with a bootstrap 95% CI: the
  timing must not move;
- a sampled run's median total against a plain run's from the same
  session: what sampling costs the run it samples;
- the samples per sampled run, and how many were lost or not unwound.
Exit status 0, or 1 when a run failed.
"""
import json
import random
import statistics
import subprocess
import sys
import time


def run(ldprof, runs, cmd, sample):
    argv = [ldprof, "run", "-n", str(runs), "--json"] + (["--sample"] if sample else []) + cmd
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode:
        sys.exit("bench-sample: ldprof failed: " + p.stderr.strip())
    if "sampling:" in p.stderr:
        sys.exit("bench-sample: " + p.stderr.strip())
    return json.loads(p.stdout)


def ci(values, n=2000):
    rnd = random.Random(1)
    meds = sorted(statistics.median(rnd.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n)]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    ldprof, rounds, runs, cmd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    on, off, sampled, plain, per_run, lost, failed, total = [], [], [], [], [], 0, 0, 0
    rnd = random.Random(7)
    for _ in range(rounds):
        order = [True, False]
        rnd.shuffle(order)
        for sample in order:
            # The kernel keeps perf's context-switch hooks on for about a
            # second after the last event closes: let it settle first.
            time.sleep(1.5)
            d = run(ldprof, runs, cmd, sample)
            (on if sample else off).append(d["total_us"]["median"])
            if sample:
                s = d["samples"]
                sampled.append(d["sampled_total_us"]["median"])
                plain.append(d["plain_total_us"]["median"])
                per_run.append(s["samples"] / max(s["sampled_runs"], 1))
                lost += s["lost"]
                failed += s["unwind_failed"]
                total += s["samples"]
    diff = [a - b for a, b in zip(on, off)]
    if "-v" in sys.argv[0:1] or __import__("os").environ.get("BENCH_SAMPLE_VERBOSE"):
        for a, b in zip(on, off):
            print("  round: %.1f with, %.1f without" % (a, b))
    lo, hi = ci(diff)
    m_on, m_off = statistics.median(on), statistics.median(off)
    print("timed runs, median total: %.1f us with --sample, %.1f us without (%d rounds of %d runs)"
          % (m_on, m_off, rounds, runs))
    print("  paired difference: %+.1f us (%+.2f%%), 95%% CI [%+.1f, %+.1f] us"
          % (statistics.median(diff), 100 * statistics.median(diff) / m_off, lo, hi))
    print("  the timing %s" % ("shows no difference (the CI holds 0)" if lo <= 0 <= hi
                               else "moved: the CI excludes 0"))
    ms, mp = statistics.median(sampled), statistics.median(plain)
    print("a sampled run: %.1f us against %.1f us for a plain run: x%.2f, +%.1f us"
          % (ms, mp, ms / mp, ms - mp))
    print("samples: %.1f per sampled run, %d in all; %d lost, %d not unwound to their start"
          % (statistics.median(per_run), total, lost, failed))


main()
