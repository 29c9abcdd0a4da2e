#!/bin/sh
# The --format outputs, validated for structure (tests/t5-validate.py):
# chrome (fields, nesting per thread, microseconds), csv (columns, one row
# per run per phase or library), hyperfine (keys, seconds), folded (syntax,
# counts adding up to the run) and html (self-contained, one timeline bar
# per library). run takes them too; a static program gets them all.
. "$(dirname "$0")/lib.sh"

validate() { # DESCRIPTION KIND FILE REFERENCE [--all-runs]
	desc=$1
	shift
	if python3 "$TOP/tests/t5-validate.py" "$@" >"$TMP/why" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/# /' "$TMP/why"
	fi
}

# An odd number of runs: the median run is the one with the median total.
"$LDPROF" record -n 21 -w 1 -o "$TMP/t.ldprof" "$FIXTURES/run-diamond/prog" 2>/dev/null
check "record" test $? -eq 0
"$LDPROF" report --json "$TMP/t.ldprof" >"$TMP/report.json"
for f in chrome csv hyperfine folded html; do
	"$LDPROF" report --format $f -o "$TMP/out.$f" "$TMP/t.ldprof" 2>"$TMP/e"
	check "--format $f -o FILE" test $? -eq 0 -a -s "$TMP/out.$f" -a ! -s "$TMP/e"
done
"$LDPROF" report --format chrome --all-runs "$TMP/t.ldprof" >"$TMP/all.chrome"

validate "chrome: fields, metadata, nesting, microseconds" chrome "$TMP/out.chrome" "$TMP/report.json"
validate "chrome --all-runs: a thread per run" chrome "$TMP/all.chrome" "$TMP/report.json" --all-runs
validate "csv: columns and rows" csv "$TMP/out.csv" "$TMP/report.json"
validate "hyperfine: keys and seconds" hyperfine "$TMP/out.hyperfine" "$TMP/report.json"
validate "folded: syntax, counts add up to the run" folded "$TMP/out.folded" "$TMP/out.chrome"
validate "html: self-contained, a bar per library" html "$TMP/out.html" "$TMP/report.json"
# The tests' default: no calibration file, so the reference machine's figures.
check "html: the verdict says it is uncalibrated" \
	grep -q '<p class="verdict">.*\[uncalibrated: ' "$TMP/out.html"
# A frame per phase and library: libc's relocation, the one long enough
# to be there in every run (liba.so's, about 1 us on a fast machine,
# rounds to 0 in some and its line is left out).
check "folded: the example's shape" grep -q "^prog;relocate;libc.so.6 [0-9]*$" "$TMP/out.folded"
check "chrome: the example's slice names" grep -q '"name":"liba.so relocate","cat":"reloc"' \
	"$TMP/out.chrome"
"$LDPROF" report --format folded --all-runs "$TMP/t.ldprof" >"$TMP/all.folded"
total=$(json_eval "$TMP/report.json" "round(sum(r['total_us'] for r in d['per_run']))")
sum=$(awk '{ s += $NF } END { print s }' "$TMP/all.folded")
within "folded --all-runs: counts add up to every run's total" "$sum" "$total" 0.01

# run shares the pipeline and its formats.
"$LDPROF" run -n 3 -w 0 --no-overhead --format csv "$FIXTURES/run-diamond/prog" >"$TMP/run.csv"
check "run --format csv" grep -q "^1,profiled,0,,phase,relocate," "$TMP/run.csv"

# A static program: no phases, but every format still says something sensible.
"$LDPROF" record -n 5 -w 0 -o "$TMP/s.ldprof" "$TOP/samples/sh.static" "$TOP/samples/foo" 2>/dev/null
"$LDPROF" report --json "$TMP/s.ldprof" >"$TMP/s.json"
for f in csv hyperfine chrome folded html; do
	"$LDPROF" report --format $f -o "$TMP/s.$f" "$TMP/s.ldprof" 2>"$TMP/e"
	check "static program: --format $f" test $? -eq 0 -a -s "$TMP/s.$f"
done
expect_eq "static: a total row per run" 5 "$(grep -c ',total,' "$TMP/s.csv")"
expect_eq "static: one folded line, the program" 1 "$(grep -c '^sh.static [0-9]*$' "$TMP/s.folded")"
validate "static: hyperfine" hyperfine "$TMP/s.hyperfine" "$TMP/s.json"
check "static: no timeline in the page" sh -c "! grep -q timeline-svg '$TMP/s.html'"
check "static: the distribution is there" grep -q distribution-svg "$TMP/s.html"

"$LDPROF" report --format svg "$TMP/t.ldprof" >/dev/null 2>"$TMP/e"
expect_eq "an unknown format: exit 2" 2 $?
done_testing
