#!/bin/sh
# ld.so is the oracle: for every synthetic fixture, the load list, the set of
# (from, symbol, version, to) bindings and what is missing must be what
# ld.so itself reports under LD_TRACE_LOADED_OBJECTS (tools/oracle-deps.py).
# The fixtures that start are also run, and their LD_DEBUG=statistics
# lookup and cache counts (lazy and LD_BIND_NOW) and probe counts compared.
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
ORACLE="python3 $TOP/tools/oracle-deps.py --ldprof $LDPROF"

if ! /lib64/ld-linux-x86-64.so.2 --version 2>/dev/null | grep -q "version 2\.36"; then
	skip "ld.so is not glibc 2.36: it is not the oracle ldprof models"
	done_testing
	exit
fi

# oracle DESCRIPTION ARGS...: every program given must agree.
oracle() {
	desc=$1
	shift
	if $ORACLE "$@" >"$TMP/oracle" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/# /' "$TMP/oracle"
	fi
}

for p in "$FIX"/deps-*/prog*; do
	oracle "agrees with ld.so: ${p#"$FIX"/}" --stats "$p"
done

# --library-path is LD_LIBRARY_PATH: after RPATH, before RUNPATH.
oracle "--library-path, RPATH and RUNPATH programs" --library-path "$FIX/deps-search/lp" \
	"$FIX/deps-search/prog-rpath" "$FIX/deps-search/prog-runpath" \
	"$FIX/deps-search/prog-rpath-blocked"
# --preload is LD_PRELOAD: the preload interposes the versioned foo and bar.
oracle "--preload by path interposes" --stats --preload "$FIX/deps-preload/libpre.so" \
	"$FIX/deps-versions/prog-default" "$FIX/deps-versions/prog-old"
oracle "--preload by name, searched, and a missing one" --library-path "$FIX/deps-preload" \
	--preload libpre.so --preload libnothere.so "$FIX/deps-versions/prog-default"
# shellcheck disable=SC2016 # ldprof expands the token, as ld.so does
oracle "tokens in --library-path expand for the program" \
	--library-path '$ORIGIN/lp' "$FIX/deps-search/prog-runpath"

# The run agrees because ldprof's answer is specific; make sure it is:
# the preload really took foo from libver.so.
"$LDPROF" deps --bindings --preload "$FIX/deps-preload/libpre.so" \
	"$FIX/deps-versions/prog-default" >"$TMP/b"
check "preload binds foo@V2" grep -q "^	foo@V2 -> $FIX/deps-preload/libpre.so" "$TMP/b"
done_testing
