#!/bin/sh
# The phases cover the whole run: their medians add up to the median total
# within 3%, every phase is measured, and each run's status is reported.
. "$(dirname "$0")/lib.sh"

for prog in "$TOP/samples/sh.dynamic $TOP/samples/foo" "/bin/bash -c exit" \
	"$FIXTURES/run-relocs/prog"; do
	# shellcheck disable=SC2086
	"$LDPROF" -n 150 --no-overhead --json $prog >"$TMP/j" 2>"$TMP/e"
	name=$(echo "$prog" | awk '{ n = split($1, p, "/"); print p[n] }')
	sum=$(json_get "$TMP/j" '["phase_sum_us"]')
	total=$(json_get "$TMP/j" '["total_us"]["median"]')
	within "$name: phase medians add up to the total" "$sum" "$total" 0.001
	expect_eq "$name: all six phases measured" "exec load relocate init main exit" \
		"$(json_eval "$TMP/j" "' '.join(p['name'] for p in d['phases'] if p['median_us'] is not None and p['median_us'] > 0)")"
	expect_eq "$name: in each run the phases add up to the run's total (to 0.1 us)" true \
		"$(json_eval "$TMP/j" "all(abs(sum(r['phases_us']) - r['total_us']) < 0.1 for r in d['per_run'])")"
	expect_eq "$name: every run valid" "$(json_get "$TMP/j" '["runs"]')" \
		"$(json_get "$TMP/j" '["valid_runs"]')"
	expect_eq "$name: CI brackets the median" True \
		"$(json_eval "$TMP/j" "all(p['median_us_ci95'][0] <= p['median_us'] <= p['median_us_ci95'][1] for p in d['phases'])" | sed 's/true/True/')"
done
# The relocation-heavy library gets the relocation time.
expect_eq "librelocs.so has the largest reloc_us" librelocs.so \
	"$(json_eval "$TMP/j" "max(d['libraries'], key=lambda l: l['reloc_us'] or 0)['path'].rsplit('/', 1)[1]")"
expect_eq "its relocations are counted from the file" 22000 \
	"$(json_eval "$TMP/j" "[l['relocations']['relative'] + l['relocations']['symbolic'] for l in d['libraries'] if l['path'].endswith('librelocs.so')][0] // 1000 * 1000")"
done_testing
