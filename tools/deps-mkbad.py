#!/usr/bin/env python3
"""Write malformed ELF files for `ldprof deps` robustness tests and fuzz seeds.

usage: deps-mkbad.py OUTDIR GNU_SO SYSV_SO VERSIONED_PROG

Each case starts from a valid fixture and breaks one thing. OUTDIR gets one
file per case and a manifest, OUTDIR/cases, of "FILE<TAB>EXPECTED MESSAGE"
lines: ldprof must reject FILE with "ldprof: FILE: ..." containing the
expected text (exit 2), never crash or hang.
"""
import os
import struct
import sys

DT = {"NULL": 0, "NEEDED": 1, "HASH": 4, "STRTAB": 5, "SYMTAB": 6, "RELA": 7, "RELASZ": 8,
      "RELAENT": 9, "STRSZ": 10, "SYMENT": 11, "GNU_HASH": 0x6ffffef5, "VERNEED": 0x6ffffffe}


class Elf:
    def __init__(self, path):
        self.data = bytearray(open(path, "rb").read())
        self.phoff, = struct.unpack_from("<Q", self.data, 32)
        self.phnum, = struct.unpack_from("<H", self.data, 56)

    def phdrs(self):
        for i in range(self.phnum):
            at = self.phoff + 56 * i
            yield at, struct.unpack_from("<IIQQQQQQ", self.data, at)

    def loads(self):
        return [p for _, p in self.phdrs() if p[0] == 1]

    def off(self, vaddr):
        for p in self.loads():
            if p[3] <= vaddr < p[3] + p[5]:
                return p[2] + vaddr - p[3]
        raise ValueError("unmapped %#x" % vaddr)

    def dynamic(self):
        for _, p in self.phdrs():
            if p[0] == 2:
                return p[2], p[5] // 16
        raise ValueError("no PT_DYNAMIC")

    def dyn_at(self, tag):
        off, n = self.dynamic()
        for i in range(n):
            t, v = struct.unpack_from("<qQ", self.data, off + 16 * i)
            if t == DT[tag]:
                return off + 16 * i, v
            if t == 0:
                break
        raise ValueError("no DT_" + tag)

    def set_dyn(self, tag, value):
        at, _ = self.dyn_at(tag)
        struct.pack_into("<qQ", self.data, at, DT[tag], value)


