"""The "Translate file..." job: worker + controller + window on a fake batch engine."""

from __future__ import annotations

import threading

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from desktop_mt import batch
from desktop_mt.base.errors import TranslationCancelled
from desktop_mt.batch import default_output_path
from desktop_mt.batch.journal import journal_path

from ..fakes import FakeTranslator, progress_log


class FakeBatchTranslator(FakeTranslator):
    """FakeTranslator plus the ``translate_batch`` contract the batch runner uses.
    With ``block_after`` set, it reports that many lines then waits on ``cancel``
    (no timing: the test cancels at a known point)."""

    batch_invariant = True  # part of desktop_mt.batch.BatchTranslator: the journal key needs it

    def __init__(self, config=None, block_after: int | None = None, **kwargs) -> None:
        super().__init__(config, **kwargs)
        self.block_after = block_after
        self.batch_threads: list[int] = []

    def translate_batch(self, lines, options=None, cancel=None, progress=None):
        self.batch_threads.append(threading.get_ident())
        out = []
        for n, line in enumerate(lines, start=1):
            if self.block_after is not None and n > self.block_after:
                assert cancel is not None and cancel.wait(10), "the test never cancelled"
            if cancel is not None and cancel.is_set():
                raise TranslationCancelled("the translation was cancelled")
            out.append(f"译{line.upper()}")
            if progress is not None:
                progress(n, len(lines))
        return out


def batch_factory(**kwargs):
    def factory(config):
        return FakeBatchTranslator(config, **kwargs)

    return factory


def write_input(tmp_path, lines: list[str]):
    src = tmp_path / "docs" / "notes.txt"
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return src


def test_txt_job_writes_output_next_to_input(qtbot, make_controller, tmp_path):
    lines = [f"line {i}" for i in range(200)] + ["", "line 3"]
    src = write_input(tmp_path, lines)
    window, controller = make_controller(factory=batch_factory())
    progress: list[tuple[int, int, float]] = []
    controller.file_worker.fileProgress.connect(lambda d, t, r: progress.append((d, t, r)))
    finished: list[tuple[str, str]] = []
    controller.file_worker.fileFinished.connect(lambda out, summary: finished.append((out, summary)))
    # The controller's end of the job (its slot may run after other receivers of the worker's signal).
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        window.translateFileRequested.emit(str(src))
    # The worker's signal reaches this test's receiver as its own event, which may come after
    # the controller's (whose end of the job the wait above saw): wait for it too.
    qtbot.waitUntil(lambda: bool(finished), timeout=10_000)
    out = default_output_path(src)
    # The empty line is no segment; the repeated "line 3" is one, as the progress counts it
    # (issue 46: the progress said 200/200, "Saved" 201 segments).
    assert finished == [(str(out), "200 segments, 1 repeated (translated once)")]
    assert out.parent == src.parent and out.name == "notes.zh.txt"
    got = out.read_text(encoding="utf-8").splitlines()
    assert len(got) == len(lines)
    assert got[0] == "译LINE 0" and got[200] == "" and got[201] == "译LINE 3"
    assert progress, "no progress signals arrived"
    assert progress[-1][:2] == (200, 200)  # distinct segments; the repeated line counts once
    assert all(rate >= 0 for _d, _t, rate in progress)
    assert FakeTranslator.instances[-1].batch_threads[0] != threading.get_ident()
    assert not journal_path(out).exists()
    assert window.file_job.isHidden() and window.file_button.isEnabled()
    message = window.statusBar().currentMessage()
    assert "notes.zh.txt (200 segments, 1 repeated (translated once), " in message and message.endswith(" s)")
    assert f"({progress[-1][1]} segments" in message  # the progress and the summary agree


def test_cancel_stops_job_and_writes_no_output(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(50)])
    window, controller = make_controller(factory=batch_factory(block_after=5))
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 5, timeout=10_000)
    assert not window.file_job.isHidden()
    assert not window.file_button.isEnabled()
    # the panel follows the worker's signal through the controller's queued slot
    qtbot.waitUntil(lambda: "seg/s" in window.file_job.rate_label.text(), timeout=10_000)
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        window.file_job.cancel_button.click()
    assert ended.args == ["cancelled"]
    # One chunk holds all 50 lines and it never finished: the message must not claim more.
    assert "nothing was saved" in window.statusBar().currentMessage()
    assert not default_output_path(src).exists()
    assert [p.name for p in src.parent.iterdir() if p.suffix == ".tmp"] == []
    assert window.file_job.isHidden() and window.file_button.isEnabled()


