#!/bin/sh
# The static-link estimate, checked against pairs of static and dynamic
# builds on 200 runs (Debian's on 1000), to 50% (make bench prints them
# against the 15% goal on 1000 runs):
#
# - one source built both ways, where the estimate's premises hold: the
#   sample shell, and a program linking one synthetic library that is
#   relative-heavy, symbol-heavy or page-heavy (usually within 18%; the
#   page-heavy pair reached -34% on a loaded machine, where faults cost more);
# - Debian's bash/bash-static, zsh/zsh-static and busybox/busybox-static
#   (the dynamic busybox as make bench unpacks it), when installed:
#   separate builds, whose static start and dynamic main() cost what the
#   estimate models only in part (docs/model.md).
#
# A pair also passes when the two CIs overlap and the measured difference's
# own CI is wider than the bound (a machine too busy to measure it better).
. "$(dirname "$0")/lib.sh"

# The estimate needs this machine's figures.
use_calibration
check "calibrated" test -s "$LDPROF_CALIBRATION"

# validate BOUND_PCT 'STATIC|DYNAMIC|ARGS' [RUNS]: 200 runs unless told,
# measured again when a measurement misses, up to three times, 20 s and
# then 40 s later (the machine's states last minutes), the third with a
# fresh calibration (fresh_calibration, lib.sh): load on a shared machine
# moves the two builds' costs unequally (bash's error ranged +9% to +60%
# over eight measurements in a row on a busy machine). All three must
# miss. Debian's pairs take 1000 runs (4.5 s each): their two builds'
# runs spread wider. With another tenant streaming through the shared
# cache, bash's error at 200 runs ranged +20% to +159% in seven
# measurements, at 1000 runs +19.7% to +45.5% in seven, and +68% to +99%
# in the six of two make checks that missed (docs/model.md: a static
# build's own start, Known limits). Most of that was compare's order of
# runs, bash-static's timed run after two of dynamic bash's; with a lead
# run of its own first, bash came out +5.7%, +1.0% and -0.1% (docs/model.md,
# "Each timed run after a run of its own program").
#
# A fourth argument, separate, marks Debian's pairs (two builds, not one
# source built twice). When one of them misses all three times and each
# time the shared cache was contended in most of the runs (validate-verdict's
# note: another tenant streaming through it), the check is a skip that
# gives the three errors: in that state bash's measured saving moved
# between 128 and 280 us from one 1000-run measurement to the next, minutes
# apart (docs/model.md, Known limits), so the pair cannot be judged. The
# same-source pairs are held to the bound in any state.
validate()
{
	dyn=$(echo "$2" | cut -d'|' -f2)
	st=$(echo "$2" | cut -d'|' -f1)
	runs=${3:-200}
	contended=yes errors=
	if [ ! -x "$st" ] || [ ! -x "$dyn" ]; then
		skip "$st is not installed"
		return
	fi
	for try in 1 2 3; do
		# Later, on a miss: the machine's states last minutes.
		[ "$try" -gt 1 ] && sleep $((20 * (try - 1)))
		[ "$try" -eq 3 ] && fresh_calibration
		# The fixed cost measured beside each pair (validate-verdict -F) in
		# 100 rounds, the fewest a calibrated run makes: with as many as the
		# pairs' runs (1000 for Debian's) the test took a minute longer.
		if LDPROF=$LDPROF "$TOP/tools/validate-verdict" -n "$runs" -F 100 -t "$1" -c "$2" >"$TMP/v" 2>&1; then
			row=$(grep -v -e '^model error' -e '^note:' "$TMP/v" | tail -n 1)
			ok "$(basename "$dyn"): predicted vs measured saving within $1%, error $(echo "$row" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/) e = $i; print e }') (measurement $try)"
			diag "$row"
			return
		fi
		sed 's/^/# /' "$TMP/v"
		grep -q '^note: .*shared cache was contended' "$TMP/v" || contended=no
		row=$(grep -v -e '^model error' -e '^note:' "$TMP/v" | tail -n 1)
		errors="$errors $(echo "$row" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/) e = $i; print e }')"
	done
	if [ "${4:-}" = separate ] && [ "$contended" = yes ]; then
		skip "$(basename "$dyn"): off by more than $1% in three measurements ($errors), each with the shared cache contended in most runs: not judged in that state (docs/model.md, Known limits)"
		return
	fi
	not_ok "$(basename "$dyn"): the estimate is off by more than $1% in three measurements ($errors)"
}

