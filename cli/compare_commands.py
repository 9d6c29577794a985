"""CLI: ``compare`` — two coders' files (or folders) of the same grammar(s): agreement, kappa, disagreements.

    compare A.grammarlens B.grammarlens [--groups FILE] [--json]
    compare A.grammarlens B.grammarlens --resolve-into A.grammarlens --feature ID --value VALUE [--note TEXT]
    compare A.grammarlens B.grammarlens --resolve-into A.grammarlens --take A|B [--note TEXT]
            [--across-languages]                       (A and B of different Glottocodes: refused without it)
    compare DIR_A DIR_B [--groups FILE] [--json]       (projects paired by Glottocode; kappa per coder pair)
    compare DIR_A DIR_B --also DIR_C [--also DIR_D]    (and Krippendorff's alpha over all the coders' folders)

Both files are opened read-only; nothing of either changes unless ``--resolve-into`` is given,
and then only A (named first, and again after ``--resolve-into``) gets one new decision per
resolved feature, recording both coders' earlier decisions (core/sample/resolution.py).  B is
never opened for writing.
"""

from __future__ import annotations

import argparse
import json
import sys

from cli import arg_types
from core.errors import GrammarLensError
from core.output_paths import refuse_project
from core.sample.members import same_file


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("compare", help="two coders' project files (or folders): agreement, Cohen's kappa, "
                                            "disagreements, and resolution into the first")
    p.add_argument("a", type=arg_types.path, metavar="A", help="coder A's project (or a folder of projects)")
    p.add_argument("b", type=arg_types.path, metavar="B", help="coder B's project (or a folder); only ever read")
    p.add_argument("--groups", type=arg_types.path, metavar="FILE",
                   help="Grambank's feature_grouping_for_analysis.csv, for kappa per feature group "
                        "(default: groups by database)")
    p.add_argument("--also", type=arg_types.path, action="append", default=[], metavar="DIR",
                   help="with two folders: a further coder's folder, for Krippendorff's alpha over all of them")
    p.add_argument("--resolve-into", type=arg_types.path, metavar="A",
                   help="store resolved values in this file, which must be A")
    p.add_argument("--feature", type=arg_types.feature_id, help="with --resolve-into: the feature to resolve")
    p.add_argument("--value", type=arg_types.line, help="with --feature: the resolved value (a code, a label or ?)")
    p.add_argument("--take", choices=["A", "B"], help="with --resolve-into: resolve every disagreement with A's "
                                                      "or B's value")
    p.add_argument("--across-languages", action="store_true",
                   help="with --resolve-into: allow storing B's values in A although their Glottocodes differ")
    p.add_argument("--note", type=arg_types.text, help="the resolver's note, stored before the record of both sides")
    p.add_argument("--reviewer", type=arg_types.optional_line,
                   help="who resolves (default: $GRAMMARLENS_REVIEWER, else the name the window asked for, "
                        "else the login name)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace) -> int:
    from cli.bounded_input import MAX_GROUPS_BYTES, check_input_file
    from core.sample.groups import load_groups

    _check_options(args)
    if args.groups is not None:
        refuse_project(args.groups, "--groups", "Grambank's feature_grouping_for_analysis.csv")
        check_input_file(args.groups, "--groups", MAX_GROUPS_BYTES)
    groups = load_groups(args.groups)
    if args.a.is_dir() or args.b.is_dir():
        if not (args.a.is_dir() and args.b.is_dir()):
            raise GrammarLensError("Compare two project files, or two folders of projects.",
                                   "Give A and B of the same kind.")
        if args.also and not all(p.is_dir() for p in args.also):
            raise GrammarLensError("--also takes coders' folders.", "Give a folder of projects per coder.")
        if args.resolve_into is not None:
            raise GrammarLensError("--resolve-into works on two project files, not on folders.",
                                   "Compare the two files of the language to resolve.")
        return _folders(args, groups)
    from core.sample import compare_projects

    comparison = compare_projects(args.a, args.b, groups=groups)
    resolved = _resolve(args, comparison) if args.resolve_into is not None else []
    if args.json:
        out = comparison.to_json()
        if args.resolve_into is not None:
            out["resolved"] = [d.to_json() for d in resolved]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    _print_pair(comparison)
    for d in resolved:
        print(f"resolved in {args.a.name}: {d.feature_id} = {d.code} ({d.label}), {d.status}, by "
              f"{d.reviewer or '-'} (#{d.id}; both coders' decisions recorded in its note)")
    return 0


def _check_options(args: argparse.Namespace) -> None:
    resolving = args.resolve_into is not None
    if not resolving and (args.feature or args.value is not None or args.take or args.note is not None):
        raise GrammarLensError("--feature, --value, --take and --note resolve disagreements: they need --resolve-into.",
                               "Add --resolve-into A (the first file).")
    if not resolving:
        return
    if args.take and (args.feature or args.value is not None):
        raise GrammarLensError("Give either --take A|B or --feature with --value, not both.", "")
    if not args.take and not (args.feature and args.value is not None):
        raise GrammarLensError("--resolve-into needs --feature ID --value VALUE, or --take A|B.",
                               "See the disagreements first: compare A B.")
    if not same_file(args.resolve_into, args.a):
        raise GrammarLensError(f"--resolve-into {args.resolve_into} is not A ({args.a}).",
                               "Resolve into the first file; to resolve into the other one, name it first. "
                               "B is only ever read.")


def _resolve(args: argparse.Namespace, comparison) -> list:
    from cli.code_commands import reviewer_of
    from core import coding
    from core.sample import resolve_disagreement
    from core.store import open_project

    by_feature = {d.feature_id: d for d in comparison.disagreements}
    if args.take:
        chosen = [(d, d.a.code if args.take == "A" else d.b.code) for d in comparison.disagreements]
        if not chosen:
            raise GrammarLensError("The two files do not disagree: nothing to resolve.", "")
    else:
        fid = coding.codable_feature(args.feature).id
        if fid not in by_feature:
            raise GrammarLensError(f"A and B do not disagree on {fid}.",
                                   "Resolve one of the disagreements 'compare A B' lists (set other values with "
                                   "'code').")
        chosen = [(by_feature[fid], args.value)]
    reviewer = reviewer_of(args)
    out = []
    # one command, one transaction: every chosen disagreement resolved, or none
    with open_project(args.a) as project, project.transaction():
        for d, value in chosen:
            out.append(resolve_disagreement(project, d, value, note=args.note, resolver=reviewer,
                                            across_languages=args.across_languages, comparison=comparison))
    return out


def _print_pair(c) -> None:
    print(f"A: {c.a.path} ({c.a.language}, {c.a.glottocode or 'no Glottocode'}; coder {c.a.coder or '-'})")
    print(f"B: {c.b.path} ({c.b.language}, {c.b.glottocode or 'no Glottocode'}; coder {c.b.coder or '-'})")
    for w in c.warnings:
        print(f"warning: {w}", file=sys.stderr)
    counts = {v: sum(1 for f in c.features if f.verdict == v) for v in ("agree", "disagree", "only A", "only B")}
    print(f"{len(c.features)} features decided on either side: " + ", ".join(f"{k} {n}" for k, n in counts.items()))
    blind, current = c.blind or c.overall, c.overall
    print(_figures("blind  ", blind) + ("   (kept in A since " + c.blind_recorded_at[:16] + ")"
                                         if c.blind_recorded_at else "   (no resolution yet: blind = current)"))
    print(_figures("current", current) + (f"   ({len(c.resolved)} resolved: {', '.join(c.resolved)})"
                                           if c.resolved else ""))
    print(f"blind reliability: {c.reliability(blind=True).shown()}")
    for g, k in c.by_group.items():
        b = c.blind_by_group.get(g, k)
        print(f"  {g}: blind agreement {b.agreement_shown()}, kappa {b.shown()} | current agreement "
              f"{k.agreement_shown()}, kappa {k.shown()}")
    for f in c.features:
        a = f.a.shown() if f.a else "-"
        b = f.b.shown() if f.b else "-"
        mark = f" [resolved; blind: A {f.blind_pair[0]}, B {f.blind_pair[1]}]" if f.resolved and f.blind_pair else \
            (" [resolved]" if f.resolved else "")
        print(f"{f.feature_id:<6} {f.verdict:<8} A {a} | B {b}{mark}")
    if c.disagreements:
        print(f"\n{len(c.disagreements)} disagreement(s):")
        for d in c.disagreements:
            print(f"{d.feature_id} {d.feature_name}")
            for side, v in (("A", d.a), ("B", d.b)):
                pins = ", ".join(f"¶{p}" for p in v.paragraph_ids)
                print(f"  {side}: {v.shown()} ({v.status}, {v.decided_at}){' pins ' + pins if pins else ''}"
                      f"{' note: ' + v.note if v.note else ''}")


def _figures(title: str, k) -> str:
    """One line of figures: agreement (items both coded with a value), kappa with n, and what was left out."""
    return (f"{title}: agreement {k.agreement_shown()} over {k.n} features both coded with a value, "
            f"Cohen's kappa {k.shown()}; excluded {k.excluded} ({k.unknown} with \"?\" on a side, "
            f"{k.uncoded} decided by one side only)")


def _folders(args: argparse.Namespace, groups: dict[str, str]) -> int:
    from core.sample import compare_folders
    from core.sample.coders import alpha_of_folders

    result = compare_folders(args.a, args.b, groups=groups)
    alpha = alpha_of_folders([args.a, args.b, *args.also]) if args.also else None
    if args.json:
        out = result.to_json()
        if alpha is not None:
            out["alpha_all_coders"] = {"alpha": alpha[0], "units": alpha[1], "coders": alpha[2]}
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"{len(result.pairs)} languages coded in both folders; {len(result.unpaired)} in one only")
        print(f"blind reliability, all pairs: {result.reliability().shown()}")
        if alpha is not None:
            shown = "n/a" if alpha[0] is None else f"{alpha[0]:.2f}"
            print(f"Krippendorff's alpha over {alpha[2]} coders' folders: {shown} ({alpha[1]} language-feature units "
                  "coded by at least two)")
        for (a, b), k in sorted(result.by_coder_pair.items()):
            print(_figures(f"coders {a or '-'} / {b or '-'} (blind)", k))
        for p in result.pairs:
            blind = p.blind or p.overall
            print(f"  {p.a.language} ({p.a.glottocode}): blind kappa {blind.shown()}, current kappa "
                  f"{p.overall.shown()}, {len(p.disagreements)} disagreement(s), {len(p.resolved)} resolved")
        for f, k in result.by_feature.items():
            print(f"  {f}: agreement {k.agreement_shown()}, kappa {k.shown()}")
    for p in result.problems:
        print(f"warning: {p.path}: {p.message}", file=sys.stderr)
    return 1 if result.problems else 0