def test_typing_runs_beside_the_job_and_pauses_it(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(20)])
    window, controller = make_controller(factory=batch_factory(block_after=2))
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 2, timeout=10_000)
    assert controller.translate_file(str(src)) is False  # one job at a time
    # the status bar says so (its label follows the signal through the controller's queued slot)
    qtbot.waitUntil(lambda: "file job: notes.txt 2/20" in window.job_label.text(), timeout=10_000)
    # The job is blocked inside its batch; the typed request still finishes: its own engine.
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("hello world")
    assert window.target_text() == "<hello><world>"
    assert window.state() == "idle"
    engines = {id(t) for t in FakeTranslator.instances}
    assert len(engines) >= 2
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.cancel_file()
    assert window.job_label.text() == ""


def test_typing_pauses_the_job_at_its_next_batch_boundary(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(30)])
    window, controller = make_controller(factory=batch_factory(), delay=0.0)
    controller.gate.set_busy(True)  # as while a typed request runs
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done), timeout=10_000)
    qtbot.waitUntil(lambda: controller.gate.pauses >= 1, timeout=10_000)
    assert not default_output_path(src).exists()  # held at the boundary
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        controller.gate.set_busy(False)
    assert ended.args == ["finished"]


def test_existing_output_is_never_overwritten_silently(qtbot, make_controller, tmp_path, monkeypatch):
    src = write_input(tmp_path, ["one", "two"])
    edited = default_output_path(src)
    edited.write_text("my edited translation\n", encoding="utf-8")
    window, controller = make_controller(factory=batch_factory())
    asked: list[str] = []
    monkeypatch.setattr(window, "ask_output_exists", lambda path, keep: asked.append(keep) or "cancel")
    assert controller.translate_file(str(src))  # taken: named in the job's thread, then asked
    qtbot.waitUntil(lambda: not controller.files.busy, timeout=10_000)
    assert asked == ["notes.zh (2).txt"] and controller.file_job is None
    monkeypatch.setattr(window, "ask_output_exists", lambda path, keep: "keep")
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        assert controller.translate_file(str(src))
    assert edited.read_text(encoding="utf-8") == "my edited translation\n"
    second = src.parent / "notes.zh (2).txt"
    assert second.read_text(encoding="utf-8").splitlines() == ["译ONE", "译TWO"]
    assert second.name in window.statusBar().currentMessage()
    monkeypatch.setattr(window, "ask_output_exists", lambda path, keep: "overwrite")
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.translate_file(str(src))
    assert edited.read_text(encoding="utf-8").splitlines() == ["译ONE", "译TWO"]
    assert not (src.parent / "notes.zh (3).txt").exists()


def test_keep_both_skips_taken_names_and_their_journals(tmp_path):
    from desktop_mt.gui.features.file_jobs import journal_path, keep_both_path

    out = tmp_path / "notes.zh.txt"
    (tmp_path / "notes.zh (2).txt").write_text("x")
    journal_path(tmp_path / "notes.zh (3).txt").write_text("x")
    assert keep_both_path(out).name == "notes.zh (4).txt"
    assert keep_both_path(tmp_path / "README").name == "README (2)"


def test_cancel_tells_what_the_journal_kept_and_the_job_resumes(qtbot, make_controller, tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "default_chunk_size", lambda batch_size: 4)  # chunks of 4 lines
    src = write_input(tmp_path, [f"line {i}" for i in range(20)])
    window, controller = make_controller(factory=batch_factory(block_after=2))
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 2, timeout=10_000)
    # Chunks of 4 lines: the first chunk blocks after 2 lines, so nothing is journaled yet.
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.cancel_file()
    assert "nothing was saved" in window.statusBar().currentMessage()
    # A fake that finishes 3 chunks (12 lines) before blocking: 12 are kept.
    controller.file_worker._factory = batch_factory(block_after=None)
    monkeypatch.setattr(FakeBatchTranslator, "translate_batch", _blocking_after_calls(3))
    monkeypatch.setattr(window, "ask_resume", lambda name, kept, total: "restart")
    done = progress_log(controller)
    controller.translate_file(str(src))
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 12, timeout=10_000)
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        controller.cancel_file()
    message = window.statusBar().currentMessage()
    assert "12 of 20 segments kept" in message and "nothing was saved" not in message
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(window, "ask_resume", lambda name, kept, total: asked.append((kept, total)) or "resume")
    monkeypatch.setattr(FakeBatchTranslator, "translate_batch", _counting_batch)
    _counting_batch.lines = 0
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        controller.translate_file(str(src))
    assert ended.args == ["finished"] and asked == [(12, 20)]
    assert _counting_batch.lines == 8  # only what the journal did not hold
    got = default_output_path(src).read_text(encoding="utf-8").splitlines()
    assert got == [f"译LINE {i}" for i in range(20)]


