"""The package's version: one source, read by pyproject (``[tool.setuptools.dynamic]``) without
importing the package, re-exported as ``desktop_mt.__version__``, and imported from here by the
modules below the package face (the TMX header, the model downloads' user agent)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
