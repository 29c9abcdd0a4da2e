#!/bin/sh
# The workload report of ldprof -f on the 2003 harness (samples/harness.sh
# ./sh.dynamic 20): the text names 21 execs of sh.dynamic and of expr per
# run and collapses them in the tree; the JSON is strict and every summary
# figure agrees with its own per-exec data; the Chrome trace has one
# named track per process with every slice nested; the CSV one row per
# exec. With the shim's per-exec records, the loader time of sh.dynamic
# inside the harness, less -f's own cost per exec (a lone -f run against a
# lone run), is within 25% of a lone `ldprof run` of it.
. "$(dirname "$0")/lib.sh"

V=$TOP/tests/t0650-validate.py
cd "$TOP/samples" || exit 1

"$LDPROF" run -f -n 3 --color=never ./harness.sh ./sh.dynamic 20 >"$TMP/text" 2>"$TMP/e"
check "ldprof run -f prints the workload report" test $? -eq 0
expect_eq "per binary: 21 execs of sh.dynamic per run" 1 \
	"$(grep -c '^  sh\.dynamic  *21\.0 ' "$TMP/text")"
expect_eq "per binary: 21 execs of expr per run" 1 \
	"$(grep -c '^  /usr/bin/expr  *21\.0 \|^  /bin/expr  *21\.0 ' "$TMP/text")"
expect_eq "the tree collapses the 21 sh.dynamic siblings" 1 \
	"$(grep -c 'sh\.dynamic[^ ]* .*\(×\|x\) 21  \[1 exec' "$TMP/text")"
expect_eq "expr's siblings ran with other arguments each: named by their image" 1 \
	"$(grep -c '\(─\|-\) expr \(×\|x\) 21  \[1 exec' "$TMP/text")"
check "the costliest binaries said in a sentence" \
	grep -q '^  sh\.dynamic: 21 execs, .* each in the loader on average, .* of startup per run (.*% of the workload); static linking would save' "$TMP/text"
check "the loader's share is stated" grep -q '^  the loader .* per run: .*% of the wall time, .*% of the CPU time$' "$TMP/text"
check "the overhead against plain runs is stated" grep -q 'overhead of following and recording: .* against 3 plain runs' "$TMP/text"

"$LDPROF" run -f -n 3 --format json -o "$TMP/j" ./harness.sh ./sh.dynamic 20 2>"$TMP/e"
check "the JSON" test $? -eq 0
expect_eq "the figures agree with the per-exec data (strict JSON)" ok "$(python3 "$V" figures "$TMP/j" 2>&1)"
expect_eq "21 execs of sh.dynamic and 21 of expr per run" "21.0 21.0" \
	"$(json_eval "$TMP/j" "' '.join('%.1f' % b['execs_per_run'] for b in d['binaries'] if b['path'].endswith(('/samples/sh.dynamic', '/expr')))")"
expect_eq "43 execs per run, each in one binary" "43 43" \
	"$(json_eval "$TMP/j" "'%d %d' % (d['workload']['execs']['median'], sum(b['execs'] for b in d['binaries']) / d['runs'])")"

"$LDPROF" run -f -n 2 --format chrome -o "$TMP/c" ./harness.sh ./sh.dynamic 20 2>"$TMP/e"
check "the Chrome trace" test $? -eq 0
expect_eq "one named track per process, every slice nested in it" ok \
	"$(python3 "$V" chrome "$TMP/c" 43 2>&1)"

"$LDPROF" run -f -n 2 --format chrome --all-runs -o "$TMP/ca" ./harness.sh ./sh.dynamic 20 2>"$TMP/e"
expect_eq "--all-runs: every run's 43 processes, each a track" ok \
	"$(python3 "$V" chrome "$TMP/ca" 86 2>&1)"

# Every route of the tree fixture (a fork without exec, an exec chain, an
# orphan, a static child, a cleared environment): one track each, nested.
"$LDPROF" run -f -n 1 -w 0 --no-overhead --format json -o "$TMP/tj" "$FIXTURES/follow-tree/tree" "$FIXTURES/follow-tree" 2>"$TMP/e"
"$LDPROF" run -f -n 1 -w 0 --no-overhead --format chrome -o "$TMP/tc" "$FIXTURES/follow-tree/tree" "$FIXTURES/follow-tree" 2>"$TMP/e"
expect_eq "the tree fixture: one named track per process, every slice nested" ok \
	"$(python3 "$V" chrome "$TMP/tc" "$(json_eval "$TMP/tj" "len(d['per_run'][0]['tree']['processes'])")" 2>&1)"
# How each process ended, in its slice's args, as the JSON says it (two runs: the same tree).
expect_eq "the Chrome process slices: each exit status and its source, as the JSON's" \
	"$(json_eval "$TMP/tj" "sorted('%s:%s:%s' % (p['exit_status'], p['signal'], p['exit_status_from']) for p in d['per_run'][0]['tree']['processes'])")" \
	"$(json_eval "$TMP/tc" "sorted('%s:%s:%s' % (e['args']['exit_status'], e['args']['signal'], e['args']['exit_status_from']) for e in (d['traceEvents'] if isinstance(d, dict) else d) if e.get('cat') == 'process')")"

