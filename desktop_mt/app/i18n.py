"""The command line's language: its messages and ``--help`` through stdlib :mod:`gettext`.

The strings of the ``desktop-mt`` command (``desktop_mt/cli*.py``) are marked with :func:`_`
(and :func:`ngettext`; :func:`N_` marks a module constant, translated where it is shown) and
translated in ``desktop_mt/resources/locale/<lang>/LC_MESSAGES/desktop_mt.po``, kept in the
repository. English is the source text, so it needs no catalog and is the fallback for any
string a catalog lacks.

The ``.po`` is compiled to the ``.mo`` gettext reads by this module, with the standard library
only: GNU gettext's ``msgfmt`` is not installed on most Windows and macOS machines, and
translate-toolkit is the optional ``tm`` extra, not a run-time dependency (pyproject). A build
(wheel, bundle) writes the ``.mo`` next to the ``.po`` (``python -m desktop_mt.app.i18n
compile``); a checkout or an install without it compiles the ``.po`` in memory at first use (a
few milliseconds for the few hundred entries), so nothing is written and a read-only install
works. A ``.mo`` older than its ``.po`` is not used.

Which language (:func:`cli_language`): the Settings' ``language`` ("en", "zh_CN"; the window's
Settings > Language, one setting for both), or with "system" the environment as gettext reads
it: the first of ``LANGUAGE`` (a ``:`` list), ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set
(on Windows, the user's UI language when none is), in order, the first English or Chinese
language deciding. Any Chinese (zh_CN, zh_SG, zh_TW, zh_HK...) gets Simplified Chinese, as the
window does (:mod:`desktop_mt.gui.i18n`); ``C``/``POSIX`` and no match get English.

argparse's own words ("usage:", "options", "error:", "invalid choice"...) come from
``gettext.gettext`` bound into the argparse module when it is imported; :func:`activate` points
those two names at our catalog, which carries argparse's messages too, so a whole ``--help``
and every usage error speak one language.

No Qt here (the command line never imports it).
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import functools
import gettext
import io
import json
import locale
import os
import re
import struct
import sys
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import DesktopMTError, Phrase, WordedText
from ..base.resources_path import resource_path
from .settings import LANGUAGES, settings_path

__all__ = [
    "_",
    "ENGLISH",
    "SIMPLIFIED",
    "ngettext",
    "N_",
    "describe",
    "reset",
    "language_setting",
    "cli_language",
    "language_for",
    "activate",
    "display_width",
    "HelpFormatter",
    "RawDescriptionHelpFormatter",
    "ArgumentParser",
    "locale_dir",
    "po_path",
    "translations",
    "Entry",
    "read_po",
    "mo_bytes",
    "cli_sources",
    "extract",
    "catalog_messages",
    "write_po",
    "HEADER",
    "compile_all",
    "main",
]

_DOMAIN = "desktop_mt"  # desktop_mt.po / desktop_mt.mo
ENGLISH, SIMPLIFIED = "en", "zh_CN"
_TRANSLATED = (SIMPLIFIED,)  # the languages with a catalog (English is the source text)
_ENV_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # gettext's order

_active: gettext.NullTranslations | None = None  # the catalog in use; None: not chosen yet


# -- marking -----------------------------------------------------------------------------------


def _(message: str) -> str:
    """``message`` in the command line's language (English when it has no translation)."""
    return _current().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for the number ``n``, translated."""
    return _current().ngettext(singular, plural, n)


def N_(message: str) -> str:  # noqa: N802 - gettext's conventional name (xgettext -k knows it)
    """Mark ``message`` for the catalog where it cannot be translated yet (a module constant):
    it is returned unchanged; the code that shows it passes it through :func:`_`."""
    return message


def describe(error: BaseException | str, language: str | None = None) -> str:
    """``error``'s message in the interface's language (default: the command line's,
    :func:`cli_language`; the window passes the one it speaks): a
    :class:`~desktop_mt.base.errors.DesktopMTError` worded with a template
    (:meth:`~desktop_mt.base.errors.DesktopMTError.worded`) has it translated and filled with the
    same fields (the file, the endpoint, the numbers; its :class:`~desktop_mt.base.errors.Phrase`
    fields, such as the fix, translated too); any other error says ``str(error)``, in English.
    A :class:`~desktop_mt.base.errors.WordedText` (a settings warning) is translated the same way.
    The command line and the window show errors of the lower layers through this, so their
    translations live in one catalog."""
    catalog = _current() if language is None else _catalog(language)
    template = getattr(error, "template", None)
    if not isinstance(error, (DesktopMTError, WordedText)) or template is None:
        return str(error)
    try:
        fields = {k: _field(v, catalog) for k, v in error.fields.items()}
        return catalog.gettext(template).format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field: the English
        return str(error)


def _field(value: object, catalog: gettext.NullTranslations) -> object:
    """A template's field as :func:`describe` fills it in: marked words translated."""
    if isinstance(value, WordedText):
        template = catalog.gettext(value.template)
        return template.format(**{k: _field(v, catalog) for k, v in value.fields.items()})
    return catalog.gettext(value) if isinstance(value, Phrase) else value


