#!/bin/sh
# The static-link estimate, checked against real pairs of builds: the sample
# shell always, bash and zsh when their -static packages are installed. The
# bench holds it to 25%; this test to 50% on fewer runs, or to CIs that
# overlap when the machine is too busy to measure the difference to 50%.
. "$(dirname "$0")/lib.sh"

# The estimate needs this machine's figures.
use_calibration
check "calibrated" test -s "$LDPROF_CALIBRATION"

for pair in "$TOP/samples/sh.static|$TOP/samples/sh.dynamic|$TOP/samples/foo" \
	"/bin/bash-static|/bin/bash|-c exit" "/bin/zsh-static|/bin/zsh|-c exit"; do
	dyn=$(echo "$pair" | cut -d'|' -f2)
	st=$(echo "$pair" | cut -d'|' -f1)
	if [ ! -x "$st" ] || [ ! -x "$dyn" ]; then
		skip "$st is not installed"
		continue
	fi
	if LDPROF=$LDPROF "$TOP/tools/validate-verdict" -n 100 -t 50 -c "$pair" >"$TMP/v" 2>&1; then
		ok "$(basename "$dyn"): predicted vs measured saving, error $(tail -n 1 "$TMP/v" | awk '{ print $NF }')"
		diag "$(tail -n 1 "$TMP/v")"
	else
		not_ok "$(basename "$dyn"): the estimate is off by more than 50%"
		sed 's/^/# /' "$TMP/v"
	fi
done

# The verdict's shape: a saving with its CI, per-library parts, ranked advice.
"$LDPROF" -n 20 --json "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/j"
expect_eq "the verdict has a CI around it" true \
	"$(json_eval "$TMP/j" "d['verdict']['ci95'][0] <= d['verdict']['static_link_saved_us'] <= d['verdict']['ci95'][1]")"
expect_eq "each library's part is there" true \
	"$(json_eval "$TMP/j" "all(l['static_link_saved_us'] >= 0 for l in d['libraries'] if l['role'] == 'library')")"
expect_eq "advice is ranked by saving, linking statically first" "link statically" \
	"$(json_eval "$TMP/j" "d['advice'][0]['what']")"
expect_eq "advice is sorted" true \
	"$(json_eval "$TMP/j" "all(a['saved_us'] >= b['saved_us'] for a, b in zip(d['advice'], d['advice'][1:]))")"
"$LDPROF" -n 10 "$TOP/samples/sh.dynamic" "$TOP/samples/foo" >"$TMP/t"
check "text: the verdict line" grep -Eq "linking statically would save ≈ [0-9.]+ (µs|ms) per exec \(±" "$TMP/t"
done_testing
