"""A smaller ICU data library for the Linux bundle: only the ICU data Qt can reach.

PySide6's Linux wheels ship ICU 73 for QtCore; its data library ``libicudata.so.73`` (32 MB)
is one symbol, ``icudt73_dat``, holding an ICU common data package ("CmnD": a table of
contents, then about 3,900 items). QtCore calls ICU for four things only (``nm -D
libQt6Core.so.6``): case mapping (``u_strToUpper``/``u_strToLower``: the properties are compiled
into libicuuc), codecs (``ucnv_*``: ``*.cnv`` and ``cnvalias.icu``), collation (``ucol_*``:
``coll/``) and time zones (``ucal_*``: ``zoneinfo64.res`` etc. and the ``zone/`` names). It
never formats units, currencies or rule-based numbers, names languages or regions,
transliterates or breaks text with ICU (Qt has its own text boundaries). :data:`UNUSED` are
the trees of those: leaving them out saves about 15 MB, and the bundle gets a rebuilt library
with the same soname and symbol holding the rest.

    python packaging/icu_data.py SRC_LIBICUDATA OUT_LIBICUDATA   # what the spec does

Needs binutils (``as``, ``ld``), as ``strip`` does; without them the spec bundles the original.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

# Item trees (below "icudt73l/") that no ICU function QtCore calls reads.
UNUSED = ("unit/", "curr/", "lang/", "region/", "rbnf/", "translit/", "brkitr/")
ALIGN = 16  # ICU's packages align every item (and the first item after the names) to 16 bytes
PAD = b"\xaa"  # the filler ICU's pkgdata writes between them


class Package(NamedTuple):
    header: bytes  # the package's own header (headerSize bytes: MappedData + UDataInfo)
    items: list[tuple[str, bytes]]  # (name with the "icudt73l/" prefix, data), sorted by name

    @property
    def prefix(self) -> str:
        return self.items[0][0].split("/", 1)[0] + "/" if self.items else ""


def _elf_symbol(path: Path, prefix: bytes = b"icudt") -> tuple[str, bytes]:
    """(name, bytes) of the first dynamic symbol whose name starts with ``prefix`` (ELF64 LE)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    shoff, shentsize, shnum = (
        struct.unpack_from("<Q", data, 0x28)[0],
        *struct.unpack_from("<HH", data, 0x3A),
    )
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
    strtab = sections[dynsym[6]]  # sh_link: its string table
    for offset in range(dynsym[4], dynsym[4] + dynsym[5], dynsym[9]):
        st_name, _info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, offset)
        end = data.index(b"\0", strtab[4] + st_name)
        name = data[strtab[4] + st_name : end]
        if name.startswith(prefix) and shndx != 0:
            section = sections[shndx]
            start = section[4] + value - section[3]  # file offset = sh_offset + (value - sh_addr)
            return name.decode(), data[start : start + size]
    raise ValueError(f"{path}: no {prefix.decode()}* symbol")


def parse(blob: bytes) -> Package:
    """Split an ICU common data package into its header and items."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", blob, 0)
    if (magic1, magic2) != (0xDA, 0x27) or blob[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package (CmnD)")
    base = header_size  # offsets in the table of contents count from here
    count = struct.unpack_from("<I", blob, base)[0]
    entries = [struct.unpack_from("<II", blob, base + 4 + 8 * i) for i in range(count)]
    names = [blob[base + n : blob.index(b"\0", base + n)].decode("ascii") for n, _ in entries]
    starts = [base + d for _, d in entries] + [len(blob)]
    items = [(names[i], blob[starts[i] : starts[i + 1]]) for i in range(count)]
    return Package(blob[:header_size], items)


def _pad(n: int) -> int:
    return -n % ALIGN


def build(package: Package) -> bytes:
    """The package as ICU reads it: header, count, (name offset, data offset) pairs, names,
    then the items, each 16-byte aligned (offsets from the end of the header)."""
    count = len(package.items)
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in package.items)
    toc_size = 4 + 8 * count
    data_start = toc_size + len(names) + _pad(len(package.header) + toc_size + len(names))
    entries, body, name_at, at = [], bytearray(), toc_size, data_start
    for name, data in package.items:
        entries.append(struct.pack("<II", name_at, at))
        name_at += len(name) + 1
        padded = data + PAD * _pad(len(data))
        body += padded
        at += len(padded)
    toc = struct.pack("<I", count) + b"".join(entries) + names
    return package.header + toc + PAD * (data_start - len(toc)) + bytes(body)


def trim(package: Package, unused: tuple[str, ...] = UNUSED) -> Package:
    """The package without the items of the ``unused`` trees."""
    prefix = package.prefix
    kept = [(name, data) for name, data in package.items if not name[len(prefix) :].startswith(unused)]
    return Package(package.header, kept)


def link_library(blob: bytes, symbol: str, soname: str, out: Path) -> None:
    """A shared library exporting ``symbol`` (16-byte aligned read-only data) with ``soname``."""
    tools = {tool: shutil.which(tool) for tool in ("as", "ld")}
    if None in tools.values():
        raise FileNotFoundError("binutils (as, ld) are needed to rebuild the ICU data library")
    with tempfile.TemporaryDirectory() as tmp:
        dat, asm, obj = Path(tmp) / "data.dat", Path(tmp) / "data.s", Path(tmp) / "data.o"
        dat.write_bytes(blob)
        asm.write_text(
            f"\t.section .rodata\n\t.globl {symbol}\n\t.type {symbol}, @object\n\t.balign 16\n{symbol}:\n"
            f'\t.incbin "{dat}"\n\t.size {symbol}, . - {symbol}\n'
            '\t.section .note.GNU-stack,"",@progbits\n',
            encoding="utf-8",
        )
        subprocess.run([tools["as"], "-o", str(obj), str(asm)], check=True)
        subprocess.run([tools["ld"], "-shared", "-soname", soname, "-o", str(out), str(obj)], check=True)


def trimmed_library(src: Path, out: Path, unused: tuple[str, ...] = UNUSED) -> tuple[int, int]:
    """Write the trimmed copy of the ICU data library ``src`` to ``out``; (bytes before, after)."""
    symbol, blob = _elf_symbol(src)
    package = trim(parse(blob), unused)
    out.parent.mkdir(parents=True, exist_ok=True)
    link_library(build(package), symbol, src.name, out)
    return src.stat().st_size, out.stat().st_size


if __name__ == "__main__":
    before, after = trimmed_library(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{sys.argv[1]}: {before / 1e6:.1f} MB -> {sys.argv[2]}: {after / 1e6:.1f} MB")
