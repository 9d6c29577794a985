"""The Sample map's viewport (Qt-free): it opens on the sample's extent, zooms at the mouse, pans, and spreads
languages that would hide each other."""

from __future__ import annotations

import pytest

from core.sample.map_frame import MapFrame, circular_centre, spread, wrap

EAST_AFRICA = [(36.8, -1.3), (39.3, -6.8), (32.6, 0.3), (38.7, 9.0), (35.0, -3.0), (37.2, -0.5)]
MELANESIA = [(147.2, -9.4), (150.5, -5.5), (155.6, -6.2), (160.0, -9.4), (168.3, -17.7), (166.9, -15.4),
             (-178.4, -18.1)]  # Fiji lies across the antimeridian


def test_an_african_sample_opens_on_africa_not_on_a_pacific_centred_world() -> None:
    frame = MapFrame.around(EAST_AFRICA, aspect=2.0)
    assert not frame.is_world
    assert frame.x0 < 32.6 and frame.x1 > 39.3 and frame.y0 < -6.8 and frame.y1 > 9.0
    assert frame.x1 - frame.x0 < 60  # a region, not the world
    assert (frame.x1 - frame.x0) / (frame.y1 - frame.y0) == pytest.approx(2.0)
    for lon, lat in EAST_AFRICA:  # every language inside the picture
        x, y = frame.to_pixel(lon, lat, 800, 400)
        assert 0 < x < 800 and 0 < y < 400


def test_a_melanesian_sample_across_the_antimeridian_is_one_region() -> None:
    assert circular_centre([170.0, -170.0]) == pytest.approx(180.0)
    frame = MapFrame.around(MELANESIA, aspect=2.0)
    assert frame.x1 - frame.x0 < 90  # Fiji (-178.4) sits beside Vanuatu, not at the other edge of the world
    for lon, lat in MELANESIA:
        x, _y = frame.to_pixel(lon, lat, 800, 400)
        assert 0 < x < 800
    assert wrap(-178.4, frame.center_lon) > 180.0


def test_zoom_keeps_the_point_under_the_mouse_and_pan_follows_the_drag() -> None:
    frame = MapFrame.world(0.0)
    before = frame.to_degrees(600, 100, 800, 400)
    closer = frame.zoomed(2.0, 600, 100, 800, 400)
    assert closer.y1 - closer.y0 == pytest.approx(90.0)
    assert closer.to_degrees(600, 100, 800, 400) == pytest.approx(before)
    moved = closer.panned(100, 0, 800, 400)  # dragged right: the map shows what lay to the west
    assert moved.x0 == pytest.approx(closer.x0 - 100 / 800 * (closer.x1 - closer.x0))
    assert MapFrame.world(0.0).zoomed(0.1, 400, 200, 800, 400).is_world  # never further out than the world


def test_overlapping_languages_are_spread_on_a_ring_and_big_clusters_stay_stacked_with_a_count() -> None:
    pixels = [(100.0, 100.0), (101.0, 100.5), (100.5, 101.0), (300.0, 300.0)]
    placed = spread(pixels, 5.0)
    assert [p.cluster for p in placed] == [3, 3, 3, 1]
    drawn = [(p.drawn_x, p.drawn_y) for p in placed[:3]]
    for i in range(3):
        for j in range(i + 1, 3):
            assert (drawn[i][0] - drawn[j][0]) ** 2 + (drawn[i][1] - drawn[j][1]) ** 2 >= (2 * 5.0) ** 2 - 1e-6
    assert (placed[3].drawn_x, placed[3].drawn_y) == (300.0, 300.0)
    many = spread([(50.0 + i * 0.1, 50.0) for i in range(20)], 5.0)
    assert all(p.cluster == 20 and (p.drawn_x, p.drawn_y) == (p.x, p.y) for p in many)
