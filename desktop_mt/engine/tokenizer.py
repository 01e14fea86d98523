"""SentencePiece tokenization without transformers (Marian and M2M100 conventions).

Why SentencePiece directly: it is the library Marian/M2M100 tokenizers wrap anyway, it adds
~2 MB to a bundle (transformers + tokenizers add far more and pull in their own imports),
and encoding a sentence takes microseconds. Pieces come from the SentencePiece model; ids
come from ``vocab.json`` (Marian ids are not SentencePiece ids).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..base.errors import ModelFormatError
from .model_format import FIX, ModelInfo
from .native import NATIVE_CALLS

__all__ = [
    "vocab_target_tokens",
    "target_tokens",
    "default_target_token",
    "SentencePieceTokenizer",
    "IncrementalDecoder",
]

# Characters that SentencePiece models rarely know and that only confuse a translation model.
_DROP_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
# Default target-language token of multi-target Marian models, by the model's target language:
# opus-mt-en-zh knows >>cmn_Hans<<, >>cmn_Hant<<, >>yue_Hant<< ...; Simplified Mandarin first.
_PREFERRED_TARGET_TOKENS = {"zh": (">>cmn_Hans<<", ">>zho_Hans<<", ">>cmn<<", ">>zho<<", ">>zh<<")}


def _is_target_token(piece: str) -> bool:
    """A Marian target-language token such as ``>>cmn_Hans<<`` (MarianTokenizer's ``>>.+<<``)."""
    return len(piece) > 4 and piece.startswith(">>") and piece.endswith("<<")


def vocab_target_tokens(vocab_path: Path) -> tuple[str, ...]:
    """The ``>>id<<`` tokens of a vocabulary file, in id order (empty for single-target models)."""
    vocab = SentencePieceTokenizer._load_vocab(vocab_path)
    return tuple(sorted((p for p in vocab if _is_target_token(p)), key=vocab.__getitem__))


def target_tokens(info: ModelInfo) -> tuple[str, ...]:
    """The model's target-language tokens: from the manifest, else read from its vocabulary."""
    listed = (info.manifest or {}).get("target_tokens")
    if isinstance(listed, list):
        return tuple(str(t) for t in listed)
    if info.architecture != "marian":
        return ()
    return vocab_target_tokens(info.path / info.tokenizer.vocab)


def default_target_token(info: ModelInfo, tokens: tuple[str, ...] | None = None) -> str | None:
    """The token prepended when the caller chooses none: the manifest's ``target_token``, else
    the preferred one for the model's target language, else the first whose language matches.
    None for single-target models (and when nothing matches: the model then picks freely)."""
    tokens = target_tokens(info) if tokens is None else tokens
    if not tokens:
        return None
    chosen = (info.manifest or {}).get("target_token")
    if chosen in tokens:
        return str(chosen)
    lang = info.target_lang.lower()
    for token in _PREFERRED_TARGET_TOKENS.get(lang, ()):
        if token in tokens:
            return token
    return next((t for t in tokens if t[2:-2].lower().split("_")[0] == lang), None)


def _clean_text(text: str) -> str:
    """Normalize what reaches the tokenizer: NFKC, control/format characters become spaces."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(" " if unicodedata.category(ch) in _DROP_CATEGORIES and ch not in "\t\n" else ch for ch in text)


class SentencePieceTokenizer:
    """Encode source text to model ids, decode target ids to text (pieces via vocab.json)."""

    def __init__(self, info: ModelInfo):
        import sentencepiece as spm

        spec = info.tokenizer
        self._source = self._load_spm(spm, info.path / spec.source_spm)
        self._target = (
            self._source if spec.target_spm == spec.source_spm else self._load_spm(spm, info.path / spec.target_spm)
        )
        self.vocab = self._load_vocab(info.path / spec.vocab)
        target_vocab = self._load_vocab(info.path / spec.target_vocab) if spec.target_vocab else self.vocab
        self.id_to_piece = {i: p for p, i in target_vocab.items()}
        self.unk_id = self.vocab.get("<unk>", 1)
        self.prefix = list(spec.source_prefix_ids)
        self.suffix = list(spec.source_suffix_ids)
        # Multi-target Marian: the chosen >>id<< goes first, as MarianTokenizer puts it (set_target_token).
        self.target_tokens = tuple(sorted((p for p in self.vocab if _is_target_token(p)), key=self.vocab.__getitem__))
        self.target_token: str | None = None
        self._target_prefix: list[int] = []
        # Special tokens are never shown: </s>, <pad>, <unk>, <s>, language tags like __zh__ or >>cmn_Hans<<.
        self.special_ids = {
            i
            for p, i in target_vocab.items()
            if (p.startswith("<") and p.endswith(">"))
            or (p.startswith("__") and p.endswith("__"))
            or _is_target_token(p)
        }

    def set_target_token(self, token: str | None) -> None:
        """Prepend ``token`` (a ``>>id<<`` of this vocabulary) to every source; None: nothing."""
        if token is not None and token not in self.target_tokens:
            known = ", ".join(self.target_tokens) or "none: this model has a single target language"
            raise ModelFormatError(
                f"target-language token {token!r} is not in the model's vocabulary (it knows: {known})"
            )
        self.target_token = token
        self._target_prefix = [] if token is None else [self.vocab[token]]

    @staticmethod
    def _load_spm(spm: Any, path: Path) -> Any:
        if not path.is_file():
            raise ModelFormatError(f"{path} is missing; {FIX}")
        try:
            return spm.SentencePieceProcessor(model_file=str(path))
        except (RuntimeError, OSError) as exc:
            raise ModelFormatError(f"{path} is not a SentencePiece model ({exc}); {FIX}") from exc

    @staticmethod
    def _load_vocab(path: Path) -> dict[str, int]:
        try:
            vocab = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelFormatError(f"{path} is not a valid vocabulary ({exc}); {FIX}") from exc
        try:
            ids = {str(k): int(v) for k, v in vocab.items()} if isinstance(vocab, dict) else {}
        except (TypeError, ValueError) as exc:  # {"the": "x"}: a model error naming the file, not a crash
            raise ModelFormatError(f"{path} must map pieces to ids ({exc}); {FIX}") from exc
        if not ids:
            raise ModelFormatError(f"{path} must map pieces to ids; {FIX}")
        return ids

    def encode(self, text: str) -> list[int]:
        """Source ids including the model's prefix (language tag), the target-language token
        (multi-target Marian) and the suffix (``</s>``)."""
        with NATIVE_CALLS:  # SentencePiece releases the GIL: see engine.native
            pieces = self._source.encode(_clean_text(text), out_type=str)
        return self.prefix + self._target_prefix + [self.vocab.get(p, self.unk_id) for p in pieces] + self.suffix

    def target_pieces(self, text: str) -> list[str]:
        """``text`` cut into the target model's pieces (a typed prefix of the translation)."""
        with NATIVE_CALLS:
            pieces: list[str] = self._target.encode(_clean_text(text), out_type=str)
        return pieces

    def count(self, text: str) -> int:
        extra = len(self.prefix) + len(self._target_prefix) + len(self.suffix)
        with NATIVE_CALLS:
            pieces = self._source.encode(_clean_text(text), out_type=str)
        return len(pieces) + extra

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.id_to_piece.get(int(i), "") for i in ids if int(i) not in self.special_ids]

    def decode(self, ids: Iterable[int]) -> str:
        # A piece the target model does not know (e.g. an English piece of a joint Marian
        # vocabulary) comes back verbatim with its "▁": show it as the space it stands for.
        with NATIVE_CALLS:
            text: str = self._target.decode_pieces(self.pieces(ids))
        return text.replace("\u2581", " ")


class IncrementalDecoder:
    """Turns a growing list of target ids into text deltas that never need retracting.

    The whole prefix is decoded each time (cheap for a sentence) and only the new tail is
    emitted. Text is held back while it ends in U+FFFD (an incomplete UTF-8 sequence from
    byte-fallback pieces) or in whitespace (a trailing "▁" may still merge or vanish).
    """

    def __init__(self, tokenizer: SentencePieceTokenizer):
        self._tok = tokenizer
        self._ids: list[int] = []
        self.emitted = ""

    def push(self, token_id: int) -> str:
        self._ids.append(int(token_id))
        text = self._tok.decode(self._ids)
        stable = text.rstrip()
        while stable.endswith("\ufffd"):
            stable = stable[:-1]
        if not stable.startswith(self.emitted) or len(stable) <= len(self.emitted):
            return ""
        delta, self.emitted = stable[len(self.emitted) :], stable
        return delta

    def finish(self) -> str:
        """The rest of the text, once the segment is complete."""
        text = self._tok.decode(self._ids).strip()
        delta = text[len(self.emitted) :] if text.startswith(self.emitted) else ""
        self.emitted += delta
        return delta
