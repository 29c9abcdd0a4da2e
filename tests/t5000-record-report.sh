#!/bin/sh
# ldprof record writes a trace file atomically; ldprof report gives the same
# report as run, without the binaries; changed binaries are named; a file cut
# short is read up to its last whole section; a damaged one is refused.
. "$(dirname "$0")/lib.sh"

# normalise as t0070 does, for the golden text report.
normalise() {
	# The shared cache's state comes and goes with the machine's other tenants.
	sed -E -e '/the shared cache (was )?contended in/d' -e '/the scheduler preempted/d' \
		-e 's/ in the runs the shared cache was (not contended|contended, as in the calibration)//' \
		-e "s|$FIXTURES|FIXTURES|g" -e 's/[-+]?[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/N (µs|ms|s)([] ,;)]|$)/N T\2/g' \
		-e 's/(▏|▎|▍|▌|▋|▊|▉|█)+//g' -e 's/ +/ /g' -e 's/ $//'
}

# --- record ---
# Ten runs: the golden text holds the verdict's judgement, whose interval
# three runs under a sanitizer once left straddling zero.
"$LDPROF" record -n 10 -w 1 -o "$TMP/d.ldprof" "$FIXTURES/run-diamond/prog" >"$TMP/out" 2>"$TMP/err"
check "record exits 0" test $? -eq 0
check "record prints nothing on stdout" test ! -s "$TMP/out"
check "record says what it wrote" grep -q "wrote [0-9]* runs of .*run-diamond/prog to $TMP/d.ldprof" "$TMP/err"
expect_eq "the file starts with the magic" LDPROFTR "$(head -c 8 "$TMP/d.ldprof")"
expect_eq "no temporary file is left" "d.ldprof" "$(cd "$TMP" && ls -- d.ldprof*)"
# Written through a temporary file, but with the mode a new file gets.
(
	umask 027
	"$LDPROF" record -n 2 -w 0 -o "$TMP/m.ldprof" /bin/true 2>/dev/null
	"$LDPROF" report --json -o "$TMP/m.json" "$TMP/m.ldprof"
)
expect_eq "the trace and an -o report follow the umask (027: 640)" "640 640" \
	"$(stat -c %a "$TMP/m.ldprof") $(stat -c %a "$TMP/m.json")"

# --- report: the same text report as run (t0070's golden file; the order of
# the recommendations follows measured savings, so lines are compared sorted) ---
"$LDPROF" report "$TMP/d.ldprof" >"$TMP/raw" 2>&1
check "report exits 0" test $? -eq 0
normalise <"$TMP/raw" | sort >"$TMP/text"
sort "$TOP/tests/golden/run-diamond.txt" >"$TMP/golden"
expect_same "report's text has the lines of run's (tests/golden/run-diamond.txt)" \
	"$TMP/golden" "$TMP/text"
"$LDPROF" report --json "$TMP/d.ldprof" >"$TMP/j"
expect_eq "report --json is ldprof-run/1" ldprof-run/1 "$(json_get "$TMP/j" '["schema"]')"
expect_eq "10 counted runs, 10 plain" "10 10" "$(json_eval "$TMP/j" "'%d %d' % (d['runs'], d['plain_runs'])")"
expect_eq "no note about the file on the machine that recorded it" false \
	"$(json_eval "$TMP/j" "any(w in n for n in d['notes'] for w in ('trace file', 'recorded', 'on disk'))")"

# --- without the binaries; then with changed ones ---
cp -R "$FIXTURES/trace-extra-lib/after" "$TMP/app"
LD_BIND_NOW=1 "$LDPROF" record -n 8 -w 0 --no-overhead -o "$TMP/app.ldprof" "$TMP/app/prog" 2>/dev/null
check "record a copy of the fixture" test $? -eq 0
"$LDPROF" report --json "$TMP/app.ldprof" >"$TMP/j1"
"$LDPROF" report --format html "$TMP/app.ldprof" >"$TMP/h1"
check "an HTML report naming liba.so" grep -q "liba\.so" "$TMP/h1"
mv "$TMP/app" "$TMP/gone"
"$LDPROF" report --json "$TMP/app.ldprof" >"$TMP/j2"
check "report works without the binaries" test $? -eq 0
check "the same JSON without them" cmp -s "$TMP/j1" "$TMP/j2"
"$LDPROF" report --format html "$TMP/app.ldprof" >"$TMP/h2"
check "the same HTML without them" cmp -s "$TMP/h1" "$TMP/h2"
expect_eq "facts come from the trace (relocations of liba.so)" true \
	"$(json_eval "$TMP/j2" "[l['relocations']['total'] > 0 for l in d['libraries'] if l['soname'] == 'liba.so'][0]")"
