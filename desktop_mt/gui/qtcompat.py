"""Work-arounds for bugs of specific PySide6 builds.

PySide6(-Essentials) 6.12.0 on CPython 3.11: every Qt method that returns ``void`` hands
back ``None`` without taking a reference, and ``Signal.emit`` does the same with ``True``,
so each call *decrements* that singleton's reference count. On 3.12+ they are immortal
and nothing happens; on 3.11 the app dies with "Fatal Python error: none_dealloc" (or
bool_dealloc) after a few thousand calls (a streamed translation makes several per
batch). 6.11.3 is fine. The real fix is a version pin (reported to the pyproject owner);
until then :func:`install_none_refcount_guard` detects the leak and keeps a reserve of
references to ``None``/``True``/``False`` topped up, so the counts never reach zero.
Cost: about 6 MB up front, then 8 bytes per leaked reference (8 MB per million Qt calls).
"""

from __future__ import annotations

import ctypes
import logging
import sys

__all__ = [
    "install_none_refcount_guard",
    "top_up",
]


_logger = logging.getLogger(__name__)

# References that stand in for the ones PySide6 drops, per singleton.
_RESERVES: dict[object, list[object]] = {None: [], True: [], False: []}
_CHUNK = 250_000
_LOW_WATER = 100_000
_timer = None


def _none_leak_per_call() -> float:
    """References to None lost per void Qt call (0.0 on healthy builds)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(200):
        probe.setObjectName("probe")
    return (before - sys.getrefcount(None)) / 200


def _immortalise(obj: object) -> None:
    # The reserve must outlive interpreter shutdown: freeing it would hand back the
    # references PySide6 already dropped and take the count to zero (a crash at exit).
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def top_up() -> None:
    """Add a chunk of references to each singleton whose count runs low."""
    for value, reserve in _RESERVES.items():
        if sys.getrefcount(value) < _LOW_WATER + _CHUNK:
            chunk = [value] * _CHUNK
            _immortalise(chunk)
            reserve.append(chunk)


def install_none_refcount_guard(with_timer: bool = True) -> bool:
    """Detect the PySide6 None leak and guard against it. Returns True if it was needed.

    ``with_timer`` adds a 1 s QTimer that tops the reserve up (needs a Q(Core)Application).
    """
    global _timer
    if sys.version_info >= (3, 12) or _none_leak_per_call() < 0.5:
        return False
    top_up()
    if with_timer and _timer is None:
        from PySide6.QtCore import QTimer

        _timer = QTimer()
        _timer.setInterval(1000)
        _timer.timeout.connect(top_up)
        _timer.start()
    _logger.warning(
        "PySide6 %s drops references to None (known bug on Python 3.11); "
        "work-around active. Install PySide6-Essentials 6.11.x to avoid it.",
        _pyside_version(),
    )
    return True


def _pyside_version() -> str:
    import PySide6

    return getattr(PySide6, "__version__", "?")
