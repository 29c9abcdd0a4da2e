#!/usr/bin/env python3
"""fit-checks: what the relocation model's counts could price, given the
right programs to fit on.

    ldprof calibrate --json --check 'PROG ARGS' ... > cal.json
    tools/fit-checks.py cal.json [--anchor NAME ...]

A calibration with --check runs real programs in its own rounds and leaves
them out of the fit. This refits its coefficients from the same file by
non-negative least squares, the read faults at the calibration's fault cost
as calibrate prices them, and prints the checked programs' residuals
(measured against model, % of the model):

  - the calibration's own coefficients;
  - refitted on the synthetic programs alone (the calibration again);
  - each real program left out in turn, the other checked programs fitted
    with the synthetic ones (leave-one-out): whether the counts can price
    real programs when real libraries are among those fitted;
  - with --anchor, the named programs (a command's first word, as
    printed) fitted with the synthetic ones and the others held out.

docs/model.md ("In the calibration's own rounds") has its readings.
"""
import json
import math
import sys


def nnls(a, b, sweeps=20000):
    """min |Ax - b| with x >= 0: coordinate descent on scaled columns.
    Hand-rolled: numpy and scipy are not dependencies, and 50 rows of 18
    counts need nothing faster."""
    m, n = len(a), len(a[0])
    norm = [math.sqrt(sum(a[i][j] ** 2 for i in range(m))) or 1.0 for j in range(n)]
    s = [[a[i][j] / norm[j] for j in range(n)] for i in range(m)]
    x, r = [0.0] * n, list(b)
    for _ in range(sweeps):
        moved = 0.0
        for j in range(n):
            g = sum(s[i][j] * r[i] for i in range(m))
            d = max(0.0, x[j] + g) - x[j]
            if d:
                for i in range(m):
                    r[i] -= s[i][j] * d
                x[j] += d
                moved = max(moved, abs(d))
        if moved < 1e-9:
            break
    return [x[j] / norm[j] for j in range(n)]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    path, anchors = argv[1], []
    rest = argv[2:]
    while rest:
        if rest[0] != "--anchor" or len(rest) < 2:
            sys.stderr.write("fit-checks: want --anchor NAME, not %s\n" % rest[0])
            return 2
        anchors.append(rest[1])
        rest = rest[2:]
    try:
        cal = json.load(open(path))
        feats = list(cal["fit"][0]["features"])
        checks = cal["checks"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        sys.stderr.write("fit-checks: %s: not a calibration with --check (%s)\n" % (path, e))
        return 1
    if not checks:
        sys.stderr.write("fit-checks: %s: the calibration checked no program\n" % path)
        return 1
    fault = cal["coef_us"]["read_faults"]
    rf = feats.index("read_faults")

    def rows(progs):
        return [[p["features"][f] for f in feats] for p in progs], [p["measured_us"] for p in progs]

    syn_a, syn_b = rows(cal["fit"])
    real_a, real_b = rows(checks)
    names = [c["command"].split()[0].rsplit("/", 1)[-1] for c in checks]

    def fit(a, b):
        """As calibrate fits: the counts and a per-process intercept (the
        last coefficient), the read faults at the fault cost."""
        cols = [j for j in range(len(feats)) if j != rf]
        x = nnls([[row[j] for j in cols] + [1.0] for row in a],
                 [b[i] - fault * a[i][rf] for i in range(len(b))])
        coef = [0.0] * len(feats) + [x[-1]]
        for k, j in enumerate(cols):
            coef[j] = x[k]
        coef[rf] = fault
        return coef

    def model(coef, row):
        return coef[-1] + sum(c * v for c, v in zip(coef, row))

    def line(tag, res):
        rms = math.sqrt(sum(r * r for _, r in res) / len(res))
        within = sum(abs(r) <= 15 for _, r in res)
        print("%-30s RMS %5.1f%%  within 15%%: %2d of %2d" % (tag, rms, within, len(res)))
        print("    " + "  ".join("%s %+.1f%%" % (n, r) for n, r in res))

    def held_out(coef, skip=()):
        return [(names[k], 100 * (real_b[k] - model(coef, real_a[k])) / model(coef, real_a[k]))
                for k in range(len(real_a)) if k not in skip]

    line("the calibration's coefficients",
         held_out([cal["coef_us"][f] for f in feats] + [cal["intercept_us"]]))
    line("refitted, synthetic only", held_out(fit(syn_a, syn_b)))
    loo = []
    for k in range(len(real_a)):
        keep = [i for i in range(len(real_a)) if i != k]
        coef = fit(syn_a + [real_a[i] for i in keep], syn_b + [real_b[i] for i in keep])
        loo += held_out(coef, keep)
    line("each left out, the rest fitted", loo)
    if anchors:
        idx = [names.index(a) for a in anchors if a in names]
        if len(idx) != len(anchors):
            sys.stderr.write("fit-checks: an anchor is not among the checks: %s\n" % names)
            return 1
        coef = fit(syn_a + [real_a[i] for i in idx], syn_b + [real_b[i] for i in idx])
        line("fitted with " + ", ".join(anchors), held_out(coef, idx))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
