"""The window's export folder (core.output_paths, issue 29): named after the project, never at the top of the disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import GrammarLensError
from core.output_paths import export_folder_in, free_folder, holds_only_exports


def test_the_folder_is_named_after_the_project_and_format(tmp_path: Path) -> None:
    assert export_folder_in(tmp_path, tmp_path / "ulwa.grammarlens", "cldf") == tmp_path / "ulwa-cldf"
    assert export_folder_in(tmp_path, "Veshari demo.grammarlens", "csv") == tmp_path / "Veshari-demo-csv"
    assert export_folder_in(tmp_path, "???.grammarlens", "json").name == "profile-json"


def test_the_top_of_the_disk_is_refused() -> None:
    with pytest.raises(GrammarLensError, match="top of the disk") as caught:
        export_folder_in("/", "ulwa.grammarlens", "cldf")
    assert "Documents" in caught.value.hint


def test_only_a_folder_of_export_files_may_be_replaced_and_a_free_name_is_found(tmp_path: Path) -> None:
    target = tmp_path / "ulwa-cldf"
    assert holds_only_exports(target) and free_folder(target) == target
    target.mkdir()
    (target / "values.csv").write_text("x", encoding="utf-8")
    assert holds_only_exports(target) and free_folder(target) == tmp_path / "ulwa-cldf-2"
    (target / "notes.txt").write_text("mine", encoding="utf-8")
    assert not holds_only_exports(target)
    (tmp_path / "ulwa-cldf-2").mkdir()
    assert free_folder(target) == tmp_path / "ulwa-cldf-3"
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert not holds_only_exports(tmp_path / "file")
