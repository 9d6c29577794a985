"""What the embedding reranker reads from installed packages at run time, and whether a bundle has it.

A frozen app only carries the files PyInstaller's analysis or a hook collected.  Python code is found
by import analysis, but data files opened beside a module (``kernels/_internals/python_depends.json``)
and package metadata asked for by name (``importlib.metadata.version("tokenizers")``) are invisible to
it: a missing one only shows when a user first reranks.  This module finds them the direct way, by
loading and running the bundled MiniLM model from the checkout under an audit hook that records every
file opened inside site-packages, and then lists which of those files a bundle lacks.  The model is
loaded both ways the app loads models: on torch alone (core/retrieval/bert_encoder.py, the default)
and through sentence-transformers (every other model).

    python packaging/runtime_files.py                          # what the reranker reads (JSON)
    python packaging/runtime_files.py dist/GrammarLens-full    # ... and what that bundle lacks (exit 1)

Shared libraries (dlopen) and the weights (memory-mapped by safetensors) do not pass through ``open``;
the model's folder is collected whole by its hook, and a missing library fails the smoke test's rerank.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CODE = (".py", ".pyc", ".so", ".pyd", ".dylib", ".dll")  # found by import and binary analysis, not traced here

# Run in a fresh interpreter of the environment being frozen, from the checkout.
_TRACE = r"""
import json, os, sys
opened = set()
def _record(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        opened.add(os.path.realpath(os.fsdecode(args[0])))
sys.addaudithook(_record)
sys.path.insert(0, sys.argv[1])
from core.retrieval import dense
for plain in ("1", "0"):  # the shipped MiniLM on torch alone, then as sentence-transformers loads any other model
    os.environ["GRAMMARLENS_PLAIN_BERT"] = plain
    dense._MODELS.clear()
    model = dense.load_model("all-MiniLM-L6-v2", device="cpu")
    model.encode(["The verb comes last.", "Word order is SOV."])
import site
folders = site.getsitepackages() + [site.getusersitepackages()]
roots = sorted({os.path.realpath(p) for p in folders}, key=len, reverse=True)
print(json.dumps({"roots": roots, "opened": sorted(opened)}))
"""


def trace_reranker(python: str = sys.executable, timeout_s: float = 300.0) -> dict[str, list[str]]:
    """Load and run the default reranker in ``python``; returns the package files it read.

    ``data``: files other than Python code, relative to site-packages (``kernels/_internals/python_depends.json``);
    ``metadata``: the distributions whose version or metadata was read (``tokenizers``), normalised names.
    """
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    result = subprocess.run([python, "-c", _TRACE, str(ROOT)], capture_output=True, text=True, env=env,
                            timeout=timeout_s, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"the reranker did not run from the checkout:\n{result.stderr[-3000:]}")
    found = json.loads(result.stdout.strip().splitlines()[-1])
    data: set[str] = set()
    metadata: set[str] = set()
    for path in found["opened"]:
        root = next((r for r in found["roots"] if path.startswith(r + os.sep)), None)
        if root is None:
            continue
        relative = Path(path).relative_to(root).as_posix()
        top = relative.split("/", 1)[0]
        if top.endswith(".dist-info"):
            if relative.endswith("/METADATA"):  # a version asked for; entry_points.txt is a scan of every package
                metadata.add(distribution_name(top))
        elif not relative.endswith(_CODE) and "/__pycache__/" not in relative:
            data.add(relative)
    return {"data": sorted(data), "metadata": sorted(metadata)}


def distribution_name(folder: str) -> str:
    """``Tokenizers-0.23.3.dist-info`` -> ``tokenizers`` (PEP 503 normalised, so folders compare)."""
    name = folder[: -len(".dist-info")].rsplit("-", 1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def missing_from_bundle(bundle: Path, traced: dict[str, list[str]]) -> list[str]:
    """The traced files a one-folder bundle lacks: data by path, metadata by distribution name."""
    internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
    present = {distribution_name(p.name) for p in internal.glob("*.dist-info")}
    missing = [f for f in traced["data"] if not (internal / f).is_file()]
    missing += [f"{name} (package metadata)" for name in traced["metadata"] if name not in present]
    return missing


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    traced = trace_reranker()
    if not args:
        print(json.dumps(traced, indent=1))
        return 0
    missing = missing_from_bundle(Path(args[0]), traced)
    print(json.dumps({"traced": sum(len(v) for v in traced.values()), "missing": missing}, indent=1))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
