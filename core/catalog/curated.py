"""The paper's four features written down once, as catalog data (input of scripts/build_catalog.py).

Everything a prompt, the parser, retrieval and the GUI need about 81A, 49A, GB107 and the
polar-question complex 116A* lives here: our own definitions and coding notes, the question and
instruction lines and the option lists of the paper's Appendix E (so the paper's prompts are
rebuilt word for word), the phrases a model may answer with, retrieval queries and vocabularies.
The build script copies it into ``resources/features.json``; at run time only that file is read.

The vocabularies list how grammars *state* a value ("SOV", "verb-final", "A V P") next to how they
name the topic ("constituent order"); they are language-agnostic because they describe the
metalanguage of grammars, not any object language.
"""

from __future__ import annotations

from itertools import permutations

PAPER_FEATURES = ("81A", "49A", "GB107", "116A*")  # the paper's four: word order, cases, negation, polar questions
POLAR_QUESTION_ID = "116A*"
POLAR_QUESTION_ALIASES = ("PQ",)
# The paper's seven polar-question strategies, in its prompt's order, each one Grambank feature.
POLAR_QUESTION_PARTS: tuple[tuple[str, str], ...] = (
    ("GB257", "Interrogative intonation only"),
    ("GB260", "Interrogative word order"),
    ("GB262", "Clause-initial question particle"),
    ("GB263", "Clause-final question particle"),
    ("GB264", "Clause-medial question particle"),
    ("GB286", "Interrogative verb morphology"),
    ("GB291", "Tone"),
)
# How a yes/no answer may be worded; added to every Grambank feature coded 0/1 (and its parts).
BINARY_SYNONYMS = {"yes": "1", "no": "0", "true": "1", "false": "0", "1": "1", "0": "0"}

_ORDERS = ("SOV", "SVO", "VOS", "VSO", "OVS", "OSV")  # the paper's option order
_WALS_81A_CODE = {"SOV": "1", "SVO": "2", "VSO": "3", "VOS": "4", "OVS": "5", "OSV": "6"}
_ROLE = {"S": "subject", "O": "object", "V": "verb"}
_GLOSS_LINES = (
    'Clitic boundaries are marked in the glosses by an equals sign: "=".',
    'Affix boundaries are marked in the glosses by a dash: "-".',
)


def _word_order_codes() -> list[str]:
    """SOV-style codes in the three notations grammars use (S/O/V, A/O/V, A/P/V), both glued and spaced."""
    codes: set[str] = set()
    notations = ({"S": "S", "O": "O"}, {"S": "A", "O": "O"}, {"S": "A", "O": "P"})
    for order in permutations("SOV"):
        for notation in notations:
            code = "".join(notation.get(c, c) for c in order)
            codes.add(code)
            codes.add(" ".join(code))
    return sorted(codes)


def _order_synonyms() -> dict[str, str]:
    """"subject-object-verb", "subject object verb", "s-o-v"... all mean SOV (code 1)."""
    out: dict[str, str] = {}
    for order in _ORDERS:
        code = _WALS_81A_CODE[order]
        out[" ".join(_ROLE[c] for c in order)] = code
        out[" ".join(order.lower())] = code
        out[f"{order.lower()} order"] = code
        out[f"{order.lower()} word order"] = code
    for phrase in ("no dominant word order", "lacking a dominant word order", "no dominant order",
                   "no basic word order", "no dominant constituent order"):
        out[phrase] = "7"
    return out


