"""Look-ahead decoding for a translation stream (``Translator.translate_stream(look_ahead=True)``).

A stream shows its sentences in order. Decoded one after another at one row, a long text costs
about three times what ``translate_batch`` takes for the same sentences (the decoder's step costs
nearly as much at 1 row as at 16 on a CPU). With look-ahead the first text the model gets is
decoded alone, as without it (its tokens show at once). When the stream needs a text no batch has
decoded, a batch starts with it and the pending texts nearest to it in length, up to the
translator's ``batch_size`` rows and ``translate_batch``'s token budget: that text's tokens pass
through as the batch decodes them (the stream still shows it token by token), the others are
kept for when the stream reaches them. The pieces of a sentence tried whole and cut
(``translate_batch``'s second pass) join the pending texts as soon as that sentence is decided.
So each sentence shows, in order, as soon as it and all before it are done, and the whole text
costs about what ``translate_batch`` costs (the same rows, about as many decoder steps).

Every text gets the search events it would get alone (``TokensStep`` then ``ItemDone``, item 0),
so ``engine.streaming`` shows exactly what it shows without look-ahead when the model is batch
invariant (``Translator.batch_invariant``: fp32, per-row int8). Cancelling stops the running
batch at its next decode step (the search checks the flag every step).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from . import generation as gen
from . import spans
from .model_text import decide
from .segment import Segment

if TYPE_CHECKING:
    from .core import TranslatorCore
    from .options import GenerationOptions
    from .protocols import CancelToken

__all__ = [
    "TOKEN_BUDGET",
    "Search",
    "batches",
    "plan_texts",
    "single_search",
    "LookAhead",
]

TOKEN_BUDGET = 4096  # source tokens x rows per batch (translate_batch, look-ahead)

Search = Callable[[str], Iterator[gen.SearchEvent]]
"""One text's search events, as item 0 of a search of that text alone."""


def batches(order: list[str], encoded: dict[str, list[int]], max_rows: int, budget: int) -> Iterator[list[str]]:
    """``order`` (texts sorted by length) cut into batches of at most ``max_rows`` rows and
    ``budget`` source tokens (the widest row times the rows): ``translate_batch``'s batches."""
    batch: list[str] = []
    for text in order:
        width = len(encoded[text])
        if batch and (len(batch) >= max_rows or width * (len(batch) + 1) > budget):
            yield batch
            batch = []
        batch.append(text)
    if batch:
        yield batch


def plan_texts(items: Sequence[object]) -> list[str]:
    """The texts a plan gives the model, in order, each once: its segments, its sentences tried
    whole, the pieces of those cut without trying. (The pieces of a sentence tried whole and
    then cut are known only once it is decoded.)"""
    out: dict[str, None] = {}
    for item in items:
        if isinstance(item, Segment):
            out[item.text] = None
        elif isinstance(item, spans.Whole):
            out.update(dict.fromkeys([item.text] if not item.reason else plan_texts(item.fallback)))
    return list(out)


def single_search(core: TranslatorCore, opts: GenerationOptions, cancel: CancelToken | None) -> Search:
    """Each text searched alone (a stream without look-ahead)."""
    return lambda text: core.search([core.text.encode(text, opts)], opts, cancel)


class _Batch:
    """A running batch search: its texts (row order) and what each row has decoded so far."""

    def __init__(self, texts: list[str], events: Iterator[gen.SearchEvent]) -> None:
        self.texts, self.events = texts, events
        self.row = {text: row for row, text in enumerate(texts)}
        self.partial: list[list[int]] = [[] for _ in texts]

    def step(self, done: dict[str, list[int]]) -> bool:
        """Take the search's next event (a finished row goes into ``done``); False once it has ended."""
        event = next(self.events, None)
        if event is None:
            return False
        if isinstance(event, gen.TokensStep):
            self.partial[event.item].extend(event.ids)
        elif isinstance(event, gen.ItemDone):
            done[self.texts[event.item]] = event.ids
        return True


