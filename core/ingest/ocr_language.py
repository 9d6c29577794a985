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
    "id": "ind", "bahasa": "ind", "dutch": "nld", "nl": "nld", "nederlands": "nld", "armenian": "hye",
    # Tesseract's Latin-script model: every Latin-script language at once, and the IPA letters of examples
    # (ə ɗ ŋ ɬ) that the English model drops; 1.5x the time (see README, Scanned grammars)
    "latin": "Latin", "ipa": "Latin",
}


# The object language's own script, where Tesseract has a model for it and a grammar prints examples in it
# (Iranian Armenian writes its examples in Armenian script beside an IPA line).  Latin- and Cyrillic-script
# object languages need nothing: the metalanguage's model reads their letters.  Found by the described
# language's Glottocode or by its name in the language given, the PDF's title or its file name.
SCRIPT_MODELS = {"hye": ("armenian", "nucl1235"), "kat": ("georgian", "nucl1302"), "ell": ("greek", "mode1248")}


def script_model(hints: list[str], glottocode: str | None = None) -> str | None:
    """Tesseract's model for the script of the language a grammar describes, or None (see SCRIPT_MODELS)."""
    words = set(re.findall(r"[a-z]+", " ".join(hints).lower().replace("_", " ")))
    for model, (name, code) in SCRIPT_MODELS.items():
        if name in words or (glottocode and glottocode == code):
            return model
    return None


def with_script(language: str, script: str | None, installed: frozenset[str]) -> str:
    """``eng`` + ``hye`` -> ``eng+hye`` when the script's model is installed and not already there."""
    if not script or script in language.split("+") or script not in installed:
        return language
    return f"{language}+{script}"


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
        if not re.fullmatch(r"[a-z]{3}(?:_[a-z]+)?|Latin", model):
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
    script_names = {model: name.title() for model, (name, _) in SCRIPT_MODELS.items()}
    script_names["Latin"] = "Latin script"
    names = [LANGUAGE_NAMES.get(m) or script_names.get(m, m) for m in language.split("+")]
    return f"{' + '.join(names)} ({language})"
