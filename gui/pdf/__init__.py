"""The PDF viewer and its toolbar: lazy pages, printed page numbers, highlights."""
