#!/bin/sh
# A child forked by the program, which runs the 1 ms destructor again on
# exit(), and an exec'd grandchild that inherits LD_AUDIT and LDPROF_SHM,
# leave the parent's record alone.
. "$(dirname "$0")/lib.sh"

"$LDPROF" -n 15 --no-overhead --json "$FIXTURES/run-fork/prog" "$FIXTURES/run-ctor-dtor/prog" \
	>"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
expect_eq "every run valid" 15 "$(json_get "$TMP/j" '["valid_runs"]')"
v=$(json_eval "$TMP/j" "[l['fini_us'] for l in d['libraries'] if l['path'].endswith('/libdtor.so')][0]")
lo=$(json_eval "$TMP/j" "[l['fini_us_ci95'][0] for l in d['libraries'] if l['path'].endswith('/libdtor.so')][0]")
# Once is 1000 us, twice 2000 (a clean-clone CI measured 1050.8).
spins "libdtor.so fini_us counts the parent's destructor once" "$v" 1000 "$lo"
expect_eq "the grandchild's libraries are not the parent's" "[]" \
	"$(json_eval "$TMP/j" "[l['path'] for l in d['libraries'] if 'libctor' in l['path']]")"
expect_eq "one executable" 1 "$(json_eval "$TMP/j" "sum(l['role'] == 'executable' for l in d['libraries'])")"
# A vfork child calls _exit through the executable's lazy PLT slot, which
# its parent shares: the shim must not let ld.so bind it there (that would
# take its wrapper out of the parent's GOT), so the parent's own _exit,
# after 300 us in main, is still seen and ends main.
"$LDPROF" -n 5 --no-overhead --json "$FIXTURES/run-vfork/prog" >"$TMP/j"
expect_eq "vfork: the parent's exit status" 5 "$(json_get "$TMP/j" '["exit_status"]')"
m=$(json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == 'main'][0]")
x=$(json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == 'exit'][0]")
check "vfork: main holds the 300 us ($m us)" awk -v v="$m" 'BEGIN { exit !(v >= 300) }'
check "vfork: the parent's _exit call is seen: an exit phase ($x us)" \
	awk -v v="$x" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v > 0) }'
done_testing
