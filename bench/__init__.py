"""Benchmarks of GrammarLens: speed and quality figures, above the product (``python main.py bench ...``).

Nothing in ``core``, ``gui`` or ``cli``'s product commands imports this package; the CLI's
``bench`` subcommands import it when they run (see ``pyproject.toml``'s import contracts).
Where a benchmark finds its data by default lives in :mod:`bench.paths`.
"""
