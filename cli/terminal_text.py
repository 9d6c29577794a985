"""What the CLI prints is text, never terminal commands: control characters from project data are shown escaped.

A project file comes from anywhere (a colleague, a download); a language name, a note or a
paragraph holding ``ESC [ 2 J`` or an OSC 8 link would, printed raw, clear the screen, retitle the
terminal or plant a disguised link.  Everything the CLI writes to stdout and stderr goes through
:class:`EscapingWriter`, which keeps newlines and tabs and writes every other C0/C1 control
character, DEL and the bidirectional overrides as a visible ``\\xNN``/``\\uNNNN``.  JSON output is
unchanged (the encoder already escapes control characters).
"""

from __future__ import annotations

from typing import TextIO

_KEPT = {"\n", "\t"}
_TABLE = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in _KEPT}
_TABLE.update({c: f"\\u{c:04x}" for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]})


def escape_controls(text: str) -> str:
    """``text`` with control characters (other than newline and tab) written as escapes."""
    return text.translate(_TABLE)


class EscapingWriter:
    """A text stream that writes through ``inner`` with control characters escaped (see the module)."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(escape_controls(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)
