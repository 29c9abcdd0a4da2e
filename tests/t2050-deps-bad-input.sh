#!/bin/sh
# Malformed ELF files get "ldprof: FILE: WHY" and exit 2, never a crash or a
# hang: each case of tools/deps-mkbad.py breaks one thing in a fixture
# (headers, segments, string table, hash chains, relocation and version
# tables), as the program itself and as a library it needs.
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
BAD=$TMP/bad
python3 "$TOP/tools/deps-mkbad.py" "$BAD" "$FIX/deps-flags/libgnu.so" \
	"$FIX/deps-flags/libsysv.so" "$FIX/deps-versions/prog-default"
check "the malformed files were written" test -s "$BAD/cases"

# run_bounded SECONDS COMMAND...: a hang is a failure too.
run_bounded() {
	limit=$1
	shift
	timeout "$limit" "$@"
}

tab=$(printf '\t')
while IFS=$tab read -r name expect; do
	run_bounded 10 "$LDPROF" deps "$BAD/$name" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "^ldprof: $BAD/$name: .*$expect" "$TMP/err" &&
		[ "$(wc -l <"$TMP/err")" -eq 1 ]; then
		ok "$name: $expect"
	else
		not_ok "$name: $expect"
		diag "exit $st, stderr: $(head -c 300 "$TMP/err")"
	fi
done <"$BAD/cases"

# The same files as a library the program needs: ld.so would stop, so does
# ldprof, naming the library (or skipping it, as ld.so skips another ELF
# class or machine while it searches).
mkdir "$TMP/lib"
for name in text elf32 aarch64 strtab-outside gnu-bucket-out-of-range sysv-chain-cycle \
	relasz-larger-than-file truncated-middle; do
	cp "$BAD/$name" "$TMP/lib/libweak1.so"
	run_bounded 10 "$LDPROF" deps --json --library-path "$TMP/lib" "$FIX/deps-weak/prog" \
		>"$TMP/out" 2>"$TMP/err"
	st=$?
	case $name in
	elf32 | aarch64)
		# Passed over: the next directory (RUNPATH) has the real one.
		expect_eq "a library of another class or machine is skipped ($name)" \
			"0 $FIX/deps-weak/libweak1.so" \
			"$st $(json_eval "$TMP/out" '[o["path"] for o in d["files"][0]["objects"] if o["name"] == "libweak1.so"][0]')"
		;;
	*)
		if [ $st -eq 2 ] && grep -q "^ldprof: $TMP/lib/libweak1.so: .*(needed by $FIX/deps-weak/prog)" "$TMP/err"; then
			ok "a malformed library stops loading ($name)"
		else
			not_ok "a malformed library stops loading ($name)"
			diag "exit $st, stderr: $(head -c 300 "$TMP/err")"
		fi
		;;
	esac
done

mkdir "$TMP/dir"
"$LDPROF" deps "$TMP/dir" >/dev/null 2>"$TMP/err"
expect_eq "a directory: exit 2" 2 $?
check "a directory is named" grep -q "^ldprof: $TMP/dir: is a directory" "$TMP/err"
mkfifo "$TMP/fifo"
run_bounded 10 "$LDPROF" deps "$TMP/fifo" >/dev/null 2>"$TMP/err"
expect_eq "a FIFO: exit 2, no hang" 2 $?

# A COPY relocation whose symbol claims 2^62 bytes in a segment that claims
# 2^50: the pages it writes are counted within bounds, not for ever (the
# fuzzer's timeout of 2026-12-05).
python3 - "$TOP/tools" "$FIX/deps-copy/prog" "$TMP/hostile-copy" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
from elfimage import ELFFile
data = bytearray(open(sys.argv[2], "rb").read())
e = ELFFile(open(sys.argv[2], "rb"))
ds = e.get_section_by_name(".dynsym")
for i, sym in enumerate(ds.iter_symbols()):
    if sym.name in ("pvar", "dvar"):
        struct.pack_into("<Q", data, ds["sh_offset"] + 24 * i + 16, 1 << 62)
for i, ph in enumerate(e.iter_segments()):
    if ph["p_type"] == "PT_LOAD" and ph["p_flags"] & 2:
        struct.pack_into("<Q", data, e["e_phoff"] + 56 * i + 40, 1 << 50)
open(sys.argv[3], "wb").write(data)
PY
# written FILE: the program's pages_written in FILE (deps --json).
written() {
	json_eval "$1" "[o['facts']['relocations']['pages_written'] for o in d['files'][0]['objects'] if o['role'] == 'program'][0]"
}
"$LDPROF" deps --json "$FIX/deps-copy/prog" >"$TMP/plain.json"
run_bounded 10 "$LDPROF" deps --json "$TMP/hostile-copy" >"$TMP/out" 2>"$TMP/err"
expect_eq "a copy of 2^62 bytes: an answer within 10 s, exit 0" 0 $?
plain=$(written "$TMP/plain.json")
got=$(written "$TMP/out")
check "its pages written are counted, at most 65536 a copy more ($plain unpatched, $got)" \
	awk -v p="$plain" -v g="$got" 'BEGIN { exit !(g > p && g <= p + 2 * 65536) }'
done_testing
