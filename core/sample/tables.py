"""The sample in the shapes other tools load: a long table (R, lingtypology, pandas), Grambank coding sheets, NEXUS.

* ``long``: one CSV row per value: language, glottocode, family, genus, macroarea, latitude,
  longitude, feature, feature_name, value, value_label, status, coder, source (``key[pages]`` per
  grammar, ";"-separated).  The shape ``lingtypology::map.feature`` and ``pandas.read_csv`` take.
* ``grambank``: one tab-separated sheet per language in the column layout of Grambank's own coding
  sheets (``Feature_ID, Value, Source, Contributor, Comment``), every Grambank feature a row
  (Value empty where nobody coded it, "?" where a coder found nothing), named
  ``<glottocode>.tsv``.
* ``nexus``: a NEXUS ``CHARACTERS`` matrix of the binary (0/1) features, taxa by Glottocode, "?"
  for no value, as phylogenetic tools (SplitsTree, BEAST, RevBayes) read it.

Which values: decided and predicted ones (the export's rule, :mod:`core.sample.export`), "?" kept,
``reviewed_only`` keeps only coders' decisions.  Each file is written whole (written, then renamed).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from core.sample.snapshot import SampleRead, Snapshot

LONG_COLUMNS = ("language", "glottocode", "family", "genus", "macroarea", "latitude", "longitude", "feature",
                "feature_name", "value", "value_label", "status", "coder", "source")
SHEET_COLUMNS = ("Feature_ID", "Value", "Source", "Contributor", "Comment")
FORMATS = ("long", "grambank", "nexus")


def _values(s: Snapshot, reviewed_only: bool) -> list:
    return [e for e in s.entries if (e.has_value or e.is_unknown) and (e.reviewed or not reviewed_only)]


def _source(s: Snapshot, entry) -> str:
    from core.export.cldf import source_list

    return "; ".join(source_list(s.sources, entry))


def long_table(read: SampleRead, *, reviewed_only: bool = False) -> str:
    """The long table as CSV text."""
    from core.catalog.genealogy import lineage_of
    from core.catalog.languages import place_of
    from core.sample.status import status_word

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(LONG_COLUMNS)
    for s in read.by_language():
        lineage, place = lineage_of(s.glottocode), place_of(s.glottocode)
        for e in _values(s, reviewed_only):
            writer.writerow([s.label, s.glottocode or "", lineage.family, lineage.genus,
                             (place.macroarea if place else "") or lineage.macroarea,
                             "" if place is None or place.latitude is None else place.latitude,
                             "" if place is None or place.longitude is None else place.longitude,
                             e.feature_id, e.name, "?" if e.is_unknown else e.code, "" if e.is_unknown else e.label,
                             status_word(e), e.reviewer, _source(s, e)])
    return buffer.getvalue()


def grambank_sheet(s: Snapshot, *, reviewed_only: bool = False) -> str:
    """One language's coding sheet in Grambank's column layout (TSV text)."""
    from core.catalog import load_catalog
    from core.export.cldf import comment_of

    by_feature = {e.feature_id: e for e in _values(s, reviewed_only)}
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    for feature in load_catalog().by_dataset("Grambank"):
        if feature.multi_label:
            continue
        e = by_feature.get(feature.id)
        if e is None:
            writer.writerow([feature.id, "", "", "", ""])
            continue
        writer.writerow([feature.id, "?" if e.is_unknown else e.code, _source(s, e), e.reviewer,
                         _one_line(comment_of(e))])
    return buffer.getvalue()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def nexus_matrix(read: SampleRead, *, reviewed_only: bool = False) -> tuple[str, list[str]]:
    """The NEXUS text of the binary features, and the features in its columns."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    languages = read.by_language()
    values = {(s.language_key, e.feature_id): ("?" if e.is_unknown else str(e.code))
              for s in languages for e in _values(s, reviewed_only)}
    binary = sorted({fid for (_k, fid) in values
                     if fid in catalog and {c for c, _l in catalog.get(fid).values} == {"0", "1"}},
                    key=_feature_order)
    taxa = [_taxon(s) for s in languages]
    lines = ["#NEXUS", "", "BEGIN TAXA;", f"    DIMENSIONS NTAX={len(taxa)};",
             "    TAXLABELS " + " ".join(taxa) + ";", "END;", "", "BEGIN CHARACTERS;",
             f"    DIMENSIONS NCHAR={len(binary)};", '    FORMAT DATATYPE=STANDARD MISSING=? GAP=- SYMBOLS="01";',
             "    CHARSTATELABELS " + ", ".join(f"{i} {fid}" for i, fid in enumerate(binary, start=1)) + ";",
             "    MATRIX"]
    width = max((len(t) for t in taxa), default=0)
    for s, taxon in zip(languages, taxa, strict=True):
        row = "".join(v if (v := values.get((s.language_key, f), "?")) in ("0", "1") else "?" for f in binary)
        lines.append(f"    {taxon.ljust(width)} {row}")
    lines += ["    ;", "END;", ""]
    return "\n".join(lines), binary


def _feature_order(fid: str) -> tuple:
    from core.profile.entries import sort_key

    return sort_key(fid)


def _taxon(s: Snapshot) -> str:
    return s.glottocode or (re.sub(r"[^A-Za-z0-9_]+", "_", s.label).strip("_") or "language")


def write_tables(read: SampleRead, fmt: str, out: str | Path, *, reviewed_only: bool = False) -> list[Path]:
    """Write the sample in ``fmt`` (long: a CSV file; grambank: a folder of sheets; nexus: a .nex file)."""
    from core.sample.matrix import write_whole

    out = Path(out)
    if fmt == "long":
        write_whole(out, long_table(read, reviewed_only=reviewed_only))
        return [out]
    if fmt == "nexus":
        write_whole(out, nexus_matrix(read, reviewed_only=reviewed_only)[0])
        return [out]
    from core.export.staging import staged_folder

    written = []
    with staged_folder(out) as folder:
        for s in read.by_language():
            name = f"{_taxon(s)}.tsv"
            (folder / name).write_text(grambank_sheet(s, reviewed_only=reviewed_only), encoding="utf-8")
            written.append(out / name)
    return written
