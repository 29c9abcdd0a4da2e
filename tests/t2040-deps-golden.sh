#!/bin/sh
# The text outputs of ldprof deps on fixtures, against golden files in
# tests/fixtures/deps-golden/. What depends on the machine is normalised:
# the fixture directory, hwcaps subdirectories (this CPU's ISA level and
# platform) and the numbers of system objects (libc, ld.so, the vDSO)
# that change with the installed glibc and kernel.
# Regenerate with: LDPROF_GOLDEN_UPDATE=1 sh tests/t2040-deps-golden.sh
. "$(dirname "$0")/lib.sh"

FIX=$FIXTURES
GOLDEN=$TOP/tests/fixtures/deps-golden
SYSTEM='libc\.so\.6|ld-linux-x86-64\.so\.2|linux-vdso\.so\.1'

normalise() {
	sed -e "s|$FIX|FIX|g" -e "s|$TOP/build[^/]*/fixtures|FIX|g" \
		-e 's/([0-9]* paths tried)/(N paths tried)/' \
		-e 's/(interpreter; [0-9]* symbols)/(interpreter; N symbols)/' |
		grep -v -E '/(glibc-hwcaps|tls|x86_64|haswell|xeon_phi|avx512_1)/' |
		grep -v -E "^ +[0-9]+ ($SYSTEM) " | grep -v -E "^ +total "
}

# golden NAME DESCRIPTION COMMAND...: compare normalised stdout.
golden() {
	name=$1 desc=$2
	shift 2
	(cd "$FIX/.." && "$@") 2>&1 | normalise >"$TMP/$name"
	if [ -n "${LDPROF_GOLDEN_UPDATE:-}" ]; then
		cp "$TMP/$name" "$GOLDEN/$name"
	fi
	expect_golden "$desc" "$GOLDEN/$name" "$TMP/$name"
}

golden tree-runpath "the tree: who needs whom, found where, cost and facts" \
	"$LDPROF" deps fixtures/deps-search/prog-runpath
golden list-search "--list over several programs, as ldd lists them" \
	"$LDPROF" deps --list fixtures/deps-search/prog-rpath fixtures/deps-search/prog-rpath-blocked \
	fixtures/deps-tokens/prog-origin-needed
golden missing "--missing: libraries (with the paths tried), versions, symbols" \
	"$LDPROF" deps --missing fixtures/deps-search/prog-runpath fixtures/deps-missing/prog \
	fixtures/deps-versions/prog-future fixtures/deps-missing/prog-needmissing
golden unused "--unused: what each unused DT_NEEDED costs" \
	"$LDPROF" deps --unused fixtures/deps-missing/prog fixtures/deps-weak/prog
# Only the bindings of the fixture objects themselves: libc's own change
# with the installed glibc.
golden bindings "--bindings: every relocation, in ld.so's order" \
	sh -c "'$LDPROF' deps --bindings fixtures/deps-copy/prog fixtures/deps-unique/prog |
		awk '/^[^\t]/ { keep = \$0 !~ /libc\\.so|ld-linux|linux-vdso/ } keep'"
done_testing
