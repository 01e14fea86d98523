"""A long paste whose sentences are marked (issue 49): each streamed sentence makes only its own
marks, so the UI thread's work per sentence does not grow with the sentences before it, and
every mark is painted by the end."""

from __future__ import annotations

from typing import Any

from desktop_mt.engine.glossary import Term

from ..sentence_fake import sentence_factory

N = 60
PASTE = "\n\n".join(" ".join(f"Alpha beta number {k + j}." for j in range(5)) for k in range(0, N, 5))


def test_the_marks_of_a_long_paste_are_made_once_per_sentence(qtbot, make_controller):
    window, controller = make_controller(factory=sentence_factory())
    view = controller.alignment.view
    asked: list[Any] = []
    term = Term("alpha", "阿尔法")

    def missing(pair: Any) -> tuple[Term, ...]:  # every translation lacks the term: every sentence is marked
        asked.append(pair)
        return (term,)

    view.missing_terms = missing
    with qtbot.waitSignal(controller.requestFinished, timeout=20_000):
        controller.translate(PASTE)
    assert len(view.alignment.pairs) == N
    # Asked about each sentence a few times (its own mark, the request's end), not once per
    # sentence before it at each new sentence (N * N / 2 = 1,800 times).
    assert len(asked) <= 6 * N
    waves = [s for s in window.target.extraSelections() if "阿尔法" in s.format.toolTip()]
    assert len(waves) == N  # every sentence's mark is painted by the end, under its own sentence
    painted = sorted((s.cursor.selectionStart(), s.cursor.selectionEnd()) for s in waves)
    assert painted == [pair.tgt for pair in view.alignment.pairs]
