"""Nothing typed is lost: the draft comes back on the next start, quitting while work runs
asks, and an interrupted file job is offered (Continue / Discard). The real-process check
(``kill -9``) is in test_drafts_x11.py."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_mt import batch
from desktop_mt.batch import default_output_path
from desktop_mt.batch.journal import journal_path
from desktop_mt.gui.features import drafts

from ..fakes import progress_log, wait_emitted
from .test_file_job import FakeBatchTranslator, _blocking_after_calls, _counting_batch, batch_factory, write_input


class SpontaneousClose(QCloseEvent):
    """A close event as the window manager's close button sends it (spontaneous)."""

    def spontaneous(self) -> bool:
        return True


def saved() -> dict:
    return json.loads(drafts.draft_path().read_text(encoding="utf-8"))


def test_typed_text_translation_and_cursor_come_back_after_a_quit(qtbot, make_controller):
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "first line")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.translateRequested.emit(window.source_text())
    qtbot.keyClicks(window.source, " and more")  # typed after the translation: kept too
    cursor = window.source.textCursor()
    cursor.setPosition(5)
    cursor.setPosition(10, cursor.MoveMode.KeepAnchor)
    window.source.setTextCursor(cursor)
    controller.shutdown()  # what Ctrl+Q ends with: the last state is written at once
    assert saved()["source"] == "first line and more"

    again, second = make_controller()
    assert again.source_text() == "first line and more"
    assert again.target_text() == "<first><line>"
    restored = again.source.textCursor()
    assert (restored.anchor(), restored.position()) == (5, 10)
    assert not again.source.document().isUndoAvailable()  # the start state, not an edit to undo
    assert second.current is None  # nothing is translated again


def test_the_draft_is_saved_while_typing_not_only_at_quit(qtbot, make_controller):
    window, controller = make_controller()
    qtbot.keyClicks(window.source, "unsaved?")
    qtbot.waitUntil(lambda: drafts.draft_path().exists() and saved()["source"] == "unsaved?", timeout=10_000)
    assert controller.drafts.writer._thread.name == "draft-writer"  # written off the UI thread


def test_a_corrupt_draft_is_kept_aside_never_overwritten(qtbot, make_controller):
    path = drafts.draft_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff not json")
    window, _controller = make_controller()
    assert window.source_text() == ""
    aside = [p for p in path.parent.iterdir() if p.name.startswith("draft.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == b"\xff not json"


def test_the_writer_keeps_only_the_newest_state_and_flush_wins(tmp_path):
    writer = drafts.DraftWriter(tmp_path / "d.json")
    for n in range(50):
        writer.submit(f"state {n}")
    writer.flush("last")
    assert (tmp_path / "d.json").read_text() == "last"
    assert [p.name for p in tmp_path.iterdir()] == ["d.json"]  # no temp file left behind


def test_quit_while_a_translation_runs_asks_and_keep_running_keeps_it(qtbot, make_controller):
    window, controller = make_controller(delay=0.2)
    window.show()
    with wait_emitted(qtbot, controller.worker.delta, timeout=10_000):
        controller.translate("one two three four five six seven eight")
    answers: list[str] = []

    def answer(button_text: str) -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        answers.append(box.text())
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, lambda: answer("Keep running"))
    window.quit_action.trigger()  # Ctrl+Q
    assert answers and "A translation is running" in answers[0]
    assert window.isVisible() and controller.current is not None
    QTimer.singleShot(0, lambda: answer("Quit"))
    with qtbot.waitSignal(window.closing, timeout=10_000):
        window.quit_action.trigger()
    assert len(answers) == 2 and not window.isVisible()


def test_quit_when_nothing_runs_does_not_ask(qtbot, make_controller):
    window, controller = make_controller()
    asked: list[str] = []
    controller.quit_guard.ask = lambda parent, text: asked.append(text) or False
    window.show()
    with qtbot.waitSignal(window.closing, timeout=10_000):
        window.quit()
    assert asked == []


def test_closing_the_window_without_a_tray_asks_while_a_file_job_runs(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(20)])
    window, controller = make_controller(factory=batch_factory(block_after=2))
    asked: list[str] = []
    controller.quit_guard.ask = lambda parent, text: asked.append(text) or False
    window.show()
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 2, timeout=10_000)
    close = SpontaneousClose()  # what the window manager's close button sends
    window.closeEvent(close)  # the close button quits here (no tray): asked, declined
    assert not close.isAccepted()
    assert window.isVisible() and controller.file_job is not None
    assert "notes.txt is being translated" in asked[0] and "continue" in asked[0]
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.cancel_file()


@pytest.fixture
def interrupted_job(qtbot, make_controller, tmp_path, monkeypatch):
    """A file job stopped by a confirmed quit after 12 of 20 lines were journaled."""
    monkeypatch.setattr(batch, "default_chunk_size", lambda batch_size: 4)  # chunks of 4 lines
    src = write_input(tmp_path, [f"line {i}" for i in range(20)])
    monkeypatch.setattr(FakeBatchTranslator, "translate_batch", _blocking_after_calls(3))
    window, controller = make_controller(factory=batch_factory())
    controller.quit_guard.ask = lambda parent, text: True
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 12, timeout=10_000)
    window.show()
    with qtbot.waitSignal(window.closing, timeout=10_000):
        window.quit()
    controller.shutdown()
    assert journal_path(default_output_path(src)).exists()
    monkeypatch.setattr(FakeBatchTranslator, "translate_batch", _counting_batch)
    _counting_batch.lines = 0
    return src


