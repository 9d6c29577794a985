"""What the Profile dock says after writing a batch file or importing its results.

Why a module of its own: the reports of :mod:`core.profile.batch_files` count many kinds of lines
(imported, already stored, errors, unknown, stale, unparsable...) and the person needs the
counts that matter in one sentence, the first few problem lines to act on, and the rest on
demand.  The wording lives here, next to the one message box that shows it; the dock only runs
the jobs (:mod:`gui.profile.profile_backend`) and calls :func:`report_box`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

FIRST_PROBLEMS = 5  # problem lines shown in the message itself; the rest sit under "Show details"
NEXT_STEP = ("Send the file to the OpenAI Batch API (python main.py batch submit FILE) or to vLLM "
             "(python -m vllm.entrypoints.openai.run_batch -i FILE -o RESULTS --model MODEL), then choose "
             "Batch file → Import batch results… with the results file.")
# What Cancel does to a batch-file job (while cancelling, once cancelled): writing a file rolls the project back
# and removes the file; an import commits its lines in chunks, so the lines stored before the cancel are kept.
FILE_CANCEL_NOTES = {
    "written": ("Cancelling: the project is left as it was…",
                "Cancelled; the project and the files are as they were."),
    "imported": ("Cancelling: the lines imported so far are kept…",
                 "Cancelled; the lines imported so far are kept (each whole). "
                 "Import the file again to store the rest."),
}
# (report attribute, how the message names it), in the order the message lists them
IMPORT_COUNTS = (("already", "already stored"), ("duplicates", "duplicate(s)"), ("errors", "error(s)"),
                 ("unknown", "unknown"), ("stale", "stale (project changed)"), ("broken", "broken line(s)"),
                 ("unparsable", "unparsable answer(s), stored without a value"),
                 ("usage_unread", "stored without token counts (cost unknown)"), ("failed", "failed"))


@dataclass(frozen=True)
class Summary:
    """One report in words: a title, a line for the dock, the message's text, and details on demand."""

    title: str
    line: str  # one sentence, kept in the dock under the feature set
    text: str
    informative: str = ""
    details: str = ""
    warning: bool = False  # some lines or features were not stored


def summarise_write(report: Any, feature_set: str) -> Summary:
    """Words for a :class:`core.profile.batch_files.BatchWriteReport`."""
    name = Path(report.out_path).name
    skipped = f"{report.skipped:,} feature(s) already answered were skipped" if report.skipped else ""
    if report.written:
        line = f"Wrote {report.written:,} request(s) of '{feature_set}' to {name}" + (f"; {skipped}" if skipped else "")
        informative = NEXT_STEP
    elif report.problems:
        line, informative = f"No request written to {name}", ""
    else:
        line, informative = f"Nothing to write to {name}: every feature of '{feature_set}' is answered", ""
    problems = [p.message for p in report.problems]
    if problems:
        line += f"; {len(problems)} feature(s) failed"
        informative = "\n".join(problems[:FIRST_PROBLEMS]) + ("\n…" if len(problems) > FIRST_PROBLEMS else "") + (
            "\n\n" + informative if informative else "")
    return Summary("Batch file written", line + ".", line + ".", informative, "\n".join(problems), bool(problems))


def summarise_import(report: Any) -> Summary:
    """Words for a :class:`core.profile.batch_files.BatchImportReport`: counts, then its warnings (a backup that
    could not be taken) and the first problem lines."""
    counts = [f"{getattr(report, key):,} {label}" for key, label in IMPORT_COUNTS if getattr(report, key)]
    line = (f"Imported {report.imported:,} of {report.lines:,} line(s) from {Path(report.results_path).name}"
            + (f": {', '.join(counts)}" if counts else ""))
    problems = [p.describe() for p in report.problems]
    more = report.problems_left_out
    shown = problems[:FIRST_PROBLEMS]
    rest = len(problems) - len(shown) + more
    warnings = [f"Warning: {w}" for w in report.warnings]
    informative = "\n".join(warnings + shown) + (f"\n… and {rest:,} more (Show details)" if rest else "")
    details = "\n".join(warnings + problems) + (f"\n… and {more:,} more" if more else "")
    return Summary("Batch results imported", line + ".", line + ".", informative, details,
                   bool(report.not_imported or warnings))


def report_box(parent: QWidget, summary: Summary) -> QMessageBox:
    """Open (window-modal, not blocking) the message for ``summary`` and return it."""
    box = QMessageBox(parent)
    box.setWindowTitle(summary.title)
    box.setIcon(QMessageBox.Icon.Warning if summary.warning else QMessageBox.Icon.Information)
    box.setText(summary.text)
    if summary.informative:
        box.setInformativeText(summary.informative)
    if summary.details:
        box.setDetailedText(summary.details)
    box.setAccessibleName(summary.title)
    # problem lines and commands are long: a wider box reads them on one line each instead of three
    box.setStyleSheet("QLabel#qt_msgbox_label, QLabel#qt_msgbox_informativelabel { min-width: 560px; }")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    return box
