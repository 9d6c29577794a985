"""The four features of the paper's RAG benchmark, with the option lists of its Appendix E.

These are facts (feature ids, value labels, the coding decisions the paper spells out) needed to
rebuild the paper's prompts; the prompt wording itself lives in :mod:`core.llm.prompts`.
Codes are the catalog's (WALS ``1``..``7`` in its order, Grambank ``0``/``1``) so stored
classifications line up with the catalog and CLDF export.  The catalog may supply longer definitions; these short
ones keep the paper's prompts working without it.
"""

from __future__ import annotations

from core.llm.features import FeatureSpec

_ORDERS = ("SOV", "SVO", "VOS", "VSO", "OVS", "OSV")
_WALS_81A_NUMBER = {"SOV": 1, "SVO": 2, "VSO": 3, "VOS": 4, "OVS": 5, "OSV": 6}
_ROLE = {"S": "subject", "O": "object", "V": "verb"}


def _order_synonyms() -> dict[str, str]:
    """"subject-object-verb", "subject object verb", "s-o-v"... all mean SOV."""
    out: dict[str, str] = {}
    for order in _ORDERS:
        words = [_ROLE[c] for c in order]
        out[" ".join(words)] = order
        out[" ".join(order.lower())] = order
        out[f"{order.lower()} order"] = order
        out[f"{order.lower()} word order"] = order
    for phrase in ("no dominant word order", "lacking a dominant word order", "no dominant order",
                   "no basic word order", "no dominant constituent order"):
        out[phrase] = "No dominant order"
    return out


WALS_81A = FeatureSpec(
    id="81A",
    name="Order of Subject, Object and Verb",
    dataset="WALS",
    values=tuple((str(_WALS_81A_NUMBER[o]), o) for o in _ORDERS) + (("7", "No dominant order"),),
    definition=(
        "The dominant order of subject, object and verb in declarative clauses whose subject and "
        "object are both nouns. A language has a dominant order when one order is more frequent "
        "(or the only one, or the pragmatically unmarked one) in texts; otherwise it has none."
    ),
    guidelines=(
        "Look for an explicit statement of the basic or unmarked constituent order of the "
        "monotransitive clause, and check it against examples with full noun phrases.\n"
        "Ignore the order of pronouns, of intransitive clauses, of ditransitive or subordinate "
        "clauses, and of questions or topicalised sentences.\n"
        "If the grammar says that order is free or that several orders are equally common, and "
        "frequency does not single one out, choose \"No dominant order\".\n"
        "Example: 'The unmarked order is agent-patient-verb: dog man bit' gives SOV."
    ),
    question="Please determine the dominant word order (order of subject, object, and verb) in the language {language}.",
    instructions=(
        'The term "dominant word order" in the context of this feature refers to the dominant order of '
        "constituents in declarative sentences, in the case where both the subject and the object "
        "participants are nouns.",
    ),
    synonyms=_order_synonyms(),
)

_BINARY_SYNONYMS = {"yes": "1", "present": "1", "true": "1", "no": "0", "absent": "0", "false": "0"}
_GLOSS_LINES = (
    'Clitic boundaries are marked in the glosses by an equals sign: "=".',
    'Affix boundaries are marked in the glosses by a dash: "-".',
)

GB107 = FeatureSpec(
    id="GB107",
    name="Can standard negation be marked by an affix, clitic or modification of the verb?",
    dataset="Grambank",
    values=(("1", "1"), ("0", "0")),
    definition=(
        "Standard negation is the negation of declarative main clauses with dynamic verbal "
        "predicates. The feature is 1 when it can be marked on the verb itself: by an affix, by a "
        "clitic bound to the verb only, or by a change of the verb's form."
    ),
    guidelines=(
        "Find how a plain declarative clause such as 'the man did not see the dog' is negated.\n"
        "Code 1 if a negative affix or a clitic that attaches to the verb (only) can do it, or a "
        "change of the verb such as a special negative stem or tone.\n"
        "Code 0 if negation is only marked by free particles, auxiliaries or clitics that can attach "
        "to other constituents.\n"
        "Check the interlinear glosses: '-' marks affixes, '=' clitics, spaces separate words."
    ),
    question=(
        "Please determine if standard negation in the language {language} can be marked by a modification "
        "of the verb or an affix/clitic that is phonologically bound to the verb."
    ),
    instructions=(
        'The term "standard negation" refers to constructions that mark negation in declarative sentences '
        "involving dynamic (not-stative) verbal predicates.",
        "Morphemes that attach (become phonologically bound) to other constituents, not verbs only, do not count.",
        *_GLOSS_LINES,
        "Separate words (i. e. particles that are not phonologically bound to other words) are separated "
        "from other words by spaces.",
        "Reply with 1 if standard negation in the language {language} can be marked by an affix, clitic or "
        "modification of the verb.",
        "Reply with 0 if standard negation in {language} cannot be marked by an affix, clitic or modification "
        "of the verb.",
    ),
    synonyms=dict(_BINARY_SYNONYMS),
)

_CASE_LABELS = (
    "No morphological case-marking", "2 cases", "3 cases", "4 cases", "5 cases", "6-7 cases",
    "8-9 cases", "10 or more cases", "Exclusively borderline case-marking",
)

