"""packaging/dll_layout.py: each Windows extension module's DLLs where its loader looks.

The defect it fixes: sentencepiece's and rapidfuzz's wheels both carry the same
``msvcp140-a4c2...dll`` (delvewheel) and PyInstaller kept it under ``rapidfuzz.libs`` only, so
``import sentencepiece`` worked only after rapidfuzz had loaded it. The TOCs below are the
layout of that build (sentencepiece 0.2.3, rapidfuzz 3.14.6, numpy 2.0.2 win_amd64 wheels).
"""

from __future__ import annotations

import importlib.util
import shutil
import struct
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "packaging"
_spec = importlib.util.spec_from_file_location("dll_layout", HERE / "dll_layout.py")
dll_layout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dll_layout)

MSVCP = "msvcp140-a4c2229bdc2a2a630acdc095b4d86008.dll"
VCOMP = "vcomp140-f96f3a14d88d8846f31f3ab38a490304.dll"
SYSTEM = ["KERNEL32.dll", "VCRUNTIME140.dll", "python311.dll", "api-ms-win-crt-runtime-l1-1-0.dll"]

# What PyInstaller collected (dest, source, typecode), and what each binary imports.
TOC = [
    ("sentencepiece\\_sentencepiece.cp311-win_amd64.pyd", "C:\\sp\\_sentencepiece.pyd", "EXTENSION"),
    (f"sentencepiece.libs\\{VCOMP}", f"C:\\sp.libs\\{VCOMP}", "BINARY"),
    ("rapidfuzz\\fuzz_cpp.cp311-win_amd64.pyd", "C:\\rf\\fuzz_cpp.pyd", "EXTENSION"),
    (f"rapidfuzz.libs\\{MSVCP}", f"C:\\rf.libs\\{MSVCP}", "BINARY"),
    ("numpy\\_core\\_multiarray_umath.cp311-win_amd64.pyd", "C:\\np\\_multiarray_umath.pyd", "EXTENSION"),
    ("numpy.libs\\msvcp140-23ebcc0b37c8e3d074511f362feac48b.dll", "C:\\np.libs\\msvcp.dll", "BINARY"),
    ("VCRUNTIME140.dll", "C:\\Python311\\VCRUNTIME140.dll", "BINARY"),
    ("python311.dll", "C:\\Python311\\python311.dll", "BINARY"),
    ("desktop_mt\\resources\\icons\\app.svg", "C:\\src\\app.svg", "DATA"),
]
IMPORTS = {
    "_sentencepiece.pyd": [MSVCP.upper(), VCOMP, *SYSTEM],  # Windows names compare case-insensitively
    "fuzz_cpp.pyd": [MSVCP, *SYSTEM],
    "_multiarray_umath.pyd": ["msvcp140-23ebcc0b37c8e3d074511f362feac48b.dll", *SYSTEM],
}


def imports_of(entry):
    return IMPORTS.get(entry[1].rsplit("\\", 1)[-1], SYSTEM[:2])


def test_a_dll_carried_only_under_another_package_is_unreachable():
    problems = dll_layout.unreachable([e[0] for e in TOC], lambda dest: imports_of(_entry(dest)))
    assert problems == [("sentencepiece/_sentencepiece.cp311-win_amd64.pyd", MSVCP)]


def _entry(dest):
    return next(e for e in TOC if e[0].replace("\\", "/").lower() == dest)


def test_place_dlls_copies_it_into_the_package_s_own_libs_folder():
    fixed, added = dll_layout.place_dlls(list(TOC), imports_of)
    assert added == [f"sentencepiece.libs\\{MSVCP}"]
    assert fixed[: len(TOC)] == TOC  # nothing else moves
    assert fixed[-1] == (f"sentencepiece.libs\\{MSVCP}", f"C:\\rf.libs\\{MSVCP}", "BINARY")
    assert dll_layout.unreachable([e[0] for e in fixed], lambda dest: imports_of(_find(fixed, dest))) == []


def _find(toc, dest):
    return next(e for e in toc if e[0].replace("\\", "/").lower() == dest)


def test_qt_plugins_find_qt_in_the_pyside6_folder():
    """PySide6 adds its own folder to the DLL search path, and Qt loads its plugins after
    Qt6Core.dll: a plugin deep down needs no copy of Qt next to it (the first Windows build
    made five copies of Qt6Core.dll, 50 MB)."""
    toc = [
        ("PySide6\\Qt6Core.dll", "C:\\PySide6\\Qt6Core.dll", "BINARY"),
        ("PySide6\\Qt6Gui.dll", "C:\\PySide6\\Qt6Gui.dll", "BINARY"),
        ("PySide6\\plugins\\styles\\qmodernwindowsstyle.dll", "C:\\PySide6\\plugins\\styles\\q.dll", "BINARY"),
        ("PySide6\\plugins\\platforms\\qoffscreen.dll", "C:\\PySide6\\plugins\\platforms\\o.dll", "BINARY"),
    ]
    fixed, added = dll_layout.place_dlls(toc, lambda e: ["Qt6Core.dll", "Qt6Gui.dll"] if "plugins" in e[0] else [])
    assert added == [] and fixed == toc


def test_without_a_libs_folder_the_copy_goes_next_to_the_extension():
    toc = [
        ("pkg\\sub\\ext.pyd", "C:\\pkg\\ext.pyd", "EXTENSION"),
        ("other.libs\\shared.dll", "C:\\other.libs\\shared.dll", "BINARY"),
    ]
    fixed, added = dll_layout.place_dlls(toc, lambda e: ["shared.dll"] if e[0].endswith(".pyd") else [])
    assert added == ["pkg\\sub\\shared.dll"]
    assert fixed[-1][1] == "C:\\other.libs\\shared.dll"


