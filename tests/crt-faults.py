#!/usr/bin/env python3
"""crt-faults.py PERF_DATA PROGRAM LDPROF_JSON: the page faults each library
of PROGRAM took at its _init (DT_INIT) and its _fini (DT_FINI), per run,
from a `perf record -e page-faults -c 1 -d` recording of runs of it, beside
what `ldprof run --json` said of it (t0221).

An instruction fetch faults at the address it fetches, so a fault whose
address is a library's DT_INIT or DT_FINI is the fault its crt code took
there. Mappings come from the recording's own MMAP2 events, per process;
addresses map to the file's virtual addresses through the mapping's file
offset and the segment's (readelf). Prints one line per library of the
JSON that has crt_faults: its path, ldprof's crt_faults, the faults at
DT_INIT and at DT_FINI per run, its init and fini functions, its measured
fini (us), and the fault cost the verdict priced at."""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

perf_data, program, report = sys.argv[1], sys.argv[2], sys.argv[3]


def dynamic_addrs(path):
    """{vaddr: "init" or "fini"} of path, and its PT_LOADs as (offset, vaddr, filesz)."""
    dyn = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True).stdout
    want = {}
    for tag in ("INIT", "FINI"):
        m = re.search(r"\(%s\)\s+0x([0-9a-f]+)" % tag, dyn)
        if m:
            want[int(m.group(1), 16)] = tag.lower()
    phdrs = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    loads = [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
             for m in re.finditer(r"^\s*LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) \S+ 0x([0-9a-f]+)",
                                  phdrs, re.M)]
    return want, loads


out = subprocess.run(["perf", "script", "-i", perf_data, "--show-mmap-events",
                      "-F", "comm,pid,event,addr"], capture_output=True, text=True).stdout
maps = defaultdict(list)  # pid -> [(lo, hi, pgoff, path)]
runs = set()
hits = defaultdict(int)  # (library path, "init" or "fini") -> faults there
facts = {}
name = program.rsplit("/", 1)[-1][:15]
for line in out.splitlines():
    m = re.search(r"(\d+) PERF_RECORD_MMAP2 \d+/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ "
                  r"(0x[0-9a-f]+|0) .*\]: r-xp (/\S+)$", line)
    if m:
        lo = int(m.group(2), 16)
        maps[int(m.group(1))].append((lo, lo + int(m.group(3), 16), int(m.group(4), 16),
                                      m.group(5)))
        continue
    f = line.split()
    if len(f) < 4 or not f[2].startswith("page-faults") or f[0] != name:
        continue
    pid, addr = int(f[1]), int(f[-1], 16)
    runs.add(pid)
    for lo, hi, pgoff, path in reversed(maps[pid]):
        if not lo <= addr < hi:
            continue
        if path not in facts:
            facts[path] = dynamic_addrs(path)
        want, loads = facts[path]
        off = addr - lo + pgoff
        for o, v, sz in loads:
            if o <= off < o + sz and off - o + v in want:
                hits[path, want[off - o + v]] += 1
        break
if not runs:
    sys.exit("crt-faults.py: no page faults of %s in %s" % (name, perf_data))
with open(report) as f:
    d = json.load(f)
fault = d["verdict"]["fault_us"]
for lib in d["libraries"]:
    if not lib.get("crt_faults"):
        continue
    real = os.path.realpath(lib["path"])
    print("%s %.3f %.3f %.3f %d %d %.2f %.2f" % (
        lib["path"], lib["crt_faults"], hits[real, "init"] / len(runs),
        hits[real, "fini"] / len(runs), lib["init_functions"], lib["fini_functions"],
        lib["fini_us"], fault))
