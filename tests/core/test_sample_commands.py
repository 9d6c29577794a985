"""``sample status|matrix|export|compare`` on the seven shared grammars' projects, and a sample's edge cases.

The seven projects are real ingests of ../shared/grammars (session fixture ``seven_grammar_projects``
in tests/fixtures_sample.py: language and Glottocode from grammars.csv, Grambank values coded by
two coders through core's coding API).  Commands run through ``cli.main`` in this process, or as a
child process where another process holds a project's write lock.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runs import run_cli, run_main
from tests.fixtures_sample import code_values

REPO = Path(__file__).resolve().parents[2]
GRAMBANK = REPO.parent / "shared" / "cldf" / "grambank"



@pytest.mark.slow  # ingests the seven shared grammars once per session (10-30 s on two cores)
def test_sample_export_of_the_seven_shared_grammars_validates_with_one_placed_language_row_each(
        seven_grammar_projects: Path, tmp_path: Path) -> None:
    import pycldf

    from tests.fixtures_shared import grammar_rows

    out = tmp_path / "cldf"
    code, stdout, err = run_cli("sample", "export", seven_grammar_projects, "--format", "cldf", "--out", out)
    assert code == 0, err
    assert "7 languages" in stdout
    ds = pycldf.Dataset.from_metadata(out / "StructureDataset-metadata.json")
    ds.validate()
    languages = list(ds["LanguageTable"])
    assert sorted(r["Glottocode"] for r in languages) == sorted(r["glottocode"] for r in grammar_rows())
    for r in languages:
        assert r["Latitude"] is not None and r["Longitude"] is not None and r["Macroarea"], r
    values = list(ds["ValueTable"])
    assert {v["Language_ID"] for v in values} == {r["ID"] for r in languages}
    assert {v["Status"] for v in values} <= {"coded", "unknown"} and all(v["Coder"] in ("ana", "ben") for v in values)
    sources = {s.id for s in ds.sources}
    assert len(sources) == 7  # one BibTeX entry per grammar
    assert all(v["Source"] and v["Source"][0].split("[")[0] in sources for v in values)


@pytest.mark.slow
def test_sample_compare_equals_an_independent_computation_on_the_same_values(seven_grammar_projects: Path,
                                                                             tmp_path: Path) -> None:
    """'sample compare' figures: agreement over items both sides coded with a real value, "?" and uncoded excluded
    and counted, macro-F1 over the same items (score_cell), recomputed here from project_codes and Grambank's rows."""
    from core.profile.agreement import load_reference_values
    from core.profile.scoring import project_codes, score_cell
    from core.store import open_project

    out = tmp_path / "disagreements.csv"
    code, stdout, err = run_cli("sample", "compare", seven_grammar_projects, "--reference", GRAMBANK, "--json",
                             "--out", out)
    assert code == 0, err
    report = json.loads(stdout)

    items = []  # (glottocode, feature, ours, theirs)
    features = {"GB107", "GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291", "81A"}
    for path in sorted(seven_grammar_projects.glob("*.grammarlens")):
        with open_project(path, readonly=True) as project:
            from core.store.repository import get_language

            glottocode = get_language(project).glottocode
            codes = project_codes(project)
        refs = load_reference_values([GRAMBANK], glottocode)
        for fid in sorted(features):
            if fid in refs:
                items.append((glottocode, fid, codes.get(fid), refs[fid].code))
    scored = [i for i in items if i[2] not in (None, "?") and i[3] not in (None, "?")]
    assert len(scored) > 15
    o = report["overall"]
    assert (o["items"], o["n"]) == (len(items), len(scored))
    assert o["agreement"] == pytest.approx(sum(i[2] == i[3] for i in scored) / len(scored))
    assert o["excluded"] == len(items) - len(scored)
    assert o["macro_f1"] == pytest.approx(score_cell([i[3] for i in scored], [i[2] for i in scored]).macro_f1)
    for fid in {i[1] for i in scored}:
        part = [i for i in scored if i[1] == fid]
        assert report["by_feature"][fid]["agreement"] == pytest.approx(sum(i[2] == i[3] for i in part) / len(part))
    assert sum(v["n"] for v in report["by_group"].values()) == len(scored)
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(report["disagreements"]) == sum(1 for i in scored if i[2] != i[3])
    assert all(r["ours"] != r["theirs"] and r["our_status"] in ("coded", "unknown") for r in rows)


