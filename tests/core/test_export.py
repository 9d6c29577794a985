"""Exports: CLDF validated with pycldf and read back, sources as bibkey[printed pages], CSV, JSON, BibTeX."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from core.errors import GrammarLensError
from core.export import export_profile, get_bibtex, read_cldf_values, set_bibtex
from core.export.cldf import page_ranges
from core.profile import BatchSettings, build_profile, open_job, run_job
from core.retrieval import RetrievalSettings
from core.store import open_project
from core.store.repository import get_paragraphs
from tests.fixtures_profile import ARMENIAN_GLOTTOCODE, ARMENIAN_PRINTED_1, PROFILE_FEATURES
from tests.reviews import add_review


def run_profile(path: Path, llm_settings) -> None:
    settings = BatchSettings(llm=llm_settings, retrieval=RetrievalSettings(reranker=None), concurrency=4)
    with open_project(path) as project:
        job = open_job(project, "test", list(PROFILE_FEATURES), settings)
    assert run_job(path, job.id, settings).state == "done"


def test_page_ranges() -> None:
    assert page_ranges(["36", "35", "37", "53", "4"]) == "4, 35-37, 53"
    assert page_ranges(["xii", "3", "xii"]) == "xii, 3"
    assert page_ranges([]) == ""


@pytest.mark.slow
def test_cldf_export_validates_reads_back_and_cites_printed_pages(armenian_project, canned_answers, llm_settings,
                                                                  tmp_path) -> None:
    import pycldf

    run_profile(armenian_project, llm_settings)
    with open_project(armenian_project) as project:
        entries = {e.feature_id: e for e in build_profile(project)}
        add_review(project, entries["GB020"].classification_id, "override", value="Not enough information")
        add_review(project, entries["81A"].classification_id, "override", value="No dominant order", note="see §5.1")
        entries = {e.feature_id: e for e in build_profile(project)}
        metadata = export_profile(project, "cldf", tmp_path / "cldf")
        key = "dolatian2023"
        assert get_bibtex(project).startswith("@book{" + key)
        cited = {fid: get_paragraphs(project, e.paragraph_ids) for fid, e in entries.items()}
    pycldf.Dataset.from_metadata(metadata).validate()  # raises if invalid
    back = read_cldf_values(metadata)
    exported = {fid for fid, e in entries.items() if e.has_value or e.is_unknown}
    assert set(back) == exported and len(back) == 18  # the reviewer's "?" is a row, as Grambank writes it
    # "?" is CLDF's null Value: written as "?" (see values.csv below), read back as None, no Code_ID
    assert back["GB020"]["value"] is None and back["GB020"]["code_id"] is None
    for fid, row in back.items():
        e = entries[fid]
        assert row["value"] == (None if e.is_unknown else e.code)
        assert row["code_id"] == (None if e.is_unknown else f"{fid}-{e.code}")
        assert row["language_id"] == ARMENIAN_GLOTTOCODE
        # the printed page of each cited paragraph, checked against its PDF page (printed 1 = PDF 13)
        labels = [p.page_label for p in cited[fid]]
        assert labels and all(int(p.page_label) == p.pdf_page - ARMENIAN_PRINTED_1 + 1 if p.page_label.isdigit()
                              else p.pdf_page < ARMENIAN_PRINTED_1 for p in cited[fid])
        assert row["source"] == [f"{key}[{page_ranges(labels)}]"]
    assert back["81A"]["value"] == "7" and "override" in back["81A"]["comment"] and "§5.1" in back["81A"]["comment"]
    folder = metadata.parent
    with open(folder / "languages.csv", newline="", encoding="utf-8") as fh:
        assert [r["Glottocode"] for r in csv.DictReader(fh)] == [ARMENIAN_GLOTTOCODE]
    with open(folder / "codes.csv", newline="", encoding="utf-8") as fh:
        codes = {r["ID"]: r["Name"] for r in csv.DictReader(fh)}
    assert codes["81A-7"] == "No dominant order" and codes["GB107-1"]
    assert "@book{" + key in (folder / "sources.bib").read_text(encoding="utf-8")
    with open(folder / "values.csv", newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
        raw = {r[2]: r for r in csv.reader(fh)}
    assert header[:7] == ["ID", "Language_ID", "Parameter_ID", "Value", "Code_ID", "Comment", "Source"]
    assert raw["GB020"][3:5] == ["?", ""]


@pytest.mark.slow
def test_cli_export_csv_json_and_bibtex(armenian_project, canned_answers, llm_settings, tmp_path, capsys,
                                        shared_dir) -> None:
    from cli import main

    run_profile(armenian_project, llm_settings)
    bib = tmp_path / "grammar.bib"
    bib.write_text("@book{vaux2023,\n  author = {Vaux, Bert},\n  title = {A grammar of Iranian Armenian},\n"
                   "  publisher = {Language Science Press},\n  year = {2023}\n}\n", encoding="utf-8")
    assert main(["bibtex", str(armenian_project), "--set", str(bib)]) == 0
    assert "Language Science Press" in capsys.readouterr().out
    broken = tmp_path / "broken.bib"
    broken.write_text("@book{x, title = {unclosed", encoding="utf-8")
    assert main(["bibtex", str(armenian_project), "--set", str(broken)]) == 2
    assert main(["export", str(armenian_project), "--format", "csv", "--out", str(tmp_path / "o"),
                 "--cldf", str(shared_dir / "cldf")]) == 0
    with open(tmp_path / "o" / "profile.csv", newline="", encoding="utf-8") as fh:
        rows = {r["feature_id"]: r for r in csv.DictReader(fh)}
    assert len(rows) == 18 and rows["GB257"]["agreement"] == "agree" and rows["81A"]["agreement"] == "disagree"
    assert rows["81A"]["source"].startswith("vaux2023[") and rows["GB020"]["reference_dataset"] == ""
    assert main(["export", str(armenian_project), "--format", "json", "--out", str(tmp_path / "j")]) == 0
    data = json.loads((tmp_path / "j" / "profile.json").read_text(encoding="utf-8"))
    assert data["glottocode"] == ARMENIAN_GLOTTOCODE and len(data["values"]) == 18
    assert data["bibtex"].startswith("@book{vaux2023")
    assert main(["export", str(armenian_project), "--format", "cldf", "--out", str(tmp_path / "c"),
                 "--reviewed-only"]) == 0  # nothing reviewed yet: a valid, empty value table
    with open(tmp_path / "c" / "values.csv", newline="", encoding="utf-8") as fh:
        assert list(csv.DictReader(fh)) == []


def test_bibtex_generated_from_pdf_metadata_and_checked(llm_project) -> None:
    project = llm_project.project
    text = get_bibtex(project)  # the fixture's PDF does not exist: title only
    assert text.startswith("@book{") and "A grammar of Testish" in text
    with pytest.raises(GrammarLensError):
        set_bibtex(project, "@book{a, title={x}}\n@book{b, title={y}}")
    assert set_bibtex(project, "@misc{k1, title = {T}}").startswith("@misc{k1")
    assert get_bibtex(project).startswith("@misc{k1")


def test_export_without_values_is_a_clear_error(mini_project, tmp_path) -> None:
    with open_project(mini_project) as project, pytest.raises(GrammarLensError, match="no classified"):
        export_profile(project, "cldf", tmp_path / "out")
