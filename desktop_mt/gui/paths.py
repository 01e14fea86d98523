"""Where the app keeps its files: re-exported from :mod:`desktop_mt.base.paths` (shared with the CLI
and the model manager). GUI code calls ``paths.config_dir()`` etc. through this module, so tests
may monkeypatch these names here; ``DESKTOP_MT_HOME`` redirects both."""

from __future__ import annotations

from ..base.paths import APP_NAME, HOME_ENV, config_dir, data_dir, log_dir, user_models_dir

__all__ = ["APP_NAME", "HOME_ENV", "config_dir", "data_dir", "log_dir", "user_models_dir"]
