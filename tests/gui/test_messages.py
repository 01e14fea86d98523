"""gui.messages says engine.direction.describe()'s words in the interface language (issue 42):
the words it marks are the engine's, every sentence describe() can return is translated in the
Chinese window and unchanged in the English one, and every part that shows them (the popup, the
direction bar, the status bar's note on kept text, Translate and replace) says them through it."""

from __future__ import annotations

import re

import pytest

from desktop_mt.engine import direction
from desktop_mt.engine.direction import AUTO, EN, LANGUAGE_NAMES, TARGETS, ZH
from desktop_mt.gui import i18n
from desktop_mt.gui.features.pasting import left_as_is_message
from desktop_mt.gui.features.replace import left_as_it_is
from desktop_mt.gui.messages import MARKED_LANGUAGE_NAMES, describe_text, described
from desktop_mt.gui.window.popup import direction_title

LATIN = re.compile(r"[A-Za-z]")
# One text per case describe() words differently: each language, mixed, and nothing to translate.
TEXTS = (
    "Good morning.",
    "火车站在哪里？",
    "これは日本語です。",
    "한국어 문장입니다.",
    "火车站在哪里？ Where is the station?",
    "12345",
)


@pytest.fixture
def chinese(qapp):
    installed = i18n.install(qapp, "zh_CN")
    yield installed
    i18n.uninstall(qapp, installed)


def every_said() -> set[str]:
    """Every text of TEXTS described towards every target, long and short."""
    return {direction.describe(t, target, short=short) for t in TEXTS for target in TARGETS for short in (False, True)}


def test_the_marked_language_names_are_the_engines():
    assert tuple(LANGUAGE_NAMES.values()) == MARKED_LANGUAGE_NAMES


def test_the_cases_cover_every_kind_of_words():
    said = every_said()
    assert {"mixed", "mixed: each sentence into the other language", "Japanese: kept", "Korean: left as it is"} <= said
    assert "Chinese: already Chinese, left as it is" in said and "English: kept" in said
    assert set(direction.DIRECTION_TITLES.values()) <= said


def test_the_english_window_shows_the_engines_words(qapp):
    assert {s: described(s) for s in every_said()} == {s: s for s in every_said()}


def test_the_chinese_window_has_no_english_word_in_them(chinese):
    untranslated = {s: described(s) for s in every_said() if LATIN.search(described(s))}
    assert untranslated == {}
    assert described("Japanese: left as it is") == "日文：保持原样"
    assert described("Chinese: already Chinese, left as it is") == "中文：已是中文，保持原样"
    assert describe_text("火车站在哪里？", EN) == "中文 → 英文"
    assert describe_text("これは日本語です。", short=True) == "日文：保留"
    assert describe_text("火车站在哪里？", ZH, short=True) == "中文：保留"
    assert describe_text("12345", AUTO) == ""


def test_words_it_does_not_know_stay_as_they_are(chinese):
    assert described("Klingon: left as it is") == "Klingon: left as it is"


def test_every_part_that_says_them_speaks_chinese(chinese):
    """The status bar's line about pasted text that is kept and Translate and replace's
    refusal say describe()'s words through the same function as the popup."""
    assert left_as_is_message("これは日本語です。", AUTO) == "日文：保持原样。"
    assert left_as_is_message("火车站在哪里？", ZH) == "中文：已是中文，保持原样。"
    assert left_as_is_message("火车站在哪里？", AUTO) == ""
    refusal = left_as_it_is("한국어 문장입니다.")
    assert "韩文：保持原样" in refusal and not LATIN.search(refusal)
    assert direction_title("これは日本語です。") == "日文：保持原样"
