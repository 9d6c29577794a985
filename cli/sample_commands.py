"""CLI: ``sample status|matrix|export|compare`` over a language sample, and ``bench sample``.

    sample status SAMPLE [--features SET] [--json]
    sample matrix SAMPLE [--features SET] [--out matrix.csv [--force]] [--json]
    sample export SAMPLE --format cldf --out DIR [--force] [--reviewed-only] [--no-unknown] [--licence CC-BY-4.0]
    sample export SAMPLE --format long|nexus --out FILE  |  --format grambank --out DIR   [--reviewed-only]
    sample compare SAMPLE --reference FOLDER [--features SET] [--groups FILE] [--out disagreements.csv [--force]]
                   [--reviewed-only] [--json]
    bench sample [--projects 100] [--work build/bench_sample] [--demo-only] [--json]

SAMPLE is a folder of projects (top level and one folder down), a text file listing project
paths, or one project (see core/sample/members.py).  Every project is opened read-only; one that
cannot be read is listed with its reason and the rest is reported (exit code 1 then, as for a
partly done command).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli import arg_types
from core.errors import GrammarLensError
from core.output_paths import refuse_project


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    sample = commands.add_parser("sample", help="a language sample: status, matrix, one CLDF export, "
                                                "comparison with Grambank/WALS")
    sub = sample.add_subparsers(dest="sample_command", metavar="SAMPLE_COMMAND", required=True)

    p = sub.add_parser("status", help="per language: grammars, Glottocode, values per status, last change")
    _sample_argument(p)
    _features_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_status)

    p = sub.add_parser("matrix", help="language x feature codes, and a second sheet of statuses")
    _sample_argument(p)
    _features_option(p)
    p.add_argument("--out", type=arg_types.path, metavar="matrix.csv",
                   help="write the codes here and the statuses beside it (matrix.status.csv); default: print codes")
    p.add_argument("--force", action="store_true", help="overwrite existing --out files")
    p.add_argument("--json", action="store_true", help="print codes and statuses as one JSON object")
    p.set_defaults(handler=_matrix)

    p = sub.add_parser("export", help="one CLDF StructureDataset of the whole sample (validated with pycldf), a long "
                                      "table, Grambank coding sheets or a NEXUS matrix")
    _sample_argument(p)
    p.add_argument("--format", choices=["cldf", "long", "grambank", "nexus"], default="cldf",
                   help="cldf (a folder), long (a CSV for R/lingtypology/pandas), grambank (a folder of one coding "
                        "sheet per language), nexus (the binary features as a NEXUS matrix)")
    p.add_argument("--out", type=arg_types.path, required=True, help="folder (cldf, grambank) or file (long, nexus)")
    p.add_argument("--licence", default="CC-BY-4.0", choices=["CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC0-1.0"],
                   help="the licence named in the CLDF metadata (default CC-BY-4.0)")
    p.add_argument("--force", action="store_true", help="overwrite an export already in the --out folder")
    p.add_argument("--reviewed-only", action="store_true", help="only values a coder decided")
    p.add_argument("--no-unknown", action="store_true", help='leave out the coder\'s "?" values')
    p.set_defaults(handler=_export)

    p = sub.add_parser("compare", help="the sample against Grambank or WALS: agreement, kappa, macro-F1, "
                                       "disagreements")
    _sample_argument(p)
    p.add_argument("--reference", type=arg_types.path, required=True,
                   help="a CLDF folder (a Grambank or WALS release, or ../shared/cldf/grambank)")
    _features_option(p)
    p.add_argument("--groups", type=arg_types.path, metavar="FILE",
                   help="Grambank's feature_grouping_for_analysis.csv (default: the one in --reference, if any)")
    p.add_argument("--out", type=arg_types.path, metavar="disagreements.csv", help="write the disagreement table")
    p.add_argument("--reviewed-only", action="store_true",
                   help="score only coders' decisions (the model's unreviewed predictions excluded and counted); "
                        "the split by origin is printed either way")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_compare)

    p = bench.add_parser("sample", help="a generated sample of projects: time and peak memory of sample "
                                        "status/matrix/compare/export (and the Sample window)")
    p.add_argument("--projects", type=arg_types.int_range(2, 2000), default=100,
                   help="projects in the generated sample (default 100)")
    p.add_argument("--work", type=arg_types.path, default=Path("build") / "bench_sample",
                   help="folder for the ingested grammars and the sample, reused (default build/bench_sample)")
    p.add_argument("--demo-only", action="store_true",
                   help="make the sample from the demo grammar only (skips ingesting the seven shared grammars)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_bench)


def _sample_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("sample", type=arg_types.path, metavar="SAMPLE",
                   help="a folder of .grammarlens projects, a text file listing them, or one project")
    p.add_argument("--balanced", action="store_true",
                   help="a genealogically balanced subsample: one language per WALS genus (else family), the one "
                        "with most decided values")


def _features_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--features", type=arg_types.line, metavar="SET",
                   help="paper, grambank, wals or ids like GB020,81A (default: every feature with a value "
                        "in the sample)")


def _features(spec: str | None) -> list[str] | None:
    if spec is None:
        return None
    from core.coding import coding_ids
    from core.profile import resolve_feature_set

    return coding_ids(resolve_feature_set(None, spec))  # 116A* is stored as its Grambank parts


def _read(args: argparse.Namespace, *, with_sources: bool = False):
    from core.sample import read_sample

    read = read_sample(args.sample, with_sources=with_sources)
    if not read.snapshots and read.problems:
        first = read.problems[0]
        raise GrammarLensError(f"No project of {args.sample} could be read; {first.path}: {first.message}",
                               first.hint)
    if getattr(args, "balanced", False):
        from core.sample.balance import balanced

        before = len(read.by_language())
        read = balanced(read)
        print(f"balanced subsample: {len(read.snapshots)} of {before} languages (one per genus, else family)",
              file=sys.stderr)
    return read


def _report_problems(read) -> int:
    """Print the projects that could not be read (stderr); exit code 1 if any, as for a partly done command."""
    for p in read.problems:
        print(f"warning: {p.path}: {p.message}" + (f" ({p.hint})" if p.hint else ""), file=sys.stderr)
    for w in read.warnings():
        print(f"warning: {w}", file=sys.stderr)
    return 1 if read.problems else 0


def _status(args: argparse.Namespace) -> int:
    from core.sample.status import COLUMNS, sample_status

    features = _features(args.features)
    read = _read(args)
    status = sample_status(read, features)
    if args.json:
        print(json.dumps(status.to_json(), ensure_ascii=False))
        return 1 if read.problems else 0
    print(f"{len(status.languages)} languages, {len(status.feature_ids)} features "
          f"({'--features ' + args.features if args.features else 'those with a value in the sample'})")
    header = ["language", "glottocode", "family", "macroarea", *COLUMNS, "last change", "grammar"]
    rows = [[s.language, s.glottocode or "-", s.family or "-", s.macroarea or "-", *(str(s.counts[c]) for c in COLUMNS),
             s.last_change[:16] or "-", ", ".join(s.grammars) or "-"] for s in status.languages]
    _table(header, rows)
    for attribute in ("family", "macroarea"):
        print()
        totals = status.totals_by(attribute)
        _table([attribute, "languages", *COLUMNS],
               [[k, str(v["languages"]), *(str(v[c]) for c in COLUMNS)] for k, v in totals.items()])
    for p in status.problems:
        print(f"unreadable: {p.path}: {p.message}")
    return _report_problems(read)


def _matrix(args: argparse.Namespace) -> int:
    from core.output_paths import check_output_file
    from core.sample.matrix import build_matrix, matrix_csv, status_path, write_matrix

    if args.out is not None:
        check_output_file(args.out, option="--out", overwrite=args.force, force_option="--force")
        check_output_file(status_path(args.out), option="--out", overwrite=args.force, force_option="--force")
    features = _features(args.features)
    matrix = build_matrix(_read(args), features)
    if args.out is not None:
        codes, statuses = write_matrix(matrix, args.out)
        print(f"{len(matrix.rows)} languages x {len(matrix.feature_ids)} features -> {codes} (codes), "
              f"{statuses} (statuses)")
    elif args.json:
        print(json.dumps(matrix.to_json(), ensure_ascii=False))
    else:
        sys.stdout.write(matrix_csv(matrix))
    return _report_problems_of(matrix.problems)


def _report_problems_of(problems: list) -> int:
    for p in problems:
        print(f"warning: {p.path}: {p.message}" + (f" ({p.hint})" if p.hint else ""), file=sys.stderr)
    return 1 if problems else 0


def _export(args: argparse.Namespace) -> int:
    from core.output_paths import check_export_folder, check_output_file
    from core.sample.export import export_sample_cldf

    if args.format in ("long", "nexus"):
        check_output_file(args.out, option="--out", overwrite=args.force, force_option="--force")
    else:
        check_export_folder(args.out, args.format, option="--out", overwrite=args.force, force_option="--force")
    read = _read(args, with_sources=True)
    if args.format != "cldf":
        from core.sample.tables import write_tables

        written = write_tables(read, args.format, args.out, reviewed_only=args.reviewed_only)
        print(f"{len(read.by_language())} languages -> {args.out} ({args.format}, {len(written)} file(s))")
        return _report_problems_of(read.problems)
    warnings: list[str] = []
    path = export_sample_cldf(read, args.out, reviewed_only=args.reviewed_only, include_unknown=not args.no_unknown,
                              overwrite=args.force, on_warning=warnings.append, licence=args.licence)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"{len(read.by_language())} languages -> {path} (validated with pycldf)")
    return _report_problems_of(read.problems)


def _compare(args: argparse.Namespace) -> int:
    from core.output_paths import check_output_file
    from core.sample.groups import find_grouping, load_groups
    from core.sample.reference import DISAGREEMENT_COLUMNS, compare_with_reference

    if args.out is not None:
        check_output_file(args.out, option="--out", overwrite=args.force, force_option="--force")
    if not args.reference.is_dir():
        raise GrammarLensError(f"--reference {args.reference} is not a folder.",
                               "Give a CLDF folder, e.g. ../shared/cldf/grambank or a Grambank/WALS release.")
    if args.groups is not None:
        refuse_project(args.groups, "--groups", "Grambank's feature_grouping_for_analysis.csv")
    groups = load_groups(args.groups or find_grouping(args.reference))
    features = _features(args.features)
    read = _read(args)
    result = compare_with_reference(read, args.reference, feature_ids=features, groups=groups,
                                    reviewed_only=args.reviewed_only)
    if args.out is not None:
        import csv
        import io

        from core.sample.matrix import write_whole

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(DISAGREEMENT_COLUMNS)
        writer.writerows(d.row() for d in result.disagreements)
        write_whole(args.out, buffer.getvalue())
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        _print_reference(result)
        if args.out is not None:
            print(f"{len(result.disagreements)} disagreements -> {args.out}")
    for s in result.skipped:
        print(f"warning: {s}", file=sys.stderr)
    return _report_problems(read)


def _print_reference(result) -> None:
    o = result.overall
    scope = "coders' decisions only" if result.reviewed_only else "coders' decisions and the model's predictions"
    print(f"against {result.reference} ({scope}): {o.items} reference values, {o.n} scored (a real value on both "
          f"sides); {_figures(o)}")
    print(f"excluded: {o.excluded} ({o.reference_unknown} \"?\" in the reference, {o.kappa.unknown} \"?\" of ours, "
          f"{o.kappa.uncoded - o.reference_unknown - o.unreviewed} without a value of ours"
          + (f", {o.unreviewed} unreviewed predictions" if result.reviewed_only else "") + ")")
    for origin, part in result.by_origin.items():
        print(f"  {'coders decisions' if origin == 'decided' else 'model predictions'}: {part.n} scored; "
              f"{_figures(part)}")
    for title, part, names in (("group", result.by_group, {}), ("family", result.by_family, {}),
                               ("macroarea", result.by_macroarea, {}), ("language", result.by_language, result.names),
                               ("feature", result.by_feature, {})):
        rows = [[names.get(k, k), str(v.items), str(v.n), v.kappa.agreement_shown(),
                 "n/a" if v.macro_f1 is None else f"{v.macro_f1:.3f}", v.kappa.shown(), str(v.excluded)]
                for k, v in part.items()]
        print()
        _table([title, "items", "scored", "agreement", "macro-F1", "kappa", "excluded"], rows)
    if result.disagreements:
        print()
        _table(["language", "feature", "ours", "theirs", "our status", "our pages", "reference source"],
               [[d.language, d.feature, d.ours, d.theirs, d.our_status, d.our_pages or "-",
                 d.reference_source or "-"] for d in result.disagreements])


def _figures(s) -> str:
    """Agreement, macro-F1 and kappa of a slice, or "n/a" with the reason."""
    if s.agreement is None:
        return f"agreement n/a ({s.reason})"
    macro = "n/a" if s.macro_f1 is None else f"{s.macro_f1:.3f}"
    return f"agreement {s.agreement:.3f}, macro-F1 {macro}, Cohen's kappa {s.kappa.shown()}"


def _table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())


def _bench(args: argparse.Namespace) -> int:
    from bench.sample import run_bench

    report = run_bench(args.work, projects=args.projects, shared=not args.demo_only,
                       log=lambda m: print(m, file=sys.stderr))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        from bench.sample import format_report

        print(format_report(report))
    return 0
