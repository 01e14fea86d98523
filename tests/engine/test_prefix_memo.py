"""A completion's encoder output is kept for the next keystroke in the same sentence (issue 49):
one encoder call while typing in a sentence, the same completions as without the memo."""

from __future__ import annotations

import numpy as np

from desktop_mt import GenerationOptions, TextDelta, Translator
from desktop_mt.engine.prefix import EncoderMemo
from desktop_mt.engine.testing import CountingSessions


class EncodeCounting(CountingSessions):
    def __init__(self, inner):
        super().__init__(inner)
        self.encodes = 0

    def encode(self, input_ids, attention_mask):
        self.encodes += 1
        return super().encode(input_ids, attention_mask)


def completion(translator, sentence, prefix):
    """The greedy completion of ``sentence`` after ``prefix`` (what a keystroke asks for)."""
    events = translator.translate_stream(sentence, GenerationOptions(beams=1), prefix=prefix)
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_typing_in_one_sentence_encodes_it_once(tiny_marian_dir):
    translator = Translator(tiny_marian_dir, variant="fp32")
    counting = translator.sessions = EncodeCounting(translator.runner())
    sentence = "The committee met on Tuesday."
    first = [completion(translator, sentence, typed) for typed in ("a", "ab", "abc")]
    assert counting.encodes == 1  # three keystrokes, one encoder call
    completion(translator, "Another sentence.", "a")
    assert counting.encodes == 2  # a new sentence is encoded
    # The same completions as a translator that never kept anything.
    fresh = Translator(tiny_marian_dir, variant="fp32")
    sessions = fresh.runner()
    for typed, got in zip(("a", "ab", "abc"), first):
        fresh.sessions = EncodeCounting(sessions)  # a new runner object each time: nothing kept
        assert completion(fresh, sentence, typed) == got


def test_the_kept_output_is_read_only_and_a_new_input_replaces_it():
    class Inner:
        calls = 0

        def encode(self, ids, mask):
            Inner.calls += 1
            return ids.astype(np.float32)[:, :, None] * 2

    memo = EncoderMemo(Inner())  # type: ignore[arg-type]
    ids, mask = np.array([[5, 6, 0]]), np.ones((1, 3), dtype=np.int64)
    out = memo.encode(ids, mask)
    assert memo.encode(ids.copy(), mask.copy()) is out and Inner.calls == 1
    assert not out.flags.writeable
    other = memo.encode(np.array([[5, 7, 0]]), mask)
    assert Inner.calls == 2 and other[0, 1, 0] == 14.0
    assert memo.encode(np.array([[5, 6, 0, 0]]), np.ones((1, 4), dtype=np.int64)) is not out
