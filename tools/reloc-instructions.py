#!/usr/bin/env python3
"""reloc-instructions: the analyzer's counts against callgrind's instructions.

    tools/reloc-instructions.py [--ldprof PATH] [--tolerance PCT] [--min-instructions N]
                                [PROGRAM ARGS ;]...

An oracle for the relocation model's counts that is neither ldprof nor a
timer: valgrind's callgrind counts the instructions ld.so executes in
_dl_relocate_object, one dump per call, so per object. The script builds
`ldprof calibrate`'s synthetic programs (--quick, --dry-run, --keep),
counts each one's relocation instructions (_dl_relocate_object and the
version check, _dl_check_all_versions) and fits an instruction cost per
count to them (non-negative least squares, weighted by 1/sqrt of the
instructions). It then predicts, from the counts `ldprof run --json`
gives each object of each PROGRAM (by default bench-reloc's list, those
installed), the instructions of that object's relocation, and sets them
beside callgrind's. Prints one row per object of at least N instructions
(default 50000) and exits 1 when one misses by more than PCT (default 15).

The fit sees none of the real programs, so a miss is work ld.so does that
the analyzer's replay does not count (a count wrong or missing), not a
price: instructions do not depend on the machine's state. It says nothing
of what the instructions cost in time (docs/model.md, "Instructions,
counted by callgrind"). Needs valgrind (tools/install-deps).
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The counts whose instructions the fit prices; the per-process constant
# and version_steps are the version check's, outside _dl_relocate_object,
# and left out of an object's prediction.
COUNTS = ["relative", "relr", "lookups", "probes", "bloom", "chain", "strcmps", "cached",
          "tls", "ifunc", "hash_bytes", "cmp_bytes", "version_steps"]
PER_PROCESS = ("version_steps",)


def load_tool(name):
    """A sibling tool as a module: bench-reloc's program list, fit-checks' NNLS."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def callgrind(argv, out, functions, per_call):
    """Run argv under callgrind, collecting only in `functions`; the summaries
    of its dumps (one per call of the first function when per_call)."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--collect-atstart=no"]
    cmd += ["--toggle-collect=" + f for f in functions]
    if per_call:
        cmd.append("--dump-after=" + functions[0])
    subprocess.run(cmd + argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    # Callgrind writes dump k to OUT.k and what is left at exit to OUT,
    # which sorts first.
    folder, stem = os.path.split(out)

    def part(f):
        return int(f[len(stem) + 1:]) if f.startswith(stem + ".") else 0
    dumps = sorted((f for f in os.listdir(folder)
                    if f == stem or (f.startswith(stem + ".") and f[len(stem) + 1:].isdigit())),
                   key=part)
    result = []
    for f in dumps:
        with open(os.path.join(folder, f)) as fh:
            m = re.search(r"^summary: (\d+)", fh.read(), re.M)
        result.append(int(m.group(1)) if m else 0)
    return result


def synthetic_fit(ldprof, work):
    """Build the calibration's programs, count their instructions, fit."""
    p = subprocess.run([ldprof, "calibrate", "--quick", "-n", "5", "--dry-run", "--keep",
                        "--json"], cwd=work, capture_output=True, text=True, check=False)
    kept = re.search(r"kept in (\S+)", p.stderr)
    if p.returncode != 0 or not kept:
        if kept:
            shutil.rmtree(kept.group(1), ignore_errors=True)
        raise RuntimeError("ldprof calibrate failed: " + p.stderr.strip()[-300:])
    build = kept.group(1)
    try:
        rows, ys = [], []
        for prog in json.loads(p.stdout)["fit"]:
            out = os.path.join(work, "syn-" + prog["program"] + ".cg")
            ir = callgrind([os.path.join(build, prog["program"])], out,
                           ["_dl_relocate_object", "_dl_check_all_versions"], False)
            if not ir or not ir[-1]:
                raise RuntimeError("callgrind counted nothing in " + prog["program"])
            w = ir[-1] ** -0.5
            rows.append([w * prog["features"].get(k, 0) for k in COUNTS] + [w])
            ys.append(w * ir[-1])
    finally:
        shutil.rmtree(build, ignore_errors=True)
    coef = load_tool("fit-checks").nnls(rows, ys)
    return dict(zip(COUNTS + ["per_process"], coef)), len(ys)


