"""``bench profile``: run whole profiles of the shared grammars and score them against Grambank.

The grammars (``grammars.csv`` maps each PDF to its language and Glottocode) are ingested once
into a work folder and reused on later runs; each one's profile then runs through the ordinary
batch machinery (:mod:`core.profile.batch`: resumable jobs, bounded concurrency), so the benchmark
measures exactly what a user's ``profile`` run produces.  Scoring is
:func:`core.profile.scoring.score_profiles` over the values the projects hold.

With ``mode="retrieval"`` (``--no-llm``) no model is asked; the report gives evidence statistics
per feature instead: how often a top paragraph matches the feature's vocabulary, and the mean
score of the best paragraph.
"""

from __future__ import annotations

import csv
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.errors import GrammarLensError
from core.profile.scoring import GoldValue, ProfileScores, project_codes, score_profiles
from core.progress import Progress, null_progress
from core.records.vocabulary import JobState

VOCABULARY_TOP = 5  # "a paragraph hit from vocabulary": one of the best five matches a vocabulary phrase


@dataclass(frozen=True)
class Grammar:
    file: str
    language: str
    glottocode: str
    pdf: Path


def read_grammars(folder: str | Path) -> dict[str, Grammar]:
    """File name -> grammar, from the folder's ``grammars.csv`` (file, language, glottocode)."""
    folder = Path(folder)
    table = folder / "grammars.csv"
    if not table.exists():
        raise GrammarLensError(f"{table} is missing.", "Point --grammars at ../shared/grammars (it has grammars.csv).")
    with open(table, newline="", encoding="utf-8") as fh:
        return {r["file"]: Grammar(r["file"], r["language"], r["glottocode"], folder / r["file"])
                for r in csv.DictReader(fh)}


def prepare_project(grammar: Grammar, work_dir: Path, progress: Progress | None = None) -> tuple[Path, float]:
    """The grammar's project in ``work_dir``, ingested now or reused; returns (path, ingest seconds)."""
    from core.ingest import ingest
    from core.models import Language
    from core.store import open_project
    from core.store.repository import list_documents, set_language

    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / f"{Path(grammar.file).stem}.grammarlens"
    started = time.perf_counter()
    with open_project(path, create=True) as project:
        if not list_documents(project):
            if not grammar.pdf.exists():
                raise GrammarLensError(f"The grammar {grammar.pdf} is missing.", "Check --grammars.")
            ingest(project, grammar.pdf, progress=progress)
        set_language(project, Language(grammar.language, grammar.glottocode, "user"))
    return path, time.perf_counter() - started


RawEvidence = tuple[str, bool, float]  # one language's glottocode, vocabulary hit in the top, best score


@dataclass
class EvidenceStats:
    """Retrieval-only figures of one feature over the languages."""

    languages: int
    vocabulary_hit_share: float  # languages whose top VOCABULARY_TOP paragraphs include a vocabulary match
    mean_top_score: float
    gold_present_share: float
    hit_share_when_present: float | None = None  # the same share among languages Grambank codes 1 ...
    hit_share_when_absent: float | None = None  # ... and among those it codes 0 (evidence that discriminates)


@dataclass
class BenchProfileReport:
    mode: str
    features: list[str]
    languages: list[str]
    model: str = ""
    scores: ProfileScores | None = None
    evidence: dict[str, EvidenceStats] = field(default_factory=dict)
    ingest_seconds: dict[str, float] = field(default_factory=dict)
    run_seconds: float = 0.0
    failed: dict[str, str] = field(default_factory=dict)
    batch_written: int = 0  # with batch_out: request lines written (nothing is scored)
    batch_imported: int = 0  # with batch_in: answers imported from the results file

    def to_json(self) -> dict:
        return {"mode": self.mode, "model": self.model, "features": self.features, "languages": self.languages,
                "scores": self.scores.to_json() if self.scores else None,
                "evidence": {k: asdict(v) for k, v in self.evidence.items()},
                "evidence_overall": asdict(self.evidence_overall()) if self.evidence else None,
                "ingest_seconds": self.ingest_seconds, "run_seconds": self.run_seconds, "failed": self.failed,
                "batch_written": self.batch_written, "batch_imported": self.batch_imported}

    def evidence_overall(self) -> EvidenceStats:
        """Means over features (each feature weighs the same)."""
        stats = list(self.evidence.values())

        def mean(values) -> float | None:
            values = [v for v in values if v is not None]
            return statistics.fmean(values) if values else None

        return EvidenceStats(
            languages=max((s.languages for s in stats), default=0),
            vocabulary_hit_share=mean(s.vocabulary_hit_share for s in stats) or 0.0,
            mean_top_score=mean(s.mean_top_score for s in stats) or 0.0,
            gold_present_share=mean(s.gold_present_share for s in stats) or 0.0,
            hit_share_when_present=mean(s.hit_share_when_present for s in stats),
            hit_share_when_absent=mean(s.hit_share_when_absent for s in stats),
        )


