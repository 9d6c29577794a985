"""GrammarLens entry point: the desktop app without arguments (or with a PDF or project to open), the CLI otherwise.

This file only dispatches; the GUI lives in ``gui/`` and the commands in ``cli/``.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    if getattr(sys, "frozen", False):  # worker processes of the desktop build re-enter here (packaging/)
        import multiprocessing

        multiprocessing.freeze_support()
    args = sys.argv[1:] if argv is None else argv
    opens = bool(args) and args[0].lower().endswith((".pdf", ".grammarlens"))  # `main.py grammar.pdf`
    if not args or opens or args[0] in ("gui", "open"):
        from gui.app import run_app

        return run_app(args if opens else args[1:])
    from cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
