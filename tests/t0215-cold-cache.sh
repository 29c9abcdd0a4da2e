#!/bin/sh
# --cold-cache (analyzer/base/cacheevict.h): the CPU caches are emptied
# before each run, so a small C++ program's relocation, whose tables stay
# cached back to back, takes longer; the reports, JSON and trace files say
# the runs were made so; the program's exit status and output pipe are as
# without it. tests/unit/cacheevict_test.c checks the eviction itself.
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/model-base/base-cxx
relocate() {
	json_eval "$1" "[p['median_us'] for p in d['phases'] if p['name'] == 'relocate'][0]"
}

# Back to back, libstdc++'s tables stay in the shared cache (ninja
# --version: 396 against 673 us, docs/model.md). Five tries: on a machine
# whose shared cache another tenant streams through, both read from memory
# (691 against 626 us once, 801 to 875 against 617 to 706 minutes apart).
# A miss waits longer each time (5 to 20 s): such a state lasts seconds to
# minutes, and tries back to back would all fall in one.
for try in 1 2 3 4 5; do
	[ $try = 1 ] || sleep $((5 * (try - 1)))
	"$LDPROF" run -n 20 -w 2 --json "$prog" >"$TMP/warm.json" 2>"$TMP/warm.err"
	"$LDPROF" run -n 20 -w 2 --cold-cache --json "$prog" >"$TMP/cold.json" 2>"$TMP/cold.err"
	warm=$(relocate "$TMP/warm.json")
	cold=$(relocate "$TMP/cold.json")
	awk -v c="$cold" -v w="$warm" 'BEGIN { exit !(c > 1.15 * w) }' && break
done
check "relocation with the caches emptied is slower ($cold us against $warm us back to back; try $try)" \
	awk -v c="$cold" -v w="$warm" 'BEGIN { exit !(c > 1.15 * w) }'
expect_eq "the JSON says the caches were emptied" true "$(json_eval "$TMP/cold.json" "d['cold_cache']")"
expect_eq "and says so only then" false "$(json_eval "$TMP/warm.json" "d['cold_cache']")"
check "no warning on stderr" test ! -s "$TMP/cold.err"

# One sweep before every run, warmup and plain runs included (strace, the oracle).
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=sendto -o "$TMP/strace" "$LDPROF" run -n 3 -w 1 --cold-cache "$prog" \
		>/dev/null 2>&1
	expect_eq "one sweep asked for before each of the 8 runs" 8 \
		"$(grep -c 'sendto(.*"S", 1, MSG_NOSIGNAL' "$TMP/strace")"
else
	skip "strace is not installed (tools/install-deps)"
fi

"$LDPROF" run -n 3 -w 0 --cold-cache sh -c 'exit 3' >"$TMP/exit.txt" 2>&1
check "the program's exit status is reported as without it" grep -q "exit status 3 in every run" "$TMP/exit.txt"
check "the text report's header says the caches were emptied" \
	grep -q "CPU caches emptied before each" "$TMP/exit.txt"

# The helper (ldprof-evict) holds no descriptor but /dev/null and its socket.
# Ours, of the helpers other tests may be running: it inherits ldprof's environment.
mark="t0215-$$"
T0215_MARK=$mark "$LDPROF" run -n 400 -w 0 --cold-cache "$prog" >"$TMP/long.txt" 2>"$TMP/long.err" &
long=$!
helper=
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	for pid in $(pgrep -x ldprof-evict); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "T0215_MARK=$mark" && helper=$pid
	done
	[ -n "$helper" ] && break
	sleep 0.1
done
check "the helper runs under its own name" test -n "$helper"
# Which number the socket has depends on what ldprof held when it started
# the helper (its Ctrl-C pipe, ...): the kinds are what matter.
fds=$(for fd in $(find "/proc/$helper/fd" -mindepth 1 -printf '%f\n' 2>/dev/null | sort -n); do
	case $fd in
	0 | 1 | 2) printf '%s ' "$fd" ;;
	*) readlink "/proc/$helper/fd/$fd" | sed 's/:.*/ /' | tr -d '\n' ;;
	esac
done)
expect_eq "its descriptors: the three standard ones and its socket" "0 1 2 socket " "$fds"
expect_eq "the standard ones are /dev/null" "/dev/null /dev/null /dev/null" \
	"$(readlink "/proc/$helper/fd/0" "/proc/$helper/fd/1" "/proc/$helper/fd/2" | tr '\n' ' ' | sed 's/ $//')"
