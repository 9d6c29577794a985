"""The OpenAI Batch API: upload a requests file, follow the batch, download its results.

Everything goes through :meth:`core.llm.client.LlmClient.call`, so the key comes from the same
places as for online requests (environment or keyring, never a file), and uploads, polls and
downloads get the same timeout, retries on 429/5xx/timeouts and error messages.  Files are
streamed: a requests file is checked (and, with ``model``, rewritten) line by line, and results
are written to ``OUT.part`` as they arrive and renamed when complete.

Nothing here is written into a project; :mod:`core.profile.batch_files` writes requests and imports
results (their lines are :mod:`core.llm.batch_lines`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.errors import GrammarLensError
from core.llm.client import LlmClient
from core.llm.errors import LlmError
from core.llm.settings import LlmSettings
from core.records.vocabulary import ErrorKind

if TYPE_CHECKING:
    import openai

MAX_REQUESTS = 50_000  # the Batch API's limits per file
MAX_BYTES = 200 * 1024 * 1024
FINISHED = ("completed", "expired", "cancelled")  # states with (possibly partial) results to fetch


@dataclass
class BatchStatus:
    """A batch as the server reports it."""

    id: str
    status: str  # validating | in_progress | finalizing | completed | failed | expired | cancelling | cancelled
    total: int = 0
    completed: int = 0
    failed: int = 0
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        counts = f"{self.completed:,} of {self.total:,} answered" + (f", {self.failed:,} failed" if self.failed else "")
        text = f"batch {self.id}: {self.status}, {counts}"
        return text + ("; " + "; ".join(self.errors[:5]) if self.errors else "")

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class FetchReport:
    status: BatchStatus
    out_path: Path
    answers: int = 0  # lines of the output file
    error_lines: int = 0  # lines of the error file (appended after the answers)

    def describe(self) -> str:
        return (f"wrote {self.answers:,} answer(s)" + (f" and {self.error_lines:,} error line(s)" if self.error_lines
                                                      else "") + f" of batch {self.status.id} to {self.out_path}")


def check_requests_file(path: Path) -> int:
    """Count the lines of a requests file, refusing one the Batch API would reject (naming the line)."""
    if not path.is_file():
        raise GrammarLensError(f"{path} does not exist.", "Write one with: profile P.grammarlens --batch-out FILE.")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise GrammarLensError(f"{path.name} is {size / 2**20:,.0f} MB; the Batch API takes at most 200 MB per file.",
                               "Write several files (fewer projects or features per file).")
    seen: set[str] = set()
    count = 0
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
                raise GrammarLensError(f"Line {number} of {path.name} is not valid JSON (or is nested too deeply).",
                                       "Write the file again with --batch-out.") from None
            if not (isinstance(line, dict) and isinstance(line.get("custom_id"), str)
                    and isinstance(line.get("body"), dict) and line.get("method") == "POST"):
                raise GrammarLensError(f"Line {number} of {path.name} is not a batch request "
                                       "(custom_id, method POST, url, body).", "Write it with --batch-out.")
            if line["custom_id"] in seen:
                raise GrammarLensError(f"Line {number} of {path.name} repeats custom_id {line['custom_id']!r}.",
                                       "Each request of a batch needs its own id; write the file again.")
            seen.add(line["custom_id"])
            count += 1
    if count == 0:
        raise GrammarLensError(f"{path.name} holds no requests.", "Every feature may already be answered.")
    if count > MAX_REQUESTS:
        raise GrammarLensError(f"{path.name} holds {count:,} requests; the Batch API takes at most 50,000 per batch.",
                               "Write several files (fewer projects or features per file).")
    return count


def _with_model(path: Path, model: str, folder: Path) -> Path:
    """A copy of the requests file whose every body asks ``model`` (streamed)."""
    fd, name = tempfile.mkstemp(prefix="requests-", suffix=".jsonl", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out, open(path, "rb") as fh:
        for raw in fh:
            if raw.strip():
                line = json.loads(raw)
                line["body"]["model"] = model
                out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    return Path(name)


def _status(batch) -> BatchStatus:
    counts = getattr(batch, "request_counts", None)
    errors = []
    data = getattr(getattr(batch, "errors", None), "data", None) or []
    for e in data:
        line = f" (line {e.line})" if getattr(e, "line", None) else ""
        errors.append(f"{getattr(e, 'code', '') or 'error'}{line}: {getattr(e, 'message', '')}")
    return BatchStatus(batch.id, batch.status, int(getattr(counts, "total", 0) or 0),
                       int(getattr(counts, "completed", 0) or 0), int(getattr(counts, "failed", 0) or 0),
                       batch.input_file_id, batch.output_file_id, batch.error_file_id, errors)


def _unknown(batch_id: str, settings: LlmSettings):
    return lambda: LlmError(f"There is no batch {batch_id!r} at {settings.public_base_url()}.",
                            "Use the id that 'batch submit' printed (batch_...), with the same --base-url and key.",
                            kind=ErrorKind.NOT_FOUND)


def submit(requests_path: str | os.PathLike, settings: LlmSettings, *, model: str | None = None,
           api_key: str | None = None) -> BatchStatus:
    """Upload a requests file and start a batch on it (completion window 24 h)."""
    path = Path(requests_path)
    count = check_requests_file(path)
    client = LlmClient(settings, api_key=api_key)
    upload = _with_model(path, model, Path(tempfile.gettempdir())) if model else path
    try:
        def send(api):
            with open(upload, "rb") as fh:
                return api.files.create(file=(path.name, fh), purpose="batch")

        uploaded, _ = client.call(send)
        batch, _ = client.call(lambda api: api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h",
            metadata={"source": "GrammarLens", "requests": str(count)}))
    finally:
        if upload != path:
            with contextlib.suppress(OSError):
                upload.unlink()
    return _status(batch)


def status(batch_id: str, settings: LlmSettings, *, api_key: str | None = None) -> BatchStatus:
    client = LlmClient(settings, api_key=api_key)
    batch, _ = client.call(lambda api: api.batches.retrieve(batch_id), not_found=_unknown(batch_id, settings))
    return _status(batch)


def fetch(batch_id: str, out_path: str | os.PathLike, settings: LlmSettings, *,
          api_key: str | None = None) -> FetchReport:
    """Download a finished batch's answers (then its error lines) into one results file.

    A failed batch, or one still running, is refused with a message saying why; an expired or
    cancelled batch yields what was answered before it stopped.  ``out_path`` (and its ``.part``)
    is checked before the batch is asked about: never a project, a PDF or a folder; an earlier
    results file is replaced.
    """
    from core.output_paths import check_output_file

    out = check_output_file(out_path)
    part = check_output_file(out.with_name(out.name + ".part"))
    client = LlmClient(settings, api_key=api_key)
    current = status(batch_id, settings, api_key=api_key)
    if current.status == "failed":
        raise GrammarLensError(f"Batch {batch_id} failed and has no results: "
                               + ("; ".join(current.errors[:5]) or "no reason given") + ".",
                               "Fix the requests file (the line is named above) and submit it again.")
    if current.status not in FINISHED:
        raise GrammarLensError(f"Batch {batch_id} is not finished yet ({current.status}, "
                               f"{current.completed:,} of {current.total:,} answered).",
                               f"Check again later with: batch status {batch_id}")
    if not current.output_file_id and not current.error_file_id:
        raise GrammarLensError(f"Batch {batch_id} ended ({current.status}) without any results.",
                               "Submit the requests file again.")
    report = FetchReport(current, out)
    try:
        with open(part, "wb") as fh:
            if current.output_file_id:
                report.answers = _append_file(client, fh, batch_id, current.output_file_id)
            if current.error_file_id:
                report.error_lines = _append_file(client, fh, batch_id, current.error_file_id)
        os.replace(part, out)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise
    if current.status != "completed":
        print_note = f"batch {batch_id} {current.status} before finishing: only part of it was answered"
        report.status.errors.append(print_note)
    return report


def _append_file(client: LlmClient, fh: BinaryIO, batch_id: str, file_id: str) -> int:
    """Append a file of the batch to ``fh`` as it streams in; returns its lines (a retry rewrites what it wrote)."""
    start = fh.tell()

    def download(api: openai.OpenAI) -> int:
        fh.seek(start)
        fh.truncate()
        lines, last = 0, b"\n"
        with api.files.with_streaming_response.content(file_id) as response:
            for chunk in response.iter_bytes():
                fh.write(chunk)
                lines += chunk.count(b"\n")
                last = chunk[-1:] or last
        if last != b"\n":  # a file without a final newline: keep the next file's lines apart
            fh.write(b"\n")
            lines += 1
        return lines

    count, _ = client.call(download, not_found=lambda: LlmError(
        f"The results file {file_id} of batch {batch_id} is gone.",
        "Results are kept for a limited time; submit the batch again.", kind=ErrorKind.NOT_FOUND))
    return count
