"""``bench profile --batch-out / --batch-in``: Grambank profiles answered from a batch file score exactly as
the online run with the same answers (the hand-computed figures of test_bench_profile.py)."""

from __future__ import annotations

import json
import math

import pytest

from cli import main
from core.llm.batch_api import fetch, status, submit

SLICE = ("GB020", "GB021", "GB022", "GB026")
LANGUAGE = "Iranian Armenian"


@pytest.mark.slow
def test_bench_profile_from_a_batch_file(shared_dir, llm_server, llm_settings, tmp_path, capsys) -> None:
    from core.catalog import load_catalog

    catalog = load_catalog()
    for fid, answer in (("GB020", "present"), ("GB022", "absent"), ("GB026", "present")):
        llm_server.add_rule(catalog.get(fid).name, answer, cite=[1])
    common = ["bench", "profile", "--gold", str(shared_dir / "bench" / "profile" / "grambank_gold.csv"),
              "--grammars", str(shared_dir / "grammars"), "--work", str(tmp_path / "work"), "--languages", LANGUAGE,
              "--features", ",".join(SLICE), "--no-reranker", "--base-url", llm_server.url]
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main([*common, "--batch-out", str(requests)]) == 0
    assert "wrote 4 request(s)" in capsys.readouterr().out
    assert llm_server.chat_requests == []

    state = submit(requests, llm_settings)
    status(state.id, llm_settings)
    fetch(state.id, results, llm_settings)
    assert main([*common, "--batch-in", str(results), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    overall = out["scores"]["overall"]
    assert out["batch_imported"] == 4 and out["failed"] == {}
    assert overall["n"] == 4 and overall["accuracy"] == 0.5 and overall["no_value_share"] == 0.25
    assert overall["mcc"] == pytest.approx(2 / math.sqrt(80))
    assert llm_server.chat_requests == []  # every answer came from the file
