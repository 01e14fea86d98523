"""Starting the window from a command: ``desktop-mt``, ``desktop-mt gui`` and ``desktop-mt show``
when no window runs. The only modules besides the GUI's own that start it (docs/ARCHITECTURE.md).

PySide6 is imported when the window starts, never before: a CLI or server install has no
``gui`` extra, and the command line must not pay Qt's start-up for other commands.
"""

from __future__ import annotations

import importlib.util
import sys

from ..app.i18n import _
from ..gui.platform.display_check import display_problem  # standard library only: asks before Qt is loaded

__all__ = [
    "run_gui",
    "extra_hint",
]

_EXIT_FAILED = 1


def run_gui(argv: list[str], share_threads: bool = False) -> int:
    """Start the GUI with ``argv`` (its own options); its exit code, or 1 with a message saying
    what is missing (the gui extra, a display). ``share_threads``: the window owns the process
    (``desktop-mt``), its ONNX Runtime sessions share one thread pool (``gui.app.main``)."""
    if importlib.util.find_spec("PySide6") is None:  # a missing Qt first: a display would not help
        return _gui_unavailable("No module named 'PySide6'")
    problem = None if {"-h", "--help"} & set(argv) else display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return _EXIT_FAILED
    try:
        from ..gui.app import main as gui_main  # PySide6: only when the window starts
    except ImportError as exc:
        return _gui_unavailable(str(exc))
    return int(gui_main(argv, share_threads=share_threads) or 0)


def extra_hint(extra: str) -> str:
    """How to add an optional part: desktop-mt is installed from a checkout or a wheel."""
    return _(
        "pip install '.[{extra}]' in a checkout, or pip install 'desktop_mt-VERSION-py3-none-any.whl[{extra}]' "
        "with the wheel you installed"
    ).format(extra=extra)


def _gui_unavailable(reason: str) -> int:
    """Say that the GUI cannot start and how to add it; returns the exit code (1)."""
    print(
        _(
            "desktop-mt: the GUI is not available ({reason}).\n"
            "Install the 'gui' extra: {fix}\n"
            "(or translate from the command line: desktop-mt translate --help)"
        ).format(reason=reason, fix=extra_hint("gui")),
        file=sys.stderr,
    )
    return _EXIT_FAILED
