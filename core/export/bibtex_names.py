"""BibTeX field text and author lists made from whatever a PDF's metadata says.

PDF metadata is free text: "Dianne Friesen, with Mana Djeme Isaac, Ali Gaston, and Mana Samuel",
"Mark Ali and Scott Grimm and Adams Bodomo", "Wilbur, Joshua; Kluge, Angela", "J. Wilbur et al.",
"Language Science Press", "LaTeX with hyperref".  BibTeX wants ``Last, First and Last, First``
and fails on anything else with more than two commas in one name (simplepybtex's "Too many
commas").  :func:`author_field` parses what reads as a list of people and protects the rest as a
corporate name in braces, which BibTeX never splits.  :func:`field_text` makes any text safe inside
a braced field: control characters and lone surrogates go, unbalanced braces go, LaTeX's special
characters are escaped.
"""

from __future__ import annotations

import re
import unicodedata

# lowercase name particles that belong to the last name ("van der Berg, Jan")
PARTICLES = frozenset([
    "van", "von", "der", "den", "ter", "ten",  # Dutch, German
    "de", "del", "della", "dei", "degli", "di", "da", "dal", "dos", "das", "do",  # Romance
    "du", "des", "la", "le",  # French
    "zu", "zur",  # German
    "af", "av",  # Scandinavian
    "bin", "binti", "ibn", "al", "el",  # Arabic, Malay
])
SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"])
# words that make a name an institution's, never a person's
CORPORATE_WORDS = frozenset([
    "press", "publisher", "publishers", "publishing",
    "university", "universität", "université", "universidad", "universiteit",
    "institute", "institut", "instituto", "society", "association", "international",
    "committee", "council", "ministry", "department", "dept", "centre", "center", "foundation",
    "team", "project", "group", "organization", "organisation",
    "inc", "inc.", "ltd", "ltd.", "gmbh", "corporation", "company", "co.", "llc",
    "library", "museum", "academy", "laboratory", "lab", "consortium", "programme", "program", "network",
    "union", "office", "service", "services", "school", "college", "faculty",
    "editors", "editorial", "board",
    "sil", "unesco", "government", "archive", "archives", "agency", "bureau", "commission", "trust", "linguistics",
])
MAX_PERSON_WORDS = 6
_ET_AL = re.compile(r"(?:,|;)?\s*(?:\bet\.?\s*al\b\.?|\band\s+others\b|\bu\.\s*a\.|\bothers\b)\s*$", re.IGNORECASE)
# separators between people; ", and" / ", with" first so that the comma goes with them
_SEPARATORS = re.compile(r"\s*;\s*|\s*,?\s+(?:and|with|&|und|et)\s+|\s*,?\s*&\s*", re.IGNORECASE)
_LEADING_SEPARATOR = re.compile(r"^(?:(?:and|with|und|et)\s+|&\s*)", re.IGNORECASE)  # "; with Mana Samuel"
_EDITOR = re.compile(r"\s*\((?:eds?|editors?|hg|hrsg|coord)\.?\)", re.IGNORECASE)  # "Angela Kluge (ed.)"
_LATEX_SPECIAL = re.compile(r"(?<!\\)([&%$#_])")
_NAME_TOKEN = re.compile(r"^[^\W\d_](?:[^\W\d_]|['’.\-])*$")  # a word of letters, with ' ’ . - inside
_INITIALS = re.compile(r"^(?:[^\W\d_]\.?-?)+$")  # "J." "J.-P." "JW"
_MASK = re.compile(r"\x00(\d+)\x00")


def clean_text(text: str) -> str:
    """One line of printable text: lone surrogates become U+FFFD, control characters and runs of blanks one space."""
    text = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else " " if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                   else c for c in text)
    return " ".join(text.split())


def balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def _balance(text: str) -> str:
    """Keep balanced braces (BibTeX protection such as ``{UNESCO}``); drop them all when they do not balance."""
    text = text.rstrip("\\") if text.endswith("\\") and not text.endswith("\\\\") else text
    return text if balanced(text) else text.replace("{", "").replace("}", "")


def escape_latex(text: str) -> str:
    """LaTeX's specials & % $ # _ escaped with a backslash (those already escaped stay as they are)."""
    return _LATEX_SPECIAL.sub(r"\\\1", text)


def field_text(text: str) -> str:
    """Any text as the content of a braced BibTeX field (title, year...)."""
    return escape_latex(_balance(clean_text(text or "")))


# -- authors -------------------------------------------------------------------------------------

def author_field(raw: str) -> str:
    """``Last, First and Last, First`` from a metadata author string; "" when there is no name in it.

    People are split at ";", "and", "&", "with", "und", "et" and commas; "et al." becomes BibTeX's
    "and others".  When any part does not read as a person's or an institution's name, the whole
    string is kept as one corporate name in braces: a name BibTeX does not split can never break it.
    """
    text = _balance(clean_text(raw or ""))
    text, others = _strip_et_al(_EDITOR.sub("", text))
    if not text.strip(" ,;"):
        return ""
    masked, groups = _mask_braces(text)
    names: list[str] = []
    for part in _SEPARATORS.split(masked):
        part = _LEADING_SEPARATOR.sub("", part.strip(" ,")).strip(" ,")
        if part:
            names.extend(_comma_names(part))
    maybe = [_format_name(n, groups) for n in names]
    formatted = [f for f in maybe if f is not None]
    if not formatted or len(formatted) < len(maybe):
        formatted = [_corporate(text)]
    return " and ".join(formatted + (["others"] if others else []))


def _strip_et_al(text: str) -> tuple[str, bool]:
    match = _ET_AL.search(text)
    if match and text[:match.start()].strip(" ,;"):
        return text[:match.start()], True
    return text, False


