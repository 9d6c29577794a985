"""Build resources/genealogy.tsv (Glottocode -> family, genus, macroarea) from Grambank's and WALS's language tables.

Facts from the two databases' CLDF language tables (CC-BY 4.0): Grambank's ``Family_name`` and
``Family_level_ID`` (Glottolog's top-level family; an empty family is an isolate) and WALS's
``Family`` and ``Genus`` (Dryer's genera, the unit WALS samples by).  A Glottocode in both takes
Grambank's family and WALS's genus; one in Grambank only has no genus (the sample code falls
back to the family there).  A language only in WALS takes the Glottolog family that Grambank gives
the other languages of its WALS genus (most of them), so Haya is "Atlantic-Congo" like Swahili and
not WALS's "Niger-Congo"; a genus without any Grambank language keeps WALS's family name.
Columns: glottocode, family, family_glottocode, genus, macroarea.
Run: python scripts/build_genealogy.py [CLDF_DIR] (default ../shared/cldf).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(cldf_dir: Path) -> None:
    rows: dict[str, dict[str, str]] = {}
    grambank_codes: set[str] = set()
    with open(cldf_dir / "grambank" / "languages.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            code = (r.get("Glottocode") or "").strip()
            if code:
                grambank_codes.add(code)
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
    _harmonise_families(rows, grambank_codes)
    out = REPO / "resources" / "genealogy.tsv"
    with open(out, "w", newline="", encoding="utf-8") as fh:
        fh.write("# glottocode\tfamily\tfamily_glottocode\tgenus\tmacroarea -- from Grambank v1.0 and WALS Online CLDF "
                 "(CC-BY 4.0)\n")
        for code in sorted(rows):
            r = rows[code]
            fh.write("\t".join((code, r["family"], r["family_glottocode"], r["genus"], r["macroarea"])) + "\n")
    print(f"{len(rows)} Glottocodes, {sum(1 for r in rows.values() if r['genus'])} with a WALS genus -> {out}")


def _harmonise_families(rows: dict[str, dict[str, str]], grambank_codes: set[str]) -> None:
    """WALS-only languages take the Glottolog family most Grambank languages of their genus have."""
    from collections import Counter, defaultdict

    by_genus: dict[str, Counter] = defaultdict(Counter)
    for code, row in rows.items():
        if code in grambank_codes and row["genus"] and row["family"]:
            by_genus[row["genus"]][(row["family"], row["family_glottocode"])] += 1
    for code, row in rows.items():
        if code not in grambank_codes and row["genus"] in by_genus:
            row["family"], row["family_glottocode"] = by_genus[row["genus"]].most_common(1)[0][0]


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "cldf")