def test_an_interrupted_job_is_offered_and_continues_from_its_journal(qtbot, make_controller, interrupted_job):
    window, controller = make_controller(factory=batch_factory())
    notice = controller.job_resume.notice
    assert notice.isVisibleTo(window)
    assert "notes.txt" in notice.label.text() and "12 of 20" in notice.label.text()
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        qtbot.mouseClick(notice.continue_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"] and not notice.isVisibleTo(window)
    assert _counting_batch.lines == 8  # only what the journal did not hold
    out = default_output_path(interrupted_job)
    assert out.read_text(encoding="utf-8").splitlines() == [f"译LINE {i}" for i in range(20)]
    controller.shutdown()
    again, third = make_controller(factory=batch_factory())
    assert not third.job_resume.notice.isVisibleTo(again)  # finished: not offered again


def test_discard_deletes_the_journal_and_is_not_offered_again(qtbot, make_controller, interrupted_job):
    window, controller = make_controller(factory=batch_factory())
    qtbot.mouseClick(controller.job_resume.notice.discard_button, Qt.MouseButton.LeftButton)
    assert not journal_path(default_output_path(interrupted_job)).exists()
    assert not controller.job_resume.notice.isVisibleTo(window)
    controller.shutdown()
    again, third = make_controller(factory=batch_factory())
    assert not third.job_resume.notice.isVisibleTo(again)


LINES = "\n".join(f"Line number {n} of the text." for n in range(1, 21))


def test_a_translation_cut_short_by_quitting_comes_back_marked_incomplete(qtbot, make_controller):
    from desktop_mt.gui.window.progress import STOP_MARK

    window, controller = make_controller(delay=0.2)
    window.set_source(LINES)
    controller.translate(LINES)
    qtbot.waitUntil(lambda: window.target_text().count("<") >= 3, timeout=10_000)  # a few words are in
    assert controller.current is not None
    controller.shutdown()  # Ctrl+Q, Quit: the draft is written with the stream still running
    data = saved()
    assert data["incomplete"] is True and data["translation"]
    partial = data["translation"]

    again, second = make_controller()
    assert again.target_text() == partial  # the mark is not part of the translation
    assert again.target.toPlainText() == partial + STOP_MARK
    assert not again.target.document().isUndoAvailable()
    [note] = [line for line in again.banner.lines() if "incomplete" in line]
    assert "(1 of 20 lines translated)" in note  # the fake engine's translation is one line
    assert second.current is None  # nothing is translated again by itself
    # Still marked if the app is closed again before translating: the mark is saved as incomplete.
    second.drafts.close()
    assert saved()["incomplete"] is True and saved()["translation"] == partial

    third_window, third = make_controller()
    with qtbot.waitSignal(third.requestFinished, timeout=10_000):  # translating again finishes it
        third.translate(third_window.source_text())
    assert not third_window.target.toPlainText().endswith(STOP_MARK)
    assert not any("incomplete" in line for line in third_window.banner.lines())
    qtbot.waitUntil(
        lambda: saved()["incomplete"] is False and saved()["translation"] == third_window.target_text(), timeout=10_000
    )


def test_a_finished_translation_is_saved_complete_and_restored_without_a_mark(qtbot, make_controller):
    from desktop_mt.gui.window.progress import STOP_MARK

    window, controller = make_controller()
    window.set_source("Good morning")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Good morning")
    qtbot.waitUntil(
        lambda: drafts.draft_path().exists() and saved()["translation"] == "<Good><morning>", timeout=10_000
    )
    assert saved()["incomplete"] is False
    controller.shutdown()
    again, _second = make_controller()
    assert again.target.toPlainText() == "<Good><morning>" and not again.target.toPlainText().endswith(STOP_MARK)
    assert not any("incomplete" in line for line in again.banner.lines())


def test_a_stopped_translation_is_saved_incomplete(qtbot, make_controller):
    window, controller = make_controller(delay=0.2)
    window.set_source(LINES)
    controller.translate(LINES)
    qtbot.waitUntil(lambda: window.target_text().count("<") >= 3, timeout=10_000)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.stopRequested.emit()
    qtbot.waitUntil(lambda: drafts.draft_path().exists() and saved()["incomplete"] is True, timeout=10_000)
    assert saved()["translation"] == window.target_text()


def test_a_draft_without_the_flag_is_complete():
    draft = drafts.parse_draft(json.dumps({"version": 1, "source": "a", "translation": "b"}))
    assert draft.incomplete is False
    assert drafts.parse_draft(drafts.Draft("a", "b", incomplete=True).to_json()).incomplete is True
    note = drafts.incomplete_note(drafts.Draft("1\n2\n3\n", "一\n", incomplete=True))
    assert "(1 of 3 lines translated)" in note
