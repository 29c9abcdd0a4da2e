#!/bin/sh
# A timeout or Ctrl-C ends the whole tree under -f: the top, a child that
# left the run's process group (setsid) and an orphaned grandchild
# (fixtures/follow-tree/hang), all of them sleeping 30 s. So does a second
# Ctrl-C, which ends ldprof at once.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree

# gone PIDFILE: every pid in it has ended: no such process, or a zombie
# (when ldprof itself died, init reaps them, or does not in a container).
gone() {
	for p in $(cat "$1"); do
		state=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
		if [ -n "$state" ] && [ "$state" != Z ]; then
			return 1
		fi
	done
}

# start_hang N: the tree in the background (its pid in pid, its output in
# $TMP/oN and $TMP/eN), once it has written its pids.
start_hang() {
	rm -f "$TMP/pids"
	"$LDPROF" run -f -n 1 -w 0 --no-overhead "$F/hang" "$TMP/pids" >"$TMP/o$1" 2>"$TMP/e$1" &
	pid=$!
	i=0
	while [ ! -s "$TMP/pids" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

start=$(date +%s)
"$LDPROF" run -f -n 1 -w 0 --no-overhead --timeout 1 "$F/hang" "$TMP/pids" >"$TMP/o" 2>"$TMP/e"
rc=$?
end=$(date +%s)
check "the timeout fails the run" test "$rc" -eq 1
check "... with the reason" grep -q "timeout" "$TMP/e"
check "... within seconds, not after 30 s" test $((end - start)) -lt 10
check "the pids were written" test -s "$TMP/pids"
check "the timeout ended the setsid child and the orphan" gone "$TMP/pids"

start_hang 2
kill -INT "$pid"
start=$(date +%s)
wait "$pid"
rc=$?
end=$(date +%s)
check "Ctrl-C stops ldprof" test "$rc" -ne 0
check "... within seconds" test $((end - start)) -lt 10
check "Ctrl-C ended the setsid child and the orphan" gone "$TMP/pids"

# A second Ctrl-C ends ldprof at once, and the tree with it, wherever its groups.
start_hang 3
sleep 0.2 # the tree's records drained: ldprof knows who is alive
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
sleep 0.5 # init reaps what ldprof left
check "a second Ctrl-C ends ldprof by SIGINT" test "$rc" -eq 130
check "... and the setsid child and the orphan with it" gone "$TMP/pids"
done_testing