M=$LDPROF_FIXTURES/model-base
# Its libraries in the calibration's page-cache state (settle_dir, lib.sh);
# validate-verdict settles each pair's two programs.
settle_dir "$M"
validate 50 "$TOP/samples/sh.static|$TOP/samples/sh.dynamic|$TOP/samples/foo"
for lib in rel sym page; do
	validate 50 "$M/static-$lib|$M/with-$lib|"
done
validate 50 "$M/static-cxx|$M/dyn-cxx|"
validate 50 "/bin/bash-static|/bin/bash|-c exit" 1000 separate
validate 50 "/bin/zsh-static|/bin/zsh|-c exit" 1000 separate
validate 50 "/bin/busybox|${LDPROF_BUILD:-$TOP/build}/bench/busybox-dyn/bin/busybox|sh -c exit" 1000 separate

# The C++ pair, throwing once: a static build's first unwind sorts its FDEs
# (crtbeginT registers its whole .eh_frame), half a millisecond here,
# which the verdict subtracts. The measured difference must come within
# 50% of the verdict, as the pairs above, or its CI meet the verdict's interval (the old
# verdict, which never subtracted it, said 638 [555, 722] against 346
# measured, +84%), in one of three measurements spaced as validate's are:
# the saving is the difference of two terms near a millisecond each, the
# dynamic side's measured in the run and the sort priced by the
# calibration. In a fresh-clone CI run three measurements back to back all
# missed (the last 820 [653, 987] against 387 measured); here, minutes
# apart, the same pair measured 365 to 874, each within its interval.
for try in 1 2 3; do
	[ "$try" -gt 1 ] && sleep $((20 * (try - 1)))
	[ "$try" -eq 3 ] && fresh_calibration
	"$LDPROF" compare -n 200 --json "$M/static-cxx" "$M/dyn-cxx" -- throw >"$TMP/cxx.json"
	inside=$(json_eval "$TMP/cxx.json" "d['b']['verdict']['ci95'][0] <= d['diff_us']['ci95'][1] and d['diff_us']['ci95'][0] <= d['b']['verdict']['ci95'][1] or abs(d['b']['verdict']['static_link_saved_us'] - d['diff_us']['median']) <= 0.5 * abs(d['diff_us']['median'])")
	# Each try's figures, so that a miss says which part moved.
	diag "try $try: $(json_eval "$TMP/cxx.json" "'predicted %.0f [%.0f, %.0f], measured %.0f [%.0f, %.0f], %s; parts %s; FDEs sorted %s of %s' % (d['b']['verdict']['static_link_saved_us'], *d['b']['verdict']['ci95'], d['diff_us']['median'], *d['diff_us']['ci95'], d['b']['verdict']['judgement'], ' '.join('%s %.0f' % kv for kv in d['b']['verdict']['parts_us'].items()), d['b']['verdict'].get('static_fdes_erratic_kept'), d['b']['verdict'].get('static_fdes_erratic'))"); the sort price $(json_eval "$TMP/cxx.json" "'%.4f measured after the runs' % d['b']['verdict']['unwind_price_us'] if d['b']['verdict']['unwind_price_now'] else 'not measured'"), the calibration's $(awk '$1 == "fde_sort_us" { print $2 }' "$LDPROF_CALIBRATION") us per n log n"
	[ "$inside" = true ] && break
done
expect_eq "dyn-cxx throw: the measured saving within 50% of the verdict or meeting its interval" true "$inside"
expect_eq "dyn-cxx throw: the first unwind is subtracted" true \
	"$(json_eval "$TMP/cxx.json" "d['b']['verdict']['parts_us']['static_first_unwind'] < 0")"
