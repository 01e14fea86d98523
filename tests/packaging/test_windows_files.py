"""The Windows packaging files, checked on Linux without Wine: the application manifest, the
NSIS installer script (built with Debian's makensis), and the Windows stage's own helpers
(packaging/windows/wine_stage.py; the stage itself runs in test_windows_stage.py)."""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
import xml.dom.minidom
from pathlib import Path

import pytest

from tests import sysdeps

ROOT = Path(__file__).resolve().parents[2]
WINDOWS = ROOT / "packaging" / "windows"
_spec = importlib.util.spec_from_file_location("wine_stage", WINDOWS / "wine_stage.py")
wine_stage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wine_stage)


def _settings(manifest: Path) -> dict[str, str]:
    dom = xml.dom.minidom.parse(str(manifest))
    settings = dom.getElementsByTagName("windowsSettings")[0]
    return {n.tagName: n.firstChild.data for n in settings.childNodes if n.nodeType == n.ELEMENT_NODE}


def test_the_manifest_asks_for_per_monitor_dpi_awareness_and_long_paths():
    settings = _settings(WINDOWS / "desktop-mt.manifest")
    assert settings["dpiAwareness"].split(",")[0].strip() == "PerMonitorV2"
    assert settings["dpiAware"] == "true/pm"  # Windows before 10 1703 reads this one
    assert settings["longPathAware"] == "true"
    dom = xml.dom.minidom.parse(str(WINDOWS / "desktop-mt.manifest"))
    level = dom.getElementsByTagName("requestedExecutionLevel")[0]
    assert level.getAttribute("level") == "asInvoker"  # never asks for administrator rights


def test_the_spec_gives_the_manifest_to_both_executables():
    spec = (ROOT / "packaging" / "desktop-mt.spec").read_text(encoding="utf-8")
    assert 'manifest=str(HERE / "windows" / "desktop-mt.manifest") if IS_WIN else None' in spec
    assert spec.count("make_exe(") == 3  # the definition, desktop-mt and desktop-mt-cli


def _pe_machine(path: Path) -> int:
    data = path.read_bytes()
    offset = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[offset : offset + 4] == b"PE\0\0"
    return struct.unpack_from("<H", data, offset + 4)[0]


def test_makensis_builds_a_64_bit_per_user_installer(tmp_path):
    """The installer script compiles (Debian's makensis, as in the stage) into a 64-bit PE
    (Wine without its 32-bit half runs only those) that carries the bundle's files."""
    sysdeps.require("nsis")
    bundle = tmp_path / "desktop-mt"
    (bundle / "_internal").mkdir(parents=True)
    (bundle / "desktop-mt.exe").write_bytes(b"MZ gui")
    (bundle / "desktop-mt-cli.exe").write_bytes(b"MZ cli")
    (bundle / "_internal" / "marker-译文.txt").write_text("carried", encoding="utf-8")
    setup = tmp_path / "desktop-mt-setup.exe"
    cmd = [shutil.which("makensis"), "-V2", "-INPUTCHARSET", "UTF8", f"-DBUNDLE={bundle}", "-DVERSION=1.2.3"]
    cmd += ["-DVERSION_NUM=1.2.3.0", f"-DOUTFILE={setup}", f"-DICON={ROOT / 'packaging/icons/desktop-mt.ico'}"]
    proc = subprocess.run([*cmd, str(WINDOWS / "installer.nsi")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _pe_machine(setup) == 0x8664  # AMD64
    script = (WINDOWS / "installer.nsi").read_text(encoding="utf-8")
    assert "RequestExecutionLevel user" in script and '"$LOCALAPPDATA\\Programs\\${APP}"' in script


def test_the_installer_script_refuses_to_build_without_a_bundle(tmp_path):
    sysdeps.require("nsis")
    proc = subprocess.run(
        [shutil.which("makensis"), "-V2", "-DVERSION=1.0", str(WINDOWS / "installer.nsi")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode != 0 and "-DBUNDLE" in proc.stdout + proc.stderr


def test_stage_requirements_come_from_pyproject_without_linux_markers():
    reqs = wine_stage.requirements()
    names = {r.split(">")[0].split("=")[0].split("!")[0].split("<")[0].strip().lower() for r in reqs}
    assert {
        "onnxruntime",
        "numpy",
        "sentencepiece",
        "pyside6-essentials",
        "rapidfuzz",
        "fastapi",
        "pyinstaller",
    } <= names
    assert not names & {"desktop-mt", "pynput", "torch", "transformers"}  # pynput: fetched --no-deps
    assert "pynput" in wine_stage.WINDOWS_ONLY and "pefile" in wine_stage.WINDOWS_ONLY


def test_stage_only_pins_are_what_wine_8_needs():
    pins = [
        line.strip()
        for line in (WINDOWS / "stage-constraints.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert pins == ["numpy==2.0.2", "PySide6-Essentials==6.9.3", "shiboken6==6.9.3"]


def test_a_failed_step_is_named():
    exc = wine_stage.StepFailed("translate", "exit code 1", "Traceback ...\nUnicodeEncodeError")
    assert str(exc).startswith("Windows step translate failed: exit code 1")
    assert "UnicodeEncodeError" in str(exc)


def test_paths_as_wine_sees_them(tmp_path):
    assert wine_stage.win_path(Path("/work/a b/c.txt")) == "Z:\\work\\a b\\c.txt"
    stage = wine_stage.Stage(tmp_path, tmp_path / "work")
    assert stage.unix("C:\\Users\\张三\\My Documents\\x.txt") == stage.drive_c / "users/张三/My Documents/x.txt"
    assert stage.drive_c.parent.parent == tmp_path  # the prefix is a cache entry


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_the_amx_shim_compiles(tmp_path):
    """Built only on a CPU with AMX; compiled here everywhere so a broken source shows."""
    out = tmp_path / "amx.so"
    proc = subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", str(out), str(WINDOWS / "amx_permission.c")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
