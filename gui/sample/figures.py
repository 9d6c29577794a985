"""Figures of the Sample window, drawn once for the screen, a PNG and an SVG alike.

Why Qt's own painting (QPainter) rather than a plotting library: matplotlib is left out of the
frozen app (``packaging/grammarlens.spec``, DEV_TOOLS: it would add ~40 MB and a second GUI
toolkit layer) and pyqtgraph is not a dependency; what the window draws is a grid of coloured
cells, a few hundred points over a coastline and two bar charts, which QPainter does in a few
milliseconds, with exact control over the databases' colours and the cell markers.  The same
``paint_figure(painter, size)`` of each figure widget draws the screen (``paintEvent``), a PNG
(:class:`QImage`) and an SVG (:class:`QSvgGenerator`, in PySide6-Essentials' QtSvg), so an export
looks like the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol, TypeVar

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from core.errors import GrammarLensError

T = TypeVar("T")
PNG_SCALE = 2.0  # exported PNGs at twice the screen's pixels: sharp in a paper or a slide
BACKGROUND = QColor("#ffffff")


class Figure(Protocol):
    def figure_size(self) -> QSize: ...

    def paint_figure(self, painter: QPainter, size: QSize) -> None: ...

    def figure_title(self) -> str: ...


def paint_on_widget(widget: QWidget, paint: Callable[[QPainter, QSize], T], *, antialias: bool = False) -> T:
    """A figure widget's paintEvent: the white ground, then the very drawing the PNG and the SVG get."""
    painter = QPainter(widget)
    try:
        if antialias:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(widget.rect(), BACKGROUND)
        return paint(painter, widget.size())
    finally:
        painter.end()


def export_png(figure: Figure, path: str | Path, scale: float = PNG_SCALE) -> Path:
    """Draw ``figure`` into a PNG file at ``scale`` times its size; returns the path."""
    size = figure.figure_size()
    image = QImage(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(BACKGROUND)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.scale(scale, scale)
        figure.paint_figure(painter, size)
    finally:
        painter.end()
    target = Path(path)
    # PySide6's stub types the format as bytes, but the call accepts only a str (bytes raise ValueError)
    if not image.save(str(target), "PNG"):  # type: ignore[call-overload]
        raise GrammarLensError(f"The figure could not be written to {target}.",
                               "Choose a folder you can write to, with some free space.")
    return target


def export_svg(figure: Figure, path: str | Path) -> Path:
    """Draw ``figure`` into an SVG file (vector: paths and text); returns the path."""
    size = figure.figure_size()
    target = Path(path)
    generator = QSvgGenerator()
    generator.setFileName(str(target))
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle(figure.figure_title())
    generator.setDescription("Drawn by GrammarLens")
    painter = QPainter()
    if not painter.begin(generator):
        raise GrammarLensError(f"The figure could not be written to {target}.",
                               "Choose a folder you can write to, with some free space.")
    try:
        painter.fillRect(QRect(0, 0, size.width(), size.height()), BACKGROUND)
        figure.paint_figure(painter, size)
    finally:
        painter.end()
    if not target.is_file() or target.stat().st_size == 0:
        raise GrammarLensError(f"The figure could not be written to {target}.",
                               "Choose a folder you can write to, with some free space.")
    return target


def export_figure(figure: Figure, path: str | Path) -> Path:
    """PNG or SVG by the file's suffix (a name without one gets .png)."""
    target = Path(path)
    if target.suffix.lower() == ".svg":
        return export_svg(figure, target)
    if target.suffix.lower() != ".png":
        target = target.with_name(target.name + ".png")
    return export_png(figure, target)
