#!/bin/sh
# Constructors and destructors are timed per library by the trampolines:
# a 2 ms constructor, a 1 ms destructor and the executable's own 500 us
# constructor measure as such, within 5%, with the --preload hooks too.
. "$(dirname "$0")/lib.sh"

prog=$FIXTURES/run-ctor-dtor/prog
lib() { # lib JSON BASENAME FIELD
	json_eval "$1" "[l['$3'] for l in d['libraries'] if l['path'].endswith('/$2')][0]"
}
lo() { # lo JSON BASENAME FIELD: the low end of FIELD's 95% CI
	json_eval "$1" "[l['$3_ci95'][0] for l in d['libraries'] if l['path'].endswith('/$2')][0]"
}

for mode in default preload; do
	opt=
	[ $mode = preload ] && opt=--preload
	"$LDPROF" -n 25 --no-overhead --json $opt "$prog" >"$TMP/j" 2>"$TMP/e"
	check "$mode: runs" test $? -eq 0
	spins "$mode: libctor.so init_us is 2 ms" "$(lib "$TMP/j" libctor.so init_us)" 2000 \
		"$(lo "$TMP/j" libctor.so init_us)"
	spins "$mode: libdtor.so fini_us is 1 ms" "$(lib "$TMP/j" libdtor.so fini_us)" 1000 \
		"$(lo "$TMP/j" libdtor.so fini_us)"
	spins "$mode: the executable's init_us is 500 us" "$(lib "$TMP/j" prog init_us)" 500 \
		"$(lo "$TMP/j" prog init_us)"
	# The other side of each library is not charged with the wait.
	v=$(lib "$TMP/j" libctor.so fini_us)
	check "$mode: libctor.so fini_us is small ($v)" awk -v v="$v" 'BEGIN { exit !(v < 50) }'
	v=$(lib "$TMP/j" libdtor.so init_us)
	check "$mode: libdtor.so init_us is small ($v)" awk -v v="$v" 'BEGIN { exit !(v < 50) }'
	# The init phase holds all three constructors; exit holds the destructor.
	# The upper bounds only say that no other library's wait moved in: a
	# constructor moved to exit drops init below 2.5 ms, the destructor
	# moved to init lifts it past 3.5 ms. They hold the fastest run (min_us),
	# the lower bounds the median: a wait that moved is in every run, while
	# a busy machine lengthens some runs only. Each phase's own remainder
	# (the launcher's reap, teardown) reached 510 us in a CI median on a
	# slow day, and 1.2-1.7 ms with a two-core busy loop (medians: init
	# 3.7-3.8 ms, exit 2.7 ms), where the fastest run's was 256 and 360 us.
	phase() { # phase FIELD NAME
		json_eval "$TMP/j" "[p['$1'] for p in d['phases'] if p['name'] == '$2'][0]"
	}
	v=$(phase median_us init)
	fast=$(phase min_us init)
	check "$mode: init phase holds the constructors ($v, fastest $fast)" \
		awk -v v="$v" -v f="$fast" 'BEGIN { exit !(v >= 2500 && f != "" && f < 3500) }'
	v=$(phase median_us exit)
	fast=$(phase min_us exit)
	check "$mode: exit phase holds the destructor alone ($v, fastest $fast)" \
		awk -v v="$v" -v f="$fast" 'BEGIN { exit !(v >= 1000 && f != "" && f < 2000) }'
done
done_testing
