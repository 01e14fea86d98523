"""The extras that build things carry what those things advertise (no build needed)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

from tests.packaging.build_script import build

ROOT = Path(__file__).resolve().parents[2]


def _extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return project["optional-dependencies"]


def _resolved(extra: str, extras: dict[str, list[str]]) -> set[str]:
    """The distribution names an extra installs, following ``desktop-mt[...]`` references."""
    names: set[str] = set()
    for requirement in extras[extra]:
        inner = re.fullmatch(r"desktop-mt\[([^\]]+)\]", requirement)
        if inner:
            for name in inner.group(1).split(","):
                names |= _resolved(name.strip(), extras)
        else:
            names.add(re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower())
    return names


def test_the_package_extra_carries_the_server():
    """`desktop-mt serve` is in the README, so the bundle built from `.[package]` must have it."""
    extras = _extras()
    assert _resolved("server", extras) <= _resolved("package", extras)
    assert {"pyside6-essentials", "pyinstaller"} <= _resolved("package", extras)


def test_build_checks_for_the_server_modules():
    assert {"fastapi", "uvicorn"} <= set(build.SERVER_MODULES)
    assert build.SIZE_BUDGET_MB <= 275
