#!/bin/sh
# A timeout or Ctrl-C ends the whole tree under -f: the top, a child that
# left the run's process group (setsid) and an orphaned grandchild
# (fixtures/follow-tree/hang), all of them sleeping 30 s.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/follow-tree

# gone PIDFILE: every pid in it has ended (and was reaped).
gone() {
	for p in $(cat "$1"); do
		if kill -0 "$p" 2>/dev/null; then
			return 1
		fi
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

rm -f "$TMP/pids"
"$LDPROF" run -f -n 1 -w 0 --no-overhead "$F/hang" "$TMP/pids" >"$TMP/o2" 2>"$TMP/e2" &
pid=$!
i=0
while [ ! -s "$TMP/pids" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$pid"
start=$(date +%s)
wait "$pid"
rc=$?
end=$(date +%s)
check "Ctrl-C stops ldprof" test "$rc" -ne 0
check "... within seconds" test $((end - start)) -lt 10
check "Ctrl-C ended the setsid child and the orphan" gone "$TMP/pids"
done_testing
