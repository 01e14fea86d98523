"""The pointer's highlight goes when it leaves the pane (issue 28, user test): the cursor's
sentence is not shown again until a cursor moves."""

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from .test_postedit import OUT, _cursor_at, make_ready


def test_leaving_the_pane_clears_the_highlight(qtbot, make_controller):
    window, controller, _fake = make_ready(qtbot, make_controller)
    view = controller.alignment.view
    window.source.setFocus()
    cursor = window.source.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    window.source.setTextCursor(cursor)  # after a paste: the cursor at the end, in the last sentence
    assert view.pair is not None and view.pair.translation == "FINE."
    viewport = window.target.viewport()
    point = window.target.cursorRect(_cursor_at(window, 2)).center()
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(point),
        QPointF(viewport.mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(viewport, move)
    assert view.pair is not None and view.pair.translation == "HELLO WORLD."
    QApplication.sendEvent(viewport, QEvent(QEvent.Type.Leave))
    assert view.pair is None and window.target.extraSelections() == []
    cursor.movePosition(cursor.MoveOperation.Start)
    window.source.setTextCursor(cursor)  # the user moves a cursor: its sentence is shown again
    assert view.pair is not None and view.pair.translation == "HELLO WORLD."
    assert OUT
