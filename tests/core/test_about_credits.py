"""Grambank's text travels with its credit: the catalog's ``about``, the README and the About box (CC-BY 4.0)."""

from __future__ import annotations

from pathlib import Path

from core.catalog import load_catalog

REPO = Path(__file__).resolve().parent.parent.parent


def test_grambank_is_credited_in_catalog_readme_and_about_box() -> None:
    from gui.window.about import about_text  # Qt-free: PySide6 is imported only to show the box

    for text in (load_catalog().about, (REPO / "README.md").read_text(encoding="utf-8"), about_text()):
        assert "Grambank v1.0" in text and "Skirgård" in text and "CC-BY 4.0" in text and "2023" in text
    assert "WALS" in about_text()
