"""The sample's language × feature heatmap: one row per language, one column per feature.

How a cell reads (the legend under the grid says the same):

- **hand-coded** (coded or overridden by the coder): filled with the value's colour;
- **accepted** (the model's value, confirmed): filled, with a small dot in the middle;
- **predicted** only (the model's value, not reviewed): hatched in the value's colour, outlined;
- **unknown** ("?"): grey with a "?";
- **uncoded**: a pale grey square without a border (a coded 0, white, always has a dark border, and
  its digit once cells are large enough to hold one);
- the reference (Grambank/WALS) holds **another value**: a red corner, top right.

Under the status legend (drawn in a colour the grid itself uses) a **key of the value colours**
says what each colour means: Grambank's 0/1/2/3, and each WALS feature's values in WALS's colours.
Cells fit the window when the sample is shown (:meth:`HeatmapWidget.fit_to`, 14 to 36 pixels) and
zoom with Ctrl+wheel.  Rows sort by language name, macroarea, coverage or family; columns filter by
feature group.  Hovering a
cell says language, feature, value, status and coder; clicking it emits :attr:`cellActivated`
with (project path, feature id), which the main window opens.  Drawing is
:meth:`HeatmapWidget.paint_figure`, shared with the PNG/SVG export (see :mod:`gui.sample.figures`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QHelpEvent, QMouseEvent, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from core.sample.view_data import ACCEPTED, HAND, PREDICTED, UNKNOWN, SampleLanguage, SampleView
from gui.sample.figures import paint_on_widget
from gui.sample.palette import BORDER_COLOUR, DISAGREE_COLOUR, UNKNOWN_COLOUR, ValuePalette, text_colour_on

CELL = 14  # pixels a cell, gap included, at the smallest
MAX_CELL = 36
DIGITS_FROM = 18  # cells at least this big show their code
KEY_ROW = 16
MAX_KEY_FEATURES = 8  # WALS features listed in the value key (the rest: "and N more")
UNCODED_FILL = "#eeeeee"
GAP = 1
MARGIN = 8
HEADER = 64  # room for the rotated feature ids
LEGEND = 34
NAME_MAX = 200  # pixels of a language name at most
AREA_LABEL = 90  # room right of the grid for the macroarea names (rows sorted by macroarea)
STATUS_TEXT = {HAND: "coded by hand", ACCEPTED: "model's value, accepted", PREDICTED: "predicted (not reviewed)",
               UNKNOWN: "unknown (?)"}


class HeatmapWidget(QWidget):
    """The heatmap of a :class:`SampleView`; its size is the figure's (put it in a scroll area)."""

    cellActivated = Signal(str, str)  # project path, feature id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: SampleView | None = None
        self.palette_ = ValuePalette()
        self.sort_by = "name"
        self.group: str | None = None
        self.languages: list[SampleLanguage] = []
        self.features: list[str] = []
        self._codes: dict[str, list[str]] = {}
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Language by feature heatmap")
        self._font = QFont(self.font())
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() * 0.85))
        self._name_width = 60
        self.cell = CELL

    # ------------------------------------------------------------------ data
    def set_view(self, view: SampleView, palette: ValuePalette | None = None) -> None:
        self.view = view
        self.palette_ = palette or self.palette_
        self._codes = {f: view.codes_of(f) for f in view.feature_ids}
        self._relayout()

    def set_sort(self, by: str) -> None:
        self.sort_by = by
        self._relayout()

    def set_group(self, group: str | None) -> None:
        """Show only the features of ``group`` (None: all)."""
        self.group = group
        self._relayout()

    def set_cell(self, pixels: int) -> None:
        """Cells of ``pixels`` (gap included), within 14..36."""
        self.cell = max(CELL, min(MAX_CELL, int(pixels)))
        self._relayout()

    def fit_to(self, available: QSize) -> None:
        """The largest cells (14..36 px) with which the grid fits ``available`` (the scroll area's viewport)."""
        rows, columns = max(len(self.languages), 1), max(len(self.features), 1)
        free_w = available.width() - MARGIN * 2 - self._name_width - AREA_LABEL
        free_h = available.height() - MARGIN * 2 - HEADER - LEGEND - self._key_height()
        self.set_cell(min(free_w // columns, free_h // rows))

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_cell(self.cell + (2 if event.angleDelta().y() > 0 else -2))
            event.accept()
            return
        super().wheelEvent(event)

    def _relayout(self) -> None:
        view = self.view
        self.languages = view.sorted_languages(self.sort_by) if view else []
        self.features = view.features_in(self.group) if view else []
        metrics = QFontMetrics(self._font)
        widest = max((metrics.horizontalAdvance(lang.name) for lang in self.languages), default=40)
        self._name_width = min(NAME_MAX, widest + 6)
        self.setFixedSize(self.figure_size())
        self.update()

    # ------------------------------------------------------------------ geometry
    def figure_size(self) -> QSize:
        width = MARGIN * 2 + self._name_width + max(len(self.features), 1) * self.cell + AREA_LABEL
        height = MARGIN * 2 + HEADER + max(len(self.languages), 1) * self.cell + LEGEND + self._key_height()
        return QSize(max(width, 640), height)

    def figure_title(self) -> str:
        return "Sample: languages by features"

    def cell_rect(self, row: int, column: int) -> QRect:
        """Where cell (row, column) of the current order lies, in widget pixels (its filled part)."""
        x = MARGIN + self._name_width + column * self.cell
        y = MARGIN + HEADER + row * self.cell
        return QRect(x, y, self.cell - GAP, self.cell - GAP)

    def cell_at(self, pos: QPoint) -> tuple[SampleLanguage, str] | None:
        column = (pos.x() - MARGIN - self._name_width) // self.cell
        row = (pos.y() - MARGIN - HEADER) // self.cell
        if pos.x() < MARGIN + self._name_width or pos.y() < MARGIN + HEADER:
            return None
        if 0 <= row < len(self.languages) and 0 <= column < len(self.features):
            return self.languages[row], self.features[column]
        return None

    # ------------------------------------------------------------------ painting
    def paintEvent(self, _event) -> None:
        paint_on_widget(self, self.paint_figure)

    def paint_figure(self, painter: QPainter, size: QSize) -> None:
        painter.setFont(self._font)
        painter.setPen(QColor("#000000"))
        metrics = QFontMetrics(self._font)
        if self.view is None or not self.languages:
            painter.drawText(QRect(0, 0, size.width(), size.height()), Qt.AlignmentFlag.AlignCenter,
                             "No languages in this sample yet.")
            return
        for column, fid in enumerate(self.features):  # feature ids, rotated
            rect = self.cell_rect(0, column)
            painter.save()
            painter.translate(rect.center().x() + metrics.ascent() / 2 - 1, MARGIN + HEADER - 4)
            painter.rotate(-90)
            painter.drawText(0, 0, fid)
            painter.restore()
        previous_area = None
        for row, language in enumerate(self.languages):
            rect = self.cell_rect(row, 0)
            area = language.macroarea if self.sort_by == "macroarea" else language.family
            if self.sort_by in ("macroarea", "family") and area != previous_area:
                previous_area = area
                if row:  # a line between macroareas, their name at the row's end
                    painter.setPen(QPen(QColor("#404040"), 1))
                    painter.drawLine(MARGIN, rect.top() - 1, rect.left() + len(self.features) * self.cell,
                                     rect.top() - 1)
                painter.setPen(QColor("#404040"))
                painter.drawText(rect.left() + len(self.features) * self.cell + 4, rect.top() + self.cell - 4,
                                 area or f"no {self.sort_by}")
            name = metrics.elidedText(language.name, Qt.TextElideMode.ElideRight, self._name_width - 6)
            painter.setPen(QColor("#000000"))
            painter.drawText(QRect(MARGIN, rect.top(), self._name_width - 6, self.cell - GAP),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, name)
            for column, fid in enumerate(self.features):
                self._paint_cell(painter, self.cell_rect(row, column), language, fid)
        top = MARGIN + HEADER + len(self.languages) * self.cell + 10
        self._paint_legend(painter, top)
        self._paint_key(painter, top + LEGEND)

    def _paint_cell(self, painter: QPainter, rect: QRect, language: SampleLanguage, fid: str) -> None:
        cell = self.view.cell(language, fid) if self.view else None
        mark = cell.mark if cell else None
        if cell is None or mark is None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(UNCODED_FILL))  # pale, no border: nothing here (a coded 0 has a dark border)
            painter.drawRect(rect)
            return
        colour = self.palette_.colour(fid, cell.code, self._codes.get(fid))
        digits = rect.width() >= DIGITS_FROM - GAP
        paint_mark(painter, rect, mark, colour, cell.disagrees, dot_in_corner=digits)
        if digits and mark != UNKNOWN and cell.code:
            painter.setPen(text_colour_on(colour) if mark != PREDICTED else QColor("#202020"))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, cell.code[:2])

    def sample_colour(self) -> QColor:
        """The colour the grid uses most (white and grey aside), for the status legend's swatches."""
        counts: dict[str, int] = {}
        view = self.view
        for fid in self.features:
            codes = self._codes.get(fid) or []
            for language in self.languages:
                cell = view.cell(language, fid) if view else None
                if cell is not None and cell.mark not in (None, UNKNOWN):
                    colour = self.palette_.colour(fid, cell.code, codes)
                    if colour.lightnessF() < 0.9:
                        counts[colour.name()] = counts.get(colour.name(), 0) + 1
        return QColor(max(counts, key=lambda c: (counts[c], c)) if counts else "#ff0000")

    def key_rows(self) -> list[tuple[str, list[tuple[QColor, str]]]]:
        """The value key: (title, [(colour, text)]) per line — Grambank's codes, then each WALS feature's values."""
        view = self.view
        if view is None:
            return []
        rows: list[tuple[str, list[tuple[QColor, str]]]] = []
        grambank = [f for f in self.features if f.startswith("GB")]
        if grambank:
            seen = sorted({c.code for (_k, f), c in view.cells.items() if f in grambank and c.mark and c.mark != UNKNOWN
                           and c.code})
            binary = all(view.value_labels.get(f, {}).get("1") in (None, "present") for f in grambank)
            words = {"0": "absent", "1": "present"} if binary else {}
            rows.append(("Grambank", [(self.palette_.colour(grambank[0], code, []), f"{code} {words.get(code, '')}")
                                      for code in seen or ["0", "1"]]))
        wals = [f for f in self.features if not f.startswith("GB")]
        for fid in wals[:MAX_KEY_FEATURES]:
            codes = self._codes.get(fid) or []
            rows.append((fid, [(self.palette_.colour(fid, c, codes), f"{c} {view.value_label(fid, c)}")
                               for c in codes]))
        if len(wals) > MAX_KEY_FEATURES:
            rows.append((f"and {len(wals) - MAX_KEY_FEATURES} more WALS features", []))
        rows.append(("", [(QColor(UNKNOWN_COLOUR), "? unknown"), (QColor(UNCODED_FILL), "uncoded")]))
        return rows

    def _key_height(self) -> int:
        return 6 + KEY_ROW * (len(self.key_rows()) + 1) if self.view is not None else 0

    def _paint_key(self, painter: QPainter, top: int) -> None:
        metrics = QFontMetrics(self._font)
        painter.setPen(QColor("#000000"))
        painter.drawText(MARGIN, top + KEY_ROW - 4, "Value colours:")
        for i, (title, entries) in enumerate(self.key_rows()):
            y = top + KEY_ROW * (i + 1)
            x = MARGIN + 8
            if title:
                painter.setPen(QColor("#000000"))
                painter.drawText(x, y + KEY_ROW - 4, title)
                x += max(80, metrics.horizontalAdvance(title) + 10)
            for colour, text in entries:
                swatch = QRect(x, y + 2, KEY_ROW - 4, KEY_ROW - 4)
                painter.setPen(QPen(QColor(BORDER_COLOUR), 1) if text != "uncoded" else Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawRect(swatch.adjusted(0, 0, -1, -1))
                painter.setPen(QColor("#000000"))
                painter.drawText(x + KEY_ROW, y + KEY_ROW - 4, text.strip())
                x += KEY_ROW + metrics.horizontalAdvance(text.strip()) + 14

    def _paint_legend(self, painter: QPainter, top: int) -> None:
        x = MARGIN
        sample = self.sample_colour()  # the legend in a colour of the grid
        for mark, text in ((HAND, "coded by hand"), (ACCEPTED, "accepted"), (PREDICTED, "predicted only"),
                           (UNKNOWN, "unknown (?)"), (None, "uncoded"), ("disagree", "reference disagrees")):
            rect = QRect(x, top, CELL - GAP, CELL - GAP)
            if mark is None:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(UNCODED_FILL))
                painter.drawRect(rect)
            elif mark == "disagree":
                paint_mark(painter, rect, HAND, QColor("#ffffff"), True)
            else:
                paint_mark(painter, rect, mark, sample, False)
            painter.setPen(QColor("#000000"))
            width = QFontMetrics(self._font).horizontalAdvance(text)
            painter.drawText(x + CELL + 3, top + CELL - 4, text)
            x += CELL + width + 16

    # ------------------------------------------------------------------ mouse
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            found = self.cell_at(event.pos())
            if found is None:
                QToolTip.hideText()
                event.ignore()
            else:
                QToolTip.showText(event.globalPos(), self.tooltip_for(*found), self)
            return True
        return super().event(event)

    def tooltip_for(self, language: SampleLanguage, fid: str) -> str:
        """Language, feature, value, status and coder of one cell."""
        view = self.view
        name = view.feature_names.get(fid, "") if view else ""
        lineage = ", ".join(x for x in (language.family, language.genus, language.macroarea) if x)
        lines = [f"{language.name}" + (f" ({language.glottocode})" if language.glottocode else "")
                 + (f" — {lineage}" if lineage else ""),
                 f"{fid}" + (f": {name}" if name else "")]
        cell = view.cell(language, fid) if view else None
        if view is None or cell is None or cell.mark is None:
            lines.append("not coded" + (f" ({cell.status})" if cell and cell.status else ""))
        else:
            value = "?" if cell.mark == UNKNOWN else f"{cell.code} {view.value_label(fid, cell.code)}".strip()
            lines.append(f"Value: {value}")
            lines.append(f"Status: {STATUS_TEXT.get(cell.mark, cell.status)}")
            if cell.coder:
                lines.append(f"Coder: {cell.coder}")
        if view is not None and cell is not None and cell.reference_code is not None:
            label = cell.reference_label or view.value_label(fid, cell.reference_code)
            agree = "disagrees" if cell.disagrees else "agrees"
            lines.append(f"{view.reference_name or 'Reference'}: {cell.reference_code} {label} ({agree})".rstrip())
        return "\n".join(lines)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            found = self.cell_at(event.position().toPoint())
            if found is not None:
                language, feature_id = found
                self.cellActivated.emit(str(language.project_path), feature_id)
                return
        super().mouseReleaseEvent(event)


