#!/usr/bin/env python3
"""faults-by-map.py PERF_DATA NAME...: for each NAME, the page faults of a
`perf record -e page-faults -d` recording whose address lies in a mapping
whose path contains NAME (t0125). Mappings are taken from the recording's
own MMAP2 events, as perf saw them."""
import re
import subprocess
import sys

out = subprocess.run(["perf", "script", "-i", sys.argv[1], "--show-mmap-events",
                      "-F", "comm,event,addr"], capture_output=True, text=True).stdout
maps = []  # (lo, hi, path)
counts = {n: 0 for n in sys.argv[2:]}
for line in out.splitlines():
    m = re.search(r"PERF_RECORD_MMAP2 .*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\)[^\]]*\]: \S+ (.*)$", line)
    if m:
        lo = int(m.group(1), 16)
        maps.append((lo, lo + int(m.group(2), 16), m.group(3)))
        continue
    # Only the program's own: not the wrapper's, before its exec.
    if "page-faults" in line and not line.split()[0].startswith("faultrun"):
        addr = int(line.split()[-1], 16)
        for lo, hi, path in reversed(maps):  # the newest mapping wins
            if lo <= addr < hi:
                for n in counts:
                    if n in path:
                        counts[n] += 1
                break
print(" ".join(str(counts[n]) for n in sys.argv[2:]))
