"""The language a grammar is written in (its metalanguage), for choosing Tesseract's model.

Grammars describe a language in one of a handful of metalanguages; their commonest words give
them away within a page.  The words counted are the most frequent function words of each
language, which are also short and survive poor OCR.  Russian is told by its alphabet.
"""

from __future__ import annotations

import re
from collections import Counter

from core.errors import GrammarLensError
from core.ingest.tesseract import LANGUAGE_NAMES

DEFAULT = "eng"
MIN_HITS = 12  # fewer function-word hits than this decide nothing: English, the commonest, is kept

_FUNCTION_WORDS = {
    "eng": "the of and to in is that it with as for are this by which be from",
    "fra": "le la les des et est une du que dans qui pour sur avec au aux sont par",
    "spa": "el la los las y que en una es por con para del se al lo como",
    "por": "o os as e que em um uma é do da dos das para com não ao se",
    "deu": "der die und das ist nicht ein eine zu den mit von sich auch dem im",
    "nld": "de het een en van is dat op te zijn niet met voor worden wordt",
    "ind": "yang dan di ini itu dengan untuk dalam tidak adalah ke dari pada juga",
}
_WORDS = {lang: set(words.split()) for lang, words in _FUNCTION_WORDS.items()}
_TOKEN = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LETTER = re.compile(r"[^\W\d_]")

# names a person may type, to Tesseract's model names
ALIASES = {
    "english": "eng", "en": "eng", "french": "fra", "fr": "fra", "français": "fra", "spanish": "spa",
    "es": "spa", "español": "spa", "portuguese": "por", "pt": "por", "português": "por", "german": "deu",
    "de": "deu", "deutsch": "deu", "russian": "rus", "ru": "rus", "русский": "rus", "indonesian": "ind",
    "id": "ind", "bahasa": "ind", "dutch": "nld", "nl": "nld", "nederlands": "nld",
}


def detect_language(texts: list[str]) -> str | None:
    """Tesseract's model for the language ``texts`` are written in, or None when they do not tell."""
    joined = " ".join(texts)
    letters = _LETTER.findall(joined)
    if letters and len(_CYRILLIC.findall(joined)) > 0.5 * len(letters):
        return "rus"
    counts: Counter[str] = Counter()
    for token in _TOKEN.findall(joined.lower()):
        for lang, words in _WORDS.items():
            if token in words:
                counts[lang] += 1
    if not counts:
        return None
    best, hits = counts.most_common(1)[0]
    return best if hits >= MIN_HITS else None


def normalise_language(value: str) -> str:
    """``fra``, ``French``, ``fr`` or ``spa+eng`` -> Tesseract's form; unknown names raise a clear error."""
    parts = []
    for part in value.replace(",", "+").split("+"):
        key = part.strip().lower()
        if not key:
            continue
        model = ALIASES.get(key, key)
        if not re.fullmatch(r"[a-z]{3}(?:_[a-z]+)?", model):
            known = ", ".join(f"{code} ({name})" for code, name in LANGUAGE_NAMES.items())
            raise GrammarLensError(f"Unknown OCR language {part.strip()!r}.",
                                   f"Give a Tesseract model name such as {known}; join several with '+'.")
        parts.append(model)
    if not parts:
        raise GrammarLensError("No OCR language given.", "Give e.g. --ocr-language fra (or auto).")
    return "+".join(parts)


def describe(language: str | None) -> str:
    """``fra`` -> ``French (fra)``, for messages and the window."""
    if not language:
        return "-"
    names = [LANGUAGE_NAMES.get(m, m) for m in language.split("+")]
    return f"{' + '.join(names)} ({language})"
