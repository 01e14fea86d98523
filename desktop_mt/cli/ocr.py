"""Images on the command line: ``desktop-mt ocr`` and the image files of ``desktop-mt translate``.

    desktop-mt ocr picture.png [--lines | --json]    the text in the image, on stdout
    desktop-mt translate picture.png                 -> picture.zh.txt: the text, then its translation
    desktop-mt translate picture.png --bilingual     -> each recognised line, then its translation

A file counts as an image by its suffix (PNG, JPEG, WebP, BMP, GIF, TIFF). Recognition runs
offline (``desktop_mt.ocr``); a file that is not an image, is damaged or too large, or shows no
text gets a message naming it and exit status 1, and the other files still run. Scanned PDFs are
not read (``translate`` refuses .pdf as before): render the page to an image first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..app.i18n import _, ngettext
from ..base.errors import DesktopMTError
from ..batch import BatchTranslator, translate_segments
from ..batch import txt as text_format
from ..engine import direction
from ..engine.direction import Target
from ..ocr import OcrEngine, OcrResult, is_image_path

__all__ = [
    "OUTPUT_SEPARATOR",
    "add_ocr_parser",
    "is_image_file",
    "translate_images",
]

OUTPUT_SEPARATOR = "\n\n---\n\n"  # between the recognised text and its translation in NAME.zh.txt


def add_ocr_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``desktop-mt ocr``."""
    ocr = sub.add_parser(
        "ocr",
        help=_("print the text in images (offline OCR)"),
        description=_(
            "Recognise the text in images (PNG, JPEG, WebP, BMP, GIF, TIFF) "
            "and print it: paragraphs joined, one blank line between them."
        ),
    )
    ocr.add_argument("files", nargs="+", metavar="IMAGE", help=_("image files"))
    shape = ocr.add_mutually_exclusive_group()
    shape.add_argument("--lines", action="store_true", help=_("one recognised line per output line, not joined"))
    shape.add_argument(
        "--json",
        action="store_true",
        help=_("JSON per image: text, lines with their boxes [x0, y0, x1, y1] and confidence"),
    )
    ocr.add_argument("--threads", type=int, default=0, metavar="N", help=_("ONNX Runtime threads (0: automatic)"))
    ocr.set_defaults(func=_cmd_ocr)


def is_image_file(path: Path, fmt: str = "auto") -> bool:
    """Whether ``translate`` reads ``path`` as an image (only with ``--format auto``)."""
    return fmt == "auto" and is_image_path(path)


def _cmd_ocr(args: argparse.Namespace) -> int:
    """``desktop-mt ocr``: print the text of each image."""
    engine = OcrEngine(threads=args.threads)
    status = 0
    for i, name in enumerate(args.files):
        result = _read(engine, Path(name))
        if result is None:
            status = 1
            continue
        if args.json:
            print(
                json.dumps(
                    {
                        "file": name,
                        "text": result.text,
                        "size": list(result.size),
                        "lines": [
                            {
                                "text": line.text,
                                "box": [line.box.x0, line.box.y0, line.box.x1, line.box.y1],
                                "confidence": round(line.confidence, 4),
                            }
                            for line in result.lines
                        ],
                    },
                    ensure_ascii=False,
                )
            )
            continue
        if len(args.files) > 1:
            print(("\n" if i else "") + f"==> {name} <==")
        print("\n".join(result.line_texts) if args.lines else result.text)
    return status


def _read(engine: OcrEngine, path: Path) -> OcrResult | None:
    """The OcrResult of ``path``, or None after printing why there is none."""
    try:
        result = engine.read_file(path)
    except DesktopMTError as exc:  # ImageError names the file; OcrError the model file
        print(_("desktop-mt: error: {message}").format(message=exc), file=sys.stderr)
        return None
    if result.empty:
        message = f"{path}: " + _("no text was found in the image")  # NO_TEXT, the OCR's words
        print(_("desktop-mt: error: {message}").format(message=message), file=sys.stderr)
        return None
    return result


def translate_images(
    args: argparse.Namespace, translator: BatchTranslator, jobs: list[tuple[Path, Path | None]]
) -> int:
    """``desktop-mt translate`` for image files: OCR, translate, write ``NAME.zh.txt`` (or
    ``NAME.en.txt`` when the text is Chinese and goes into English), ``-o`` or ``--out-dir``."""
    engine = OcrEngine()
    status = 0
    for src, dst in jobs:
        result = _read(engine, src)
        if result is None:
            status = 1
            continue
        try:
            text = _render(result.text, translator, args.bilingual)
        except DesktopMTError as exc:  # e.g. Chinese text and no Chinese->English model
            print(_("desktop-mt: error: {message}").format(message=f"{src}: {exc}"), file=sys.stderr)
            status = 1
            continue
        if dst is not None and str(dst) == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
            continue
        out = _output_path(src, dst, result.text, getattr(args, "to", "auto"))
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            message = _("{file}: cannot be written ({error})").format(file=out, error=exc.strerror or exc)
            print(_("desktop-mt: error: {message}").format(message=message), file=sys.stderr)
            status = 1
            continue
        count = ngettext(
            "{count} line recognised in {seconds} s", "{count} lines recognised in {seconds} s", len(result.line_texts)
        ).format(count=len(result.line_texts), seconds=f"{result.seconds:.1f}")
        print(f"{src} -> {out} ({count})", file=sys.stderr)
    return status


def _render(text: str, translator: BatchTranslator, bilingual: bool) -> str:
    """The output file's text: the recognised text, a ``---`` line and the translation; with
    ``bilingual``, each paragraph followed by its translation."""
    document = text_format.load(text.encode("utf-8"), "<image>", None, bilingual=bilingual)
    translated = document.render_text(translate_segments(document.segments, translator))
    body = translated if bilingual else text + OUTPUT_SEPARATOR + translated
    return body.rstrip("\n") + "\n"


def _output_path(src: Path, dst: Path | None, text: str, target: Target) -> Path:
    """``dst`` (``-o`` or ``--out-dir``: the image's name with ``.txt`` added there), else
    ``NAME.zh.txt`` next to the image (``NAME.en.txt`` for Chinese text translated into English)."""
    if dst is not None:
        return dst if dst.suffix.lower() == ".txt" else dst.with_name(dst.name + ".txt")
    lang = "en" if target == "en" or (target == "auto" and direction.paragraph_language(text) == direction.ZH) else "zh"
    return src.with_name(f"{src.stem}.{lang}.txt")
