"""The coding panel: the linguist's own value for the chosen feature, with or without a model.

What a Grambank or WALS coder needs while reading the grammar, in one column: the feature's closed
value set numbered 1..n plus "?" (not enough information, as Grambank codes it), the value that
counts now and who set it, a note, Undo, the pins, the history of every act, and the feature's own
description (summary, procedure and examples from the catalog) in a collapsible box beside the
value, so the coding rules are read where the decision is made.  The panel only presents a
:class:`gui.coding.coding_controller.CodingView` and reports what was asked; the controller stores it.

Choosing a value is two steps, as on paper: select it (click, or its key in the coding pass: the
database's code when every code is a digit, Grambank's 0/1, WALS's 1..n)
and confirm it (Enter, double-click or the Set button).  A slip of a key costs nothing.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.catalog.model import Feature
from core.coding import UNKNOWN_CODE
from gui.coding.coding_state import CodingView
from gui.features.evidence_model import PIN_MARK

CODE_ROLE = Qt.ItemDataRole.UserRole
KEY_ROLE = Qt.ItemDataRole.UserRole + 1


def description_markdown(feature: Feature) -> str:
    """The feature's own text as Markdown: summary (definition), procedure (guidelines), values, examples."""
    parts = [f"**Summary.** {feature.definition.strip()}" if feature.definition.strip() else ""]
    if feature.guidelines.strip():
        parts.append("**Procedure.**\n\n" + "\n".join(line.strip() for line in feature.guidelines.splitlines()))
    if feature.value_definitions:
        labels = dict(feature.values)
        parts.append("**Values.**\n\n" + "\n".join(f"- *{labels.get(code, code)}*: {text}"
                                                  for code, text in feature.value_definitions.items()))
    if feature.examples.strip():
        parts.append("**Examples.**\n\n" + feature.examples.strip())
    return "\n\n".join(p for p in parts if p)


