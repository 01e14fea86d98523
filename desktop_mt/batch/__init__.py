"""Batch (file) translation: .txt, .srt, .docx, XLIFF and PO, with a progress journal and resume.

The one call the CLI and the GUI's "Translate file..." job both use::

    from desktop_mt.batch import translate_file
    out = translate_file(Path("talk.srt"), None, translator,      # -> Path("talk.zh.srt")
                         fmt="auto",            # "auto" (by suffix) | "txt" | "srt" | "docx" | "xliff" | "po"
                         resume=False,          # True: continue from an interrupted run's journal
                         progress=None,         # progress(done_segments, total_segments)
                         cancel=None,           # a threading.Event; set it to stop
                         encoding=None)         # text input encoding; None: BOM, else UTF-8

``translate_file(src, dst, translator, *, fmt="auto", resume=False, progress=None,
cancel=None, encoding=None, options=None, chunk_size=None, on_resume=None, bilingual=False,
join_lines=False, on_summary=None, on_chunk=None, overwrite_machine=False) -> Path``

- ``dst`` None puts the output next to the input as ``<stem>.zh<suffix>``, or ``<stem>.en<suffix>``
  when the document is translated into English (:func:`output_language`: the file's declared
  target, else the options' ``target``, else, for ``"auto"``, English when most of the text is
  Chinese); :func:`planned_output` gives a front end the same name before the job. An output that
  resolves to the input itself is refused (:class:`BatchInputError`).
- ``opened``: the file as :func:`open_file` read and parsed it (:func:`plan_file` hands a front
  end the name and the parsed file), translated without reading or parsing it again: a front end
  that names the output before the job parses the file once, as the CLI does.
- ``translator`` is a :class:`desktop_mt.Translator`, or anything with what
  :class:`BatchTranslator` lists (``translate_batch``, ``batch_invariant``); ``options`` (a
  :class:`desktop_mt.GenerationOptions`) is passed on to each call.
- ``progress`` is called from the calling thread with counts of *distinct* segments (a line
  repeated 50 times is one segment), journal-recovered ones included, so it can start > 0.
- ``cancel.set()`` (from any thread) stops within one decode step: ``TranslationCancelled``
  is raised, no output is written, and the journal stays so ``resume=True`` continues.
- ``on_resume(report)`` (with ``resume=True``) receives a :class:`ResumeReport` before any
  translating: how many segments were recovered, or why the job starts over (no journal,
  unreadable or not ours, or which of input, format, encoding, model/variant, options or
  batch size changed). ``str(report)`` is the message; the CLI prints it on stderr.
- Errors: :class:`BatchInputError` for an unreadable, undecodable or malformed input, naming
  the input (and line); :class:`BatchOutputError` when the output or the journal cannot be
  written (disk full, permission denied, read-only, missing folder, a folder in the way),
  naming the output, or the journal by its real name when that failed, and the remedy. Both
  are ``DesktopMTError``. Whatever was translated before a write failed stays in the journal.
- ``bilingual``: the source stays and its translation follows it (txt: the next line; docx:
  the next paragraph; srt: the Chinese lines under the source lines of each cue).
  ``join_lines`` (txt only): the hard line breaks of text copied from a PDF are joined first
  (``pasted.join_lines``). Both are part of the journal key.
- ``overwrite_machine`` (XLIFF and PO only): also re-translate the targets a machine filled
  that nobody confirmed (see :mod:`.xliff`, :mod:`.po`); part of the journal key. Empty
  targets are always filled; approved, confirmed and locked ones never.
- A document that names its languages (an XLIFF's source/target language, a PO's Language)
  decides the direction and the Chinese script: ``document.language_options`` are laid over
  the options (:func:`document_options`), also in the journal key.
- ``on_summary(summary)`` receives a :class:`JobSummary` once the output is written: the
  number of segments and how many were kept as they were (``engine.direction.untranslated``:
  already in the target language, Japanese or Korean, or needing a direction without a model);
  ``str(summary)`` says so for a status line.
- ``on_chunk(chunks, done, total)`` (a :class:`ChunkListener`) is called after each chunk is
  journaled; ``chunk_size`` sets the segments per chunk (default: a few engine batches).

Safety: the output is written to a temporary file in the destination folder, fsynced and
renamed over ``dst`` only when complete. While running, ``<dst>.journal.jsonl`` records every
finished chunk (see :mod:`desktop_mt.batch.journal`); it is deleted after success. A journal
is keyed by the input's bytes and the output-changing settings (plus the batch size when
``translator.batch_invariant`` is False), so a changed input or different settings start
over instead of resuming wrongly. The model part of the key names the model of each direction
the document needs (``"model"``: the English->Chinese one, or the only one; ``"models"``: the
Chinese->English one when the document has Chinese to translate), so a resume with another
zh->en model does not mix outputs, and a journal of an English document written before the
app translated both ways still resumes.

Formats and their rules: :mod:`.txt` (one output line per input line; whitespace, CRLF and
BOM kept), :mod:`.srt` (indices/timings untouched, cues re-wrapped for Chinese),
:mod:`.docx_format` (paragraphs, tables, headers/footers, notes; the run rule), :mod:`.xliff`
(XLIFF 1.2 and 2.x: empty targets filled, inline codes kept, states set for review).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..base.errors import N_, Phrase, TranslationCancelled
from ..engine import direction
from ..engine.options import GenerationOptions
from . import docx_format, html, markdown, ooxml, pdf, po, srt, txt, xliff
from .errors import BatchInputError, BatchOutputError
from .files import atomic_write
from .journal import JobKey, Journal, ResumeReport, journal_path, read_journal
from .runner import (
    BatchTranslator,
    ChunkListener,
    default_chunk_size,
    distinct_segments,
    translate_distinct,
    translate_segments,
)
from .textio import Document

__all__ = [
    "translate_file",
    "detect_format",
    "default_output_path",
    "output_language",
    "planned_output",
    "plan_file",
    "open_file",
    "OpenedFile",
    "document_options",
    "load_document",
    "translate_segments",
    "atomic_write",
    "BatchInputError",
    "BatchOutputError",
    "BatchTranslator",
    "ChunkListener",
    "Document",
    "kept_reason",
    "ResumeReport",
    "TranslationCancelled",
    "FORMATS",
    "DOCUMENT_SUFFIXES",
    "JobSummary",
    "count_kept",
    "read_input",
    "job_key",
]

FORMATS = ("txt", "srt", "docx", "xliff", "po", "md", "html", "pptx", "xlsx", "pdf")
_SUFFIX_FORMATS = {
    ".srt": "srt",
    ".docx": "docx",
    ".docm": "docx",
    ".xlf": "xliff",
    ".xliff": "xliff",
    ".sdlxliff": "xliff",
    ".mqxliff": "xliff",
    ".po": "po",
    ".pot": "po",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pptx": "pptx",
    ".pptm": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".pdf": "pdf",
}
# What the window's "Translate file" dialog lists as documents (any other file is read as text).
DOCUMENT_SUFFIXES = (
    ".txt",
    ".srt",
    ".docx",
    ".docm",
    *(s for s in _SUFFIX_FORMATS if s not in (".srt", ".docx", ".docm")),
)
_OUTPUT_SUFFIXES = {".pot": ".po", ".pdf": ".docx"}  # a translated template is a catalogue; a PDF, Word
# Formats whose documents may re-translate their machine-filled entries (``overwrite_machine``).
_MACHINE_AWARE = ("xliff", "po")
_UNSUPPORTED = {
    ".doc": N_("save it as .docx first"),
    ".rtf": N_("save it as .docx or .txt first"),
    ".odt": N_("save it as .docx first"),
    ".ppt": N_("save it as .pptx first"),
    ".xls": N_("save it as .xlsx first"),
}
# Bump when parsing/rendering changes the meaning of segment ids (2: segments are sentences, and
# SRT/docx add one per formatting span).
_KEY_VERSION = 2


@dataclasses.dataclass(frozen=True)
class JobSummary:
    """What a file job did: ``segments`` (the distinct sentences with text, plus the formatted
    stretches of SRT and docx sentences that are translated on their own to place their
    formatting: what the job's ``progress(done, total)`` counts, so "Saved ... (N segments)"
    agrees with the progress's last "N/N"), ``repeated`` (further occurrences of those, each
    translated once) and ``kept``, how many of the segments were kept as they were
    (:func:`count_kept`). ``str()`` is the summary's wording, e.g. ``120 segments, 3 kept as
    they were (already English, Japanese or Korean)``."""

    input: Path
    output: Path
    segments: int
    kept: int
    why: str = ""  # what the kept segments were (kept_reason); "" says nothing
    notes: tuple[str, ...] = ()  # what the format has to say (a PO's entries left untranslated)
    repeated: int = 0

    def __str__(self) -> str:
        why = f" ({self.why})" if self.why else ""
        kept = f", {self.kept} kept as they were{why}" if self.kept else ""
        repeated = f", {self.repeated} repeated (translated once)" if self.repeated else ""
        notes = "".join(f"; {note}" for note in self.notes)
        return f"{self.segments} segments{kept}{repeated}{notes}"


def _effective(translator: BatchTranslator | None, options: GenerationOptions | None) -> GenerationOptions | None:
    if options is not None:
        return options
    return translator.options if translator is not None else None


def count_kept(
    segments: Sequence[str], translator: BatchTranslator | None = None, options: GenerationOptions | None = None
) -> int:
    """How many of ``segments`` the engine keeps as they were (``engine.direction.untranslated``:
    Japanese, Korean, already in the options' ``target`` language, or in a language the
    translator has no model for); 0 when the options' ``keep_cjk`` is off."""
    effective = _effective(translator, options)
    if effective is not None and not effective.keep_cjk:
        return 0
    target = effective.target if effective is not None else direction.AUTO
    available = translator.directions if translator is not None else (direction.EN_ZH,)
    return sum(1 for text in segments if text and direction.untranslated(text, target, available))


