"""Start-up without a usable display: a short message naming what is missing, not Qt's abort."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_mt.gui.platform import display_check
from desktop_mt.gui.platform.display_check import display_problem
from tests import sysdeps
from tests.fake_ldd import XCB_PLUGIN_REPORT, fake_ldd_path

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checks Linux displays")
ROOT = Path(__file__).resolve().parents[3]
ALL_FOUND = "\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0a1be00000)\n"


@pytest.fixture
def x_display():
    """A DISPLAY (":N") on which something accepts connections, as an X server's socket does
    (abstract address, so no file under /tmp/.X11-unix is needed)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for number in range(2300, 2400):
        try:
            listener.bind(f"\0/tmp/.X11-unix/X{number}")
            break
        except OSError:
            continue
    else:
        raise RuntimeError("no free display number in 2300-2399")
    listener.listen(4)
    yield f":{number}"
    listener.close()


def _free_display() -> str:
    for number in range(2400, 2500):
        if not Path(f"/tmp/.X11-unix/X{number}").exists():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                try:
                    probe.connect(f"\0/tmp/.X11-unix/X{number}")
                except OSError:
                    return f":{number}"
    raise RuntimeError("no free display number")


def _env(**values: str) -> dict[str, str]:
    """The test's environment without any display setting, plus ``values``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "QT_QPA_PLATFORM",
            "XDG_SESSION_TYPE",
            "QT_QPA_PLATFORM_PLUGIN_PATH",
            "QT_PLUGIN_PATH",
        )
    }
    env.update(values)
    return env


def _start_gui(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(env, DESKTOP_MT_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "desktop_mt"], env=env, capture_output=True, text=True, timeout=120)


def test_no_display_exits_with_a_message_not_a_qt_abort(tmp_path):
    proc = _start_gui(_env(), tmp_path)
    print(proc.stderr)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)  # not SIGABRT (-6)
    assert "neither DISPLAY nor WAYLAND_DISPLAY is set" in proc.stderr
    assert "desktop-mt translate" in proc.stderr
    assert "Qt platform plugin" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "home").exists() or not any((tmp_path / "home").rglob("*.log"))


def test_missing_xcb_libraries_are_named_with_their_packages(tmp_path, x_display):
    env = _env(DISPLAY=x_display, PATH=fake_ldd_path(tmp_path / "bin", XCB_PLUGIN_REPORT))
    proc = _start_gui(env, tmp_path)
    print(proc.stderr)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "libqxcb.so) needs libraries that are not installed: libxcb-icccm.so.4, libxcb-keysyms.so.1" in proc.stderr
    expected = (
        "sudo apt-get install libxcb-icccm4 libxcb-keysyms1"
        if shutil.which("apt-get")
        else "Debian/Ubuntu names: libxcb-icccm4 libxcb-keysyms1"
    )
    assert expected in proc.stderr
    assert "no X server" not in proc.stderr and "Qt platform plugin" not in proc.stderr


def test_without_apt_the_message_gives_the_debian_names(tmp_path, x_display):
    fake = tmp_path / "bin"
    fake_ldd_path(fake, XCB_PLUGIN_REPORT)
    problem = display_problem(_env(DISPLAY=x_display, PATH=str(fake)))
    assert "install the packages that hold them (Debian/Ubuntu names: libxcb-icccm4 libxcb-keysyms1)" in problem
    assert "sudo" not in problem


def test_real_ldd_on_a_plugin_without_its_qt_libraries(tmp_path, x_display):
    """The real ldd on a copy of the xcb plugin moved away from Qt's lib folder."""
    source = display_check.platform_plugin("libqxcb.so", {})
    if source is None or not shutil.which("ldd"):
        pytest.skip("needs PySide6's xcb plugin and ldd")
    (tmp_path / "platforms").mkdir()
    shutil.copy2(source, tmp_path / "platforms" / "libqxcb.so")
    problem = display_problem(_env(DISPLAY=x_display, QT_QPA_PLATFORM_PLUGIN_PATH=str(tmp_path / "platforms")))
    assert "libQt6XcbQpa.so.6" in problem and "reinstall desktop-mt" in problem


def test_a_usable_x_display_passes(tmp_path, x_display):
    env = _env(DISPLAY=x_display, PATH=fake_ldd_path(tmp_path / "bin", ALL_FOUND))
    assert display_problem(env) is None


def test_a_display_nobody_answers_on(tmp_path):
    display = _free_display()
    problem = display_problem(_env(DISPLAY=display, PATH=fake_ldd_path(tmp_path / "bin", ALL_FOUND)))
    assert f"no X server answers on DISPLAY={display}" in problem


def test_remote_displays_are_left_to_qt():
    assert display_check.x11_display_problem({"DISPLAY": "localhost:10.0"}) is None


def test_the_users_qt_qpa_platform_is_respected(tmp_path, x_display):
    path = fake_ldd_path(tmp_path / "bin", ALL_FOUND)
    assert display_problem(_env(QT_QPA_PLATFORM="offscreen")) is None
    assert display_problem(_env(QT_QPA_PLATFORM="minimal:enable_fonts")) is None
    wayland = display_problem(_env(QT_QPA_PLATFORM="wayland", XDG_RUNTIME_DIR=str(tmp_path), PATH=path))
    assert f"no Wayland display: {tmp_path / 'wayland-0'} does not exist" in wayland
    assert "X11" not in wayland  # only the platform the user chose
    (tmp_path / "wayland-0").touch()
    assert display_problem(_env(QT_QPA_PLATFORM="wayland", XDG_RUNTIME_DIR=str(tmp_path), PATH=path)) is None
    # a fallback list works when one of them does
    assert display_problem(_env(QT_QPA_PLATFORM="wayland;xcb", DISPLAY=x_display, PATH=path)) is None


def test_the_package_table_agrees_with_the_system_package_list():
    """Every library of the [app] group maps to the package the list installs for it."""
    listed = sysdeps.dev.system_packages(("app",))
    libraries = {probe: name for name, probe in listed.items() if ".so" in probe}
    assert len(libraries) > 20
    for soname, package in libraries.items():
        assert display_check.DEBIAN_PACKAGES.get(soname) == package, soname
