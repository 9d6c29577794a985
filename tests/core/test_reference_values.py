"""Reference values for a whole sample are read in one pass and give exactly what the per-language reader gives.

(How long that takes is `bench sample`'s business, not a test's.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import GrammarLensError
from core.profile.agreement import load_reference_values, load_reference_values_for


def _glottocodes(cldf: Path, limit: int) -> list[str]:
    import csv

    with open(cldf / "grambank" / "values_subset.csv", newline="", encoding="utf-8") as fh:
        seen = dict.fromkeys(r["Glottocode"] for r in csv.DictReader(fh) if r.get("Glottocode"))
    return list(seen)[:limit]


def test_one_pass_for_many_languages_equals_one_read_per_language(shared_dir: Path) -> None:
    cldf = shared_dir / "cldf"
    glottocodes = [*_glottocodes(cldf, 12), "nucl1235", "xxxx0000"]  # Moloko (in WALS too) and one nobody has
    together = load_reference_values_for([cldf], glottocodes)
    assert set(together) == set(glottocodes) and together["xxxx0000"] == {}
    assert {v.dataset for v in together["nucl1235"].values()} == {"Grambank", "WALS"}
    for glottocode in glottocodes:
        assert load_reference_values([cldf], glottocode) == together[glottocode]


def test_a_folder_without_values_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GrammarLensError, match="No CLDF values found"):
        load_reference_values_for([tmp_path], ["nucl1235"])
    with pytest.raises(GrammarLensError, match="has no Glottocode"):
        load_reference_values([tmp_path], "")
