#!/usr/bin/env python3
"""Move desktop_mt's modules into folders that show the layers (issue 42), and rewrite every
reference to them. Run once, from a clean checkout, then test and commit::

    python3 tools/relayout.py            # git mv + rewrite; prints the before/after counts
    python3 tools/relayout.py --check    # only check that the mapping covers every module

The layout it makes:

* ``desktop_mt/base/``: errors, paths, fsutil, version, stdio, resources_path (imports nothing
  of desktop_mt above it);
* ``desktop_mt/cli/``: the command line as a package (``cli.py`` -> ``cli/main.py``,
  ``cli_models`` -> ``cli/models``, ``cli_ocr`` -> ``cli/ocr``, ``cli_show`` -> ``cli/show``) and
  the launcher of the window, ``gui_launch``;
* services where they belong: ``history`` and ``instance_client`` (front ends only) into
  ``app/``; ``pasted`` (the window, batch .txt and OCR join lines with it) into ``engine/``;
* the typed fakes, ``testing``, out of the top level: ``engine/testing.py`` (they fake the
  engine's protocols);
* ``gui/`` in sub-packages: ``window/`` (the main window's parts and looks), ``features/``
  (what the window does, each on the ports), ``dialogs/``, ``workers/`` (the QObjects on their
  own threads) and ``platform/`` (global hotkeys, key presses, screen capture, the desktop
  portal, the single instance, the display check); the wiring (app, controller, ports,
  requests, settings, i18n...) stays at ``gui/``'s top.

Every top-level module and every gui module must be named in ``TOP`` / ``GUI`` (``None``: it
stays); the script stops, naming the module, when one is not, so a module added meanwhile is
placed on purpose. Every other package (app, batch, engine, models, ocr, server, tm) stays.

What it rewrites, in desktop_mt/, tests/, benchmarks/, export_tools/, tools/, packaging/, docs/,
the READMEs, pyproject.toml, dev.py, .ci/ and .github/: each ``from X import Y`` whose module
moved, or whose file moved (a relative import is resolved from the file's old place and written
again from its new one, relative as it was; a name that is a moved module is imported from its
new package, ``as`` its old name when that changed); every dotted ``desktop_mt.x.y`` (code,
``mock.patch`` targets, ``-m`` commands, the spec's hidden imports, docs); every path
``desktop_mt/x/y.py`` and ``"desktop_mt" / "x.py"``. The .ts files' ``<location>`` lines are left
(lupdate rewrites them). Then ``ruff check --fix --select I`` and ``ruff format`` sort and format
the files it changed.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = "desktop_mt"

# Top-level modules of desktop_mt -> their new module (relative to desktop_mt); None: stays.
TOP: dict[str, str | None] = {
    "__init__": None,  # the package face (lazy)
    "__main__": None,  # python -m desktop_mt
    "errors": "base.errors",
    "paths": "base.paths",
    "fsutil": "base.fsutil",
    "version": "base.version",
    "stdio": "base.stdio",
    "resources_path": "base.resources_path",
    "cli": "cli.main",
    "cli_models": "cli.models",
    "cli_ocr": "cli.ocr",
    "cli_show": "cli.show",
    "gui_launch": "cli.gui_launch",
    "history": "app.history",
    "instance_client": "app.instance_client",
    "pasted": "engine.pasted",
    "testing": "engine.testing",
}
# Top-level packages that stay as they are (gui's modules are placed by GUI below).
KEPT_PACKAGES = ("app", "batch", "engine", "gui", "models", "ocr", "server", "tm", "resources")

# gui modules -> their new module under desktop_mt.gui; None: stays at gui's top (the wiring).
GUI: dict[str, str | None] = {
    "__init__": None,
    "app": None,  # desktop_mt.gui.app.main: the window's entry point
    "controller": None,
    "ports": None,
    "requests": None,
    "request_results": None,
    "settings": None,
    "paths": None,
    "i18n": None,
    "logsetup": None,
    "qtcompat": None,
    "messages": None,  # what the Qt-free layers say, worded in the interface language
    # window/: the main window, its parts and how it looks
    "window": "window.main",
    "window_chrome": "window.chrome",
    "window_files": "window.files",
    "window_menus": "window.menus",
    "direction_bar": "window.direction_bar",
    "postedit_pane": "window.postedit_pane",
    "popup": "window.popup",
    "tray": "window.tray",
    "look": "window.look",
    "theme": "window.theme",
    "fonts": "window.fonts",
    "focus": "window.focus",
    "progress": "window.progress",
    # features/: what the window does, each built on the ports
    "alignment": "features.alignment",
    "alternatives": "features.alternatives",
    "bilingual": "features.bilingual",
    "drafts": "features.drafts",
    "engine_loading": "features.engine_loading",
    "file_jobs": "features.file_jobs",
    "file_queue": "features.file_queue",
    "first_start": "features.first_start",
    "hotkey_link": "features.hotkey_link",
    "job_resume": "features.job_resume",
    "local_api": "features.local_api",
    "models": "features.models",
    "ocr_feature": "features.ocr",
    "pasting": "features.pasting",
    "postedit": "features.postedit",
    "postedit_completion": "features.postedit_completion",
    "postedit_confirm": "features.postedit_confirm",
    "quitting": "features.quitting",
    "replace": "features.replace",
    "selection_copy": "features.selection_copy",
    "shortcuts": "features.shortcuts",
    "stale": "features.stale",
    "tm_matches": "features.tm_matches",
    # dialogs/: the windows the app opens over the main one
    "settings_dialog": "dialogs.settings_dialog",
    "settings_sections": "dialogs.settings_sections",
    "glossary_editor": "dialogs.glossary_editor",
    "history_dialog": "dialogs.history_dialog",
    "models_dialog": "dialogs.models_dialog",
    "model_table": "dialogs.model_table",
    "model_downloads": "dialogs.model_downloads",
    "folder_adding": "dialogs.folder_adding",
    "tm_dialog": "dialogs.tm_dialog",
    "tm_files": "dialogs.tm_files",
    "tm_search": "dialogs.tm_search",
    "tm_table": "dialogs.tm_table",
    "ocr_overlay": "dialogs.ocr_overlay",
    # workers/: QObjects that run on threads of their own
    "worker": "workers.translation",
    "downloads": "workers.downloads",
    # platform/: what each OS and desktop does differently
    "hotkey": "platform.hotkey",
    "keys": "platform.keys",
    "capture": "platform.capture",
    "portal": "platform.portal",
    "single_instance": "platform.single_instance",
    "display_check": "platform.display_check",
}
# gui sub-packages -> their new package under desktop_mt.gui.
GUI_PACKAGES: dict[str, str] = {"hotkeys": "platform.hotkeys"}

# The packages the moves create, with their docstrings.
NEW_PACKAGES: dict[str, str] = {
    "base": "The base layer: errors, user folders, atomic files, the version, UTF-8 standard streams and\n"
    "package data. Everything in desktop_mt may import it; it imports nothing of desktop_mt above it.",
    "cli": "The command line, ``desktop-mt COMMAND``: :mod:`desktop_mt.cli.main` parses and runs it (the\n"
    "entry point), with the ``models``, ``ocr`` and ``show`` commands beside it and the window's\n"
    "launcher (:mod:`desktop_mt.cli.gui_launch`).",
    "gui.window": "The main window: its parts (chrome, menus, the file strip, the direction bar, the panes), the\n"
    "popup and the tray icon, and how they look (palette, fonts, focus).",
    "gui.features": "What the window does, one module a feature, each built on the ports (``desktop_mt.gui.ports``)\n"
    "rather than on the controller.",
    "gui.dialogs": "The dialogs the window opens: Settings (with the glossary editor), Models, History, the\n"
    "translation memory and the screen-region picker.",
    "gui.workers": "QObjects that run on threads of their own: the translation worker and the model downloads.",
    "gui.platform": "What each OS and desktop does differently: global hotkeys, simulated key presses, screen\n"
    "capture, the desktop portal, one app per user and whether a display can be opened.",
}

# Where references are rewritten.
SCAN_DIRS = ("desktop_mt", "tests", "benchmarks", "export_tools", "tools", "packaging", "docs", ".ci", ".github")
SCAN_FILES = ("pyproject.toml", "dev.py", "README.md", "README.zh-CN.md")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".spec", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".sh", ".json", ""}
SKIP_PARTS = {"__pycache__", ".venv", "resources", "node_modules", ".git", "build", "dist"}


class LayoutError(SystemExit):
    """The mapping does not fit the checkout: the message says what to add."""


# --- the mapping ------------------------------------------------------------------------------


def _module_files() -> dict[str, Path]:
    """desktop_mt's modules by dotted name, from the files in the checkout (resources are data)."""
    found: dict[str, Path] = {}
    for path in sorted((ROOT / PKG).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if "resources" in parts[1:2] or "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def moves() -> dict[str, str]:
    """Every module that moves: old dotted name -> new dotted name. Stops on a module that
    ``TOP`` / ``GUI`` / ``GUI_PACKAGES`` / ``KEPT_PACKAGES`` does not place."""
    unplaced: list[str] = []
    found: dict[str, str] = {}
    for path in sorted((ROOT / PKG).iterdir()):
        if path.name.startswith(".") or path.name == "__pycache__" or path.suffix in (".typed",):
            continue
        if path.is_dir():
            if path.name not in KEPT_PACKAGES:
                unplaced.append(f"package desktop_mt/{path.name}/ (add it to KEPT_PACKAGES or TOP)")
        elif path.suffix == ".py":
            if path.stem not in TOP:
                unplaced.append(f"desktop_mt/{path.name} (add it to TOP)")
            elif TOP[path.stem]:
                found[f"{PKG}.{path.stem}"] = f"{PKG}.{TOP[path.stem]}"
    gui = ROOT / PKG / "gui"
    for path in sorted(gui.iterdir()):
        if path.name == "__pycache__":
            continue
        if path.is_dir():
            if path.name not in GUI_PACKAGES:
                unplaced.append(f"package desktop_mt/gui/{path.name}/ (add it to GUI_PACKAGES)")
                continue
            for module in _module_files():
                old_package = f"{PKG}.gui.{path.name}"
                if module == old_package or module.startswith(old_package + "."):
                    found[module] = f"{PKG}.gui.{GUI_PACKAGES[path.name]}" + module[len(old_package) :]
        elif path.suffix == ".py":
            if path.stem not in GUI:
                unplaced.append(f"desktop_mt/gui/{path.name} (add it to GUI)")
            elif GUI[path.stem]:
                found[f"{PKG}.gui.{path.stem}"] = f"{PKG}.gui.{GUI[path.stem]}"
    if unplaced:
        raise LayoutError(
            "tools/relayout.py: the mapping does not place these; say where they go:\n  " + "\n  ".join(unplaced)
        )
    stale = [f"TOP {k}" for k, v in TOP.items() if v and not (ROOT / PKG / f"{k}.py").exists()]
    stale += [f"GUI {k}" for k, v in GUI.items() if v and not (ROOT / PKG / "gui" / f"{k}.py").exists()]
    for entry in stale:
        print(f"relayout: note: {entry} names no file (gone meanwhile); skipped", file=sys.stderr)
    new_names = list(found.values())
    clash = {n for n in new_names if new_names.count(n) > 1} | {
        n for n in new_names if n in _module_files() and n not in found
    }
    if clash:
        raise LayoutError(f"tools/relayout.py: two modules would get one name, or a name is taken: {sorted(clash)}")
    return found


def _path_of(module: str, is_package: bool) -> str:
    return module.replace(".", "/") + ("/__init__.py" if is_package else ".py")


def file_moves(module_moves: dict[str, str]) -> dict[str, str]:
    """Old file path -> new file path (relative to the root, posix)."""
    files = _module_files()
    out: dict[str, str] = {}
    for old, new in module_moves.items():
        path = files[old]
        is_package = path.name == "__init__.py"
        out[path.relative_to(ROOT).as_posix()] = _path_of(new, is_package)
    return out


def dir_moves(module_moves: dict[str, str]) -> dict[str, str]:
    """Old package folder -> new package folder ("desktop_mt/gui/hotkeys" -> ...)."""
    files = _module_files()
    return {
        old.replace(".", "/"): new.replace(".", "/")
        for old, new in module_moves.items()
        if files[old].name == "__init__.py"
    }


# --- rewriting ----------------------------------------------------------------------------------


class Rewriter:
    """Rewrites one file's references from the old layout to the new one."""

    def __init__(self, module_moves: dict[str, str]) -> None:
        self.moves = module_moves
        self.old_modules = set(_module_files())
        self.files = file_moves(module_moves)
        self.dirs = dir_moves(module_moves)
        self.dotted = re.compile(rf"(?<![\w.]){PKG}(?:\.[A-Za-z_]\w*)+")
        self.path = re.compile(rf"(?<![\w/.]){PKG}/[\w/.*]*[\w*/]")
        self.parts = re.compile(rf'"{PKG}"(?:\s*/\s*"[\w.]+")+')
        self.placeholder = re.compile(r"\{PACKAGE\}(?:\.[A-Za-z_]\w*)+")  # f"{PACKAGE}.gui.worker" in tests

    def new_name(self, dotted: str) -> str:
        """``dotted`` (a module, or a module's attribute chain) in the new layout."""
        parts = dotted.split(".")
        for i in range(len(parts), 1, -1):
            prefix = ".".join(parts[:i])
            if prefix in self.moves:
                return ".".join([self.moves[prefix], *parts[i:]])
            if prefix in self.old_modules:
                return dotted
        return dotted

    def new_path(self, path: str) -> str:
        """A ``desktop_mt/...`` path in the new layout (a file, a folder or a glob under one)."""
        bare = path.rstrip("/")
        if bare in self.files:
            return self.files[bare] + path[len(bare) :]
        for old, new in sorted(self.dirs.items(), key=lambda item: -len(item[0])):
            if bare == old or bare.startswith(old + "/"):
                return new + path[len(old) :]
        if bare.endswith(".py") or bare.count("/") == 0:
            return path
        return path

    # -- imports

    def _package_of(self, module: str | None, is_package: bool) -> list[str]:
        if module is None:
            return []
        parts = module.split(".")
        return parts if is_package else parts[:-1]

    def import_edits(
        self, text: str, old_module: str | None, new_module: str | None, is_package: bool
    ) -> list[tuple[int, int, str]]:
        """(start, end, replacement) for each ``from ... import`` that must change."""
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return []
        lines = text.splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))

        def offset(lineno: int, col: int) -> int:
            line = lines[lineno - 1]
            return starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

        old_package = self._package_of(old_module, is_package)
        new_package = self._package_of(new_module, is_package)
        edits: list[tuple[int, int, str]] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                if not old_package:
                    continue  # a relative import outside desktop_mt (tests' own helpers)
                base_parts = old_package[: len(old_package) - node.level + 1]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not (base == PKG or base.startswith(PKG + ".")):
                continue
            groups = self._groups(base, [(alias.name, alias.asname) for alias in node.names])
            relative = node.level > 0 and bool(new_package)
            specs = {parent: self._spec(parent, new_package, relative) for parent in groups}
            old_spec = "." * node.level + (node.module or "")
            start = offset(node.lineno, node.col_offset)
            end = offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
            if len(groups) == 1:
                spec = next(iter(specs.values()))
                names_same = [a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names] == next(
                    iter(groups.values())
                )
                if spec == old_spec and names_same:
                    continue
                if names_same:
                    match = re.compile(r"from\s+(\.*[\w.]*)\s+import").match(text, start)
                    if match is None:
                        raise LayoutError(f"cannot read the import at line {node.lineno}: {text[start:end]!r}")
                    edits.append((match.start(1), match.end(1), spec))
                    continue
            indent = " " * node.col_offset
            statements = [f"from {specs[parent]} import {', '.join(names)}" for parent, names in groups.items()]
            edits.append((start, end, f"\n{indent}".join(statements)))
        return edits

    def _groups(self, base: str, aliases: list[tuple[str, str | None]]) -> dict[str, list[str]]:
        """``from base import aliases`` in the new layout: {module to import from: its names}
        (a name that is a moved module comes from its new package, ``as`` its old name)."""
        groups: dict[str, list[str]] = {}
        for name, asname in aliases:
            full = f"{base}.{name}"
            if full in self.old_modules and full in self.moves:
                parent, _, last = self.moves[full].rpartition(".")
                written = last if last == (asname or name) else f"{last} as {asname or name}"
            else:
                parent = self.new_name(base) if base in self.old_modules or base in self.moves else base
                written = name if asname is None else f"{name} as {asname}"
            groups.setdefault(parent, []).append(written)
        return groups

    def quoted_import_edits(self, text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Absolute ``from desktop_mt... import a, b`` the parser did not see: code in a string (a
        script a test writes and runs, a ``python -c`` line with ``;`` between statements)."""
        edits: list[tuple[int, int, str]] = []
        pattern = rf"(?m)(?<![\w.])from ({PKG}(?:\.\w+)*) import ([\w ]+(?:, *[\w ]+)*?)(?=[ \t]*(?:;|$|[\"'\\]))"
        for match in re.finditer(pattern, text):
            if any(match.start() < e and match.end() > s for s, e in taken):
                continue
            aliases: list[tuple[str, str | None]] = []
            for part in match.group(2).split(","):
                words = part.split()
                aliases.append((words[0], words[2] if len(words) == 3 and words[1] == "as" else None))
            groups = self._groups(match.group(1), aliases)
            line_start = text.rfind("\n", 0, match.start()) + 1
            before = text[line_start : match.start()]
            joint = "\n" + before if not before.strip() else "; "  # its own line, or inline after a ";"
            new = joint.join(f"from {parent} import {', '.join(names)}" for parent, names in groups.items())
            if new != match.group(0):
                edits.append((match.start(), match.end(), new))
        return edits

    def _spec(self, target: str, package: list[str], relative: bool) -> str:
        """``target`` as written in a ``from`` of a module in ``package``: relative or absolute."""
        if not relative:
            return target
        parts = target.split(".")
        common = 0
        while common < min(len(parts), len(package)) and parts[common] == package[common]:
            common += 1
        level = len(package) - common + 1
        return "." * level + ".".join(parts[common:])

    # -- the whole file

    def rewrite(self, text: str, old_module: str | None, new_module: str | None, is_package: bool, python: bool) -> str:
        edits = self.import_edits(text, old_module, new_module, is_package) if python else []
        taken = [(s, e) for s, e, _ in edits]
        if python:  # an import in a string is no node: the parser saw only the statements
            edits += self.quoted_import_edits(text, taken)
            taken = [(s, e) for s, e, _ in edits]

        def free(start: int, end: int) -> bool:
            return all(end <= s or start >= e for s, e in taken)

        patterns = (
            (self.dotted, self.new_name),
            (self.path, self.new_path),
            (self.parts, self._parts),
            (self.placeholder, self._placeholder),
        )
        for pattern, convert in patterns:
            for match in pattern.finditer(text):
                new = convert(match.group(0))
                if new != match.group(0) and free(match.start(), match.end()):
                    edits.append((match.start(), match.end(), new))
                    taken.append((match.start(), match.end()))
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def _placeholder(self, written: str) -> str:
        """``{PACKAGE}.gui.worker`` (an f-string's module name) -> ``{PACKAGE}.gui.workers.translation``."""
        return self.new_name(PKG + written[len("{PACKAGE}") :]).replace(PKG, "{PACKAGE}", 1)

    def _parts(self, written: str) -> str:
        """``"desktop_mt" / "version.py"`` -> ``"desktop_mt" / "base" / "version.py"``."""
        parts = re.findall(r'"([\w.]+)"', written)
        new = self.new_path("/".join(parts))
        return " / ".join(f'"{p}"' for p in new.split("/")) if new != "/".join(parts) else written


# --- what the move changes beyond names: tests/test_architecture.py's layers -------------------

ARCH_TEST = "tests/test_architecture.py"
NEW_LAYERS = """LAYERS: dict[str, tuple[str, ...]] = {  # highest first; a name covers the module and its submodules
    "front ends": ("desktop_mt.gui", "desktop_mt.cli", "desktop_mt.server", "desktop_mt.__main__"),
    "app": ("desktop_mt.app", FACE),  # with the window's history and the running-window client
    "services": ("desktop_mt.engine", "desktop_mt.batch", "desktop_mt.models", "desktop_mt.tm", "desktop_mt.ocr"),
    "base": ("desktop_mt.base",),  # errors, paths, fsutil, version, stdio, resources_path
}
TESTING = "desktop_mt.engine.testing"  # the typed fakes: imports what it fakes; nothing in desktop_mt imports it
GUI = "desktop_mt.gui"
LAUNCHERS = ("desktop_mt.cli.gui_launch",)  # the module that starts the window
CLI = ("desktop_mt.cli",)
"""
NEW_SERVICE_USES = """SERVICE_USES: dict[str, tuple[str, ...]] = {
    "desktop_mt.engine": (),  # engine/pasted.py joins pasted lines: the window, batch .txt and OCR use it
    "desktop_mt.tm": ("desktop_mt.engine",),
    "desktop_mt.batch": ("desktop_mt.engine", "desktop_mt.tm"),
    "desktop_mt.models": ("desktop_mt.engine",),
    "desktop_mt.ocr": ("desktop_mt.engine",),
}
"""
NEW_DOC_LAYERS = """    front ends   desktop_mt.gui, desktop_mt.cli, desktop_mt.server, desktop_mt.__main__
    app          desktop_mt.app, and the package face desktop_mt (desktop_mt/__init__.py)
    services     desktop_mt.engine, .batch, .models, .tm, .ocr
    base         desktop_mt.base
"""
# (pattern, replacement) on the rewritten tests/test_architecture.py; each must match once.
ARCH_FIXUPS: tuple[tuple[str, str], ...] = (
    (r"(?ms)^LAYERS: dict\[str, tuple\[str, \.\.\.\]\] = \{.*?^CLI = .*?\n(?=SERVER = )", NEW_LAYERS),
    (r"(?ms)^SERVICE_USES: dict\[str, tuple\[str, \.\.\.\]\] = \{.*?^\}\n", NEW_SERVICE_USES),
    (r"(?m)^    front ends   .*\n    app          .*\n    services     .*\n    base         .*\n", NEW_DOC_LAYERS),
    (r"_within\(b, GUI\) or b in CLI\)", "_within(b, GUI) or any(_within(b, c) for c in CLI))"),
    (
        r"gui_uses_cli = _within\(a, GUI\) and b in CLI\n",
        "gui_uses_cli = _within(a, GUI) and any(_within(b, c) for c in CLI)\n",
    ),
)
NEW_GUARDS = '''


# --- folders by layer (issue 42: tools/relayout.py made them) -----------------------------------

GUI_WIRING = {GUI_WIRING}  # what stays at gui's top: the entry point, controller, ports, settings


def test_the_top_level_holds_only_the_package_face() -> None:
    """Every module sits in a package of its layer; the top level is the face and ``python -m``."""
    top = sorted(p.name for p in (ROOT / PACKAGE).glob("*.py"))
    assert top == ["__init__.py", "__main__.py"], f"move these into the package of their layer: {top}"


def test_gui_modules_sit_in_folders_that_say_what_they_hold() -> None:
    loose = sorted({p.stem for p in (ROOT / PACKAGE / "gui").glob("*.py")} - GUI_WIRING)
    assert not loose, f"put these in gui/window, features, dialogs, workers or platform: {loose}"


def test_base_imports_nothing_above_it() -> None:
    wrong = [
        str(imp)
        for (a, b), imps in internal_edges().items()
        if _within(a, "desktop_mt.base") and not _within(b, "desktop_mt.base")
        for imp in imps
    ]
    assert not wrong, "the base layer imports only itself:\\n" + "\\n".join(wrong)
'''


def fix_architecture_test(text: str) -> str:
    """The layers of tests/test_architecture.py in the new layout, and its guards for the folders."""
    for pattern, replacement in ARCH_FIXUPS:
        text, count = re.subn(pattern, lambda _m, r=replacement: r, text, count=1)
        if count != 1:
            raise LayoutError(f"tools/relayout.py: {ARCH_TEST} no longer has what {pattern!r} matches; fix ARCH_FIXUPS")
    wiring = "{" + ", ".join(f'"{name}"' for name, place in sorted(GUI.items()) if place is None) + "}"
    return text.rstrip("\n") + "\n" + NEW_GUARDS.replace("{GUI_WIRING}", wiring)


# The architecture page of the new layout, kept beside this script until the run (it names the
# new paths, which the page's test checks exist): the run puts it in docs/ARCHITECTURE.md.
NEW_DOC = "tools/relayout_architecture.md"
DOC = "docs/ARCHITECTURE.md"

# Prose that lists the old layout, redrawn for the new one: {path: ((pattern, replacement), ...)},
# applied after the names are rewritten; each pattern must match once.
NEW_README_LAYOUT = """desktop_mt/base/     errors, user folders, atomic files, the version, UTF-8 streams, package data
desktop_mt/engine/   model format, ORT sessions (runtime.py is the only onnxruntime import),
                     tokenizer, generation, segmentation, Translator; pasted.py: joining pasted lines
desktop_mt/batch/    txt / srt / docx ... jobs with journal and resume
desktop_mt/models/   model manager: catalog, downloads from the Hub or a mirror, installed models
desktop_mt/tm/       the translation memory (store, fuzzy search, TMX)
desktop_mt/ocr/      offline OCR of images (PP-OCRv4 on ONNX Runtime, numpy, Pillow): lines, boxes, paragraphs
desktop_mt/app/      settings, the translator factory, the interactive session, file jobs, history
desktop_mt/server/   desktop-mt serve: LibreTranslate, DeepL(X) and OpenAI-shaped local API
desktop_mt/cli/      the desktop-mt command (main.py) and its subcommands (models.py, show.py, ocr.py)
desktop_mt/gui/      PySide6 app: app.py, controller, ports and settings at its top; window/ (the main
                     window's parts, popup, tray), features/ (pasting, post-editing, replace, file
                     jobs...), dialogs/, workers/ (translation and download threads), platform/
                     (global hotkeys, key presses, screen capture, single instance)
"""
TEXT_FIXUPS: dict[str, tuple[tuple[str, str | None], ...]] = {
    # file names relative to desktop_mt/ or gui/, which no dotted name or desktop_mt/ path spells
    "desktop_mt/app/i18n.py": (
        (
            r'"cli\.py",\n    "cli_models\.py",\n    "cli_ocr\.py",\n    "cli_show\.py",\n    "gui_launch\.py",\n',
            '"cli/main.py",\n    "cli/models.py",\n    "cli/ocr.py",\n    "cli/show.py",\n    "cli/gui_launch.py",\n',
        ),
    ),
    ARCH_TEST: (
        (
            r'\("window", "window_chrome", "window_menus", "window_files"\)',
            '("window/main", "window/chrome", "window/menus", "window/files")',
        ),
        (r'\(GUI_DIR / "window\.py"\)', '(GUI_DIR / "window" / "main.py")'),
        (r'\(GUI_DIR / "worker\.py"\)', '(GUI_DIR / "workers" / "translation.py")'),
        (r"(?ms)^SIGNAL_SEAMS = \(\n.*?^\)\n", None),  # None: each gui module name -> its new path
    ),
    "README.md": (
        (
            r"(?ms)^desktop_mt/engine/   model format.*?^desktop_mt/cli/main\.py +the desktop-mt command[^\n]*\n",
            NEW_README_LAYOUT,
        ),
    ),
}


def _gui_paths(match: re.Match[str]) -> str:
    """A tuple of gui module names (``"worker"``) as paths relative to gui/ (``"workers/translation"``)."""
    return re.sub(
        r'"(\w+)"', lambda m: '"' + (GUI.get(m.group(1)) or m.group(1)).replace(".", "/") + '"', match.group(0)
    )


def fix_text(rel: str, text: str) -> str:
    for pattern, replacement in TEXT_FIXUPS.get(rel, ()):
        convert = _gui_paths if replacement is None else (lambda _m, r=replacement: r)
        text, count = re.subn(pattern, convert, text, count=1)
        if count != 1:
            raise LayoutError(f"tools/relayout.py: {rel} no longer has what {pattern!r} matches; fix TEXT_FIXUPS")
    return text


PATHS_HEADING, CHECK_HEADING = "## Three paths through it", "## Checking it"


def redraw_doc(rewritten: str) -> str:
    """docs/ARCHITECTURE.md in the new layout: the page drawn for it (``NEW_DOC``) up to its paths
    through the code and from "Checking it" on; between them, the paths and the concepts as the
    checkout has them (others may have added to them), with their names already rewritten."""
    drawn = (ROOT / NEW_DOC).read_text(encoding="utf-8")
    for heading in (PATHS_HEADING, CHECK_HEADING):
        if heading not in drawn or heading not in rewritten:
            raise LayoutError(f"tools/relayout.py: {DOC} or {NEW_DOC} lacks the heading {heading!r}")
    middle = rewritten[rewritten.index(PATHS_HEADING) : rewritten.index(CHECK_HEADING)]
    return drawn[: drawn.index(PATHS_HEADING)] + middle + drawn[drawn.index(CHECK_HEADING) :]


def scanned_files() -> Iterator[Path]:
    for name in SCAN_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name
    tracked = subprocess.run(["git", "ls-files", *SCAN_DIRS], cwd=ROOT, capture_output=True, text=True, check=True)
    for line in tracked.stdout.splitlines():
        path = ROOT / line
        if set(Path(line).parts) & SKIP_PARTS or path.suffix not in TEXT_SUFFIXES or not path.is_file():
            continue
        if path.resolve() == Path(__file__).resolve() or line == NEW_DOC:
            continue  # this script names the old layout on purpose; the new page the new one
        yield path


def old_of(rel: str, paths: dict[str, str]) -> str:
    """The path a file had before the move (``rel`` is its new path)."""
    return next((old for old, new in paths.items() if new == rel), rel)


def module_of(rel: str) -> tuple[str | None, bool]:
    """The dotted module of a .py path under desktop_mt, and whether it is a package's __init__."""
    if not (rel.startswith(PKG + "/") and rel.endswith(".py")):
        return None, False
    parts = rel[:-3].split("/")
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


# --- the run ------------------------------------------------------------------------------------


def counts() -> tuple[int, dict[str, int]]:
    """Top-level modules of desktop_mt, and gui modules per folder."""
    top = len([p for p in (ROOT / PKG).glob("*.py")])
    per_folder: dict[str, int] = {}
    for path in (ROOT / PKG / "gui").rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        folder = path.parent.relative_to(ROOT / PKG / "gui").as_posix()
        per_folder[folder] = per_folder.get(folder, 0) + 1
    return top, dict(sorted(per_folder.items()))


def run(check_only: bool) -> None:
    module_moves = moves()
    print(f"relayout: {len(module_moves)} modules move")
    if check_only:
        return
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = {line[3:].split(" -> ")[-1] for line in status.splitlines()}
    in_package = sorted(d for d in dirty if d.startswith(PKG + "/"))
    if in_package:
        raise LayoutError(
            "tools/relayout.py: desktop_mt/ has uncommitted changes; commit them first:\n" + "\n".join(in_package)
        )
    before = counts()
    rewriter = Rewriter(module_moves)
    paths = file_moves(module_moves)
    moved_dirs = dir_moves(module_moves)
    new_texts: dict[str, str] = {}
    for path in scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        old_module, is_package = module_of(rel)
        new_rel = paths.get(rel, rel)
        new_module, _ = module_of(new_rel)
        new = rewriter.rewrite(text, old_module, new_module, is_package, path.suffix == ".py" or path.suffix == ".spec")
        if rel == ARCH_TEST:
            new = fix_architecture_test(new)
        new = fix_text(rel, new)
        if new != text or rel in paths:
            new_texts[new_rel] = new
    created: list[str] = []
    touched = sorted(dirty & ({old for old, new in paths.items()} | {old_of(rel, paths) for rel in new_texts}))
    if touched:  # their uncommitted work would go into the layout's commit
        raise LayoutError("tools/relayout.py: files it rewrites have uncommitted changes:\n" + "\n".join(touched))
    for package, doc in NEW_PACKAGES.items():
        init = ROOT / PKG / package.replace(".", "/") / "__init__.py"
        created.append(init.relative_to(ROOT).as_posix())
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}\n"""\n', encoding="utf-8")
            subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)
    for old, new in sorted(moved_dirs.items()):
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    for old, new in sorted(paths.items()):
        if any(old.startswith(d + "/") for d in moved_dirs):
            continue  # moved with its folder
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    for rel, text in new_texts.items():
        (ROOT / rel).write_text(text, encoding="utf-8")
    if (ROOT / NEW_DOC).exists():
        (ROOT / DOC).write_text(redraw_doc((ROOT / DOC).read_text(encoding="utf-8")), encoding="utf-8")
        subprocess.run(["git", "rm", "-q", NEW_DOC], cwd=ROOT, check=True)
    changed = [rel for rel in new_texts if rel.endswith(".py")] + created
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff and changed:
        subprocess.run([ruff, "check", "--fix", "--select", "I", "--quiet", *changed], cwd=ROOT, check=False)
        subprocess.run([ruff, "format", "--quiet", *changed], cwd=ROOT, check=False)
    after = counts()
    print(f"relayout: rewrote {len(new_texts)} files")
    print(f"relayout: top-level modules of desktop_mt: {before[0]} -> {after[0]}")
    print(f"relayout: gui modules per folder, before: {before[1]}")
    print(f"relayout: gui modules per folder, after:  {after[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the mapping covers every module")
    run(parser.parse_args().check)


if __name__ == "__main__":
    main()
