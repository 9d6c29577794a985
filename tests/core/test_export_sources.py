"""Each grammar cites its own source (issue 26, item 10; issue 30, items 8 and 10).

* every document of a project has its own BibTeX key, used for its pages in every export;
* the grammar's bibliographic record is kept in the project (migration 9), so an export reads no PDF;
* a value a coder set without pins cites no page of the model's.

Real projects (the demo grammar and a second PDF made from it with PyMuPDF), real exports validated by pycldf.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core.export import read_cldf_values
from tests.cli_runs import run_cli


def _pdf_of(project_path: Path) -> Path:
    from core.store import open_project
    from core.store.repository import list_documents

    with open_project(project_path, readonly=True) as project:
        return Path(list_documents(project)[0].path)


def _second_grammar(source: Path, out: Path, author: str, year: str) -> Path:
    """Another grammar PDF (other bytes, other metadata) with the demo's pages and one page more."""
    import pymupdf

    with pymupdf.open(source) as doc:
        page = doc.new_page(-1)
        page.insert_text((72, 100), f"A further volume by {author}.")
        doc.set_metadata({"author": author, "title": "Veshari texts", "creationDate": f"D:{year}0101000000"})
        doc.save(out)
    return out


@pytest.fixture
def two_grammars(demo_copy, tmp_path) -> Path:
    """The demo project with a second grammar ingested; GB020 pinned on page 3 of the SECOND grammar only."""
    from core import coding
    from core.ingest import ingest
    from core.store import open_project
    from core.store.repository import list_documents, list_paragraphs

    path = demo_copy("two/veshari.grammarlens")
    second = _second_grammar(_pdf_of(path), tmp_path / "texts.pdf", "Kalmar, Ingrid", "2019")
    with open_project(path, backup=False) as project:
        ingest(project, second)
        doc2 = list_documents(project)[1].id
        paragraph = next(p for p in list_paragraphs(project, doc2) if p.page_label == "3")
        coding.code(project, "GB020", "1", paragraph_ids=[paragraph.id], reviewer="ana")
        first = next(p for p in list_paragraphs(project, list_documents(project)[0].id) if p.page_label == "3")
        coding.code(project, "GB021", "0", paragraph_ids=[first.id], reviewer="ana")
    return path


def test_a_second_grammars_pin_is_cited_with_its_own_key_in_every_export(two_grammars, tmp_path) -> None:
    out = tmp_path / "cldf"
    code, _out, err = run_cli("export", two_grammars, "--format", "cldf", "--out", out)
    assert code == 0, err
    back = read_cldf_values(out / "StructureDataset-metadata.json")
    bib = (out / "sources.bib").read_text(encoding="utf-8")
    assert back["GB020"]["source"] == ["kalmar2019[3]"]  # today's main: the first grammar's key
    assert back["GB021"]["source"][0].endswith("[3]") and not back["GB021"]["source"][0].startswith("kalmar")
    assert "@book{kalmar2019," in bib and bib.count("@book{") == 2
    code, _out, err = run_cli("sample", "export", two_grammars, "--out", tmp_path / "sample")
    assert code == 0, err
    back = read_cldf_values(tmp_path / "sample" / "StructureDataset-metadata.json")
    assert back["GB020"]["source"] == ["kalmar2019[3]"]
    code, _out, err = run_cli("export", two_grammars, "--format", "csv", "--out", tmp_path / "csv")
    assert "kalmar2019[3]" in (tmp_path / "csv" / "profile.csv").read_text(encoding="utf-8")


def test_two_grammars_with_the_same_generated_key_get_two_keys(demo_copy, tmp_path) -> None:
    from core.ingest import ingest
    from core.store import open_project

    path = demo_copy("same/veshari.grammarlens")
    pdf = _pdf_of(path)
    twin = tmp_path / "twin.pdf"
    import pymupdf

    with pymupdf.open(pdf) as doc:  # the same metadata, other bytes
        doc.new_page(-1).insert_text((72, 100), "Errata.")
        doc.save(twin)
    with open_project(path, backup=False) as project:
        ingest(project, twin)
        from core.export.bibtex import export_sources

        keys = [d.key for d in export_sources(project).documents]
    assert len(keys) == 2 and keys[1] == keys[0] + "b"


