"""desktop-mt installs like a package: build the wheel, install it into a fresh venv with only
the runtime dependencies, and translate with ``Translator()`` from outside the repository.

Slow (a venv, pip resolving onnxruntime, numpy, sentencepiece... from PyPI or pip's cache;
about half a minute with a warm cache). It builds from a copy of what the wheel is made of, so
the checkout gets no ``build/`` or ``*.egg-info`` and the test sees exactly what a clone ships.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What setuptools reads to build the wheel (pyproject's packages.find: desktop_mt*), plus
# export_tools, which a checkout has and the wheel must leave out.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "desktop_mt", "export_tools")
CJK = re.compile(r"[\u4e00-\u9fff]")
# Imported by the GUI, export or test extras, never by the runtime.
NOT_RUNTIME = ("PySide6", "torch", "transformers", "pytest")

pytestmark = pytest.mark.slow


def _run(cmd: list, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8", timeout=timeout
    )
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _package_data() -> set[str]:
    """The files under desktop_mt/resources/ in this checkout, as wheel member names."""
    data = ROOT / "desktop_mt" / "resources"
    return {
        p.relative_to(ROOT).as_posix()
        for p in data.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("wheel_src")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("wheel_out")
    # No build isolation: setuptools comes from the test venv, so no index is needed to build.
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-w", str(out)], cwd=out)
    wheels = list(out.glob("desktop_mt-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_carries_model_icons_styles_license_and_py_typed(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = _package_data()
    assert {"desktop_mt/resources/icons/desktop-mt.svg", "desktop_mt/resources/styles/app.qss"} <= data
    assert any(n.endswith("/desktop_mt.json") for n in data), "the checkout has no bundled model"
    assert data - names == set(), "package data missing from the wheel"
    assert "desktop_mt/py.typed" in names
    assert "desktop_mt/resources/catalog.json" in names  # the model catalog of `desktop-mt models`
    # the interface's Chinese, compiled (a wheel's user may have no lrelease either)
    assert {
        "desktop_mt/resources/i18n/desktop_mt_zh_CN.qm",
        "desktop_mt/resources/i18n/desktop_mt_zh_CN.qm.source",
    } <= names
    assert any(re.fullmatch(r"desktop_mt-[^/]+\.dist-info/(licenses/)?LICENSE", n) for n in names)


def test_wheel_has_one_top_level_package(wheel):
    """Only desktop_mt: a top-level ``export_tools`` would clash with any other project's."""
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names if "/" in n and ".dist-info/" not in n}
    assert tops == {"desktop_mt"}, tops
    top_level = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
    if top_level:
        assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["desktop_mt"]


def test_wheel_version_is_the_package_version(wheel):
    """pyproject reads the version from desktop_mt.__version__: one source, no second copy to forget."""
    import desktop_mt

    metadata = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    lines = zipfile.ZipFile(wheel).read(metadata).decode("utf-8").splitlines()
    assert f"Version: {desktop_mt.__version__}" in lines
    assert wheel.name.startswith(f"desktop_mt-{desktop_mt.__version__}-")


def test_installed_wheel_translates_with_only_runtime_dependencies(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # The runtime dependencies come from the index (or pip's cache), not from this venv.
    _run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel], cwd=tmp_path)
    outside = tmp_path / "elsewhere"  # not the repository: the checkout must not be importable
    outside.mkdir()
    script = (
        "import importlib.util, desktop_mt\n"
        "from desktop_mt import Translator\n"
        f"print('extras:', [m for m in {NOT_RUNTIME!r} if importlib.util.find_spec(m)])\n"
        "t = Translator()\n"
        "print('package:', desktop_mt.__file__)\n"
        "print('model:', t.model_info.path)\n"
        "print('out:', t.translate('I love you.'))\n"
    )
    proc = _run([python, "-c", script], cwd=outside)
    print(proc.stdout)
    lines = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
    assert lines["extras"] == "[]", "a GUI/export/test extra was installed with the runtime"
    assert Path(lines["package"]).is_relative_to(env_dir)
    assert Path(lines["model"]).is_relative_to(env_dir)
    assert CJK.search(lines["out"]), f"no Chinese in {lines['out']!r}"
    # Started without the gui extra where there is no display: what is missing is PySide6.
    cli = env_dir / ("Scripts/desktop-mt.exe" if os.name == "nt" else "bin/desktop-mt")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "PYTHONPATH", "VIRTUAL_ENV")
    }
    gui = subprocess.run([str(cli)], cwd=outside, env=env, capture_output=True, text=True, timeout=120)
    assert gui.returncode == 1 and "No module named 'PySide6'" in gui.stderr, gui.stderr
    assert importlib_absent(python, "export_tools", outside)


def importlib_absent(python: Path, module: str, cwd: Path) -> bool:
    """Whether ``module`` cannot be imported by ``python`` run in ``cwd``."""
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is not None)"
    # Without PYTHONPATH: a checkout on it (a run from a clone) is not what the wheel installed.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True).returncode == 0
