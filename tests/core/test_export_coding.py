"""End to end through the CLI on a generated grammar: code, pin, undo, --json, bad input, CLDF/CSV/JSON export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cli import main
from core.export import read_cldf_values
from core.export.cldf import page_ranges
from tests.fixtures_ingest import write_sample_book


@pytest.fixture
def project(tmp_path: Path, capsys) -> Path:
    book = write_sample_book(tmp_path / "teshi.pdf")
    path = tmp_path / "teshi.grammarlens"
    assert main(["ingest", str(book.path), "--project", str(path)]) == 0
    capsys.readouterr()
    return path


def _paragraphs(path: Path, capsys) -> list[dict]:
    assert main(["paragraphs", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _json(path: Path, feature: str, capsys) -> dict:
    assert main(["code", str(path), "--feature", feature, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _decision_rows(path: Path) -> int:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM decisions").fetchone()[0]


def test_code_pin_undo_json_and_bad_input(project: Path, capsys) -> None:
    paragraphs = _paragraphs(project, capsys)
    verb_final = next(p for p in paragraphs if p["text"].startswith("Teshi is a verb-final"))
    preface = paragraphs[1]
    assert _json(project, "81A", capsys) == {"feature": "81A", "value": None, "label": None, "status": "uncoded",
                                              "pins": [], "note": None, "reviewer": None, "time": None}
    assert main(["code", str(project), "--feature", "81A", "--value", "SOV", "--pin", str(verb_final["id"]),
                 "--page", "ii", "--note", "verb-final, §1", "--reviewer", "Ana"]) == 0
    capsys.readouterr()
    data = _json(project, "81A", capsys)
    assert {k: data[k] for k in ("feature", "value", "status", "note", "reviewer")} == {
        "feature": "81A", "value": "1", "status": "coded", "note": "verb-final, §1", "reviewer": "Ana"}
    assert data["pins"] == [{"paragraph_id": verb_final["id"], "page_label": verb_final["page_label"]},
                            {"paragraph_id": None, "page_label": "ii"}]
    assert data["time"].endswith("+00:00")
    assert main(["code", str(project), "--feature", "81A", "--value", "2", "--reviewer", "Ben"]) == 0
    capsys.readouterr()
    assert _json(project, "81A", capsys)["value"] == "2"

    stored = _decision_rows(project)
    bad = [["--value", "XYZ"], ["--value", "present"], ["--value", "SOV", "--pin", "99999"],
           ["--value", "SOV", "--page", "777"], ["--value", "SOV", "--pin", "p12"]]
    for args in bad:
        assert main(["code", str(project), "--feature", "81A", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "hint: " in err and "Traceback" not in err
    assert main(["code", str(project), "--feature", "116A*", "--value", "1"]) == 2
    assert "GB257" in capsys.readouterr().err
    assert _decision_rows(project) == stored  # nothing was stored

    assert main(["code", str(project), "--feature", "81A", "--undo"]) == 0
    assert "back to 1 (SOV)" in capsys.readouterr().out
    assert _json(project, "81A", capsys)["value"] == "1"
    assert main(["code", str(project), "--feature", "81A", "--undo"]) == 0
    assert main(["code", str(project), "--feature", "81A", "--undo"]) == 2
    assert "Nothing to undo for 81A" in capsys.readouterr().err
    assert main(["code", str(project), "--feature", "81A", "--history"]) == 0
    assert capsys.readouterr().out.count(" undo ") == 2

    # pins and notes alone keep the value; a preface paragraph pinned later is its own act
    assert main(["code", str(project), "--feature", "GB107", "--value", "present", "--reviewer", "Ana"]) == 0
    assert main(["code", str(project), "--feature", "GB107", "--pin", str(preface["id"])]) == 0
    assert main(["code", str(project), "--feature", "GB107", "--note", "suffix -ra"]) == 0
    capsys.readouterr()
    data = _json(project, "GB107", capsys)
    assert (data["value"], data["note"], [p["page_label"] for p in data["pins"]]) == ("1", "suffix -ra", ["i"])


def test_export_cites_pinned_pages_and_writes_question_marks_as_grambank(project: Path, tmp_path: Path,
                                                                          capsys) -> None:
    import pycldf

    paragraphs = _paragraphs(project, capsys)
    verb_final = next(p for p in paragraphs if p["text"].startswith("Teshi is a verb-final"))
    late = next(p for p in paragraphs if p["text"].startswith("The particle never occurs"))
    assert main(["bibtex", str(project), "--set", str(_bib(tmp_path))]) == 0
    for args in (["--feature", "81A", "--value", "SOV", "--pin", f"{verb_final['id']},{late['id']}",
                  "--reviewer", "Ana"],
                 ["--feature", "GB263", "--value", "present", "--page", "2", "--reviewer", "Ben"],
                 ["--feature", "GB107", "--value", "?", "--reviewer", "Ana", "--note", "no negation data"],
                 ["--feature", "49A", "--value", "?"],
                 ["--feature", "49A", "--undo"]):
        assert main(["code", str(project), *args]) == 0
    capsys.readouterr()
    out = tmp_path / "cldf"
    assert main(["export", str(project), "--format", "cldf", "--out", str(out)]) == 0
    metadata = out / "StructureDataset-metadata.json"
    pycldf.Dataset.from_metadata(metadata).validate()
    back = read_cldf_values(metadata)
    assert set(back) == {"81A", "GB263", "GB107"}  # 49A was undone
    pinned = [verb_final["page_label"], late["page_label"]]
    assert pinned[0] != pinned[1] and back["81A"]["source"] == [f"teshi2026[{page_ranges(pinned)}]"]
    assert back["81A"]["value"] == "1" and back["81A"]["code_id"] == "81A-1"
    assert "Coded by hand by Ana" in back["81A"]["comment"]
    assert back["GB263"]["source"] == ["teshi2026[2]"] and "by Ben" in back["GB263"]["comment"]
    assert back["GB107"]["value"] is None and back["GB107"]["code_id"] is None  # "?" is CLDF's null value
    assert "no negation data" in back["GB107"]["comment"]
    with open(out / "values.csv", newline="", encoding="utf-8") as fh:
        raw = {r["Parameter_ID"]: r for r in csv.DictReader(fh)}
    assert (raw["GB107"]["Value"], raw["GB107"]["Code_ID"]) == ("?", "")

    assert main(["export", str(project), "--format", "cldf", "--out", str(tmp_path / "known"), "--no-unknown"]) == 0
    assert set(read_cldf_values(tmp_path / "known" / "StructureDataset-metadata.json")) == {"81A", "GB263"}

    assert main(["export", str(project), "--format", "csv", "--out", str(tmp_path / "csv")]) == 0
    with open(tmp_path / "csv" / "profile.csv", newline="", encoding="utf-8") as fh:
        rows = {r["feature_id"]: r for r in csv.DictReader(fh)}
    assert {f: rows[f]["status"] for f in rows} == {"81A": "coded", "GB263": "coded", "GB107": "unknown"}
    assert rows["GB107"]["code"] == "?" and rows["81A"]["reviewer"] == "Ana" and rows["81A"]["pinned"] == "True"
    assert main(["export", str(project), "--format", "json", "--out", str(tmp_path / "json")]) == 0
    data = json.loads((tmp_path / "json" / "profile.json").read_text(encoding="utf-8"))
    assert {v["feature_id"]: v["status"] for v in data["values"]} == {f: rows[f]["status"] for f in rows}


def _bib(tmp_path: Path) -> Path:
    path = tmp_path / "teshi.bib"
    path.write_text("@book{teshi2026,\n  author = {Doe, Jane},\n  title = {A grammar of Teshi},\n  year = {2026}\n}\n",
                    encoding="utf-8")
    return path
