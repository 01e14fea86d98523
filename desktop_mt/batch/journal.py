"""The progress journal: what an interrupted run has already translated.

An append-only JSON Lines file next to the output (``<output>.journal.jsonl``):

- line 1, the header: ``{"journal": "desktop-mt", "version": 2, "key": ..., "input": ...,
  "settings": {...}, "segments": N}``. ``key`` hashes the input file's bytes (``input``, their
  sha256) and ``settings``: the format, the encoding, the model and variant, the decoding
  options and, for a model whose output depends on the batch (``batch_invariant`` False:
  dynamic int8), the batch size. A journal of a changed input or of other settings is never
  used: the run starts over instead, and :func:`read_journal` says which of them changed.
- then one line per translated chunk: ``{"done": [[id, source_hash, translation], ...]}``,
  written in one ``write`` call and fsynced before the next chunk starts, so after a crash or
  power loss the file holds every finished chunk, plus at most one torn last line (also what a
  full disk leaves).

Reading tolerates a torn (or otherwise unreadable) line by skipping it; entries whose source
hash does not match are dropped and simply translated again. On resume the recovered entries
are rewritten into a fresh journal (temp file + rename) before appending, so a torn fragment
never gets glued to a new line; if that rewrite fails (disk still full), the old journal stays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import FOLDER_ERRNOS, BatchOutputError
from .files import replace_file, write_all

__all__ = [
    "MAGIC",
    "VERSION",
    "JobKey",
    "Recovered",
    "ResumeReport",
    "journal_path",
    "read_journal",
    "Journal",
]

MAGIC = "desktop-mt"
VERSION = 2  # 2: the header also holds the input hash and the settings, to say what changed

# The settings a key holds, and how a change of each is described (in this order).
_SETTING_NAMES = (
    ("format", "the format"),
    ("encoding", "the input encoding"),
    ("model", "the model or its variant"),
    ("models", "the Chinese->English model"),
    ("memory", "the translation memory"),
    ("options", "the translation options"),
    ("batch_size", "the batch size"),
    ("layout", "the output layout"),
)


@dataclasses.dataclass(frozen=True)
class JobKey:
    """What a journal must match to be resumed: the input's bytes (their sha256) and the
    settings that change the output (``format``, ``encoding``, ``model``, ``options``,
    ``layout`` (bilingual, joined lines) when set and, only for a model whose output depends
    on the batch, ``batch_size``)."""

    input_sha256: str
    settings: Mapping[str, Any]

    @classmethod
    def make(cls, data: bytes, settings: Mapping[str, Any]) -> JobKey:
        """The key of a job on the input bytes ``data``; ``settings`` are stored as JSON."""
        normal = json.loads(json.dumps(settings, sort_keys=True, default=str))
        return cls(hashlib.sha256(data).hexdigest(), normal)

    @property
    def digest(self) -> str:
        """One hash of the whole key (the journal header's ``key``)."""
        meta = json.dumps(self.settings, sort_keys=True)
        return hashlib.sha256(f"{self.input_sha256}\0{meta}".encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class Recovered:
    """What :func:`read_journal` found: ``done`` ``{segment id: translation}``, and when the
    journal could not be used at all, ``problem``: why (naming the journal), else None."""

    done: dict[int, str]
    problem: str | None = None


@dataclasses.dataclass(frozen=True)
class ResumeReport:
    """What ``translate_file(..., resume=True)`` found, passed to its ``on_resume`` callback:
    either the journal matched (``resumed``) and ``recovered`` of ``total`` segments come from
    it, or ``problem`` says why the job starts over. ``str()`` is the message to show."""

    input: Path
    journal: Path
    total: int
    recovered: int
    problem: str | None = None

    @property
    def resumed(self) -> bool:
        """True when the journal belonged to this job (even if it held nothing usable)."""
        return self.problem is None

    def __str__(self) -> str:
        if self.problem is None:
            return (
                f"resuming {self.input}: {self.recovered} of {self.total} segments recovered "
                f"from {self.journal}, {self.total - self.recovered} left to translate"
            )
        return f"not resuming {self.input}, starting over: {self.problem}"


def journal_path(output: Path) -> Path:
    """Where the journal of ``output`` lives (same folder, so rename and fsync stay local)."""
    return output.with_name(output.name + ".journal.jsonl")


def _source_hash(text: str) -> str:
    """A short hash of a segment's source text, checked again on resume."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_journal(path: Path, key: JobKey, sources: Sequence[str]) -> Recovered:
    """The translations recorded in ``path`` for the job ``key``.

    ``done`` is empty, and ``problem`` says why, when there is no journal, it cannot be read,
    it is not ours, or it belongs to another input or other settings. ``sources`` are the
    distinct segment texts, to check each entry's source hash.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Recovered({}, f"there is no journal {path} of an earlier run")
    except OSError as exc:
        return Recovered({}, f"the journal {path} cannot be read ({exc.strerror or exc})")
    lines = raw.split(b"\n")
    header = _parse(lines[0])
    if not isinstance(header, dict) or header.get("journal") != MAGIC:
        return Recovered({}, f"{path} is not a desktop-mt journal")
    if header.get("version") != VERSION:
        return Recovered({}, f"the journal {path} was written by another version of desktop-mt")
    if header.get("key") != key.digest:
        return Recovered({}, _what_changed(header, key, path))
    done: dict[int, str] = {}
    for line in lines[1:]:
        entry = _parse(line)
        if not isinstance(entry, dict) or not isinstance(entry.get("done"), list):
            continue  # a torn last line (or damage): those segments are translated again
        for item in entry["done"]:
            if _valid_item(item, sources):
                done[item[0]] = item[2]
    return Recovered(done)


def _what_changed(header: dict[str, Any], key: JobKey, path: Path) -> str:
    """Why a journal with another key cannot be used, e.g. ``the input and the translation
    options changed since the journal X was written (beams default -> 4)``."""
    changed, details = [], []
    if header.get("input") != key.input_sha256:
        changed.append("the input")
    settings = header.get("settings")
    old: dict[str, Any] = settings if isinstance(settings, dict) else {}
    for name, label in _SETTING_NAMES:
        before, now = old.get(name), key.settings.get(name)
        if before != now:
            changed.append(label)
            details.append(_change_detail(name, before, now))
    if not changed:  # same parts, other digest: the header was edited or damaged
        return f"the journal {path} does not match this job"
    what = changed[0] if len(changed) == 1 else ", ".join(changed[:-1]) + " and " + changed[-1]
    detail = "; ".join(d for d in details if d)
    return f"{what} changed since the journal {path} was written" + (f" ({detail})" if detail else "")


def _change_detail(name: str, before: object, now: object) -> str:
    """A short "old -> new" for one setting (empty where it would say nothing useful)."""
    if name == "batch_size":
        if before is None or now is None:
            return ""  # the model changed between batch-invariant and not: said above
        return f"{before} -> {now}, and this model's int8 output depends on the batch size"
    if name == "layout":  # absent means all off: "bilingual default -> True"
        before, now = before or {}, now or {}
    if name == "models" and isinstance(before or {}, dict) and isinstance(now or {}, dict):
        old_models, new_models = _names(before), _names(now)
        keys = sorted(k for k in old_models.keys() | new_models.keys() if old_models.get(k) != new_models.get(k))
        return ", ".join(f"{k} {_show(old_models.get(k))} -> {_show(new_models.get(k))}" for k in keys)
    if isinstance(before, dict) and isinstance(now, dict):
        keys = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
        if name == "model" and "files" in keys:  # hashes say nothing to a reader
            keys.remove("files")
            if not keys:
                return "its files changed"
        return ", ".join(f"{k} {_show(before.get(k))} -> {_show(now.get(k))}" for k in keys)
    return f"{_show(before)} -> {_show(now)}"


def _show(value: object) -> str:
    return "default" if value is None else str(value)


def _names(models: object) -> dict[str, object]:
    """``{direction: model name}`` of a key's ``models`` entry (absent: none)."""
    if not isinstance(models, dict):
        return {}
    return {k: v.get("name") if isinstance(v, dict) else v for k, v in models.items()}


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8")) if line.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _valid_item(item: object, sources: Sequence[str]) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 3
        and isinstance(item[0], int)
        and 0 <= item[0] < len(sources)
        and isinstance(item[2], str)
        and item[1] == _source_hash(sources[item[0]])
    )


class Journal:
    """An open journal: ``append`` one chunk at a time; ``remove`` once the output is in place.

    Writes go through :func:`.files.write_all` on a raw descriptor (no buffer that a later
    ``close`` would try, and fail, to flush again). A failed write raises
    :class:`BatchOutputError` naming the journal (or, for a folder problem such as permission
    denied, the output, which would fail the same way) and how many segments it holds.
    """

    def __init__(
        self, output: Path, key: JobKey, sources: Sequence[str], done: Mapping[int, str] | None = None
    ) -> None:
        """Start the journal of ``output`` afresh, holding ``done`` (recovered entries) if any.
        Until this succeeds, an existing journal there is left as it was."""
        self.output = output
        self.path = journal_path(output)
        self._sources = sources
        self._fd: int | None = None
        self.kept = len(done or {})  # segments durably in the journal (the old one, until replaced)
        header = {
            "journal": MAGIC,
            "version": VERSION,
            "key": key.digest,
            "input": key.input_sha256,
            "settings": key.settings,
            "segments": len(sources),
        }
        body = json.dumps(header, ensure_ascii=False) + "\n"
        if done:
            body += self._line(done)
        try:
            replace_file(self.path, body.encode("utf-8"))
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
        except OSError as exc:
            raise self._failed(exc) from exc

    def _failed(self, exc: OSError) -> BatchOutputError:
        return BatchOutputError(
            exc,
            self.output,
            journal=self.path,
            journal_failed=exc.errno not in FOLDER_ERRNOS,
            kept=self.kept,
            total=len(self._sources),
        )

    def _line(self, items: Mapping[int, str]) -> str:
        done = [[i, _source_hash(self._sources[i]), t] for i, t in items.items()]
        return json.dumps({"done": done}, ensure_ascii=False) + "\n"

    def append(self, items: Mapping[int, str]) -> None:
        """Record one chunk durably (one write, fsync)."""
        if not items or self._fd is None:
            return
        try:
            write_all(self._fd, self._line(items).encode("utf-8"))
            os.fsync(self._fd)
        except OSError as exc:
            raise self._failed(exc) from exc
        self.kept += len(items)

    def close(self) -> None:
        """Close the file, leaving it on disk (for a later resume)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def remove(self) -> None:
        """Close and delete the journal (the output is complete)."""
        self.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
