"""The model manager: a catalog of downloadable models, downloads from the Hub or a mirror, and the
user's installed models (no Qt, no onnxruntime: the CLI and the GUI both drive it).

```python
from desktop_mt.models import (load_catalog, catalog_entry, download_model, DownloadProgress,
                               list_installed, installed, resolve_model)
```

Which model is active per direction and the Hub mirror are the application's settings:
``desktop_mt.app.settings`` (``get_active``, ``set_active``, ``active_model_dir``,
``active_models``, ``remove_model``, ``get_endpoint_setting``, ``set_endpoint_setting``,
``resolve_endpoint``).
"""

from .catalog import CatalogEntry, VariantSpec, catalog_entry, load_catalog
from .download import DownloadProgress, DownloadStalledError, download_model, plan_files
from .installed import (
    DEFAULT_ENDPOINT,
    MIRROR_HINT,
    InstalledModel,
    installed,
    list_installed,
    models_dir,
    resolve_model,
)

__all__ = [
    "CatalogEntry",
    "VariantSpec",
    "catalog_entry",
    "load_catalog",
    "DownloadProgress",
    "DownloadStalledError",
    "download_model",
    "plan_files",
    "DEFAULT_ENDPOINT",
    "MIRROR_HINT",
    "InstalledModel",
    "installed",
    "list_installed",
    "models_dir",
    "resolve_model",
]