@pytest.mark.slow
def test_sample_status_and_matrix_of_the_seven_grammars(seven_grammar_projects: Path, tmp_path: Path) -> None:
    code, stdout, err = run_cli("sample", "status", seven_grammar_projects, "--json")
    assert code == 0, err
    status = json.loads(stdout)
    assert len(status["languages"]) == 7 and status["problems"] == []
    for row in status["languages"]:
        assert row["grammars"] and row["glottocode"] and row["last_change"]
        counts = row["counts"]
        assert counts["coded"] + counts["unknown"] >= 1
        assert counts["uncoded"] == status["features"] - counts["coded"] - counts["unknown"]
        assert sum(counts.values()) == status["features"]  # disjoint columns
    out = tmp_path / "matrix.csv"
    code, stdout, err = run_cli("sample", "matrix", seven_grammar_projects, "--out", out)
    assert code == 0, err
    with open(out, newline="", encoding="utf-8") as fh:
        codes = list(csv.reader(fh))
    with open(tmp_path / "matrix.status.csv", newline="", encoding="utf-8") as fh:
        statuses = list(csv.reader(fh))
    assert codes[0] == statuses[0] and len(codes) == 8 and "81A" in codes[0]
    col = codes[0].index("81A")
    assert {r[col] for r in codes[1:]} == {"1"} and {r[col] for r in statuses[1:]} == {"coded"}
    code, _out, err = run_cli("sample", "matrix", seven_grammar_projects, "--out", out)
    assert code == 2 and "already exists" in err  # never overwritten without --force


def test_unreadable_projects_are_reported_one_by_one_and_the_rest_is_read(demo_copy, tmp_path: Path) -> None:
    good = demo_copy("sample/veshari.grammarlens")
    code_values(good, {"GB020": "1"}, "ana")
    (tmp_path / "sample" / "damaged.grammarlens").write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000)
    (tmp_path / "sample" / "empty.grammarlens").write_bytes(b"")
    code, stdout, err = run_cli("sample", "status", tmp_path / "sample", "--json")
    assert code == 1  # partly done: the command says what it could not read
    report = json.loads(stdout)
    assert [r["language"] for r in report["languages"]] == ["Veshari"]
    problems = {Path(p["path"]).name: p["error"] for p in report["problems"]}
    assert set(problems) == {"damaged.grammarlens", "empty.grammarlens"}
    assert all(problems.values())


def test_a_sample_project_held_by_a_writer_is_still_read(demo_copy, tmp_path: Path) -> None:
    """Another process holds BEGIN IMMEDIATE with an uncommitted write; 'sample status' reads the committed state."""
    project = demo_copy("sample/veshari.grammarlens")
    code_values(project, {"GB020": "1"}, "ana")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(project)!r}, isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE')\n"
         "c.execute(\"UPDATE language SET name = 'Uncommitted' WHERE id = 1\")\n"
         "print('holding', flush=True)\n"
         "sys.stdin.read()\n"
         "c.execute('ROLLBACK')\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        done = run_main("sample", "status", tmp_path / "sample", "--json")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(r["language"], r["counts"]["coded"]) for r in report["languages"]] == [("Veshari", 1)]


def test_a_list_file_names_projects_anywhere_and_a_project_is_a_sample_of_one(demo_copy, tmp_path: Path) -> None:
    one = demo_copy("x/one.grammarlens")
    two = demo_copy("y/deeper/two.grammarlens")
    listing = tmp_path / "sample.txt"
    listing.write_text(f"# my sample\nx/one.grammarlens\n{two}\n", encoding="utf-8")
    code, stdout, err = run_cli("sample", "status", listing, "--json")
    assert code == 0, err
    assert [Path(r["path"]).name for r in json.loads(stdout)["languages"]] == ["one.grammarlens", "two.grammarlens"]
    code, stdout, err = run_cli("sample", "status", one, "--json")
    assert code == 0 and len(json.loads(stdout)["languages"]) == 1
    shutil.rmtree(tmp_path / "y")
    code, stdout, err = run_cli("sample", "status", listing, "--json")
    assert code == 1 and "two.grammarlens" in json.loads(stdout)["problems"][0]["path"]


def test_sample_export_refuses_to_write_over_a_project(demo_copy, tmp_path: Path) -> None:
    project = demo_copy("sample/veshari.grammarlens")
    code, _out, err = run_cli("sample", "export", tmp_path / "sample", "--out", project)
    assert code == 2 and "error:" in err
    code, _out, err = run_cli("sample", "matrix", tmp_path / "sample", "--out", project)
    assert code == 2 and "error:" in err
