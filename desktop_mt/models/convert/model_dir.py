"""A downloaded Marian's folder converted in place: ``converted/`` written, checked, and recorded.

The downloaded files stay on disk and in the manifest's ``download`` record; the new files enter
the manifest with their sha256 and size, so they are verified like any other.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path
from typing import Any

from ...engine import model_format as mf
from .files import CONVERTED_DIR, FILES, INT8_ENTRY, file_entry, relative, save_mapped
from .find_graph import find_decoder_weights
from .graphs import build_cross_kv, build_decoder_step
from .onnx_graph import GraphConstants, onnx_module
from .quantize import quantize_encoder
from .spec import ConversionRefused, Dims, MarianDecoderWeights, read_dims
from .validate import validate

__all__ = [
    "Conversion",
    "decoder_file",
    "convertible",
    "convert_model_dir",
]

_CHECKED = ("cross_kv", "decoder_step")  # the fp32 step graphs: always built to check the conversion


@dataclasses.dataclass(frozen=True)
class Conversion:
    """What :func:`convert_model_dir` did."""

    files: dict[str, dict[str, str]]  # variant -> role -> path relative to the model folder
    seconds: float
    validation: dict[str, Any]


def decoder_file(info: mf.ModelInfo) -> Path:
    """The downloaded fp32 decoder that holds every weight (first-step or merged)."""
    files = info.files.get("fp32", {})
    for role in ("decoder", "decoder_merged"):
        if role in files:
            return files[role]
    if "decoder_step" in files:
        raise ConversionRefused(f"{info.path} is already in the step layout")
    raise ConversionRefused(f"{info.path} has no fp32 decoder to convert (only int8 was downloaded)")


def convertible(info: mf.ModelInfo) -> bool:
    """Whether :func:`convert_model_dir` applies: a Marian with fp32 Optimum/transformers.js decoders
    whose int8 is not already our step layout."""
    fp32 = info.files.get("fp32", {})
    int8 = info.files.get("int8", {})
    has_decoder = "decoder" in fp32 or "decoder_merged" in fp32
    return info.architecture == "marian" and has_decoder and "decoder_step" not in int8


def convert_model_dir(model_dir: Path, fp32_step: bool = False) -> Conversion:
    """Convert an installed Marian (with a manifest) in place: write ``converted/`` and point the
    manifest's int8 variant (and with ``fp32_step`` its fp32 variant) at it.

    Raises :class:`ConversionRefused` (a ``ModelFormatError``) without changing the manifest when
    the graphs do not match or the check against the downloaded fp32 model fails.
    """
    started = time.perf_counter()
    info = mf.inspect_model_dir(model_dir)
    if info.manifest is None:
        raise ConversionRefused(f"{model_dir} has no {mf.MANIFEST}: install it before converting")
    dims = read_dims(info.config)
    source = decoder_file(info)
    weights = find_decoder_weights(GraphConstants(onnx_module().load(str(source))), dims)
    out = Path(model_dir) / CONVERTED_DIR
    staging = Path(model_dir) / f".{CONVERTED_DIR}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        made = _write_graphs(staging, info, weights, dims, fp32_step)
        del weights  # ~300 MB of float arrays for opus-mt: not needed for the checks
        validation = validate(info, staging, made)
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    seconds = time.perf_counter() - started
    record = {"from": relative(source, model_dir), "seconds": round(seconds, 1), "validation": validation}
    files = _record(info, dict(info.manifest), Path(model_dir), made, record)
    return Conversion(files, seconds, validation)


def _write_graphs(
    staging: Path, info: mf.ModelInfo, weights: MarianDecoderWeights, dims: Dims, fp32_step: bool
) -> dict[str, dict[str, str]]:
    """The int8 graphs (the downloaded encoder quantized) and the fp32 step graphs that check them."""
    names, fp32 = FILES["int8"], FILES["fp32"]
    save_mapped(build_cross_kv(weights, dims, int8=True), staging / names["cross_kv"])
    save_mapped(build_decoder_step(weights, dims, int8=True), staging / names["decoder_step"])
    encoder = onnx_module().load(str(info.files["fp32"]["encoder"]))
    save_mapped(quantize_encoder(encoder), staging / names["encoder"])
    save_mapped(build_cross_kv(weights, dims, int8=False), staging / fp32["cross_kv"])
    save_mapped(build_decoder_step(weights, dims, int8=False), staging / fp32["decoder_step"])
    made = {"int8": dict(names), "fp32-check": {role: fp32[role] for role in _CHECKED}}
    if fp32_step:  # kept only when asked
        made["fp32"] = dict(made["fp32-check"])
    return made


def _record(
    info: mf.ModelInfo,
    manifest: dict[str, Any],
    model_dir: Path,
    made: dict[str, dict[str, str]],
    record: dict[str, Any],
) -> dict[str, dict[str, str]]:
    """Point ``manifest``'s variants in ``made`` at ``converted/``, say how they were made and
    write it; returns variant -> role -> file."""
    variants = dict(manifest.get("variants", {}))
    for variant, roles in made.items():
        entries = {r: file_entry(model_dir, f"{CONVERTED_DIR}/{n}") for r, n in roles.items()}
        if "encoder" not in entries:  # the fp32 step variant reads the downloaded encoder
            downloaded = relative(info.files[variant]["encoder"], model_dir)
            entries = {"encoder": file_entry(model_dir, downloaded), **entries}
        variants[variant] = {"files": entries}
    manifest["variants"] = variants
    manifest["int8"] = dict(INT8_ENTRY)
    manifest["converted"] = {"by": "desktop_mt.models.convert", "layout": "step", **record}
    mf.write_manifest(model_dir, manifest)
    return {v: {r: spec["file"] for r, spec in variants[v]["files"].items()} for v in made}
