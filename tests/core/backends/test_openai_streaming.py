"""The ``openai:`` backend reads replies as a stream and cuts them while reading (issue 34
points 9 and 14), over real HTTP with the official client against the stand-in server: a huge
reply costs a bounded amount of memory and is stored cut, an output cap (``max_tokens`` 256
unless ``--max-tokens``) is sent, a server that ignores ``stream`` still answers, and a reply
with ``choices: []`` is one error line, never a traceback."""

from __future__ import annotations

import asyncio
import sqlite3
import tracemalloc

from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.backends.base import MAX_REPLY_CHARS, bounded_reply
from explaincheck.core.backends.openai_backend import OpenAIBackend, OpenAIHostPool
from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy.base import Prompt, TestCase

PROMPT = Prompt('How likely is the goal? Answer {"probability": p}.', {"type": "object"})
CASE = TestCase("satisfy", (3,), 0.5, "prioritized", 0)
HUGE = 40 * 2**20  # characters


def ask(server, model, **backend):
    async def go():
        pool = OpenAIHostPool([server.base_url], capacity=1, timeout=60.0, pause=0.05)
        try:
            answer = OpenAIBackend(model, pool, retries=0, **backend)
            await answer.prepare()
            return await answer.answer(PROMPT, CASE)
        finally:
            await pool.close()

    return asyncio.run(go())


def test_a_huge_reply_is_cut_while_read_in_bounded_memory():
    with StandinOpenAI({"big": Script(mode="huge", size=HUGE)}) as server:
        tracemalloc.start()
        try:
            reply = ask(server, "big")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert reply.extra["cut"] == HUGE  # counted to the end ...
    assert MAX_REPLY_CHARS <= len(reply.text) < MAX_REPLY_CHARS + 70_000  # ... kept to the cap
    assert peak < 16 * 2**20  # was: the whole body, parsed and copied (> 3 x 40 MB)
    stored = bounded_reply(reply)
    assert stored.text.endswith(f"cut after {MAX_REPLY_CHARS} of {HUGE} characters]")


def test_an_output_cap_is_sent_256_unless_told():
    with StandinOpenAI({"m": Script()}) as server:
        ask(server, "m")
        ask(server, "m", max_tokens=1000)
        caps = [body.get("max_tokens") for body in server.chats()]
        streamed = [body.get("stream") for body in server.chats()]
    assert caps == [256, 1000] and streamed == [True, True]


def test_max_tokens_reaches_the_server_from_the_command_line(tmp_path):
    with StandinOpenAI({"m": Script()}) as server:
        args = ["run", "--env", "frozen_lake", "--llm", "openai:m", "--categories", "satisfy"]
        args += ["--budget", "1", "--openai-base-url", server.base_url, "--max-tokens", "64"]
        assert main([*args, "--db", str(tmp_path / "r.sqlite")]) == 0
        assert [b["max_tokens"] for b in server.chats()] == [64]


def test_a_server_that_ignores_stream_still_answers_with_usage():
    with StandinOpenAI({"m": Script(mode="ignore_stream")}) as server:
        reply = ask(server, "m")
    assert reply.text == "{}" and reply.prompt_tokens >= 1  # the stand-in's answer to that schema


def test_usage_comes_from_the_streams_last_chunk():
    with StandinOpenAI({"m": Script(mode="reasoning")}) as server:
        reply = ask(server, "m")
        (body,) = server.chats()
    assert body["stream_options"] == {"include_usage": True}
    assert reply.reasoning_tokens == 7 and reply.thinking.startswith("First I look")
    assert reply.completion_tokens and reply.completion_tokens > 7


def test_no_choices_is_one_error_line_and_an_error_row(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with StandinOpenAI({"m": Script(mode="no_choices")}) as server:
        args = ["run", "--env", "frozen_lake", "--llm", "openai:m", "--categories", "satisfy"]
        args += ["--budget", "1", "--retries", "0", "--openai-base-url", server.base_url]
        code = main([*args, "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and "IndexError" not in err
    assert "no choices" in err
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT verdict, reason FROM executions").fetchall()
    assert rows == [("error", rows[0][1])] and "no choices" in rows[0][1]
