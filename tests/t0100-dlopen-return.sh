#!/bin/sh
# A library opened during main is shown as such with its constructor time;
# a main that returns ends the main phase there, so atexit handlers count
# as exit.
. "$(dirname "$0")/lib.sh"

"$LDPROF" -n 15 --no-overhead --json "$FIXTURES/run-dlopen/prog" >"$TMP/j"
expect_eq "the plugin is marked dlopened" true \
	"$(json_eval "$TMP/j" "[l['dlopened'] for l in d['libraries'] if l['path'].endswith('/libplugin.so')][0]")"
spins "its constructor is 1 ms" \
	"$(json_eval "$TMP/j" "[l['init_us'] for l in d['libraries'] if l['path'].endswith('/libplugin.so')][0]")" 1000 \
	"$(json_eval "$TMP/j" "[l['init_us_ci95'][0] for l in d['libraries'] if l['path'].endswith('/libplugin.so')][0]")"
m=$(json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == 'main'][0]")
check "it runs inside main ($m us)" awk -v v="$m" 'BEGIN { exit !(v >= 1000) }'

"$LDPROF" -n 15 --no-overhead --json "$FIXTURES/run-return/prog" >"$TMP/j"
m=$(json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == 'main'][0]")
x=$(json_eval "$TMP/j" "[p['median_us'] for p in d['phases'] if p['name'] == 'exit'][0]")
check "return from main: main is short ($m us)" awk -v v="$m" 'BEGIN { exit !(v < 100) }'
check "the 300 us atexit handler is in exit ($x us)" awk -v v="$x" 'BEGIN { exit !(v >= 300) }'
done_testing
