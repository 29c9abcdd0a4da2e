#!/bin/sh
# --sample: what runs inside each phase. A constructor that spins 8 ms in
# spin_in_ctor holds >= 90% of the init phase's samples (or 60% of the
# share of init its measured time takes: a busy machine's), under its
# library, and every sample in its clock reads unwinds back to it;
# the timed runs stay exactly the runs asked for; the trace file keeps the
# samples and reports them on its own, without the binaries; the folded
# output parses as "stack count" with the phase as the root and no ';' in
# a frame (main's function is named "spin;in;main"); a refused
# perf_event_open still gives the timing report and exit 0 (1 with
# --sample-required); lost samples
# and -f are told; chrome shows the samples on the sampled run's track.
# 8 ms, not 2: the rest of init (the shim's hooks, libc's start, lazy
# binds, page faults) took 3-15% of a 2 ms spin's samples while another
# tenant streamed through the shared cache, and CI failed at 90% once;
# of a 4 ms spin's, up to 13% in a make check ASAN=1 (more than in the
# timed runs, where the rest of init was 54 us of 2.07 ms).
. "$(dirname "$0")/lib.sh"

src=$FIXTURES/sample-ctor
mkdir "$TMP/fix"
cp "$src/prog" "$src/libspin.so" "$TMP/fix/"
prog=$TMP/fix/prog

"$LDPROF" run --sample -n 20 --no-overhead --json "$prog" >"$TMP/j" 2>"$TMP/e"
rc=$?
if grep -q 'sampling: perf_event_open' "$TMP/e"; then
	skip "perf_event_open refused here: $(cat "$TMP/e")"
	done_testing
	exit 0
fi
check "run --sample --json exits 0" test $rc -eq 0
expect_eq "exactly the 20 timed runs asked for" 20 "$(json_eval "$TMP/j" "d['runs']")"
expect_eq "warmup runs are the warmup only" 3 "$(json_eval "$TMP/j" "d['warmup_runs']")"
expect_eq "a sampled run per two timed rounds" 10 "$(json_eval "$TMP/j" "d['samples']['sampled_runs']")"
expect_eq "no sample lost" 0 "$(json_eval "$TMP/j" "d['samples']['lost']")"

init() { # init EXPR over the init phase's functions named spin_in_ctor
	json_eval "$TMP/j" "[$1 for p in d['samples']['phases'] if p['name'] == 'init' for f in p['functions'] if f['name'] == 'spin_in_ctor']"
}
n=$(json_eval "$TMP/j" "[p['samples'] for p in d['samples']['phases'] if p['name'] == 'init'][0]")
check "the init phase has samples ($n)" test "$n" -ge 100
# The share of init the constructor should hold: its measured time over
# the init phase's (medians of the timed runs). The rest of init (the
# shim's hooks, libc's start, lazy binds, page faults) is 1-3% of it on a
# calm machine and took up to 13% of the samples with another tenant
# streaming through the cache, when page faults and lookups cost more.
ctor_share() { # ctor_share JSON: libspin.so's init time / the init phase's, at most 1
	json_eval "$1" "min(1.0, [l['init_us'] for l in d['libraries'] if l['path'].endswith('/libspin.so')][0] / [p['median_us'] for p in d['phases'] if p['name'] == 'init'][0])"
}
share=$(init "f['total_share']" | tr -d '[]')
want=$(ctor_share "$TMP/j")
# The samples are CPU time and the share is wall time. With a two-core
# busy loop running, the spin (8 ms by the clock) got about half a CPU
# while the rest of init took 5 to 10 times its calm samples (__init_misc
# 180 in 10 runs, 17 calm): spin_in_ctor held 0.75 to 0.79 of a share of
# 0.95 (0.78 of it), and a clean-clone CI 0.857 of 0.969 (0.88). So 60% of
# the share here; the unwinder crossing the vDSO is checked on the folded
# stacks below, where a lost caller shows whatever the machine does.
check "spin_in_ctor is on >= 90% of init's stacks, or 60% of the share of init its constructor takes ($share; $want)" \
	awk -v v="$share" -v w="$want" 'BEGIN { exit !(v >= 0.9 || v >= 0.6 * w) }'
