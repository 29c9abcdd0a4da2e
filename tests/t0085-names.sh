#!/bin/sh
# Names are bytes: paths and arguments holding bytes that are not UTF-8, or
# control characters. Every JSON output stays valid UTF-8 JSON, with each
# invalid byte as \udcXX (Python's surrogateescape), so the bytes come back
# exactly (docs/json.md); every text output escapes control characters
# (C-style, the name in double quotes, as git quotes paths), so a newline
# in a name does not split a line and an ESC never reaches the terminal.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || {
	skip "python3 is needed to validate JSON"
	done_testing
	exit
}
# The program and its libraries ($ORIGIN) in a directory named with \377,
# run with an argument holding \376.
BAD=$(printf '%s/bad\377dir' "$TMP")
ARG=$(printf 'x\376y')
mkdir "$BAD"
cp "$FIXTURES"/run-diamond/prog "$FIXTURES"/run-diamond/lib*.so "$BAD/"
R="-n 3 -w 0"

# valid_json DESCRIPTION FILE: strict UTF-8 and strict JSON, and the
# program's path, or the directory, comes back as the original bytes.
valid_json() {
	if python3 - "$2" "$BAD" <<'PY' 2>"$TMP/pyerr"; then
import json, sys
text = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: no invalid byte
doc = json.loads(text)                                 # strict: no raw control character
want = sys.argv[2].encode("utf-8", "surrogateescape")
def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v
found = [s for s in strings(doc) if want in s.encode("utf-8", "surrogateescape")]
sys.exit(0 if found else 3)
PY
		ok "$1"
	else
		not_ok "$1"
		diag "$(tail -1 "$TMP/pyerr")"
	fi
}

# shellcheck disable=SC2086
{
	"$LDPROF" run $R --json "$BAD/prog" "$ARG" >"$TMP/run.json" 2>/dev/null
	valid_json "run --json" "$TMP/run.json"
	"$LDPROF" record $R -o "$TMP/a.ldprof" "$BAD/prog" "$ARG" 2>/dev/null
	"$LDPROF" record $R -o "$TMP/b.ldprof" "$BAD/prog" 2>/dev/null
	for fmt in json chrome hyperfine; do
		"$LDPROF" report --format "$fmt" "$TMP/a.ldprof" >"$TMP/report.$fmt" 2>/dev/null
		valid_json "report --format $fmt" "$TMP/report.$fmt"
	done
	"$LDPROF" diff --json "$TMP/a.ldprof" "$TMP/b.ldprof" >"$TMP/diff.json" 2>/dev/null
	valid_json "diff --json" "$TMP/diff.json"
	"$LDPROF" compare $R --json "$BAD/prog" "$BAD/prog" -- "$ARG" >"$TMP/compare.json" 2>/dev/null
	valid_json "compare --json" "$TMP/compare.json"
	"$LDPROF" deps --json "$BAD/prog" >"$TMP/deps.json" 2>/dev/null
	valid_json "deps --json" "$TMP/deps.json"
	"$LDPROF" audit --json "$BAD" >"$TMP/audit.json" 2>/dev/null
	valid_json "audit --json" "$TMP/audit.json"
}
expect_eq "the argument's bytes come back too" yes "$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
print("yes" if d["command"][1].encode("utf-8", "surrogateescape") == b"x\xfey" else d["command"])
' "$TMP/run.json")"

# --- control characters: a newline and an ESC sequence in the directory ---
CTL=$(printf '%s/new\nline\033[31mred' "$TMP")
mkdir "$CTL"
cp "$FIXTURES"/run-diamond/prog "$FIXTURES"/run-diamond/lib*.so "$CTL/"
ESCAPED='new\nline\033[31mred'
# clean DESCRIPTION FILE: no control character but the line ends (and tabs),
# and the escaped name on one line.
clean() {
	if grep -q "$(printf '[\001-\010\013-\037\177]')" "$2"; then
		not_ok "$1: no raw control characters"
		diag "$(od -c "$2" | grep -m 3 '033\|\\n.*line')"
	else
		ok "$1: no raw control characters"
	fi
	check "$1: the name is shown escaped, on one line" grep -qF "$ESCAPED" "$2"
}
# shellcheck disable=SC2086
{
	"$LDPROF" run $R --color never "$CTL/prog" "$(printf 'a\033]0;title\007')" >"$TMP/run.txt" 2>/dev/null
	clean "run" "$TMP/run.txt"
	check "run: the argument is escaped too" grep -qF '"a\033]0;title\007"' "$TMP/run.txt"
	expect_eq "run: the first line is the whole command" \
		"\"$TMP/$ESCAPED/prog\" \"a\\033]0;title\\007\"" "$(head -1 "$TMP/run.txt")"
	"$LDPROF" record $R -o "$TMP/c.ldprof" "$CTL/prog" 2>/dev/null
	"$LDPROF" report --color never "$TMP/c.ldprof" >"$TMP/report.txt" 2>/dev/null
	clean "report" "$TMP/report.txt"
	"$LDPROF" report --info "$TMP/c.ldprof" >"$TMP/info.txt" 2>/dev/null
	clean "report --info" "$TMP/info.txt"
	"$LDPROF" diff "$TMP/c.ldprof" "$TMP/c.ldprof" >"$TMP/diff.txt" 2>/dev/null
	clean "diff" "$TMP/diff.txt"
	"$LDPROF" compare $R --color never "$CTL/prog" "$CTL/prog" -- >"$TMP/compare.txt" 2>/dev/null
	clean "compare" "$TMP/compare.txt"
	"$LDPROF" deps "$CTL/prog" >"$TMP/deps.txt" 2>/dev/null
	clean "deps" "$TMP/deps.txt"
	"$LDPROF" deps --list "$CTL/prog" >"$TMP/ldd.txt" 2>/dev/null
	clean "deps --list" "$TMP/ldd.txt"
	"$LDPROF" audit "$CTL" >"$TMP/audit.txt" 2>/dev/null
	clean "audit" "$TMP/audit.txt"
	"$LDPROF" report "$CTL/missing.ldprof" 2>"$TMP/error.txt"
	clean "an error message on stderr" "$TMP/error.txt"
}
done_testing
