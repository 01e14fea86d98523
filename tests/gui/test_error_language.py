"""The lower layers' common errors are shown in the window's language (issue 48): the window
says them from the gettext catalog the command line uses (app.i18n.describe), naming the
same file, and in English as the layer said them."""

from __future__ import annotations

import pytest

from desktop_mt.batch import read_input
from desktop_mt.batch.errors import BatchInputError
from desktop_mt.gui import i18n
from desktop_mt.gui.messages import error_text, interface_language


@pytest.fixture
def chinese(qapp):
    """The window's translators installed as a zh_CN start would; removed after the test."""
    installed = i18n.install(qapp, "zh_CN")
    yield installed
    i18n.uninstall(qapp, installed)


def missing_file_error(path) -> BatchInputError:
    with pytest.raises(BatchInputError) as raised:
        read_input(path)
    return raised.value


def test_a_failed_file_job_names_the_missing_file_in_chinese(qtbot, make_controller, tmp_path, chinese):
    window, controller = make_controller()
    missing = tmp_path / "missing.txt"
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000) as ended:
        controller.translate_file(str(missing))
    assert ended.args == ["failed"]
    assert [box.text() for box in window.error_dialogs if str(missing) in box.text()] == [f"{missing}：文件不存在"]


def test_the_window_says_the_layers_english_under_english(qapp, tmp_path):
    exc = missing_file_error(tmp_path / "missing.txt")
    assert interface_language() == "en"
    assert error_text(exc) == str(exc) == f"{tmp_path / 'missing.txt'}: no such file"


def test_the_window_follows_its_own_language_not_the_environment(qapp, tmp_path, monkeypatch, chinese):
    monkeypatch.setenv("LANG", "en_US.UTF-8")  # the command line would speak English here
    doc = tmp_path / "report.doc"
    doc.write_bytes(b"\xd0\xcf\x11\xe0")
    from desktop_mt.batch import detect_format

    with pytest.raises(BatchInputError) as raised:
        detect_format(doc)
    assert interface_language() == "zh_CN"
    assert error_text(raised.value) == f"{doc}：不支持 .doc 文件；请先另存为 .docx"