def _mask_braces(text: str) -> tuple[str, list[str]]:
    """Top-level brace groups replaced by placeholders, so that no separator inside one splits it."""
    groups: list[str] = []
    out: list[str] = []
    depth = 0
    for c in text:
        if c == "{":
            if depth == 0:
                groups.append("")
            depth += 1
        if depth:
            groups[-1] += c
        else:
            out.append(c)
        if c == "}":
            depth -= 1
            if depth == 0:
                out.append(f"\x00{len(groups) - 1}\x00")
    return "".join(out), groups


def _unmask(text: str, groups: list[str]) -> str:
    return _MASK.sub(lambda m: groups[int(m.group(1))], text)


def _comma_names(part: str) -> list[str]:
    """One part between separators: "Last, First", "First Last, Jr.", or several names listed with commas."""
    pieces = [p.strip() for p in part.split(",") if p.strip()]
    if len(pieces) <= 1:
        return pieces
    words = [p.split() for p in pieces]
    if len(pieces) == 2:
        if pieces[1].casefold() in SUFFIXES:
            return [f"{pieces[0]}, {pieces[1]}"]  # "Martin Luther King, Jr." (handled by _format_name)
        surname_words = [w for w in words[0] if w not in PARTICLES]
        if len(surname_words) >= 2 and len(words[1]) >= 2:
            return pieces  # "Joshua Wilbur, Angela Kluge": two people
        return [f"{pieces[0]}, {pieces[1]}"]  # "Wilbur, Joshua" / "García Márquez, Gabriel"
    if len(pieces) == 3 and pieces[1].casefold() in SUFFIXES:
        return [", ".join(pieces)]  # "King, Jr., Martin Luther"
    if len(pieces) == 3 and pieces[2].casefold() in SUFFIXES:
        return [f"{pieces[0]}, {pieces[2]}, {pieces[1]}"]  # "Smith, John, III"
    surnames = [[w for w in ws if w not in PARTICLES] for ws in words[0::2]]
    if len(pieces) % 2 == 0 and all(len(s) == 1 for s in surnames) and all(len(w) <= 3 for w in words[1::2]):
        return [f"{pieces[i]}, {pieces[i + 1]}" for i in range(0, len(pieces), 2)]  # "Wilbur, Joshua, Kluge, Angela"
    return pieces


def _format_name(name: str, groups: list[str]) -> str | None:
    """A person as "von Last, Jr., First", an institution as "{Name}", or None when it reads as neither."""
    whole = _unmask(name, groups)
    if _MASK.fullmatch(name):
        return escape_latex(whole)  # a name the metadata already protected with braces
    if "," in name:
        pieces = [p.strip() for p in name.split(",")]
        if len(pieces) == 2 and pieces[1].casefold() in SUFFIXES:  # "First Last, Jr."
            person = _person(pieces[0].split(), groups)
            if person is None:
                return None
            last, first = person
            return _join(last, pieces[1], first)
        last, jr, first = (pieces[0], "", pieces[1]) if len(pieces) == 2 else (pieces[0], pieces[1], pieces[2])
        if _is_person_words(last.split(), groups) and _is_person_words(first.split(), groups):
            return _join(_unmask(last, groups), jr, _unmask(first, groups))
        return _corporate(whole) if _is_corporate(whole) else None
    if _is_corporate(whole):
        return _corporate(whole)
    person = _person(name.split(), groups)
    if person is None:
        return None
    last, first = person
    return _join(last, "", first)


def _join(last: str, jr: str, first: str) -> str:
    if not first:
        return escape_latex(last) if not jr else _corporate(f"{last} {jr}")  # "King, Jr." alone: keep it whole
    return ", ".join(escape_latex(p) for p in (last, jr, first) if p)


def _person(words: list[str], groups: list[str]) -> tuple[str, str] | None:
    """(von Last, First) from "First von Last"; None when the words do not read as a person's name."""
    if not _is_person_words(words, groups):
        return None
    suffix = ""
    if len(words) >= 3 and words[-1].casefold() in SUFFIXES:
        suffix, words = words[-1], words[:-1]
    # the last name starts at the first particle ("Jan van der Berg", "de Gaulle"), else it is the last word
    von = next((i for i, w in enumerate(words[:-1]) if w in PARTICLES), len(words) - 1)
    first, last = " ".join(words[:von]), " ".join(words[von:])
    last, first = _unmask(last, groups), _unmask(first, groups)
    if suffix:
        return f"{last}, {suffix}", first
    return last, first


def _is_person_words(words: list[str], groups: list[str]) -> bool:
    if not words or len(words) > MAX_PERSON_WORDS:
        return False
    for w in words:
        if _MASK.fullmatch(w):
            continue  # "{Djeme}" inside a name stays protected
        if w in PARTICLES or w.casefold() in SUFFIXES:
            continue
        probe = _MASK.sub("X", w)  # D{\"o}hler reads as a name
        if not (_NAME_TOKEN.match(probe) or _INITIALS.match(probe)) or probe[0].islower():
            return False
        if w.casefold().rstrip(".") in CORPORATE_WORDS:
            return False
    return not all(w in PARTICLES for w in words)


def _is_corporate(name: str) -> bool:
    """An institution's name: one of the words institutions use ("Press", "Institute", "SIL"...)."""
    return any(w.casefold().strip(".,()") in CORPORATE_WORDS for w in name.replace("{", " ").replace("}", " ").split())


def _corporate(name: str) -> str:
    """A name BibTeX keeps whole: in braces, with no brace inside that could close them early."""
    inner = name.strip()
    if inner.startswith("{") and inner.endswith("}") and balanced(inner[1:-1]):
        inner = inner[1:-1]
    inner = inner.replace("{", "").replace("}", "") if not balanced(inner) else inner
    return "{" + escape_latex(inner) + "}"
