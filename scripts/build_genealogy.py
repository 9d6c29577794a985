"""Build resources/genealogy.tsv (Glottocode -> family, genus, macroarea) from Grambank's and WALS's language tables.

Facts from the two databases' CLDF language tables (CC-BY 4.0): Grambank's ``Family_name`` and
``Family_level_ID`` (Glottolog's top-level family; an empty family is an isolate) and WALS's
``Family`` and ``Genus`` (Dryer's genera, the unit WALS samples by).  A Glottocode in both takes
Grambank's family and WALS's genus; one in Grambank only has no genus (the sample code falls
back to the family there).  Columns: glottocode, family, family_glottocode, genus, macroarea.
Run: python scripts/build_genealogy.py [CLDF_DIR] (default ../shared/cldf).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(cldf_dir: Path) -> None:
    rows: dict[str, dict[str, str]] = {}
    with open(cldf_dir / "grambank" / "languages.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            code = (r.get("Glottocode") or "").strip()
            if code:
                rows[code] = {"family": (r.get("Family_name") or "").strip(),
                              "family_glottocode": (r.get("Family_level_ID") or "").strip(),
                              "genus": "", "macroarea": (r.get("Macroarea") or "").strip()}
    with open(cldf_dir / "wals" / "languages.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            code = (r.get("Glottocode") or "").strip()
            if not code:
                continue
            row = rows.setdefault(code, {"family": (r.get("Family") or "").strip(), "family_glottocode": "",
                                         "genus": "", "macroarea": (r.get("Macroarea") or "").strip()})
            row["genus"] = row["genus"] or (r.get("Genus") or "").strip()  # Grambank's empty family: an isolate
            row["macroarea"] = row["macroarea"] or (r.get("Macroarea") or "").strip()
    out = REPO / "resources" / "genealogy.tsv"
    with open(out, "w", newline="", encoding="utf-8") as fh:
        fh.write("# glottocode\tfamily\tfamily_glottocode\tgenus\tmacroarea -- from Grambank v1.0 and WALS Online CLDF "
                 "(CC-BY 4.0)\n")
        for code in sorted(rows):
            r = rows[code]
            fh.write("\t".join((code, r["family"], r["family_glottocode"], r["genus"], r["macroarea"])) + "\n")
    print(f"{len(rows)} Glottocodes, {sum(1 for r in rows.values() if r['genus'])} with a WALS genus -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "cldf")