"$LDPROF" run -f -n 3 --format csv -o "$TMP/csv" ./harness.sh ./sh.dynamic 20 2>"$TMP/e"
check "the CSV" test $? -eq 0
expect_eq "one CSV row per exec" ok "$(python3 "$V" csv "$TMP/csv" "$TMP/j" 2>&1)"

"$LDPROF" run -f --format folded ./harness.sh ./sh.dynamic 2 >"$TMP/fo" 2>"$TMP/fe"
expect_eq "-f --format folded: refused before any run, exit 2" "2 0" "$? $(wc -c <"$TMP/fo")"
check "... saying why" grep -q '^ldprof: --format folded: not available with -f' "$TMP/fe"

# A child whose name holds a newline and an escape sequence: the text shows
# it escaped (no control character reaches the terminal), the JSON keeps it.
weird=$(printf '%s/we\033[31mird\nsh' "$TMP")
cp ./sh.dynamic "$weird"
"$LDPROF" run -f -n 1 -w 0 --no-overhead --color=never /bin/sh -c '"$0" ./foo' "$weird" >"$TMP/wtext" 2>"$TMP/e"
check "a child with a control character in its name" test $? -eq 0
expect_eq "the text holds no control character but newlines" 0 \
	"$(tr -d '\n' <"$TMP/wtext" | LC_ALL=C grep -c '[[:cntrl:]]')"
check "the text shows the name escaped" grep -q 'we\\033\[31mird\\nsh' "$TMP/wtext"
"$LDPROF" run -f -n 1 -w 0 --no-overhead --format json -o "$TMP/wj" /bin/sh -c '"$0" ./foo' "$weird" 2>"$TMP/e"
expect_eq "the JSON keeps the name" 1 \
	"$(json_eval "$TMP/wj" "sum(1 for b in d['binaries'] if b['path'].endswith('/we\x1b[31mird\nsh'))")"

# 30 binaries and the shell that runs them: the 25 costliest in the text,
# then how many more; all 31 in the JSON.
mkdir "$TMP/many"
i=0
while [ $i -lt 30 ]; do
	cp "$FIXTURES/follow-tree/leaf" "$TMP/many/leaf$i"
	i=$((i + 1))
done
"$LDPROF" run -f -n 1 -w 0 --no-overhead --color=never --format json -o "$TMP/mj" \
	/bin/sh -c 'for f in "$0"/leaf*; do "$f" x; done' "$TMP/many" 2>"$TMP/e"
expect_eq "31 binaries in the JSON" 31 "$(json_eval "$TMP/mj" "len(d['binaries'])")"
"$LDPROF" run -f -n 1 -w 0 --no-overhead --color=never \
	/bin/sh -c 'for f in "$0"/leaf*; do "$f" x; done' "$TMP/many" >"$TMP/mtext" 2>"$TMP/e"
check "the text: 25 binaries, then the 6 more" grep -q '^  \.\.\. and 6 more binaries' "$TMP/mtext"

# A static top process (no coefficients of its own): its dynamic child still
# gets the cost model's static-link estimate.
"$LDPROF" run -f -n 1 -w 0 --no-overhead --color=never "$FIXTURES/follow-shim/static-ls" "$TMP/ls.out" \
	>"$TMP/stext" 2>"$TMP/e"
check "under a static top, ls gets a static-link estimate" \
	grep -q '^  \(/usr\)\{0,1\}/bin/ls: 1 exec, .*; static linking would save' "$TMP/stext"
# The bench's floor: without mmap records the static top has no binary.
LDPROF_FOLLOW_NO_MMAP=1 "$LDPROF" run -f -n 1 -w 0 --no-overhead --color=never \
	"$FIXTURES/follow-shim/static-ls" "$TMP/ls.out" >"$TMP/stext2" 2>"$TMP/e"
check "LDPROF_FOLLOW_NO_MMAP: no mmap records, the static top's binary unknown" \
	grep -q '(unknown binary: static-ls)' "$TMP/stext2"
check "without it, the static top is named" sh -c "! grep -q '(unknown binary: static-ls)' '$TMP/stext'"

