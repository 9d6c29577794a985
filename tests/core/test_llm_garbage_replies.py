"""A reply of any shape from the model server ends a classification cleanly (issue 19).

Each case is served over real HTTP by the local server's canned ``body`` behaviour and goes
through ``classify``: a reply whose answer cannot be found is a clear :class:`LlmError` (a message
naming what is wrong, a hint, not retryable, asked once) and stores nothing; a reply whose answer
is fine but whose token counts cannot be read is stored with zero counts and an unknown cost.
Either way the project is left consistent: no transaction open, nothing half-stored, and the next
classification is stored as usual.  The last tests check that the HTTP faults (401, 429, 5xx,
timeouts) end ``classify`` with their errors and store nothing.
"""

from __future__ import annotations

import json

import pytest

from core.llm import Evidence, LlmError, classify, get_classification, list_classifications
from core.llm.features import feature_of
from core.store.repository import get_paragraphs

ANSWER = json.dumps({"reasoning": "Paragraph 1 says the verb comes last.", "cited_paragraphs": [1], "value": "SOV"})


def reply(choices: object = None, usage: object = None, **extra: object) -> dict:
    """A chat completion whose parts are given as they should be sent (None: a good one)."""
    body = {"id": "chatcmpl-canned", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}]
            if choices is None else choices,
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150} if usage is None else usage}
    body.update(extra)
    return body


def one_choice(message: object) -> list:
    return [{"index": 0, "message": message, "finish_reason": "stop"}]


def evidence(llm_project) -> list[Evidence]:
    p = get_paragraphs(llm_project.project, [llm_project.paragraph_ids["word_order"]])[0]
    return [Evidence(number=1, rank=1, text=p.text, page_label=p.page_label, paragraph_id=p.id)]


def run(llm_project, llm_settings):
    return classify(llm_project.project, feature_of("81A"), config="rag", llm_settings=llm_settings,
                    evidence=evidence(llm_project))


def assert_consistent(llm_project, llm_server, llm_settings, stored: int) -> None:
    """No transaction left open, ``stored`` classifications, and the next classification is stored."""
    project = llm_project.project
    assert not project.conn.in_transaction
    assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(list_classifications(project)) == stored
    llm_server.add_rule("verb-final", "SOV")
    llm_settings.use_cache = False
    after = run(llm_project, llm_settings)
    assert [v.label for v in after.values] == ["SOV"] and after.cost_usd == 0.0
    assert len(list_classifications(project)) == stored + 1


UNREADABLE = [
    pytest.param(reply(choices={"x": 1}), "its choices is an object, not a list", id="choices-object"),
    pytest.param(reply(choices="SOV"), "its choices is the text 'SOV', not a list", id="choices-text"),
    pytest.param(reply(choices=["SOV"]), "its first choice is the text 'SOV', not an object", id="choice-text"),
    pytest.param(reply(choices=[7]), "its first choice is the number 7, not an object", id="choice-number"),
    pytest.param(reply(choices=[None]), "its first choice is null, not an object", id="choice-null"),
    pytest.param(reply(choices=[{"index": 0, "finish_reason": "stop"}]), "its first choice has no message",
                 id="message-missing"),
    pytest.param(reply(choices=one_choice(ANSWER)), "its first choice's message is the text", id="message-text"),
    pytest.param(reply(choices=one_choice([ANSWER])), "its first choice's message is a list", id="message-list"),
    pytest.param(reply(choices=one_choice({"content": 5})), "the answer's content is the number 5, not text",
                 id="content-number"),
    pytest.param(reply(choices=one_choice({"content": True})), "the answer's content is true, not text",
                 id="content-bool"),
    pytest.param(reply(choices=one_choice({"content": {"value": "SOV"}})), "the answer's content is an object",
                 id="content-object"),
    pytest.param(reply(choices=one_choice({"content": [{"type": "image_url", "image_url": {}}]})),
                 "the answer's content parts are not all text", id="content-parts-image"),
    pytest.param([reply()], "it is a list, not a chat completion", id="reply-list"),
    pytest.param("SOV", "it is the text 'SOV', not a chat completion", id="reply-text"),
    pytest.param(None, "it is null, not a chat completion", id="reply-null"),
    pytest.param(b"<html><body>502 Bad Gateway</body></html>", "it is not JSON", id="html"),
    pytest.param(b'{"choices": [{"message": {"content": "SO', "it is not JSON", id="cut-off"),
    pytest.param(b"", "it is empty", id="empty-body"),
    pytest.param(b'{"choices": "\xff\xfe"}', "it is not UTF-8 text", id="not-utf8"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, "nested too deeply", id="too-deep"),
    pytest.param(b'{"choices": ' + b"9" * 5000 + b"}", "a number too long to read", id="huge-number"),
]


@pytest.mark.parametrize("body, why", UNREADABLE)
def test_unreadable_reply_is_a_clear_error_and_stores_nothing(llm_project, llm_server, llm_settings, body, why) -> None:
    llm_server.enqueue({"body": body})
    with pytest.raises(LlmError) as info:
        run(llm_project, llm_settings)
    error = info.value
    assert error.kind == "bad_reply" and not error.retryable
    assert error.message.startswith(f"The reply of the model server at {llm_server.url}") and why in error.message
    assert "chat-completions format" in error.hint and "\n" not in error.message
    assert len(llm_server.chat_requests) == 1  # not asked again: the same server would answer the same
    assert project_cache_rows(llm_project) == 0
    assert_consistent(llm_project, llm_server, llm_settings, stored=0)


