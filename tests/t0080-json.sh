#!/bin/sh
# The ldprof-run/1 document has the fields docs/json.md promises, with
# consistent values.
. "$(dirname "$0")/lib.sh"

"$LDPROF" --json -n 12 "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
check "valid JSON" python3 -m json.tool "$TMP/j" >/dev/null
for f in schema command runs static total_us phases libraries overhead_us exit_status \
	plain_total_us valid_runs tsc_hz outcomes per_run notes phase_sum_us; do
	check "has $f" test "$(json_eval "$TMP/j" "'$f' in d")" = true
done
expect_eq "schema" ldprof-run/1 "$(json_get "$TMP/j" '["schema"]')"
expect_eq "command" '["'"$TOP"'/samples/sh.dynamic", "'"$TOP"'/samples/foo"]' \
	"$(json_get "$TMP/j" '["command"]')"
expect_eq "12 runs" 12 "$(json_get "$TMP/j" '["runs"]')"
expect_eq "12 per_run entries" 12 "$(json_eval "$TMP/j" "len(d['per_run'])")"
expect_eq "12 plain runs interleaved" 12 "$(json_get "$TMP/j" '["plain_runs"]')"
expect_eq "exit status 0" 0 "$(json_get "$TMP/j" '["exit_status"]')"
expect_eq "static false" false "$(json_get "$TMP/j" '["static"]')"
expect_eq "total has median, ci95[2], min, max" true \
	"$(json_eval "$TMP/j" "all(k in d['total_us'] for k in ('median','min','max')) and len(d['total_us']['ci95']) == 2")"
expect_eq "min <= median <= max" true \
	"$(json_eval "$TMP/j" "d['total_us']['min'] <= d['total_us']['median'] <= d['total_us']['max']")"
expect_eq "phases have name, median_us, ci95" true \
	"$(json_eval "$TMP/j" "all(set(('name','median_us','median_us_ci95')) <= set(p) for p in d['phases'])")"
expect_eq "libraries have the per-library fields" true \
	"$(json_eval "$TMP/j" "all(set(('path','soname','load_us','reloc_us','init_us','fini_us','total_us')) <= set(l) for l in d['libraries'])")"
expect_eq "libedit's soname" libedit.so.2 \
	"$(json_eval "$TMP/j" "[l['soname'] for l in d['libraries'] if 'libedit' in l['path']][0]")"
expect_eq "one executable, one loader" "1 1" \
	"$(json_eval "$TMP/j" "'%d %d' % (sum(l['role'] == 'executable' for l in d['libraries']), sum(l['role'] == 'loader' for l in d['libraries']))")"
# The median of the sums against the sum of the medians: over 12 runs on a
# machine whose page faults cost 10-15 us they came 13% apart (libedit).
expect_eq "per-library total = load + reloc + init + fini (medians, within 20%)" true \
	"$(json_eval "$TMP/j" "all(abs(l['total_us'] - sum(l[k] or 0 for k in ('load_us','reloc_us','init_us','fini_us'))) <= 0.2 * l['total_us'] + 1 for l in d['libraries'] if l['total_us'] is not None)")"
expect_eq "the overhead is the difference of the medians" true \
	"$(json_eval "$TMP/j" "abs(d['overhead_us'] - (d['total_us']['median'] - d['plain_total_us']['median'])) < 1e-6")"
expect_eq "each replayed object's model terms add up to its reloc_model_us" true \
	"$(json_eval "$TMP/j" "all(abs(sum(l['reloc_model_terms_us'].values()) - l['reloc_model_us']) <= 1e-6 * l['reloc_model_us'] + 1e-9 for l in d['libraries'] if 'reloc_model_us' in l)")"
expect_eq "libc's terms name the features the model prices it on, libc's own included" true \
	"$(json_eval "$TMP/j" "[set(l['reloc_model_terms_us']) <= set(d['reloc_model']['coef_us']) and 'libc' in l['reloc_model_terms_us'] for l in d['libraries'] if l['soname'] == 'libc.so.6'][0]")"
expect_eq "each term is its count times the count's calibrated price" true \
	"$(json_eval "$TMP/j" "all(abs(v - l['reloc_model_counts'][k] * d['reloc_model']['coef_us'][k]) <= 1e-9 + 1e-9 * v for l in d['libraries'] if 'reloc_model_us' in l for k, v in l['reloc_model_terms_us'].items())")"
# The counts against ldprof deps, which reads them from the files by
# another path (the report's come from the trace the run wrote).
"$LDPROF" deps --json "$TOP/samples/sh.dynamic" >"$TMP/deps" 2>"$TMP/deps.err"
# The pages the model prices are the copy-on-write faults, those loading
# has not written already (pages_faulted); none of ld.so's, which it wrote
# relocating itself before the audit module loaded.
expect_eq "every object's relative relocations and pages faulted are deps's" true \
	"$(python3 -c 'import json, os, sys
run, deps = (json.load(open(f)) for f in sys.argv[1:3])
objs = [o for o in deps["files"][0]["objects"] if o.get("path") and o.get("facts")]
facts = {os.path.realpath(o["path"]): o["facts"]["relocations"] for o in objs if o["role"] != "interpreter"}
rtld = [os.path.realpath(o["path"]) for o in objs if o["role"] == "interpreter"]
got = [(l["reloc_model_counts"].get("relative", 0), l["reloc_model_counts"].get("pages", 0), facts[os.path.realpath(l["path"])]) for l in run["libraries"] if "reloc_model_counts" in l and os.path.realpath(l["path"]) in facts]
ldso = [l["reloc_model_counts"].get("pages", 0) for l in run["libraries"] if "reloc_model_counts" in l and os.path.realpath(l["path"]) in rtld]
print(json.dumps(len(got) >= 3 and all(r == f["relative"] and p == f["pages_faulted"] <= f["pages_written"] for r, p, f in got) and all(p == 0 for p in ldso)))' "$TMP/j" "$TMP/deps")"
expect_eq "TSC rate is plausible (0.5-10 GHz)" true \
	"$(json_eval "$TMP/j" "5e8 < d['tsc_hz'] < 1e10")"
done_testing