def kept_reason(
    segments: Sequence[str], translator: BatchTranslator | None = None, options: GenerationOptions | None = None
) -> str:
    """What the kept segments (:func:`count_kept`) were, in words for a summary: their languages
    (``"already Chinese"``, ``"already English"``, ``"Japanese"``...) and, for text of a
    direction without a model, ``"no Chinese->English model"``; "" when none is kept."""
    effective = _effective(translator, options)
    target = effective.target if effective is not None else direction.AUTO
    available = translator.directions if translator is not None else (direction.EN_ZH,)
    reasons: dict[str, None] = {}
    for text in segments:
        if not text or not direction.untranslated(text, target, available):
            continue
        lang = direction.paragraph_language(text)
        wanted = direction.direction_for(lang, target)
        if wanted is not None and wanted not in available:
            source, _, goal = wanted.partition("-")
            reasons[f"no {direction.LANGUAGE_NAMES[source]}->{direction.LANGUAGE_NAMES[goal]} model"] = None
        elif lang in (direction.JA, direction.KO):
            reasons[direction.LANGUAGE_NAMES[lang]] = None
        elif lang:
            reasons[f"already {direction.LANGUAGE_NAMES[lang]}"] = None
    return ", ".join(reasons)


def detect_format(path: Path, fmt: str = "auto") -> str:
    """The format to use for ``path``: ``fmt`` itself, or by suffix (default txt)."""
    if fmt != "auto":
        if fmt not in FORMATS:
            raise BatchInputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        return fmt
    suffix = path.suffix.lower()
    if suffix in _UNSUPPORTED:
        raise BatchInputError(
            f"{path}: {suffix} files are not supported; {_UNSUPPORTED[suffix]}", filename=str(path)
        ).worded(
            N_("{file}: {suffix} files are not supported; {fix}"),
            file=path,
            suffix=suffix,
            fix=Phrase(_UNSUPPORTED[suffix]),
        )
    return _SUFFIX_FORMATS.get(suffix, "txt")


