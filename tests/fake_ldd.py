"""A stand-in ``ldd`` that prints a fixed report, for the missing-library code paths (which
cannot otherwise run on a machine that has every library)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

# What ldd prints for Qt's xcb plugin on a Debian machine without libxcb-icccm4 / libxcb-keysyms1.
XCB_PLUGIN_REPORT = """\
\tlinux-vdso.so.1 (0x00007ffd3a5f2000)
\tlibQt6XcbQpa.so.6 => /opt/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0a1c000000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f0a1bf00000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0a1be00000)
\tlibxcb-icccm.so.4 => not found
\t/lib64/ld-linux-x86-64.so.2 (0x00007f0a1c200000)
"""


def fake_ldd_path(folder: Path, report: str) -> str:
    """Write an ``ldd`` printing ``report`` into ``folder``; return PATH with ``folder`` first."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "ldd"
    script.write_text(f"#!/bin/sh\nprintf '%s' {shlex.quote(report)}\n", encoding="utf-8")
    script.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
