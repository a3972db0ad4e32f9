"""A huge reply is cut at the cap while it is read: the client's memory stays bounded."""

from __future__ import annotations

import json
import subprocess
import sys

from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.base import MAX_REPLY_CHARS

MODEL = "gemma3:1b"

# The client, in a process of its own so that its peak memory is its own (the stand-in server
# holding the 100 MB answer runs in the test's process).
CLIENT = """
import asyncio, json, resource, sys
from explaincheck.core.backends.base import bounded_reply
from explaincheck.core.backends.ollama_backend import OllamaBackend
from explaincheck.core.backends.ollama_hosts import HostPool
from explaincheck.core.taxonomy.base import Prompt, TestCase

async def main():
    pool = HostPool([sys.argv[1]], timeout=60)
    backend = OllamaBackend("gemma3:1b", pool, retries=0)
    try:
        await backend.prepare()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        case = TestCase("x", (0,), 0.5, "p", 0)
        reply = await backend.answer(Prompt("q", {"type": "object"}), case)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    finally:
        await pool.close()
    reply = bounded_reply(reply)
    seen = {"grown_kb": after - before, "kept": len(reply.text), "cut": reply.extra.get("cut")}
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_a_100_mb_reply_is_cut_while_read(tmp_path):
    huge = '{"answer": "yes"}' + "x" * 100_000_000
    with StandinOllama({MODEL: Script()}, answer=lambda request: huge) as server:
        done = subprocess.run(
            [sys.executable, "-c", CLIENT, server.url],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["cut"] == len(huge)  # the stored reason still says how long the reply was
    assert seen["kept"] < MAX_REPLY_CHARS + 100
    # read whole (before), the 100 MB body raised the peak by 80 MB; streamed, by nothing
    assert seen["grown_kb"] < 20_000, seen


def test_a_server_ignoring_the_stream_gets_one_clear_error():
    huge = '{"answer": "yes"}' + "x" * 20_000_000
    script = Script(single_body=True)  # one 20 MB JSON line, as if stream were false
    with StandinOllama({MODEL: script}, answer=lambda request: huge) as server:
        done = subprocess.run(
            [sys.executable, "-c", CLIENT, server.url],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode != 0
    assert "reply line longer than" in done.stderr
