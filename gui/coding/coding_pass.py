"""The coding pass at keyboard speed: a bar over the window that steps through a feature set.

A coder works through Grambank's 195 features or WALS's 192 one after another.  With the bar
focused (Ctrl+K starts the pass and focuses it), every step is one key:

    0-9  select the value with that code (Grambank 0/1, WALS 1..n; else its place in the set)
    ?    not enough information       Enter  store it and go on
    →/N  next feature    ←/B  previous feature    U  next uncoded feature
    ↑/↓  previous/next evidence row   Space  pin or unpin that row    Ctrl+Z  undo the pass's last act

A slip costs nothing and is said at once: a key that is no value of the feature says so on the
bar ("7 is not a value of GB020 (0, 1, ?)") and chooses nothing, so Enter stores nothing;
Ctrl+Z takes back the pass's latest act even after Enter moved on, shows that feature again and
says what it undid; reopening the project offers to continue the pass where it stood.

The bar shows the set (word-order-case-negation-questions, grambank, wals or a saved list), the filter (all, uncoded,
predicted but not reviewed, disagreeing with WALS/Grambank), the counter ("37 of 195 coded")
and where the feature on screen lies in the filtered list.  It holds no state of its own: it
presents a :class:`gui.coding.coding_controller.PassView` and reports keys and choices by signal;
:func:`connect_coding` wires it, the coding panel, the evidence list, the PDF view and the value
panel's Accept to the :class:`gui.coding.coding_controller.CodingController`.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from core.changes import ProjectChange
from core.coding import FILTERS
from core.coding.coding_pass import FILTER_LABELS
from core.models import Paragraph
from gui.coding.coding_controller import CodingController, PassView, coded_marks
from gui.coding.coding_panel import CodingPanel
from gui.coding.coding_state import choose_first_text, not_a_value_text
from gui.features.evidence_panel import EvidencePanel
from gui.features.feature_model import FeatureListModel
from gui.features.value_panel import ValuePanel
from gui.pdf.pdf_view import PdfView

KEYS_HINT = "0–9 value · ? unknown · Enter store · →/← feature · U uncoded · ↑↓ row · Space pin · Ctrl+Z undo"
NOTICE_MS = 12_000  # how long the bar keeps saying what happened (the next key clears it sooner)
_BOX = "border-radius: 3px; padding: 1px 6px;"
_NOTICE_STYLE = {  # text and background both set: readable in light and dark themes alike
    False: f"color: #0d4a2c; background: #e6f4ec; border: 1px solid #97cfae; {_BOX}",
    True: f"color: #7a1d00; background: #fff0e0; border: 1px solid #eba872; {_BOX}",
}
_COMMAND = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier


class CodingPassBar(QFrame):
    """Set, filter, counter and navigation of the coding pass; takes the pass's keys while focused."""

    startRequested = Signal()
    featureSetChosen = Signal(str)
    filterChosen = Signal(str)
    nextRequested = Signal()
    previousRequested = Signal()
    nextUncodedRequested = Signal()
    valueKeyPressed = Signal(str)  # a digit: the value with that key (core.coding.value_choices)
    unknownKeyPressed = Signal()
    confirmPressed = Signal()
    rowStepPressed = Signal(int)  # -1 / +1: the evidence row above or below
    pinRowPressed = Signal()
    undoPressed = Signal()
    strayKeyPressed = Signal(str)  # a printable key the pass has no use for (a letter typed by mistake)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codingPassBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Coding pass")
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        self.start_button = QPushButton("Start coding pass")
        self.start_button.setToolTip("Code feature after feature from the keyboard (Ctrl+K)")
        self.start_button.clicked.connect(self.startRequested)
        row.addWidget(self.start_button)
        self.set_combo = QComboBox()
        self.set_combo.setAccessibleName("Feature set of the pass")
        self.set_combo.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.set_combo.textActivated.connect(self.featureSetChosen)
        # a short name's width (the study's four have a long one); the list that opens shows the names whole
        self.set_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.set_combo.setMinimumContentsLength(14)
        row.addWidget(self.set_combo)
        self.filter_combo = QComboBox()
        self.filter_combo.setAccessibleName("Which features the pass visits")
        self.filter_combo.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        for key in FILTERS:
            self.filter_combo.addItem(FILTER_LABELS[key], key)
        self.filter_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.filter_combo.setMinimumContentsLength(10)  # the list pops up at full width; the bar leaves room for keys
        self.filter_combo.activated.connect(lambda i: self.filterChosen.emit(self.filter_combo.itemData(i)))
        row.addWidget(self.filter_combo)
        self.counter_label = QLabel("")
        self.counter_label.setAccessibleName("Coded features")
        self.counter_label.setStyleSheet("font-weight: bold;")
        row.addWidget(self.counter_label)
        self.position_label = QLabel("")
        self.position_label.setAccessibleName("Place in the pass")
        row.addWidget(self.position_label)
        for text, signal, tip in (("◀", self.previousRequested, "Previous feature (←)"),
                                  ("▶", self.nextRequested, "Next feature (→)"),
                                  ("Next uncoded", self.nextUncodedRequested, "Next feature without a value (U)")):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(signal)
            if len(text) == 1:
                button.setFixedWidth(button.fontMetrics().horizontalAdvance("▶") + 22)
            row.addWidget(button)
        self.notice_label = QLabel("")
        self.notice_label.setAccessibleName("Coding pass message")
        self.notice_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.notice_label.setVisible(False)
        row.addWidget(self.notice_label, 1)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self.clear_notice)
        self.keys_label = QLabel(KEYS_HINT)
        self.keys_label.setToolTip(KEYS_HINT.replace(" · ", "\n"))
        self.keys_label.setStyleSheet("color: palette(dark);")
        self.keys_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.keys_label, 1)
        self.show_pass(PassView(False))

    def show_pass(self, view: PassView) -> None:
        """Show the pass as the controller describes it (or the invitation to start one)."""
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        self.set_combo.addItems(list(view.feature_sets))
        self.set_combo.setCurrentText(view.feature_set)
        self.set_combo.view().setMinimumWidth(self.set_combo.view().sizeHintForColumn(0) + 24)
        self.set_combo.blockSignals(False)
        index = self.filter_combo.findData(view.filter)
        self.filter_combo.setCurrentIndex(max(index, 0))
        disagree = self.filter_combo.model().item(self.filter_combo.findData("disagree"))
        if disagree is not None:  # choosing it without WALS/Grambank values offers to read them
            disagree.setToolTip("Features whose value differs from WALS/Grambank for this language"
                                if view.disagree_available else "Needs the WALS or Grambank CLDF folder: "
                                "choose this to pick it (remembered for the project)")
        self.start_button.setVisible(not view.active)
        if view.resume_at:  # a pass left in this project: continue it where it stood
            self.start_button.setText(f"Continue coding pass at {view.resume_at}")
            self.start_button.setToolTip(f"Continue the pass over {view.feature_set} where you left it (Ctrl+K)")
        else:
            self.start_button.setText("Start coding pass")
            self.start_button.setToolTip("Code feature after feature from the keyboard (Ctrl+K)")
        self.counter_label.setText(view.counter)
        self.position_label.setText(f"· {view.position}" if view.active and view.position else "")
        self.keys_label.setText(KEYS_HINT if view.active else "")  # kept in the row: it takes the spare width

    def show_notice(self, text: str, warning: bool = False) -> None:
        """Say what just happened (an undo, a key that is no value) in place of the keys, for a while."""
        self.notice_label.setText(("⚠ " if warning else "↶ " if text.startswith("Undid") else "") + text)
        self.notice_label.setToolTip(text)
        self.notice_label.setStyleSheet(_NOTICE_STYLE[warning])
        self.notice_label.setVisible(True)
        self.keys_label.setVisible(False)
        self._notice_timer.start(NOTICE_MS)

    def clear_notice(self) -> None:
        self._notice_timer.stop()
        self.notice_label.setVisible(False)
        self.notice_label.setText("")
        self.keys_label.setVisible(True)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, text, mods = event.key(), event.text(), event.modifiers()
        K = Qt.Key
        if self.notice_label.isVisible():
            self.clear_notice()  # the next key moves on from what was said
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undoPressed.emit()
        elif text == "?":
            self.unknownKeyPressed.emit()
        elif text and text in "0123456789" and not mods & Qt.KeyboardModifier.ControlModifier:
            self.valueKeyPressed.emit(text)
        elif key in (K.Key_Return, K.Key_Enter):
            self.confirmPressed.emit()
        elif key in (K.Key_Right, K.Key_N):
            self.nextRequested.emit()
        elif key in (K.Key_Left, K.Key_B):
            self.previousRequested.emit()
        elif key == K.Key_U:
            self.nextUncodedRequested.emit()
        elif key in (K.Key_Down, K.Key_Up):
            self.rowStepPressed.emit(1 if key == K.Key_Down else -1)
        elif key == K.Key_Space:
            self.pinRowPressed.emit()
        elif len(text) == 1 and text.isprintable() and not text.isspace() and not mods & _COMMAND:
            self.strayKeyPressed.emit(text)
        else:
            super().keyPressEvent(event)
            return
        event.accept()


