"""Is a page's text layer worth trusting?  A check per page, before a word of it is used.

Library scans usually carry a text layer from some earlier OCR, often poor, and a PDF made
with a broken font encoding extracts as symbols.  Three signs tell them from real text without
knowing the language: the share of *plausible words* (letters only, at least one vowel of any
Latin, Cyrillic or Greek alphabet, no run of five consonants, not a one-letter scrap), the share
of characters that are neither letters, digits, spaces nor common punctuation, and the share of
one- and two-letter scraps that bad OCR leaves ("hea iis mothe day").  Numbers, IPA and glosses
lower the first share on a real page a little; a bad layer lowers it a lot.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

MIN_CHARS = 25  # fewer characters than this: the page has no text layer to speak of
MIN_PLAUSIBLE = 0.55  # below this share of plausible words a layer is poor
MAX_ODD_CHARS = 0.12  # above this share of odd characters a layer is poor
MAX_SCRAPS = 0.45  # above this share of 1-2 letter tokens a layer is poor

_VOWELS = set("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿāăąēĕėęěīĭįıōŏőœūŭůűųəɛɔɪʊʌɑɒæ"
              "аеёиоуыэюяіїєѣ" "αεηιουω")
_TOKEN = re.compile(r"\S+")
_EDGE_PUNCT = "\"'“”‘’«»()[]{}.,;:!?¿¡-–—…/*"
_CONSONANT_RUN = re.compile(r"[^aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿāăąēĕėęěīĭįıōŏőœūŭůűųəɛɔɪʊʌɑɒ"
                            r"аеёиоуыэюяіїєѣαεηιουω\W\d_]{5,}")
_COMMON = set(" \n\t.,;:!?'\"()[]{}-–—/…“”‘’«»*&%§+=<>#@|~^`°·•")


class LayerVerdict(StrEnum):
    GOOD = "good"  # use the text layer
    POOR = "poor"  # a text layer, but not one to trust: OCR the page
    IMAGE = "image"  # no text layer on a page with an image: OCR the page
    BLANK = "blank"  # nothing at all on the page


@dataclass(frozen=True)
class LayerCheck:
    verdict: LayerVerdict
    plausible: float  # share of plausible words among word tokens
    odd_chars: float  # share of characters outside letters, digits, spaces and common punctuation
    scraps: float  # share of 1-2 letter tokens

    @property
    def needs_ocr(self) -> bool:
        return self.verdict in (LayerVerdict.POOR, LayerVerdict.IMAGE)


def check_layer(text: str, has_images: bool) -> LayerCheck:
    """The verdict on one page's extracted ``text`` (``has_images``: the page shows a picture)."""
    chars = [c for c in text if not c.isspace()]
    if len(chars) < MIN_CHARS:
        verdict = LayerVerdict.IMAGE if has_images else LayerVerdict.BLANK
        return LayerCheck(verdict, 0.0, 0.0, 0.0)
    odd = sum(1 for c in chars if not _ordinary(c)) / len(chars)
    words = [t.strip(_EDGE_PUNCT) for t in _TOKEN.findall(text)]
    words = [w for w in words if w and not any(ch.isdigit() for ch in w)]
    if not words:
        return LayerCheck(LayerVerdict.POOR if odd > MAX_ODD_CHARS else LayerVerdict.GOOD, 0.0, odd, 0.0)
    plausible = sum(1 for w in words if _plausible(w)) / len(words)
    scraps = sum(1 for w in words if len(w) <= 2 and w.isalpha() and w.lower() not in _SHORT_WORDS) / len(words)
    poor = plausible < MIN_PLAUSIBLE or odd > MAX_ODD_CHARS or scraps > MAX_SCRAPS
    return LayerCheck(LayerVerdict.POOR if poor else LayerVerdict.GOOD, round(plausible, 3), round(odd, 3),
                      round(scraps, 3))


# frequent one- and two-letter words of the languages of description: not scraps
_SHORT_WORDS_TEXT = (
    "a i o e y u à é ó ü an as at be by do go he if in is it me my no of on or so to up us we am "
    "de la le en el un es et se ne il ou au du ce al lo tu mi su si ya ja zu im er es um da em na "
    "no os as ao do di ke ia itu dan ini yg di op te om en ik is je we ze в и с к у о а я на не по "
    "за из от до то же ли бы"
)
_SHORT_WORDS = frozenset(_SHORT_WORDS_TEXT.split())


def _ordinary(ch: str) -> bool:
    if ch.isalnum() or ch in _COMMON:
        return not _private_or_control(ch)
    category = unicodedata.category(ch)
    return category.startswith(("L", "M", "N", "P"))  # IPA, diacritics and the like are ordinary


def _private_or_control(ch: str) -> bool:
    return unicodedata.category(ch) in ("Co", "Cc", "Cn", "Cs") or ch == "\ufffd"


def _plausible(word: str) -> bool:
    """A word of some human language, as far as letters alone can tell."""
    core = word.replace("-", "").replace("'", "").replace("’", "")
    if len(core) < 2 or not all(c.isalpha() or unicodedata.category(c).startswith("M") for c in core):
        return len(core) >= 1 and core.isalpha() and core.lower() in _SHORT_WORDS
    lower = core.lower()
    if not any(c in _VOWELS for c in unicodedata.normalize("NFC", lower)):
        return False
    if _CONSONANT_RUN.search(lower):
        return False
    return not _mixed_case(core)


def _mixed_case(word: str) -> bool:
    """Upper and lower case mixed after the first letter ("tHe", "iNdeX"): a broken layer or bad OCR."""
    rest = word[1:]
    return any(c.isupper() for c in rest) and any(c.islower() for c in rest)


_WORD = re.compile(r"\w+")


def layer_agreement(layer: str, recognised: str) -> float:
    """Word F1 (multisets, case-folded) of a text layer against a fresh reading of the same page."""
    a, b = Counter(_WORD.findall(layer.lower())), Counter(_WORD.findall(recognised.lower()))
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 1.0
