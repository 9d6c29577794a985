"""argparse ``type=`` functions: every option value is checked before a handler runs.

A bad value stops the command with argparse's own message (``usage: ... error: argument --pin:
...``, exit code 2) before anything is opened or written.  Values come from the terminal: bytes
that are not UTF-8 arrive as lone surrogates (Python's ``surrogateescape``) and are refused here
with a message that says so, rather than failing later when SQLite or ``print`` meets them.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

SQLITE_MAX_INT = 2**63 - 1  # the largest INTEGER SQLite stores (a paragraph id beyond it cannot exist)
MAX_TEXT_CHARS = 20_000  # a note of about ten pages; longer is a pasting accident
MAX_NAME_CHARS = 500  # one-line values: names, models, ids, lists of ids
MAX_PAGE_LABEL_CHARS = 40
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
MAX_NAME_BYTES = 255  # NAME_MAX: one component of a path

_FEATURE_ID = re.compile(r"[A-Za-z0-9*][A-Za-z0-9* ._-]{0,63}")
_BATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")
_HUB_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_HUB_NAME = re.compile(rf"(?:{_HUB_PART}/)?{_HUB_PART}")  # Hugging Face: org/name, 96 characters a part
_DEVICE = re.compile(r"auto|cpu|mps|cuda(?::[0-9]{1,2})?")


def _shown(value: str) -> str:
    """The value as it can be printed safely (control characters and undecodable bytes escaped), shortened."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "...'"


def _check_text(value: str, *, multiline: bool) -> str:
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} is not valid UTF-8 text (the terminal sent bytes in another encoding); "
            "set the terminal to UTF-8 or retype the text.")
    allowed = "\n\t" if multiline else ""
    bad = sorted({c for c in value if unicodedata.category(c) == "Cc" and c not in allowed})
    if bad:
        names = ", ".join(f"U+{ord(c):04X}" for c in bad[:3])
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} holds control characters ({names}); "
            + ("only line breaks and tabs are kept in text." if multiline else "give a single line of text."))
    return value


def text(value: str) -> str:
    """Free text such as a note: valid UTF-8, no control characters but line breaks and tabs."""
    _check_text(value, multiline=True)
    if len(value) > MAX_TEXT_CHARS:
        raise argparse.ArgumentTypeError(f"the text is {len(value):,} characters long; at most {MAX_TEXT_CHARS:,}.")
    return value


def line(value: str) -> str:
    """A one-line value (a name, a model, a list of ids): valid UTF-8, no control characters, not blank."""
    _check_text(value, multiline=False)
    if not value.strip():
        raise argparse.ArgumentTypeError("the value is empty.")
    if len(value) > MAX_NAME_CHARS:
        raise argparse.ArgumentTypeError(f"the value is {len(value):,} characters long; at most {MAX_NAME_CHARS}.")
    return value.strip()


def optional_line(value: str) -> str:
    """A one-line value that may be empty (meaning "none", e.g. ``--reranker ''``)."""
    return line(value) if value.strip() else ""


def feature_id(value: str) -> str:
    """A feature id or alias as the catalog knows them: 81A, GB107, 116A*, PQ, "WALS 81A"."""
    text_ = line(value)
    if not _FEATURE_ID.fullmatch(text_):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} is not a feature id; give an id such as 81A, GB107 or 116A* "
            "('catalog WORDS' finds one).")
    return text_


def batch_id(value: str) -> str:
    """A Batch API id as 'batch submit' prints it (batch_...): letters, digits, '_' and '-'."""
    text_ = line(value)
    if not _BATCH_ID.fullmatch(text_):
        raise argparse.ArgumentTypeError(f"{_shown(value)} is not a batch id; give the id 'batch submit' printed "
                                         "(batch_...).")
    return text_


def model_name(value: str) -> str:
    """An embedding model: ``none``, a Hugging Face name (``all-MiniLM-L6-v2``, ``org/name``) or a local folder."""
    text_ = line(value)
    if text_.lower() == "none" or _HUB_NAME.fullmatch(text_):
        return text_
    folder = path(text_).expanduser()
    if folder.is_dir():
        return text_
    raise argparse.ArgumentTypeError(
        f"{_shown(value)} is neither a model name (all-MiniLM-L6-v2, org/name) nor a model folder; "
        "'none' ranks without a model.")


def optional_model_name(value: str) -> str:
    """:func:`model_name`, or '' for none."""
    return model_name(value) if value.strip() else ""


