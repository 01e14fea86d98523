"""A window file job parses its file once (issue 42): the parse that names the output (a mostly
Chinese file -> NAME.en.EXT, ``app.jobs.plan_output``) is the document the job translates, as
the command line's one parse is (``desktop-mt translate``)."""

from __future__ import annotations

from desktop_mt import batch

from .test_file_job import batch_factory


def count_parses(monkeypatch) -> list[str]:
    """Every parse of a file (``batch.load_document``, which each format's parser goes through),
    by file name, from any thread."""
    parsed: list[str] = []
    real = batch.load_document

    def counting(data, filename, *args, **kwargs):
        parsed.append(filename)
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
    assert parsed == [str(src)]
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
    assert parsed == [str(src)]
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8").splitlines() == ["译ONE", "译TWO"]
