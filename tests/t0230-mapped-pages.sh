#!/bin/sh
# The pages of each library a program had mapped at its exit, which exit
# unmaps (fault-around maps 16 a fault): the census reads them from
# /proc/PID/smaps (Shared_Clean and Private_Clean) with the program
# stopped at its exit, and the verdict prices each at the calibration's
# unmap_page_us in the library's exit path. The oracle: gdb, stopped at
# the program's exit_group, reading the same file by its own means.
. "$(dirname "$0")/lib.sh"

export LDPROF_CALIBRATION="$TMP/absent"
prog=$FIXTURES/model-base/dyn-cxx

"$LDPROF" -n 3 --no-overhead --json "$prog" >"$TMP/j" 2>"$TMP/e"
check "dyn-cxx: runs" test $? -eq 0
pages() { json_eval "$TMP/j" "[l for l in d['libraries'] if l['path'].endswith('/$1')][0]['mapped_pages']"; }
stdcxx=$(pages libstdc++.so.6)
expect_eq "libstdc++'s mapped pages counted" true "$(python3 -c "print(str($stdcxx > 16).lower())")"
expect_eq "each library's exit path holds its mapped pages at unmap_page_us" true \
	"$(json_eval "$TMP/j" "all(l['exit_path_us'] >= l['mapped_pages'] * 0.082 - 1e-6 for l in d['libraries'] if l['role'] == 'library' and l.get('mapped_pages') and l['soname'] != 'libc.so.6')")"
expect_eq "the saving adds its parts" true \
	"$(json_eval "$TMP/j" "abs(sum(d['verdict']['parts_us'].values()) - d['verdict']['static_link_saved_us']) < 0.01")"

# The price is the calibration's: two calibrations that differ only in
# unmap_page_us leave the rest of libstdc++'s exit path the same.
base_cal=$(
	use_calibration
	echo "$LDPROF_CALIBRATION"
)
for u in 0.1 1.1; do
	sed "s/^unmap_page_us .*/unmap_page_us $u/" "$base_cal" >"$TMP/cal-$u"
	LDPROF_CALIBRATION="$TMP/cal-$u" "$LDPROF" -n 3 --no-overhead --fixed-runs 0 --json "$prog" \
		>"$TMP/u-$u" 2>/dev/null
done
rest() { json_eval "$TMP/u-$1" "(lambda l: '%.3f' % (l['exit_path_us'] - l['mapped_pages'] * $1))([l for l in d['libraries'] if l['path'].endswith('/libstdc++.so.6')][0])"; }
expect_eq "libstdc++'s exit path less its mapped pages at the calibration's unmap_page_us: the same at 0.1 and 1.1 us" \
	"$(rest 0.1)" "$(rest 1.1)"

# A recorded trace carries them: report's verdict prices the same pages.
"$LDPROF" record -n 3 --no-overhead -o "$TMP/t.ldprof" "$prog" >/dev/null 2>&1
"$LDPROF" report --json "$TMP/t.ldprof" >"$TMP/r" 2>/dev/null
# (A run of its own: ASLR moves the windows by a page or so.)
expect_eq "report of a recorded trace: libstdc++'s mapped pages, priced in its exit path" true \
	"$(json_eval "$TMP/r" "(lambda l: abs(l['mapped_pages'] - $stdcxx) <= 0.1 * $stdcxx + 2 and l['exit_path_us'] >= l['mapped_pages'] * 0.082)([l for l in d['libraries'] if l['path'].endswith('/libstdc++.so.6')][0])")"

# A program that executes another is not the one whose maps count: none.
"$LDPROF" -n 3 --no-overhead --json /bin/sh -c "exec $prog" >"$TMP/x" 2>/dev/null
expect_eq "a program that executed another: not counted" true \
	"$(json_eval "$TMP/x" "all(l.get('mapped_pages') is None for l in d['libraries'] if l['role'] == 'library')")"

if command -v gdb >/dev/null 2>&1; then
	cat >"$TMP/smaps.gdb" <<'GDB'
set pagination off
catch syscall exit_group
run
python
pid = gdb.selected_inferior().pid
cur, pages = None, {}
for l in open('/proc/%d/smaps' % pid):
    p = l.split()
    if not p[0][0].isupper():
        cur = p[5] if len(p) > 5 and p[5].startswith('/') else None
    elif cur and p[0] in ('Shared_Clean:', 'Private_Clean:'):
        pages[cur] = pages.get(cur, 0) + int(p[1]) // 4
for k, v in pages.items():
    print('pages %s %d' % (k, v))
end
kill
quit
GDB
	gdb -q -batch -x "$TMP/smaps.gdb" "$prog" >"$TMP/gdb" 2>&1
	real=$(awk '$1 == "pages" && $2 ~ /libstdc\+\+/ { print $3 }' "$TMP/gdb")
	# ASLR moves the 64 KiB windows by a page or so from run to run.
	expect_eq "gdb at exit_group: libstdc++'s clean pages, within 10% ($stdcxx against ${real:-none})" true \
		"$(python3 -c "print(str(${real:-0} > 0 and abs($stdcxx - ${real:-0}) <= 0.1 * ${real:-0} + 2).lower())")"
else
	skip "gdb is not installed (tools/install-deps)"
fi
done_testing
