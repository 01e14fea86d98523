"""The error hierarchy of desktop-mt. Every message names the file involved and the fix.

Every exception class of desktop_mt derives from :class:`DesktopMTError` (a class that callers
also catch as ``ValueError``, ``PermissionError``... keeps that built-in as its second base), so
``except DesktopMTError`` is the one way to catch what desktop-mt raises on purpose.
A cancellation is the exception: the user asked for it, it is not an error, and a plain
``except DesktopMTError`` must never swallow it. :class:`Cancelled` is the root of the
cancellations (:class:`TranslationCancelled`, :class:`DownloadCancelled`), beside the error
tree (``tests/test_architecture.py`` holds both).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeVar

__all__ = [
    "N_",
    "Phrase",
    "WordedText",
    "DesktopMTError",
    "ModelNotFoundError",
    "ModelFormatError",
    "UnsupportedModelError",
    "ProviderUnavailableError",
    "Cancelled",
    "TranslationCancelled",
    "ModelDownloadError",
    "HubUnreachableError",
    "DownloadVerificationError",
    "NotEnoughSpaceError",
    "DownloadCancelled",
]

_E = TypeVar("_E", bound="DesktopMTError")


def N_(message: str) -> str:  # noqa: N802 - gettext's conventional name (the catalog's scan finds it)
    """Mark ``message`` for the interface's catalog (``desktop_mt.po``) without translating it:
    the lower layers word their errors in English; the front ends translate them
    (:func:`desktop_mt.app.i18n.describe`)."""
    return message


class Phrase(str):
    """A field of an error's template that is itself a marked message (a fix, a language name):
    translated along with the template; other fields (paths, numbers, the OS's words) are not."""


class WordedText(str):
    """An English message that is not an exception (a warning read from the settings) with its
    translatable template and fields, as :meth:`DesktopMTError.worded` gives an error: it reads
    as ``template.format(**fields)``; :func:`desktop_mt.app.i18n.describe` translates it. As a
    field of another template it is translated too."""

    template: str
    fields: Mapping[str, object]

    def __new__(cls, template: str, /, **fields: object) -> WordedText:
        text = super().__new__(cls, template.format(**fields))
        text.template, text.fields = template, dict(fields)
        return text


class DesktopMTError(Exception):
    """Base class of every error desktop-mt raises on purpose.

    ``str(exc)`` is the English message. An error that a user commonly meets also carries its
    message as ``template`` (English with ``{name}`` fields, marked with :func:`N_`) and
    ``fields``, set with :meth:`worded`, so a front end can say it in the interface's language
    with the same file names and fix; ``template`` is None for the others.
    """

    template: str | None = None
    fields: Mapping[str, object] = MappingProxyType({})

    def worded(self: _E, template: str, **fields: object) -> _E:
        """Attach the translatable form of this error's message (``template.format(**fields)``
        reads as ``str(self)``); returns the error, for ``raise Error(...).worded(...)``."""
        self.template, self.fields = template, dict(fields)
        return self

    @classmethod
    def of(cls: type[_E], template: str, /, **fields: object) -> _E:
        """An error whose message is ``template`` filled with ``fields``, translatable (see
        :meth:`worded`)."""
        return cls(template.format(**fields)).worded(template, **fields)


class ModelNotFoundError(DesktopMTError):
    """A model directory, or a file it must contain, does not exist."""


class ModelFormatError(DesktopMTError):
    """A model file exists but cannot be used: corrupt, truncated, wrong layout or version."""


class UnsupportedModelError(ModelFormatError):
    """The model's architecture is not one the engine (or exporter) supports."""


class ProviderUnavailableError(DesktopMTError):
    """An execution provider was asked for but the installed onnxruntime does not offer it."""


class Cancelled(Exception):
    """Something stopped because the user (or the program quitting) asked it to. Outside the
    :class:`DesktopMTError` tree on purpose: it is not a failure, and an error handler's
    ``except DesktopMTError`` lets it through to the code that asked for it."""


class TranslationCancelled(Cancelled):
    """Raised by :meth:`Translator.translate` when its cancel flag was set."""


class ModelDownloadError(DesktopMTError):
    """A model could not be downloaded or installed; nothing half-installed was left behind."""


class HubUnreachableError(ModelDownloadError):
    """The Hub (or the mirror set as endpoint) could not be reached; the message names it."""


class DownloadVerificationError(ModelDownloadError):
    """A downloaded file's size or sha256 differs from the Hub's metadata (corrupt or tampered)."""


class NotEnoughSpaceError(ModelDownloadError):
    """The models folder's disk has too little free space for the download."""


class DownloadCancelled(Cancelled):
    """A model download was cancelled (its cancel flag set); finished and partial files stay
    staged so a rerun resumes. Not a :class:`ModelDownloadError`: nothing failed."""
