"""Which language is this grammar about?  Asked once a grammar was read when the guess from its title is unsure.

Why ask: the language name goes into every prompt and its Glottocode into every export; a wrong
guess (a series list read as the title) silently spoils both.  The dialog shows the guess,
prefilled, and a list of the WALS and Grambank languages with their Glottocodes, searched by name
or code as the linguist types (case and diacritics ignored).  Choosing a row fills both fields; a
language missing from both databases can be typed by hand, with or without a Glottocode.  A project
with no grammar yet is never asked: there is no title to have guessed from.
"""

from __future__ import annotations

import re
from typing import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.catalog.languages import search_languages
from core.ingest.language import USER, is_unsure
from core.models import Language
from core.store import ProjectDatabase
from core.store.repository import get_language, list_documents, set_language

GLOTTOCODE = re.compile(r"^[a-z0-9]{4}\d{4}$")
SHOWN = 200  # rows of the list: enough to scroll, few enough to fill at every key


class LanguageDialog(QDialog):
    """Name + Glottocode, with a searchable list of WALS/Grambank languages."""

    def __init__(self, guess: Language | None, parent: QWidget | None = None, unsure: bool = True,
                 has_grammar: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle("Which language does this grammar describe?" if has_grammar else
                            "Which language will this project describe?")
        layout = QVBoxLayout(self)
        unsure = unsure and has_grammar  # without a grammar nothing was guessed: nothing to be unsure of
        why = QLabel(("GrammarLens could not tell the language for sure from the grammar's title. " if unsure else "")
                     + ("" if has_grammar else "No grammar has been read into this project yet. ")
                     + "The language goes into every question to the model and its Glottocode into the exports"
                     + (", so please check it." if unsure else "."))
        why.setWordWrap(True)
        layout.addWidget(why)
        form = QFormLayout()
        self.name_edit = QLineEdit(guess.name if guess else "")
        self.name_edit.setAccessibleName("Language name")
        form.addRow("&Language:", self.name_edit)
        self.code_edit = QLineEdit(guess.glottocode or "" if guess else "")
        self.code_edit.setAccessibleName("Glottocode")
        self.code_edit.setPlaceholderText("e.g. papu1250")
        form.addRow("&Glottocode:", self.code_edit)
        layout.addLayout(form)
        self.search_edit = QLineEdit(guess.name if guess else "")
        self.search_edit.setPlaceholderText("Search WALS and Grambank languages by name or Glottocode…")
        self.search_edit.setAccessibleName("Search languages")
        self.search_edit.setClearButtonEnabled(True)
        pick = QLabel("Or &pick it from WALS and Grambank (search by name or Glottocode; a row fills both fields):")
        pick.setWordWrap(True)
        pick.setBuddy(self.search_edit)
        layout.addWidget(pick)
        layout.addWidget(self.search_edit)
        self.list = QListWidget()
        self.list.setAccessibleName("WALS and Grambank languages")
        self.list.currentItemChanged.connect(self._picked)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        layout.addWidget(self.list, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self.refresh)
        self.search_edit.textChanged.connect(lambda _t: self._timer.start())
        self.name_edit.textChanged.connect(self._check)
        self.code_edit.textChanged.connect(self._check)
        self.resize(460, 480)
        self.refresh()
        self._check()

    def refresh(self) -> None:
        """List the languages matching the search text, best first."""
        self.list.blockSignals(True)
        self.list.clear()
        for choice in search_languages(self.search_edit.text(), limit=SHOWN):
            item = QListWidgetItem(f"{choice.name}  —  {choice.glottocode}")
            item.setData(Qt.ItemDataRole.UserRole, (choice.name, choice.glottocode))
            self.list.addItem(item)
        self.list.blockSignals(False)

    def _picked(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            name, code = item.data(Qt.ItemDataRole.UserRole)
            # "Ulwa (Papua New Guinea)" names the language Ulwa; the qualifier only told the Glottocode apart
            self.name_edit.setText(re.sub(r"\s*\([^)]*\)$", "", name) or name)
            self.code_edit.setText(code)

    def _check(self) -> None:
        code = self.code_edit.text().strip()
        ok = bool(self.name_edit.text().strip()) and (not code or bool(GLOTTOCODE.match(code)))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def language(self) -> Language:
        """The language as the linguist set it (source "user": never asked again)."""
        return Language(self.name_edit.text().strip(), self.code_edit.text().strip() or None, USER)


def ask_if_unsure(project: ProjectDatabase, parent: QWidget | None,
                  store: Callable[[Language], object] | None = None) -> LanguageDialog | None:
    """Open the dialog (not blocking) when a grammar was read and the language is missing or an unsure guess.

    Accepting stores the language at once (through ``store``, e.g. the project controller's, which
    tells the window; else straight into the project); cancelling keeps the guess (asked again at
    the next open).  Returns the dialog, or None when the language is known, when the project holds
    no grammar yet (an empty new project: there is no title to guess from), or when ``parent``
    already shows the question.
    """
    if not is_unsure(get_language(project)) or not list_documents(project) or _shown(parent) is not None:
        return None
    return edit_language(project, parent, store)


def _shown(parent: QWidget | None) -> LanguageDialog | None:
    """The language dialog ``parent`` shows now, if any (a question is never asked twice at once)."""
    if parent is None:
        return None
    return next((d for d in parent.findChildren(LanguageDialog) if d.isVisible()), None)


def edit_language(project: ProjectDatabase, parent: QWidget | None,
                  store: Callable[[Language], object] | None = None) -> LanguageDialog:
    """The dialog over the project's language as it stands (Project > Language…); accepting stores it.

    When ``parent`` shows the dialog already, that one is brought forward instead.
    """
    shown = _shown(parent)
    if shown is not None:
        shown.raise_()
        shown.activateWindow()
        return shown
    language = get_language(project)
    dialog = LanguageDialog(language, parent, unsure=is_unsure(language), has_grammar=bool(list_documents(project)))
    save = store or (lambda chosen: set_language(project, chosen))
    dialog.accepted.connect(lambda: save(dialog.language()))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
