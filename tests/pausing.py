"""A translator wrapper for the resume-after-SIGKILL tests (tests/cli/test_main.py): with
``PAUSE_AFTER_CALLS=N`` in the environment, its ``translate_batch`` stands still from the
(N+1)th call on, so exactly N chunks are journaled when the test kills the process. The
batch code calls ``translate_batch`` once per chunk and journals the chunk when it returns."""

from __future__ import annotations

import os
import threading
from typing import Any


class Pausing:
    """``inner`` with ``translate_batch`` paused after ``after`` calls (0: never)."""

    def __init__(self, inner: Any, after: int) -> None:
        self._inner, self._after, self._calls = inner, after, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def translate_batch(self, *args: Any, **kwargs: Any) -> list[str]:
        self._calls += 1
        if self._after and self._calls > self._after:
            threading.Event().wait()  # until the test's SIGKILL
        return list(self._inner.translate_batch(*args, **kwargs))


def pausing(inner: Any) -> Any:
    """``inner`` paused after ``$PAUSE_AFTER_CALLS`` calls, or ``inner`` itself without it."""
    after = int(os.environ.get("PAUSE_AFTER_CALLS") or 0)
    return Pausing(inner, after) if after else inner
