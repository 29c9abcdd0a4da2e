"""An ELF file's bytes with pyelftools' view of them, for the tools that
patch fixtures (deps-elfpatch.py) or break them on purpose (deps-mkbad.py).

pyelftools reads the headers, the segments and the dynamic entries and
knows each record's layout; this module adds what a writer needs on top:
the file offset of each record, and copies of the bytes with one record
rebuilt from changed fields.
"""
import importlib.util
import io
import sys

if importlib.util.find_spec("elftools") is None:
    # A python3 other than Debian's (pyenv, a venv) does not see
    # /usr/lib/python3/dist-packages, where python3-pyelftools lives.
    sys.path.append("/usr/lib/python3/dist-packages")
try:
    from elftools.common.exceptions import ELFError
    from elftools.construct import Container
    from elftools.elf.elffile import ELFFile
    from elftools.elf.enums import ENUM_D_TAG, ENUM_DT_FLAGS, ENUM_DT_FLAGS_1
    from elftools.elf.hash import ELFHashTable, GNUHashTable
except ImportError:
    sys.exit("%s: needs pyelftools: install Debian's python3-pyelftools (tools/install-deps)"
             % sys.argv[0])

__all__ = ["ELFError", "ELFFile", "ENUM_D_TAG", "DT_FLAG_BITS", "Image", "tag_number"]

# Every DF_* and DF_1_* bit by name (the names do not overlap).
DT_FLAG_BITS = dict(ENUM_DT_FLAGS, **ENUM_DT_FLAGS_1)


def tag_number(tag):
    """A d_tag as pyelftools gives it (a DT_ name, or a number it has no
    name for) as a number."""
    return ENUM_D_TAG[tag] if isinstance(tag, str) else tag


class Image:
    """The bytes of one ELF file, never changed: each edit returns a copy."""

    def __init__(self, data):
        self.data = bytes(data)
        self.elf = ELFFile(io.BytesIO(self.data))
        self.structs = self.elf.structs

    @classmethod
    def read(cls, path):
        with open(path, "rb") as f:
            return cls(f.read())

    def segments(self):
        """(file offset of the program header, segment) for each segment."""
        h = self.elf.header
        for i, seg in enumerate(self.elf.iter_segments()):
            yield h.e_phoff + i * h.e_phentsize, seg

    def segment(self, p_type):
        """(program header offset, segment) of the first p_type segment."""
        for at, seg in self.segments():
            if seg["p_type"] == p_type:
                return at, seg
        raise ValueError("no " + p_type)

    def dynamic(self):
        """(file offset, d_tag number, value) of each PT_DYNAMIC entry, up
        to and with DT_NULL."""
        _, seg = self.segment("PT_DYNAMIC")
        size = self.structs.Elf_Dyn.sizeof()
        for i, tag in enumerate(seg.iter_tags()):
            yield seg["p_offset"] + i * size, tag_number(tag.entry.d_tag), tag.entry.d_val

    def dyn(self, tag):
        """(file offset, value) of the first dynamic entry with d_tag tag
        (a number)."""
        for at, t, v in self.dynamic():
            if t == tag:
                return at, v
        raise ValueError("tag %#x not found" % tag)

    def file_offset(self, vaddr):
        """Where the byte at address vaddr lies in the file."""
        for at in self.elf.address_offsets(vaddr):
            return at
        raise ValueError("unmapped %#x" % vaddr)

    def gnu_hash(self):
        """(file offset, header fields) of the DT_GNU_HASH table."""
        at = self.file_offset(self.dyn(ENUM_D_TAG["DT_GNU_HASH"])[1])
        return at, GNUHashTable(self.elf, at, None).params

    def sysv_hash(self):
        """(file offset, fields with the bucket list) of the DT_HASH table."""
        at = self.file_offset(self.dyn(ENUM_D_TAG["DT_HASH"])[1])
        return at, ELFHashTable(self.elf, at, None).params

    # Edits: copies of the bytes with one record rebuilt.

    def put(self, at, struct, record):
        """A copy with record, built by struct, written at offset at."""
        data = bytearray(self.data)
        raw = struct.build(record)
        data[at:at + len(raw)] = raw
        return data

    def with_header(self, **fields):
        """A copy whose ELF header has these fields changed."""
        return self.put(0, self.structs.Elf_Ehdr, Container(**dict(self.elf.header, **fields)))

    def with_ident(self, **fields):
        """A copy whose e_ident has these fields changed (EI_CLASS=...)."""
        return self.with_header(e_ident=Container(**dict(self.elf.header.e_ident, **fields)))

    def with_phdr(self, p_type, **fields):
        """A copy whose first p_type program header has these fields changed."""
        at, seg = self.segment(p_type)
        return self.put(at, self.structs.Elf_Phdr, Container(**dict(seg.header, **fields)))

    def with_dyn(self, tag, value, new_tag=None):
        """A copy whose first tag entry gets value (and new_tag, if given)."""
        at, _ = self.dyn(tag)
        entry = Container(d_tag=tag if new_tag is None else new_tag, d_val=value, d_ptr=value)
        return self.put(at, self.structs.Elf_Dyn, entry)

    def with_word(self, at, value):
        """A copy with the 32-bit word at offset at set to value."""
        return self.put(at, self.structs.Elf_word(""), value)
