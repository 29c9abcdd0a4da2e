#!/usr/bin/env python3
"""bench-follow.py LDPROF ROUNDS PROGRAM [ARGS...]
The overhead of `ldprof -f` on a workload, interleaved: each round, in a
random order, one `ldprof run -f -n 1 -w 0 --json` (whose runner itself
interleaves one followed run and one plain run: the wall times) and one
plain run of the workload from here (its CPU, from wait4's rusage of the
whole tree, as ldprof takes the followed run's from RUSAGE_CHILDREN).
Prints the medians, their ratio and the median of the paired differences
with a bootstrap 95% CI, for wall time and for CPU (the steadier figure on
a shared machine). Exit status 0, or 1 when a run failed.
"""
import json
import os
import random
import statistics
import subprocess
import sys


def followed(ldprof, cmd):
    p = subprocess.run([ldprof, "run", "-f", "-n", "1", "-w", "0", "--json"] + cmd,
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("bench-follow: ldprof failed: " + p.stderr.strip())
    d = json.loads(p.stdout)
    tree = d["per_run"][0]["tree"]
    return {"f_wall": d["total_us"]["median"], "p_wall": d["plain_total_us"]["median"],
            "f_cpu": tree["cpu_user_us"] + tree["cpu_sys_us"], "execs": len(tree["execs"])}


def plain(cmd):
    with open(os.devnull, "w") as null:
        pid = os.posix_spawn(cmd[0], cmd, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1),
                                           (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        _, _, ru = os.wait4(pid, 0)
    return {"p_cpu": (ru.ru_utime + ru.ru_stime) * 1e6}


def ci(values, n=2000):
    meds = sorted(statistics.median(random.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n)]


def line(rows, what, unit_div, unit):
    f = statistics.median(r["f_" + what] for r in rows)
    p = statistics.median(r["p_" + what] for r in rows)
    d = [r["f_" + what] - r["p_" + what] for r in rows]
    lo, hi = ci(d)
    print("   %-4s -f %9.1f %s, plain %9.1f %s, ratio %.3f (%+.1f%%), paired +%.1f %s [%.1f, %.1f]"
          % (what, f / unit_div, unit, p / unit_div, unit, f / p, (f / p - 1) * 100,
             statistics.median(d) / unit_div, unit, lo / unit_div, hi / unit_div))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ldprof, rounds, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rows = []
    for _ in range(rounds):
        row = {}
        for step in random.sample([0, 1], 2):
            row.update(followed(ldprof, cmd) if step == 0 else plain(cmd))
        rows.append(row)
    print("   %d rounds, %d execs a run" % (rounds, rows[0]["execs"]))
    line(rows, "wall", 1000, "ms")
    line(rows, "cpu", 1000, "ms")
    f = statistics.median(r["f_cpu"] for r in rows)
    p = statistics.median(r["p_cpu"] for r in rows)
    print("   per exec: %+.1f us of CPU (goal: <= 5%% of the workload)" % ((f - p) / rows[0]["execs"]))


if __name__ == "__main__":
    main()
