"""Dictionary entries: find where one starts, cut glued entries apart, and read an entry's definition.

Many grammars end in a dictionary, and some books sold as "dictionary and grammatical sketch" hold
little else.  An entry such as ``a [à] def. art. the • A bie kpɛ la a die.`` decides a feature
(this language has a definite article) as surely as a sentence of prose, but only if

* ingestion keeps it a paragraph of its own: dictionaries set without indents (each entry flush
  left, a little space above it) look like running prose to the paragraph rules, which then glue a
  whole column of entries into one paragraph;
* retrieval reads its *definition* — part of speech and gloss — and not its examples, whose English
  translations contain every common word ("The goats have broken the cooking pots").

An entry start is recognised by the field-dictionary layout that Toolbox, FLEx, Lexique Pro and the
Dictionary Development Process all print: headword (with an optional homonym number), a
pronunciation in square brackets or slashes, then a part-of-speech abbreviation within a few
words; or a bold headword set apart on its line and followed directly by a part of speech.  The
abbreviation list is the conventional one (Leipzig glossing rules plus the usual dictionary
labels); it is expanded to words ("def. art." → "definite article") so that a feature's English
vocabulary ("definite article", "postposition", "imperfective") matches an entry's definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Part-of-speech and grammatical abbreviations of field dictionaries, with the words they stand for.
ABBREVIATIONS: dict[str, str] = {
    "n": "noun", "v": "verb", "vt": "transitive verb", "vi": "intransitive verb", "adj": "adjective",
    "adv": "adverb", "art": "article", "def": "definite", "indef": "indefinite", "det": "determiner",
    "dem": "demonstrative", "pro": "pronoun", "pron": "pronoun", "conj": "conjunction",
    "conn": "connective", "num": "numeral", "quant": "quantifier", "interj": "interjection",
    "excl": "exclamation", "interrog": "interrogative", "part": "particle", "prt": "particle",
    "ptcl": "particle", "post": "postposition", "postp": "postposition", "prep": "preposition",
    "pv": "preverbal particle", "aux": "auxiliary verb", "cop": "copula", "clf": "classifier",
    "neg": "negative", "foc": "focus", "comp": "complementizer", "ideo": "ideophone",
    "ono": "onomatopoeia", "nprop": "proper noun", "loc": "locative", "pl": "plural", "sg": "singular",
    "refl": "reflexive", "recp": "reciprocal", "recip": "reciprocal", "caus": "causative",
    "pass": "passive", "ints": "intensifier", "itr": "iterative", "intens": "intensifier", "phr": "phrase",
    "cpx": "complex", "suff": "suffix", "pref": "prefix", "encl": "enclitic", "procl": "proclitic",
    "poss": "possessive", "rel": "relative", "q": "question", "tam": "tense aspect mood",
    "ipfv": "imperfective", "pfv": "perfective", "prog": "progressive", "fut": "future", "pst": "past",
}

_ABBREVIATION_WORDS = "|".join(sorted(map(re.escape, ABBREVIATIONS), key=len, reverse=True))  # longest first
_ABBREVIATION = rf"(?:{_ABBREVIATION_WORDS})\."
# One part-of-speech label: "n.", "def. art.", "pl.v.", "adv.phr.", "v. pl." (at most three pieces).
_POS = re.compile(rf"(?<![^\s(])({_ABBREVIATION}(?:\s?{_ABBREVIATION}){{0,2}})(?=[\s,;)]|$)")
# Headword: up to three words without brackets or bullets, with an optional homonym number glued on.
_HEAD = r"(?P<homonym>\d{1,2}(?=[^\d\s]))?(?P<headword>[^\s\[\]/•()]+(?: [^\s\[\]/•()]+){0,2}?)"
_WITH_PRONUNCIATION = re.compile(_HEAD + r" (?:\[(?P<bracket>[^\]\n]{1,60})\]|/(?P<slash>[^/\n]{1,60})/)(?P<rest>.*)",
                                 re.DOTALL)
# "abluu (var. of bluu)": an entry that only sends the reader to another ("see" and "cf." are left
# out: grammars write "the negative (see Section 10.2)" at the start of lines too).
_CROSS_REFERENCE = re.compile(_HEAD + r" \(var\. of ")
# Fields that close the gloss: the first example, plural/singular forms, cross-references, etymology.
_GLOSS_END = re.compile(r"\s•|\s(?:pl|sg|2pl)[.:]\s|\s(?:Syn|Ant|Cf|Var|Enum)[.:]|\s\((?:ultm|var)\.|\s\[[A-Z][a-z]")
_PLURAL_FIELD = re.compile(r"(?:^|\s)(?:pl\.|pl:|2pl:)\s")
POS_WINDOW = 80  # characters after the pronunciation where the part of speech must start


@dataclass(frozen=True)
class DictionaryEntry:
    """The parts of an entry that say what it is; ``definition`` is what retrieval matches."""

    headword: str
    homonym: str | None
    pronunciation: str | None
    part_of_speech: str  # as printed: "def. art."
    gloss: str  # up to the first example or form field: "the"
    plural_form: bool = False  # the entry gives the word's plural ("pl. abɛsa", "pl: baalugo")

    @property
    def definition(self) -> str:
        """Part of speech in words, the gloss, and whether a plural form is given: "noun tree plural form".

        The plural form itself is object language; that the dictionary gives one is the evidence a
        coder of nominal plurality (Grambank GB044, WALS 33A) reads from a dictionary.
        """
        words = f"{expand_abbreviations(self.part_of_speech)} {self.gloss}".strip()
        return f"{words} plural form" if self.plural_form else words


def expand_abbreviations(label: str) -> str:
    """ "def. art." → "definite article"; unknown pieces are kept as printed."""
    pieces = re.findall(r"[a-z]+(?=\.)", label)
    return " ".join(ABBREVIATIONS.get(p, p) for p in pieces)


def parse_entry(text: str, *, bold_headword: bool = False) -> DictionaryEntry | None:
    """The entry that ``text`` opens, or None when it does not open one.

    ``bold_headword`` says the first word was printed in bold and set apart: such dictionaries often
    print no pronunciation, so a part of speech right after the headword is then enough.
    """
    text = text.strip()
    match = _WITH_PRONUNCIATION.match(text)
    if match:
        pos = _POS.search(match.group("rest"), 0, POS_WINDOW)
        if pos is None:
            return None
        return _entry(match, match.group("bracket") or match.group("slash"), match.group("rest"), pos)
    if bold_headword:
        match = re.match(_HEAD + r"(?P<rest>\s.*)", text, re.DOTALL)
        pos = _POS.match(match.group("rest"), 1) if match else None
        if match and pos:
            return _entry(match, None, match.group("rest"), pos)
    return None


def _entry(match: re.Match, pronunciation: str | None, rest: str, pos: re.Match) -> DictionaryEntry:
    body = rest[pos.end():]
    end = _GLOSS_END.search(body)
    gloss = (body[: end.start()] if end else body).strip(" .;,")
    plural = bool(_PLURAL_FIELD.search(body))
    return DictionaryEntry(match.group("headword"), match.group("homonym"), pronunciation, pos.group(1), gloss[:200],
                           plural)


def starts_entry(text: str, *, bold_headword: bool = False) -> bool:
    """Whether a printed line opens a dictionary entry (a full entry or a "see"/"var. of" reference)."""
    text = text.strip()
    return parse_entry(text, bold_headword=bold_headword) is not None or bool(_CROSS_REFERENCE.match(text))
