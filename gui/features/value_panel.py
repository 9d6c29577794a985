"""The model's side of the chosen feature: its predicted value, reasoning and cited pages, Classify, Accept.

Why only the model's side: the linguist records a value in one place, the coding panel
(:mod:`gui.coding.coding_panel`: the value set, "?", notes, pins, Undo).  This panel shows what the
model proposed and offers the one act that belongs to a proposal, Accept, which the coding
controller stores as a decision (and which pins the cited paragraphs unless pins exist).
The panel only shows what it is given and emits what was asked.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from core.catalog.model import Feature
from gui.features.review import ClassificationView

ACCEPT_TIP = "Take the model's value as yours; its cited paragraphs become your pins unless you pinned some (Alt+A)"


class ValuePanel(QWidget):
    """Predicted value + reasoning + Classify / Accept."""

    classifyRequested = Signal()
    acceptRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 2)
        layout.setSpacing(3)

        self.feature_label = QLabel("Pick a feature on the left.")
        self.feature_label.setWordWrap(True)
        self.feature_label.setAccessibleName("Selected feature")
        bold = QFont(self.feature_label.font())
        bold.setBold(True)
        bold.setPointSizeF(bold.pointSizeF() * 1.1)
        self.feature_label.setFont(bold)
        layout.addWidget(self.feature_label)

        row = QHBoxLayout()
        caption = QLabel("Model:")
        caption.setStyleSheet("color: palette(dark);")
        row.addWidget(caption)
        self.value_label = QLabel("—")
        self.value_label.setAccessibleName("Predicted value")
        self.value_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        big = QFont(self.value_label.font())
        big.setPointSizeF(big.pointSizeF() * 1.3)
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
        self.accept_button = QPushButton("Accept")  # Alt+A is the Feature menu's action (no mnemonic twice)
        self.accept_button.setAccessibleName("Accept the predicted value")
        self.accept_button.setToolTip(ACCEPT_TIP)
        self.accept_button.clicked.connect(self.acceptRequested)
        row.addWidget(self.accept_button)
        layout.addLayout(row)

        self.meta_label = QLabel("")
        self.meta_label.setWordWrap(True)
        self.meta_label.setAccessibleName("Classification details")
        self.meta_label.setStyleSheet("color: palette(dark);")
        layout.addWidget(self.meta_label)

        self.reasoning = QTextBrowser()
        self.reasoning.setAccessibleName("Reasoning of the model")
        self.reasoning.setPlaceholderText("No model answer yet. Classify (Ctrl+Return) asks one; "
                                          "your own value goes below.")
        self.reasoning.setMinimumHeight(48)
        layout.addWidget(self.reasoning, 1)
        self._has_value = self._accepted = False
        self.set_feature(None)

    # --- state ------------------------------------------------------------------------
    def set_feature(self, feature: Feature | None) -> None:
        self.feature_label.setText(f"{feature.id}  {feature.name}" if feature else "Pick a feature on the left.")
        self.feature_label.setToolTip(feature.name if feature else "")
        self._accepted = False
        self.show_classification(None)

    def set_classify_enabled(self, enabled: bool, why: str = "") -> None:
        self.classify_button.setEnabled(enabled)
        self.classify_button.setToolTip(why or "Ask the language model for the value (Ctrl+Return)")

    def show_classification(self, value: str | None, reasoning: str = "", meta: str = "") -> None:
        self.value_label.setText(value or "—")
        self.reasoning.setPlainText(reasoning)
        self.meta_label.setText(meta)
        self.meta_label.setVisible(bool(meta))
        self._has_value = value is not None
        self.show_agreement(self._accepted)

    def show_view(self, view: ClassificationView | None) -> None:
        """Show a classification as :func:`gui.features.review.describe` put it, or nothing (None)."""
        if view is None:
            self.show_classification(None)
        else:
            self.show_classification(view.value, view.reasoning, view.meta)

    def show_agreement(self, accepted: bool) -> None:
        """Whether the linguist's current value is the model's: then there is nothing left to accept."""
        self._accepted = accepted
        self.accept_button.setEnabled(self._has_value and not accepted)
        self.accept_button.setText("Accepted ✔" if self._has_value and accepted else "Accept")
        self.accept_button.setToolTip("Your value is the model's." if self._has_value and accepted else ACCEPT_TIP)
