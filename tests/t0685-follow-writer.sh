#!/bin/sh
# A process that keeps writing into the record buffer while ldprof decodes
# it: one started outside the tree (not reaped, never waited for), which
# found the buffer's path in the workload's environment, maps it and flips
# the top process's CPU time between 1 us and an impossible 2^50 us, as
# fast as it can, from before the workload ends until after ldprof exits.
# The workload then runs 100 more processes, whose records ldprof checks
# and decodes too: the time between the top's check and its use.
# ldprof decodes a copy taken at one moment: each run reports the value it
# checked (1 us, or the shim's own if the writer was not running at that
# moment) or drops the process's records as corrupt; never the impossible
# value, never a crash.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/writer.py" <<'PY'
import mmap, os, struct, sys, time
d = sys.argv[1]
while True:
    try:
        pid, shm = open(d + "/shm").read().split()
        break
    except (OSError, ValueError):
        time.sleep(0.002)
_, size, path = shm.split(",", 2)
if path.startswith("sysv:"):  # a System V segment, attached by its id
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    m = (ctypes.c_char * int(size)).from_address(libc.shmat(int(path[5:]), None, 0))
else:
    m = mmap.mmap(open(path, "r+b").fileno(), int(size))
chunk_size, chunks_off = struct.unpack_from("<II", m, 84)
at = next(chunks_off + i * chunk_size for i in range(64)
          if struct.unpack_from("<ii", m, chunks_off + i * chunk_size)[0] == int(pid)) + 48
true, impossible = struct.pack("<Q", 1), struct.pack("<Q", 1 << 50)
open(d + "/ready", "w").close()
while True:
    m[at:at + 8] = true
    m[at:at + 8] = impossible
PY

runs=5
i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	rm -f "$TMP/shm" "$TMP/ready"
	python3 "$TMP/writer.py" "$TMP" &
	writer=$!
	"$LDPROF" run -f -n 1 -w 0 --no-overhead --json -o "$TMP/j$i" -- /bin/sh -c \
		'echo "$$ $LDPROF_SHM" >"$1/shm.tmp" && mv "$1/shm.tmp" "$1/shm"
		 n=0; while [ ! -e "$1/ready" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
		 n=0; while [ $n -lt 100 ]; do /bin/true; n=$((n + 1)); done' \
		sh "$TMP" 2>"$TMP/e$i"
	echo $? >"$TMP/st$i"
	test -e "$TMP/ready"
	echo $? >"$TMP/ready$i"
	kill "$writer"
	wait "$writer" 2>/dev/null
done

i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	expect_eq "run $i: ldprof succeeds while the buffer is written" 0 "$(cat "$TMP/st$i")"
	expect_eq "run $i: the writer was writing" 0 "$(cat "$TMP/ready$i")"
	expect_eq "run $i: the top's CPU is a value checked (1 us, or the shim's own), or none" ok \
		"$(json_eval "$TMP/j$i" "(lambda e: 'ok' if e['user_us'] is None or e['user_us'] < 1e7 else e['user_us'])(d['per_run'][0]['tree']['execs'][0])")"
	# The run's records and the tree's are read from one copy: both, or neither.
	expect_eq "run $i: the top's phases and its CPU come from one moment" ok \
		"$(json_eval "$TMP/j$i" "(lambda e: 'ok' if (e['user_us'] is None) == (e['phases_us'] is None) else e)(d['per_run'][0]['tree']['execs'][0])")"
done
done_testing
