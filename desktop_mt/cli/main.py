"""The ``desktop-mt`` command.

    desktop-mt                                   start the GUI
    desktop-mt gui [GUI OPTIONS]                 start the GUI with options (e.g. --model DIR)
    desktop-mt translate [FILES...|-] [-o OUT | --out-dir DIR] [options]
    desktop-mt self-test [--model DIR]           load the model headless, translate, time it
    desktop-mt serve [--host H] [--port P] ...   local LibreTranslate-compatible HTTP API
    desktop-mt models list|download|remove|use   the model catalog and installed models
    desktop-mt show [--clipboard|--selection]    the running window translates that (shortcuts)
    desktop-mt ocr IMAGE...                      print the text in images (translate IMAGE: text + translation)

``translate`` with no file (or ``-``) reads stdin and writes stdout, one output line per input
line (an interactive terminal gets each line as soon as it is typed). Files are written next
to the input as ``<stem>.zh<suffix>`` unless ``-o`` / ``--out-dir`` says otherwise; see
:mod:`desktop_mt.batch` for the formats, the journal and ``--resume``.

Exit codes: 0 done, 1 a failed input or model (the message names the file, and the line where
there is one), 2 usage, 130 interrupted (the journal is kept: rerun with ``--resume``).

The CLI never imports PySide6: the GUI module is imported only when the GUI is started
(:mod:`desktop_mt.cli.gui_launch`); FastAPI only for ``serve``, tqdm only for a progress bar.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..app import i18n
from ..app.factory import build_translator, catalog_model_for, model_folders
from ..app.i18n import N_, _
from ..base.errors import DesktopMTError
from ..base.stdio import use_utf8_streams
from ..batch import (
    FORMATS,
    BatchInputError,
    BatchOutputError,
    BatchTranslator,
    Document,
    ResumeReport,
    atomic_write,
    count_kept,
    detect_format,
    document_options,
    kept_reason,
    load_document,
    read_input,
    translate_file,
    translate_segments,
)
from ..batch import txt as text_format
from ..engine.direction import AUTO, DIRECTIONS, EN_ZH, TARGETS, ZH_EN, check_target
from ..engine.glossary import Glossary
from ..engine.model_format import VARIANTS, Variant, check_variant, inspect_model_dir
from ..engine.options import RAW, SPANS, GenerationOptions, SessionOptions
from ..engine.protocols import TranslatorFace
from ..engine.router import TwoWayTranslator
from ..engine.script import SCRIPTS, SIMPLIFIED, check_script
from ..engine.translator import DEFAULT_BATCH_SIZE
from ..server.config import add_serve_arguments  # argparse only: no FastAPI import here
from ..tm import TranslationMemory
from ..tm.apply import MemoryTranslator
from ..tm.tmx import import_tmx
from .gui_launch import extra_hint, run_gui
from .models import add_models_parser
from .ocr import add_ocr_parser, is_image_file, translate_images
from .show import add_show_parser

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = [
    "EXIT_OK",
    "EXIT_FAILED",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "UsageError",
    "entry",
    "main",
    "build_parser",
    "make_translator",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_STDOUT = Path("-")  # ``-o -``: write the translation to standard output

_SELF_TEST_SENTENCE = "The weather is nice today, so let's go for a walk in the park."


_TRANSLATE_EPILOG = N_("""\
outputs:
  Each FILE is written next to it as NAME.zh.EXT (talk.srt -> talk.zh.srt; NAME.en.EXT
  when it is translated into English: --to en, or a mostly Chinese file), or into
  --out-dir under its own name, or to -o. The input is never overwritten. Output is
  renamed into place only when complete; meanwhile OUT.journal.jsonl records progress,
  and rerunning the same command with --resume continues an interrupted run.

exit codes:
  0 done, 1 a failed input or model (named in the message), 2 usage,
  130 interrupted (rerun with --resume)