@pytest.mark.parametrize("body", [reply(choices=[]), {"id": "chatcmpl-canned", "object": "chat.completion"},
                                  reply(choices=None) | {"choices": None}], ids=["empty-list", "missing", "null"])
def test_reply_without_a_choice_is_an_empty_reply(llm_project, llm_server, llm_settings, body) -> None:
    llm_server.enqueue({"body": body})
    with pytest.raises(LlmError) as info:
        run(llm_project, llm_settings)
    assert info.value.kind == "empty" and not info.value.retryable and "without any answer" in info.value.message
    assert_consistent(llm_project, llm_server, llm_settings, stored=0)


def project_cache_rows(llm_project) -> int:
    return llm_project.project.conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]


@pytest.mark.parametrize("usage", [
    "120 tokens", [120, 30], 7,
    {"prompt_tokens": -1, "completion_tokens": 30},
    {"prompt_tokens": 120, "completion_tokens": 10 ** 12},
    {"prompt_tokens": 120.5, "completion_tokens": 30},
    {"prompt_tokens": True, "completion_tokens": 30},
    {"prompt_tokens": "x", "completion_tokens": 30},
    {"prompt_tokens": "1e3", "completion_tokens": 30},
    {"prompt_tokens": 120, "completion_tokens": {"n": 30}},
], ids=["text", "list", "number", "negative", "huge", "fraction", "bool", "text-count", "text-exponent", "object"])
def test_unreadable_token_counts_keep_the_answer_with_an_unknown_cost(llm_project, llm_server, llm_settings,
                                                                        usage) -> None:
    llm_server.enqueue({"body": reply(usage=usage)})
    result = run(llm_project, llm_settings)
    assert [v.label for v in result.values] == ["SOV"] and result.status == "ok"
    stored = get_classification(llm_project.project, result.id)
    assert (stored.prompt_tokens, stored.completion_tokens, stored.cost_usd) == (0, 0, None)
    assert [v.label for v in stored.values] == ["SOV"] and stored.raw_answer == ANSWER
    assert_consistent(llm_project, llm_server, llm_settings, stored=1)


@pytest.mark.parametrize("usage, counts", [
    ({"prompt_tokens": "120", "completion_tokens": " 30 "}, (120, 30)),
    ({"prompt_tokens": 120.0, "completion_tokens": 30}, (120, 30)),
    ({"completion_tokens": 30}, (0, 30)),
    ({"prompt_tokens": None, "completion_tokens": None}, (0, 0)),
], ids=["text-digits", "whole-float", "one-left-out", "nulls"])
def test_readable_token_counts_are_read(llm_project, llm_server, llm_settings, usage, counts) -> None:
    llm_server.enqueue({"body": reply(usage=usage)})
    result = run(llm_project, llm_settings)
    stored = get_classification(llm_project.project, result.id)
    assert (stored.prompt_tokens, stored.completion_tokens, stored.cost_usd) == (*counts, 0.0)


def test_hosted_price_is_unknown_when_counts_are_unreadable(llm_server, llm_settings) -> None:
    """Read directly: a hosted model's cost is computed from readable counts, and unknown otherwise."""
    from core.llm.client import read_chat_response

    good = read_chat_response(reply(), "gpt-4o")
    assert good.cost_usd == pytest.approx(120 * 2.5e-6 + 30 * 10e-6)
    bad = read_chat_response(reply(usage={"prompt_tokens": "many"}), "gpt-4o")
    assert (bad.prompt_tokens, bad.completion_tokens, bad.cost_usd, bad.content) == (0, 0, None, ANSWER)


def test_odd_but_readable_replies_are_stored(llm_project, llm_server, llm_settings) -> None:
    """Text content parts are joined; lone surrogates, a model name or finish reason of the wrong type do no harm."""
    parts = [{"type": "text", "text": ANSWER[:20]}, {"type": "text", "text": ANSWER[20:]}]
    llm_server.enqueue({"body": reply(choices=one_choice({"content": parts}))},
                       {"body": reply(choices=[{"message": {"content": ANSWER[:-1] + ', "note": "\ud800"}'},
                                                "finish_reason": ["stop"]}], model={"name": 5})})
    for _ in range(2):
        llm_settings.use_cache = False
        result = run(llm_project, llm_settings)
        assert [v.label for v in result.values] == ["SOV"]
        stored = get_classification(llm_project.project, result.id)
        assert stored.model == "gpt-4o" and stored.raw_answer.encode("utf-8")
    assert "\ufffd" in stored.raw_answer
    assert_consistent(llm_project, llm_server, llm_settings, stored=2)


@pytest.mark.parametrize("faults, kind, retryable", [
    ([401], "auth", False),
    ([429] * 2, "rate_limited", True),
    ([500] * 2, "server", True),
    ([503] * 2, "server", True),
    ([{"delay": 1.0}] * 2, "timeout", True),
], ids=["401", "429", "500", "503", "timeout"])
def test_http_faults_during_classify_store_nothing(llm_project, llm_server, llm_settings, faults, kind,
                                                   retryable) -> None:
    llm_settings.max_retries = 1
    llm_settings.timeout_s = 0.3
    llm_server.enqueue(*faults)
    with pytest.raises(LlmError) as info:
        run(llm_project, llm_settings)
    assert info.value.kind == kind and info.value.retryable is retryable and info.value.hint
    assert len(llm_server.chat_requests) == len(faults)
    if retryable:
        assert f"gave up after {len(faults)} attempts" in info.value.message
    llm_settings.timeout_s = 5.0
    assert_consistent(llm_project, llm_server, llm_settings, stored=0)
