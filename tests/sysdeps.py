"""Tests that need something from the operating system: ``require("xvfb", "xauth")``.

The packages are those of ``packaging/system-packages.txt`` (read by ``dev.py``, which installs
them). A missing one makes the test skip with a reason naming it and the command that installs
it; under ``CI=true`` it is a failure instead, since CI installs every package first
(``python3 dev.py test``) and a skip there would hide a broken set-up.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_dev():
    spec = importlib.util.spec_from_file_location("desktop_mt_dev_script", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dev = _load_dev()
ALL_GROUPS = ("app", "test")


def group(name: str) -> list[str]:
    """The packages of one [group] of the list (e.g. "app": what the GUI needs)."""
    return list(dev.system_packages((name,)))


def _probe_finds(probe: str) -> bool:
    """Without dpkg: is the package's probe (an absolute path, a library, a command) there?"""
    if probe.startswith("/"):
        return Path(probe).exists()
    library = re.fullmatch(r"lib(.+?)\.so(\.\d+)*", probe)
    if library:
        return ctypes.util.find_library(library.group(1)) is not None
    return shutil.which(probe) is not None


def missing(*packages: str) -> list[str]:
    """Those of ``packages`` that are not installed (dpkg where there is one, else the probes).
    A name that is not in the list is an error: the list is the one place they are kept."""
    listed = dev.system_packages(ALL_GROUPS)
    unknown = [name for name in packages if name not in listed]
    if unknown:
        raise ValueError(f"{', '.join(unknown)} not in {dev.SYSTEM_PACKAGES.name}: add it there")
    gone = dev.missing_packages(list(packages))
    if gone is None:
        gone = [name for name in packages if listed[name] and not _probe_finds(listed[name])]
    return gone


def in_ci() -> bool:
    """CI=true (or 1/yes), as CI services set it."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require(*packages: str) -> None:
    """Skip the calling test (fail it under CI) unless every package is installed."""
    gone = missing(*packages)
    if not gone:
        return
    reason = (
        f"needs the system package{'s' if len(gone) > 1 else ''} {' '.join(gone)} "
        f"(not installed): run `python3 dev.py deps` as root, or "
        f"`sudo apt-get install {' '.join(gone)}`"
    )
    if in_ci():
        pytest.fail(f"{reason} [CI=true: every system package must be installed]", pytrace=False)
    pytest.skip(reason)
