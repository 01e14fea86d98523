"""packaging/icu_data.py: the Linux bundle's ICU data library without the data Qt never reads."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
ICU_DATA_PY = HERE.parents[2] / "packaging" / "icu_data.py"


def _load():
    spec = importlib.util.spec_from_file_location("desktop_mt_packaging_icu_data", ICU_DATA_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


icu_data = _load()


def _wheel_icu_data() -> Path | None:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("Qt/lib/libicudata.so.*"))
    return found[0] if found else None


def _fake_package(names: list[str]) -> bytes:
    header = bytes([144, 0, 0xDA, 0x27]) + bytes(8) + b"CmnD" + bytes(144 - 16)
    items = [(f"icudt73l/{name}", name.encode() * 3) for name in sorted(names)]
    return icu_data.build(icu_data.Package(header, items))


def test_package_round_trip_and_trim():
    blob = _fake_package(["root.res", "coll/zh.res", "unit/en.res", "lang/de.res", "cnvalias.icu"])
    package = icu_data.parse(blob)
    assert icu_data.build(package) == blob
    names = [name for name, _ in package.items]
    assert names == sorted(names) and all(name.startswith("icudt73l/") for name in names)
    trimmed = icu_data.parse(icu_data.build(icu_data.trim(package)))
    assert [name for name, _ in trimmed.items] == ["icudt73l/cnvalias.icu", "icudt73l/coll/zh.res", "icudt73l/root.res"]
    for name, data in trimmed.items:  # each item intact, 16-byte aligned (padding after it)
        base = name.split("/", 1)[1].encode()
        assert data.startswith(base * 3) and len(data) % 16 == 0
    with pytest.raises(ValueError, match="CmnD"):
        icu_data.parse(b"\0" * 64)


needs_wheel_icu = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or _wheel_icu_data() is None
    or not (shutil.which("as") and shutil.which("ld")),
    reason="needs Linux, PySide6's bundled ICU and binutils",
)

# What QtCore asks ICU for: collation, codecs, case mapping, time zone names.
PROBE = r"""
import functools
from PySide6.QtCore import QCollator, QDateTime, QLocale, QStringDecoder, QTimeZone
c = QCollator(QLocale("zh_CN"))
print(sorted(["张", "李", "王", "赵", "啊"], key=functools.cmp_to_key(c.compare)))
print(QCollator(QLocale("sv")).compare("ä", "z"), QCollator(QLocale("de")).compare("ä", "b"))
print([QStringDecoder(e).isValid() for e in ("GB18030", "Big5", "Shift_JIS", "EUC-KR", "windows-1252")])
print(len(QStringDecoder.availableCodecs()), QLocale("tr").toUpper("istanbul"), QLocale("de").toUpper("straße"))
tz = QTimeZone(b"Europe/Berlin")
print(tz.displayName(QTimeZone.StandardTime, QTimeZone.LongName, QLocale("zh_CN")))
print(QTimeZone(b"Asia/Shanghai").displayName(QTimeZone.GenericTime, QTimeZone.LongName, QLocale("en")))
print(QLocale("zh_CN").toString(QDateTime.fromSecsSinceEpoch(1700000000, QTimeZone(b"UTC")), QLocale.LongFormat))
"""


def _probe(preload: Path | None) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if preload is not None:  # the trimmed library takes the soname's place for libicuuc
        env["LD_PRELOAD"] = str(preload)
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


@needs_wheel_icu
def test_trimmed_library_is_smaller_and_qt_answers_the_same(tmp_path):
    src = _wheel_icu_data()
    symbol, blob = icu_data._elf_symbol(src)
    assert symbol.startswith("icudt") and icu_data.build(icu_data.parse(blob)) == blob  # the real layout
    out = tmp_path / src.name
    before, after = icu_data.trimmed_library(src, out)
    assert before - after > 12e6, (before, after)
    assert icu_data._elf_symbol(out) == (symbol, icu_data.build(icu_data.trim(icu_data.parse(blob))))
    original = _probe(None)
    assert "['啊', '李', '王', '张', '赵']" in original and "Could not" not in original  # pinyin order
    assert _probe(out) == original
    # the probe notices missing data: without the collation and zone trees it answers otherwise
    over = tmp_path / "over" / src.name
    icu_data.trimmed_library(src, over, (*icu_data.UNUSED, "coll/", "zone/"))
    assert _probe(over) != original
