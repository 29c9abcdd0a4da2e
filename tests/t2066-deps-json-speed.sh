#!/bin/sh
# deps --bindings --json costs at most twice the text listing's CPU time on
# the same programs (issue 11's goal; make bench measures the wall time over
# all of /usr/bin). CPU time of one thread (--jobs 1), the median of three
# runs each, in turns: the machine's load moves it far less than wall time.
# The old writer took 15-20x.
. "$(dirname "$0")/lib.sh"

PYTHONDONTWRITEBYTECODE=1 python3 "$TOP/tools/deps-bench.py" --list-only --dir /usr/bin 2>/dev/null | head -150 >"$TMP/progs"
if [ "$(wc -l <"$TMP/progs")" -lt 20 ]; then
	skip "fewer than 20 dynamic programs in /usr/bin"
	done_testing
	exit
fi
cat >"$TMP/cpu.py" <<'EOF'
import os, statistics, subprocess, sys
ldprof, progs = sys.argv[1], open(sys.argv[2]).read().split()
def cpu(opts):
    p = subprocess.Popen([ldprof, "deps", "--bindings", "--jobs", "1"] + opts + progs,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0  # reaped here; keeps Popen from waiting again
    return ru.ru_utime + ru.ru_stime
t = {"text": [], "json": []}
for _ in range(3):
    t["text"].append(cpu([]))
    t["json"].append(cpu(["--json"]))
text, js = statistics.median(t["text"]), statistics.median(t["json"])
print("%.3f %.3f %.2f" % (text, js, js / text))
EOF
# shellcheck disable=SC2046 # three numbers
set -- $(python3 "$TMP/cpu.py" "$LDPROF" "$TMP/progs")
diag "$(wc -l <"$TMP/progs") programs: text $1 s, json $2 s of CPU: ${3}x"
check "deps --bindings --json: at most 2x the text's CPU time (${3}x)" \
	awk -v r="$3" 'BEGIN { exit !(r != "" && r <= 2) }'
done_testing
