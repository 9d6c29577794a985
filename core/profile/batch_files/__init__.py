"""Batch files: the prompts of many (project, feature) pairs as one JSONL file, and the answers imported.

The OpenAI Batch API (half price, within 24 hours) and vLLM's offline runner read the request lines
and write the result lines of :mod:`core.llm.batch_lines`; the batch itself is sent and fetched by
:mod:`core.llm.batch_api`.  Here is what ties a line to a project:

* :mod:`.custom_ids` -- ``gl1:<project key>:<feature>:<config>:<prompt hash>:<settings tag>``;
* :mod:`.writing` -- :func:`write_batch_requests`: a line per unanswered feature, each remembered in
  its project (schema 6, :mod:`core.store.batch_requests`) with the evidence of its prompt
  (:mod:`.evidence`: retrieved once, reused across configurations and models);
* :mod:`.importing` -- :func:`import_batch_results`: every line counted, each good answer stored by
  :mod:`.answers` exactly as an online answer is (classification, response cache, profile job item);
* :mod:`.reports` -- what both report.

Why a table of written requests: a result line names its request only by ``custom_id``, and the
answer must be stored with the evidence that was in the prompt.  On import the prompt is rebuilt
from the project as it is now: a re-ingested grammar or a renamed language no longer matches the
hash, and that line is refused.
"""

from core.profile.batch_files.custom_ids import CustomId, parse_custom_id
from core.profile.batch_files.importing import import_batch_results
from core.profile.batch_files.reports import BatchImportReport, BatchWriteReport, LineProblem
from core.profile.batch_files.writing import write_batch_requests

__all__ = ["BatchImportReport", "BatchWriteReport", "CustomId", "LineProblem", "import_batch_results",
           "parse_custom_id", "write_batch_requests"]
