#!/bin/sh
# The shim's page faults: at most one more per run than the floor, the
# minimal audit module laid out as the shim is (bench/min-audit-ro.lds),
# which costs only what loading any audit module costs (docs/design.md,
# "what the shim costs", has the table fault by fault). Faults are counts,
# stable from run to run, so medians over a few dozen interleaved runs
# compare exactly; the report's own figure is held to the same bound.
. "$(dirname "$0")/lib.sh"

ab=${LDPROF_BUILD:-$TOP/build}/bench/abexec
floor=${LDPROF_BUILD:-$TOP/build}/bench/min-audit-ro.so
shim=$TOP/preload/ldprof-audit.so

# minflt median of variant $2 in abexec's table $1
minflt() {
	awk -v v="$2" -F'  +' '$1 == v { n = split($0, f, " "); print f[n] }' "$1"
}

for prog in "$TOP/samples/sh.dynamic $TOP/samples/foo" "/bin/bash -c exit"; do
	name=${prog%% *}
	name=${name##*/}
	"$ab" -n 40 -w 3 "plain|-|$prog" "floor|LD_AUDIT=$floor|$prog" \
		"shim|LD_AUDIT=$shim LDPROF_SHM=auto|$prog" >"$TMP/ab" 2>&1
	p=$(minflt "$TMP/ab" plain)
	f=$(minflt "$TMP/ab" floor)
	s=$(minflt "$TMP/ab" shim)
	check "$name: abexec gives the three medians ($p, $f, $s)" test -n "$p" -a -n "$f" -a -n "$s"
	check "$name: loading any audit module costs a fault or more ($f vs $p plain)" \
		awk -v p="$p" -v f="$f" 'BEGIN { exit !(f >= p + 1) }'
	check "$name: the shim adds at most one fault to the floor's ($s vs $f)" \
		awk -v f="$f" -v s="$s" 'BEGIN { exit !(s <= f + 1) }'
done

"$LDPROF" -n 40 --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j"
of=$(json_get "$TMP/j" '["overhead_minflt"]')
"$ab" -n 40 -w 3 "plain|-|$TOP/samples/sh.dynamic $TOP/samples/foo" \
	"floor|LD_AUDIT=$floor|$TOP/samples/sh.dynamic $TOP/samples/foo" >"$TMP/ab" 2>&1
d=$(awk -v p="$(minflt "$TMP/ab" plain)" -v f="$(minflt "$TMP/ab" floor)" 'BEGIN { print f - p }')
check "the report's overhead faults ($of) are the floor's ($d) plus at most one" \
	awk -v o="$of" -v d="$d" 'BEGIN { exit !(o != "" && o <= d + 1.5) }'
done_testing
