#!/usr/bin/env python
"""Build resources/features.json from the WALS and Grambank CLDF tables and our own curated data.

Usage: python scripts/build_catalog.py [--cldf ../shared/cldf] [--vocabulary resources/vocabulary]
                                       [--out resources/features.json]

What comes from where:

* ids, names and value sets: ``parameters.csv`` and ``codes.csv`` of both databases (facts, kept as
  they are).  A value's code is the CLDF ``Value`` ("2" for 81A SVO, "1" for Grambank "present").
* Grambank's coding text: each feature's ``Description`` (markdown with ``## Summary``,
  ``## Procedure``, ``## Examples``) becomes its definition, guidelines and examples.  Grambank
  v1.0, Skirgård et al. 2023, CC-BY 4.0: the citation travels in the catalog's ``about``.
* Grambank's coders' working order and what a coder looks for (``feature_grouping_for_coding.csv``:
  ``ENumLab``/``ELab``, relevant units, function, form) go into each feature's ``coding``.
* vocabularies (and our own WALS definitions): ``resources/vocabulary/grambank.json`` and
  ``wals.json`` when present, ``{"GB020": {"topic": [...], "values": [...]}, ...}``; a feature with
  an entry is ``curated``.  Without an entry a feature keeps the bare words of its name.
* the paper's four features (81A, 49A, GB107, 116A*): core/catalog/curated.py, which also holds
  their prompt wording; their hand-tuned vocabularies win over the vocabulary files.
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
    BINARY_SYNONYMS,
    CURATED,
    POLAR_QUESTION_ID,
    POLAR_QUESTION_PARTS,
)
from core.catalog.model import default_question  # noqa: E402
from core.retrieval.tokenize import STOPWORDS  # noqa: E402

ABOUT = (
    "Built by scripts/build_catalog.py from the WALS Online CLDF tables (Dryer & Haspelmath 2013, CC-BY 4.0) "
    "and the Grambank v1.0 CLDF tables (Skirgård et al. 2023, 'Grambank reveals the importance of genealogical "
    "constraints on linguistic diversity and highlights the impact of language loss', Science Advances 9, "
    "CC-BY 4.0). The definitions, procedures and examples of Grambank features are Grambank's own text, "
    "quoted under CC-BY 4.0; the coders' working order and units come from Grambank's "
    "docs/feature_groupings. WALS definitions, vocabularies and the paper's four features are GrammarLens's own."
)

# Words that say nothing about a feature's topic when they appear in its name.
_GENERIC = {"there", "can", "marked", "marking", "language", "languages", "type", "types", "presence", "feature"}
# Value labels that carry no vocabulary (binary codes, counts).
_UNINFORMATIVE_LABEL = re.compile(r"^(absent|present|none|other|\d[\d\s\-–]*|yes|no)$", re.IGNORECASE)
_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.M)


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


_LINK = re.compile(r"\[([^\]]+)\]\((?:https?://|\.\./|/)[^)\s]*\)")

_GLUED_SENTENCE = re.compile(r"(\b[a-z]{3,})\.([A-Z][a-z]+\b)")


def _clean(text: str) -> str:
    """Grambank's markdown, with links reduced to their text (a prompt has no use for wiki URLs).

    A sentence glued to the next one ("unmarked order.If both") gets its space back: the source has a few.
    """
    text = _LINK.sub(r"\1", text)
    text = _GLUED_SENTENCE.sub(r"\1. \2", text)
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def grambank_sections(description: str) -> dict[str, str]:
    """``## Summary`` / ``## Procedure`` / ``## Examples`` ... of a Grambank description, by lower-case title."""
    out: dict[str, str] = {}
    marks = list(_SECTION.finditer(description))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(description)
        out.setdefault(m.group(1).strip().lower(), _clean(description[m.end():end]))
    return out


def _coding_order(cldf: Path) -> dict[str, dict]:
    """Grambank coders' working order: rank by (ENumLab, ELab), with the units a coder looks for."""
    path = cldf / "grambank" / "feature_grouping_for_coding.csv"
    if not path.exists():
        return {}
    rows = _read(path)

    def natural(label: str) -> tuple:
        return tuple(int(t) if t.isdigit() else t for t in re.findall(r"\d+|\D+", label or ""))

    def number(text: str) -> float:
        try:
            return float(text)
        except (TypeError, ValueError):
            return float("inf")

    ordered = sorted(
        enumerate(rows), key=lambda ir: (number(ir[1].get("ENumLab")), natural(ir[1].get("ELab", "")), ir[0])
    )
    out = {}
    for rank, (_, row) in enumerate(ordered, start=1):
        out[row["Feature_ID"]] = {
            "order": rank, "group_number": row.get("ENumLab", ""), "group": row.get("ELab", ""),
            "units": row.get("Relevant units", ""), "function": row.get("Function", ""), "form": row.get("Form", ""),
        }
    return out


def _first_paragraph(text: str, limit: int = 600) -> str:
    """A dense-retrieval query: the definition's first paragraph (embedding models truncate long input)."""
    first = text.split("\n\n", 1)[0].strip()
    return first if len(first) <= limit else first[:limit].rsplit(" ", 1)[0]


def _load_vocabulary(folder: Path | None) -> dict[str, dict]:
    """Merged entries of ``grambank.json`` and ``wals.json`` (missing or partial files are fine)."""
    entries: dict[str, dict] = {}
    if folder is None:
        return entries
    for name in ("grambank.json", "wals.json"):
        path = folder / name
        if not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for fid, entry in data.items():
            if isinstance(entry, dict) and not fid.startswith("_"):
                entries[fid] = entry
    return entries


