"""The "Translate file..." job: worker + controller + window on a fake batch engine."""

from __future__ import annotations

import threading

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from desktop_mt.batch import default_output_path
from desktop_mt.batch.journal import journal_path
from desktop_mt.errors import TranslationCancelled

from .fakes import FakeTranslator


class FakeBatchTranslator(FakeTranslator):
    """FakeTranslator plus the ``translate_batch`` contract the batch runner uses.
    With ``block_after`` set, it reports that many lines then waits on ``cancel``
    (no timing: the test cancels at a known point)."""

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
    controller.worker.fileProgress.connect(lambda d, t, r: progress.append((d, t, r)))
    with qtbot.waitSignal(controller.worker.fileFinished, timeout=10_000) as finished:
        window.translateFileRequested.emit(str(src))
    out = default_output_path(src)
    assert finished.args == [str(out)]
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
    assert "notes.zh.txt" in window.statusBar().currentMessage()


def test_cancel_stops_job_and_writes_no_output(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(50)])
    window, controller = make_controller(factory=batch_factory(block_after=5))
    with qtbot.waitSignal(controller.worker.fileProgress, timeout=10_000,
                          check_params_cb=lambda d, _t, _r: d >= 5):
        controller.translate_file(str(src))
    assert not window.file_job.isHidden()
    assert not window.file_button.isEnabled()
    assert "seg/s" in window.file_job.rate_label.text()
    with qtbot.waitSignal(controller.fileJobEnded, timeout=5_000) as ended:
        window.file_job.cancel_button.click()
    assert ended.args == ["cancelled"]
    assert not default_output_path(src).exists()
    assert [p.name for p in src.parent.iterdir() if p.suffix == ".tmp"] == []
    assert window.file_job.isHidden() and window.file_button.isEnabled()


def test_interactive_request_waits_for_the_job(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, [f"line {i}" for i in range(20)])
    window, controller = make_controller(factory=batch_factory(block_after=2))
    with qtbot.waitSignal(controller.worker.fileProgress, timeout=10_000,
                          check_params_cb=lambda d, _t, _r: d >= 2):
        controller.translate_file(str(src))
    assert controller.translate_file(str(src)) is False  # one job at a time
    controller.translate("hello world")
    assert "waiting for the file job" in window.state_label.text()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.cancel_file()
    assert window.target_text() == "<hello><world>"


def test_dropping_a_file_starts_a_job(qtbot, make_controller, tmp_path):
    src = write_input(tmp_path, ["one", "two"])
    window, controller = make_controller(factory=batch_factory())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(src))])
    event = QDropEvent(QPointF(QPoint(5, 5)), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
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
