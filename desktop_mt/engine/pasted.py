"""Join the hard line breaks of text copied from PDFs and web pages (pure Python).

A PDF viewer copies each printed line as a line of its own, so a sentence arrives cut into
pieces (``"The model was trained on a large\\ncorpus of news."``), words hyphenated at the
margin arrive in two halves (``"transla-\\ntion"``) and columns bring runs of spaces. The
model translates each line on its own, so such text must be joined first. :func:`join_lines`
joins what belongs together and keeps the structure the page had:

* **Paragraphs**: a blank line ends a paragraph; paragraphs come out separated by one blank
  line, one output paragraph per input paragraph. Inside a paragraph, a line that ends a
  sentence (``. ! ? : 。 ！ ？`` and closing quotes) and is shorter than two thirds of the
  paragraph's longest text line also ends it (the text stopped before the margin), and so does
  one longer than 160 characters (no printed column is that wide: a web page's paragraph
  copied as one line): the line break is kept.
* **List items**: a line that starts with a list, outline, quote or heading marker (``1.``,
  ``1)``, ``a.``, ``(iv)``, ``•``, ``-``, ``*``, ``>``, ``#``: ``textproc.split_marker``)
  starts a new line; a line after it that has no marker is joined to it when it is the
  item's wrapped rest: indented under it, or after an item line that reached the margin
  without ending its sentence, or going on in lowercase. Otherwise (the item ended its
  sentence, or stopped short of the margin before a capital) it stays a line of its own.
* **Headings** (conservative): a line of at most 8 words that starts with a capital or a digit,
  has no final punctuation, comes first in its paragraph or after a line that ends a sentence,
  is followed by a line that starts with a capital (or nothing), and looks like a heading: Title
  Case or ALL CAPS, a section number first (``2``, ``2.1``, ``IV``), or shorter than half the
  paragraph's longest line. It stays on its own line.
* **Table rows**: a line with a tab or with two or more runs of 2+ spaces stays on its own line,
  its spacing untouched.
* **Hyphenation**: a line that ends in ``letter-`` followed by a line that starts with a
  lowercase letter is joined without the hyphen (``transla-`` + ``tion`` -> ``translation``),
  except where the hyphen is real: the word before it already has a hyphen or a digit
  (``state-of-`` + ``the-art``, ``GPT-`` + ``4``), the word after has one, the word before is an
  acronym (``GPU-`` + ``based``), or the part before is
  a word that usually starts a compound (``well``, ``self``, ``non``, ``high``...: see
  ``_COMPOUND_HEADS``) and the part after is more than a word ending (``open-`` + ``ing`` is
  ``opening``: ``_SUFFIXES``). Prefixes that often start an ordinary word (``ex``, ``pre``,
  ``mid``, ``multi``) are not on the list (``ex-`` + ``ample``, ``mid-`` + ``dle``). A capital
  after the hyphen (``Anglo-`` + ``Saxon``) is not a continuation in lowercase, so the hyphen
  stays there too. A soft hyphen (U+00AD) at a line end always goes.
* **Code**: a fenced code block (````` ``` ````` or ``~~~`` lines and what is between them) is copied
  as it is, with the line breaks it had around it (a blank line only where there was one).
* **Chinese** (and Japanese): Chinese is written without spaces, so lines meet with none where
  the text on both sides of the break is Chinese: a Han or kana character or full-width
  punctuation, also behind closing quotes and brackets at the line end and in front of opening
  ones at the next line's start (``他说：\n“明天见。”`` -> ``他说：“明天见。”``). A break beside a Latin
  word or a number gets a space, as in English.
* Other joins put one space between the lines, and runs of spaces inside text lines become one
  space.
"""

from __future__ import annotations

import re

from . import textproc

