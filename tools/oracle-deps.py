#!/usr/bin/env python3
"""Compare `ldprof deps` with ld.so itself, program by program.

ld.so is the oracle: with LD_TRACE_LOADED_OBJECTS=1 LD_WARN=yes LD_BIND_NOW=yes
LD_DEBUG=bindings it loads a program, relocates everything, prints the load list
and every binding, and exits without running main. For each program this script
compares:

  * the load list (name => path, in order) with `ldprof deps --json`,
  * the SET of (from, symbol, version, to) bindings,
  * the set of undefined symbols ld.so reports,
  * optionally (--stats, which RUNS the programs) the lookup and cache counts of
    LD_DEBUG=statistics, lazily and with LD_BIND_NOW, and the number of objects
    probed (LD_DEBUG=symbols lines) with LD_BIND_NOW.

ld.so is given the program's real path, as the kernel resolves /proc/self/exe,
so $ORIGIN means the same for both.

usage: oracle-deps.py [--ldprof PATH] [--library-path DIRS] [--preload LIBS]
                      [--stats [--run-arg=ARG...]] [--quiet] [--summary] FILE...
Exit status: 0 when every program agrees, 1 otherwise, 2 on usage errors.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LDSO = "/lib64/ld-linux-x86-64.so.2"
BINDING = re.compile(
    r"binding file (.*) \[\d+\] to (.*) \[\d+\]: (?:normal|protected) symbol `([^']*)'(?: \[([^\]]*)\])?$"
)
TRACE_LINE = re.compile(r"^\t(.*?)(?: => (.*?))?(?: \(0x[0-9a-f]+\))?$")
UNDEFINED = re.compile(r"undefined symbol: ([^,\t]*)(?:, version ([^\t]*))?\t\((.*?)\)")
VERSION = re.compile(r": version `([^']*)' not found \(required by (.*)\)$", re.M)


def ldso_env(args, extra):
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    if args.library_path:
        env["LD_LIBRARY_PATH"] = args.library_path
    if args.preload:
        env["LD_PRELOAD"] = " ".join(args.preload)
    env.update(extra)
    return env


def run_ldso(args, real, tmp):
    """The load list, the binding set and the undefined symbols ld.so reports."""
    out = os.path.join(tmp, "dbg")
    env = ldso_env(args, {
        "LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "yes", "LD_BIND_NOW": "yes",
        "LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": out})
    r = subprocess.run([LDSO, real], env=env, capture_output=True, text=True,
                       errors="replace", timeout=60)
    loads, undefined, versions = [], set(), set()
    # "undefined symbol: NAME[, version V]\t(FILE)" goes to stderr, unterminated.
    for m in UNDEFINED.finditer(r.stderr):
        undefined.add((m.group(3), m.group(1), m.group(2)))
    # "PROGRAM: FILE: version `V' not found (required by OBJECT)", on stderr.
    for m in VERSION.finditer(r.stderr):
        versions.add((m.group(2), m.group(1)))
    for line in r.stdout.splitlines():
        if line.startswith("\t") and "version `" not in line and "no version information" not in line:
            m = TRACE_LINE.match(line)
            if m:
                loads.append((m.group(1), m.group(2) or m.group(1)))
    binds = set()
    for name in os.listdir(tmp):
        if not name.startswith("dbg."):
            continue
        with open(os.path.join(tmp, name), errors="replace") as f:
            for line in f:
                m = BINDING.search(line.rstrip("\n"))
                if m:
                    binds.add((m.group(1), m.group(3), m.group(4), m.group(2)))
        os.unlink(os.path.join(tmp, name))
    return r, loads, binds, undefined, versions


def run_program(args, real, extra):
    """Start the program for real (it runs!) with LD_DEBUG; its debug output."""
    env = ldso_env(args, extra)
    try:
        r = subprocess.run([real] + args.run_args, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace", timeout=20)
    except subprocess.TimeoutExpired as e:
        return e.stderr or ""
    return r.stderr


def run_stats(args, real, bind_now):
    """ld.so's startup counts: lookups, cache hits, and (bind-now) probes."""
    extra = {"LD_DEBUG": "statistics"}
    if bind_now:
        extra["LD_BIND_NOW"] = "1"
    got = {}
    for line in run_program(args, real, extra).splitlines():
        m = re.search(r"^\s*\d+:\s+(number of relocations|number of relocations from cache): (\d+)", line)
        if m and m.group(1) not in got:
            got[m.group(1)] = int(m.group(2))
    probes = None
    if bind_now:
        extra = {"LD_DEBUG": "symbols", "LD_BIND_NOW": "1"}
        probes = sum(1 for line in run_program(args, real, extra).splitlines()
                     if "lookup in file=" in line)
    return got.get("number of relocations"), got.get("number of relocations from cache"), probes


def ldprof_json(args, files, extra):
    cmd = [args.ldprof, "deps", "--json", "--bindings"] + extra
    if args.library_path:
        cmd += ["--library-path", args.library_path]
    for p in args.preload:
        cmd += ["--preload", p]
    r = subprocess.run(cmd + files, capture_output=True, text=True, errors="replace")
    if r.returncode not in (0, 1):
        sys.stderr.write(r.stderr)
    return {f["file"]: f for f in json.loads(r.stdout)["files"]}


