"""The Sample map's viewport, as plain geometry (no Qt): the sample's extent, zoom, pan, and overlapping points.

Why here: the map opens on the sample's *own* extent (an East African sample fills the map, not a
corner of a Pacific-centred world), zooms at the mouse and pans by dragging, and spreads
languages that would be drawn on top of each other.  All of that is arithmetic on degrees and
pixels, tested without a window; :mod:`gui.sample.map_view` only draws what this says.

Coordinates: plate carrée.  ``center_lon`` is the longitude in the middle of the unwrapped world
(x runs from ``center_lon - 180`` to ``center_lon + 180``); the viewport is a box of that plane in
degrees, ``x0 < x1`` (unwrapped longitude) and ``y0 < y1`` (latitude), shown 1:1 in degrees
(aspect kept: one degree of longitude is as wide as one of latitude is high).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_SPAN = 8.0  # degrees of latitude the viewport shows at the closest zoom
MARGIN = 0.15  # share of the sample's extent added around it


def wrap(lon: float, center_lon: float) -> float:
    """``lon`` in [center_lon - 180, center_lon + 180)."""
    return (lon - center_lon + 180.0) % 360.0 - 180.0 + center_lon


def circular_centre(longitudes: list[float]) -> float:
    """The longitude the points gather around (the mean direction, so 170°E and 170°W give 180°)."""
    if not longitudes:
        return 0.0
    x = sum(math.cos(math.radians(v)) for v in longitudes)
    y = sum(math.sin(math.radians(v)) for v in longitudes)
    if abs(x) < 1e-9 and abs(y) < 1e-9:
        return 0.0
    return math.degrees(math.atan2(y, x))


@dataclass
class MapFrame:
    """What part of the world the map shows, and how a pixel maps to it."""

    center_lon: float = 150.0
    x0: float = -30.0
    x1: float = 330.0
    y0: float = -90.0
    y1: float = 90.0

    @classmethod
    def world(cls, center_lon: float = 150.0) -> MapFrame:
        return cls(center_lon, center_lon - 180.0, center_lon + 180.0, -90.0, 90.0)

    @classmethod
    def around(cls, points: list[tuple[float, float]], aspect: float = 2.0) -> MapFrame:
        """The frame that shows every (lon, lat) with a margin, centred on them, ``aspect`` = width / height."""
        if not points:
            return cls.world()
        centre = circular_centre([lon for lon, _ in points])
        xs = [wrap(lon, centre) for lon, _ in points]
        ys = [lat for _, lat in points]
        frame = cls(centre, min(xs), max(xs), min(ys), max(ys))
        width, height = frame.x1 - frame.x0, frame.y1 - frame.y0
        frame.x0 -= max(width * MARGIN, 2.0)
        frame.x1 += max(width * MARGIN, 2.0)
        frame.y0 -= max(height * MARGIN, 2.0)
        frame.y1 += max(height * MARGIN, 2.0)
        return frame.fitted(aspect)

    def fitted(self, aspect: float) -> MapFrame:
        """This frame grown (never shrunk) to ``aspect`` and at least :data:`MIN_SPAN`, kept within the world."""
        cx, cy = (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2
        height = max(self.y1 - self.y0, (self.x1 - self.x0) / aspect, MIN_SPAN)
        height = min(height, max(180.0, 360.0 / aspect))  # the whole world at most (sea beyond a pole if tall)
        width = height * aspect
        frame = MapFrame(self.center_lon, cx - width / 2, cx + width / 2, cy - height / 2, cy + height / 2)
        return frame.clamped()

    def clamped(self) -> MapFrame:
        """Kept inside the world: latitude -90..90, unwrapped longitude within one turn around the centre."""
        dy = 0.0
        if self.y1 - self.y0 >= 180.0:  # taller than the world: centred on the equator
            dy = -(self.y0 + self.y1) / 2
        elif self.y0 < -90.0:
            dy = -90.0 - self.y0
        elif self.y1 > 90.0:
            dy = 90.0 - self.y1
        dx = 0.0
        low, high = self.center_lon - 180.0, self.center_lon + 180.0
        if self.x1 - self.x0 >= 360.0 or self.x0 < low:
            dx = low - self.x0
        elif self.x1 > high:
            dx = high - self.x1
        return MapFrame(self.center_lon, self.x0 + dx, self.x1 + dx, self.y0 + dy, self.y1 + dy)

    # -- pixels -----------------------------------------------------------------------------------------------
    def to_pixel(self, lon: float, lat: float, width: float, height: float) -> tuple[float, float]:
        """Where (lon, lat) lies in a ``width`` x ``height`` picture of this frame (may be outside it)."""
        x = (wrap(lon, self.center_lon) - self.x0) / (self.x1 - self.x0) * width
        y = (self.y1 - lat) / (self.y1 - self.y0) * height
        return x, y

    def to_degrees(self, x: float, y: float, width: float, height: float) -> tuple[float, float]:
        """The (unwrapped lon, lat) at pixel (x, y)."""
        return (self.x0 + x / width * (self.x1 - self.x0), self.y1 - y / height * (self.y1 - self.y0))

    def zoomed(self, factor: float, x: float, y: float, width: float, height: float) -> MapFrame:
        """Zoomed by ``factor`` (> 1 closer) keeping the point under pixel (x, y) where it is."""
        lon, lat = self.to_degrees(x, y, width, height)
        new_h = min(max((self.y1 - self.y0) / factor, MIN_SPAN), max(180.0, 360.0 * height / width))
        new_w = new_h * width / height
        fx, fy = x / width, y / height
        frame = MapFrame(self.center_lon, lon - fx * new_w, lon + (1 - fx) * new_w, lat - (1 - fy) * new_h,
                         lat + fy * new_h)
        return frame.clamped()

    def panned(self, dx: float, dy: float, width: float, height: float) -> MapFrame:
        """Moved by a drag of (dx, dy) pixels (the map follows the mouse)."""
        ddx = -dx / width * (self.x1 - self.x0)
        ddy = dy / height * (self.y1 - self.y0)
        return MapFrame(self.center_lon, self.x0 + ddx, self.x1 + ddx, self.y0 + ddy, self.y1 + ddy).clamped()

    @property
    def is_world(self) -> bool:
        return self.x1 - self.x0 >= 359.9 and self.y1 - self.y0 >= 179.9


# -- overlapping points --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Placed:
    """Where one point is drawn: its true pixel, the pixel drawn at (moved off its neighbours), its cluster size."""

    index: int
    x: float
    y: float
    drawn_x: float
    drawn_y: float
    cluster: int  # how many points share the spot (1: alone)


def spread(pixels: list[tuple[float, float]], radius: float, *, ring_limit: int = 12) -> list[Placed]:
    """Points closer than two ``radius`` are one cluster; up to ``ring_limit`` of them are set on a ring around
    their centre (each drawn apart, a leader line to its place), a bigger cluster stays stacked (its count shown)."""
    clusters: list[list[int]] = []
    for i, (x, y) in enumerate(pixels):
        near = [c for c in clusters if any((pixels[j][0] - x) ** 2 + (pixels[j][1] - y) ** 2 < (2 * radius) ** 2
                                           for j in c)]
        if not near:
            clusters.append([i])
            continue
        merged = [i] + [j for c in near for j in c]
        clusters = [c for c in clusters if c not in near] + [merged]
    out: list[Placed] = []
    for members in clusters:
        members.sort()
        cx = sum(pixels[j][0] for j in members) / len(members)
        cy = sum(pixels[j][1] for j in members) / len(members)
        n = len(members)
        for k, j in enumerate(members):
            x, y = pixels[j]
            if n == 1 or n > ring_limit:
                out.append(Placed(j, x, y, x, y, n))
                continue
            ring = radius * max(1.6, n * 2.4 / (2 * math.pi))  # neighbours on the ring stay apart
            angle = -math.pi / 2 + 2 * math.pi * k / n
            out.append(Placed(j, x, y, cx + ring * math.cos(angle), cy + ring * math.sin(angle), n))
    out.sort(key=lambda p: p.index)
    return out
