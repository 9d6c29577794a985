"""The project's lifecycle in the window: open, create, close, open a grammar PDF, add one, take a dropped file.

Why a controller of its own: these steps decide which project file is touched (an opened or dropped
PDF gets its own project beside it, never the demo; the same PDF opens the same project again; a
failed ingest leaves no empty project behind), which is easy to break when it is mixed with widget
code (where a PDF's project lies: :mod:`gui.project.open_grammar`).  It owns the window's one
read connection to the project (on the UI thread) and the project part of the
:class:`gui.common.window_state.WindowState`; the window listens to its signals and redraws.  While a
project is open it keeps taking a backup every hour (opening took one, see :mod:`core.store.backups`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication

from core.changes import ProjectChange
from core.errors import GrammarLensError
from core.models import Language
from core.store import PROJECT_SUFFIX, ProjectDatabase, backups, create_project, open_project, repository, restore
from core.store.watch import Written
from gui.common import backend, projects
from gui.common.changes import ProjectChanges
from gui.common.operations import Operation, OperationRunner
from gui.common.window_state import WindowState
from gui.project import open_grammar
from gui.project.backup_banner import BackupBanner
from gui.project.ocr_options import load_ocr_options

if TYPE_CHECKING:  # the reading pipeline is imported by the job, off the UI thread's start-up
    from core.ingest import IngestResult

BACKUP_CHECK_MS = 5 * 60 * 1000  # how often the window asks whether an hourly backup is due


class ProjectController(QObject):
    """Opens and closes projects and adds grammars to them; reports through signals."""

    opened = Signal(str)  # project path
    aboutToClose = Signal()  # the window saves the project's page and feature now
    closed = Signal()
    documentsChanged = Signal(object)  # id of the document to show now, or None
    ingestFinished = Signal(bool)  # true when a grammar was added
    restored = Signal(object)  # a backup was restored: the backup of the state it replaced (None: a damaged file)
    failed = Signal(str, object)  # title, exception
    message = Signal(str, int)  # status-bar text, milliseconds

    def __init__(self, state: WindowState, runner: OperationRunner, store: QSettings,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.runner, self.store = state, runner, store
        self.project: ProjectDatabase | None = None
        self.unopened: Path | None = None  # the project that last failed to open (a damaged one can be restored)
        self._ingest: Operation | None = None
        self.backup_interval = backups.OPEN_INTERVAL
        self._backup: Operation | None = None
        self.backup_timer = QTimer(self, interval=BACKUP_CHECK_MS)
        self.backup_timer.timeout.connect(self.backup_if_due)
        self.backup_banner = BackupBanner()  # the window places it above its panels
        self.changes = ProjectChanges(self)  # every act's record, and another process's writes, to every screen
        self.changes.failed.connect(self.failed)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):  # leaving the window makes the file current for a copy or a sync client
            app.applicationStateChanged.connect(self.application_state_changed)

    def application_state_changed(self, state: Qt.ApplicationState) -> None:
        """The window lost focus (or is hidden): copy the write-ahead log into the project file now."""
        if state != Qt.ApplicationState.ApplicationActive and self.project is not None:
            self.project.checkpoint()

    # ------------------------------------------------------------------ open and close
    def open(self, path: str | Path) -> bool:
        """Open a project file; false (after ``failed``) when it is not a usable project."""
        target = Path(path)
        try:
            project = open_project(target)
        except GrammarLensError as exc:
            projects.forget_project(target, self.store)
            self.unopened = target
            self.failed.emit("Cannot open this project", exc)
            return False
        self.unopened = None
        self.close()
        # A decision the window shows as stored must survive a power cut too, not only a crash of the app:
        # in WAL mode FULL syncs the log at every commit (core's NORMAL may lose the last commits to an OS
        # crash).  One fsync per act of the coder, at human speed, on this connection only; jobs keep NORMAL.
        project.conn.execute("PRAGMA synchronous = FULL")
        self.project = project
        self.changes.set_project(project)
        self.state.open_project(target, repository.list_documents(project))
        projects.remember_project(target, self.store)
        self.backup_timer.start()
        self.opened.emit(str(target))
        if project.backup_problem is not None:  # said at once: a banner, and the status bar
            self.backup_banner.show_problem(project.backup_problem.message, project.backup_problem.hint)
            self.message.emit(f"No backup could be taken: {project.backup_problem.message}", 30000)
        return True

    def close(self) -> None:
        if self.project is None:
            return
        self.aboutToClose.emit()
        self.backup_timer.stop()
        self.changes.set_project(None)
        self.project.checkpoint()  # other connections (jobs) may keep the -wal open: the file is current anyway
        self.project.close()
        self.project = None
        self.backup_banner.hide()
        self.state.close_project()
        self.closed.emit()

    def abandon(self) -> None:
        """A step failed with a bug: roll back whatever it left pending on the window's connection.

        Every write of core runs in one transaction that rolls back on any exception, so this is a
        safety net: a transaction left open would hold the project's write lock and fail every
        next action (and every job) with "locked".
        """
        if self.project is not None and self.project.conn.in_transaction:
            self.project.conn.rollback()

    def restore(self, backup: Path, path: Path | None = None) -> bool:
        """Make the project (the open one by default) what ``backup`` holds, then open it; false on failure.

        Every job is stopped first (each has its own connection and may be writing) and the window's
        connection closed, so nothing writes during the restore.  The state replaced is kept as a backup
        (``restored`` hands it over).  Whatever happens, the project is opened again afterwards.
        """
        target = path or self.state.project_path
        if target is None:
            return False
        self.runner.shutdown()
        self.close()
        done: restore.Restored | None = None
        try:
            done = restore.restore_backup(target, backup)
        except GrammarLensError as exc:
            self.failed.emit("The backup was not restored", exc)
        finally:
            self.open(target)  # the restored state; after a failure, the state before
        if done is not None:
            kept = (" The state before it is kept as a backup too." if done.safety
                    else " The damaged file was kept aside.")
            self.message.emit(f"Restored {target.name} from its backup.{kept}", 15000)
            self.restored.emit(done.safety)
            self.changes.announce(done.change, self)
        return done is not None

    def backup_if_due(self) -> Operation | None:
        """Back the open project up in the background when its newest backup is older than ``backup_interval``.

        A backup that cannot be written (disk full, folder not writable) is said in the status bar: the
        person must know that no fresh backup exists, but not be interrupted every few minutes.
        """
        path, interval = self.state.project_path, self.backup_interval
        if path is None or (self._backup is not None and self._backup.running):
            return None

        def job(progress) -> backups.Backup | None:
            with open_project(path, backup=False) as project:  # the worker's own connection
                return backups.backup_if_due(project, "hourly", interval)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, GrammarLensError):
                self.backup_banner.show_problem(exc.message, exc.hint)
                self.message.emit(f"No backup could be taken: {exc.message} {exc.hint}".strip(), 30000)

        self._backup = (Operation(self.runner, job).success(lambda _made: self.backup_banner.hide())
                        .failure(failed).run_in_background())
        return self._backup

    def new(self, path: Path) -> bool:
        """Create an empty project at ``path`` (the suffix is added when missing) and open it."""
        if path.suffix != PROJECT_SUFFIX:
            path = path.with_suffix(PROJECT_SUFFIX)
        try:
            create_project(path).close()
        except GrammarLensError as exc:
            self.failed.emit("Cannot create the project", exc)
            return False
        return self.open(path)

    def language(self) -> Language | None:
        """The open project's language as stored (a guess marked ``unsure:``), or None."""
        return repository.get_language(self.project) if self.project is not None else None

    def language_name(self) -> str:
        """The language of the open project, or the file's name when none is recorded."""
        if self.project is None or self.state.project_path is None:
            return ""
        language = self.language()
        return language.name if language else self.state.project_path.stem

    def set_language(self, language: Language) -> bool:
        """Store the linguist's language in the project (one transaction) and say so; false on failure."""
        if self.project is None:
            return False
        project, checks = self.project, []

        def act() -> ProjectChange:
            stored = repository.set_language(project, language)
            checks.append(stored)
            return stored.change

        if self.changes.run(act, self, "The language was not saved") is None:
            return False
        check = checks[0]
        said = f"Language set to {language.name}" + (f" ({check.code})." if check.code else ".")
        # a well-formed Glottocode the bundled table does not know is stored, with a note worth reading
        self.message.emit(f"{said} Note: {check.note}" if check.note else said, 12000 if check.note else 5000)
        return True

    def page_labels(self, document_id: int) -> dict[int, str]:
        return repository.page_labels(self.project, document_id) if self.project is not None else {}

    def reload_documents(self, show_id: int | None = None) -> None:
        if self.project is not None:
            self.state.set_documents(repository.list_documents(self.project))
            self.documentsChanged.emit(show_id)

    # ------------------------------------------------------------------ ingest
    @property
    def ingesting(self) -> bool:
        return self._ingest is not None and self._ingest.running

    def ingest(self, pdf_path: Path, project_path: Path | None = None, note: str = "") -> Operation | None:
        """Read a PDF into ``project_path`` (made when missing), by default the open project.

        With no project open, or only the demo, a new project is made in the data folder (the window's
        actions go through :meth:`open_pdf` instead, which makes it beside the PDF).  ``note`` is added
        to the message that says the grammar was read.
        """
        if self.ingesting:
            self.message.emit("A grammar is already being read; wait for it or cancel it.", 5000)
            return None
        target = project_path or self.state.project_path
        if target is None or projects.is_demo_project(target):
            target = projects.project_for_pdf(pdf_path)
        opening_other = target != self.state.project_path
        new_project = opening_other and not target.exists()  # made for this PDF: removed again if reading fails
        created: list[Path] = []  # the job notes the file once it made it (never one it found)
        reports: list = []  # what OCR did, if it read any page
        ocr = load_ocr_options(self.store)
        added = [False]
        self.message.emit(f"Reading {pdf_path.name}…", 0)

        def done(result: IngestResult) -> None:
            added[0] = True
            if opening_other or self.project is None:
                self.open(target)
            else:
                self.reload_documents(int(result.document_id))
                self.changes.announce(result.change, self)
            by_ocr = "".join(f" ({r.summary().rstrip('.')})" for r in reports if r.summary())  # before the path
            said = f"Read {pdf_path.name}{by_ocr} into {target.name}"
            said += f", in {target.parent}." if opening_other else "."
            self.message.emit(f"{said} {note}".strip(), 12000 if note or reports else 8000)

        def failed(exc: BaseException) -> None:  # the job removed a project it made; the window is as it was
            self.failed.emit(f"Cannot read {pdf_path.name}", exc)

        def cancelled() -> None:
            if created:  # Cancel came after the job had finished: nobody asked for this project any more
                backend.remove_project_files(target)
            known = len(self.state.documents)
            if not opening_other:
                self.reload_documents()  # a Cancel that came too late: the grammar is in, so show it
            if len(self.state.documents) > known:
                self.message.emit(f"{pdf_path.name} was read completely before Cancel arrived; it was added.", 8000)
            elif (digest := open_grammar.digest_of(pdf_path)) and open_grammar.reading_pdf(target, digest):
                self.message.emit(f"Reading was cancelled; the pages OCR had read are kept in {target.name}: "
                                  f"open {pdf_path.name} again to continue.", 12000)
            else:
                self.message.emit("Reading the grammar was cancelled; the project is as it was.", 8000)

        def job(progress) -> IngestResult:
            return backend.ingest(target, pdf_path, progress, new_project=new_project, created=created, ocr=ocr,
                                  reports=reports)

        self._ingest = self.changes.writing(  # the worker's commit is this window's act, announced by ``done``
            Operation(self.runner, job).success(done).failure(failed).cancelled(cancelled)
            .finished(lambda: self.ingestFinished.emit(added[0]))
            .with_progress(f"Reading {pdf_path.name}"), frozenset({Written.DOCUMENTS})).run_in_background()
        return self._ingest

    def open_pdf(self, pdf_path: Path) -> Operation | bool | None:
        """Open grammar PDF…: show the PDF in its own project, made (and the PDF read) when it has none.

        The open project is used when it already holds this PDF, or when it is a real project still
        without a grammar (made by New project… for it); the demo never is.  Otherwise the project
        beside the PDF (see :func:`gui.project.open_grammar.project_for_grammar`) is opened when it holds the
        PDF, or made and the PDF read into it in the background (progress, Cancel).  Returns the
        reading's operation, or whether a project was shown; None when a reading is running already.
        """
        if self.ingesting:
            self.message.emit("A grammar is already being read; wait for it or cancel it.", 5000)
            return None
        pdf = Path(pdf_path)
        open_grammar.remember_pdf_folder(self.store, pdf)
        digest = open_grammar.digest_of(pdf)
        current = self.state.project_path
        if self.project is not None and current is not None and not projects.is_demo_project(current):
            held = repository.find_document_by_sha256(self.project, digest) if digest else None
            if held is not None:
                self.documentsChanged.emit(held.id)
                self.message.emit(f"{pdf.name} is in this project ({current.name}) already.", 8000)
                return True
            if not self.state.documents:  # an empty project, made for a grammar: this one
                return self.ingest(pdf, current)
        found = open_grammar.project_for_grammar(pdf, digest)
        if not found.holds_pdf:
            return self.ingest(pdf, found.path, found.note)
        if not self.open(found.path):
            return False
        self.message.emit(f"Opened {found.path.name}, which holds {pdf.name}. {found.note}".strip(), 8000)
        return True

    def add_pdf(self, pdf_path: Path) -> Operation | bool | None:
        """Add grammar PDF…: another volume into the open project; with none open, or the demo, :meth:`open_pdf`."""
        current = self.state.project_path
        if self.project is None or current is None or projects.is_demo_project(current):
            return self.open_pdf(pdf_path)
        open_grammar.remember_pdf_folder(self.store, Path(pdf_path))
        return self.ingest(Path(pdf_path), current)

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def accepts(paths: Iterable[Path]) -> bool:
        """True when a drop holds a grammar PDF or a project file."""
        return any(p.suffix.lower() == ".pdf" or p.suffix == PROJECT_SUFFIX for p in paths)

    def drop(self, paths: Iterable[Path]) -> bool:
        """Open the first dropped PDF as a grammar (:meth:`open_pdf`) or the first dropped project; true when taken."""
        for path in paths:
            if path.suffix.lower() == ".pdf":
                self.open_pdf(path)
                return True
            if path.suffix == PROJECT_SUFFIX:
                return self.open(path)
        return False