def test_the_record_is_kept_in_the_project_so_exports_need_no_pdf(two_grammars, tmp_path) -> None:
    assert run_cli("export", two_grammars, "--format", "cldf", "--out", tmp_path / "first")[0] == 0
    (tmp_path / "texts.pdf").unlink()  # the second grammar's PDF is gone
    shutil.copytree(two_grammars.parent, tmp_path / "colleague")
    code, _out, err = run_cli("sample", "export", tmp_path / "colleague", "--out", tmp_path / "sample")
    assert code == 0, err
    bib = (tmp_path / "sample" / "sources.bib").read_text(encoding="utf-8")
    assert "Kalmar, Ingrid" in bib and "@book{kalmar2019," in bib


def test_the_document_sources_migration_reads_the_record_of_documents_ingested_before(demo_copy) -> None:
    from core.store import open_project
    from core.store.document_sources import source_rows
    from core.store.migrations import MIGRATIONS

    path = demo_copy("old/veshari.grammarlens")
    number = next(n for n, m in enumerate(MIGRATIONS, 1) if m.__module__.endswith("_document_sources"))
    assert number == len(MIGRATIONS), "the file is rolled back by one migration: it must be the last"
    conn = sqlite3.connect(path)  # the file as the schema before left it: no bibkey, no bib_record
    conn.execute("ALTER TABLE documents DROP COLUMN bibkey")
    conn.execute("ALTER TABLE documents DROP COLUMN bib_record")
    conn.execute(f"PRAGMA user_version = {number - 1}")
    conn.commit()
    conn.close()
    with open_project(path, backup=False) as project:
        assert project.schema_version() == len(MIGRATIONS)
        record = source_rows(project)[0].record
    assert record is not None and set(record) == {"author", "title", "year"}


def test_an_unpinned_value_set_by_a_coder_cites_no_page_of_the_model(demo_copy, tmp_path) -> None:
    from core import coding
    from core.records.classifications import Classification, Evidence, ValueRecord
    from core.store import open_project
    from core.store.classifications import save_classification
    from core.store.repository import list_paragraphs

    path = demo_copy("m/veshari.grammarlens")
    with open_project(path, backup=False) as project:
        paragraph = next(p for p in list_paragraphs(project) if p.page_label == "3")
        for fid, code in (("GB020", "0"), ("GB021", "1")):
            save_classification(project, Classification(
                id=None, created_at="2026-01-02T03:04:05+00:00", feature_id=fid, feature_name=fid, config="rag",
                language="x", model="gpt-4o", base_url="http://127.0.0.1:1/v1", values=[ValueRecord(fid, code, "")],
                reasoning="", raw_answer="", status="ok", problem=None, flags=[],
                evidence=[Evidence(1, 1, "", "3", paragraph.id, None, True)], prompt_hash="h", prompt_tokens=1,
                completion_tokens=1, evidence_tokens=1, cost_usd=None, seconds=0.1, cached=False,
                answer_format="conclusion"), {})
        coding.code(project, "GB020", "?", reviewer="ana")  # the model said "absent" citing page 3
    out = tmp_path / "cldf"
    assert run_cli("export", path, "--format", "cldf", "--out", out)[0] == 0
    back = read_cldf_values(out / "StructureDataset-metadata.json")
    assert "[" not in back["GB020"]["source"][0]  # the grammar, no page of the model's
    assert "coded from the grammar without pinned evidence" in back["GB020"]["comment"]
    assert back["GB021"]["source"][0].endswith("[3]")  # the model's own value keeps the model's page
