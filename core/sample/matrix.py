"""The sample as a language x feature matrix: one sheet of codes, one of statuses.

A typologist loads a sample into R or a spreadsheet as a matrix; CLDF's long ValueTable is for
exchange.  Two CSV files because CSV has no sheets: ``matrix.csv`` holds the codes as the
databases write them ("1", "0", "?" for the coder's unknown, empty for no value) and, beside it,
``matrix.status.csv`` (the output's name with ``.status`` before the suffix) holds each cell's
status in the words of ``sample status`` (:func:`core.sample.status.status_word`: coded, accepted,
overridden, unknown, predicted, uncoded), so the sheet's counts per row equal the status table's.
Both have the same rows (one per project, with language,
Glottocode and file) and the same feature columns, so cells line up.

Which value a cell holds is the profile's (:mod:`core.profile.entries`): the coder's decision,
else the model's prediction; the model's "not enough information" and unreadable answers leave
the code empty but keep their status.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from core.profile.entries import UNKNOWN
from core.sample.snapshot import SampleRead, Snapshot
from core.sample.status import sample_features, status_word

ROW_COLUMNS = ("language", "glottocode", "family", "genus", "macroarea", "project")


@dataclass
class SampleMatrix:
    """Rows of the sample (one per project) by feature columns: codes and statuses."""

    feature_ids: list[str]
    rows: list[Snapshot]
    codes: list[list[str]]  # codes[i][j]: project i, feature j ("" for no value)
    statuses: list[list[str]]
    problems: list = field(default_factory=list)

    def to_json(self) -> dict:
        from core.catalog.genealogy import lineage_of

        languages = []
        for s, codes, statuses in zip(self.rows, self.codes, self.statuses, strict=True):
            lineage = lineage_of(s.glottocode)
            languages.append({"language": s.label, "glottocode": s.glottocode, "family": lineage.family,
                              "genus": lineage.genus, "macroarea": lineage.macroarea, "project": str(s.path),
                              "codes": dict(zip(self.feature_ids, codes, strict=True)),
                              "statuses": dict(zip(self.feature_ids, statuses, strict=True))})
        return {"features": self.feature_ids, "languages": languages,
                "problems": [p.to_json() for p in self.problems]}


def build_matrix(read: SampleRead, feature_ids: list[str] | None = None) -> SampleMatrix:
    """The matrix of a read sample over ``feature_ids`` (default: every feature with a value somewhere)."""
    features = list(feature_ids) if feature_ids is not None else sample_features(read.snapshots)
    codes, statuses = [], []
    for s in read.snapshots:
        by_feature = s.entry_map()
        row_codes, row_statuses = [], []
        for fid in features:
            e = by_feature.get(fid)
            word = status_word(e)
            row_codes.append("?" if word == UNKNOWN else (e.code or "") if e is not None and e.has_value else "")
            row_statuses.append(word)
        codes.append(row_codes)
        statuses.append(row_statuses)
    return SampleMatrix(features, list(read.snapshots), codes, statuses, list(read.problems))


def status_path(out: Path) -> Path:
    """Where the status sheet of ``out`` goes: ``matrix.csv`` -> ``matrix.status.csv``."""
    return out.with_name(f"{out.stem}.status{out.suffix or '.csv'}")


def matrix_csv(matrix: SampleMatrix, *, statuses: bool = False) -> str:
    """One sheet as CSV text: the codes, or with ``statuses`` the statuses."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*ROW_COLUMNS, *matrix.feature_ids])
    cells = matrix.statuses if statuses else matrix.codes
    from core.catalog.genealogy import lineage_of

    for s, row in zip(matrix.rows, cells, strict=True):
        lineage = lineage_of(s.glottocode)
        writer.writerow([s.label, s.glottocode or "", lineage.family, lineage.genus, lineage.macroarea, str(s.path),
                         *row])
    return buffer.getvalue()


def write_matrix(matrix: SampleMatrix, out: str | Path) -> tuple[Path, Path]:
    """Write ``out`` (codes) and its status sheet beside it; each file lands whole (written, then renamed)."""
    out = Path(out)
    second = status_path(out)
    for path, text in ((out, matrix_csv(matrix)), (second, matrix_csv(matrix, statuses=True))):
        write_whole(path, text)
    return out, second


def write_whole(path: Path, text: str) -> None:
    import os

    from core.errors import GrammarLensError

    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8", newline="")
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise GrammarLensError(f"Cannot write {path}: {exc.strerror or exc}.",
                               "Choose another file or folder.") from exc
