"""At 1280×800 the description, the value and eight evidence rows stay readable with a dock open (issue 29).

Measured on the real window, offscreen: the evidence table's viewport over its row height, the
value list showing every value of the feature without scrolling, the description's viewport in
lines.  Screenshots of the window with the profile dock and with the two-coder queue are left in
/tmp for a person to look at.
"""

from __future__ import annotations

from PySide6.QtGui import QPainter

from tests.fixtures_two_coders import SLOW_MS, open_compared_queue

WAIT_MS = 20_000
DOCK_SHOT = "/tmp/grammarlens-1280x800-dock-open.png"
QUEUE_SHOT = "/tmp/grammarlens-1280x800-queue-open.png"


def _evidence_rows(window) -> float:
    table = window.evidence_panel.table
    return table.viewport().height() / table.verticalHeader().defaultSectionSize()


def _description_lines(window) -> float:
    text = window.coding_panel.description
    return text.viewport().height() / text.fontMetrics().lineSpacing() if text.isVisible() else 0.0


def _values_all_shown(window) -> bool:
    values = window.coding_panel.values
    last = values.visualItemRect(values.item(values.count() - 1))
    return values.count() > 0 and values.viewport().rect().contains(last)


def _shot(window, path: str) -> None:
    """The window with its floating docks drawn where they float (each is a window of its own)."""
    from PySide6.QtWidgets import QDockWidget

    picture = window.grab()
    painter = QPainter(picture)
    for dock in window.findChildren(QDockWidget):
        if dock.isVisible() and dock.isFloating():
            painter.drawPixmap(window.mapFromGlobal(dock.mapToGlobal(dock.rect().topLeft())), dock.grab())
    painter.end()
    assert picture.save(path)


def _readable(qtbot, window) -> tuple[float, float, bool]:
    window.coding_panel.describe_button.setChecked(True)
    qtbot.wait(150)
    return _evidence_rows(window), _description_lines(window), _values_all_shown(window)


def test_with_the_profile_dock_open(qtbot, main_window, demo_project) -> None:
    window = main_window
    window.resize(1280, 800)
    assert window.open_project(demo_project)
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        window.select_feature("81A")
    window.show_profile_view()
    qtbot.wait(200)
    rows, lines, values = _readable(qtbot, window)
    _shot(window, DOCK_SHOT)
    assert rows >= 8 and lines >= 7 and values, (rows, lines, values)


def test_with_the_two_coder_queue_open(qtbot, main_window, two_coder_files) -> None:
    a, b, _ids = two_coder_files
    window = main_window
    window.resize(1280, 800)
    open_compared_queue(qtbot, window, a, b)
    qtbot.waitUntil(lambda: window.state.feature is not None and window.state.feature.id == "GB107", timeout=SLOW_MS)
    qtbot.wait(300)
    rows, lines, values = _readable(qtbot, window)
    _shot(window, QUEUE_SHOT)
    assert rows >= 8 and lines >= 7 and values, (rows, lines, values)


def test_the_splitters_the_coder_set_are_kept(qtbot, main_window, gui_store) -> None:
    """Sizes set by hand come back in the next session (at a size the offscreen screen, 800×800, can restore)."""
    from gui.window.main_window import MainWindow

    window = main_window
    window.resize(780, 700)
    qtbot.wait(50)
    total = sum(window.right_splitter.sizes())
    window.right_splitter.setSizes([90, total - 90 - 300, 300])  # more for the value and description
    window.main_splitter.setSizes([150, 200, sum(window.main_splitter.sizes()) - 350])
    kept = (window.right_splitter.sizes(), window.main_splitter.sizes())
    window.close()  # saves the layout
    again = MainWindow(gui_store)
    qtbot.addWidget(again)
    again.show()
    qtbot.wait(50)
    assert again.size().toTuple() == (780, 700)
    assert (again.right_splitter.sizes(), again.main_splitter.sizes()) == kept
    again.close()