# It unwound, and the machine is calibrated: the sort's price is measured
# after the runs (calibrate's unwind pair, run again), in place of the
# calibration's, which the JSON keeps; a program that does not unwind
# keeps the calibration's.
expect_eq "dyn-cxx throw: the sort priced after the runs, the calibration's price kept beside" true \
	"$(json_eval "$TMP/cxx.json" "d['b']['verdict']['unwind_price_now'] and d['b']['verdict']['unwind_price_us'] > 0 and abs(d['b']['verdict']['unwind_price_calibrated_us'] - $(awk '$1 == "fde_sort_us" { print $2 }' "$LDPROF_CALIBRATION")) < 1e-6")"

# The FDEs it counts are readelf's, and the out-of-order ones those of
# libgcc's split replayed on readelf's list (objects but ld.so and the vDSO).
for f in "$M/dyn-cxx" $(ldd "$M/dyn-cxx" | awk '$3 ~ /^\// && $1 !~ /^ld-linux/ { print $3 }'); do
	readelf --debug-dump=frames "$f" | awk '/^Contents of the/ { on = /\.eh_frame section/ } on'
done >"$TMP/frames"
expect_eq "dyn-cxx: its objects' FDEs, as readelf counts them" "$(grep -c ' FDE cie=' "$TMP/frames")" \
	"$(json_eval "$TMP/cxx.json" "d['b']['verdict']['static_fdes']")"
"$LDPROF" -n 3 --json "$M/dyn-cxx" throw >"$TMP/cxx-run.json"
# The static build's FDEs, as the replay of its link through libc.a,
# libstdc++.a and libgcc*.a predicts them: its own objects' and the
# runtime members' (readelf on static-cxx itself: 3237; predicted 3241).
own=$(for f in "$M/dyn-cxx" "$M/libcxx.so"; do readelf --debug-dump=frames "$f"; done | grep -c ' FDE cie=')
real=$(readelf --debug-dump=frames "$M/static-cxx" | awk '/^Contents of the/ { on = /\.eh_frame section/ } on' | grep -c ' FDE cie=')
kept=$(json_eval "$TMP/cxx-run.json" "d['verdict'].get('static_fdes_runtime_kept', 0)")
if [ -r /usr/lib/x86_64-linux-gnu/libc.a ]; then
	expect_eq "static-cxx: its FDEs as the archive replay predicts them, within 10% ($own + $kept against $real)" true \
		"$(python3 -c "print(str(abs($own + $kept - $real) <= 0.1 * $real).lower())")"
else
	skip "no libc.a to replay a static link with"
fi
# The FDEs libgcc's fde_split leaves out of order, in each object's .eh_frame as readelf lists it.
erratic_fdes() {
	python3 -c '
import re, sys
objs = re.split(r"Contents of the .eh_frame section", open(sys.argv[1]).read())
erratic = 0
for o in objs:
	chain = []
	for pc in re.findall(r" FDE cie=\w+ pc=([0-9a-f]+)\.\.", o):
		pc = int(pc, 16)
		while chain and pc < chain[-1]:
			chain.pop()
			erratic += 1
		chain.append(pc)
print(erratic)' "$1"
}
expect_eq "dyn-cxx: the FDEs out of order, as libgcc's fde_split leaves them" "$(erratic_fdes "$TMP/frames")" \
	"$(json_eval "$TMP/cxx-run.json" "d['verdict']['static_fdes_erratic']")"
# A static build's erratic FDEs (readelf on STATIC) against the replay's
# count in RUN_JSON, within 3%: expect_replayed LABEL STATIC RUN_JSON.
expect_replayed() {
	readelf --debug-dump=frames "$2" | awk '/^Contents of the/ { on = /\.eh_frame section/ } on' >"$TMP/replayed-frames"
	real=$(erratic_fdes "$TMP/replayed-frames")
	kept=$(json_eval "$3" "d['verdict']['static_fdes_erratic_kept']")
	expect_eq "$1, within 3% ($kept against $real)" true \
		"$(python3 -c "print(str(abs($kept - $real) <= 0.03 * $real).lower())")"
}

