#!/bin/sh
# ldprof audit: ranks the dynamic programs under a tree by modelled loader
# cost, lists static ones, reports bad entries as errors without stopping,
# and names the libraries that cost the most across the set.
. "$(dirname "$0")/lib.sh"

tree=$TMP/tree
mkdir -p "$tree/bin" "$tree/sub"
cp "$FIXTURES/run-diamond/prog" "$FIXTURES/run-diamond/liba.so" "$FIXTURES/run-diamond/libb.so" \
	"$FIXTURES/run-diamond/libd.so" "$tree/bin/"
cp "$FIXTURES/run-output/prog" "$tree/sub/small"
cp "$TOP/samples/sh.static" "$tree/bin/static"
printf '#!/bin/sh\n' >"$tree/bin/script"
printf '\177ELF\002\001\001' >"$tree/bin/truncated"
ln -s "$tree/nowhere" "$tree/bin/broken"
ln -s /bin/bash "$tree/bin/outside"

"$LDPROF" audit --json "$tree" >"$TMP/j" 2>"$TMP/e"
check "runs" test $? -eq 0
expect_eq "schema" ldprof-audit/1 "$(json_get "$TMP/j" '["schema"]')"
expect_eq "the dynamic programs and libraries are found, ranked worst first" true \
	"$(json_eval "$TMP/j" "[e['loader_cost_us'] for e in d['entries'] if e['kind'] == 'dynamic'] == sorted([e['loader_cost_us'] for e in d['entries'] if e['kind'] == 'dynamic'], reverse=True)")"
expect_eq "5 dynamic ELF files (prog, three libraries, small)" 5 \
	"$(json_eval "$TMP/j" "sum(e['kind'] == 'dynamic' for e in d['entries'])")"
expect_eq "the diamond program loads 4 libraries" 4 \
	"$(json_eval "$TMP/j" "[e['libraries'] for e in d['entries'] if e['path'].endswith('/bin/prog')][0]")"
expect_eq "it costs more than the one-library program" true \
	"$(json_eval "$TMP/j" "[e['loader_cost_us'] for e in d['entries'] if e['path'].endswith('/bin/prog')][0] > [e['loader_cost_us'] for e in d['entries'] if e['path'].endswith('/small')][0]")"
expect_eq "the static program is listed as static" static \
	"$(json_eval "$TMP/j" "[e['kind'] for e in d['entries'] if e['path'].endswith('/static')][0]")"
expect_eq "the broken link and the truncated ELF are errors" "broken|truncated" \
	"$(json_eval "$TMP/j" "'|'.join(sorted(('broken' if 'broken' in e['error'] else 'truncated' if 'truncated' in e['error'] else e['error']) for e in d['entries'] if e['kind'] == 'error'))")"
expect_eq "errors name their file once" true \
	"$(json_eval "$TMP/j" "all(not e['error'].startswith(e['path']) for e in d['entries'] if e['kind'] == 'error')")"
cp "$FIXTURES/run-diamond/a.o" "$tree/sub/"
expect_eq "the script is not an ELF file: not listed" 0 \
	"$(json_eval "$TMP/j" "sum(e['path'].endswith('/script') for e in d['entries'])")"
expect_eq "links out of the tree are not followed" 0 \
	"$(json_eval "$TMP/j" "sum(e['path'].endswith('/outside') for e in d['entries'])")"
expect_eq "the library summary counts users: libd (prog, liba, libb), libc (prog, small)" "3 2" \
	"$(json_eval "$TMP/j" "' '.join(str(l['users']) for p in ('/libd.so', '/libc.so.6') for l in d['libraries'] if l['path'].endswith(p))")"

"$LDPROF" audit -L --json "$tree" >"$TMP/jl" 2>/dev/null
expect_eq "-L follows the link out of the tree" 1 \
	"$(json_eval "$TMP/jl" "sum(e['path'].endswith('/outside') for e in d['entries'])")"

"$LDPROF" audit -j2 --json "$tree" >"$TMP/j2" 2>/dev/null
expect_eq "-j2 finds the same entries" \
	"$(json_eval "$TMP/j" "sorted((e['path'], e['kind']) for e in d['entries'])")" \
	"$(json_eval "$TMP/j2" "sorted((e['path'], e['kind']) for e in d['entries'])")"
expect_eq "-j2 gives the same costs" \
	"$(json_eval "$TMP/j" "sorted(round(e.get('loader_cost_us') or 0, 3) for e in d['entries'])")" \
	"$(json_eval "$TMP/j2" "sorted(round(e.get('loader_cost_us') or 0, 3) for e in d['entries'])")"

"$LDPROF" audit "$tree" >"$TMP/t" 2>&1
check "text: the summary" grep -q "^8 ELF files: 5 dynamic, 1 static, 2 errors" "$TMP/t"
check "text: the libraries that cost the most" grep -q "libd.so: loaded by 3 binaries" "$TMP/t"
check "text: a relocatable object is not an entry" sh -c "! grep -qF 'sub/a.o' '$TMP/t'"
"$LDPROF" audit --format csv -o "$TMP/a.csv" "$tree" 2>/dev/null
expect_eq "csv: a header and one row per entry" 9 "$(wc -l <"$TMP/a.csv")"
check "csv: the columns" grep -q '^path,kind,loader_cost_us,share,' "$TMP/a.csv"
expect_eq "csv: every row says its figures are the reference machine's" 8 \
	"$(grep -c ',uncalibrated$' "$TMP/a.csv")"

"$LDPROF" audit --measure --runs 3 --json "$tree/sub" >"$TMP/jm" 2>/dev/null
expect_eq "--measure runs it and keeps the figures" true \
	"$(json_eval "$TMP/jm" "d['entries'][0]['measured_total_us'] > d['entries'][0]['measured_loader_us'] > 0")"
"$LDPROF" audit --json "$TMP/none" "$tree/sub" >"$TMP/jn" 2>"$TMP/jn.err"
expect_eq "a missing path is bad input: status 2 once the others are audited" 2 $?
check "... said on stderr, saying why" grep -Fxq "ldprof: audit: $TMP/none: No such file or directory" "$TMP/jn.err"
expect_eq "... and the path given beside it is audited" true \
	"$(json_eval "$TMP/jn" "any(e['path'].startswith('$tree/sub/') for e in d['entries'])")"
expect_eq "a missing path is one error entry, saying why" "error|No such file or directory" \
	"$(json_eval "$TMP/jn" "'|'.join(e['kind'] + '|' + e['error'] for e in d['entries'] if e['path'] == '$TMP/none')")"
"$LDPROF" audit >/dev/null 2>&1
expect_eq "no path: usage error" 2 $?
done_testing
