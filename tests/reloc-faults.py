#!/usr/bin/env python3
"""reloc-faults.py GROUP PROGRAM ARGS...: the page faults the program takes
while ld.so relocates, by mapping, as the kernel reports them (t0216).
GROUP names uprobes already placed on the entry and return of ld.so's
_dl_relocate_object (GROUP:rel, GROUP:relret) and _dl_check_all_versions
(GROUP:ver, GROUP:verret; the version check, which the relocate phase
holds too); faults come from the exceptions:page_fault_user tracepoint,
mappings from the recording's own MMAP2 events. Prints one JSON object:
"writes" {PATH: N}, the write faults inside _dl_relocate_object; "reads"
{PATH: N}, the read faults (neither writes nor instruction fetches) in
both; "fetches" {PATH: N}, the instruction fetches inside
_dl_relocate_object (the IFUNC resolvers it calls)."""
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
writes, reads, fetches = {}, {}, {}
in_reloc = in_versions = False


def mapping(addr):
    for lo, hi, p in reversed(maps):  # the newest mapping wins
        if lo <= addr < hi:
            return p
    return "?"


for line in out.splitlines():
    m = re.search(r"PERF_RECORD_MMAP2 .*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\)[^\]]*\]: \S+ (.*)$", line)
    if m:
        lo = int(m.group(1), 16)
        maps.append((lo, lo + int(m.group(2), 16), m.group(3)))
    elif group + ":relret" in line:
        in_reloc = False
    elif group + ":rel:" in line:
        in_reloc = True
    elif group + ":verret" in line:
        in_versions = False
    elif group + ":ver:" in line:
        in_versions = True
    elif (in_reloc or in_versions) and "page_fault_user" in line:
        addr = int(re.search(r"address=(0x[0-9a-f]+)", line).group(1), 16)
        err = int(re.search(r"error_code=(0x[0-9a-f]+)", line).group(1), 16)
        path = mapping(addr)
        if err & 2 and in_reloc:
            writes[path] = writes.get(path, 0) + 1
        elif not err & 0x12:
            reads[path] = reads.get(path, 0) + 1
        elif err & 0x10 and in_reloc:
            fetches[path] = fetches.get(path, 0) + 1
print(json.dumps({"writes": writes, "reads": reads, "fetches": fetches}))
