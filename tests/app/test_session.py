"""The Qt-free interactive session (desktop_mt.app.session): ids, the current request, its
cancelling, options and figures, and what its subscribers hear."""

from __future__ import annotations

import subprocess
import sys

from desktop_mt.app.session import Ended, Session, Topic
from desktop_mt.engine.events import TranslationStats
from desktop_mt.engine.options import GenerationOptions


def stats(*, cancelled: bool = False) -> TranslationStats:
    return TranslationStats(segments=1, tokens=3, seconds=0.5, first_token_seconds=0.1, cancelled=cancelled)


def test_a_new_request_supersedes_and_cancels_the_running_one() -> None:
    session = Session()
    first = session.start("Hello.")
    second = session.start("Hello there.")
    assert (first.req_id, second.req_id) == (1, 2)
    assert first.cancel.is_set() and not second.cancel.is_set()
    assert session.current is second and session.busy
    assert session.request(first.req_id) is None  # its late output is dropped
    assert session.request(second.req_id) is second


def test_a_request_takes_the_options_in_force_when_it_starts() -> None:
    chosen = [GenerationOptions(target="zh")]
    session = Session(options=lambda: chosen[0])
    first = session.start("one")
    chosen[0] = GenerationOptions(target="en")
    second = session.start("two")
    assert first.options is not None and first.options.target == "zh"
    assert second.options is not None and second.options.target == "en"
    assert Session().start("x").options is None  # no provider: the engine's defaults


def test_the_end_of_the_current_request_keeps_its_figures_and_a_stale_end_changes_nothing() -> None:
    session = Session()
    old = session.start("a")
    new = session.start("b")
    assert session.end(old.req_id, stats()) is None
    assert session.current is new and session.last_stats is None
    figures = stats()
    ended = session.end(new.req_id, figures)
    assert ended == Ended(new, figures) and ended.completed
    assert session.current is None and session.last_stats is figures
    session.clear_stats()
    assert session.last_stats is None


def test_a_failed_or_cancelled_end_is_not_completed_and_a_failure_keeps_the_last_figures() -> None:
    session = Session()
    ran = session.start("a")
    kept = stats()
    session.end(ran.req_id, kept)
    failed = session.end(session.start("b").req_id)
    assert failed is not None and not failed.completed and session.last_stats is kept
    cancelled = session.end(session.start("c").req_id, stats(cancelled=True))
    assert cancelled is not None and not cancelled.completed


def test_interrupt_sets_the_event_but_keeps_the_request_current_and_cancel_forgets_it() -> None:
    session = Session()
    assert not session.interrupt() and session.cancel_current() is None  # nothing runs
    request = session.start("a")
    assert session.interrupt() and request.cancel.is_set() and session.current is request
    assert session.cancel_current() is request and session.current is None


def test_first_text_is_timed_once_for_the_current_request_only() -> None:
    session = Session()
    old = session.start("a")
    request = session.start("b")
    assert session.first_text(old.req_id) is None
    ms = session.first_text(request.req_id)
    assert ms is not None and ms >= 0 and session.first_text_ms == ms and request.shown_first
    assert session.first_text(request.req_id) is None  # the first time only


def test_subscribers_hear_changes_starts_and_ends_in_order() -> None:
    session = Session()
    heard: list[tuple[str, object]] = []
    session.changed.subscribe(lambda r: heard.append(("changed", r and r.req_id)))
    session.started.subscribe(lambda r: heard.append(("started", r.req_id)))
    session.ended.subscribe(lambda e: heard.append(("ended", e.request.req_id)))
    session.start("a")
    session.start("b")  # the first is cancelled: changed to None, then to the new one
    session.end(2, stats())
    assert heard == [
        ("changed", 1),
        ("started", 1),
        ("changed", None),
        ("changed", 2),
        ("started", 2),
        ("changed", None),
        ("ended", 2),
    ]


def test_a_topic_unsubscribes_also_while_it_publishes() -> None:
    topic: Topic[int] = Topic()
    heard: list[int] = []

    def once(value: int) -> None:
        heard.append(value)
        unsubscribe()

    unsubscribe = topic.subscribe(once)
    topic.subscribe(lambda v: heard.append(v * 10))
    topic.publish(1)
    topic.publish(2)
    assert heard == [1, 10, 20]
    unsubscribe()  # a second time is harmless


def test_the_session_imports_no_qt() -> None:
    code = "import sys, desktop_mt.app.session; print(any(m.startswith('PySide6') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
