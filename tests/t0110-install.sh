#!/bin/sh
# make install puts ldprof, its shim and the man page under DESTDIR/PREFIX,
# and the installed ldprof finds its installed shim.
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2086 # LDPROF_MAKE_ARGS holds make arguments
make -C "$TOP" -s ${LDPROF_MAKE_ARGS:-} install DESTDIR="$TMP/stage" PREFIX=/opt/ldprof \
	>"$TMP/log" 2>&1
check "make install" test $? -eq 0
for f in bin/ldprof lib/ldprof/ldprof-audit.so lib/ldprof/ldprof-preload.so \
	lib/ldprof/ldprof-audit-symbind.so lib/ldprof/gen-reloc-lib \
	share/man/man1/ldprof.1; do
	check "installs $f" test -f "$TMP/stage/opt/ldprof/$f"
done
# The staged binary looks next to itself: ../lib/ldprof.
cp -r "$TMP/stage/opt/ldprof" "$TMP/moved"
"$TMP/moved/bin/ldprof" -n 2 -w 0 --json "$FIXTURES/run-output/prog" >"$TMP/j" 2>"$TMP/e"
check "the installed ldprof runs" test $? -eq 0
expect_eq "and finds its shim" 2 "$(json_get "$TMP/j" '["valid_runs"]')"
LDPROF_SHIM_DIR=$TMP/nowhere "$TMP/moved/bin/ldprof" -n 1 /bin/true >/dev/null 2>"$TMP/e"
expect_eq "a wrong LDPROF_SHIM_DIR is an error" 1 $?
check "that names the problem" grep -q "LDPROF_SHIM_DIR=$TMP/nowhere" "$TMP/e"
# shellcheck disable=SC2086
make -C "$TOP" -s ${LDPROF_MAKE_ARGS:-} uninstall DESTDIR="$TMP/stage" PREFIX=/opt/ldprof \
	>/dev/null 2>&1
check "make uninstall removes it" test ! -e "$TMP/stage/opt/ldprof/bin/ldprof"
done_testing
