"""Batch (file) translation: .txt, .srt and .docx, with a progress journal and resume.

The one call the CLI and the GUI's "Translate file..." job both use::

    from desktop_mt.batch import translate_file
    out = translate_file(Path("talk.srt"), None, translator,      # -> Path("talk.zh.srt")
                         fmt="auto",            # "auto" (by suffix) | "txt" | "srt" | "docx"
                         resume=False,          # True: continue from an interrupted run's journal
                         progress=None,         # progress(done_segments, total_segments)
                         cancel=None,           # a threading.Event; set it to stop
                         encoding=None)         # text input encoding; None: BOM, else UTF-8

``translate_file(src, dst, translator, *, fmt="auto", resume=False, progress=None,
cancel=None, encoding=None, options=None, chunk_size=None) -> Path``

- ``dst`` None puts the output next to the input as ``<stem>.zh<suffix>``. An output that
  resolves to the input itself is refused (:class:`BatchInputError`).
- ``translator`` is a :class:`desktop_mt.Translator` (anything with its ``translate_batch``);
  ``options`` (a :class:`desktop_mt.GenerationOptions`) is passed on to each call.
- ``progress`` is called from the calling thread with counts of *distinct* segments (a line
  repeated 50 times is one segment), journal-recovered ones included, so it can start > 0.
- ``cancel.set()`` (from any thread) stops within one decode step: ``TranslationCancelled``
  is raised, no output is written, and the journal stays so ``resume=True`` continues.
- Errors: :class:`BatchInputError` (a ``DesktopMTError``) for an unreadable, undecodable or
  malformed input, naming the file and line; ``OSError`` for file-system failures.

Safety: the output is written to a temporary file in the destination folder, fsynced and
renamed over ``dst`` only when complete. While running, ``<dst>.journal.jsonl`` records every
finished chunk (see :mod:`desktop_mt.batch.journal`); it is deleted after success. A journal
is keyed by the input's bytes and the output-changing options, so a changed input or
different options start over instead of resuming wrongly.

Formats and their rules: :mod:`.txt` (one output line per input line; whitespace, CRLF and
BOM kept), :mod:`.srt` (indices/timings untouched, cues re-wrapped for Chinese),
:mod:`.docx_format` (paragraphs, tables, headers/footers, notes; the run rule).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import secrets
import threading
from pathlib import Path
from typing import BinaryIO, Callable, Optional

from ..errors import TranslationCancelled
from .errors import BatchInputError
from .journal import Journal, fsync_dir, journal_path, read_journal
from .runner import default_chunk_size, distinct_segments, translate_distinct, translate_segments
from .runner import _batch_size

__all__ = ["translate_file", "detect_format", "default_output_path", "load_document",
           "translate_segments", "atomic_write", "BatchInputError", "TranslationCancelled", "FORMATS"]

FORMATS = ("txt", "srt", "docx")
_SUFFIX_FORMATS = {".srt": "srt", ".docx": "docx", ".docm": "docx"}
_UNSUPPORTED = {".doc": "save it as .docx first", ".rtf": "save it as .docx or .txt first",
                ".odt": "save it as .docx first", ".pdf": "PDF is not supported"}
_KEY_VERSION = 1  # bump when parsing/rendering changes the meaning of segment ids


def detect_format(path: Path, fmt: str = "auto") -> str:
    """The format to use for ``path``: ``fmt`` itself, or by suffix (default txt)."""
    if fmt != "auto":
        if fmt not in FORMATS:
            raise BatchInputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        return fmt
    suffix = path.suffix.lower()
    if suffix in _UNSUPPORTED:
        raise BatchInputError(f"{path}: {suffix} files are not supported; {_UNSUPPORTED[suffix]}",
                              filename=str(path))
    return _SUFFIX_FORMATS.get(suffix, "txt")


def default_output_path(src: Path, fmt: str = "auto") -> Path:
    """``notes.txt`` -> ``notes.zh.txt`` (same folder); a suffix-less file gets ``.zh``."""
    return src.with_name(f"{src.stem}.zh{src.suffix}" if src.suffix else f"{src.name}.zh")


def load_document(data: bytes, filename: str, fmt: str, encoding: Optional[str] = None):
    """Parse ``data`` as ``fmt``: an object with ``segments`` and ``write(translations, f)``."""
    if fmt == "txt":
        from . import txt as module
    elif fmt == "srt":
        from . import srt as module
    elif fmt == "docx":
        from . import docx_format as module
    else:
        raise BatchInputError(f"unknown format {fmt!r}")
    return module.load(data, filename, encoding)


def translate_file(src: Path, dst: Optional[Path], translator, *, fmt: str = "auto",
                   resume: bool = False, progress: Optional[Callable[[int, int], None]] = None,
                   cancel: Optional[threading.Event] = None, encoding: Optional[str] = None,
                   options=None, chunk_size: Optional[int] = None) -> Path:
    """Translate the file ``src`` into ``dst`` (see the module docstring); returns ``dst``."""
    src = Path(src)
    fmt = detect_format(src, fmt)
    dst = Path(dst) if dst is not None else default_output_path(src, fmt)
    _refuse_overwriting_input(src, dst)
    data = _read_input(src)
    document = load_document(data, str(src), fmt, encoding)
    distinct, index_of = distinct_segments(document.segments)
    key = job_key(data, fmt, encoding, translator, options)
    jpath = journal_path(dst)
    done = read_journal(jpath, key, distinct) if resume else {}
    journal = Journal(jpath, key, distinct, done)
    try:
        size = chunk_size or default_chunk_size(_batch_size(translator, options))
        translate_distinct(distinct, translator, done=done, journal=journal, options=options,
                           chunk_size=size, progress=progress, cancel=cancel)
    finally:
        journal.close()
    translations = [done[i] if i >= 0 else "" for i in index_of]
    atomic_write(dst, lambda f: document.write(translations, f))
    journal.remove()
    return dst


def _read_input(src: Path) -> bytes:
    try:
        return src.read_bytes()
    except FileNotFoundError:
        raise BatchInputError(f"{src}: no such file", filename=str(src)) from None
    except IsADirectoryError:
        raise BatchInputError(f"{src}: is a folder, not a file", filename=str(src)) from None
    except PermissionError:
        raise BatchInputError(f"{src}: permission denied", filename=str(src)) from None


def _refuse_overwriting_input(src: Path, dst: Path) -> None:
    same = src.resolve() == dst.resolve()
    if not same and dst.exists() and src.exists():
        try:
            same = os.path.samefile(src, dst)  # hard links, case-insensitive file systems
        except OSError:
            pass
    if same:
        raise BatchInputError(f"{src}: the output would overwrite the input; choose another "
                              f"output (-o / --out-dir)", filename=str(src))
    if dst.is_dir():
        raise BatchInputError(f"{dst}: the output is a folder (use --out-dir for folders)",
                              filename=str(src))


def job_key(data: bytes, fmt: str, encoding: Optional[str], translator, options) -> str:
    """Hash of the input bytes and everything that changes the output (not batch size or
    threads, which must not change it), so a journal is only resumed for the same job."""
    effective = options if options is not None else getattr(translator, "options", None)
    opts = dataclasses.asdict(effective) if dataclasses.is_dataclass(effective) else {}
    opts.pop("batch_size", None)
    meta = json.dumps({"v": _KEY_VERSION, "fmt": fmt, "encoding": encoding, "options": opts,
                       "model": _model_identity(translator)}, sort_keys=True, default=str)
    digest = hashlib.sha256(data)
    digest.update(b"\0" + meta.encode("utf-8"))
    return digest.hexdigest()


def _model_identity(translator) -> dict:
    """Which model and variant produce the output: path, name, variant and, where the
    manifest has them, the variant files' sha256 (a re-exported model is a different job)."""
    info = getattr(translator, "model_info", None)
    variant = getattr(translator, "variant", None) or getattr(info, "variant", None)
    manifest = getattr(info, "manifest", None) or {}
    files = (manifest.get("variants") or {}).get(variant) if isinstance(manifest, dict) else None
    return {"path": str(getattr(info, "path", None)), "name": str(getattr(info, "name", None)),
            "variant": str(variant), "files": files}


def atomic_write(dst: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write via a temp file in ``dst``'s folder; fsync; rename over ``dst`` only on success."""
    folder = dst.parent
    tmp = folder / f".{dst.name}.{secrets.token_hex(4)}.tmp"
    # "xb": a new file (never someone else's), created with the usual umask permissions.
    f = open(tmp, "xb")
    try:
        with f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if dst.exists():  # keep the permissions of the file being replaced
            os.chmod(tmp, dst.stat().st_mode & 0o7777)
        os.replace(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(folder)
