"""CLI: ``restore`` — list a project's backups, or bring one back.

    restore PROJECT --list            the backups beside PROJECT, newest first, each checked
    restore PROJECT --from BACKUP     make PROJECT what BACKUP holds
    restore PROJECT                   the same with the backup holding the latest acts that is intact
    restore PROJECT --from BACKUP --other-project ID
                                      restore a backup of another project over this one, on purpose

The state a restore replaces is itself kept as a backup (reason ``before-restore``); a damaged
project is moved aside as ``NAME.damaged-STAMP``, never deleted; the backup restored from is only
read.  ``--list`` also says why the last automatic backup failed, when it did.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli import arg_types


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("restore", help="list a project's backups or restore one (the current state is kept)")
    p.add_argument("project", type=arg_types.path, help="project file (.grammarlens), damaged or not")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="list the backups, newest first, and whether each is intact")
    what.add_argument("--from", dest="backup", type=arg_types.path, metavar="BACKUP",
                      help="the backup file to restore (default: the intact one holding the latest acts)")
    p.add_argument("--other-project", metavar="ID",
                   help="restore a backup of another project (its id, as the refusal names it) over this one")
    p.set_defaults(handler=_restore)


def _restore(args: argparse.Namespace) -> int:
    from core.errors import GrammarLensError
    from core.store import backups, restore

    project: Path = args.project
    if project.is_dir():
        raise GrammarLensError(f"{project} is a folder, not a project file.", "Give the path of a .grammarlens file.")
    if args.list:
        return _list(project)
    if args.backup is None:
        chosen = backups.newest_good_backup(project)
        if chosen is None:
            raise GrammarLensError(f"No intact backup of {project} was found in {backups.backup_dir(project)}.",
                                   "Backups are made when a project is opened, upgraded or imported into.")
        source = chosen.path
    else:
        source = args.backup
        if not source.is_file():
            raise GrammarLensError(f"Backup {source} does not exist.",
                                   f"List the backups with: python main.py restore \"{project}\" --list")
    safety = restore.restore_backup(project, source, other_project=args.other_project).safety
    print(f"Restored {project} from {source.name}.")
    if safety is not None:
        print(f"The state it replaced is kept as {safety.path}.")
    else:
        print("The damaged file was moved aside beside it (NAME.damaged-STAMP).")
    return 0


def _list(project: Path) -> int:
    from core.store import backups

    failure = _last_backup_failure(project)
    if failure:
        print(failure)
    found = backups.list_backups(project)
    if not found:
        print(f"No backups of {project} in {backups.backup_dir(project)}.")
        return 0
    print("Newest (latest acts) first; 'acts' counts the changes each holds, 'last act' is read from inside it.")
    for b in found:
        problem = backups.check_backup(b.path)
        state = "ok" if problem is None else f"DAMAGED ({problem})"
        acts = f"{b.revision:>7}" if b.revision >= 0 else "      ?"
        last = (b.last_act_at or "?")[:19].replace("T", " ")
        print(f"{b.created:%Y-%m-%d %H:%M:%S} UTC  {b.reason:<18} acts {acts}  last act {last:<19}  "
              f"{b.size / 1e6:8.2f} MB  {state}  {b.path}")
    return 0


def _last_backup_failure(project: Path) -> str | None:
    """Why the last automatic backup failed, as stored in the project (None if it did not, or it cannot be read)."""
    from core.errors import GrammarLensError
    from core.store import open_project
    from core.store.identity import read_identity

    try:
        with open_project(project, readonly=True) as opened:
            found = read_identity(opened.conn)
    except GrammarLensError:
        return None
    if found is None or not found.backup_problem:
        return None
    return f"The last backup FAILED ({(found.backup_problem_at or '?').replace('T', ' ')}): {found.backup_problem}"
