"""Help → Keys: every key of the window in one list, read from the window's own actions.

Why read and not typed: a list typed by hand goes stale the day a shortcut changes.  The window's
actions (each made by :func:`gui.window.menus.make_action`, with its shortcut) and the evidence
list's own actions are listed as they are; only the coding pass's one-key steps, which are keys of
the pass bar rather than actions, are named here (:data:`PASS_KEYS`; a test presses each of them on
the bar and checks it does what this list says).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

# The coding pass's keys (with the pass bar focused: Ctrl+K), as gui/coding/coding_pass.py reads them.
PASS_KEYS = (
    ("0 … 9", "Select the value with that code (Grambank 0/1; WALS 1…n)"),
    ("?", "Select “not enough information”"),
    ("Enter", "Store the selected value and go on to the next feature"),
    ("→ or N", "Next feature of the pass"),
    ("← or B", "Previous feature of the pass"),
    ("U", "Next feature without a value"),
    ("↓ / ↑", "Next / previous evidence row"),
    ("Space", "Pin or unpin the selected evidence row"),
    ("Ctrl+Z", "Undo the pass's last act (even after Enter moved on)"),
)
ON_THE_PAGE = (("Click, then P", "Outline the paragraph clicked on the page, then pin it"),)
SECTIONS = ("Anywhere in the window", "In the coding pass (Ctrl+K, then one key per step)", "On the evidence list",
            "On the page")


def action_keys(actions: Iterable[QAction]) -> list[tuple[str, str]]:
    """(keys, what) for every action with a shortcut, in the order given, each action once."""
    rows, seen = [], set()
    for action in actions:
        keys = " or ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())
        what = action.text().replace("&", "").rstrip("…").strip()
        if keys and (keys, what) not in seen:
            seen.add((keys, what))
            rows.append((keys, what))
    return rows


def key_sections(window: QWidget, evidence_actions: Iterable[QAction]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The dialog's sections, each a title and its (keys, what) rows."""
    return [(SECTIONS[0], action_keys(window.actions())), (SECTIONS[1], list(PASS_KEYS)),
            (SECTIONS[2], action_keys(evidence_actions)), (SECTIONS[3], list(ON_THE_PAGE))]


class KeysDialog(QDialog):
    """A two-column list of keys by section; closes with Esc or Close."""

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keys of GrammarLens")
        layout = QVBoxLayout(self)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Keys", "What they do"])
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)  # ~30 rows at once
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("Keys")
        for title, rows in sections:
            heading = QTableWidgetItem(title)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            self.table.insertRow(self.table.rowCount())
            self.table.setItem(self.table.rowCount() - 1, 0, heading)
            self.table.setSpan(self.table.rowCount() - 1, 0, 1, 2)
            for keys, what in rows:
                self.table.insertRow(self.table.rowCount())
                self.table.setItem(self.table.rowCount() - 1, 0, QTableWidgetItem(keys))
                self.table.setItem(self.table.rowCount() - 1, 1, QTableWidgetItem(what))
        self.table.resizeColumnToContents(0)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 660)

    def rows(self) -> list[tuple[str, str]]:
        """Every (keys, what) row shown (section titles left out); what a test reads."""
        out = []
        for row in range(self.table.rowCount()):
            first, second = self.table.item(row, 0), self.table.item(row, 1)
            if first is not None and second is not None:
                out.append((first.text(), second.text()))
        return out


def show_keys(window: QWidget, evidence_actions: Iterable[QAction]) -> KeysDialog:
    dialog = KeysDialog(key_sections(window, evidence_actions), window)
    dialog.open()
    return dialog
