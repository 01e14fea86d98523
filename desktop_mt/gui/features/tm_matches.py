"""The memory's matches for the sentence at the cursor, as CAT tools show them (issue 46).

Under the panes, :class:`MatchPanel` lists up to three matches, best first. Each row: its
shortcut (Ctrl+1..3, memoQ's), score and origin, the match's *whole* source with its word-level
differences to the current sentence marked (:func:`_diff_html`: words the match has and the
sentence lacks struck through, words the sentence has and the match lacks underlined; difflib
opcodes over words, and over characters for Chinese), and its target; a **Use N** button that
Tab reaches. The panel belongs to the sentence it was shown for: moving the pointer onto it does
not hide it (it goes when another sentence with no match is highlighted, or a new translation
starts).
"""

from __future__ import annotations

import difflib
import html
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..i18n import QT_TRANSLATE_NOOP, translate

if TYPE_CHECKING:
    from desktop_mt.tm.store import Match

__all__ = [
    "MAX_MATCHES",
    "MatchPanel",
    "diff_ops",
    "tokens",
]


MAX_MATCHES = 3
_TOKENS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|\w+|\s+|[^\w\s]", re.UNICODE)
_ORIGINS = {  # shown translated
    "approved": QT_TRANSLATE_NOOP("MatchPanel", "approved"),
    "imported": QT_TRANSLATE_NOOP("MatchPanel", "imported"),
    "edited": QT_TRANSLATE_NOOP("MatchPanel", "your edit"),
}


def tokens(text: str) -> list[str]:
    """``text`` as words, spaces, signs, and single Chinese characters (Chinese has no spaces)."""
    return _TOKENS.findall(text)


def diff_ops(current: str, match: str) -> list[tuple[str, str]]:
    """The match's source against the current sentence, word by word: ``(kind, text)`` pieces
    whose kinds are ``equal``, ``delete`` (in the match, not in the sentence) and ``insert`` (in
    the sentence, not in the match), in reading order (a replacement is its delete, then its insert)."""
    a, b = tokens(match), tokens(current)
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("equal", "".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", "".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", "".join(b[j1:j2])))
    return out


def _diff_html(current: str, match: str, dark: bool = False) -> str:
    """:func:`diff_ops` as rich text: deletions struck through in red, insertions underlined
    in green (colours that read on a dark palette when ``dark``)."""
    red, green = ("#ff8a80", "#69f0ae") if dark else ("#b71c1c", "#1b5e20")
    parts = []
    for kind, text in diff_ops(current, match):
        safe = html.escape(text)
        if kind == "delete":
            parts.append(f'<s style="color:{red}">{safe}</s>')
        elif kind == "insert":
            parts.append(f'<u style="color:{green}">{safe}</u>')
        else:
            parts.append(safe)
    return "".join(parts)


class MatchPanel(QFrame):
    """Under the panes: the memory's matches for one sentence (see the module docstring)."""

    useRequested = Signal(int)  # the row's index (0: Ctrl+1)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("suggestionBar")
        self.labels: list[QLabel] = []
        self.buttons: list[QPushButton] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.setSpacing(2)
        for index in range(MAX_MATCHES):
            row = QHBoxLayout()
            label = QLabel(self)
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            button = QPushButton(translate("MatchPanel", "Use {number}").format(number=index + 1), self)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it
            button.setToolTip(
                translate(
                    "MatchPanel", "Put this match's translation in place of the sentence's (Ctrl+{number})"
                ).format(number=index + 1)
            )
            button.clicked.connect(lambda _c=False, i=index: self.useRequested.emit(i))
            row.addWidget(label, 1)
            row.addWidget(button)
            layout.addLayout(row)
            self.labels.append(label)
            self.buttons.append(button)
        self.hide()

    @property
    def label(self) -> QLabel:
        """The best match's row text."""
        return self.labels[0]

    @property
    def use_button(self) -> QPushButton:
        """The best match's Use button."""
        return self.buttons[0]

    def show_matches(self, current: str, matches: list[Match]) -> None:
        """Show ``matches`` (the memory's, best first; at most three) for the sentence ``current``."""
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        for index, (label, button) in enumerate(zip(self.labels, self.buttons)):
            match = matches[index] if index < len(matches) else None
            label.setVisible(match is not None)
            button.setVisible(match is not None)
            if match is not None:
                label.setText(_row_html(index, current, match, dark))
        self.setVisible(bool(matches))


def _row_html(index: int, current: str, match: Match, dark: bool = False) -> str:
    """One row: "Ctrl+1 · Memory 94% (approved): <source, differences marked> → target"."""
    entry = match.entry
    unapproved = match.exact and entry.origin == "edited"
    what = (
        translate("MatchPanel", "your earlier edit, not approved") if unapproved else translate("MatchPanel", "Memory")
    )
    origin = translate("MatchPanel", _ORIGINS[entry.origin]) if entry.origin in _ORIGINS else entry.origin
    return (
        f"<b>Ctrl+{index + 1}</b> · {what} {match.score:.0f}% ({html.escape(origin)}): "
        f"“{_diff_html(current, entry.source, dark)}” → {html.escape(entry.target)}"
    )
