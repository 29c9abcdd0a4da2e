#!/bin/sh
# Max RSS: the program's process shares ldprof's memory until its exec,
# and the kernel counts that memory's peak in the process's maxrss. A
# small program's figure is then ldprof's and is given as a bound (at most
# that); a program that outgrows ldprof gets its own.
. "$(dirname "$0")/lib.sh"

"$LDPROF" -n 5 -w 1 --json "$TOP/samples/sh.static" "$TOP/samples/foo" >"$TMP/small" 2>"$TMP/e"
check "a small static program runs" test $? -eq 0
expect_eq "small: the figure is a bound" true "$(json_get "$TMP/small" '["usage"]["maxrss_is_bound"]')"
check "small: ldprof's own peak is known" \
	test "$(json_eval "$TMP/small" "d['usage']['launcher_rss_kb'] > 0 and d['usage']['maxrss_kb'] <= d['usage']['launcher_rss_kb']")" = true
"$LDPROF" -n 5 -w 1 "$TOP/samples/sh.static" "$TOP/samples/foo" >"$TMP/t" 2>"$TMP/e"
check "small, text: at most, and why" grep -q "max RSS at most [0-9]* KiB (medians; the kernel counts ldprof's own" "$TMP/t"

# 48 MiB written by the program itself: its own peak, above ldprof's.
"$LDPROF" -n 3 -w 1 --json /usr/bin/python3 -c 'b = bytearray(48 << 20)' >"$TMP/big" 2>"$TMP/e"
check "a program of 48 MiB runs" test $? -eq 0
expect_eq "big: its own figure, not a bound" false "$(json_get "$TMP/big" '["usage"]["maxrss_is_bound"]')"
check "big: at least the 48 MiB it wrote ($(json_get "$TMP/big" '["usage"]["maxrss_kb"]') KiB)" \
	test "$(json_eval "$TMP/big" "d['usage']['maxrss_kb'] >= 48 * 1024")" = true
done_testing
