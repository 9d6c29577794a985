"""The offline banner: without a language model everything but classification works; it says how to add one."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from gui.common.notice_strip import NoticeStrip, StripLook

OFFLINE_TEXT = (
    "No language model is set up, so GrammarLens works offline: search features, read the evidence and review. "
    "To get predicted values, open Settings (Ctrl+,) and add an OpenAI API key, or the URL of a local "
    "OpenAI-compatible server (llama.cpp, Ollama, LM Studio)."
)


OFFLINE_LOOK = StripLook("offlineBanner", "#fff4d6", "#e0c36a", "#4a3b00", "Offline mode notice",
                         "Open settings…", "Open settings to add a key or a local server")


class OfflineBanner(NoticeStrip):
    """A yellow strip above the panels with a button to the settings."""

    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(OFFLINE_LOOK, OFFLINE_TEXT, parent)
        self.button.clicked.connect(self.settingsRequested)
