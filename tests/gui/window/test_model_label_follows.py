"""The model label agrees with the Auto entry (user test): after a swap under Auto and Ctrl+Z,
the label names the model of the restored text's direction, as the entry does; and under
"Auto (mixed)" a narrow label shows a shorter form of both models, never a cut one (the full
text stays in the tooltip)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from .test_model_label import BOTH, EN_ZH_MODEL, ZH_EN_MODEL, translate, two_way  # noqa: F401 - the fixture


def test_undoing_a_swap_under_auto_names_the_restored_directions_model(qtbot, two_way):  # noqa: F811
    window, controller = two_way
    assert window.direction_bar.target() == "auto"
    window.set_source("The weather is nice today.")
    translate(qtbot, controller, window.source_text())
    assert window.model_label.text() == f"{EN_ZH_MODEL} · int8"
    with qtbot.waitSignal(controller.requestFinished, timeout=10_000):
        window.swap_action.trigger()
    assert window.direction_bar.target() == "auto"  # Auto stays Auto
    assert window.model_label.text() == f"{ZH_EN_MODEL} · int8"
    window.source.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.source_text() == "The weather is nice today."
    qtbot.waitUntil(lambda: "English → Chinese" in window.direction_bar.detected(), timeout=10_000)
    qtbot.waitUntil(lambda: window.model_label.text() == f"{EN_ZH_MODEL} · int8", timeout=10_000)
    qtbot.keyClick(window.source, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.model_label.text() == f"{ZH_EN_MODEL} · int8", timeout=10_000)


@pytest.mark.parametrize("width", [120, 160, 200, 260, 320, 400])
def test_both_models_in_a_narrow_label_show_a_shorter_form_never_a_cut_one(two_way, width):  # noqa: F811
    window, controller = two_way
    label = window.model_label
    assert label.text() == BOTH
    label.resize(max(width, label.minimumWidth()), label.height())
    shown = label.shown_text()
    assert "…" not in shown
    assert shown == BOTH or shown in label.shorter
    assert EN_ZH_MODEL in label.toolTip() and ZH_EN_MODEL in label.toolTip()


def test_the_shorter_forms_of_both_models(two_way):  # noqa: F811
    window, controller = two_way
    assert window.model_label.shorter == [
        f"EN→ZH {EN_ZH_MODEL} · ZH→EN {ZH_EN_MODEL}",
        "EN→ZH + ZH→EN models",
        "EN⇄ZH models",
    ]
    assert window.model_label.minimumWidth() >= window.model_label.fontMetrics().horizontalAdvance("EN⇄ZH models")
