"""A language sample: many projects read together, two coders compared, one dataset exported (Qt-free).

A sample is a folder of ``*.grammarlens`` files (top level and one folder down), a text file
listing project paths, or one project (:mod:`~core.sample.members`).  Every project is opened
read-only and read once into a plain :class:`~core.sample.snapshot.Snapshot`
(:func:`~core.sample.snapshot.read_sample`); a project that cannot be read is reported as a
:class:`~core.sample.snapshot.MemberProblem` and the rest goes on.

Modules, one job each:

* :mod:`~core.sample.members` — which files make up a sample;
* :mod:`~core.sample.snapshot` — reading them read-only (``read_sample`` -> ``SampleRead``);
* :mod:`~core.sample.status` — per language: grammars, Glottocode, counts per status, last change;
* :mod:`~core.sample.matrix` — language x feature codes and statuses (two CSV sheets);
* :mod:`~core.sample.kappa` — Cohen's kappa (missing values and the undefined case documented there);
* :mod:`~core.sample.groups` — Grambank's feature domains for per-group figures;
* :mod:`~core.sample.reference` — the sample against Grambank/WALS (scored by core.profile.scoring);
* :mod:`~core.sample.coders` — two coders' files compared (``compare_projects`` -> ``CoderComparison``);
* :mod:`~core.sample.resolution` — a resolved value stored in A recording both coders' decisions;
* :mod:`~core.sample.export` — one CLDF StructureDataset for the whole sample.
"""

from core.sample.coders import (
                                AGREE,
                                DISAGREE,
                                ONLY_A,
                                ONLY_B,
                                CoderComparison,
                                CoderFile,
                                CoderValue,
                                Disagreement,
                                FeatureVerdict,
                                SampleCoderComparison,
                                compare_folders,
                                compare_projects,
                                compare_snapshots,
)
from core.sample.kappa import Kappa, cohen_kappa
from core.sample.members import find_projects
from core.sample.resolution import resolve_disagreement
from core.sample.snapshot import MemberProblem, SampleRead, Snapshot, read_project, read_sample

__all__ = [
    "AGREE", "DISAGREE", "ONLY_A", "ONLY_B", "CoderComparison", "CoderFile", "CoderValue", "Disagreement",
    "FeatureVerdict", "Kappa", "MemberProblem", "SampleCoderComparison", "SampleRead", "Snapshot", "cohen_kappa",
    "compare_folders", "compare_projects", "compare_snapshots", "find_projects", "read_project", "read_sample",
    "resolve_disagreement",
]
