"""The error hierarchy of desktop-mt. Every message names the file involved and the fix.

Every exception class of desktop_mt derives from :class:`DesktopMTError` (a class that callers
also catch as ``ValueError``, ``PermissionError``... keeps that built-in as its second base), so
``except DesktopMTError`` is the one way to catch what desktop-mt raises on purpose.
:class:`TranslationCancelled` is the exception: a cancelled translation is not an error, and a
plain ``except DesktopMTError`` must never swallow it (``tests/test_architecture.py`` holds both).
"""

from __future__ import annotations


class DesktopMTError(Exception):
    """Base class of every error desktop-mt raises on purpose."""


class ModelNotFoundError(DesktopMTError):
    """A model directory, or a file it must contain, does not exist."""


class ModelFormatError(DesktopMTError):
    """A model file exists but cannot be used: corrupt, truncated, wrong layout or version."""


class UnsupportedModelError(ModelFormatError):
    """The model's architecture is not one the engine (or exporter) supports."""


class ProviderUnavailableError(DesktopMTError):
    """An execution provider was asked for but the installed onnxruntime does not offer it."""


class TranslationCancelled(Exception):
    """Raised by :meth:`Translator.translate` when its cancel flag was set. Outside the
    :class:`DesktopMTError` tree on purpose: the caller asked for it, it is not a failure."""


class ModelDownloadError(DesktopMTError):
    """A model could not be downloaded or installed; nothing half-installed was left behind."""


class HubUnreachableError(ModelDownloadError):
    """The Hub (or the mirror set as endpoint) could not be reached; the message names it."""


class DownloadVerificationError(ModelDownloadError):
    """A downloaded file's size or sha256 differs from the Hub's metadata (corrupt or tampered)."""


class NotEnoughSpaceError(ModelDownloadError):
    """The models folder's disk has too little free space for the download."""


class DownloadCancelled(ModelDownloadError):
    """The download was cancelled; finished and partial files stay staged so a rerun resumes."""
