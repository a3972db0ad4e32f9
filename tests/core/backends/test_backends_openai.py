"""The OpenAI-compatible backend over real HTTP: the official ``openai`` client against the
stand-in server (refused json_schema, 429 with Retry-After, 500, slow, hanging, reasoning,
usage, wrong content type)."""

from __future__ import annotations

import asyncio

import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.backends.base import BackendError
from explaincheck.core.backends.ollama_backend import ModelNotFoundError
from explaincheck.core.backends.openai_backend import (
    JSON_OBJECT,
    JSON_SCHEMA,
    TEXT,
    OpenAIBackend,
    OpenAIHostPool,
    api_key_for,
    key_variable,
    normalize_base_url,
    served_models,
)
from explaincheck.core.backends.registry import BackendContext, create_backend, parse_spec
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Prompt, TestCase

SCHEMA = {
    "type": "object",
    "properties": {"probability": {"type": "number", "minimum": 0, "maximum": 1}},
    "required": ["probability"],
}
PROMPT = Prompt('How likely is the goal? Answer {"probability": p}.', SCHEMA)
CASE = TestCase("satisfy", (3,), 0.5, "prioritized", 0)
MODEL = "standin-1b"


def ask(server, *, timeout=5.0, retries=2, times=1, urls=None, model=MODEL):
    async def go():
        pool = OpenAIHostPool(urls or [server.base_url], capacity=2, timeout=timeout, pause=0.05)
        backend = OpenAIBackend(model, pool, retries=retries)
        try:
            await backend.prepare()
            return [await backend.answer(PROMPT, CASE) for _ in range(times)], pool
        finally:
            await pool.close()

    return asyncio.run(go())