# Linked as one image, all but the cold FDEs go erratic: the replay's
# count against static-cxx's own (3134 against 3141; each object's
# erratic share had put it at 2755).
if [ -r /usr/lib/x86_64-linux-gnu/libc.a ]; then
	expect_replayed "static-cxx: its erratic FDEs as the replay predicts them" "$M/static-cxx" "$TMP/cxx-run.json"
else
	skip "no libc.a to replay a static link with"
fi

# A library outside the runtime whose archive is installed (libzstd.a) is
# replayed as an archive too: a static link keeps only the members it
# needs (counted whole, libzstd's 810 FDEs put the pair's at 3047 against
# 2461; replayed, 2463).
if [ -r /usr/lib/x86_64-linux-gnu/libc.a ] && [ -r /usr/lib/x86_64-linux-gnu/libzstd.a ]; then
	"$LDPROF" -n 3 --json "$M/dyn-zstd" throw >"$TMP/zstd-run.json"
	expect_replayed "static-zstd: its erratic FDEs as the replay through libzstd.a predicts them" \
		"$M/static-zstd" "$TMP/zstd-run.json"
else
	skip "no libc.a or libzstd.a to replay a static link with"
fi

# A C++ archive repeats its template instances member after member (libinl.a:
# 602 FDEs, 300 of them copies), and ld keeps one copy of each COMDAT
# group: the replay counts each once (2032 FDEs against 2034; counting
# every member's, 2332).
if [ -r /usr/lib/x86_64-linux-gnu/libc.a ]; then
	"$LDPROF" -n 3 --json "$M/dyn-inl" throw >"$TMP/inl-run.json"
	expect_replayed "static-inl: its erratic FDEs, each COMDAT group's counted once" \
		"$M/static-inl" "$TMP/inl-run.json"
else
	skip "no libc.a to replay a static link with"
fi

# A recorded trace carries the static side: report's verdict subtracts the
# same first unwind, at the price measured when it was recorded.
"$LDPROF" record -n 3 -o "$TMP/cxx.trace" "$M/dyn-cxx" throw >/dev/null 2>&1
"$LDPROF" report --json "$TMP/cxx.trace" >"$TMP/cxx-report.json"
expect_eq "report of a recorded throw: the same FDEs, the unwind subtracted at a price measured after the runs" \
	"$(json_eval "$TMP/cxx-run.json" "'%d %d True' % (d['verdict']['static_fdes'], d['verdict']['static_fdes_erratic'])")" \
	"$(json_eval "$TMP/cxx-report.json" "'%d %d %s' % (d['verdict']['static_fdes'], d['verdict']['static_fdes_erratic'], d['verdict']['parts_us']['static_first_unwind'] < 0 and d['verdict']['unwind_price_now'])")"

# -s stores the pairs' RMS error with the calibration (a copy of it here).
cp "$LDPROF_CALIBRATION" "$TMP/cal"
LDPROF_CALIBRATION=$TMP/cal LDPROF=$LDPROF "$TOP/tools/validate-verdict" -n 30 -t 100 -s -k "$TMP/keep" \
	"$TOP/samples/sh.static|$TOP/samples/sh.dynamic|$TOP/samples/foo" >"$TMP/vs" 2>&1
check "validate-verdict -s prints the model's error" grep -Eq "^model error over 1 pairs: RMS [0-9.]+% \([0-9.]+ us\)$" "$TMP/vs"
# -k keeps the pair's compare JSON, whose verdict is the row's prediction.
expect_eq "validate-verdict -k keeps the pair's compare JSON, the row's prediction in it" \
	"$(awk '$1 == "sh.dynamic" { print $3 }' "$TMP/vs")" \
	"$(json_eval "$TMP/keep/01-sh.dynamic.json" "'%.1f' % d['b']['verdict']['static_link_saved_us']")"
rc=0
LDPROF=$LDPROF "$TOP/tools/validate-verdict" -k /proc/self/no-such-dir "a|b|" >"$TMP/vk" 2>&1 || rc=$?
expect_eq "a -k directory that cannot be made: exit 2, before any run" "2 1" \
	"$rc $(grep -c 'validate-verdict: -k /proc/self/no-such-dir: cannot create the directory' "$TMP/vk")"
