#!/bin/sh
# Each loader rule on its fixture, asserted on ldprof's JSON: where each
# object was found and why, which definition each reference binds to, and
# the per-object facts. (t2010 checks the same programs against ld.so.)
# Descriptions name the loader's tokens literally:
# shellcheck disable=SC2016
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES

# q FILE EXPR: evaluate EXPR over the first file's document with helpers:
# o(name) the object whose name or path ends with name, b(frm, sym) the
# bindings of sym from the object frm, to(frm, sym) their target names.
cat >"$TMP/q.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
objs = f["objects"]
def o(name):
    for x in objs:
        if x["name"] == name or (x["path"] or "").endswith("/" + name) or x["path"] == name:
            return x
    raise KeyError(name)
def nm(i):
    return None if i is None else objs[i]["path"].rsplit("/", 1)[-1]
def b(frm, sym):
    return [x for x in f.get("bindings", []) if objs[x["from"]] is o(frm) and x["symbol"] == sym]
def to(frm, sym):
    return sorted(set(nm(x["to"]) for x in b(frm, sym)))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (bool, list, dict)) or v is None else v)
EOF
# deps ARGS...: the JSON document (with bindings) into $TMP/j.
deps() {
	"$LDPROF" deps --json --bindings "$@" >"$TMP/j" 2>"$TMP/e"
}
# is DESCRIPTION EXPECTED EXPR
is() {
	expect_eq "$1" "$2" "$(python3 "$TMP/q.py" "$TMP/j" "$3")"
}

S=$FIX/deps-search
deps "$S/prog-rpath"
is "RPATH finds liba" rpath 'o("liba.so")["found"]["via"]'
is "the loader's RPATH also finds liba's libb (inherited)" rpath 'o("libb.so")["found"]["via"]'
is "libb's RPATH came from the program" "$S/prog-rpath" 'o("libb.so")["found"]["from"]'
is "libb was loaded by liba" '"liba.so"' 'json.dumps(nm(o("libb.so")["loaded_by"]))'
is "libc comes from ld.so.cache" ld.so.cache 'o("libc.so.6")["found"]["via"]'
is "ld.so is the interpreter" interpreter 'o("ld-linux-x86-64.so.2")["found"]["via"]'
is "the vDSO is listed, without a file" vdso 'o("linux-vdso.so.1")["role"]'

deps "$S/prog-runpath"
is "RUNPATH finds liba" runpath 'o("liba.so")["found"]["via"]'
is "RUNPATH is not inherited: libb is missing" true 'o("libb.so")["missing"]'
is "the missing libb lists the paths tried" true \
	'len(o("libb.so")["tried"]) > 0 and o("libb.so")["tried"][-1]["path"] == "/usr/lib/libb.so"'
is "the missing library is in missing.libraries" true \
	'o("libb.so")["index"] in f["missing"]["libraries"]'

deps "$S/prog-rpath-blocked"
is "RPATH entries are searched in order" "$S/rp2/liba.so" 'o("liba.so")["path"]'
is "a loader with RUNPATH blocks every RPATH: libb missing" true 'o("libb.so")["missing"]'

deps --library-path "$S/lp" "$S/prog-runpath"
is "--library-path comes before RUNPATH" library-path 'o("liba.so")["found"]["via"]'
is "--library-path finds libb too" "$S/lp/libb.so" 'o("libb.so")["path"]'
deps --library-path "$S/lp" "$S/prog-rpath"
is "RPATH comes before --library-path" rpath 'o("liba.so")["found"]["via"]'

deps "$S/prog-nodeflib"
is "DF_1_NODEFLIB: no cache, no default directories for the program" true \
	'o("libc.so.6")["missing"]'
is "DF_1_NODEFLIB is a fact of the program" true 'objs[0]["facts"]["flags"]["nodeflib"]'

deps "$S/prog-twonames"
is "two names, one file: one object" 1 \
	'sum(1 for x in objs if (x["path"] or "").endswith("/rp/libx.so"))'
is "the second name is satisfied by the same file" '["loaded", "same-file"]' \
	'[n["how"] for n in objs[0]["needed"] if n["name"] in ("libx.so", "liby.so")]'

deps "$S/prog-soname"
is "a DT_NEEDED matches a loaded object's soname" soname \
	'[n["how"] for n in objs[0]["needed"] if n["name"] == "libq.so"][0]'

T=$FIX/deps-tokens
deps "$T/prog-tokens"
is '$LIB is lib/x86_64-linux-gnu' "$T/lib/x86_64-linux-gnu/libt1.so" 'o("libt1.so")["path"]'
is '${ORIGIN}/$PLATFORM finds libt2' true \
	'o("libt2.so")["path"] == "'"$T"'/" + d["loader"]["platform"] + "/libt2.so"'
deps "$T/prog-origin-needed"
is 'DT_NEEDED with $ORIGIN is a path' path 'objs[2]["found"]["via"]'
is 'the path expands $ORIGIN' "$T/sub/libo.so" 'objs[2]["path"]'
deps "$T/prog-hw"
best=$(python3 "$TMP/q.py" "$TMP/j" \
	'"glibc-hwcaps/%s/" % [n for n in d["loader"]["glibc_hwcaps"] if n in ("x86-64-v3", "x86-64-v2")][0]')
is "the best glibc-hwcaps subdirectory wins" "$T/hw/$best" 'o("libhw.so")["found"]["directory"]'
deps "$T/prog-hw2"
is "legacy hwcaps subdirectories are searched too" "$T/hw2/tls/" \
	'o("libhw.so")["found"]["directory"]'

V=$FIX/deps-versions
deps "$V/prog-default"
is "an unversioned-looking foo binds foo@@V2" '["V2"]' \
	'sorted(set(x["version"] for x in b("prog-default", "foo")))'
