"""Screenshots of the Sample window's figures: ``python -m bench.sample_screenshots [OUT_DIR]``.

Offscreen (no display needed).  Two generated samples of real languages placed by the bundled
table: an East African one and a Melanesian one (across the antimeridian: Fiji), each with seeded
Grambank values (coded, accepted, predicted, "?", uncoded) and one language twice at one spot (two
projects of the same place), drawn as the window draws them: the heatmap fitted to 1,200 x 700 with
its key, and the map opened on the sample's extent, by value and by family.  Writes
``heatmap_africa.png``, ``map_africa.png``, ``map_africa_family.png``, ``map_melanesia.png``.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from core.records.vocabulary import ProfileStatus

REPO = Path(__file__).resolve().parent.parent
AFRICA = ["swah1253", "gand1255", "kiku1240", "amha1245", "soma1255", "luok1236", "suku1261", "nyam1276",
          "sand1273", "hadz1240", "iraq1241", "kamb1297", "haya1250", "rund1242", "kiny1244", "tigr1271", "afar1241"]
MELANESIA = ["wara1294", "fiji1243", "tokp1240", "motu1246", "kala1397", "yima1243", "bisl1239", "mari1426",
             "kewa1250", "enga1252", "wahg1249", "amel1241"]
FEATURES = ["GB020", "GB021", "GB022", "GB107", "GB257", "GB260", "GB262", "GB263", "GB286", "GB291", "81A"]
STATUSES = [ProfileStatus.CODED, ProfileStatus.CODED, ProfileStatus.ACCEPTED, ProfileStatus.PREDICTED,
            ProfileStatus.UNKNOWN, None]  # drawn with these weights


def sample_view(glottocodes: list[str], seed: int):
    """A SampleView of the given languages with seeded values (no projects needed)."""
    from core.catalog import load_catalog
    from core.catalog.genealogy import lineage_of
    from core.catalog.languages import language_table, place_of
    from core.sample.view_data import SampleCell, SampleLanguage, SampleView

    rng = random.Random(seed)
    names = {code: name for name, code in language_table()}
    catalog = load_catalog()
    languages, cells = [], {}
    for i, code in enumerate(glottocodes + glottocodes[:1]):  # the first language twice: two points at one spot
        place, lineage = place_of(code), lineage_of(code)
        language = SampleLanguage(Path(f"/sample/{i:02d}_{code}.grammarlens"), names.get(code, code) + ("" if i <
                                  len(glottocodes) else " (2nd coder)"), code, place.macroarea if place else "",
                                  place.latitude if place else None, place.longitude if place else None,
                                  lineage.family, lineage.genus)
        languages.append(language)
        for fid in FEATURES:
            status = rng.choice(STATUSES)
            if status is None:
                continue
            codes = [c for c, _l in catalog.get(fid).values]
            code_ = "?" if status == ProfileStatus.UNKNOWN else rng.choice(codes[:3])
            cells[(language.key, fid)] = SampleCell(code_, dict(catalog.get(fid).values).get(code_), status, "ana",
                                                    rng.choice(codes[:2]) if rng.random() < 0.5 else None)
    return SampleView(languages, FEATURES, cells, groups={f: ("WALS" if f[0].isdigit() else "Grambank")
                                                          for f in FEATURES},
                      feature_names={f: catalog.get(f).name for f in FEATURES},
                      value_labels={f: dict(catalog.get(f).values) for f in FEATURES}, reference_name="Grambank")


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out = Path(argv[0]) if argv else REPO / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from gui.sample.heatmap import HeatmapWidget
    from gui.sample.map_view import MapWidget

    app = QApplication.instance() or QApplication(["grammarlens"])
    africa, melanesia = sample_view(AFRICA, 30), sample_view(MELANESIA, 31)
    heatmap = HeatmapWidget()
    heatmap.set_view(africa)
    heatmap.fit_to(QSize(1200, 700))
    heatmap.grab().save(str(out / "heatmap_africa.png"))
    for view, name, mode in ((africa, "map_africa", "value"), (africa, "map_africa_family", "family"),
                             (melanesia, "map_melanesia", "value")):
        widget = MapWidget()
        widget.resize(1000, 640)
        widget.set_view(view)
        widget.set_feature("GB107")
        widget.set_colour_by(mode)
        widget.fit_sample()
        widget.grab().save(str(out / f"{name}.png"))
    app.processEvents()
    print(f"screenshots -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
