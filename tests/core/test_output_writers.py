"""Every core writer checks its output and its ``.part`` with core.output_paths (issue 19).

Each writer is given real inputs under which, without the check, it would have written over a
project (or created folders, or left a ``.part``): the project must come out byte for byte the same.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.errors import GrammarLensError
from core.output_paths import is_project_file
from core.profile import BatchSettings
from core.retrieval import RetrievalSettings
from core.store import create_project
from tests.fixtures_ingest import write_sample_book


def _other_project(path: Path) -> tuple[Path, str]:
    """A closed project (someone else's work) and the digest of its bytes."""
    create_project(path).close()
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _unchanged(path: Path, digest: str) -> None:
    assert is_project_file(path) and hashlib.sha256(path.read_bytes()).hexdigest() == digest


def _settings(llm) -> BatchSettings:
    return BatchSettings(mode="llm", config="rag", llm=llm, retrieval=RetrievalSettings(reranker=None))


def _requests(llm_project, llm_settings, folder: Path) -> Path:
    from core.profile.batch_files import write_batch_requests

    out = folder / "requests.jsonl"
    write_batch_requests([llm_project.path], ["81A"], out, _settings(llm_settings))
    return out


# -- write_batch_requests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["out", "part"])
def test_write_batch_requests_never_writes_over_a_project(llm_project, llm_settings, tmp_path, where) -> None:
    from core.profile.batch_files import write_batch_requests

    llm_project.project.close()
    out = tmp_path / "requests.jsonl"
    victim, digest = _other_project(out if where == "out" else tmp_path / "requests.jsonl.part")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_batch_requests([llm_project.path], ["81A"], out, _settings(llm_settings))
    _unchanged(victim, digest)


def test_write_batch_requests_refuses_a_part_that_is_a_folder_and_rewrites_its_own_file(llm_project, llm_settings,
                                                                                       tmp_path) -> None:
    from core.profile.batch_files import write_batch_requests

    llm_project.project.close()
    out = _requests(llm_project, llm_settings, tmp_path)
    first = out.read_bytes()
    (tmp_path / "again.jsonl.part").mkdir()
    with pytest.raises(GrammarLensError, match="is a folder"):
        write_batch_requests([llm_project.path], ["GB107"], tmp_path / "again.jsonl", _settings(llm_settings))
    assert not (tmp_path / "again.jsonl").exists()
    report = write_batch_requests([llm_project.path], ["GB107"], out, _settings(llm_settings))  # a plain file
    assert report.written == 1 and out.read_bytes() != first


# -- batch_api.fetch ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["out", "part"])
def test_fetch_never_writes_over_a_project(llm_project, llm_settings, tmp_path, where) -> None:
    from core.llm.batch_api import fetch, status, submit

    llm_project.project.close()
    batch = submit(_requests(llm_project, llm_settings, tmp_path), llm_settings)
    for _ in range(10):  # finished, so that nothing but the check stands between the download and the project
        if status(batch.id, llm_settings).status == "completed":
            break
    out = tmp_path / "results.jsonl"
    victim, digest = _other_project(out if where == "out" else tmp_path / "results.jsonl.part")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        fetch(batch.id, out, llm_settings)
    _unchanged(victim, digest)
    if where == "part":
        assert not out.exists()
    victim.unlink()
    assert fetch(batch.id, out, llm_settings).answers == 1  # refused for the project only


# -- bench rag --batch-out ----------------------------------------------------------------------------------

def test_bench_rag_write_requests_checks_out_and_part_and_leaves_no_part(tmp_path) -> None:
    from bench.rag_batch import write_requests
    from core.catalog import load_catalog
    from core.llm import LlmSettings

    spec, settings, empty = load_catalog().get("81A"), LlmSettings(), tmp_path / "no-benchmark"
    empty.mkdir()
    victim, digest = _other_project(tmp_path / "requests.jsonl")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_requests(empty, spec, settings, victim)
    _unchanged(victim, digest)
    part_victim, part_digest = _other_project(tmp_path / "r.jsonl.part")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_requests(empty, spec, settings, tmp_path / "r.jsonl")
    _unchanged(part_victim, part_digest)
    with pytest.raises(GrammarLensError, match="is missing"):  # fails after the .part was opened: none is left
        write_requests(empty, spec, settings, tmp_path / "s.jsonl")
    assert not (tmp_path / "s.jsonl.part").exists() and not (tmp_path / "s.jsonl").exists()


# -- judged grading sheet, demo grammar ------------------------------------------------------------------------

def test_write_grading_sheet_refuses_a_project_and_a_pdf_and_rewrites_its_own_sheet(tmp_path) -> None:
    from bench.judged_report import write_grading_sheet

    entry = {"feature": "81A", "file": "g.pdf", "sha256": "x", "pdf_page": 3, "text_hash": "h", "loose_hash": "l",
             "page_label": "1", "section": "1 > 2", "text": "Word order is SOV."}
    victim, digest = _other_project(tmp_path / "sheet.csv")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_grading_sheet([entry], victim)
    _unchanged(victim, digest)
    pdf = write_sample_book(tmp_path / "grammar.dat").path  # a PDF under any name
    before = pdf.read_bytes()
    with pytest.raises(GrammarLensError, match="PDF"):
        write_grading_sheet([entry], pdf)
    assert pdf.read_bytes() == before
    sheet = tmp_path / "grades.csv"
    sheet.write_text("old\n", encoding="utf-8")
    write_grading_sheet([entry], sheet)
    assert sheet.read_text(encoding="utf-8").startswith("feature,")


def test_write_demo_grammar_refuses_a_project_and_a_missing_folder(tmp_path) -> None:
    from core.demo import write_demo_grammar

    victim, digest = _other_project(tmp_path / "demo.grammarlens")
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_demo_grammar(victim)
    _unchanged(victim, digest)
    named_pdf, pdf_digest = _other_project(tmp_path / "project.pdf")  # a project under a PDF's name
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        write_demo_grammar(named_pdf)
    _unchanged(named_pdf, pdf_digest)
    with pytest.raises(GrammarLensError, match="does not exist"):
        write_demo_grammar(tmp_path / "new" / "demo.pdf")
    assert not (tmp_path / "new").exists()
    old = write_sample_book(tmp_path / "demo.pdf").path
    assert write_demo_grammar(old) == old and b"Veshari" in old.read_bytes()  # a PDF is overwritten, as documented


# -- bench profile --batch-out -------------------------------------------------------------------------------

def test_run_bench_profile_never_deletes_a_project_named_as_batch_out(tmp_path, llm_settings) -> None:
    from bench.profile import run_bench_profile
    from core.profile.scoring import GoldValue

    grammars = tmp_path / "grammars"
    grammars.mkdir()
    write_sample_book(grammars / "teshi.pdf")
    (grammars / "grammars.csv").write_text("file,language,glottocode\nteshi.pdf,Teshi,tesh1234\n", encoding="utf-8")
    gold = [GoldValue("teshi.pdf", "Teshi", "tesh1234", "81A", "1")]
    victim, digest = _other_project(tmp_path / "batch.jsonl")
    work = tmp_path / "work"
    with pytest.raises(GrammarLensError, match="GrammarLens project"):
        run_bench_profile(gold, grammars, work, _settings(llm_settings), batch_out=victim)
    _unchanged(victim, digest)
    assert not work.exists()  # refused before the first grammar was ingested
    report = run_bench_profile(gold, grammars, work, _settings(llm_settings), batch_out=tmp_path / "ok.jsonl")
    assert report.batch_written == 1 and (tmp_path / "ok.jsonl").exists()
