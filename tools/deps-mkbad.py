#!/usr/bin/env python3
"""Write malformed ELF files for `ldprof deps` robustness tests and fuzz seeds.

usage: deps-mkbad.py OUTDIR GNU_SO SYSV_SO VERSIONED_PROG

Each case starts from a valid fixture and breaks one thing. OUTDIR gets one
file per case and a manifest, OUTDIR/cases, of "FILE<TAB>EXPECTED MESSAGE"
lines: ldprof must reject FILE with "ldprof: FILE: ..." containing the
expected text (exit 2), never crash or hang.
"""
import os
import sys

from elfimage import ENUM_D_TAG, Image


def dt(name):
    return ENUM_D_TAG["DT_" + name]


def header_cases(gnu):
    """The ELF header and the program headers."""
    yield "text", b"#!/bin/sh\necho hello\n", "not an ELF file"
    yield "empty", b"", "not an ELF file"
    yield "truncated-ident", gnu.data[:10], "truncated ELF header"
    yield "truncated-header", gnu.data[:40], "truncated ELF header"
    yield "elf32", gnu.with_ident(EI_CLASS="ELFCLASS32"), "32-bit ELF is not supported"
    yield "big-endian", gnu.with_ident(EI_DATA="ELFDATA2MSB"), "big-endian ELF is not supported"
    yield "aarch64", gnu.with_header(e_machine="EM_AARCH64"), "ELF for AArch64"
    yield "relocatable", gnu.with_header(e_type="ET_REL"), "not an executable or shared object"
    yield ("phoff-out-of-range", gnu.with_header(e_phoff=len(gnu.data) + 4096),
           "program headers lie outside the file")
    yield "phnum-too-large", gnu.with_header(e_phnum=0xfff0), "program headers lie outside the file"
    yield ("dynamic-out-of-range", gnu.with_phdr("PT_DYNAMIC", p_offset=len(gnu.data) + 100),
           "PT_DYNAMIC lies outside the file")


def dynamic_cases(gnu):
    """Dynamic entries whose tables lie outside the file or are malformed."""
    yield "strtab-outside", gnu.with_dyn(dt("STRTAB"), 0x7fff0000), "DT_STRTAB points outside the file"
    yield "strsz-huge", gnu.with_dyn(dt("STRSZ"), 1 << 40), "DT_STRTAB points outside the file"
    yield "relasz-larger-than-file", gnu.with_dyn(dt("RELASZ"), 1 << 36), "DT_RELA lies outside the file"
    yield "relaent-zero", gnu.with_dyn(dt("RELAENT"), 0), "relocation entry size 0"
    yield "syment-zero", gnu.with_dyn(dt("SYMENT"), 0), "DT_SYMENT is not the size"
    yield ("symtab-misaligned", gnu.with_dyn(dt("SYMTAB"), gnu.dyn(dt("SYMTAB"))[1] + 1),
           "DT_SYMTAB lies outside the file or is misaligned")


def gnu_hash_cases(gnu):
    """GNU hash: Bloom size, a bucket whose chain leaves the segment, a
    table bigger than the file. (A chain cannot loop: it only goes up.)
    The table is 32-bit words: nbuckets, symoffset, bloom_size,
    bloom_shift, then bloom_size 64-bit Bloom words, then the buckets."""
    at, h = gnu.gnu_hash()
    yield "gnu-bloom-size", gnu.with_word(at + 8, 3), "Bloom filter size is not a power of two"
    first_bucket = at + 16 + 8 * h.bloom_size
    yield ("gnu-bucket-out-of-range", gnu.with_word(first_bucket, 0x7ffffff0),
           "GNU hash chain runs past the end")
    yield "gnu-buckets-past-file", gnu.with_word(at, 0x40000000), "GNU hash table lies outside the file"


def sysv_hash_cases(sysv):
    """SysV hash: a chain that loops (ld.so would spin forever), one that
    leaves the table, a table bigger than the file. The table is 32-bit
    words: nbucket, nchain, the buckets, then the chains."""
    at, h = sysv.sysv_hash()
    buckets = at + 8
    chains = buckets + 4 * h.nbuckets
    first = next(b for b in h.buckets if b)
    yield "sysv-chain-cycle", sysv.with_word(chains + 4 * first, first), "SysV hash chain has a cycle"
    yield ("sysv-chain-out-of-range", sysv.with_word(buckets, h.nchains + 5),
           "SysV hash chain points past the symbol table")
    yield "sysv-nchain-huge", sysv.with_word(at + 4, 0x40000000), "DT_HASH table lies outside the file"


def cases(gnu, sysv, prog):
    """(name, bytes, expected message) of each case."""
    yield from header_cases(gnu)
    yield from dynamic_cases(gnu)
    yield from gnu_hash_cases(gnu)
    yield from sysv_hash_cases(sysv)
    # Versions: a DT_VERNEED list whose next entry (vn_next, at byte 12
    # of an Elf64_Verneed) is far outside the file.
    vn = prog.file_offset(prog.dyn(dt("VERNEED"))[1])
    yield ("verneed-out-of-range", prog.with_word(vn + 12, 0x7ffffff0),
           "corrupt or endless DT_VERNEED list")
    # The file cut short: tables and segments past its end.
    yield "truncated-middle", gnu.data[:len(gnu.data) // 3], "lies outside the file"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    gnu, sysv, prog = (Image.read(p) for p in sys.argv[2:5])
    with open(os.path.join(out, "cases"), "w") as manifest:
        for name, data, expect in cases(gnu, sysv, prog):
            path = os.path.join(out, name)
            with open(path, "wb") as f:
                f.write(bytes(data))
            manifest.write("%s\t%s\n" % (name, expect))


if __name__ == "__main__":
    main()
