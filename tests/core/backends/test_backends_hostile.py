"""Backends against hostile input: URLs with credentials or nonsense, replies that cannot be
stored as they are, thinking blocks in bulk, malformed model info, per-LLM request identity."""

from __future__ import annotations

import pytest

from explaincheck.core.backends.base import (
    MAX_REPLY_CHARS,
    Reply,
    bounded_reply,
    clean_count,
    clean_text,
)
from explaincheck.core.backends.llm import RequestIdentity
from explaincheck.core.backends.ollama_backend import context_length, split_thinking
from explaincheck.core.backends.ollama_hosts import BadHostError, normalize_host, redact_url
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.backends.registry import normalize_spec, parse_spec
from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Prompt

PROMPT = Prompt("Is it? Answer yes or no.", {"type": "object"})


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "not a valid URL"),
        ("http://h:99999", "Port out of range"),
        ("http://h:abc", "not a valid URL"),
        ("::::", "not a valid URL"),
        ("http://", "no host name"),
        ("ftp://h", "scheme must be http or https"),
        ("http://h:0", "port 0"),
        ("http://a b", "invalid host name"),
    ],
)
def test_bad_host_urls_are_one_clear_error(url, problem):
    with pytest.raises(BadHostError, match=problem) as caught:
        normalize_host(url)
    assert "\n" not in str(caught.value)


def test_credentials_never_survive_a_url():
    assert redact_url("https://me:secret@h:1/p?token=SECRET#x") == "https://h:1/p"
    assert redact_url("h:1/?token=SECRET") == "h:1/"
    assert redact_url("http://[::1") == "http://[::1"  # never raises
    assert normalize_host("http://h:1/?token=SECRET") == "http://h:1"
    with pytest.raises(BadHostError, match="user name or key") as refused:  # never half-kept
        normalize_host("http://u:SECRET@h:1/?token=SECRET")
    assert "SECRET" not in str(refused.value)
    assert normalize_host("[::1]:8080") == "http://[::1]:8080"


def test_specs_are_normalised_and_stripped_of_tokens():
    assert normalize_spec(" random ") == "random"
    assert normalize_spec("ollama: gemma3:1b ") == "ollama:gemma3:1b"
    assert normalize_spec("ollama:m@http://h:1/?token=SECRET#f") == "ollama:m@http://h:1/"
    assert parse_spec(" random") == ("random", "")
    with pytest.raises(ExplaincheckError) as caught:
        parse_spec("ollama:m@http://u:SECRET@h/?token=SECRET")
    assert "SECRET" not in str(caught.value)
    with pytest.raises(ExplaincheckError) as caught:
        parse_spec("gpt@http://h/?token=SECRET")
    assert "SECRET" not in str(caught.value)
    campaign = Campaign("frozen_lake", ("random", " random", "ollama:m@http://h:1?token=S"))
    assert campaign.llms == ("random", "ollama:m@http://h:1")
    assert "token" not in str(campaign.settings())


def test_request_identity_differs_by_backend_model_and_settings():
    base = RequestIdentity("ollama", ("http://h:1",), "a:latest", {"seed": 0}, {"think": None})
    others = [
        RequestIdentity("ollama", ("http://h:1",), "b:latest", {"seed": 0}, {"think": None}),
        RequestIdentity("local", ("http://h:1",), "a:latest", {"seed": 0}, {"think": None}),
        RequestIdentity("ollama", ("http://h:1",), "a:latest", {"seed": 0}, {"think": True}),
        RequestIdentity("ollama", ("http://h:1",), "a:latest", {"seed": 1}, {"think": None}),
    ]
    hashes = {base.request_hash(PROMPT), *(o.request_hash(PROMPT) for o in others)}
    assert len(hashes) == 5
    elsewhere = RequestIdentity("ollama", ("http://h:2",), "a:latest", {"seed": 0}, {"think": None})
    assert elsewhere.request_hash(PROMPT) == base.request_hash(PROMPT)  # stored: any listed host
    key = base.request_hash(PROMPT)
    assert elsewhere.flight_key(key) != base.flight_key(key)  # in flight: same hosts only
    both = RequestIdentity("ollama", ("http://h:2", "http://h:1"), "a:latest", {"seed": 0}, {})
    swapped = RequestIdentity("ollama", ("http://h:1", "http://h:2"), "a:latest", {"seed": 0}, {})
    assert both.flight_key(key) == swapped.flight_key(key)  # the host order does not matter