""")


class UsageError(DesktopMTError):
    """Bad command-line use (exit 2)."""


def entry() -> int:
    """The ``desktop-mt`` command and ``python -m desktop_mt``: :func:`main` as the owner of the
    process, so its ONNX Runtime sessions share one thread pool (``runtime.share_thread_pool``),
    and its standard streams are UTF-8 (:mod:`desktop_mt.base.stdio`: Windows' redirected output)."""
    use_utf8_streams()
    return main(share_threads=True)


def main(argv: Sequence[str] | None = None, *, share_threads: bool = False) -> int:
    """Run one command line; returns the exit code. ``share_threads``: this call owns the
    process, and every ONNX Runtime session it makes runs on one thread pool of ``--threads``
    threads (the window's: its Settings) instead of one pool per session (faster; process-wide,
    so a program calling ``main`` leaves it off)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return run_gui([], share_threads)
    if argv[0] == "gui":  # the GUI parses its own options (e.g. --model DIR)
        return run_gui(argv[1:], share_threads)
    i18n.activate()  # the messages' and --help's language: the settings', else the locale's
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    args.share_threads = share_threads  # `show` may start the window
    if share_threads and hasattr(args, "threads"):  # the commands that run a model
        from ..engine.runtime import share_thread_pool

        share_thread_pool(args.threads or 0)
    try:
        command: Callable[[argparse.Namespace], int] = args.func
        return command(args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(_("desktop-mt: error: {message}").format(message=i18n.describe(exc)), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `desktop-mt translate < big.txt | head`: the reader left
        _silence_stdout()
        return EXIT_FAILED


def _silence_stdout() -> None:
    """Point stdout at devnull so the interpreter's final flush does not complain."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (subcommands translate, self-test, gui)."""
    parser: argparse.ArgumentParser = i18n.ArgumentParser(
        prog="desktop-mt", description=_("Offline English<->Chinese translation.")
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"desktop-mt {__version__}",
        help=_("show program's version number and exit"),  # argparse's default is not translated
    )
    sub = parser.add_subparsers(dest="command", metavar="{translate,ocr,self-test,serve,models,show,gui}")

    tr = sub.add_parser(
        "translate",
        help=_("translate files, or stdin to stdout"),
        description=_("Translate text, subtitle (SRT), Word (DOCX), XLIFF and PO files, or stdin to stdout."),
        epilog=_(_TRANSLATE_EPILOG),
        formatter_class=i18n.RawDescriptionHelpFormatter,
    )
    tr.add_argument("files", nargs="*", metavar="FILE", help=_("input files; none or '-' for stdin"))
    where = tr.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT", help=_("output file (one input only; '-' for stdout)"))
    where.add_argument("--out-dir", metavar="DIR", help=_("folder for the outputs (same file names)"))
    tr.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help=_("input format (default: by file suffix; stdin: txt)"),
    )
    tr.add_argument(
        "--overwrite-mt",
        action="store_true",
        help=_(
            "XLIFF/PO: also re-translate targets that a machine filled and nobody confirmed "
            "(empty targets are always filled; confirmed, approved and locked ones never)"
        ),
    )
    _add_model_arguments(tr, _("model variant (default int8)"), per_direction=True)
    tr.add_argument(
        "--to",
        choices=TARGETS,
        default="auto",
        help=_(
            "the language to translate into: 'auto' (default) translates each sentence "
            "into the other language (Chinese into English, English into Chinese); 'en' or "
            "'zh' leaves sentences already in that language as they are"
        ),
    )
    tr.add_argument("--beams", type=_positive, metavar="N", help=_("beam size (1 = greedy)"))
    tr.add_argument("--max-length", type=_positive, metavar="N", help=_("most output tokens per sentence"))
    tr.add_argument("--batch-size", type=_positive, metavar="N", help=_("sentences per batch"))
    tr.add_argument(
        "--script",
        choices=SCRIPTS,
        default="simplified",
        help=_(
            "Chinese output: Simplified (default), or Traditional converted "
            "with OpenCC (Taiwan s2twp, Hong Kong s2hk, generic s2t)"
        ),
    )
    tr.add_argument(
        "--glossary",
        metavar="FILE",
        help=_("CSV/TSV of terms (source,target[,case]): each source term found is rendered as its target term"),
    )
    tr.add_argument(
        "--tm",
        metavar="FILE.tmx",
        help=_(
            "a translation memory (TMX): sentences it has exactly are taken from it and never "
            "sent to the model; stderr says how many"
        ),
    )
    _add_text_handling_arguments(tr)
    tr.add_argument(
        "--join-lines",
        action="store_true",
        help=_(
            "join the hard line breaks of text copied from a PDF or web page "
            "(hyphenation, wrapped sentences) before translating; paragraphs, list "
            "items, headings and table rows stay (text input only)"
        ),
    )
    tr.add_argument(
        "--bilingual",
        action="store_true",
        help=_(
            "keep the source and put its translation after it (txt: next line, "
            "docx: next paragraph, srt: Chinese under the English in each cue)"
        ),
    )
    tr.add_argument("--resume", action="store_true", help=_("continue an interrupted run from its journal"))
    tr.add_argument(
        "--chunk-size",
        type=_positive,
        metavar="N",
        help=_(
            "segments translated between two journal writes (default: four batches, at least 64); "
            "smaller loses less work to an interruption, larger batches better"
        ),
    )
    tr.add_argument("--progress", action="store_true", help=_("show progress even when stderr is not a terminal"))
    tr.add_argument("--encoding", metavar="ENC", help=_("encoding of text input without a BOM (default utf-8)"))
    tr.set_defaults(func=_cmd_translate)

    st = sub.add_parser("self-test", help=_("load the model of each direction headless, translate, print timings"))
    _add_model_arguments(st, _("test only this variant (default: every variant)"), per_direction=True)
    st.set_defaults(func=_cmd_self_test)

    sv = sub.add_parser(
        "serve",
        help=_("serve a LibreTranslate-compatible HTTP API (needs the 'server' extra); see docs/SERVER.md"),
        description=_(
            "Local translation server: LibreTranslate's /translate, "
            "/languages, /detect, plus /translate/stream (SSE), "
            "/health and /metrics. Binds 127.0.0.1 unless told "
            "otherwise; any other host needs --api-key."
        ),
    )
    _add_model_arguments(sv, _("model variant (default int8)"), per_direction=True)
    add_serve_arguments(sv)
    sv.set_defaults(func=_cmd_serve)

    add_models_parser(sub)
    add_show_parser(sub)  # no Qt: talks to the running window over a socket
    add_ocr_parser(sub)  # images: OCR offline, no Qt

    sub.add_parser("gui", help=_("start the GUI (the default without arguments); options after it go to the GUI"))
    parser.set_defaults(func=lambda args: run_gui([], args.share_threads))
    return parser


