"""Moved to :mod:`desktop_mt.app.factory`; removed once gui imports app.factory."""

from ..app.factory import build_translator, catalog_model_for, model_folders

__all__ = ["build_translator", "catalog_model_for", "model_folders"]
