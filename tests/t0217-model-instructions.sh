#!/bin/sh
# The relocation model's counts against an oracle that is neither ldprof
# nor a timer: callgrind's count of the instructions ld.so executes in
# _dl_relocate_object, one dump per call (tools/reloc-instructions.py).
# An instruction cost per count, fitted on the calibration's synthetic
# programs alone, predicts from the counts the report gives each object
# the instructions of its relocation within 15%: the symbol-heavy, the
# relative-heavy and the C++ libraries of the differential test (t0210),
# libstdc++ and libc, and the sample shell's libraries (measured: within
# 10%, RMS 3%). Instructions do not move with the machine's state, so a
# miss here is a count the analyzer's replay of ld.so gets wrong or lacks
# (without hash_bytes, libcxx.so's prediction falls 35% short), never
# noise. Skipped without valgrind (tools/install-deps installs it).
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	skip "no valgrind: install Debian's valgrind package (tools/install-deps)"
	done_testing
	exit 0
fi
m=$FIXTURES/model-base
"$TOP/tools/reloc-instructions.py" --ldprof "$LDPROF" --min-instructions 20000 \
	"$m/with-sym" \; "$m/with-rel" \; "$m/with-cxx" \; \
	"$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/out" 2>"$TMP/err"
st=$?
sed 's/^/# /' "$TMP/out"
# row PROGRAM OBJECT: "callgrind predicted error" of that row.
row() {
	awk -v p="$1" -v o="$2" '$1 == p && $2 == o { print $3, $4, $5; exit }' "$TMP/out"
}
check "reloc-instructions fitted the synthetic programs" \
	grep -q '^instructions a count costs, fitted on [0-9][0-9]* synthetic programs' "$TMP/out"
check "it names libsym.so, librel.so, libcxx.so and libstdc++ ($(row with-sym libsym.so); $(row with-rel librel.so); $(row with-cxx libcxx.so))" \
	sh -c "test -n '$(row with-sym libsym.so)' && test -n '$(row with-rel librel.so)' &&
	       test -n '$(row with-cxx libcxx.so)' && test -n '$(row with-cxx libstdc++.so.6.0.30)'"
check "and the sample shell's libedit ($(row sh.dynamic libedit.so.2.0.70))" \
	test -n "$(row sh.dynamic libedit.so.2.0.70)"
# The table itself, not only the status: every object row's error within 15%.
worst=$(awk '$5 ~ /^[-+][0-9.]+%$/ { e = $5; sub(/%/, "", e); e += 0; if (e < 0) e = -e
	n++; if (e > w + 0) w = e } END { if (n) print w }' "$TMP/out")
check "every object's instructions predicted within 15% (worst $worst%; $(tail -1 "$TMP/out"))" \
	sh -c "test '$st' -eq 0 && awk -v w='$worst' 'BEGIN { exit !(w != \"\" && w <= 15) }'"
check "nothing on stderr" test ! -s "$TMP/err"
done_testing
