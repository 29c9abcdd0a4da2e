#!/usr/bin/env python3
"""bench-follow.py overhead [--floor DIR] LDPROF ROUNDS PROGRAM [ARGS...]
bench-follow.py share LDPROF RUNS PROGRAM [ARGS...]

overhead: the overhead of `ldprof -f` on a workload, interleaved: each
round, in a random order, one `ldprof run -f -n 1 -w 0 --json` (whose
runner itself interleaves one followed run and one plain run: the wall
times) and one plain run of the workload from here (its CPU, from wait4's
rusage of the whole tree, as ldprof takes the followed run's from
RUSAGE_CHILDREN). Prints the medians, their ratio and the median of the
paired differences with a bootstrap 95% CI, for wall time and for CPU (the
steadier figure on a shared machine). With --floor, each round also runs
`ldprof run -f` with LDPROF_SHIM_DIR=DIR, whose ldprof-audit.so is a
do-nothing audit module: what following costs with the same perf events
and an audit module that records nothing, the least any -f can cost; and
the same once more without mmap records (LDPROF_FOLLOW_NO_MMAP), the least
any -f that still enters every dynamic exec and sees every process can
cost, naming no binary the shim cannot enter.

share: the loader's share of a workload (`ldprof run -f -n RUNS`): its
wall and CPU time, processes and execs, the loader's time and share of
each, and the binaries and libraries that cost the most.

The workload runs without the environment of a make that started this
(MAKEFLAGS, MAKELEVEL: a make in the workload must not join its
jobserver). Exit status 0, or 1 when a run failed.
"""
import json
import os
import random
import statistics
import subprocess
import sys

for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
    os.environ.pop(var, None)


