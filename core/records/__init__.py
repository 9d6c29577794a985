"""Records that several layers share: what the store keeps and the layers above read and write.

They sit below every layer (beside :mod:`core.models`) so that the store can persist a model's
classification or a coder's decision without importing the layers that make them.
"""