rms=$(sed -n 's/^model error over 1 pairs: RMS \([0-9.]*\)% (\([0-9.]*\) us)$/\1 \2/p' "$TMP/vs")
err=$(sed -n 's/^sh\.dynamic .*  *\([-+][0-9.]*\)% [a-z].*/\1/p' "$TMP/vs")
expect_eq "and how many pairs were within the tolerance, as the row's error says" \
	"$(awk -v e="$err" 'BEGIN { print (e <= 100 && -e <= 100) ? 1 : 0 }') of 1 pairs within +-100%" \
	"$(grep ' pairs within ' "$TMP/vs")"
expect_eq "and stores it with the calibration" "$rms" \
	"$(awk '$1 == "verdict_error" { printf "%.1f %.1f", $2, $3 }' "$TMP/cal")"

# The verdict's shape: a saving with its CI, per-library parts, ranked advice.
"$LDPROF" -n 20 --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j"
expect_eq "sh.dynamic does not unwind: the calibration's sort price" "false $(awk '$1 == "fde_sort_us" { printf "%.6g", $2 }' "$LDPROF_CALIBRATION")" \
	"$(json_eval "$TMP/j" "'%s %.6g' % (str(d['verdict']['unwind_price_now']).lower(), d['verdict']['unwind_price_us'])")"
expect_eq "the verdict has a CI around it" true \
	"$(json_eval "$TMP/j" "d['verdict']['ci95'][0] <= d['verdict']['static_link_saved_us'] <= d['verdict']['ci95'][1]")"
expect_eq "each library's part is there" true \
	"$(json_eval "$TMP/j" "all(l['static_link_saved_us'] >= 0 for l in d['libraries'] if l['role'] == 'library')")"
expect_eq "advice is ranked by saving, linking statically first" "link statically" \
	"$(json_eval "$TMP/j" "d['advice'][0]['what']")"
expect_eq "advice is sorted" true \
	"$(json_eval "$TMP/j" "all(a['saved_us'] >= b['saved_us'] for a, b in zip(d['advice'], d['advice'][1:]))")"
expect_eq "the saving is what its parts add up to" true \
	"$(json_eval "$TMP/j" "abs(sum(d['verdict']['parts_us'].values()) - d['verdict']['static_link_saved_us']) < 0.01")"
expect_eq "the judgement follows the interval, and only a saving is advised" true \
	"$(json_eval "$TMP/j" "(d['verdict']['judgement'] == 'saves') == (d['verdict']['ci95'][0] > 0) == any(a['what'] == 'link statically' for a in d['advice'])")"
expect_eq "each library has its exit path (libc's is the fixed cost's) and its lazy binding" true \
	"$(json_eval "$TMP/j" "all((l['exit_path_us'] > 0) != l['soname'].startswith('libc.so.') and l['lazy_binds'] >= 0 and l['lazy_us'] >= 0 for l in d['libraries'] if l['role'] == 'library')")"
expect_eq "the shell's lazy binding after startup is counted and priced" true \
	"$(json_eval "$TMP/j" "[l['lazy_binds'] > 0 and l['lazy_us'] > 0 for l in d['libraries'] if l['role'] == 'executable'] == [True] and d['verdict']['parts_us']['lazy_binding'] > 0")"
# Each IFUNC the static build resolves that libc does not resolve for
# itself is one more resolver call at the calibrated price (which a fit
# may put at 0: 0 to 0.02 us on these machines).
expect_eq "the static build's own start is subtracted: its extra IFUNCs at the calibrated price" true \
	"$(json_eval "$TMP/j" "d['verdict']['static_ifunc_extra'] > 0 and abs(d['verdict']['parts_us']['static_own_start'] + d['verdict']['static_ifunc_extra'] * d['reloc_model']['coef_us']['ifunc']) < 1e-6")"
"$LDPROF" -n 10 "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/t"
check "text: the verdict line" grep -Eq "linking statically would save ≈ [0-9.]+ (µs|ms) per exec \(±" "$TMP/t"
check "text: what the saving adds up" grep -q "sheds being dynamic .* pays its own start" "$TMP/t"
check "text: no note that lazy binding is not counted" sh -c "! grep -q 'do not count' '$TMP/t'"
done_testing
