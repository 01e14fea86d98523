"""Windows bundles: every DLL an extension module or library links to, where its loader looks.

Wheels repaired with delvewheel carry their C++ runtime under ``<package>.libs/`` with a
content-hashed name (``msvcp140-a4c2...dll``), and the package's ``__init__`` adds that folder
with ``os.add_dll_directory`` before it imports its extension modules. When two wheels ship the
same file (sentencepiece and rapidfuzz both carry ``msvcp140-a4c2...dll``), PyInstaller
collects it once, under one package's ``.libs`` only; the other package's extension then loads
only if the first package happened to load the DLL into the process earlier:
``DLL load failed while importing _sentencepiece`` otherwise.

A binary's loader looks in the binary's own folder, in the bundle's top-level folder (the
bootloader adds it to the DLL search path), in its own package's ``<package>.libs/`` (the
delvewheel patch) and in its package's top folder (PySide6 and shiboken6 add theirs with
``os.add_dll_directory``; Qt's plugins, deeper down, find Qt6Core.dll there).
:func:`place_dlls` gives a binary that links to a DLL the bundle carries elsewhere a copy in
one of those places; :func:`unreachable` is the same check over a built bundle's files. Names
compare case-insensitively, as Windows does. Stdlib only: the spec loads this file under
PyInstaller, and the tests and the Windows stage on Linux.
"""

from __future__ import annotations

import posixpath
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["place_dlls", "search_dirs", "unreachable", "pe_imports", "bundle_unreachable"]

Entry = tuple[str, str, str]  # PyInstaller's TOC entry: (dest in the bundle, source, typecode)
PE_SUFFIXES = (".dll", ".pyd", ".exe")


def _norm(dest: str) -> str:
    return dest.replace("\\", "/").lower()


def search_dirs(dest: str) -> tuple[str, ...]:
    """The bundle folders (relative, lower case, "" = top level) where the loader of the binary
    at ``dest`` finds the DLLs it links to."""
    dest = _norm(dest)
    own = posixpath.dirname(dest)
    dirs = [own, ""]
    top = dest.split("/", 1)[0]
    if "/" in dest and not top.endswith(".libs"):
        dirs.append(top)  # the package's folder, where it adds it (PySide6, shiboken6)
        dirs.append(f"{top}.libs")  # the delvewheel patch of the binary's own package
    return tuple(dict.fromkeys(dirs))


def unreachable(dests: Iterable[str], imports_of: Callable[[str], Iterable[str]]) -> list[tuple[str, str]]:
    """``[(binary, dll)]``: each DLL a binary of ``dests`` links to that the bundle carries, but
    in none of the folders where that binary's loader looks. DLLs the bundle does not carry at
    all (the system's: KERNEL32.dll, api-ms-win-*) are not this check's business."""
    dests = [_norm(d) for d in dests]
    where: dict[str, set[str]] = {}
    for dest in dests:
        where.setdefault(posixpath.basename(dest), set()).add(posixpath.dirname(dest))
    found = []
    for dest in dests:
        if not dest.endswith(PE_SUFFIXES):
            continue
        for name in sorted({n.lower() for n in imports_of(dest)}):
            dirs = where.get(name)
            if dirs and not dirs.intersection(search_dirs(dest)):
                found.append((dest, name))
    return found


def place_dlls(binaries: list[Entry], imports_of: Callable[[Entry], Iterable[str]]) -> tuple[list[Entry], list[str]]:
    """``binaries`` plus a copy of each DLL a binary cannot reach (see :func:`unreachable`), put
    in the binary's package's ``.libs`` folder when the bundle has one (where the package's own
    copy would have been), else next to the binary. ``imports_of(entry)``: the DLL names the
    binary of that TOC entry links to. Returns the new list and the added destinations (in the
    bundle's own spelling: its path separator and the folders' and DLL's case)."""
    sep = "\\" if any("\\" in e[0] for e in binaries) else "/"
    by_dest = {_norm(e[0]): e for e in binaries}
    sources: dict[str, Entry] = {}  # DLL name (lower case) -> the first entry that carries it
    folders: dict[str, str] = {}  # folder (lower case) -> as the bundle spells it
    for norm, entry in by_dest.items():
        sources.setdefault(posixpath.basename(norm), entry)
        folders.setdefault(posixpath.dirname(norm), posixpath.dirname(entry[0].replace("\\", "/")))

    def imports(dest: str) -> Iterable[str]:
        entry = by_dest[dest]
        return imports_of(entry) if entry[2] in ("BINARY", "EXTENSION") else ()

    out, added = list(binaries), []
    # A copied DLL may link to others the bundle carries elsewhere: check again until none is
    # left (each round adds a copy per problem, and a copy solves its problem, so this ends).
    while todo := unreachable(by_dest, imports):
        for dest, name in todo:
            libs = f"{dest.split('/', 1)[0]}.libs"
            folder = libs if libs in folders else posixpath.dirname(dest)
            source = sources[name]
            target = posixpath.join(folders[folder], posixpath.basename(source[0].replace("\\", "/")))
            entry = (target.replace("/", sep), source[1], "BINARY")
            by_dest[_norm(target)] = entry
            out.append(entry)
            added.append(entry[0])
    return out, added


_DLL_NAME = re.compile(r"^\s*DLL Name:\s*(\S+)\s*$", re.M)


def pe_imports(path: Path) -> list[str]:
    """The DLL names a PE file (``.dll``/``.pyd``/``.exe``) imports, read with binutils'
    ``objdump -p`` (Linux: Debian's binutils reads pei-x86-64)."""
    objdump = shutil.which("objdump")
    if objdump is None:
        raise RuntimeError("objdump (binutils) is needed to read a Windows binary's imports")
    proc = subprocess.run([objdump, "-p", str(path)], capture_output=True, text=True, check=True)
    return _DLL_NAME.findall(proc.stdout)


def bundle_unreachable(folder: Path) -> list[tuple[str, str]]:
    """:func:`unreachable` over a built Windows bundle's ``_internal`` folder (or ``folder``
    itself when it has none), reading each binary's imports with :func:`pe_imports`."""
    inner = folder / "_internal" if (folder / "_internal").is_dir() else folder
    files = {_norm(p.relative_to(inner).as_posix()): p for p in inner.rglob("*") if p.is_file()}
    return unreachable(files, lambda dest: pe_imports(files[dest]))
