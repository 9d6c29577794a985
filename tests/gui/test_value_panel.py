"""The value panel: the model's side only (predicted value, reasoning, Classify, Accept); values are set in the
coding panel."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.catalog import load_catalog
from gui.features.review import ClassificationView
from gui.features.value_panel import ValuePanel


def test_accept_waits_for_a_model_answer_and_is_done_once_the_value_is_the_models(qtbot) -> None:
    panel = ValuePanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_feature(load_catalog().get("81A"))
    assert panel.feature_label.text().startswith("81A")
    assert not panel.accept_button.isEnabled() and "Classify" in panel.reasoning.placeholderText()
    assert not hasattr(panel, "override_combo") and not hasattr(panel, "note_edit")  # one place to set a value

    panel.show_view(ClassificationView("SOV", "The verb is final.", "gpt-4o · cites p. 6", (1,)))
    assert panel.value_label.text() == "SOV" and panel.reasoning.toPlainText() == "The verb is final."
    assert "cites p. 6" in panel.meta_label.text() and panel.accept_button.isEnabled()
    with qtbot.waitSignal(panel.acceptRequested, timeout=1000):
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    panel.show_agreement(True)  # the coder's value is the model's now: nothing left to accept
    assert not panel.accept_button.isEnabled() and panel.accept_button.text().startswith("Accepted")
    panel.show_view(ClassificationView("SOV", "again", "", (1,)))  # shown again: still accepted
    assert not panel.accept_button.isEnabled()
    panel.show_agreement(False)  # the coder chose another value: the model's can be accepted again
    assert panel.accept_button.isEnabled() and panel.accept_button.text() == "Accept"
    panel.set_feature(load_catalog().get("49A"))
    assert panel.value_label.text() == "—" and not panel.accept_button.isEnabled()


def test_classify_button_says_why_it_is_off(qtbot) -> None:
    panel = ValuePanel()
    qtbot.addWidget(panel)
    panel.set_classify_enabled(False, "Add an API key or a local server in Settings (Ctrl+,) to classify.")
    assert not panel.classify_button.isEnabled() and "Settings" in panel.classify_button.toolTip()
    panel.set_classify_enabled(True)
    with qtbot.waitSignal(panel.classifyRequested, timeout=1000):
        panel.classify_button.click()