def default_output_path(src: Path, fmt: str = "auto", language: str = direction.ZH) -> Path:
    """``notes.txt`` -> ``notes.zh.txt`` (same folder; ``notes.en.txt`` for ``language="en"``);
    a suffix-less file gets ``.zh``; a template ``messages.pot`` -> ``messages.zh.po``."""
    suffix = _OUTPUT_SUFFIXES.get(src.suffix.lower(), src.suffix)
    return src.with_name(f"{src.stem}.{language}{suffix}" if src.suffix else f"{src.name}.{language}")


def output_language(document: Document, target: direction.Target = direction.AUTO) -> str:
    """The language ``document`` is translated into, which names its output (the one rule of the
    window and the command line): the target the file declares (XLIFF, PO), else ``target``
    (``"en"`` / ``"zh"``), else (``"auto"``) English when most of its text is Chinese, Chinese
    otherwise."""
    declared = (getattr(document, "language_options", None) or {}).get("target")
    chosen = declared or target
    if chosen in (direction.EN, direction.ZH):
        return str(chosen)
    chinese = direction.paragraph_language("\n".join(document.segments)) == direction.ZH
    return direction.EN if chinese else direction.ZH


@dataclasses.dataclass(eq=False)
class OpenedFile:
    """An input file read and parsed once (:func:`open_file`): what names its output
    (:meth:`output`) and what ``translate_file(..., opened=...)`` translates. ``data`` is let go
    once the job has keyed it (a large input is not held through the translation): an opened
    file is translated once."""

    src: Path
    fmt: str
    encoding: str | None
    data: bytes | None  # the input's bytes, for the journal key (None once a job took them)
    document: Document
    bilingual: bool = False
    join_lines: bool = False
    overwrite_machine: bool = False

    def output(self, target: direction.Target = direction.AUTO) -> Path:
        """The default output for ``target``: :func:`default_output_path` in the language
        :func:`output_language` reads from the parsed document."""
        return default_output_path(self.src, self.fmt, output_language(self.document, target))