def _add_model_arguments(parser: argparse.ArgumentParser, variant_help: str, per_direction: bool = False) -> None:
    if per_direction:  # one --model per direction, each placed by its own language pair
        parser.add_argument(
            "--model",
            metavar="DIR|NAME",
            action="append",
            help=_(
                "model folder, or the name of an installed model; give it twice for both "
                "directions (an English->Chinese and a Chinese->English model, in any order). "
                "Default per direction: the active model (`desktop-mt models list`), else the "
                "bundled demo"
            ),
        )
    else:
        parser.add_argument(
            "--model",
            metavar="DIR|NAME",
            help=_(
                "model folder, or the name of an installed model (default: the active model, "
                "see `desktop-mt models list`; the bundled demo unless chosen)"
            ),
        )
    parser.add_argument(
        "--target-token",
        metavar=">>ID<<",
        help=_("target-language token of a multi-target model (default: the model's, e.g. >>cmn_Hans<<)"),
    )
    parser.add_argument("--variant", choices=VARIANTS, default=None, help=variant_help)
    parser.add_argument(
        "--threads", type=_non_negative, metavar="N", help=_("CPU threads (0 = let ONNX Runtime choose)")
    )
    parser.add_argument(
        "--provider", metavar="NAME", default="cpu", help=_("execution provider (cpu, cuda, dml, coreml, openvino)")
    )


