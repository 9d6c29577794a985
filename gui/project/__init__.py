"""The open project in the window: opening and creating, grammar PDFs, the language line and dialog, backups."""
