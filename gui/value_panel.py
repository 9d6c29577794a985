"""The value & review panel: the feature's value, the model's reasoning, and the reviewer's actions.

The panel only shows what it is given and emits what the reviewer asked for; the feature
controller stores reviews through core.  It is the place where the linguist's own coding grows
(a value set by hand, pins, a coding pass): the value row, the review box and the history line
are separate blocks so that new controls slot in between them.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.catalog.model import Feature
from gui.review import ClassificationView


class ValuePanel(QWidget):
    """Value + reasoning + accept / override / note."""

    classifyRequested = Signal()
    acceptRequested = Signal()
    overrideRequested = Signal(str)  # value label
    noteRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)

        self.feature_label = QLabel("Pick a feature on the left.")
        self.feature_label.setWordWrap(True)
        self.feature_label.setAccessibleName("Selected feature")
        bold = QFont(self.feature_label.font())
        bold.setBold(True)
        self.feature_label.setFont(bold)
        layout.addWidget(self.feature_label)

        row = QHBoxLayout()
        self.value_label = QLabel("—")
        self.value_label.setAccessibleName("Predicted value")
        self.value_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        big = QFont(self.value_label.font())
        big.setPointSizeF(big.pointSizeF() * 1.5)
        big.setBold(True)
        self.value_label.setFont(big)
        self.value_label.setWordWrap(True)
        self.value_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        row.addWidget(self.value_label, 1)
        self.classify_button = QPushButton("&Classify")
        self.classify_button.setToolTip("Ask the language model for the value (Ctrl+Return)")
        self.classify_button.setAccessibleName("Classify with the language model")
        self.classify_button.clicked.connect(self.classifyRequested)
        row.addWidget(self.classify_button)
        layout.addLayout(row)

        self.meta_label = QLabel("")
        self.meta_label.setWordWrap(True)
        self.meta_label.setAccessibleName("Classification details")
        self.meta_label.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.meta_label)

        self.reasoning = QTextBrowser()
        self.reasoning.setAccessibleName("Reasoning of the model")
        self.reasoning.setPlaceholderText("The model's reasoning appears here after a classification.")
        self.reasoning.setMinimumHeight(60)
        layout.addWidget(self.reasoning, 1)

        review = QFrame()
        review.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(review)
        grid.setContentsMargins(6, 6, 6, 6)
        self.accept_button = QPushButton("&Accept")
        self.accept_button.setAccessibleName("Accept the predicted value")
        self.accept_button.setToolTip("Record that the predicted value is right (Alt+A)")
        self.accept_button.clicked.connect(self.acceptRequested)
        grid.addWidget(self.accept_button, 0, 0)
        self.override_combo = QComboBox()
        self.override_combo.setAccessibleName("Value to use instead")
        self.override_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.override_combo.setMinimumContentsLength(12)
        grid.addWidget(self.override_combo, 0, 1)
        self.override_button = QPushButton("&Override")
        self.override_button.setAccessibleName("Override with the chosen value")
        self.override_button.clicked.connect(lambda: self.overrideRequested.emit(self.override_combo.currentText()))
        grid.addWidget(self.override_button, 0, 2)
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("Add a note (e.g. where the grammar is unclear)…")
        self.note_edit.setAccessibleName("Review note")
        self.note_edit.returnPressed.connect(self._emit_note)
        grid.addWidget(self.note_edit, 1, 0, 1, 2)
        self.note_button = QPushButton("Add &note")
        self.note_button.setAccessibleName("Add the note")
        self.note_button.clicked.connect(self._emit_note)
        grid.addWidget(self.note_button, 1, 2)
        grid.setColumnStretch(1, 1)
        layout.addWidget(review)

        self.review_label = QLabel("")
        self.review_label.setWordWrap(True)
        self.review_label.setAccessibleName("Review history")
        self._model_value, self._meta = "—", ""
        self.review_label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.review_label)
        self.set_feature(None)

    def _emit_note(self) -> None:
        text = self.note_edit.text().strip()
        if text:
            self.noteRequested.emit(text)

    # --- state ------------------------------------------------------------------------
    def set_feature(self, feature: Feature | None, values: Sequence[str] = ()) -> None:
        self.feature_label.setText(f"{feature.id}  {feature.name}" if feature else "Pick a feature on the left.")
        self.override_combo.clear()
        self.override_combo.addItems(list(values))
        self.show_classification(None)
        self.show_reviews([])

    def set_classify_enabled(self, enabled: bool, why: str = "") -> None:
        self.classify_button.setEnabled(enabled)
        self.classify_button.setToolTip(why or "Ask the language model for the value (Ctrl+Return)")

    def show_classification(self, value: str | None, reasoning: str = "", meta: str = "") -> None:
        self.value_label.setText(value or "—")
        self.value_label.setToolTip("")
        self._model_value, self._meta = value or "—", meta
        self.reasoning.setPlainText(reasoning)
        self.meta_label.setText(meta)
        has = value is not None
        self.accept_button.setEnabled(has)
        # A value or a note needs no model: once a feature is chosen (its values listed), the linguist codes it.
        chosen = self.override_combo.count() > 0
        for widget in (self.override_button, self.override_combo, self.note_button, self.note_edit):
            widget.setEnabled(chosen)
        self.override_button.setText("&Override" if has else "Se&t value")
        if has:
            index = self.override_combo.findText(value or "")
            if index >= 0:
                self.override_combo.setCurrentIndex(index)

    def show_override(self, value: str) -> None:
        """A reviewer's override replaces the model's value on display; the model's answer stays in the details."""
        self.value_label.setText(f"✎ {value}")
        self.value_label.setToolTip(f"Overridden by a reviewer; the model said: {self._model_value}")
        self.meta_label.setText(f"model said: {self._model_value} · {self._meta}")

    def show_view(self, view: ClassificationView | None) -> None:
        """Show a classification as :func:`gui.review.describe` put it, or nothing (None)."""
        if view is None:
            self.show_classification(None)
        else:
            self.show_classification(view.value, view.reasoning, view.meta)

    def show_history(self, lines: Sequence[str], overridden: str | None) -> None:
        """The reviews, newest first; a reviewer's override replaces the model's value on display."""
        self.show_reviews(lines)
        if overridden:
            self.show_override(overridden)

    def show_reviews(self, lines: Sequence[str]) -> None:
        self.review_label.setText("\n".join(lines))

    def focus_note(self) -> None:
        self.note_edit.setFocus()

    def review_stored(self, action: str) -> None:
        """A review was saved: a note's text is done with."""
        if action == "note":
            self.note_edit.clear()