def test_json_schema_is_sent_and_usage_read():
    with StandinOpenAI({MODEL: Script()}) as server:
        (reply,), _ = ask(server)
        body = server.chats()[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["temperature"] == 0.0 and body["seed"] == 0
    assert reply.text == '{"probability": 0.5}'
    assert reply.output_mode == JSON_SCHEMA
    assert reply.prompt_tokens == len(PROMPT.text) // 4
    assert reply.completion_tokens == len(reply.text) // 4
    assert reply.reasoning_tokens == 0
    assert reply.host == server.base_url


def test_refused_json_schema_falls_back_once_per_host():
    with StandinOpenAI({MODEL: Script(mode="no_json_schema")}) as server:
        server.schemas[PROMPT.text] = SCHEMA
        replies, _ = ask(server, times=3)
        kinds = [(b.get("response_format") or {}).get("type") for b in server.chats()]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object"]
    assert [r.output_mode for r in replies] == [JSON_OBJECT] * 3
    assert replies[0].text == '{"probability": 0.5}'


def test_no_response_format_at_all_falls_back_to_text():
    with StandinOpenAI({MODEL: Script(mode="no_response_format", text="p = 0.3")}) as server:
        (reply,), _ = ask(server)
        kinds = [(b.get("response_format") or {}).get("type") for b in server.chats()]
    assert kinds == ["json_schema", "json_object", None]
    assert reply.output_mode == TEXT and reply.text == "p = 0.3"


def test_reasoning_content_and_think_blocks_are_thinking_not_answer():
    with StandinOpenAI({MODEL: Script(mode="reasoning")}) as server:
        (reply,), _ = ask(server)
    assert reply.text == '{"probability": 0.5}'
    assert reply.thinking == "First I look at the holes next to the state."
    assert reply.reasoning_tokens == 7
    with StandinOpenAI({MODEL: Script(mode="think")}) as server:
        (reply,), _ = ask(server)
    assert reply.text == '{"probability": 0.5}' and "<think>" not in reply.text
    assert reply.thinking == "First I look at the holes next to the state."


def test_429_waits_what_retry_after_says(monkeypatch):
    from explaincheck.core.backends import openai_backend

    waits: list[float] = []
    sleep = asyncio.sleep

    async def recording_sleep(seconds: float, *args, **kwargs):
        waits.append(seconds)
        return await sleep(seconds, *args, **kwargs)

    monkeypatch.setattr(openai_backend.asyncio, "sleep", recording_sleep)
    with StandinOpenAI({MODEL: Script(fail_first=1, failure="http429", retry_after="1")}) as server:
        (reply,), _ = ask(server)
        assert len(server.chats()) == 2
    assert reply.text == '{"probability": 0.5}'
    assert 1.0 in waits  # the client's own retries are off: the backend waits what it was told


def test_500_is_retried_then_given_up():
    with StandinOpenAI({MODEL: Script(fail_first=1, failure="http500")}) as server:
        (reply,), _ = ask(server)
        assert len(server.chats()) == 2
    assert reply.text == '{"probability": 0.5}'
    with StandinOpenAI({MODEL: Script(fail_first=99, failure="http500")}) as server:
        with pytest.raises(BackendError, match=r"no reply after 3 attempts: .*HTTP 500"):
            ask(server)
        assert len(server.chats()) == 3


def test_hanging_server_times_out_and_is_retried():
    with StandinOpenAI({MODEL: Script(mode="hang")}) as server:
        with pytest.raises(BackendError, match=r"no reply from .* within 0.3 s"):
            ask(server, timeout=0.3, retries=1)
        assert len(server.chats()) == 2


def test_slow_first_reply_then_answer():
    with StandinOpenAI({MODEL: Script(fail_first=1, failure="slow")}) as server:
        (reply,), _ = ask(server, timeout=0.5, retries=1)
    assert reply.text == '{"probability": 0.5}'


def test_wrong_content_type_is_no_reply():
    with (
        StandinOpenAI({MODEL: Script(mode="html")}) as server,
        pytest.raises(BackendError, match="not JSON"),
    ):
        ask(server, retries=1)


def test_json_that_is_no_chat_completion_is_no_reply():
    with (
        StandinOpenAI({MODEL: Script(mode="junk")}) as server,
        pytest.raises(BackendError, match="not a chat completion"),
    ):
        ask(server, retries=1)
    assert len(server.chats()) == 2  # retried once, then given up


def test_one_model_spreads_over_two_servers():
    with (
        StandinOpenAI({MODEL: Script(delay=0.1)}) as one,
        StandinOpenAI({MODEL: Script(delay=0.1)}) as two,
    ):

        async def go():
            pool = OpenAIHostPool([one.base_url, two.base_url], capacity=2, timeout=5, pause=0.05)
            backend = OpenAIBackend(MODEL, pool)
            await backend.prepare()
            assert backend.concurrency == 4
            replies = await asyncio.gather(*(backend.answer(PROMPT, CASE) for _ in range(8)))
            await pool.close()
            return replies

        replies = asyncio.run(go())
        assert len(one.chats()) == 4 and len(two.chats()) == 4
    assert {r.host for r in replies} == {one.base_url, two.base_url}


def test_missing_model_and_no_server_are_one_line():
    with StandinOpenAI({"other": Script()}) as server:
        with pytest.raises(ModelNotFoundError, match=r"not served by .*it serves: other"):
            ask(server)
        port = server.port
    with pytest.raises(ExplaincheckError, match="no OpenAI-compatible server answers"):
        ask(None, urls=[f"http://127.0.0.1:{port}/v1"], timeout=1)


def test_key_is_sent_never_stored(monkeypatch):
    with StandinOpenAI({MODEL: Script()}) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-general")
        monkeypatch.setenv(key_variable(server.base_url), "sk-this-host")
        assert api_key_for(server.base_url) == "sk-this-host"
        (reply,), _ = ask(server)
        headers = [r["headers"] for r in server.requests]
    assert all(h.get("authorization") == "Bearer sk-this-host" for h in headers)
    assert "sk-" not in repr(reply)


def test_spec_base_urls_and_listing(monkeypatch):
    assert normalize_base_url("gpu1:8000") == "http://gpu1:8000/v1"
    assert normalize_base_url("https://h.example/api/v1/") == "https://h.example:443/api/v1"
    assert key_variable("http://gpu-1.lan:8000/v1") == "OPENAI_API_KEY_GPU_1_LAN_8000"
    with pytest.raises(ExplaincheckError, match="credentials in its URL"):
        parse_spec("openai:m@http://user:sk-x@h:8000/v1")
    with pytest.raises(ExplaincheckError, match="OpenAI base URL"):
        parse_spec("openai:m@ftp://h")
    with StandinOpenAI({MODEL: Script(), "b": Script()}) as server:
        assert asyncio.run(served_models([server.base_url])) == {server.base_url: ["b", MODEL]}
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        backend = create_backend(f"openai:{MODEL}", BackendContext())
        assert backend.pool.urls == (server.base_url,)
        backend = create_backend(f"openai:{MODEL}@{server.base_url}?key=x", BackendContext())
        assert backend.spec == f"openai:{MODEL}@{server.base_url}"


def test_cached_prompt_tokens_are_read_when_the_server_says():
    """llama-server and vLLM say how much of the prompt came from their prompt cache
    (``usage.prompt_tokens_details.cached_tokens``); a server that does not say leaves it None."""
    with StandinOpenAI({MODEL: Script(cached_tokens=5), "plain": Script()}) as server:
        (cached,), _ = ask(server)
        (plain,), _ = ask(server, model="plain")
    assert cached.cached_prompt_tokens == 5 and cached.prompt_tokens == len(PROMPT.text) // 4
    assert plain.cached_prompt_tokens is None and plain.prompt_tokens == cached.prompt_tokens