deps "$V/prog-old"
is "an old program gets the hidden foo@V1" '["V1"]' \
	'sorted(set(x["version"] for x in b("prog-old", "foo")))'
deps "$V/prog-unversioned"
is "an unversioned reference to a versioned library binds" '["libver.so"]' \
	'to("prog-unversioned", "foo")'
deps "$V/prog-future"
is "a version the library lacks is reported" '["V3", "V4"]' \
	'sorted(v["version"] for v in f["missing"]["versions"] if v["kind"] == "not-found")'
is "and its symbol is undefined" '["baz"]' '[m["symbol"] for m in f["missing"]["symbols"]]'

W=$FIX/deps-weak
deps "$W/prog"
is "the first definition in scope wins, weak or not" '["libweak1.so"]' 'to("prog", "wk")'
is "an undefined weak reference stays 0" '[["weak-undefined"]]' \
	'[x["flags"] for x in b("prog", "nowhere") if "cached" not in x["flags"]][:1]'

C=$FIX/deps-copy
deps "$C/prog"
is "a copy relocation takes the library's definition" '["libdata.so"]' \
	'sorted(set(nm(x["to"]) for x in b("prog", "dvar") if x["type"] == "COPY"))'
is "the library's own reference binds to the program's copy" '["prog"]' 'to("libdata.so", "dvar")'
is "a protected symbol keeps its own definition" '["libprot.so"]' 'to("libprot.so", "pvar")'
is "and the binding says protected" true \
	'all("protected" in x["flags"] for x in b("libprot.so", "pvar"))'

deps "$FIX/deps-symbolic/prog"
is "DF_SYMBOLIC: the library's own definition first" '["libsym.so"]' 'to("libsym.so", "shared_var")'
is "without it the program's definition wins" '["prog"]' 'to("libnosym.so", "shared_var")'

deps "$FIX/deps-unique/prog"
is "STB_GNU_UNIQUE: one definition for everyone" '["libuniq1.so"]' 'to("libuniq2.so", "u")'
is "unique bindings are marked" true 'all("unique" in x["flags"] for x in b("libuniq2.so", "u"))'
deps "$FIX/deps-unique/prog-nopic"
is "a copied unique symbol is the program's copy for everyone" '["prog-nopic"]' \
	'to("libuniq2.so", "u")'

deps "$FIX/deps-ifunc/prog"
is "a call to an IFUNC is marked" true 'any("ifunc" in x["flags"] for x in b("prog", "fi"))'
is "a lazy PLT slot calls no resolver at startup" 0 'o("prog")["binding"]["ifunc_calls"]'
deps --bind-now "$FIX/deps-ifunc/prog"
is "bound now, IFUNC resolver calls are counted" 1 'o("prog")["binding"]["ifunc_calls"]'
is "TLS relocations bind to the TLS definition" '["libifunc.so"]' 'to("prog", "tv")'

L=$FIX/deps-flags
deps "$L/prog"
is "lazy library" false 'o("liblazy.so")["facts"]["flags"]["bind_now"]'
is "DT_BIND_NOW alone means now" '[true, true, false, false]' \
	'[o("libnow-dt.so")["facts"]["flags"][k] for k in ("bind_now", "dt_bind_now", "df_bind_now", "df_1_now")]'
is "DF_BIND_NOW alone means now" '[true, false, true, false]' \
	'[o("libnow-df.so")["facts"]["flags"][k] for k in ("bind_now", "dt_bind_now", "df_bind_now", "df_1_now")]'
is "DF_1_NOW alone means now" '[true, false, false, true]' \
	'[o("libnow-df1.so")["facts"]["flags"][k] for k in ("bind_now", "dt_bind_now", "df_bind_now", "df_1_now")]'
is "a lazy library defers its PLT lookups" true \
	'o("liblazy.so")["binding"]["lazy"] and not o("libnow-df1.so")["binding"]["lazy"]'
is "hash styles" '["sysv", "gnu", "gnu"]' \
	'[o(n)["facts"]["hash"]["style"] for n in ("libsysv.so", "libgnu.so", "libboth.so")]'
is "both tables are seen" '[true, true]' \
	'[o("libboth.so")["facts"]["hash"]["has_gnu"], o("libboth.so")["facts"]["hash"]["has_sysv"]]'
is "RELR relocations are counted apart" true \
	'o("librelr.so")["facts"]["relocations"]["relr"] > 0 and o("librelr.so")["facts"]["relocations"]["relative"] == 0'
is "TEXTREL is seen" '[true, false]' \
	'[o("libtext.so")["facts"]["flags"]["textrel"], o("liblazy.so")["facts"]["flags"]["textrel"]]'
is "back-to-back references hit the lookup cache" 1 'o("liblazy.so")["binding"]["startup"]["cached"]'
is "pages written by relocations" true 'all(x["facts"]["relocations"]["pages_written"] >= 1 for x in objs if "facts" in x and x["facts"]["relocations"]["total"])'

M=$FIX/deps-missing
deps "$M/prog"
is "an undefined symbol is reported with its reason" \
	'["not_there", "no object in the global scope defines it"]' \
	'[f["missing"]["symbols"][0][k] for k in ("symbol", "why")]'
is "an unused DT_NEEDED is reported" '[["libunused.so", true]]' \
	'[[u["name"], u["unused_by_all"]] for u in f["unused"] if objs[u["object"]]["role"] == "program"]'

deps "$FIX/deps-filter/prog"
is "an auxiliary filtee comes before its filter" '["libaux.so"]' 'to("prog", "fx")'
is "and before it in the load list" true 'o("libaux.so")["index"] < o("libflt.so")["index"]'
done_testing