# The loader (exec + load + relocate) of sh.dynamic per exec, inside the
# harness and alone: the same binary on the same machine.
recorded=$(json_eval "$TMP/j" "sum(1 for r in d['per_run'] for e in r['tree']['execs'] if e['path'].endswith('/samples/sh.dynamic') and e['phases_us'])")
if [ "$recorded" -gt 0 ]; then
	# The exec phase alone: inside the harness it starts at the kernel's
	# exec point, after the old image is gone; a lone run's starts just
	# before execve, in a child that shares ldprof's memory and so has no
	# image of its own to tear down. When it was a forked copy of ldprof,
	# the teardown made it 21-29% longer here (4.3x for a sanitized ldprof).
	# The lone run's also holds the execve's start (the file opened, the
	# arguments copied), which inside the harness comes before perf's
	# exec point: 10-20% longer here on 2026-12-02, measured in turn. So
	# 25%, which that teardown on top would still miss. The two sides are
	# held by the low ends of their medians' 95% CIs: that offset leaves
	# the medians 5-15 points of room, and with a two-core busy loop the
	# lone run's median came out 1.27-1.28x the harness's in two sets of
	# rounds (the low ends 1.16x): preemption lengthens some execs, while
	# a teardown in the lone run is in every run and moves the low end
	# as much as the median.
	harness() { # harness FILE: loader, exec phase and its CI's low end of sh.dynamic from a -f run's JSON
		json_eval "$1" "' '.join('%s' % v for v in [(sum(b['phases_per_exec_us'][p]['median'] for p in ('exec', 'load', 'relocate')), b['phases_per_exec_us']['exec']['median'], b['phases_per_exec_us']['exec']['ci95'][0]) for b in d['binaries'] if b['path'].endswith('/samples/sh.dynamic')][0])"
	}
	# The machine's speed flips between two states every second or so
	# (the loader here 480-540 us or about 700, alone and inside alike),
	# so one reading of each side, taken a few seconds apart, missed by
	# 45% in CI and on a quiet machine. The sides are measured in turn,
	# 15 rounds of a one-run harness, 9 lone runs and 5 lone -f runs, and
	# each side's figure is the median of its rounds'. A miss is measured
	# again once, 20 s later.
	#
	# -f costs every exec more than a lone run's shim does: its buffer is
	# reopened by each process and written in chunks (make
	# bench-follow-shim: +221 us against +95 us per exec on 2026-12-06),
	# and that cost grows with the machine's state: a lone -f run of
	# sh.dynamic measured its loader 1.0-1.6x a lone run's, in turn, on
	# a slow day (CI: inside the harness 2620-2716 us against 1920-2034
	# alone). So the harness is held to the lone run once -f's own cost,
	# measured in the same rounds (lone -f minus lone), is taken away:
	# what the harness itself adds (the tree, the join of each exec's
	# records) must stay within 25% of the lone run's loader.
	median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	for try in 1 2; do
		[ "$try" -gt 1 ] && sleep 20
		: >"$TMP/rounds"
		round=0
		while [ $round -lt 15 ]; do
			"$LDPROF" run -f -n 1 --no-overhead --format json -o "$TMP/jh" ./harness.sh ./sh.dynamic 20 2>"$TMP/e" &&
				"$LDPROF" run -f -n 5 --no-overhead --format json -o "$TMP/jf" ./sh.dynamic ./foo 2>"$TMP/e" &&
				"$LDPROF" run -n 9 --format json -o "$TMP/alone" ./sh.dynamic ./foo 2>"$TMP/e" || break
			echo "$(harness "$TMP/jh") $(json_eval "$TMP/alone" "'%s %s %s' % (sum(p['median_us'] for p in d['phases'] if p['name'] in ('exec', 'load', 'relocate')), *[(p['median_us'], p['median_us_ci95'][0]) for p in d['phases'] if p['name'] == 'exec'][0])") $(harness "$TMP/jf")" >>"$TMP/rounds"
			round=$((round + 1))
		done
		loader_in=$(cut -d' ' -f1 "$TMP/rounds" | median)
		exec_in=$(cut -d' ' -f2 "$TMP/rounds" | median)
		exec_in_lo=$(cut -d' ' -f3 "$TMP/rounds" | median)
		loader_alone=$(cut -d' ' -f4 "$TMP/rounds" | median)
		exec_alone=$(cut -d' ' -f5 "$TMP/rounds" | median)
		exec_alone_lo=$(cut -d' ' -f6 "$TMP/rounds" | median)
		loader_f=$(cut -d' ' -f7 "$TMP/rounds" | median)
		exec_f=$(cut -d' ' -f8 "$TMP/rounds" | median)
		# -f's own cost: its load and relocate against a lone run's (a
		# lone -f run's exec phase is the top process's, cloned from
		# ldprof, which the harness's children are not).
		loader_net=$(awk -v i="$loader_in" -v a="$loader_alone" -v ea="$exec_alone" -v f="$loader_f" -v ef="$exec_f" \
			'BEGIN { print i - ((f - ef) - (a - ea)) }')
		diag "try $try, $(wc -l <"$TMP/rounds") rounds: loader $loader_in us inside the harness, $loader_alone alone; load and relocate $(awk -v f="$loader_f" -v e="$exec_f" 'BEGIN { print f - e }') in a lone -f run, so $loader_net less -f's own cost; exec phase $exec_in and $exec_alone, the low ends of their CIs $exec_in_lo and $exec_alone_lo"
		near "$loader_net" "$loader_alone" 0.25 && near "$exec_alone_lo" "$exec_in_lo" 0.25 && break
	done
	within "sh.dynamic's loader per exec inside the harness, less -f's own cost, and alone" "$loader_net" "$loader_alone" 0.25
	within "sh.dynamic's exec phase inside the harness and alone (the low ends of their CIs)" "$exec_alone_lo" "$exec_in_lo" 0.25
else
	skip "no per-exec records of sh.dynamic (the shim's records are not joined to the tree)"
fi
done_testing
