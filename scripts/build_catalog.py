#!/usr/bin/env python
"""Build resources/features.json from the WALS and Grambank CLDF tables.

Usage: python scripts/build_catalog.py [--cldf ../shared/cldf] [--out resources/features.json]

Ids, names and value sets are read from ``parameters.csv`` and ``codes.csv`` (facts, kept as they
are).  Definitions are generated from a template, or taken from the hand-written ones in
core/catalog/curated.py for the paper's four features; the databases' description prose is never
copied.  A value's code is the CLDF ``Value`` (e.g. "2" for 81A SVO, "1" for Grambank "present");
the CLDF ``Code_ID`` is ``<feature>-<code>``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from core.catalog.curated import (  # noqa: E402
    CURATED,
    POLAR_QUESTION_ALIASES,
    POLAR_QUESTION_ID,
    POLAR_QUESTION_LABELS,
    POLAR_QUESTION_PARTS,
)
from core.retrieval.tokenize import STOPWORDS  # noqa: E402

# Words that say nothing about a feature's topic when they appear in its name.
_GENERIC = {"there", "can", "marked", "marking", "language", "languages", "type", "types", "presence", "feature"}
# Value labels that carry no vocabulary (binary codes, counts).
_UNINFORMATIVE_LABEL = re.compile(r"^(absent|present|none|other|\d[\d\s\-–]*|yes|no)$", re.IGNORECASE)


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _topic_words(name: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+", name.lower())
    seen: list[str] = []
    for word in words:
        if len(word) > 2 and word not in STOPWORDS and word not in _GENERIC and word not in seen:
            seen.append(word)
    return seen


def _value_phrases(labels: list[str]) -> list[str]:
    return [label for label in labels if not _UNINFORMATIVE_LABEL.match(label.strip())]


def _wals_definition(name: str, labels: list[str]) -> str:
    return f"WALS feature: {name}. A language takes one of these values: " + "; ".join(labels) + "."


def _grambank_definition(name: str, labels: list[str]) -> str:
    if sorted(labels) == ["absent", "present"]:
        return f"Grambank yes/no feature: {name} Code 1 when the grammar shows it, 0 when it clearly does not."
    return f"Grambank feature: {name} Values: " + "; ".join(labels) + "."


def build(cldf: Path) -> dict:
    features: list[dict] = []
    for dataset, folder in (("WALS", "wals"), ("Grambank", "grambank")):
        codes: dict[str, list[tuple[str, str]]] = {}
        for row in _read(cldf / folder / "codes.csv"):
            code = row.get("Number") or row["Name"]
            label = row["Name"] if dataset == "WALS" else (row.get("Description") or row["Name"])
            label = label.strip().rstrip(".").strip() or label
            codes.setdefault(row["Parameter_ID"], []).append((str(code), label))
        for row in _read(cldf / folder / "parameters.csv"):
            fid, name = row["ID"], row["Name"].strip()
            values = codes.get(fid, [])
            labels = [label for _, label in values]
            curated = CURATED.get(fid)
            definition = curated["definition"] if curated else (
                _wals_definition(name, labels) if dataset == "WALS" else _grambank_definition(name, labels)
            )
            features.append({
                "id": fid,
                "name": name,
                "dataset": dataset,
                "values": [list(v) for v in values],
                "definition": definition,
                "multi_label": [],
                "aliases": [f"{dataset} {fid}"],
                "queries": curated["queries"] if curated else {"term": name, "descriptive": definition},
                "vocabulary": curated["vocabulary"] if curated else {
                    "topic": _topic_words(name), "values": _value_phrases(labels),
                },
                "curated": bool(curated),
            })
    by_id = {f["id"]: f for f in features}
    missing = [p for p in POLAR_QUESTION_PARTS if p not in by_id]
    if missing:
        raise SystemExit(f"Grambank parameters lack {missing}")
    pq = CURATED[POLAR_QUESTION_ID]
    features.append({
        "id": POLAR_QUESTION_ID,
        "name": "Polar question strategies (seven Grambank features)",
        "dataset": "GrammarLens",
        "values": [[p, label] for p, label in zip(POLAR_QUESTION_PARTS, POLAR_QUESTION_LABELS)],
        "definition": pq["definition"],
        "multi_label": list(POLAR_QUESTION_PARTS),
        "aliases": list(POLAR_QUESTION_ALIASES),
        "queries": pq["queries"],
        "vocabulary": pq["vocabulary"],
        "curated": True,
    })
    return {
        "about": "Built by scripts/build_catalog.py from WALS Online and Grambank CLDF tables (CC-BY 4.0); "
                 "definitions are GrammarLens's own.",
        "counts": {d: sum(f["dataset"] == d for f in features) for d in ("WALS", "Grambank", "GrammarLens")},
        "features": features,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cldf", type=Path, default=REPO.parent / "shared" / "cldf")
    parser.add_argument("--out", type=Path, default=REPO / "resources" / "features.json")
    args = parser.parse_args(argv)
    catalog = build(args.cldf)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(catalog, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {catalog['counts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
