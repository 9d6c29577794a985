"""The profile dock: where the :class:`gui.profile_view.ProfileView` sits in the window, and how big it opens.

Why a module: a dock added with no size gets its widget's minimum height, which at 1280×800 left
the profile table about two rows.  The first time, the dock opens at the bottom over half the
window's height when the panels above leave that much room; when they do not (a short screen, the
offline banner shown), it opens floating beside the window at a size where the table is usable.
It can be moved, floated or docked again (double-click its title) or closed, and the window's
saved state brings back whatever the linguist made of it.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolBar

from gui.profile_view import ProfileView

SHARE_OF_HEIGHT = 0.5  # of the window, the first time the dock opens
MIN_HEIGHT = 300  # the two rows of controls, the table header and ~8 rows
PLACED_KEY = "window/profileDockPlaced"
FLOATING_SIZE = QSize(1100, 560)  # about 20 rows of the table


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
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    placed = str(store.value(PLACED_KEY, "")) == "1"
    if placed and window.restoreDockWidget(dock):
        dock.show()
        return dock
    store.setValue(PLACED_KEY, "1")
    dock.show()
    wanted = max(MIN_HEIGHT, int(window.height() * SHARE_OF_HEIGHT))
    if room_below(window) >= MIN_HEIGHT:
        window.resizeDocks([dock], [min(wanted, room_below(window))], Qt.Orientation.Vertical)
    else:
        dock.setFloating(True)
        size = QSize(min(FLOATING_SIZE.width(), window.width()), FLOATING_SIZE.height())
        centre = window.frameGeometry().center()
        dock.setGeometry(QRect(QPoint(centre.x() - size.width() // 2, centre.y() - size.height() // 3), size))
    return dock


def room_below(window: QMainWindow) -> int:
    """Height a bottom dock may take before the panels above it reach their minimum sizes."""
    chrome = window.menuBar().height() + window.statusBar().height()
    chrome += sum(bar.height() for bar in window.findChildren(QToolBar) if bar.isVisible() and bar.parent() is window)
    central = window.centralWidget()
    return window.height() - chrome - (central.minimumSizeHint().height() if central is not None else 0)
