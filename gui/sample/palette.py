"""The value colours of the Sample window: the databases' own, so a map reads like theirs.

The palette (the same for the heatmap, the map and their legends):

- **Grambank** features (``GB…``): Grambank Online's icons (clld/grambank,
  ``scripts/util.py``): code ``0`` (absent) white ``#ffffff``, ``1`` (present) red ``#ff0000``,
  ``2`` blue ``#0000ff``, ``3`` yellow ``#ffff00``.
- **WALS** features: WALS's own colour of each value, the ``icon`` column of WALS's CLDF
  ``codes.csv`` (81A: SOV blue ``#0000dd``, SVO red ``#dd0000``, VSO yellow ``#ffff00``…), read
  from the sample's reference folder when it holds WALS; the map also takes WALS's shape (two
  values sharing a colour differ by shape there: 81A VSO a yellow circle, VOS a yellow diamond).
  Without it, values take WALS's colours in the order WALS uses them most (:data:`FALLBACK`:
  blue, red, yellow, purple, orange, green…).
- **"?"** (unknown: the coder's "?", or not enough information for the model) is grey ``#cccccc``,
  as Grambank Online draws "Not known".

White values are drawn with a grey border everywhere, so "absent" never looks like "uncoded".
"""

from __future__ import annotations

from PySide6.QtGui import QColor

GRAMBANK = {"0": "#ffffff", "1": "#ff0000", "2": "#0000ff", "3": "#ffff00"}
FALLBACK = ("#0000dd", "#dd0000", "#ffff00", "#990099", "#ff6600", "#66ff33", "#ff66ff", "#9999ff",
            "#009900", "#aa0000", "#000000", "#ffffff")
UNKNOWN_COLOUR = "#cccccc"
DISAGREE_COLOUR = "#e00000"
BORDER_COLOUR = "#707070"


class ValuePalette:
    """Colour of (feature, code); ``order`` gives each feature's codes (for the fallback sequence)."""

    def __init__(self, wals_icons: dict[tuple[str, str], str] | None = None) -> None:
        self.wals_icons = dict(wals_icons or {})
        self._cache: dict[tuple[str, str], QColor] = {}

    def colour(self, feature_id: str, code: str | None, codes: list[str] | None = None) -> QColor:
        """The colour of ``code`` of ``feature_id``; ``codes`` is the feature's code order (fallback only)."""
        key = (feature_id, code or "?")
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = QColor(self._hex(feature_id, code, codes or []))
        return found

    def _hex(self, feature_id: str, code: str | None, codes: list[str]) -> str:
        if code is None or code == "?":
            return UNKNOWN_COLOUR
        if feature_id.startswith("GB") and code in GRAMBANK:
            return GRAMBANK[code]
        if (feature_id, code) in self.wals_icons:
            return "#" + self.wals_icons[(feature_id, code)][1:]
        index = codes.index(code) if code in codes else (int(code) - 1 if code.isdigit() else 0)
        return FALLBACK[max(index, 0) % len(FALLBACK)]


    def shape(self, feature_id: str, code: str | None) -> str:
        """The map symbol's shape: WALS's (``c`` circle, ``d`` diamond, ``s`` square, ``t`` triangle), else a circle."""
        icon = self.wals_icons.get((feature_id, code or ""), "c")
        return icon[0] if icon[0] in "cdst" else "c"


def text_colour_on(fill: QColor) -> QColor:
    """Black or white, whichever reads on ``fill``."""
    return QColor("#000000") if fill.lightnessF() > 0.55 else QColor("#ffffff")
