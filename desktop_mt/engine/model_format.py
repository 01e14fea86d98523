"""The model directory format: which files make a model, the manifest, and validation.

No onnxruntime here: the exporter, the GUI's "Add model folder..." and the runtime share this
module. Three layouts load:

- ours: ``desktop_mt.json`` manifest + Optimum-named files (``encoder_model.onnx``, ...),
  int8 variants as ``*_quantized.onnx``;
- Optimum's: the same files without a manifest (facts come from ``config.json``);
- transformers.js: the files under ``onnx/``, often only ``decoder_model_merged*.onnx``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from ..base import paths
from ..base.errors import N_, ModelFormatError, ModelNotFoundError, Phrase, UnsupportedModelError
from ..base.fsutil import atomic_write
from ..base.resources_path import resource_path
from .direction import Direction, model_direction

__all__ = [
    "MANIFEST",
    "FORMAT_VERSION",
    "FILE_NAMES",
    "Variant",
    "VARIANTS",
    "check_variant",
    "SUPPORTED_ARCHITECTURES",
    "INT8_DYNAMIC",
    "INT8_WEIGHT_ONLY",
    "INT8_PER_ROW",
    "BATCH_INVARIANT_INT8_KINDS",
    "FIX",
    "TokenizerSpec",
    "ModelInfo",
    "quantized_name",
    "sha256_file",
    "read_json",
    "config_int",
    "bundled_model_dir",
    "language_pair",
    "find_models",
    "inspect_model_dir",
    "verify_files",
    "cached_sha256",
    "build_manifest",
    "marian_tokenizer_spec",
    "write_manifest",
]

MANIFEST = "desktop_mt.json"
FORMAT_VERSION = 1
FILE_NAMES = {
    "encoder": "encoder_model.onnx",
    "decoder": "decoder_model.onnx",
    "decoder_with_past": "decoder_with_past_model.onnx",
    "decoder_merged": "decoder_model_merged.onnx",
    # Our decoder-step layout (models.convert.graphs, also export --layout step): no Optimum equivalent.
    "cross_kv": "cross_kv_model.onnx",
    "decoder_step": "decoder_step_model.onnx",
}
_INT8_SUFFIXES = ("_quantized", "_int8")
Variant = Literal["int8", "fp32"]
"""A model's files: quantized to int8 (the default), or full precision."""
VARIANTS: tuple[Variant, ...] = ("int8", "fp32")


def check_variant(variant: str) -> Variant:
    """``variant`` if it is ``"int8"`` or ``"fp32"``; ValueError otherwise (the edges narrow an
    argument, a setting or a config field with it)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    return variant


SUPPORTED_ARCHITECTURES = ("marian", "m2m_100")
# How a model's int8 files were quantized (manifest key "int8": {"kind": ...}). "dynamic": ORT's
# quantize_dynamic, whose activation scales span the whole batch tensor, so a sentence's tokens can
# depend on its batch neighbours. The other kinds scale activations per row (or not at all): a
# sentence translates the same at any batch size. A manifest without the key (old exports) and
# models without a manifest (Optimum, transformers.js downloads) count as "dynamic".
INT8_DYNAMIC = "dynamic"
INT8_WEIGHT_ONLY = "weight-only-matmulnbits-8bit"
INT8_PER_ROW = "dynamic-per-row"
BATCH_INVARIANT_INT8_KINDS = frozenset({INT8_WEIGHT_ONLY, INT8_PER_ROW})
FIX = N_("re-export it with `python -m export_tools export SRC DIR`")


@dataclasses.dataclass(frozen=True)
class TokenizerSpec:
    """How text becomes ids: SentencePiece pieces mapped through ``vocab.json``."""

    source_spm: str
    target_spm: str
    vocab: str
    source_prefix_ids: tuple[int, ...] = ()
    source_suffix_ids: tuple[int, ...] = ()
    target_vocab: str | None = None


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    """A validated model directory. ``files[variant][role]`` are absolute paths."""

    path: Path
    name: str
    architecture: str
    source_lang: str
    target_lang: str
    files: dict[str, dict[str, Path]]
    tokenizer: TokenizerSpec
    config: dict[str, Any]
    generation: dict[str, Any]
    manifest: dict[str, Any] | None = None

    @property
    def variants(self) -> tuple[Variant, ...]:
        return tuple(v for v in VARIANTS if v in self.files)

    @property
    def max_positions(self) -> int:
        return config_int(self.path / "config.json", self.config, "max_position_embeddings", 512)

    @property
    def int8_kind(self) -> str:
        """How the int8 files were quantized (``INT8_DYNAMIC`` unless the manifest says otherwise)."""
        entry = (self.manifest or {}).get("int8")
        return str(entry.get("kind", INT8_DYNAMIC)) if isinstance(entry, dict) else INT8_DYNAMIC

    @property
    def direction(self) -> Direction | None:
        """``"en-zh"`` or ``"zh-en"`` (None for any other language pair): what the models
        manager groups by and the two-way translator routes by."""
        return model_direction(self.source_lang, self.target_lang)

    def batch_invariant(self, variant: Variant) -> bool:
        """True when a sentence's output cannot depend on the rest of its batch for ``variant``."""
        return variant != "int8" or self.int8_kind in BATCH_INVARIANT_INT8_KINDS


