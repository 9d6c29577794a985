"""The value & review panel: the value set of the feature, a classification shown, the reviewer's actions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.catalog import load_catalog
from gui import review
from gui.review import ClassificationView
from gui.value_panel import ValuePanel


def test_review_actions_wait_for_a_value_and_report_what_the_reviewer_asked(qtbot) -> None:
    panel = ValuePanel()
    qtbot.addWidget(panel)
    panel.show()
    feature = load_catalog().get("81A")
    panel.set_feature(feature, review.value_options(feature))
    assert panel.feature_label.text().startswith("81A")
    assert panel.override_combo.findText("SVO") >= 0 and panel.override_combo.findText("Not enough information") >= 0
    # without a model answer only Accept waits: a value and a note can be set by hand (issue 10)
    assert not panel.accept_button.isEnabled()
    assert panel.note_edit.isEnabled() and panel.override_button.isEnabled() and panel.override_combo.isEnabled()

    panel.show_view(ClassificationView("SOV", "The verb is final.", "gpt-4o · cites p. 6", (1,)))
    assert panel.value_label.text() == "SOV" and panel.reasoning.toPlainText() == "The verb is final."
    assert panel.accept_button.isEnabled() and panel.override_combo.currentText() == "SOV"
    with qtbot.waitSignal(panel.acceptRequested, timeout=1000):
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    panel.override_combo.setCurrentIndex(panel.override_combo.findText("SVO"))
    with qtbot.waitSignal(panel.overrideRequested, timeout=1000) as override:
        qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert override.args == ["SVO"]
    qtbot.keyClicks(panel.note_edit, "Check chapter 7.")
    with qtbot.waitSignal(panel.noteRequested, timeout=1000) as note:
        qtbot.keyClick(panel.note_edit, Qt.Key.Key_Return)
    assert note.args == ["Check chapter 7."]
    panel.review_stored("note")
    assert panel.note_edit.text() == ""

    panel.show_history(["2026-12-01 08:00  Ana overrode the value with “SVO”"], "SVO")
    assert panel.value_label.text() == "✎ SVO" and "model said: SOV" in panel.meta_label.text()
    assert "Ana" in panel.review_label.text()
    panel.show_view(None)
    assert panel.value_label.text() == "—" and not panel.accept_button.isEnabled()


def test_classify_button_says_why_it_is_off(qtbot) -> None:
    panel = ValuePanel()
    qtbot.addWidget(panel)
    panel.set_classify_enabled(False, "Add an API key or a local server in Settings (Ctrl+,) to classify.")
    assert not panel.classify_button.isEnabled() and "Settings" in panel.classify_button.toolTip()
    panel.set_classify_enabled(True)
    with qtbot.waitSignal(panel.classifyRequested, timeout=1000):
        panel.classify_button.click()