def run_bench_profile(gold: list[GoldValue], grammars_dir: str | Path, work_dir: str | Path, settings,
                      feature_ids: list[str] | None = None, languages: list[str] | None = None,
                      progress: Progress | None = None, *, batch_out: str | Path | None = None,
                      batch_in: str | Path | None = None) -> BenchProfileReport:
    """Ingest (or reuse), run each language's profile with ``settings`` (a BatchSettings), and score it.

    ``feature_ids`` limits the features (default: every feature of the gold file); ``languages``
    limits the languages (names or Glottocodes).  ``batch_out`` writes the prompts of every language
    into one batch file instead of asking (nothing is scored); ``batch_in`` imports the answers of such
    a file made by any engine (OpenAI Batch API, vLLM run_batch) and scores them as an online run.
    """
    from core.profile.batch import load_job, open_job, run_job
    from core.store import open_project

    progress = progress or null_progress()
    if batch_out is not None:  # refused now, not after the first grammar was ingested (and never unlinked)
        from core.output_paths import check_output_file

        check_output_file(batch_out)
    grammars = read_grammars(grammars_dir)
    wanted_features = list(dict.fromkeys(feature_ids or [g.feature_id for g in gold]))
    gold = [g for g in gold if g.feature_id in set(wanted_features)]
    if languages:
        keys = {k.casefold() for k in languages}
        gold = [g for g in gold if g.language.casefold() in keys or g.glottocode.casefold() in keys]
    files = list(dict.fromkeys(g.file for g in gold))
    if not gold or not files:
        raise GrammarLensError("No gold values are left for these features and languages.",
                               "Check --features and --languages against the gold file.")
    unknown = [f for f in files if f not in grammars]
    if unknown:
        raise GrammarLensError(f"grammars.csv does not list {', '.join(unknown)}.", "Check --grammars.")
    report = BenchProfileReport(mode=settings.mode, features=wanted_features,
                                languages=[grammars[f].language for f in files],
                                model=settings.llm.model if settings.mode == "llm" and settings.llm else "")
    predicted: dict[tuple[str, str], str | None] = {}
    raw_evidence: dict[str, list[RawEvidence]] = {}  # per feature, one row a language (retrieval mode)
    started = time.perf_counter()
    for i, file in enumerate(files):
        grammar = grammars[file]
        progress.step(i, len(files), f"{grammar.language}: ingest or reuse")
        path, seconds = prepare_project(grammar, Path(work_dir))
        report.ingest_seconds[grammar.language] = round(seconds, 2)
        ids = [fid for fid in wanted_features if any(g.file == file and g.feature_id == fid for g in gold)]
        if batch_out is not None:
            from core.profile.batch_files import write_batch_requests

            if i == 0:
                Path(batch_out).unlink(missing_ok=True)
            report.batch_written += write_batch_requests([path], ids, batch_out, settings,
                                                         feature_set="bench-profile", append=True).written
            continue
        if batch_in is not None:
            from core.profile.batch_files import import_batch_results

            imported = import_batch_results([path], batch_in)
            report.batch_imported += imported.imported
            for problem in imported.problems:
                if problem.kind not in ("unknown", "unparsable"):  # other languages' lines are unknown here
                    report.failed[f"{grammar.language}/line {problem.line}"] = problem.message
        else:
            with open_project(path) as project:
                job = open_job(project, "bench-profile", ids, settings)
            progress.step(i, len(files), f"{grammar.language}: {len(job.pending)} feature(s) to run")
            result = run_job(path, job.id, settings)
            for fid, message in result.failed.items():
                report.failed[f"{grammar.language}/{fid}"] = message
        with open_project(path, readonly=True) as project:
            if settings.mode == "llm":
                for fid, code in project_codes(project).items():
                    predicted[(grammar.glottocode, fid)] = code
            else:
                _collect_evidence(project, grammar, load_job(project, job.id), raw_evidence)
    report.run_seconds = round(time.perf_counter() - started, 2)
    if batch_out is not None:
        return report
    progress.step(len(files), len(files), "scoring")
    if settings.mode == "llm":
        report.scores = score_profiles(gold, predicted)
    else:
        _finish_evidence(report, raw_evidence, gold)
    return report


