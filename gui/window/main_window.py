"""The GrammarLens main window: panels over one plain state, composed here.

It builds the panels, the controllers (project, feature, coding, WALS/Grambank values) and the shared
:class:`gui.common.window_state.WindowState`; it owns actions, menus and toolbar, shows errors, saves the
layout and closes cleanly (running work cancelled and waited for).  Long work runs as
:class:`gui.common.operations.Operation`; results reach widgets only through signals.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMessageBox, QVBoxLayout, QWidget

from core.catalog.model import Catalog, Feature
from core.errors import PdfError
from core.models import Paragraph, Rect
from gui.coding.coding_pass import CodingController, CodingPanel, CodingPassBar, connect_coding
from gui.common import backend, file_dialogs
from gui.common.error_reporting import ErrorReporter
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import AppSettings, llm_configured, load_settings, save_settings
from gui.common.settings_dialog import SettingsDialog
from gui.common.task_bar import TaskBar
from gui.common.window_state import WindowState
from gui.features.evidence_panel import EvidencePanel
from gui.features.feature_controller import FeatureController
from gui.features.features_panel import FeaturesPanel
from gui.features.value_panel import ValuePanel
from gui.pdf.pdf_toolbar import PdfToolbar
from gui.pdf.pdf_view import Highlight, PdfView
from gui.profile.profile_view import ProfileView
from gui.profile.references import ReferenceSource
from gui.project.language_line import LanguageLine
from gui.project.open_grammar import pdf_start, project_start
from gui.project.project_controller import ProjectController
from gui.project.restore_dialog import restore_action
from gui.sample.disagreements import DisagreementQueue
from gui.sample.window import SampleWindow
from gui.window import menus, sample_wiring
from gui.window.coder_name import CoderNameDialog, ask_coder_name
from gui.window.feature_finder import FeatureFinder
from gui.window.offline_banner import OfflineBanner
from gui.window.pass_focus import PassFocus
from gui.window.profile_wiring import build_profile_dock, connect_references
from gui.window.quitting import stop_work
from gui.window.window_layout import WindowLayout, named_splitter


class MainWindow(QMainWindow):
    """One project at a time; one or more grammars of one language inside it."""

    projectOpened = Signal(str)
    catalogLoaded = Signal()
    retrievalFinished = Signal()
    classificationFinished = Signal()
    ingestFinished = Signal(bool)  # true when a document was added
    errorShown = Signal(str)

    def __init__(self, store: QSettings | None = None) -> None:
        super().__init__()
        self.store: QSettings = store or QSettings()
        self.settings: AppSettings = load_settings(self.store)
        self.state = WindowState()
        self.runner = OperationRunner(parent=self)
        backend.allow_models()  # an earlier window's quitting refused new model children
        self.projects = ProjectController(self.state, self.runner, self.store, self)
        self.features = FeatureController(self.state, self.runner, self.projects, lambda: self.settings, self)
        self.coding = CodingController(self.state, self.runner, self.projects, self.features,
                                       lambda: self.settings, self)
        self.references = ReferenceSource(self.runner, self.store, self)  # WALS/Grambank values, per project
        self.errors = ErrorReporter(self, lambda text, ms: self.statusBar().showMessage(text, ms),
                                    self.projects.abandon)  # every failure's dialog, once per burst
        self.finder = FeatureFinder(self.features.choose, lambda text: self.statusBar().showMessage(text, 5000),
                                    lambda: self.state.project_path is not None)
        self.profile_view: ProfileView | None = None
        self.profile_dock: QDockWidget | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.coder_dialog: CoderNameDialog | None = None
        self.last_message_box: QMessageBox | None = None
        self.sample_window: SampleWindow | None = None  # the last Sample window opened over this one
        self.disagreement_queue: DisagreementQueue | None = None  # the two-coder queue docked here, while open

        self.setWindowTitle("GrammarLens")
        self.setAcceptDrops(True)
        self.setMinimumSize(QSize(640, 420))
        self._build_panels()
        self._build_actions()
        self._connect()
        self.layout_memory = WindowLayout(self.store)
        self.layout_memory.restore(self, (self.main_splitter, self.right_splitter), self.pdf_view)
        self.pdf_toolbar.zoom_label.setText(f"{self.pdf_view.zoom * 100:.0f}%")
        self._update_offline_banner()
        self.load_catalog()

    # ================================================================== construction
    def _build_panels(self) -> None:
        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.banner = OfflineBanner()
        outer.addWidget(self.banner)
        outer.addWidget(self.projects.backup_banner)
        self.coding_panel, self.pass_bar = CodingPanel(), CodingPassBar()
        outer.addWidget(self.pass_bar)
        self.features_panel = FeaturesPanel()
        self.pdf_view = PdfView()
        self.pdf_view.setMinimumWidth(240)
        self.pdf_toolbar = PdfToolbar(self.state, self.pdf_view, self.runner)
        self.value_panel = ValuePanel()
        self.evidence_panel = EvidencePanel()
        self.right_splitter = named_splitter("rightSplitter", Qt.Orientation.Vertical,
                                        ((self.value_panel, 2), (self.coding_panel, 2), (self.evidence_panel, 3)))
        self.right_splitter.setMinimumWidth(260)
        self.right_splitter.setSizes([120, 210, 370])
        self.main_splitter = named_splitter("mainSplitter", Qt.Orientation.Horizontal,
                                       ((self.features_panel, 1), (self.pdf_view, 3), (self.right_splitter, 2)))
        self.main_splitter.setSizes([210, 500, 570])  # the evidence snippets need the room (1280 x 800)
        outer.addWidget(self.main_splitter, 1)
        self.setCentralWidget(central)
        self.panels = central  # the pass gives the keys back when a widget in here lets them go
        self.language_line = LanguageLine(self.projects, self)  # "Language: Ulwa (yaul1241) — change…"
        self.statusBar().addPermanentWidget(self.language_line)
        self.task_bar = TaskBar(self.runner)
        self.statusBar().addPermanentWidget(self.task_bar)

    def _build_actions(self) -> None:
        K, bar, view, ask, state = QKeySequence.StandardKey, self.pdf_toolbar, self.pdf_view, file_dialogs, self.state
        act = partial(menus.make_action, self)
        self.act_open_pdf = act("Open &grammar PDF…", "Ctrl+Shift+O", lambda: (path := ask.choose_grammar(
            self, pdf_start(state, self.store), "Open a grammar PDF")) and self.open_pdf(path),
            "Open a grammar PDF as its own project, made beside the PDF (or drop the PDF on the window)")
        self.act_new = act("&New project…", K.New, lambda: (path := ask.choose_new_project(
            self, project_start(state))) and self.projects.new(path), "A new, empty project")
        self.act_open = act("&Open project…", K.Open, lambda: (path := ask.choose_project(
            self, project_start(state))) and self.open_project(path))
        self.act_add = act("&Add grammar PDF to this project…", "Ctrl+I", lambda: (path := ask.choose_grammar(
            self, pdf_start(state, self.store, project_first=True))) and self.projects.add_pdf(path),
            "Add another grammar of the same language (a second volume) to the open project")
        self.act_language = act("&Language…", None, self.language_line.edit,
                                "Name and Glottocode of the grammar's language")
        self.act_settings = act("&Settings…", "Ctrl+,", self.open_settings)
        self.act_quit = act("&Quit", K.Quit, self.close)
        self.act_find_feature = act("Find &feature", "Ctrl+L", self.features_panel.focus_search)
        self.act_search = act("&Find in PDF", K.Find, bar.focus_find)
        self.act_next_hit = act("Find &next", K.FindNext, lambda: bar.step(1))
        self.act_prev_hit = act("Find &previous", K.FindPrevious, lambda: bar.step(-1))
        self.act_goto = act("&Go to page…", "Ctrl+G", bar.focus_page, "Go to a printed page number")
        self.act_prev_page = act("Previous page", "PgUp", lambda: view.go_to_page(view.current_page - 1))
        self.act_next_page = act("Next page", "PgDown", lambda: view.go_to_page(view.current_page + 1))
        for paging in (self.act_prev_page, self.act_next_page):
            paging.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            view.addAction(paging)
        self.act_zoom_in = act("Zoom &in", K.ZoomIn, view.zoom_in)
        self.act_zoom_out = act("Zoom &out", K.ZoomOut, view.zoom_out)
        self.act_fit = act("Fit &width", "Ctrl+0", view.fit_width)
        bar.set_zoom_actions(self.act_zoom_out, self.act_zoom_in, self.act_fit)
        self.act_classify = act("&Classify", "Ctrl+Return", self.features.classify, "Ask the model for the value")
        self.act_accept = act("&Accept value", "Alt+A", self.coding.accept)
        self.act_pass = act("Coding &pass", "Ctrl+K", self.pass_bar.startRequested.emit)
        self.act_note = act("Add a &note", "Ctrl+Shift+N", self.coding_panel.focus_note)
        self.act_cancel = act("Cancel task", "Esc", self.task_bar.cancel)
        self.act_cancel.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.act_profile = act("&Profile and export…", "Ctrl+Shift+P", self.show_profile_view,
                               "The profile: batch runs, review, agreement with WALS/Grambank, CLDF export")
        self.act_keys, self.act_about = menus.help_actions(self, self.evidence_panel.table)  # Help → Keys…, About
        self.act_restore, self.act_ocr = restore_action(self, self.projects), menus.ocr_action(self, self.store)
        self.act_sample, self.act_compare = menus.sample_actions(  # the Sample window; a second coder's file
            self, partial(sample_wiring.open_sample, self), partial(sample_wiring.open_queue, self))
        fill_recent = partial(ask.fill_recent_menu, store=self.store, open_project=self.open_project)
        self.recent_menu = menus.recent_menu(self, fill_recent)
        menus.fill_menu_bar(self, (
            ("&Project", (self.act_open_pdf, self.act_open, self.recent_menu, self.act_new, None, self.act_add,
                          self.act_language, self.act_ocr, None, self.act_restore, self.act_compare, None,
                          self.act_settings, None, self.act_quit)),
            ("&View", (self.act_find_feature, self.act_search, self.act_next_hit, self.act_prev_hit,
                       self.act_goto, self.act_zoom_in, self.act_zoom_out, self.act_fit)),
            ("&Feature", (self.act_classify, self.act_accept, self.act_note, self.act_pass, self.act_profile)),
            ("&Sample", (self.act_sample,)), ("&Help", (self.act_keys, self.act_about))))
        menus.add_toolbar(self, (self.act_open_pdf, self.act_open, None, self.pdf_toolbar, None, self.act_settings))

    def _connect(self) -> None:
        status = self.statusBar()
        p, f, v = self.projects, self.features, self.value_panel
        for source in (p, f, self.coding, self.pdf_toolbar, self.references):
            source.message.connect(lambda text, ms: status.showMessage(text, ms))
        for source in (p, f, self.coding, self.references):
            source.failed.connect(self.show_error)
        self.runner.failed.connect(self.show_error)
        self.errors.shown.connect(self.errorShown)
        connect_references(self)
        p.opened.connect(self._project_opened)
        p.aboutToClose.connect(self.save_layout)
        p.closed.connect(self._project_closed)
        p.documentsChanged.connect(self._documents_changed)
        p.ingestFinished.connect(self.ingestFinished)
        self.language_line.changed.connect(self._show_title)  # after open, close, a grammar read, a language set
        p.restored.connect(lambda _kept: self.catalog is None and self.load_catalog())  # stopped half-way: again
        f.featureChanged.connect(self._feature_changed)
        f.evidenceChanged.connect(self._evidence_changed)
        f.marksChanged.connect(self._marks_changed)
        f.valueChanged.connect(v.show_view)
        f.retrievalFinished.connect(self.retrievalFinished)
        f.classificationFinished.connect(self.classificationFinished)
        f.classifyingChanged.connect(lambda _busy: self._update_offline_banner())
        self.banner.settingsRequested.connect(self.open_settings)
        self.features_panel.featureChosen.connect(self.select_feature)
        self.pdf_toolbar.documentChosen.connect(self.show_document)
        self.pdf_toolbar.matchesChanged.connect(self._apply_highlights)
        self.evidence_panel.paragraphChosen.connect(self.show_paragraph)
        v.classifyRequested.connect(self.features.classify)
        connect_coding(self.coding, self.coding_panel, self.pass_bar, self.evidence_panel, self.pdf_view, v,
                       self._apply_highlights, self.select_feature, self.features_panel.model)
        self.coding.name_asker = partial(ask_coder_name, self)  # who is coding: asked at the first act, once
        self.pass_focus = PassFocus(self.pass_bar, self.panels, (self.pdf_view,), self.coding)

    def save_layout(self) -> None:
        """Window geometry, splitters and zoom; for the open project, its feature and page."""
        if self.state.project_path is not None:
            self.layout_memory.remember_project(self.state.project_path, self.state.feature.id
                                                if self.state.feature else "", self.pdf_view.current_page)
        self.layout_memory.save(self, (self.main_splitter, self.right_splitter), self.pdf_view)

    # ================================================================== projects and grammars
    def open_project(self, path: str | Path, feature: str | None = None) -> bool:
        """Open a project file and show its first grammar (and ``feature``); false, with a message, on failure."""
        self.finder.want(feature)
        return self.projects.open(path)

    def open_pdf(self, pdf_path: str | Path) -> Operation | bool | None:
        """Open grammar PDF…: the PDF in its own project beside it, read first when new (never into the demo)."""
        return self.projects.open_pdf(Path(pdf_path))

    def ingest_pdf(self, pdf_path: Path, project_path: Path | None = None) -> Operation | None:
        """Ingest a PDF into the open project (or a new one in the data folder when none, or only the demo, is open)."""
        return self.projects.ingest(Path(pdf_path), project_path)

    def _show_title(self, *_language: str) -> None:
        path, name = self.state.project_path, self.projects.language_name()
        self.setWindowTitle(f"{name} — {path.name} — GrammarLens" if path else "GrammarLens")

    def _project_opened(self, path: str) -> None:
        self._documents_changed(self.state.documents[0].id if self.state.documents else None)
        self.statusBar().showMessage(f"Opened {Path(path).name} in {Path(path).parent}." if self.state.documents else
                                     "This project has no grammar yet: open or drop a grammar PDF to read it in.")
        remembered, page = self.layout_memory.project_memory(Path(path))
        if page and self.state.document is not None:
            self.pdf_view.go_to_page(page)
        self.projectOpened.emit(path)
        self.finder.project_opened(remembered)

    def _project_closed(self) -> None:
        self.pdf_view.close_document()
        self.pdf_toolbar.clear()  # no page number nor page count of the project just closed
        self.features.choose(None)
        self.statusBar().showMessage("No project is open: open a grammar PDF (Ctrl+Shift+O) or drop one here.")

    def _documents_changed(self, show_id: int | None) -> None:
        self.pdf_toolbar.set_documents(self.state.documents)
        if show_id is not None:
            self.show_document(int(show_id))
        elif self.state.document is None:  # a project without a grammar
            self.pdf_view.close_document()
            self.pdf_toolbar.clear()

    def show_document(self, document_id: int) -> bool:
        """Show a grammar of the project in the PDF view; false (with a message) when its PDF cannot be opened."""
        doc = self.state.document_by_id(document_id)
        if doc is None:
            return False
        try:
            self.pdf_view.load(doc.path)
        except PdfError as exc:
            self.show_error("Cannot show this grammar", exc)
            return False
        self.state.show_document(doc, self.projects.page_labels(doc.id))
        self.pdf_toolbar.show_document(doc)
        self._apply_highlights()
        return True

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.projects.accepts(Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.projects.drop([Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]):
            event.acceptProposedAction()

    # ================================================================== features, evidence, value
    def load_catalog(self) -> Operation:
        def done(catalog: Catalog) -> None:
            self.features_panel.set_catalog(catalog)
            self.finder.catalog_loaded(catalog)
            self.catalogLoaded.emit()

        return Operation(self.runner, backend.load_catalog).success(done).failure(
            self.features_panel.set_failed).run_in_background()

    def select_feature(self, feature: Feature | str) -> None:
        """Pick a feature (object or id): its stored result, or its evidence retrieved (an id waits for the catalog)."""
        self.finder.find(feature)

    @property
    def catalog(self) -> Catalog | None:
        return self.finder.catalog

    def _feature_changed(self) -> None:
        feature = self.state.feature
        self.value_panel.set_feature(feature)
        self.features_panel.show_feature(feature)
        self._update_offline_banner()

    def _evidence_changed(self) -> None:
        """New evidence: draw it, list it and bring the deciding paragraph into view (no click needed); a
        re-ranked order updates the list and offers its first paragraph, the page stays put (EvidencePanel.present)."""
        self._apply_highlights()
        self.evidence_panel.present(self.state)

    def show_paragraph(self, paragraph: Paragraph) -> None:
        """Scroll the PDF to a paragraph (switching grammar if needed) and outline its rectangles."""
        other_document = self.state.document is None or paragraph.document_id != self.state.document.id
        if other_document and not self.show_document(paragraph.document_id):
            return
        self.pdf_view.show_rects(paragraph.rects)
        self.statusBar().showMessage(f"p. {paragraph.page_label} — {paragraph.section}", 6000)

    def _marks_changed(self) -> None:
        """Pins or cited paragraphs changed: the evidence list marks them and the page shows them."""
        self.evidence_panel.show_marks(self.state)
        self._apply_highlights()

    def _apply_highlights(self) -> None:
        marks = [Highlight(m.paragraph.rects, m.kind, m.paragraph.id) for m in self.state.marks()]
        marks += [Highlight((Rect(page, *rect),), "search", None) for page, rect in self.pdf_toolbar.matches]
        self.pdf_view.set_highlights(marks)

    def _update_offline_banner(self) -> None:
        configured = llm_configured(self.settings)
        self.banner.setVisible(not configured)
        why = "" if configured else "Add an API key or a local server in Settings (Ctrl+,) to classify."
        if self.features.classifying:
            configured, why = False, "Classifying…"
        self.value_panel.set_classify_enabled(configured and self.state.feature is not None, why)
        self.act_classify.setEnabled(configured)

    # ================================================================== dialogs, settings, profile, close
    def show_error(self, title: str, exc: BaseException) -> QMessageBox:
        """Say what went wrong and what to do, one box per burst of one error (:mod:`gui.common.error_reporting`)."""
        self.last_message_box = self.errors.report(title, exc)
        return self.last_message_box

    def open_settings(self) -> SettingsDialog:
        self.settings_dialog = dialog = SettingsDialog(self.settings, self.runner, self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.result_settings()))
        dialog.open()
        return dialog

    def apply_settings(self, settings: AppSettings) -> None:
        """Use and save new settings; new retrieval settings re-retrieve an unclassified feature's evidence."""
        retrieval_changed = settings.retrieval != self.settings.retrieval
        self.settings = settings
        save_settings(settings, self.store)
        self._update_offline_banner()
        if self.profile_view is not None:
            self.profile_view.settings_changed()  # its cost follows a key just added
        if retrieval_changed and self.state.feature is not None and self.state.classification is None:
            self.features.retrieve()

    def show_profile_view(self) -> ProfileView:
        """The profile dock, built on first use; it follows the open project and opens features here."""
        if self.profile_view is None or self.profile_dock is None:
            self.profile_view, self.profile_dock = build_profile_dock(self)
        self.profile_dock.show()
        self.profile_dock.isFloating() or self.profile_dock.raise_()  # a tab brought forward (floating: shown)
        return self.profile_view

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop running work (under a second: :mod:`gui.window.quitting`), save the layout, close the project."""
        stop_work(self.runner)
        self.save_layout()
        self.projects.close()
        self.pdf_view.close_document()
        super().closeEvent(event)

