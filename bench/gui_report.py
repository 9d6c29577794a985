"""The figures of ``bench gui`` (:mod:`bench.gui`), printed against their targets.

Why a module of its own: measuring the window and wording what was measured are two jobs; this one
reads the results dict and returns the exit code (1 when a target was missed).
"""

from __future__ import annotations

import json
from pathlib import Path


def report_results(results: dict, as_json: bool, only: str | None) -> int:
    """Print the figures; the exit code says whether a target was missed."""
    fe = results.get("first_evidence_s")
    fe_fails = fe is not None and not (isinstance(fe.get("cold"), float) and fe["cold"] <= 3.0)
    if as_json:
        print(json.dumps(results, indent=2))
    elif only is not None:
        _print_first_evidence(fe)
        for pace in results.get("key_pace", []):
            _print_key_pace(pace)
    else:
        fp = results["first_page_s"]
        stall = results["ui_stall_during_classification"]
        first = results["ui_stall_during_first_retrieval"]
        print(f"grammar: {Path(results['pdf']).name} ({results['pages']} pages), ingest {results['ingest_s']} s")
        print(f"first page shown: median {fp['median']} s, max {fp['max']} s (target < 1 s)")
        print(f"classification ({results['classify_s']} s, reranker {results['reranker']}): "
              f"max UI stall {stall['max_stall_ms']} ms, p99 {stall['p99_stall_ms']} ms, "
              f"{stall['stalls_over_100ms']} stalls over 100 ms (target 0); value {results['value']}")
        print(f"first retrieval ({results['retrieve_s']} s, indexes, any reranker): max UI stall "
              f"{first['max_stall_ms']} ms, p99 {first['p99_stall_ms']} ms, "
              f"{first['stalls_over_100ms']} over 100 ms (target 0)")
        nf = results["next_feature"]
        print(f"coding pass, next feature to its evidence shown ({nf['feature_set']}, {nf['steps']} steps): with "
              f"look-ahead median {nf['lookahead']['median_ms']} ms, max {nf['lookahead']['max_ms']} ms (target "
              f"< 100 ms); without: median {nf['no_lookahead']['median_ms']} ms, max {nf['no_lookahead']['max_ms']} ms")
        _print_first_evidence(fe)
        for pace in results["key_pace"]:
            _print_key_pace(pace)
    if only is not None:
        return 1 if fe_fails or any(p["ui_stalls"]["stalls_over_100ms"] for p in results.get("key_pace", [])) else 0
    fails = fe_fails or results["first_page_s"]["max"] >= 1.0 or any(
        results[key]["stalls_over_100ms"] > 0
        for key in ("ui_stall_during_classification", "ui_stall_during_first_retrieval"))
    return 1 if fails else 0


def _print_first_evidence(fe: dict | None) -> None:
    if not fe:
        return
    for name in ("cold", "warm"):
        run = fe["runs"].get(name, {})
        if "error" in run:
            print(f"first evidence, {name}: failed: {run['error'].splitlines()[-1] if run['error'] else ''}")
    print(f"first evidence after the window shows (target <= 3 s): cold {fe['cold']} s (re-ranked "
          f"{fe['cold_final']} s, book embedded {fe['cold_book_embedded']} s); warm {fe['warm']} s (re-ranked "
          f"{fe['warm_final']} s); reopened {fe['reopen']} s (re-ranked {fe['reopen_final']} s)")
    cold = fe["runs"].get("cold", {}).get("ui_stall_until_final_evidence")
    if cold:
        print(f"  UI stalls from the project's opening to the re-ranked evidence (cold): "
              f"max {cold['max_stall_ms']} ms, {cold['stalls_over_100ms']} over 100 ms")


def _print_key_pace(pace: dict) -> None:
    stalls = pace["ui_stalls"]
    print(f"coding pass, a key every {pace['interval_s']} s over {pace['steps']} features: evidence median "
          f"{pace['median_ms']} ms, max {pace['max_ms']} ms, {pace['missed']} missed (re-ranked order: median "
          f"{pace['final_median_ms']} ms, max {pace['final_max_ms']} ms, {pace.get('final_missed')} missed"
          f"{', from a cold open' if pace.get('first_minute') else ''}); look-ahead depth {pace['depth_at_end']}; "
          f"UI stalls max {stalls['max_stall_ms']} ms, {stalls['stalls_over_100ms']} over 100 ms")