__all__ = [
    "join_lines",
    "is_table_row",
]

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n(?:[ \t\f\v]*\n)*")
_SPACES = re.compile(r"[ \u00a0\u3000]{2,}")
_TABLE_GAPS = re.compile(r"\S(?: {2,}|\u3000+)(?=\S)")
_SENTENCE_END = re.compile(r"[.!?:。！？…][\"'”’)\]」』）]*$")
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[A-Z]\.)$")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff5e\u3000-\u303f]")
_WRAPPED_HYPHEN = re.compile(r"(?P<word>\S*[^\W_])-$")
# Quotes and brackets around Chinese text: a line may end after a closing one or start with an opening one.
_CLOSERS = "”’」』）》】〕〗〉\"')]"
_OPENERS = "“‘「『（《【〔〖〈\"'(["
# Words that, before a hyphen at a line end, usually start a compound ("well-known",
# "self-attention", "high-quality") rather than a word split at the margin.
_COMPOUND_HEADS = frozenset(
    {
        "all",
        "best",
        "by",
        "cross",
        "end",
        "fine",
        "first",
        "full",
        "half",
        "high",
        "ill",
        "large",
        "long",
        "low",
        "many",
        "non",
        "one",
        "open",
        "real",
        "second",
        "self",
        "short",
        "single",
        "small",
        "state",
        "third",
        "three",
        "two",
        "user",
        "well",
        "wide",
        "world",
    }
)
# ...unless what follows is only a word ending: "open-" + "ing", "state-" + "ment" are one word.
_SUFFIXES = frozenset(
    {
        "able",
        "age",
        "al",
        "ed",
        "er",
        "ers",
        "est",
        "ible",
        "ing",
        "ings",
        "ise",
        "ish",
        "ism",
        "ist",
        "ists",
        "ity",
        "ive",
        "ize",
        "ized",
        "less",
        "ly",
        "ment",
        "ments",
        "ness",
        "ous",
        "sion",
        "tion",
        "tions",
    }
)
_MAX_HEADING_WORDS = 8
_SHORT_LINE = 2 / 3  # a sentence end on a line shorter than this share of the width ends a paragraph
_HEADING_LINE = 1 / 2  # a heading by length alone is shorter than this share of the width
_MIN_LIST_LINES = 5  # a paragraph of at least this many text lines, of which
_LIST_SHARE = 0.7  # this share end a sentence, is a list of sentences, one per line
_LONGEST_PRINTED_LINE = 160  # characters; a longer line was not wrapped by a page layout


def join_lines(text: str) -> str:
    """``text`` with the line breaks inside its sentences joined (rules: module docstring).

    Paragraphs (blank-line separated) come out separated by one blank line; leading and
    trailing blank lines go. ``join_lines(join_lines(t)) == join_lines(t)`` for ordinary text.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    for lines, code in _split_fences(text):
        blocks = _BLANK_LINE.split("\n".join(lines).strip("\n"))
        body = "\n\n".join(_join_block(block.split("\n")) for block in blocks if block.strip())
        if body:
            out += [_gap(lines[:1]), body] if out else [body]
        if code:
            # A fence keeps the line breaks it had: a blank line before it only if there was one.
            out += [_gap(lines[-1:] if body else lines), code] if out else [code]
    return "".join(out)


def _gap(lines: list[str]) -> str:
    """The break between a fenced block and the text beside it: a blank line if ``lines`` (the
    prose lines next to the fence) have one, else a line break."""
    return "\n\n" if any(not line.strip() for line in lines) else "\n"


def _split_fences(text: str) -> list[tuple[list[str], str]]:
    """``[(prose lines, code_block)]``: the text cut around fenced code blocks (an unclosed
    fence runs to the end); ``code_block`` is "" after the last prose."""
    pieces: list[tuple[list[str], str]] = []
    prose: list[str] = []
    code: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if in_code or textproc.is_fence(line):
            code.append(line)
            if textproc.is_fence(line) and (not in_code or len(code) > 1):
                in_code = not in_code
                if not in_code:
                    pieces.append((prose, "\n".join(code)))
                    prose, code = [], []
        else:
            prose.append(line)
    pieces.append((prose, "\n".join(code)))
    return pieces


def _join_block(lines: list[str]) -> str:
    """One paragraph (no blank line inside) joined into its output lines."""
    lines = [line.rstrip() for line in lines if line.strip()]
    kinds = _classify(lines)
    width = max((len(line.strip()) for line, kind in zip(lines, kinds) if kind != "table"), default=0)
    listed = _sentence_per_line(lines, kinds)  # then every sentence end ends its line
    out: list[str] = []
    in_item = False  # the output line being built is a list item
    for i, line in enumerate(lines):
        starts = (
            i == 0
            or kinds[i] != "text"
            or kinds[i - 1] in ("table", "heading")
            or _ends_paragraph(lines[i - 1], width, listed)
            or (in_item and not _continues_item(lines[i - 1], line, width))
        )
        if starts:
            out.append(_tidy(line, kinds[i]))
            in_item = kinds[i] == "item"
        else:
            out[-1] = _join_pair(out[-1], _tidy(line, "text"))
    return "\n".join(out)


def _continues_item(prev: str, line: str, width: int) -> bool:
    """Whether ``line`` (no marker) is the wrapped rest of the list item whose last line is
    ``prev``: it is indented under the item's text, or the item's line reached the margin
    without ending its sentence, or it goes on in lowercase after a line that did not end one.
    "• We offer translation." then "I love you 😀..." are two lines, not one item."""
    if line[:1].isspace():
        return True
    if _ends_sentence(prev):
        return False
    return len(prev.strip()) >= _SHORT_LINE * width or line.lstrip()[:1].islower()


def _classify(lines: list[str]) -> list[str]:
    """Each line's kind: ``"table"``, ``"heading"``, ``"item"`` (has a marker) or ``"text"``."""
    width = max((len(line.strip()) for line in lines if not is_table_row(line)), default=0)
    kinds = []
    for i, line in enumerate(lines):
        prev = lines[i - 1] if i else None
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if is_table_row(line):
            kinds.append("table")
        elif _is_heading(line, prev, nxt, width):
            kinds.append("heading")
        elif _has_marker(line):
            kinds.append("item")
        else:
            kinds.append("text")
    return kinds


