"""The interface language: which one the window speaks, and Qt's translators for it.

The GUI's strings are marked with ``QCoreApplication.translate(context, text)`` (explicit
contexts: PySide6's ``self.tr`` takes the *runtime* class name as context, which a mixin's
strings would miss) and extracted with ``pyside6-lupdate`` into
``desktop_mt/resources/i18n/desktop_mt_<lang>.ts``, the sources kept in the repository
(``python -m desktop_mt.gui.i18n update`` runs lupdate over the GUI). The ``.qm`` Qt loads is
compiled from them by ``pyside6-lrelease``:

- ``python -m desktop_mt.gui.i18n compile`` writes ``desktop_mt_<lang>.qm`` next to each
  ``.ts``, with ``desktop_mt_<lang>.qm.source`` naming the ``.ts`` content it was made from
  (a digest); both are committed, so the wheel (package data) and the PyInstaller bundle
  (packaging/desktop-mt.spec) ship them, and the frozen app, which has no lrelease, loads
  them as they are. ``packaging/build.py`` compiles again before a bundle;
  tests/gui/test_i18n.py fails while the committed ``.qm`` is not the ``.ts``'s;
- a ``.qm`` whose source digest is not its ``.ts``'s (a ``.ts`` edited, not compiled yet) is
  not used: the start compiles the ``.ts`` into the cache folder, named by its digest, so
  ``python3 dev.py run`` shows an edit at once (with no lrelease it falls back to the stale
  ``.qm``, which beats English).

Which language (:func:`interface_language`): the Settings' choice (``language``: "system",
"en", "zh_CN"), read at start; "system" follows the system's UI languages (``LANGUAGE``,
``LC_ALL``, ``LANG`` on Linux): any Chinese locale gets Simplified Chinese, zh_CN and zh_SG as
well as zh_TW, zh_HK and zh_MO (no Traditional interface yet: Simplified reads better to a
Traditional reader than English does for most of them), anything else English. Qt's own
``qtbase_zh_CN.qm`` (standard buttons, context menus, file dialogs) is loaded with ours.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ..app.i18n import ENGLISH, SIMPLIFIED, language_for
from ..app.settings import LANGUAGES
from ..base import paths
from ..base.resources_path import resource_path

__all__ = [
    "QT_TRANSLATE_NOOP",
    "compile_all",
    "compile_ts",
    "gui_sources",
    "i18n_dir",
    "install",
    "interface_language",
    "lrelease",
    "main",
    "qm_path",
    "source_file",
    "translate",
    "ts_digest",
    "uninstall",
    "update_ts",
]


_logger = logging.getLogger(__name__)

_CATALOG = "desktop_mt"  # desktop_mt_<lang>.ts / .qm
_TRANSLATED = (SIMPLIFIED,)  # the languages with a .ts (English is the source text)
_QT_CATALOGS = ("qtbase",)  # Qt's own: standard dialogs, buttons, context menus


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``QCoreApplication.translate``: ``text`` in the interface language (lupdate finds the
    calls by this name). ``n`` >= 0: the count for a ``%n`` in ``text``, a plural entry of the
    catalog (``translate(ctx, "%n file(s)", None, n)``); where nothing translates it (English,
    which has no catalog), the English "(s)" becomes "s" or nothing by the count: "1 file",
    "2 files"."""
    shown = QCoreApplication.translate(context, text, disambiguation, n)
    if n >= 0 and shown == text.replace("%n", str(n)):  # untranslated: English's own plural
        return shown.replace("(s)", "" if n == 1 else "s")
    return shown


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for extraction where it cannot be translated yet (a module constant,
    made before the translator is installed): return it unchanged; the code that shows it
    calls :func:`translate` with the same ``context``. (PySide6's own is typed ``object``.)"""
    return text


def i18n_dir() -> Path:
    """The folder of the .ts sources (and, after a build, the compiled .qm)."""
    return resource_path("i18n")


def interface_language(choice: str, ui_languages: list[str] | None = None) -> str:
    """The language the interface speaks, "en" or "zh_CN", for the Settings' ``choice``.

    "system" looks at ``ui_languages`` (default: ``QLocale.system().uiLanguages()``, in the
    user's order of preference): the first Chinese or English one decides; any Chinese
    (zh-CN, zh-SG, zh-TW, zh-HK, zh-Hans...) is Simplified Chinese; none of either: English."""
    if choice in LANGUAGES and choice != "system":
        return choice
    return language_for(choice, QLocale.system().uiLanguages() if ui_languages is None else ui_languages)


def lrelease() -> Path | None:
    """PySide6's lrelease (it ships with PySide6-Essentials), or None (a frozen bundle)."""
    name = "lrelease.exe" if sys.platform == "win32" else "lrelease"
    tool = Path(PySide6.__file__).parent / name
    return tool if tool.exists() else None


def compile_ts(ts: Path, qm: Path) -> None:
    """Compile ``ts`` into ``qm`` with lrelease (written whole or not at all).

    Raises OSError/CalledProcessError when lrelease is missing or refuses the file."""
    tool = lrelease()
    if tool is None:
        raise FileNotFoundError(
            f"lrelease not found next to PySide6 ({Path(PySide6.__file__).parent}): cannot compile {ts}"
        )
    tmp = qm.with_name(qm.name + ".tmp")
    subprocess.run([str(tool), "-silent", str(ts), "-qm", str(tmp)], check=True, capture_output=True)
    os.replace(tmp, qm)


def ts_digest(ts: Path) -> str:
    """The digest of a .ts's content that its compiled .qm is named by (``.qm.source``)."""
    return hashlib.sha256(ts.read_bytes()).hexdigest()[:16]


def source_file(qm: Path) -> Path:
    """The file beside ``qm`` holding the digest of the .ts it was compiled from."""
    return qm.with_name(qm.name + ".source")


def qm_path(language: str) -> Path | None:
    """The compiled catalog of ``language``: the packaged .qm when it was compiled from the
    .ts beside it (or there is no .ts, as a bundle could have), else the .ts compiled into the
    cache (once per .ts content), else the packaged .qm even if older (no lrelease); None when
    there is nothing to load."""
    ts = i18n_dir() / f"{_CATALOG}_{language}.ts"
    packaged = ts.with_suffix(".qm")
    source = source_file(packaged)
    made_from = source.read_text(encoding="utf-8").strip() if source.exists() else ""
    if packaged.exists() and (not ts.exists() or made_from == ts_digest(ts)):
        return packaged
    if not ts.exists():
        return None
    cached = paths.cache_dir() / "i18n" / f"{_CATALOG}_{language}-{ts_digest(ts)}.qm"
    if cached.exists():
        return cached
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        compile_ts(ts, cached)
    except (OSError, subprocess.CalledProcessError) as exc:
        _logger.warning("could not compile the %s interface translation: %s", language, exc)
        return packaged if packaged.exists() else None
    return cached


def install(app: QCoreApplication, choice: str) -> list[QTranslator]:
    """Load and install the translators of the Settings' ``choice`` into ``app`` (before any
    window is built: strings are translated as widgets are made). Returns the translators
    installed (none for English, or when the translation could not be loaded)."""
    language = interface_language(choice)
    if language == ENGLISH:
        return []
    qm = qm_path(language)
    ours = QTranslator(app)
    if qm is None or not ours.load(str(qm)):
        _logger.warning("interface translation %s not loaded (%s): English", language, qm)
        return []
    app.installTranslator(ours)
    installed = [ours]
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for catalog in _QT_CATALOGS:
        qt = QTranslator(app)
        if qt.load(f"{catalog}_{language}", qt_dir):
            app.installTranslator(qt)
            installed.append(qt)
        else:
            _logger.info("Qt's %s_%s.qm not found in %s: its dialogs stay English", catalog, language, qt_dir)
    QLocale.setDefault(QLocale(language))  # numbers and Qt's own dialogs follow
    _logger.info("interface language: %s", language)
    return installed


def uninstall(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Remove what :func:`install` installed (tests; widgets made afterwards are English)."""
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())


def gui_sources() -> list[Path]:
    """The Python files lupdate reads: the GUI package."""
    return sorted(Path(__file__).parent.rglob("*.py"))


def _plural_translations(ts: Path) -> dict[tuple[str, str], list[str]]:
    """(context, source) -> the finished translation forms of each ``%n`` entry of ``ts``."""
    found: dict[tuple[str, str], list[str]] = {}
    if not ts.exists():
        return found
    for context in ET.parse(ts).getroot().iter("context"):
        for message in context.iter("message"):
            source, translation = message.findtext("source") or "", message.find("translation")
            if "%n" in source and translation is not None and translation.get("type") is None:
                forms = [f.text or "" for f in translation.findall("numerusform")] or [translation.text or ""]
                found[(context.findtext("name") or "", source)] = forms
    return found


def _mark_plurals(ts: Path, before: dict[tuple[str, str], list[str]]) -> None:
    """Make every ``%n`` entry of ``ts`` a plural (numerus) one, its translation from ``before``.

    PySide6's lupdate marks a ``translate(ctx, text, None, n)`` call plural only when ``n`` is
    a number literal, and turns a plural entry whose call it did not see so into an unfinished
    singular one: this puts them back (Chinese has one form; English's "(s)" is
    :func:`translate`'s)."""
    tree = ET.parse(ts)
    for context in tree.getroot().iter("context"):
        for message in context.iter("message"):
            source, translation = message.findtext("source") or "", message.find("translation")
            if "%n" not in source or translation is None:
                continue
            key = (context.findtext("name") or "", source)
            message.set("numerus", "yes")
            forms = before.get(key) or [f.text or "" for f in translation.findall("numerusform")]
            forms = forms or [translation.text or ""]
            translation.text = None
            for old in list(translation):
                translation.remove(old)
            for form in forms:
                ET.SubElement(translation, "numerusform").text = form
            if key in before:
                translation.attrib.pop("type", None)
    _write_ts(tree.getroot(), ts)


def _write_ts(root: ET.Element, ts: Path) -> None:
    """Write the .ts whose root is ``root`` as lupdate writes one (contexts at the margin, four
    spaces a level, quotes escaped in text), so an update after this one changes only what
    changed."""
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=False)
    body = "\n".join(line[4:] if line.startswith("    ") else line for line in body.split("\n"))
    body = re.sub(r">([^<]*)<", lambda m: ">" + m.group(1).replace('"', "&quot;").replace("'", "&apos;") + "<", body)
    ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")


def update_ts(targets: dict[str, Path] | None = None, quiet: bool = False) -> None:
    """Run pyside6-lupdate over the GUI into each .ts (``targets``: language -> .ts, default
    the package's): new strings come in unfinished, strings gone from the code are dropped
    (``-no-obsolete``), and every ``%n`` string is a plural entry (:func:`_mark_plurals`)."""
    tool = Path(PySide6.__file__).parent / ("lupdate.exe" if sys.platform == "win32" else "lupdate")
    root = Path(__file__).parents[2]
    sources = [str(p.relative_to(root)) for p in gui_sources()]
    for language, ts in (targets or {lang: i18n_dir() / f"{_CATALOG}_{lang}.ts" for lang in _TRANSLATED}).items():
        before = _plural_translations(ts)
        subprocess.run(
            [str(tool), *(["-silent"] if quiet else []), "-no-obsolete", "-locations", "none", *sources]
            + ["-target-language", language, "-ts", str(ts)],
            check=True,
            cwd=root,
        )
        _mark_plurals(ts, before)


def compile_all() -> list[Path]:
    """Compile every .ts into the .qm next to it, with the .ts's digest beside it
    (``.qm.source``). Returns the .qm files."""
    written = []
    for language in _TRANSLATED:
        ts = i18n_dir() / f"{_CATALOG}_{language}.ts"
        qm = ts.with_suffix(".qm")
        compile_ts(ts, qm)
        source_file(qm).write_text(ts_digest(ts) + "\n", encoding="utf-8")
        written.append(qm)
    return written


def main(argv: list[str]) -> int:
    """``python -m desktop_mt.gui.i18n update|compile``."""
    if argv[:1] == ["update"]:
        update_ts()  # then translate the new entries, and compile
    elif argv[:1] == ["compile"]:
        for qm in compile_all():
            print(qm)
    else:
        print("usage: python -m desktop_mt.gui.i18n update|compile", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
