"""SentencePiece tokenization without transformers (Marian and M2M100 conventions).

Why SentencePiece directly: it is the library Marian/M2M100 tokenizers wrap anyway, it adds
~2 MB to a bundle (transformers + tokenizers add far more and pull in their own imports),
and encoding a sentence takes microseconds. Pieces come from the SentencePiece model; ids
come from ``vocab.json`` (Marian ids are not SentencePiece ids).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from ..errors import ModelFormatError
from .model_format import FIX, ModelInfo

# Characters that SentencePiece models rarely know and that only confuse a translation model.
_DROP_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}


def clean_text(text: str) -> str:
    """Normalize what reaches the tokenizer: NFKC, control/format characters become spaces."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(" " if unicodedata.category(ch) in _DROP_CATEGORIES and ch not in "\t\n" else ch
                   for ch in text)


class SentencePieceTokenizer:
    """Encode source text to model ids, decode target ids to text (pieces via vocab.json)."""

    def __init__(self, info: ModelInfo):
        import sentencepiece as spm

        spec = info.tokenizer
        self._source = self._load_spm(spm, info.path / spec.source_spm)
        self._target = (self._source if spec.target_spm == spec.source_spm
                        else self._load_spm(spm, info.path / spec.target_spm))
        self.vocab = self._load_vocab(info.path / spec.vocab)
        target_vocab = self._load_vocab(info.path / spec.target_vocab) if spec.target_vocab else self.vocab
        self.id_to_piece = {i: p for p, i in target_vocab.items()}
        self.unk_id = self.vocab.get("<unk>", 1)
        self.prefix = list(spec.source_prefix_ids)
        self.suffix = list(spec.source_suffix_ids)
        # Special tokens are never shown: </s>, <pad>, <unk>, <s>, language tags like __zh__.
        self.special_ids = {i for p, i in target_vocab.items()
                            if (p.startswith("<") and p.endswith(">")) or (p.startswith("__") and p.endswith("__"))}

    @staticmethod
    def _load_spm(spm, path: Path):
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
        if not isinstance(vocab, dict) or not vocab:
            raise ModelFormatError(f"{path} must map pieces to ids; {FIX}")
        return {str(k): int(v) for k, v in vocab.items()}

    def encode(self, text: str) -> list[int]:
        """Source ids including the model's prefix (language tag) and suffix (``</s>``)."""
        pieces = self._source.encode(clean_text(text), out_type=str)
        return self.prefix + [self.vocab.get(p, self.unk_id) for p in pieces] + self.suffix

    def count(self, text: str) -> int:
        return len(self._source.encode(clean_text(text), out_type=str)) + len(self.prefix) + len(self.suffix)

    def pieces(self, ids) -> list[str]:
        return [self.id_to_piece.get(int(i), "") for i in ids if int(i) not in self.special_ids]

    def decode(self, ids) -> str:
        # A piece the target model does not know (e.g. an English piece of a joint Marian
        # vocabulary) comes back verbatim with its "▁": show it as the space it stands for.
        return self._target.decode_pieces(self.pieces(ids)).replace("\u2581", " ")


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
        delta, self.emitted = stable[len(self.emitted):], stable
        return delta

    def finish(self) -> str:
        """The rest of the text, once the segment is complete."""
        text = self._tok.decode(self._ids).strip()
        delta = text[len(self.emitted):] if text.startswith(self.emitted) else ""
        self.emitted += delta
        return delta