class CodingPanel(QWidget):
    """Value set + Set, note, Undo, pins, history and the collapsible description."""

    valueChosen = Signal(str)  # a code of the feature, or "?"
    noteAdded = Signal(str)
    undoRequested = Signal()
    pinPageRequested = Signal(str)  # a printed page label
    unpinRequested = Signal(object)  # a core.coding.Pin

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: CodingView = CodingView(None)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(3)
        layout.addLayout(self._head())
        layout.addLayout(self._body(), 1)
        layout.addLayout(self._note_row())
        self.pins_label = self._pins()
        layout.addWidget(self.pins_label)
        self.history = self._history()
        layout.addWidget(self.history)
        self.show_coding(self.view)

    # ------------------------------------------------------------------ building (top to bottom, in tab order)
    def _head(self) -> QHBoxLayout:
        """"Your value", what counts now and who set it, and the Description switch."""
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Your value</b>"))
        self.status_label = QLabel("")
        self.status_label.setAccessibleName("Current decision")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        head.addWidget(self.status_label, 1)
        self.describe_button = QToolButton()
        self.describe_button.setCheckable(True)
        self.describe_button.setChecked(False)
        self.describe_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.describe_button.setArrowType(Qt.ArrowType.RightArrow)
        self.describe_button.setText("Description")
        self.describe_button.setAccessibleName("Show the feature's description")
        self.describe_button.toggled.connect(self._toggle_description)
        head.addWidget(self.describe_button)
        return head

    def _body(self) -> QHBoxLayout:
        """The values with Set and Undo under them, and beside them the description (hidden until asked)."""
        body = QHBoxLayout()
        left = QVBoxLayout()
        self.values = self._value_list()
        left.addWidget(self.values, 1)
        buttons = QHBoxLayout()
        self.set_button = QPushButton("Set value")
        self.set_button.setToolTip("Store the selected value (Enter in the coding pass)")
        self.set_button.clicked.connect(self.confirm)
        buttons.addWidget(self.set_button)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("Restore the decision before the latest one (Ctrl+Z in the coding pass)")
        self.undo_button.clicked.connect(self.undoRequested)
        buttons.addWidget(self.undo_button)
        left.addLayout(buttons)
        body.addLayout(left, 1)
        self.description = QTextBrowser()
        self.description.setAccessibleName("Description of the feature")
        self.description.setOpenExternalLinks(False)
        self.description.setVisible(False)
        body.addWidget(self.description, 2)
        return body

    def _value_list(self) -> QListWidget:
        """The closed value set: keys come from the coding pass, so the list takes focus only on a click."""
        values = QListWidget()
        values.setAccessibleName("Values of the feature")
        values.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        values.setUniformItemSizes(True)
        values.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # values run down then into a next column: a WALS set of seven or nine fits without scrolling
        values.setFlow(QListView.Flow.TopToBottom)
        values.setWrapping(True)
        values.setResizeMode(QListView.ResizeMode.Adjust)
        values.setSpacing(1)
        values.itemDoubleClicked.connect(lambda _item: self.confirm())
        return values

    def _note_row(self) -> QHBoxLayout:
        """A note (Enter stores it) and a printed page to pin that the evidence list does not show."""
        note_row = QHBoxLayout()
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("Note (Enter stores it)…")
        self.note_edit.setAccessibleName("Coding note")
        self.note_edit.returnPressed.connect(self._note)
        note_row.addWidget(self.note_edit, 2)
        self.page_edit = QLineEdit()
        self.page_edit.setPlaceholderText("Pin page…")
        self.page_edit.setToolTip("Pin a printed page the evidence list does not show (e.g. 127 or xii)")
        self.page_edit.setAccessibleName("Pin a printed page")
        self.page_edit.setMaximumWidth(90)
        self.page_edit.returnPressed.connect(self._pin_page)
        note_row.addWidget(self.page_edit)
        return note_row

    def _pins(self) -> QLabel:
        """The pins, each with a × link that unpins it."""
        pins = QLabel("")
        pins.setAccessibleName("Pinned evidence")
        pins.setWordWrap(True)
        pins.setTextFormat(Qt.TextFormat.RichText)
        pins.linkActivated.connect(self._unpin_link)
        return pins

    def _history(self) -> QLabel:
        """The latest acts, smaller and dimmer than the decision itself (all of them in its tooltip)."""
        history = QLabel("")
        history.setAccessibleName("History of the decisions")
        history.setTextFormat(Qt.TextFormat.PlainText)
        history.setWordWrap(True)
        history.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        small = QFont(history.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        history.setFont(small)
        history.setStyleSheet("color: palette(dark);")
        return history

    # ------------------------------------------------------------------ what the controller shows
    def show_coding(self, view: CodingView) -> None:
        """Show a feature's decision; keeps the selection when the same feature is shown again."""
        same = view.feature is not None and self.view.feature is not None and view.feature.id == self.view.feature.id
        selected = self.selected_code() if same else None
        self.view = view
        self.values.clear()
        for key, code, label in view.options:
            marks = ("  ✔" if code == view.current_code else "") + ("  ← model" if code == view.model_code else "")
            item = QListWidgetItem(f"{key or ' '}   {label}{marks}")
            item.setData(KEY_ROLE, key)
            item.setData(CODE_ROLE, code)
            if code == view.current_code:
                bold = QFont(item.font())
                bold.setBold(True)
                item.setFont(bold)
            self.values.addItem(item)
        wanted = selected or view.current_code
        for row in range(self.values.count()):
            if self.values.item(row).data(CODE_ROLE) == wanted:
                self.values.setCurrentRow(row)
        enabled = view.codable
        for widget in (self.values, self.set_button, self.note_edit, self.page_edit):
            widget.setEnabled(enabled)
        self.undo_button.setEnabled(view.can_undo)
        self.status_label.setText(view.status if enabled else view.why_not)
        self.status_label.setToolTip(view.status if enabled else view.why_not)
        self.note_edit.setPlaceholderText(f"Note: {view.note}" if view.note else "Note (Enter stores it)…")
        self.pins_label.setText(_pins_html(view))
        self.history.setText("\n".join(view.history[:4]) + (f"\n… {len(view.history) - 4} earlier"
                                                              if len(view.history) > 4 else ""))
        self.history.setToolTip("\n".join(view.history))
        self.description.setMarkdown(description_markdown(view.feature) if view.feature is not None else "")
        self._fit_values()

    # ------------------------------------------------------------------ choosing a value
    def selected_code(self) -> str | None:
        item = self.values.currentItem()
        return item.data(CODE_ROLE) if item is not None else None

    def select_key(self, key: str) -> bool:
        """Select the value typed with ``key`` (a digit, or "?"); false when no value has that key.

        Keys follow :func:`core.coding.value_choices`: the database's code when every code is one digit
        (Grambank 0 = absent, 1 = present; WALS 81A 1 = SOV ...), else the value's place in the set.
        """
        if not self.view.codable:
            return False
        for row in range(self.values.count()):
            if self.values.item(row).data(KEY_ROLE) == key:
                self.values.setCurrentRow(row)
                return True
        return False

    def clear_choice(self) -> None:
        """Select no value (after a key that is none): confirming then stores nothing."""
        self.values.setCurrentRow(-1)
        self.values.clearSelection()

    def select_unknown(self) -> bool:
        return self.select_key(UNKNOWN_CODE)

    def confirm(self) -> bool:
        """Report the selected value (``valueChosen``); false when nothing is selected."""
        code = self.selected_code()
        if code is None or not self.view.codable:
            return False
        self.valueChosen.emit(code)
        return True

    def focus_note(self) -> None:
        self.note_edit.setFocus()

    def stored(self, action: str) -> None:
        """An act was stored: a stored note or page is done with."""
        if action == "note":
            self.note_edit.clear()
        elif action == "pin":
            self.page_edit.clear()

    # ------------------------------------------------------------------ internals
    def _note(self) -> None:
        text = self.note_edit.text().strip()
        if text:
            self.noteAdded.emit(text)

    def _pin_page(self) -> None:
        text = self.page_edit.text().strip()
        if text:
            self.pinPageRequested.emit(text)

    def _unpin_link(self, link: str) -> None:
        index = int(link.removeprefix("unpin:"))
        if 0 <= index < len(self.view.pins):
            self.unpinRequested.emit(self.view.pins[index])

    def _toggle_description(self, shown: bool) -> None:
        self.description.setVisible(shown)
        self.describe_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self._fit_values()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_values()

    def _fit_values(self) -> None:
        """Beside the open description, the values keep the width to show each of them whole.

        Without it the description took two thirds of the row and a WALS set of nine was cut to
        "5", "6", "7" at 1280×800.  The values run down, then into a next column, so their width is
        the widest value times the columns their height needs; the description gets the rest (at
        least a third).
        """
        values, count = self.values, self.values.count()
        if not self.description.isVisible() or count == 0:
            values.setMinimumWidth(0)
            return
        row = max(1, values.sizeHintForRow(0) + 2 * values.spacing())
        rows = max(1, (values.viewport().height() - values.spacing()) // row)
        columns = -(-count // rows)
        wanted = columns * (values.sizeHintForColumn(0) + 2 * values.spacing()) + 2 * values.frameWidth() + 4
        values.setMinimumWidth(min(wanted, int(self.width() * 0.66)))


def _pins_html(view: CodingView) -> str:
    if not view.codable:
        return ""
    if not view.pins:
        return "<span style='color: gray'>No pins: pin the deciding paragraph (Space on a row, P on the page).</span>"
    links = []
    for i, pin in enumerate(view.pins):
        what = f"p. {html.escape(pin.page_label)}" + ("" if pin.paragraph_id is not None else " (page)")
        links.append(f"{PIN_MARK} {what} <a href='unpin:{i}' title='Unpin'>×</a>")
    return "Pinned: " + " · ".join(links)
