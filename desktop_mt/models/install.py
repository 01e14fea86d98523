"""Turn a verified staging folder into an installed model: manifest, validation, one rename."""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from ..base.errors import ModelDownloadError, ModelFormatError, ModelNotFoundError
from ..engine.model_format import (
    FORMAT_VERSION,
    MANIFEST,
    inspect_model_dir,
    marian_tokenizer_spec,
    read_json,
    sha256_file,
    write_manifest,
)
from ..engine.tokenizer import vocab_target_tokens
from . import convert
from .catalog import CatalogEntry
from .convert import checkpoint
from .hub import RemoteFile

__all__ = [
    "install_staged",
    "needs_install",
    "added_before",
    "conversion_refused",
    "free_target",
    "STALE_STAGING_S",
    "remove_stale_staging",
    "install_folder",
    "reuse_installed",
]


def install_staged(
    entry: CatalogEntry, variant: str, files: list[RemoteFile], staging: Path, target: Path, endpoint: str
) -> Path:
    """Write the manifest into ``staging``, check the model loads, and move it to ``target``.

    Variants already installed in ``target`` from the same revision are kept (their files are
    hard-linked, or copied, into the new folder), so adding fp32 next to int8 never removes int8.
    """
    old = reuse_installed(entry, target, staging)
    if entry.is_checkpoint:
        return _install_downloaded_checkpoint(entry, files, staging, target, endpoint)
    manifest = _build_download_manifest(entry, variant, files, staging, endpoint, old)
    (staging / "source.json").unlink(missing_ok=True)
    write_manifest(staging, manifest)
    try:
        inspect_model_dir(staging)
    except (ModelNotFoundError, ModelFormatError) as exc:
        (staging / MANIFEST).unlink(missing_ok=True)
        raise ModelDownloadError(
            f"the downloaded files of {entry.name} do not form a usable model ({exc}); nothing was installed"
        ) from exc
    _convert_staged(staging)
    built_from = entry.variants[variant].built_from
    if built_from:
        _ensure_variant(staging, variant, built_from)
    _swap_into_place(staging, target)
    return target


def _install_downloaded_checkpoint(
    entry: CatalogEntry, files: list[RemoteFile], staging: Path, target: Path, endpoint: str
) -> Path:
    """A catalog checkpoint (``model.safetensors``, verified against the Hub's hash by the
    download) built into both variants of the step layout in ``staging``, without torch; the
    manifest records where it came from, as for an ONNX download. A refusal is a download error:
    there is no downloaded layout to fall back to."""
    shutil.rmtree(staging / convert.CONVERTED_DIR, ignore_errors=True)
    try:
        manifest = checkpoint.install_checkpoint(staging, staging)
    except ModelFormatError as exc:
        raise ModelDownloadError(f"{entry.name} could not be built from {entry.repo}: {exc}") from exc
    manifest["name"] = entry.name
    manifest["source_lang"], manifest["target_lang"] = entry.source_lang, entry.target_lang
    manifest["download"] = {
        "repo": entry.repo,
        "revision": entry.revision,
        "commit": next((f.revision for f in files if f.repo == entry.repo), entry.revision),
        "endpoint": endpoint,
        "files": {f.path: {"repo": f.repo, "bytes": f.size, f.digest_name: f.expected_digest} for f in files},
        "licence": entry.licence,
        "attribution": entry.attribution,
    }
    if entry.target_token and entry.target_token in manifest.get("target_tokens", []):
        manifest["target_token"] = entry.target_token
    write_manifest(staging, manifest)
    inspect_model_dir(staging)
    _swap_into_place(staging, target)
    return target


def _ensure_variant(folder: Path, variant: str, source: str) -> None:
    """A variant built at install (``built_from``) that the conversion did not make (refused,
    or not a model it applies to) points at the files it was to be built from, so the model
    works as downloaded; ``converted.refused`` says why in ``models list`` and the dialog."""
    manifest = read_json(folder / MANIFEST)
    variants = manifest.get("variants", {})
    if variant in variants or source not in variants:
        return
    variants[variant] = variants[source]
    manifest.pop("int8", None)  # these are the fp32 files: no int8 kind to claim
    write_manifest(folder, manifest)