# Killed mid-session (the OOM killer's first choice), it ends the runs as
# Ctrl-C does: the report covers the runs made before, and says why. After
# a second: before the first counted run, there is nothing to report.
sleep 1
kill -KILL "$helper" 2>/dev/null
wait "$long"
check "a killed helper: ldprof still reports (status $?)" grep -q "CPU caches emptied" "$TMP/long.txt"
check "and says the runs stopped there" grep -q "^ldprof: --cold-cache: the cache evictor stopped" "$TMP/long.err"
check "the report covers the runs made before" grep -q "interrupted: the report covers the" "$TMP/long.txt"

# Started with its standard descriptors closed, ldprof still empties the caches.
"$LDPROF" run -n 3 -w 0 --cold-cache --json -o "$TMP/closed.json" "$prog" <&- >&- 2>&-
check "with fds 0-2 closed it runs (status $?)" test -s "$TMP/closed.json"

"$LDPROF" record -n 3 -w 0 --cold-cache -o "$TMP/cold.ldprof" "$prog" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/cold.ldprof" >"$TMP/report.json"
expect_eq "a trace file keeps it" true "$(json_eval "$TMP/report.json" "d['cold_cache']")"
"$LDPROF" record -n 3 -w 0 -o "$TMP/warm.ldprof" "$prog" >/dev/null 2>&1
"$LDPROF" diff "$TMP/warm.ldprof" "$TMP/cold.ldprof" >"$TMP/diff.txt" 2>&1
check "diff says when one trace's runs emptied the caches and the other's did not" \
	grep -q "emptied the CPU caches before each (--cold-cache)" "$TMP/diff.txt"

# -f waits for every child ldprof has: the helper is none of them.
timeout 60 "$LDPROF" run -f -n 3 -w 0 --cold-cache --json sh -c "'$prog'; '$prog'" \
	>"$TMP/follow.json" 2>"$TMP/follow.err"
check "with -f the runs end (status $?)" test -s "$TMP/follow.json"
expect_eq "and the workload's JSON says the caches were emptied" true \
	"$(json_eval "$TMP/follow.json" "d['cold_cache']")"

"$LDPROF" compare -n 3 --cold-cache --json "$prog" "$prog" >"$TMP/cmp.json" 2>/dev/null
expect_eq "compare empties them before both sides' runs" "[true, true]" \
	"$(json_eval "$TMP/cmp.json" "[d['a']['cold_cache'], d['b']['cold_cache']]")"

# A calibration made with --cold-cache prices a first start: a report of
# runs made otherwise says so, and one of runs made so does not.
use_calibration
cp "$LDPROF_CALIBRATION" "$TMP/cold-calibration"
echo "cold_cache 1" >>"$TMP/cold-calibration"
LDPROF_CALIBRATION=$TMP/cold-calibration "$LDPROF" run -n 3 -w 0 --fixed-runs 0 --json "$prog" >"$TMP/mix.json" 2>/dev/null
expect_eq "runs back to back against a --cold-cache calibration get a note" true \
	"$(json_eval "$TMP/mix.json" "any('the calibration emptied the CPU caches' in n for n in d['notes'])")"
LDPROF_CALIBRATION=$TMP/cold-calibration "$LDPROF" run -n 3 -w 0 --cold-cache --fixed-runs 0 --json "$prog" \
	>"$TMP/same.json" 2>/dev/null
expect_eq "runs with --cold-cache against it do not" false \
	"$(json_eval "$TMP/same.json" "any('--cold-cache' in n for n in d['notes'])")"
LDPROF_CALIBRATION=$TMP/cold-calibration "$LDPROF" record -n 3 -w 0 --cold-cache --fixed-runs 0 -o "$TMP/same.ldprof" \
	"$prog" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/same.ldprof" >"$TMP/same-report.json"
expect_eq "nor does their trace file's report (the file keeps the calibration's state)" false \
	"$(json_eval "$TMP/same-report.json" "any('--cold-cache' in n for n in d['notes'])")"
expect_eq "whose JSON says the calibration emptied them too" true \
	"$(json_eval "$TMP/same-report.json" "d['reloc_model']['cold_cache']")"
done_testing