expect_eq "under libspin.so" '["libspin.so"]' "$(init "f['object'].rsplit('/', 1)[-1]")"
expect_eq "named from its symtab" '["symtab"]' "$(init "f['source']")"
# The clocks agree: spin_in_ctor's samples fall in init, not beside it.
v=$(json_eval "$TMP/j" "(lambda t: '%d %d' % (sum(n for p, n in t if p == 'init'), sum(n for p, n in t if p != 'init')))([(p['name'], f['total']) for p in d['samples']['phases'] for f in p['functions'] if f['name'] == 'spin_in_ctor'])")
check "spin_in_ctor's samples are init's, <= 3% in another phase (in init, elsewhere: $v)" \
	awk -v v="$v" 'BEGIN { split(v, a, " "); exit !(a[1] > 0 && a[2] <= 0.03 * a[1]) }'
v=$(json_eval "$TMP/j" "sum(1 for p in d['samples']['phases'] if p['name'] == 'main' for f in p['functions'] if f['name'] == 'spin;in;main' and f['self_share'] > 0.5)")
expect_eq "main's samples are mostly in spin;in;main, its name kept in JSON" 1 "$v"

# --sample-period: a sample per 100 us of CPU; the 8 ms constructor has at
# most 8000 / 100 of them per run (fewer when the machine is busy: CPU
# time, not wall time), and init at most its wall time's (the timed runs'
# median, 5% and two samples over for the sampled runs' own).
"$LDPROF" run --sample --sample-period 100 -n 10 --no-overhead --json "$prog" >"$TMP/jp" 2>"$TMP/e"
expect_eq "--sample-period 100: 100000 ns" 100000 "$(json_eval "$TMP/jp" "d['samples']['period_ns']")"
v=$(json_eval "$TMP/jp" "[p['samples'] / d['samples']['sampled_runs'] for p in d['samples']['phases'] if p['name'] == 'init'][0]")
most=$(json_eval "$TMP/jp" "[p['median_us'] for p in d['phases'] if p['name'] == 'init'][0] / 100 * 1.05 + 2")
check "--sample-period 100: 10 to $most init samples per run ($v)" awk -v v="$v" -v m="$most" 'BEGIN { exit !(v >= 10 && v <= m) }'
n20=$(json_eval "$TMP/j" "[p['samples'] / d['samples']['sampled_runs'] for p in d['samples']['phases'] if p['name'] == 'init'][0]")
check "the default, 20 us, takes more ($n20 > $v)" awk -v a="$n20" -v b="$v" 'BEGIN { exit !(a > 2 * b) }'

# The trace file: record, remove the binaries, report.
"$LDPROF" record --sample -n 20 --no-overhead -o "$TMP/t.ldprof" "$prog" 2>"$TMP/e"
check "record --sample exits 0" test $? -eq 0
rm -r "$TMP/fix"
"$LDPROF" report "$TMP/t.ldprof" >"$TMP/txt" 2>"$TMP/e"
check "report of the trace exits 0 without the binaries" test $? -eq 0
check "the text has the per-phase section" grep -q 'inside each phase: [0-9]* samples from 10 sampled runs' "$TMP/txt"
check "the text names spin_in_ctor with its object" grep -q '% *[0-9.]*%  spin_in_ctor (libspin.so)' "$TMP/txt"
"$LDPROF" report --format folded "$TMP/t.ldprof" >"$TMP/folded"
check "report --format folded exits 0" test $? -eq 0
bad=$(grep -cvE '^(exec|load|relocate|init|main|exit)(;[^;]+)+ [0-9]+$' "$TMP/folded")
expect_eq "every folded line is phase;frame...;frame count" 0 "$bad"
check "no frame is split at a ';' of its name" sh -c "! grep -q 'spin;in;main' '$TMP/folded'"
check "spin;in;main is one frame, spin_in_main" grep -q '^main;.*;spin_in_main [0-9]*$' "$TMP/folded"
"$LDPROF" report --json "$TMP/t.ldprof" >"$TMP/j2"
total=$(awk '{ n += $NF } END { print n }' "$TMP/folded")
expect_eq "the folded counts add up to the samples" \
	"$(json_eval "$TMP/j2" "d['samples']['samples']")" "$total"
