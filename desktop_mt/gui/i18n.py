"""The interface language: which one the window speaks, and Qt's translators for it.

The GUI's strings are marked with ``QCoreApplication.translate(context, text)`` (explicit
contexts: PySide6's ``self.tr`` takes the *runtime* class name as context, which a mixin's
strings would miss) and extracted with ``pyside6-lupdate`` into
``desktop_mt/resources/i18n/desktop_mt_<lang>.ts``, the sources kept in the repository
(``python -m desktop_mt.gui.i18n update`` runs lupdate over the GUI). The ``.qm`` Qt loads is
compiled from them by ``pyside6-lrelease``:

- a build (wheel, bundle) runs ``python -m desktop_mt.gui.i18n compile`` first, which writes
  ``desktop_mt_<lang>.qm`` next to each ``.ts``; those ship as package data;
- a checkout has no ``.qm`` (they are not in git): the first start compiles the ``.ts`` into the
  cache folder, named by the ``.ts``'s hash, so an edited ``.ts`` is recompiled and
  ``python3 dev.py run`` needs no build step. A ``.qm`` older than its ``.ts`` is not used.

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
import subprocess
import sys
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from .. import paths
from ..app.settings import LANGUAGES
from ..resources_path import resource_path

log = logging.getLogger(__name__)

CATALOG = "desktop_mt"  # desktop_mt_<lang>.ts / .qm
ENGLISH, SIMPLIFIED = "en", "zh_CN"
TRANSLATED = (SIMPLIFIED,)  # the languages with a .ts (English is the source text)
QT_CATALOGS = ("qtbase",)  # Qt's own: standard dialogs, buttons, context menus


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``QCoreApplication.translate``: ``text`` in the interface language (lupdate finds the
    calls by this name; ``n`` >= 0 picks a plural form for a ``%n`` in ``text``)."""
    return QCoreApplication.translate(context, text, disambiguation, n)


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
    for tag in QLocale.system().uiLanguages() if ui_languages is None else ui_languages:
        primary = tag.replace("_", "-").split("-")[0].lower()
        if primary == "zh":
            return SIMPLIFIED
        if primary == "en":
            return ENGLISH
    return ENGLISH


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


def qm_path(language: str) -> Path | None:
    """The compiled catalog of ``language``: the packaged .qm when it is as new as its .ts,
    else the .ts compiled into the cache (once per .ts content); None when there is neither
    (or lrelease is missing and nothing is compiled)."""
    ts = i18n_dir() / f"{CATALOG}_{language}.ts"
    packaged = ts.with_suffix(".qm")
    if packaged.exists() and (not ts.exists() or packaged.stat().st_mtime >= ts.stat().st_mtime):
        return packaged
    if not ts.exists():
        return None
    digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    cached = paths.cache_dir() / "i18n" / f"{CATALOG}_{language}-{digest}.qm"
    if cached.exists():
        return cached
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        compile_ts(ts, cached)
    except (OSError, subprocess.CalledProcessError) as exc:
        log.warning("could not compile the %s interface translation: %s", language, exc)
        return None
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
        log.warning("interface translation %s not loaded (%s): English", language, qm)
        return []
    app.installTranslator(ours)
    installed = [ours]
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for catalog in QT_CATALOGS:
        qt = QTranslator(app)
        if qt.load(f"{catalog}_{language}", qt_dir):
            app.installTranslator(qt)
            installed.append(qt)
        else:
            log.info("Qt's %s_%s.qm not found in %s: its dialogs stay English", catalog, language, qt_dir)
    QLocale.setDefault(QLocale(language))  # numbers and Qt's own dialogs follow
    log.info("interface language: %s", language)
    return installed


def uninstall(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Remove what :func:`install` installed (tests; widgets made afterwards are English)."""
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())


def gui_sources() -> list[Path]:
    """The Python files lupdate reads: the GUI package."""
    return sorted(Path(__file__).parent.rglob("*.py"))


def update_ts() -> None:
    """Run pyside6-lupdate over the GUI into each .ts (new strings come in unfinished; strings
    gone from the code are dropped: ``-no-obsolete``)."""
    tool = Path(PySide6.__file__).parent / ("lupdate.exe" if sys.platform == "win32" else "lupdate")
    root = Path(__file__).parents[2]
    for language in TRANSLATED:
        ts = i18n_dir() / f"{CATALOG}_{language}.ts"
        sources = [str(p.relative_to(root)) for p in gui_sources()]
        subprocess.run(
            [str(tool), "-no-obsolete", "-locations", "none", *sources, "-target-language", language, "-ts", str(ts)],
            check=True,
            cwd=root,
        )


def compile_all() -> list[Path]:
    """Compile every .ts into the .qm next to it (the build's step). Returns the .qm files."""
    written = []
    for language in TRANSLATED:
        ts = i18n_dir() / f"{CATALOG}_{language}.ts"
        compile_ts(ts, ts.with_suffix(".qm"))
        written.append(ts.with_suffix(".qm"))
    return written


def main(argv: list[str]) -> int:
    """``python -m desktop_mt.gui.i18n update|compile``."""
    if argv[:1] == ["update"]:
        update_ts()
    elif argv[:1] == ["compile"]:
        for qm in compile_all():
            print(qm)
    else:
        print("usage: python -m desktop_mt.gui.i18n update|compile", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