def _convert_staged(folder: Path) -> dict[str, Any]:
    """Build the fastest layout and int8 kind from the downloaded files (``models.convert``: the
    decoder-step layout with per-row int8, from the fp32 files) and return the manifest's
    ``converted`` record. A model the converter does not apply to is left as it is; one it refuses
    (graphs it does not recognise, a check against the downloaded fp32 model that fails) stays
    usable as downloaded, and the manifest says why (``converted.refused``)."""
    info = inspect_model_dir(folder)
    if not convert.convertible(info):
        return {}
    try:
        convert.convert_model_dir(folder)
    except Exception as exc:  # noqa: BLE001 - an optimisation: any failure leaves the download as it is
        manifest = read_json(folder / MANIFEST)
        manifest["converted"] = {"refused": str(exc)}
        write_manifest(folder, manifest)
    converted: dict[str, Any] = read_json(folder / MANIFEST).get("converted", {})
    return converted


def needs_install(folder: Path) -> bool:
    """True for a folder :func:`install_folder` installs and converts (a Marian in Optimum's or
    transformers.js's layout, without our manifest, or a Marian checkpoint: config.json +
    model.safetensors); False for one that is used in place."""
    if checkpoint.is_checkpoint(folder):
        return True
    info = inspect_model_dir(folder)
    return info.manifest is None and convert.convertible(info)


def added_before(folder: Path, models: Path) -> Path | None:
    """The model in ``models`` that :func:`install_folder` made from ``folder`` earlier (its
    manifest's ``added_from``), so that adding the same folder twice does not convert it twice.
    Hidden staging folders (``.NAME.adding-*``: an add still running, or one cut off by a quit)
    already carry ``added_from`` but are not models yet, so they are passed over."""
    source = str(Path(folder).resolve())
    for child in sorted(models.iterdir()) if models.is_dir() else []:
        if child.name.startswith("."):
            continue
        try:
            manifest = read_json(child / MANIFEST)
        except (ModelNotFoundError, ModelFormatError):  # not a model of ours
            continue
        if manifest.get("added_from") == source:
            return child
    return None


def conversion_refused(folder: Path) -> str | None:
    """Why the conversion of the installed model ``folder`` was refused (it is then used in the
    downloaded layout), or None when it was not."""
    try:
        converted = read_json(Path(folder) / MANIFEST).get("converted", {})
    except (ModelNotFoundError, ModelFormatError):
        return None
    refused = converted.get("refused") if isinstance(converted, dict) else None
    return str(refused) if refused else None


def free_target(models: Path, name: str) -> Path:
    """``models/name``, or ``name-2``, ``name-3``... when that is taken."""
    target, n = models / name, 1
    while target.exists():
        n += 1
        target = models / f"{name}-{n}"
    return target


STALE_STAGING_S = 24 * 3600  # an add's staging folder untouched this long was cut off (the app quit)


def remove_stale_staging(models: Path, now: float | None = None) -> list[Path]:
    """Remove the hidden staging folders (``.NAME.adding-*``) of adds cut off by a quit or a
    crash: untouched for :data:`STALE_STAGING_S` (an add takes minutes; a day leaves any add of
    another process alone). Returns what was removed."""
    now = time.time() if now is None else now
    stale = [p for p in models.glob(".*.adding-*") if p.is_dir() and now - p.stat().st_mtime > STALE_STAGING_S]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return stale


