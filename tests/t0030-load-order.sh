#!/bin/sh
# The libraries ldprof lists, and their order, are those ld.so loads, as
# LD_TRACE_LOADED_OBJECTS prints them.
. "$(dirname "$0")/lib.sh"

# ld.so's list: resolved paths, without the vDSO and ld.so itself.
traced() {
	LD_TRACE_LOADED_OBJECTS=1 "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
}

for prog in "$FIXTURES/run-diamond/prog" "$TOP/samples/sh.dynamic" /bin/bash /usr/bin/perl \
	/usr/bin/python3 /usr/bin/git; do
	if [ ! -x "$prog" ]; then
		skip "$prog is not installed"
		continue
	fi
	"$LDPROF" -n 3 -w 0 --no-overhead --json "$prog" --version >"$TMP/j" 2>"$TMP/e" </dev/null
	json_eval "$TMP/j" "'\\n'.join(l['path'] for l in d['libraries'] if l['role'] == 'library' and not l['dlopened'])" \
		>"$TMP/ours"
	traced "$prog" >"$TMP/theirs"
	if cmp -s "$TMP/ours" "$TMP/theirs"; then
		ok "$(basename "$prog"): $(wc -l <"$TMP/ours") libraries in ld.so's order"
	else
		not_ok "$(basename "$prog"): libraries differ from LD_TRACE_LOADED_OBJECTS"
		diff "$TMP/theirs" "$TMP/ours" | sed 's/^/# /'
	fi
done
# The diamond: a and b before d, breadth first.
"$LDPROF" -n 2 -w 0 --no-overhead --json "$FIXTURES/run-diamond/prog" >"$TMP/j"
expect_eq "diamond order" "liba.so libb.so libc.so.6 libd.so" \
	"$(json_eval "$TMP/j" "' '.join(l['path'].rsplit('/', 1)[1] for l in d['libraries'] if l['role'] == 'library')")"
done_testing
