"""Reading a sample: every project opened read-only once, kept as a plain snapshot.

Why snapshots: status, matrix, reference comparison, export and the Sample window all need the
same few facts per language (its name and Glottocode, its grammars, the profile entries with
their statuses, the coder's current decisions with pins).  Each project is opened read-only
(``open_project(..., readonly=True)``: no migration, no backup, ``query_only``), read in one go
and closed again, so a sample of 100 projects never holds 100 connections and a coder working
in one of them at the same time is not disturbed (WAL readers do not block the writer, nor it
them).

A project that cannot be read (damaged, not a project, written by a newer or older GrammarLens,
missing, busy) becomes a :class:`MemberProblem` with GrammarLens's own message and hint; the rest
of the sample is read all the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import Cancelled, GrammarLensError
from core.profile.entries import ProfileEntry


@dataclass(frozen=True)
class MemberProblem:
    """A project of the sample that could not be read, and why (GrammarLens's message and hint)."""

    path: Path
    message: str
    hint: str = ""

    def to_json(self) -> dict:
        return {"path": str(self.path), "error": self.message, "hint": self.hint}


@dataclass(frozen=True)
class Snapshot:
    """What a sample needs to know about one project, read once (plain data, no connection)."""

    path: Path
    name: str | None  # the project's language name (None when unset)
    glottocode: str | None  # None when unset or malformed
    grammars: tuple[str, ...]  # file names of its grammar PDFs
    entries: tuple[ProfileEntry, ...]  # the profile (core.profile.entries): one row per feature value
    decisions: dict = field(default_factory=dict)  # feature id -> current core.coding Decision (pins included)
    last_change: str = ""  # the newest stamp of a model answer, a retrieval or a decision ("" if none)
    coders: tuple[str, ...] = ()  # who made the current decisions, most decisions first
    sources: object = None  # core.export.bibtex.ExportSources: every grammar's entry and key (read with sources)
    warnings: tuple[str, ...] = ()
    blind_records: dict = field(default_factory=dict)  # B's path -> blind comparison JSON kept in this project

    @property
    def label(self) -> str:
        """How the language is named in reports: its name, else the file's stem."""
        return self.name or self.path.stem

    @property
    def language_key(self) -> str:
        """The language's identity within a sample: its Glottocode, else the file name."""
        return self.glottocode or self.path.name

    def entry_map(self) -> dict[str, ProfileEntry]:
        """Feature id -> its profile entry."""
        return {e.feature_id: e for e in self.entries}


@dataclass
class SampleRead:
    """The readable projects of a sample (in path order) and the ones that could not be read."""

    snapshots: list[Snapshot]
    problems: list[MemberProblem]

    def warnings(self) -> list[str]:
        """Languages that appear twice (two coders' files are compared with 'compare', not here)."""
        seen: dict[str, Path] = {}
        out: list[str] = []
        for s in self.snapshots:
            if s.glottocode and s.glottocode in seen:
                out.append(f"{s.path} and {seen[s.glottocode]} both describe {s.glottocode}; "
                           f"comparisons and the export keep {seen[s.glottocode].name}.")
            elif s.glottocode:
                seen[s.glottocode] = s.path
        return out

    def by_language(self) -> list[Snapshot]:
        """One snapshot per language: the first project of each Glottocode (projects without one all count)."""
        seen: set[str] = set()
        out = []
        for s in self.snapshots:
            if s.glottocode and s.glottocode in seen:
                continue
            if s.glottocode:
                seen.add(s.glottocode)
            out.append(s)
        return out


Progress = Callable[[int, int, Path], None]


def read_sample(source: str | os.PathLike[str], *, with_sources: bool = False,
                on_progress: Progress | None = None, is_cancelled: Callable[[], bool] | None = None) -> SampleRead:
    """Read every project of ``source`` (a folder, a list file or one project; see :mod:`core.sample.members`).

    ``with_sources`` also reads each grammar's BibTeX entry and key (the export needs them; they come
    from the project's stored record, or from the PDF for a project that has none yet, so status and
    matrix skip it).  ``on_progress(done, total, path)`` is
    called after each project and ``is_cancelled()`` checked before each (the GUI's worker passes
    both); a cancel raises :class:`~core.errors.Cancelled`.
    """
    from core.sample.members import find_projects

    paths = find_projects(source)
    return read_projects(paths, with_sources=with_sources, on_progress=on_progress, is_cancelled=is_cancelled)


def read_projects(paths: Iterable[Path], *, with_sources: bool = False, on_progress: Progress | None = None,
                  is_cancelled: Callable[[], bool] | None = None) -> SampleRead:
    """:func:`read_sample` for an explicit list of project paths."""
    paths = list(paths)
    snapshots: list[Snapshot] = []
    problems: list[MemberProblem] = []
    for i, path in enumerate(paths):
        if is_cancelled is not None and is_cancelled():
            raise Cancelled()
        try:
            snapshots.append(read_project(path, with_sources=with_sources))
        except GrammarLensError as exc:
            problems.append(MemberProblem(path, exc.message, exc.hint))
        except OSError as exc:  # a listed name the file system refuses (too long, a loop of links...)
            problems.append(MemberProblem(path, f"Cannot open {path}: {exc.strerror or exc}.",
                                          "Check the path in the sample's list."))
        if on_progress is not None:
            on_progress(i + 1, len(paths), path)
    return SampleRead(snapshots, problems)


def read_project(path: Path, *, with_sources: bool = False) -> Snapshot:
    """One project's snapshot, read through a read-only connection that is closed before returning."""
    from core.store import open_project

    with open_project(path, readonly=True) as project:
        return _snapshot(project, path, with_sources=with_sources)


def _snapshot(project, path: Path, *, with_sources: bool) -> Snapshot:
    from collections import Counter

    from core.export.cldf import export_language
    from core.profile.entries import build_profile
    from core.store.blind_comparisons import read_blind_records
    from core.store.decisions import current_decisions
    from core.store.repository import list_documents

    name, glottocode, warnings = export_language(project)
    documents = list_documents(project)
    entries = tuple(build_profile(project))
    decisions = current_decisions(project)
    stamps = [e.created_at for e in entries if e.created_at] + [d.created_at for d in decisions.values()]
    coders = Counter(d.reviewer for d in decisions.values() if d.reviewer)
    sources = None
    if with_sources:
        from core.export.bibtex import export_sources

        sources = export_sources(project)
        warnings = [*warnings, *sources.warnings]
    return Snapshot(path=path, name=name, glottocode=glottocode, grammars=tuple(d.file_name for d in documents),
                    entries=entries, decisions=decisions, last_change=max(stamps, default=""),
                    coders=tuple(c for c, _ in coders.most_common()), sources=sources,
                    warnings=tuple(warnings), blind_records=read_blind_records(project))

