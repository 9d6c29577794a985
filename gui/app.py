"""Starting the desktop app: the QApplication, the window, and which project to show first.

With no argument the app opens the last project; on a first run it builds the demo project
(a generated sample grammar of an invented language, see :mod:`core.demo`) and shows WALS 81A
on it, so a newcomer sees retrieval and highlights at once, with no key and no download.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from core.store import PROJECT_SUFFIX, open_project, repository
from gui.common import projects

APP_NAME = "GrammarLens"
DEMO_FEATURE = "81A"


def make_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication (created once), named so QSettings and data folders land in one place."""
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0], *(argv or [])])
    app.setOrganizationName(APP_NAME)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    # garbage is collected on this thread only: freed in a worker, a Qt object can deadlock the window
    from gui.common.gui_collector import install

    install(app)
    # torch's import holds the GIL for seconds at a time: the app loads reranker models in a child
    # process so that the window never freezes (the CLI keeps them in-process)
    from core.retrieval.dense import use_model_process

    use_model_process(True)
    return app


def demo_ready(path: Path) -> bool:
    """True when the demo project exists and holds its grammar (whose PDF is still there)."""
    if not path.exists():
        return False
    try:
        with open_project(path) as project:
            documents = repository.list_documents(project)
    except Exception:
        return False
    return bool(documents) and all(Path(d.path).exists() for d in documents)


def build_demo_project(folder: Path | None = None) -> Path:
    """Generate the sample grammar and ingest it into a fresh demo project; returns the project path.

    Takes well under a second (a nine-page PDF), so the first start does it before showing the window.
    """
    from core.demo import DEMO_FILE_NAME, DEMO_LANGUAGE, write_demo_grammar
    from core.ingest import ingest_pdf
    from core.store import create_project

    target = (folder / projects.DEMO_PROJECT_NAME) if folder else projects.demo_project_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    pdf = write_demo_grammar(target.parent / DEMO_FILE_NAME)
    with create_project(target) as project:
        ingest_pdf(project, pdf, language=DEMO_LANGUAGE)
    return target


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="grammarlens", description="Open the GrammarLens desktop app.")
    parser.add_argument("path", nargs="?", help=f"a project ({PROJECT_SUFFIX}) to open, or a grammar PDF to open "
                        "in its own project beside it (made and read the first time)")
    parser.add_argument("--demo", action="store_true", help="open the demo project (rebuilt if missing)")
    parser.add_argument("--quit-after", type=float, metavar="SECONDS",
                        help="close the window after SECONDS (smoke tests of the frozen app, packaging/)")
    return parser.parse_args(argv)


def run_app(argv: list[str]) -> int:
    """Open the main window and run the event loop; returns the exit code."""
    args = parse_args(argv)
    app = make_application()
    from gui.common.error_reporting import install_exception_hooks
    from gui.window.main_window import MainWindow
    from gui.window.quitting import leave_now

    store = QSettings()
    window = MainWindow(store)
    install_exception_hooks(window.show_error)  # an exception nobody caught: the window's error dialog, not stderr
    window.show()
    if args.path:
        path = Path(args.path).expanduser()
        if path.suffix.lower() == ".pdf":
            window.open_pdf(path)  # its own project beside it (opened, or made and read)
        else:
            window.open_project(path)
    else:
        last = None if args.demo else projects.startup_project(store)
        if last is None:
            demo = projects.demo_project_path()
            if not demo_ready(demo):
                demo = build_demo_project()
            window.open_project(demo, feature=DEMO_FEATURE)  # first run: show 81A at once
        else:
            window.open_project(last)
    if args.quit_after is not None:  # closing (not quitting) also exercises the window's clean shutdown
        QTimer.singleShot(int(args.quit_after * 1000), window.close)
    code = int(app.exec())
    leave_now(window.runner, code)  # a job that would not stop (a slow server's answer) never holds the exit
    return code
