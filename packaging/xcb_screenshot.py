"""Start a frozen GrammarLens on the real X11 platform (xcb) on a private Xvfb server and photograph it.

    python packaging/xcb_screenshot.py dist/GrammarLens-full screenshots/full-xcb [--at 5 60]

The bundle opens its demo project in a fresh home folder (first start: WALS 81A shown at once) and the
screen is saved as PNG at each of the given seconds after the start (``<prefix>-<seconds>s.png``).  On
the full build the first one usually still says "reranking…" (BM25 and vocabulary shown first) and a
later one shows the order of the MiniLM reranker, loaded in the app's child process.  What a smoke test
cannot judge, a person looks at: a window drawn by the bundle's own Qt and xcb libraries.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from smoke_test import SmokeTest, executable, private_x_display

_GRAB = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
sys.exit(0 if app.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, help="the bundle folder, e.g. dist/GrammarLens-full")
    parser.add_argument("prefix", type=Path, help="PNG files are written as PREFIX-<seconds>s.png")
    parser.add_argument("--at", type=float, nargs="+", default=[5.0, 60.0], help="seconds after the start")
    args = parser.parse_args(argv)
    folder = args.bundle.resolve()
    app = executable(folder)
    args.prefix.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="grammarlens-xcb-") as home, private_x_display() as display:
        if display is None:
            raise SystemExit("Xvfb is not installed (Linux: sudo apt-get install xvfb)")
        smoke = SmokeTest(app, app, "full" if folder.name.endswith("full") else "lite", folder, Path(home),
                          display=display)
        env = smoke.env("xcb")
        window = subprocess.Popen([str(app), "gui", "--demo"], cwd=home, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        started = time.perf_counter()
        try:
            for seconds in sorted(args.at):
                time.sleep(max(0.0, seconds - (time.perf_counter() - started)))
                if window.poll() is not None:
                    raise SystemExit(f"the app exited ({window.returncode}):\n{window.stdout.read()[-3000:]}")
                png = args.prefix.with_name(f"{args.prefix.name}-{seconds:g}s.png")
                subprocess.run([sys.executable, "-c", _GRAB, str(png)], env=dict(env, QT_QPA_PLATFORM="xcb"),
                               check=True, timeout=60)
                print(png, flush=True)
        finally:
            window.terminate()
            try:
                window.wait(timeout=20)
            except subprocess.TimeoutExpired:
                window.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
