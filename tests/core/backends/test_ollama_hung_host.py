"""A host that accepts and never answers is skipped: a timeout counts against its breaker and
the retry goes to another host."""

from __future__ import annotations

import asyncio

from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.ollama_backend import OllamaBackend
from explaincheck.core.backends.ollama_hosts import HostPool
from explaincheck.core.taxonomy.base import Prompt, TestCase

MODEL = "gemma3:1b"
CASE = TestCase("bottleneck", (1,), 0.5, "prioritized", 0)
SCHEMA = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}}


def test_a_hung_host_is_skipped_and_its_requests_retried_elsewhere():
    with (
        StandinOllama({MODEL: Script(delay=0.02)}) as healthy,
        StandinOllama({MODEL: Script(mode="slow")}) as hung,  # accepts, answers after 30 s
    ):

        async def go():
            pool = HostPool([hung.url, healthy.url], capacity=2, timeout=0.5, pause=5.0)
            backend = OllamaBackend(MODEL, pool, retries=3)
            try:
                await backend.prepare()
                prompts = [Prompt(f"question {i}", SCHEMA) for i in range(40)]
                replies = await asyncio.gather(*(backend.answer(p, CASE) for p in prompts))
                return replies
            finally:
                await pool.close()

        replies = asyncio.run(go())
    assert all(r.host == healthy.url for r in replies)  # none ended in an error
    # the hung host got the requests in flight when it first timed out (its cap, 2), then none
    # for the 5 s pause; before, every timeout was "neutral" and it kept getting requests
    assert len(hung.chats()) <= 2
