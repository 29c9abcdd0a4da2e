#!/bin/sh
# A constructor that forks: the child runs through the rest of startup
# (constructors, la_preinit, main, exit) while the parent waits 100 ms in
# the constructor. Every record must be the parent's, so its init phase is
# the 100 ms and main is short. (The old shim let the child's la_preinit
# end the parent's init: init 0.1-1 ms, main 100 ms.)
. "$(dirname "$0")/lib.sh"

phase() {
	json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == '$1'][0]"
}

"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-ctor-fork/prog" >"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
expect_eq "every run valid" 5 "$(json_get "$TMP/j" '["valid_runs"]')"
# nanosleep overshoots by microseconds; 15% is room for a loaded machine.
within "init is the parent's 100 ms constructor" "$(phase init)" 100000 0.15
main=$(phase main)
check "main is the parent's, not the constructor's wait ($main us < 10 ms)" \
	awk -v m="$main" 'BEGIN { exit !(m < 10000) }'
v=$(json_eval "$TMP/j" "[l['init_us'] for l in d['libraries'] if l['path'].endswith('/libforker.so')][0]")
within "libforker.so's constructor measures the 100 ms" "$v" 100000 0.15
done_testing