def quantized_name(fp32_name: str) -> str:
    return fp32_name.replace(".onnx", "_quantized.onnx")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def config_int(file: Path, data: dict[str, Any], key: str, default: int) -> int:
    """``data[key]`` (read from ``file``) as an int, ``default`` when it is absent; a value that is
    not a number ("eos_token_id": "end") is a ModelFormatError naming the file, not a ValueError."""
    value = data.get(key, default)
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{file}: {key!r} is {value!r}, not a number; {FIX}") from exc


def read_json(path: Path) -> dict[str, Any]:
    """Read a JSON object, turning every failure into an error that names the file."""
    if not path.is_file():
        raise ModelNotFoundError.of(N_("{file} is missing; {fix}"), file=path, fix=Phrase(FIX))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError.of(
            N_("{file} is not valid JSON ({error}); {fix}"), file=path, error=exc, fix=Phrase(FIX)
        ) from exc
    if not isinstance(data, dict):
        raise ModelFormatError.of(N_("{file} must hold a JSON object; {fix}"), file=path, fix=Phrase(FIX))
    return data


def bundled_model_dir(direction: Direction | None = None) -> Path:
    """A model shipped as package data in ``desktop_mt/resources/models/`` (a folder with a
    manifest), wherever the package runs from (see :mod:`desktop_mt.base.resources_path`): the first one, or with
    ``direction`` (``"en-zh"``, ``"zh-en"``) the first whose manifest has that language pair."""
    models = resource_path("models")
    found = sorted(p for p in models.glob("*") if (p / MANIFEST).is_file()) if models.is_dir() else []
    if direction is not None:
        found = [p for p in found if _manifest_direction(p) == direction]
    if not found:
        which = f"{direction} " if direction else ""
        raise ModelNotFoundError(f"no bundled {which}model in {models}; pass --model DIR or install one")
    return found[0]


def _manifest_direction(folder: Path) -> str | None:
    """The ``"en-zh"`` / ``"zh-en"`` pair a model folder's manifest names (None: another or unreadable)."""
    try:
        manifest = read_json(folder / MANIFEST)
    except (ModelNotFoundError, ModelFormatError):
        return None
    return model_direction(str(manifest.get("source_lang", "en")), str(manifest.get("target_lang", "zh")))


