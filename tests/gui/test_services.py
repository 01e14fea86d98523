"""The window's features are built on Services alone (issue 42): a feature follows the session's
and the app's topics, not the controller's signals, and is tested without a controller."""

from __future__ import annotations

from desktop_mt.app.session import Session
from desktop_mt.engine.events import TranslationStats
from desktop_mt.engine.options import GenerationOptions
from desktop_mt.gui.features.bilingual import BilingualView
from desktop_mt.gui.features.drafts import DraftKeeper, load_draft
from desktop_mt.gui.features.stale import StaleGuard
from desktop_mt.gui.ports import Status
from desktop_mt.gui.services import FileJobStart, Services
from desktop_mt.gui.settings import Settings
from desktop_mt.gui.window.main import MainWindow
from desktop_mt.gui.window.progress import ProgressFeature
from desktop_mt.gui.workers.translation import TranslationWorker


def services_on(qtbot, tmp_path, settings: Settings | None = None):
    """The real window, an idle worker (no thread, no model) and a new session: no controller."""
    window = MainWindow()
    qtbot.addWidget(window)
    services = Services(
        window, Session(), TranslationWorker(None), settings or Settings(), settings_path=tmp_path / "settings.json"
    )
    services.bind(
        translate=lambda _text: None, show_entry=lambda _s, _t: None, options=GenerationOptions, target=lambda: "auto"
    )
    return services


def stats(cancelled: bool = False) -> TranslationStats:
    return TranslationStats(segments=1, tokens=2, seconds=0.1, first_token_seconds=0.05, cancelled=cancelled)


def run_to_end(services: Services, text: str, translation: str) -> None:
    """What the request flow and its results do for a request that runs to its end."""
    request = services.session.start(text)
    services.window.append_target(translation)
    ended = services.session.end(request.req_id, stats())
    assert ended is not None and ended.completed
    services.session.complete(text, translation)
    services.session.show_end(ended)


def test_the_bilingual_view_follows_the_session(qtbot, tmp_path):
    services = services_on(qtbot, tmp_path, Settings(bilingual=True))
    BilingualView(services)
    run_to_end(services, "Good morning.\nThank you.", "早上好。\n谢谢。")
    assert services.window.target_text() == "Good morning.\n早上好。\n\nThank you.\n谢谢。"


def test_the_stale_guard_remembers_what_the_session_completes(qtbot, tmp_path):
    services = services_on(qtbot, tmp_path)
    guard = StaleGuard(services)
    run_to_end(services, "Good morning.", "早上好。")
    assert dict(guard.known) == {"Good morning.": "早上好。"}


def test_progress_says_a_stop_on_the_apps_state_topic(qtbot, tmp_path):
    services = services_on(qtbot, tmp_path)
    ProgressFeature(services)
    states: list[Status] = []
    services.events.state.subscribe(states.append)
    request = services.session.start("One. Two. Three.")
    services.window.append_target("一。")
    services.window.stopRequested.emit()  # the user's Stop: the request stays current until its end
    services.session.interrupt()
    ended = services.session.end(request.req_id, stats(cancelled=True))
    assert ended is not None
    services.window.set_state(Status.IDLE)  # as the results do before the end is shown
    services.session.show_end(ended)
    assert states == [Status.STOPPED]
    window = services.window
    assert window.state() == "stopped" and window.state_label.text().startswith("stopped: 0 of 3 sentences")


def test_drafts_record_file_jobs_from_the_events_until_closed(qtbot, tmp_path):
    services = services_on(qtbot, tmp_path)
    keeper = DraftKeeper(services, path=tmp_path / "draft.json")
    services.events.file_started.publish(FileJobStart("/data/book.txt", "/data/book.zh.txt"))
    assert keeper.file_job == {"src": "/data/book.txt", "dst": "/data/book.zh.txt"}
    keeper.close()
    assert load_draft(tmp_path / "draft.json").file_job == keeper.file_job
    services.events.file_ended.publish("finished")  # after close: no longer heard (unsubscribed)
    assert keeper.file_job == {"src": "/data/book.txt", "dst": "/data/book.zh.txt"}