def paint_mark(painter: QPainter, rect: QRect, mark: str, colour: QColor, disagrees: bool, *,
               dot_in_corner: bool = False) -> None:
    """One cell (or legend swatch): the value's colour drawn as its mark says (see the module docstring).

    ``dot_in_corner``: the accepted mark's dot goes to the bottom-left corner (the cell shows its code in the middle).
    """
    border = QPen(QColor(BORDER_COLOUR), 1)
    if mark == UNKNOWN:
        painter.setPen(border)
        painter.setBrush(QColor(UNKNOWN_COLOUR))
        painter.drawRect(rect.adjusted(0, 0, -1, -1))
        painter.setPen(QColor("#404040"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "?")
    elif mark == PREDICTED:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#ffffff"))
        painter.drawRect(rect)
        hatch = QColor(colour) if colour.lightnessF() < 0.9 else QColor("#909090")
        painter.setBrush(QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        painter.drawRect(rect)
        painter.setPen(QPen(hatch, 1.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRect(rect).adjusted(1, 1, -1, -1))
    else:
        painter.setPen(border)
        painter.setBrush(colour)
        painter.drawRect(rect.adjusted(0, 0, -1, -1))
        if mark == ACCEPTED:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(text_colour_on(colour))
            centre = QPointF(rect.left() + 4.5, rect.bottom() - 3.5) if dot_in_corner else \
                QPointF(rect.center()) + QPointF(0.5, 0.5)
            painter.drawEllipse(centre, 2.2 if dot_in_corner else 1.8, 2.2 if dot_in_corner else 1.8)
    if disagrees:
        corner = QPolygonF([QPointF(rect.right() - 6, rect.top()), QPointF(rect.right() + 1, rect.top()),
                            QPointF(rect.right() + 1, rect.top() + 7)])
        painter.setPen(QPen(QColor("#ffffff"), 1.2))  # a white edge: the corner reads on a red cell too
        painter.setBrush(QColor(DISAGREE_COLOUR))
        painter.drawPolygon(corner)
