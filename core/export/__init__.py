"""Exports of a language's profile: a CLDF StructureDataset (validated with pycldf), flat CSV and JSON.

Public API: :func:`export_cldf`, :func:`export_csv`, :func:`export_json`, :func:`export_profile`
(any of them by format name), and the grammar's BibTeX entry: :func:`get_bibtex`, :func:`set_bibtex`,
:func:`bibkey`.
"""

from core.export.bibtex import bibkey, generate_bibtex, get_bibtex, set_bibtex
from core.export.cldf import export_cldf, read_cldf_values
from core.export.flat import FORMATS, export_csv, export_json, export_profile

__all__ = ["FORMATS", "bibkey", "export_cldf", "export_csv", "export_json", "export_profile", "generate_bibtex",
           "get_bibtex", "read_cldf_values", "set_bibtex"]
