"""Build resources/languages.tsv (language name -> Glottocode, with macroarea and coordinates) from WALS and Grambank.

Names, Glottocodes, macroareas and coordinates are facts from the two databases' CLDF language
tables (CC-BY 4.0); the table lets ingestion guess a grammar's Glottocode from its title, and a
sample's export and map place each language.  Columns: name, glottocode, macroarea, latitude,
longitude (the first two as before; readers that split off two columns keep working).  A
Glottocode's place comes from Grambank when it has one (Glottolog's coordinates), else from
WALS; a language without coordinates keeps empty cells.
Run: python scripts/build_languages.py [CLDF_DIR] (default ../shared/cldf).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLES = ("grambank", "wals")  # Grambank first: its names and places win


def main(cldf_dir: Path) -> None:
    names: dict[str, str] = {}
    places: dict[str, tuple[str, str, str]] = {}  # glottocode -> (macroarea, latitude, longitude)
    for table in (cldf_dir / name / "languages.csv" for name in TABLES):
        with open(table, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                code = (row.get("Glottocode") or "").strip()
                if not code:
                    continue
                names.setdefault(row["Name"].strip(), code)
                place = ((row.get("Macroarea") or "").strip(), _number(row.get("Latitude")),
                         _number(row.get("Longitude")))
                if code not in places or (not places[code][1] and place[1]):
                    places[code] = place
    out = REPO / "resources" / "languages.tsv"
    with open(out, "w", newline="", encoding="utf-8") as fh:
        fh.write("# name\tglottocode\tmacroarea\tlatitude\tlongitude -- from WALS Online and Grambank v1.0 CLDF "
                 "(CC-BY 4.0)\n")
        for name in sorted(names):
            code = names[name]
            fh.write("\t".join((name, code, *places.get(code, ("", "", "")))) + "\n")
    print(f"{len(names)} languages, {sum(1 for p in places.values() if p[1])} Glottocodes placed -> {out}")


def _number(text: str | None) -> str:
    """A coordinate as written in the table, or "" when missing or not a number."""
    value = (text or "").strip()
    try:
        float(value)
    except ValueError:
        return ""
    return value


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "cldf")
