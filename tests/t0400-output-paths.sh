#!/bin/sh
# -o never destroys what it names, on every command that takes it: a device
# stays a device, a FIFO's reader gets the output, a symbolic link stays a
# link and its target gets the output, an input is never overwritten, and
# an unusable path is refused before anything runs.
. "$(dirname "$0")/lib.sh"

# Every ldprof below is bounded, so that a hang fails instead of hanging.
T="timeout 60"
cp /bin/true "$TMP/prog"
# A program that leaves a mark when it runs: it must not run for a bad -o.
printf '#!/bin/sh\ntouch "$0.ran"\n' >"$TMP/mark.sh"
chmod +x "$TMP/mark.sh"
$T "$LDPROF" record -n 2 -w 0 --no-overhead -o "$TMP/t.ldprof" /bin/true 2>/dev/null
cp "$TMP/t.ldprof" "$TMP/t2.ldprof"

# write_to COMMAND OUT [PROGRAM]: a quick run of COMMAND with -o OUT.
write_to() {
	c=$1 out=$2 prog=${3:-/bin/true}
	case $c in
	run | record) $T "$LDPROF" "$c" -n 1 -w 0 --no-overhead -o "$out" "$prog" ;;
	compare) $T "$LDPROF" compare -n 1 -w 0 -o "$out" "$prog" "$prog" -- ;;
	report) $T "$LDPROF" report -o "$out" "$TMP/t.ldprof" ;;
	diff) $T "$LDPROF" diff -o "$out" "$TMP/t.ldprof" "$TMP/t2.ldprof" ;;
	deps) $T "$LDPROF" deps -o "$out" "$prog" ;;
	audit) $T "$LDPROF" audit -o "$out" "$prog" ;;
	calibrate) $T "$LDPROF" calibrate --quick -n 5 -o "$out" ;;
	*) return 99 ;;
	esac
}

# overwrite_input COMMAND: -o names one of the command's inputs.
overwrite_input() {
	case $1 in
	run | record) $T "$LDPROF" "$1" -n 1 -w 0 -o "$TMP/prog" "$TMP/prog" ;;
	deps | audit) $T "$LDPROF" "$1" -o "$TMP/prog" "$TMP/prog" ;;
	compare) $T "$LDPROF" compare -n 1 -w 0 -o "$TMP/prog" "$TMP/prog" /bin/true -- ;;
	report) $T "$LDPROF" report -o "$TMP/t.ldprof" "$TMP/t.ldprof" ;;
	diff) $T "$LDPROF" diff -o "$TMP/t2.ldprof" "$TMP/t.ldprof" "$TMP/t2.ldprof" ;;
	*) return 99 ;;
	esac
}

# The commands that take -o, from the command table.
"$LDPROF" help >"$TMP/help"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$TMP/help")
with_o=
for c in $cmds; do
	"$LDPROF" help "$c" | grep -q -- '^  -o, --output FILE' && with_o="$with_o $c"
done
check "several commands take -o ($with_o)" test "$(echo "$with_o" | wc -w)" -ge 8

# failed STATUS: a failure, neither a timeout nor a command this test cannot run.
failed() {
	[ "$1" -ne 0 ] && [ "$1" -ne 124 ] && [ "$1" -ne 99 ]
}

# bad_output COMMAND PATH MESSAGE: refused with MESSAGE, before anything runs.
bad_output() {
	c=$1 out=$2 msg=$3
	rm -f "$TMP/mark.sh.ran"
	write_to "$c" "$out" "$TMP/mark.sh" >/dev/null 2>"$TMP/e"
	st=$?
	check "$c -o '$out': fails ($st)" failed $st
	check "$c -o '$out': says why" grep -q -- "^ldprof: -o $msg" "$TMP/e"
	check "$c -o '$out': nothing ran" test ! -e "$TMP/mark.sh.ran"
}

for c in $with_o; do
	bad_output "$c" '' "'': the file name is empty"
	if [ "$c" = calibrate ]; then
		# calibrate creates its directories; a file in the way still fails.
		: >"$TMP/afile"
		bad_output "$c" "$TMP/afile/sub/x" "$TMP/afile/sub/x: $TMP/afile is not a directory"
		continue
	fi
	bad_output "$c" "$TMP/no/such/dir/x" "$TMP/no/such/dir/x: directory does not exist"
	bad_output "$c" "$TMP" "$TMP: is a directory"

	# The output is one of the inputs: refused, the input intact.
	cp /bin/true "$TMP/prog"
	cp "$TMP/t.ldprof" "$TMP/t.keep"
	cp "$TMP/t2.ldprof" "$TMP/t2.keep"
	overwrite_input "$c" >/dev/null 2>"$TMP/e"
	st=$?
	check "$c: -o an input fails ($st)" failed $st
	check "$c: -o an input says so" grep -q "refusing to overwrite it" "$TMP/e"
	check "$c: the input is intact" \
		sh -c 'cmp -s /bin/true "$1/prog" && cmp -s "$1/t.ldprof" "$1/t.keep" &&
			cmp -s "$1/t2.ldprof" "$1/t2.keep"' sh "$TMP"

	# A descriptor by name: standard output, here a file.
	write_to "$c" /dev/fd/1 >"$TMP/fd1.$c" 2>"$TMP/e"
	expect_eq "$c -o /dev/fd/1: exit 0" 0 $?
	check "$c -o /dev/fd/1: the output is on stdout" test -s "$TMP/fd1.$c"

	# A FIFO with a reader: the reader gets the output, the FIFO stays.
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	timeout 20 cat "$TMP/fifo" >"$TMP/fifo.out" &
	reader=$!
	write_to "$c" "$TMP/fifo" >/dev/null 2>"$TMP/e"
	expect_eq "$c -o FIFO: exit 0" 0 $?
	wait $reader
	expect_eq "$c -o FIFO: the reader got everything" 0 $?
	check "$c -o FIFO: the reader got the output" test -s "$TMP/fifo.out"
	check "$c -o FIFO: still a FIFO" test -p "$TMP/fifo"

	# A character device (as root: a copy of /dev/null, never the real one).
	rm -f "$TMP/null"
	if mknod "$TMP/null" c 1 3 2>/dev/null; then
		write_to "$c" "$TMP/null" >/dev/null 2>"$TMP/e"
		expect_eq "$c -o DEVICE: exit 0" 0 $?
		check "$c -o DEVICE: still a character device" test -c "$TMP/null"
	else
		skip "$c -o DEVICE: mknod needs root"
		skip "$c -o DEVICE: mknod needs root"
	fi
done

# A relative symbolic link, dangling and then not: the target is written,
# the link stays. calibrate takes half a minute: t0225 stores its
# calibration through a dangling link and checks the same.
for c in $with_o; do
	[ "$c" = calibrate ] && continue
	rm -f "$TMP/link" "$TMP/target"
	ln -s target "$TMP/link"
	for pass in new existing; do
		write_to "$c" "$TMP/link" >/dev/null 2>"$TMP/e"
		expect_eq "$c -o SYMLINK ($pass target): exit 0" 0 $?
		check "$c -o SYMLINK ($pass target): still a link" test -L "$TMP/link"
		check "$c -o SYMLINK ($pass target): the target has the output" \
			test -s "$TMP/target"
	done
done
done_testing
