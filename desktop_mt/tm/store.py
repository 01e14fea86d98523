"""The translation memory: sentence pairs the user edited or approved, per direction, in SQLite.

One database (``tm.sqlite3`` in the user's data folder, :func:`memory_path`) holds both
directions (``"en-zh"``, ``"zh-en"``: ``engine.direction``). A source sentence may have several
entries (a CAT tool's memory often has; an import keeps every unit): an exact match gives the
most recently changed one. Exact matching compares a normalised key (NFKC, runs of whitespace
as one space, trimmed; case kept, as CAT tools do). Fuzzy matching is rapidfuzz's
``fuzz.ratio`` (normalised Indel similarity, 0-100) over the keys of one direction, from 75 up
by default. Dates are TMX's ``YYYYMMDDTHHMMSSZ`` (UTC). Nothing here logs the user's text.
"""

from __future__ import annotations

import calendar
import dataclasses
import json
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..base import paths
from ..engine.direction import DIRECTIONS, EN, ZH
from .fuzzy import FuzzyIndex

__all__ = [
    "FUZZY_THRESHOLD",
    "EDITED",
    "APPROVED",
    "IMPORTED",
    "ORIGINS",
    "SOURCE",
    "TARGET",
    "BOTH",
    "FIELDS",
    "DEFAULT_LANGS",
    "Entry",
    "Match",
    "memory_path",
    "match_key",
    "tmx_now",
    "format_tmx_date",
    "check_direction",
    "TranslationMemory",
]

_MEMORY_FILE = "tm.sqlite3"
FUZZY_THRESHOLD = 75.0
# How an entry got into the memory: the user changed the machine's sentence, accepted it as
# it was, or it came from a TMX file.
EDITED, APPROVED, IMPORTED = "edited", "approved", "imported"
ORIGINS = (EDITED, APPROVED, IMPORTED)
# What a search looks in.
SOURCE, TARGET, BOTH = "source", "target", "both"
FIELDS = (BOTH, SOURCE, TARGET)
DEFAULT_LANGS = {EN: "en-US", ZH: "zh-CN"}  # the language tags written for the memory's own entries

_SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    direction TEXT NOT NULL,
    key TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    origin TEXT NOT NULL,
    machine TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    props TEXT NOT NULL DEFAULT '[]',
    creator TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    changed TEXT NOT NULL,
    source_lang TEXT NOT NULL DEFAULT '',
    target_lang TEXT NOT NULL DEFAULT '',
    source_seg TEXT,
    target_seg TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
)"""
_COLUMNS = (
    "id, direction, source, target, origin, machine, note, props, creator, created, changed, "
    "source_lang, target_lang, source_seg, target_seg, extra"
)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One sentence pair. ``source``/``target`` are plain text (what is matched and used);
    ``source_seg``/``target_seg`` keep a TMX segment's inner XML where it had inline tags
    (``<ph>``, ``<bpt>``...), so an export gives them back. ``machine``: the machine translation
    the user replaced (for comparison). ``props``: TMX ``<prop>`` (type, value) pairs;
    ``extra``: the unit's other TMX attributes (tuid, usagecount...). Dates in TMX form."""

    id: int
    direction: str
    source: str
    target: str
    origin: str
    machine: str = ""
    note: str = ""
    props: tuple[tuple[str, str], ...] = ()
    creator: str = ""
    created: str = ""
    changed: str = ""
    source_lang: str = ""
    target_lang: str = ""
    source_seg: str | None = None
    target_seg: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


@dataclasses.dataclass(frozen=True)
class Match:
    """A memory entry found for a sentence: ``score`` 100 for an exact match, else rapidfuzz's."""

    entry: Entry
    score: float

    @property
    def exact(self) -> bool:
        return self.score >= 100.0


def memory_path() -> Path:
    """The memory database in the (possibly redirected) data folder."""
    return paths.data_dir() / _MEMORY_FILE


