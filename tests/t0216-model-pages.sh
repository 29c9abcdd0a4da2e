#!/bin/sh
# The page faults the relocation model prices, against the kernel's.
# - pages: the copy-on-write faults ld.so takes relocating, the pages
#   relocations write that loading has not written already (pages_faulted).
#   Loading writes the last file page of a segment with .bss after it
#   (zeroing its tail) and the .dynamic entries ld.so adjusts in place;
#   ld.so relocated itself before. Object by object.
# - read_faults: the read faults on the files' tables ld.so walks (the
#   relocations, the symbols, hashes, names and versions its lookups read)
#   and on the code of the IFUNC resolvers it calls (instruction fetches),
#   one per 64 KiB fault-around window first read, a mean over the load
#   address's alignments. In all, against the mean of three runs.
# - relro_pages: the pages ld.so's mprotect makes read-only after
#   relocating each object, against strace's.
# The kernel's: the faults inside _dl_relocate_object and the version
# check, by uprobe and the page-fault tracepoint (root and perf; skipped
# without them).
. "$(dirname "$0")/lib.sh"

m=$FIXTURES/model-base
# facts PROGRAM: "path role written faulted" for each object with a file.
facts() {
	"$LDPROF" deps --json "$1" | python3 -c 'import json, os, sys
for o in json.load(sys.stdin)["files"][0]["objects"]:
    if o.get("path") and o.get("facts"):
        r = o["facts"]["relocations"]
        print(os.path.realpath(o["path"]), o["role"], r["pages_written"], r["pages_faulted"])'
}

# A library with nothing to relocate but its own bookkeeping: its GOT and
# .init_array share the page of .dynamic, __dso_handle the page .bss
# starts in. Both are written while it is loaded.
printf 'int counter;\nint get(void) { return counter; }\n' >"$TMP/small.c"
cc -O1 -fPIC -shared -o "$TMP/libsmall.so" "$TMP/small.c"
facts "$TMP/libsmall.so" >"$TMP/small"
check "a small library's relocations write pages ($(head -1 "$TMP/small"))" \
	awk 'NR == 1 { exit !($3 >= 1) }' "$TMP/small"
check "that loading has written already: none faulted" awk 'NR == 1 { exit !($4 == 0) }' "$TMP/small"
facts "$m/with-page" >"$TMP/page"
page=$(grep '/libpage.so ' "$TMP/page")
check "one relocation on each of 300 pages: 300 faulted, the written page loading wrote aside ($page)" \
	sh -c "echo '$page' | awk '{ exit !(\$4 >= 300 && \$4 <= 301 && \$3 - \$4 <= 2) }'"

# relro_pages: the pages of each object's RELRO that ld.so makes read-only
# past the first (which every object's fixed cost holds), against strace's
# mprotect(..., PROT_READ) calls (an oracle that is not ours): the same
# pages in all, for programs whose objects have at most 33.
relro_vs_strace() { # PROGRAM ARGS: "model strace"
	"$LDPROF" -n 2 --json "$@" 2>/dev/null | python3 -c 'import json, sys
print(sum((o.get("reloc_model_counts") or {}).get("relro_pages", 0) for o in json.load(sys.stdin)["libraries"]))' \
		>"$TMP/relro.model"
	strace -f -qq -e trace=mprotect -o "$TMP/relro.strace" "$@" >/dev/null 2>&1
	printf '%s %s\n' "$(cat "$TMP/relro.model")" \
		"$(awk -F', ' '/PROT_READ\)/ { n += $2 / 4096 - 1 } END { print n + 0 }' "$TMP/relro.strace")"
}
use_calibration
if command -v strace >/dev/null 2>&1; then
	for prog in "$TOP/samples/sh.dynamic $TOP/samples/foo" "/bin/bash -c exit"; do
		# shellcheck disable=SC2086 # the command's words
		r=$(relro_vs_strace $prog)
		name=${prog%% *}
		check "relro_pages: ${name##*/}'s RELRO pages are those ld.so's mprotect makes read-only (model, strace: $r)" \
			sh -c "echo '$r' | awk '{ exit !(NF == 2 && \$1 > 0 && \$1 == \$2) }'"
	done
else
	skip "strace is not installed: the RELRO pages against it"
	skip "strace is not installed: the RELRO pages against it"
fi

# bench/vm-costs (make bench-vm) measures what pages_read and relro_pages
# price; it refuses a file too small to fill a fault-around window.
vm=$LDPROF_BUILD/bench/vm-costs
head -c 100 /etc/passwd >"$TMP/small"
"$vm" "$TMP/small" >/dev/null 2>"$TMP/vm.err"
expect_eq "bench/vm-costs: a file under 64 KiB is refused" 1 $?
check "with why" grep -q "^vm-costs: .*small: not a readable file of 64 KiB or more" "$TMP/vm.err"
"$vm" "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" 3 >"$TMP/vm.out"
check "and on libc prints the first read's price and the mprotects' ($(head -1 "$TMP/vm.out"))" \
	sh -c "grep -q '^first read of a page fault-around mapped: [0-9]* cycles' '$TMP/vm.out' &&
		test \$(grep -c '^mprotect of ' '$TMP/vm.out') = 4"