def cases(gnu, sysv, prog):
    c = []

    def add(name, data, expect):
        c.append((name, bytes(data), expect))

    add("text", b"#!/bin/sh\necho hello\n", "not an ELF file")
    add("empty", b"", "not an ELF file")
    add("truncated-ident", gnu.data[:10], "truncated ELF header")
    add("truncated-header", gnu.data[:40], "truncated ELF header")
    d = bytearray(gnu.data)
    d[4] = 1
    add("elf32", d, "32-bit ELF is not supported")
    d = bytearray(gnu.data)
    d[5] = 2
    add("big-endian", d, "big-endian ELF is not supported")
    d = bytearray(gnu.data)
    struct.pack_into("<H", d, 18, 183)
    add("aarch64", d, "ELF for AArch64")
    d = bytearray(gnu.data)
    struct.pack_into("<H", d, 16, 1)
    add("relocatable", d, "not an executable or shared object")
    d = bytearray(gnu.data)
    struct.pack_into("<Q", d, 32, len(d) + 4096)
    add("phoff-out-of-range", d, "program headers lie outside the file")
    d = bytearray(gnu.data)
    struct.pack_into("<H", d, 56, 0xfff0)
    add("phnum-too-large", d, "program headers lie outside the file")
    d = bytearray(gnu.data)
    for at, p in gnu.phdrs():
        if p[0] == 2:
            struct.pack_into("<Q", d, at + 8, len(d) + 100)
    add("dynamic-out-of-range", d, "PT_DYNAMIC lies outside the file")
    e = Elf_copy(gnu)
    e.set_dyn("STRTAB", 0x7fff0000)
    add("strtab-outside", e.data, "DT_STRTAB points outside the file")
    e = Elf_copy(gnu)
    e.set_dyn("STRSZ", 1 << 40)
    add("strsz-huge", e.data, "DT_STRTAB points outside the file")
    e = Elf_copy(gnu)
    e.set_dyn("RELASZ", 1 << 36)
    add("relasz-larger-than-file", e.data, "DT_RELA lies outside the file")
    e = Elf_copy(gnu)
    e.set_dyn("RELAENT", 0)
    add("relaent-zero", e.data, "relocation entry size 0")
    e = Elf_copy(gnu)
    e.set_dyn("SYMENT", 0)
    add("syment-zero", e.data, "DT_SYMENT is not the size")
    e = Elf_copy(gnu)
    e.set_dyn("SYMTAB", e.dyn_at("SYMTAB")[1] + 1)
    add("symtab-misaligned", e.data, "DT_SYMTAB lies outside the file or is misaligned")
    # GNU hash: Bloom size, a bucket whose chain leaves the segment, a
    # table bigger than the file. (A chain cannot loop: it only goes up.)
    e = Elf_copy(gnu)
    h = e.off(e.dyn_at("GNU_HASH")[1])
    struct.pack_into("<I", e.data, h + 8, 3)
    add("gnu-bloom-size", e.data, "Bloom filter size is not a power of two")
    e = Elf_copy(gnu)
    h = e.off(e.dyn_at("GNU_HASH")[1])
    nb, symoff, nbloom, _ = struct.unpack_from("<IIII", e.data, h)
    struct.pack_into("<I", e.data, h + 16 + 8 * nbloom, 0x7ffffff0)
    add("gnu-bucket-out-of-range", e.data, "GNU hash chain runs past the end")
    e = Elf_copy(gnu)
    h = e.off(e.dyn_at("GNU_HASH")[1])
    struct.pack_into("<I", e.data, h, 0x40000000)
    add("gnu-buckets-past-file", e.data, "GNU hash table lies outside the file")
    # SysV hash: a chain that loops (ld.so would spin forever), one that
    # leaves the table, a table bigger than the file.
    e = Elf_copy(sysv)
    h = e.off(e.dyn_at("HASH")[1])
    nb, nc = struct.unpack_from("<II", e.data, h)
    first = next(struct.unpack_from("<I", e.data, h + 8 + 4 * b)[0] for b in range(nb)
                 if struct.unpack_from("<I", e.data, h + 8 + 4 * b)[0])
    struct.pack_into("<I", e.data, h + 8 + 4 * nb + 4 * first, first)
    add("sysv-chain-cycle", e.data, "SysV hash chain has a cycle")
    e = Elf_copy(sysv)
    h = e.off(e.dyn_at("HASH")[1])
    nb, nc = struct.unpack_from("<II", e.data, h)
    struct.pack_into("<I", e.data, h + 8, nc + 5)
    add("sysv-chain-out-of-range", e.data, "SysV hash chain points past the symbol table")
    e = Elf_copy(sysv)
    h = e.off(e.dyn_at("HASH")[1])
    struct.pack_into("<I", e.data, h + 4, 0x40000000)
    add("sysv-nchain-huge", e.data, "DT_HASH table lies outside the file")
    # Versions: a DT_VERNEED list whose next entry is far outside the file.
    e = Elf_copy(prog)
    vn = e.off(e.dyn_at("VERNEED")[1])
    struct.pack_into("<I", e.data, vn + 12, 0x7ffffff0)
    add("verneed-out-of-range", e.data, "corrupt or endless DT_VERNEED list")
    # The file cut short: tables and segments past its end.
    add("truncated-middle", gnu.data[:len(gnu.data) // 3], "lies outside the file")
    return c


def Elf_copy(e):
    n = Elf.__new__(Elf)
    n.data = bytearray(e.data)
    n.phoff, n.phnum = e.phoff, e.phnum
    return n


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    gnu, sysv, prog = Elf(sys.argv[2]), Elf(sys.argv[3]), Elf(sys.argv[4])
    with open(os.path.join(out, "cases"), "w") as manifest:
        for name, data, expect in cases(gnu, sysv, prog):
            path = os.path.join(out, name)
            with open(path, "wb") as f:
                f.write(data)
            manifest.write("%s\t%s\n" % (name, expect))


if __name__ == "__main__":
    main()
