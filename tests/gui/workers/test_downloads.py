"""The download worker's signals carry their payload classes (issue 42: no ``object`` where a
dataclass fits): a progress report made in the download thread reaches the UI thread as the
models layer's :class:`~desktop_mt.models.DownloadProgress`, the same instance."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Slot

from desktop_mt.gui.workers.downloads import DownloadRunner
from desktop_mt.models import DownloadProgress


class Receiver(QObject):
    """A UI-thread receiver, as the Models dialog's download area is: its slot runs in its thread."""

    def __init__(self) -> None:
        super().__init__()
        self.got: list[DownloadProgress] = []
        self.threads: set[int] = set()

    @Slot(DownloadProgress)
    def take(self, report: DownloadProgress) -> None:
        self.got.append(report)
        self.threads.add(threading.get_ident())


def test_a_progress_report_crosses_the_thread_as_its_dataclass(qtbot, tmp_path):
    made: list[DownloadProgress] = []
    threads: list[int] = []

    def downloader(name, variant, progress, cancel):
        threads.append(threading.get_ident())
        for report in (DownloadProgress("listing"), DownloadProgress("downloading", 5, 10, "onnx/encoder.onnx", 2.0)):
            made.append(report)
            progress(report)
        return tmp_path / name

    runner = DownloadRunner(downloader)
    receiver = Receiver()
    runner.worker.progress.connect(receiver.take)
    got = receiver.got
    try:
        with qtbot.waitSignal(runner.worker.finished, timeout=10_000) as finished:
            assert runner.start("opus-mt-en-zh", "int8")
        qtbot.waitUntil(lambda: len(got) == 2, timeout=10_000)  # each report is its own queued event
    finally:
        assert runner.shutdown()
    assert threads and threads[0] != threading.get_ident()  # reported from the download thread...
    assert receiver.threads == {threading.get_ident()}  # ...and received in this one
    assert [type(report) for report in got] == [DownloadProgress, DownloadProgress]
    assert all(a is b for a, b in zip(got, made, strict=True))
    assert got[1].eta == 2.5  # the dataclass's own behaviour, not a copy of its fields
    assert finished.args == ["opus-mt-en-zh", str(tmp_path / "opus-mt-en-zh")]