def relocation_order(argv, work):
    """The objects in the order ld.so relocates them, as LD_DEBUG=reloc names
    them in the client's process under valgrind (the file that names
    valgrind's preload; the launcher's processes write files of their own)."""
    base = os.path.join(work, "lddebug")
    env = dict(os.environ, LD_DEBUG="reloc", LD_DEBUG_OUTPUT=base)
    subprocess.run(["valgrind", "--tool=none"] + argv, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    order = []
    for f in sorted(os.listdir(work)):
        if not f.startswith("lddebug."):
            continue
        with open(os.path.join(work, f)) as fh:
            names = re.findall(r"relocation processing: (\S+)", fh.read())
        os.unlink(os.path.join(work, f))
        if any("vgpreload" in n for n in names):
            # That process ran valgrind's own binary before the client:
            # its objects, then its ld.so's line, come first.
            first = max(i for i, n in enumerate(names)
                        if os.path.basename(n).startswith("valgrind"))
            order = names[first + 1:]
            if order and "ld-linux" in os.path.basename(order[0]):
                order = order[1:]
    return order


def program_objects(bench, ldprof, argv, work):
    """[(object path, its counts, callgrind's instructions)] for one program."""
    report = bench.run_ldprof(ldprof, 5, argv)
    counts = {os.path.realpath(lib["path"]): lib.get("reloc_model_counts")
              for lib in report["libraries"]}
    main = os.path.realpath(shutil.which(argv[0]) or argv[0])
    order = relocation_order(argv, work)
    cg_dir = os.path.join(work, "cg")
    shutil.rmtree(cg_dir, ignore_errors=True)
    os.mkdir(cg_dir)
    dumps = callgrind(argv, os.path.join(cg_dir, "out"), ["_dl_relocate_object"], True)
    # After what was left at exit, one dump per call in relocation order;
    # ld.so's own, last, has no counts of the report's to set beside it.
    calls = dumps[1:] if len(dumps) > 1 else []
    order = [o for o in order if "ld-linux" not in os.path.basename(o)]
    if len(calls) < len(order):
        raise RuntimeError("%d calls of _dl_relocate_object for %d objects" %
                           (len(calls), len(order)))
    result = []
    for name, ir in zip(order, calls):
        path = os.path.realpath(name if "/" in name else main)
        if counts.get(path):
            result.append((path, counts[path], ir))
    return result


def predict(coef, counts):
    return sum(v * counts.get(k, 0) for k, v in coef.items()
               if k in COUNTS and k not in PER_PROCESS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ldprof", default=os.environ.get("LDPROF", "ldprof"))
    ap.add_argument("--tolerance", type=float, default=15.0)
    ap.add_argument("--min-instructions", type=int, default=50000)
    ap.add_argument("programs", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("skipped: needs valgrind (tools/install-deps)")
        return 0
    bench = load_tool("bench-reloc")
    progs = bench.parse_programs(a.programs) if a.programs else bench.PROGRAMS
    ldprof = os.path.abspath(a.ldprof) if os.path.exists(a.ldprof) else a.ldprof
    with tempfile.TemporaryDirectory(prefix="ldprof-instructions.") as work:
        try:
            coef, n = synthetic_fit(ldprof, work)
        except RuntimeError as e:
            print("reloc-instructions: %s" % e, file=sys.stderr)
            return 2
        print("instructions a count costs, fitted on %d synthetic programs:" % n)
        print("   " + ", ".join("%s %.1f" % (k, v) for k, v in coef.items()))
        print("%-22s %-26s %11s %11s %8s" % ("program", "object", "callgrind", "predicted",
                                             "error"))
        errors, misses = [], 0
        for _, argv in progs:
            name = os.path.basename(argv[0])[:22]
            if not shutil.which(argv[0]):
                print("%-22s not installed" % name)
                continue
            try:
                objs = program_objects(bench, ldprof, argv, work)
            except RuntimeError as e:
                print("%-22s cannot measure: %s" % (name, e))
                misses += 1
                continue
            for path, counts, ir in objs:
                if ir < a.min_instructions:
                    continue
                guess = predict(coef, counts)
                err = 100.0 * (ir - guess) / ir
                errors.append(err)
                misses += abs(err) > a.tolerance
                print("%-22s %-26s %11d %11.0f %+7.1f%%" %
                      (name, os.path.basename(path)[:26], ir, guess, err))
    if errors:
        rms = (sum(e * e for e in errors) / len(errors)) ** 0.5
        print("%d objects of at least %d instructions: %d within +-%g%%, RMS %.1f%%, "
              "worst %+.1f%%" % (len(errors), a.min_instructions,
                                 sum(abs(e) <= a.tolerance for e in errors), a.tolerance, rms,
                                 max(errors, key=abs)))
    return 1 if misses or not errors else 0


if __name__ == "__main__":
    sys.exit(main())
