#!/bin/sh
# Follow mode's shim (ldprof -f), through the launcher (the probe fixture):
# a top process, the child it execs and the grandchild that one execs each
# come back with their own records and the pids they had; a child forked
# after main that never execs gets chunks of its own; records spread over
# many small chunks decode as in one; a tiny buffer counts the execs it
# could not hold; the workload's fds are its own; threads racing for a new
# chunk never lose or mix a record.
. "$(dirname "$0")/lib.sh"

probe=$FIXTURES/follow-shim/probe
tree=$FIXTURES/follow-shim/tree
LDPROF_SHIM_DIR=$TOP/preload
export LDPROF_SHIM_DIR

# field LINE NAME: the value of NAME=... in a probe line.
field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# proc PID: the probe's line for that process.
proc() {
	grep "^proc pid=$1 " "$TMP/out"
}

# Where System V segments are refused, the buffer is a memfd that every
# process reopens by its /proc path: the same records come back.
# (A sanitized probe wants its runtime first: the preload comes before it.)
no_link_order=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
LD_PRELOAD=$FIXTURES/follow-shim/no-sysv.so ASAN_OPTIONS=$no_link_order \
	"$probe" "$tree" top "$TMP/log0" >"$TMP/out" 2>"$TMP/err"
check "without System V IPC: the probe runs" test $? -eq 0
expect_eq "without System V IPC: four process images recorded" 4 "$(grep -c '^proc .* ok=1 ' "$TMP/out")"

"$probe" "$tree" top "$TMP/log" >"$TMP/out" 2>"$TMP/err"
check "the probe runs" test $? -eq 0
expect_eq "the workload succeeds" "run status=0" "$(cut -d' ' -f1,2 "$TMP/out" | head -n 1)"
expect_eq "nothing lost" "lost_execs=0" "$(sed -n 2p "$TMP/out")"
expect_eq "four process images recorded" 4 "$(grep -c '^proc ' "$TMP/out")"
top=$(awk '$1 == "top" { print $2 }' "$TMP/log")
forked=$(awk '$1 == "forked" { print $2 }' "$TMP/log")
mid=$(awk '$1 == "mid" { print $2 }' "$TMP/log")
leaf=$(awk '$1 == "leaf" { print $2 }' "$TMP/log")
for role in top mid leaf; do
	case $role in
	top) line=$(proc "$top") ;;
	mid) line=$(proc "$mid") ;;
	*) line=$(proc "$leaf") ;;
	esac
	expect_eq "$role: an exec, its records valid, VERSION first, its end and CPU seen" \
		"0 0 1 1 1 1" "$(for f in forked corrupt ok first end cpu; do field "$line" $f; done | tr '\n' ' ' | sed 's/ $//')"
done
expect_eq "mid's parent is top" "$top" "$(field "$(proc "$mid")" ppid)"
expect_eq "leaf's parent is mid" "$mid" "$(field "$(proc "$leaf")" ppid)"
expect_eq "mid's argv" "tree,mid,$TMP/log" "$(field "$(proc "$mid")" argv)"
expect_eq "leaf's argv" "tree,leaf,$TMP/log" "$(field "$(proc "$leaf")" argv)"
case $(field "$(proc "$leaf")" exe) in
*/follow-shim/tree) ok "a child's executable is named by its path" ;;
*) not_ok "a child's executable is named by its path ($(field "$(proc "$leaf")" exe))" ;;
esac
line=$(proc "$forked")
expect_eq "the fork without exec: its own chunks, parent top, valid, its exit and CPU" \
	"1 0 $top 1 1 1" "$(for f in forked corrupt ppid ok end cpu; do field "$line" $f; done | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the run's own records are the top's" "$(field "$(proc "$top")" nev)" \
	"$(field "$(head -n 1 "$TMP/out")" top_events)"

# A script's executable is its interpreter, as the kernel ran it.
printf '#!/bin/sh\nexit 0\n' >"$TMP/s.sh"
chmod +x "$TMP/s.sh"
"$probe" /bin/sh -c "$TMP/s.sh; exit 0" >"$TMP/out6" 2>&1
expect_eq "a script child: named by its interpreter" "exe=/bin/sh exe=/bin/sh" \
	"$(grep '^proc ' "$TMP/out6" | sed 's/.* \(exe=[^ ]*\) .*/\1/' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "a script child: its argv" "argv=/bin/sh,$TMP/s.sh" \
	"$(grep '^proc ' "$TMP/out6" | sed -n '2s/.* \(argv=.*\)/\1/p')"

