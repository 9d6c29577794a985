"""The chosen feature's decision and pins as the window shows them, and where each paragraph lies on its page.

Why a job of its own: what the coding panel shows (the decision, its history, the model's value
marked) and what the evidence list and the page draw as pinned follow the feature on screen, its
new evidence and every project change that names it — whoever made the change (an act of the
window, a resolution in the queue, the CLI beside the window).  The acts themselves are
:class:`gui.coding.coding_controller.CodingController`'s job; this object only re-reads and says what to show.
The paragraph rectangles for clicks on the page are read in the background
(:class:`gui.coding.page_index.PageIndex`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from core.changes import ProjectChange
from core.coding.locate import ParagraphLocator
from core.coding.lookahead import with_pinned
from core.models import Paragraph
from gui.coding.coding_state import CodingView, coding_view, pin_menu_text
from gui.coding.page_index import PageIndex
from gui.common.operations import OperationRunner
from gui.common.window_state import WindowState
from gui.project.project_controller import ProjectController


class PinnedEvidence(QObject):
    """The decision, history and pins of ``state.feature``, re-read on a new feature, new evidence or a change."""

    decisionChanged = Signal(object)  # CodingView
    pinsChanged = Signal()  # state.pins (and pinned rows of state.hits) changed: redraw list and page

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.projects = state, projects
        self.pages = PageIndex(runner, state)  # paragraph rectangles: P on the page pins at once during a pass

    def codable_id(self) -> str | None:
        """The chosen feature's id if it can be coded as a whole (not the polar-question complex)."""
        feature = self.state.feature
        return feature.id if feature is not None and not feature.multi_label else None

    def view(self) -> CodingView:
        """The chosen feature's current decision and history, as the panel shows them."""
        return coding_view(self.projects.project, self.state.feature, self.state.classification)

    def show_decision(self, emit_pins: bool = True) -> None:
        """Re-read the feature on screen: the panel's view, the pins in the shared state, pinned rows."""
        view = self.view()
        pins = {p.paragraph_id for p in view.pins if p.paragraph_id is not None}
        changed = pins != self.state.pins
        self.state.set_pins(sorted(pins))
        self.decisionChanged.emit(view)
        if changed or emit_pins:
            self.add_pinned_rows()
            self.pinsChanged.emit()

    def project_changed(self, change: ProjectChange) -> None:
        """A change record: re-read the feature on screen when it names it."""
        if change.touches(self.state.feature.id if self.state.feature is not None else None):
            self.show_decision(emit_pins=change.pins or change.whole_project)
        if change.documents or change.whole_project:
            self.pages.forget()  # new paragraphs: their rectangles are read again at the next click

    def add_pinned_rows(self) -> None:
        """Pinned paragraphs the retrieval did not find join the evidence list (rank 0: not ranked)."""
        project = self.projects.project
        if project is None:
            return
        hits = with_pinned(project, self.state.hits, self.state.pins)
        if [h.paragraph.id for h in hits] != [h.paragraph.id for h in self.state.hits]:
            self.state.hits = hits

    # ------------------------------------------------------------------ the page index (clicks on the page)
    @property
    def locator(self) -> ParagraphLocator | None:
        """Every paragraph's rectangles in the project (None until :meth:`read_page_index` read them)."""
        return self.pages.locator

    def read_page_index(self, then: Callable[[], object] | None = None) -> None:
        """Read the paragraph rectangles in the background (a pass or the first click on a page), then ``then``."""
        self.pages.read(then)

    def paragraph_at(self, pdf_page: int, x: float, y: float) -> Paragraph | None:
        """The paragraph of the grammar on screen under a point of a PDF page (None until the index is read)."""
        return self.pages.at(pdf_page, x, y)

    def pin_label(self, pdf_page: int, x: float, y: float) -> str | None:
        """The PDF view's context-menu text for a point: pin or unpin the paragraph there (None: no paragraph)."""
        paragraph = self.paragraph_at(pdf_page, x, y)
        fid = self.codable_id()
        if paragraph is None or fid is None:
            return None
        return pin_menu_text(paragraph, paragraph.id in self.state.pins, fid)
