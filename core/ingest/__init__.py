"""Reading grammar PDFs into paragraphs with printed page numbers, boxes and sections."""

from core.ingest.pipeline import IngestResult, ingest, ingest_pdf

__all__ = ["IngestResult", "ingest", "ingest_pdf"]
