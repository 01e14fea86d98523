"""The progress journal: what an interrupted run has already translated.

An append-only JSON Lines file next to the output (``<output>.journal.jsonl``):

- line 1, the header: ``{"journal": "desktop-mt", "version": 1, "key": ..., "segments": N}``.
  ``key`` hashes the input file's bytes, the format and every option that changes the output
  (model, variant, decoding options), so a journal of a changed input or of other options is
  never used: the run starts over instead.
- then one line per translated chunk: ``{"done": [[id, source_hash, translation], ...]}``,
  written in one ``write`` call, flushed and fsynced before the next chunk starts, so after a
  crash or power loss the file holds every finished chunk, plus at most one torn last line.

Reading tolerates a torn (or otherwise unreadable) line by skipping it; entries whose source
hash does not match are dropped and simply translated again. On resume the recovered entries
are rewritten into a fresh journal (temp file + rename) before appending, so a torn fragment
never gets glued to a new line.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Mapping, Sequence

MAGIC = "desktop-mt"
VERSION = 1


def journal_path(output: Path) -> Path:
    """Where the journal of ``output`` lives (same folder, so rename and fsync stay local)."""
    return output.with_name(output.name + ".journal.jsonl")


def source_hash(text: str) -> str:
    """A short hash of a segment's source text, checked again on resume."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_journal(path: Path, key: str, sources: Sequence[str]) -> dict[int, str]:
    """Translations recorded in ``path`` for this key: ``{segment id: translation}``.

    Returns ``{}`` when there is no journal, it is not ours, or its key differs.
    ``sources`` are the distinct segment texts, to check each entry's source hash.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    lines = raw.split(b"\n")
    header = _parse(lines[0])
    if not isinstance(header, dict) or header.get("journal") != MAGIC \
            or header.get("version") != VERSION or header.get("key") != key:
        return {}
    done: dict[int, str] = {}
    for line in lines[1:]:
        entry = _parse(line)
        if not isinstance(entry, dict) or not isinstance(entry.get("done"), list):
            continue  # a torn last line (or damage): those segments are translated again
        for item in entry["done"]:
            if _valid_item(item, sources):
                done[item[0]] = item[2]
    return done


def _parse(line: bytes):
    try:
        return json.loads(line.decode("utf-8")) if line.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _valid_item(item, sources: Sequence[str]) -> bool:
    return (isinstance(item, list) and len(item) == 3 and isinstance(item[0], int)
            and 0 <= item[0] < len(sources) and isinstance(item[2], str)
            and item[1] == source_hash(sources[item[0]]))


class Journal:
    """An open journal: ``append`` one chunk at a time; ``remove`` once the output is in place."""

    def __init__(self, path: Path, key: str, sources: Sequence[str],
                 done: Mapping[int, str] | None = None) -> None:
        """Start the journal at ``path`` afresh, holding ``done`` (recovered entries) if any."""
        self.path = path
        self._sources = sources
        header = {"journal": MAGIC, "version": VERSION, "key": key, "segments": len(sources)}
        body = json.dumps(header) + "\n"
        if done:
            body += self._line(done)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
        self._file = open(path, "a", encoding="utf-8", newline="\n")

    def _line(self, items: Mapping[int, str]) -> str:
        done = [[i, source_hash(self._sources[i]), t] for i, t in items.items()]
        return json.dumps({"done": done}, ensure_ascii=False) + "\n"

    def append(self, items: Mapping[int, str]) -> None:
        """Record one chunk durably (one write, flush, fsync)."""
        if not items:
            return
        self._file.write(self._line(items))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file, leaving it on disk (for a later resume)."""
        if not self._file.closed:
            self._file.close()

    def remove(self) -> None:
        """Close and delete the journal (the output is complete)."""
        self.close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def fsync_dir(folder: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