def _add_text_handling_arguments(parser: argparse.ArgumentParser) -> None:
    """``--spans``, ``--raw`` and a switch for each text-handling step (docs/ENGINE_API.md)."""
    group = parser.add_argument_group(_("text handling (default: all on)"))
    group.add_argument(
        "--spans",
        choices=SPANS,
        default=None,
        help=_(
            "sentences with numbers, URLs, codes or glossary terms: 'whole' (default) "
            "translates the whole sentence and keeps it when every span is in the output, "
            "else cuts it around them; 'cut' always cuts; 'off' protects nothing"
        ),
    )
    group.add_argument(
        "--raw",
        action="store_true",
        help=_("the model's own output: every step below off, spans off, no length bound"),
    )
    for flag, what in (
        ("--no-repetition-guard", _("do not end a sentence whose output starts to loop")),
        ("--no-chinese-punctuation", _("do not make ASCII punctuation next to Chinese full-width")),
        ("--no-protect-numbers", _("do not copy numbers, prices, dates and times verbatim")),
        ("--no-keep-cjk", _("do not copy sentences that are already Chinese/Japanese/Korean")),
    ):
        group.add_argument(flag, action="store_true", help=what)


def _text_handling_of(args: argparse.Namespace) -> dict[str, Any]:
    """GenerationOptions fields from ``--raw``, ``--spans`` and the ``--no-...`` switches."""
    options: dict[str, Any]
    if not getattr(args, "raw", False):
        options = {}
    elif getattr(args, "glossary", None):
        raise UsageError(_("--raw protects nothing, so it cannot apply a --glossary"))
    else:
        options = dict(RAW)
    for name in ("repetition_guard", "chinese_punctuation", "protect_numbers", "keep_cjk"):
        if getattr(args, f"no_{name}", False):
            options[name] = False
    if getattr(args, "spans", None):
        options["spans"] = args.spans
    return options


def _positive(text: str) -> int:
    value = int(text) if text.strip().lstrip("-").isdigit() else None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(_("expected a whole number >= 1, got {text!r}").format(text=text))
    return value


