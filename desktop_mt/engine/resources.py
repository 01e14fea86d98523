"""The package's data lookup, kept here for the importers that have not switched yet.

It lives in :mod:`desktop_mt.resources_path` (below the engine: the GUI's icons and stylesheet,
the model catalog and OCR's models are no engine work). Import from there; this module goes
once nothing imports it (issue 25).
"""

from __future__ import annotations

from ..resources_path import FOLDER, PACKAGE, resource_path, resources_dir

__all__ = ["FOLDER", "PACKAGE", "resource_path", "resources_dir"]