def test_a_copied_dll_s_own_dependencies_are_placed_too():
    """The copy links to a second DLL the bundle has only elsewhere: that one follows it."""
    toc = [
        ("a\\ext.pyd", "C:\\a\\ext.pyd", "EXTENSION"),
        ("a.libs\\own.dll", "C:\\a.libs\\own.dll", "BINARY"),
        ("b.libs\\first.dll", "C:\\b.libs\\first.dll", "BINARY"),
        ("b.libs\\second.dll", "C:\\b.libs\\second.dll", "BINARY"),
    ]
    deps = {"ext.pyd": ["first.dll"], "first.dll": ["second.dll"]}
    fixed, added = dll_layout.place_dlls(toc, lambda e: deps.get(e[1].rsplit("\\", 1)[-1], []))
    assert added == ["a.libs\\first.dll", "a.libs\\second.dll"]


def test_the_top_level_folder_and_the_own_folder_are_searched():
    assert dll_layout.search_dirs("sentencepiece/_sentencepiece.pyd") == ("sentencepiece", "", "sentencepiece.libs")
    assert dll_layout.search_dirs("PySide6/plugins/styles/qmodernwindowsstyle.dll") == (
        "pyside6/plugins/styles",
        "",
        "pyside6",
        "pyside6.libs",
    )
    assert dll_layout.search_dirs("numpy.libs/x.dll") == ("numpy.libs", "")
    assert dll_layout.search_dirs("python311.dll") == ("",)
    toc = ["pkg/ext.pyd", "shared.dll", "pkg/near.dll"]
    assert dll_layout.unreachable(toc, lambda d: ["SHARED.DLL", "near.dll"] if d == "pkg/ext.pyd" else []) == []


def _minimal_pe(imports: list[str]) -> bytes:
    """A PE32+ image with one section and an import directory naming ``imports`` (enough for
    objdump -p to list them)."""
    rva, size = 0x1000, 0x200
    names_at = 20 * (len(imports) + 1) + 8 * 2 * (len(imports) + 1)
    section = bytearray(size)
    strings = b""
    offsets = []
    for name in imports:
        offsets.append(names_at + len(strings))
        strings += name.encode() + b"\0"
    hint = names_at + len(strings)
    strings += b"\0\0f\0"  # one import by name, "f", for every DLL
    thunks = 20 * (len(imports) + 1)
    for i, off in enumerate(offsets):
        lookup = thunks + 16 * i
        struct.pack_into("<IIIII", section, 20 * i, rva + lookup, 0, 0, rva + off, rva + lookup)
        struct.pack_into("<Q", section, lookup, rva + hint)
    section[names_at : names_at + len(strings)] = strings
    dos = bytearray(0x80)
    dos[0:2] = b"MZ"
    struct.pack_into("<I", dos, 0x3C, 0x80)
    coff = struct.pack("<4sHHIIIHH", b"PE\0\0", 0x8664, 1, 0, 0, 0, 240, 0x2022)
    opt = bytearray(240)
    struct.pack_into("<H", opt, 0, 0x20B)
    struct.pack_into("<QII", opt, 24, 0x180000000, 0x1000, 0x200)  # image base, alignments
    struct.pack_into("<HH", opt, 48, 6, 0)  # subsystem version
    struct.pack_into("<II", opt, 56, 0x2000, 0x200)  # size of image, size of headers
    struct.pack_into("<H", opt, 68, 2)  # subsystem
    struct.pack_into("<I", opt, 108, 16)  # number of data directories
    struct.pack_into("<II", opt, 112 + 8, rva, 20 * (len(imports) + 1))  # the import directory
    header = struct.pack("<8sIIIIIIHHI", b".idata\0\0", size, rva, size, 0x200, 0, 0, 0, 0, 0xC0000040)
    head = bytes(dos) + coff + bytes(opt) + header
    return head.ljust(0x200, b"\0") + bytes(section)


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils, [test] group)")
def test_a_built_bundle_s_layout_is_read_from_the_binaries(tmp_path):
    """bundle_unreachable reads real PE import tables (objdump -p) and finds the same problem."""
    inner = tmp_path / "desktop-mt" / "_internal"
    (inner / "sentencepiece").mkdir(parents=True)
    (inner / "sentencepiece.libs").mkdir()
    (inner / "rapidfuzz.libs").mkdir()
    (inner / "sentencepiece" / "_sentencepiece.pyd").write_bytes(_minimal_pe([MSVCP, VCOMP, "KERNEL32.dll"]))
    (inner / "sentencepiece.libs" / VCOMP).write_bytes(_minimal_pe(["KERNEL32.dll"]))
    (inner / "rapidfuzz.libs" / MSVCP).write_bytes(_minimal_pe(["KERNEL32.dll"]))
    assert dll_layout.pe_imports(inner / "sentencepiece" / "_sentencepiece.pyd") == [MSVCP, VCOMP, "KERNEL32.dll"]
    assert dll_layout.bundle_unreachable(tmp_path / "desktop-mt") == [("sentencepiece/_sentencepiece.pyd", MSVCP)]
    (inner / "sentencepiece.libs" / MSVCP).write_bytes((inner / "rapidfuzz.libs" / MSVCP).read_bytes())
    assert dll_layout.bundle_unreachable(tmp_path / "desktop-mt") == []