class LookAhead:
    """A stream's searches with look-ahead (see the module docstring): :meth:`search` is the
    stream's :data:`Search`; :meth:`close` stops a batch still running when the stream ends.

    A batch starts when the stream needs a text no batch has decoded: that text and the pending
    texts nearest to it in length (the plan's texts, and the pieces of the sentences tried whole
    and cut so far: ``translate_batch``'s second pass, joined in as they become known)."""

    def __init__(
        self,
        core: TranslatorCore,
        items: Sequence[object],
        opts: GenerationOptions,
        cancel: CancelToken | None,
        rows: int,
        alone: Sequence[str] | None = None,
        more: Callable[[], Sequence[object]] | None = None,
    ) -> None:
        self.core, self.opts, self.cancel, self.rows = core, opts, cancel, rows
        self.more = more  # the plan of the text's later lines, made when first needed
        texts = plan_texts(items)
        # Decoded alone, never held in a batch: the first text (its tokens show at once), or the
        # caller's (the sentence at the window's cursor).
        self.solo = set(texts[:1] if alone is None else alone)
        self.ahead = [text for text in texts if text not in self.solo]
        self.wholes = {w.text: w for w in _tried_whole(items)}
        self.done: dict[str, list[int]] = {}
        self.decided: dict[str, bool] = {}  # a sentence tried whole -> cut
        self.encoded: dict[str, list[int]] = {}
        self.running: _Batch | None = None

    def search(self, text: str) -> Iterator[gen.SearchEvent]:
        """``text``'s search events: followed as its batch decodes it, replayed when a batch
        decoded it before, or a search of it alone (the first text, a text not foreseen)."""
        sent = 0  # ids of ``text`` given so far
        batch = self._batch_for(text) if text not in self.done else None
        if self._cancelled():  # while a batch before it ran: start no other
            return
        if batch is not None:
            ids = batch.partial[batch.row[text]]
            while text not in self.done:
                if len(ids) > sent:
                    yield gen.TokensStep(0, ids[sent:])
                    sent = len(ids)
                if not batch.step(self.done):  # the search ended first: cancelled
                    self.running = None
                    return
        if text in self.done:
            # Beam search commits only the prefix every hypothesis shares: the rest comes here.
            ids = self.done[text]
            if len(ids) > sent:
                yield gen.TokensStep(0, ids[sent:])
            yield gen.ItemDone(0, ids)
            return
        if batch is not None:  # its batch was cancelled
            return
        self._finish_running()
        if self._cancelled():
            return
        for event in self.core.search([self.core.text.encode(text, self.opts)], self.opts, self.cancel):
            if isinstance(event, gen.ItemDone):
                self.done[text] = event.ids
            yield event

    def _batch_for(self, text: str) -> _Batch | None:
        """The batch that decodes ``text`` (None: it is decoded alone): the running one when it
        has it, else a new one around it (the running one is finished first, its rows kept)."""
        if self.running is not None and text in self.running.row:
            return self.running
        self._finish_running()
        if text in self.done or self._cancelled():  # the running batch had it, or was cancelled
            return None
        if text in self.solo:  # decoded alone (the later lines are not planned yet: no need)
            return None
        pending = self._pending()
        if text not in pending:
            return None
        texts = self._around(text, pending)
        self.running = _Batch(texts, self.core.search([self._encoded(t) for t in texts], self.opts, self.cancel))
        return self.running

    def _pending(self) -> list[str]:
        """What is known to need decoding and is not decoded: the texts ahead, and the pieces of
        the sentences tried whole and cut so far (as ``engine.streaming`` decides them)."""
        if self.more is not None:  # the later lines join the pending texts
            later = self.more()
            self.more = None
            self.ahead += plan_texts(later)
            self.wholes.update({w.text: w for w in _tried_whole(later)})
        pieces = [t for whole in self.wholes.values() if self._cut(whole) for t in plan_texts(whole.fallback)]
        return [t for t in dict.fromkeys(self.ahead + pieces) if t not in self.done]

    def _cut(self, whole: spans.Whole) -> bool:
        ids = self.done.get(whole.text)
        if ids is None:
            return False
        if whole.text not in self.decided:
            text = self.core.text.finish_text(self.core.tokenizer.decode(ids).strip(), self.opts)
            self.decided[whole.text] = decide(text, whole).path == spans.CUT
        return self.decided[whole.text]

    def _around(self, text: str, pending: list[str]) -> list[str]:
        """``text`` and the pending texts nearest to it in length, up to ``rows`` and the token
        budget: the batches stay full and even (as ``translate_batch``'s length-sorted ones)."""
        width = {t: len(self._encoded(t)) for t in pending}
        target = width[text]
        others = sorted((t for t in pending if t != text), key=lambda t: (abs(width[t] - target), width[t]))
        batch, widest = [text], target
        for other in others:
            if len(batch) >= self.rows:
                break
            if max(widest, width[other]) * (len(batch) + 1) <= TOKEN_BUDGET:
                batch.append(other)
                widest = max(widest, width[other])
        return batch

    def _encoded(self, text: str) -> list[int]:
        if text not in self.encoded:
            self.encoded[text] = self.core.text.encode(text, self.opts)
        return self.encoded[text]

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def _finish_running(self) -> None:
        """Run the running batch to its end (or its cancel), keeping every row it finishes."""
        if self.running is not None:
            while self.running.step(self.done):
                pass
            self.running = None

    def close(self) -> None:
        """Stop a batch still running (the stream was closed or cancelled)."""
        if self.running is not None:
            close = getattr(self.running.events, "close", None)
            if close is not None:
                close()
            self.running = None


def _tried_whole(items: Sequence[object]) -> list[spans.Whole]:
    """The plan's sentences tried whole (the others are cut without trying)."""
    return [item for item in items if isinstance(item, spans.Whole) and not item.reason]
