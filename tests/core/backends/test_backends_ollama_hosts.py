"""Several Ollama hosts: spreading, per-host caps, skipping a failing host until it answers."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.ollama_backend import OllamaBackend
from explaincheck.core.backends.ollama_hosts import (
    DEFAULT_HOST,
    HostPool,
    NoHostAvailable,
    configured_hosts,
    model_name,
    normalize_host,
)
from explaincheck.core.taxonomy.base import Prompt, TestCase

MODEL = "gemma3:1b"
SCHEMA = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}}
CASE = TestCase("bottleneck", (1,), 0.5, "prioritized", 0)


def prompts(n: int) -> list[Prompt]:
    return [Prompt(f"question {i}", SCHEMA) for i in range(n)]


async def answer_all(backend: OllamaBackend, items: list[Prompt]):
    return await asyncio.gather(*(backend.answer(p, CASE) for p in items))


def test_host_names_are_normalised(monkeypatch):
    assert normalize_host("gpu1") == "http://gpu1:11434"
    assert normalize_host("https://ollama.com") == "https://ollama.com:443"
    assert normalize_host("http://10.0.0.2:8080/") == "http://10.0.0.2:8080"
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert configured_hosts(()) == (DEFAULT_HOST,)
    monkeypatch.setenv("OLLAMA_HOST", "box:1234")
    assert configured_hosts(()) == ("http://box:1234",)
    assert configured_hosts(("a", "a:11434", "b")) == ("http://a:11434", "http://b:11434")
    assert model_name("gemma3") == "gemma3:latest"
    assert model_name("library/gemma3:1b") == "library/gemma3:1b"


def test_requests_spread_over_hosts_with_a_cap_each():
    with (
        StandinOllama({MODEL: Script(delay=0.1)}) as a,
        StandinOllama({MODEL: Script(delay=0.1)}) as b,
    ):

        async def go():
            pool = HostPool([a.url, b.url], capacity=2, timeout=5)
            backend = OllamaBackend(MODEL, pool)
            try:
                await backend.prepare()
                assert backend.concurrency == 4
                return await answer_all(backend, prompts(12))
            finally:
                await pool.close()

        replies = asyncio.run(go())
        assert all(json.loads(r.text) == {"answer": "yes"} for r in replies)
        assert len(a.chats()) >= 4 and len(b.chats()) >= 4
        assert len(a.chats()) + len(b.chats()) == 12
        assert a.max_in_flight <= 2 and b.max_in_flight <= 2
        assert {r.host for r in replies} == {a.url, b.url}


def test_only_hosts_that_list_the_model_get_its_requests():
    with StandinOllama({"other:1b": Script()}) as a, StandinOllama({MODEL: Script()}) as b:

        async def go():
            pool = HostPool([a.url, b.url], capacity=2, timeout=5)
            backend = OllamaBackend(MODEL, pool)
            try:
                await backend.prepare()
                return await answer_all(backend, prompts(5))
            finally:
                await pool.close()

        asyncio.run(go())
        assert a.chats() == [] and len(b.chats()) == 5


@pytest.mark.parametrize("failure", ["http500", "stopped"])
def test_failing_host_is_skipped_until_it_answers_again(failure):
    with StandinOllama({MODEL: Script()}) as a, StandinOllama({MODEL: Script()}) as b:

        async def go():
            pool = HostPool([a.url, b.url], capacity=2, timeout=5, pause=0.3)
            backend = OllamaBackend(MODEL, pool, retries=3)
            try:
                await backend.prepare()
                if failure == "stopped":
                    a.stop()
                else:
                    a.models[MODEL].mode = "http500"
                first = await answer_all(backend, prompts(10))
                tried_while_failing = len(a.chats())
                if failure == "stopped":
                    a.start()
                else:
                    a.models[MODEL].mode = "correct"
                await asyncio.sleep(0.7)  # past the pause: the next request may try `a` again
                second = await answer_all(backend, prompts(10))
                return first, second, tried_while_failing
            finally:
                await pool.close()

        first, second, tried = asyncio.run(go())
        assert all(r.host == b.url for r in first)  # every request answered, by b
        assert tried <= 2  # a was tried once (and perhaps once more as a trial), then skipped
        assert any(r.host == a.url for r in second)  # a answers again: back in the rotation


def test_all_hosts_failing_is_an_error_after_the_retries():
    with StandinOllama({MODEL: Script(mode="http500")}) as a:

        async def go():
            pool = HostPool([a.url], timeout=5, pause=0.02)
            backend = OllamaBackend(MODEL, pool, retries=2)
            try:
                await backend.prepare()
                await backend.answer(prompts(1)[0], CASE)
            finally:
                await pool.close()

        from explaincheck.core.backends.base import BackendError

        with pytest.raises(BackendError, match="no reply after 3 attempts"):
            asyncio.run(go())


def test_requests_failing_together_count_as_one_failure():
    async def go():
        pool = HostPool(["127.0.0.1:9"], capacity=4, timeout=1, pause=0.5)
        host = pool.hosts[0]
        host.models, host.listed = {MODEL}, True
        leases = [await pool.acquire(MODEL, max_wait=0.1) for _ in range(4)]
        for lease in leases:  # the server went down under four requests at once
            await pool.release(lease, "failed", "connection refused")
        assert host.failures == 1 and not host.healthy
        pause = host.retry_at
        with pytest.raises(NoHostAvailable):
            await pool.acquire(MODEL, max_wait=0.05)  # skipped while its pause lasts
        host.retry_at = 0.0001  # the pause is over: one trial, which fails again
        trial = await pool.acquire(MODEL, max_wait=0.1)
        assert trial.trial
        await pool.release(trial, "failed", "connection refused")
        assert host.failures == 2 and host.retry_at > pause - 0.5
        await pool.close()

    asyncio.run(go())
