"""``bench rag --batch-out / --batch-in``: the benchmark answered through the local server's Batch API, scored
here, gives the same scores as the online run with the same answers."""

from __future__ import annotations

import json
import re

from bench.rag import load_items, run_bench
from cli import main
from core.llm import LlmClient, feature_of
from core.llm.batch_api import fetch, status, submit


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


def test_bench_rag_results_of_any_shape_are_listed_not_raised(shared_dir, llm_settings, tmp_path) -> None:
    """Bodies are checked as a project import checks them: garbage is a problem line, never an exception."""
    from bench.rag_batch import score_results, write_requests

    data, spec = shared_dir / "bench" / "rag", feature_of("81A")
    requests = tmp_path / "requests.jsonl"
    assert write_requests(data, spec, llm_settings, requests, ranking="ours", limit=6) == 6
    ids = [json.loads(x)["custom_id"] for x in requests.read_text(encoding="utf-8").splitlines()]
    answer = json.dumps({"reasoning": "r", "cited_paragraphs": [1], "value": "Not enough information"})

    def line(cid, choices, usage=None) -> str:
        body = {"model": "gpt-4o", "choices": choices, "usage": usage or {"prompt_tokens": 9, "completion_tokens": 3}}
        return json.dumps({"custom_id": cid, "error": None, "response": {"status_code": 200, "body": body}})

    good = [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]
    lines = [line(ids[0], good),
             line(ids[1], {"x": 1}),
             line(ids[2], [{"message": {"content": 5}}]),
             line(ids[3], ["SOV"]),
             line(ids[4], good, usage={"prompt_tokens": "x", "completion_tokens": -3}),  # scored: counts unknown
             line(ids[5], [{"message": None}]),
             json.dumps({"custom_id": [ids[5]], "response": None}),
             "[" * 50_000]
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report, problems = score_results(data, spec, llm_settings, results, ranking="ours", limit=6)
    assert [p.split(":")[0] for p in problems] == [f"line {n}" for n in (2, 3, 4, 6, 7, 8)]
    assert "choices is an object, not a list" in problems[0] and "content is the number 5" in problems[1]
    assert "first choice is the text 'SOV'" in problems[2] and "message" in problems[3]
    assert "is not a prompt of this benchmark run" in problems[4] and "is not valid JSON" in problems[5]
    assert sum(r.error is None for r in report.results) == 2