def _blocking_after_calls(calls: int):
    def translate_batch(self, lines, options=None, cancel=None, progress=None):
        self.batch_calls = getattr(self, "batch_calls", 0) + 1
        if self.batch_calls > calls:
            assert cancel.wait(10), "the test never cancelled"
            raise TranslationCancelled("the translation was cancelled")
        return [f"译{line.upper()}" for line in lines]

    return translate_batch


def _counting_batch(self, lines, options=None, cancel=None, progress=None):
    _counting_batch.lines += len(lines)
    return [f"译{line.upper()}" for line in lines]


def test_dropping_a_file_starts_a_job(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, ["one", "two"])
    window, controller = make_controller(factory=batch_factory())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(src))])
    event = QDropEvent(
        QPointF(QPoint(5, 5)), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        window.dropEvent(event)
    assert ended.args == ["finished"]
    assert default_output_path(src).read_text(encoding="utf-8").splitlines() == ["译ONE", "译TWO"]


def test_failed_job_shows_an_error(qtbot, make_controller, tmp_path):
    window, controller = make_controller(factory=batch_factory())
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        controller.translate_file(str(tmp_path / "missing.txt"))
    assert ended.args == ["failed"]
    assert any("no such file" in box.text() for box in window.error_dialogs)
    assert window.file_button.isEnabled()


def test_several_files_from_a_second_launch_run_one_after_another(qtbot, make_controller, tmp_path):
    """`desktop-mt gui a.txt b.txt` handed to the running window: every file gets its job,
    in order (it once translated only the first and said so where nobody could see it)."""
    from desktop_mt.gui.app import on_remote_message

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("one\n", encoding="utf-8")
    (folder / "b.txt").write_text("two\nthree\n", encoding="utf-8")
    window, controller = make_controller(factory=batch_factory())
    ended: list[str] = []
    controller.fileJobEnded.connect(ended.append)
    on_remote_message({"argv": ["a.txt", "b.txt"], "cwd": str(folder)}, window, controller)
    assert controller.file_queue == [str(folder / "b.txt")]
    assert "b.txt" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: len(ended) == 2, timeout=10_000)
    assert ended == ["finished", "finished"]
    assert default_output_path(folder / "a.txt").read_text(encoding="utf-8").splitlines() == ["译ONE"]
    assert default_output_path(folder / "b.txt").read_text(encoding="utf-8").splitlines() == ["译TWO", "译THREE"]
    assert controller.file_queue == [] and controller.file_job is None


def test_cancel_drops_the_queued_files_and_says_so(qtbot, make_controller, tmp_path):
    first = write_input(tmp_path, [f"line {i}" for i in range(20)])
    second = first.with_name("later.txt")
    second.write_text("later\n", encoding="utf-8")
    window, controller = make_controller(factory=batch_factory(block_after=3))
    done = progress_log(controller)
    controller.translate_files([str(first), str(second)])
    qtbot.waitUntil(lambda: bool(done) and done[-1] >= 3, timeout=10_000)
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        window.file_job.cancel_button.click()
    assert ended.args == ["cancelled"]
    assert window.statusBar().currentMessage().startswith("1 queued file not started. ")
    assert controller.file_queue == [] and controller.file_job is None
    assert not default_output_path(second).exists()


def test_declining_the_first_file_goes_on_with_the_next(qtbot, make_controller, tmp_path, monkeypatch):
    """Several files whose outputs exist: answering Cancel for the first moves on to the
    next (the rest once stayed queued and popped up later, out of nowhere)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.txt").write_text(f"{name}\n", encoding="utf-8")
        default_output_path(folder / f"{name}.txt").write_text("old\n", encoding="utf-8")
    window, controller = make_controller(factory=batch_factory())
    answers = iter(["cancel", "overwrite"])
    monkeypatch.setattr(window, "ask_output_exists", lambda *_args: next(answers))
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        controller.translate_files([str(folder / "a.txt"), str(folder / "b.txt")])
    assert ended.args == ["finished"]
    assert default_output_path(folder / "a.txt").read_text(encoding="utf-8") == "old\n"
    assert default_output_path(folder / "b.txt").read_text(encoding="utf-8").splitlines() == ["译B"]
    assert controller.file_queue == []


def test_the_job_label_waits_for_a_status_message(qtbot, make_controller):
    """A file job's label appearing while a message shows was drawn over it."""
    window, _controller = make_controller(factory=batch_factory())
    window.show()
    qtbot.waitExposed(window)
    window.statusBar().showMessage("Saved notes.zh.txt", 10_000)
    window.set_job_status("file job: talk.srt 16/800")
    assert not window.job_label.isVisible()
    window.statusBar().clearMessage()
    qtbot.waitUntil(window.job_label.isVisible, timeout=10_000)
    window.set_job_status("")
    assert not window.job_label.isVisible()
