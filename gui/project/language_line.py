"""The language line: which language the open project describes, always in sight, with a link to change it.

Why: the language goes into every question to the model and its Glottocode into every export, so
once a grammar is read the linguist should see what GrammarLens took it to be ("Language: Ulwa
(yaul1241) — change…") without opening anything.  The line sits in the status bar's permanent
area, follows the project (opened, closed, a grammar read, the language set) and tells the window
when to redraw its title.  It also asks the language question (:mod:`gui.project.language_dialog`) when a
grammar has been read and the guess is unsure; never for a project without a grammar.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from core.changes import ProjectChange
from core.ingest.language import is_unsure
from core.models import Language
from gui.project.language_dialog import LanguageDialog, ask_if_unsure, edit_language
from gui.project.project_controller import ProjectController


def line_text(language: Language | None, has_grammar: bool) -> str:
    """The line for an open project (rich text; its one link opens the language dialog)."""
    if language is None or not language.name:
        said, link = ("not found in the grammar's title" if has_grammar else "none yet (no grammar read)"), "set…"
    else:
        code = language.glottocode or "no Glottocode"
        guess = ", a guess" if is_unsure(language) else ""
        said, link = f"{escape(language.name)} ({escape(code)}){guess}", "check…" if guess else "change…"
    return f"Language: {said} — <a href=\"language\">{link}</a>"


class LanguageLine(QLabel):
    """"Language: Ulwa (yaul1241) — change…" for the open project; hidden while none is open."""

    changed = Signal()  # the project or its language changed (the window's title follows)

    def __init__(self, projects: ProjectController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.projects = projects
        self.setObjectName("languageLine")
        self.setAccessibleName("Language of the project")
        self.setToolTip("The language goes into every question to the model and its Glottocode into the exports; "
                        "click the link to change it (Project → Language…)")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                     | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.linkActivated.connect(lambda _link: self.edit())
        projects.opened.connect(self._opened)
        projects.closed.connect(self.refresh)
        projects.documentsChanged.connect(lambda _shown: self.refresh())
        # the language set here, by the CLI beside the window or by a restore: one change record each
        projects.changes.changed.connect(self._project_changed)
        projects.ingestFinished.connect(self._ingested)
        self.refresh()

    def refresh(self) -> None:
        if self.projects.project is None:
            self.clear()
            self.hide()
        else:
            self.setText(line_text(self.projects.language(), bool(self.projects.state.documents)))
            self.show()
        self.changed.emit()

    def _project_changed(self, change: ProjectChange, _initiator: object) -> None:
        if change.language:
            self.refresh()

    def _opened(self, _path: object) -> None:
        self.refresh()
        self.ask()

    def _ingested(self, added: object) -> None:
        self.refresh()
        if added:
            self.ask()

    def ask(self) -> LanguageDialog | None:
        """The language question, when a grammar was read and its language is an unsure guess."""
        project = self.projects.project
        return None if project is None else ask_if_unsure(project, self.window(), self.projects.set_language)

    def edit(self) -> LanguageDialog | None:
        """The language dialog over the open project (the link, Project → Language…)."""
        project = self.projects.project
        return None if project is None else edit_language(project, self.window(), self.projects.set_language)
