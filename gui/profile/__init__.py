"""The profile dock: every feature of the language, batch runs and files, agreement, export."""
