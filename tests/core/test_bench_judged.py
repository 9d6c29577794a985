"""The judged retrieval benchmark: its grades file, its metric, and `bench judged` on a small slice.

The slice is one grammar (Iranian Armenian, the shortest of the seven) and two features, so the
command ingests one book and runs three rankings twice: a few seconds plus loading MiniLM.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from bench.judged import (
    DEFAULT_DATA,
    GRADE_COLUMNS,
    GradeKey,
    judged_ndcg,
    load_grades,
    load_pairs,
    loose_hash,
    text_hash,
)
from bench.judged_report import format_report
from cli import main as cli_main
from core.errors import GrammarLensError
from tests.fixtures_shared import GRAMMARS

GRAMMAR = "354_Iranian_Armenian.pdf"
FEATURES = ("GB117", "GB147")
PAPER_BENCH_FEATURES = {"81A", "49A", "GB107", "116A", "116A*", "PQ", "GB257", "GB260", "GB262", "GB263", "GB264",
                  "GB286", "GB291"}


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the module: the grammar is ingested once."""
    return tmp_path_factory.mktemp("judged_projects")


def _bench(capsys: pytest.CaptureFixture, *args: str) -> dict:
    code = cli_main(["bench", "judged", "--json", *args])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_grades_cover_forty_pairs_of_twenty_general_features() -> None:
    pairs = load_pairs(DEFAULT_DATA)
    assert len(pairs) >= 40
    assert len({p.feature for p in pairs}) >= 20
    assert not {p.feature for p in pairs} & PAPER_BENCH_FEATURES
    with open(GRAMMARS / "grammars.csv", newline="", encoding="utf-8") as fh:
        sha = {r["file"]: r["sha256"] for r in csv.DictReader(fh)}
    grades = load_grades(DEFAULT_DATA)
    assert set(grades.exact.values()) <= {0, 1, 2}
    for pair in pairs:  # every pair was judged: its pool is non-empty
        assert grades.pool(pair.feature, sha[pair.file]), pair
    assert sum(g == 2 for g in grades.exact.values()) >= 40


def test_text_hash_ignores_whitespace_only() -> None:
    assert text_hash("The  definite\nsuffix -n") == text_hash(" The definite suffix -n ")
    assert text_hash("The definite suffix -n") != text_hash("The definite suffix -ə")


