#!/usr/bin/env python3
"""reloc-faults.py GROUP PROGRAM ARGS...: the write faults the program takes
inside ld.so's _dl_relocate_object, by mapping, as the kernel reports them
(t0216). GROUP names uprobes already placed on _dl_relocate_object's entry
(GROUP:rel) and return (GROUP:relret); faults come from the
exceptions:page_fault_user tracepoint, mappings from the recording's own
MMAP2 events. Prints one JSON object: {"by_path": {PATH: N}, "calls": [N per
call, in call order]}."""
import json
import re
import subprocess
import sys
import tempfile

group, argv = sys.argv[1], sys.argv[2:]
with tempfile.NamedTemporaryFile(suffix=".data") as data:
    rec = subprocess.run(["perf", "record", "-q", "-d", "-o", data.name, "-e", group + ":*",
                          "-e", "exceptions:page_fault_user", "--"] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if rec.returncode:
        sys.exit("reloc-faults: perf record: " + rec.stderr.strip()[-200:])
    out = subprocess.run(["perf", "script", "-i", data.name, "--show-mmap-events",
                          "-F", "event,trace"], capture_output=True, text=True).stdout
maps = []  # (lo, hi, path)
by_path, calls, cur = {}, [], None
for line in out.splitlines():
    m = re.search(r"PERF_RECORD_MMAP2 .*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\)[^\]]*\]: \S+ (.*)$", line)
    if m:
        lo = int(m.group(1), 16)
        maps.append((lo, lo + int(m.group(2), 16), m.group(3)))
        continue
    if group + ":rel:" in line:
        cur = 0
    elif group + ":relret" in line and cur is not None:
        calls.append(cur)
        cur = None
    elif cur is not None and "page_fault_user" in line:
        addr = int(re.search(r"address=(0x[0-9a-f]+)", line).group(1), 16)
        err = int(re.search(r"error_code=(0x[0-9a-f]+)", line).group(1), 16)
        if not err & 2:  # a read or an instruction fetch
            continue
        cur += 1
        path = "?"
        for lo, hi, p in reversed(maps):  # the newest mapping wins
            if lo <= addr < hi:
                path = p
                break
        by_path[path] = by_path.get(path, 0) + 1
print(json.dumps({"by_path": by_path, "calls": calls}))
