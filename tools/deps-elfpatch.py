#!/usr/bin/env python3
"""Patch .dynamic entries of an ELF file in place (test fixtures only).

Linkers write BIND_NOW in all of its spellings at once and bind -Bsymbolic
references at link time, so the fixtures that need one spelling alone, or a
DT_SYMBOLIC object whose references are still bound at run time, are made by
editing the dynamic section of a normally linked object:

  deps-elfpatch.py FILE --or TAG=VALUE     OR VALUE into the first TAG entry
  deps-elfpatch.py FILE --retag OLD=NEW    rename the first OLD entry to NEW
                                           (value 0); NEW=DEBUG makes it inert
Tags are names without DT_ (FLAGS, FLAGS_1, BIND_NOW, DEBUG) or numbers;
values are DF_ or DF_1_ names or numbers.
"""
import sys

from elfimage import DT_FLAG_BITS, ENUM_D_TAG, Image


def tag(name):
    """FLAGS_1 or 0x6ffffffb as a d_tag number."""
    return ENUM_D_TAG["DT_" + name] if "DT_" + name in ENUM_D_TAG else int(name, 0)


def flags(name):
    """DF_1_NOW or 1 as a number."""
    return DT_FLAG_BITS[name] if name in DT_FLAG_BITS else int(name, 0)


def patch(image, op, arg):
    """The bytes of image with one operation applied."""
    old, new = arg.split("=")
    if op == "--or":
        _, value = image.dyn(tag(old))
        return image.with_dyn(tag(old), value | flags(new))
    if op == "--retag":
        return image.with_dyn(tag(old), 0, new_tag=tag(new))
    sys.exit("unknown operation " + op)


def main():
    if len(sys.argv) < 2 or len(sys.argv) % 2:
        sys.exit(__doc__)
    path, ops = sys.argv[1], sys.argv[2:]
    image = Image.read(path)
    try:
        for op, arg in zip(ops[::2], ops[1::2]):
            image = Image(patch(image, op, arg))
    except ValueError as e:
        sys.exit(str(e))
    with open(path, "wb") as f:
        f.write(image.data)


if __name__ == "__main__":
    main()