WALS_49A = FeatureSpec(
    id="49A",
    name="Number of Cases",
    dataset="WALS",
    values=tuple((str(i), label) for i, label in enumerate(_CASE_LABELS, start=1)),
    definition=(
        "The number of productive case categories in the inflection of nouns, counting "
        "adpositional clitics as case markers; concrete (peripheral) cases alone make "
        "'Exclusively borderline case-marking'."
    ),
    guidelines=(
        "List every case form of nouns that is productive: nominative/absolutive (even if unmarked), "
        "ergative, accusative, dative, genitive, locatives and other semantic cases, including "
        "adpositional clitics that attach to the noun phrase.\n"
        "Do not count vocatives, topic or focus markers, or genitives that agree with the possessed noun.\n"
        "Count the distinct categories, then choose the range: 2, 3, 4, 5, 6-7, 8-9, 10 or more.\n"
        "If only concrete relations such as location or instrument are marked, choose "
        "\"Exclusively borderline case-marking\"; if nouns show no case at all, \"No morphological case-marking\"."
    ),
    question="Please determine the number of cases in the language {language}.",
    instructions=(
        'The term "cases" in the context of this feature refers to productive case paradigms of nouns.',
        'The feature value "Exclusively borderline case-marking" refers to languages which have overt marking '
        'only for concrete (or "peripheral", or "semantic") case relations, such as locatives or instrumentals.',
        "Categories with pragmatic (non-syntactic) functions, such as vocatives or topic markers, are not "
        "counted as case even if they are morphologically integrated into case paradigms.",
        "Genitives are counted as long as they do not encode categories of the possessum like number or gender "
        "as well, if they do not show explicit adjective-like properties. Genitives that may take additional "
        'case affixes agreeing with the head noun case ("double case") are not regarded as adjectival.',
    ),
    synonyms={"no case": "No morphological case-marking", "no cases": "No morphological case-marking",
              "no case marking": "No morphological case-marking", "none": "No morphological case-marking",
              "borderline case marking": "Exclusively borderline case-marking"},
)

# The paper's seven polar-question strategies, in its prompt's order, with their Grambank features.
POLAR_STRATEGIES: tuple[tuple[str, str], ...] = (
    ("GB257", "Interrogative intonation only"),
    ("GB260", "Interrogative word order"),
    ("GB262", "Clause-initial question particle"),
    ("GB263", "Clause-final question particle"),
    ("GB264", "Clause-medial question particle"),
    ("GB286", "Interrogative verb morphology"),
    ("GB291", "Tone"),
)

_POLAR_SUBS = tuple(
    FeatureSpec(id=gb, name=label, sub_label=label, dataset="Grambank",
                values=(("1", "1"), ("0", "0")), synonyms=dict(_BINARY_SYNONYMS))
    for gb, label in POLAR_STRATEGIES
)

POLAR_QUESTIONS = FeatureSpec(
    id="116A*",
    name="Polar questions (seven strategies, after WALS 116A and Grambank)",
    dataset="Grambank",
    values=(),
    subfeatures=_POLAR_SUBS,
    definition=(
        "Which strategies can form neutral polar (yes-no) questions: intonation only, a special word "
        "order, a question particle at the start, in the middle or at the end of the clause, verb "
        "morphology, or tone. Several can be present at once."
    ),
    guidelines=(
        "Consider neutral yes-no questions only, not leading ones or tag questions.\n"
        "Intonation only: a question differs from the statement by intonation and nothing else.\n"
        "A particle that can follow any constituent, including the last one, counts as clause-medial and "
        "clause-final; one that can precede any constituent, including the first, as clause-initial and "
        "clause-medial. A second-position particle is clause-medial.\n"
        "A question morpheme bound to the verb only is interrogative verb morphology.\n"
        "Tone counts when a change of tone alone marks the question."
    ),
    question="Please determine all possible strategies for forming polar questions (yes-no questions) in the language {language}.",
    instructions=(
        "Consider neutral polar questions only (non-neutral, or leading, polar questions indicate that the "
        "speaker expects a particular response).",
        "The 7 strategies for forming polar questions are the following: Interrogative intonation only, "
        "Interrogative word order, Clause-initial question particle, Clause-final question particle, "
        "Clause-medial question particle, Interrogative verb morphology, Tone.",
        *_GLOSS_LINES,
        "Separate words (e. g. particles that are not phonologically bound to other words) are separated from "
        "other words by spaces.",
        "For this feature, count interrogative clitics as particles if they can be bound to other constituents "
        "in the sentence, not to the verb only.",
        "Interrogative morphemes that can be phonologically bound to the verb only are counted as interrogative "
        "verbal morphology.",
        "If a morpheme (for example, clitic or particle) can follow any constituent, which can be in various "
        'positions within the clause, including the clause-final position, code 1 for both "Clause-medial '
        'question particle" and "Clause-final question particle".',
        "If a morpheme (for example, clitic or particle) can precede any constituent, which can be in various "
        'positions within the clause, including the clause-initial position, code 1 for both "Clause-initial '
        'question particle" and "Clause-medial question particle".',
        "For each strategy, code 1 if it is present in the described language; code 0 if it is absent in the language.",
    ),
)

PAPER_FEATURES: dict[str, FeatureSpec] = {f.id: f for f in (WALS_81A, GB107, POLAR_QUESTIONS, WALS_49A)}
_ALIASES = {"wals81a": "81A", "81a": "81A", "gb107": "GB107", "gb_107": "GB107", "49a": "49A",
            "wals49a": "49A", "116a*": "116A*", "wals116a*": "116A*", "pq": "116A*"}
# Folder names of the paper's benchmark (../shared/bench/rag/paragraphs/<folder>).
BENCH_FOLDERS = {"81A": "WALS_81A", "GB107": "GB_107", "116A*": "WALS_116A", "49A": "WALS_49A"}


def get(feature_id: str) -> FeatureSpec | None:
    """The paper's feature with this id (accepting "WALS 81A", "gb107", "116A*"), else None."""
    key = feature_id.replace(" ", "").replace("_", "").lower()
    return PAPER_FEATURES.get(_ALIASES.get(key, feature_id))
