"""Project → Restore from backup… (issue 19): the backups listed with when, why and how big; a restore asks
first, keeps the current state as a backup too, and the window shows the restored project; a project too
damaged to open can be restored from the same menu."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core import coding
from core.store import open_project
from core.store.backups import list_backups, make_backup
from gui.project.restore_dialog import RestoreDialog, describe_last_act, describe_reason, describe_size

SLOW_MS = 20_000


def _code(qtbot, window, value: str) -> None:
    with qtbot.waitSignal(window.projects.changes.changed, timeout=5000):
        assert window.coding.set_value(value)


def _open_dialog(qtbot, window) -> RestoreDialog:
    window.act_restore.trigger()
    dialog = window.findChild(RestoreDialog)
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    return dialog


def _confirm(qtbot, window, dialog: RestoreDialog) -> object:
    """Restore… then Restore in the question; returns the backup of the state that was replaced."""
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    box = dialog.confirm_box
    assert box is not None and box.isVisible()
    assert "kept as a backup" in box.informativeText()  # the person knows the current state is not lost
    restore = next(b for b in box.buttons() if b.text() == "Restore")
    with qtbot.waitSignal(window.projects.restored, timeout=SLOW_MS) as restored:
        qtbot.mouseClick(restore, Qt.MouseButton.LeftButton)
    return restored.args[0]


def _result_box(qtbot, window) -> QMessageBox:
    """The box a restore ends with (window-modal, not blocking)."""
    def shown() -> list[QMessageBox]:
        return [b for b in window.findChildren(QMessageBox) if b.windowTitle() == "Backup restored" and b.isVisible()]

    qtbot.waitUntil(lambda: bool(shown()), timeout=5000)
    return shown()[0]


def test_restoring_a_backup_brings_back_the_first_decision_and_keeps_the_second_as_a_backup(
        qtbot, main_window, demo_project) -> None:
    window, panel = main_window, main_window.coding_panel
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    _code(qtbot, window, "1")  # the first decision ...
    taken = make_backup(window.projects.project, "manual")  # ... is in the backup ...
    _code(qtbot, window, "2")  # ... the second is not
    assert panel.view.current_code == "2"

    dialog = _open_dialog(qtbot, window)
    listed = [dialog.table.topLevelItem(i) for i in range(dialog.table.topLevelItemCount())]
    assert [b.path for b in dialog.backups] == [b.path for b in list_backups(demo_project)]
    assert dialog.backups[0].path == taken.path  # newest first
    assert [dialog.table.headerItem().text(i) for i in range(5)] == ["Taken", "Acts", "Last act", "Why", "Size"]
    assert listed[0].text(3) == describe_reason("manual") == "made by hand"
    assert listed[0].text(4) == describe_size(taken.size) and listed[0].text(0).startswith("20")
    # what each backup holds: the backup has one act fewer than the project now, and its last act is the first code
    assert taken.revision > 0 and listed[0].text(1) == str(taken.revision)
    assert listed[0].text(2) == describe_last_act(taken) and listed[0].text(2).startswith("20")
    assert dialog.chosen() == dialog.backups[0] and dialog.restore_button.isEnabled()
    safety = _confirm(qtbot, window, dialog)
    box = _result_box(qtbot, window)  # what was restored, and where the state it replaced was kept
    assert box.text().startswith(f"{demo_project.name} is now what it was in the backup taken")
    assert f"holding {taken.revision} acts" in box.text()
    assert f"{safety.path.name}\nin {safety.path.parent}" in box.informativeText()
    assert "To undo the restore" in box.informativeText()
    box.accept()

    # the window shows the project as it was at the backup: 81A is 1, the second decision is gone
    assert safety is not None and safety.reason == "before-restore" and safety.path.exists()
    assert list_backups(demo_project)[0].path == safety.path
    assert window.state.project_path == demo_project and window.projects.project is not None
    qtbot.waitUntil(lambda: window.state.feature is not None and window.state.feature.id == "81A", timeout=5000)
    assert panel.view.current_code == "1" and len(panel.view.history) == 1
    assert "restored" in window.statusBar().currentMessage().lower()
    with open_project(demo_project) as project:
        assert coding.current(project, "81A").value == "1" and len(coding.history(project, "81A")) == 1
    with open_project(safety.path, readonly=True) as kept:  # the state replaced: the second decision
        assert coding.current(kept, "81A").value == "2"

    # the window goes on working on the restored project
    _code(qtbot, window, "3")
    assert panel.view.current_code == "3"


def test_a_project_too_damaged_to_open_is_restored_from_the_same_menu(qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    _code(qtbot, window, "1")
    make_backup(window.projects.project, "manual")
    assert window.runner.shutdown(10_000)  # no job keeps a connection on it
    window.projects.close()
    size = demo_project.stat().st_size
    with open(demo_project, "r+b") as damaged:  # the window has it closed: no lock of ours to lose
        damaged.seek(size // 2)
        damaged.write(os.urandom(size // 4))
    with qtbot.waitSignal(window.errorShown, timeout=5000):
        assert not window.open_project(demo_project)
    window.last_message_box.close()
    assert window.state.project_path is None

    dialog = _open_dialog(qtbot, window)
    assert dialog.project_path == demo_project and dialog.backups[0].reason == "manual"
    assert _confirm(qtbot, window, dialog) is None  # no backup of a damaged file: it was moved aside instead
    box = _result_box(qtbot, window)
    (aside,) = [p for p in demo_project.parent.iterdir()
                if p.name.startswith(f"{demo_project.name}.damaged-") and not p.name.endswith(("-wal", "-shm"))]
    assert "moved aside, unchanged" in box.informativeText()
    assert f"{aside.name}\nin {aside.parent}" in box.informativeText()
    box.accept()
    assert window.state.project_path == demo_project
    assert any(p.name.startswith(f"{demo_project.name}.damaged-") for p in demo_project.parent.iterdir())
    qtbot.waitUntil(lambda: window.coding_panel.view.current_code == "1", timeout=5000)


def test_without_backups_the_dialog_says_when_they_are_made(qtbot, main_window, tmp_path) -> None:
    from core.store import create_project

    path = tmp_path / "fresh.grammarlens"
    create_project(path).close()
    dialog = RestoreDialog(path, main_window)
    qtbot.addWidget(dialog)
    assert dialog.backups == [] and not dialog.table.isVisible() and not dialog.restore_button.isEnabled()
    assert dialog.ask_to_restore() is None and dialog.confirm_box is None


def test_an_open_project_is_backed_up_every_hour(qtbot, main_window, demo_project) -> None:
    from datetime import timedelta

    window, controller = main_window, main_window.projects
    assert window.open_project(demo_project)
    assert controller.backup_timer.isActive()
    assert [b.reason for b in list_backups(demo_project)] == ["open"]  # opening took one
    op = controller.backup_if_due()
    qtbot.waitUntil(lambda: not op.running, timeout=5000)
    assert len(list_backups(demo_project)) == 1  # not due yet
    controller.backup_interval = timedelta(0)  # an hour later
    op = controller.backup_if_due()
    qtbot.waitUntil(lambda: not op.running, timeout=5000)
    assert [b.reason for b in list_backups(demo_project)] == ["hourly", "open"]
    controller.close()
    assert not controller.backup_timer.isActive()
