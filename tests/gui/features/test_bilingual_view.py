"""View > Bilingual (issue 19): each source paragraph followed by its translation, shown and
copied that way, remembered; file jobs get ``bilingual=True``."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from desktop_mt.engine.events import Finished, SegmentDone, TextDelta, TranslationStats
from desktop_mt.gui.features.bilingual import interleave
from desktop_mt.gui.settings import Settings, load_settings

from ..fakes import FakeTranslator, wait_emitted

TEXT = "Good morning.\n\nWhere is the station?\nThank you."


class LineFake(FakeTranslator):
    """Keeps the engine's line structure: one output line per input line (blank stays blank)."""

    def translate_stream(self, text, options=None, cancel=None, prefix=None, look_ahead=False):
        self.calls.append({"text": text, "options": options})
        lines = text.split("\n")
        for i, line in enumerate(lines):
            out = "".join(f"<{w}>" for w in line.split())
            yield TextDelta(out + ("\n" if i < len(lines) - 1 else ""), i)
            yield SegmentDone(i, line, out, 1)
        yield Finished(TranslationStats(len(lines), len(lines), 0.01, 0.001, False))


def line_factory(config):
    return LineFake(config)


def test_interleave_pairs_lines_and_keeps_a_stopped_rest():
    assert interleave("A b.\n\nC d.\nE.", "1\n\n2\n3") == "A b.\n1\n\nC d.\n2\n\nE.\n3"
    assert interleave("A.\nB.\nC.", "1\n2") == "A.\n1\n\nB.\n2\n\nC."  # stopped after two
    assert interleave("A.", "1\n2") == "A.\n\n1\n2"  # does not line up
    assert interleave("A.", "") == "A."


def test_bilingual_view_shows_and_copies_pairs_and_is_remembered(qtbot, make_controller, tmp_path):
    window, controller = make_controller(factory=line_factory)
    assert not window.bilingual_action.isChecked()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate(TEXT)
    plain = "<Good><morning.>\n\n<Where><is><the><station?>\n<Thank><you.>"
    assert window.target_text() == plain
    window.bilingual_action.trigger()  # the user ticks View > Bilingual: shown at once
    assert controller.settings.bilingual and load_settings(tmp_path / "s.json").settings.bilingual
    paired = (
        "Good morning.\n<Good><morning.>\n\nWhere is the station?\n<Where><is><the><station?>"
        "\n\nThank you.\n<Thank><you.>"
    )
    assert window.target_text() == paired
    window.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == paired
    window.bilingual_action.trigger()  # and off again: the plain translation
    assert window.target_text() == plain
    window.bilingual_action.trigger()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("See you.")  # the next translation comes out paired too
    assert window.target_text() == "See you.\n<See><you.>"


def test_bilingual_from_the_settings_file_and_kept_by_the_dialog(qtbot, make_controller):
    window, controller = make_controller(Settings(bilingual=True), factory=line_factory)
    assert window.bilingual_action.isChecked()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Hello there.")
    assert window.target_text() == "Hello there.\n<Hello><there.>"
    controller.apply_settings(Settings(bilingual=False))  # a dialog opened before the toggle
    assert controller.settings.bilingual


def test_toggling_after_clear_leaves_the_empty_pane(qtbot, make_controller):
    window, controller = make_controller(factory=line_factory)
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Hello there.")
    window.clearRequested.emit()
    window.bilingual_action.trigger()
    assert window.target_text() == ""


def test_file_jobs_are_bilingual_with_the_option(qtbot, make_controller, tmp_path):
    from desktop_mt.batch import default_output_path

    from .test_file_job import batch_factory

    srt = tmp_path / "talk.srt"
    srt.write_text(
        "1\n00:00:01,000 --> 00:00:03,500\nWhere is the station?\n\n2\n00:00:04,000 --> 00:00:05,000\nThank you.\n",
        encoding="utf-8",
    )
    txt = tmp_path / "notes.txt"
    txt.write_text("Good morning.\n\nSee you.\n", encoding="utf-8")
    window, controller = make_controller(Settings(bilingual=True), factory=batch_factory())
    for src in (srt, txt):
        with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
            window.translateFileRequested.emit(str(src))
        assert ended.args == ["finished"]
    assert default_output_path(srt).read_text(encoding="utf-8") == (
        "1\n00:00:01,000 --> 00:00:03,500\nWhere is the station?\n译WHERE IS THE STATION?\n\n"
        "2\n00:00:04,000 --> 00:00:05,000\nThank you.\n译THANK YOU.\n"
    )
    assert default_output_path(txt).read_text(encoding="utf-8") == (
        "Good morning.\n译GOOD MORNING.\n\nSee you.\n译SEE YOU.\n"
    )
    window.bilingual_action.trigger()  # off: the next job writes the translation only
    txt.write_text("Good night.\n", encoding="utf-8")
    default_output_path(txt).unlink()
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        window.translateFileRequested.emit(str(txt))
    assert default_output_path(txt).read_text(encoding="utf-8") == "译GOOD NIGHT.\n"


