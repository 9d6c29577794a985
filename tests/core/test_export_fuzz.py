"""Exports never break on what the app accepted (issue 19): a seeded fuzz over a real small project,
the edge projects (no values, no grammar, no language, every feature coded), and Moloko for real.

Every export must succeed (CLDF validated by pycldf) and give back every note whole.  What the
fuzz found before the fix: a PDF title with an unbalanced brace and Moloko's author line broke the
BibTeX entry; a page label with ";" (a PDF's label prefix) split the Source list; a model's value
that the catalog no longer lists left a Code_ID pointing nowhere; a feature coded both alone and
as part of 116A* gave two rows with one ID; a stored malformed Glottocode or citation key failed
validation; a project without a grammar could not be exported at all.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
import time
from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.coding.decisions import code
from core.coding.values import value_choices
from core.errors import GrammarLensError
from core.export import export_profile, read_cldf_values
from core.export.staging import csv_field_limit
from core.models import Language
from core.records.classifications import Classification, Evidence, ValueRecord
from core.store import create_project, open_project
from core.store.classifications import save_classification
from core.store.repository import list_paragraphs, set_language
from tests.fixtures_export import MOLOKO_AUTHORS
from tests.fixtures_shared import GRAMMARS

ODD = ["\n", "\r\n", "\t", '"', "'", ",", ";", "\x00", "😀", "\u2028", "[", "]", "{", "}", "\\", "%", "&", " ", "é",
       "中", "=", "?", "NA", "null", "\ufeff", "word", "note", "@book{x,"]
CODABLE = [f.id for f in load_catalog() if not f.multi_label]
FUZZ_CASES = 40


def odd_text(rng: random.Random, most: int = 20) -> str:
    return "".join(rng.choice(ODD) for _ in range(rng.randint(0, most)))


def classification(feature_id: str, values: list[ValueRecord], *, model: str = "gpt-4o",
                   evidence: list[Evidence] = ()) -> Classification:
    """A stored model answer, as the classifier would save it."""
    return Classification(
        id=None, created_at="2026-01-02T03:04:05+00:00", feature_id=feature_id, feature_name=feature_id,
        config="rag", language="Teshi", model=model, base_url="http://127.0.0.1:1/v1", values=values,
        reasoning="because", raw_answer="answer", status="ok", problem=None, flags=[], evidence=list(evidence),
        prompt_hash="h", prompt_tokens=1, completion_tokens=1, evidence_tokens=1, cost_usd=None, seconds=0.1,
        cached=False, answer_format="conclusion")


def export_all(path: Path, out: Path, rng: random.Random | None = None) -> tuple[dict, list[str]]:
    """Export the project in the three formats; returns what each gives back per feature, and the warnings."""
    rng = rng or random.Random(0)
    warnings: list[str] = []
    out.mkdir(exist_ok=True)  # exports never create missing parent folders
    with open_project(path) as project:
        options = {"reviewed_only": rng.random() < 0.15, "include_unknown": rng.random() < 0.85}
        metadata = export_profile(project, "cldf", out / "cldf", on_warning=warnings.append, **options)
        csv_path = export_profile(project, "csv", out / "csv", on_warning=warnings.append)
        json_path = export_profile(project, "json", out / "json", on_warning=warnings.append)
    with csv_field_limit(), open(csv_path, newline="", encoding="utf-8") as fh:
        csv_rows = {r["feature_id"]: r for r in csv.DictReader(fh)}
    data = json.loads(json_path.read_text(encoding="utf-8"))
    return {"cldf": read_cldf_values(metadata), "csv": csv_rows,
            "json": {v["feature_id"]: v for v in data["values"]}, "data": data}, warnings


def check_notes(back: dict, notes: dict[str, str | None]) -> None:
    for fid, note in notes.items():
        assert (back["json"][fid]["note"] or None) == (note or None), fid
        assert back["csv"][fid]["note"] == (note or ""), fid
        if note and fid in back["cldf"]:
            assert back["cldf"][fid]["comment"].endswith(f". Note: {note}"), fid


def test_seeded_fuzz_over_a_real_small_project(_odd_book_master: Path, tmp_path: Path) -> None:
    rng = random.Random(20260102)
    with open_project(_odd_book_master) as project:
        labels = sorted({p.page_label for p in list_paragraphs(project)})
    assert "F;i" in labels and "[A]1" in labels
    for case in range(FUZZ_CASES):
        path = tmp_path / f"case{case}.grammarlens"
        shutil.copy(_odd_book_master, path)
        notes: dict[str, str | None] = {}
        with open_project(path) as project:
            roll = rng.random()
            if roll < 0.25:  # what older versions let through, or a project whose language was never set
                stored = rng.choice(["bad!code", " molo1266", "x"])
                project.conn.execute("UPDATE language SET glottocode = ?", (stored,))
            elif roll < 0.35:
                project.conn.execute("DELETE FROM language")
            elif roll < 0.6:
                name = odd_text(rng) or "?"
                set_language(project, Language(name, rng.choice([None, "molo1266", "zzzz9999"]), "user"))
            if rng.random() < 0.25:
                project.conn.execute("UPDATE documents SET bibtex = ?", (rng.choice([
                    "@book{a;b, title={x}}", "@book{k, author={A, B, C, D}, title={t}}", "garbage"]),))
            project.conn.commit()
            for fid in rng.sample(CODABLE, rng.choice([1, 3, 20, 60])):
                note = odd_text(rng) if rng.random() < 0.7 else None
                note = "x" * 150_000 + note if note is not None and rng.random() < 0.1 else note
                value = rng.choice([c for _k, c, _l in value_choices(fid)])
                decision = code(project, fid, value, page_labels=rng.sample(labels, rng.randint(0, 2)), note=note,
                                reviewer=odd_text(rng, 5))
                notes[fid] = decision.note
            if rng.random() < 0.5:  # model answers with odd labels, model names and cited page labels
                evidence = [Evidence(number=1, rank=1, text="", page_label=rng.choice(labels + ["p;1", "x]"]),
                                     paragraph_id=None, cited=True)]
                save_classification(project, classification(
                    "49A", [ValueRecord("49A", rng.choice(["2", "99"]), odd_text(rng, 8))],
                    model=odd_text(rng, 6), evidence=evidence), {})
        back, _warnings = export_all(path, tmp_path / f"out{case}", rng)
        check_notes(back, notes)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_model_values_the_catalog_does_not_list_and_duplicate_rows(llm_project, tmp_path: Path) -> None:
    project = llm_project.project
    save_classification(project, classification("81A", [ValueRecord("81A", "99", "an old catalog's value")]), {})
    save_classification(project, classification("116A*", [ValueRecord("GB257", "1", "present"),
                                                          ValueRecord("GB263", "0", "absent")]), {})
    save_classification(project, classification("GB257", [ValueRecord("GB257", "0", "absent")]), {})
    warnings: list[str] = []
    back = read_cldf_values(export_profile(project, "cldf", tmp_path / "cldf", on_warning=warnings.append))
    assert back["81A"]["value"] == "99" and back["81A"]["code_id"] is None
    assert back["GB263"]["code_id"] == "GB263-0" and back["GB257"]["value"] in ("0", "1")
    assert any("'99' is not one of" in w for w in warnings) and any("GB257 has more than one" in w for w in warnings)


def test_a_project_without_grammar_or_language_exports_with_warnings(tmp_path: Path) -> None:
    path = tmp_path / "bare.grammarlens"
    with create_project(path) as project:
        code(project, "81A", "SOV", note="from fieldwork")
    back, warnings = export_all(path, tmp_path / "out")
    assert back["cldf"]["81A"]["source"] == [] and back["cldf"]["81A"]["language_id"] == "unknown"
    assert back["data"]["language"] is None and back["data"]["bibtex"] is None
    assert any("no grammar" in w for w in warnings) and any("no language set" in w for w in warnings)


def test_a_project_whose_rows_have_no_value_exports_an_empty_value_table(llm_project, tmp_path: Path) -> None:
    project = llm_project.project
    save_classification(project, classification("81A", [ValueRecord("81A", None, "Not enough information")]), {})
    metadata = export_profile(project, "cldf", tmp_path / "cldf")
    assert read_cldf_values(metadata) == {}
    with pytest.raises(GrammarLensError, match="no classified"):
        with create_project(tmp_path / "empty.grammarlens") as empty:
            export_profile(empty, "cldf", tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_every_feature_coded(llm_project, tmp_path: Path) -> None:
    project = llm_project.project
    rng = random.Random(7)
    for fid in CODABLE:
        code(project, fid, rng.choice([c for _k, c, _l in value_choices(fid)]), note=f"note on {fid}\n\"quoted\"")
    back, _ = export_all(llm_project.path, tmp_path / "out")
    assert len(back["json"]) == len(back["csv"]) == len(CODABLE) > 350
    assert len(back["cldf"]) == sum(1 for r in back["csv"].values() if r["status"] != "note")


def test_moloko_exports_as_cldf(tmp_path: Path, capsys) -> None:
    """The grammar whose author line stopped every CLDF export, ingested and exported for real."""
    from cli import main

    path = tmp_path / "moloko.grammarlens"
    started = time.perf_counter()
    assert main(["ingest", str(GRAMMARS / "118_Moloko.pdf"), "--project", str(path)]) == 0
    ingested = time.perf_counter()
    with open_project(path) as project:
        code(project, "81A", "SOV", page_labels=["12"], note="Moloko is verb-initial? no: see §1.", reviewer="Ana")
        code(project, "GB107", "?", reviewer="Ana")
    capsys.readouterr()
    out = tmp_path / "cldf"
    assert main(["export", str(path), "--format", "cldf", "--out", str(out)]) == 0
    exported = time.perf_counter()
    assert "validated with pycldf" in capsys.readouterr().out
    back = read_cldf_values(out / "StructureDataset-metadata.json")
    assert back["81A"]["source"] == ["friesen2017[12]"] and back["81A"]["language_id"] == "molo1266"
    bib = (out / "sources.bib").read_text(encoding="utf-8")
    assert "author = {Friesen, Dianne and Isaac, Mana Djeme and Gaston, Ali and Samuel, Mana}" in bib
    with open_project(path) as project:
        from core.export.bibtex import get_bibtex
        from core.store.document_sources import pdf_record, source_rows

        assert pdf_record(str(GRAMMARS / "118_Moloko.pdf"))["author"] == MOLOKO_AUTHORS
        assert source_rows(project)[0].record["author"] == MOLOKO_AUTHORS  # kept in the project by the export
        assert get_bibtex(project).startswith("@book{friesen2017,")
    print(f"Moloko: ingest {ingested - started:.1f} s, CLDF export {exported - ingested:.1f} s")