def language_pair(root: Path, manifest: dict[str, Any] | None, config: dict[str, Any]) -> tuple[str, str]:
    """A model's ``(source_lang, target_lang)``: from its manifest, else its tokenizer_config.json
    (``source_lang`` / ``target_lang``, as MarianTokenizer writes them), else an opus-mt name in
    config.json (``Helsinki-NLP/opus-mt-zh-en``), else English->Chinese (what desktop-mt began with)."""
    if manifest and manifest.get("source_lang") and manifest.get("target_lang"):
        return str(manifest["source_lang"]), str(manifest["target_lang"])
    try:
        tokenizer = read_json(root / "tokenizer_config.json") if (root / "tokenizer_config.json").is_file() else {}
    except ModelFormatError:
        tokenizer = {}
    if tokenizer.get("source_lang") and tokenizer.get("target_lang"):
        return str(tokenizer["source_lang"]), str(tokenizer["target_lang"])
    name = str(config.get("_name_or_path", "")).rstrip("/").rsplit("/", 1)[-1]
    if name.startswith("opus-mt-") and name.count("-") == 3:
        source, target = name.split("-")[2:]
        return source, target
    return "en", "zh"


def find_models(folder: Path) -> list[ModelInfo]:
    """The valid model directories directly inside ``folder`` (invalid ones are skipped)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    models = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        try:
            models.append(inspect_model_dir(sub))
        except (ModelNotFoundError, ModelFormatError):
            continue
    return models


def _variant_files(root: Path) -> dict[str, dict[str, Path]]:
    """Discover variants by file name in ``root`` and ``root/onnx`` (Optimum / transformers.js)."""
    found: dict[str, dict[str, Path]] = {}
    for folder in (root, root / "onnx"):
        for role, name in FILE_NAMES.items():
            stem = name[: -len(".onnx")]
            candidates = {"fp32": [folder / name], "int8": [folder / f"{stem}{s}.onnx" for s in _INT8_SUFFIXES]}
            for variant, files in candidates.items():
                hit = next((p for p in files if p.is_file()), None)
                if hit is not None:
                    found.setdefault(variant, {}).setdefault(role, hit)
    return {v: roles for v, roles in found.items() if _complete(roles)}


def _complete(roles: dict[str, Path]) -> bool:
    has_decoder = (
        ("decoder" in roles and "decoder_with_past" in roles)
        or "decoder_merged" in roles
        or ("decoder_step" in roles and "cross_kv" in roles)
    )
    return "encoder" in roles and has_decoder


def _manifest_files(root: Path, manifest: dict[str, Any]) -> dict[str, dict[str, Path]]:
    files: dict[str, dict[str, Path]] = {}
    for variant, entry in manifest.get("variants", {}).items():
        roles = {role: root / spec["file"] for role, spec in entry.get("files", {}).items()}
        for path in roles.values():
            if not path.is_file():
                raise ModelNotFoundError(f"{path} is missing (listed in {root / MANIFEST}); {FIX}")
        if not _complete(roles):
            raise ModelFormatError(f"{root / MANIFEST}: variant {variant!r} lacks an encoder or decoder; {FIX}")
        files[variant] = roles
    return files


def _tokenizer_spec(root: Path, config: dict[str, Any], manifest: dict[str, Any] | None) -> TokenizerSpec:
    if manifest and "tokenizer" in manifest:
        t = manifest["tokenizer"]
        spec = TokenizerSpec(
            t["source_spm"],
            t["target_spm"],
            t["vocab"],
            tuple(t.get("source_prefix_ids", ())),
            tuple(t.get("source_suffix_ids", ())),
            t.get("target_vocab"),
        )
    elif config.get("model_type") == "marian":
        spec = TokenizerSpec(
            "source.spm", "target.spm", "vocab.json", (), (config_int(root / "config.json", config, "eos_token_id", 0),)
        )
    else:
        raise ModelFormatError(f"{root}: no {MANIFEST} and a {config.get('model_type')!r} tokenizer needs one; {FIX}")
    for name in (spec.source_spm, spec.target_spm, spec.vocab, spec.target_vocab):
        if name and not (root / name).is_file():
            raise ModelNotFoundError(f"{root / name} (tokenizer file) is missing; copy it from the checkpoint or {FIX}")
    return spec


def inspect_model_dir(path: Path | str) -> ModelInfo:
    """Validate a model directory and describe it. Checks presence, not hashes (see verify_files)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise ModelNotFoundError(f"model directory {root} does not exist")
    manifest = read_json(root / MANIFEST) if (root / MANIFEST).exists() else None
    if manifest is not None and config_int(root / MANIFEST, manifest, "format_version", 0) > FORMAT_VERSION:
        raise ModelFormatError(
            f"{root / MANIFEST} has format version {manifest.get('format_version')}, "
            f"newer than this desktop-mt ({FORMAT_VERSION}); update desktop-mt"
        )
    config = read_json(root / "config.json")
    arch = config.get("model_type", "?")
    if arch not in SUPPORTED_ARCHITECTURES:
        raise UnsupportedModelError(
            f"{root / 'config.json'}: architecture {arch!r} is not supported "
            f"(supported: {', '.join(SUPPORTED_ARCHITECTURES)})"
        )
    gen_path = root / "generation_config.json"
    generation = read_json(gen_path) if gen_path.exists() else {}
    files = _manifest_files(root, manifest) if manifest else _variant_files(root)
    if not files:
        raise ModelNotFoundError(
            f"{root}: no encoder_model.onnx + decoder ONNX files found (also looked in {root / 'onnx'}); {FIX}"
        )
    source_lang, target_lang = language_pair(root, manifest, config)
    return ModelInfo(
        path=root,
        name=(manifest or {}).get("name", root.name),
        architecture=arch,
        source_lang=source_lang,
        target_lang=target_lang,
        files=files,
        tokenizer=_tokenizer_spec(root, config, manifest),
        config=config,
        generation=generation,
        manifest=manifest,
    )


