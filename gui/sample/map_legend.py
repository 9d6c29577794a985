"""The Sample map's symbols and legend: WALS-style shapes, and the key of what the points' colours mean.

The map colours its points by the chosen feature's value (the databases' own colours, see
:mod:`gui.sample.palette`), or, on request, by family or macroarea (a qualitative palette, the
commonest groups first; the rest share grey).  The legend lists each colour with its label and the
number of languages, then how a point's shape reads.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPolygonF

from core.sample.view_data import UNKNOWN, SampleView
from gui.sample.palette import UNKNOWN_COLOUR, ValuePalette

LEGEND_ROW = 18
RADIUS = 5.5
GROUP_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                 "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d")
OTHER_COLOUR = "#b0b0b0"
VALUE, FAMILY, MACROAREA = "value", "family", "macroarea"
COLOUR_MODES = (VALUE, FAMILY, MACROAREA)


def group_of(language, mode: str) -> str:
    return (language.family if mode == FAMILY else language.macroarea) or "(unknown)"


def group_colours(view: SampleView, mode: str) -> dict[str, QColor]:
    """Family or macroarea -> colour: the commonest groups first, each its own colour; the rest grey."""
    counts: dict[str, int] = {}
    for language in view.languages:
        if language.has_coordinates:
            key = group_of(language, mode)
            counts[key] = counts.get(key, 0) + 1
    ordered = sorted(counts, key=lambda k: (-counts[k], k))
    return {k: QColor(GROUP_COLOURS[i] if i < len(GROUP_COLOURS) else OTHER_COLOUR) for i, k in enumerate(ordered)}


def legend_rows(view: SampleView | None, feature_id: str | None, mode: str,
                palette: ValuePalette) -> list[tuple[QColor, str, str, int]]:
    """(colour, shape, text, languages) of each legend entry ("" shape: the unknown triangle)."""
    if view is None:
        return []
    if mode != VALUE:
        colours = group_colours(view, mode)
        counts: dict[str, int] = {}
        for language in view.languages:
            if language.has_coordinates:
                counts[group_of(language, mode)] = counts.get(group_of(language, mode), 0) + 1
        return [(colour, "c", key, counts[key]) for key, colour in colours.items()]
    if feature_id is None:
        return []
    counts_by_code: dict[str | None, int] = {}
    for language in view.languages:
        cell = view.cell(language, feature_id)
        if cell is not None and cell.mark is not None:
            key = None if cell.mark == UNKNOWN else cell.code
            counts_by_code[key] = counts_by_code.get(key, 0) + 1
    codes = view.codes_of(feature_id)
    rows = []
    for code in codes:
        label = view.value_label(feature_id, code)
        text = label if label == code else f"{code} {label}"
        rows.append((palette.colour(feature_id, code, codes), palette.shape(feature_id, code), text,
                     counts_by_code.get(code, 0)))
    if None in counts_by_code:
        rows.append((QColor(UNKNOWN_COLOUR), "", "unknown (?)", counts_by_code[None]))
    return rows


def legend_height(rows: int) -> int:
    return 44 + LEGEND_ROW * ((rows + 2) // 3)


def paint_legend(painter: QPainter, area: QRectF, title: str, rows: list, mode: str) -> None:
    """The legend in ``area``: the title, the colours in three columns, then how to read a point."""
    font = QFont(painter.font())
    painter.setFont(font)
    metrics = QFontMetrics(font)
    painter.setPen(QColor("#000000"))
    painter.drawText(QRectF(area.left(), area.top(), area.width(), LEGEND_ROW),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                     metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(area.width())))
    column_width = area.width() / 3
    for i, (colour, shape, text, count) in enumerate(rows):
        x = area.left() + (i % 3) * column_width
        y = area.top() + LEGEND_ROW * (1 + i // 3) + LEGEND_ROW / 2
        centre = QPointF(x + RADIUS + 1, y)
        painter.setPen(QPen(QColor("#505050" if not shape else "#000000"), 1))
        painter.setBrush(colour)
        if shape:
            draw_symbol(painter, centre, shape)
        else:
            draw_triangle(painter, centre)
        painter.setPen(QColor("#000000"))
        label = f"{text} ({count})"
        painter.drawText(QRectF(x + 2 * RADIUS + 6, y - LEGEND_ROW / 2, column_width - 2 * RADIUS - 10, LEGEND_ROW),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(column_width - 2 * RADIUS - 10)))
    top = area.top() + LEGEND_ROW * (1 + (len(rows) + 2) // 3) + 2
    note = ("Filled: coded or accepted · ring: predicted only · grey triangle: unknown · small dot: not coded"
            " · red ring: the reference disagrees · a ring of points with a line: languages at one spot, spread"
            if mode == VALUE else
            "Each language in its group's colour · wheel: zoom · drag: pan · double-click: the sample's extent")
    painter.setPen(QColor("#505050"))
    painter.drawText(QRectF(area.left(), top, area.width(), LEGEND_ROW), Qt.AlignmentFlag.AlignLeft,
                     metrics.elidedText(note, Qt.TextElideMode.ElideRight, int(area.width())))


def draw_triangle(painter: QPainter, centre: QPointF, radius: float = RADIUS) -> None:
    painter.drawPolygon(QPolygonF([centre + QPointF(0, -radius), centre + QPointF(radius, radius * 0.8),
                                   centre + QPointF(-radius, radius * 0.8)]))


def draw_symbol(painter: QPainter, centre: QPointF, shape: str, radius: float = RADIUS) -> None:
    """A WALS-style symbol with the painter's pen and brush: circle, diamond, square or triangle."""
    if shape == "d":
        painter.drawPolygon(QPolygonF([centre + QPointF(0, -radius - 1), centre + QPointF(radius + 1, 0),
                                       centre + QPointF(0, radius + 1), centre + QPointF(-radius - 1, 0)]))
    elif shape == "s":
        painter.drawRect(QRectF(centre.x() - radius + 0.5, centre.y() - radius + 0.5, 2 * radius - 1, 2 * radius - 1))
    elif shape == "t":
        painter.drawPolygon(QPolygonF([centre + QPointF(0, -radius - 1), centre + QPointF(radius + 1, radius),
                                       centre + QPointF(-radius - 1, radius)]))
    else:
        painter.drawEllipse(centre, radius, radius)
