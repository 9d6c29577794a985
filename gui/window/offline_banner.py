"""The offline banner: without a language model everything but classification works; it says how to add one."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

OFFLINE_TEXT = (
    "No language model is set up, so GrammarLens works offline: search features, read the evidence and review. "
    "To get predicted values, open Settings (Ctrl+,) and add an OpenAI API key, or the URL of a local "
    "OpenAI-compatible server (llama.cpp, Ollama, LM Studio)."
)


class OfflineBanner(QFrame):
    """A yellow strip above the panels with a button to the settings."""

    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("offlineBanner")
        self.setStyleSheet("#offlineBanner { background: #fff4d6; border-bottom: 1px solid #e0c36a; }"
                           "#offlineBanner QLabel { color: #4a3b00; }")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        self.label = QLabel(OFFLINE_TEXT)
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Offline mode notice")
        row.addWidget(self.label, 1)
        button = QPushButton("Open settings…")
        button.setAccessibleName("Open settings to add a key or a local server")
        button.clicked.connect(self.settingsRequested)
        row.addWidget(button)
