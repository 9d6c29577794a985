"""Hand-written definitions, queries and vocabularies for the paper's four features.

Everything here is GrammarLens's own wording (the databases' prose is never copied).  The
vocabularies list how grammars *state* a value ("SOV", "verb-final", "A V P") next to how they
name the topic ("constituent order"); they are language-agnostic because they describe the
metalanguage of grammars, not any object language.
"""

from __future__ import annotations

from itertools import permutations

POLAR_QUESTION_ID = "116A*"
POLAR_QUESTION_ALIASES = ("PQ",)
POLAR_QUESTION_PARTS = ("GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")

# Short names for the seven strategies, in the order of POLAR_QUESTION_PARTS.
POLAR_QUESTION_LABELS = (
    "intonation only",
    "special word order",
    "clause-initial question particle",
    "clause-final question particle",
    "question particle in another position",
    "verbal morphology only",
    "tone",
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


CURATED: dict[str, dict] = {
    "81A": {
        "definition": (
            "Which order of subject, object and verb a language uses as its neutral, most frequent order "
            "in declarative transitive clauses with full noun phrases; languages where no single order "
            "dominates are coded as lacking a dominant order."
        ),
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
            "Whether the ordinary negation of a declarative verbal clause can be expressed on the verb "
            "itself: by a prefix, suffix or clitic attached to it, or by changing the verb's form, rather "
            "than only by a separate word."
        ),
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
        "definition": (
            "Which strategies a language uses to turn a statement into a neutral yes/no question: "
            "intonation alone, a special word order, a question particle at the start, at the end or "
            "elsewhere in the clause, verbal morphology alone, or tone. Several can hold at once; each is "
            "one Grambank feature (GB257, GB260, GB262, GB263, GB264, GB286, GB291)."
        ),
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
            "How many case categories nouns distinguish by inflection (affixes, stem changes or tone on the "
            "noun phrase), counting only morphological case, not adpositions; languages without such "
            "marking, or with only borderline case marking, form their own values."
        ),
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
