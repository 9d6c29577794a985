"""CLI: ``code`` — set a feature's value by hand, pin its evidence, add a note, undo, show it as JSON.

    code PROJECT --feature ID --value VALUE [--pin ID,...] [--page LABEL,...] [--unpin ID,...] [--unpin-page LABEL,...]
                 [--note TEXT] [--reviewer NAME]
    code PROJECT --feature ID --pin ID,... | --page LABEL,... | --note TEXT     (value unchanged)
    code PROJECT --feature ID --undo
    code PROJECT --feature ID [--json] [--history]
"""

from __future__ import annotations

import argparse
import contextlib
import json

from cli import arg_types
from core.errors import GrammarLensError
from core.records.vocabulary import ProfileStatus


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("code", help="code a feature by hand: value, pinned evidence, note, undo")
    p.add_argument("project", type=arg_types.path, help="project file (.grammarlens)")
    p.add_argument("--feature", type=arg_types.feature_id, required=True,
                   help="feature id, e.g. 81A or GB107 (116A* is coded as GB257...)")
    p.add_argument("--value", type=arg_types.line,
                   help='a code or label of the feature ("2", "SVO"), or "?" for not enough information')
    p.add_argument("--pin", type=arg_types.paragraph_ids, metavar="ID,...",
                   help="paragraph ids that decide the value (replace the pins when given with --value, else added)")
    p.add_argument("--page", type=arg_types.page_labels, metavar="LABEL,...",
                   help="printed page labels to pin (pages retrieval never found)")
    p.add_argument("--unpin", type=arg_types.paragraph_ids, metavar="ID,...",
                   help="pinned paragraph ids to unpin (with --value: in the same act, after the new value is set)")
    p.add_argument("--unpin-page", type=arg_types.page_labels, metavar="LABEL,...",
                   help="pinned printed pages to unpin (with --value: after the new value is set)")
    p.add_argument("--note", type=arg_types.text, help="a note kept with the decision")
    p.add_argument("--reviewer", type=arg_types.optional_line,
                   help="who decides (default: $GRAMMARLENS_REVIEWER, else the name the window asked for, "
                        "else the login name)")
    p.add_argument("--undo", action="store_true", help="cancel the feature's latest decision")
    p.add_argument("--history", action="store_true", help="print every decision about the feature, oldest first")
    p.add_argument("--json", action="store_true", help="print the current decision as JSON")
    p.set_defaults(handler=_code)


def reviewer_of(args: argparse.Namespace) -> str:
    """The act's coder by the window's own lookup (:func:`core.coding.reviewer.reviewer_name`)."""
    from core.coding.reviewer import reviewer_name

    return reviewer_name(args.reviewer)


def _code(args: argparse.Namespace) -> int:
    from core import coding
    from core.coding import acts
    from core.store import open_project

    feature = coding.codable_feature(args.feature)  # checks the id before opening anything
    pins, pages = args.pin or [], args.page or []
    unpins, unpin_pages = args.unpin or [], args.unpin_page or []
    if args.undo and (args.value is not None or pins or pages or args.note or unpins or unpin_pages):
        raise GrammarLensError("--undo cannot be combined with a new value, pins or a note.", "Run them one by one.")
    reviewer = reviewer_of(args)
    message = ""
    writes = args.undo or args.value is not None or pins or pages or unpins or unpin_pages or args.note
    with open_project(args.project, readonly=not writes) as project:  # showing works on read-only media too
        with project.transaction() if writes else contextlib.nullcontext():
            # one command, one transaction: a refused part (no such pin) leaves nothing behind
            # the window's acts (core.coding.acts): one path for both; a window beside finds the rows itself
            if args.undo:
                restored = acts.undo(project, feature.id, reviewer=reviewer).restored.get(feature.id)
                message = (f"undone; {feature.id} is back to {_describe(restored)}" if restored
                           else f"undone; {feature.id} has no decision now")
            elif args.value is not None:
                d = acts.code(project, feature.id, args.value, paragraph_ids=pins, page_labels=pages,
                              note=args.note, reviewer=reviewer, unpin_paragraph_ids=unpins,
                              unpin_page_labels=unpin_pages).decisions[0]
                message = f"{feature.id}: {_describe(d)}"
            else:
                if pins or pages:
                    d = acts.pin(project, feature.id, pins, pages, reviewer=reviewer).decisions[0]
                    message = f"{feature.id}: pinned; {_describe(d)}"
                if unpins or unpin_pages:
                    d = acts.unpin(project, feature.id, unpins, unpin_pages, reviewer=reviewer).decisions[0]
                    message = f"{feature.id}: unpinned; {_describe(d)}"
                if args.note:
                    acts.note(project, feature.id, args.note, reviewer=reviewer)
                    message = f"{feature.id}: note added"
        current = coding.current(project, feature.id)
        rows = coding.history(project, feature.id) if args.history else []
    if args.json:
        print(json.dumps(current.to_json() if current else _undecided(feature.id), ensure_ascii=False))
    else:
        if message:
            print(message)
        elif not args.history:
            print(f"{feature.id}: {_describe(current)}")
        for d in rows:
            target = f" (cancels #{d.undoes})" if d.undoes else ""
            print(f"#{d.id} {d.created_at} {d.reviewer or '-'} {d.action}{target}: {_describe(d)}")
    return 0


def _undecided(feature_id: str) -> dict:
    return {"feature": feature_id, "value": None, "label": None, "status": ProfileStatus.UNCODED, "pins": [],
            "note": None, "reviewer": None, "time": None}


def _describe(d) -> str:
    if d is None:
        return "not coded"
    if d.action == "undo":
        return "undo"
    value = f"{d.code} ({d.label})" if d.has_value and d.code != "?" else ("?" if d.has_value else "no value")
    pins = ", ".join(f"p. {p.page_label}" + (f" ¶{p.paragraph_id}" if p.paragraph_id else "") for p in d.pins)
    parts = [f"{value}, {d.status}"]
    if pins:
        parts.append(f"pinned {pins}")
    if d.note:
        parts.append(f"note: {d.note}")
    return "; ".join(parts)
