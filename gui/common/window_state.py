"""What the main window shows, as plain Python: project, grammar, page labels, feature, evidence, value.

Why a module of its own, without Qt: the window's decisions (which page a printed label means,
which evidence row to show first, which colour each paragraph gets on the page, what a new
feature clears) are easy to get subtly wrong and easy to test when they are plain data.  The
panels only present this state and report what the person asked for; the controllers change it.
Nothing here imports PySide6 (``tests/gui/test_window_state.py`` checks that).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from core.coding.lookahead import pinned_first

if TYPE_CHECKING:  # type names only: importing core.llm here would load the client for nothing
    from core.catalog.model import Feature
    from core.models import Document, Paragraph
    from core.records.classifications import Classification
    from core.retrieval.pipeline import Hit  # the one shape of a row of the evidence list


# Highlight kinds, strongest first: a paragraph the linguist pinned outranks one the model cited,
# which outranks one that was only retrieved.
PINNED, CITED, EVIDENCE = "pinned", "cited", "evidence"


@dataclass(frozen=True)
class ParagraphMark:
    """One paragraph to draw on the page, and in which style."""

    paragraph: Paragraph
    kind: str  # PINNED, CITED or EVIDENCE


@dataclass
class WindowState:
    """The open project and what is selected in it.  One instance per window, owned by the window."""

    project_path: Path | None = None
    documents: list[Document] = field(default_factory=list)
    document: Document | None = None
    labels: dict[int, str] = field(default_factory=dict)  # pdf page (1-based) -> printed label
    pages_by_label: dict[str, int] = field(default_factory=dict)  # lower-cased label -> first pdf page
    feature: Feature | None = None
    hits: list[Hit] = field(default_factory=list)
    evidence_known: bool = False  # false until the feature's evidence was retrieved or loaded
    classification: Classification | None = None
    cited: set[int] = field(default_factory=set)  # paragraph ids the model relied on
    pins: set[int] = field(default_factory=set)  # paragraph ids the linguist marked as deciding
    # the hits on screen are the re-ranked order of evidence already shown: the list updates in place and
    # the page stays where the coder is reading (see rows_after_rerank)
    reranked: bool = False

    # ------------------------------------------------------------------ project and grammar
    @property
    def has_grammar(self) -> bool:
        return self.project_path is not None and bool(self.documents)

    def open_project(self, path: Path, documents: Sequence[Document]) -> None:
        """A freshly opened project: its grammars, nothing chosen yet."""
        self.close_project()
        self.project_path = path
        self.documents = list(documents)

    def close_project(self) -> None:
        self.project_path = None
        self.documents, self.document = [], None
        self.labels, self.pages_by_label = {}, {}
        self.choose_feature(None)

    def set_documents(self, documents: Sequence[Document]) -> None:
        self.documents = list(documents)
        if self.document is not None and self.document_by_id(self.document.id) is None:
            self.document, self.labels, self.pages_by_label = None, {}, {}

    def document_by_id(self, document_id: int) -> Document | None:
        return next((d for d in self.documents if d.id == document_id), None)

    def show_document(self, document: Document, labels: dict[int, str]) -> None:
        """The grammar now on screen, with its printed page labels.

        A label printed on several pages (a roman "i" in the front matter and an index page
        also numbered "i" is rare, but happens) goes to its first page.
        """
        self.document = document
        self.labels = dict(labels)
        self.pages_by_label = {}
        for pdf_page in sorted(self.labels):
            self.pages_by_label.setdefault(self.labels[pdf_page].strip().lower(), pdf_page)

    def page_for_label(self, text: str) -> int | None:
        """The PDF page printed ``text``; a bare number is a PDF page only when the book prints no labels."""
        key = text.strip().lower()
        page = self.pages_by_label.get(key)
        if page is None and key.isdigit() and not self.pages_by_label:
            page = int(key)
        return page

    def label_of(self, pdf_page: int) -> str:
        return self.labels.get(pdf_page, str(pdf_page))

    # ------------------------------------------------------------------ feature and its results
    def choose_feature(self, feature: Feature | None) -> None:
        """A new feature: its evidence, value and pins are not known yet."""
        self.feature = feature
        self.hits, self.classification, self.evidence_known, self.reranked = [], None, False, False
        self.cited, self.pins = set(), set()

    def is_current(self, feature: Feature | None) -> bool:
        """True when ``feature`` is still the chosen one (a late result of another must be dropped)."""
        return feature is not None and self.feature is feature

    def set_hits(self, hits: Sequence[Hit], *, reranked: bool = False) -> None:
        self.hits, self.evidence_known, self.reranked = list(hits), True, reranked

    def rows_after_rerank(self, reading: int | None) -> tuple[int, int]:
        """(row to keep selected, row to offer) once the re-ranked order replaces the first one.

        The coder may already be reading the first order's paragraph ``reading`` (its id; None: none
        chosen); moving the page under them loses their place.  So that paragraph stays selected
        where it now ranks (-1 if the new order dropped it), and the new best row is only offered
        when it is another paragraph (-1: nothing to offer).  With nothing being read, the best row is
        "kept", i.e. shown, as for any new evidence.
        """
        best = self.best_row()
        if reading is None or best < 0:
            return best, -1
        rows = self.ordered_hits()
        keep = next((i for i, h in enumerate(rows) if h.paragraph.id == reading), -1)
        offer = best if rows[best].paragraph.id != reading else -1
        return keep, offer

    def set_classification(self, classification: Classification | None, cited: Sequence[int] = ()) -> None:
        self.classification = classification
        self.cited = set(cited)

    def set_pins(self, paragraph_ids: Sequence[int]) -> None:
        self.pins = set(paragraph_ids)

    def ordered_hits(self) -> list[Hit]:
        """Evidence as listed: pinned paragraphs first (in rank order), then the rest in rank order."""
        return pinned_first(self.hits, self.pins)

    def best_row(self) -> int:
        """Row of :meth:`ordered_hits` to show first: a pin, else the first cited paragraph, else rank 1.

        What a linguist wants to read on choosing a feature is the paragraph that decides it;
        -1 when there is no evidence.
        """
        rows = self.ordered_hits()
        if not rows:
            return -1
        for wanted in (self.pins, self.cited):
            row = next((i for i, h in enumerate(rows) if h.paragraph.id in wanted), -1)
            if row >= 0:
                return row
        return 0

    def mark_of(self, paragraph_id: int) -> str:
        if paragraph_id in self.pins:
            return PINNED
        return CITED if paragraph_id in self.cited else EVIDENCE

    def marks(self) -> list[ParagraphMark]:
        """The evidence paragraphs of the grammar on screen, each with its highlight kind."""
        if self.document is None:
            return []
        return [ParagraphMark(h.paragraph, self.mark_of(h.paragraph.id))
                for h in self.hits if h.paragraph.document_id == self.document.id]