# 6 records a chunk: every process needs several; the events are the same.
"$probe" -c 256 "$tree" top "$TMP/log2" >"$TMP/out2" 2>&1
nevs() { sed -n 's/^proc .* nev=\([0-9]*\) .*/\1/p' "$1" | sort -n | tr '\n' ' '; }
expect_eq "small chunks: the same events per process" "$(nevs "$TMP/out")" "$(nevs "$TMP/out2")"
expect_eq "small chunks: none corrupt" 0 "$(grep -c 'corrupt=1' "$TMP/out2")"

# The preload's hooks: argv and the end come through the hook too.
"$probe" --preload "$tree" top "$TMP/log3" >"$TMP/out3" 2>&1
expect_eq "--preload: four images, all with argv and an end" 4 \
	"$(grep '^proc ' "$TMP/out3" | grep 'end=1 cpu=1' | grep -c 'argv=tree\|argv=.*/tree')"

# Three chunks in all: the top and the first two of six children record,
# four execs are counted lost, and the workload runs as ever.
"$probe" -b 10240 -c 2048 "$tree" chain "$TMP/log4" 6 >"$TMP/out4" 2>&1
expect_eq "tiny buffer: the workload succeeds" "run status=0" "$(cut -d' ' -f1,2 "$TMP/out4" | head -n 1)"
expect_eq "tiny buffer: three recorded" 3 "$(grep -c '^proc .* corrupt=0 .*ok=1' "$TMP/out4")"
expect_eq "tiny buffer: four lost" "lost_execs=4" "$(sed -n 2p "$TMP/out4")"
expect_eq "tiny buffer: every process ran" 7 "$(wc -l <"$TMP/log4" | tr -d ' ')"

# No fd of ldprof's reaches any process, even through a static top process
# that no shim enters: the buffer is reopened by path.
"$FIXTURES/follow-shim/static-ls" "$TMP/plain-fds"
"$probe" "$FIXTURES/follow-shim/static-ls" "$TMP/fds" >"$TMP/out5" 2>&1
expect_eq "the workload's fds are as without ldprof" "$(cat "$TMP/plain-fds")" "$(cat "$TMP/fds")"
expect_eq "ls recorded, its static parent not" "1 0" \
	"$(grep -c '^proc .*corrupt=0 .*ok=1 first=1' "$TMP/out5") $(field "$(head -n 1 "$TMP/out5")" attached)"
# Without /proc a System V segment, attached by id, still reaches every
# process; without System V IPC too no process could reopen the memfd by
# its path, and the launcher says so before it runs anything (where a
# mount namespace of our own can be had).
case " ${LDPROF_MAKE_ARGS:-} " in
*" ASAN=1 "*) sanitized=1 ;;
*) sanitized=0 ;;
esac
if [ $sanitized = 1 ]; then
	skip "no /proc: a sanitized probe's runtime needs /proc itself"
	skip "no /proc: a sanitized probe's runtime needs /proc itself"
	skip "no /proc: a sanitized probe's runtime needs /proc itself"
elif unshare -m true 2>/dev/null; then
	unshare -m sh -c 'umount -l /proc && exec "$@"' sh "$probe" "$tree" leaf "$TMP/log7" \
		>"$TMP/out7" 2>&1
	check "no /proc: the segment needs none, the leaf is recorded" grep -q '^proc .* ok=1 ' "$TMP/out7"
	LD_PRELOAD=$FIXTURES/follow-shim/no-sysv.so unshare -m sh -c 'umount -l /proc && exec "$@"' \
		sh "$probe" "$tree" leaf "$TMP/log8" >"$TMP/out8" 2>&1
	check "no /proc, no System V IPC: an error, and the workload never started" \
		test $? -ne 0 -a ! -e "$TMP/log8"
	check "no /proc, no System V IPC: it says why" \
		grep -q "cannot be reopened by /proc/[0-9]*/fd/[0-9]*: .*-f needs /proc" "$TMP/out8"
else
	skip "no /proc: unshare -m is not allowed here"
	skip "no /proc: unshare -m is not allowed here"
	skip "no /proc: unshare -m is not allowed here"
fi

# Threads racing for a process's next chunk: one claim is installed, the
# loser's stays blank, every record lands once and in its thread's order.
out=$("$FIXTURES/follow-shim/race")
check "racing threads: $out" test "${out%% *}" = ok
done_testing
