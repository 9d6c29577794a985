"""The GrammarLens main window: a grammar, a feature, its evidence and the value beside it.

The window owns one read connection to the open project (on the GUI thread), the worker pool,
and the widgets.  Long work (ingest, retrieval, classification, search) runs in
:mod:`gui.workers`; results come back as signals and only then touch widgets.  Closing the
window cancels running work, waits for it, and saves the layout.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from core.errors import GrammarLensError, PdfError
from core.models import Rect
from core.store import PROJECT_SUFFIX, ProjectDatabase, create_project, open_project
from core.store import repository
from gui import backend, projects, review
from gui.evidence_model import EvidenceModel
from gui.feature_model import FeatureListModel
from gui.pdf_view import Highlight, PdfView
from gui.prediction_panel import PredictionPanel
from gui.settings import AppSettings, llm_configured, load_settings, save_settings
from gui.settings_dialog import SettingsDialog
from gui.workers import Worker, WorkerPool

OFFLINE_TEXT = (
    "No language model is set up, so GrammarLens works offline: search features, read the evidence and review. "
    "To get predicted values, open Settings (Ctrl+,) and add an OpenAI API key, or the URL of a local "
    "OpenAI-compatible server (llama.cpp, Ollama, LM Studio)."
)


class MainWindow(QMainWindow):
    """One project at a time; one or more grammars of one language inside it."""

    projectOpened = Signal(str)
    catalogLoaded = Signal()
    retrievalFinished = Signal()
    classificationFinished = Signal()
    ingestFinished = Signal(bool)  # true when a document was added
    reviewStored = Signal()
    errorShown = Signal(str)

    def __init__(self, store: QSettings | None = None) -> None:
        super().__init__()
        self.store = store or QSettings()
        self.settings: AppSettings = load_settings(self.store)
        self.pool = WorkerPool(self)
        self.project: ProjectDatabase | None = None
        self.project_path: Path | None = None
        self.documents: list[Any] = []
        self.document: Any | None = None
        self.labels: dict[int, str] = {}
        self.pages_by_label: dict[str, int] = {}
        self.catalog: Any | None = None
        self.feature: Any | None = None
        self.hits: list[Any] = []
        self.classification: Any | None = None
        self.cited: set[int] = set()
        self.jobs: dict[str, Worker] = {}
        self.search_hits: list[tuple[int, tuple[float, float, float, float]]] = []
        self.search_index = -1
        self.last_message_box: QMessageBox | None = None
        self.first_page_seconds: float | None = None
        self._open_started = 0.0
        self._pending_feature: str | None = None

        self.setWindowTitle("GrammarLens")
        self.setAcceptDrops(True)
        self.setMinimumSize(QSize(640, 420))
        self._build_widgets()
        self._build_actions()
        self._restore_layout()
        self._update_offline_banner()
        self.load_catalog()

    # ================================================================== construction
    def _build_widgets(self) -> None:
        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)

        self.banner = QFrame()
        self.banner.setObjectName("offlineBanner")
        self.banner.setStyleSheet("#offlineBanner { background: #fff4d6; border-bottom: 1px solid #e0c36a; }"
                                  "#offlineBanner QLabel { color: #4a3b00; }")
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(10, 6, 10, 6)
        self.banner_label = QLabel(OFFLINE_TEXT)
        self.banner_label.setWordWrap(True)
        self.banner_label.setAccessibleName("Offline mode notice")
        banner_layout.addWidget(self.banner_label, 1)
        banner_button = QPushButton("Open settings…")
        banner_button.setAccessibleName("Open settings to add a key or a local server")
        banner_button.clicked.connect(self.open_settings)
        banner_layout.addWidget(banner_button)
        outer.addWidget(self.banner)

        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.setChildrenCollapsible(False)

        # left: feature finder
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(6, 6, 0, 6)
        left_layout.addWidget(QLabel("<b>Features</b>"))
        self.feature_search = QLineEdit()
        self.feature_search.setPlaceholderText("Find a feature: 81A, GB107, 'word order'…")
        self.feature_search.setAccessibleName("Find a feature by id, name or definition")
        self.feature_search.setClearButtonEnabled(True)
        left_layout.addWidget(self.feature_search)
        self.feature_model = FeatureListModel(self)
        self.feature_list = QListView()
        self.feature_list.setModel(self.feature_model)
        self.feature_list.setAccessibleName("Features")
        self.feature_list.setUniformItemSizes(True)
        self.feature_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.feature_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.feature_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        left_layout.addWidget(self.feature_list, 1)
        self.feature_status = QLabel("Loading the feature catalog…")
        self.feature_status.setWordWrap(True)
        self.feature_status.setStyleSheet("color: palette(mid);")
        left_layout.addWidget(self.feature_status)
        left.setMinimumWidth(180)
        self.main_splitter.addWidget(left)

        # centre: the PDF
        self.pdf_view = PdfView()
        self.pdf_view.setMinimumWidth(240)
        self.main_splitter.addWidget(self.pdf_view)

        # right: prediction over evidence
        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.setObjectName("rightSplitter")
        self.right_splitter.setChildrenCollapsible(False)
        self.prediction = PredictionPanel()
        self.right_splitter.addWidget(self.prediction)
        evidence_box = QWidget()
        ev_layout = QVBoxLayout(evidence_box)
        ev_layout.setContentsMargins(6, 0, 6, 6)
        self.evidence_title = QLabel("<b>Evidence</b>")
        ev_layout.addWidget(self.evidence_title)
        self.evidence_model = EvidenceModel(self)
        self.evidence_view = QTableView()
        self.evidence_view.setModel(self.evidence_model)
        self.evidence_view.setAccessibleName("Evidence paragraphs")
        self.evidence_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.evidence_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.evidence_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.evidence_view.setWordWrap(False)
        self.evidence_view.setAlternatingRowColors(True)
        self.evidence_view.verticalHeader().setVisible(False)
        header = self.evidence_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(2, 110)
        ev_layout.addWidget(self.evidence_view, 1)
        self.right_splitter.addWidget(evidence_box)
        self.right_splitter.setStretchFactor(0, 2)
        self.right_splitter.setStretchFactor(1, 3)
        self.right_splitter.setMinimumWidth(260)
        self.main_splitter.addWidget(self.right_splitter)
        self.main_splitter.setStretchFactor(0, 1)
        self.main_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(2, 2)
        self.main_splitter.setSizes([230, 620, 430])
        outer.addWidget(self.main_splitter, 1)
        self.setCentralWidget(central)

        # status bar: message, progress, cancel
        status = self.statusBar()
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(220)
        self.progress_bar.setAccessibleName("Progress of the running task")
        self.progress_bar.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel the running task")
        self.cancel_button.setToolTip("Stop the running task (Esc); nothing half-done is kept")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_work)
        self.work_label = QLabel("")
        status.addPermanentWidget(self.work_label)
        status.addPermanentWidget(self.progress_bar)
        status.addPermanentWidget(self.cancel_button)

        # signals
        self._feature_timer = QTimer(self)
        self._feature_timer.setSingleShot(True)
        self._feature_timer.setInterval(120)
        self._feature_timer.timeout.connect(self._refresh_feature_list)
        self.feature_search.textChanged.connect(lambda _t: self._feature_timer.start())
        self.feature_search.returnPressed.connect(self._pick_first_feature)
        self.feature_list.selectionModel().currentChanged.connect(self._feature_clicked)
        self.feature_list.activated.connect(self._feature_clicked)
        self.evidence_view.selectionModel().currentRowChanged.connect(self._evidence_row_changed)
        self.evidence_view.clicked.connect(lambda index: self.show_evidence(index.row()))
        self.pdf_view.pageChanged.connect(self._page_changed)
        self.pdf_view.pageRendered.connect(self._page_rendered)
        self.pdf_view.zoomChanged.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f}%"))
        self.prediction.classifyRequested.connect(self.classify)
        self.prediction.acceptRequested.connect(lambda: self.add_review("accept"))
        self.prediction.overrideRequested.connect(lambda value: self.add_review("override", value=value))
        self.prediction.noteRequested.connect(lambda text: self.add_review("note", note=text))

    def _action(self, text: str, shortcut: QKeySequence | str | None, slot, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{tip or text.replace('&', '').rstrip('…')}" + (
            f" ({QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)})" if shortcut else ""))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        self.act_new = self._action("&New project…", K.New, self.new_project_dialog)
        self.act_open = self._action("&Open project…", K.Open, self.open_project_dialog)
        self.act_add = self._action("&Add grammar PDF…", "Ctrl+I", self.add_grammar_dialog, "Ingest a grammar PDF")
        self.act_settings = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.act_quit = self._action("&Quit", K.Quit, self.close)
        self.act_find_feature = self._action("Find &feature", "Ctrl+L", self._focus_feature_search)
        self.act_search = self._action("&Find in PDF", K.Find, self._focus_text_search)
        self.act_next_hit = self._action("Find &next", K.FindNext, lambda: self._step_search(1))
        self.act_prev_hit = self._action("Find &previous", K.FindPrevious, lambda: self._step_search(-1))
        self.act_goto = self._action("&Go to page…", "Ctrl+G", self._focus_page_edit, "Go to a printed page number")
        self.act_prev_page = self._action("Previous page", "PgUp", lambda: self._step_page(-1))
        self.act_next_page = self._action("Next page", "PgDown", lambda: self._step_page(1))
        self.act_prev_page.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_next_page.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.pdf_view.addAction(self.act_prev_page)
        self.pdf_view.addAction(self.act_next_page)
        self.act_zoom_in = self._action("Zoom &in", K.ZoomIn, self.pdf_view.zoom_in)
        self.act_zoom_out = self._action("Zoom &out", K.ZoomOut, self.pdf_view.zoom_out)
        self.act_fit = self._action("Fit &width", "Ctrl+0", self.pdf_view.fit_width)
        self.act_classify = self._action("&Classify", "Ctrl+Return", self.classify, "Ask the model for the value")
        self.act_accept = self._action("&Accept value", "Alt+A", lambda: self.add_review("accept"))
        self.act_note = self._action("Add a &note", "Ctrl+Shift+N", lambda: self.prediction.note_edit.setFocus())
        self.act_cancel = self._action("Cancel task", "Esc", self.cancel_work)
        self.act_cancel.setShortcutContext(Qt.ShortcutContext.WindowShortcut)

        menu = self.menuBar().addMenu("&Project")
        menu.addAction(self.act_new)
        menu.addAction(self.act_open)
        self.recent_menu = QMenu("Open &recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        menu.addMenu(self.recent_menu)
        menu.addSeparator()
        menu.addAction(self.act_add)
        menu.addSeparator()
        menu.addAction(self.act_settings)
        menu.addSeparator()
        menu.addAction(self.act_quit)
        view = self.menuBar().addMenu("&View")
        for act in (self.act_find_feature, self.act_search, self.act_next_hit, self.act_prev_hit, self.act_goto,
                    self.act_zoom_in, self.act_zoom_out, self.act_fit):
            view.addAction(act)
        feature = self.menuBar().addMenu("&Feature")
        for act in (self.act_classify, self.act_accept, self.act_note):
            feature.addAction(act)
        feature.addSeparator()
        from gui.profile_view import install_profile_view  # the profile/export area's only hook

        self.act_profile = install_profile_view(self, feature)

        bar = QToolBar("Main toolbar")
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addAction(self.act_open)
        bar.addAction(self.act_add)
        bar.addSeparator()
        self.document_combo = QComboBox()
        self.document_combo.setAccessibleName("Grammar")
        self.document_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.document_combo.setMinimumContentsLength(14)
        self.document_combo.currentIndexChanged.connect(self._document_chosen)
        self.document_combo_action = bar.addWidget(self.document_combo)
        bar.addSeparator()
        bar.addWidget(QLabel(" Page "))
        self.page_edit = QLineEdit()
        self.page_edit.setAccessibleName("Printed page number")
        self.page_edit.setToolTip("Type a printed page number (e.g. 127 or xiv) and press Enter (Ctrl+G)")
        self.page_edit.setMaximumWidth(64)
        self.page_edit.returnPressed.connect(lambda: self.go_to_label(self.page_edit.text()))
        bar.addWidget(self.page_edit)
        self.page_total = QLabel("")
        bar.addWidget(self.page_total)
        bar.addSeparator()
        bar.addAction(self.act_zoom_out)
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar.addWidget(self.zoom_label)
        bar.addAction(self.act_zoom_in)
        bar.addAction(self.act_fit)
        bar.addSeparator()
        self.text_search = QLineEdit()
        self.text_search.setPlaceholderText("Find in PDF (Ctrl+F)")
        self.text_search.setAccessibleName("Find text in the PDF")
        self.text_search.setClearButtonEnabled(True)
        self.text_search.setMaximumWidth(220)
        self.text_search.returnPressed.connect(self._text_search_entered)
        bar.addWidget(self.text_search)
        self.search_label = QLabel("")
        bar.addWidget(self.search_label)
        bar.addSeparator()
        bar.addAction(self.act_settings)
        self.addToolBar(bar)
        self.toolbar = bar

    # ================================================================== layout
    def _restore_layout(self) -> None:
        geometry = self.store.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = self.store.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        for splitter in (self.main_splitter, self.right_splitter):
            saved = self.store.value(f"window/{splitter.objectName()}")
            if isinstance(saved, QByteArray):
                splitter.restoreState(saved)
        try:
            zoom = float(self.store.value("window/zoom", 1.0))
        except (TypeError, ValueError):
            zoom = 1.0
        self.pdf_view.set_zoom(zoom)
        self.zoom_label.setText(f"{self.pdf_view.zoom * 100:.0f}%")

    def save_layout(self) -> None:
        self.store.setValue("window/geometry", self.saveGeometry())
        self.store.setValue("window/state", self.saveState())
        for splitter in (self.main_splitter, self.right_splitter):
            self.store.setValue(f"window/{splitter.objectName()}", splitter.saveState())
        self.store.setValue("window/zoom", self.pdf_view.zoom)
        if self.project_path is not None:
            self.store.setValue(f"project_state/{self._project_key()}/feature", self.feature.id if self.feature else "")
            self.store.setValue(f"project_state/{self._project_key()}/page", self.pdf_view.current_page)
        self.store.sync()

    def _project_key(self) -> str:
        return str(self.project_path).replace("/", "|").replace("\\", "|") if self.project_path else ""

    # ================================================================== projects
    def open_project(self, path: str | Path, feature: str | None = None) -> bool:
        """Open a project file and show its first grammar (and ``feature``); false, with a message, on failure."""
        target = Path(path)
        self._open_started = time.perf_counter()
        self.first_page_seconds = None
        try:
            project = open_project(target)
        except GrammarLensError as exc:
            projects.forget_project(target, self.store)
            self.show_error("Cannot open this project", exc)
            return False
        self.close_project()
        self.project, self.project_path = project, target
        projects.remember_project(target, self.store)
        language = repository.get_language(project)
        name = language.name if language else target.stem
        self.setWindowTitle(f"{name} — {target.name} — GrammarLens")
        self._reload_documents()
        if self.documents:
            self.show_document(self.documents[0].id)
        else:
            self.statusBar().showMessage(
                "This project has no grammar yet: drop a PDF here or use Add grammar (Ctrl+I).")
        key = self._project_key()
        page = self.store.value(f"project_state/{key}/page")
        if page and self.document is not None:
            try:
                self.pdf_view.go_to_page(int(page))
            except (TypeError, ValueError):
                pass
        wanted = feature or self._pending_feature or self.store.value(f"project_state/{key}/feature") or ""
        self._pending_feature = None
        self.projectOpened.emit(str(target))
        if wanted:
            self.select_feature(str(wanted))
        return True

    def close_project(self) -> None:
        for kind in ("retrieve", "classify", "search"):
            worker = self.jobs.get(kind)
            if worker is not None:
                worker.cancel()
        if self.project is not None:
            self.save_layout()
            self.project.close()
        self.project = None
        self.project_path = None
        self.documents, self.document = [], None
        self.pdf_view.close_document()
        self.feature = None
        self._clear_results()
        self.prediction.set_feature(None)

    def show_document(self, document_id: int) -> bool:
        doc = next((d for d in self.documents if d.id == document_id), None)
        if doc is None or self.project is None:
            return False
        try:
            self.pdf_view.load(doc.path)
        except PdfError as exc:
            self.document = doc
            self.show_error("Cannot show this grammar", exc)
            return False
        self.document = doc
        self.labels = repository.page_labels(self.project, doc.id)
        self.pages_by_label = {}
        for pdf_page, label in self.labels.items():
            self.pages_by_label.setdefault(label.lower(), pdf_page)
        self.page_total.setText(f" ({self.pdf_view.page_count} pp.) ")
        index = self.document_combo.findData(doc.id)
        if index >= 0 and index != self.document_combo.currentIndex():
            self.document_combo.blockSignals(True)
            self.document_combo.setCurrentIndex(index)
            self.document_combo.blockSignals(False)
        self._page_changed(self.pdf_view.current_page or 1)
        self._apply_highlights()
        return True

    def _document_chosen(self, index: int) -> None:
        document_id = self.document_combo.itemData(index)
        if document_id is not None and (self.document is None or self.document.id != document_id):
            self.show_document(int(document_id))

    def new_project_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New project", str(projects.data_dir()),
                                              f"GrammarLens projects (*{PROJECT_SUFFIX})")
        if path:
            self.new_project(Path(path))

    def new_project(self, path: Path) -> bool:
        if path.suffix != PROJECT_SUFFIX:
            path = path.with_suffix(PROJECT_SUFFIX)
        try:
            create_project(path).close()
        except GrammarLensError as exc:
            self.show_error("Cannot create the project", exc)
            return False
        return self.open_project(path)

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project", str(projects.data_dir()),
                                              f"GrammarLens projects (*{PROJECT_SUFFIX});;All files (*)")
        if path:
            self.open_project(path)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = [p for p in projects.recent_projects(self.store) if p.exists()]
        if not recent:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for path in recent:
            self.recent_menu.addAction(path.name, lambda p=path: self.open_project(p)).setToolTip(str(path))

    # ================================================================== ingest
    def add_grammar_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Add a grammar PDF", str(Path.home()), "PDF files (*.pdf)")
        if path:
            self.ingest_pdf(Path(path))

    def ingest_pdf(self, pdf_path: Path, project_path: Path | None = None) -> Worker | None:
        """Ingest a PDF into the open project (or a new one when none, or only the demo, is open)."""
        if "ingest" in self.jobs:
            self.statusBar().showMessage("A grammar is already being read; wait for it or cancel it.", 5000)
            return None
        target = project_path or self.project_path
        if target is None or projects.is_demo_project(target):
            target = projects.project_for_pdf(pdf_path)
        self.statusBar().showMessage(f"Reading {pdf_path.name}…")
        opening_other = target != self.project_path

        added = [False]

        def done(document_id: object) -> None:
            added[0] = True
            self.statusBar().showMessage(f"Added {pdf_path.name}.", 8000)
            if opening_other or self.project is None:
                self.open_project(target)
            else:
                self._reload_documents(int(document_id))  # type: ignore[arg-type]

        def failed(exc: BaseException) -> None:
            if opening_other and target.exists():
                self._discard_empty_project(target)
            self.show_error(f"Cannot read {pdf_path.name}", exc)

        def cancelled() -> None:
            if opening_other and target.exists():
                self._discard_empty_project(target)
            self.statusBar().showMessage("Reading the grammar was cancelled; the project is as it was.", 8000)

        return self._start("ingest", f"Reading {pdf_path.name}",
                           lambda progress: backend.ingest(target, pdf_path, progress),
                           on_result=done, on_error=failed, on_cancelled=cancelled,
                           on_finished=lambda: self.ingestFinished.emit(added[0]))

    def _discard_empty_project(self, path: Path) -> None:
        """A project created only for a failed ingest holds nothing; don't leave it lying around."""
        try:
            with open_project(path) as project:
                empty = not repository.list_documents(project)
        except GrammarLensError:
            return
        if empty:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

    def _reload_documents(self, show_id: int | None = None) -> None:
        if self.project is None:
            return
        self.documents = repository.list_documents(self.project)
        self.document_combo.blockSignals(True)
        self.document_combo.clear()
        for doc in self.documents:
            self.document_combo.addItem(doc.title or doc.file_name, doc.id)
        self.document_combo.blockSignals(False)
        self.document_combo_action.setVisible(len(self.documents) > 1)
        if show_id is not None:
            self.show_document(show_id)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt naming
        if any(u.isLocalFile() and u.toLocalFile().lower().endswith((".pdf", PROJECT_SUFFIX))
               for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        for url in event.mimeData().urls():
            path = Path(url.toLocalFile())
            if path.suffix.lower() == ".pdf":
                self.ingest_pdf(path)
            elif path.suffix == PROJECT_SUFFIX:
                self.open_project(path)
            event.acceptProposedAction()
            return

    # ================================================================== features
    def load_catalog(self) -> None:
        def done(catalog: object) -> None:
            self.catalog = catalog
            self.feature_status.setText("")
            self._refresh_feature_list()
            self.catalogLoaded.emit()
            if self._pending_feature and self.project is not None:
                wanted, self._pending_feature = self._pending_feature, None
                self.select_feature(wanted)

        def failed(exc: BaseException) -> None:
            self.feature_status.setText(f"The feature catalog could not be loaded: {getattr(exc, 'message', exc)}")

        self._start("catalog", "Loading features", backend.load_catalog, on_result=done, on_error=failed, quiet=True)

    def _all_features(self) -> list[Any]:
        catalog = self.catalog
        if catalog is None:
            return []
        for attr in ("features", "all"):
            value = getattr(catalog, attr, None)
            if value is not None:
                value = value() if callable(value) else value
                return list(value.values()) if isinstance(value, dict) else list(value)
        return list(catalog)

    def _refresh_feature_list(self) -> None:
        if self.catalog is None:
            return
        text = self.feature_search.text().strip()
        features = self.catalog.search(text) if text else self._all_features()
        self.feature_model.set_features(features)
        self.feature_status.setText(f"{len(features)} features" if text else "")
        if self.feature is not None:
            row = self.feature_model.row_of(self.feature.id)
            if row >= 0:
                self.feature_list.selectionModel().blockSignals(True)
                self.feature_list.setCurrentIndex(self.feature_model.index(row))
                self.feature_list.selectionModel().blockSignals(False)

    def _pick_first_feature(self) -> None:
        if self.feature_model.rowCount():
            self.feature_list.setCurrentIndex(self.feature_model.index(0))
            self.feature_list.setFocus()

    def _feature_clicked(self, index) -> None:
        if index.isValid():
            feature = self.feature_model.feature(index.row())
            if self.feature is None or feature.id != self.feature.id:
                self.select_feature(feature)

    def select_feature(self, feature: Any) -> None:
        """Pick a feature (object or id): show its stored result and retrieve its evidence."""
        if isinstance(feature, str):
            if self.catalog is None:
                self._pending_feature = feature
                return
            try:
                feature = self.catalog.get(feature)
            except GrammarLensError:
                self.statusBar().showMessage(f"No feature {feature} in the catalog.", 5000)
                return
        self.feature = feature
        self._clear_results()
        self.prediction.set_feature(feature, review.value_options(feature))
        self._update_offline_banner()
        row = self.feature_model.row_of(feature.id)
        if row >= 0 and self.feature_list.currentIndex().row() != row:
            self.feature_list.selectionModel().blockSignals(True)
            self.feature_list.setCurrentIndex(self.feature_model.index(row))
            self.feature_list.selectionModel().blockSignals(False)
        if row >= 0:
            self.feature_list.scrollTo(self.feature_model.index(row), QAbstractItemView.ScrollHint.PositionAtCenter)
        if self.project is None or not self.documents:
            return
        if not self._show_stored_classification():
            self.run_retrieval()

    def _clear_results(self) -> None:
        self.hits, self.classification, self.cited = [], None, set()
        self.evidence_model.set_hits([])
        self.evidence_title.setText("<b>Evidence</b>")
        self.pdf_view.set_highlights([])

    def run_retrieval(self) -> None:
        if self.project_path is None or self.feature is None:
            return
        old = self.jobs.get("retrieve")
        if old is not None:
            old.cancel()
        feature, path, settings = self.feature, self.project_path, self.settings

        def done(hits: object) -> None:
            if self.feature is not feature:
                return
            self._set_hits(list(hits))  # type: ignore[arg-type]
            self.retrievalFinished.emit()

        self._start("retrieve", f"Finding evidence for {feature.id}",
                    lambda progress: backend.retrieve(path, feature, settings, progress),
                    on_result=done, on_error=lambda exc: self.show_error("Retrieval failed", exc))

    def _set_hits(self, hits: list[Any]) -> None:
        self.hits = hits
        self.evidence_model.set_hits(hits, self.cited)
        self.evidence_title.setText(f"<b>Evidence</b> — {len(hits)} paragraphs" if hits else
                                    "<b>Evidence</b> — nothing found; try a reranker or another grammar")
        self._apply_highlights()

    def _apply_highlights(self) -> None:
        if self.document is None:
            return
        marks = [
            Highlight(h.paragraph.rects, "cited" if h.paragraph.id in self.cited else "evidence", h.paragraph.id)
            for h in self.hits
            if h.paragraph.document_id == self.document.id
        ]
        marks += [
            Highlight((Rect(page, *rect),), "search", None)
            for page, rect in self.search_hits
        ]
        self.pdf_view.set_highlights(marks)

    def _evidence_row_changed(self, current, _previous) -> None:
        if current.isValid():
            self.show_evidence(current.row())

    def show_evidence(self, row: int) -> None:
        """Scroll the PDF to an evidence paragraph and outline its rectangles."""
        if not 0 <= row < len(self.evidence_model.hits):
            return
        paragraph = self.evidence_model.hit(row).paragraph
        if self.document is None or paragraph.document_id != self.document.id:
            if not self.show_document(paragraph.document_id):
                return
        self.pdf_view.show_rects(paragraph.rects)
        self.statusBar().showMessage(f"p. {paragraph.page_label} — {paragraph.section}", 6000)

    # ================================================================== classification
    def _update_offline_banner(self) -> None:
        configured = llm_configured(self.settings)
        self.banner.setVisible(not configured)
        why = "" if configured else "Add an API key or a local server in Settings (Ctrl+,) to classify."
        self.prediction.set_classify_enabled(configured and self.feature is not None, why)
        self.act_classify.setEnabled(configured)

    def classify(self) -> None:
        if self.project_path is None or self.feature is None or not self.documents:
            return
        if not llm_configured(self.settings):
            self._update_offline_banner()
            self.statusBar().showMessage("No language model is set up; see Settings (Ctrl+,).", 8000)
            return
        if "classify" in self.jobs:
            return
        feature, path, settings = self.feature, self.project_path, self.settings
        self.prediction.set_classify_enabled(False, "Classifying…")

        def done(result: object) -> None:
            if self.feature is not feature:
                return
            self._show_classification(result)
            self.classificationFinished.emit()

        def finished() -> None:
            self._update_offline_banner()

        self._start("classify", f"Classifying {feature.id}",
                    lambda progress: backend.classify(path, feature, settings, progress),
                    on_result=done, on_error=lambda exc: self.show_error("Classification failed", exc),
                    on_finished=finished)

    def _show_stored_classification(self) -> bool:
        """Show the last stored result of this feature; true when it brought its own evidence."""
        if self.project is None or self.feature is None:
            return False
        stored = review.latest_classification(self.project, self.feature.id)
        if stored is None:
            return False
        self._show_classification(stored)
        return bool(self.hits)

    def _show_classification(self, result: Any) -> None:
        self.classification = result
        view = review.describe(result, self.project)
        self.cited = set(view.cited_ids)
        self.prediction.show_classification(view.value, view.reasoning, view.meta)
        if view.evidence_hits:
            self._set_hits(view.evidence_hits)
        else:
            self.evidence_model.set_cited(self.cited)
            self._apply_highlights()
        self._show_reviews()

    def _show_reviews(self) -> None:
        if self.project is None or self.classification is None:
            self.prediction.show_reviews([])
            return
        self.prediction.show_reviews(review.review_lines(self.project, self.classification))
        overridden = review.override_value(self.project, self.classification)
        if overridden:
            self.prediction.show_override(overridden)

    def add_review(self, action: str, value: str | None = None, note: str | None = None) -> None:
        if self.project is None or self.classification is None:
            self.statusBar().showMessage("Classify the feature first; reviews attach to a prediction.", 5000)
            return
        try:
            review.add(self.project, self.classification, action, value=value, note=note,
                       reviewer=self.settings.reviewer_name)
        except GrammarLensError as exc:
            self.show_error("The review was not saved", exc)
            return
        if action == "note":
            self.prediction.note_edit.clear()
        self._show_reviews()
        self.statusBar().showMessage({"accept": "Accepted.", "override": f"Overridden with {value}.",
                                      "note": "Note added."}[action], 4000)
        self.reviewStored.emit()

    # ================================================================== PDF navigation and search
    def _page_changed(self, pdf_page: int) -> None:
        label = self.labels.get(pdf_page, str(pdf_page))
        if not self.page_edit.hasFocus():
            self.page_edit.setText(label)

    def _page_rendered(self, pdf_page: int) -> None:
        if self.first_page_seconds is None and self._open_started:
            self.first_page_seconds = time.perf_counter() - self._open_started

    def go_to_label(self, text: str) -> bool:
        text = text.strip().lower()
        page = self.pages_by_label.get(text)
        if page is None and text.isdigit() and not self.pages_by_label:
            page = int(text)
        if page is None:
            self.statusBar().showMessage(f"No page is printed “{text}” in this grammar.", 5000)
            return False
        self.pdf_view.go_to_page(page)
        self.pdf_view.setFocus()
        return True

    def _step_page(self, delta: int) -> None:
        self.pdf_view.go_to_page(self.pdf_view.current_page + delta)

    def _focus_feature_search(self) -> None:
        self.feature_search.setFocus()
        self.feature_search.selectAll()

    def _focus_text_search(self) -> None:
        self.text_search.setFocus()
        self.text_search.selectAll()

    def _focus_page_edit(self) -> None:
        self.page_edit.setFocus()
        self.page_edit.selectAll()

    def _text_search_entered(self) -> None:
        text = self.text_search.text().strip()
        if self.document is None or not text:
            self.search_hits = []
            self.search_label.setText("")
            self._apply_highlights()
            return
        old = self.jobs.get("search")
        if old is not None:
            old.cancel()
        pdf_path, start_page = Path(self.document.path), self.pdf_view.current_page

        def done(hits: object) -> None:
            self.search_hits = list(hits)  # type: ignore[arg-type]
            self._apply_highlights()
            if not self.search_hits:
                self.search_label.setText(" no match ")
                return
            self.search_index = next((i for i, h in enumerate(self.search_hits) if h[0] >= start_page), 0) - 1
            self._step_search(1)

        self._start("search", f"Searching “{text}”", lambda progress: backend.search_pdf(pdf_path, text, progress),
                    on_result=done)

    def _step_search(self, delta: int) -> None:
        if not self.search_hits:
            return
        self.search_index = (self.search_index + delta) % len(self.search_hits)
        page, rect = self.search_hits[self.search_index]
        self.pdf_view.go_to_page(page, max(0.0, rect[1] - 60))
        self.search_label.setText(f" {self.search_index + 1}/{len(self.search_hits)} ")

    # ================================================================== work and errors
    def _start(self, kind: str, label: str, job, *, on_result=None, on_error=None, on_cancelled=None,
               on_finished=None, quiet: bool = False) -> Worker:
        def finished() -> None:
            if self.jobs.get(kind) is worker:
                del self.jobs[kind]
            self._update_busy()
            if on_finished:
                on_finished()

        def progress(done: int, total: int, message: str) -> None:
            if self.jobs.get(kind) is worker and not quiet:
                self.progress_bar.setMaximum(max(total, 1))
                self.progress_bar.setValue(min(done, total))
                self.work_label.setText(f"{label}: {message}" if message else label)

        worker = self.pool.start(job, name=kind, on_result=on_result, on_error=on_error, on_progress=progress,
                                 on_cancelled=on_cancelled, on_finished=finished)
        worker.label = label  # type: ignore[attr-defined]
        worker.quiet = quiet  # type: ignore[attr-defined]
        self.jobs[kind] = worker
        self._update_busy()
        return worker

    def _update_busy(self) -> None:
        visible = [w for w in self.jobs.values() if not getattr(w, "quiet", False)]
        busy = bool(visible)
        self.progress_bar.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            self.progress_bar.setMaximum(0)  # busy indicator until the first progress report
            self.work_label.setText(getattr(visible[-1], "label", ""))
        else:
            self.work_label.setText("")

    def cancel_work(self) -> None:
        for worker in list(self.jobs.values()):
            if not getattr(worker, "quiet", False):
                worker.cancel()
        if self.jobs:
            self.work_label.setText("Cancelling…")

    def show_error(self, title: str, exc: BaseException) -> QMessageBox:
        """Tell the person what went wrong and what to do; bugs say so and carry the details."""
        box = QMessageBox(self)
        box.setWindowTitle(title)
        if isinstance(exc, GrammarLensError):
            box.setIcon(QMessageBox.Icon.Warning)
            box.setText(exc.message)
            if exc.hint:
                box.setInformativeText(exc.hint)
        else:
            box.setIcon(QMessageBox.Icon.Critical)
            box.setText(f"Something went wrong inside GrammarLens: {exc}")
            box.setInformativeText("This is a bug. Your project was not changed by the failed step.")
            box.setDetailedText(getattr(exc, "__traceback_text__", repr(exc)))
        box.setAccessibleName(title)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.last_message_box = box
        self.statusBar().showMessage(getattr(exc, "message", str(exc)), 10000)
        self.errorShown.emit(getattr(exc, "message", str(exc)))
        return box

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.settings, self.pool, self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.result_settings()))
        dialog.open()
        self.settings_dialog = dialog
        return dialog

    def apply_settings(self, settings: AppSettings) -> None:
        retrieval_changed = any(getattr(settings, f) != getattr(self.settings, f) for f in
                                ("reranker_model", "reranker_device", "bm25_top_k", "rerank_top_k"))
        self.settings = settings
        save_settings(settings, self.store)
        self._update_offline_banner()
        if retrieval_changed and self.feature is not None and self.classification is None:
            self.run_retrieval()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt naming
        """Cancel running work, wait for the threads, save the layout, close the project."""
        self.cancel_work()
        self.pool.shutdown()
        self.save_layout()
        if self.project is not None:
            self.project.close()
            self.project = None
        self.pdf_view.close_document()
        super().closeEvent(event)