# Per feature: fields of core.catalog.model.Feature.  Codes are WALS's / Grambank's.
CURATED: dict[str, dict] = {
    "81A": {
        "definition": (
            "The dominant order of subject, object and verb in declarative clauses whose subject and "
            "object are both nouns. A language has a dominant order when one order is more frequent "
            "(or the only one, or the pragmatically unmarked one) in texts; otherwise it has none."
        ),
        "guidelines": (
            "Look for an explicit statement of the basic or unmarked constituent order of the "
            "monotransitive clause, and check it against examples with full noun phrases.\n"
            "Ignore the order of pronouns, of intransitive clauses, of ditransitive or subordinate "
            "clauses, and of questions or topicalised sentences.\n"
            "If the grammar says that order is free or that several orders are equally common, and "
            "frequency does not single one out, choose \"No dominant order\".\n"
            "Example: 'The unmarked order is agent-patient-verb: dog man bit' gives SOV."
        ),
        "question": ("Please determine the dominant word order (order of subject, object, and verb) in the "
                     "language {language}."),
        "instructions": [
            'The term "dominant word order" in the context of this feature refers to the dominant order of '
            "constituents in declarative sentences, in the case where both the subject and the object "
            "participants are nouns.",
        ],
        "options": [[_WALS_81A_CODE[o], o] for o in _ORDERS] + [["7", "No dominant order"]],
        "synonyms": _order_synonyms(),
        "queries": {
            "term": "Dominant word order (Order of Subject, Object, and Verb)",
            "descriptive": (
                "basic constituent order of subject, object and verb in the transitive clause: "
                "SOV, SVO, VSO, VOS, OVS, OSV or no dominant word order"
            ),
        },
        "vocabulary": {
            "topic": [
                "word order", "constituent order", "basic order", "basic word order", "dominant order",
                "order of subject object and verb", "clause order", "order of constituents", "transitive clause",
            ],
            "values": _word_order_codes() + [
                "verb final", "verb initial", "verb medial", "predicate initial", "predicate final",
                "subject object verb", "subject verb object", "verb subject object", "verb object subject",
                "object verb subject", "object subject verb", "no dominant order", "free word order",
                "preverbal", "postverbal", "pragmatically determined",
            ],
        },
    },
    "GB107": {
        "definition": (
            "Standard negation is the negation of declarative main clauses with dynamic verbal "
            "predicates. The feature is 1 when it can be marked on the verb itself: by an affix, by a "
            "clitic bound to the verb only, or by a change of the verb's form."
        ),
        "guidelines": (
            "Find how a plain declarative clause such as 'the man did not see the dog' is negated.\n"
            "Code 1 if a negative affix or a clitic that attaches to the verb (only) can do it, or a "
            "change of the verb such as a special negative stem or tone.\n"
            "Code 0 if negation is only marked by free particles, auxiliaries or clitics that can attach "
            "to other constituents.\n"
            "Check the interlinear glosses: '-' marks affixes, '=' clitics, spaces separate words."
        ),
        "question": (
            "Please determine if standard negation in the language {language} can be marked by a modification "
            "of the verb or an affix/clitic that is phonologically bound to the verb."
        ),
        "instructions": [
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
        ],
        "options": [["1", "1"], ["0", "0"]],  # Appendix E: "Choose one of the 2 following options: 1, 0."
        "queries": {
            "term": "Standard negation marked by an affix, clitic or modification of the verb",
            "descriptive": (
                "how negation of a main declarative verbal clause is expressed: a negative prefix, suffix or "
                "clitic on the verb, a change of the verb form, or a separate negative particle or auxiliary"
            ),
        },
        "vocabulary": {
            "topic": [
                "negation", "standard negation", "negative", "negated", "negator", "negative marker",
                "clausal negation", "neg",
            ],
            "values": [
                "negative prefix", "negative suffix", "negative affix", "negative clitic", "negative enclitic",
                "negative proclitic", "negative particle", "negative auxiliary", "negative verb",
                "prefixed to the verb", "suffixed to the verb", "attached to the verb", "negative morpheme",
            ],
        },
    },
    POLAR_QUESTION_ID: {
        "name": "Polar question strategies (seven Grambank features)",
        "aliases": list(POLAR_QUESTION_ALIASES),
        "parts": [list(p) for p in POLAR_QUESTION_PARTS],
        "definition": (
            "Which strategies can form neutral polar (yes-no) questions: intonation only, a special word "
            "order, a question particle at the start, in the middle or at the end of the clause, verb "
            "morphology, or tone. Several can be present at once."
        ),
        "guidelines": (
            "Consider neutral yes-no questions only, not leading ones or tag questions.\n"
            "Intonation only: a question differs from the statement by intonation and nothing else.\n"
            "A particle that can follow any constituent, including the last one, counts as clause-medial and "
            "clause-final; one that can precede any constituent, including the first, as clause-initial and "
            "clause-medial. A second-position particle is clause-medial.\n"
            "A question morpheme bound to the verb only is interrogative verb morphology.\n"
            "Tone counts when a change of tone alone marks the question."
        ),
        "question": ("Please determine all possible strategies for forming polar questions (yes-no questions) in "
                     "the language {language}."),
        "instructions": [
            "Consider neutral polar questions only (non-neutral, or leading, polar questions indicate that the "
            "speaker expects a particular response).",
            "The 7 strategies for forming polar questions are the following: "
            + ", ".join(label for _, label in POLAR_QUESTION_PARTS) + ".",
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
            "For each strategy, code 1 if it is present in the described language; code 0 if it is absent in the "
            "language.",
        ],
        "options": [["1", "1"], ["0", "0"]],  # how each strategy is coded in the prompt
        "queries": {
            "term": "Polar questions (yes/no questions)",
            "descriptive": (
                "how yes/no questions are formed: rising intonation, a question particle at the beginning or "
                "end of the clause, interrogative verb morphology, inversion of word order, or tone"
            ),
        },
        "vocabulary": {
            "topic": [
                "polar question", "polar questions", "yes no question", "yes no questions", "polar interrogative",
                "interrogative", "question", "questions", "interrogation",
            ],
            "values": [
                "question particle", "interrogative particle", "polar question particle", "clause final",
                "clause initial", "sentence final", "sentence initial", "rising intonation", "intonation",
                "final rise", "inversion", "interrogative suffix", "interrogative mood", "interrogative verb",
                "tone", "high tone", "low tone", "q",
            ],
        },
    },
    "49A": {
        "definition": (
            "The number of productive case categories in the inflection of nouns, counting "
            "adpositional clitics as case markers; concrete (peripheral) cases alone make "
            "'Exclusively borderline case-marking'."
        ),
        "guidelines": (
            "List every case form of nouns that is productive: nominative/absolutive (even if unmarked), "
            "ergative, accusative, dative, genitive, locatives and other semantic cases, including "
            "adpositional clitics that attach to the noun phrase.\n"
            "Do not count vocatives, topic or focus markers, or genitives that agree with the possessed noun.\n"
            "Count the distinct categories, then choose the range: 2, 3, 4, 5, 6-7, 8-9, 10 or more.\n"
            "If only concrete relations such as location or instrument are marked, choose "
            "\"Exclusively borderline case-marking\"; if nouns show no case at all, \"No morphological case-marking\"."
        ),
        "question": "Please determine the number of cases in the language {language}.",
        "instructions": [
            'The term "cases" in the context of this feature refers to productive case paradigms of nouns.',
            'The feature value "Exclusively borderline case-marking" refers to languages which have overt marking '
            'only for concrete (or "peripheral", or "semantic") case relations, such as locatives or instrumentals.',
            "Categories with pragmatic (non-syntactic) functions, such as vocatives or topic markers, are not "
            "counted as case even if they are morphologically integrated into case paradigms.",
            "Genitives are counted as long as they do not encode categories of the possessum like number or gender "
            "as well, if they do not show explicit adjective-like properties. Genitives that may take additional "
            'case affixes agreeing with the head noun case ("double case") are not regarded as adjectival.',
        ],
        "synonyms": {"no case": "1", "no cases": "1", "no case marking": "1", "none": "1",
                     "borderline case marking": "9"},
        "queries": {
            "term": "Number of cases",
            "descriptive": (
                "the case system of nouns: which morphological cases such as nominative, accusative, ergative, "
                "absolutive, genitive, dative, locative, ablative and instrumental are marked by case suffixes"
            ),
        },
        "vocabulary": {
            "topic": [
                "case", "cases", "case marking", "case marker", "case markers", "case suffix", "case suffixes",
                "case system", "case inflection", "case forms",
            ],
            "values": [
                "nominative", "accusative", "ergative", "absolutive", "genitive", "dative", "locative",
                "ablative", "allative", "instrumental", "comitative", "vocative", "oblique", "essive",
                "no case", "no morphological case", "case paradigm", "no case marking", "not marked for case",
                "does not mark case", "lacks case", "inflect for case", "case endings", "core cases",
                "peripheral cases", "differential object marking",
            ],
        },
    },
}
