"""bench sample-window: how long the Sample window takes to open populated, and its peak memory.

    python -m bench.sample_window DIR [--reference FOLDER] [--json]
    python -m bench.sample_window DIR --build 100      # first make a sample of 100 projects in DIR

``open_s`` runs from the start of :meth:`gui.sample.window.SampleWindow.load` (the window already
shown, empty) to the heatmap painted with every language (the window's ``open_seconds``: reading
each project read-only, the reference's values, the view records, the first paint).  ``peak_mb``
is the process's peak resident memory (``ru_maxrss``) afterwards, the app's import included.
The issue asks for ≤ 3 s at 100 projects.

``--build N`` makes a sample in the style of a real one, without a model: N projects (no grammar
needed), each with a language from Grambank's table (the seven shared grammars' languages
first), the eight Grambank features of ``../shared/cldf/grambank/values_subset.csv`` plus 81A and
49A, each value coded by hand, accepted or predicted (a stored model answer), or "?", agreeing
with Grambank about four times in five.  The tests use :func:`build_sample` too.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import resource
import shutil
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
GRAMBANK = SHARED / "cldf" / "grambank"
SHARED_LANGUAGES = ("pite1240", "chak1271", "papu1250", "molo1266", "wara1294", "sout2789", "nucl1235")
FEATURES = ("81A", "49A", "GB107", "GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")


def _grambank_values() -> dict[str, dict[str, str]]:
    """Glottocode -> feature -> Grambank's code, from the shared subset (empty when it is missing)."""
    out: dict[str, dict[str, str]] = {}
    path = GRAMBANK / "values_subset.csv"
    if path.exists():
        with open(path, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                if r["Value"] in ("0", "1"):
                    out.setdefault(r["Glottocode"], {})[r["Parameter_ID"]] = r["Value"]
    return out


def _classification(feature_id: str, code: str | None, label: str):
    from core.records.classifications import Classification, ValueRecord

    return Classification(
        id=None, created_at="2026-01-02T03:04:05+00:00", feature_id=feature_id, feature_name=feature_id,
        config="rag", language="", model="bench-model", base_url="http://127.0.0.1:1/v1",
        values=[ValueRecord(feature_id, code, label)], reasoning="bench", raw_answer=str(code), status="ok",
        problem=None, flags=[], evidence=[], prompt_hash="bench", prompt_tokens=1, completion_tokens=1,
        evidence_tokens=0, cost_usd=None, seconds=0.0, cached=False, answer_format="conclusion")


def build_sample(folder: str | Path, count: int = 100, *, seed: int = 0, coder: str = "ana",
                 features: tuple[str, ...] = FEATURES) -> list[Path]:
    """Make ``count`` projects in ``folder`` (see the module docstring); returns their paths."""
    from core.catalog import load_catalog
    from core.catalog.languages import place_of
    from core.coding.decisions import accept, code
    from core.models import Language
    from core.store import create_project, open_project
    from core.store.classifications import save_classification
    from core.store.repository import set_language

    rng, catalog, grambank = random.Random(seed), load_catalog(), _grambank_values()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    placed = [g for g in grambank if (p := place_of(g)) is not None and p.latitude is not None]
    rng.shuffle(placed)
    glottocodes = [g for g in SHARED_LANGUAGES if place_of(g)] + [g for g in placed if g not in SHARED_LANGUAGES]
    template = folder / ".template.grammarlens"
    create_project(template).close()
    paths = []
    for i, glottocode in enumerate(glottocodes[:count]):
        place = place_of(glottocode)
        path = folder / f"{i:03d}_{glottocode}.grammarlens"
        shutil.copy(template, path)
        with open_project(path, backup=False) as project:
            set_language(project, Language(place.name if place else glottocode, glottocode, "user"))
            for fid in features:
                feature, roll = catalog.get(fid), rng.random()
                if roll < 0.12:
                    continue  # uncoded
                codes = [c for c, _ in feature.values]
                truth = grambank.get(glottocode, {}).get(fid) or rng.choice(codes)
                value = truth if rng.random() < 0.8 else rng.choice(codes)
                if roll < 0.22:
                    code(project, fid, "?", reviewer=coder)
                elif roll < 0.55:
                    code(project, fid, value, reviewer=coder, note="bench")
                else:
                    label = feature.value_label(value) or ""
                    stored = save_classification(project, _classification(fid, value, label), {})
                    if roll < 0.8 and stored.id is not None:  # stored: it has its id
                        accept(project, stored.id, reviewer=coder)
        paths.append(path)
    template.unlink()
    return paths


def measure(folder: Path, reference: Path | None) -> dict:
    """Open a Sample window on ``folder`` in this process and time it until the heatmap is painted."""
    from PySide6.QtCore import QEventLoop, QTimer

    from gui.app import make_application
    from gui.sample.window import SampleWindow

    started = time.perf_counter()
    app = make_application()
    window = SampleWindow()
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    loop = QEventLoop()
    window.loaded.connect(loop.quit)
    def failed(text: str) -> None:
        print(f"error: {text}", file=sys.stderr)
        loop.quit()

    window.errors.shown.connect(failed)
    QTimer.singleShot(60000, loop.quit)
    window.load(folder, reference)
    loop.exec()
    result = {"open_s": round(window.open_seconds, 3) if window.open_seconds is not None else None,
              "languages": len(window.view.languages) if window.view else 0,
              "features": len(window.view.feature_ids) if window.view else 0,
              "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
              "process_s": round(time.perf_counter() - started, 2)}
    window.close()
    window.runner.shutdown()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sample_window", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the sample folder (made first with --build)")
    parser.add_argument("--reference", type=Path, default=None, help="a WALS/Grambank CLDF folder")
    parser.add_argument("--build", type=int, default=0, metavar="N", help="make a sample of N projects first")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.build:
        t0 = time.perf_counter()
        build_sample(args.folder, args.build)
        print(f"built {args.build} projects in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    result = measure(args.folder, args.reference)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"Sample window: {result['languages']} languages x {result['features']} features open in "
              f"{result['open_s']} s; peak {result['peak_mb']} MB")
    return 0 if result["open_s"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
