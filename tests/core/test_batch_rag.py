"""``bench rag --batch-out / --batch-in``: the benchmark answered through the local server's Batch API, scored
here, gives the same scores as the online run with the same answers."""

from __future__ import annotations

import json
import re

from cli import main
from core.llm import LlmClient, feature_of
from core.llm.batch_api import fetch, status, submit
from core.llm.bench_rag import load_items, run_bench


def _language_of(request: dict) -> str:
    return re.findall(r"in the language (.+?)\.\n", request["messages"][1]["content"])[-1]


def test_bench_rag_scored_from_a_batch_equals_the_online_run(shared_dir, llm_server, llm_settings, tmp_path, capsys):
    data = shared_dir / "bench" / "rag"
    gold = {it.language: it.gold["81A"] for it in load_items(data, feature_of("81A"))}
    languages = list(gold)
    # Right for every other grammar, "Not enough information" for the rest: scores below 1 that must agree.
    llm_server.answer_fn = lambda r: {"reasoning": "r", "cited_paragraphs": [1], "value": (
        gold[_language_of(r)] if languages.index(_language_of(r)) % 2 == 0 else "Not enough information")}
    options = ["--feature", "81A", "--ranking", "ours", "--limit", "6", "--base-url", llm_server.url, "--json"]

    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main(["bench", "rag", *options, "--batch-out", str(requests)]) == 0
    lines = [json.loads(x) for x in requests.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 6 and all(x["custom_id"].startswith("glrag:81A:rag:ours:") for x in lines)
    assert llm_server.chat_requests == []  # writing asks nothing

    state = submit(requests, llm_settings)
    status(state.id, llm_settings)
    fetch(state.id, results, llm_settings)
    capsys.readouterr()
    assert main(["bench", "rag", *options, "--batch-in", str(results)]) == 0
    from_file = json.loads(capsys.readouterr().out)

    online = run_bench(data, feature_of("81A"), LlmClient(llm_settings), ranking="ours", limit=6)
    assert from_file["grammars"] == 6 and from_file["errors"] == 0
    assert from_file["scores"]["81A"] == vars(online.scores["81A"])
    assert 0 < from_file["scores"]["81A"]["micro_f1"] < 1
    bodies = {json.dumps({k: v for k, v in r.items() if not k.startswith("_")}, sort_keys=True)
              for r in llm_server.chat_requests}
    assert bodies == {json.dumps(x["body"], sort_keys=True) for x in lines}  # the very prompts sent online

    results.write_text(results.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    assert main(["bench", "rag", *options, "--batch-in", str(results)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["errors"] == 5 and "warning" not in captured.out
