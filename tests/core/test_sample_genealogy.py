"""Issue 30: family, genus and macroarea in status, matrix, compare and export; a balanced subsample.

The expected families and genera are read here straight from ../shared/cldf's Grambank and WALS
language tables, independently of resources/genealogy.tsv.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.cli_runs import run_cli
from tests.fixtures_sample import code_values
from tests.fixtures_shared import SHARED

WALS = SHARED / "cldf" / "wals" / "languages.csv"
GRAMBANK = SHARED / "cldf" / "grambank" / "languages.csv"



def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def genus_pair() -> tuple[tuple[str, str], tuple[str, str], str]:
    """Two languages of one WALS genus (both in Grambank) and one of another genus, with the genus name."""
    grambank = {r["Glottocode"]: r for r in _rows(GRAMBANK)}
    by_genus: dict[str, list[dict]] = defaultdict(list)
    seen: set[str] = set()
    for r in _rows(WALS):
        if r["Glottocode"] in grambank and r["Glottocode"] not in seen:
            seen.add(r["Glottocode"])
            by_genus[r["Genus"]].append(r)
    genus = next(g for g, rs in sorted(by_genus.items()) if len(rs) >= 2 and g)
    other = next(rs[0] for g, rs in sorted(by_genus.items()) if g and g != genus)
    one, two = by_genus[genus][:2]
    return (one["Glottocode"], one["Name"]), (two["Glottocode"], two["Name"]), other["Glottocode"] + "|" + genus


@pytest.fixture
def sample(demo_copy, genus_pair) -> Path:
    from core.models import Language
    from core.store import open_project
    from core.store.repository import set_language

    (g1, n1), (g2, n2), rest = genus_pair
    g3 = rest.split("|")[0]
    for glottocode, name, values in ((g1, n1, {"GB020": "1"}), (g2, n2, {"GB020": "0", "GB021": "1"}),
                                     (g3, "Other", {"GB020": "1"})):
        path = demo_copy(f"sample/{glottocode}.grammarlens")
        with open_project(path, backup=False) as p:
            set_language(p, Language(name=name, glottocode=glottocode, source="user"))
        code_values(path, values, "ana")
    return path.parent


def test_lineage_is_grambanks_family_and_walss_genus() -> None:
    from core.catalog.genealogy import lineage_of

    grambank = {r["Glottocode"]: r for r in _rows(GRAMBANK)}
    wals = {r["Glottocode"]: r for r in _rows(WALS) if r["Glottocode"]}
    for code in ("molo1266", "abad1241", *list(wals)[:50]):
        lineage = lineage_of(code)
        if code in grambank:
            assert lineage.family == (grambank[code]["Family_name"] or "(isolate)")
            assert lineage.macroarea == grambank[code]["Macroarea"]
        if code in wals:
            assert lineage.genus == wals[code]["Genus"]


def test_status_matrix_compare_and_export_carry_family_genus_and_macroarea(sample, genus_pair, tmp_path) -> None:
    from core.catalog.genealogy import lineage_of

    (g1, _n1), _two, rest = genus_pair
    genus = rest.split("|")[1]
    code, out, err = run_cli("sample", "status", sample, "--json")
    assert code == 0, err
    status = json.loads(out)
    row = next(r for r in status["languages"] if r["glottocode"] == g1)
    assert (row["family"], row["genus"]) == (lineage_of(g1).family, genus)
    assert sum(v["languages"] for v in status["by_family"].values()) == 3
    assert run_cli("sample", "matrix", sample, "--out", tmp_path / "m.csv")[0] == 0
    sheet = {r["glottocode"]: r for r in _rows(tmp_path / "m.csv")}
    assert sheet[g1]["genus"] == genus and sheet[g1]["macroarea"] == lineage_of(g1).macroarea
    code, _out, err = run_cli("sample", "export", sample, "--out", tmp_path / "cldf")
    assert code == 0, err
    import pycldf

    ds = pycldf.Dataset.from_metadata(tmp_path / "cldf" / "StructureDataset-metadata.json")
    languages = {r["Glottocode"]: r for r in ds["LanguageTable"]}
    assert languages[g1]["Genus"] == genus and languages[g1]["Family"] == lineage_of(g1).family


def test_balanced_keeps_one_language_per_genus_the_best_coded_one(sample, genus_pair) -> None:
    (g1, _n1), (g2, _n2), rest = genus_pair
    code, out, err = run_cli("sample", "status", sample, "--balanced", "--json")
    assert code == 0, err
    kept = {r["glottocode"] for r in json.loads(out)["languages"]}
    assert kept == {g2, rest.split("|")[0]}  # g2 has two decided values, g1 one: the same genus keeps g2
    assert "balanced subsample: 2 of 3 languages" in err


def test_a_language_only_in_wals_takes_the_glottolog_family_of_its_genus() -> None:
    from collections import Counter

    from core.catalog.genealogy import lineage_of

    grambank = {r["Glottocode"]: r for r in _rows(GRAMBANK)}
    wals = [r for r in _rows(WALS) if r["Glottocode"]]
    # Haya (haya1250) is in WALS only, genus Bantu; most Grambank languages of WALS's genus Bantu are Atlantic-Congo
    bantu = Counter(grambank[r["Glottocode"]]["Family_name"] for r in wals
                    if r["Genus"] == "Bantu" and r["Glottocode"] in grambank)
    assert "haya1250" not in grambank
    assert lineage_of("haya1250").family == bantu.most_common(1)[0][0] == "Atlantic-Congo"
    assert lineage_of("haya1250").genus == "Bantu"
