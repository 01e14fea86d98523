#!/usr/bin/env python3
"""Set-up and entry for developers: creates/refreshes ``.venv`` in the repo root, then runs.

    python3 dev.py run [ARGS...]    start the app (on the bundled model)
    python3 dev.py test [ARGS...]   run the test suite (pytest ARGS)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


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


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test"):
        print(__doc__)
        return 2
    if argv[0] == "run":
        python = ensure_venv("gui")
        return subprocess.call([str(python), "-m", "desktop_mt", *argv[1:]], cwd=ROOT)
    python = ensure_venv("test")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    return subprocess.call([str(python), "-m", "pytest", *argv[1:]], cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
