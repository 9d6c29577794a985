"""Build resources/languages.tsv (language name -> Glottocode) from WALS and Grambank CLDF tables.

Names and Glottocodes are facts; the table lets ingestion guess a grammar's Glottocode from
its title.  Run: python scripts/build_languages.py [CLDF_DIR] (default ../shared/cldf).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(cldf_dir: Path) -> None:
    names: dict[str, str] = {}
    for table in (cldf_dir / "grambank" / "languages.csv", cldf_dir / "wals" / "languages.csv"):
        with open(table, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row.get("Glottocode"):
                    names.setdefault(row["Name"].strip(), row["Glottocode"].strip())
    out = REPO / "resources" / "languages.tsv"
    with open(out, "w", newline="", encoding="utf-8") as fh:
        fh.write("# name\tglottocode -- from WALS Online and Grambank v1.0 CLDF (CC-BY 4.0)\n")
        for name in sorted(names):
            fh.write(f"{name}\t{names[name]}\n")
    print(f"{len(names)} languages -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "cldf")