def _has_marker(line: str) -> bool:
    """Whether ``line`` starts with a list, outline, quote or heading marker
    (``1.``, ``(iv)``, ``•``, ``>``, ``#``...)."""
    prefix, _body = textproc.split_marker(line)
    return prefix.strip() != ""


def is_table_row(line: str) -> bool:
    """Whether ``line`` looks like a table row: a tab, or two or more runs of 2+ spaces between cells."""
    core = line.strip()
    return "\t" in core or len(_TABLE_GAPS.findall(core)) >= 2


def _is_heading(line: str, prev: str | None, nxt: str | None, width: int) -> bool:
    """The conservative heading rule of the module docstring."""
    _prefix, body = textproc.split_marker(line)
    core = body.strip()
    words = core.split()
    if not words or len(words) > _MAX_HEADING_WORDS or not (core[0].isupper() or core[0].isdigit()):
        return False
    if core[-1] in ".,;:!?-–—。，；：！？、" or (prev is not None and not _ends_sentence(prev)):
        return False
    if nxt is not None and not _first_letter_is_upper(nxt):
        return False
    return _title_like(words if _has_marker(line) else line.split()) or len(line.strip()) < _HEADING_LINE * width


def _first_letter_is_upper(line: str) -> bool:
    """Whether the text of ``line`` (after any marker) starts with a capital letter or a digit."""
    _prefix, body = textproc.split_marker(line)
    first = body.strip()[:1]
    return first.isupper() or first.isdigit() or _has_marker(line)


def _title_like(words: list[str]) -> bool:
    """Title Case, ALL CAPS, or a section number first (``2.1 Data``, ``IV Results``)."""
    if _SECTION_NUMBER.match(words[0]) and len(words) > 1:
        return True
    long_words = [w for w in words if len(w) > 3 and w[0].isalpha()]
    return bool(long_words) and all(w[0].isupper() for w in long_words)


def _ends_sentence(line: str) -> bool:
    """Whether ``line`` ends with sentence-final punctuation (closing quotes allowed)."""
    return _SENTENCE_END.search(line.rstrip()) is not None


def _sentence_per_line(lines: list[str], kinds: list[str]) -> bool:
    """A list of sentences, one per line (a phrase list, subtitles, a column of a sheet):
    most of its text lines end a sentence, which the lines of a printed paragraph rarely do
    (only where a sentence happens to end at the margin)."""
    text = [line for line, kind in zip(lines, kinds) if kind == "text"]
    ending = sum(1 for line in text if _ends_sentence(line))
    return len(text) >= _MIN_LIST_LINES and ending >= _LIST_SHARE * len(text)


def _ends_paragraph(line: str, width: int, listed: bool = False) -> bool:
    """A line that ends a sentence well before the margin (or anywhere in a ``listed``
    paragraph, one sentence per line): the paragraph ended there."""
    size = len(line.strip())
    return _ends_sentence(line) and (listed or size < _SHORT_LINE * width or size > _LONGEST_PRINTED_LINE)


def _tidy(line: str, kind: str) -> str:
    """A line as it goes out: a table row untouched, an item with its marker (and indentation)
    kept and its text's spaces collapsed, other lines stripped and collapsed."""
    if kind == "table":
        return line
    if kind in ("item", "heading"):
        prefix, body = textproc.split_marker(line)
        return prefix + _SPACES.sub(" ", body.strip())
    return _SPACES.sub(" ", line.strip())


def _join_pair(left: str, right: str) -> str:
    """``left`` and the next line ``right`` as one line (hyphenation and spacing rules)."""
    if left.endswith("\u00ad"):
        return left[:-1] + right
    hyphen = _WRAPPED_HYPHEN.search(left)
    if hyphen and right[:1].isalnum():
        keep = _keeps_hyphen(hyphen.group("word"), right.split()[0])
        return (left if keep else left[:-1]) + right
    if _chinese_break(left, right):
        return left + right
    return left + " " + right


def _chinese_break(left: str, right: str) -> bool:
    """Whether a line break between ``left`` and ``right`` falls inside Chinese (or Japanese)
    text, which is joined with no space: CJK on both sides of it, looking past closing quotes
    and brackets at the end of ``left`` and opening ones at the start of ``right``."""
    before, after = left.rstrip(_CLOSERS), right.lstrip(_OPENERS)
    return bool(before and after and _CJK.match(before[-1]) and _CJK.match(after[0]))


def _keeps_hyphen(before: str, after: str) -> bool:
    """Whether the hyphen between ``before-`` (end of a line) and ``after`` is a real one."""
    if not after[:1].islower():
        return True
    if any(c == "-" or c.isdigit() for c in before + after) or (len(before) > 1 and before.isupper()):
        return True
    return before.lower() in _COMPOUND_HEADS and after.rstrip(".,;:!?)]\"'”’").lower() not in _SUFFIXES