def _choose(panel: CodingPanel, bar: CodingPassBar, key: str) -> None:
    """A key typed on the bar: select the value it stands for, or say at once that it is none (choosing nothing)."""
    if not panel.select_key(key):
        panel.clear_choice()  # Enter after a slip stores nothing rather than the value selected before
        bar.show_notice(not_a_value_text(key, panel.view), True)


def _confirm(panel: CodingPanel, bar: CodingPassBar) -> None:
    """Enter on the bar: store the value chosen, or say that none is chosen yet."""
    if not panel.confirm():
        bar.show_notice(choose_first_text(panel.view), True)


def _selected_paragraph(evidence: EvidencePanel) -> Paragraph | None:
    row = evidence.table.currentIndex().row()
    return evidence.paragraph(row) if 0 <= row < evidence.model.rowCount() else None


def _step_row(evidence: EvidencePanel, step: int) -> None:
    current = evidence.table.currentIndex().row()
    evidence.show_row(min(max(current + step, 0), evidence.model.rowCount() - 1) if current >= 0 else 0)


def _restore_row(evidence: EvidencePanel, paragraph_id: int | None) -> None:
    """After the rows were re-listed (a pin moved them), select the same paragraph again, quietly."""
    if paragraph_id is None:
        return
    row = evidence.model.row_of_paragraph(paragraph_id)
    if row >= 0:
        selection = evidence.table.selectionModel()
        selection.blockSignals(True)
        evidence.table.setCurrentIndex(evidence.model.index(row, 0))
        selection.blockSignals(False)


