"""The catalog of downloadable models (``resources/catalog.json``, shipped as package data).

Each entry pins a Hub repository at a commit and names the files that make each variant (a
variant with ``built_from: "fp32"`` downloads the fp32 files and is built from them at install);
sizes and hashes are not in the catalog: they come from the Hub's metadata for that commit at
download time (a mirror that serves other bytes fails verification). ``DESKTOP_MT_CATALOG`` may name an
extra catalog file whose entries are added to (or replace by name) the shipped ones: tests use it,
and so can an administrator who mirrors other models.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from ..base.errors import ModelFormatError, ModelNotFoundError
from ..base.resources_path import resource_path

__all__ = [
    "VariantSpec",
    "CatalogEntry",
    "load_catalog",
    "catalog_entry",
]

_CATALOG_ENV = "DESKTOP_MT_CATALOG"


_CHECKPOINT_ROLE = "checkpoint"  # a variant built at install from a Marian state dict (model.safetensors)


@dataclasses.dataclass(frozen=True)
class VariantSpec:
    """The files of one variant: ``files`` maps a role (``encoder``, ``decoder_merged``,
    ``decoder``, ``decoder_with_past``) to its path in the repository; or, for a checkpoint
    repository, ``{"checkpoint": "model.safetensors"}``: the variant is built from the state dict
    at install (``models.convert.checkpoint``, no torch)."""

    files: dict[str, str]
    approx_bytes: int = 0
    int8_kind: str | None = None
    # "fp32": ``files`` are the fp32 files; this variant is built from them at install
    # (``models.convert``: per-row int8 in the decoder-step layout), and they also install as fp32.
    built_from: str | None = None


@dataclasses.dataclass(frozen=True)
class CatalogEntry:
    """One downloadable model, pinned to a revision."""

    name: str
    title: str
    repo: str
    revision: str
    architecture: str
    source_lang: str
    target_lang: str
    licence: str
    attribution: str
    variants: dict[str, VariantSpec]
    common_files: tuple[str, ...] = ("config.json", "generation_config.json")
    tokenizer_files: tuple[str, ...] = ("source.spm", "target.spm", "vocab.json")
    # Where the tokenizer files come from when the repo lacks them: the checkpoint's own repo.
    tokenizer_fallback: dict[str, str] | None = None
    target_token: str | None = None
    licence_note: str = ""
    homepage: str = ""
    description: str = ""
    # The published scores the model card gives (e.g. "FLORES-200 devtest: 32.2 BLEU"), shown as they are.
    scores: str = ""

    def approx_bytes(self, variant: str) -> int:
        return self.variants[variant].approx_bytes

    @property
    def is_checkpoint(self) -> bool:
        """The repository holds a Marian checkpoint (safetensors), built into ONNX at install."""
        return any(_CHECKPOINT_ROLE in v.files for v in self.variants.values())


def _entry(data: dict[str, Any], source: Path) -> CatalogEntry:
    try:
        variants = {
            v: VariantSpec(
                dict(spec["files"]), int(spec.get("approx_bytes", 0)), spec.get("int8_kind"), spec.get("built_from")
            )
            for v, spec in data["variants"].items()
        }
        fields = {f.name for f in dataclasses.fields(CatalogEntry)}
        kwargs: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in fields}
        kwargs["variants"] = variants
        return CatalogEntry(**kwargs)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelFormatError(
            f"{source}: catalog entry {data.get('name', '?')!r} is malformed ({exc}); fix or remove it"
        ) from exc


def _read(path: Path) -> list[CatalogEntry]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(
            f"{path} is not a readable model catalog ({exc}); fix it or unset {_CATALOG_ENV}"
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ModelFormatError(f'{path} must hold {{"models": [...]}}; fix it or unset {_CATALOG_ENV}')
    return [_entry(item, path) for item in data["models"]]


def _catalog_file() -> Path:
    """The shipped catalog, ``desktop_mt/resources/catalog.json`` (found like the bundled model)."""
    return resource_path("catalog.json")


def load_catalog() -> list[CatalogEntry]:
    """The shipped catalog plus the entries of ``$DESKTOP_MT_CATALOG`` (same name: replaced)."""
    entries = {e.name: e for e in _read(_catalog_file())}
    extra = os.environ.get(_CATALOG_ENV)
    if extra:
        entries.update({e.name: e for e in _read(Path(extra))})
    return list(entries.values())


def catalog_entry(name: str) -> CatalogEntry:
    """The catalog entry called ``name``; :class:`ModelNotFoundError` lists the known names."""
    entries = load_catalog()
    for entry in entries:
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in entries) or "none"
    raise ModelNotFoundError(f"no model {name!r} in the catalog (known: {known}); `desktop-mt models list` shows them")
