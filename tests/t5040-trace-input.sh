#!/bin/sh
# report and diff read a trace only as far as its headers allow: /dev/zero,
# a pipe of garbage or of a valid header followed by zeros is refused at
# once (exit 2, "ldprof: FILE: WHY"), having read no more than a few KiB;
# a whole trace through a pipe reads as from the file.
. "$(dirname "$0")/lib.sh"

# bounded DESCRIPTION PATTERN ARGS...: exit 2 within 10 s, the reason named.
bounded() {
	desc=$1 pattern=$2
	shift 2
	timeout 10 "$LDPROF" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "^ldprof: .*$pattern" "$TMP/err"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "exit $st, stderr: $(head -c 300 "$TMP/err")"
	fi
}
bounded "report /dev/zero is refused at once" "/dev/zero: not an ldprof trace" report /dev/zero
bounded "report --json /dev/urandom too" "/dev/urandom: not an ldprof trace" \
	report --json /dev/urandom
"$LDPROF" record -n 3 -w 0 -o "$TMP/t.ldprof" "$FIXTURES/run-diamond/prog" 2>/dev/null
bounded "diff with /dev/zero as BEFORE" "/dev/zero: not an ldprof trace" \
	diff /dev/zero "$TMP/t.ldprof"
bounded "diff with /dev/zero as AFTER" "/dev/zero: not an ldprof trace" \
	diff "$TMP/t.ldprof" /dev/zero

# A writer that sends PREFIX bytes of the trace, then zeros until the reader
# stops; it writes down how many KiB of zeros it got out.
zeros_after() { # BYTES
	python3 -c '
import os, sys
out = sys.stdout.buffer
out.write(open(sys.argv[1], "rb").read(int(sys.argv[2])))
out.flush()
sent, zero = 0, bytes(1024)
try:
    while sent < (256 << 20):
        out.write(zero); out.flush(); sent += 1024
except BrokenPipeError:
    pass
open(sys.argv[3], "w").write(str(sent >> 10))
os._exit(0)' "$TMP/t.ldprof" "$1" "$TMP/sent"
}
for prefix in 32 64; do
	zeros_after $prefix | timeout 20 "$LDPROF" report /dev/stdin >/dev/null 2>"$TMP/err"
	st=$? sent=$(cat "$TMP/sent" 2>/dev/null)
	if [ $st -eq 2 ] && grep -q "damaged" "$TMP/err" && [ "${sent:-999999}" -lt 256 ]; then
		ok "a pipe of $prefix trace bytes, then zeros: refused ($sent KiB of zeros sent, the pipe's buffer)"
	else
		not_ok "a pipe of $prefix trace bytes, then zeros: refused at once"
		diag "exit $st, $sent KiB sent, stderr: $(head -c 300 "$TMP/err")"
	fi
done

"$LDPROF" report --json "$TMP/t.ldprof" >"$TMP/file.json" 2>&1
# shellcheck disable=SC2002
cat "$TMP/t.ldprof" | "$LDPROF" report --json /dev/stdin >"$TMP/pipe.json" 2>&1
expect_same "a trace through a pipe reads as from the file" "$TMP/file.json" "$TMP/pipe.json"
done_testing
