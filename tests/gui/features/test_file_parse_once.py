"""A window file job parses its file once, off the UI thread (issue 42): the parse that names the
output (a mostly Chinese file -> NAME.en.EXT, ``app.jobs.plan_output``, in the job's thread) is
the document the job translates, as the command line's one parse is (``desktop-mt translate``)."""

from __future__ import annotations

import threading

from desktop_mt import batch

from .test_file_job import batch_factory


def count_parses(monkeypatch) -> list[tuple[str, bool]]:
    """Every parse of a file (``batch.load_document``, which each format's parser goes through):
    its file name and whether it ran on this (the UI) thread."""
    parsed: list[tuple[str, bool]] = []
    real = batch.load_document
    ui_thread = threading.get_ident()

    def counting(data, filename, *args, **kwargs):
        parsed.append((filename, threading.get_ident() == ui_thread))
        return real(data, filename, *args, **kwargs)

    monkeypatch.setattr(batch, "load_document", counting)
    return parsed


def test_a_window_file_job_parses_its_file_once(qtbot, make_controller, tmp_path, monkeypatch):
    src = tmp_path / "notes.txt"
    src.write_text("火车站在哪里？\n我爱你。\n", encoding="utf-8")  # mostly Chinese: named .en
    window, controller = make_controller(factory=batch_factory())
    parsed = count_parses(monkeypatch)
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        window.translateFileRequested.emit(str(src))
    assert ended.args == ["finished"]
    assert parsed == [(str(src), False)]  # once, in the job's thread
    out = tmp_path / "notes.en.txt"
    assert out.read_text(encoding="utf-8").splitlines() == ["译火车站在哪里？", "译我爱你。"]


def test_a_job_given_its_output_parses_the_file_in_the_job(qtbot, make_controller, tmp_path, monkeypatch):
    """A job with its output chosen (the interrupted job's resume offer) names nothing: the
    worker's job is the one parse."""
    src = tmp_path / "notes.txt"
    src.write_text("one\ntwo\n", encoding="utf-8")
    _window, controller = make_controller(factory=batch_factory())
    parsed = count_parses(monkeypatch)
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        assert controller.translate_file(str(src), tmp_path / "mine.txt", resume=False)
    assert ended.args == ["finished"]
    assert parsed == [(str(src), False)]
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8").splitlines() == ["译ONE", "译TWO"]


def test_a_file_cancelled_while_it_is_named_starts_no_job(qtbot, make_controller, tmp_path, monkeypatch):
    """Cancel (or quitting) before the job's thread has named the output: its plan is dropped
    when it comes, nothing is asked and no job starts; the next file is taken as usual."""
    src = tmp_path / "notes.txt"
    src.write_text("one\n", encoding="utf-8")
    (tmp_path / "notes.zh.txt").write_text("mine\n", encoding="utf-8")  # a plan that is used asks
    window, controller = make_controller(factory=batch_factory())
    asked: list[str] = []
    monkeypatch.setattr(window, "ask_output_exists", lambda path, keep: asked.append(keep) or "overwrite")
    assert controller.translate_file(str(src))
    assert controller.translate_file(str(src)) is False  # one at a time, while it is named too
    controller.cancel_file()
    assert not controller.files.busy
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        assert controller.translate_file(str(src))
    assert ended.args == ["finished"]
    assert asked == ["notes.zh (2).txt"]  # the second plan's question only
    assert (tmp_path / "notes.zh.txt").read_text(encoding="utf-8") == "译ONE\n"
