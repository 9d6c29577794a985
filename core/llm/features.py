"""What the classifier needs to know about a feature, independent of where it was defined.

:class:`FeatureSpec` is the classifier's own view of a feature: its closed value set, the
definition that goes into a RAG prompt, the coding guidelines for the "rag-guidelines"
configuration, and, for the paper's polar-question complex, its binary sub-features.  The four
features of the paper come from :mod:`core.llm.paper_features`; every other feature is adapted
from the catalog's ``Feature`` (duck-typed, so this module does not depend on the catalog).
"""

from __future__ import annotations

from dataclasses import dataclass, field

NOT_ENOUGH_INFORMATION = "Not enough information"
# The paper's wording for the same option in its benchmark CSVs.
PAPER_NOT_MENTIONED = "Not mentioned in the grammar"


@dataclass(frozen=True)
class FeatureSpec:
    """A feature as the classifier sees it. ``values`` holds ``(code, label)`` pairs."""

    id: str
    name: str
    values: tuple[tuple[str, str], ...]
    definition: str = ""
    guidelines: str = ""
    question: str = ""  # "Please determine ... in the language {language}."
    instructions: tuple[str, ...] = ()  # extra lines of the paper's prompt
    subfeatures: tuple["FeatureSpec", ...] = ()
    sub_label: str = ""  # name of this sub-feature inside its multi-label parent
    synonyms: dict[str, str] = field(default_factory=dict)  # normalised phrase -> label
    dataset: str = ""

    @property
    def is_multilabel(self) -> bool:
        return bool(self.subfeatures)

    def labels(self) -> list[str]:
        return [label for _, label in self.values]

    def options(self) -> list[str]:
        """The labels offered to the model: the value set plus "Not enough information"."""
        return self.labels() + [NOT_ENOUGH_INFORMATION]

    def code_of(self, label: str) -> str | None:
        return next((code for code, lab in self.values if lab == label), None)


def as_spec(feature: object) -> FeatureSpec:
    """Turn a catalog ``Feature`` (or a FeatureSpec, or a feature id) into a :class:`FeatureSpec`.

    The paper's four features keep the paper's prompts; the catalog may still improve their
    definitions and guidelines.  Anything else is built from the catalog's fields.
    """
    from core.llm import paper_features

    if isinstance(feature, FeatureSpec):
        return feature
    if isinstance(feature, str):
        spec = paper_features.get(feature)
        if spec is not None:
            return spec
        catalog_feature = _catalog_feature(feature)
        return paper_features.get(str(catalog_feature.id)) or as_spec(catalog_feature)
    feature_id = str(getattr(feature, "id"))
    paper = paper_features.get(feature_id)
    if paper is not None:
        return paper
    subs = tuple(as_spec(_catalog_feature(s) if isinstance(s, str) else s)
                 for s in (_first_attr(feature, ("multi_label", "sub_features", "subfeatures")) or ()))
    values = tuple((str(c), str(l)) for c, l in (getattr(feature, "values", None) or ()))
    if not values and not subs:
        from core.llm.errors import LlmError

        raise LlmError(f"Feature {feature_id} has no value set to choose from.", "Pick a feature with coded values.")
    name = str(getattr(feature, "name", feature_id))
    return FeatureSpec(
        id=feature_id,
        name=name,
        values=values,
        definition=str(_first_attr(feature, ("definition", "description", "summary")) or ""),
        guidelines=str(_first_attr(feature, ("guidelines", "coding_guidelines", "procedure")) or ""),
        question=_question_for(name),
        subfeatures=subs,
        sub_label=name,
        dataset=str(getattr(feature, "dataset", "") or ""),
    )


def _question_for(name: str) -> str:
    name = name.strip()
    if name.endswith("?"):
        return f"Please answer this question about the language {{language}}: {name}"
    return f'Please determine the value of the typological feature "{name}" in the language {{language}}.'


def _first_attr(obj: object, names: tuple[str, ...]) -> object:
    for n in names:
        value = getattr(obj, n, None)
        if value:
            return value
    return None


def _catalog_feature(feature_id: str) -> object:
    """Look a feature up in the catalog (raises a clear error if there is none)."""
    from core.llm.errors import LlmError

    try:
        from core.catalog import load_catalog
    except ImportError as exc:
        raise LlmError(
            f"Unknown feature {feature_id!r}.",
            "Without the feature catalog only the paper's features 81A, 49A, GB107 and 116A* are known.",
        ) from exc
    feature = load_catalog().get(feature_id)  # raises UnknownFeature with a hint
    if feature is None:
        raise LlmError(f"Unknown feature {feature_id!r}.", "Use a WALS id such as 81A or a Grambank id such as GB107.")
    return feature
