"""``kernels`` (full build): transformers imports it at start-up, and it reads a data file on import.

``kernels/_internals/python_deps.py`` opens ``python_depends.json`` beside itself when it is imported
(through ``transformers.modeling_utils``), and raises "Cannot load dependency data, is `kernels`
correctly installed?" when the file is missing, so every model load failed in a bundle without it.
transformers also asks importlib.metadata for kernels' version before it uses it.  Collecting all its
data files (not just that one name) keeps a file added by a later release working.
"""

from PyInstaller.utils.hooks import collect_data_files, copy_metadata

datas = collect_data_files("kernels", excludes=["**/*.pyi"]) + copy_metadata("kernels")
