#!/usr/bin/env python3
"""Set-up and entry for developers: creates/refreshes ``.venv`` in the repo root, then runs.

    python3 dev.py run [ARGS...]    start the app (on the bundled model)
    python3 dev.py test [ARGS...]   lint (ruff, mypy), then run the test suite (pytest ARGS)
    python3 dev.py deps [--check]   only install (or with --check: list) missing system packages

``run`` and ``test`` first install the missing system packages of
packaging/system-packages.txt (``run``: the [app] group, ``test``: all): with apt-get when
run as root on Debian/Ubuntu, else they print the command to run and go on (the tests that
need a missing package then skip, naming it; the [test] group holds Wine, ~700 MB, for the
Windows stage, tests/packaging/test_windows_stage.py, which runs under ``CI=true`` or
``DESKTOP_MT_WINDOWS_STAGE=1``). ``test`` runs ``ruff check .`` and ``mypy``
(their settings are in pyproject.toml) before pytest and stops when either fails;
DESKTOP_MT_SKIP_LINT=1 skips them. Stdlib only: it runs before .venv exists.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
SYSTEM_PACKAGES = ROOT / "packaging" / "system-packages.txt"
SKIP_LINT = "DESKTOP_MT_SKIP_LINT"


def system_packages(groups: tuple[str, ...]) -> dict[str, str]:
    """{package: probe or ""} of these [groups] in packaging/system-packages.txt (the probe, a
    command or library file, tells the tests on a system without dpkg whether it is there)."""
    packages, group = {}, None
    for raw in SYSTEM_PACKAGES.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
        elif line and group in groups:
            name, _, probe = line.partition(" ")
            packages[name] = probe.strip()
    return packages


def missing_packages(names: list[str]) -> list[str] | None:
    """Those of ``names`` that dpkg does not list as installed (directly or as a package's
    Provides, e.g. Ubuntu's libglib2.0-0t64); None where there is no dpkg."""
    if not shutil.which("dpkg-query"):
        return None
    listing = subprocess.run(
        ["dpkg-query", "-W", "-f=${db:Status-Abbrev}|${Package}|${Provides}\\n"], capture_output=True, text=True
    ).stdout
    installed = set()
    for line in listing.splitlines():
        status, _, rest = line.partition("|")
        if status.startswith("ii"):
            package, _, provides = rest.partition("|")
            installed.add(package)
            installed.update(p.split()[0] for p in provides.split(",") if p.strip())
    return [name for name in names if name not in installed]


def ensure_system_packages(groups: tuple[str, ...], install: bool = True) -> bool:
    """Install the missing packages of ``groups`` (root on Debian/Ubuntu: apt-get), or print
    the command that would. True when none is missing (or this is not Linux)."""
    if not sys.platform.startswith("linux"):
        return True
    names = list(system_packages(groups))
    missing = missing_packages(names)
    if missing is None:
        print(
            f"dev.py: no dpkg here: install the equivalents of the Debian packages in "
            f"{SYSTEM_PACKAGES.relative_to(ROOT)} yourself",
            file=sys.stderr,
        )
        return True
    apt = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if missing and install and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"installing system packages: {' '.join(missing)} ...", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.run(["apt-get", "update", "-q"], env=env).returncode == 0:
            subprocess.run(apt + ["-q"], env=env)
        missing = missing_packages(names)
    if missing:
        print(
            f"dev.py: missing system packages: {' '.join(missing)}\n"
            f"  install them with: sudo {' '.join(apt)}"
            + ("\n  (until then the tests that need them skip)" if "test" in groups else ""),
            file=sys.stderr,
        )
    return not missing


def ensure_venv(extra: str) -> Path:
    """Create the venv if needed and (re)install the project when pyproject.toml changed."""
    python = BIN / ("python.exe" if os.name == "nt" else "python")
    if not python.exists():
        print(f"creating {VENV.name}/ ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extra.encode()).hexdigest()
    stamp = VENV / f".installed-{extra}"
    if not stamp.exists() or stamp.read_text() != digest:
        print(f"installing desktop-mt[{extra}] into {VENV.name}/ ...", flush=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        # torch first and alone, so pip takes the pinned CPU wheel and never a CUDA build.
        if extra == "test":
            subprocess.run(pip + ["torch==2.13.0"], check=True)
        subprocess.run(pip + ["-e", f".[{extra}]"], check=True, cwd=ROOT)
        stamp.write_text(digest)
    return python


def lint_commands(python: Path) -> list[tuple[str, list[str]]]:
    """(name, command) of each check ``test`` runs before pytest, from the repository root:
    ruff and mypy take their settings (rules, files, strictness) from pyproject.toml."""
    return [
        ("ruff", [str(python), "-m", "ruff", "check", "."]),
        ("ruff format", [str(python), "-m", "ruff", "format", "--check", "."]),
        ("mypy", [str(python), "-m", "mypy"]),
    ]


def lint(python: Path, env: dict[str, str]) -> int:
    """Run every check of :func:`lint_commands` (all of them, so one run reports every
    problem); 0 when all pass, else 1 after naming the ones that failed."""
    failed = []
    for name, command in lint_commands(python):
        print(f"dev.py test: {' '.join(command[2:])}", flush=True)
        if subprocess.call(command, cwd=ROOT, env=env) != 0:
            failed.append(name)
    if failed:
        print(
            f"dev.py test: {' and '.join(failed)} failed (see above), so the tests were not run.\n"
            f"  Fix what they report, or set {SKIP_LINT}=1 to run the tests without them.",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test", "deps"):
        print(__doc__)
        return 2
    if argv[0] == "deps":
        return 0 if ensure_system_packages(("app", "test"), install="--check" not in argv) else 1
    ensure_system_packages(("app",) if argv[0] == "run" else ("app", "test"))
    if argv[0] == "run":
        python = ensure_venv("gui")
        return subprocess.call([str(python), "-m", "desktop_mt", *argv[1:]], cwd=ROOT)
    python = ensure_venv("test")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    if os.environ.get(SKIP_LINT, "") not in ("", "0"):
        print(f"dev.py test: {SKIP_LINT} is set: ruff and mypy skipped", flush=True)
    elif lint(python, env) != 0:
        return 1
    return subprocess.call([str(python), "-m", "pytest", *argv[1:]], cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
