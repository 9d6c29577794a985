"""sentence-transformers (full build): its version metadata and the modules it loads by name.

It checks installed versions through importlib.metadata and builds models from the class names
stored in each model's ``modules.json`` (``sentence_transformers.models.Pooling`` ...), which
PyInstaller's import analysis cannot see.
"""

from PyInstaller.utils.hooks import collect_submodules, copy_metadata

datas = copy_metadata("sentence_transformers")
hiddenimports = collect_submodules(
    "sentence_transformers",
    filter=lambda name: not any(part in name for part in (".evaluation", ".datasets", "trainer", "training")),
)
