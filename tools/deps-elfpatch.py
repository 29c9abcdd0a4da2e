#!/usr/bin/env python3
"""Patch .dynamic entries of an x86-64 ELF file in place (test fixtures only).

Linkers write BIND_NOW in all of its spellings at once and bind -Bsymbolic
references at link time, so the fixtures that need one spelling alone, or a
DT_SYMBOLIC object whose references are still bound at run time, are made by
editing the dynamic section of a normally linked object:

  deps-elfpatch.py FILE --or TAG=VALUE     OR VALUE into the first TAG entry
  deps-elfpatch.py FILE --retag OLD=NEW    rename the first OLD entry to NEW
                                           (value 0); NEW=DEBUG makes it inert
Tags are names without DT_ (FLAGS, FLAGS_1, BIND_NOW, DEBUG) or numbers.
"""
import struct
import sys

TAGS = {"NULL": 0, "DEBUG": 21, "BIND_NOW": 24, "FLAGS": 30, "FLAGS_1": 0x6ffffffb,
        "SYMBOLIC": 16, "TEXTREL": 22}
FLAGS = {"DF_SYMBOLIC": 0x2, "DF_BIND_NOW": 0x8, "DF_1_NOW": 0x1, "DF_1_NODEFLIB": 0x800}


def num(s, table):
    return table[s] if s in table else int(s, 0)


def dynamic(data):
    """(offset, count) of the PT_DYNAMIC entries."""
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 2:
            return p_offset, p_filesz // 16
    sys.exit("no PT_DYNAMIC")


def find(data, off, n, tag):
    for i in range(n):
        t, _ = struct.unpack_from("<qQ", data, off + 16 * i)
        if t == tag:
            return off + 16 * i
        if t == 0:
            break
    sys.exit("tag %#x not found" % tag)


def main():
    path, ops = sys.argv[1], sys.argv[2:]
    data = bytearray(open(path, "rb").read())
    off, n = dynamic(data)
    while ops:
        op, arg = ops[0], ops[1]
        ops = ops[2:]
        a, b = arg.split("=")
        at = find(data, off, n, num(a, TAGS))
        if op == "--or":
            t, v = struct.unpack_from("<qQ", data, at)
            struct.pack_into("<qQ", data, at, t, v | num(b, FLAGS))
        elif op == "--retag":
            struct.pack_into("<qQ", data, at, num(b, TAGS), 0)
        else:
            sys.exit("unknown operation " + op)
    open(path, "wb").write(data)


if __name__ == "__main__":
    main()
