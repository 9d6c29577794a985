"""Qt calls must not eat references to None (PySide6 6.12.0 on Python 3.11 did, and the app aborted).

With PySide6-Essentials 6.12.0 on CPython 3.11 every call of a Qt method that returns nothing
handed back ``None`` without a reference: 1,000 ``QLabel.setText`` calls took 1,000 away, and after
a few thousand calls CPython aborted with "Fatal Python error: none_dealloc" (the Sample window's
heatmap makes ~100,000 such calls per repaint; a long session of the main window gets there too).
requirements.txt pins a build without the bug; this test fails on any build that has it.  Python
3.12+ makes None immortal, where the count cannot be observed this way.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QLabel

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12 on")

CALLS = 2_000


def test_void_qt_calls_keep_none_alive(qtbot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    before = sys.getrefcount(None)
    for _ in range(CALLS):
        label.setText("x")  # a widget method returning void
    painter = QPainter(image)
    try:
        for _ in range(CALLS):
            painter.setPen(QPen(QColor("red")))  # a painter method returning void, as every figure paints
            painter.drawRect(0, 0, 2, 2)
    finally:
        painter.end()
    lost = before - sys.getrefcount(None)
    assert lost < CALLS // 10, f"{lost} references to None lost over {3 * CALLS} Qt calls"