def _collect_evidence(project, grammar: Grammar, job, raw_evidence: dict[str, list[RawEvidence]]) -> None:
    """Per feature, this language's best score and whether a top paragraph matched the vocabulary.

    Read from the retrieval runs of this job, so runs made with other settings never mix in.
    """
    from core.store.retrieval_runs import run_hits

    for item in job.items:
        fid, run_id = item.feature_id, item.retrieval_run_id
        if item.state != JobState.DONE or run_id is None:  # failed: reported under "failed", not counted as a miss
            continue
        hits = run_hits(project, run_id, VOCABULARY_TOP)
        vocabulary_hit = any(h.signals.get("vocabulary", 0.0) > 0 for h in hits)
        raw_evidence.setdefault(fid, []).append((grammar.glottocode, vocabulary_hit, hits[0].score if hits else 0.0))


def _finish_evidence(report: BenchProfileReport, raw_evidence: dict[str, list[RawEvidence]],
                     gold: list[GoldValue]) -> None:
    codes = {(g.glottocode, g.feature_id): g.code for g in gold}

    def share(flags: list[bool]) -> float | None:
        return sum(flags) / len(flags) if flags else None

    for fid, raw in raw_evidence.items():
        hits = [hit for _, hit, _ in raw]
        by_gold = {code: [hit for lang, hit, _ in raw if codes.get((lang, fid)) == code] for code in ("0", "1")}
        report.evidence[fid] = EvidenceStats(
            languages=len(raw),
            vocabulary_hit_share=share(hits) or 0.0,
            mean_top_score=statistics.fmean(top for _, _, top in raw) if raw else 0.0,
            gold_present_share=share([codes.get((lang, fid)) == "1" for lang, _, _ in raw]) or 0.0,
            hit_share_when_present=share(by_gold["1"]),
            hit_share_when_absent=share(by_gold["0"]),
        )


def format_report(report: BenchProfileReport, per_feature: bool = True) -> str:
    """The report as text: overall, per language and per feature, beside the always-"absent" baseline."""
    lines = [f"bench profile: {len(report.languages)} language(s), {len(report.features)} feature(s), "
             f"{'model ' + report.model if report.mode == 'llm' else 'retrieval only (--no-llm)'}, "
             f"{report.run_seconds:.1f} s"]
    if report.scores is not None:
        s = report.scores
        header = (f"{'slice':<28} {'n':>4}  {'acc':>6} {'macroF1':>7} {'MCC':>6}  {'NEI':>5}   "
                  f"{'absent: acc':>11} {'macroF1':>7} {'MCC':>5}")
        lines += [header, _row("overall", s.overall)]
        lines += [_row(name, cell) for name, cell in s.by_language.items()]
        if per_feature:
            lines += [_row(fid, cell) for fid, cell in s.by_feature.items()]
        if s.missing:
            lines.append(f"{s.missing} gold value(s) had no stored value (counted as no answer)")
    if report.evidence:
        lines.append(f"{'feature':<10} {'langs':>5}  {'vocab hit@' + str(VOCABULARY_TOP):>12} "
                     f"{'mean top score':>14}  {'gold present':>12}  {'hit | present':>13} {'hit | absent':>12}")
        rows = list(report.evidence.items()) if per_feature else []
        for fid, e in rows + [("overall", report.evidence_overall())]:
            lines.append(f"{fid:<10} {e.languages:>5}  {e.vocabulary_hit_share:>12.1%} {e.mean_top_score:>14.3f}  "
                         f"{e.gold_present_share:>12.1%}  {_pct(e.hit_share_when_present):>13} "
                         f"{_pct(e.hit_share_when_absent):>12}")
    for key, message in list(report.failed.items())[:10]:
        lines.append(f"  failed: {key}: {message}")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _row(name: str, c) -> str:
    return (f"{name:<28} {c.n:>4}  {c.accuracy:6.3f} {c.macro_f1:7.3f} {c.mcc:6.3f}  {c.no_value_share:5.1%}   "
            f"{c.baseline_accuracy:11.3f} {c.baseline_macro_f1:7.3f} {c.baseline_mcc:5.2f}")