def test_grades_survive_cosmetic_changes_of_ingestion(tmp_path: Path) -> None:
    """A paragraph re-ingested with a hyphen undone and a ligature expanded keeps its grade; a re-cut one does not."""
    before = "The passive is formed with the suf-\nfix -v- (Table 6.42), e\ufb03ciently."
    after = "The passive is formed with the suffix -v- (Table 6.42), efficiently."
    assert text_hash(before) != text_hash(after) and loose_hash(before) == loose_hash(after)
    assert loose_hash(after) != loose_hash("The passive is formed with the suffix -v-.")
    shutil.copy(DEFAULT_DATA / "pairs.csv", tmp_path / "pairs.csv")
    with open(tmp_path / "grades.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(GRADE_COLUMNS)
        writer.writerow(["GB147", GRAMMAR, "abc", 156, text_hash(before), loose_hash(before), 2, "144", before[:20]])
    grades = load_grades(tmp_path)
    assert grades.get(GradeKey("GB147", "abc", 156, text_hash(before))) == 2
    assert grades.get(GradeKey("GB147", "abc", 160, text_hash(before))) == 2  # page moved, text the same
    assert grades.get(GradeKey("GB147", "abc", 156, text_hash(after)), loose_hash(after)) == 2
    assert grades.get(GradeKey("GB147", "abc", 156, text_hash(after))) is None
    assert grades.get(GradeKey("GB117", "abc", 156, text_hash(before))) is None  # grades are per feature
    with open(tmp_path / "grades.csv", "a", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerow(["GB147", GRAMMAR, "abc", 157, "0" * 16, "", 3, "145", "out of scale"])
    with pytest.raises(GrammarLensError, match="not 0, 1 or 2"):
        load_grades(tmp_path)


def test_bench_judged_without_pairs_is_an_error_with_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli_main(["bench", "judged", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error: No pairs.csv" in err and "hint:" in err


def test_ndcg_is_one_for_the_ideal_order_of_a_real_pool_and_lower_reversed() -> None:
    grades = load_grades(DEFAULT_DATA)
    with open(GRAMMARS / "grammars.csv", newline="", encoding="utf-8") as fh:
        sha = {r["file"]: r["sha256"] for r in csv.DictReader(fh)}[GRAMMAR]
    pool = grades.pool("GB147", sha)
    assert 2 in pool and 0 in pool
    best = sorted(pool, reverse=True)
    assert judged_ndcg(best, pool) == pytest.approx(1.0)
    assert judged_ndcg(best[::-1], pool) < 0.5
    assert judged_ndcg([0] * 10, pool) == 0.0
    assert judged_ndcg([0, 0], [0, 0, 0]) is None  # nothing to find: left out of the mean
    # the ideal is the whole judged pool, not what the ranking found
    assert judged_ndcg([1], [2, 1]) < 1.0


def test_bench_judged_on_one_grammar_and_two_features(projects: Path, capsys: pytest.CaptureFixture) -> None:
    args = ["--grammar", GRAMMAR, "--projects", str(projects)] + [x for f in FEATURES for x in ("--feature", f)]
    report = _bench(capsys, *args)
    assert report["pairs"] == 2 and report["features"] == 2 and report["grammars"] == 1
    assert "--logo" in report["tuned_on_grades"]  # what was tuned on the grades is said, with the way to check it
    assert set(report["rankings"]) == {"default", "bm25", "vocabulary"}
    for ranking in report["rankings"].values():
        assert 0.0 <= ranking["ndcg@10"] <= 1.0
        assert 0.0 <= ranking["decisive@5"] <= 1.0
        assert 0.0 <= ranking["ungraded@10"] <= 1.0
        assert set(ranking["per_feature"]) == set(FEATURES)
        for pair in ranking["per_pair"]:
            assert len(pair["grades"]) == 10
    # the copula and the passive are stated plainly in this grammar, and the pools were graded from
    # these rankings: BM25 must find a deciding paragraph for at least one of them
    assert report["rankings"]["bm25"]["decisive@5"] > 0.0
    assert report["pool"]["graded"] > 10
    assert "unjudged" not in report
    # pool completeness: the count of ungraded top-10 paragraphs, in all and per grammar, adds up
    for ranking in report["rankings"].values():
        assert ranking["top10"] == 20 and set(ranking["per_grammar"]) == {GRAMMAR}
        assert ranking["ungraded_top10"] == sum(p["ungraded"] for p in ranking["per_pair"])
        assert ranking["per_grammar"][GRAMMAR]["ungraded_top10"] == ranking["ungraded_top10"]
    # the committed pool is complete for the default ranking; if this fails, the ranking changed:
    # grade the new paragraphs blind (benchmarks/judged/README.md, "Topping up")
    assert report["rankings"]["default"]["ungraded_top10"] == 0
    assert "pool completeness (default): 0 of 20 top-10 paragraphs ungraded" in format_report(report)


def test_unjudged_lists_every_top_ten_paragraph_blind_when_nothing_is_graded(
    projects: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    data = tmp_path / "judged"
    data.mkdir()
    shutil.copy(DEFAULT_DATA / "pairs.csv", data / "pairs.csv")  # no grades.csv: every paragraph is unjudged
    sheet = tmp_path / "sheet.csv"
    report = _bench(capsys, "--data", str(data), "--grammar", GRAMMAR, "--feature", "GB117",
                    "--projects", str(projects), "--unjudged", "--sheet", str(sheet))
    for ranking in report["rankings"].values():
        assert ranking["ungraded@10"] == 1.0
        assert ranking["ungraded_top10"] == 10 == ranking["per_grammar"][GRAMMAR]["ungraded_top10"]
        assert ranking["ndcg@10"] is None
        assert ranking["decisive@5"] == 0.0
    text = format_report(report)
    assert "pool completeness (default): 10 of 10 top-10 paragraphs ungraded" in text
    assert "354_Iranian_Armenian 10/10" in text and "--unjudged --sheet" in text
    listed = report["unjudged"]
    tops = {(p["feature"], i) for p in report["rankings"]["default"]["per_pair"] for i in range(10)}
    assert 10 <= len(listed) <= 30 and len(tops) == 10
    assert all(set(e) >= {"sha256", "pdf_page", "text_hash", "text"} for e in listed)
    assert not any("rank" in e or "ranking" in e or "score" in e for e in listed)  # blind
    with open(sheet, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(listed) and all(r["grade"] == "" for r in rows)
    # a sheet with grades filled in is a grades file: grading one paragraph 2 makes it count
    rows[0]["grade"] = "2"
    for r in rows[1:]:
        r["grade"] = "0"
    with open(data / "grades.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    graded = load_grades(data)
    key = GradeKey("GB117", rows[0]["sha256"], int(rows[0]["pdf_page"]), rows[0]["text_hash"])
    assert graded.get(key) == 2
    again = _bench(capsys, "--data", str(data), "--grammar", GRAMMAR, "--feature", "GB117", "--projects", str(projects))
    found_by = [n for n, r in again["rankings"].items() if 2 in r["per_pair"][0]["grades"]]
    assert found_by  # the paragraph graded 2 came from some ranking's top 10
    for name in found_by:
        assert again["rankings"][name]["ndcg@10"] > 0.0
        assert again["rankings"][name]["ungraded@10"] == 0.0
        assert again["rankings"][name]["ungraded_top10"] == 0


def test_the_fit_sees_candidates_in_the_apps_order_and_ranks_them_as_the_app_does(projects: Path,
                                                                                 tmp_path: Path) -> None:
    """bench.fusion_fit recomputes the app's ranking from signals: its ties must fall as the app's do.

    The app breaks ties by candidate order (the first, lexical order too, which the re-ranked order
    keeps in view); a fit that saw the hits in their final order broke the first order's ties otherwise.
    """
    from bench.fusion_fit import collect, final_order
    from bench.judged import grammar_project
    from core.catalog import load_catalog
    from core.retrieval.pipeline import candidate_ids, retrieve
    from core.retrieval.settings import RetrievalSettings
    from core.store import open_project

    data = tmp_path / "judged"
    data.mkdir()
    (data / "pairs.csv").write_text(f"feature,file,domain\nGB117,{GRAMMAR},predication\n", encoding="utf-8")
    shutil.copy(DEFAULT_DATA / "grades.csv", data / "grades.csv")
    [pair] = collect(data, GRAMMARS, projects)
    settings = RetrievalSettings().with_(final_top=100_000)
    feature = load_catalog().get("GB117")
    with open_project(grammar_project(GRAMMARS / GRAMMAR, projects)) as project:
        assert pair.ids == candidate_ids(project, [feature], settings)
        app = [h.paragraph.id for h in retrieve(project, feature, settings)]
    weights = {"signal_weight": settings.signal_weight, "section_weight": settings.section_weight,
               "dictionary_penalty": settings.dictionary_penalty, "opening_weight": settings.opening_weight,
               "fragment_penalty": settings.fragment_penalty, "opening_bonus": settings.opening_bonus}
    assert [pair.ids[i] for i in final_order(pair, weights)] == app


def test_headroom_collects_the_real_signals_and_a_perfect_simulated_model_beats_the_shipped_ranking(
        projects: Path, capsys: pytest.CaptureFixture) -> None:
    # without a model (embedding every candidate of the two pairs took over 2 minutes in this suite): the
    # simulated model takes the place the real one would have had
    result = _bench(capsys, "--headroom", "--model", "none", "--grammar", GRAMMAR, "--projects", str(projects),
                    *[x for f in FEATURES for x in ("--feature", f)])
    assert result["pairs"] == 2 and {"vocabulary", "bm25"} <= set(result["real_agreement"])
    assert "dense" not in result["real_agreement"]
    perfect = [r for r in result["simulated"] if r["noise"] == 0.0]
    assert perfect and all(r["agreement"] == pytest.approx(1.0) for r in perfect)
    assert max(r["ndcg@10"] for r in perfect) >= result["shipped_ndcg@10"]
