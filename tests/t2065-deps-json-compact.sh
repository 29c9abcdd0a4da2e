#!/bin/sh
# deps --json's layout (docs/json.md): compact, one line, when the output is
# not a terminal; indented on a terminal and with --pretty; both the same
# document, bindings included (the compact bindings are assembled apart).
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
# Programs with missing libraries, versions, copies, IFUNCs, names to escape.
files="$FIX/deps-flags/prog $FIX/deps-search/prog-runpath $FIX/deps-copy/prog"
files="$files $FIX/deps-missing/prog $FIX/deps-versions/prog $FIX/deps-ifunc/prog /bin/sh"
# shellcheck disable=SC2086 # paths without spaces
"$LDPROF" deps --json --bindings $files >"$TMP/compact" 2>/dev/null
expect_eq "not a terminal: the document is one line" 1 "$(wc -l <"$TMP/compact")"
check "compact: no space between a key and its value" grep -q '^{"schema":"ldprof-deps/1","loader":{' "$TMP/compact"
# shellcheck disable=SC2086
"$LDPROF" deps --json --bindings --pretty $files >"$TMP/pretty" 2>/dev/null
check "--pretty: one value a line, indented" grep -q '^  "schema": "ldprof-deps/1",$' "$TMP/pretty"
# shellcheck disable=SC2086
"$LDPROF" deps --format json --pretty -o "$TMP/pretty-o" --bindings $files 2>/dev/null
check "--pretty -o FILE writes what --pretty prints" cmp -s "$TMP/pretty" "$TMP/pretty-o"

cat >"$TMP/same.py" <<'EOF'
import json, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
n = sum(len(f.get("bindings", [])) for f in a["files"])
print("same" if a == b and n > 500 else "differ (%d bindings)" % n)
EOF
expect_eq "compact and pretty parse to the same document" same \
	"$(python3 "$TMP/same.py" "$TMP/compact" "$TMP/pretty")"

# Byte for byte, the layouts are those of Python's json.dumps (indented by
# two; no spaces) of the same document: the bindings, assembled from
# pieces, and everything else, from the writer's calls.
cat >"$TMP/layout.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
pretty = json.dumps(d, indent=2, ensure_ascii=False) + "\n"
compact = json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n"
ok = [open(p, encoding="utf-8").read() == want
      for p, want in ((sys.argv[1], compact), (sys.argv[2], pretty))]
print(" ".join("same" if o else "differ" for o in ok))
EOF
expect_eq "compact and pretty are json.dumps' layouts" "same same" \
	"$(python3 "$TMP/layout.py" "$TMP/compact" "$TMP/pretty")"

# A symbol, version or path with bytes to escape reads back the same in both.
mkdir -p "$TMP/odd"
cp "$FIX/deps-flags/prog" "$TMP/odd/pr\"o\\g$(printf '\t\377')"
"$LDPROF" deps --json --bindings "$TMP/odd/"* >"$TMP/oc" 2>/dev/null
"$LDPROF" deps --json --bindings --pretty "$TMP/odd/"* >"$TMP/op" 2>/dev/null
expect_eq "an escaped name: the same document" true \
	"$(python3 -c 'import json, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
print(str(a == b and a["files"][0]["file"].encode("utf-8", "surrogateescape").endswith(b"\t\377")).lower())' "$TMP/oc" "$TMP/op")"

# On a terminal the default is pretty (python's pty stands in for one).
cat >"$TMP/on-a-pty.py" <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.buffer.write(out.replace(b"\r\n", b"\n"))
EOF
python3 "$TMP/on-a-pty.py" "$LDPROF" deps --json "$FIX/deps-copy/prog" >"$TMP/tty" 2>/dev/null
check "a terminal: indented by default" grep -q '^  "schema": "ldprof-deps/1",$' "$TMP/tty"
"$LDPROF" deps --json --pretty "$FIX/deps-copy/prog" >"$TMP/tty-want" 2>/dev/null
check "a terminal: the --pretty document" cmp -s "$TMP/tty" "$TMP/tty-want"
python3 "$TMP/on-a-pty.py" "$LDPROF" deps --json -o "$TMP/from-tty" "$FIX/deps-copy/prog" \
	>/dev/null 2>&1
expect_eq "a terminal, -o FILE: the file gets the compact document" 1 "$(wc -l <"$TMP/from-tty")"

"$LDPROF" deps --pretty "$FIX/deps-copy/prog" >/dev/null 2>"$TMP/e"
expect_eq "--pretty without --json: exit 2" 2 $?
check "--pretty without --json is explained" grep -q "ldprof deps: --pretty is for --json output" "$TMP/e"
"$LDPROF" deps -h >"$TMP/h" 2>&1
check "deps -h documents --pretty" grep -q -- "--pretty" "$TMP/h"

# The writer's own buffer: a write error still reaches the exit status.
if [ -w /dev/full ]; then
	"$LDPROF" deps --json --bindings "$FIX/deps-flags/prog" >/dev/full 2>"$TMP/e"
	expect_eq "a full disk: exit 1" 1 $?
	check "a full disk is told" grep -q "ldprof: write error on standard output" "$TMP/e"
else
	skip "no /dev/full"
fi
done_testing
