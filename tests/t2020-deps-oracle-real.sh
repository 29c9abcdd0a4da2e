#!/bin/sh
# ld.so is the oracle for real programs too: bash, python3, perl, git and
# others found on the machine (absent ones are skipped). Loading and binding
# are compared for all; the statistics for a few that are harmless to start
# with --version.
. "$(dirname "$0")/lib.sh"

ORACLE="python3 $TOP/tools/oracle-deps.py --ldprof $LDPROF"

# where NAME: the system's program (not a wrapper earlier in PATH).
where() {
	for d in /usr/bin /bin /usr/sbin /sbin; do
		if [ -x "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	command -v "$1" 2>/dev/null
}

if ! /lib64/ld-linux-x86-64.so.2 --version 2>/dev/null | grep -q "version 2\.36"; then
	skip "ld.so is not glibc 2.36: it is not the oracle ldprof models"
	done_testing
	exit
fi

found=0
for name in bash python3 perl git ls cp tar gzip grep sed find sort make gcc g++ ld as \
	readelf objdump nm strip ssh curl openssl xz zstd diff cmp file dash mawk gawk \
	pkg-config shellcheck clang gdb vim less man ps top; do
	p=$(where "$name") || {
		skip "$name is not installed"
		continue
	}
	# Only ELF programs (some of these may be scripts here).
	case $(head -c 4 "$p" | od -An -c | tr -d ' ') in
	177ELF) ;;
	*)
		skip "$name is not an ELF program here"
		continue
		;;
	esac
	found=$((found + 1))
	if $ORACLE "$p" >"$TMP/oracle" 2>&1; then
		ok "agrees with ld.so: $name ($(sed -n 's/^agree .*(\(.*\))$/\1/p' "$TMP/oracle"))"
	else
		not_ok "agrees with ld.so: $name"
		sed 's/^/# /' "$TMP/oracle"
	fi
done
check "at least 20 real programs were compared ($found)" test "$found" -ge 20

for name in true ls bash python3 perl sort grep git; do
	p=$(where "$name") || continue
	if $ORACLE --stats --run-arg=--version "$p" >"$TMP/oracle" 2>&1; then
		ok "statistics agree: $name --version"
	else
		not_ok "statistics agree: $name --version"
		sed 's/^/# /' "$TMP/oracle"
	fi
done
done_testing