group=ldprof_t0216
need_uprobes "$group" 'rel=_dl_relocate_object' 'relret=_dl_relocate_object%return' \
	'ver=_dl_check_all_versions' 'verret=_dl_check_all_versions%return'
# against PROGRAM ARGS: each object's faulted pages against the kernel's
# write faults in its mapping while ld.so relocated; prints the objects
# that differ, then "objects N, written W, faulted F, kernel K, unmapped U".
against() {
	facts "$1" >"$TMP/facts"
	"$TOP/tests/reloc-faults.py" "$group" "$@" >"$TMP/kernel" 2>"$TMP/kernel.err" || return 1
	python3 -c 'import json, os, sys
kernel = json.load(open(sys.argv[2]))["writes"]
kernel = {os.path.realpath(p): n for p, n in kernel.items() if p.startswith("/") and p != "//anon"}
n = w = f = k = 0
for line in open(sys.argv[1]):
    path, role, written, faulted = line.split()
    if role == "vdso":
        continue
    # ld.so wrote its pages when it relocated itself, before any audit module.
    want = 0 if role == "interpreter" else int(faulted)
    got = kernel.pop(path, 0)
    n, w, f, k = n + 1, w + int(written), f + want, k + got
    if got != want:
        print("differs: %s faulted %d, kernel %d" % (path, want, got))
print("objects %d, written %d, faulted %d, kernel %d, unmapped %d" % (n, w, f, k, sum(kernel.values())))' \
		"$TMP/facts" "$TMP/kernel"
}
for p in "$m/with-page" "$m/with-cxx" "$TOP/samples/sh.dynamic $TOP/samples/foo" "/bin/bash -c exit"; do
	# shellcheck disable=SC2086
	res=$(against $p)
	name=$(basename "${p%% *}")
	check "$name: every object's faulted pages are the kernel's write faults ($(echo "$res" | tail -1))" \
		sh -c "echo '$res' | grep -q '^objects' && ! echo '$res' | grep -q '^differs'"
	echo "$res" | grep '^differs' | sed 's/^/# /'
	# pages_written alone counts more than the kernel sees.
	check "$name: the pages written alone would count more" \
		sh -c "echo '$res' | tail -1 | awk -F'[ ,]+' '{ exit !(\$4 > \$8) }'"
done

# reads PROGRAM ARGS: "model kernel", the model's read faults (the run's
# counts, summed) and the kernel's, a mean of three runs: the windows fall
# where the load address puts them. ld.so's own are not counted (it read
# its tables relocating itself), nor anonymous memory.
reads() {
	"$LDPROF" run -n 1 -w 0 --json "$@" >"$TMP/run.json" 2>"$TMP/run.err" || return 1
	for i in 1 2 3; do
		"$TOP/tests/reloc-faults.py" "$group" "$@" >"$TMP/kernel$i" 2>>"$TMP/kernel.err" || return 1
	done
	python3 -c 'import json, sys
run = json.load(open(sys.argv[1]))
model = sum(l.get("reloc_model_counts", {}).get("read_faults", 0) for l in run["libraries"])
kernel = [sum(n for k in ("reads", "fetches") for p, n in json.load(open(f))[k].items() if p.startswith("/") and p != "//anon" and "/ld-linux" not in p) for f in sys.argv[2:]]
print("%.1f %.1f" % (model, sum(kernel) / len(kernel)))' "$TMP/run.json" "$TMP/kernel1" "$TMP/kernel2" "$TMP/kernel3"
}
# Within 15% or 2 faults. ninja: libstdc++'s 600 KiB of tables (8); the
# C++ fixture; clang-14 when it is installed: libLLVM's 8 MiB of relative
# relocations, in its one read-only and executable segment (about 360).
for p in "$m/with-cxx" "/usr/bin/ninja --version" "/usr/bin/clang-14 --version"; do
	prog=${p%% *}
	[ -x "$prog" ] || continue
	# shellcheck disable=SC2086
	got=$(reads $p)
	check "$(basename "$prog"): the read faults counted are the kernel's (model, kernel: $got)" \
		sh -c "echo '$got' | awk '{ d = \$1 - \$2; if (d < 0) d = -d; exit !(NF == 2 && \$2 > 0 && (d <= 2 || d <= 0.15 * \$2)) }'"
done
done_testing
