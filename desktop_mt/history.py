"""The translation history: finished translations kept in SQLite (stdlib ``sqlite3``, WAL mode).

No Qt here; the GUI's History dialog and the controller use it. The database is
``history.sqlite3`` in the user's data folder (:func:`desktop_mt.paths.data_dir`). It keeps the
newest ``limit`` entries (10,000 by default). A database that cannot be read is moved aside
(renamed ``history.corrupt-<time>.sqlite3``) and a fresh one is created; :attr:`History.recovered`
names the moved file so the caller can tell the user. Nothing here logs the user's text.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sqlite3
import time
from pathlib import Path

from . import paths

log = logging.getLogger(__name__)

HISTORY_FILE = "history.sqlite3"
DEFAULT_LIMIT = 10_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    translation TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    time REAL NOT NULL
)"""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One finished translation; ``time`` is seconds since the epoch."""

    id: int
    source: str
    translation: str
    model: str
    time: float


def history_path() -> Path:
    """The history database in the (possibly redirected) data folder."""
    return paths.data_dir() / HISTORY_FILE


def _like_pattern(query: str) -> str:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class History:
    """The history database. Every method may raise ``sqlite3.Error`` only when the disk
    itself fails; a corrupt file found while opening (or later) is moved aside and replaced."""

    def __init__(self, path: Path | None = None, limit: int = DEFAULT_LIMIT) -> None:
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
        log.warning("history database unreadable (%s); moved aside as %s", type(exc).__name__, backup.name)
        self.recovered = backup
        self._open()

    def _run(self, fn):
        """Run ``fn(conn)``; a database that turns out corrupt is recovered and ``fn`` retried."""
        try:
            return fn(self._conn)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            self._recover(exc)
            return fn(self._conn)

    # ---- entries ------------------------------------------------------------------------
    def add(self, source: str, translation: str, model: str = "", when: float | None = None) -> int:
        """Keep one finished translation; the oldest entries past ``limit`` are dropped."""
        when = time.time() if when is None else when

        def run(conn: sqlite3.Connection) -> int:
            with conn:
                cur = conn.execute(
                    "INSERT INTO entries (source, translation, model, time) VALUES (?, ?, ?, ?)",
                    (source, translation, model, when),
                )
                self._trim(conn)
                return int(cur.lastrowid)

        return self._run(run)

    def set_translation(self, entry_id: int, translation: str) -> None:
        """Give an entry another translation (the user chose an alternative for a sentence)."""

        def run(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("UPDATE entries SET translation = ? WHERE id = ?", (translation, entry_id))

        self._run(run)

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
        sql = "SELECT id, source, translation, model, time FROM entries"
        args: list = []
        if query:
            sql += " WHERE source LIKE ? ESCAPE '\\' OR translation LIKE ? ESCAPE '\\'"
            args += [_like_pattern(query)] * 2
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        rows = self._run(lambda conn: conn.execute(sql, args).fetchall())
        return [Entry(*row) for row in rows]

    def get(self, entry_id: int) -> Entry | None:
        """One entry by id (None when it was deleted)."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT id, source, translation, model, time FROM entries WHERE id = ?", (entry_id,)
            ).fetchone()
        )
        return Entry(*row) if row else None

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
