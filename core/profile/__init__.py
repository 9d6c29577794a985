"""A language's typological profile: batch runs over feature sets, review status, database agreement.

Public API: :func:`resolve_feature_set`, :func:`save_feature_list`; batch jobs :class:`BatchSettings`,
:func:`open_job`, :func:`estimate`, :func:`run_job`; the profile :func:`build_profile` ->
:class:`ProfileEntry`; agreement :func:`load_reference_values`, :func:`compare`.
"""

from core.coding.feature_sets import (
                                       PAPER_FEATURES,
                                       get_feature_list,
                                       list_feature_lists,
                                       resolve_feature_set,
                                       save_feature_list,
)
from core.profile.agreement import Agreement, ReferenceValue, compare, load_reference_values
from core.profile.batch import (
                                       BatchResult,
                                       BatchSettings,
                                       Estimate,
                                       Job,
                                       estimate,
                                       find_job,
                                       list_jobs,
                                       load_job,
                                       open_job,
                                       run_job,
)
from core.profile.entries import STATUSES, ProfileEntry, build_profile

__all__ = [
    "Agreement", "BatchResult", "BatchSettings", "Estimate", "Job", "PAPER_FEATURES", "ProfileEntry", "ReferenceValue",
    "STATUSES", "build_profile", "compare", "estimate", "find_job", "get_feature_list", "list_feature_lists",
    "list_jobs", "load_job", "load_reference_values", "open_job", "resolve_feature_set", "run_job",
    "save_feature_list",
]