def connect_coding(coding: CodingController, panel: CodingPanel, bar: CodingPassBar, evidence: EvidencePanel,
                   pdf_view: PdfView, value_panel: ValuePanel, redraw: Callable[[], None],
                   select_feature: Callable[[str], None], feature_list: FeatureListModel) -> QAction:
    """Wire the coding panel, the pass bar, the evidence list, the PDF view and the value panel to ``coding``.

    ``redraw`` re-applies the page highlights and ``select_feature`` shows a feature (the window's);
    ``feature_list`` marks the coded features.
    Returns the evidence list's pin action (P / Space on a row, also in its context menu).
    """
    _follow_changes(coding, panel, feature_list)
    _connect_panel(coding, panel, evidence, value_panel, redraw)
    _connect_bar(coding, bar, panel, evidence, select_feature)
    coding.passes.lookahead.ready.connect(lambda fid: _prerender(coding, pdf_view, fid))
    pdf_view.pin_label = coding.evidence.pin_label
    pdf_view.pinRequested.connect(coding.pin_at)
    pdf_view.paragraphClicked.connect(lambda page, x, y: _outline_clicked(coding, pdf_view, page, x, y))

    pin_row = QAction("Pin or unpin this paragraph", evidence.table)
    pin_row.setShortcuts([QKeySequence("P"), QKeySequence("Space")])
    pin_row.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    pin_row.triggered.connect(lambda: coding.toggle_pin(_selected_paragraph(evidence)))
    evidence.table.addAction(pin_row)
    evidence.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    return pin_row


