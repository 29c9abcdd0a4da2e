#!/bin/sh
# Run every shell test (tests/t*.sh, or those given) and summarise. Each test
# prints TAP; a test fails if it exits non-zero or prints "not ok".
set -u
cd "$(dirname "$0")/.." || exit 2
out=build/tests/out
mkdir -p "$out"
failed=""
total=0
start=$(date +%s)
if [ $# -eq 0 ]; then
	set -- tests/t*.sh
fi
for t in "$@"; do
	name=$(basename "$t" .sh)
	total=$((total + 1))
	t0=$(date +%s)
	if sh "$t" >"$out/$name.log" 2>&1 && ! grep -q '^not ok' "$out/$name.log"; then
		status=ok
	else
		status=FAIL
		failed="$failed $name"
	fi
	n=$(grep -c '^ok' "$out/$name.log")
	printf '%-4s %-40s %3s checks %4ss\n' "$status" "$name" "$n" "$(($(date +%s) - t0))"
	if [ "$status" = FAIL ]; then
		grep -v '^ok' "$out/$name.log" | sed 's/^/    /' | head -40
	fi
done
echo "$total test scripts in $(($(date +%s) - start))s"
if [ -n "$failed" ]; then
	echo "FAILED:$failed (logs in $out/)"
	exit 1
fi
