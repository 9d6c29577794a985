"""The real window on the real X11 platform (xcb) under Xvfb, as a person's machine runs it.

Every other GUI test runs on Qt's offscreen platform, which needs no system library: a machine
lacking the xcb plugin's libraries (libxcb-icccm4, libxcb-keysyms1, libxcb-cursor0 …) passed them
all while ``bash scripts/run.sh`` aborted there.  These tests start the app with
``QT_QPA_PLATFORM=xcb`` on a private Xvfb server, so a missing library fails them.  Under CI
(``CI=true``) a missing Xvfb fails too (``scripts/setup.sh --tests`` installs it); elsewhere they
are skipped with the command that installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.process_locks import private_x_server

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "screenshots"

# Runs inside the X session: the app's own window on the demo project, reporting the platform in use
# and the evidence it shows, and saving what the X server shows (a grab of the whole screen).
_DRIVER = r"""
import json, sys, time
from pathlib import Path
from PySide6.QtCore import QSettings
from gui.app import build_demo_project, make_application
from gui.window.main_window import MainWindow
app = make_application()
started = time.monotonic()
window = MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
window.resize(1280, 800)
window.show()
window.open_project(build_demo_project(Path(sys.argv[2])), feature="81A")
deadline = time.monotonic() + 90
while window.evidence_panel.model.rowCount() == 0 and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.02)
shown = time.monotonic() - started
for _ in range(50):  # let the page and its highlights paint
    app.processEvents()
    time.sleep(0.02)
app.primaryScreen().grabWindow(0).save(sys.argv[3])
print(json.dumps({"platform": app.platformName(), "evidence_rows": window.evidence_panel.model.rowCount(),
                  "seconds_to_evidence": round(shown, 2), "title": window.windowTitle()}))
window.close()
"""


# A new user's first session, run through the app's real start-up (gui.app.run_app, as `main.py PDF` does) on a
# grammar PDF given on the command line: the user waits for the evidence, starts a Grambank coding pass with
# Ctrl+K, types five values and Enter each, and quits.  The second session is `main.py` without arguments.
_GUARD = r"""
import os, traceback

def guarded(step):  # a failing step ends the process at once (the app's error dialog would wait for a click)
    try:
        step()
    except BaseException:
        traceback.print_exc()
        os._exit(3)
"""

_FIRST_SESSION = _GUARD + r"""
import json, sys
from PySide6.QtCore import QTimer, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from gui.app import make_application, run_app
from gui.window.main_window import MainWindow

pdf, shot = sys.argv[1], sys.argv[2]
app = make_application()
stored = []

def wait_until(condition, seconds):
    for _ in range(int(seconds * 50)):
        if condition():
            return True
        QTest.qWait(20)
    raise TimeoutError(f"timed out waiting {seconds} s")

def user():
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
    wait_until(lambda: window.state.has_grammar and window.state.project_path.suffix == ".grammarlens", 240)
    window.activateWindow()
    wait_until(window.isActiveWindow, 10)
    QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    bar = window.pass_bar
    wait_until(bar.hasFocus, 10)
    bar.set_combo.setCurrentText("grambank")
    bar.set_combo.textActivated.emit("grambank")  # what choosing it in the list does
    bar.setFocus()
    for _ in range(5):
        wait_until(lambda: window.evidence_panel.model.rowCount() > 0, 120)  # the user reads, then decides
        feature = window.state.feature
        code = feature.values[-1][0]
        QTest.keyClicks(bar, code)
        QTest.keyClick(bar, Qt.Key.Key_Return)
        wait_until(lambda: window.state.feature.id != feature.id, 30)
        stored.append([feature.id, code])
    app.primaryScreen().grabWindow(0).save(shot)
    print(json.dumps({"project": str(window.state.project_path), "stored": stored,
                      "platform": app.platformName()}), flush=True)
    window.close()

QTimer.singleShot(0, lambda: guarded(user))
sys.exit(run_app([pdf]))
"""

_SECOND_SESSION = _GUARD + r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from gui.app import make_application, run_app
from gui.window.main_window import MainWindow
from core.store.decisions import current_decisions

app = make_application()

def look():
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
    for _ in range(3000):
        if window.projects.project is not None and window.state.project_path is not None:
            break
        QTest.qWait(20)
    project = window.projects.project
    found = {fid: d.code for fid, d in current_decisions(project).items()} if project else {}
    print(json.dumps({"project": str(window.state.project_path), "found": found, "title": window.windowTitle()}),
          flush=True)
    window.close()

QTimer.singleShot(0, lambda: guarded(look))
sys.exit(run_app([]))
"""