def device(value: str) -> str:
    """Where a model runs: auto, cpu, cuda, cuda:N or mps."""
    text_ = line(value).lower()
    if not _DEVICE.fullmatch(text_):
        raise argparse.ArgumentTypeError(f"{_shown(value)} is not a device; give auto, cpu, cuda, cuda:1 or mps.")
    return text_


def paragraph_id(value: str) -> int:
    """A paragraph id: a positive whole number (ASCII digits) that SQLite can store."""
    text_ = value.strip()
    if not (text_.isascii() and text_.isdigit()):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} is not a paragraph id; give numbers as listed by 'paragraphs PROJECT' "
            "(printed pages go in --page).")
    number = int(text_)
    if not 1 <= number <= SQLITE_MAX_INT:
        raise argparse.ArgumentTypeError(f"{_shown(value)} is not a paragraph id (ids run from 1 to {SQLITE_MAX_INT}).")
    return number


def paragraph_ids(value: str) -> list[int]:
    """Comma-separated paragraph ids ("12,15"); at least one."""
    _check_text(value, multiline=False)
    parts = [p for p in value.split(",") if p.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("no paragraph id given; e.g. 12 or 12,15.")
    return list(dict.fromkeys(paragraph_id(p) for p in parts))


def page_label(value: str) -> str:
    """A printed page label as in the book: 127, xii, A-3."""
    text_ = line(value)
    if len(text_) > MAX_PAGE_LABEL_CHARS:
        raise argparse.ArgumentTypeError(f"{_shown(value)} is not a page label (at most {MAX_PAGE_LABEL_CHARS} "
                                         "characters, as printed in the book).")
    return text_


def page_labels(value: str) -> list[str]:
    """Comma-separated printed page labels ("127,xii"); at least one."""
    _check_text(value, multiline=False)
    parts = [p for p in value.split(",") if p.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("no page label given; e.g. 127 or 127,xii.")
    return list(dict.fromkeys(page_label(p) for p in parts))


def path(value: str) -> Path:
    """A file or folder name: not empty, valid UTF-8 (SQLite and the exports need it), no NUL, not too long."""
    if not value.strip():
        raise argparse.ArgumentTypeError("the path is empty.")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} is not valid UTF-8 (the terminal sent bytes in another encoding); GrammarLens needs "
            "UTF-8 file names: rename the file or folder.")
    if "\0" in value:
        raise argparse.ArgumentTypeError(f"{_shown(value)} holds a NUL character, which no file name can have.")
    raw = os.fsencode(value)
    if len(raw) > MAX_PATH_BYTES or any(len(part) > MAX_NAME_BYTES for part in raw.split(b"/")):
        raise argparse.ArgumentTypeError(f"{_shown(value)} is too long for a file name.")
    return Path(value)


def env_name(value: str) -> str:
    """The name of an environment variable (letters, digits, underscores; not starting with a digit)."""
    text_ = line(value)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,199}", text_):
        raise argparse.ArgumentTypeError(f"{text_!r} is not an environment variable's name (like MY_SERVER_KEY)")
    return text_


def url(value: str) -> str:
    """A server address: http(s)://host[:port][/path]."""
    text_ = line(value)
    try:
        parts = urlsplit(text_)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        parts, port_ok = None, False
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname or not port_ok:
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} is not a server address; give one like http://localhost:11434/v1.")
    return text_


def int_range(low: int, high: int):
    """A type for whole numbers from ``low`` to ``high``."""

    def parse(value: str) -> int:
        text_ = value.strip().replace("_", "")
        sign = text_[:1] if text_[:1] in "+-" else ""
        digits = text_[len(sign):]
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 30:
            raise argparse.ArgumentTypeError(f"{_shown(value)} is not a whole number.")
        number = int(text_)
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{_shown(value)} is out of range ({low:,} to {high:,}).")
        return number

    parse.__name__ = "whole number"
    return parse


def float_range(low: float, high: float, *, low_open: bool = False):
    """A type for finite numbers from ``low`` (excluded if ``low_open``) to ``high``."""

    def parse(value: str) -> float:
        text_ = value.strip()
        try:
            if not text_.isascii():
                raise ValueError(value)
            number = float(text_)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(value)} is not a number.") from None
        if not math.isfinite(number) or number > high or number < low or (low_open and number == low):
            bound = f"above {low:g}" if low_open else f"from {low:g}"
            raise argparse.ArgumentTypeError(f"{_shown(value)} is out of range ({bound} to {high:g}).")
        return number

    parse.__name__ = "number"
    return parse
