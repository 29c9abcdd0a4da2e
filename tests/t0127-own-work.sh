#!/bin/sh
# The shim's CPU record (LDPROF_REC_CPU: getrusage when main ends) and the
# cost model's own work (docs/model.md, "The run's own traffic"), against
# the program's own clock: a main that burns 20 ms of CPU by
# CLOCK_PROCESS_CPUTIME_ID has used at least that much when it returns;
# one that sleeps 20 ms, or waits 20 ms for a child that burns it, has
# used next to none of its own, though its main phase lasts as long.
# The start's CPU record and the end's count the page faults between
# them: a main that writes 8 MiB it maps fresh takes 2048 (a page each),
# one that burns 20 ms next to none; the model counts those pages, not the
# CPU time, as what the run moves through the cache ("Faults, not CPU
# time"): calibrated, the first prices its lines cold, the second warm but
# for what another tenant took meanwhile ("With a tenant streaming").
. "$(dirname "$0")/lib.sh"

PROG=$FIXTURES/run-cpu/prog
run() {
	"$LDPROF" -n 7 --no-overhead --json -- "$PROG" "$@" >"$TMP/$1.json"
}
own() { json_eval "$TMP/$1.json" "d['reloc_model']['own_work_us']"; }
faults() { json_eval "$TMP/$1.json" "d['reloc_model']['own_faults']"; }
share() { json_eval "$TMP/$1.json" "d['reloc_model']['warm_share']"; }
main_us() { json_eval "$TMP/$1.json" "[p['median_us'] for p in d['phases'] if p['name'] == 'main'][0]"; }
# The least of the runs' CPU records; "none" when a run has none.
least_cpu() {
	json_eval "$TMP/$1.json" "min(r['cpu_us'] if r['cpu_us'] is not None else -1 for r in d['per_run'])"
}
at_least() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v != "null" && v >= m) }'; }
below() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v != "null" && v < m) }'; }
between() { at_least "$1" "$2" && below "$1" "$3"; }

run spin 20000
c=$(least_cpu spin)
check "spin: every run's CPU record holds the 20 ms its own clock counted ($c us)" at_least "$c" 20000
o=$(own spin)
check "spin: its own work outside its start is those 20 ms, -1 ms to +5 ms ($o us)" \
	between "$o" 19000 25000

for mode in sleep child; do
	run $mode 20000
	m=$(main_us $mode)
	o=$(own $mode)
	check "$mode: main lasts the 20 ms ($m us)" at_least "$m" 19000
	check "$mode: its own work is not the wait, nor its child's CPU ($o us, under 5 ms)" below "$o" 5000
done

# exit() from a library: the hooks do not see main's end, ld.so's
# _dl_fini's LA_ACT_DELETE stands in, and the CPU record with it.
run libexit 20000
c=$(least_cpu libexit)
check "exit from a library: every run has a CPU record, the 20 ms in it ($c us)" at_least "$c" 20000
o=$(own libexit)
check "exit from a library: its own work is those 20 ms ($o us)" at_least "$o" 19000

# The faults between the start's end and main's.
f=$(faults spin)
check "spin: 20 ms of CPU, next to no page faults of its own ($f, under 64)" below "$f" 64
run touch 8192
f=$(faults touch)
check "touch: 8 MiB written, a fault a page: 2048 to 2112 ($f)" between "$f" 2048 2113
f=$(faults libexit)
check "exit from a library: the faults counted to _dl_fini's record ($f, under 64)" below "$f" 64

# Calibrated, the model prices the lines by the faults: the 20 ms of CPU
# leave the run before's lines in the L2 (its footprint is far below it),
# the 8 MiB do not. Where sysfs gives no L2 size, the share stays unpriced.
use_calibration
if [ -r /sys/devices/system/cpu/cpu0/cache/index2/size ]; then
	run spin 20000
	run touch 8192
	# All of them, but for what a tenant streaming through the shared
	# cache took in its 20 ms (the probe's lines_surviving).
	s=$(share spin)
	k=$(json_eval "$TMP/spin.json" "d['reloc_model']['lines_surviving'] if d['reloc_model']['lines_surviving'] is not None else 1")
	check "calibrated, spin: every line a tenant left priced warm (share $s, kept $k)" \
		awk -v s="$s" -v k="$k" 'BEGIN { exit !(s != "" && k != "" && s >= k - 1e-6 && s <= 1) }'
	s=$(share touch)
	check "calibrated, touch: none priced warm (share $s)" below "$s" 0.001
else
	skip "calibrated warm share: no L2 size in sysfs"
fi

done_testing