def open_file(
    src: Path,
    fmt: str = "auto",
    encoding: str | None = None,
    *,
    bilingual: bool = False,
    join_lines: bool = False,
    overwrite_machine: bool = False,
) -> OpenedFile:
    """Read and parse ``src`` once (the arguments as :func:`translate_file` takes them); raises
    as :func:`translate_file` does for an unreadable or malformed input."""
    src = Path(src)
    fmt = detect_format(src, fmt)
    data = read_input(src)
    overwrite_machine = overwrite_machine and fmt in _MACHINE_AWARE
    document = load_document(
        data, str(src), fmt, encoding, bilingual=bilingual, join_lines=join_lines, overwrite_machine=overwrite_machine
    )
    return OpenedFile(src, fmt, encoding, data, document, bilingual, join_lines, overwrite_machine)


def plan_file(
    src: Path,
    fmt: str = "auto",
    target: direction.Target = direction.AUTO,
    encoding: str | None = None,
    *,
    bilingual: bool = False,
) -> tuple[Path, OpenedFile | None]:
    """Where :func:`translate_file` with ``dst=None`` writes ``src`` for ``target``, read from
    the parsed file by :func:`output_language` (a front end asks before the job whether it may
    replace it), and that parsed file for the job (``opened=``); the ``.zh`` default and None
    when the file cannot be read or parsed (the job then says why)."""
    src = Path(src)
    try:
        opened = open_file(src, fmt, encoding, bilingual=bilingual)
    except (BatchInputError, OSError, ValueError):
        return default_output_path(src, fmt), None
    return opened.output(target), opened


def planned_output(
    src: Path, fmt: str = "auto", target: direction.Target = direction.AUTO, encoding: str | None = None
) -> Path:
    """The output :func:`plan_file` names (without keeping the parsed file)."""
    return plan_file(src, fmt, target, encoding)[0]


def load_document(
    data: bytes,
    filename: str,
    fmt: str,
    encoding: str | None = None,
    *,
    bilingual: bool = False,
    join_lines: bool = False,
    overwrite_machine: bool = False,
) -> Document:
    """Parse ``data`` as ``fmt``: an object with ``segments`` and ``write(translations, f)``.
    ``bilingual``, ``join_lines`` and ``overwrite_machine``: see :func:`translate_file`."""
    loaders: dict[str, Callable[..., Document]] = {
        "txt": txt.load,
        "srt": srt.load,
        "docx": docx_format.load,
        "xliff": xliff.load,
        "po": po.load,
        "md": markdown.load,
        "html": html.load,
        "pptx": ooxml.load_pptx,
        "xlsx": ooxml.load_xlsx,
        "pdf": pdf.load,
    }
    if fmt not in loaders:
        raise BatchInputError(f"unknown format {fmt!r}")
    extra = {"overwrite_machine": overwrite_machine} if fmt in _MACHINE_AWARE else {}
    return loaders[fmt](data, filename, encoding, bilingual=bilingual, join_lines=join_lines, **extra)


def document_options(
    document: Document, translator: BatchTranslator, options: GenerationOptions | None
) -> GenerationOptions | None:
    """The options a document's own languages ask for (an XLIFF's or PO's target language and
    Chinese script: ``document.language_options``) laid over ``options`` (or the translator's);
    ``options`` as it was for a document that names no language."""
    wanted = getattr(document, "language_options", None)
    if wanted:
        options = dataclasses.replace(options if options is not None else translator.options, **wanted)
    use = getattr(document, "use_options", None)  # a POT names the language it was translated into
    if use is not None:
        use(options if options is not None else translator.options)
    return options