def install_folder(folder: Path, target: Path) -> Path:
    """A model folder the user adds (Optimum or transformers.js layout, fp32 Marian, no manifest)
    installed as a catalog download is: its files linked (or copied) into ``target``, a manifest
    with their sha256, then ``models.convert`` (the step layout with per-row int8, as
    :func:`_convert_staged`). A Marian checkpoint (``config.json`` + ``model.safetensors`` +
    tokenizer) is built into the step layout, fp32 and per-row int8, without torch
    (``models.convert.checkpoint``). Returns ``target``; a folder that is ours already (a manifest) or
    that the converter does not apply to is returned unchanged, to be used in place."""
    if not needs_install(folder):
        return Path(folder)
    if target.parent.is_dir():
        remove_stale_staging(target.parent)
    staging = target.parent / f".{target.name}.adding-{uuid.uuid4().hex[:8]}"
    if checkpoint.is_checkpoint(folder):
        return _install_checkpoint(folder, staging, target)
    info = inspect_model_dir(folder)
    shutil.copytree(folder, staging, copy_function=_link_or_copy)
    try:
        os.utime(staging)  # copytree gave it the source's mtime: an old one reads as a cut-off add
        variants = {
            variant: {
                "files": {
                    role: {"file": _rel(path, folder), "bytes": path.stat().st_size, "sha256": sha256_file(path)}
                    for role, path in roles.items()
                }
            }
            for variant, roles in info.files.items()
        }
        manifest: dict[str, Any] = {
            "format": "desktop-mt-model",
            "format_version": FORMAT_VERSION,
            "name": target.name,
            "architecture": info.architecture,
            "source_lang": info.source_lang,
            "target_lang": info.target_lang,
            "tokenizer": marian_tokenizer_spec(int(info.config.get("eos_token_id", 0))),
            "variants": variants,
            "target_tokens": list(vocab_target_tokens(staging / "vocab.json")),
            "added_from": str(Path(folder).resolve()),
        }
        write_manifest(staging, manifest)
        inspect_model_dir(staging)
        _convert_staged(staging)
        _ensure_variant(staging, "int8", "fp32")
        _swap_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _install_checkpoint(folder: Path, staging: Path, target: Path) -> Path:
    """:func:`install_folder` for a checkpoint folder: the graphs built in ``staging``, then one rename."""
    try:
        checkpoint.install_checkpoint(folder, staging)
        manifest = read_json(staging / MANIFEST)
        manifest["name"] = target.name
        manifest["added_from"] = str(Path(folder).resolve())
        write_manifest(staging, manifest)
        inspect_model_dir(staging)
        _swap_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _rel(path: Path, root: Path) -> str:
    return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or links not allowed
        shutil.copy2(src, dst)


def reuse_installed(entry: CatalogEntry, target: Path, staging: Path) -> dict[str, Any] | None:
    """Link the files of an installation of the same revision into ``staging`` (config,
    tokenizer, another variant), so they are neither fetched again nor lost; its manifest or None."""
    old = _previous_manifest(target, entry)
    if old:
        _carry_over(old, target, staging)
    return old


def _previous_manifest(target: Path, entry: CatalogEntry) -> dict[str, Any] | None:
    try:
        manifest = read_json(target / MANIFEST)
    except (ModelNotFoundError, ModelFormatError):
        return None
    source = manifest.get("download", {})
    same = source.get("repo") == entry.repo and source.get("revision") == entry.revision
    return manifest if same else None


def _carry_over(old: dict[str, Any], target: Path, staging: Path) -> None:
    for rel in old.get("download", {}).get("files", {}):
        src, dst = target / rel, staging / rel
        if dst.exists() or not src.is_file():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)
        except OSError:  # another file system, or links not allowed
            shutil.copy2(src, dst)


