"""Calls into native code that releases the GIL, counted so that the interpreter never exits
under one.

A daemon thread inside such a call when Python exits (a stream of the local API, a model folder
being converted, the server's batcher) is ended by the interpreter when the call returns and
takes the GIL back: ``pthread_exit`` unwinds through the extension's C++ frames, and the C++
runtime aborts the process ("terminate called without an active exception", exit status 134; a
crash report on macOS). It happened on every exit taken right after a translation in a daemon
thread (SentencePiece's ``encode`` releases the GIL, ONNX Runtime's ``run`` too). At exit,
:meth:`NativeCalls.drain` lets the calls in flight finish (one decode step: milliseconds) and
parks every other thread that starts one afterwards, so no thread is inside one at finalization.
"""

from __future__ import annotations

import atexit
import logging
import threading
from types import TracebackType

__all__ = ["NATIVE_CALLS", "NativeCalls"]

_logger = logging.getLogger(__name__)


class NativeCalls:
    """A count of the threads inside native calls; ``with NATIVE_CALLS: call()`` around each."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._closing = False
        self._parked = 0
        self._park = threading.Event()  # never set: a parked thread waits for the process to end

    @property
    def active(self) -> int:
        """How many calls are in flight now."""
        with self._cond:
            return self._active

    @property
    def parked(self) -> int:
        """How many threads wanted a call after :meth:`drain` and wait for the process to end."""
        with self._cond:
            return self._parked

    def __enter__(self) -> None:
        """Before a call; once the process is exiting, a thread other than the main one stops here."""
        with self._cond:
            closing = self._closing and threading.current_thread() is not threading.main_thread()
            if not closing:
                self._active += 1
                return
            self._parked += 1
            self._cond.notify_all()
        self._park.wait()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        """After a call (also one that raised)."""
        with self._cond:
            self._active -= 1
            self._cond.notify_all()

    def drain(self, timeout: float = 10.0) -> bool:
        """Park new calls off the main thread and wait up to ``timeout`` s for those in flight;
        True when none is left."""
        with self._cond:
            self._closing = True
            done = self._cond.wait_for(lambda: self._active == 0, timeout)
        if not done:
            _logger.warning("exiting while %d native calls are still going", self.active)
        return done


NATIVE_CALLS = NativeCalls()
atexit.register(NATIVE_CALLS.drain)