def ours(doc):
    objs = doc["objects"]
    def name(i):
        return objs[i]["path"] or objs[i]["name"]
    loads = []
    for o in objs[1:]:
        loads.append((o["name"], o["path"] or o["name"]) if not o["missing"] else (o["name"], "not found"))
    binds = set()
    for b in doc.get("bindings", []):
        # ld.so's malloc switch, its second relocation and IFUNC resolvers
        # do not run under LD_TRACE_LOADED_OBJECTS.
        if b["to"] is not None and "untraced" not in b["flags"]:
            binds.add((name(b["from"]), b["symbol"], b["version"], name(b["to"])))
    undefined = set()
    for m in doc["missing"]["symbols"]:
        if not m["untraced"]:
            undefined.add((name(m["object"]), m["symbol"], m["version"]))
    versions = set()
    for v in doc["missing"]["versions"]:
        if v["kind"] == "not-found":
            versions.add((name(v["object"]), v["version"]))
    return loads, binds, undefined, versions


def compare(args, real, doc, tmp):
    problems = []
    r, loads, binds, undefined, versions = run_ldso(args, real, tmp)
    my_loads, my_binds, my_undef, my_versions = ours(doc)
    if loads == [("statically linked", "statically linked")] and not doc["objects"][0]["needed"]:
        # ld.so's trace mode says so for any object without DT_NEEDED and
        # stops before relocating it; a real start would go on, which is
        # what ldprof shows.
        print("note   %s: no DT_NEEDED, ld.so's trace calls it statically linked" % real)
        return len(binds), problems
    if loads != my_loads:
        problems.append("load list: ld.so %s, ldprof %s" % (loads, my_loads))
    if r.returncode < 0:
        # ld.so itself crashed while tracing (it does, relocating a program
        # whose libc is missing): only the load list it printed counts.
        print("note   %s: ld.so died of signal %d; compared the load list only" % (real, -r.returncode))
        return len(binds), problems
    if versions != my_versions:
        problems.append("missing versions: ld.so %s, ldprof %s" % (sorted(versions), sorted(my_versions)))
    for t in sorted(binds - my_binds, key=str)[:args.show]:
        problems.append("only ld.so binds %s" % (t,))
    for t in sorted(my_binds - binds, key=str)[:args.show]:
        problems.append("only ldprof binds %s" % (t,))
    if undefined != my_undef:
        problems.append("undefined: ld.so %s, ldprof %s" % (sorted(undefined - my_undef, key=str),
                                                            sorted(my_undef - undefined, key=str)))
    if args.stats:
        for bind_now, d in ((False, doc), (True, args.docs_now.get(real))):
            lookups, cached, probes = run_stats(args, real, bind_now)
            if lookups is None:
                # The program does not start (something is missing), so
                # ld.so prints no statistics: nothing to compare.
                break
            t = d["totals"]
            mine = (t["lookups"], t["cached"]) + ((t["probes"],) if bind_now else ())
            theirs = (lookups, cached) + ((probes,) if bind_now else ())
            if mine != theirs:
                problems.append("statistics (%s): ld.so %s, ldprof %s (lookups, cached%s)"
                                % ("LD_BIND_NOW" if bind_now else "lazy", theirs, mine,
                                   ", probes" if bind_now else ""))
    return len(binds), problems


def ldso_loads_dynamically(args, real):
    """Whether ld.so's --list finds dependencies to load for real.

    It fails on a non-ELF file or one of another class, crashes on a static
    program, and says "statically linked" for an object without DT_NEEDED.
    """
    r = subprocess.run([LDSO, "--list", real], env=ldso_env(args, {}), capture_output=True,
                       text=True, errors="replace", timeout=60)
    return r.returncode == 0 and any(line.startswith("\t") and "statically linked" not in line
                                     for line in r.stdout.splitlines())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ldprof", default=os.path.join(os.path.dirname(__file__), "..", "ldprof"))
    ap.add_argument("--library-path")
    ap.add_argument("--preload", action="append", default=[])
    ap.add_argument("--stats", action="store_true",
                    help="also RUN each program and compare LD_DEBUG=statistics and symbols counts")
    ap.add_argument("--run-arg", dest="run_args", action="append", default=[],
                    help="an argument for --stats runs (repeatable; use --run-arg=--version)")
    ap.add_argument("--quiet", action="store_true", help="print only disagreements")
    ap.add_argument("--summary", action="store_true", help="end with the agreement rate")
    ap.add_argument("--show", type=int, default=5, help="differences shown per program")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    reals = {f: os.path.realpath(f) for f in args.files}
    docs = ldprof_json(args, sorted(set(reals.values())), [])
    args.docs_now = ldprof_json(args, sorted(set(reals.values())), ["--bind-now"]) if args.stats else {}
    agree = total = nbinds = 0
    with tempfile.TemporaryDirectory(prefix="oracle-deps.") as tmp:
        for f in args.files:
            doc = docs.get(reals[f])
            if doc is None or doc["static"]:
                # Not comparable, unless ld.so does load it: then ldprof
                # refused (or called static) a program it should analyse.
                if ldso_loads_dynamically(args, reals[f]):
                    total += 1
                    print("DIFFER %s" % f)
                    print("    ld.so loads its libraries; ldprof %s"
                          % ("refused it" if doc is None else "calls it static"))
                continue
            total += 1
            n, problems = compare(args, reals[f], doc, tmp)
            nbinds += n
            if problems:
                print("DIFFER %s" % f)
                for p in problems:
                    print("    " + p)
            else:
                agree += 1
                if not args.quiet:
                    print("agree  %s (%d objects, %d bindings)" % (f, len(doc["objects"]), n))
    if args.summary:
        rate = 100.0 * agree / total if total else 0.0
        print("oracle: %d/%d programs agree with ld.so (%.2f%%), %d bindings compared"
              % (agree, total, rate, nbinds))
    if not total:
        print("oracle: no dynamically linked program among the files")
    return 0 if total and agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
