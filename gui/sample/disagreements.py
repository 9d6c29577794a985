"""The disagreement queue: two coders' values side by side, resolved one feature at a time.

*Project → Compare with another coder's file…* (:func:`gui.window.sample_wiring.open_queue`): the open project
is coder A's; the person chooses coder B's file, :func:`core.sample.coders.compare_projects` runs in
a worker (both files read-only), and the queue lists every feature the two decided differently.
Selecting one shows both coders' value, status, note, pinned pages and time, selects the feature in
the main window and outlines each coder's pinned paragraphs on the PDF (A's violet, B's teal: B's
pins as the same paragraphs of A's copy of the book).  "Take A's", "Take B's" or "Other value…"
with a note stores a resolution through :func:`core.sample.resolution.resolve_disagreement`, in a
worker with its own connection to A (one ``BEGIN IMMEDIATE`` transaction; B is never written); the
resolved feature leaves the queue and its history (who said what) shows below.  Failures go to
the window's error dialog.  The header names each side's coders as their decisions store them
(never the login name of the person looking), and the summary gives the blind and the current
kappa.  When another project opens in the main window the queue closes (its side A is gone).
The window builds, owns and wires the queue; what showing the pins needs of it is :class:`PinsHost`.
"""

from __future__ import annotations

import contextlib
import html
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.errors import Cancelled
from core.models import Paragraph
from core.progress import Progress
from core.sample.coders import CoderComparison, CoderValue, Disagreement
from core.store.repository import get_paragraphs
from gui.common.operations import Operation, OperationRunner
from gui.common.window_state import WindowState
from gui.pdf.pdf_view import Highlight, PdfView
from gui.project.project_controller import ProjectController

Report = Callable[[str, BaseException], object]
QUEUE_PLACED_KEY = "window/disagreementDockPlaced"


def describe(v: CoderValue) -> str:
    """One coder's side as the queue shows it (HTML)."""
    value = "?" if v.code == "?" else f"{v.code} — {v.label}"
    pages = ", ".join(v.page_labels) or "none"
    note = html.escape(v.note) if v.note else "<i>no note</i>"
    return (f"<b>{html.escape(value)}</b><br>{html.escape(v.coder or 'unnamed coder')} · {html.escape(v.status)}"
            f"<br>pinned pages: {html.escape(pages)}<br>note: {note}<br><small>{html.escape(v.decided_at)} · "
            f"{html.escape(v.project.name)} #{v.decision_id}</small>")


