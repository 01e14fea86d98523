"""The translation memory (issue 28): sentence pairs the user edited or approved, per direction.

- :class:`TranslationMemory` (``store``): SQLite; exact and fuzzy (rapidfuzz) lookup, search,
  edit and delete for the dialog.
- ``tmx``: TMX 1.4b import and export with translate-toolkit.
- ``apply``: :class:`MemoryTranslator`, a batch translator whose exact matches never reach the model.
- ``incremental``: which sentences of an edited source must be translated again.

rapidfuzz and translate-toolkit are the ``tm`` extra; they are imported where used.
"""

from .store import (
    APPROVED,
    BOTH,
    EDITED,
    FIELDS,
    FUZZY_THRESHOLD,
    IMPORTED,
    SOURCE,
    TARGET,
    Entry,
    Match,
    TranslationMemory,
    format_tmx_date,
    match_key,
    memory_path,
)

__all__ = [
    "APPROVED",
    "BOTH",
    "EDITED",
    "FIELDS",
    "FUZZY_THRESHOLD",
    "IMPORTED",
    "SOURCE",
    "TARGET",
    "Entry",
    "Match",
    "TranslationMemory",
    "format_tmx_date",
    "match_key",
    "memory_path",
]