def verify_files(info: ModelInfo, variant: Variant) -> None:
    """Compare a variant's files against the manifest's byte counts and sha256, so a truncated
    download or a damaged file is refused by name instead of translating garbage. Hashes are
    remembered per (path, size, mtime, inode, ctime) in the user's cache folder (:func:`cached_sha256`), so a
    model is hashed on its first load and not at every start."""
    if not info.manifest:
        return
    for role_spec in info.manifest["variants"][variant]["files"].values():
        # a graph's weights in page-aligned external data (export_tools.external_data,
        # models.convert) are checked like the graph file itself
        data = role_spec.get("external_data")
        folder = (info.path / role_spec["file"]).parent
        extra = [{**data, "file": str((folder / data["file"]).relative_to(info.path))}] if data else []
        for spec in [role_spec, *extra]:
            _verify_file(info, spec)


def _verify_file(info: ModelInfo, spec: dict[str, Any]) -> None:
    path = info.path / spec["file"]
    if not path.is_file():
        raise ModelNotFoundError(f"{path} is missing (listed in {info.path / MANIFEST}); {FIX}")
    if "bytes" in spec and path.stat().st_size != spec["bytes"]:
        raise ModelFormatError(
            f"{path} has {path.stat().st_size} bytes, the manifest says {spec['bytes']}: "
            f"the file is truncated or replaced; {FIX}"
        )
    if "sha256" in spec and cached_sha256(path) != spec["sha256"]:
        raise ModelFormatError(
            f"{path} is damaged: its sha256 differs from the one in "
            f"{info.path / MANIFEST}; download or copy the model again, or {FIX}"
        )


def _hash_cache_file() -> Path:
    return paths.cache_dir() / "model-hashes.json"


