#!/bin/sh
# The user's own LD_AUDIT stays in effect and ldprof still records: ld.so
# loads both (LD_AUDIT=ldprof's:the user's). A module with la_version only,
# and one whose la_objopen writes each object's name to stderr.
# (The old shim set itself up in the first la_objopen it saw, the user's
# module's, in a namespace without ld.so, and recorded nothing.)
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/run-ctor-dtor/prog
has_libctor="any(l['path'].endswith('/libctor.so') for l in d['libraries'])"

# 15 runs: the median of 5 once read 2715 us for the 2 ms spin, a burst
# of preemptions on a shared machine (a clean-clone CI; 2049 to 2069 after).
LD_AUDIT=$FIXTURES/run-user-audit/audit-min.so "$LDPROF" -n 15 --no-overhead --json "$prog" \
	>"$TMP/j" 2>"$TMP/e"
check "runs under a la_version-only module" test $? -eq 0
expect_eq "every run valid" 15 "$(json_get "$TMP/j" '["valid_runs"]')"
expect_eq "the libraries are reported" true "$(json_eval "$TMP/j" "$has_libctor")"
v=$(json_eval "$TMP/j" "[l['init_us'] for l in d['libraries'] if l['path'].endswith('/libctor.so')][0]")
lo=$(json_eval "$TMP/j" "[l['init_us_ci95'][0] for l in d['libraries'] if l['path'].endswith('/libctor.so')][0]")
spins "libctor.so's 2 ms constructor" "$v" 2000 "$lo"

LD_AUDIT=$FIXTURES/run-user-audit/audit-log.so "$LDPROF" -n 5 --no-overhead --show-output \
	--json "$prog" >"$TMP/j" 2>"$TMP/e"
check "runs under a logging module" test $? -eq 0
expect_eq "every run valid" 5 "$(json_get "$TMP/j" '["valid_runs"]')"
expect_eq "the libraries are reported" true "$(json_eval "$TMP/j" "$has_libctor")"
# 3 warmup runs and 5 counted ones, each logging libctor.so once.
n=$(grep -c '^user-audit: objopen .*/run-ctor-dtor/libctor.so$' "$TMP/e")
expect_eq "the user's la_objopen ran in every run" 8 "$n"

# Both, with ldprof's own module given by the user as well: still one copy.
LD_AUDIT=$FIXTURES/run-user-audit/audit-min.so:$FIXTURES/run-user-audit/audit-log.so \
	"$LDPROF" -n 3 --no-overhead --show-output --json "$prog" >"$TMP/j" 2>"$TMP/e"
expect_eq "two user modules: every run valid" 3 "$(json_get "$TMP/j" '["valid_runs"]')"
n=$(grep -c '^user-audit: objopen .*/run-ctor-dtor/libctor.so$' "$TMP/e")
expect_eq "two user modules: the second one's la_objopen ran" 6 "$n"
done_testing
