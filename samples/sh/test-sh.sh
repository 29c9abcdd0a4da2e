#!/bin/sh
# test-sh.sh SHELL: check a built sample shell (samples/sh.dynamic or
# samples/sh.static) and print TAP: "ok N - what" or "not ok N - what".
# Exits non-zero if any check fails.
set -u

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 PATH-TO-BUILT-SHELL" >&2
	exit 2
fi
case $1 in
/*) SH=$1 ;;
*) SH=$(pwd)/$1 ;;	# absolute, so the cd tests cannot lose it
esac
here=$(cd "$(dirname "$0")" && pwd)
foo=$here/../foo

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

n=0
failed=0

# run CMD...: run it, setting $st, $out and $err (trailing newlines go).
run() {
	out=$("$@" 2>"$tmp/err")
	st=$?
	err=$(cat "$tmp/err")
}

# check DESC STATUS STDOUT STDERR: compare with what run() saw.
check() {
	n=$((n + 1))
	if [ "$st" = "$2" ] && [ "$out" = "$3" ] && [ "$err" = "$4" ]; then
		echo "ok $n - $1"
		return
	fi
	echo "not ok $n - $1"
	printf '#   status %s, wanted %s\n' "$st" "$2"
	printf '#   stdout [%s], wanted [%s]\n' "$out" "$3"
	printf '#   stderr [%s], wanted [%s]\n' "$err" "$4"
	failed=$((failed + 1))
}

nl='
'

run "$SH" "$foo"
check "the null script samples/foo exits 0 silently" 0 "" ""

run "$SH" -c 'echo hi; exit 3'
check "-c: echo then exit 3" 3 hi ""

run "$SH" -c 'cd /tmp; /bin/pwd'
check "cd is a builtin that changes the shell's directory" 0 /tmp ""

run "$SH" -c nosuchcmd
check "unknown command: 127 and a message" 127 "" "sh: nosuchcmd: not found"

cat >"$tmp/script" <<'SCRIPT'
# a comment line
echo one   # a trailing comment
echo 'two  words' "three $1"; echo four\ five

false
echo "status $? args $#"
SCRIPT
run "$SH" "$tmp/script" arg
check "a script with comments, quotes and arguments" 0 \
	"one${nl}two  words three arg${nl}four five${nl}status 1 args 1" ""

run "$SH" -c 'exit 0' <&-
check "-c 'exit 0' with stdin closed" 0 "" ""

run "$SH" -c 'exit 0' </dev/null
check "-c 'exit 0' with stdin from /dev/null" 0 "" ""

out=$(printf 'echo a\necho b\n' | "$SH" 2>"$tmp/err")
st=$?
err=$(cat "$tmp/err")
check "commands from a pipe on stdin" 0 "a${nl}b" ""

run "$SH" -c 'false; exit'
check "exit without N keeps the last status" 1 "" ""

# shellcheck disable=SC2016 # the shell under test does the expanding
run "$SH" -c 'echo -n x; echo "$0 $1" $NOSUCHVAR "$#"' zero one
check "echo -n, \$0, \$1, \$#; an empty unquoted expansion is no word" 0 \
	"xzero one 1" ""

: >"$tmp/noexec"
chmod 644 "$tmp/noexec"
run "$SH" -c "$tmp/noexec"
check "a file that is not executable: 126" 126 "" \
	"sh: $tmp/noexec: Permission denied"

run "$SH" -c '/bin/sh -c "kill -9 \$\$"; echo $?'
check "a child killed by signal 9 gives 137" 0 137 "Killed"

run "$SH" -c 'echo "unterminated'
check "an unterminated quote is an error" 2 "" "sh: unexpected end of file"

run "$SH" "$tmp/nonexistent"
check "a missing script file: 127" 127 "" \
	"sh: $tmp/nonexistent: No such file or directory"

echo "1..$n"
[ "$failed" -eq 0 ]