def _build_download_manifest(
    entry: CatalogEntry, variant: str, files: list[RemoteFile], staging: Path, endpoint: str, old: dict[str, Any] | None
) -> dict[str, Any]:
    """The ``desktop_mt.json`` of a downloaded model: files with the Hub's hashes, tokenizer
    facts, the model's target-language tokens and where it came from."""
    config = read_json(staging / "config.json")
    by_path = {f.path: f for f in files}
    variants = _downloaded_variants(entry, staging, old)
    # A variant built at install (the catalog's int8 from the fp32 files): the files are the source's.
    recorded_as = entry.variants[variant].built_from or variant
    variants[recorded_as] = {
        "files": {
            role: _file_entry(staging, path, by_path.get(path)) for role, path in entry.variants[variant].files.items()
        }
    }
    recorded = dict((old or {}).get("download", {}).get("files", {}))
    recorded.update({f.path: {"repo": f.repo, "bytes": f.size, f.digest_name: f.expected_digest} for f in files})
    tokens = vocab_target_tokens(staging / "vocab.json")
    manifest: dict[str, Any] = {
        "format": "desktop-mt-model",
        "format_version": FORMAT_VERSION,
        "name": entry.name,
        "architecture": entry.architecture,
        "source_lang": entry.source_lang,
        "target_lang": entry.target_lang,
        "tokenizer": _tokenizer(entry, config),
        "variants": variants,
        "target_tokens": list(tokens),
        # "commit": what a branch revision ("main") resolved to when these files were fetched.
        "download": {
            "repo": entry.repo,
            "revision": entry.revision,
            "commit": next((f.revision for f in files if f.repo == entry.repo), entry.revision),
            "endpoint": endpoint,
            "files": recorded,
            "licence": entry.licence,
            "attribution": entry.attribution,
        },
    }
    if entry.target_token and entry.target_token in tokens:
        manifest["target_token"] = entry.target_token
    int8 = entry.variants.get("int8")
    kind = int8.int8_kind if int8 is not None else None
    if kind:
        manifest["int8"] = {"kind": kind}
    return manifest


def _downloaded_variants(entry: CatalogEntry, staging: Path, old: dict[str, Any] | None) -> dict[str, Any]:
    """The previous installation's variants as downloaded: a variant that pointed at converted
    files (``models.convert``, rebuilt after this install) points at its downloaded files again,
    or is dropped when they are not here."""
    variants: dict[str, Any] = {}
    for name, spec in (old or {}).get("variants", {}).items():
        paths = [f.get("file", "") for f in spec.get("files", {}).values()]
        if all((staging / p).is_file() for p in paths):
            variants[name] = spec
        elif name in entry.variants and all((staging / p).is_file() for p in entry.variants[name].files.values()):
            recorded = (old or {}).get("download", {}).get("files", {})
            variants[name] = {"files": {}}
            for role, path in entry.variants[name].files.items():
                file_entry = _file_entry(staging, path, None)
                if recorded.get(path, {}).get("sha256"):
                    file_entry["sha256"] = recorded[path]["sha256"]
                variants[name]["files"][role] = file_entry
    return variants


def _file_entry(staging: Path, path: str, remote: RemoteFile | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"file": path, "bytes": (staging / path).stat().st_size}
    if remote is not None and remote.sha256:
        entry["sha256"] = remote.sha256
    return entry


def _tokenizer(entry: CatalogEntry, config: dict[str, Any]) -> dict[str, Any]:
    if entry.architecture != "marian":
        raise ModelDownloadError(f"catalog entry {entry.name!r}: only Marian models can be downloaded so far")
    return marian_tokenizer_spec(int(config.get("eos_token_id", 0)))


def _swap_into_place(staging: Path, target: Path) -> None:
    """Rename ``staging`` to ``target``; an existing ``target`` is moved aside first and deleted
    after, so at no moment does ``target`` hold a mix of old and new files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        os.replace(staging, target)
        return
    aside = staging.parent / f"{target.name}.old-{uuid.uuid4().hex[:8]}"
    os.replace(target, aside)
    try:
        os.replace(staging, target)
    except OSError:
        os.replace(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def _describe_manifest(path: Path) -> str:
    """One line about where an installed model came from (for ``models list``)."""
    try:
        source = json.loads((path / MANIFEST).read_text(encoding="utf-8")).get("download", {})
    except (OSError, ValueError):
        return ""
    return f"{source.get('repo')}@{str(source.get('revision', ''))[:12]}" if source else ""