def translate_file(
    src: Path,
    dst: Path | None,
    translator: BatchTranslator,
    *,
    fmt: str = "auto",
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    encoding: str | None = None,
    options: GenerationOptions | None = None,
    chunk_size: int | None = None,
    on_resume: Callable[[ResumeReport], None] | None = None,
    bilingual: bool = False,
    join_lines: bool = False,
    on_summary: Callable[[JobSummary], None] | None = None,
    on_chunk: ChunkListener | None = None,
    overwrite_machine: bool = False,
    opened: OpenedFile | None = None,
) -> Path:
    """Translate the file ``src`` into ``dst`` (see the module docstring); returns ``dst``."""
    src = Path(src)
    if dst is not None:
        _refuse_overwriting_input(src, Path(dst))
    if opened is None:
        opened = open_file(
            src, fmt, encoding, bilingual=bilingual, join_lines=join_lines, overwrite_machine=overwrite_machine
        )
    data = opened.data
    if opened.src != src or data is None:
        raise ValueError(f"{src}: the opened file is another one, or was translated already")
    opened.data = None  # keyed below, then let go
    fmt, encoding, document = opened.fmt, opened.encoding, opened.document
    bilingual, join_lines, overwrite_machine = opened.bilingual, opened.join_lines, opened.overwrite_machine
    options = document_options(document, translator, options)
    if dst is None:  # named by the language the document is translated into: the one parse decides
        target = (options if options is not None else translator.options).target
        dst = default_output_path(src, fmt, output_language(document, target))
        _refuse_overwriting_input(src, dst)
    dst = Path(dst)
    distinct, index_of = distinct_segments(document.segments)
    key = job_key(
        data,
        fmt,
        encoding,
        translator,
        options,
        bilingual=bilingual,
        join_lines=join_lines,
        overwrite_machine=overwrite_machine,
        segments=distinct,
    )
    del data  # parsed and keyed: a large input is not held through the translation
    done = _recover(src, dst, key, distinct, on_resume) if resume else {}
    journal = Journal(dst, key, distinct, done)
    try:
        size = chunk_size or default_chunk_size(translator.batch_size)
        translate_distinct(
            distinct,
            translator,
            done=done,
            journal=journal,
            options=options,
            chunk_size=size,
            progress=progress,
            cancel=cancel,
            on_chunk=on_chunk,
        )
    finally:
        journal.close()
    translations = [done[i] if i >= 0 else "" for i in index_of]
    try:
        atomic_write(dst, lambda f: document.write(translations, f))
    except OSError as exc:  # the journal holds every segment: a resume only writes the output
        raise BatchOutputError(exc, dst, journal=journal.path, kept=journal.kept, total=len(distinct)) from exc
    journal.remove()
    if on_summary is not None:
        # Distinct segments, as the progress counts them (it said 185/185, the summary 193).
        repeated = sum(1 for t in document.segments if t) - len(distinct)
        kept = count_kept(distinct, translator, options)
        why = kept_reason(distinct, translator, options) if kept else ""
        notes = tuple(getattr(document, "notes", ()))
        on_summary(JobSummary(src, dst, len(distinct), kept, why, notes, repeated))
    return dst


def _recover(
    src: Path, dst: Path, key: JobKey, distinct: list[str], on_resume: Callable[[ResumeReport], None] | None
) -> dict[int, str]:
    """The segments an earlier run of this job journaled; tells ``on_resume`` what it found."""
    jpath = journal_path(dst)
    recovered = read_journal(jpath, key, distinct)
    if on_resume is not None:
        on_resume(ResumeReport(src, jpath, len(distinct), len(recovered.done), recovered.problem))
    return dict(recovered.done)


def read_input(src: Path) -> bytes:
    """The bytes of an input file; :class:`BatchInputError` says plainly why it cannot be read."""
    try:
        return src.read_bytes()
    except FileNotFoundError:
        raise BatchInputError(f"{src}: no such file", filename=str(src)).worded(
            N_("{file}: no such file"), file=src
        ) from None
    except IsADirectoryError:
        raise BatchInputError(f"{src}: is a folder, not a file", filename=str(src)).worded(
            N_("{file}: is a folder, not a file"), file=src
        ) from None
    except PermissionError:
        raise BatchInputError(f"{src}: permission denied", filename=str(src)).worded(
            N_("{file}: permission denied"), file=src
        ) from None
    except OSError as exc:  # e.g. EIO from a failing disk or a dropped network share
        raise BatchInputError(f"{src}: cannot be read ({exc.strerror or exc})", filename=str(src)) from None


