"""build.py tells the user's system from the bundle: a missing desktop library (Qt's X11 /
Wayland requirements) is a note naming its package, any other missing library a failure."""

from __future__ import annotations

import shutil
import sys

import pytest

from desktop_mt.gui.platform.display_check import platform_plugin
from tests.fake_ldd import XCB_PLUGIN_REPORT, fake_ldd_path
from tests.packaging.build_script import build

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ldd: Linux only")


@pytest.mark.parametrize(
    "name",
    [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libxcb.so.1",
        "libxcb-render-util.so.0",
        "libxkbcommon-x11.so.0",
        "libX11-xcb.so.1",
        "libfontconfig.so.1",
        "libfreetype.so.6",
        "libEGL.so.1",
        "libGL.so.1",
        "libdbus-1.so.3",
        "libwayland-cursor.so.0",
    ],
)
def test_desktop_libraries_come_from_the_system(name):
    assert build.SYSTEM_LIBRARY.fullmatch(name)


@pytest.mark.parametrize(
    "name",
    ["libQt6XcbQpa.so.6", "libicuuc.so.73", "libglib-2.0.so.0", "libpython3.11.so.1.0", "libxcbfoo", "libGLEW.so.2.2"],
)
def test_other_libraries_are_the_bundles(name):
    assert not build.SYSTEM_LIBRARY.fullmatch(name)


def test_missing_system_library_is_a_note_and_others_fail(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "desktop-mt"
    (folder / "_internal" / "PySide6").mkdir(parents=True)
    (folder / "_internal" / "PySide6" / "libqxcb.so").write_bytes(b"\x7fELF")
    report = XCB_PLUGIN_REPORT + "\tlibQt6Gui.so.6 => not found\n"
    monkeypatch.setenv("PATH", fake_ldd_path(tmp_path / "bin", report))
    problems = build.unresolved_libraries(folder)
    assert problems == ["_internal/PySide6/libqxcb.so links to missing libQt6Gui.so.6"]
    notes = capsys.readouterr().err
    assert (
        "libxcb-icccm.so.4 (not on this build machine) comes from the user's system "
        "(Debian/Ubuntu: libxcb-icccm4)" in notes
    )
    assert "(Debian/Ubuntu: libxcb-keysyms1)" in notes


@pytest.mark.skipif(not shutil.which("ldd"), reason="no ldd")
def test_real_ldd_finds_a_truly_missing_library(tmp_path):
    """A copy of Qt's xcb plugin away from PySide6's lib folder: its Qt libraries (not the
    system's) are missing, found by the real ldd, and that fails the check."""
    source = platform_plugin("libqxcb.so", {})
    if source is None:
        pytest.skip("PySide6's xcb plugin is not installed")
    folder = tmp_path / "desktop-mt"
    (folder / "_internal").mkdir(parents=True)
    shutil.copy2(source, folder / "_internal" / "libqxcb.so")
    problems = build.unresolved_libraries(folder)
    assert len(problems) == 1 and "libQt6XcbQpa.so.6" in problems[0], problems
    assert "libxcb" not in problems[0]  # those are the system's: a note at most