def test_toggling_after_a_stop_keeps_the_stopped_mark(qtbot, make_controller):
    """Esc leaves the "stopped here" line; View > Bilingual on and off re-renders the pane and
    the line stays (seen in the real window: it went on the first toggle)."""
    import threading

    from desktop_mt.gui.window.progress import STOP_MARK

    from ..sentence_fake import sentence_factory

    gate = threading.Event()  # sentences after the first wait for it: never set
    window, controller = make_controller(factory=sentence_factory(gate=gate))
    with wait_emitted(qtbot, controller.worker.segmentDone, timeout=10_000):
        controller.translate("One apple. Two boats.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.stop_action.trigger()
    assert window.target.toPlainText() == "<One><apple.> " + STOP_MARK
    window.bilingual_action.trigger()
    assert window.target.toPlainText() == "One apple. Two boats.\n<One><apple.> " + STOP_MARK
    window.bilingual_action.trigger()
    assert window.target.toPlainText() == "<One><apple.> " + STOP_MARK
    gate.set()


def test_undo_brings_back_a_translation_shown_bilingually(qtbot, make_controller):
    """With View > Bilingual on, Ctrl+Z back to an earlier text shows its translation paired
    too, and turning Bilingual off then shows it plain (seen in the real window: it came back
    plain and the toggle did nothing)."""
    from PySide6.QtCore import Qt

    window, controller = make_controller(factory=line_factory)
    window.bilingual_action.trigger()
    for text in ("Good morning.", "Thank you."):
        window.set_source(text)
        with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
            controller.translate(text)
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.source_text() == "Good morning."
    assert window.target_text() == "Good morning.\n<Good><morning.>"
    window.bilingual_action.trigger()
    assert window.target_text() == "<Good><morning.>"


def test_a_history_entry_opened_shows_bilingually_and_toggles(qtbot, make_controller):
    """History > Open and the popup's Open in main window (``show_entry``) with View >
    Bilingual on: the entry comes out paired, as a finished translation does, and the toggle
    switches it both ways (seen in a user tryout: it came back plain and did not redraw)."""
    window, controller = make_controller(factory=line_factory)
    window.bilingual_action.trigger()
    controller.show_entry("Good morning.\nThank you.", "<Good><morning.>\n<Thank><you.>")
    paired = "Good morning.\n<Good><morning.>\n\nThank you.\n<Thank><you.>"
    assert window.target_text() == paired
    window.bilingual_action.trigger()
    assert window.target_text() == "<Good><morning.>\n<Thank><you.>"
    window.bilingual_action.trigger()
    assert window.target_text() == paired


def test_a_restored_draft_shows_bilingually_and_is_saved_plain(qtbot, make_controller):
    """The draft keeps the plain translation (not the pairs on screen): restored with
    Bilingual on it is shown paired and toggles; a restart with Bilingual off shows it plain."""
    import json

    from desktop_mt.gui.features import drafts

    window, controller = make_controller(Settings(bilingual=True), factory=line_factory)
    window.set_source("Good morning.")
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("Good morning.")
    assert window.target_text() == "Good morning.\n<Good><morning.>"
    controller.shutdown()  # the last state is written at once
    assert json.loads(drafts.draft_path().read_text(encoding="utf-8"))["translation"] == "<Good><morning.>"

    again, second = make_controller(Settings(bilingual=True), factory=line_factory)
    assert again.target_text() == "Good morning.\n<Good><morning.>"
    again.bilingual_action.trigger()  # off: the plain translation
    assert again.target_text() == "<Good><morning.>"
    again.bilingual_action.trigger()  # on again: paired
    assert again.target_text() == "Good morning.\n<Good><morning.>"
    second.shutdown()

    third, _ = make_controller(Settings(bilingual=False), factory=line_factory)
    assert third.target_text() == "<Good><morning.>"
