#!/bin/sh
# Bad input gets "ldprof: WHAT: WHY" and exit 2, before any run.
. "$(dirname "$0")/lib.sh"

# expect_bad DESCRIPTION PATTERN ARGS...
expect_bad() {
	desc=$1 pattern=$2
	shift 2
	"$LDPROF" -n 1 "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "^ldprof: .*$pattern" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "exit $st, stderr: $(cat "$TMP/err")"
	fi
}

expect_bad "missing file" "$TMP/nope: No such file or directory" "$TMP/nope"
expect_bad "not on PATH" "nosuchcommand-xyz: command not found in PATH" nosuchcommand-xyz
mkdir "$TMP/dir"
expect_bad "a directory" "$TMP/dir: is a directory" "$TMP/dir"
printf 'hello\n' >"$TMP/text"
chmod +x "$TMP/text"
expect_bad "a non-ELF file" "$TMP/text: not an ELF file" "$TMP/text"
printf 'x' >"$TMP/noexec"
expect_bad "not executable" "$TMP/noexec: not executable" "$TMP/noexec"
# A 32-bit ELF header, and one for AArch64, written byte by byte.
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000' >"$TMP/elf32"
dd if=/dev/zero bs=1 count=64 >>"$TMP/elf32" 2>/dev/null
chmod +x "$TMP/elf32"
expect_bad "a 32-bit ELF" "32-bit ELF is not supported" "$TMP/elf32"
{
	printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000'
	printf '\001\000\000\000'
	dd if=/dev/zero bs=1 count=40 2>/dev/null
} >"$TMP/arm64"
chmod +x "$TMP/arm64"
expect_bad "an AArch64 ELF" "ELF for AArch64 (machine 183), not x86-64" "$TMP/arm64"
printf '\177ELF\002\001' >"$TMP/trunc"
chmod +x "$TMP/trunc"
expect_bad "a truncated ELF" "truncated ELF header" "$TMP/trunc"
cp "$FIXTURES/run-output/prog" "$TMP/suid"
chmod u+s "$TMP/suid"
expect_bad "a setuid program" "set-user-ID or set-group-ID program: ld.so ignores LD_AUDIT" "$TMP/suid"
printf '#!%s/text\n' "$TMP" >"$TMP/script"
chmod +x "$TMP/script"
expect_bad "a script whose interpreter is not ELF" "$TMP/text: not an ELF file" "$TMP/script"

# A script whose interpreter is an ELF program is profiled through it.
printf '#!/bin/sh\nexit 0\n' >"$TMP/ok.sh"
chmod +x "$TMP/ok.sh"
"$LDPROF" -n 2 -w 0 --no-overhead --json "$TMP/ok.sh" >"$TMP/j" 2>"$TMP/e"
expect_eq "a #! script runs through its interpreter" 0 $?
expect_eq "its interpreter's libraries are listed" true \
	"$(json_eval "$TMP/j" 'any(l["path"].endswith("/libc.so.6") for l in d["libraries"])')"
done_testing
