"""A failed export leaves its target as it was; long notes are exported whole (issue 19).

Failures are provoked where they really happen: pycldf's validation, a write, a move into place,
a Ctrl-C.  After each, the target folder is compared byte for byte with what it held before, and
the parent folder must hold no temporary folder.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from core.coding.decisions import code
from core.errors import GrammarLensError
from core.export import export_cldf, export_csv, export_json, export_profile, read_cldf_values
from core.export.staging import csv_field_limit
from core.profile import build_profile
from core.store import create_project

LONG_NOTE = ("Line one, \"quoted\"; tab\there.\n" + "x" * 199_000 + "\nend é 😀")[:200_000]


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.exists():
        return None
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _no_leftovers(parent: Path) -> None:
    assert [p.name for p in parent.iterdir() if p.name.startswith(".")] == []


@pytest.fixture
def project(llm_project):
    code(llm_project.project, "81A", "SOV", reviewer="Ana", note="first")
    code(llm_project.project, "GB107", "present", reviewer="Ana")
    return llm_project.project


def _fail_validation(monkeypatch) -> None:
    import pycldf

    def invalid(self, *args, **kwargs):
        raise ValueError("values.csv:2:Source missing source key: x")

    monkeypatch.setattr(pycldf.Dataset, "validate", invalid)


def test_a_cldf_export_that_does_not_validate_leaves_no_folder(project, tmp_path, monkeypatch) -> None:
    _fail_validation(monkeypatch)
    out = tmp_path / "cldf"
    with pytest.raises(GrammarLensError, match="did not validate") as err:
        export_profile(project, "cldf", out)
    assert "Nothing was written" in err.value.hint
    assert not out.exists()
    _no_leftovers(tmp_path)


@pytest.mark.parametrize("fmt", ["cldf", "csv", "json"])
def test_a_missing_parent_folder_is_refused_not_created(project, tmp_path, fmt) -> None:
    out = tmp_path / "new" / "deeper" / fmt
    before = _names(tmp_path)
    exporter = {"cldf": export_cldf, "csv": export_csv, "json": export_json}[fmt]
    for export in (lambda: export_profile(project, fmt, out), lambda: exporter(project, build_profile(project), out)):
        with pytest.raises(GrammarLensError, match="does not exist") as err:
            export()
        assert "Create it first" in err.value.hint
        assert _names(tmp_path) == before  # no "new" folder


@pytest.mark.parametrize("fmt", ["cldf", "csv", "json"])
def test_an_earlier_export_is_replaced_only_with_overwrite(project, tmp_path, fmt) -> None:
    out = tmp_path / "out"
    export_profile(project, fmt, out)
    before = _snapshot(out)
    code(project, "81A", "SVO", reviewer="Ben")
    exporter = {"cldf": export_cldf, "csv": export_csv, "json": export_json}[fmt]
    for export in (lambda: export_profile(project, fmt, out), lambda: exporter(project, build_profile(project), out)):
        with pytest.raises(GrammarLensError, match="already holds an export"):
            export()
        assert _snapshot(out) == before
    exporter(project, build_profile(project), out, overwrite=True)
    assert _snapshot(out) != before
    _no_leftovers(tmp_path)


@pytest.mark.parametrize("name", ["p.grammarlens", "grammar.pdf", "real project"])
def test_an_export_into_a_project_or_a_pdf_is_refused_by_the_core(project, tmp_path, name) -> None:
    """The window calls the core directly: the core itself refuses these, whatever ``overwrite`` says."""
    target = tmp_path / name
    if name == "real project":
        create_project(target).close()
    files = lambda: [n for n in _names(tmp_path) if not n.endswith(("-wal", "-shm"))]  # noqa: E731
    before = files()
    for fmt in ("cldf", "csv", "json"):
        with pytest.raises(GrammarLensError, match="project|PDF"):
            export_profile(project, fmt, target, overwrite=True)
    assert files() == before  # (SQLite's read-only look at a closed WAL project may leave its empty -wal/-shm)
    assert not target.exists() or target.is_file()


@pytest.mark.parametrize("fmt", ["cldf", "csv", "json"])
def test_a_failed_export_leaves_an_existing_folder_as_it_was(project, tmp_path, monkeypatch, fmt) -> None:
    out = tmp_path / "out"
    export_profile(project, fmt, out)
    (out / "my notes.txt").write_text("the linguist's own file", encoding="utf-8")
    before = _snapshot(out)
    code(project, "81A", "SVO", reviewer="Ben")
    if fmt == "cldf":
        _fail_validation(monkeypatch)
    elif fmt == "csv":
        monkeypatch.setattr(csv.DictWriter, "writerow",
                            _raise_after(csv.DictWriter.writerow, 1, OSError(28, "No space left on device")))
    else:
        monkeypatch.setattr(Path, "write_text", _raise_after(Path.write_text, 0, KeyboardInterrupt()))
    with pytest.raises((GrammarLensError, KeyboardInterrupt)):
        export_profile(project, fmt, out, overwrite=True)
    assert _snapshot(out) == before
    _no_leftovers(tmp_path)


def test_a_move_into_place_that_fails_puts_the_old_files_back(project, tmp_path, monkeypatch) -> None:
    out = tmp_path / "out"
    export_profile(project, "cldf", out)
    before = _snapshot(out)
    code(project, "81A", "SVO", reviewer="Ben")
    from core.export import staging

    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 5:  # mid-way: some new files are in, some old ones set aside
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(staging.os, "replace", flaky)
    with pytest.raises(GrammarLensError, match="Cannot write the export"):
        export_profile(project, "cldf", out, overwrite=True)
    monkeypatch.setattr(staging.os, "replace", real)
    assert _snapshot(out) == before
    _no_leftovers(tmp_path)


def test_a_successful_export_replaces_its_files_and_keeps_the_others(project, tmp_path) -> None:
    out = tmp_path / "out"
    export_profile(project, "cldf", out)
    (out / "README.md").write_text("mine", encoding="utf-8")
    code(project, "81A", "SVO", reviewer="Ben")
    export_profile(project, "cldf", out, overwrite=True)
    assert read_cldf_values(out / "StructureDataset-metadata.json")["81A"]["value"] == "2"
    assert (out / "README.md").read_text(encoding="utf-8") == "mine"
    _no_leftovers(tmp_path)


def test_a_new_export_folder_gets_the_usual_permissions(project, tmp_path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    export_profile(project, "csv", tmp_path / "csv")
    assert (tmp_path / "csv").stat().st_mode & 0o777 == 0o777 & ~umask  # not mkdtemp's 0700


def test_an_export_onto_a_file_is_refused_before_anything_is_written(project, tmp_path) -> None:
    target = tmp_path / "profile.csv"
    target.write_text("keep me", encoding="utf-8")
    for fmt in ("cldf", "csv", "json"):
        with pytest.raises(GrammarLensError, match="is a file"):
            export_profile(project, fmt, target)
    assert target.read_text(encoding="utf-8") == "keep me"
    _no_leftovers(tmp_path)


def test_a_200000_character_note_is_exported_whole(project, tmp_path) -> None:
    limit = csv.field_size_limit()
    code(project, "GB107", "present", note=LONG_NOTE, reviewer="Ana")
    metadata = export_profile(project, "cldf", tmp_path / "cldf")
    assert csv.field_size_limit() == limit  # raised for the validation only
    comment = read_cldf_values(metadata)["GB107"]["comment"]
    assert comment.endswith(". Note: " + LONG_NOTE)
    with csv_field_limit(), open(export_profile(project, "csv", tmp_path / "csv"), newline="", encoding="utf-8") as fh:
        assert {r["feature_id"]: r["note"] for r in csv.DictReader(fh)}["GB107"] == LONG_NOTE
    data = json.loads(export_profile(project, "json", tmp_path / "json").read_text(encoding="utf-8"))
    assert {v["feature_id"]: v["note"] for v in data["values"]}["GB107"] == LONG_NOTE
    assert csv.field_size_limit() == limit


def test_csv_field_limit_is_restored_by_the_last_of_overlapping_blocks() -> None:
    limit = csv.field_size_limit()
    with csv_field_limit():
        raised = csv.field_size_limit()
        assert raised > 10**9
        with csv_field_limit():
            pass
        assert csv.field_size_limit() == raised  # an inner block leaving does not lower it under the outer one
    assert csv.field_size_limit() == limit


def _raise_after(original, n: int, exc: BaseException):
    """``original`` that works ``n`` times, then raises ``exc`` (a full disk, a Ctrl-C)."""
    calls = []

    def fail(*args, **kwargs):
        calls.append(1)
        if len(calls) > n:
            raise exc
        return original(*args, **kwargs)

    return fail


def test_cli_export_prints_warnings_and_replaces_an_earlier_export_only_with_force(tmp_path, capsys) -> None:
    from cli import main

    path = tmp_path / "bare.grammarlens"  # no grammar, no language: the export says what it left out
    with create_project(path) as bare:
        code(bare, "81A", "SOV", reviewer="Ana")
    out = tmp_path / "cldf"
    assert main(["export", str(path), "--format", "cldf", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: The project has no language set" in err and "warning: The project has no grammar" in err
    assert main(["export", str(path), "--format", "cldf", "--out", str(out)]) == 2
    assert "already holds an export" in capsys.readouterr().err
    assert main(["export", str(path), "--format", "cldf", "--out", str(out), "--force"]) == 0
