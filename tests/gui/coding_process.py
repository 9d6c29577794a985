"""A GrammarLens window in a process of its own, coding a pass as a person at the keyboard does.

Run by ``tests/gui/test_kill_during_coding.py``, which kills it with SIGKILL at a random moment::

    python -m tests.gui.coding_process PROJECT SETTINGS_INI SEED

It builds the app's own :class:`gui.window.main_window.MainWindow`, opens PROJECT, picks a random WALS feature
(seeded), starts the coding pass (Ctrl+K) and then, feature after feature, types a value's key and Enter
into the pass bar.  Before Enter it prints ``TRY <feature> <code>``; once the window shows that decision as
stored (the coding panel marks the code as the feature's current value) it prints
``ACK <feature> <code>``: what a person saw on screen and will expect to find after any crash.  No model is
loaded and no language model is configured (a light process: start-up is the cost).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtTest import QTest


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    project, settings, seed = Path(argv[0]), Path(argv[1]), int(argv[2])
    rng = random.Random(seed)
    from core import coding
    from gui.app import make_application
    from gui.window.main_window import MainWindow

    app = make_application()
    window = MainWindow(QSettings(str(settings), QSettings.Format.IniFormat))
    window.resize(1280, 800)
    window.show()
    bar, panel = window.pass_bar, window.coding_panel
    shown: set[tuple[str, str]] = set()

    def on_screen(view) -> None:  # runs after the panel showed ``view`` (connected after it)
        if view.feature is not None and panel.view is view and view.current_code is not None:
            shown.add((view.feature.id, view.current_code))

    window.coding.evidence.decisionChanged.connect(on_screen)

    def step() -> None:
        feature, view = window.state.feature, panel.view
        if feature is None or view.feature is None or view.feature.id != feature.id or not view.codable:
            QTimer.singleShot(5, step)  # the pass is still bringing the feature on screen
            return
        keys = [(key, code) for key, code, _label in view.options if len(key) == 1]
        key, code = rng.choice(keys)
        QTest.keyClicks(bar, key)
        if panel.selected_code() != code:
            say(f"ERROR key {key} selected {panel.selected_code()} not {code}")
            app.exit(3)
            return
        shown.clear()
        say(f"TRY {feature.id} {code}")
        QTest.keyClick(bar, Qt.Key.Key_Return)  # stores it and moves on to the next feature
        if (feature.id, code) in shown:
            say(f"ACK {feature.id} {code}")
        else:
            say(f"NOACK {feature.id} {code}: {window.statusBar().currentMessage()}")
        QTimer.singleShot(rng.randint(0, 20), step)

    def start() -> None:
        if window.catalog is None or window.state.project_path is None:
            QTimer.singleShot(5, start)
            return
        window.select_feature(rng.choice(coding.ordered_features(None, "wals")))  # a click in the list
        window.act_pass.trigger()  # Ctrl+K: the pass starts at the feature on screen, the bar takes the keys
        say(f"READY {window.state.feature.id}")
        step()

    if not window.open_project(project):
        say("ERROR cannot open the project")
        return 2
    start()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
