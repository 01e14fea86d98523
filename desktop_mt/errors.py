"""The error hierarchy of desktop-mt. Every message names the file involved and the fix."""

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


class TranslationCancelled(DesktopMTError):
    """Raised by :meth:`Translator.translate` when its cancel flag was set."""
