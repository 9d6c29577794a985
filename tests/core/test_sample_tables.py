"""Issue 30: the sample in the shapes others load — a long table read back as R's read.csv and pandas.read_csv read it
(a header, one row per value, RFC 4180 quoting, numbers as numbers), a NEXUS matrix parsed back with commonnexus,
Grambank coding sheets, and CLDF metadata with contributors and a licence, validated by pycldf.

pandas itself is not installed: sqlite_utils imports pandas at import time whenever it is there, which
would add ~26 MB and an import to every GrammarLens process of the venv (the sample bench's memory).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cli_runs import run_cli
from tests.fixtures_sample import code_values


@pytest.fixture
def sample(demo_copy) -> Path:
    """Moloko (ana: GB020 1 pinned on p. 3, GB021 0, GB022 "?", 81A SOV) and Abadi (ben: GB020 0)."""
    from core import coding
    from core.models import Language
    from core.store import open_project
    from core.store.repository import list_paragraphs, set_language

    one, two = demo_copy("s/moloko.grammarlens"), demo_copy("s/abadi.grammarlens")
    for path, name, code in ((one, "Moloko", "molo1266"), (two, "Abadi", "abad1241")):
        with open_project(path, backup=False) as p:
            set_language(p, Language(name=name, glottocode=code, source="user"))
    with open_project(one, backup=False) as p:
        paragraph = next(q for q in list_paragraphs(p) if q.page_label == "3")
        coding.code(p, "GB020", "1", paragraph_ids=[paragraph.id], reviewer="ana")
    code_values(one, {"GB021": "0", "GB022": "?", "81A": "SOV"}, "ana")
    code_values(two, {"GB020": "0"}, "ben")
    return one.parent


def test_the_long_table_loads_as_a_data_frame_with_places_and_families(sample, tmp_path) -> None:
    from core.catalog.genealogy import lineage_of
    from core.catalog.languages import place_of
    from core.sample.tables import LONG_COLUMNS

    out = tmp_path / "long.csv"
    code, _out, err = run_cli("sample", "export", sample, "--format", "long", "--out", out)
    assert code == 0, err
    with open(out, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        table = list(reader)
    assert tuple(reader.fieldnames or ()) == LONG_COLUMNS  # one header row, the long shape
    assert len(table) == 5 and {r["glottocode"] for r in table} == {"molo1266", "abad1241"}
    assert all(len(r) == len(LONG_COLUMNS) and None not in r for r in table)  # every row complete
    moloko = next(r for r in table if r["glottocode"] == "molo1266" and r["feature"] == "GB020")
    assert (moloko["value"], moloko["status"], moloko["coder"]) == ("1", "coded", "ana")
    assert moloko["family"] == lineage_of("molo1266").family == "Afro-Asiatic"
    assert float(moloko["latitude"]) == pytest.approx(place_of("molo1266").latitude)  # numbers, not text
    assert moloko["source"].endswith("[3]")
    assert next(r for r in table if r["feature"] == "GB022")["value"] == "?"


def test_the_nexus_matrix_parses_back_with_the_binary_features(sample, tmp_path) -> None:
    from commonnexus import Nexus

    out = tmp_path / "sample.nex"
    assert run_cli("sample", "export", sample, "--format", "nexus", "--out", out)[0] == 0
    nexus = Nexus.from_file(out)
    matrix = nexus.characters.get_matrix()
    assert set(matrix) == {"molo1266", "abad1241"}
    assert list(matrix["molo1266"]) == ["GB020", "GB021", "GB022"]  # 81A is not binary: left out
    assert [matrix["molo1266"][f] for f in ("GB020", "GB021")] == ["1", "0"]
    assert matrix["molo1266"]["GB022"] is None and matrix["abad1241"]["GB021"] is None  # "?": missing
    assert matrix["abad1241"]["GB020"] == "0"


def test_grambank_sheets_have_grambanks_columns_and_every_feature(sample, tmp_path) -> None:
    from core.catalog import load_catalog

    out = tmp_path / "sheets"
    assert run_cli("sample", "export", sample, "--format", "grambank", "--out", out)[0] == 0
    with open(out / "molo1266.tsv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert list(rows[0]) == ["Feature_ID", "Value", "Source", "Contributor", "Comment"]
    grambank = [f.id for f in load_catalog().by_dataset("Grambank") if not f.multi_label]
    assert [r["Feature_ID"] for r in rows] == grambank
    by_id = {r["Feature_ID"]: r for r in rows}
    assert (by_id["GB020"]["Value"], by_id["GB020"]["Contributor"]) == ("1", "ana")
    assert by_id["GB022"]["Value"] == "?" and by_id["GB107"]["Value"] == ""


def test_cldf_metadata_names_the_coders_and_the_licence_chosen(sample, tmp_path) -> None:
    import pycldf

    out = tmp_path / "cldf"
    code, _out, err = run_cli("sample", "export", sample, "--out", out, "--licence", "CC-BY-SA-4.0")
    assert code == 0, err
    ds = pycldf.Dataset.from_metadata(out / "StructureDataset-metadata.json")
    ds.validate()
    assert ds.properties["dc:contributor"] == ["ana", "ben"]
    assert ds.properties["dc:license"] == "https://creativecommons.org/licenses/by-sa/4.0/"
