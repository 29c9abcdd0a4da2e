#!/bin/sh
# The relocation cost model, calibrated here, attributes to a library the
# relocation time it really adds: adding one synthetic library with known
# work to a program raises the measured relocate phase by the reloc_us
# ldprof gives that library, within 20%, for relative-heavy, symbol-heavy
# and page-heavy libraries and for a C++ library (long mangled names, weak
# definitions, typeinfo bound to libstdc++). When the machine is too busy
# to measure the difference that well, the attribution must at least lie
# within its CI. The compares empty the CPU caches before each run
# (--cold-cache): back to back, libstdc++'s tables stay in the shared cache
# or not as another tenant streams through it, and the C++ library's split
# then moved from within 8% to 30% short of the phase it adds (-23% to
# -29% with a fresh calibration); with the caches emptied it came out -7%
# to -10% in four compares, the other three within 12%. The calibration is
# make check's, made without --cold-cache (its runs interleaved, so that
# each program's tables are mostly evicted): the split divides the measured
# phase in the model's proportions, which its state moves much less than
# its absolute prices (a report notes the difference).
. "$(dirname "$0")/lib.sh"

use_calibration
check "a calibration is stored" grep -q '^ldprof-calibration 2$' "$LDPROF_CALIBRATION"
r2=$(awk '$1 == "r2" { print $2 }' "$LDPROF_CALIBRATION")
check "its fit explains the programs (R² $r2)" awk -v r="$r2" 'BEGIN { exit !(r > 0.9) }'
# The calibration's printout (make check's, or the one use_calibration
# made): the fit's quality and each program's residual. t0212 checks
# --dry-run and --keep on a calibration of its own.
check "calibrate prints the fit quality" grep -q "R² [01]\." "$LDPROF_CALIBRATION_LOG"
check "and each program's residual" grep -q "^  relative-4000 " "$LDPROF_CALIBRATION_LOG"
# agrees SPLIT DELTA "LO HI": within 20% of the added phase, or inside its
# CI when that CI is too wide to tell 20%.
agrees() {
	awk -v a="$1" -v d="$2" -v ci="$3" 'BEGIN {
		split(ci, c, " "); e = a - d; if (e < 0) e = -e
		exit !(e <= 0.2 * d || (c[2] - c[1] > 0.4 * d && a >= c[1] && a <= c[2])) }'
}
# The fixtures in the calibration's page-cache state (settle_dir, lib.sh).
settle_dir "$FIXTURES/model-base"
for kind in rel sym page cxx; do
	# The C++ library's base has libstdc++ already.
	base=$FIXTURES/model-base/base
	[ "$kind" = cxx ] && base=$FIXTURES/model-base/base-cxx
	# A miss is measured again, up to three times, the last with a fresh
	# calibration: a neighbour streaming through the shared cache during
	# one compare moves the added phase (the split was 20.3% short once in
	# a full make check, and within 8% run again), and one streaming for
	# minutes moves the calibration's prices (the C++ library's split 28%
	# short three times with make check's calibration).
	for try in 1 2 3; do
		[ "$try" -eq 3 ] && fresh_calibration
		"$LDPROF" compare --cold-cache --fixed-runs 0 --json -n 60 "$base" "$FIXTURES/model-base/with-$kind" -- \
			>"$TMP/$kind.json" 2>"$TMP/e"
		delta=$(json_eval "$TMP/$kind.json" "[p['diff_us']['median'] for p in d['phases'] if p['name'] == 'relocate'][0]")
		ci=$(json_eval "$TMP/$kind.json" "' '.join(str(x) for x in [p['diff_us']['ci95'] for p in d['phases'] if p['name'] == 'relocate'][0])")
		attributed=$(json_eval "$TMP/$kind.json" "[l['reloc_us'] for l in d['b']['libraries'] if l['path'].endswith('/lib$kind.so')][0]")
		desc="$kind-heavy: lib$kind.so's reloc_us ($attributed us) matches the relocate phase it adds ($delta us, CI $ci; try $try)"
		agrees "$attributed" "$delta" "$ci" && break
	done
	if agrees "$attributed" "$delta" "$ci"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
	expect_eq "$kind-heavy: the report used the calibrated model" true \
		"$(json_eval "$TMP/$kind.json" "d['b']['reloc_model']['calibrated']")"
done
expect_eq "the model's residual is reported" true \
	"$(json_eval "$TMP/page.json" "d['b']['reloc_model']['residual_us'] is not None")"

# --symbind: a BIND_NOW program's PLT binding is measured directly, and it
# is a part of what the model gives that object.
"$LDPROF" -n 20 --no-overhead --symbind --fixed-runs 0 --json /bin/bash -c exit >"$TMP/sb.json" 2>"$TMP/e"
sb=$(json_eval "$TMP/sb.json" "[l.get('symbind_us') for l in d['libraries'] if l['role'] == 'executable'][0]")
rl=$(json_eval "$TMP/sb.json" "[l['reloc_us'] for l in d['libraries'] if l['role'] == 'executable'][0]")
check "--symbind: bash's PLT binding is measured ($sb us of its $rl us reloc_us)" \
	awk -v s="$sb" -v r="$rl" 'BEGIN { exit !(s > 0 && s <= 1.2 * r) }'
done_testing
