"""Glottocodes are checked where they are set, and exports survive a malformed one stored earlier (issue 19)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from core.catalog.glottocode import EXAMPLE, check_glottocode, known_glottocodes
from core.coding.decisions import code
from core.errors import GrammarLensError
from core.export import export_profile, read_cldf_values
from core.models import Language
from core.store import create_project, open_project
from core.store.repository import get_language, set_language

MALFORMED = ["bad!code", "molo126", "molo12667", "1234abcd", "mo lo1266", "molo-1266", "αβγδ1234", "molo１２６６",
             "molo1266; drop table", "nucl1235 nucl1235"]


def test_the_example_in_the_hint_is_a_known_code() -> None:
    assert EXAMPLE in known_glottocodes() and len(known_glottocodes()) > 3000


def test_check_glottocode() -> None:
    assert check_glottocode("molo1266") == ("molo1266", True, "")
    assert check_glottocode("  MOLO1266\n") == ("molo1266", True, "")  # blanks and capitals forgiven
    assert check_glottocode(None) == check_glottocode("") == check_glottocode("  ") == (None, False, "")
    unknown = check_glottocode("abcd1234")
    assert unknown.code == "abcd1234" and not unknown.known and "not in" in unknown.note and "glottolog" in unknown.note


@pytest.mark.parametrize("bad", MALFORMED)
def test_a_malformed_glottocode_is_refused_with_the_format_and_an_example(bad: str) -> None:
    with pytest.raises(GrammarLensError) as err:
        check_glottocode(bad)
    assert "not a Glottocode" in err.value.message
    assert EXAMPLE in err.value.hint and "four" in err.value.hint


def test_set_language_stores_nothing_for_a_malformed_code_and_notes_an_unknown_one(tmp_path: Path) -> None:
    with create_project(tmp_path / "p.grammarlens") as project:
        assert set_language(project, Language("Moloko", "molo1266", "user")).note == ""
        for bad in MALFORMED:
            with pytest.raises(GrammarLensError):
                set_language(project, Language("Other", bad, "user"))
            assert get_language(project) == Language("Moloko", "molo1266", "user")
        check = set_language(project, Language("Newish", "newi1234", "user"))
        assert not check.known and check.note
        assert get_language(project) == Language("Newish", "newi1234", "user")
        set_language(project, Language("Newish", " NEWI1234", "user"))
        assert get_language(project).glottocode == "newi1234"


def test_cli_language_refuses_a_malformed_glottocode(tmp_path: Path, capsys) -> None:
    from cli import main

    path = tmp_path / "p.grammarlens"
    with create_project(path) as project:
        set_language(project, Language("P", "molo1266", "user"))
    assert main(["language", str(path), "--glottocode", "bad!code"]) == 2
    err = capsys.readouterr().err
    assert "not a Glottocode" in err and EXAMPLE in err and "Traceback" not in err
    with open_project(path) as project:
        assert get_language(project).glottocode == "molo1266"  # nothing stored


def test_export_leaves_out_a_malformed_glottocode_stored_by_an_old_version(llm_project, tmp_path: Path) -> None:
    project = llm_project.project
    code(project, "81A", "SOV", reviewer="Ana")
    project.conn.execute("UPDATE language SET glottocode = 'bad!code'")  # what 'language --glottocode' let through
    project.conn.commit()
    warnings: list[str] = []
    metadata = export_profile(project, "cldf", tmp_path / "cldf", on_warning=warnings.append)
    assert read_cldf_values(metadata)["81A"]["language_id"] == "testish"
    with open(metadata.parent / "languages.csv", newline="", encoding="utf-8") as fh:
        assert [(r["ID"], r["Name"], r["Glottocode"]) for r in csv.DictReader(fh)] == [("testish", "Testish", "")]
    assert len(warnings) == 1 and "'bad!code' is malformed" in warnings[0] and EXAMPLE in warnings[0]
    warnings.clear()
    data = json.loads(export_profile(project, "json", tmp_path / "json", on_warning=warnings.append)
                      .read_text(encoding="utf-8"))
    assert data["glottocode"] is None and data["language"] == "Testish" and "malformed" in warnings[0]


def test_export_warnings_reach_the_log_when_nobody_listens(llm_project, tmp_path: Path, caplog) -> None:
    project = llm_project.project
    code(project, "81A", "SOV")
    project.conn.execute("UPDATE language SET glottocode = 'x'")
    project.conn.commit()
    export_profile(project, "cldf", tmp_path / "cldf")
    assert any("malformed" in r.getMessage() and r.name == "core.export" for r in caplog.records)
