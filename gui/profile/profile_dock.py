"""The profile dock: where the :class:`gui.profile.profile_view.ProfileView` sits in the window, and how big it opens.

Why a module: a dock added with no size gets its widget's minimum height, and a dock at the bottom
takes its height from every panel above it.  At 1280×800 that left the evidence list about 1.5
rows (and the profile table two).  So the first time, the dock opens at the bottom only when the
window is tall enough for the panels above to keep the height they ask for (their size hint) and
the dock still gets :data:`MIN_HEIGHT`; otherwise it opens floating over the left of the window
(the feature list and the page), leaving the value, coding and evidence column to the right as it
was, so a double-clicked row shows its evidence beside the profile.  It can be moved, floated or
docked again (double-click its title) or closed, and the window's saved state brings back whatever
the linguist made of it.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QStyle, QToolBar

from gui.profile.profile_view import ProfileView

SHARE_OF_HEIGHT = 0.5  # of the window, the first time the dock opens at the bottom
MIN_HEIGHT = 300  # the two rows of controls, the table header and ~8 rows
# "…Placed2": the first default (at the bottom whenever the panels kept their *minimum*) left the evidence list
# 1.5 rows at 1280×800, and the saved state kept it there; a new key places the dock once more by today's rule.
PLACED_KEY = "window/profileDockPlaced2"
FLOATING_SIZE = QSize(1100, 560)  # at most: about 20 rows of the table
FLOATING_MIN_WIDTH = 560  # the seven columns, the names elided
FLOATING_SHARE_OF_WIDTH = 0.55  # of the window: the feature list and the page, not the column to their right
FLOATING_SHARE_OF_HEIGHT = 0.6  # of the window, with the table's ~12 rows at 1280×800


def dock_profile(window: QMainWindow, view: ProfileView, store: QSettings) -> QDockWidget:
    """Put ``view`` in a dock at the bottom of ``window`` (or where the saved state had it), sized to be used.

    ``store`` says whether the dock was ever placed: only then does the window's saved state know it
    (Qt's ``restoreDockWidget`` says true for a dock the state never held).
    """
    dock = QDockWidget("Profile and export", window)
    dock.setObjectName("profileDock")
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    dock.setWidget(view)
    view.setMinimumHeight(MIN_HEIGHT - 40)
    return place_dock(window, dock, store, PLACED_KEY)


def place_dock(window: QMainWindow, dock: QDockWidget, store: QSettings, placed_key: str) -> QDockWidget:
    """Show ``dock`` where the person left it (the window's saved state), else by the rule above.

    The two-coder queue opens by the same rule (:mod:`gui.sample.disagreements`): docked at the
    bottom with no size, it left the value and the evidence one row each at 1280×800.
    """
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    placed = str(store.value(placed_key, "")) == "1"
    if placed and window.restoreDockWidget(dock):
        dock.show()
        return dock
    store.setValue(placed_key, "1")
    room = room_below(window)
    if room >= MIN_HEIGHT:
        dock.show()
        wanted = max(MIN_HEIGHT, int(window.height() * SHARE_OF_HEIGHT))
        window.resizeDocks([dock], [min(wanted, room)], Qt.Orientation.Vertical)
    else:
        dock.setFloating(True)
        dock.setGeometry(floating_geometry(window))
        dock.show()
    return dock


def room_below(window: QMainWindow) -> int:
    """Height a bottom dock may take while the panels above keep the height they ask for (their size hint).

    Not their minimum: at their minimum the evidence list shows one or two rows.
    """
    chrome = window.menuBar().height() + window.statusBar().height()
    chrome += sum(bar.height() for bar in window.findChildren(QToolBar) if bar.isVisible() and bar.parent() is window)
    chrome += window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, window)
    central = window.centralWidget()
    return window.height() - chrome - (central.sizeHint().height() if central is not None else 0)


def floating_geometry(window: QMainWindow) -> QRect:
    """Where the floating dock opens: over the left of the window, down to its status bar, in screen coordinates."""
    width = min(FLOATING_SIZE.width(), max(FLOATING_MIN_WIDTH, int(window.width() * FLOATING_SHARE_OF_WIDTH)))
    height = min(FLOATING_SIZE.height(), max(MIN_HEIGHT, int(window.height() * FLOATING_SHARE_OF_HEIGHT)))
    bottom_left = window.mapToGlobal(QPoint(0, window.height() - window.statusBar().height()))
    return QRect(QPoint(bottom_left.x(), bottom_left.y() - height), QSize(width, height))
