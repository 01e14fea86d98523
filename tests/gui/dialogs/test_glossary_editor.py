"""The glossary editor in the settings dialog, its file, and the glossary in every request."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from desktop_mt.engine.glossary import Glossary, Term
from desktop_mt.gui.dialogs.glossary_editor import GlossaryEditor, GlossaryStore, glossary_path
from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog
from desktop_mt.gui.settings import Settings


def _fill(editor, row, source, target, case=False):
    editor.table.item(row, 0).setText(source)
    editor.table.item(row, 1).setText(target)
    editor.table.item(row, 2).setCheckState(Qt.CheckState.Checked if case else Qt.CheckState.Unchecked)


def test_edit_and_save_round_trip(qtbot):
    editor = GlossaryEditor()
    qtbot.addWidget(editor)
    assert editor.table.rowCount() == 0
    editor.add_button.click()
    _fill(editor, 0, "train station", "火车站")
    editor.add_button.click()
    _fill(editor, 1, "Python", "Python", case=True)
    editor.add_button.click()  # an empty row is skipped
    assert editor.save()
    assert Glossary.load(glossary_path()).terms == (
        Term("train station", "火车站"),
        Term("Python", "Python", case_sensitive=True),
    )
    again = GlossaryEditor()
    qtbot.addWidget(again)
    assert again.terms()[0] == [Term("train station", "火车站"), Term("Python", "Python", case_sensitive=True)]
    assert again.table.item(1, 2).checkState() == Qt.CheckState.Checked
    again.table.selectRow(0)
    again.remove_button.click()
    assert again.save()
    assert Glossary.load(glossary_path()).terms == (Term("Python", "Python", case_sensitive=True),)


def test_incomplete_row_is_not_saved(qtbot):
    editor = GlossaryEditor()
    qtbot.addWidget(editor)
    editor.add_button.click()
    _fill(editor, 0, "cat", "")
    assert not editor.save()
    assert "Row 1" in editor.message.text() and not editor.message.isHidden()
    assert not glossary_path().exists()


def test_import_csv_and_tsv_merge(qtbot, tmp_path):
    csv_file = tmp_path / "terms.csv"
    csv_file.write_text("english,chinese\ntrain station,火车站\nlibrary,图书馆\n", encoding="utf-8")
    tsv_file = tmp_path / "more.tsv"
    tsv_file.write_text("Library\t藏书馆\nGPU\tGPU\tcase\n", encoding="utf-8")
    editor = GlossaryEditor()
    qtbot.addWidget(editor)
    assert editor.import_file(csv_file) == 2
    assert editor.import_file(tsv_file) == 2
    terms, problems = editor.terms()
    assert problems == []
    assert terms == [
        Term("train station", "火车站"),
        Term("Library", "藏书馆"),
        Term("GPU", "GPU", case_sensitive=True),
    ]
    assert "Imported 2 terms from more.tsv" in editor.message.text()
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe not utf-8 \xff")
    assert editor.import_file(bad) == -1
    assert "UTF-8" in editor.message.text()
    assert len(editor.terms()[0]) == 3  # the table is left as it was


def test_settings_dialog_saves_the_glossary_on_apply_and_keeps_open_on_a_bad_row(qtbot):
    dialog = SettingsDialog(Settings(), True, "")
    qtbot.addWidget(dialog)
    editor = dialog.glossary_editor
    editor.add_button.click()
    _fill(editor, 0, "train station", "火车站")
    with qtbot.waitSignal(dialog.applied, timeout=10_000):
        dialog.apply()
    assert Glossary.load(glossary_path()).terms == (Term("train station", "火车站"),)
    editor.add_button.click()
    _fill(editor, 1, "", "猫")
    dialog.show()
    dialog._ok()
    assert dialog.isVisible()  # the table says what is wrong
    dialog.reject()


def test_store_rereads_a_changed_file_and_reports_a_bad_one_once(tmp_path):
    messages = []
    path = tmp_path / "g.csv"
    store = GlossaryStore(path, on_error=messages.append)
    assert store.get() is None
    path.write_text("cat,猫\n", encoding="utf-8")
    assert store.get().terms == (Term("cat", "猫"),)
    path.write_text("cat,猫\ndog,狗\n", encoding="utf-8")
    os.utime(path, ns=(1, 10**18))
    assert len(store.get()) == 2
    path.write_text("only one column\n", encoding="utf-8")
    os.utime(path, ns=(1, 2 * 10**18))
    assert store.get() is None and store.get() is None
    assert len(messages) == 1 and "glossary" in messages[0]


def test_requests_and_file_jobs_carry_the_glossary(qtbot, make_controller, tmp_path):
    from ..fakes import FakeTranslator

    glossary_path().parent.mkdir(parents=True, exist_ok=True)
    glossary_path().write_text("source,target,case\ntrain station,火车站,\n", encoding="utf-8")
    window, controller = make_controller()
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        controller.translate("the train station")
    fake = [f for f in FakeTranslator.instances if f.calls][-1]
    assert fake.calls[-1]["options"].glossary.terms == (Term("train station", "火车站"),)
    doc = tmp_path / "notes.txt"
    doc.write_text("Hello.\n", encoding="utf-8")
    jobs: list[object] = []
    controller.fileJobStarted.connect(lambda _src, _dst: jobs.append(controller.file_job))
    with qtbot.waitSignal(controller.fileJobEnded, timeout=10_000):
        assert controller.translate_file(str(doc))
    assert [job.options.glossary.terms for job in jobs] == [(Term("train station", "火车站"),)]
    glossary_path().unlink()
    assert controller.generation_options().glossary is None


def test_the_import_dialog_opens_in_home_then_in_the_last_folder_chosen(qtbot, tmp_path, monkeypatch, fresh_folders):
    """Not in the folder the app was started from: the TM dialog's start folder rule, whose
    remembered folder the glossary's import shares."""
    from PySide6.QtWidgets import QFileDialog

    from desktop_mt.gui.dialogs import tm_dialog

    home = fresh_folders
    terms = tmp_path / "terms" / "glossary.tsv"
    terms.parent.mkdir()
    terms.write_text("train station\t火车站\n", encoding="utf-8")
    asked: list[str] = []
    answers = [str(terms), ""]

    def open_name(_parent, _title, start, _filter):
        asked.append(start)
        return answers.pop(0), _filter

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(open_name))
    editor = GlossaryEditor()
    qtbot.addWidget(editor)
    editor.import_button.click()
    assert asked == [str(home)]
    assert editor.terms()[0] == [Term("train station", "火车站")]
    editor.import_button.click()  # cancelled: it opened where the last file was
    assert asked[1] == str(terms.parent)
    assert tm_dialog.start_folder() == terms.parent  # the TM dialog's next dialog opens there too
