"""The Ollama backend over real HTTP against the stand-in server (official client, no mocks)."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.base import BackendError
from explaincheck.core.backends.llm import Decoding
from explaincheck.core.backends.ollama_backend import (
    MIN_CONTEXT,
    THINKING_RESERVE,
    ModelNotFoundError,
    OllamaBackend,
    split_thinking,
)
from explaincheck.core.backends.ollama_hosts import HostPool
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Prompt, TestCase

SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": ["up", "down"]}},
    "required": ["action"],
}
PROMPT = Prompt("Which action is best here? Answer in JSON.", SCHEMA)
CASE = TestCase("best_action", (3,), 0.5, "prioritized", 0)
MODEL = "gemma3:1b"


def ask(
    server: StandinOllama,
    *,
    timeout: float = 5.0,
    retries: int = 2,
    repeat: int = 0,
    decoding: Decoding | None = None,
    prompt: Prompt = PROMPT,
    model: str = MODEL,
    **settings,
):
    """Prepare a backend on ``server`` and answer one prompt (a fresh loop, like the CLI)."""

    async def go():
        pool = HostPool([server.url], capacity=2, timeout=timeout, pause=0.05)
        backend = OllamaBackend(model, pool, decoding=decoding, retries=retries, **settings)
        try:
            await backend.prepare()
            return await backend.answer(prompt, CASE, repeat=repeat), backend
        finally:
            await pool.close()

    return asyncio.run(go())


@pytest.fixture
def server():
    with StandinOllama({MODEL: Script()}) as standin:
        yield standin


def test_correct_reply_and_request_settings(server):
    reply, _backend = ask(server)
    assert json.loads(reply.text) == {"action": "up"}
    assert reply.host == server.url
    assert reply.prompt_tokens and reply.completion_tokens
    assert reply.thinking == ""
    (body,) = server.chats()
    assert body["format"] == SCHEMA  # structured output: the category's schema
    assert body["stream"] is True  # read as a stream, cut at the cap while read
    assert body["messages"] == [{"role": "user", "content": PROMPT.text}]
    options = body["options"]
    assert options["temperature"] == 0 and options["seed"] == 0
    assert MIN_CONTEXT <= options["num_ctx"] <= 32768
    assert reply.extra["options"] == options


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("fenced", '```json\n{"action": "up"}\n```'),
        ("prose", 'Sure! Here is my answer:\n{"action": "up"}\nI hope this helps.'),
        ("malformed", '{"action":'),
    ],
)
def test_reply_text_is_kept_raw_for_the_parser(server, mode, expected):
    server.models[MODEL].mode = mode
    reply, _ = ask(server)
    assert reply.text == expected


def test_thinking_is_kept_apart(server):
    server.models[MODEL].mode = "thinking"
    reply, _ = ask(server)
    assert json.loads(reply.text) == {"action": "up"}
    assert reply.thinking == server.models[MODEL].thinking


def test_inline_think_tags_are_split_off():
    text, thinking = split_thinking('<think>hmm, up?</think>\n{"action": "up"}', "")
    assert text == '{"action": "up"}'
    assert thinking == "hmm, up?"
    assert split_thinking('{"a": 1}', "t") == ('{"a": 1}', "t")


def test_slow_beyond_timeout_is_an_error_not_a_hang(server):
    server.models[MODEL].mode = "slow"  # answers after 30 s: the test's own timeout guards it
    with pytest.raises(BackendError, match=r"no reply from .* within 0\.5 s"):
        ask(server, timeout=0.5)


def test_http_500_is_retried_then_reported(server):
    server.models[MODEL].mode = "http500"
    with pytest.raises(BackendError, match=r"no reply after 3 attempts: .*HTTP 500"):
        ask(server, retries=2)
    assert len(server.chats()) == 3


@pytest.mark.parametrize("failure", ["http500", "drop"])
def test_transient_failures_are_retried_with_backoff(server, failure, monkeypatch):
    script = server.models[MODEL]
    script.fail_first, script.failure = 2, failure
    pauses = scheduled_pauses(monkeypatch)
    reply, _ = ask(server, retries=3)
    assert json.loads(reply.text) == {"action": "up"}
    assert len(server.chats()) == 3
    assert pauses == pytest.approx([0.05, 0.1])  # the pool skips the host 0.05 s, then 0.1 s


def scheduled_pauses(monkeypatch) -> list[float]:
    """The pauses the host pool schedules after each failure: ``retry_at`` less the clock
    reading it was computed from, so the schedule is checked without timing anything."""
    from explaincheck.core.backends import ollama_hosts

    readings: list[float] = []
    clock = ollama_hosts.time

    class RecordingClock:
        def __getattr__(self, name):
            return getattr(clock, name)

        def monotonic(self) -> float:
            readings.append(clock.monotonic())
            return readings[-1]

    monkeypatch.setattr(ollama_hosts, "time", RecordingClock())
    pauses: list[float] = []
    release = ollama_hosts.HostPool.release

    async def recording_release(self, lease, outcome, error=""):
        await release(self, lease, outcome, error)
        if outcome == "failed" and lease.host.retry_at:
            pauses.append(lease.host.retry_at - readings[-1])

    monkeypatch.setattr(ollama_hosts.HostPool, "release", recording_release)
    return pauses


def test_dropped_connection_is_reported(server):
    server.models[MODEL].mode = "drop"
    with pytest.raises(BackendError, match="connection dropped without a reply"):
        ask(server, retries=1)


def test_model_not_pulled_has_a_clear_message(server):
    with pytest.raises(ModelNotFoundError) as info:
        ask(server, model="qwen3:8b")
    assert (
        str(info.value) == f"model qwen3:8b not found on {server.url}: run `ollama pull qwen3:8b`"
    )


def test_model_removed_mid_run_says_so(server):
    async def go():
        pool = HostPool([server.url], timeout=5, pause=0.05)
        backend = OllamaBackend(MODEL, pool, retries=1)
        await backend.prepare()
        del server.models[MODEL]  # `ollama rm` while the campaign runs
        try:
            with pytest.raises(BackendError, match=r"model gemma3:1b not found on .*ollama pull"):
                await backend.answer(PROMPT, CASE)
        finally:
            await pool.close()

    asyncio.run(go())


def test_no_server_is_a_one_line_user_error():
    with StandinOllama() as standin:
        url = standin.url

    async def go():
        pool = HostPool([url], timeout=2)
        try:
            await OllamaBackend(MODEL, pool).prepare()
        finally:
            await pool.close()

    with pytest.raises(ExplaincheckError, match=r"no Ollama server answers .* local:gemma3-270m"):
        asyncio.run(go())


def test_untagged_model_means_latest():
    with StandinOllama({"gemma3:latest": Script()}) as standin:
        reply, _ = ask(standin, model="gemma3")
        assert reply.text


def test_api_key_is_sent_as_bearer(server, monkeypatch):
    monkeypatch.setenv("OLLAMA_API_KEY", "sk-secret-123")
    reply, backend = ask(server)
    chat = next(r for r in server.requests if r["path"] == "/api/chat")
    headers = {k.lower(): v for k, v in chat["headers"].items()}
    assert headers["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(reply)
    assert "sk-secret" not in repr(backend.request_identity(PROMPT))


def test_context_length_caps_num_ctx_and_warns_when_too_small(caplog):
    with StandinOllama({MODEL: Script(context_length=4096)}) as standin:
        long_prompt = Prompt("Describe the states. " * 800, SCHEMA)  # ~16,800 characters
        with caplog.at_level(logging.WARNING, logger="explaincheck.backends.ollama"):
            ask(standin, prompt=long_prompt)
        assert standin.chats()[0]["options"]["num_ctx"] == 4096
        assert "does not fit in gemma3:1b's context of 4096 tokens" in caplog.text


def test_large_prompt_gets_a_larger_context():
    with StandinOllama({MODEL: Script(context_length=131072)}) as standin:
        ask(standin, prompt=Prompt("x" * 60_000, SCHEMA))
        assert standin.chats()[0]["options"]["num_ctx"] == 32768


def test_repeats_get_their_own_seed_and_temperature(server):
    decoding = Decoding(seed=7, repeats=3, repeat_temperature=0.7)
    ask(server, decoding=decoding, repeat=2)
    options = server.chats()[0]["options"]
    assert options["seed"] == 9 and options["temperature"] == 0.7


def test_the_output_cap_reaches_the_server_as_num_predict(server):
    """Issue 53's leftover: Ollama runs were uncapped (no ``num_predict``) while OpenAI-compatible
    servers got ``max_tokens``; the request body the server reads now carries the cap, 256 by
    default as the other backends."""
    ask(server)
    ask(server, max_tokens=40)
    assert [body["options"]["num_predict"] for body in server.chats()] == [256, 40]


def test_a_thinking_model_gets_the_reasoning_reserve_on_top_of_the_cap(server):
    """Ollama counts a thinking model's reasoning in ``num_predict``: the cap alone would cut it
    before the answer, so the reserve ``num_ctx`` keeps for it is added (not with think off)."""
    server.models[MODEL].mode = "thinking"
    reply, _ = ask(server, max_tokens=40)
    assert json.loads(reply.text) == {"action": "up"}
    ask(server, max_tokens=40, think=False)
    sent = [body["options"]["num_predict"] for body in server.chats()]
    assert sent == [40 + THINKING_RESERVE, 40]


def test_timeout_is_always_set():
    with pytest.raises(ValueError):
        HostPool(["127.0.0.1:1"], timeout=0)
    pool = HostPool(["127.0.0.1:1"], timeout=3)
    assert pool.hosts[0].client._client.timeout.read == 3  # the client's default is None
