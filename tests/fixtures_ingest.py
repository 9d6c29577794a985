"""Generated grammar PDFs (with their ground truth) and fresh project files for ingestion tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pdf_factory import LOREM, SOFT, BookWriter, TruthParagraph


@dataclass
class SampleBook:
    path: Path
    writer: BookWriter

    @property
    def truth(self) -> list[TruthParagraph]:
        return self.writer.truth


def write_sample_book(path: Path, *, labels: bool = True, columns: int = 1, unicode_font: bool = False) -> SampleBook:
    """A 9-page grammar: roman front matter, arabic body, heads, examples, a paragraph over a page break."""
    w = BookWriter(columns=columns, unicode_font=unicode_font)
    w.start_numbering(1, roman=True)
    w.new_page()
    w.heading("Preface")
    w.paragraph("This short book describes Teshi, an invented language used here to test the reading of grammars. "
                "It has running heads, examples and page labels like a real descriptive grammar.")
    w.new_page()
    w.paragraph("The conventions of the glosses follow the Leipzig rules; morpheme boundaries are marked with a "
                "hyphen and clitic boundaries with an equals sign, as in the examples below.")
    w.set_running_head("1 Word order")
    w.start_numbering(1, roman=False)
    w.new_page()
    w.heading("1 Word order")
    w.paragraph("Teshi is a verb-final language. The subject-verb agreement is marked on the verb by a suffix, "
                f"and the ob{SOFT}ject precedes the verb in the basic or{SOFT}der of transitive clauses. "
                f"This ar{SOFT}rangement is the most fre{SOFT}quent one in the cor{SOFT}pus of nar{SOFT}ratives.")
    if columns == 1:
        w.example(1, [("ama=ti", "mother=TOP"), ("kalu-ni", "fish-ACC"), ("sepo-ra", "cook-PST")],
                  "Mother cooked the fish.")
    else:
        w.example(1, [("a=ti", "M=TOP"), ("ku-ni", "F-ACC"), ("se-ra", "C-PST")], "Mother cooked it.")
    w.paragraph("The example shows the subject-verb order with an intervening object; the object carries the "
                "accusative suffix -ni, which is obligatory for definite objects.")
    for n in range(3):
        w.paragraph(LOREM + f" This is paragraph number {n + 1} of the filler text about con{SOFT}stituent order.")
    if columns == 1:
        w.example(2, [("kalu-ni", "fish-ACC"), ("ama=ti", "mother=TOP"), ("sepo-ra", "cook-PST")],
                  "The fish, Mother cooked it.")
    w.heading("1.1 Questions")
    long_text = " ".join([LOREM] * 4)
    w.paragraph("Polar questions are marked by the clause-final particle ka. " + long_text)
    if unicode_font:
        w.paragraph("Teshi has the phonemes /ʃ/, /ŋ/ and /ɬ/ and nasal vowels such as ã and ẽ; a related variety "
                    "is written in Cyrillic as жили-были and in Chinese sources as 中文 for comparison.")
    w.example(3, [("ka", "Q"), ("sepo-ra", "cook-PST")], "Did she cook?")
    w.paragraph("The particle never occurs clause-initially, and rising intonation alone does not mark a question.")
    for n in range(4):
        w.paragraph(LOREM + f" Closing remark {n + 1}.")
    label_spec = [
        {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
        {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1},
    ]
    w.save(path, labels=label_spec if labels else None, title="A grammar of Teshi")
    return SampleBook(path, w)


@pytest.fixture
def sample_book(tmp_path: Path) -> SampleBook:
    return write_sample_book(tmp_path / "teshi.pdf")


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    return tmp_path / "test.grammarlens"