def _non_negative(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(_("expected a whole number >= 0, got {text!r}").format(text=text))
    return int(text)


# --- translate ---------------------------------------------------------------------------


def make_translator(args: argparse.Namespace, variant: Variant | None = None) -> TwoWayTranslator:
    """A two-way translator (``app.factory.build_translator``) from the command-line options:
    ``--model`` (a folder or name, or a list of them: one per direction), ``--to`` and the
    decoding options (raises DesktopMTError). argparse's ``choices`` said a bad
    ``--to``/``--script``/``--variant`` already; the checks here give them their types."""
    options = GenerationOptions(
        beams=getattr(args, "beams", None),
        max_length=getattr(args, "max_length", None),
        script=check_script(getattr(args, "script", None) or SIMPLIFIED),
        glossary=_glossary_of(args),
        target=check_target(getattr(args, "to", None) or AUTO),
        **_text_handling_of(args),
    )
    session = SessionOptions(intra_op_threads=args.threads or 0, provider=args.provider)
    models = [args.model] if isinstance(args.model, str) else args.model
    return build_translator(
        models or None,
        variant=variant or check_variant(args.variant or "int8"),
        session_options=session,
        options=options,
        target_token=getattr(args, "target_token", None),
        batch_size=getattr(args, "batch_size", None) or DEFAULT_BATCH_SIZE,
    )


def _glossary_of(args: argparse.Namespace) -> Glossary | None:
    """``--glossary FILE`` loaded (a ``GlossaryError`` names the file and line), else None."""
    path = getattr(args, "glossary", None)
    return Glossary.load(path) if path else None


def _cmd_translate(args: argparse.Namespace) -> int:
    """``desktop-mt translate``."""
    jobs = _plan_jobs(args)  # usage errors before the (slow) model load
    translator: TranslatorFace
    try:
        memory = _memory_of(args)  # a bad TMX file is named before the model loads
        translator = make_translator(args)
    except UsageError:
        raise  # main() prints the usage (exit 2)
    except DesktopMTError as exc:  # a missing model, a bad glossary or TMX file (tm.tmx.TMXError), no tm extra
        print(_("desktop-mt: error: {message}").format(message=i18n.describe(exc)), file=sys.stderr)
        return EXIT_FAILED
    with_memory = MemoryTranslator(translator, memory) if memory is not None else None
    translator = with_memory or translator
    try:
        if jobs is None:
            status = _translate_stdin(args, translator)
        else:  # picture.png -> picture.zh.txt
            images = [job for job in jobs if is_image_file(job[0], args.format)]
            files = [job for job in jobs if job not in images]
            status = translate_images(args, translator, images) if images else EXIT_OK
            status = max(status, _translate_files(args, translator, files) if files else EXIT_OK)
        _print_span_counts(translator)
        _print_memory_counts(args, with_memory)
        return status
    except DesktopMTError as exc:  # e.g. stdin needs a direction without a model (named in the message)
        print(_("desktop-mt: error: {message}").format(message=i18n.describe(exc)), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(
            "\n" + _("desktop-mt: interrupted; the progress is kept: rerun the same command with --resume to continue"),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        translator.close()


def _memory_of(args: argparse.Namespace) -> TranslationMemory | None:
    """``--tm FILE.tmx`` read into an in-memory translation memory (both directions), else None;
    the user's own memory is not touched. A file that cannot be read raises ``tm.tmx.TMXError``
    naming it; without the tm extra, a DesktopMTError saying how to install it."""
    path = getattr(args, "tm", None)
    if not path:
        return None
    try:  # the tm extra (rapidfuzz, translate-toolkit): asked for here, loaded only with --tm
        import rapidfuzz  # noqa: F401
        import translate.storage.tmx  # noqa: F401
    except ImportError as exc:
        raise DesktopMTError(
            _("--tm needs the translation-memory part ({module} is missing): {fix}").format(
                module=exc.name, fix=extra_hint("tm")
            )
        ) from exc
    memory = TranslationMemory(":memory:")
    for name in DIRECTIONS:
        import_tmx(memory, path, name)
    if not memory.count():
        print(
            _("desktop-mt: {file}: no English-Chinese sentence pairs in this memory").format(file=path), file=sys.stderr
        )
    return memory


def _print_memory_counts(args: argparse.Namespace, translator: MemoryTranslator | None) -> None:
    """``--tm``: on stderr, how many sentences came from the memory and how many texts the model got."""
    if translator is not None:
        print(f"desktop-mt: {translator.counts} ({args.tm})", file=sys.stderr)


def _print_span_counts(translator: TranslatorFace) -> None:
    """On stderr, how the sentences with protected spans went (whole / cut), if there were any."""
    counts = translator.span_counts
    if counts.whole or counts.cut:
        print(f"desktop-mt: {counts}", file=sys.stderr)


def _plan_jobs(args: argparse.Namespace) -> list[tuple[Path, Path | None]] | None:
    """``[(src, dst)]`` for file inputs (dst None = next to the input), None for stdin."""
    files = list(args.files)
    if not files or files == ["-"]:
        if args.out_dir:
            raise UsageError(_("--out-dir needs input files (stdin goes to stdout or -o)"))
        return None
    if "-" in files:
        raise UsageError(_("'-' (stdin) cannot be mixed with files"))
    if args.output and len(files) > 1:
        raise UsageError(_("-o takes one input file; use --out-dir for several"))
    if args.output:  # "-": stdout (see _translate_files)
        return [(Path(files[0]), Path(args.output))]
    if args.out_dir:
        out_dir = Path(args.out_dir)
        if out_dir.exists() and not out_dir.is_dir():
            raise UsageError(_("--out-dir {folder} is not a folder").format(folder=out_dir))
        jobs: list[tuple[Path, Path | None]] = [(Path(f), out_dir / Path(f).name) for f in files]
        names = [dst for _, dst in jobs]
        if len(set(names)) != len(names):
            raise UsageError(_("two inputs have the same file name; they would share one output"))
        return jobs
    return [(Path(f), None) for f in files]


def _translate_files(
    args: argparse.Namespace, translator: BatchTranslator, jobs: list[tuple[Path, Path | None]]
) -> int:
    status = EXIT_OK
    for src, dst in jobs:
        if dst == _STDOUT:
            return _translate_file_to_stdout(args, translator, src)
        started = time.perf_counter()
        with _ProgressBar(src.name, args.progress) as bar:
            try:
                if dst is not None:
                    _make_output_folder(dst)
                summaries: list[object] = []
                out = translate_file(
                    src,
                    dst,
                    translator,
                    fmt=args.format,
                    resume=args.resume,
                    progress=bar.update,
                    encoding=args.encoding,
                    on_resume=_print_resume_report,
                    bilingual=args.bilingual,
                    join_lines=args.join_lines,
                    on_summary=summaries.append,
                    chunk_size=args.chunk_size,
                    overwrite_machine=args.overwrite_mt,
                )
            except (BatchInputError, BatchOutputError) as exc:  # they name the file
                bar.close()
                print(_("desktop-mt: error: {message}").format(message=_file_error_message(exc)), file=sys.stderr)
                status = EXIT_FAILED
                continue
            except (DesktopMTError, OSError) as exc:
                bar.close()
                print(_("desktop-mt: error: {message}").format(message=f"{src}: {i18n.describe(exc)}"), file=sys.stderr)
                status = EXIT_FAILED
                continue
        seconds = time.perf_counter() - started
        done = _("{summary}, {seconds} s").format(summary=summaries[0], seconds=f"{seconds:.1f}")
        print(f"{src} -> {out} ({done})", file=sys.stderr)
    return status


def _make_output_folder(dst: Path) -> None:
    """Create the folder of ``-o`` / ``--out-dir`` if needed; a failure names the output."""
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BatchOutputError(exc, dst) from exc


def _print_resume_report(report: ResumeReport) -> None:
    """``--resume``: say how much was recovered, or why the job starts over."""
    print(f"desktop-mt: {report}", file=sys.stderr)


def _file_error_message(
    exc: BatchInputError | BatchOutputError, resume: str | None = None, choose: str | None = None
) -> str:
    """The message of a batch input/output error, with the CLI's words for the remedies
    (default: rerun with --resume; choose another output folder)."""
    if isinstance(exc, BatchOutputError):
        return exc.describe(
            resume_hint=resume or _("then rerun the same command with --resume"),
            choose_folder_hint=choose or _("choose another output folder with -o or --out-dir"),
        )
    return i18n.describe(exc)


def _translate_stdin(args: argparse.Namespace, translator: BatchTranslator) -> int:
    fmt = "txt" if args.format == "auto" else args.format
    if args.output in (None, "-") and sys.stdin.isatty() and fmt == "txt":
        return _translate_interactive(translator, args.bilingual)
    return _translate_data(args, translator, sys.stdin.buffer.read(), "<stdin>", fmt)


def _translate_file_to_stdout(args: argparse.Namespace, translator: BatchTranslator, src: Path) -> int:
    """``translate FILE -o -``: the translation on stdout (no journal: nothing to resume)."""
    try:
        fmt = detect_format(src, args.format)
        data = read_input(src)
    except BatchInputError as exc:
        print(_("desktop-mt: error: {message}").format(message=i18n.describe(exc)), file=sys.stderr)
        return EXIT_FAILED
    return _translate_data(args, translator, data, str(src), fmt)


def _translate_data(args: argparse.Namespace, translator: BatchTranslator, data: bytes, name: str, fmt: str) -> int:
    """Translate a document's bytes to stdout, or to ``-o FILE``."""
    try:
        document = load_document(
            data,
            name,
            fmt,
            args.encoding,
            bilingual=args.bilingual,
            join_lines=args.join_lines,
            overwrite_machine=args.overwrite_mt,
        )
    except BatchInputError as exc:
        print(_("desktop-mt: error: {message}").format(message=i18n.describe(exc)), file=sys.stderr)
        return EXIT_FAILED
    options = document_options(document, translator, None)  # an XLIFF's or PO's own languages
    with _ProgressBar(Path(name).name if name != "<stdin>" else "stdin", args.progress) as bar:
        translations = translate_segments(
            document.segments, translator, options=options, progress=bar.update, chunk_size=args.chunk_size
        )
    _print_kept(document.segments, translator)
    if args.output in (None, "-"):
        document.write(translations, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        return _write_stdin_output(Path(args.output), document, translations)
    return EXIT_OK


def _print_kept(segments: Sequence[str], translator: BatchTranslator) -> None:
    """stdin: say on stderr how many lines were kept as they were, and why (already in the
    target language, Japanese or Korean, no model for their direction), if any."""
    kept = count_kept(segments, translator)
    if kept:
        print(
            _("desktop-mt: {count} kept as they were ({reason})").format(
                count=kept, reason=kept_reason(segments, translator)
            ),
            file=sys.stderr,
        )


def _write_stdin_output(dst: Path, document: Document, translations: list[str]) -> int:
    """``-o FILE`` for stdin input; a file-system failure names FILE (nothing to resume)."""
    try:
        atomic_write(dst, lambda f: document.write(translations, f))
    except OSError as exc:
        message = _file_error_message(
            BatchOutputError(exc, dst), resume=_("then run it again"), choose=_("choose another output with -o")
        )
        print(_("desktop-mt: error: {message}").format(message=message), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _translate_interactive(translator: BatchTranslator, bilingual: bool = False) -> int:
    """A terminal on stdin: translate each line as soon as it is entered."""
    for line in sys.stdin:
        document = text_format.load(line.encode("utf-8", "surrogateescape"), "<stdin>", None, bilingual=bilingual)
        translations = translate_segments(document.segments, translator)
        sys.stdout.write(document.render_text(translations))
        sys.stdout.flush()
    return EXIT_OK


class _ProgressBar:
    """tqdm on stderr: segments done/total, segments/s, ETA. Quiet unless stderr is a
    terminal or ``--progress`` was given."""

    def __init__(self, label: str, forced: bool) -> None:
        self._label = label
        self._enabled = forced or sys.stderr.isatty()
        self._bar: tqdm[Any] | None = None
        self.total = 0

    def __enter__(self) -> _ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, done: int, total: int) -> None:
        """The ``progress(done, total)`` callback."""
        self.total = total
        if not self._enabled:
            return
        if self._bar is None:
            from tqdm import tqdm  # ~50 ms: only when a bar is shown

            # initial=done: a resumed run starts part-way, and its rate counts only new work.
            self._bar = tqdm(
                total=total,
                initial=done,
                unit="seg",
                desc=self._label,
                file=sys.stderr,
                dynamic_ncols=True,
                mininterval=0.5,
            )
        else:
            self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


# --- serve -------------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
    """``desktop-mt serve``: FastAPI and uvicorn are imported only here (the 'server' extra)."""
    try:
        from ..server.run import serve_from_args  # the server extra (FastAPI, uvicorn): only for serve
    except ImportError as exc:
        print(
            _("desktop-mt: error: the server is not installed ({error}).\nInstall the 'server' extra: {fix}").format(
                error=exc, fix=extra_hint("server")
            ),
            file=sys.stderr,
        )
        return EXIT_FAILED
    return serve_from_args(args)


# --- self-test ---------------------------------------------------------------------------


def _cmd_self_test(args: argparse.Namespace) -> int:
    """``desktop-mt self-test``: load the model of each direction headless (every variant, or
    ``--variant``) and translate a fixed sentence of its source language."""
    models = [args.model] if isinstance(args.model, str) else args.model
    try:
        folders = {name: folder for name, folder in model_folders(models or None).items() if folder is not None}
        infos = {name: inspect_model_dir(folder) for name, folder in folders.items()}
    except DesktopMTError as exc:
        return _self_test_failed(_("no usable model: {error}").format(error=exc))
    failures = []
    for name, info in infos.items():
        print(
            _("{direction} model: {name} ({architecture}, {pair}) at {folder}; variants {variants}").format(
                direction=name,
                name=info.name,
                architecture=info.architecture,
                pair=f"{info.source_lang}->{info.target_lang}",
                folder=info.path,
                variants=", ".join(info.variants),
            )
        )
        for variant in [check_variant(args.variant)] if args.variant else list(info.variants):
            problem = _self_test_variant(args, name, info.path, variant)
            if problem:
                failures.append(f"{name} {variant}: {problem}")
    for missing in sorted(set(DIRECTIONS) - set(infos)):
        print(
            _("{direction}: no model (`desktop-mt models download {name}` adds one)").format(
                direction=missing, name=catalog_model_for(missing)
            )
        )
    for module in ("torch", "PySide6"):
        if module in sys.modules:
            failures.append(_("{module} was imported by the headless engine").format(module=module))
    if failures:
        return _self_test_failed("; ".join(failures))
    print(_("self-test passed"))
    return EXIT_OK


# A sentence per direction, and the script its translation must be written in.
_SELF_TEST_SENTENCES = {EN_ZH: _SELF_TEST_SENTENCE, ZH_EN: "今天天气很好，我们去公园散步吧。"}


def _self_test_variant(args: argparse.Namespace, name: str, model_dir: Path, variant: Variant) -> str | None:
    """Translate the direction's fixed sentence with one variant; returns a problem, or None if fine."""
    args = argparse.Namespace(**{**vars(args), "model": [str(model_dir)]})
    try:
        started = time.perf_counter()
        translator = make_translator(args, variant)
        try:
            loaded = time.perf_counter()
            result = translator.translate(_SELF_TEST_SENTENCES[name])
            done = time.perf_counter()
        finally:
            translator.close()
    except (DesktopMTError, OSError) as exc:  # a broken model file is a ModelFormatError naming it and the fix
        return str(exc)
    print(f"{name} {variant}: {result}")
    timings = _("load {load} s, translate {translate} s").format(
        load=f"{loaded - started:.2f}", translate=f"{done - loaded:.2f}"
    )
    print(f"  {timings}")
    if not result.strip():
        return _("the translation is empty")
    has_han = any("\u4e00" <= c <= "\u9fff" for c in result)
    if name == EN_ZH and not has_han:
        return _("the translation has no Chinese characters: {text!r}").format(text=result)
    if name == ZH_EN and (has_han or not any(c.isascii() and c.isalpha() for c in result)):
        return _("the translation is not English: {text!r}").format(text=result)
    return None


def _self_test_failed(reason: str) -> int:
    print(_("self-test FAILED: {reason}").format(reason=reason), file=sys.stderr)
    return EXIT_FAILED