@pytest.fixture(scope="module")
def x_display():
    """A private Xvfb server for this module's tests."""
    with private_x_server() as display:
        if display is None:
            if os.environ.get("CI") == "true":
                pytest.fail("CI must test the real window: Xvfb is missing (scripts/setup.sh --tests installs it)")
            pytest.skip("needs Xvfb: sudo apt-get install xvfb (scripts/setup.sh --tests does it as root)")
        yield display


def _x_env(display: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700, exist_ok=True)
    return env


def _not_blank(png: Path) -> bool:
    from PySide6.QtGui import QImage

    image = QImage(str(png))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)}
    return not image.isNull() and len(colours) > 20


def test_the_window_shows_the_demo_evidence_on_xcb(x_display: str, tmp_path: Path, qapp) -> None:
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / "xcb-demo-window.png"
    done = subprocess.run([sys.executable, "-c", _DRIVER, str(tmp_path / "settings.ini"), str(tmp_path / "demo"),
                           str(shot)], cwd=REPO, env=_x_env(x_display, tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"\nQt platform plugin in use: {report['platform']} (Xvfb {x_display}); {report}")
    assert report["platform"] == "xcb"
    assert report["evidence_rows"] > 0
    assert _not_blank(shot)


@pytest.mark.slow
def test_run_sh_from_a_fresh_clone_opens_the_window_on_xcb(x_display: str, tmp_path: Path, qapp) -> None:
    """The README's first command, from a clone of this checkout (its .venv reused: pip has nothing to do)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)], check=True, timeout=120)
    (clone / ".venv").symlink_to(REPO / ".venv")
    (clone.parent / "shared").symlink_to(REPO.parent / "shared")
    env = _x_env(x_display, tmp_path)
    app = subprocess.Popen(["bash", "scripts/run.sh", "gui", "--quit-after", "25"], cwd=clone, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / "xcb-run-sh.png"
    grab = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
            "app.primaryScreen().grabWindow(0).save(sys.argv[1])\n")
    time.sleep(15)  # set-up, start-up and the demo's first evidence
    grabbed = subprocess.run([sys.executable, "-c", grab, str(shot)], env=env, capture_output=True, text=True,
                             timeout=60)
    out, err = app.communicate(timeout=240)
    assert app.returncode == 0, err[-3000:]
    assert "could not" not in err.lower() or "platform plugin" not in err.lower(), err[-3000:]
    assert grabbed.returncode == 0, grabbed.stderr
    assert _not_blank(shot)


@pytest.mark.slow
def test_a_new_user_opens_a_pdf_codes_five_features_by_keys_quits_and_finds_them(x_display: str, tmp_path: Path,
                                                                                  qapp) -> None:
    grammar = REPO.parent / "shared" / "grammars" / "354_Iranian_Armenian.pdf"
    if not grammar.is_file():
        pytest.skip(f"needs {grammar}")
    pdf = tmp_path / "books" / "armenian.pdf"  # the user's own folder: the project is made beside the PDF
    pdf.parent.mkdir()
    shutil.copy(grammar, pdf)
    env = _x_env(x_display, tmp_path)
    SHOTS.mkdir(exist_ok=True)
    first = subprocess.run([sys.executable, "-c", _FIRST_SESSION, str(pdf), str(SHOTS / "xcb-first-session.png")],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    session = json.loads(first.stdout.strip().splitlines()[-1])
    assert session["platform"] == "xcb"
    assert session["project"] == str(pdf.with_suffix(".grammarlens"))
    assert len(session["stored"]) == 5
    second = subprocess.run([sys.executable, "-c", _SECOND_SESSION], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-3000:]
    again = json.loads(second.stdout.strip().splitlines()[-1])
    assert again["project"] == session["project"]  # the app reopened the user's project by itself
    assert {fid: again["found"].get(fid) for fid, _ in session["stored"]} == dict(map(tuple, session["stored"]))