def match_key(text: str) -> str:
    """What exact matching compares: NFKC, whitespace runs as one space, trimmed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def tmx_now() -> str:
    """Now in TMX's date form, ``YYYYMMDDTHHMMSSZ`` (UTC)."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def format_tmx_date(value: str) -> str:
    """A TMX date (``YYYYMMDDTHHMMSSZ``, UTC) as local ``YYYY-MM-DD HH:MM`` for display; a
    value in another form is given back as it is ("" stays "")."""
    try:
        parsed = time.strptime(value, "%Y%m%dT%H%M%SZ")
    except ValueError:
        return value
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(calendar.timegm(parsed)))


def _field_columns(field: str) -> tuple[str, ...]:
    if field not in FIELDS:
        raise ValueError(f"field must be one of {', '.join(FIELDS)}, not {field!r}")
    return ("source", "target") if field == BOTH else (field,)


def check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    return direction


class TranslationMemory:
    """The memory database; safe to share between threads (one connection behind a lock).

    ``path`` None is :func:`memory_path`; ``":memory:"`` keeps it in memory (tests)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path not in (None, ":memory:") else (None if path else memory_path())
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(str(self.path) if self.path else ":memory:", timeout=5, check_same_thread=False)
        with self._conn:
            if self.path is not None:
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
            self._conn.execute("CREATE INDEX IF NOT EXISTS units_key ON units(direction, key)")
        self._index = FuzzyIndex(self._direction_rows, self._lock, match_key)  # the fuzzy searches

    # ---- writing --------------------------------------------------------------------------
    def add(
        self, source: str, target: str, direction: str, origin: str = EDITED, machine: str = "", note: str = ""
    ) -> Entry:
        """Keep what the user made of a sentence. The newest entry with the same source (exact
        key) in this direction is updated (its creation date kept); otherwise a new one is made.
        An unapproved edit (``origin`` "edited") never replaces an approved or imported entry:
        that entry is returned unchanged (only an approval replaces it)."""
        check_direction(direction)
        if origin not in ORIGINS:
            raise ValueError(f"origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
        if not match_key(source) or not target.strip():
            raise ValueError("a memory entry needs a source sentence and a translation")
        existing = self.exact(source, direction)
        if existing is not None and origin == EDITED and existing.entry.origin != EDITED:
            return existing.entry  # an approved (or imported) entry is replaced only by an approval
        if existing is not None:
            return self.update(
                existing.entry.id, target=target, origin=origin, machine=machine or None, note=note or None
            )
        now, (src, tgt) = tmx_now(), direction.split("-")
        return self._insert(
            Entry(
                0,
                direction,
                source.strip(),
                target.strip(),
                origin,
                machine,
                note,
                created=now,
                changed=now,
                source_lang=DEFAULT_LANGS[src],
                target_lang=DEFAULT_LANGS[tgt],
            )
        )

    def _insert(self, entry: Entry) -> Entry:
        with self._lock, self._conn:
            entry_id = self._insert_row(entry)
        return dataclasses.replace(entry, id=entry_id)

    def _insert_row(self, entry: Entry) -> int:
        """INSERT one entry in the open transaction (the caller holds the lock)."""
        row = _row(entry)
        cur = self._conn.execute(
            f"INSERT INTO units ({_COLUMNS.replace('id, ', '', 1)}, key) VALUES ({', '.join('?' * (len(row) + 1))})",
            (*row, match_key(entry.source)),
        )
        self._forget(entry.direction)
        return int(cur.lastrowid or 0)

    def add_entries(self, entries: Iterable[Entry]) -> tuple[int, int]:
        """Insert entries as they are (an import), all or none (one transaction: an error
        half-way leaves the memory as it was); one that has the same direction, source key and
        target as an entry already kept (or earlier in ``entries``) is skipped. Returns
        (added, skipped)."""
        added = skipped = 0
        with self._lock:
            try:
                with self._conn:
                    for entry in entries:
                        check_direction(entry.direction)
                        if not match_key(entry.source) or not entry.target.strip():
                            raise ValueError("a memory entry needs a source sentence and a translation")
                        if any(m.entry.target == entry.target for m in self._exact_all(entry.source, entry.direction)):
                            skipped += 1
                            continue
                        self._insert_row(entry)
                        added += 1
            finally:
                self._forget(None)
        return added, skipped

    def update(
        self,
        entry_id: int,
        *,
        source: str | None = None,
        target: str | None = None,
        origin: str | None = None,
        machine: str | None = None,
        note: str | None = None,
    ) -> Entry:
        """Change an entry (the dialog's edit); its change date becomes now. A changed source or
        target drops the TMX inline markup kept for it (it no longer matches the text).
        KeyError when there is no such entry."""
        entry = self.get(entry_id)
        if entry is None:
            raise KeyError(entry_id)
        changes: dict[str, Any] = {"changed": tmx_now()}
        if source is not None and source.strip() != entry.source:
            if not match_key(source):
                raise ValueError("the source sentence cannot be empty")
            changes.update(source=source.strip(), source_seg=None)
        if target is not None and target.strip() != entry.target:
            if not target.strip():
                raise ValueError("the translation cannot be empty")
            changes.update(target=target.strip(), target_seg=None)
        changes.update({k: v for k, v in (("origin", origin), ("machine", machine), ("note", note)) if v is not None})
        new = dataclasses.replace(entry, **changes)
        row = _row(new)
        names = _COLUMNS.replace("id, ", "", 1).split(", ")
        with self._lock, self._conn:
            self._conn.execute(
                f"UPDATE units SET {', '.join(f'{n} = ?' for n in names)}, key = ? WHERE id = ?",
                (*row, match_key(new.source), entry_id),
            )
            self._forget(entry.direction)
        return new

    def delete(self, entry_id: int) -> bool:
        """Forget one entry; False when there was none."""
        with self._lock, self._conn:
            cur = self._conn.execute("DELETE FROM units WHERE id = ?", (entry_id,))
            self._forget(None)
        return cur.rowcount > 0

    def clear(self, direction: str | None = None) -> int:
        """Forget every entry (of one direction); returns how many went."""
        with self._lock, self._conn:
            if direction is None:
                cur = self._conn.execute("DELETE FROM units")
            else:
                cur = self._conn.execute("DELETE FROM units WHERE direction = ?", (check_direction(direction),))
            self._forget(None)
        return cur.rowcount

    # ---- reading --------------------------------------------------------------------------
    def get(self, entry_id: int) -> Entry | None:
        rows = self._select("WHERE id = ?", (entry_id,))
        return rows[0] if rows else None

    def exact(self, source: str, direction: str) -> Match | None:
        """The newest entry whose source is ``source`` (normalised, :func:`match_key`), or None."""
        found = self._exact_all(source, direction)
        return found[0] if found else None

    def confirmed(self, source: str, direction: str) -> Match | None:
        """The newest exact match that was approved or imported (not an unapproved edit), or None:
        the match a translation may take as it is."""
        found = [m for m in self._exact_all(source, direction) if m.entry.origin != EDITED]
        return found[0] if found else None

    def _exact_all(self, source: str, direction: str) -> list[Match]:
        rows = self._select(
            "WHERE direction = ? AND key = ? ORDER BY changed DESC, id DESC",
            (check_direction(direction), match_key(source)),
        )
        return [Match(row, 100.0) for row in rows]

    def fuzzy(self, source: str, direction: str, threshold: float = FUZZY_THRESHOLD, limit: int = 3) -> list[Match]:
        """Entries whose source is at least ``threshold`` % similar (rapidfuzz ``fuzz.ratio`` on
        the keys), best first; exact matches are left out (see :meth:`exact`)."""
        key = match_key(source)
        if not key:
            return []
        out: list[Match] = []
        for entry_id, score in self._index.matches(key, check_direction(direction), threshold, limit + 8):
            entry = self.get(entry_id)
            if entry is not None and match_key(entry.source) != key:
                out.append(Match(entry, score))
        out.sort(key=lambda m: (-m.score, m.entry.id))
        return out[:limit]

    def lookup(self, source: str, direction: str, threshold: float = FUZZY_THRESHOLD) -> Match | None:
        """The exact match, else the best fuzzy one (>= ``threshold``), else None."""
        exact = self.exact(source, direction)
        if exact is not None:
            return exact
        fuzzy = self.fuzzy(source, direction, threshold, limit=1)
        return fuzzy[0] if fuzzy else None

    def search(
        self,
        query: str = "",
        direction: str | None = None,
        limit: int | None = 500,
        offset: int = 0,
        field: str = BOTH,
    ) -> list[Entry]:
        """Entries whose source or target (``field``: :data:`BOTH`, :data:`SOURCE` or
        :data:`TARGET`) contains ``query`` (case-insensitive for ASCII; "" matches all), newest
        change first: the dialog's list."""
        columns = _field_columns(field)
        where: list[str] = []
        args: list[Any] = []
        if direction is not None:
            where.append("direction = ?")
            args.append(check_direction(direction))
        if query:
            pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append("(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")")
            args += [pattern] * len(columns)
        sql = ("WHERE " + " AND ".join(where) + " " if where else "") + "ORDER BY changed DESC, id DESC"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [int(limit), int(offset)]
        return self._select(sql, tuple(args))

    def search_fuzzy(
        self,
        query: str,
        direction: str,
        field: str = BOTH,
        threshold: float = FUZZY_THRESHOLD,
        limit: int | None = 500,
    ) -> list[Match]:
        """Entries of ``direction`` whose source or target (``field``) is like ``query``, best
        first: rapidfuzz's ``fuzz.partial_ratio`` (the best-aligned part of the text, so a
        word with a typo finds the sentences that hold it) on the normalised text, case
        folded, at least ``threshold``. The dialog's fuzzy search; "" finds nothing."""
        key = self._index.fold(query)
        if not key:
            return []
        scores = self._index.like(key, check_direction(direction), _field_columns(field), threshold)
        found = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))
        if limit is not None:
            found = found[:limit]
        out = []
        for entry_id, score in found:
            entry = self.get(entry_id)
            if entry is not None:
                out.append(Match(entry, score))
        return out

    def count(self, direction: str | None = None) -> int:
        with self._lock:
            if direction is None:
                row = self._conn.execute("SELECT COUNT(*) FROM units").fetchone()
            else:
                row = self._conn.execute(
                    "SELECT COUNT(*) FROM units WHERE direction = ?", (check_direction(direction),)
                ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> TranslationMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- rows -----------------------------------------------------------------------------
    def _forget(self, direction: str | None) -> None:
        """Drop the search caches (of one direction) after a write."""
        self._index.forget(direction)

    def _direction_rows(self, direction: str) -> list[tuple[int, str, str, str]]:
        """(id, key, source, target) of every entry of ``direction``: the fuzzy searches' choices."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, key, source, target FROM units WHERE direction = ?", (direction,)
            ).fetchall()
        return [(int(i), key, source, target) for i, key, source, target in rows]

    def _select(self, sql: str, args: Sequence[Any]) -> list[Entry]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM units {sql}", tuple(args)).fetchall()
        return [_entry(row) for row in rows]


def _entry(row: Sequence[Any]) -> Entry:
    (
        entry_id,
        direction,
        source,
        target,
        origin,
        machine,
        note,
        props,
        creator,
        created,
        changed,
        source_lang,
        target_lang,
        source_seg,
        target_seg,
        extra,
    ) = row
    return Entry(
        int(entry_id),
        direction,
        source,
        target,
        origin,
        machine,
        note,
        tuple((str(t), str(v)) for t, v in json.loads(props)),
        creator,
        created,
        changed,
        source_lang,
        target_lang,
        source_seg,
        target_seg,
        tuple((str(k), str(v)) for k, v in json.loads(extra).items()),
    )


def _row(e: Entry) -> tuple[Any, ...]:
    """An entry as the table's columns (without id and key)."""
    return (
        e.direction,
        e.source,
        e.target,
        e.origin,
        e.machine,
        e.note,
        json.dumps([list(p) for p in e.props], ensure_ascii=False),
        e.creator,
        e.created,
        e.changed,
        e.source_lang,
        e.target_lang,
        e.source_seg,
        e.target_seg,
        json.dumps(dict(e.extra), ensure_ascii=False),
    )
