"""HTML pages: text and alt/title translated; scripts, styles, code, comments and
translate="no" untouched; every tag kept (the same element tree, read by lxml's HTML parser)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import html as lxml_html

from desktop_mt import GenerationOptions
from desktop_mt.batch import translate_file
from desktop_mt.batch.html import HtmlDocument
from desktop_mt.engine.testing import ScriptedTranslator

from .fake_translator import fake_translation

PAGE = Path(__file__).resolve().parents[1] / "data" / "html" / "page.html"
TRANSLATED_ATTRIBUTES = {"alt", "title", "placeholder", "aria-label", "lang"}


def _tree(markup: str) -> list[tuple]:
    """Each element's tag and attributes (less the translated ones), in document order."""
    root = lxml_html.document_fromstring(markup)
    return [
        (e.tag, tuple(sorted((k, v) for k, v in e.attrib.items() if k not in TRANSLATED_ATTRIBUTES)))
        for e in root.iter()
        if isinstance(e.tag, str)
    ]


def _translate(tmp_path, text: str, options: GenerationOptions | None = None) -> str:
    src = tmp_path / "page.html"
    src.write_text(text, "utf-8")
    dst = translate_file(src, None, ScriptedTranslator(fake_translation, name="fake"), options=options)
    into = options.target if options is not None and options.target != "auto" else "zh"
    assert dst == tmp_path / f"page.{into}.html"  # named for the language it is translated into
    return dst.read_text("utf-8")


def test_a_page_keeps_its_elements_scripts_and_code(tmp_path):
    source = PAGE.read_text("utf-8")
    output = _translate(tmp_path, source)
    assert _tree(output) == _tree(source)
    for kept in (
        "<style>\n    p { color: #333; } /* Do not translate this. */\n  </style>",
        '<script>\n    var message = "Hello <b>world</b>";  // never translated\n  </script>',
        "<!-- Main content -->",
        "<code>demo --copy</code>",
        "<pre>\n  demo --help\n  </pre>",
        '<p translate="no">Demo Tool Pro</p>',
        '<span class="notranslate">ACME</span>',
        "<td>42</td>",
    ):
        assert kept in output, kept
    assert f"<title>{fake_translation('Getting started with the demo tool')}</title>" in output
    assert f'<h1 class="title">{fake_translation("Getting started")}</h1>' in output
    assert '<html lang="zh-CN">' in output
    assert f'alt="{fake_translation("A screenshot of the main window")}"' in output
    assert f'title="{fake_translation("The user guide")}"' in output
    assert f'placeholder="{fake_translation("Search the manual")}"' in output
    assert f"<b>{fake_translation('your files')}</b>" in output


def test_text_is_escaped_again_and_entities_read_as_text():
    document = HtmlDocument("<p>Fast &lt;and&gt; small &amp; free</p>")
    assert document.segments == ["Fast <and> small & free"]
    assert document.render(["<快> & 小"]) == "<p>&lt;快&gt; &amp; 小</p>"


def test_a_line_break_inside_a_paragraph_separates_its_sentences():
    document = HtmlDocument("<p>Run it once.<br>Then restart it.</p>")
    assert document.segments == ["Run it once.", "Then restart it."]
    assert document.render(["运行一次。", "然后重启。"]) == "<p>运行一次。<br>然后重启。</p>"


@pytest.mark.parametrize(
    "markup",
    [
        "<p>Open <b>the file</p><p>and <i>close</b> it</i>.</p>",  # crossing and unclosed tags
        '<div><a id="top"></a>Top of the page</div>',  # an empty element
        "<p>Text with a stray </span> closing tag.</p>",
    ],
)
def test_every_tag_of_messy_markup_is_kept(markup):
    document = HtmlDocument(markup)
    output = document.render([fake_translation(s) for s in document.segments])
    assert _tags(output) == _tags(markup)


def _tags(text: str) -> list[str]:
    return sorted(re.findall(r"</?[a-z][^>]*>", text))


@pytest.mark.parametrize(
    "options, lang",
    [(GenerationOptions(script="traditional-tw"), "zh-TW"), (GenerationOptions(target="en"), "en")],
)
def test_the_lang_attribute_names_the_language_translated_into(tmp_path, options, lang):
    output = _translate(tmp_path, '<html lang="en"><body><p>Hello there.</p></body></html>', options)
    assert f'<html lang="{lang}">' in output


def test_the_local_api_uses_the_same_html_code():
    from desktop_mt.server.htmltext import HtmlDocument as ApiDocument

    markup = '<p>Click <a href="/x">here</a> now.</p><script>var a = "b";</script>'
    api, batch = ApiDocument(markup), HtmlDocument(markup)
    assert api.texts == batch.segments
    translations = [fake_translation(s) for s in batch.segments]
    assert api.render(translations) == batch.render(translations)


def test_a_page_with_more_unclosed_tags_than_the_limit_is_refused_by_name_and_nothing_written(tmp_path):
    """Each '<' + letter that never ends a tag costs the tokenizer a scan to the end of the
    page; past MAX_UNCLOSED_TAGS the page is refused instead of taking quadratic time."""
    from desktop_mt.batch import BatchInputError
    from desktop_mt.batch.html import MAX_UNCLOSED_TAGS

    at_limit = "<p>Hello there.</p><p>a <b and c <d" + " <e" * (MAX_UNCLOSED_TAGS - 2)  # no '>' after them
    assert HtmlDocument(at_limit).segments[0] == "Hello there."  # at the limit: read as before
    src = tmp_path / "page.html"
    src.write_text(at_limit + " <f", "utf-8")
    with pytest.raises(BatchInputError, match=r"page\.html: HTML with over 64 '<' that never end a tag"):
        translate_file(src, None, ScriptedTranslator(fake_translation, name="fake"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
