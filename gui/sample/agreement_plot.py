"""Agreement bars: per feature, the share of equal values and Cohen's kappa, one panel per comparison.

A panel compares our sample with the reference (Grambank/WALS) or coder A with coder B
(:class:`core.sample.view_data.AgreementSeries`).  Each feature has two bars on a common axis:
agreement (blue, 0..1) and kappa (orange, -1..1; "n/a" where kappa is undefined: one class only
on both sides), with the number of values compared.  Drawing is :meth:`paint_figure`, shared with
the PNG/SVG export.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from core.sample.view_data import AgreementSeries
from gui.sample.figures import paint_on_widget

AGREEMENT_COLOUR, KAPPA_COLOUR = QColor("#3b6fb6"), QColor("#e08a2c")
ROW = 22
LABEL_WIDTH = 150
TITLE = 26
WIDTH = 860
TICKS = 40  # room for the axis ticks under a panel


class AgreementPlot(QWidget):
    """Bars of one or more :class:`AgreementSeries`; its size is the figure's (put it in a scroll area)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series: list[AgreementSeries] = []
        self.message = "No comparison yet: choose a reference folder, or a second coder's folder."
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Agreement per feature")
        self.setFixedSize(self.figure_size())

    def set_series(self, series: list[AgreementSeries], message: str = "") -> None:
        self.series = [s for s in series if s.rows]
        self.message = message or self.message
        self.setFixedSize(self.figure_size())
        self.update()

    def figure_size(self) -> QSize:
        if not self.series:
            return QSize(WIDTH, 120)
        return QSize(WIDTH, 30 + sum(TITLE + len(s.rows) * ROW + TICKS for s in self.series))

    def figure_title(self) -> str:
        return "Agreement per feature"

    def axis_low(self) -> float:
        """The axis starts at 0, or lower (in quarter steps) when a kappa is negative."""
        kappas = [r.kappa for s in self.series for r in s.rows if r.kappa is not None]
        low = min([0.0, *kappas])
        return max(-1.0, math.floor(low * 4) / 4)

    def paintEvent(self, _event) -> None:
        paint_on_widget(self, self.paint_figure)

    def paint_figure(self, painter: QPainter, size: QSize) -> None:
        font = QFont(painter.font())
        painter.setFont(font)
        metrics = QFontMetrics(font)
        if not self.series:
            painter.setPen(QColor("#505050"))
            painter.drawText(QRectF(0, 0, size.width(), size.height()), Qt.AlignmentFlag.AlignCenter, self.message)
            return
        low = self.axis_low()
        left, right = 8 + LABEL_WIDTH, size.width() - 180
        x_of = lambda v: left + (v - low) / (1.0 - low) * (right - left)  # noqa: E731
        self._legend(painter, 8)
        top = 30.0
        for series in self.series:
            painter.setPen(QColor("#000000"))
            bold = QFont(font)
            bold.setBold(True)
            painter.setFont(bold)
            painter.drawText(QRectF(8, top, size.width() - 16, TITLE), Qt.AlignmentFlag.AlignVCenter, series.title)
            painter.setFont(font)
            top += TITLE
            bottom = top + len(series.rows) * ROW
            for tick in [t / 4 for t in range(int(low * 4), 5)]:
                x = x_of(tick)
                painter.setPen(QPen(QColor("#000000" if tick == 0 else "#dddddd"), 1))
                painter.drawLine(int(x), int(top), int(x), int(bottom))
                painter.setPen(QColor("#505050"))
                painter.drawText(QRectF(x - 20, bottom + 2, 40, 14), Qt.AlignmentFlag.AlignCenter, f"{tick:g}")
            for i, row in enumerate(series.rows):
                y = top + i * ROW
                painter.setPen(QColor("#000000"))
                painter.drawText(QRectF(8, y, LABEL_WIDTH - 10, ROW), Qt.AlignmentFlag.AlignRight |
                                 Qt.AlignmentFlag.AlignVCenter,
                                 metrics.elidedText(row.feature_id, Qt.TextElideMode.ElideRight, LABEL_WIDTH - 10))
                self._bar(painter, x_of, y + 3, row.agreement, AGREEMENT_COLOUR)
                self._bar(painter, x_of, y + ROW / 2, row.kappa, KAPPA_COLOUR)
                agree = "n/a" if row.agreement is None else f"{row.agreement:.2f}"
                kappa = "n/a" if row.kappa is None else f"{row.kappa:.2f}"
                painter.setPen(QColor("#303030"))
                painter.drawText(QRectF(right + 6, y, size.width() - right - 8, ROW), Qt.AlignmentFlag.AlignVCenter,
                                 metrics.elidedText(f"{agree} · κ {kappa} · n={row.n}", Qt.TextElideMode.ElideRight,
                                                    int(size.width() - right - 8)))
            top = bottom + TICKS

    @staticmethod
    def _bar(painter: QPainter, x_of, y: float, value: float | None, colour: QColor) -> None:
        if value is None:
            return
        x0, x1 = x_of(0.0), x_of(value)
        painter.setPen(QPen(colour.darker(130), 1))
        painter.setBrush(colour)
        painter.drawRect(QRectF(min(x0, x1), y, max(abs(x1 - x0), 1.0), ROW / 2 - 4))

    def _legend(self, painter: QPainter, y: float) -> None:
        x = 8.0
        for colour, text in ((AGREEMENT_COLOUR, "agreement (share of equal values)"),
                             (KAPPA_COLOUR, "Cohen's kappa (n/a: one value only on both sides)")):
            painter.setPen(QPen(colour.darker(130), 1))
            painter.setBrush(colour)
            painter.drawRect(QRectF(x, y + 4, 14, 10))
            painter.setPen(QColor("#000000"))
            painter.drawText(QRectF(x + 20, y, 330, 18), Qt.AlignmentFlag.AlignVCenter, text)
            x += 340