want=$(ctor_share "$TMP/j2")
v=$(awk '/^init;/ { all += $NF; if (/;spin_in_ctor(;|$| )/) s += $NF }
	END { if (all) print s / all }' "$TMP/folded")
check "folded: >= 90% of init's samples pass through spin_in_ctor, or 60% of its constructor's share, as in JSON ($v; $want)" \
	awk -v v="$v" -v w="$want" 'BEGIN { exit !(v != "" && (v >= 0.9 || v >= 0.6 * w)) }'
# Every init sample inside the spin's clock reads (libc's clock_gettime,
# the vDSO) is unwound back to spin_in_ctor: the unwinder crosses the vDSO
# with this process's own image of it.
v=$(awk '/^init;/ && /;(clock_gettime[^;]*|__vdso_[^;]*|\[vdso\][^;]*)( |;)/ {
	all += $NF; if (/;spin_in_ctor;/) s += $NF } END { print s + 0, all + 0 }' "$TMP/folded")
check "folded: >= 98% of init's samples in clock_gettime or the vDSO unwind to spin_in_ctor (through it, all: $v)" \
	awk -v v="$v" 'BEGIN { split(v, a, " "); exit !(a[2] >= 20 && a[1] >= 0.98 * a[2]) }'

# Chrome: the sampled run's track, its samples as instant events inside it.
"$LDPROF" report --format chrome "$TMP/t.ldprof" >"$TMP/chrome.json"
v=$(json_eval "$TMP/chrome.json" "(lambda ev: (lambda inst, run: len(inst) >= 50 and all(e['tid'] == run['tid'] and 0 <= e['ts'] <= run['dur'] for e in inst) and sum(e['name'] == 'spin_in_ctor' for e in inst) >= 10 and all(e['args']['phase'] == 'init' for e in inst if e['name'] == 'spin_in_ctor'))([e for e in ev if e['ph'] == 'i'], [e for e in ev if e.get('cat') == 'run' and e['tid'] > 1][0]))(d['traceEvents'])")
expect_eq "chrome: the samples are instant events on the sampled run's track, spin_in_ctor's all in init" true "$v"

# Refused: the timing report still prints, exit 0, and the reason is told.
LDPROF_TEST_PERF_EPERM=1 "$LDPROF" run --sample -n 5 --no-overhead "$src/prog" >"$TMP/o" 2>"$TMP/e"
check "refused: exit 0" test $? -eq 0
check "refused: said as ldprof: sampling: perf_event_open: WHY (paranoid level)" \
	grep -qE '^ldprof: sampling: perf_event_open: Permission denied \(kernel\.perf_event_paranoid=-?[0-9]+\)$' "$TMP/e"
check "refused: the timing report is there" grep -q '^  init ' "$TMP/o"
check "refused: the report says it was not sampled" grep -q 'inside each phase: not sampled: perf_event_open' "$TMP/o"

LDPROF_TEST_PERF_EPERM=1 "$LDPROF" run --sample-required -n 5 --no-overhead "$src/prog" >"$TMP/o" 2>"$TMP/e"
check "refused with --sample-required: exit 1" test $? -eq 1
check "refused with --sample-required: the timing report is there still" grep -q '^  init ' "$TMP/o"

# A ring too small for one sample: every sample lost, and counted.
LDPROF_SAMPLE_RING_KB=8 "$LDPROF" run --sample -n 4 --no-overhead --json "$src/prog" >"$TMP/j3" 2>"$TMP/e"
v=$(json_eval "$TMP/j3" "d['samples']['lost']")
check "a full ring's samples are counted as lost ($v)" test "$v" -gt 0

"$LDPROF" run --sample -f -n 3 "$src/prog" >/dev/null 2>"$TMP/e"
check "--sample with -f is a usage error" test $? -eq 2
check "--sample with -f says why" grep -q 'sample.*-f' "$TMP/e"
done_testing