def _phrases(items) -> list[str]:
    return list(dict.fromkeys(str(p).strip() for p in (items or ()) if str(p).strip()))


def _feature(dataset: str, row: dict, values: list[tuple[str, str]], sections: dict[str, str],
             coding: dict | None, vocab: dict | None) -> dict:
    fid, name = row["ID"], row["Name"].strip()
    labels = [label for _, label in values]
    feature = {
        "id": fid, "name": name, "dataset": dataset, "values": [list(v) for v in values],
        "definition": "", "guidelines": "", "examples": "", "question": default_question(name), "instructions": [],
        "options": [], "synonyms": {}, "parts": [], "value_definitions": {}, "aliases": [f"{dataset} {fid}"],
        "queries": {}, "vocabulary": {"topic": _topic_words(name), "values": _value_phrases(labels)},
        "curated": False, "coding": coding or {},
    }
    if dataset == "Grambank":
        feature["definition"] = sections.get("summary") or name
        feature["guidelines"] = sections.get("procedure", "")
        feature["examples"] = sections.get("examples", "")
        if sorted(code for code, _ in values) == ["0", "1"]:
            feature["synonyms"] = dict(BINARY_SYNONYMS)
        # Grambank's procedures speak of codes; the prompt offers labels.
        feature["instructions"] = ["In the procedure, " + ", ".join(f'code {c} means "{label}"' for c, label in values)
                                   + ' and code ? means "Not enough information".']
    else:
        feature["definition"] = _wals_definition(name, labels)
    if vocab:
        topic, value_phrases = _phrases(vocab.get("topic")), _phrases(vocab.get("values"))
        if topic or value_phrases:
            feature["vocabulary"] = {"topic": topic, "values": value_phrases}
            feature["curated"] = True
        if dataset == "WALS" and str(vocab.get("definition") or "").strip():
            feature["definition"] = str(vocab["definition"]).strip()
        value_defs = {str(c): str(t).strip() for c, t in (vocab.get("value_definitions") or {}).items()
                      if str(t).strip() and str(c) in {code for code, _ in values}}
        if value_defs:
            feature["value_definitions"] = value_defs
            label_of = dict(values)
            feature["guidelines"] = "\n".join(f"{label_of[c]}: {value_defs[c]}" for c, _ in values if c in value_defs)
    curated = CURATED.get(fid)
    if curated:
        feature.update({k: v for k, v in curated.items() if k not in ("name", "aliases")})
        feature["examples"] = ""  # the paper's prompts carry no examples block
        feature["curated"] = True
        if dataset == "Grambank" and sorted(code for code, _ in values) == ["0", "1"]:
            feature["synonyms"] = {**BINARY_SYNONYMS, **curated.get("synonyms", {})}
    feature["queries"] = dict(feature["queries"]) or {
        "term": name, "descriptive": f"{name} {_first_paragraph(feature['definition'])}".strip()}
    return feature


def build(cldf: Path, vocabulary_dir: Path | None = None) -> dict:
    vocabulary = _load_vocabulary(vocabulary_dir)
    coding = _coding_order(cldf)
    features: list[dict] = []
    for dataset, folder in (("WALS", "wals"), ("Grambank", "grambank")):
        codes: dict[str, list[tuple[str, str]]] = {}
        for row in _read(cldf / folder / "codes.csv"):
            code = row.get("Number") or row["Name"]
            label = row["Name"] if dataset == "WALS" else (row.get("Description") or row["Name"])
            label = label.strip().rstrip(".").strip() or label
            codes.setdefault(row["Parameter_ID"], []).append((str(code), label))
        rows = _read(cldf / folder / "parameters.csv")
        if dataset == "Grambank":  # the coders' working order, so 'grambank' sets fill as a coder would
            rows.sort(key=lambda r: (coding.get(r["ID"], {}).get("order", 10**6), r["ID"]))
        for row in rows:
            sections = grambank_sections(row.get("Description") or "") if dataset == "Grambank" else {}
            features.append(_feature(dataset, row, codes.get(row["ID"], []), sections, coding.get(row["ID"]),
                                     vocabulary.get(row["ID"])))
    by_id = {f["id"]: f for f in features}
    missing = [p for p, _ in POLAR_QUESTION_PARTS if p not in by_id]
    if missing:
        raise SystemExit(f"Grambank parameters lack {missing}")
    pq = CURATED[POLAR_QUESTION_ID]
    features.append({
        "id": POLAR_QUESTION_ID, "name": pq["name"], "dataset": "GrammarLens", "values": [],
        "definition": pq["definition"], "guidelines": pq["guidelines"], "examples": "", "question": pq["question"],
        "instructions": list(pq["instructions"]), "options": pq["options"], "synonyms": {}, "parts": pq["parts"],
        "value_definitions": {}, "aliases": list(pq["aliases"]), "queries": pq["queries"],
        "vocabulary": pq["vocabulary"], "curated": True, "coding": {},
    })
    return {
        "about": ABOUT,
        "counts": {d: sum(f["dataset"] == d for f in features) for d in ("WALS", "Grambank", "GrammarLens")},
        "curated": sum(1 for f in features if f["curated"]),
        "features": features,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cldf", type=Path, default=REPO.parent / "shared" / "cldf")
    parser.add_argument("--vocabulary", type=Path, default=REPO / "resources" / "vocabulary",
                        help="folder with grambank.json / wals.json (absent or partial is fine)")
    parser.add_argument("--out", type=Path, default=REPO / "resources" / "features.json")
    args = parser.parse_args(argv)
    catalog = build(args.cldf, args.vocabulary)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(catalog, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {catalog['counts']}, {catalog['curated']} curated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
