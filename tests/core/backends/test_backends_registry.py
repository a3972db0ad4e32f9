"""Specs to backends, shared host pools, and the Ollama model listing."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.campaign_fakes import toy_environment, toy_oracle
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.backends.local_backend import LocalBackend
from explaincheck.core.backends.ollama_backend import OllamaBackend
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.backends.registry import (
    KINDS,
    LOCAL_DEFAULT,
    BackendContext,
    BackendKind,
    create_backend,
    ollama_models,
    parse_spec,
    spec_forms,
    split_model_host,
)
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Prompt


def context(**changes) -> BackendContext:
    return BackendContext(oracle=toy_oracle(), environment=toy_environment(), **changes)


def test_every_spec_form_makes_its_backend():
    ctx = context(ollama_hosts=("http://gpu1:11434",))
    assert isinstance(create_backend("random", ctx), RandomBackend)
    assert isinstance(create_backend("oracle", ctx), OracleBackend)
    assert isinstance(create_backend(LOCAL_DEFAULT, ctx), LocalBackend)
    plain = create_backend("ollama:gemma3:1b", ctx)
    pinned = create_backend("ollama:qwen3:8b@https://ollama.com", ctx)
    assert isinstance(plain, OllamaBackend) and isinstance(pinned, OllamaBackend)
    assert plain.model == "gemma3:1b" and plain.pool.urls == ("http://gpu1:11434",)
    assert pinned.model == "qwen3:8b" and pinned.pool.urls == ("https://ollama.com:443",)
    assert pinned.spec == "ollama:qwen3:8b@https://ollama.com"  # the user's words
    same_hosts = create_backend("ollama:llama3.2", ctx)
    assert same_hosts.pool is plain.pool  # one pool per host set: caps hold across models


def test_max_tokens_reaches_every_backend_that_generates(monkeypatch):
    """``--max-tokens`` capped OpenAI-compatible servers only: Ollama sent no cap and a local
    model kept its own 256 whatever was given. Each now asks with the context's cap."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # made, never asked: no key needed
    ctx = context(max_tokens=77)
    prompt = Prompt("Is it safe?", {"type": "object"})
    local = create_backend(LOCAL_DEFAULT, ctx)
    assert local.request_identity(prompt).options["max_tokens"] == 77
    assert create_backend("ollama:gemma3:1b", ctx).options(prompt)["num_predict"] == 77
    assert create_backend("openai:m@http://127.0.0.1:9/v1", ctx).max_tokens == 77


def test_spec_errors_are_one_line_and_name_the_forms():
    with pytest.raises(ExplaincheckError, match=r"unknown LLM 'gpt4'.*ollama:MODEL"):
        parse_spec("gpt4")
    with pytest.raises(ExplaincheckError, match="needs a model name"):
        parse_spec("ollama:")
    with pytest.raises(ExplaincheckError, match="takes no model name"):
        parse_spec("oracle:x")
    with pytest.raises(ExplaincheckError, match="OLLAMA_API_KEY"):
        parse_spec("ollama:gemma3:1b@https://me:secret@host")
    assert split_model_host("gemma3:1b@http://h:1") == ("gemma3:1b", "http://h:1")
    assert split_model_host("gemma3:1b") == ("gemma3:1b", None)


def test_ollama_models_lists_each_answering_host_and_nothing_when_none_answers():
    with StandinOllama({"gemma3:1b": Script(), "a:latest": Script()}) as server:
        url = server.url
        assert asyncio.run(ollama_models((url,))) == {url: ["a:latest", "gemma3:1b"]}
    assert asyncio.run(ollama_models((url,), timeout=1)) == {}  # stopped now
    with StandinOllama({}) as empty:
        assert asyncio.run(ollama_models((empty.url,))) == {empty.url: []}


def test_the_kinds_table_is_the_spec_syntax():
    assert spec_forms() == ", ".join(kind.form for kind in KINDS.values())
    assert {"random", "noisy:Q", "flaw:KIND", "ollama:MODEL[@URL]", "local[:NAME]"} <= set(
        spec_forms().split(", ")
    )
    live = [k.prefix for k in KINDS.values() if k.live]  # a new kind may join them
    assert {"random", "oracle", "ollama", "openai", "local"} <= set(live)
    assert not {"noisy", "flaw"} & set(live)  # computed over the whole oracle: never asked live
    assert KINDS["flaw"].offered()[0] == "flaw:myopic:2"
    assert KINDS["flaw"].description("flaw:myopic:5").startswith("plans only 5 steps ahead")
    assert KINDS["ollama"].offered() == ()  # needs a model name typed or listed from a host
    assert KINDS["random"].offered() == ("random",)


class Echo(Backend):
    """A throwaway backend: replies with the text of its spec."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def answer(self, prompt, case) -> Reply:
        return Reply(text=self.text)


def test_a_new_backend_is_one_kind_in_the_table(monkeypatch, tmp_path, capsys):
    from explaincheck.core.backends import registry
    from explaincheck.core.cli.main import main

    kind = BackendKind(
        "echo",
        lambda rest, ctx: Echo(rest),
        "replies its argument",
        argument="TEXT",
        argument_words="a reply text",
        example='echo:{"answer": "yes"}',
        live=True,
    )
    monkeypatch.setitem(registry.KINDS, "echo", kind)
    assert "echo:TEXT" in spec_forms()
    with pytest.raises(ExplaincheckError, match=r"needs a reply text, e\.g\. echo:"):
        parse_spec("echo:")
    assert create_backend("echo: yes ", context()).spec == "echo:yes"
    db = tmp_path / "echo.sqlite"
    reply = 'echo:{"answer": "yes"}'
    args = ["run", "--env", "frozen_lake", "--llm", reply, "--categories", "bottleneck"]
    assert main([*args, "--budget", "4", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and {r["llm"] for r in rows} == {reply}
    # "yes" is right exactly on the bottleneck cases (selection balances yes and no)
    assert {r["verdict"] for r in rows} == {"pass", "fail"}