def ldprof_json(ldprof, args, cmd, env=None):
    p = subprocess.run([ldprof, "run", "-f"] + args + ["--json", "--"] + cmd,
                       capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit("bench-follow: ldprof failed: " + p.stderr.strip())
    return json.loads(p.stdout)


def followed(ldprof, cmd):
    d = ldprof_json(ldprof, ["-n", "1", "-w", "0"], cmd)
    w, tree = d["workload"], d["per_run"][0]["tree"]
    return {"f_wall": w["wall_us"]["median"], "p_wall": w["plain_wall_us"]["median"],
            "f_cpu": tree["cpu_user_us"] + tree["cpu_sys_us"], "execs": len(tree["execs"])}


def floor(ldprof, cmd, shim_dir, key, no_mmap):
    env = dict(os.environ, LDPROF_SHIM_DIR=shim_dir)
    if no_mmap:
        env["LDPROF_FOLLOW_NO_MMAP"] = "1"
    d = ldprof_json(ldprof, ["-n", "1", "-w", "0", "--no-overhead"], cmd, env)
    tree = d["per_run"][0]["tree"]
    return {key: tree["cpu_user_us"] + tree["cpu_sys_us"]}


def plain(cmd):
    with open(os.devnull, "w") as null:
        pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1),
                                            (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        _, status, ru = os.wait4(pid, 0)
    if status:
        sys.exit("bench-follow: the plain run failed: status %#x" % status)
    return {"p_cpu": (ru.ru_utime + ru.ru_stime) * 1e6}


def ci(values, n=2000):
    meds = sorted(statistics.median(random.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n)]


def line(rows, what, unit_div, unit):
    f = statistics.median(r["f_" + what] for r in rows)
    p = statistics.median(r["p_" + what] for r in rows)
    d = [r["f_" + what] - r["p_" + what] for r in rows]
    lo, hi = ci(d)
    print("   %-4s -f %9.1f %s, plain %9.1f %s, ratio %.3f (%+.1f%%), paired %+.1f %s [%.1f, %.1f]"
          % (what, f / unit_div, unit, p / unit_div, unit, f / p, (f / p - 1) * 100,
             statistics.median(d) / unit_div, unit, lo / unit_div, hi / unit_div))


def overhead(ldprof, rounds, cmd, floor_dir=None):
    rows = []
    steps = [lambda: followed(ldprof, cmd), lambda: plain(cmd)]
    if floor_dir:
        steps.append(lambda: floor(ldprof, cmd, floor_dir, "floor_cpu", False))
        steps.append(lambda: floor(ldprof, cmd, floor_dir, "floor_nommap_cpu", True))
    for _ in range(rounds):
        row = {}
        for step in random.sample(steps, len(steps)):
            row.update(step())
        rows.append(row)
    print("   %d rounds, %d execs a run" % (rounds, rows[0]["execs"]))
    line(rows, "wall", 1000, "ms")
    line(rows, "cpu", 1000, "ms")
    f = statistics.median(r["f_cpu"] for r in rows)
    p = statistics.median(r["p_cpu"] for r in rows)
    print("   per exec: %+.1f us of CPU (goal: <= 5%% of the workload)" % ((f - p) / max(rows[0]["execs"], 1)))
    for key, what in (("floor_cpu", "the same perf events, a do-nothing audit module"),
                      ("floor_nommap_cpu", "the same without mmap records")):
        if not floor_dir:
            break
        fl = statistics.median(r[key] for r in rows)
        lo, hi = ci([r[key] - r["p_cpu"] for r in rows])
        print("   floor (%s): CPU %.1f ms, %+.1f%% [%+.1f%%, %+.1f%%], %+.1f us per exec" % (
            what, fl / 1000, (fl / p - 1) * 100, lo / p * 100, hi / p * 100,
            (fl - p) / max(rows[0]["execs"], 1)))


def med(s):
    return s["median"] if s else float("nan")


def share(ldprof, runs, cmd):
    d = ldprof_json(ldprof, ["-n", str(runs)], cmd)
    w, ld = d["workload"], d["workload"]["loader"]
    print("   %d runs: %d processes, %d execs a run (%s)" % (
        d["runs"], med(w["processes"]), med(w["execs"]),
        ", ".join("%g %s" % (n / d["runs"], k) for k, n in w["exec_kinds"].items() if n)))
    print("   wall %.1f ms [%.1f, %.1f], CPU %.1f ms (user %.1f, system %.1f)" % (
        med(w["wall_us"]) / 1e3, w["wall_us"]["ci95"][0] / 1e3, w["wall_us"]["ci95"][1] / 1e3,
        med(w["cpu_us"]) / 1e3, med(w["cpu_user_us"]) / 1e3, med(w["cpu_sys_us"]) / 1e3))
    print("   the loader %.1f ms a run: %.1f%% of the wall time, %.1f%% of the CPU time;"
          " load + relocate alone %.1f ms (%.1f%% of the wall time)" % (
              med(ld["us"]) / 1e3, med(ld["share_of_wall"]) * 100, med(ld["share_of_cpu"]) * 100,
              med(ld["load_relocate_us"]) / 1e3, med(ld["load_relocate_share_of_wall"]) * 100))
    if w["overhead"]:
        print("   overhead of -f on the wall time: %+.1f%%" % w["overhead"]["pct"])
    for b in d["binaries"][:5]:
        print("   %-40s %6.1f execs, startup %7.2f ms a run (%.1f%%)" % (
            b["path"][-40:], b["execs_per_run"], (b["startup_us_per_run"] or 0) / 1e3,
            (b["startup_share"] or 0) * 100))
    for lib in d["libraries"][:3]:
        print("   %-40s %6.1f execs, %7.2f ms a run (%.1f%%)" % (
            lib["path"][-40:], lib["execs_per_run"], lib["total_us_per_run"] / 1e3,
            lib["share"] * 100))


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("overhead", "share"):
        sys.exit(__doc__)
    args, floor_dir = sys.argv[2:], None
    if args[0] == "--floor" and sys.argv[1] == "overhead":
        floor_dir, args = os.path.abspath(args[1]), args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    mode, ldprof, n, cmd = sys.argv[1], args[0], int(args[1]), args[2:]
    if mode == "overhead":
        overhead(ldprof, n, cmd, floor_dir)
    else:
        share(ldprof, n, cmd)


if __name__ == "__main__":
    main()