mv "$TMP/gone" "$TMP/app"
cp "$FIXTURES/trace-extra-lib/before/prog" "$TMP/app/prog" # another build-id
touch -d '2001-02-03 04:05:06' "$TMP/app/libextra.so"      # no build-id: mtime
"$LDPROF" report --json "$TMP/app.ldprof" >"$TMP/j3"
expect_eq "one note names both changed files" 1 \
	"$(json_eval "$TMP/j3" "sum('2 files on disk are not the ones recorded' in n and '/app/prog' in n and 'libextra.so' in n for n in d['notes'])")"
expect_eq "liba.so did not change and is not named" false \
	"$(json_eval "$TMP/j3" "any('liba.so' in n for n in d['notes'])")"
"$LDPROF" report "$TMP/app.ldprof" >"$TMP/t3"
check "the text report says so too" grep -q "note: 2 files on disk are not the ones recorded" "$TMP/t3"

# --- --info ---
"$LDPROF" report --info "$TMP/app.ldprof" >"$TMP/info"
check "--info: the environment that matters" grep -q "^    LD_BIND_NOW=1$" "$TMP/info"
check "--info: build-ids" grep -q "liba.so  build-id [0-9a-f]\{40\}" "$TMP/info"
check "--info: the machine" grep -q "glibc 2\." "$TMP/info"

# --- a file cut short: 150 runs in sections of 64 ---
"$LDPROF" record -n 150 -w 0 --no-overhead -o "$TMP/long.ldprof" "$FIXTURES/run-diamond/prog" 2>/dev/null
size=$(wc -c <"$TMP/long.ldprof")
head -c $((size - 60)) "$TMP/long.ldprof" >"$TMP/cut.ldprof"
"$LDPROF" report --json "$TMP/cut.ldprof" >"$TMP/jc" 2>"$TMP/e"
check "a cut file is still reported" test $? -eq 0
check "with a warning" grep -q "^ldprof: warning: $TMP/cut.ldprof: truncated: read the first 128 of 150 runs" "$TMP/e"
expect_eq "the runs of the whole sections" 128 "$(json_get "$TMP/jc" '["runs"]')"
expect_eq "and a note" true "$(json_eval "$TMP/jc" "any('truncated' in n for n in d['notes'])")"
head -c 100 "$TMP/long.ldprof" >"$TMP/stub.ldprof"
"$LDPROF" report "$TMP/stub.ldprof" >/dev/null 2>"$TMP/e"
expect_eq "cut before the first run: exit 2" 2 $?
check "explained" grep -q "^ldprof: $TMP/stub.ldprof: truncated before its first run" "$TMP/e"

# --- refused input: exit 2, "ldprof: FILE: WHY" ---
expect_bad() { # DESCRIPTION PATTERN ARGS...
	desc=$1 pattern=$2
	shift 2
	"$LDPROF" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "^ldprof\( [a-z]*\)\?: .*$pattern" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "exit $st, stderr: $(cat "$TMP/err")"
	fi
}
cp "$TMP/long.ldprof" "$TMP/bad.ldprof"
printf 'XXXX' | dd of="$TMP/bad.ldprof" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_bad "damaged in the middle" "$TMP/bad.ldprof: damaged" report "$TMP/bad.ldprof"
printf 'hello\n' >"$TMP/text.txt"
expect_bad "not a trace" "$TMP/text.txt: not an ldprof trace" report "$TMP/text.txt"
expect_bad "missing file" "$TMP/nope: No such file or directory" report "$TMP/nope"
expect_bad "a directory" "$TMP: is a directory" report "$TMP"
expect_bad "report without a file" "no trace file given" report
expect_bad "report with two files" "one trace file at a time" report "$TMP/d.ldprof" "$TMP/d.ldprof"
expect_bad "record without -o" "no trace file given (-o FILE)" record /bin/true
expect_bad "record of a missing program" "$TMP/nope: No such file or directory" \
	record -o "$TMP/never.ldprof" "$TMP/nope"
check "no file for a failed record" test ! -e "$TMP/never.ldprof"
"$LDPROF" record -n 1 -o "$TMP/no/such/dir/x.ldprof" /bin/true >/dev/null 2>"$TMP/e"
expect_eq "an unwritable -o: exit 1" 1 $?
check "explained" grep -q "^ldprof: -o $TMP/no/such/dir/x.ldprof: directory does not exist" "$TMP/e"
done_testing
