"""Is a page's text layer worth trusting?  A check per page, before a word of it is used.

Library scans usually carry a text layer from some earlier OCR, often poor, and a PDF made
with a broken font encoding extracts as symbols.  Three signs tell them from real text without
knowing the language: the share of *plausible words* (letters only, at least one vowel of any
Latin, Cyrillic or Greek alphabet, no run of five consonants, not a one-letter scrap), the share
of characters a broken encoding writes (private-use glyphs, control characters, U+FFFD), and the share of
one- and two-letter scraps that bad OCR leaves ("hea iis mothe day").  Numbers, IPA and glosses
lower the first share on a real page a little; a bad layer lowers it a lot.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

MIN_CHARS = 25  # fewer characters than this: the page has no text layer to speak of
MIN_PLAUSIBLE = 0.55  # below this share of plausible words a layer is poor
MAX_ODD_CHARS = 0.12  # above this share of odd characters a layer is poor
MAX_SCRAPS = 0.45  # above this share of 1-2 letter tokens a layer is poor

_VOWEL_LETTERS = "aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿāăąēĕėęěīĭįıōŏőœūŭůűųəɛɔɪʊʌɑɒаеёиоуыэюяіїєѣαεηιουω"
_VOWEL = re.compile(f"[{_VOWEL_LETTERS}]")
SAMPLE_CHARS = 1000  # of a page's text (about 150 words): enough to judge, cheap on a 1,000-page book
_SPACE = re.compile(r"\s")
_LETTERS = re.compile(r"[^\W\d_]+(?:['’\u0300-\u036f-][^\W\d_]+)*")  # words of letters (and their marks)
# what a broken encoding writes: private-use glyphs, control characters, the replacement character
_ODD = re.compile(r"[\ue000-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_CONSONANT_RUN = re.compile(f"[^{_VOWEL_LETTERS}\\W\\d_]{{5,}}")


class LayerVerdict(StrEnum):
    GOOD = "good"  # use the text layer
    POOR = "poor"  # a text layer, but not one to trust: OCR the page
    IMAGE = "image"  # no text layer on a page with an image: OCR the page
    BLANK = "blank"  # nothing at all on the page


@dataclass(frozen=True)
class LayerCheck:
    verdict: LayerVerdict
    plausible: float  # share of plausible words among word tokens
    odd_chars: float  # share of private-use, control and replacement characters
    scraps: float  # share of 1-2 letter tokens

    @property
    def needs_ocr(self) -> bool:
        return self.verdict in (LayerVerdict.POOR, LayerVerdict.IMAGE)


def check_layer(text: str, has_images: bool) -> LayerCheck:
    """The verdict on one page's extracted ``text`` (``has_images``: the page shows a picture).

    Only the page's first :data:`SAMPLE_CHARS` characters are looked at, with regular expressions
    rather than a loop per character: this runs on every page of every born-digital book too.
    """
    sample = text[:SAMPLE_CHARS]
    chars = len(sample) - len(_SPACE.findall(sample))
    if chars < MIN_CHARS:
        verdict = LayerVerdict.IMAGE if has_images else LayerVerdict.BLANK
        return LayerCheck(verdict, 0.0, 0.0, 0.0)
    odd = len(_ODD.findall(sample)) / chars
    words = _LETTERS.findall(sample)
    if not words:
        return LayerCheck(LayerVerdict.POOR if odd > MAX_ODD_CHARS else LayerVerdict.GOOD, 0.0, odd, 0.0)
    plausible = sum(1 for w in words if _plausible(w)) / len(words)
    scraps = sum(1 for w in words if len(w) <= 2 and w.lower() not in _SHORT_WORDS) / len(words)
    # Word shapes judge only a layer over a picture (a scanner's OCR): on a page of visible type a
    # word list or an index can look odd, and reading it again by OCR would only make it worse.
    poor = odd > MAX_ODD_CHARS or (has_images and (plausible < MIN_PLAUSIBLE or scraps > MAX_SCRAPS))
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


def _plausible(word: str) -> bool:
    """A word of some human language, as far as letters alone can tell."""
    if len(word) < 2:
        return word.lower() in _SHORT_WORDS
    lower = word.lower()
    return bool(_VOWEL.search(lower)) and not _CONSONANT_RUN.search(lower) and not _mixed_case(word)


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
