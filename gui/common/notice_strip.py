"""A coloured strip above the window's panels: a notice that stays readable, with one button beside it.

The offline banner and the backup banner say different things in different colours, but are the
same widget: a word-wrapped label that grows with the window and one button at its right.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


@dataclass(frozen=True)
class StripLook:
    """What sets one strip apart: its Qt object name, its colours, and the words a screen reader says."""

    object_name: str
    background: str
    border: str
    text_colour: str
    label_name: str
    button_text: str
    button_name: str


class NoticeStrip(QFrame):
    """The strip; ``label`` holds the notice and ``button`` is the one action beside it."""

    def __init__(self, look: StripLook, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name = look.object_name
        self.setObjectName(name)
        self.setStyleSheet(f"#{name} {{ background: {look.background}; border-bottom: 1px solid {look.border}; }}"
                           f"#{name} QLabel {{ color: {look.text_colour}; }}")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.label.setAccessibleName(look.label_name)
        row.addWidget(self.label, 1)
        self.button = QPushButton(look.button_text)
        self.button.setAccessibleName(look.button_name)
        row.addWidget(self.button)
