"""The words of the judged retrieval benchmark (:mod:`bench.judged`): its report as text, its grading sheet.

Why a module of its own: scoring the rankings against the grades is one job; writing what came out,
for a reader (the tables) or for a grader (the sheet of ungraded paragraphs), is another.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Callable

from bench.judged import GRADE_COLUMNS, TUNED_ON_GRADES, excerpt


def write_grading_sheet(entries: list[dict], path: Path) -> None:
    """Ungraded paragraphs as a CSV with an empty grade column, in the grades file's key columns.

    ``path`` is checked first: never a project, a PDF or a folder; an earlier sheet is replaced.
    """
    from core.output_paths import check_output_file

    check_output_file(path)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*GRADE_COLUMNS, "section", "text"])
        writer.writeheader()
        for e in entries:
            writer.writerow({**{c: e.get(c, "") for c in GRADE_COLUMNS}, "grade": "", "excerpt": excerpt(e["text"]),
                             "section": e["section"], "text": " ".join(e["text"].split())})


def format_report(report: dict, rankings_shown: Callable[[str], bool] = lambda _: True) -> str:
    """Plain-text tables: overall, then per feature (NDCG@10 / decisive@5 for each ranking)."""
    names = [n for n in report["rankings"] if rankings_shown(n)]
    pool = report["pool"]
    lines = [
        f"Judged retrieval benchmark: {report['pairs']} pairs, {report['features']} features, "
        f"{report['grammars']} grammars; {pool['graded']} graded paragraphs "
        f"({pool['mean_per_pair']} per pair, {pool['min_per_pair']}-{pool['max_per_pair']}; grades 0/1/2: "
        f"{pool['grade_counts']['0']}/{pool['grade_counts']['1']}/{pool['grade_counts']['2']}); "
        f"{pool['pairs_without_grade_2']} pairs without a grade-2 paragraph",
        "",
        f"{'ranking':<14} {'NDCG@10':>8} {'grade 2 in top 5':>17} {'(answerable pairs)':>19} "
        f"{'ungraded in top 10':>19} {'front/back matter in top 5':>27}",
    ]
    for n in names:
        r = report["rankings"][n]
        lines.append(f"{n:<14} {_fmt(r['ndcg@10']):>8} {_fmt(r['decisive@5']):>17} "
                     f"{_fmt(r['decisive@5_answerable']):>19} {_fmt(r['ungraded@10']):>19} {r['outside@5']:>27}")
    lines += ["", *pool_completeness(report, names[0])] if names else []
    lines += ["", "per feature (NDCG@10 / grade 2 in top 5):",
              f"{'feature':<8} {'pairs':>5} " + " ".join(f"{n:>19}" for n in names)]
    features = report["rankings"][names[0]]["per_feature"] if names else {}
    for feature, summary in features.items():
        cells = []
        for n in names:
            s = report["rankings"][n]["per_feature"][feature]
            cells.append(f"{_fmt(s['ndcg@10']):>9} / {_fmt(s['decisive@5']):<7}")
        lines.append(f"{feature:<8} {summary['pairs']:>5} " + " ".join(f"{c:>19}" for c in cells))
    lines += ["", f"Tuned on these grades: {TUNED_ON_GRADES}."]
    return "\n".join(lines)


def pool_completeness(report: dict, name: str) -> list[str]:
    """How many of a ranking's top-10 paragraphs have no grade, in all and per grammar.

    Why a count of its own: an ungraded paragraph scores 0, so a stale pool lowers NDCG silently;
    anything but 0 here means the figures above are a lower bound until the sheet is graded.
    """
    r = report["rankings"][name]
    per = ", ".join(f"{file.removesuffix('.pdf')} {s['ungraded_top10']}/{s['top10']}"
                    for file, s in r["per_grammar"].items())
    lines = [f"pool completeness ({name}): {r['ungraded_top10']} of {r['top10']} top-10 paragraphs ungraded",
             f"  per grammar: {per}"]
    if r["ungraded_top10"]:
        lines.append("  (they count as 0: grade them blind from `bench judged --unjudged --sheet FILE`)")
    return lines


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
