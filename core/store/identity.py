"""How a GrammarLens project file is recognised: SQLite's application id and the file name's suffix."""

APPLICATION_ID = 0x474C4E53  # "GLNS", in ``PRAGMA application_id``: marks a SQLite file as a GrammarLens project
PROJECT_SUFFIX = ".grammarlens"
