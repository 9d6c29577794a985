"""Full feature descriptions from a user's CLDF folder, read with pycldf.

GrammarLens ships only its own short definitions.  A user who has the WALS or Grambank CLDF
release (CC-BY) can point the app at it to see the databases' complete descriptions; they are read
on demand and never written into resources/ or the project file.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from core.errors import GrammarLensError


def _strip_html(text: str) -> str:
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", text, flags=re.S | re.I)
    text = re.sub(r"<br\s*/?>|</p>|</h\d>|</li>", "\n", text, flags=re.I)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return re.sub(r"[ \t]+", " ", re.sub(r"\n\s*\n+", "\n\n", text)).strip()


def load_cldf_descriptions(folder: str | Path) -> dict[str, str]:
    """Feature id -> full description for every CLDF StructureDataset found in ``folder``.

    Looks for ``*-metadata.json`` in the folder and its direct subfolders.  Grambank keeps the
    description in ``ParameterTable.Description``; WALS keeps it in chapter texts, which are used
    when a ``chapter_<n>.html`` file lies beside the metadata.
    """
    import pycldf  # lazy: pycldf pulls in csvw and friends, not needed to start the app

    root = Path(folder)
    if not root.is_dir():
        raise GrammarLensError(f"{root} is not a folder.", "Choose the folder that holds a CLDF release.")
    metadata = sorted(root.glob("*-metadata.json")) + sorted(root.glob("*/*-metadata.json"))
    if not metadata:
        raise GrammarLensError(
            f"No CLDF metadata (*-metadata.json) found in {root}.",
            "Point GrammarLens at the cldf/ folder of a WALS or Grambank release.",
        )
    out: dict[str, str] = {}
    for path in metadata:
        try:
            dataset = pycldf.Dataset.from_metadata(path)
            parameters = list(dataset["ParameterTable"])
        except Exception as exc:  # pycldf raises many types for a broken release
            raise GrammarLensError(f"Cannot read CLDF dataset {path}: {exc}",
                                   "Check that the release is complete.") from exc
        for row in parameters:
            text = (row.get("Description") or "").strip()
            chapter = row.get("Chapter_ID")
            if not text and chapter:
                page = path.parent / f"chapter_{chapter}.html"
                if page.exists():
                    text = _strip_html(page.read_text(encoding="utf-8", errors="replace"))
            if text:
                out[str(row["ID"])] = text
    return out