def _refuse_overwriting_input(src: Path, dst: Path) -> None:
    same = src.resolve() == dst.resolve()
    if not same and dst.exists() and src.exists():
        with contextlib.suppress(OSError):
            same = os.path.samefile(src, dst)  # hard links, case-insensitive file systems
    if same:
        raise BatchInputError(
            f"{src}: the output would overwrite the input; choose another output (-o / --out-dir)", filename=str(src)
        )
    if dst.is_dir():
        raise BatchOutputError(IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)), dst)


def job_key(
    data: bytes,
    fmt: str,
    encoding: str | None,
    translator: BatchTranslator,
    options: GenerationOptions | None,
    *,
    bilingual: bool = False,
    join_lines: bool = False,
    overwrite_machine: bool = False,
    segments: Sequence[str] = (),
) -> JobKey:
    """The input bytes and everything that changes the output, so a journal is only resumed
    for the same job. Threads never change the output and are left out; the batch size is
    left out unless ``translator.batch_invariant`` is False (dynamic int8, whose activation
    scales span the batch), where resuming with another batch size would mix outputs.
    ``bilingual`` and ``join_lines`` enter the key as ``layout`` only when one is on, so
    journals written before they existed still resume. ``segments`` (the document's) decide
    which directions' models enter the key (see the module docstring)."""
    effective = options if options is not None else translator.options
    opts: dict[str, Any] = dataclasses.asdict(effective)  # decoding options only: the batch size is the translator's
    _glossary_key(opts, effective)
    for name, default in _NEWER_OPTIONS.items():  # absent from older keys: left out at their default
        if opts.get(name) == default:
            del opts[name]
    settings: dict[str, Any] = {
        "v": _KEY_VERSION,
        "format": fmt,
        "encoding": encoding,
        "options": opts,
        **_models_identity(translator, effective.target, segments),
    }
    if not translator.batch_invariant:
        settings["batch_size"] = translator.batch_size
    memory = translator.memory_identity  # translate --tm: another memory is another job
    if memory:
        settings["memory"] = memory
    switches = (("bilingual", bilingual), ("join_lines", join_lines), ("overwrite_machine", overwrite_machine))
    layout = {name: True for name, on in switches if on}
    if layout:
        settings["layout"] = layout
    return JobKey.make(data, settings)


# GenerationOptions fields added after journals existed, with the value that writes what an
# older journal's job wrote (English->Chinese, the model's own reading of the source).
_NEWER_OPTIONS: dict[str, object] = {"target": direction.AUTO, "simplify_source": True}


def _glossary_key(opts: dict[str, Any], options: GenerationOptions) -> None:
    """A glossary enters the key as its size and a digest of its terms (the resume message
    then says "glossary none -> 12 terms, 3f2a..."), and not at all when there is none, so
    journals written before glossaries existed still resume."""
    glossary = opts.pop("glossary", None) and options.glossary
    if glossary:
        text = json.dumps([dataclasses.astuple(t) for t in glossary.terms], ensure_ascii=False)
        opts["glossary"] = f"{len(glossary.terms)} terms, {hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _models_identity(translator: BatchTranslator, target: direction.Target, segments: Sequence[str]) -> dict[str, Any]:
    """The ``model`` (and ``models``) entries of a job key: the English->Chinese model (or
    the translator's only one) as ``model``, as before both directions; the Chinese->English
    model as ``models["zh-en"]`` when the document has text for it."""
    per_direction = translator.model_infos
    if len(per_direction) < 2:
        return {"model": _model_identity(translator.model_info, translator.variant)}
    primary: direction.Direction = direction.EN_ZH
    out: dict[str, Any] = {"model": _model_identity(per_direction[primary], translator.variant)}
    needed = set().union(*(direction.directions_needed(s, target) for s in segments)) if segments else set()
    others = {
        name: _model_identity(info, translator.variant)
        for name, info in per_direction.items()
        if name != primary and name in needed
    }
    if others:
        out["models"] = others
    return out


def _model_identity(info: Any, variant: str) -> dict[str, Any]:
    """Which model and variant produce the output: path, name, variant and, where the
    manifest has them, the variant files' sha256 (a re-exported model is a different job)."""
    manifest = info.manifest or {}
    files = (manifest.get("variants") or {}).get(variant) if isinstance(manifest, dict) else None
    return {"path": str(info.path), "name": str(info.name), "variant": str(variant), "files": files}