@pytest.mark.timeout(120)  # a hang guard: the quadratic version took minutes on these sizes
def test_split_thinking_is_linear_and_keeps_the_answer():
    assert split_thinking("<think>a</think>{}<think>b</think> x", "t") == ("{} x", "t\na\nb")
    assert split_thinking("<think>open only {}", "") == ("<think>open only {}", "")
    assert split_thinking("{}", "kept") == ("{}", "kept")
    for content in ("<think>" * 150_000, "<think>x</think>" * 70_000, "</think><think>" * 70_000):
        assert split_thinking(content + "{}", "")[0].endswith("{}")


@pytest.mark.parametrize(
    ("info", "length"),
    [
        ({"general.architecture": "g", "g.context_length": 4096}, 4096),
        ({"g.context_length": "8192"}, 8192),
        ({"g.context_length": 8192.0}, 8192),
        ({"g.context_length": "abc"}, None),
        ({"g.context_length": float("inf")}, None),
        ({"g.context_length": float("nan")}, None),
        ({"g.context_length": -1}, None),
        ({"g.context_length": 10**40}, None),
        ({"g.context_length": True}, None),
        ({"g.context_length": [1]}, None),
        ({}, None),
        (None, None),
        ([1, 2], None),
    ],
)
def test_context_length_believes_only_whole_positive_numbers(info, length):
    assert context_length(info) == length


def test_replies_are_made_storable_and_capped():
    reply = Reply(
        text="a\ud800" + "x" * (MAX_REPLY_CHARS + 10),
        thinking="t" * (MAX_REPLY_CHARS + 1),
        latency=float("nan"),
        prompt_tokens=10**29,
        completion_tokens=7,
    )
    bounded = bounded_reply(reply)
    assert bounded.text.startswith("a\ufffdxx") and "cut after" in bounded.text
    assert bounded.extra["cut"] == MAX_REPLY_CHARS + 12
    assert bounded.extra["thinking_cut"] == MAX_REPLY_CHARS + 1
    assert len(bounded.text) < MAX_REPLY_CHARS + 100
    assert bounded.latency == 0.0 and bounded.prompt_tokens is None
    assert bounded.completion_tokens == 7
    small = bounded_reply(Reply(text='{"a": 1}', prompt_tokens=3))
    assert small.text == '{"a": 1}' and "cut" not in small.extra and small.prompt_tokens == 3
    assert [clean_count(v) for v in (5, 5.0, 5.5, -1, "5", None, True)] == [
        5, 5, None, None, None, None, None,
    ]  # fmt: skip
    assert clean_text(None) == "" and clean_text("\udfff") == "\ufffd"


def test_random_answerer_draws_afresh_per_repeat():
    from explaincheck.core.campaign.plan import plan_campaign

    plan = plan_campaign(Campaign("frozen_lake", ("random",), ("ranking", "satisfy"), budget=6))
    backend = RandomBackend(plan.oracle, plan.environment, seed=3)
    cases = [e.case for e in plan.executions]
    for case in cases:
        assert backend.reply_text(case, 0) == backend.reply_text(case)  # repeat 0 as before
        assert backend.reply_text(case, 2) == RandomBackend(plan.oracle, seed=3).reply_text(case, 2)
    differs = sum(backend.reply_text(c, 0) != backend.reply_text(c, 1) for c in cases)
    assert differs >= len(cases) // 2