class DisagreementQueue(QWidget):
    """The queue of one comparison (A = the open project, B = the second coder's file)."""

    disagreementChosen = Signal(object)  # the Disagreement now shown (the window selects its feature, shows pins)
    resolved = Signal(str, object)  # feature id, the resolution's ProjectChange (the Decision stored in A inside)
    compared = Signal()  # the comparison is in and the queue filled

    def __init__(self, runner: OperationRunner, report: Report, resolver: Callable[[], str] = lambda: "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner, self.report, self.resolver = runner, report, resolver
        self.comparison: CoderComparison | None = None
        self.pending: list[Disagreement] = []
        self.operation: Operation | None = None
        # the window's runner follows a resolution while it writes (see ProjectChanges.writing); alone: nothing
        self.writing: Callable[[Operation], Operation] = lambda operation: operation
        self.summary = QLabel("Choose the second coder's file to compare.")
        self.summary.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Disagreements")
        self.list.currentRowChanged.connect(self._chosen)
        self.side_a, self.side_b = QLabel(), QLabel()
        for side in (self.side_a, self.side_b):
            side.setTextFormat(Qt.TextFormat.RichText)
            side.setWordWrap(True)
            side.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            side.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title_a, self.title_b = QLabel("<b>Coder A</b>"), QLabel("<b>Coder B</b>")
        self.take_a, self.take_b = QPushButton("Take A's"), QPushButton("Take B's")
        self.take_a.clicked.connect(lambda: self.resolve("a"))
        self.take_b.clicked.connect(lambda: self.resolve("b"))
        self.other_value = QComboBox()
        self.other_value.setAccessibleName("Other value")
        self.take_other = QPushButton("Other value…")
        self.take_other.clicked.connect(lambda: self.resolve("other"))
        self.note = QLineEdit(placeholderText="Why (stored with the resolution, beside both coders' decisions)")
        self.note.setAccessibleName("Resolution note")
        self.history = QTextBrowser()
        self.history.setAccessibleName("History of the feature")
        self.history.setPlaceholderText("Resolved features and who said what appear here.")
        self._layout()
        self._enable(False)

    def _layout(self) -> None:
        sides = QGridLayout()
        sides.addWidget(self.title_a, 0, 0)
        sides.addWidget(self.title_b, 0, 1)
        sides.addWidget(self.side_a, 1, 0)
        sides.addWidget(self.side_b, 1, 1)
        sides.setColumnStretch(0, 1)
        sides.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        for widget in (self.take_a, self.take_b, self.other_value, self.take_other):
            buttons.addWidget(widget)
        detail = QWidget()
        column = QVBoxLayout(detail)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(sides)
        column.addWidget(QLabel("<small>On the page: A's pins violet, B's pins teal.</small>"))
        column.addLayout(buttons)
        column.addWidget(self.note)
        column.addWidget(QLabel("History (who said what):"))
        column.addWidget(self.history, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list)
        split.addWidget(detail)
        split.setSizes([260, 520])
        outer = QVBoxLayout(self)
        outer.addWidget(self.summary)
        outer.addWidget(split, 1)

    # ------------------------------------------------------------------ comparing
    def compare(self, a_path: str | Path, b_path: str | Path) -> Operation:
        """Compare A with B in the background, then fill the queue (``compared``)."""
        a, b = Path(a_path), Path(b_path)
        self.summary.setText(f"Comparing {a.name} with {b.name}…")

        def job(progress: Progress) -> CoderComparison:
            from core.sample.coders import compare_projects

            progress.step(0, 1, "reading both files")
            return compare_projects(a, b)

        def failed(exc: BaseException) -> None:
            self.summary.setText("The comparison failed.")
            self.report("Cannot compare the two coders' files", exc)

        self.operation = (Operation(self.runner, job).success(self.set_comparison).failure(failed)
                          .with_progress(f"Comparing with {b.name}").run_in_background())
        return self.operation

    def set_comparison(self, comparison: CoderComparison) -> None:
        self.comparison = comparison
        self.pending = list(comparison.disagreements)
        for title, side, letter in ((self.title_a, comparison.a, "A"), (self.title_b, comparison.b, "B")):
            coders = ", ".join(side.coders) or "unnamed coder"  # as stored in the side's decisions
            title.setText(f"<b>{letter}: {html.escape(coders)}</b> <small>({html.escape(side.path.name)})</small>")
        self._fill()
        self.compared.emit()

    def _fill(self) -> None:
        c = self.comparison
        agreed = sum(1 for f in c.features if f.verdict == "agree") if c else 0
        kappa = c.overall.shown() if c else "n/a"
        blind = (c.blind or c.overall).shown() if c else "n/a"
        warnings = f" {' '.join(c.warnings)}" if c and c.warnings else ""
        self.summary.setText(f"{c.a.path.name} (A) vs {c.b.path.name} (B): {agreed} agree, {len(self.pending)} to "
                             f"resolve; blind kappa {blind}, current kappa {kappa}.{warnings}" if c else "")
        self.list.blockSignals(True)
        self.list.clear()
        for d in self.pending:
            item = QListWidgetItem(f"{d.feature_id}  A: {d.a.code}  B: {d.b.code}")
            item.setToolTip(d.feature_name)
            self.list.addItem(item)
        self.list.blockSignals(False)
        if self.pending:
            self.list.setCurrentRow(0)
            self._chosen(0)
        else:
            self.side_a.setText("")
            self.side_b.setText("")
            self._enable(False)

    def current(self) -> Disagreement | None:
        row = self.list.currentRow()
        return self.pending[row] if 0 <= row < len(self.pending) else None

    def _chosen(self, row: int) -> None:
        d = self.pending[row] if 0 <= row < len(self.pending) else None
        self._enable(d is not None)
        if d is None:
            return
        self.side_a.setText(describe(d.a))
        self.side_b.setText(describe(d.b))
        from core.catalog import load_catalog

        catalog = load_catalog()
        self.other_value.clear()
        values = catalog.get(d.feature_id).values if d.feature_id in catalog else ()
        for code, label in [*values, ("?", "not enough information")]:
            self.other_value.addItem(f"{code} — {label}", code)
        self.disagreementChosen.emit(d)

    def _enable(self, on: bool) -> None:
        for widget in (self.take_a, self.take_b, self.other_value, self.take_other, self.note):
            widget.setEnabled(on)

    # ------------------------------------------------------------------ resolving
    def resolve(self, choice: str) -> Operation | None:
        """Store A's, B's or the chosen other value in A (a worker with its own connection)."""
        d = self.current()
        if d is None or self.comparison is None or (self.operation is not None and self.operation.running):
            return None
        value = d.a.code if choice == "a" else d.b.code if choice == "b" else self.other_value.currentData()
        try:
            resolver = self.resolver()  # the first act asks who is coding
        except Cancelled:  # the window closed while it asked: no resolution
            return None
        note, a_path = self.note.text().strip() or None, self.comparison.a.path
        comparison = self.comparison

        def job(progress: Progress):
            from core.coding import decisions
            from core.sample.resolution import resolve
            from core.store import open_project

            progress.check()
            with open_project(a_path) as project:
                change = resolve(project, d, value, note, resolver, comparison=comparison)
                return change, decisions.history(project, d.feature_id)

        def done(result) -> None:
            change, history = result
            if d in self.pending:
                self.pending.remove(d)
            self.note.clear()
            self._show_history(d, history)
            self._fill()
            self.resolved.emit(d.feature_id, change)

        def failed(exc: BaseException) -> None:
            self._enable(True)
            self.report("The resolution was not stored", exc)

        self._enable(False)
        self.operation = self.writing(Operation(self.runner, job).success(done).failure(failed)).run_in_background()
        return self.operation

    def _show_history(self, d: Disagreement, history: list) -> None:
        lines = [f"<p><b>{html.escape(d.feature_id)}</b> — {html.escape(d.feature_name)}</p><ul>"]
        for row in history:
            value = row.value if row.value is not None else "—"
            note = "<br>".join(html.escape(x) for x in (row.note or "").splitlines())
            lines.append(f"<li>{html.escape(row.created_at)} · {html.escape(row.reviewer or 'unnamed')} · "
                         f"{html.escape(row.action)} <b>{html.escape(str(value))}</b>"
                         f"{'<br><small>' + note + '</small>' if note else ''}</li>")
        self.history.setHtml("".join(lines) + "</ul>")


class PinsHost(Protocol):
    """What showing both coders' pins needs of the main window (``gui/window`` provides it and wires the queue)."""

    state: WindowState
    projects: ProjectController
    pdf_view: PdfView

    def show_paragraph(self, paragraph: Paragraph) -> None: ...


def show_pins(host: PinsHost, d: Disagreement) -> None:
    """Outline both coders' pinned paragraphs on the window's PDF (A's violet, B's teal) and scroll to the first."""
    project, path = host.projects.project, host.state.project_path
    if project is None or path is None or Path(path).resolve() != Path(d.a.project).resolve():
        return
    a_ids = list(d.a.paragraph_ids)
    b_ids = [p.paragraph_id for p in d.b_pins_for_a if p.paragraph_id is not None]
    found = {p.id: p for p in get_paragraphs(project, a_ids + b_ids)}
    marks = [Highlight(found[i].rects, "pinned", i) for i in a_ids if i in found]
    marks += [Highlight(found[i].rects, "cited", i) for i in b_ids if i in found]
    host.pdf_view.set_highlights(marks)
    first = next((found[i] for i in a_ids + b_ids if i in found), None)
    if first is not None:
        host.show_paragraph(first)


def queue_dock(queue: DisagreementQueue, parent: QWidget) -> QDockWidget:
    """The dock the queue lives in (deleted when closed: a new comparison makes a new one)."""
    dock = QDockWidget("Disagreements between two coders", parent)
    dock.setObjectName("disagreementDock")
    dock.setWidget(queue)
    dock.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    return dock


def disconnect_quietly(signal: SignalInstance, slot: Callable[..., object]) -> None:
    """Undo a connection that may be gone already (with the window, at quitting)."""
    with contextlib.suppress(RuntimeError, TypeError), warnings.catch_warnings():  # already gone with the window
        warnings.simplefilter("ignore", RuntimeWarning)  # PySide warns instead of raising for a gone connection
        signal.disconnect(slot)
