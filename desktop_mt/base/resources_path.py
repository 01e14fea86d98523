"""Where the package's own data lives: the bundled model, the icons and the stylesheet.

Everything ships as package data under ``desktop_mt/resources/`` and is found through
:mod:`importlib.resources`, so one lookup serves every way the app runs: a source checkout,
``pip install`` (wheel or sdist), and the PyInstaller bundle, whose frozen importer answers
``files("desktop_mt")`` with ``sys._MEIPASS/desktop_mt`` (the spec puts the data there).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import ModelNotFoundError

__all__ = [
    "resource_path",
]

_PACKAGE = "desktop_mt"
_FOLDER = "resources"


def _resources_dir() -> Path:
    """``desktop_mt/resources/`` as a real folder (subfolders ``models``, ``icons``, ``styles``).

    onnxruntime and SentencePiece open files by path, so a package imported from a zip archive
    (where the data has no path of its own) is refused with the fix rather than extracted.
    """
    root = resources.files(_PACKAGE) / _FOLDER
    if not isinstance(root, Path):
        raise ModelNotFoundError(
            f"desktop_mt's data ({root}) is inside an archive, not a folder; "
            "install desktop-mt unzipped (pip install desktop-mt) or pass --model DIR"
        )
    return root


def resource_path(*parts: str) -> Path:
    """A file or folder under :func:`_resources_dir`, e.g. ``resource_path("icons", "desktop-mt.svg")``.

    The path may not exist (callers fall back, e.g. to Qt's default look); it is not checked here.
    """
    return _resources_dir().joinpath(*parts)
