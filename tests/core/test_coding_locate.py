"""Which paragraph a click on a page means (core.coding.locate), on the generated demo grammar."""

from __future__ import annotations

from core.coding.locate import ParagraphLocator
from core.demo import DEMO_LANGUAGE, write_demo_grammar
from core.ingest import ingest_pdf
from core.store import create_project
from core.store.repository import list_paragraphs


def test_a_point_finds_its_paragraph_and_white_space_far_away_finds_none(tmp_path) -> None:
    with create_project(tmp_path / "demo.grammarlens") as project:  # no Qt here: the demo grammar, ingested
        ingest_pdf(project, write_demo_grammar(tmp_path / "demo.pdf"), language=DEMO_LANGUAGE)
        paragraphs = list_paragraphs(project)
    locator = ParagraphLocator(paragraphs)
    for paragraph in paragraphs[::7]:
        r = paragraph.rects[0]
        found = locator.at(paragraph.document_id, r.pdf_page, (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)
        assert found is not None and r.pdf_page in {q.pdf_page for q in found.rects}
        assert found.id == paragraph.id or any(  # only a smaller paragraph inside the same box may win
            (q.x1 - q.x0) * (q.y1 - q.y0) <= (r.x1 - r.x0) * (r.y1 - r.y0) for q in found.rects)
    page = paragraphs[0].rects[0].pdf_page
    assert locator.at(paragraphs[0].document_id, page, -500.0, -500.0) is None
    assert locator.at(paragraphs[0].document_id + 99, page, 100.0, 100.0) is None
    assert paragraphs[0] in locator.on_page(paragraphs[0].document_id, page)
