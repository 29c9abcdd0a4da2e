#!/bin/sh
# The "ldprof-deps/1" JSON document (docs/analyzer.md): every documented
# field is there with its type, indices point at objects, totals add up,
# and several FILEs (static ones too) make one document.
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
files="$FIX/deps-flags/prog $FIX/deps-search/prog-runpath $FIX/deps-copy/prog"
if [ -x "$TOP/samples/sh.static" ]; then
	files="$files $TOP/samples/sh.static"
fi
# shellcheck disable=SC2086 # a list of paths without spaces
"$LDPROF" deps --json --bindings $files >"$TMP/j" 2>"$TMP/e"
expect_eq "several FILEs: exit 0" 0 $?

cat >"$TMP/schema.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
problems = []
def need(obj, where, **fields):
    for k, t in fields.items():
        if k not in obj:
            problems.append("%s: no %s" % (where, k))
        elif not isinstance(obj[k], t):
            problems.append("%s.%s: %s is not %s" % (where, k, type(obj[k]).__name__, t))
S, I, B, L, D, N = str, int, bool, list, dict, (int, float)
O = (str, type(None))
OI = (int, type(None))
need(d, "doc", schema=S, loader=D, files=L)
if d.get("schema") != "ldprof-deps/1":
    problems.append("schema is %r" % d.get("schema"))
need(d["loader"], "loader", model=S, platform=S, glibc_hwcaps=L, subdirectories=L,
     ld_so_cache=O, library_path=O, preload=L, bind_now=B, vdso=B)
for f in d["files"]:
    w = f["file"]
    need(f, w, file=S, kind=S, interpreter=O, static=B, fatal=O, objects=L, scope=L,
         init_order=L, totals=D, unused=L, missing=D, bindings=L)
    n = len(f["objects"])
    if f["static"]:
        continue
    for o in f["objects"]:
        ow = "%s[%d]" % (w, o["index"])
        need(o, ow, index=I, name=S, path=O, role=S, missing=B, found=D, loaded_by=OI,
             scope_position=I, needed=L)
        need(o["found"], ow + ".found", via=S, **{"from": O}, directory=O)
        for nd in o["needed"]:
            need(nd, ow + ".needed", name=S, object=OI, how=S, tag=S, symbols=I)
        if o["missing"]:
            need(o, ow, tried=L)
            continue
        need(o, ow, facts=D, binding=D, imports=L)
        fa = o["facts"]
        need(fa, ow + ".facts", kind=S, soname=O, rpath=O, runpath=O, relocations=D, flags=D,
             hash=D, init_functions=I, fini_functions=I, load_segments=L,
             versions_needed=L, versions_defined=L)
        need(fa["relocations"], ow + ".relocations", total=I, relative=I, relr=I, glob_dat=I,
             jump_slot=I, symbolic=I, tls=I, irelative=I, copy=I, other=I,
             needing_lookup=I, pages_written=I, pages_faulted=I)
        need(fa["flags"], ow + ".flags", bind_now=B, dt_bind_now=B, df_bind_now=B,
             df_1_now=B, textrel=B, relro=B, relro_size=I, symbolic=B, nodeflib=B)
        need(fa["hash"], ow + ".hash", style=S, has_gnu=B, has_sysv=B, buckets=I,
             used_buckets=I, average_chain=N, longest_chain=I, bloom_words=I, symbols=I)
        need(o["binding"], ow + ".binding", relocated=B, lazy=B, startup=D, deferred=D,
             ifunc_calls=I, undefined=I, weak_undefined=I)
        for k in ("startup", "deferred"):
            need(o["binding"][k], ow + "." + k, lookups=I, cached=I, probes=I,
                 bloom_rejects=I, chain_entries=I, strcmps=I)
    t = f["totals"]
    for k in ("lookups", "cached", "probes", "bloom_rejects", "chain_entries", "strcmps"):
        s = sum(o["binding"]["startup"][k] for o in f["objects"] if "binding" in o)
        if s != t[k]:
            problems.append("%s: totals.%s %d, objects add up to %d" % (w, k, t[k], s))
    scope = f["scope"]
    if sorted(scope) != sorted(f["init_order"]):
        problems.append("%s: init_order is not the scope reordered" % w)
    if f["init_order"][0] != 0:
        problems.append("%s: the program does not come first in init_order" % w)
    for bd in f["bindings"]:
        need(bd, w + ".binding", symbol=S, version=O, type=S, flags=L)
        for k in ("from", "to"):
            if bd[k] is not None and not 0 <= bd[k] < n:
                problems.append("%s: binding %s index %r" % (w, k, bd[k]))
    need(f["missing"], w + ".missing", libraries=L, preloads=L, versions=L, symbols=L)
print("\n".join(problems) if problems else "ok")
EOF
out=$(python3 "$TMP/schema.py" "$TMP/j")
expect_eq "the document has every documented field, consistent" ok "$out"

expect_eq "one entry per FILE" "$(echo "$files" | wc -w)" "$(json_eval "$TMP/j" 'len(d["files"])')"
expect_eq "the bindings of a program with a missing library" true \
	"$(json_eval "$TMP/j" 'any(b["to"] is None for b in d["files"][1]["bindings"])')"
expect_eq "without --bindings, no bindings" false \
	"$("$LDPROF" deps --json "$FIX/deps-copy/prog" | python3 -c 'import json,sys; print(str("bindings" in json.load(sys.stdin)["files"][0]).lower())')"
# The loader facts are this CPU's and Debian's.
expect_eq "subdirectories end with the directory itself" '""' \
	"$(json_eval "$TMP/j" 'json.dumps(d["loader"]["subdirectories"][-1])')"
# Programs analysed together share parsed libraries and relocation results
# (and threads): each one's document must be what it is alone.
"$LDPROF" deps --json --bindings "$FIX"/deps-*/prog* >"$TMP/all" 2>/dev/null
for p in "$FIX"/deps-*/prog*; do
	"$LDPROF" deps --json --bindings --jobs 1 "$p" >"$TMP/one" 2>/dev/null
	python3 -c 'import json, sys
a = [f for f in json.load(open(sys.argv[1]))["files"] if f["file"] == sys.argv[3]][0]
b = json.load(open(sys.argv[2]))["files"][0]
sys.exit(a != b)' "$TMP/all" "$TMP/one" "$p" || echo "$p" >>"$TMP/differ"
done
check "each program is the same alone as among the others" test ! -s "$TMP/differ"

# A locale whose decimal point is a comma, compiled here: clean machines
# have none installed, and glibc would quietly fall back to C.
mkdir -p "$TMP/loc"
if localedef -i de_DE -f UTF-8 "$TMP/loc/de_DE.UTF-8" 2>/dev/null &&
	[ "$(LOCPATH=$TMP/loc LC_ALL=de_DE.UTF-8 locale decimal_point)" = "," ]; then
	LOCPATH=$TMP/loc LC_ALL=de_DE.UTF-8 "$LDPROF" deps --json "$FIX/deps-flags/prog" \
		>"$TMP/de" 2>/dev/null
	expect_eq "numbers keep the C decimal point in a comma locale" true \
		"$(json_eval "$TMP/de" 'any(isinstance(o["facts"]["hash"]["average_chain"], float) for o in d["files"][0]["objects"] if "facts" in o)')"
else
	skip "cannot compile the de_DE.UTF-8 locale (package locales)"
fi
done_testing
