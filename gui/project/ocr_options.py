"""Project → Scanned pages (OCR)…: when pages are recognised, in which language, at what resolution.

The choices are the CLI's ``ingest --ocr``, ``--ocr-language`` and ``--ocr-dpi``, kept in the
application's settings (they belong to the person's machine and books, not to one project) and
used by every grammar read in the window.  Languages whose Tesseract model is missing are listed
with the package that installs it, so the choice never fails later in the middle of a book.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QWidget

from core.ingest.ocr_language import describe
from core.ingest.page_reading import OcrMode, OcrOptions
from core.ingest.tesseract import LANGUAGE_NAMES, installed_languages, package_of, tesseract_path

MODE_KEY, LANGUAGE_KEY, DPI_KEY = "ocr/mode", "ocr/language", "ocr/dpi"
MODES: dict[str, str] = {
    "auto": "Pages without text, or with a poor text layer (recommended)",
    "force": "Every page, even those with a good text layer",
    "never": "No page: trust the PDF's text layer as it is",
}


def load_ocr_options(store: QSettings) -> OcrOptions:
    mode = str(store.value(MODE_KEY, "auto") or "auto")
    language = str(store.value(LANGUAGE_KEY, "") or "") or None
    try:
        dpi = int(store.value(DPI_KEY, 300) or 300)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        dpi = 300
    checked: OcrMode = "force" if mode == "force" else "never" if mode == "never" else "auto"
    return OcrOptions(mode=checked, language=language, dpi=min(600, max(100, dpi)))


def save_ocr_options(store: QSettings, options: OcrOptions) -> None:
    store.setValue(MODE_KEY, options.mode)
    store.setValue(LANGUAGE_KEY, options.language or "")
    store.setValue(DPI_KEY, options.dpi)


class OcrOptionsDialog(QDialog):
    """Three choices and a line saying whether Tesseract is there at all."""

    def __init__(self, options: OcrOptions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Scanned pages (OCR)")
        form = QFormLayout(self)
        self.mode = QComboBox()
        for key, text in MODES.items():
            self.mode.addItem(text, key)
        self.mode.setCurrentIndex(max(0, self.mode.findData(options.mode)))
        form.addRow("Read by OCR:", self.mode)
        self.language = QComboBox()
        self.language.addItem("Detect from the book", "")
        have = installed_languages()
        for code in LANGUAGE_NAMES:
            suffix = "" if code in have else f" — not installed: apt-get install {package_of(code)}"
            self.language.addItem(describe(code) + suffix, code)
        if options.language and self.language.findData(options.language) < 0:
            self.language.addItem(describe(options.language), options.language)
        self.language.setCurrentIndex(max(0, self.language.findData(options.language or "")))
        self.language.setToolTip("The language the grammar is written in (not the language it describes)")
        form.addRow("Language of the book:", self.language)
        self.dpi = QSpinBox()
        self.dpi.setRange(100, 600)
        self.dpi.setSingleStep(50)
        self.dpi.setSuffix(" dpi")
        self.dpi.setValue(options.dpi)
        form.addRow("Resolution:", self.dpi)
        found = tesseract_path()
        note = (f"Tesseract: {found}; models: {', '.join(sorted(have)) or 'none'}." if found else
                "Tesseract is not installed: scanned pages cannot be read (sudo apt-get install tesseract-ocr).")
        status = QLabel(note)
        status.setWordWrap(True)
        form.addRow(status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def options(self) -> OcrOptions:
        mode = str(self.mode.currentData())
        checked: OcrMode = "force" if mode == "force" else "never" if mode == "never" else "auto"
        return OcrOptions(mode=checked, language=str(self.language.currentData()) or None, dpi=self.dpi.value())


def ocr_options_action(parent: QWidget, store: QSettings) -> QAction:
    """Project → Scanned pages (OCR)…"""
    action = QAction("Scanned pages (&OCR)…", parent)
    action.setToolTip("When scanned pages are read by OCR, in which language and at what resolution")

    def edit() -> None:
        dialog = OcrOptionsDialog(load_ocr_options(store), parent)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            save_ocr_options(store, dialog.options())

    action.triggered.connect(edit)
    parent.addAction(action)
    return action
