"""A scripted stand-in for ``desktop_mt.Translator`` (same ``translate_stream`` contract), on
:class:`desktop_mt.engine.testing.ScriptedTranslator`."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from desktop_mt.engine.events import Finished, SegmentDone, StreamEvent, TextDelta, TranslationStats
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.engine.protocols import CancelToken
from desktop_mt.engine.testing import ScriptedTranslator


def fake_output(text: str, max_tokens: int) -> list[str]:
    """The tokens the fake 'translates' ``text`` into: one per word, tagged, capped."""
    return [f"<{w}>" for w in text.split()][:max_tokens]


class FakeTranslator(ScriptedTranslator):
    """Yields one TextDelta per source word, waiting ``delay`` s per token (on the cancel
    event, so a cancel wakes it at once) and optionally burning ``busy`` s of pure-Python
    CPU per token to hold the GIL like tokenisation/search code does. Checks
    ``cancel.is_set()`` before every token and records what happened for assertions
    (``calls``: one dict per stream). The rest (batches, alternatives, ``close``) is
    :class:`desktop_mt.engine.testing.ScriptedTranslator`'s, with :func:`fake_output` as its model."""

    instances: list[FakeTranslator] = []

    def __init__(
        self,
        config: Any = None,
        delay: float = 0.0,
        busy: float = 0.0,
        max_tokens: int = 10_000,
        fail_on: str | None = None,
    ) -> None:
        super().__init__(
            lambda text: "".join(fake_output(text, max_tokens)),
            variant=getattr(config, "variant", "int8"),
            fail_on=fail_on,
            name="fake-en-zh",
        )
        self.config = config
        self.delay, self.busy, self.max_tokens = delay, busy, max_tokens
        self.model_info.variants = ("int8", "fp32")
        self.model_info.path = "fake"
        self.stream_calls: list[dict[str, Any]] = []
        FakeTranslator.instances.append(self)

    @property
    def calls(self) -> list[dict[str, Any]]:  # type: ignore[override]
        """One dict per ``translate_stream`` call (the GUI tests' record)."""
        return self.stream_calls

    def _burn(self) -> None:
        end = time.perf_counter() + self.busy
        while time.perf_counter() < end:
            pass

    def translate_stream(
        self,
        text: str,
        options: GenerationOptions | None = None,
        cancel: CancelToken | None = None,
        prefix: str | None = None,
        look_ahead: bool = False,
    ) -> Generator[StreamEvent, None, None]:
        """Generator like the engine's: TextDelta..., SegmentDone, Finished(stats); with
        ``prefix``, the scripted completion (``ScriptedTranslator``'s); no batches to look ahead to."""
        if prefix is not None:
            yield from super().translate_stream(text, options, cancel, prefix)
            return
        call: dict[str, Any] = {
            "text": text,
            "options": options,
            "thread": threading.get_ident(),
            "yielded": 0,
            "after_cancel": 0,
            "cancelled": False,
        }
        self.stream_calls.append(call)
        if self.fail_on and self.fail_on in text:
            raise RuntimeError(f"fake engine exploded on {text!r}")
        tokens = fake_output(text, self.max_tokens)
        t0 = time.perf_counter()
        first: float | None = None
        for tok in tokens:
            if cancel is not None and cancel.is_set():
                call["cancelled"] = True
                break
            if self.delay and isinstance(cancel, threading.Event) and cancel.wait(self.delay):
                call["cancelled"] = True
                break
            self._burn()
            first = first if first is not None else time.perf_counter() - t0
            call["yielded"] += 1
            yield TextDelta(tok, 0)
            if cancel is not None and cancel.is_set():
                call["after_cancel"] += 1  # tokens produced although cancel was already set
        if not call["cancelled"]:
            yield SegmentDone(0, text, "".join(tokens), len(tokens))
        yield Finished(TranslationStats(1, call["yielded"], time.perf_counter() - t0, first, call["cancelled"]))


def fake_factory(**kwargs: Any) -> Callable[[Any], FakeTranslator]:
    """A translator factory for the worker that builds FakeTranslators with ``kwargs``."""

    def factory(config: Any) -> FakeTranslator:
        return FakeTranslator(config, **kwargs)

    return factory


class FakeGlobalHotKeys:
    """Stands in for pynput.keyboard.GlobalHotKeys: presses come from another thread."""

    last: FakeGlobalHotKeys | None = None

    def __init__(self, mapping: dict[str, Callable[[], object]]) -> None:
        self.mapping, self.started, self.stopped = mapping, False, False
        FakeGlobalHotKeys.last = self

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def press(self, combo: str) -> None:
        t = threading.Thread(target=self.mapping[combo])
        t.start()
        t.join()


class Emissions:
    """The emissions of one signal that ``check`` accepts (all when None), recorded by a plain
    callable in whichever thread emits; ``args`` are the first one's, as pytest-qt's blocker
    gives them."""

    def __init__(self, check: Callable[..., bool] | None = None):
        self.calls: list[tuple[Any, ...]] = []
        self._check = check

    def record(self, *args: Any) -> None:
        if self._check is None or self._check(*args):
            self.calls.append(args)  # list.append is atomic: safe from the worker thread

    @property
    def args(self) -> list[Any]:
        return list(self.calls[0])


@contextlib.contextmanager
def wait_emitted(
    qtbot: Any, signal: Any, timeout: int = 10_000, check_params_cb: Callable[..., bool] | None = None
) -> Iterator[Emissions]:
    """``qtbot.waitSignal`` for a signal emitted in another thread (the translation worker's
    QThread, a folder adder's thread): records emissions from the start of the block, then waits
    with ``qtbot.waitUntil``. Not ``waitSignal``: pytest-qt runs its callback in the emitting
    thread, and an emission landing between ``wait()``'s check and the start of its event loop
    quits a loop that has not started yet and stops the timeout timer, so the wait never ends
    (seen once under load: a test hung for 20 minutes). Signals emitted in the GUI thread (the
    controller's, the window's) are safe with ``waitSignal``."""
    seen = Emissions(check_params_cb)
    signal.connect(seen.record)
    try:
        yield seen
        qtbot.waitUntil(lambda: bool(seen.calls), timeout=timeout)
    finally:
        signal.disconnect(seen.record)


def progress_log(controller: Any) -> list[int]:
    """The done counts of the file job, as its worker reports them (``fileProgress``, emitted in
    the file worker's thread); wait on them with ``qtbot.waitUntil`` (why not ``qtbot.waitSignal``:
    :func:`wait_emitted`)."""
    done: list[int] = []
    controller.file_worker.fileProgress.connect(lambda d, _t, _r: done.append(d))
    return done
