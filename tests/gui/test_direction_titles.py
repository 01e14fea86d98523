"""The directions' titles have one home (issue 42): engine.direction.DIRECTION_TITLES, English and
marked for the catalogs; the window says them through gui.messages.direction_title (one Qt
context), the command line through its gettext catalog, and no other module writes them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from desktop_mt.app import i18n as app_i18n
from desktop_mt.engine.direction import DIRECTION_TITLES, DIRECTIONS
from desktop_mt.gui import i18n
from desktop_mt.gui.dialogs.model_table import use_label
from desktop_mt.gui.dialogs.tm_search import direction_label
from desktop_mt.gui.messages import MARKED_DIRECTION_TITLES, direction_title

PACKAGE = Path(__file__).resolve().parents[2] / "desktop_mt"
HOMES = {PACKAGE / "engine" / "direction.py", PACKAGE / "gui" / "messages.py"}


@pytest.fixture
def chinese(qapp):
    installed = i18n.install(qapp, "zh_CN")
    yield installed
    i18n.uninstall(qapp, installed)


def test_the_window_marks_the_engines_titles_in_its_order():
    assert tuple(DIRECTION_TITLES) == DIRECTIONS
    assert tuple(DIRECTION_TITLES.values()) == MARKED_DIRECTION_TITLES


def test_no_other_module_writes_a_direction_title():
    titles = set(DIRECTION_TITLES.values()) | {t.replace("→", "->") for t in DIRECTION_TITLES.values()}
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in HOMES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in titles
    ]
    assert found == [], "say a direction's title with messages.direction_title or _(DIRECTION_TITLES[d])"


def test_the_titles_in_english(qapp):
    assert [direction_title(d) for d in DIRECTIONS] == ["English → Chinese", "Chinese → English"]
    assert direction_label("zh-en") == "Chinese → English"


def test_the_titles_in_chinese_in_every_part_that_shows_them(chinese):
    assert [direction_title(d) for d in DIRECTIONS] == ["英文 → 中文", "中文 → 英文"]
    assert direction_label("en-zh") == "英文 → 中文"
    row = type("Row", (), {"direction": "zh-en"})()
    assert "中文 → 英文" in use_label(row)  # type: ignore[arg-type]  # only its direction is read


def test_the_command_lines_catalog_translates_the_same_table():
    catalog = app_i18n._catalog("zh_CN")
    assert [catalog.gettext(t) for t in DIRECTION_TITLES.values()] == ["英文 → 中文", "中文 → 英文"]
