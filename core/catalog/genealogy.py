"""Family, genus and macroarea of a language, from the bundled genealogy table.

``resources/genealogy.tsv`` (built by ``scripts/build_genealogy.py`` from Grambank's and WALS's CLDF
language tables, CC-BY 4.0) gives each Glottocode its top-level family (Grambank's ``Family_name``,
Glottolog's classification; empty for an isolate), its WALS genus (Dryer's genera: the unit WALS
samples by) and its macroarea.  A typologist reads agreement and value counts per family and
macroarea, and balances a sample genealogically by genus.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from core.resources import resources_dir

ISOLATE = "(isolate)"


@dataclass(frozen=True)
class Lineage:
    """Where a language sits: its family (ISOLATE when it has none), genus ("" when WALS has none), macroarea."""

    family: str
    family_glottocode: str
    genus: str
    macroarea: str

    def balance_unit(self, glottocode: str) -> str:
        """The unit a balanced sample takes one language of: the genus, else the family, else the language."""
        if self.genus:
            return f"genus:{self.genus}"
        if self.family and self.family != ISOLATE:
            return f"family:{self.family}"
        return f"language:{glottocode}"


UNKNOWN_LINEAGE = Lineage("", "", "", "")


@lru_cache(maxsize=1)
def _table() -> dict[str, Lineage]:
    out: dict[str, Lineage] = {}
    path = resources_dir() / "genealogy.tsv"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line or line.startswith("#"):
                continue
            cells = (line.split("\t") + ["", "", "", "", ""])[:5]
            code, family, family_code, genus, macroarea = (c.strip() for c in cells)
            out[code] = Lineage(family or ISOLATE, family_code, genus, macroarea)
    return out


def lineage_of(glottocode: str | None) -> Lineage:
    """The language's family, genus and macroarea (empty fields when the table does not know it)."""
    if not glottocode:
        return UNKNOWN_LINEAGE
    return _table().get(glottocode, UNKNOWN_LINEAGE)
