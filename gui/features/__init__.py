"""Choosing a feature and what the window shows for it: evidence, the model's value, references."""