def cached_sha256(path: Path) -> str:
    """sha256 of ``path``, read from the cache when its size, mtime, inode and ctime are unchanged.

    A file rewritten in place gets a new ctime (even when its mtime is set back), so it is hashed
    again. The cache is best effort: an unreadable or unwritable cache only means hashing every time."""
    stat = path.stat()
    # inode and change time too: a file rewritten in place and its mtime set back (os.utime,
    # `touch -d`, `cp -p` over it) keeps size and mtime, but the kernel moves ctime on every write
    key, stamp = str(path.resolve()), [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns]
    cache_file = _hash_cache_file()
    try:
        cache = json.loads(cache_file.read_text(encoding="utf-8"))
        if not isinstance(cache, dict):
            cache = {}
    except (OSError, ValueError):
        cache = {}
    entry = cache.get(key)
    if isinstance(entry, list) and entry[:-1] == stamp and len(entry) == len(stamp) + 1:
        return str(entry[-1])
    digest = sha256_file(path)
    cache[key] = [*stamp, digest]
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cache_file, json.dumps(cache))
    except OSError:
        pass
    return digest


def build_manifest(
    out: Path,
    config: Any,
    tokenizer: Any,
    variants: dict[str, dict[str, str]],
    validation: dict[str, Any],
    versions: dict[str, str],
) -> dict[str, Any]:
    """The manifest the exporter writes: files with sha256, tokenizer facts, validation figures."""
    from_tok = getattr(tokenizer, "src_lang", None) or getattr(tokenizer, "source_lang", None)
    spec = _tokenizer_spec_for(config, tokenizer)
    # Multi-target Marian: its >>id<< tokens (MarianTokenizer.supported_language_codes), by id.
    codes = sorted(getattr(tokenizer, "supported_language_codes", None) or [], key=tokenizer.convert_tokens_to_ids)
    return {
        "format": "desktop-mt-model",
        "format_version": FORMAT_VERSION,
        "name": out.name,
        "architecture": config.model_type,
        "source_lang": _short_lang(from_tok) or "en",
        "target_lang": _short_lang(getattr(tokenizer, "tgt_lang", None) or getattr(tokenizer, "target_lang", None))
        or "zh",
        "tokenizer": spec,
        **({"target_tokens": codes} if codes else {}),
        "variants": {
            v: {
                "files": {
                    role: {"file": name, "sha256": sha256_file(out / name), "bytes": (out / name).stat().st_size}
                    for role, name in roles.items()
                }
            }
            for v, roles in variants.items()
        },
        "validation": validation,
        "exporter": versions,
    }


def _short_lang(code: str | None) -> str | None:
    if not code:
        return None
    return code.strip("_").split("_")[0].split("-")[0].lower()


def marian_tokenizer_spec(eos_token_id: int) -> dict[str, Any]:
    """The manifest's tokenizer facts of a Marian model: its two SentencePiece files and shared
    vocabulary under their usual names, the source ended by ``eos_token_id``."""
    return {
        "type": "marian",
        "source_spm": "source.spm",
        "target_spm": "target.spm",
        "vocab": "vocab.json",
        "source_prefix_ids": [],
        "source_suffix_ids": [eos_token_id],
    }


def _tokenizer_spec_for(config: Any, tokenizer: Any) -> dict[str, Any]:
    """Tokenizer facts for the manifest, resolved with the checkpoint's own tokenizer."""
    eos = int(config.eos_token_id)
    if config.model_type == "marian":
        return marian_tokenizer_spec(eos)
    if config.model_type == "m2m_100":
        src = tokenizer.convert_tokens_to_ids(tokenizer.get_lang_token(tokenizer.src_lang))
        return {
            "type": "m2m_100",
            "source_spm": "sentencepiece.bpe.model",
            "target_spm": "sentencepiece.bpe.model",
            "vocab": "vocab.json",
            "source_prefix_ids": [int(src)],
            "source_suffix_ids": [eos],
        }
    raise UnsupportedModelError(f"no tokenizer mapping for {config.model_type!r}")


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Write ``desktop_mt.json`` into ``out`` (atomically: never half a manifest)."""
    atomic_write(out / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
