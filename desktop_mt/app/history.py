"""The translation history: finished translations kept in SQLite (stdlib ``sqlite3``, WAL mode).

No Qt here; the GUI's History dialog and the controller use it. The database is
``history.sqlite3`` in the user's data folder (:func:`desktop_mt.base.paths.data_dir`). It keeps the
newest ``limit`` entries (10,000 by default). A database that cannot be read is moved aside
(renamed ``history.corrupt-<time>.sqlite3``) and a fresh one is created; :attr:`History.recovered`
names the moved file so the caller can tell the user. Nothing here logs the user's text.

Post-editing (issue 28): an entry's ``translation`` is the *final* text, what the user ended
with; when the user edited the machine's translation, ``machine`` keeps the machine's text (for
comparison) and ``edited`` when the last edit was made. ``machine`` is NULL when the final text
is the machine's. A database written before these columns existed (schema 1) is migrated in
place when opened (``ALTER TABLE ... ADD COLUMN``; every old entry reads as not edited);
``PRAGMA user_version`` records the schema (:data:`_SCHEMA_VERSION`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import logging
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..base import paths

__all__ = [
    "Entry",
    "history_path",
    "History",
    "compare",
]

_T = TypeVar("_T")

_logger = logging.getLogger(__name__)

_HISTORY_FILE = "history.sqlite3"
_DEFAULT_LIMIT = 10_000
_SCHEMA_VERSION = 2  # 1: id, source, translation, model, time; 2: + machine, edited
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    translation TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    time REAL NOT NULL,
    machine TEXT,
    edited REAL
)"""
# Columns added after schema 1, with their SQL types (added to an older database on open).
_ADDED_COLUMNS = (("machine", "TEXT"), ("edited", "REAL"))
_SELECT = "SELECT id, source, translation, model, time, machine, edited FROM entries"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One finished translation; ``time`` is seconds since the epoch.

    ``translation`` is the final text (what the user ended with). ``machine`` is the machine's
    translation when the user edited it, None when the final text is the machine's; ``edited``
    is when it was last edited (seconds since the epoch), None when never."""

    id: int
    source: str
    translation: str
    model: str
    time: float
    machine: str | None = None
    edited: float | None = None

    @property
    def machine_text(self) -> str:
        """The machine's translation (the final text when the user did not edit it)."""
        return self.translation if self.machine is None else self.machine

    @property
    def is_edited(self) -> bool:
        """Whether the final text differs from the machine's."""
        return self.machine is not None and self.machine != self.translation


def history_path() -> Path:
    """The history database in the (possibly redirected) data folder."""
    return paths.data_dir() / _HISTORY_FILE