def _follow_changes(coding: CodingController, panel: CodingPanel, feature_list: FeatureListModel) -> None:
    """The feature list's marks and the panel's typed note or page follow the one change record of every act."""
    projects = coding.projects

    def project_changed(change: ProjectChange, initiator: object) -> None:
        """One record for every act, the window's or another process's: the marks, and what the panel typed."""
        if change.values_changed:
            feature_list.set_coded(coded_marks(projects.project))
        if initiator is coding:
            panel.stored(change.act)  # a note or a page stored by the panel is done with

    coding.changes.changed.connect(project_changed)
    projects.opened.connect(lambda _path: feature_list.set_coded(coded_marks(projects.project)))
    projects.closed.connect(lambda: feature_list.set_coded({}))


def _connect_panel(coding: CodingController, panel: CodingPanel, evidence: EvidencePanel, value_panel: ValuePanel,
                   redraw: Callable[[], None]) -> None:
    """The coding panel shows the feature on screen and asks for acts; pins redraw the list and the page."""
    shown = coding.evidence
    shown.decisionChanged.connect(panel.show_coding)
    # nothing left to accept once the linguist's value is the model's
    shown.decisionChanged.connect(lambda view: value_panel.show_agreement(
        view.model_code is not None and view.current_code == view.model_code))

    def pins_changed() -> None:
        chosen = _selected_paragraph(evidence)
        evidence.show_evidence(coding.state)
        _restore_row(evidence, chosen.id if chosen is not None else None)
        redraw()

    shown.pinsChanged.connect(pins_changed)
    panel.valueChosen.connect(lambda code: coding.confirm(code) if coding.pass_active else coding.set_value(code))
    panel.noteAdded.connect(coding.add_note)
    panel.undoRequested.connect(coding.undo)
    panel.pinPageRequested.connect(coding.pin_page)
    panel.unpinRequested.connect(coding.unpin)
    value_panel.acceptRequested.connect(coding.accept)


def _connect_bar(coding: CodingController, bar: CodingPassBar, panel: CodingPanel, evidence: EvidencePanel,
                 select_feature: Callable[[str], None]) -> None:
    """The pass bar drives the pass (``coding.passes``) and the acts from the keyboard."""
    passes = coding.passes
    passes.featureRequested.connect(select_feature)
    passes.passChanged.connect(bar.show_pass)
    coding.notice.connect(bar.show_notice)
    bar.startRequested.connect(lambda: (passes.start_pass(), bar.setFocus()))
    bar.featureSetChosen.connect(passes.set_feature_set)
    bar.filterChosen.connect(passes.set_filter)
    bar.nextRequested.connect(passes.next)
    bar.previousRequested.connect(passes.previous)
    bar.nextUncodedRequested.connect(passes.next_uncoded)
    bar.valueKeyPressed.connect(lambda key: _choose(panel, bar, key))
    bar.strayKeyPressed.connect(lambda key: _choose(panel, bar, key))
    bar.unknownKeyPressed.connect(panel.select_unknown)
    bar.confirmPressed.connect(lambda: _confirm(panel, bar))
    bar.rowStepPressed.connect(lambda step: _step_row(evidence, step))
    bar.pinRowPressed.connect(lambda: coding.toggle_pin(_selected_paragraph(evidence)))
    bar.undoPressed.connect(coding.undo_last)  # the pass's latest act, on whichever feature it was


def _prerender(coding: CodingController, pdf_view: PdfView, feature_id: str) -> None:
    """Evidence of a coming feature is at hand: render the page of its best paragraph ahead too."""
    page = coding.passes.best_page_ahead(feature_id)
    if page is not None:
        pdf_view.prerender(page)


def _outline_clicked(coding: CodingController, pdf_view: PdfView, page: int, x: float, y: float) -> None:
    """A click on the page outlines the paragraph there (P then pins it), without scrolling."""
    shown = coding.evidence
    if shown.locator is None:  # the first click reads the page index, then outlines
        shown.read_page_index(lambda: _outline_clicked(coding, pdf_view, page, x, y))
        return
    paragraph = shown.paragraph_at(page, x, y)
    if paragraph is not None:
        pdf_view.outline_rects(paragraph.rects)
