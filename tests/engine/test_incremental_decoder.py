"""Direct unit tests of desktop_mt.engine.tokenizer.IncrementalDecoder: streamed deltas that
add up to the decoded text and are never taken back."""

from __future__ import annotations

import random

import pytest

from desktop_mt.engine.tokenizer import IncrementalDecoder


class BytePieces:
    """A tokenizer whose ids are byte strings (SentencePiece byte fallback): a character split
    over several ids decodes to U+FFFD until its last byte arrives. "▁" stands for a space."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def decode(self, ids) -> str:
        raw = b"".join(self.pieces[i] for i in ids)
        return raw.decode("utf-8", errors="replace").replace("\u2581", " ").lstrip()


def stream(decoder: IncrementalDecoder, ids) -> list[str]:
    return [decoder.push(i) for i in ids]


def test_whole_characters_stream_at_once():
    tok = BytePieces([b"a", b"b", "中".encode(), "文".encode()])
    dec = IncrementalDecoder(tok)
    assert stream(dec, [0, 1, 2, 3]) == ["a", "b", "中", "文"]
    assert dec.finish() == "" and dec.emitted == "ab中文"


def test_a_character_split_over_byte_pieces_waits_for_its_last_byte():
    zhong = "中".encode()  # 3 bytes
    tok = BytePieces([b"x", zhong[:1], zhong[1:2], zhong[2:]])
    dec = IncrementalDecoder(tok)
    assert stream(dec, [0, 1, 2, 3]) == ["x", "", "", "中"]
    assert dec.finish() == ""


def test_an_incomplete_character_at_the_end_is_given_by_finish():
    zhong = "中".encode()
    tok = BytePieces([b"ok", zhong[:2]])
    dec = IncrementalDecoder(tok)
    assert stream(dec, [0, 1]) == ["ok", ""]
    assert dec.finish() == "\ufffd"  # what decode says for the truncated sequence
    assert dec.emitted == "ok\ufffd"


def test_trailing_space_is_held_until_a_word_follows():
    tok = BytePieces([b"Hello", "\u2581".encode(), b"world", "\u2581".encode()])
    dec = IncrementalDecoder(tok)
    assert stream(dec, [0, 1, 2, 3]) == ["Hello", "", " world", ""]
    assert dec.finish() == ""  # the final space is stripped
    assert dec.emitted == "Hello world"


def test_a_push_that_would_retract_text_emits_nothing():
    class Rewriting:
        """decode() changes earlier text (as a normalizing detokenizer may)."""

        def decode(self, ids):
            return {1: "ab", 2: "xy", 3: "abc"}[len(ids)]

    dec = IncrementalDecoder(Rewriting())
    assert stream(dec, [7, 8, 9]) == ["ab", "", "c"]
    assert dec.emitted == "abc"


def test_finish_with_nothing_pushed():
    dec = IncrementalDecoder(BytePieces([]))
    assert dec.finish() == "" and dec.emitted == ""


def test_random_byte_streams_add_up_to_the_decoded_text():
    rng = random.Random(11)
    chars = "ab 中文🙂é,。"
    for _ in range(300):
        raw = "".join(rng.choice(chars) for _ in range(rng.randint(0, 12))).encode()
        cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(0, 8)))) if len(raw) > 1 else []
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)])] if raw else []
        tok = BytePieces(pieces)
        dec = IncrementalDecoder(tok)
        seen = ""
        for i in range(len(pieces)):
            seen += dec.push(i)
            assert seen == dec.emitted  # each delta extends what was shown, never rewrites it
            assert not seen.endswith("\ufffd")
        seen += dec.finish()
        assert seen == tok.decode(range(len(pieces))).strip()


# -- the bundled model's real tokenizer ------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled():
    spm = pytest.importorskip("sentencepiece")
    from desktop_mt.engine.model_format import bundled_model_dir, inspect_model_dir
    from desktop_mt.engine.tokenizer import SentencePieceTokenizer

    try:
        info = inspect_model_dir(bundled_model_dir())
    except Exception as exc:  # noqa: BLE001 - no bundled model in this checkout
        pytest.skip(f"no bundled model: {exc}")
    target = spm.SentencePieceProcessor(model_file=str(info.path / info.tokenizer.target_spm))
    return SentencePieceTokenizer(info), target


def _target_ids(tok, target, text: str) -> list[int]:
    return [tok.vocab.get(p, tok.unk_id) for p in target.encode(text, out_type=str)]


@pytest.mark.parametrize(
    "text", ["我喜欢 Python 和 C++ 编程。", "汤姆说：“你好！”", "a  b   c", "2024年10月", "Tom 的猫 ", ""]
)
def test_real_tokenizer_streams_what_decode_gives(bundled, text):
    tok, target = bundled
    ids = _target_ids(tok, target, text)
    dec = IncrementalDecoder(tok)
    deltas = stream(dec, ids)
    assert "".join(deltas) + dec.finish() == tok.decode(ids).strip()
    assert all(not d.endswith(" ") for d in deltas)


def test_real_tokenizer_random_target_pieces(bundled):
    tok, target = bundled
    pool = [
        tok.vocab[target.id_to_piece(i)] for i in range(target.get_piece_size()) if target.id_to_piece(i) in tok.vocab
    ]
    rng = random.Random(5)
    for _ in range(300):
        ids = [rng.choice(pool) for _ in range(rng.randint(1, 30))]
        dec = IncrementalDecoder(tok)
        seen = ""
        for i in ids:
            seen += dec.push(i)
            assert seen == dec.emitted
        assert seen + dec.finish() == tok.decode(ids).strip()


def test_special_ids_stream_nothing(bundled):
    tok, target = bundled
    dec = IncrementalDecoder(tok)
    specials = sorted(tok.special_ids)[:5]
    assert stream(dec, specials) == [""] * len(specials)
    word = _target_ids(tok, target, "你好")
    assert "".join(stream(dec, word)) == "你好"


@pytest.mark.xfail(
    reason="a first piece with a leading '▁' that the target SentencePiece model does not "
    "know (source side of a joint vocabulary) is streamed with its leading space; "
    "finish() strips the full text and cannot take the space back"
)
def test_leading_space_of_an_unknown_first_piece(bundled):
    tok, _target = bundled
    source_only = next(
        i
        for i, p in sorted(tok.id_to_piece.items())
        if p.startswith("\u2581")
        and len(p) > 1
        and i not in tok.special_ids
        and _target.piece_to_id(p) == _target.unk_id()
    )
    dec = IncrementalDecoder(tok)
    assert "".join(stream(dec, [source_only])) + dec.finish() == tok.decode([source_only]).strip()