def _like_pattern(query: str) -> str:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class History:
    """The history database. Every method may raise ``sqlite3.Error`` only when the disk
    itself fails; a corrupt file found while opening (or later) is moved aside and replaced."""

    def __init__(self, path: Path | None = None, limit: int = _DEFAULT_LIMIT) -> None:
        self.path = Path(path) if path is not None else history_path()
        self.limit = max(1, int(limit))
        self.recovered: Path | None = None  # where a corrupt database was moved, if one was
        self._conn: sqlite3.Connection | None = None
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._recover(exc)

    # ---- opening and recovery -----------------------------------------------------------
    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=5)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            check = conn.execute("PRAGMA quick_check").fetchone()
            if not check or check[0] != "ok":
                raise sqlite3.DatabaseError("quick_check failed")
            conn.execute(_SCHEMA)
            _migrate(conn)
            conn.execute("CREATE INDEX IF NOT EXISTS entries_time ON entries(time)")
            conn.commit()
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _recover(self, exc: BaseException) -> None:
        """Move the unreadable database (and its WAL files) aside and start a fresh one."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}{self.path.suffix}")
        n = 1
        while backup.exists():
            backup = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}-{n}{self.path.suffix}")
            n += 1
        if self.path.exists():
            os.replace(self.path, backup)
        for suffix in ("-wal", "-shm"):
            extra = Path(str(self.path) + suffix)
            if extra.exists():
                os.replace(extra, Path(str(backup) + suffix))
        _logger.warning("history database unreadable (%s); moved aside as %s", type(exc).__name__, backup.name)
        self.recovered = backup
        self._open()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise sqlite3.ProgrammingError("the history database is closed")
        return self._conn

    def _run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``fn(conn)``; a database that turns out corrupt is recovered and ``fn`` retried."""
        try:
            return fn(self._connection())
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.ProgrammingError) or (
                isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)
            ):
                raise
            self._recover(exc)
            return fn(self._connection())

    # ---- entries ------------------------------------------------------------------------
    def add(
        self,
        source: str,
        translation: str,
        model: str = "",
        when: float | None = None,
        *,
        machine_text: str | None = None,
    ) -> int:
        """Keep one finished translation and return its id; the oldest entries past ``limit``
        are dropped.

        ``translation`` is the final text (what the user ended with). ``machine_text`` is the
        machine's translation when the user edited it; None (or the same text) means the final
        text is the machine's, and the entry is not marked edited."""
        when = time.time() if when is None else when
        machine = machine_text if machine_text is not None and machine_text != translation else None
        edited = when if machine is not None else None

        def run(conn: sqlite3.Connection) -> int:
            with conn:
                cur = conn.execute(
                    "INSERT INTO entries (source, translation, model, time, machine, edited) VALUES (?, ?, ?, ?, ?, ?)",
                    (source, translation, model, when, machine, edited),
                )
                self._trim(conn)
                return int(cur.lastrowid or 0)

        return self._run(run)

    def set_translation(self, entry_id: int, translation: str) -> None:
        """Give an entry another *machine* translation (the user chose one of the model's
        alternatives for a sentence, or undid that choice): the final text becomes
        ``translation`` and the entry is no longer marked edited. For the user's own edit use
        :meth:`update_final`."""

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute(
                    "UPDATE entries SET translation = ?, machine = NULL, edited = NULL WHERE id = ?",
                    (translation, entry_id),
                )

        self._run(run)

    def update_final(
        self, entry_id: int, text: str, when: float | None = None, *, machine_text: str | None = None
    ) -> Entry | None:
        """The user edited the translation of entry ``entry_id``: its final text becomes
        ``text``. The machine's text is kept for comparison: ``machine_text`` when given, else
        the one the entry has (the first edit moves the entry's translation there; later edits
        keep it); ``edited`` becomes ``when`` (default now). An edit back to exactly the
        machine's text un-marks the entry. Returns the updated entry, None when there is no
        such entry (deleted, or trimmed past the limit)."""
        when = time.time() if when is None else when

        def run(conn: sqlite3.Connection) -> Entry | None:
            with conn:
                row = conn.execute("SELECT translation, machine FROM entries WHERE id = ?", (entry_id,)).fetchone()
                if row is None:
                    return None
                kept = row[1] if row[1] is not None else row[0]  # the machine's text the entry has
                machine = machine_text if machine_text is not None else kept
                if text == machine:
                    conn.execute(
                        "UPDATE entries SET translation = ?, machine = NULL, edited = NULL WHERE id = ?",
                        (text, entry_id),
                    )
                else:
                    conn.execute(
                        "UPDATE entries SET translation = ?, machine = ?, edited = ? WHERE id = ?",
                        (text, machine, when, entry_id),
                    )
                found = conn.execute(f"{_SELECT} WHERE id = ?", (entry_id,)).fetchone()
            return _entry(found) if found else None

        return self._run(run)

    def _trim(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT id FROM entries ORDER BY id DESC LIMIT 1 OFFSET ?", (self.limit,)).fetchone()
        if row is not None:
            conn.execute("DELETE FROM entries WHERE id <= ?", (row[0],))

    def set_limit(self, limit: int) -> None:
        """Keep at most ``limit`` entries from now on (older ones go at once)."""
        self.limit = max(1, int(limit))

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                self._trim(conn)

        self._run(run)

    def search(self, query: str = "", limit: int | None = None) -> list[Entry]:
        """Entries whose source or translation contains ``query`` (case-insensitive for
        ASCII letters; "" matches all), newest first."""
        sql = _SELECT
        args: list[Any] = []
        if query:
            sql += " WHERE source LIKE ? ESCAPE '\\' OR translation LIKE ? ESCAPE '\\'"
            args += [_like_pattern(query)] * 2
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        rows = self._run(lambda conn: conn.execute(sql, args).fetchall())
        return [_entry(row) for row in rows]

    def get(self, entry_id: int) -> Entry | None:
        """One entry by id (None when it was deleted)."""
        row = self._run(lambda conn: conn.execute(f"{_SELECT} WHERE id = ?", (entry_id,)).fetchone())
        return _entry(row) if row else None

    def delete(self, entry_id: int) -> None:
        """Forget one entry."""

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,))

        self._run(run)

    def clear(self) -> None:
        """Forget every entry (and give the space back)."""

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("DELETE FROM entries")
            conn.execute("VACUUM")

        self._run(run)

    def count(self) -> int:
        """How many entries are kept."""
        return int(self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]))

    def close(self) -> None:
        """Close the database (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# Comparison tokens: a Han (or kana/Hangul) character each, a word, a run of spaces, a mark.
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|\w+|\s+|[^\w\s]")


def compare(machine: str, final: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where the user's text differs from the machine's: character ranges ``(start, end)`` of
    ``machine`` the user removed or replaced, and of ``final`` the user typed. Compared by
    words (English) and by characters (Chinese), with ``difflib``; adjacent ranges are joined."""
    a = [(m.start(), m.end()) for m in _TOKEN.finditer(machine)]
    b = [(m.start(), m.end()) for m in _TOKEN.finditer(final)]
    matcher = difflib.SequenceMatcher(None, [machine[i:j] for i, j in a], [final[i:j] for i, j in b], autojunk=False)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            _join(removed, (a[i1][0], a[i2 - 1][1]))
        if j2 > j1:
            _join(added, (b[j1][0], b[j2 - 1][1]))
    return removed, added


def _join(ranges: list[tuple[int, int]], new: tuple[int, int]) -> None:
    if ranges and ranges[-1][1] >= new[0]:
        ranges[-1] = (ranges[-1][0], max(ranges[-1][1], new[1]))
    else:
        ranges.append(new)


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring a database written by an older version up to :data:`_SCHEMA_VERSION`: add the
    columns it lacks (old entries read as not edited)."""
    have = {str(row[1]) for row in conn.execute("PRAGMA table_info(entries)")}
    for name, sql_type in _ADDED_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE entries ADD COLUMN {name} {sql_type}")
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) < _SCHEMA_VERSION:
        conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")


def _entry(row: tuple[Any, ...]) -> Entry:
    entry_id, source, translation, model, when, machine, edited = row
    return Entry(
        int(entry_id),
        str(source),
        str(translation),
        str(model),
        float(when),
        None if machine is None else str(machine),
        None if edited is None else float(edited),
    )