@functools.cache
def _catalog(language: str) -> gettext.NullTranslations:
    """:func:`translations`, read once per process (the window asks for each error it shows)."""
    return translations(language)


def _current() -> gettext.NullTranslations:
    global _active
    if _active is None:
        _active = translations(cli_language())
    return _active


def reset() -> None:
    """Undo :func:`activate`: argparse's words back to stdlib gettext, the language chosen
    again at the next message (tests)."""
    global _active
    _active = None
    argparse._ = gettext.gettext  # type: ignore[attr-defined]
    argparse.ngettext = gettext.ngettext  # type: ignore[attr-defined]


# -- choosing the language ---------------------------------------------------------------------


def language_setting(path: Path | None = None) -> str:
    """The Settings' interface language ("system", "en", "zh_CN"), read without writing
    anything (the settings store migrates and repairs on its own reads): a missing or unreadable
    file, or a value it would not accept, is "system"."""
    try:
        data = json.loads((path or settings_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return LANGUAGES[0]
    value = data.get("language") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value in LANGUAGES else LANGUAGES[0]


def _system_languages(environ: Mapping[str, str] | None = None) -> list[str]:
    """The user's languages as gettext finds them: the first of ``LANGUAGE`` (split at ``:``),
    ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set; on Windows, where none usually is, the
    user's UI language."""
    env = os.environ if environ is None else environ
    for name in _ENV_VARS:
        value = env.get(name)
        if value:
            return [tag for tag in value.split(":") if tag] if name == "LANGUAGE" else [value]
    if sys.platform == "win32" and environ is None:
        # the UI language (locale.getlocale would give the ANSI code page's region instead)
        tag = locale.windows_locale.get(ctypes.windll.kernel32.GetUserDefaultUILanguage())
        return [tag] if tag else []
    return []


def cli_language(choice: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """ "en" or "zh_CN" for the Settings' ``choice`` (default: read from the settings file);
    "system" looks at :func:`_system_languages` (see the module docstring)."""
    choice = language_setting() if choice is None else choice
    if choice in (ENGLISH, SIMPLIFIED):
        return choice
    return language_for(choice, _system_languages(environ))


def language_for(choice: str, tags: Iterable[str]) -> str:
    """ "en" or "zh_CN" for the Settings' ``choice``, the one rule of the CLI and the window:
    "system" takes the first Chinese or English one of the user's language ``tags`` (in their
    order of preference, BCP 47 or POSIX form: zh-Hans-CN, zh_TW.UTF-8, C): any Chinese is
    Simplified Chinese (zh_TW/zh_HK too, for now); none of either, English."""
    if choice in (ENGLISH, SIMPLIFIED):
        return choice
    for tag in tags:
        primary = tag.replace("-", "_").split(".")[0].split("@")[0].split("_")[0].lower()
        if primary == "zh":
            return SIMPLIFIED
        if primary in ("en", "c", "posix"):
            return ENGLISH
    return ENGLISH


def activate(language: str | None = None) -> str:
    """Choose the command line's language (default: :func:`cli_language`) for this process:
    our messages and argparse's own. Returns the language. The ``desktop-mt`` command calls it
    before building its parser."""
    global _active
    language = cli_language() if language is None else language
    _active = translations(language)
    # argparse did ``from gettext import gettext as _, ngettext`` at import: its help and error
    # words are looked up through these two module names at call time (see the docstring).
    argparse._ = _active.gettext  # type: ignore[attr-defined]
    argparse.ngettext = _active.ngettext  # type: ignore[attr-defined]
    return language


# -- help that wraps Chinese -------------------------------------------------------------------

# A token of running text: a run of spaces, a word of non-wide characters, or one wide character
# (Chinese has no spaces: a line may break between any two of its characters).
_TOKEN = re.compile(r"\s+|[^\s\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60]+|.")
# Punctuation that may not begin a line (it stays with the character before it).
_NO_LINE_START = set("，。、；：？！）》」』】〉”’…")


def display_width(text: str) -> int:
    """Terminal columns of ``text``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap`` by terminal columns, breaking Chinese between characters too."""
    tokens: list[str] = []
    for token in _TOKEN.findall(" ".join(text.split())):
        if tokens and (token in _NO_LINE_START or token[0] in _NO_LINE_START and not token.isspace()):
            tokens[-1] += token
        else:
            tokens.append(token)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if token.isspace():
            line += " " if line else ""
            continue
        if line and display_width(line + token) > width:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, wrapped by terminal columns (a Chinese help line is not twice too long)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return _wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in _wrap(text, width - len(indent)))


class RawDescriptionHelpFormatter(HelpFormatter):
    """:class:`HelpFormatter` that keeps the description's and epilog's own lines (argparse's
    RawDescriptionHelpFormatter), wrapping only a line too wide for the terminal, under its
    own indent."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            body = line.lstrip(" ")
            margin = indent + " " * (len(line) - len(body))
            if display_width(margin + body) <= width or not body:
                lines.append(margin + body)
            else:
                lines += [margin + part for part in _wrap(body, width - len(margin))]
        return "\n".join(lines)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with :class:`HelpFormatter` by default; subcommands' parsers are made
    of the same class, so they wrap Chinese too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


# -- the catalogs ------------------------------------------------------------------------------


def locale_dir() -> Path:
    """``desktop_mt/resources/locale``: ``<lang>/LC_MESSAGES/desktop_mt.po`` (and ``.mo``)."""
    return resource_path("locale")


def po_path(language: str) -> Path:
    """The catalog source of ``language``."""
    return locale_dir() / language / "LC_MESSAGES" / f"{_DOMAIN}.po"


def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language``: the built ``.mo`` when it is as new as its ``.po``, else the
    ``.po`` compiled in memory; English (or a language without a catalog): no translation."""
    po = po_path(language)
    mo = po.with_suffix(".mo")
    if language == ENGLISH or not (po.exists() or mo.exists()):
        return gettext.NullTranslations()
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        data = mo.read_bytes()
    else:
        data = mo_bytes(read_po(po.read_text(encoding="utf-8")))
    return gettext.GNUTranslations(io.BytesIO(data))


@dataclass
class Entry:
    """One entry of a ``.po`` file: ``msgstr`` holds one form, or one per plural form."""

    msgid: str
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    msgctxt: str | None = None

    @property
    def translated(self) -> bool:
        """Every form has a translation and the entry is not marked fuzzy."""
        return bool(self.msgstr) and all(self.msgstr) and "fuzzy" not in self.flags


def read_po(text: str) -> list[Entry]:
    """The entries of a ``.po`` file's text, the header (msgid "") first. Handles what our
    catalogs use: ``#,`` flags, msgctxt, msgid_plural with ``msgstr[n]``, strings continued
    over several lines; other comments are skipped. Raises ValueError naming a bad line."""
    entries: list[Entry] = []
    key = ""
    flags: set[str] = set()
    fields: dict[str, str] = {}

    def finish() -> None:
        nonlocal fields, flags
        if "msgid" in fields:
            forms = sorted((k for k in fields if k.startswith("msgstr")), key=lambda k: (len(k), k))
            msgstr = [fields[k] for k in forms]
            entries.append(Entry(fields["msgid"], fields.get("msgid_plural"), msgstr, flags, fields.get("msgctxt")))
        fields, flags = {}, set()

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if any(k.startswith("msgstr") for k in fields):
                finish()
            if line.startswith("#,"):
                flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith('"'):
            if not key:
                raise ValueError(f"line {number}: a string outside an entry")
            fields[key] += _unquote(line, number)
            continue
        keyword, _sep, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid") and any(k.startswith("msgstr") for k in fields):
            finish()
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not keyword.startswith("msgstr["):
            raise ValueError(f"line {number}: unknown keyword {keyword!r}")
        key = keyword
        fields[key] = _unquote(rest.strip(), number)
    finish()
    return entries


def _unquote(literal: str, number: int) -> str:
    if not (len(literal) >= 2 and literal[0] == literal[-1] == '"'):
        raise ValueError(f"line {number}: expected a quoted string, got {literal!r}")
    value = ast.literal_eval(literal)  # C escapes as .po files write them: \n \t \" \\
    assert isinstance(value, str)
    return value


def mo_bytes(entries: list[Entry]) -> bytes:
    """A GNU ``.mo`` file of the translated entries (untranslated and fuzzy ones are left out:
    gettext then falls back to the English; the header is always kept), in the format
    :class:`gettext.GNUTranslations` reads: little-endian, keys sorted."""
    pairs: dict[bytes, bytes] = {}
    for e in entries:
        if e.msgid and not e.translated:
            continue
        key = e.msgid if e.msgid_plural is None else f"{e.msgid}\0{e.msgid_plural}"
        if e.msgctxt is not None:
            key = f"{e.msgctxt}\x04{key}"
        pairs[key.encode("utf-8")] = "\0".join(e.msgstr).encode("utf-8")
    keys = sorted(pairs)
    header_size = 7 * 4
    ids_start = header_size
    strs_start = ids_start + 8 * len(keys)
    data_start = strs_start + 8 * len(keys)
    ids, strs, blob = [], [], b""
    for k in keys:
        ids.append((len(k), data_start + len(blob)))
        blob += k + b"\0"
    for k in keys:
        strs.append((len(pairs[k]), data_start + len(blob)))
        blob += pairs[k] + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, len(keys), ids_start, strs_start, 0, data_start)
    out += b"".join(struct.pack("<2I", n, o) for n, o in ids)
    out += b"".join(struct.pack("<2I", n, o) for n, o in strs)
    return out + blob


# -- keeping the catalogs up to date --------------------------------------------------------------

# the strings marked with _: the command line's modules, the launcher's and serve's messages and options
_CLI_MODULES = (
    "cli/main.py",
    "cli/models.py",
    "cli/ocr.py",
    "cli/show.py",
    "cli/gui_launch.py",
    "server/config.py",
    "server/run.py",
)
# the lower layers' errors worded with a translatable template (errors.N_; describe() shows them)
_ERROR_MODULES = (
    "batch/__init__.py",
    "engine/direction.py",
    "engine/model_format.py",
    "models/download.py",
    "models/hub.py",
    "app/settings.py",
)
_MARKERS = ("_", "N_")  # one message; ngettext: singular and plural


def cli_sources() -> list[Path]:
    """The command line's modules, whose marked strings the catalogs translate."""
    package = Path(__file__).resolve().parents[1]
    return [package / name for name in _CLI_MODULES]


def _error_sources() -> list[Path]:
    """The lower layers' modules whose errors carry a template marked with ``N_``."""
    package = Path(__file__).resolve().parents[1]
    return [package / name for name in _ERROR_MODULES]


def extract(source: str) -> list[tuple[str, str | None]]:
    """The messages marked in Python ``source``: ``(msgid, msgid_plural)`` in order of first
    appearance, for calls of ``_``/``N_`` (and ``gettext``'s ``ngettext``) with literal strings."""
    found: dict[tuple[str, str | None], None] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name in _MARKERS and texts:
            found[(texts[0], None)] = None
        elif name == "ngettext" and len(texts) >= 2:
            found[(texts[0], texts[1])] = None
    return sorted(found, key=lambda m: _position(source, m[0]))


def _position(source: str, text: str) -> int:
    # ast.walk is breadth-first: order the messages as they stand in the file instead
    return source.find(text[:40]) if text else 0


def catalog_messages() -> list[tuple[str, str | None]]:
    """Every message a catalog translates: the command line's, the lower layers' error
    templates, then argparse's own (its help and error words, read from the argparse module
    this Python runs)."""
    found: dict[tuple[str, str | None], None] = {}
    for path in [*cli_sources(), *_error_sources(), Path(argparse.__file__)]:
        for message in extract(path.read_text(encoding="utf-8")):
            found.setdefault(message, None)
    for heading in _ARGPARSE_OTHER_VERSIONS:
        found.setdefault((heading, None), None)
    return list(found)


# argparse words of the other Pythons desktop-mt runs on (3.10's heading for options).
_ARGPARSE_OTHER_VERSIONS = ("optional arguments",)


def write_po(entries: list[Entry]) -> str:
    """The text of a ``.po`` file holding ``entries`` (the header first)."""
    out: list[str] = []
    for e in entries:
        if e.flags:
            out.append("#, " + ", ".join(sorted(e.flags)))
        if e.msgctxt is not None:
            out.append(f"msgctxt {_quote(e.msgctxt)}")
        out.append(f"msgid {_quote(e.msgid)}")
        if e.msgid_plural is None:
            out.append(f"msgstr {_quote(e.msgstr[0] if e.msgstr else '')}")
        else:
            out.append(f"msgid_plural {_quote(e.msgid_plural)}")
            out += [f"msgstr[{i}] {_quote(form)}" for i, form in enumerate(e.msgstr or [""])]
        out.append("")
    return "\n".join(out)


def _quote(text: str) -> str:
    """A .po string: one line per line of ``text`` after an empty first one when it has several."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    quoted = ['"' + _escape(line) + '"' for line in lines]
    if len(quoted) <= 1:
        return quoted[0] if quoted else '""'
    return '""\n' + "\n".join(quoted)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _update_po(language: str) -> list[Entry]:
    """Bring ``language``'s ``.po`` in line with :func:`catalog_messages`: new messages come in
    untranslated, messages gone from the code are dropped, translations are kept. Returns the
    entries still untranslated."""
    po = po_path(language)
    old = read_po(po.read_text(encoding="utf-8")) if po.exists() else []
    known = {(e.msgid, e.msgid_plural): e for e in old}
    header = known.get(("", None)) or Entry("", msgstr=[HEADER.format(language=language)])
    entries = [header]
    for msgid, plural in catalog_messages():
        entries.append(known.get((msgid, plural)) or Entry(msgid, plural, []))
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_text(write_po(entries), encoding="utf-8")
    return [e for e in entries[1:] if not e.translated]


HEADER = (
    "Project-Id-Version: desktop-mt\n"
    "Language: {language}\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "Plural-Forms: nplurals=1; plural=0;\n"
)


def compile_all() -> list[Path]:
    """Write each catalog's ``.mo`` next to its ``.po`` (the build's step). Returns the files."""
    written = []
    for language in _TRANSLATED:
        po = po_path(language)
        mo = po.with_suffix(".mo")
        tmp = mo.with_name(mo.name + ".tmp")
        tmp.write_bytes(mo_bytes(read_po(po.read_text(encoding="utf-8"))))
        os.replace(tmp, mo)
        written.append(mo)
    return written


def main(argv: list[str]) -> int:
    """``python -m desktop_mt.app.i18n update|compile``: refresh the ``.po`` from the code (and
    list what is left to translate), or write the ``.mo`` (the build)."""
    if argv[:1] == ["update"]:
        for language in _TRANSLATED:
            for e in _update_po(language):
                print(f"{language}: untranslated: {e.msgid!r}")
    elif argv[:1] == ["compile"]:
        for mo in compile_all():
            print(mo)
    else:
        print("usage: python -m desktop_mt.app.i18n update|compile", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
